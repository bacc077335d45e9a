/*
 * The element interface of the compiled models (src/elements/element.h), on every shipped model in
 * every formulation that holds it: the instances of each kind of the table match the model's
 * items, every constraint row has exactly one owner whose name the row's text carries, the
 * forces and energies of the kinds add up to the system's, the sparse pattern built from the
 * elements holds every non-zero of the dense B with the same values, and the mass blocks are
 * the diagonal blocks of M; the tangent blocks are the dense cm M + cc C + ck K T in a block
 * pattern that holds all of it.
 */
#include <dirent.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mbs_models.h"
#include "shipped.h"
#include "support.h"

#include "../src/elements/element.h"
#include "../src/elements/kinds.h"
#include "../src/sys/integ_impl.h"
#include "liedyn/integrator.h"
#include "liedyn/liedyn.h"
#include "liedyn/model.h"
#include "liedyn/system.h"

/* The shipped models' file names, sorted. */
static int shipped(char names[][64]) {
    int n = shipped_models(LD_SOURCE_DIR "/models", names);
    assert_true(n > 0);
    return n;
}

/* Instances the model should have of kind k. */
static int expected(const ld_model *m, ld_formulation f, const ld_ekind *k) {
    if (k == &ld_ek_body) return m->nbodies;
    if (k == &ld_ek_joint) return m->njoints;
    if (k == &ld_ek_force) return m->nelements;
    if (k == &ld_ek_unit_norm) return f == LD_FORM_EULER ? m->nbodies : 0;
    if (k == &ld_ek_contact_penalty) { /* each colliding body with the ground, each pair */
        if (m->contact.kind != LD_CONTACT_HUNT_CROSSLEY || f == LD_FORM_EULER) return 0;
        int nb = 0;
        for (int i = 0; i < m->nbodies; ++i)
            for (int j = 0; j < m->nshapes; ++j)
                if (m->shapes[j].body == i && m->shapes[j].collide) {
                    ++nb;
                    break;
                }
        int ground = m->plane.on || m->nground > 0, nseg = 0; /* and each colliding span of a */
        for (int r = 0; r < m->nrods; ++r) /* rod or beam with the ground and each such body */
            nseg += m->rods[r].collide.on ? m->rods[r].n : 0;
        for (int b = 0; b < m->nbeams; ++b)
            for (int j = 0; m->beams[b].collide.on && j + 1 < m->beams[b].nnodes; ++j)
                nseg += m->beams[b].node_body[j] >= 0 || m->beams[b].node_body[j + 1] >= 0;
        return (ground ? nb : 0) + nb * (nb - 1) / 2 + nseg * (ground + nb);
    }
    if (k == &ld_ek_beam) {
        int n = 0;
        for (int b = 0; b < m->nbeams; ++b) n += ld_beam_elements(&m->beams[b]);
        return n;
    }
    if (k == &ld_ek_beam_mass) { /* free nodes with the centre of mass off the axis */
        int n = 0;
        for (int b = 0; b < m->nbeams; ++b)
            for (int j = 0; m->beams[b].mxi_node && j < m->beams[b].nnodes; ++j) {
                const double *c = m->beams[b].mxi_node + 3 * j;
                n += m->beams[b].node_body[j] >= 0 && (c[0] != 0.0 || c[1] != 0.0 || c[2] != 0.0);
            }
        return n;
    }
    int n = 0;
    for (int r = 0; r < m->nrods; ++r) n += m->rods[r].n;
    return n;
}

/* The name of the model item that owns instance e ("" when it has none). */
static const char *item_name(const ld_model *m, const ld_elem *e) {
    if (e->kind == &ld_ek_joint) return m->joints[e->item].name;
    if (e->kind == &ld_ek_rod) return m->rods[e->item].name;
    if (e->kind == &ld_ek_force) return m->elements[e->item].name;
    if (e->kind == &ld_ek_beam || e->kind == &ld_ek_beam_mass) return m->beams[e->item].name;
    return m->bodies[e->item].name;
}

