/*
 * The YAML model reader, continued (yaml.c): beams (docs/model-format.md, "Beams"). Each beam's
 * free nodes are appended to the model's bodies (ld_beam_place) as soon as the beam is read, so
 * that the joints and loads, read next, can name them ("leg[4]"). The section is either the
 * shorthand `section: {EA, GA2, GA3, GJ, EI2, EI3}` or the full 6×6 `stiffness` (36 numbers,
 * row-major), with `rho_a` and `rho_j` or the full 6×6 `mass`; uniform, or at `sections:`
 * stations along the beam; ld_model_validate checks them (symmetric positive definite).
 */
#include <ctype.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../lie/mat3.h"
#include "liedyn/liedyn.h"
#include "liedyn/model.h"
#include "../elements/beam_curve.h"
#include "../elements/kinds.h"
#include "reader.h"
#include "../core/oom.h"

static const char *const beam_keys[] = {"name",      "order",
                                        "elements",  "from",
                                        "to",        "points",
                                        "normal",    "section",
                                        "stiffness", "mass",
                                        "rho_a",     "rho_j",
                                        "clamp",     "quadrature",
                                        "damping",   "sections",
                                        "curve",     "quadrature_per_section",
                                        "pin",       "pin_axis",
                                        "velocity",  "angular_velocity",
                                        "collide",   NULL};
static const char *const station_keys[] = {"eta",   "section", "stiffness", "mass",
                                           "rho_a", "rho_j",   "twist",     NULL};
static const char *const section_keys[] = {"EA", "GA2", "GA3", "GJ", "EI2", "EI3", NULL};
static const char *const clamps[] = {"none", "start", "end", "both", NULL};
static const char *const quadratures[] = {"full", "reduced", NULL};
static const char *const bools[] = {"false", "true", NULL};

/* Line of key in map (the map's line when the key is absent). */
static int key_line(reader *r, const yaml_node_t *map, const char *key) {
    field f;
    (void)ly_lookup(r, map, key, 0, &f);
    return f.line;
}

/* A failure at key of map. */
static int fail_at(reader *r, const yaml_node_t *map, const char *key, const char *why) {
    size_t mark = ly_push_key(r, key);
    int rc = ly_fail(r, key_line(r, map, key), "%s", why);
    ly_pop(r, mark);
    return rc;
}

/* The stiffness: the shorthand mapping or the full matrix, exactly one of them. */
static int read_stiffness(reader *r, const yaml_node_t *n, double C[36]) {
    field f;
    int rc = ly_lookup(r, n, "section", 0, &f), has_full = 0;
    double full[36];
    if (rc) return rc;
    if ((rc = ly_get_vec(r, n, "stiffness", 0, full, 36, &has_full))) return rc;
    if (!f.val && !has_full)
        return fail_at(r, n, "section",
                       "is required: {EA, GA2, GA3, GJ, EI2, EI3}, or the 6x6 'stiffness'");
    if (f.val && has_full)
        return fail_at(r, n, "stiffness", "and 'section' exclude each other: give one");
    if (has_full) {
        memcpy(C, full, sizeof full);
        return LD_OK;
    }
    size_t mark = ly_push_key(r, "section");
    rc = ly_expect_map(r, f.val, f.line, "a section {EA, GA2, GA3, GJ, EI2, EI3}");
    if (!rc) rc = ly_check_keys(r, f.val, section_keys, NULL);
    for (int k = 0; !rc && k < 6; ++k) rc = ly_get_number(r, f.val, section_keys[k], 1, &C[7 * k]);
    ly_pop(r, mark);
    return rc;
}

/* rho_j: 3 (the diagonal) or 9 numbers. */
static int read_rho_j(reader *r, const yaml_node_t *n, double rho_j[9]) {
    field f;
    double *v = NULL;
    int rc, nj = 0;
    if ((rc = ly_lookup(r, n, "rho_j", 1, &f))) return rc;
    size_t mark = ly_push_key(r, "rho_j");
    rc = ly_read_list(r, f, &v, &nj);
    if (!rc && nj != 3 && nj != 9)
        rc = ly_fail(r, f.line, "must hold 3 (the diagonal) or 9 numbers, found %d", nj);
    memset(rho_j, 0, 9 * sizeof(double));
    if (!rc && nj == 3) rho_j[0] = v[0], rho_j[4] = v[1], rho_j[8] = v[2];
    if (!rc && nj == 9) memcpy(rho_j, v, 9 * sizeof(double));
    free(v);
    ly_pop(r, mark);
    return rc;
}

