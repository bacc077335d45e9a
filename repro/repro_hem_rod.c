/*
 * The rod studies of repro_hem (Tumiotto & Arnold 2024, Sec. 4): roll-up (n = 8) and flying
 * spaghetti (n = 16) in S³⋉R³ with Kirchhoff constraints — fixed-step orders of hem1 … hem5, the
 * local error estimate at fixed steps, the adaptive hem5 run, and genalpha against the
 * half-explicit methods (configuration error against CPU time).
 */
#define _POSIX_C_SOURCE 200809L
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "repro_hem.h"

typedef struct rod_case {
    const char *model, *tag;
} rod_case;

static const rod_case cases[2] = {{"roll-up", "rollup"}, {"flying-spaghetti", "spaghetti"}};

/* Orders of hem1 … hem5 at T = 1 against hem5 with a fine step (KLU, sparse path). */
static int rod_orders(const ld_model *m, const rod_case *c, const char *outdir) {
    const double T = 1.0;
    const int nh = rh_quick() ? 2 : 4;
    const long nstart[5] = {500, 500, 250, 125, 125}, nref = rh_quick() ? 2000 : 64000;
    rh_result ref;
    ld_integ_options o5 = rh_options(LD_INTEG_HEM5, LD_LA_KLU);
    if (rh_fixed(m, LD_FORM_S3SDR3, &o5, T, nref, &ref)) return 1;
    printf("### %s: fixed-step orders\n\nt ∈ [0, %g], h = T/n with n = n₀ … 2^%d n₀ (n₀ = 500 "
           "for hem1, hem2; 250 for hem3; 125 for hem4, hem5), reference hem5 with h = %.3g "
           "(s3sdr3, KLU); order between the two smallest steps with errors above 1e-12.\n\n"
           "| method | error (h max) | error (h min) | order | CPU s (h min) |\n"
           "|---|---|---|---|---|\n",
           c->model, T, nh - 1, T / (double)nref);
    char path[600];
    snprintf(path, sizeof path, "%s/r003-%s-orders.dat", outdir, c->tag);
    FILE *f = fopen(path, "w");
    double e[5][8];
    for (int p = 1; p <= 5; ++p) {
        ld_integ_options o = rh_options((ld_integ_method)(LD_INTEG_HEM1 + p - 1), LD_LA_KLU);
        double cpu = NAN;
        for (int j = 0; j < nh; ++j) {
            rh_result a;
            e[p - 1][j] = NAN;
            if (rh_fixed(m, LD_FORM_S3SDR3, &o, T, nstart[p - 1] << j, &a) == LD_OK) {
                e[p - 1][j] = rh_pos_err(&a, &ref);
                cpu = a.cpu;
            }
        }
        printf("| hem%d | %.3e | %.3e | %.2f | %.3f |\n", p, e[p - 1][0], e[p - 1][nh - 1],
               rh_order(e[p - 1], nh, 1e-12), cpu);
    }
    for (int p = 0; f && p < 5; ++p) { /* one block per method: h, error */
        for (int j = 0; j < nh; ++j)
            fprintf(f, "%.6e %.6e\n", T / (double)(nstart[p] << j), e[p][j]);
        fprintf(f, "\n\n");
    }
    if (f) fclose(f);
    printf("\n");
    return 0;
}

/* hem5 at fixed steps h/2, h, 2h on [0, T]: the estimate of every step (Atol 1e-8, Rtol 1e-6)
 * into one .dat per step; the median ratio of the estimates of h and h/2 at common times. */