static void check_instances(const ld_system *s, const ld_model *m, ld_formulation f,
                            const char *file) {
    const ld_elems *E = &ld_rb(s)->E;
    for (int k = 0; k < ld_ekind_count(); ++k) {
        const ld_ekind *kind = ld_ekind_get(k);
        assert_non_null(kind);
        assert_non_null(kind->instances);
        assert_true(kind->name && kind->name[0]);
        int n = 0;
        for (int i = 0; i < E->n; ++i) n += E->e[i].kind == kind;
        if (n != expected(m, f, kind))
            fail_msg("%s (%s): %d instances of %s, want %d", file, ld_formulation_name(f), n,
                     kind->name, expected(m, f, kind));
    }
    assert_null(ld_ekind_get(ld_ekind_count()));
    int rows = 0;
    for (int i = 0; i < E->n; ++i) {
        const ld_elem *e = &E->e[i];
        assert_true(e->nn >= 1 && e->nn <= LD_ELEM_MAX_NODES);
        assert_int_equal(e->row0, rows); /* rows given out in table order */
        int kept = 0;                    /* the rows left out as redundant are absent */
        for (int r = 0; r < e->nrows; ++r) kept += !(e->drop >> r & 1u);
        assert_int_equal(e->nkeep, kept);
        assert_true(e->drop == 0 || e->kind == &ld_ek_joint);
        rows += e->nkeep;
        for (int a = 0; a < e->nn; ++a) assert_true(e->node[a] >= 0 && e->node[a] < s->nnodes);
    }
    assert_int_equal(rows, s->m);
}

static void check_rows(const ld_system *s, const ld_model *m, const char *file) {
    char buf[256];
    for (int r = 0; r < s->m; ++r) {
        const ld_elem *e = ld_elems_row_owner(s, r);
        assert_non_null(e);
        assert_true(r >= e->row0 && r < e->row0 + e->nkeep);
        assert_int_equal(ld_model_row_name(s, r, buf, sizeof buf), LD_OK);
        const char *name = item_name(m, e);
        if (!strstr(buf, e->kind == &ld_ek_unit_norm ? "body" : e->kind->name) ||
            (name[0] && !strstr(buf, name)))
            fail_msg("%s: row %d is named '%s' (owner %s '%s')", file, r, buf, e->kind->name, name);
    }
    assert_null(ld_elems_row_owner(s, s->m));
    assert_null(ld_elems_row_owner(s, -1));
    assert_int_equal(ld_model_row_name(s, s->m, buf, sizeof buf), LD_EINVAL);
}

/* Σ over the kinds of their forces and energies = the system's. */
static void check_partition(const ld_system *s, const double *q, const double *v, double *g,
                            double *gk) {
    size_t k = (size_t)s->k;
    double e = 0.0, ek = 0.0;
    assert_int_equal(s->ops.force(s, 0.3, q, v, g), LD_OK);
    memset(gk, 0, k * sizeof(double));
    for (int i = 0; i < ld_ekind_count(); ++i) {
        double part = 0.0;
        assert_int_equal(ld_elems_add_force_of(s, ld_ekind_get(i), 0.3, q, v, gk), LD_OK);
        assert_int_equal(ld_elems_energy_of(s, ld_ekind_get(i), 0.3, q, v, &part), LD_OK);
        ek += part;
    }
    assert_int_equal(s->ops.energy(s, 0.3, q, v, &e), LD_OK);
    double scale = 1.0 + maxabs(g, (int)k);
    assert_true(maxabs_diff(g, gk, (int)k) <= 1e-13 * scale);
    assert_true(fabs(e - ek) <= 1e-12 * (1.0 + fabs(e)));
}

