/*
 * The model evaluation of one Newton iteration in a single call (integ_impl.h): when the system
 * gives ops.eval_newton, the residual's M, g, B, Φ and the iteration matrix's ∂g/∂v and K (or
 * their tangent blocks on the structured sparse path) come from one pass over the model, which
 * evaluates each joint's and body's kinematics once instead of once per callback; a constant M
 * (ld_system.mass_const) is evaluated once and kept. The sums after the evaluation are those of
 * the separate path (ld_integ__residual, ld_integ__assemble), so the iterates agree bit for bit
 * (tests/test_fused.c).
 */
#include <string.h>

#include "integ_impl.h"
#include "liedyn/liedyn.h"

/* The arguments and the outputs of the call at the trial state: M only while it is not kept,
 * the matrix parts only when the matrix is formed (keep 0). */
static ld_newton_eval request(ld_integ *it, double t, double cm, double cc, double ck, int keep) {
    int mass = !(it->s->mass_const && it->mass_ok), m = it->m > 0;
    ld_newton_eval e;
    memset(&e, 0, sizeof e);
    e.t = t, e.q = it->qn, e.v = it->vn, e.a = it->vdn, e.lambda = it->lamn;
    e.g = it->r;
    e.Phi = m ? it->r + it->k : NULL;
    if (it->blocks) {
        e.Mb = mass ? it->Mb : NULL;
        e.Bv = m ? it->Bv : NULL;
        if (!keep) e.tv = it->tv, e.Tb = it->Tb, e.cm = cm, e.cc = cc, e.ck = ck;
        return e;
    }
    e.M = mass ? it->M : NULL;
    e.B = m ? it->B : NULL;
    if (!keep) e.C = it->C, e.K = it->K;
    return e;
}

int ld_integ__newton_eval(ld_integ *it, double t, double cm, double cc, double ck) {
    const ld_system *s = it->s;
    if (!s->ops.eval_newton || it->separate) {
        int rc = ld_integ__residual(it, t);
        return rc ? rc : ld_integ__assemble(it, t, cm, cc, ck, NULL);
    }
    int keep = ld_integ__reuse_matrix(it, cm, cc, ck);
    if (!keep && it->blocks) ld_integ__blocks_tangents(it);
    ld_newton_eval e = request(it, t, cm, cc, ck, keep);
    int rc = s->ops.eval_newton(s, &e);
    if (rc) return rc;
    if (e.M) ld_integ__mass_band(it);
    it->mass_ok = s->mass_const;
    rc = it->blocks ? ld_integ__blocks_residual_sums(it) : ld_integ__residual_sums(it);
    if (rc || keep) return rc;
    if (it->blocks) return ld_integ__blocks_fill(it);
    if (ld_integ__small(it)) return ld_integ__small_fill(it, cm, cc, ck);
    return ld_integ__dense_fill(it, cm, cc, ck);
}