static void rod_estimates(const ld_model *m, const rod_case *c, const char *outdir) {
    const double T = rh_quick() ? 0.1 : 5.0, h = 2e-3;
    double med[2] = {NAN, NAN};
    double *est[3] = {NULL, NULL, NULL};
    long n[3];
    for (int j = 0; j < 3; ++j) {
        double hj = h * (double)(1 << j) / 2.0;
        n[j] = (long)(T / hj + 0.5);
        est[j] = calloc((size_t)n[j] + 1, sizeof(double));
        ld_integ_options o = rh_options(LD_INTEG_HEM5, LD_LA_KLU);
        o.error_atol = 1e-8;
        o.error_rtol = 1e-6;
        rh_run r;
        char path[600];
        snprintf(path, sizeof path, "%s/r003-%s-est-%d.dat", outdir, c->tag, j);
        FILE *f = fopen(path, "w");
        if (est[j] && rh_start(&r, m, LD_FORM_S3SDR3, &o) == LD_OK)
            for (long i = 1; i <= n[j]; ++i) {
                if (ld_integ_advance_to(r.it, T * (double)i / (double)n[j])) break;
                est[j][i] = ld_integ_last_error(r.it);
                if (f) fprintf(f, "%.6e %.6e\n", ld_integ_t(r.it), est[j][i]);
            }
        if (f) fclose(f);
        rh_finish(&r);
    }
    for (int j = 0; j < 2 && est[0] && est[1] && est[2]; ++j) {
        long cnt = n[j + 1];
        double *ratio = calloc((size_t)cnt, sizeof(double));
        long k = 0;
        for (long i = 1; ratio && i <= cnt; ++i) { /* step i of h_{j+1} ends where 2i of h_j */
            double a = est[j + 1][i], b = est[j][2 * i];
            if (a > 0.0 && b > 0.0) ratio[k++] = log2(a / b);
        }
        for (long i = 1; i < k; ++i) /* insertion sort: k ≤ a few thousand */
            for (long l = i; l > 0 && ratio[l - 1] > ratio[l]; --l) {
                double t = ratio[l];
                ratio[l] = ratio[l - 1], ratio[l - 1] = t;
            }
        if (k) med[j] = ratio[k / 2];
        free(ratio);
    }
    printf("### %s: local error estimate at fixed steps\n\nhem5, h = %g, %g, %g on [0, %g]. "
           "Median over the steps of log2(estimate(2h)/estimate(h)): %.2f; "
           "log2(estimate(h)/estimate(h/2)): %.2f (an O(h⁵) estimate gives 5).\n\n",
           c->model, h / 2, h, 2 * h, T, med[1], med[0]);
    for (int j = 0; j < 3; ++j) free(est[j]);
}

/* The adaptive hem5 run on [0, 5] with Atol 1e-8, Rtol 1e-6: history (t, h, err). */
static void rod_adaptive(const ld_model *m, const rod_case *c, const char *outdir) {
    const double T = rh_quick() ? 0.1 : 5.0;
    ld_integ_options o = rh_options(LD_INTEG_HEM5, LD_LA_KLU);
    o.adaptive = 1;
    o.error_atol = 1e-8;
    o.error_rtol = 1e-6;
    o.h_init = 1e-4;
    rh_run r;
    char path[600];
    snprintf(path, sizeof path, "%s/r003-%s-adaptive.dat", outdir, c->tag);
    FILE *f = fopen(path, "w");
    double hmin = INFINITY, hmax = 0.0, c0 = rh_cpu();
    int rc = rh_start(&r, m, LD_FORM_S3SDR3, &o);
    while (!rc && ld_integ_t(r.it) < T) {
        rc = ld_integ_step_adaptive(r.it, T);
        if (rc) break;
        double h = ld_integ_last_h(r.it);
        hmin = fmin(hmin, h), hmax = fmax(hmax, h);
        if (f) fprintf(f, "%.6e %.6e %.6e\n", ld_integ_t(r.it), h, ld_integ_last_error(r.it));
    }
    double cpu = rh_cpu() - c0;
    if (f) fclose(f);
    ld_integ_stats st = {0};
    if (r.it) ld_integ_get_stats(r.it, &st);
    printf(
        "### %s: adaptive hem5\n\nAtol 1e-8, Rtol 1e-6, fac 0.8, facmin 0.2, facmax 5, "
        "t ∈ [0, %g]: %s; %ld accepted steps, %ld rejected, h from %.3e to %.3e, CPU %.3f s.\n\n",
        c->model, T, rc ? "FAILED" : "reached the end", st.steps, st.rejected, hmin, hmax, cpu);
    if (rc && r.it) printf("Failure: %s\n\n", ld_integ_message(r.it));
    rh_finish(&r);
}

