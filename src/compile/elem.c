/*
 * The element interface of the compiled models (element.h): the table of kinds and the instances
 * of a system — their local offsets, rows and row owners, built once by ld_elems_build; the
 * evaluation loops are in elem_eval.c, the sparse pattern in elem_pattern.c.
 */
#include <stdlib.h>
#include <string.h>

#include "../core/strf.h"
#include "../elements/element.h"
#include "liedyn/liedyn.h"
#include "../elements/kinds.h"
#include "../core/oom.h"
#include "elem_impl.h"

/* The table of kinds: one line per kind, in the order of evaluation and of the rows. */
static const ld_ekind *const kinds[] = {&ld_ek_body,      &ld_ek_joint,          &ld_ek_rod,
                                        &ld_ek_force,     &ld_ek_unit_norm,      &ld_ek_beam,
                                        &ld_ek_beam_mass, &ld_ek_contact_penalty};
enum { NKINDS = (int)(sizeof kinds / sizeof kinds[0]) };

int ld_ekind_count(void) {
    return NKINDS;
}

const ld_ekind *ld_ekind_get(int i) {
    return i >= 0 && i < NKINDS ? kinds[i] : NULL;
}

const void *ld_elems_data(const ld_system *s, const ld_ekind *k) {
    for (int i = 0; i < NKINDS; ++i)
        if (kinds[i] == k) return EL(s)->data[i];
    return NULL;
}

void *ld_elems_scratch(const ld_system *s, const ld_ekind *k) {
    for (int i = 0; i < NKINDS; ++i)
        if (kinds[i] == k) return EL(s)->data[i];
    return NULL;
}

/* Width of node i's block in the hooks' local arrays. */
static int node_hw(const ld_system *s, int i) {
    double P[18];
    int hw = node_embedding(s, i, P);
    return hw ? hw : node_nv(s, i);
}

/* ---------------------------------------------------------------- building */

/* The instances of every kind, their local offsets and rows. */
static int fill(const ld_system *s, ld_elems *E, int *rows) {
    const rb_sys *rb = ld_rb(s);
    int n = 0, r = 0, maxrows = 0;
    for (int k = 0; k < NKINDS; ++k) n += kinds[k]->instances(rb->m, rb->f, NULL);
    E->e = ld_xcalloc((size_t)(n > 0 ? n : 1), sizeof *E->e, "the elements' table");
    if (!E->e) return LD_ENOMEM;
    E->n = n;
    E->maxnl = 1;
    for (int k = 0, i = 0; k < NKINDS; ++k) {
        int c = kinds[k]->instances(rb->m, rb->f, E->e + i);
        for (int j = i; j < i + c; ++j) {
            ld_elem *e = &E->e[j];
            e->kind = kinds[k];
            e->nl = e->cnl = e->red = 0;
            for (int a = 0; a < e->nn; ++a) {
                e->off[a] = e->nl;
                e->coff[a] = e->cnl;
                e->nl += node_hw(s, e->node[a]);
                e->cnl += node_nv(s, e->node[a]);
            }
            e->red = e->nl != e->cnl;
            e->row0 = r;
            e->nkeep = e->nrows;
            e->drop = 0;
            r += e->nkeep;
            if (e->nl > E->maxnl) E->maxnl = e->nl;
            if (e->nrows > maxrows) maxrows = e->nrows;
        }
        i += c;
    }
    size_t nl = (size_t)E->maxnl, mr = (size_t)maxrows;
    E->maxrows = maxrows;
    E->nbuf = 3 * nl + mr + 2 * (nl * nl > mr * nl ? nl * nl : mr * nl) + nl * nl + 3 * nl * nl +
              nl + mr + mr * nl; /* + the fused pass's outputs */
    *rows = r;
    return LD_OK;
}

