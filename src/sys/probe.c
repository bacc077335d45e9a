/*
 * The zeros of a system's structure (system.h, ld_sys_probe_pattern): a node block holds whole
 * nv × nv blocks and B's rows whole node columns, but many of their entries vanish at every
 * state — in R³ × SO(3) the rotation–translation couplings of bodies and joints, the
 * translation blocks' off-diagonal entries, B's translation columns of orientation rows. For a
 * system whose structure cannot change with the state and whose evaluation calls no user code
 * (pattern_generic), the tangent blocks, B and B T are evaluated at two random states; what
 * vanishes at both is flagged, and the Newton methods leave it out of their sparse pattern
 * (integ_blocks.c, which also checks at every fill that the left-out values stay below the
 * matrix's round-off and restores the whole pattern if not).
 */
#include <stdlib.h>
#include <string.h>

#include "../core/oom.h"
#include "liedyn/liedyn.h"
#include "nodes.h"
#include "saddle.h"

/* A pseudo-random number in [-1, 1) from the state *x (a fixed sequence). */
static double probe_rand(unsigned long long *x) {
    *x = *x * 6364136223846793005ULL + 1442695040888963407ULL;
    return (double)(*x >> 11) * 0x1.0p-52 - 1.0;
}

/* The probe's scratch: one block of doubles and one of indices. */
typedef struct probe_ws {
    double *buf, *q, *v, *a, *lam, *xi, *Tb, *tv, *Bv, *BTv;
    int *col_node;
    size_t *mb_off;
} probe_ws;

static void probe_free(probe_ws *w) {
    free(w->buf);
    free(w->col_node);
    free(w->mb_off);
}

static int probe_alloc(const ld_system *s, probe_ws *w) {
    size_t k = (size_t)s->k, m = (size_t)s->m, nt = s->blk_off[s->nblk];
    size_t nb = (size_t)ld_saddle_bnnz(s), nmb = ld_sys_mass_block_entries(s);
    size_t nd = (size_t)s->nq + 3 * k + m + nmb + nt + 2 * nb + 1;
    memset(w, 0, sizeof *w);
    w->buf = ld_xmalloc(nd * sizeof(double), "the probe of the sparse pattern");
    w->col_node = ld_xmalloc((k + 1) * sizeof(int), "the probe of the sparse pattern");
    w->mb_off =
        ld_xmalloc(((size_t)s->nnodes + 1) * sizeof(size_t), "the probe of the sparse pattern");
    if (!w->buf || !w->col_node || !w->mb_off) {
        probe_free(w);
        return LD_ENOMEM;
    }
    w->q = w->buf;
    w->v = w->q + s->nq;
    w->a = w->v + k;
    w->xi = w->a + k;
    w->lam = w->xi + k;
    w->Tb = w->lam + m;
    w->tv = w->Tb + nmb;
    w->Bv = w->tv + nt;
    w->BTv = w->Bv + nb;
    w->mb_off[0] = 0;
    for (int i = 0; i < s->nnodes; ++i) {
        int d = ld_node_nv(&s->nodes[i]);
        w->mb_off[i + 1] = w->mb_off[i] + (size_t)d * (size_t)d;
        for (int j = 0; j < d; ++j) w->col_node[s->nodes[i].voff + j] = i;
    }
    return LD_OK;
}

/* Flag in keep what is not zero at one random state near (q, v); 0 or the model's status. */
static int probe_once(const ld_system *s, double t, const double *q, const double *v,
                      const probe_ws *w, unsigned long long *x, unsigned char *keep) {
    int k = s->k, m = s->m, nb = ld_saddle_bnnz(s);
    for (int i = 0; i < k; ++i) w->xi[i] = 0.5 * probe_rand(x);
    ld_sys_retract(s, w->q, q, w->xi);
    for (int i = 0; i < k; ++i) {
        w->v[i] = v[i] + probe_rand(x);
        w->a[i] = probe_rand(x);
        w->xi[i] = 0.5 * probe_rand(x);
    }
    for (int i = 0; i < m; ++i) w->lam[i] = probe_rand(x);
    for (int i = 0; i < s->nnodes; ++i) {
        const ld_node *n = &s->nodes[i];
        ld_node_tangent(n, w->Tb + w->mb_off[i], (size_t)ld_node_nv(n), w->xi + n->voff);
    }
    double cm = 1.0 + 0.25 * probe_rand(x), cc = 1.0 + 0.25 * probe_rand(x);
    int rc = s->ops.tangent_blocks(s, t, w->q, w->v, w->a, w->lam, cm, cc, 1.0, w->Tb, w->tv);
    if (!rc && nb > 0) rc = s->ops.phi_q_sparse(s, t, w->q, w->Bv);
    if (rc) return rc;
    if (nb > 0) ld_saddle_bt(s, w->col_node, w->mb_off, w->Tb, w->Bv, w->BTv);
    size_t nt = s->blk_off[s->nblk];
    unsigned char *kbt = keep + nt, *kb = kbt + nb;
    for (size_t i = 0; i < nt; ++i) keep[i] |= w->tv[i] != 0.0;
    for (int e = 0; e < nb; ++e) {
        kbt[e] |= w->BTv[e] != 0.0;
        kb[e] |= w->Bv[e] != 0.0;
    }
    return LD_OK;
}

int ld_sys_probe_pattern(ld_system *s, double t, const double *q, const double *v) {
    if (!s) return LD_EINVAL;
    free(s->pattern_keep);
    s->pattern_keep = NULL;
    if (!s->pattern_generic || !ld_sys_has_blocks(s) || !q || !v) return LD_OK;
    size_t nnz = ld_saddle_nnz(s);
    unsigned char *keep = ld_xcalloc(nnz > 0 ? nnz : 1, 1, "the probe of the sparse pattern");
    probe_ws w;
    if (!keep || probe_alloc(s, &w)) {
        free(keep);
        return LD_ENOMEM;
    }
    for (int b = 0; b < s->nblk; ++b) { /* each node's diagonal */
        if (s->blk_row[b] != s->blk_col[b]) continue;
        int d = ld_node_nv(&s->nodes[s->blk_row[b]]);
        for (int i = 0; i < d; ++i) keep[s->blk_off[b] + (size_t)(i * d + i)] = 1;
    }
    unsigned long long x = 0x9e3779b97f4a7c15ULL;
    int rc = LD_OK;
    for (int r = 0; r < 2 && !rc; ++r) rc = probe_once(s, t, q, v, &w, &x, keep);
    probe_free(&w);
    if (rc) { /* the whole pattern */
        free(keep);
        return LD_OK;
    }
    s->pattern_keep = keep;
    return LD_OK;
}
