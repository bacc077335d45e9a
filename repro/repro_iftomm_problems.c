/*
 * The five problems of repro_iftomm, A01 … A05: for each its references, its runs, its section of
 * the report and its plot data and gnuplot script (repro_iftomm.h).
 */
#include "repro_iftomm.h"

static const char *ANG_SYM[NANG] = {"β", "Θ", "γ", "Φ", "δ", "Ω", "ε"};

/* genalpha with ρ∞ = 1 (no numerical damping): one run, h, to the end or the failure. */
static void rho_one(problem *p, double h, run *r) {
    ri_do_run(p, M_GENALPHA, h, 1.0, p->T, r);
    fprintf(ri_out, "**genalpha with ρ∞ = 1** (no numerical damping), h = %g s: ", h);
    if (r->status)
        fprintf(ri_out,
                "the run failed at t = %.4f s after %ld steps (%.2f s of CPU): \"%s\". The "
                "energy had drifted by %.3g J at the last row before (t = %.2f s).\n\n",
                r->t_end, r->steps, r->cpu, r->msg, r->nrows ? r->ebal[r->nrows] : DNAN,
                r->nrows * p->out_dt);
    else
        fprintf(ri_out,
                "the run reached t = %g s (%.2f s of CPU); energy balance %.2e, error %s.\n\n",
                r->t_end, r->cpu, r->ebal_max, "not measured");
}