int ld_elems_build(const ld_system *s, ld_elems *E, int *rows, char *msg, size_t n) {
    memset(E, 0, sizeof *E);
    int rc = NKINDS <= LD_EKIND_MAX ? fill(s, E, rows) : LD_EINVAL;
    for (int k = 0; !rc && k < NKINDS; ++k)
        if (kinds[k]->prepare) rc = kinds[k]->prepare(s, &E->data[k], msg, n);
    if (!rc) {
        E->buf = ld_xmalloc(E->nbuf * sizeof *E->buf, "the elements' work");
        if (ld_rb(s)->left) {
            E->sbuf = ld_xmalloc(ld_elem_spatial_doubles(E->maxnl, E->maxrows) * sizeof *E->sbuf,
                                 "the elements' work");
            if (!E->sbuf) rc = LD_ENOMEM;
        }
        E->row_owner = ld_xmalloc((size_t)(*rows > 0 ? *rows : 1) * sizeof *E->row_owner,
                                  "the elements' rows");
        if (!E->buf || !E->row_owner) rc = LD_ENOMEM;
    }
    for (int i = 0; !rc && i < E->n; ++i)
        for (int r = 0; r < E->e[i].nkeep; ++r) E->row_owner[E->e[i].row0 + r] = i;
    if (rc) ld_elems_free(E);
    return rc;
}

int ld_elems_drop(ld_system *s, const unsigned char *drop) {
    ld_elems *E = &((rb_sys *)s->user)->E;
    for (int i = 0; i < E->n; ++i) {
        const ld_elem *e = &E->e[i];
        for (int kr = 0; kr < e->nkeep; ++kr)
            if (drop[e->row0 + kr] && (e->kind != &ld_ek_joint || e->nrows > 31)) return LD_EINVAL;
    }
    int r = 0, had_pattern = s->brow != NULL;
    for (int i = 0; i < E->n; ++i) {
        ld_elem *e = &E->e[i];
        unsigned d = e->drop;
        for (int kr = 0; kr < e->nkeep; ++kr)
            if (drop[e->row0 + kr]) d |= 1u << ld_elem_kept_row(e, kr);
        e->drop = d;
        e->nkeep = 0;
        for (int lr = 0; lr < e->nrows; ++lr) e->nkeep += !(d >> lr & 1u);
        e->row0 = r;
        r += e->nkeep;
    }
    for (int i = 0; i < E->n; ++i)
        for (int kr = 0; kr < E->e[i].nkeep; ++kr) E->row_owner[E->e[i].row0 + kr] = i;
    s->m = r;
    if (!had_pattern) return LD_OK;
    ld_elems_free_pattern(s);
    return ld_elems_pattern(s);
}

void ld_elems_free(ld_elems *E) {
    if (!E) return;
    for (int k = 0; k < NKINDS; ++k)
        if (E->data[k] && kinds[k]->release) kinds[k]->release(E->data[k]);
    free(E->bix);
    free(E->mboff);
    free(E->e);
    free(E->row_owner);
    free(E->buf);
    free(E->sbuf);
    memset(E, 0, sizeof *E);
}

/* ---------------------------------------------------------------- rows by owner */

void ld_elems_label(char *buf, size_t cap, const char *list, const char *name, int idx, int line) {
    int w = name && name[0] ? strf(buf, cap, "'%s'", name) : strf(buf, cap, "%s[%d]", list, idx);
    if (line > 0 && w >= 0 && (size_t)w < cap) strf(buf + w, cap - (size_t)w, " (line %d)", line);
}

const ld_elem *ld_elems_row_local(const ld_system *s, int row, int *local) {
    if (!s || !s->user || row < 0 || row >= s->m) return NULL;
    const ld_elems *E = EL(s);
    const ld_elem *e = &E->e[E->row_owner[row]];
    if (local) *local = ld_elem_kept_row(e, row - e->row0);
    return e;
}

const ld_elem *ld_elems_row_owner(const ld_system *s, int row) {
    return ld_elems_row_local(s, row, NULL);
}

int ld_elems_row_name(const ld_system *s, int row, char *buf, size_t cap) {
    if (!buf || cap == 0) return LD_EINVAL;
    buf[0] = '\0';
    int lr = 0;
    const ld_elem *e = ld_elems_row_local(s, row, &lr);
    if (!e) return LD_EINVAL;
    if (e->kind->row_name)
        e->kind->row_name(ld_rb(s)->m, e, lr, buf, cap);
    else
        strf(buf, cap, "%s %d, row %d of %d", e->kind->name, e->item, lr + 1, e->nrows);
    return LD_OK;
}

int ld_elems_mass_const(const ld_system *s) {
    const rb_sys *rb = ld_rb(s);
    if (rb->euler || rb->left) return 0;
    for (int i = 0; i < rb->E.n; ++i)
        if (rb->E.e[i].kind->mass && rb->E.e[i].kind != &ld_ek_body) return 0;
    return 1;
}