/* The mass per length: rho_a and rho_j (the centre of mass on the axis), or the 6×6 `mass`
 * (translations first) [m I, −hat(m ξ); hat(m ξ), ρJ] of a section whose centre of mass is at
 * ξ (material frame), ρJ about the axis. */
static int read_mass(reader *r, const yaml_node_t *n, double *rho_a, double rho_j[9],
                     double mxi[3]) {
    double M[36];
    int rc, has = 0;
    field fa, fj;
    memset(mxi, 0, 3 * sizeof(double));
    if ((rc = ly_get_vec(r, n, "mass", 0, M, 36, &has))) return rc;
    if ((rc = ly_lookup(r, n, "rho_a", 0, &fa)) || (rc = ly_lookup(r, n, "rho_j", 0, &fj)))
        return rc;
    if (!has) {
        if ((rc = ly_get_number(r, n, "rho_a", 1, rho_a))) return rc;
        if (!(*rho_a > 0.0) || !isfinite(*rho_a)) return fail_at(r, n, "rho_a", "must be positive");
        return read_rho_j(r, n, rho_j);
    }
    if (fa.val || fj.val)
        return fail_at(r, n, "mass", "and 'rho_a'/'rho_j' exclude each other: give one");
    double m = M[0], tol = 1e-12 * fmax(fabs(m), 1e-300), big = 0.0;
    for (int i = 0; i < 36; ++i) big = fmax(big, fabs(M[i]));
    /* the coupling block B = M[0..2][3..5] = −hat(m ξ): m ξ = (B₂₃, B₃₁, B₁₂) */
    mxi[0] = M[6 * 1 + 5], mxi[1] = M[6 * 2 + 3], mxi[2] = M[6 * 0 + 4];
    double H[9];
    ld_so3_hat(H, mxi);
    for (int i = 0; i < 3; ++i)
        for (int j = 0; j < 3; ++j) {
            if (fabs(M[6 * i + j] - (i == j ? m : 0.0)) > tol)
                return fail_at(r, n, "mass", "the translational block must be m I (rows 1-3)");
            if (fabs(M[6 * i + 3 + j] + H[3 * i + j]) > 1e-12 * big ||
                fabs(M[6 * (3 + i) + j] - H[3 * i + j]) > 1e-12 * big)
                return fail_at(r, n, "mass",
                               "the coupling blocks must be -hat(m xi) (rows 1-3, columns 4-6) "
                               "and hat(m xi) (rows 4-6, columns 1-3): a centre of mass at xi");
            rho_j[3 * i + j] = M[6 * (3 + i) + 3 + j];
        }
    if (!(m > 0.0) || !isfinite(m))
        return fail_at(r, n, "mass", "the mass per length must be positive");
    *rho_a = m;
    return LD_OK;
}

