/*
 * The report writer of repro_iftomm: the Markdown tables of a problem's runs and of the summary,
 * a problem's heading and references, the files of plot data (repro_iftomm.h).
 */
#include "repro_iftomm.h"

void ri_fmt_set(int k, double set, char *buf, size_t n) {
    if (meth_fixed(k))
        snprintf(buf, n, "h = %.4g s", set);
    else
        snprintf(buf, n, "tol = %.0e", set);
}

void ri_fmt_e(double x, char *buf, size_t n) {
    if (isnan(x))
        snprintf(buf, n, "—");
    else
        snprintf(buf, n, "%.2e", x);
}

void ri_print_runs(const problem *p) {
    fprintf(ri_out,
            "| method | setting | status | CPU (s) | steps | rejected | Newton it. | error (%s) "
            "| energy balance | max \\|Φ\\| system | max \\|Φ\\| all joint eqs | joints, own "
            "check |\n|---|---|---|---|---|---|---|---|---|---|---|---|\n",
            p->unit);
    int idx[MAX_RUNS], n = 0;
    for (int k = 0; k < NMETH; ++k) /* by method, coarse to fine */
        for (int i = 0; i < p->nruns; ++i)
            if (p->runs[i].meth == k) {
                int j = n++;
                for (; j > 0 && p->runs[idx[j - 1]].meth == k &&
                       p->runs[idx[j - 1]].set < p->runs[i].set;
                     --j)
                    idx[j] = idx[j - 1];
                idx[j] = i;
            }
    for (int ii = 0; ii < n; ++ii) {
        const run *r = &p->runs[idx[ii]];
        {
            const int k = r->meth;
            char set[48], e[32], eb[32], ps[32], pj[32], po[32];
            ri_fmt_set(k, r->set, set, sizeof set);
            ri_fmt_e(r->err, e, sizeof e);
            ri_fmt_e(r->ebal_max, eb, sizeof eb);
            ri_fmt_e(r->phis, ps, sizeof ps);
            ri_fmt_e(r->phij, pj, sizeof pj);
            ri_fmt_e(r->phio, po, sizeof po);
            char st[300];
            if (r->status)
                snprintf(st, sizeof st, "failed at t = %.4g s: %s", r->t_end, r->msg);
            else
                snprintf(st, sizeof st, "ok");
            fprintf(ri_out, "| %s | %s | %s | %.3f | %ld | %ld | %ld | %s | %s | %s | %s | %s |\n",
                    ri_meth_name[k], set, st, r->cpu, r->steps, r->rejected, r->newton, e, eb, ps,
                    pj, po);
        }
    }
    fprintf(ri_out, "\n");
}

/* The summary rows of a problem (the cheapest setting per method and level) into f. */
void ri_print_summary(const problem *p, FILE *f) {
    for (int k = 0; k < NMETH; ++k)
        for (int l = 0; l < 2; ++l) {
            const run *r = ri_cheapest(p, k, ri_levels[l]);
            if (r) {
                char set[48], e[32], eb[32], ps[32], pj[32], po[32];
                ri_fmt_set(k, r->set, set, sizeof set);
                ri_fmt_e(r->err, e, sizeof e);
                ri_fmt_e(r->ebal_max, eb, sizeof eb);
                ri_fmt_e(r->phis, ps, sizeof ps);
                ri_fmt_e(r->phij, pj, sizeof pj);
                ri_fmt_e(r->phio, po, sizeof po);
                fprintf(f, "| %s | %s | %.0e | %s | %.3f | %ld | %s | %s | %s | %s | %s |\n",
                        p->tag, ri_meth_name[k], ri_levels[l], set, r->cpu, r->steps, e, eb, ps, pj,
                        po);
            } else {
                const run *b = ri_best(p, k);
                char set[48] = "", e[32] = "", what[160];
                if (b) {
                    ri_fmt_set(k, b->set, set, sizeof set);
                    ri_fmt_e(b->err, e, sizeof e);
                    snprintf(what, sizeof what, "best %s at %s", e, set);
                } else {
                    snprintf(what, sizeof what, "no run reached the end");
                }
                fprintf(f, "| %s | %s | %.0e | **not met** (budget %.0f s) | | | %s | | | | |\n",
                        p->tag, ri_meth_name[k], ri_levels[l], p->budget, what);
            }
        }
}

FILE *ri_open_out(const char *name) {
    char path[600];
    snprintf(path, sizeof path, "%s/%s", ri_outdir, name);
    FILE *f = fopen(path, "w");
    if (!f) fprintf(stderr, "repro_iftomm: cannot write %s\n", path);
    return f;
}

double ri_row_err(const problem *p, const run *r, const double *ref, int i) {
    if (!r || !ref || i > r->nrows) return DNAN;
    double e = 0.0;
    for (int c = 0; c < p->ncomp; ++c) {
        size_t j = (size_t)i * (size_t)p->ncomp + (size_t)c;
        e = fmax(e, fabs(r->rows[j] - ref[j]));
    }
    return e;
}

void ri_title_of(const run *r, char *buf, size_t n) {
    char set[48];
    if (!r) {
        snprintf(buf, n, "(none)");
        return;
    }
    ri_fmt_set(r->meth, r->set, set, sizeof set);
    snprintf(buf, n, "%s, %s", ri_meth_name[r->meth], set);
}

void ri_print_head(const problem *p) {
    fprintf(ri_out, "## %s %s (`models/%s.yaml`)\n\n", p->tag, p->title, p->model);
    fprintf(ri_out,
            "Measured: %s, %s. Compiling left out %d of the joints' constraint rows as redundant "
            "(the system keeps %d rows). Energy balance: the largest |E − E₀%s| over the rows "
            "divided by %s = %.6g J.\n\n",
            p->quantity,
            p->err_final_only ? "at the end"
                              : (p->nrows > 1 ? "at every output row" : "at the end"),
            p->redundant, p->nrows_sys,
            p->id == P_A03   ? " − τ(β − β₀)"
            : p->id == P_A05 ? " + D(t)"
                             : "",
            p->escale_desc, p->escale);
}

void ri_print_refs(const problem *p) {
    if (p->ref_desc[0][0] && strcmp(p->ref_desc[0], p->ref_desc[1]) == 0)
        fprintf(ri_out, "Reference (all methods): %s.\n\n", p->ref_desc[0]);
    else
        fprintf(ri_out,
                "References: genalpha and hht are measured against %s; hem5 (both variants) "
                "against %s. The two references differ by at most %.2e %s.\n\n",
                p->ref_desc[0], p->ref_desc[1], p->ref_cross, p->unit);
}