/* ∂Φ/∂t against a central difference of Φ in t (drivers; zero for the scleronomic rows). */
static void check_phi_t(const ld_system *s, const double *q, const char *file) {
    if (s->m == 0) return;
    size_t m = (size_t)s->m;
    double *p = calloc(3 * m, sizeof *p), *pp = p + m, *pm = pp + m, t = 0.37, h = 1e-5;
    assert_non_null(p);
    assert_non_null(s->ops.phi_t);
    assert_int_equal(s->ops.phi_t(s, t, q, p), LD_OK);
    assert_int_equal(s->ops.phi(s, t + h, q, pp), LD_OK);
    assert_int_equal(s->ops.phi(s, t - h, q, pm), LD_OK);
    for (size_t i = 0; i < m; ++i) {
        double fd = (pp[i] - pm[i]) / (2 * h);
        if (fabs(fd - p[i]) > 1e-6 * (1.0 + fabs(fd)))
            fail_msg("%s: phi_t row %zu: %g, differences %g", file, i, p[i], fd);
    }
    free(p);
}

/* Velocity entries of node n (6, or fewer for a pinned body). */
static size_t node_nv(const ld_system *s, size_t n) {
    return (n + 1 < (size_t)s->nnodes ? (size_t)s->nodes[n + 1].voff : (size_t)s->k) -
           (size_t)s->nodes[n].voff;
}

/* The pattern from the elements against the dense B; the mass blocks against M. */
static void check_sparse(const ld_system *s, const double *q, const char *file) {
    size_t k = (size_t)s->k, m = (size_t)s->m;
    double *B = calloc(m * k + 1, sizeof *B), *vals = calloc((size_t)s->bnnz + 1, sizeof *vals);
    double *M = calloc(k * k, sizeof *M), *Mb = calloc(ld_sys_mass_block_entries(s), sizeof *Mb);
    unsigned char *seen = calloc(m * k + 1, 1);
    assert_true(B && vals && M && Mb && seen);
    assert_int_equal(s->ops.phi_q(s, 0.3, q, B), LD_OK);
    assert_int_equal(s->ops.phi_q_sparse(s, 0.3, q, vals), LD_OK);
    for (int p = 0; p < s->bnnz; ++p) {
        size_t at = (size_t)s->brow[p] * k + (size_t)s->bcol[p];
        if (p > 0) /* sorted by row, then column, no duplicates */
            assert_true(s->brow[p] > s->brow[p - 1] ||
                        (s->brow[p] == s->brow[p - 1] && s->bcol[p] > s->bcol[p - 1]));
        if (vals[p] != B[at]) fail_msg("%s: B entry %d differs", file, p);
        seen[at] = 1;
    }
    for (size_t i = 0; i < m * k; ++i)
        if (B[i] != 0.0 && !seen[i])
            fail_msg("%s: B(%zu, %zu) = %g is outside the pattern", file, i / k, i % k, B[i]);
    assert_int_equal(s->ops.mass(s, q, M), LD_OK);
    assert_int_equal(s->ops.mass_blocks(s, q, Mb), LD_OK);
    for (size_t n = 0, o = 0; n < (size_t)s->nnodes; ++n) {
        size_t vo = (size_t)s->nodes[n].voff, nv = node_nv(s, n);
        for (size_t r = 0; r < nv; ++r)
            for (size_t c = 0; c < nv; ++c)
                assert_true(Mb[o + nv * r + c] == M[(vo + r) * k + vo + c]);
        o += nv * nv;
    }
    free(B);
    free(vals);
    free(M);
    free(Mb);
    free(seen);
}