/* The `sections:` stations: eta, stiffness and mass each, eta from 0 ascending to 1. */
static int read_stations(reader *r, const yaml_node_t *n, ld_beam *b) {
    field f;
    int rc = ly_lookup(r, n, "sections", 1, &f), ns = 0;
    if (rc) return rc;
    size_t mark = ly_push_key(r, "sections");
    rc = ly_expect_seq(r, f.val, f.line, "a list of stations {eta, section, rho_a, rho_j}");
    if (!rc) ns = ly_seq_len(f.val);
    if (!rc && (ns < 2 || ns > LD_BEAM_STATIONS_MAX))
        rc = ly_fail(r, f.line, "must hold 2 … %d stations, found %d", LD_BEAM_STATIONS_MAX, ns);
    if (!rc && !(b->stations = ld_xcalloc((size_t)ns, sizeof *b->stations, "the beam's stations")))
        rc = ly_out_of_memory(r, f.line);
    if (!rc) b->nstations = ns;
    for (int i = 0; !rc && i < ns; ++i) {
        size_t im = ly_push_index(r, i);
        yaml_node_t *it = ly_seq_item(r, f.val, i);
        ld_beam_station *st = &b->stations[i];
        rc = ly_expect_map(r, it, ly_line_of(it), "a station {eta, section, rho_a, rho_j}");
        if (!rc) rc = ly_check_keys(r, it, station_keys, NULL);
        if (!rc) rc = ly_get_number(r, it, "eta", 1, &st->eta);
        if (!rc && ((i == 0 && st->eta != 0.0) || (i == ns - 1 && st->eta != 1.0) ||
                    (i > 0 && !(st->eta > st[-1].eta))))
            rc = fail_at(r, it, "eta",
                         "the stations' eta (arc-length fraction) must ascend from 0 to 1");
        if (!rc) rc = read_stiffness(r, it, st->C);
        if (!rc) rc = read_mass(r, it, &st->rho_a, st->rho_j, st->mxi);
        if (!rc) rc = ly_get_number(r, it, "twist", 0, &st->twist);
        if (!rc && !isfinite(st->twist))
            rc = fail_at(r, it, "twist", "must be a finite angle (rad)");
        ly_pop(r, im);
    }
    ly_pop(r, mark);
    return rc;
}

/* The section: uniform (stiffness and mass on the beam) or `sections:`, not both. */
static int read_section(reader *r, const yaml_node_t *n, ld_beam *b) {
    field f;
    int rc = ly_lookup(r, n, "sections", 0, &f);
    if (rc) return rc;
    if (!f.val) {
        if ((rc = read_stiffness(r, n, b->C))) return rc;
        return read_mass(r, n, &b->rho_a, b->rho_j, b->mxi);
    }
    static const char *const uniform[] = {"section", "stiffness", "mass", "rho_a", "rho_j", NULL};
    for (int k = 0; uniform[k]; ++k) {
        field g;
        if ((rc = ly_lookup(r, n, uniform[k], 0, &g))) return rc;
        if (g.val) return fail_at(r, n, uniform[k], "and 'sections' exclude each other: give one");
    }
    return read_stations(r, n, b);
}

/* quadrature: full, reduced, or a number of Gauss points per element. */
static int read_quadrature(reader *r, const yaml_node_t *n, ld_beam *b) {
    field f;
    int rc = ly_lookup(r, n, "quadrature", 0, &f), quad = 0;
    if (rc || !f.val) return rc;
    if (f.val->type == YAML_SCALAR_NODE && f.val->data.scalar.length > 0 &&
        isdigit((unsigned char)f.val->data.scalar.value[0])) {
        if ((rc = ly_get_int(r, n, "quadrature", 1, &b->nquad))) return rc;
        if (b->nquad < 1 || b->nquad > LD_BEAM_QUAD_MAX)
            return fail_at(r, n, "quadrature",
                           "must be full, reduced or a number of points 1 … 64");
        return LD_OK;
    }
    if ((rc = ly_get_choice(r, n, "quadrature", 0, quadratures, &quad))) return rc;
    b->reduced = quad == 1;
    return LD_OK;
}

/* quadrature_per_section: Gauss points on each piece of an element between the stations. */
static int read_qsec(reader *r, const yaml_node_t *n, ld_beam *b) {
    field f, g;
    int rc = ly_lookup(r, n, "quadrature_per_section", 0, &f);
    if (rc || !f.val) return rc;
    if ((rc = ly_lookup(r, n, "quadrature", 0, &g))) return rc;
    if (g.val)
        return fail_at(r, n, "quadrature_per_section",
                       "and 'quadrature' exclude each other: give one");
    if ((rc = ly_get_int(r, n, "quadrature_per_section", 1, &b->nqsec))) return rc;
    if (b->nqsec < 1 || b->nqsec > LD_BEAM_QSEC_MAX)
        return fail_at(r, n, "quadrature_per_section", "must be 1 … 8");
    return LD_OK;
}

/* The centreline: from and to (a straight beam), or points (a polyline of 2 … 256 points, or
 * with `curve: true` samples of a smooth curve), consecutive points a finite distance apart. */