void ri_a01(problem *p) {
    /* exact reference, checked against the benchmark's solution file [D01] (x mirrored) */
    double *ex = calloc((size_t)(p->nrows + 1) * 2, sizeof(double));
    const double g = -p->m.gravity[1];
    for (int i = 0; i <= p->nrows; ++i) ri_a01_exact(i * p->out_dt, g, 1.0, ex + 2 * i);
    p->ref[0] = ex;
    p->ref[1] = malloc((size_t)(p->nrows + 1) * 2 * sizeof(double));
    memcpy(p->ref[1], ex, (size_t)(p->nrows + 1) * 2 * sizeof(double));
    snprintf(p->ref_desc[0], sizeof p->ref_desc[0],
             "the exact solution, P1 = L (2k sn dn, 2k² sn² − 1) of K − ω₀t, k = sin(π/4), "
             "ω₀ = √(g/L) (Jacobi elliptic functions by the arithmetic-geometric mean)");
    snprintf(p->ref_desc[1], sizeof p->ref_desc[1], "%s", p->ref_desc[0]);
    p->ref_cross = 0.0;
    if (ri_quick) {
        ri_quick_runs(p, 1e-3, 1e-6);
    } else {
        for (int k = 0; k < NMETH; ++k) ri_search(p, k);
    }
    run r1;
    memset(&r1, 0, sizeof r1);
    run r09;
    memset(&r09, 0, sizeof r09);
    ri_print_head(p);
    const double ts[3] = {0.5, 1999.5, 2000.0}, d01[3][2] = {{-3.91049e-01, -9.20370e-01},
                                                             {9.95044e-01, -9.94392e-02},
                                                             {8.14603e-01, -5.80019e-01}};
    fprintf(ri_out,
            "The exact P1 against the benchmark's solution file [D01] (whose x is mirrored, "
            "docs/iftomm-data.md), −x and y:\n\n| t (s) | exact x | exact y | [D01] −x | "
            "[D01] y |\n|---|---|---|---|---|\n");
    for (int i = 0; i < 3; ++i) {
        double P[2];
        ri_a01_exact(ts[i], g, 1.0, P);
        fprintf(ri_out, "| %g | %.6f | %.6f | %.6f | %.6f |\n", ts[i], P[0], P[1], -d01[i][0],
                d01[i][1]);
    }
    fprintf(ri_out, "\n");
    ri_print_refs(p);
    ri_print_runs(p);
    if (!ri_quick) {
        /* ρ∞ = 1 and, for comparison, ρ∞ = 0.9 at the same step over the same span */
        rho_one(p, 2.5e-4, &r1);
        double T = p->T;
        p->T = fmin(T, ceil((r1.status ? r1.t_end : 20.0) / p->out_dt) * p->out_dt + 10.0);
        ri_do_run(p, M_GENALPHA, 2.5e-4, 0.9, p->T, &r09);
        p->T = T;
        fprintf(ri_out,
                "For comparison, ρ∞ = 0.9 at the same step over t ∈ [0, %.1f]: %s, energy "
                "balance %.2e.\n\n",
                r09.nrows * p->out_dt, r09.status ? "failed" : "ok", r09.ebal_max);
    }
    /* plot data: the error of the best run of each method against t, and the ρ∞ = 1 energy */
    const run *b[NMETH];
    for (int k = 0; k < NMETH; ++k) b[k] = ri_best(p, k);
    FILE *f = ri_open_out("iftomm-A01.dat");
    if (f) {
        fprintf(
            f,
            "# t, max |P1 - exact| up to t of the best run of genalpha hht hem5 hem5+proj; E - E0 "
            "rho_inf = 1, rho_inf = 0.9 (same h)\n");
        double env[NMETH] = {0};
        for (int i = 1; i <= p->nrows; ++i) {
            fprintf(f, "%g", i * p->out_dt);
            for (int k = 0; k < NMETH; ++k) {
                env[k] = fmax(env[k], ri_row_err(p, b[k], p->ref[0], i));
                fprintf(f, " %.6e", b[k] ? env[k] : DNAN);
            }
            fprintf(f, " %.6e %.6e\n", i <= r1.nrows ? r1.ebal[i] : DNAN,
                    i <= r09.nrows ? r09.ebal[i] : DNAN);
        }
        fclose(f);
    }
    f = ri_open_out("iftomm-A01.gp");
    if (f) {
        char t[NMETH][96];
        for (int k = 0; k < NMETH; ++k) ri_title_of(b[k], t[k], sizeof t[k]);
        fprintf(f,
                "set terminal pngcairo noenhanced size 1000,800\nset grid\ncd '%s'\n"
                "set output 'iftomm-A01.png'\nset multiplot layout %d,1 title 'IFToMM A01, "
                "simple pendulum (%g s)'\n"
                "set logscale y\nset format y '%%.0e'\nset xlabel 't (s)'\n"
                "set ylabel 'max |P1 - P1 exact| up to t (m)'\nset key right bottom\n"
                "set title 'error of P1, the most accurate run of each method'\n"
                "plot 'iftomm-A01.dat' u 1:2 w l t '%s', '' u 1:3 w l t '%s', '' u 1:4 w l t "
                "'%s', '' u 1:5 w l t '%s', 1e-3 w l dt 2 lc 'black' t 'benchmark 1e-3'\n",
                ri_outdir, r1.nrows ? 2 : 1, p->T, t[0], t[1], t[2], t[3]);
        if (r1.nrows) /* the ρ∞ = 1 run (not in the quick mode) */
            fprintf(f,
                    "set title 'energy, genalpha h = 2.5e-4'\nset ylabel '|E - E0| (J)'\n"
                    "set xrange [0:%g]\nset key left top\n"
                    "plot 'iftomm-A01.dat' u 1:(abs($6)) w l t 'rho_inf = 1', '' u 1:(abs($7)) w "
                    "l t 'rho_inf = 0.9'\n",
                    r09.nrows ? r09.nrows * p->out_dt : p->T);
        fprintf(f, "unset multiplot\n");
        fclose(f);
    }
    ri_run_free(&r1);
    ri_run_free(&r09);
}

