/*
 * The segments of the rods and beams as capsules (docs/contact.md, "Rods and beams"): which
 * segments a model has, and where a contact on one lies along it.
 *
 * Segment g counts the colliding rods' segments first (rod order, node k to node k + 1), then
 * the colliding beams' spans between consecutive nodes (node k to k + 1 along the beam, so
 * inside a higher-order element too). A beam's clamped node is no body: its end of the
 * segment stays at its reference position.
 */
#include <string.h>

#include "../lie/mat3.h"
#include "contact.h"
#include "liedyn/liedyn.h"

/* Segments of a beam: one between each two consecutive nodes, none when both are clamped. */
static int beam_spans(const ld_beam *b) {
    int n = 0;
    for (int k = 0; b->node_body && k + 1 < b->nnodes; ++k)
        n += b->node_body[k] != LD_GROUND || b->node_body[k + 1] != LD_GROUND;
    return n;
}

int ld_cseg_count(const ld_model *m) {
    int n = 0;
    for (int r = 0; r < m->nrods; ++r)
        if (m->rods[r].collide.on) n += m->rods[r].n;
    for (int b = 0; b < m->nbeams; ++b)
        if (m->beams[b].collide.on) n += beam_spans(&m->beams[b]);
    return n;
}

/* Span g (< beam_spans) of beam b into out. */
static void beam_span(const ld_beam *b, int g, ld_cseg *out) {
    for (int k = 0; k + 1 < b->nnodes; ++k) {
        if (b->node_body[k] == LD_GROUND && b->node_body[k + 1] == LD_GROUND) continue;
        if (g-- > 0) continue;
        for (int e = 0; e < 2; ++e) {
            out->body[e] = b->node_body[k + e];
            memcpy(out->x0[e], b->x0 + 3 * (k + e), sizeof out->x0[e]);
        }
        out->k = k;
        return;
    }
}

int ld_cseg_get(const ld_model *m, int g, ld_cseg *out) {
    memset(out, 0, sizeof *out);
    for (int r = 0; r < m->nrods; ++r) {
        const ld_rod *rod = &m->rods[r];
        if (!rod->collide.on) continue;
        if (g >= rod->n) {
            g -= rod->n;
            continue;
        }
        out->body[0] = rod->body0 + g, out->body[1] = rod->body0 + g + 1;
        out->rod = r, out->beam = -1, out->k = g;
        out->c = rod->collide;
        return LD_OK;
    }
    for (int b = 0; b < m->nbeams; ++b) {
        const ld_beam *bm = &m->beams[b];
        if (!bm->collide.on) continue;
        int n = beam_spans(bm);
        if (g >= n) {
            g -= n;
            continue;
        }
        beam_span(bm, g, out);
        out->rod = -1, out->beam = b;
        out->c = bm->collide;
        return LD_OK;
    }
    return LD_EINVAL;
}

void ld_cseg_place(const double xa[3], const double xb[3], double radius, ld_cshape *c) {
    memset(c, 0, sizeof *c);
    c->kind = LD_SHAPE_CAPSULE;
    memcpy(c->c, xa, sizeof c->c);
    memcpy(c->c1, xb, sizeof c->c1);
    c->r = radius;
}

double ld_cseg_weight(const double xa[3], const double xb[3], double radius, const ld_contact *ct,
                      double c[3]) {
    double d[3], y[3];
    for (int i = 0; i < 3; ++i) {
        d[i] = xb[i] - xa[i];
        y[i] = ct->p[i] + (0.5 * ct->gap + radius) * ct->n[i] - xa[i];
    }
    double dd = ld_v3_dot(d, d), s = dd > 0.0 ? ld_v3_dot(y, d) / dd : 0.0;
    s = s < 0.0 ? 0.0 : s > 1.0 ? 1.0 : s;
    for (int i = 0; i < 3; ++i) c[i] = xa[i] + s * d[i];
    return s;
}

/* End k of segment g's position in the model as written: its node body's, or x0 when clamped. */
static const double *rest_end(const ld_model *m, const ld_cseg *sg, int k) {
    return sg->body[k] == LD_GROUND ? sg->x0[k] : m->bodies[sg->body[k]].x;
}

int ld_cseg_pair(const ld_model *m, int g, int h) {
    ld_cseg a, b;
    if (g == h || ld_cseg_get(m, g, &a) || ld_cseg_get(m, h, &b)) return 0;
    if (!a.c.spans || !b.c.spans) return 0;
    for (int i = 0; i < 2; ++i)
        for (int j = 0; j < 2; ++j)
            if (a.body[i] != LD_GROUND && a.body[i] == b.body[j]) return 0;
    for (int j = 0; j < m->njoints; ++j) /* ends a joint joins: as bodies a joint joins */
        for (int i = 0; i < 2; ++i)
            for (int k = 0; k < 2; ++k) {
                int p = a.body[i], q = b.body[k], b1 = m->joints[j].body1, b2 = m->joints[j].body2;
                if (p != LD_GROUND && q != LD_GROUND &&
                    ((b1 == p && b2 == q) || (b1 == q && b2 == p)))
                    return 0;
            }
    if (a.rod != b.rod || a.beam != b.beam) return 1;
    double pa[3], pb[3], d[3]; /* of one rod or beam: apart as written */
    ld_contact_segments(rest_end(m, &a, 0), rest_end(m, &a, 1), rest_end(m, &b, 0),
                        rest_end(m, &b, 1), pa, pb);
    for (int i = 0; i < 3; ++i) d[i] = pa[i] - pb[i];
    return ld_v3_norm(d) > a.c.radius + b.c.radius;
}
