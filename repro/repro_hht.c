/*
 * repro_hht OUTDIR — reproduce the studies of Sherif, Nachbagauer, Steiner & Lauß, "A modified
 * HHT method for the numerical simulation of rigid body rotations with Euler parameters"
 * (Multibody Syst. Dyn., 2019), with liedyn's hht (classical, eqs. 59–65) and hht-modified
 * (eqs. 33–34, 69) in the euler formulation:
 *   1. the spinning body (models/spinning-body.yaml): the one-step growth of ω against eq. 28
 *      (classical) and eq. 42 (modified), and the long run in which the classical method
 *      stalls;
 *   2. the heavy top (models/heavy-top.yaml): energy over t ∈ [0, 2] for α = 0, −0.1, −0.3
 *      (Fig. 5) and the integrated error e_ω of the body angular velocity on [0, 1] (Fig. 2);
 *   3. the V8 crank drive (models/crank-v8.yaml, our own data): the crankshaft's ω(t) with both
 *      methods at α = −0.3, h = 1e-4 (Fig. 8), and e_ω as h → 0 (Fig. 9).
 * Writes *.dat series and plots-002.gp (PNGs reproduction-002-*.png) into OUTDIR; the Markdown
 * report goes to stdout. Environment: REPRO_QUICK=1 shortens the crank runs (for a smoke test).
 */
#define _POSIX_C_SOURCE 200809L
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "liedyn/liedyn.h"

#ifndef LD_SOURCE_DIR
#define LD_SOURCE_DIR "."
#endif