/* The tangent blocks against the dense cm M + cc C + ck K T at a random state. */
static void check_blocks(const ld_system *s, const double *q0, const double *v, const char *file) {
    size_t k = (size_t)s->k, m = (size_t)s->m, nb = s->blk_off[s->nblk];
    assert_true(ld_sys_has_blocks(s));
    double *D = calloc(5 * k * k + k + m + 2 * nb + ld_sys_mass_block_entries(s) + 1, sizeof *D);
    assert_non_null(D);
    double *M = D + k * k, *C = M + k * k, *K = C + k * k, *T = K + k * k, *a = T + k * k;
    double *lam = a + k, *vals = lam + m, *seen = vals + nb, *Tb = seen + nb;
    rng r = rng_seed(5);
    for (size_t i = 0; i < k; ++i) a[i] = rng_range(&r, -2, 2), D[i] = rng_range(&r, -0.3, 0.3);
    for (size_t i = 0; i < m; ++i) lam[i] = rng_range(&r, -3, 3);
    ld_sys_tangent(s, T, D); /* T(ξ) for a random ξ, then its node blocks */
    for (size_t n = 0, o = 0; n < (size_t)s->nnodes; ++n)
        for (size_t i = 0, vo = (size_t)s->nodes[n].voff, nv = node_nv(s, n); i < nv; ++i)
            for (size_t j = 0; j < nv; ++j, ++o) Tb[o] = T[(vo + i) * k + vo + j];
    const double cm = 0.7, cc = -1.3, ck = 2.1;
    assert_int_equal(s->ops.mass(s, q0, M), LD_OK);
    assert_int_equal(s->ops.g_v(s, 0.3, q0, v, C), LD_OK);
    assert_int_equal(s->ops.stiffness(s, 0.3, q0, v, a, lam, K), LD_OK);
    assert_int_equal(s->ops.tangent_blocks(s, 0.3, q0, v, a, lam, cm, cc, ck, Tb, vals), LD_OK);
    double big = 1.0, err = 0.0;
    for (size_t i = 0; i < k; ++i)
        for (size_t j = 0; j < k; ++j) {
            double kt = 0.0;
            for (size_t l = 0; l < k; ++l) kt += K[i * k + l] * T[l * k + j];
            D[i * k + j] = cm * M[i * k + j] + cc * C[i * k + j] + ck * kt;
            big = fmax(big, fabs(D[i * k + j]));
        }
    for (int b = 0; b < s->nblk; ++b) {
        size_t r0 = (size_t)s->nodes[s->blk_row[b]].voff, c0 = (size_t)s->nodes[s->blk_col[b]].voff;
        size_t nr = node_nv(s, (size_t)s->blk_row[b]), ncl = node_nv(s, (size_t)s->blk_col[b]);
        for (size_t i = 0; i < nr; ++i)
            for (size_t j = 0; j < ncl; ++j) {
                size_t at = (r0 + i) * k + c0 + j;
                err = fmax(err, fabs(vals[s->blk_off[b] + ncl * i + j] - D[at]));
                D[at] = 0.0; /* covered */
            }
    }
    if (err > 1e-12 * big) fail_msg("%s: tangent blocks differ by %g (of %g)", file, err, big);
    for (size_t i = 0; i < k * k; ++i)
        if (fabs(D[i]) > 1e-12 * big)
            fail_msg("%s: tangent entry (%zu, %zu) = %g outside the block pattern", file, i / k,
                     i % k, D[i]);
    free(D);
}

static void check_model(const char *file) {
    char path[4608], msg[512];
    snprintf(path, sizeof path, "%s/models/%s", LD_SOURCE_DIR, file);
    ld_model m;
    ld_model_error err;
    if (ld_model_load(path, &m, &err) != LD_OK) fail_msg("%s", err.msg);
    int compiled = 0;
    for (int f = 0; f < LD_FORM_COUNT; ++f) {
        ld_system s;
        double *q0, *v0;
        int rc = ld_model_compile_msg(&m, (ld_formulation)f, &s, &q0, &v0, msg, sizeof msg);
        if (rc == LD_ENOTSUPPORTED) continue; /* rods in the euler formulation */
        if (rc) fail_msg("%s (%s): %s", file, ld_formulation_name((ld_formulation)f), msg);
        compiled++;
        check_instances(&s, &m, (ld_formulation)f, file);
        check_rows(&s, &m, file);
        double *g = calloc(2 * (size_t)s.k, sizeof *g), *v = calloc((size_t)s.k, sizeof *v);
        assert_true(g && v);
        rng r = rng_seed(17u + (unsigned)f);
        for (int i = 0; i < s.k; ++i) v[i] = v0[i] + rng_range(&r, -0.5, 0.5);
        check_partition(&s, q0, v, g, g + s.k);
        check_phi_t(&s, q0, file);
        if (s.ops.phi_q_sparse) check_sparse(&s, q0, file);
        if (s.ops.tangent_blocks && s.k <= 600) check_blocks(&s, q0, v, file);
        assert_int_equal(ld_sys_has_blocks(&s), f != LD_FORM_EULER);
        free(g);
        free(v);
        free(q0);
        free(v0);
        ld_model_system_free(&s);
    }
    assert_true(compiled >= 4);
    ld_model_free(&m);
}