void ri_a02(problem *p) {
    /* hem5 at tight tolerances can stall at the singular positions (the step size control
     * gives up): the tightest of these tolerances that gets through is the reference */
    run r0;
    const double rtols[3] = {1e-8, 1e-7, 1e-6};
    for (int i = 0; i < 3; ++i) {
        p->bad = 0;
        if (i) free(p->ref[0]), ri_run_free(&r0);
        if (!ri_ref_run(p, 0, M_HEM5P, rtols[i], &r0)) break;
    }
    /* the reference of hem5: genalpha with h and h/2 extrapolated (Richardson, the h² term
     * removed: (4 x(h/2) − x(h))/3), runs of the table (the search needs them anyway) */
    run *rc = ri_get_run(p, M_GENALPHA, 2.5e-3), *rg = ri_get_run(p, M_GENALPHA, 1.25e-3);
    char desc[320];
    snprintf(
        desc, sizeof desc,
        "genalpha with h = 2.5e-3 s and 1.25e-3 s extrapolated, (4 x(h/2) − x(h))/3 (%ld + %ld "
        "steps, %.2f s of CPU)",
        rc ? rc->steps : 0L, rg ? rg->steps : 0L, (rc ? rc->cpu : 0.0) + (rg ? rg->cpu : 0.0));
    if (!rg || rg->status || !rc || rc->status) p->bad = 1;
    ri_set_ref(p, 1, rg, desc);
    for (size_t j = 0; rc && rg && !p->bad && j < (size_t)(p->nrows + 1) * 2; ++j)
        p->ref[1][j] = (4.0 * rg->rows[j] - rc->rows[j]) / 3.0;
    /* the runs above were measured before this reference existed: again */
    if (rc) rc->err = ri_run_error(p, rc, p->ref[0], p->nrows);
    if (rg) rg->err = ri_run_error(p, rg, p->ref[0], p->nrows);
    p->ref_cross = ri_ref_diff(p);
    if (ri_quick) {
        ri_quick_runs(p, 2.5e-3, 1e-6);
    } else {
        for (int k = 0; k < NMETH; ++k) ri_search(p, k);
    }
    ri_print_head(p);
    /* the published rows [D02] */
    const double td[5] = {0.05, 10.0, 19.95, 20.0, 0.0}, d02[4][2] = {{5.02096e-02, 9.98739e-01},
                                                                      {1.80513e-01, 9.83573e-01},
                                                                      {3.36165e-01, 9.41803e-01},
                                                                      {4.10902e-01, 9.11679e-01}};
    fprintf(ri_out,
            "The references at the rows of the benchmark's solution file [D02] (ADAMS/Solver, "
            "docs/iftomm-data.md) that we have:\n\n| t (s) | [D02] x | [D02] y | %s x | %s y "
            "| genalpha extrap. x | genalpha extrap. y |\n|---|---|---|---|---|---|---|\n",
            "hem5+proj 1e-8", "hem5+proj 1e-8");
    for (int i = 0; i < 4; ++i) {
        int row = (int)lround(td[i] / p->out_dt);
        if (row > p->nrows) continue;
        fprintf(ri_out, "| %g | %.6f | %.6f | %.6f | %.6f | %.6f | %.6f |\n", td[i], d02[i][0],
                d02[i][1], p->ref[0][2 * row], p->ref[0][2 * row + 1], p->ref[1][2 * row],
                p->ref[1][2 * row + 1]);
    }
    fprintf(ri_out, "\n");
    ri_print_refs(p);
    ri_print_runs(p);
    run r1, rn;
    memset(&r1, 0, sizeof r1);
    memset(&rn, 0, sizeof rn);
    if (!ri_quick) {
        rho_one(p, 1e-3, &r1);
        /* hem5 at tight tolerances: through the singular positions or not */
        fprintf(ri_out,
                "hem5 at tight tolerances on this problem (the step size control meets the "
                "singular positions, where every link is horizontal and the mechanism has "
                "N + 1 degrees of freedom for an instant):\n\n| variant | tol | status | "
                "steps | rejected | CPU (s) | error (m) |\n|---|---|---|---|---|---|---|\n");
        const double tt[3] = {1e-7, 1e-8, 1e-9};
        for (int v = 0; v < 2; ++v)
            for (int i = 0; i < 3; ++i) {
                const int k = v ? M_HEM5P : M_HEM5;
                if (!v && i == 2) continue; /* fails as the projected one does, after a minute */
                const run *c = ri_find_run(p, k, tt[i]);
                if (!c && k == M_HEM5P && fabs(r0.set - tt[i]) <= 1e-9 * tt[i]) {
                    r0.err = ri_run_error(p, &r0, p->ref[1], p->nrows);
                    c = &r0;
                }
                if (!c) {
                    ri_run_free(&rn);
                    ri_do_run(p, k, tt[i], 0.0, p->T, &rn);
                    rn.err = ri_run_error(p, &rn, p->ref[1], p->nrows);
                    c = &rn;
                }
                char st[300];
                if (c->status)
                    snprintf(st, sizeof st, "failed at t = %.4f s: %s", c->t_end, c->msg);
                else
                    snprintf(st, sizeof st, "ok");
                char e[32];
                ri_fmt_e(c->err, e, sizeof e);
                fprintf(ri_out, "| %s | %.0e | %s | %ld | %ld | %.2f | %s |\n", ri_meth_name[k],
                        tt[i], st, c->steps, c->rejected, c->cpu, e);
            }
        fprintf(ri_out, "\n");
    }
    /* plot data: B0 x of two runs and the reference, their deviation, the ρ∞ = 1 energy */
    const run *a = ri_cheapest(p, M_GENALPHA, ri_levels[0]),
              *h = ri_cheapest(p, M_HEM5P, ri_levels[0]);
    FILE *f = ri_open_out("iftomm-A02.dat");
    if (f) {
        fprintf(f, "# t, B0x reference (hem5+proj 1e-8), B0x genalpha, B0x hem5+proj (cheapest at "
                   "1e-1), |dB0| of both, E - E0 genalpha rho_inf = 1 (h 1e-3), rho_inf = 0.9 (h "
                   "1.25e-3)\n");
        for (int i = 0; i <= p->nrows; ++i)
            fprintf(f, "%g %.9f %.9f %.9f %.6e %.6e %.6e %.6e\n", i * p->out_dt, p->ref[0][2 * i],
                    a && i <= a->nrows ? a->rows[2 * i] : DNAN,
                    h && i <= h->nrows ? h->rows[2 * i] : DNAN,
                    i ? ri_row_err(p, a, p->ref[0], i) : DNAN,
                    i ? ri_row_err(p, h, p->ref[1], i) : DNAN,
                    i && i <= r1.nrows ? r1.ebal[i] : DNAN,
                    i && rg && i <= rg->nrows ? rg->ebal[i] : DNAN);
        fclose(f);
    }
    f = ri_open_out("iftomm-A02-D02.dat");
    if (f) {
        fprintf(f, "# t, B0x, B0y: the rows of the benchmark's solution file [D02] we have\n0 "
                   "-1.03833e-13 1\n");
        for (int i = 0; i < 4; ++i) fprintf(f, "%g %g %g\n", td[i], d02[i][0], d02[i][1]);
        fclose(f);
    }
    f = ri_open_out("iftomm-A02.gp");
    if (f) {
        char ta[96], th[96];
        ri_title_of(a, ta, sizeof ta);
        ri_title_of(h, th, sizeof th);
        fprintf(f,
                "set terminal pngcairo noenhanced size 1200,1000\nset grid\ncd '%s'\n"
                "set output 'iftomm-A02.png'\nset multiplot layout 3,1 title 'IFToMM A02, "
                "N-four-bar (N = 40)'\nset xlabel 't (s)'\nset lmargin at screen 0.08\n"
                "set rmargin at screen 0.70\nset key outside right top\n"
                "set ylabel 'B0 x (m)'\nset title 'B0 x: the cheapest runs that meet 1e-1'\n"
                "plot 'iftomm-A02.dat' u 1:2 w l lw 2 t 'reference (hem5+proj, tol %.0e)', '' u "
                "1:3 w l t '%s', '' u 1:4 w l t '%s', 'iftomm-A02-D02.dat' u 1:2 w p pt 7 ps 1.5 "
                "t 'benchmark [D02]'\n"
                "set logscale y\nset format y '%%.0e'\nset ylabel '|B0 - B0 ref| (m)'\n"
                "set title 'deviation of B0 from the reference of its method'\n"
                "plot 'iftomm-A02.dat' u 1:5 w l t '%s', '' u 1:6 w l t '%s', 1e-1 w l dt 2 lc "
                "'black' t 'benchmark 1e-1'\n"
                "set ylabel '|E - E0| (J)'\nset title 'energy, genalpha'\n"
                "plot 'iftomm-A02.dat' u 1:(abs($7)) w l t 'rho_inf = 1, h = 1e-3', '' u "
                "1:(abs($8)) w l t 'rho_inf = 0.9, h = 1.25e-3'\nunset multiplot\n",
                ri_outdir, r0.set, ta, th, ta, th);
        fclose(f);
    }
    ri_run_free(&r0);
    ri_run_free(&r1);
    ri_run_free(&rn);
}