static double cpu_now(void) {
    struct timespec ts;
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static int QUICK; /* REPRO_QUICK=1: the smoke run of make test, shortened runs */

static int load(const char *name, ld_model *m) {
    char path[512];
    ld_model_error err;
    snprintf(path, sizeof path, "%s/models/%s.yaml", LD_SOURCE_DIR, name);
    int rc = ld_model_load(path, m, &err);
    if (rc)
        fprintf(stderr, "repro_hht: %s: %s\n", path, rc == LD_EINVAL ? err.msg : ld_strerror(rc));
    return rc;
}

/* A run sampled every `every` steps: time, body angular velocity Ω (body frame) and spatial ω
 * of one body, total energy. */
typedef struct series {
    int n;
    double *t, *om, *ws, *e;
    int status;
    double t_reached, cpu;
    long steps, newton;
    char msg[320];
} series;

static void series_free(series *s) {
    free(s->t);
    memset(s, 0, sizeof *s);
}

typedef struct spec {
    const ld_model *m;
    ld_integ_method meth;
    double alpha, h, T;
    int body, every;
    ld_la_kind la;
} spec;

static void sample(const ld_system *s, const ld_integ *it, const spec *p, series *o) {
    double x[3], q[4], om[3], xd[3], R[9], e = NAN;
    const double *Q = ld_integ_q(it), *V = ld_integ_v(it);
    ld_model_body_state(s, p->body, Q, V, x, q, om, xd);
    ld_quat_to_mat(R, q);
    int i = o->n++;
    o->t[i] = ld_integ_t(it);
    for (int j = 0; j < 3; ++j) {
        o->om[3 * i + j] = om[j];
        o->ws[3 * i + j] = R[3 * j] * om[0] + R[3 * j + 1] * om[1] + R[3 * j + 2] * om[2];
    }
    if (s->ops.energy) s->ops.energy(s, o->t[i], Q, V, &e);
    o->e[i] = e;
}

/* Fixed steps h to T in the euler formulation (a step that fails ends the run; status set). */
static int run(const spec *p, series *o) {
    memset(o, 0, sizeof *o);
    long nsteps = lround(p->T / p->h), ns = nsteps / p->every + 2;
    o->t = calloc(8 * (size_t)ns, sizeof(double));
    if (!o->t) return LD_ENOMEM;
    o->om = o->t + ns, o->ws = o->om + 3 * ns, o->e = o->ws + 3 * ns;
    ld_system s;
    double *q0, *v0;
    int rc = ld_model_compile(p->m, LD_FORM_EULER, &s, &q0, &v0);
    if (rc) return rc;
    ld_integ_options op;
    ld_integ_options_init(&op);
    op.method = p->meth;
    op.alpha = p->alpha;
    op.la = p->la;
    op.newton_atol = 1e-10;
    op.newton_rtol = 1e-8;
    ld_integ *it = ld_integ_create(&s, &op, &rc);
    if (it) rc = ld_integ_init(it, 0.0, q0, v0);
    if (!rc) {
        double c0 = cpu_now();
        sample(&s, it, p, o);
        for (long k = 1; k <= nsteps; ++k) {
            rc = ld_integ_advance_to(it, (double)k * p->h);
            if (rc) {
                snprintf(o->msg, sizeof o->msg, "%s", ld_integ_message(it));
                break;
            }
            if (k % p->every == 0) sample(&s, it, p, o);
        }
        o->cpu = cpu_now() - c0;
        ld_integ_stats st;
        ld_integ_get_stats(it, &st);
        o->steps = st.steps;
        o->newton = st.newton_iterations;
        o->t_reached = ld_integ_t(it);
    }
    o->status = rc;
    ld_integ_free(it);
    free(q0);
    free(v0);
    ld_model_system_free(&s);
    return LD_OK;
}

/* e_ω = Σ_i ∫ |ω_i − ω_ref,i| dt (trapezoidal rule on the common sample grid); comp < 0: all
 * three body components (the heavy top), else the spatial component comp (the crank). */
static double e_omega(const series *a, const series *ref, int comp) {
    if (a->status || ref->status || a->n != ref->n) return NAN;
    double sum = 0.0;
    for (int i = 0; i + 1 < a->n; ++i) {
        double dt = a->t[i + 1] - a->t[i], f0 = 0.0, f1 = 0.0;
        for (int j = 0; j < 3; ++j) {
            if (comp >= 0 && j != comp) continue;
            const double *x = comp < 0 ? a->om : a->ws, *y = comp < 0 ? ref->om : ref->ws;
            f0 += fabs(x[3 * i + j] - y[3 * i + j]);
            f1 += fabs(x[3 * i + 3 + j] - y[3 * i + 3 + j]);
        }
        sum += 0.5 * dt * (f0 + f1);
    }
    return sum;
}

static FILE *open_dat(const char *outdir, const char *tag) {
    char path[512];
    snprintf(path, sizeof path, "%s/r002-%s.dat", outdir, tag);
    FILE *f = fopen(path, "w");
    if (!f) fprintf(stderr, "repro_hht: cannot write %s\n", path);
    return f;
}

static void write_series(const char *outdir, const char *tag, const series *s) {
    FILE *f = open_dat(outdir, tag);
    if (!f) return;
    fprintf(f, "# t Omega_x Omega_y Omega_z omega_x omega_y omega_z energy\n");
    for (int i = 0; i < s->n; ++i)
        fprintf(f, "%.9g %.12g %.12g %.12g %.12g %.12g %.12g %.12g\n", s->t[i], s->om[3 * i],
                s->om[3 * i + 1], s->om[3 * i + 2], s->ws[3 * i], s->ws[3 * i + 1],
                s->ws[3 * i + 2], s->e[i]);
    fclose(f);
}

static const char *mname(ld_integ_method m) {
    return m == LD_INTEG_HHT ? "classical" : "modified";
}

/* ------------------------------------------------------------------ 1. spinning body */

/* Eq. 28: the classical method's one-step deficit from ω' (M/I = r). */
static double eq28(double a, double w, double h, double r) {
    double c =
        (10 * a * a * a * a + 3 * a * a * a - 12 * a * a + 11 * a - 4) / (16 * (a - 1) * (a - 1));
    return 0.25 * a * w * w * w * h * h + r * c * w * w * h * h * h;
}

static int spinning(const char *outdir) {
    ld_model m;
    if (load("spinning-body", &m)) return 1;
    const double I = m.bodies[0].inertia[0], M = m.loads[0].vec[0], r = M / I, w0 = 50.0;
    printf("## 1. Spinning body (models/spinning-body.yaml)\n\n"
           "I_x = %g kg m², M_x = %g N m (M_x/I_x = %g rad/s²), one step from the exact state "
           "with ω' = %g rad/s about the first axis. δ = ω − ω' − h M_x/I_x, the deficit of "
           "one step; eq. 28 predicts the classical one, eq. 42 (with eq. 41, 1 − e₀ ≈ "
           "(ω'h)²/8) the modified one.\n\n",
           I, M, r, w0);
    printf("| α | h | δ classical | eq. 28 | ratio | δ modified | eq. 42 | ratio |\n"
           "|---|---|---|---|---|---|---|---|\n");
    const double alphas[3] = {0.0, -0.1, -0.3};
    m.bodies[0].omega[0] = w0;
    int bad = 0;
    for (int ia = 0; ia < 3; ++ia)
        for (int i = 0; i < 3; ++i) {
            double h = 1e-3 / (1 << i), d[2];
            for (int k = 0; k < 2; ++k) {
                spec p = {
                    &m,         k ? LD_INTEG_HHT_MODIFIED : LD_INTEG_HHT, alphas[ia], h, h, 0, 1,
                    LD_LA_DENSE};
                series s;
                run(&p, &s);
                bad |= s.status;
                d[k] = s.n == 2 ? s.om[3] - w0 - h * r : (double)NAN;
                series_free(&s);
            }
            double g = 0.5 - alphas[ia], p28 = eq28(alphas[ia], w0, h, r);
            double p42 = r * h * g * alphas[ia] * (w0 * h) * (w0 * h) / 8.0;
            printf("| %g | %g | %.4e | %.4e | %.4f | %.3e | %.3e | ", alphas[ia], h, d[0], p28,
                   d[0] / p28, d[1], p42);
            if (p42 != 0.0)
                printf("%.4f |\n", d[1] / p42);
            else
                printf("exact: \\|δ\\| = %.1e |\n", fabs(d[1]));
        }
    /* the long run */
    m.bodies[0].omega[0] = 0.0;
    const double T = QUICK ? 0.1 * m.run.t_end : m.run.t_end, h = m.run.dt, a = -0.3;
    series s[2];
    for (int k = 0; k < 2; ++k) {
        spec p = {&m, k ? LD_INTEG_HHT_MODIFIED : LD_INTEG_HHT, a, h, T, 0, 100, LD_LA_DENSE};
        run(&p, &s[k]);
        bad |= s[k].status;
        write_series(outdir, k ? "spin-modified" : "spin-classical", &s[k]);
    }
    double stall = cbrt(4.0 * r / (-a * h));
    printf("\nLong run from rest, α = %g, h = %g, t ∈ [0, %g]: exact ω(T) = %g rad/s. Classical "
           "ω(T) = %.6g rad/s (the lag of eq. 28 balances the torque at ω* = (4 (M_x/I_x) / "
           "(|α| h))^(1/3) = %.4g rad/s); modified ω(T) = %.9g rad/s (relative deficit %.2e).\n\n",
           a, h, T, r * T, s[0].om[3 * (s[0].n - 1)], stall, s[1].om[3 * (s[1].n - 1)],
           1.0 - s[1].om[3 * (s[1].n - 1)] / (r * T));
    series_free(&s[0]);
    series_free(&s[1]);
    ld_model_free(&m);
    return bad;
}

/* ------------------------------------------------------------------ 2. heavy top */

static int heavy_top(const char *outdir) {
    ld_model m;
    if (load("heavy-top", &m)) return 1;
    int bad = 0;
    const double alphas[3] = {0.0, -0.1, -0.3}, hh[2] = {1e-3, 2e-4};
    printf("## 2. Heavy top in Euler parameters (models/heavy-top.yaml, formulation euler)\n\n"
           "Energy over t ∈ [0, 2] (Sherif et al. 2019, Fig. 5); the exact motion conserves it. "
           "A run that "
           "fails (Newton diverges even after 10 step halvings) reports where.\n\n"
           "| h | method | α | E(0) (J) | E(end) − E(0) (J) | max \\|E − E(0)\\| (J) | Newton "
           "it./step | status |\n|---|---|---|---|---|---|---|---|\n");
    for (int ih = 0; ih < 2; ++ih)
        for (int k = 0; k < 2; ++k)
            for (int ia = 0; ia < 3; ++ia) {
                ld_integ_method meth = k ? LD_INTEG_HHT_MODIFIED : LD_INTEG_HHT;
                double h = hh[ih];
                spec p = {
                    &m,         meth, alphas[ia], h, QUICK ? 0.1 : 2.0, 0, (int)lround(1e-2 / h),
                    LD_LA_DENSE};
                series s;
                run(&p, &s);
                char tag[64];
                snprintf(tag, sizeof tag, "top-energy-h%g-%s-a%g", h, mname(meth), -alphas[ia]);
                write_series(outdir, tag, &s);
                double dmax = 0.0;
                for (int i = 0; i < s.n; ++i) dmax = fmax(dmax, fabs(s.e[i] - s.e[0]));
                printf("| %g | %s | %g | %.6g | %.4g | %.4g | %.2f | ", h, mname(meth), alphas[ia],
                       s.e[0], s.e[s.n - 1] - s.e[0], dmax,
                       (double)s.newton / (double)(s.steps ? s.steps : 1));
                if (s.status)
                    printf("failed at t = %.4g |\n", s.t_reached);
                else
                    printf("ok |\n");
                series_free(&s);
            }
    /* e_ω on [0, 1] (Fig. 2): α = −0.2 against references with h = 1e-6, α = −0.2 (same
     * method) and α = −0.1 (the paper's reference) */
    const double hs[5] = {1e-3, 5e-4, 1e-4, 5e-5, QUICK ? 2e-5 : 1e-5}, href = QUICK ? 1e-5 : 1e-6;
    const double Te = QUICK ? 0.05 : 1.0;
    printf(
        "\nIntegrated error e_ω = Σᵢ ∫₀¹ |Ωᵢ − Ωᵢ,ref| dt of the body angular velocity (Sherif et "
        "al. 2019, Fig. 2), α = −0.2, samples every 1e-3 s. Reference: the same method with "
        "h = %g, α = −0.2 (columns *same α*), or α = −0.1 as in the paper (columns *paper "
        "ref.*).\n\n"
        "| h | classical, same α | order | classical, paper ref. | modified, same α | order | "
        "modified, paper ref. |\n|---|---|---|---|---|---|---|\n",
        href);
    double E[2][5][2];
    for (int k = 0; k < 2; ++k) {
        ld_integ_method meth = k ? LD_INTEG_HHT_MODIFIED : LD_INTEG_HHT;
        series ref[2];
        for (int r = 0; r < 2; ++r) {
            spec p = {&m, meth, r ? -0.1 : -0.2,          href,
                      Te, 0,    (int)lround(1e-3 / href), LD_LA_DENSE};
            run(&p, &ref[r]);
            bad |= ref[r].status;
        }
        for (int i = 0; i < 5; ++i) {
            spec p = {&m, meth, -0.2, hs[i], Te, 0, (int)lround(1e-3 / hs[i]), LD_LA_DENSE};
            series s;
            run(&p, &s);
            for (int r = 0; r < 2; ++r) E[k][i][r] = e_omega(&s, &ref[r], -1);
            series_free(&s);
        }
        series_free(&ref[0]);
        series_free(&ref[1]);
    }
    FILE *f = open_dat(outdir, "top-convergence");
    if (f)
        fprintf(f, "# h eomega_classical eomega_classical_paperref eomega_modified "
                   "eomega_modified_paperref\n");
    for (int i = 0; i < 5; ++i) {
        double o0 = i ? log(E[0][i - 1][0] / E[0][i][0]) / log(hs[i - 1] / hs[i]) : (double)NAN;
        double o1 = i ? log(E[1][i - 1][0] / E[1][i][0]) / log(hs[i - 1] / hs[i]) : (double)NAN;
        printf("| %g | %.4e | %.2f | %.4e | %.4e | %.2f | %.4e |\n", hs[i], E[0][i][0], o0,
               E[0][i][1], E[1][i][0], o1, E[1][i][1]);
        if (f)
            fprintf(f, "%g %.6e %.6e %.6e %.6e\n", hs[i], E[0][i][0], E[0][i][1], E[1][i][0],
                    E[1][i][1]);
    }
    if (f) fclose(f);
    printf("\n");
    ld_model_free(&m);
    return bad;
}

/* ------------------------------------------------------------------ 3. crank drive */

static int find_body(const ld_model *m, const char *name) {
    for (int b = 0; b < m->nbodies; ++b)
        if (strcmp(m->bodies[b].name, name) == 0) return b;
    return 0;
}

static int crank(const char *outdir, int quick) {
    ld_model m;
    if (load("crank-v8", &m)) return 1;
    int bad = 0, cb = find_body(&m, "crankshaft");
    const double T = quick ? 0.05 : m.run.t_end, h = 1e-4, a = -0.3;
    printf(
        "## 3. V8 crank drive (models/crank-v8.yaml, our own data)\n\n"
        "%d bodies, %d joints, formulation euler. Crankshaft angular velocity about x (spatial), "
        "α = %g, h = %g, t ∈ [0, %g] (Sherif et al. 2019, Fig. 8), KLU.\n\n"
        "| method | ω(T) (rad/s) | steps | Newton it./step | CPU (s) | status |\n"
        "|---|---|---|---|---|---|\n",
        m.nbodies, m.njoints, a, h, T);
    for (int k = 0; k < 2; ++k) {
        ld_integ_method meth = k ? LD_INTEG_HHT_MODIFIED : LD_INTEG_HHT;
        spec p = {&m, meth, a, h, T, cb, 100, LD_LA_KLU};
        series s;
        run(&p, &s);
        bad |= s.status;
        write_series(outdir, k ? "crank-modified" : "crank-classical", &s);
        printf("| %s | %.6g | %ld | %.2f | %.1f | %s |\n", mname(meth), s.ws[3 * (s.n - 1)],
               s.steps, (double)s.newton / (double)(s.steps ? s.steps : 1), s.cpu,
               s.status ? s.msg : "ok");
        series_free(&s);
    }
    /* e_ω as h → 0 (Fig. 9) on a shorter interval */
    const double Tc = quick ? 0.05 : 1.0, hs[4] = {1e-3, 5e-4, 2.5e-4, 1.25e-4}, href = 1.5625e-5;
    printf("\nIntegrated error e_ω = ∫₀^%g |ω − ω_ref| dt of the crankshaft (Sherif et al. "
           "2019, Fig. 9), "
           "α = %g, reference h = %g with the same method and α, samples every 1e-3 s.\n\n"
           "| h | classical | order | modified | order |\n|---|---|---|---|---|\n",
           Tc, a, href);
    double E[2][4];
    for (int k = 0; k < 2; ++k) {
        ld_integ_method meth = k ? LD_INTEG_HHT_MODIFIED : LD_INTEG_HHT;
        spec pr = {&m, meth, a, href, Tc, cb, (int)lround(1e-3 / href), LD_LA_KLU};
        series ref;
        run(&pr, &ref);
        bad |= ref.status;
        for (int i = 0; i < 4; ++i) {
            spec p = {&m, meth, a, hs[i], Tc, cb, (int)lround(1e-3 / hs[i]), LD_LA_KLU};
            series s;
            run(&p, &s);
            E[k][i] = e_omega(&s, &ref, 0);
            series_free(&s);
        }
        series_free(&ref);
    }
    FILE *f = open_dat(outdir, "crank-convergence");
    if (f) fprintf(f, "# h eomega_classical eomega_modified\n");
    for (int i = 0; i < 4; ++i) {
        double o0 = i ? log2(E[0][i - 1] / E[0][i]) : (double)NAN,
               o1 = i ? log2(E[1][i - 1] / E[1][i]) : (double)NAN;
        printf("| %g | %.4e | %.2f | %.4e | %.2f |\n", hs[i], E[0][i], o0, E[1][i], o1);
        if (f) fprintf(f, "%g %.6e %.6e\n", hs[i], E[0][i], E[1][i]);
    }
    if (f) fclose(f);
    printf("\n");
    ld_model_free(&m);
    return bad;
}

/* ------------------------------------------------------------------ plots */

static void write_gnuplot(const char *outdir) {
    char path[512];
    snprintf(path, sizeof path, "%s/plots-002.gp", outdir);
    FILE *f = fopen(path, "w");
    if (!f) return;
    fprintf(
        f,
        "set terminal pngcairo size 900,560\nset grid\nset key left top\n"
        "cd '%s'\n"
        "set output 'reproduction-002-spin.png'\nset xlabel 't (s)'\nset ylabel 'omega_x (rad/s)'\n"
        "set title 'Spinning body, alpha = -0.3, h = 1e-3'\n"
        "plot 'r002-spin-classical.dat' u 1:2 w l t 'classical HHT', "
        "'r002-spin-modified.dat' u 1:2 w l t 'modified HHT', 5*x w l dt 2 t 'exact'\n"
        "set output 'reproduction-002-top-energy.png'\nset ylabel 'energy (J)'\n"
        "set title 'Heavy top, Euler parameters'\nset key left bottom\nset yrange [0:6000]\n"
        "plot for [h in '0.001 0.0002'] for [m in 'classical modified'] for [a in '0.1 0.3'] "
        "'r002-top-energy-h'.h.'-'.m.'-a'.a.'.dat' u 1:8 w l t m.' alpha = -'.a.', h = '.h\n"
        "set autoscale y\n"
        "set output 'reproduction-002-crank.png'\nset ylabel 'crankshaft omega_x (rad/s)'\n"
        "set title 'V8 crank drive, alpha = -0.3, h = 1e-4'\nset key left top\n"
        "plot 'r002-crank-classical.dat' u 1:5 w l t 'classical HHT', "
        "'r002-crank-modified.dat' u 1:5 w l t 'modified HHT'\n"
        "set output 'reproduction-002-convergence.png'\nset logscale xy\nset xlabel 'h (s)'\n"
        "set ylabel 'e_omega'\nset title 'Integrated error of the angular velocity'\n"
        "set key right bottom\n"
        "plot 'r002-top-convergence.dat' u 1:2 w lp t 'top, classical', "
        "'' u 1:4 w lp t 'top, modified', 'r002-crank-convergence.dat' u 1:2 w lp t 'crank, "
        "classical', '' u 1:3 w lp t 'crank, modified', 0.5*x w l dt 2 t 'slope 1', "
        "2e3*x**2 w l dt 3 t 'slope 2'\n",
        outdir);
    fclose(f);
}

int main(int argc, char **argv) {
    const char *outdir = argc > 1 ? argv[1] : ".";
    const char *q = getenv("REPRO_QUICK");
    int quick = q && q[0] == '1';
    QUICK = quick;
    printf("# Modified HHT for Euler parameters (Sherif, Nachbagauer, Steiner & Lauß 2019) — "
           "reproduced by liedyn %s\n\n",
           ld_version());
    int bad = spinning(outdir);
    bad |= heavy_top(outdir);
    bad |= crank(outdir, quick);
    write_gnuplot(outdir);
    if (bad) fprintf(stderr, "repro_hht: some runs failed (see the status columns)\n");
    return bad ? 1 : 0;
}