static void test_shipped_models(void **state) {
    (void)state;
    char names[MAX_MODELS][64];
    int n = shipped(names);
    assert_true(n >= 13);
    for (int i = 0; i < n; ++i) check_model(names[i]);
}

/* The heavy top built in code: one body, one joint of three rows, owned and named. */
static void test_heavy_top_rows(void **state) {
    (void)state;
    ld_model m;
    ld_system s;
    double *q0, *v0;
    char buf[128];
    tm_heavy_top(&m, 1.0);
    assert_int_equal(ld_model_compile(&m, LD_FORM_SE3, &s, &q0, &v0), LD_OK);
    assert_int_equal(s.m, 3);
    assert_int_equal(ld_model_row_name(&s, 2, buf, sizeof buf), LD_OK);
    assert_string_equal(buf, "joint 'pivot', row 3 of 3");
    free(q0);
    free(v0);
    ld_model_system_free(&s);
}

/* A joint whose body1 comes after its body2 in the node order: its rows' columns in the
 * pattern follow the nodes' order, not the joint's, in every Lie formulation. */
static void test_reversed_joint(void **state) {
    (void)state;
    ld_model m;
    ld_joint two[2];
    tm_loaded(&m);
    two[0] = tm_joints[0];
    memset(&two[1], 0, sizeof two[1]);
    snprintf(two[1].name, sizeof two[1].name, "reversed");
    two[1].kind = LD_JOINT_REVOLUTE;
    two[1].body1 = 1, two[1].body2 = 0;
    two[1].at[0] = 0.5, two[1].at[1] = 0.4, two[1].at[2] = 1.9;
    two[1].axis[0] = 0.6, two[1].axis[2] = 0.8;
    m.joints = two;
    m.njoints = 2;
    for (int i = 0; i < 2; ++i) tm_bodies[i].has_v = 0, memset(tm_bodies[i].omega, 0, 24);
    for (int f = 0; f < LD_FORM_EULER; ++f) {
        ld_system s;
        double *q0, *v0;
        char msg[512];
        if (ld_model_compile_msg(&m, (ld_formulation)f, &s, &q0, &v0, msg, sizeof msg))
            fail_msg("%s", msg);
        assert_int_equal(s.m, 8);
        check_rows(&s, &m, "reversed");
        check_sparse(&s, q0, "reversed");
        free(q0);
        free(v0);
        ld_model_system_free(&s);
    }
}

/* n steps of method i with solver la from the start; the final q into q (nq). The structured
 * sparse path is taken exactly when la is KLU. */
static int run_steps(const ld_system *s, const double *q0, const double *v0, int i, ld_la_kind la,
                     double h, int n, double *q) {
    ld_integ_options o;
    ld_integ_options_init(&o);
    o.method = (ld_integ_method)i;
    o.la = la;
    if (ld_integ_options_check(s, &o)) return 1; /* refused: not for this model */
    int rc;
    char msg[320];
    ld_integ *it = ld_integ_create_msg(s, &o, &rc, msg, sizeof msg);
    if (!it) fail_msg("%s: %s", ld_method_get(i)->name, msg);
    assert_int_equal(it->blocks, la == LD_LA_KLU);
    rc = ld_integ_init(it, 0.0, q0, v0);
    for (int j = 0; !rc && j < n; ++j) rc = ld_integ_step(it, h);
    if (rc) fail_msg("%s: %s", ld_method_get(i)->name, ld_integ_message(it));
    memcpy(q, ld_integ_q(it), (size_t)s->nq * sizeof(double));
    ld_integ_free(it);
    return 0;
}

