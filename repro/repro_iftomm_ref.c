/*
 * The reference solutions of repro_iftomm: the exact pendulum of A01 (Jacobi elliptic functions),
 * the Test Set's angles of A03, and the references made of runs (repro_iftomm.h).
 */
#include "repro_iftomm.h"

/* sn, dn of (u, k) by the arithmetic-geometric mean (Abramowitz & Stegun 16.4); K(k) = π/(2 a_N).
 */
static double ellip_K(double k) {
    double a = 1.0, b = sqrt(1.0 - k * k);
    for (int i = 0; i < 40 && fabs(a - b) > 1e-17 * a; ++i) {
        double an = 0.5 * (a + b);
        b = sqrt(a * b);
        a = an;
    }
    return PI / (2.0 * a);
}

static void ellip_sndn(double u, double k, double *sn, double *dn) {
    double a[32], c[32], b = sqrt(1.0 - k * k);
    int n = 0;
    a[0] = 1.0, c[0] = k;
    while (fabs(c[n]) > 1e-17 && n < 30) {
        double an = 0.5 * (a[n] + b), cn = 0.5 * (a[n] - b);
        b = sqrt(a[n] * b);
        ++n;
        a[n] = an, c[n] = cn;
    }
    double phi = ldexp(1.0, n) * a[n] * u;
    for (int j = n; j > 0; --j) phi = 0.5 * (phi + asin(c[j] / a[j] * sin(phi)));
    *sn = sin(phi);
    *dn = sqrt(1.0 - k * k * *sn * *sn);
}

/* P1(t) of the benchmark's pendulum (L = 1, at rest at x = +1): with φ from the downward vertical,
 * sin(φ/2) = k sn(K − ω₀t, k), k = sin(π/4), so P1 = L (2k sn dn, 2k² sn² − 1). */
void ri_a01_exact(double t, double g, double L, double P[2]) {
    const double k = sin(PI / 4.0), K = ellip_K(k), w0 = sqrt(g / L);
    double u = fmod(K - w0 * t, 4.0 * K), sn, dn;
    if (u < 0.0) u += 4.0 * K;
    ellip_sndn(u, k, &sn, &dn);
    P[0] = L * 2.0 * k * sn * dn;
    P[1] = L * (2.0 * k * k * sn * sn - 1.0);
}

static const char *ANG_NAME[NANG] = {"beta", "Theta", "gamma", "Phi", "delta", "Omega", "epsilon"};

int ri_read_andrews_reference(double v[NANG]) {
    char path[512], line[256];
    snprintf(path, sizeof path, "%s/tests/data/andrews-reference.txt", LD_SOURCE_DIR);
    FILE *f = fopen(path, "r");
    if (!f) {
        fprintf(stderr, "repro_iftomm: cannot read %s\n", path);
        return 1;
    }
    int found = 0;
    while (fgets(line, sizeof line, f)) {
        char key[64];
        double x;
        if (line[0] == '#' || sscanf(line, "%63s %lf", key, &x) != 2) continue;
        for (int i = 0; i < NANG; ++i)
            if (strcmp(key, ANG_NAME[i]) == 0) v[i] = x, found |= 1 << i;
    }
    fclose(f);
    return found == (1 << NANG) - 1 ? 0 : 1;
}

void ri_set_ref(problem *p, int which, const run *r, const char *desc) {
    size_t n = (size_t)(p->nrows + 1) * (size_t)p->ncomp;
    p->ref[which] = calloc(n, sizeof(double));
    if (r && r->rows && !r->status) memcpy(p->ref[which], r->rows, n * sizeof(double));
    snprintf(p->ref_desc[which], sizeof p->ref_desc[which], "%s", desc);
}

/* A reference run outside the search table (its rows become ref[which]). */
int ri_ref_run(problem *p, int which, int k, double set, run *r) {
    ri_do_run(p, k, set, 0.0, p->T, r);
    char set_s[48], desc[320];
    ri_fmt_set(k, set, set_s, sizeof set_s);
    snprintf(desc, sizeof desc, "%s with %s (%ld steps, %.2f s of CPU)", ri_meth_name[k], set_s,
             r->steps, r->cpu);
    if (r->status) {
        fprintf(stderr, "repro_iftomm: %s: reference %s failed at t = %g: %s\n", p->tag, desc,
                r->t_end, r->msg);
        p->bad = 1;
    }
    ri_set_ref(p, which, r, desc);
    return r->status;
}

double ri_ref_diff(const problem *p) {
    double e = 0.0;
    for (int i = 1; i <= p->nrows; ++i)
        for (int c = 0; c < p->ncomp; ++c) {
            size_t j = (size_t)i * (size_t)p->ncomp + (size_t)c;
            e = fmax(e, fabs(p->ref[0][j] - p->ref[1][j]));
        }
    return e;
}