void ri_a03(problem *p) {
    size_t n = (size_t)(p->nrows + 1) * NANG;
    p->ref[0] = calloc(n, sizeof(double));
    p->ref[1] = calloc(n, sizeof(double));
    memcpy(p->ref[0] + (size_t)p->nrows * NANG, p->ts_ref, sizeof p->ts_ref);
    memcpy(p->ref[1] + (size_t)p->nrows * NANG, p->ts_ref, sizeof p->ts_ref);
    snprintf(p->ref_desc[0], sizeof p->ref_desc[0],
             "the Test Set's solution at t = 0.03 s (PSIDE, rtol = atol = 1e-14; "
             "tests/data/andrews-reference.txt); the error is the largest of the seven angles' "
             "errors (rad)");
    snprintf(p->ref_desc[1], sizeof p->ref_desc[1], "%s", p->ref_desc[0]);
    p->ref_cross = 0.0;
    const double tols[5] = {1e-6, 1e-7, 1e-8, 1e-9, 1e-10};
    const int ntol = ri_quick ? 1 : 5;
    if (ri_quick) {
        ri_quick_runs(p, 1e-5, 1e-6);
    } else {
        for (int k = 0; k < NMETH; ++k) ri_search(p, k);
    }
    for (int v = 0; v < 2; ++v)
        for (int i = 0; i < ntol; ++i) {
            run *r = ri_get_run(p, v ? M_HEM5P : M_HEM5, tols[i]);
            if (!r || r->status) p->bad = 1;
        }
    ri_print_head(p);
    ri_print_refs(p);
    fprintf(ri_out,
            "### hem5 at tolerances 1e-6 … 1e-10: the angles at t = 0.03 s against the Test "
            "Set\n\n| variant | tol | steps | rejected | CPU (s) | max error (rad)");
    for (int a = 0; a < NANG; ++a) fprintf(ri_out, " | Δ%s", ANG_SYM[a]);
    fprintf(ri_out, " | energy balance | max \\|Φ\\| system | joints, own check |\n"
                    "|---|---|---|---|---|---|");
    for (int a = 0; a < NANG; ++a) fprintf(ri_out, "---|");
    fprintf(ri_out, "---|---|---|\n");
    for (int v = 0; v < 2; ++v)
        for (int i = 0; i < ntol; ++i) {
            const run *r = ri_find_run(p, v ? M_HEM5P : M_HEM5, tols[i]);
            if (!r) continue;
            fprintf(ri_out, "| %s | %.0e | %ld | %ld | %.3f | %.2e", ri_meth_name[r->meth], tols[i],
                    r->steps, r->rejected, r->cpu, r->err);
            for (int a = 0; a < NANG; ++a)
                fprintf(ri_out, " | %+.1e",
                        r->status ? DNAN
                                  : r->rows[(size_t)p->nrows * NANG + (size_t)a] - p->ts_ref[a]);
            fprintf(ri_out, " | %.1e | %.1e | %.1e |\n", r->ebal_max, r->phis, r->phio);
        }
    fprintf(ri_out, "\n### Every run\n\n");
    ri_print_runs(p);
    /* plot data: error against CPU time, one block per method */
    FILE *f = ri_open_out("iftomm-A03.dat");
    if (f) {
        fprintf(f, "# CPU (s), max angle error at t = 0.03 (rad), setting; one block per method: "
                   "genalpha hht hem5 hem5+proj\n");
        for (int k = 0; k < NMETH; ++k) {
            /* sorted by setting, coarse to fine */
            int idx[MAX_RUNS], m = 0;
            for (int i = 0; i < p->nruns; ++i)
                if (p->runs[i].meth == k && !p->runs[i].status) idx[m++] = i;
            for (int i = 1; i < m; ++i)
                for (int j = i; j > 0 && p->runs[idx[j]].set > p->runs[idx[j - 1]].set; --j) {
                    int t = idx[j];
                    idx[j] = idx[j - 1], idx[j - 1] = t;
                }
            for (int i = 0; i < m; ++i)
                fprintf(f, "%.6e %.6e %g\n", p->runs[idx[i]].cpu, p->runs[idx[i]].err,
                        p->runs[idx[i]].set);
            fprintf(f, "\n\n");
        }
        fclose(f);
    }
    f = ri_open_out("iftomm-A03.gp");
    if (f) {
        fprintf(f,
                "set terminal pngcairo noenhanced size 900,600\nset grid\ncd '%s'\nset output "
                "'iftomm-A03.png'\nset logscale xy\nset format y '%%.0e'\nset xlabel 'CPU time "
                "(s)'\nset ylabel 'max angle error at t = 0.03 s (rad)'\nset key right top\n"
                "set title 'IFToMM A03, Andrews squeezer: work against precision (Test Set "
                "reference)'\n"
                "plot 'iftomm-A03.dat' index 0 w lp pt 7 t 'genalpha (h halved)', '' index 1 w lp "
                "pt 5 t 'hht (h halved)', '' index 2 w lp pt 9 t 'hem5 (tol / 10)', '' index 3 w "
                "lp pt 11 t 'hem5+proj (tol / 10)', 1e-1 w l dt 2 lc 'black' t 'benchmark 1e-1', "
                "1e-3 w l dt 3 lc 'black' t 'benchmark 1e-3'\n",
                ri_outdir);
        fclose(f);
    }
}