/* Every Newton method gives the same motion on the dense path and on the structured sparse
 * path (to the Newton tolerance), on models with joints, dampers, springs and a rod. */
static void test_newton_paths(void **state) {
    (void)state;
    static const char *const files[] = {"double-pendulum-damped.yaml", "flying-spaghetti.yaml",
                                        "mass-spring.yaml", "heavy-top.yaml"};
    for (size_t f = 0; f < sizeof files / sizeof files[0]; ++f) {
        char path[4608];
        snprintf(path, sizeof path, "%s/models/%s", LD_SOURCE_DIR, files[f]);
        ld_model m;
        ld_model_error err;
        if (ld_model_load(path, &m, &err) != LD_OK) fail_msg("%s", err.msg);
        ld_system s;
        double *q0, *v0;
        assert_int_equal(ld_model_compile(&m, LD_FORM_SE3, &s, &q0, &v0), LD_OK);
        double *qd = calloc(2 * (size_t)s.nq, sizeof *qd), *qs = qd + s.nq;
        assert_non_null(qd);
        int ran = 0;
        for (int i = 0; i < ld_method_count(); ++i) {
            if (!ld_method_get(i)->newton) continue;
            if (run_steps(&s, q0, v0, i, LD_LA_DENSE, 1e-3, 20, qd)) continue;
            assert_int_equal(run_steps(&s, q0, v0, i, LD_LA_KLU, 1e-3, 20, qs), 0);
            double d = maxabs_diff(qd, qs, s.nq);
            if (d > 1e-8)
                fail_msg("%s, %s: the paths differ by %g", files[f], ld_method_get(i)->name, d);
            ran++;
        }
        assert_true(ran >= 4);
        free(qd);
        free(q0);
        free(v0);
        ld_model_system_free(&s);
        ld_model_free(&m);
    }
}

/* Sets the trial state of it at random (the same for the same seed) and assembles its residual
 * and iteration matrix. */
static void assemble_at(ld_integ *it, const double *q0) {
    rng r = rng_seed(99);
    int k = it->k;
    for (int i = 0; i < k; ++i) {
        it->xi[i] = rng_range(&r, -0.2, 0.2);
        it->vn[i] = rng_range(&r, -1.0, 1.0);
        it->vdn[i] = rng_range(&r, -3.0, 3.0);
    }
    for (int i = 0; i < it->m; ++i) it->lamn[i] = rng_range(&r, -5.0, 5.0);
    ld_sys_retract(it->s, it->qn, q0, it->xi);
    it->bh2 = 0.3;
    assert_int_equal(ld_integ__residual(it, 0.2), LD_OK);
    assert_int_equal(ld_integ__assemble(it, 0.2, 1.7, 0.4, 0.3, NULL), LD_OK);
}

/* The structured path's residual and iteration matrix are the dense path's, entry by entry,
 * and its pattern holds every non-zero of the dense matrix. */