static int read_centreline(reader *r, const yaml_node_t *n, ld_beam *b) {
    field f;
    int rc = ly_lookup(r, n, "points", 0, &f), np = 0;
    if (rc) return rc;
    if (!f.val) {
        b->npoints = 2;
        if ((rc = ly_get_vec(r, n, "from", 1, b->points, 3, NULL))) return rc;
        if ((rc = ly_get_vec(r, n, "to", 1, b->points + 3, 3, NULL))) return rc;
    } else {
        field g;
        if ((rc = ly_lookup(r, n, "from", 0, &g))) return rc;
        if (g.val) return fail_at(r, n, "from", "and 'points' exclude each other: give one");
        size_t mark = ly_push_key(r, "points");
        rc = ly_expect_seq(r, f.val, f.line, "a list of points [x, y, z]");
        if (!rc) np = ly_seq_len(f.val);
        if (!rc && (np < 2 || np > LD_BEAM_POINTS_MAX))
            rc = ly_fail(r, f.line, "must hold 2 … %d points, found %d", LD_BEAM_POINTS_MAX, np);
        for (int i = 0; !rc && i < np; ++i) {
            double *v = NULL;
            int cnt = 0;
            yaml_node_t *it = ly_seq_item(r, f.val, i);
            field pf = {it, ly_line_of(it)};
            size_t im = ly_push_index(r, i);
            rc = ly_read_list(r, pf, &v, &cnt);
            if (!rc && cnt != 3)
                rc = ly_fail(r, pf.line, "must be [x, y, z], found %d numbers", cnt);
            if (!rc) memcpy(b->points + 3 * i, v, 3 * sizeof(double));
            free(v);
            ly_pop(r, im);
        }
        ly_pop(r, mark);
        if (rc) return rc;
        b->npoints = np;
    }
    for (int sg = 0; sg + 1 < b->npoints; ++sg) {
        double d[3];
        for (int i = 0; i < 3; ++i) d[i] = b->points[3 * (sg + 1) + i] - b->points[3 * sg + i];
        double len = ld_v3_norm(d);
        if (!(len > 0.0) || !isfinite(len))
            return fail_at(r, n, f.val ? "points" : "to",
                           "consecutive points must be a finite, non-zero distance apart");
    }
    return LD_OK;
}