void ri_a04_a05(problem *p) {
    run r0;
    ri_ref_run(p, 0, M_HEM5P, p->id == P_A04 ? 1e-11 : 1e-9, &r0);
    run *rg = ri_get_run(p, M_GENALPHA, 3.125e-4);
    char desc[320];
    snprintf(desc, sizeof desc, "genalpha with h = 3.125e-4 s (%ld steps, %.2f s of CPU)",
             rg ? rg->steps : 0L, rg ? rg->cpu : DNAN);
    if (!rg || rg->status) p->bad = 1;
    ri_set_ref(p, 1, rg, desc);
    p->ref_cross = ri_ref_diff(p);
    if (ri_quick) {
        ri_quick_runs(p, 1e-3, 1e-6);
    } else {
        for (int k = 0; k < NMETH; ++k) ri_search(p, k);
    }
    ri_print_head(p);
    ri_print_refs(p);
    if (p->id == P_A04) {
        const double *e = p->ref[0] + (size_t)p->nrows * 3;
        fprintf(ri_out, "The reference's P3(%g s) = (%.6f, %.6f, %.6f).\n\n", p->T, e[0], e[1],
                e[2]);
    } else {
        fprintf(ri_out, "The reference's s(%g s) = %.6f m.\n\n", p->T, p->ref[0][p->nrows]);
    }
    ri_print_runs(p);
    const run *a = ri_cheapest(p, M_GENALPHA, ri_levels[1]),
              *h = ri_cheapest(p, M_HEM5, ri_levels[1]);
    if (!a) a = ri_best(p, M_GENALPHA);
    if (!h) h = ri_best(p, M_HEM5);
    char ta[96], th[96];
    ri_title_of(a, ta, sizeof ta);
    ri_title_of(h, th, sizeof th);
    FILE *f = ri_open_out(p->id == P_A04 ? "iftomm-A04.dat" : "iftomm-A05.dat");
    if (f) {
        fprintf(f,
                "# t, the reference (hem5+proj), %s, %s: %s; then the deviation of each from "
                "the reference of its method\n",
                ta, th, p->id == P_A04 ? "P3 x y z each" : "slider s each");
        for (int i = 0; i <= p->nrows; ++i) {
            fprintf(f, "%g", i * p->out_dt);
            const double *src[3] = {p->ref[0], a && i <= a->nrows ? a->rows : NULL,
                                    h && i <= h->nrows ? h->rows : NULL};
            for (int j = 0; j < 3; ++j)
                for (int c = 0; c < p->ncomp; ++c)
                    fprintf(f, " %.9f",
                            src[j] ? src[j][(size_t)i * (size_t)p->ncomp + (size_t)c] : DNAN);
            fprintf(f, " %.6e %.6e\n", i ? ri_row_err(p, a, p->ref[0], i) : DNAN,
                    i ? ri_row_err(p, h, p->ref[1], i) : DNAN);
        }
        fclose(f);
    }
    f = ri_open_out(p->id == P_A04 ? "iftomm-A04.gp" : "iftomm-A05.gp");
    if (f) {
        const int dc = 2 + 3 * p->ncomp; /* the deviation columns: dc, dc + 1 */
        if (p->id == P_A04)
            fprintf(
                f,
                "set terminal pngcairo noenhanced size 1000,900\nset grid\ncd '%s'\nset output "
                "'iftomm-A04.png'\nset multiplot layout 2,1 title 'IFToMM A04, Bricard "
                "mechanism'\nset xlabel 't (s)'\nset ylabel 'P3 (m)'\nset yrange [-1.1:1.1]\n"
                "set key outside right\nset title 'point P3 (the joint of link2 and link3): "
                "lines the reference, o %s, x %s'\n"
                "plot 'iftomm-A04.dat' u 1:2 w l lw 2 lc 1 t 'x', '' u 1:3 w l lw 2 lc 2 t 'y', "
                "'' u 1:4 w l lw 2 lc 3 t 'z', '' u 1:5 every 25 w p pt 6 lc 1 notitle, '' u 1:6 "
                "every 25 w p pt 6 lc 2 notitle, '' u 1:7 every 25 w p pt 6 lc 3 notitle, '' u "
                "1:8 every 25::12 w p pt 2 lc 1 notitle, '' u 1:9 every 25::12 w p pt 2 lc 2 "
                "notitle, '' u 1:10 every 25::12 w p pt 2 lc 3 notitle\n"
                "set autoscale y\nset logscale y\nset format y '%%.0e'\nset ylabel '|P3 - P3 "
                "ref| (m)'\nset title 'deviation from the reference of its method'\n"
                "plot 'iftomm-A04.dat' u 1:%d w l t '%s', '' u 1:%d w l t '%s', 1e-3 w l dt 2 "
                "lc 'black' t '1e-3'\nunset multiplot\n",
                ri_outdir, ta, th, dc, ta, dc + 1, th);
        else
            fprintf(f,
                    "set terminal pngcairo noenhanced size 1000,900\nset grid\ncd '%s'\nset output "
                    "'iftomm-A05.png'\nset multiplot layout 2,1 title 'IFToMM A05, stiff flyball "
                    "governor'\nset xlabel 't (s)'\nset ylabel 'slider s (m)'\nset key opaque box "
                    "right bottom\nset yrange [0.3:0.8]\nset title 'the slider'\n"
                    "plot 'iftomm-A05.dat' u 1:2 w l lw 3 t 'reference (hem5+proj, tol 1e-9)', '' "
                    "u 1:3 w l t '%s', '' u 1:4 w l dt 2 t '%s'\n"
                    "set autoscale y\nset logscale y\nset format y '%%.0e'\nset ylabel '|s - s "
                    "ref| (m)'\nset key "
                    "noopaque nobox right bottom\nset title 'deviation from the reference of its "
                    "method'\nplot 'iftomm-A05.dat' u 1:%d w l t '%s', '' u 1:%d w l t '%s', 1e-3 "
                    "w l dt 2 lc 'black' t '1e-3'\nunset multiplot\n",
                    ri_outdir, ta, th, dc, ta, dc + 1, th);
        fclose(f);
    }
    ri_run_free(&r0);
}