static void test_iteration_matrix(void **state) {
    (void)state;
    static const char *const files[] = {"double-pendulum-damped.yaml", "flying-spaghetti.yaml",
                                        "crank-v8.yaml"};
    for (size_t f = 0; f < sizeof files / sizeof files[0]; ++f) {
        char path[4608];
        snprintf(path, sizeof path, "%s/models/%s", LD_SOURCE_DIR, files[f]);
        ld_model m;
        ld_model_error err;
        if (ld_model_load(path, &m, &err) != LD_OK) fail_msg("%s", err.msg);
        ld_system s;
        double *q0, *v0;
        assert_int_equal(ld_model_compile(&m, LD_FORM_S3SDR3, &s, &q0, &v0), LD_OK);
        ld_integ_options o;
        ld_integ_options_init(&o);
        int rc;
        ld_integ *d = ld_integ_create(&s, &o, &rc);
        o.la = LD_LA_KLU;
        ld_integ *b = ld_integ_create(&s, &o, &rc);
        assert_true(d && b && b->blocks && !d->blocks);
        assemble_at(d, q0);
        assemble_at(b, q0);
        size_t n = (size_t)d->n;
        double big = 1.0, dr = 0.0, ds = 0.0;
        for (size_t i = 0; i < n; ++i) dr = fmax(dr, fabs(d->r[i] - b->r[i]) / (1 + fabs(d->r[i])));
        for (size_t j = 0; j < n; ++j)
            for (int p = b->colptr[j]; p < b->colptr[j + 1]; ++p) {
                double *x = &d->S[(size_t)b->rowind[p] * n + j];
                big = fmax(big, fabs(*x));
                ds = fmax(ds, fabs(*x - b->vals[p]));
                *x = 0.0;
            }
        for (size_t i = 0; i < n * n; ++i)
            if (d->S[i] != 0.0)
                fail_msg("%s: S(%zu, %zu) outside the pattern", files[f], i / n, i % n);
        if (dr > 1e-12 || ds > 1e-12 * big)
            fail_msg("%s: residuals differ by %g, matrices by %g (of %g)", files[f], dr, ds, big);
        ld_integ_free(d);
        ld_integ_free(b);
        free(q0);
        free(v0);
        ld_model_system_free(&s);
        ld_model_free(&m);
    }
}

/* A rotation driver (a sine) on a hinge: its row of ∂Φ/∂t, from the joint element, against
 * differences of Φ in t, in every formulation. */
static void test_driver_phi_t(void **state) {
    (void)state;
    ld_model m;
    ld_joint j[2];
    tm_base(&m);
    const double J[9] = {1, 0, 0, 0, 2, 0, 0, 0, 3}, x[3] = {0.5, 0, 0}, q[4] = {1, 0, 0, 0},
                 om[3] = {0, 0, 0.5 * PI}; /* the driver's rate at t = 0: 0.5 · 2π/2 */
    tm_body(&tm_bodies[0], "arm", 1.0, J, x, q, om);
    memset(j, 0, sizeof j);
    strcpy(j[0].name, "hinge"), strcpy(j[1].name, "motor");
    j[0].kind = LD_JOINT_REVOLUTE, j[1].kind = LD_JOINT_DRIVER;
    for (int i = 0; i < 2; ++i) j[i].body1 = LD_GROUND, j[i].body2 = 0, j[i].axis[2] = 1.0;
    j[1].motion = LD_MOTION_ROTATION, j[1].value = 0.5;
    j[1].fn.kind = LD_TFN_SINE, j[1].fn.period = 2.0;
    tm_bodies[0].has_v = 0; /* the joints give it */
    m.nbodies = 1, m.bodies = tm_bodies, m.njoints = 2, m.joints = j;
    for (int f = 0; f < LD_FORM_COUNT; ++f) {
        ld_system s;
        double *q0, *v0;
        char msg[256];
        if (ld_model_compile_msg(&m, (ld_formulation)f, &s, &q0, &v0, msg, sizeof msg))
            fail_msg("%s", msg);
        double p[8] = {0};
        assert_int_equal(s.ops.phi_t(&s, 0.37, q0, p), LD_OK);
        assert_true(fabs(p[5]) > 0.1); /* the driver's row moves */
        check_phi_t(&s, q0, "driver");
        free(q0);
        free(v0);
        ld_model_system_free(&s);
    }
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_shipped_models), cmocka_unit_test(test_reversed_joint),
        cmocka_unit_test(test_heavy_top_rows), cmocka_unit_test(test_driver_phi_t),
        cmocka_unit_test(test_newton_paths),   cmocka_unit_test(test_iteration_matrix),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