static int read_beam(reader *r, const yaml_node_t *n, ld_model *m, ld_beam *b) {
    int rc, has_normal = 0, clamp = 0, pin = 0, has_axis = 0;
    memset(b, 0, sizeof *b);
    b->order = 4;
    b->nelem = 1;
    if ((rc = ly_expect_map(r, n, ly_line_of(n), "a beam"))) return rc;
    if ((rc = ly_check_keys(r, n, beam_keys, NULL))) return rc;
    if ((rc = ly_get_name(r, n, "name", 1, 0, b->name))) return rc;
    if ((rc = ly_get_int(r, n, "order", 0, &b->order))) return rc;
    if (b->order < 1 || b->order > LD_BEAM_ORDER_MAX)
        return fail_at(r, n, "order", "must be 1 … 14 (the element's polynomial order)");
    if ((rc = ly_get_int(r, n, "elements", 0, &b->nelem))) return rc;
    if (b->nelem < 1 || b->nelem > 100000) return fail_at(r, n, "elements", "must be 1 … 100000");
    if ((rc = read_centreline(r, n, b))) return rc;
    if ((rc = ly_get_choice(r, n, "curve", 0, bools, &b->curve))) return rc;
    if (ld_beam__node_count(b) > LD_BEAM_NODES_MAX) {
        char why[200];
        snprintf(why, sizeof why,
                 "%d elements of order %d%s make %lld nodes, more than the %d of a beam (the "
                 "nodes are bodies: memory grows with them)",
                 b->nelem, b->order, b->curve ? "" : " on every segment of the points",
                 ld_beam__node_count(b), LD_BEAM_NODES_MAX);
        return fail_at(r, n, "elements", why);
    }
    if ((rc = ly_get_vec(r, n, "normal", 0, b->normal, 3, &has_normal))) return rc;
    if ((rc = read_section(r, n, b))) return rc;
    if ((rc = ly_get_number(r, n, "damping", 0, &b->damping))) return rc;
    if ((rc = ly_get_choice(r, n, "clamp", 0, clamps, &clamp))) return rc;
    if ((rc = ly_get_choice(r, n, "pin", 0, clamps, &pin))) return rc;
    if ((rc = ly_get_vec(r, n, "pin_axis", 0, b->pin_axis, 3, &has_axis))) return rc;
    int hv = 0, hw = 0;
    if ((rc = ly_get_vec(r, n, "velocity", 0, b->v0, 3, &hv))) return rc;
    if ((rc = ly_get_vec(r, n, "angular_velocity", 0, b->w0, 3, &hw))) return rc;
    b->has_motion = hv || hw;
    if ((rc = ly_read_collide(r, n, &b->collide))) return rc;
    if ((rc = read_quadrature(r, n, b))) return rc;
    if ((rc = read_qsec(r, n, b))) return rc;
    b->clamp[0] = clamp == 1 || clamp == 3;
    b->clamp[1] = clamp == 2 || clamp == 3;
    b->pin[0] = pin == 1 || pin == 3;
    b->pin[1] = pin == 2 || pin == 3;
    if ((b->pin[0] && b->clamp[0]) || (b->pin[1] && b->clamp[1]))
        return fail_at(r, n, "pin",
                       "names an end that 'clamp' clamps already: an end is either "
                       "clamped or pinned");
    if (has_axis && !(ld_v3_norm(b->pin_axis) > 0.0))
        return fail_at(r, n, "pin_axis",
                       "must be a non-zero vector (the axis the pinned ends "
                       "turn about)");
    if (has_axis && !pin) return fail_at(r, n, "pin_axis", "needs 'pin': the ends it applies to");
    if (!has_normal) { /* the spatial axis least aligned with the first segment */
        double d[3];
        for (int i = 0; i < 3; ++i) d[i] = b->points[3 + i] - b->points[i];
        int k = 0;
        for (int i = 1; i < 3; ++i)
            if (fabs(d[i]) < fabs(d[k])) k = i;
        b->normal[k] = 1.0;
    }
    for (int sg = 0; sg + 1 < b->npoints; ++sg) {
        double d[3];
        for (int i = 0; i < 3; ++i) d[i] = b->points[3 * (sg + 1) + i] - b->points[3 * sg + i];
        double len = ld_v3_norm(d), pe = ld_v3_dot(b->normal, d) / len, pn = ld_v3_norm(b->normal);
        if (!(pn > 0.0) || !(sqrt(fmax(0.0, pn * pn - pe * pe)) > 1e-9 * pn))
            return fail_at(r, n, "normal", "must be a direction not parallel to any segment");
    }
    b->line = ly_line_of(n);
    { /* the section's fault at its own key, before placing */
        char key[64], why[128];
        if (ld_beam_section_check(b, key, sizeof key, why, sizeof why)) {
            size_t mark = ly_push_key(r, key);
            rc = ly_fail(r, ly_line_of(n), "%s", why);
            ly_pop(r, mark);
            return rc;
        }
    }
    rc = ld_beam_place(m, b);
    if (rc == LD_ENOMEM) return ly_out_of_memory(r, ly_line_of(n));
    if (rc && b->curve)
        return fail_at(r, n, "normal", "must not be parallel to the curve's tangent anywhere");
    if (rc) return fail_at(r, n, "name", "cannot place the beam: the node names must fit");
    return LD_OK;
}

int ly_read_beams(reader *r, const yaml_node_t *root, ld_model *m) {
    field f;
    size_t mark = ly_push_key(r, "beams");
    int rc = ly_lookup(r, root, "beams", 0, &f), n = 0;
    if (!rc && f.val) rc = ly_expect_seq(r, f.val, f.line, "beams");
    if (!rc && f.val) n = ly_seq_len(f.val);
    for (int i = 0; !rc && i < n; ++i) {
        size_t im = ly_push_index(r, i);
        ld_beam b;
        rc = read_beam(r, ly_seq_item(r, f.val, i), m, &b);
        if (!rc && ld_model_add_beam(m, &b)) rc = ly_out_of_memory(r, f.line);
        if (rc) {
            free(b.node_body), free(b.q0), free(b.x0), free(b.qe0), free(b.wlen);
            free(b.stations);
        }
        ly_pop(r, im);
    }
    ly_pop(r, mark);
    return rc;
}