/* genalpha (index 3, KLU) and hem2 … hem5 on [0, T]: configuration error against CPU time. */
static void rod_families(const ld_model *m, const rod_case *c, const char *outdir) {
    const double T = 1.0;
    const long nref = rh_quick() ? 2000 : 64000;
    rh_result ref;
    ld_integ_options o5 = rh_options(LD_INTEG_HEM5, LD_LA_KLU);
    if (rh_fixed(m, LD_FORM_S3SDR3, &o5, T, nref, &ref)) return;
    char path[600];
    snprintf(path, sizeof path, "%s/r003-%s-work.dat", outdir, c->tag);
    FILE *f = fopen(path, "w");
    printf("### %s: generalized-α against the half-explicit methods\n\nt ∈ [0, %g], s3sdr3, "
           "KLU; error of the configuration at T against hem5 with h = %.3g.\n\n| method | h | "
           "error | CPU s |\n|---|---|---|---|\n",
           c->model, T, T / (double)nref);
    const ld_integ_method ms[4] = {LD_INTEG_GENALPHA, LD_INTEG_HEM2, LD_INTEG_HEM4, LD_INTEG_HEM5};
    const int nh = rh_quick() ? 2 : 4;
    for (int k = 0; k < 4; ++k) {
        ld_integ_options o = rh_options(ms[k], LD_LA_KLU);
        long n0 = ms[k] == LD_INTEG_GENALPHA ? 250 : 500;
        for (int j = 0; j < nh; ++j) {
            rh_result a;
            long n = n0 << j;
            if (rh_fixed(m, LD_FORM_S3SDR3, &o, T, n, &a)) continue;
            double e = rh_pos_err(&a, &ref);
            printf("| %s | %.3g | %.3e | %.4f |\n", ld_integ_method_name(ms[k]), T / (double)n, e,
                   a.cpu);
            if (f) fprintf(f, "%d %.6e %.6e %.6e\n", k, T / (double)n, e, a.cpu);
        }
        if (f) fprintf(f, "\n\n");
    }
    if (f) fclose(f);
    printf("\n");
}

int rh_rods(const char *outdir) {
    printf("## Cosserat rods with Kirchhoff constraints\n\n");
    for (int i = 0; i < 2; ++i) {
        ld_model m;
        if (rh_load(cases[i].model, &m)) return 1;
        int rc = rod_orders(&m, &cases[i], outdir);
        if (!rc) {
            rod_estimates(&m, &cases[i], outdir);
            rod_adaptive(&m, &cases[i], outdir);
            rod_families(&m, &cases[i], outdir);
        }
        ld_model_free(&m);
        if (rc) return rc;
    }
    return 0;
}

void rh_rod_plots(FILE *f) {
    fprintf(f,
            "set logscale xy\nset key left top\nset xlabel 'h'\nset ylabel 'error'\n"
            "set output 'reproduction-003-rod-orders.png'\n"
            "set multiplot layout 1,2 title 'Rods, hem1 ... hem5: configuration error at T = 1'\n"
            "do for [C in 'rollup spaghetti'] {\n  set title C\n"
            "  plot for [p=0:4] 'r003-'.C.'-orders.dat' index p u 1:2 w lp t 'hem'.(p+1)\n}\n"
            "unset multiplot\n"
            "set output 'reproduction-003-rod-estimate.png'\nunset logscale x\nset xlabel 't'\n"
            "set ylabel 'err (eq. 21)'\nset key right top\n"
            "set multiplot layout 1,2 title 'hem5 error estimate at fixed steps (Atol 1e-8, Rtol "
            "1e-6)'\n"
            "do for [C in 'rollup spaghetti'] {\n  set title C\n"
            "  plot for [j=0:2] sprintf('r003-%%s-est-%%d.dat', C, j) w l t sprintf('h = %%g', "
            "0.001*2**j)\n}\n"
            "unset multiplot\n"
            "set output 'reproduction-003-rod-adaptive.png'\nunset title\n"
            "set multiplot layout 2,1 title 'Adaptive hem5, Atol 1e-8, Rtol 1e-6'\n"
            "set ylabel 'err'\nplot 'r003-rollup-adaptive.dat' u 1:3 w l t 'roll-up (n = 8)', "
            "'r003-spaghetti-adaptive.dat' u 1:3 w l t 'flying spaghetti (n = 16)'\n"
            "set ylabel 'h'\nplot 'r003-rollup-adaptive.dat' u 1:2 w l t 'roll-up (n = 8)', "
            "'r003-spaghetti-adaptive.dat' u 1:2 w l t 'flying spaghetti (n = 16)'\n"
            "unset multiplot\n"
            "set output 'reproduction-003-rod-work.png'\nset logscale xy\nset xlabel 'CPU s'\n"
            "set ylabel 'error at T = 1'\nset key right top\n"
            "set multiplot layout 1,2 title 'Error against CPU time'\n"
            "do for [C in 'rollup spaghetti'] {\n  set title C\n"
            "  plot for [k=0:3] 'r003-'.C.'-work.dat' index k u 4:3 w lp t "
            "word('genalpha hem2 hem4 hem5', k+1)\n}\nunset multiplot\n");
}
