/*
 * Checkpoints of an integrator (integrator.h): the whole state a step depends on, written
 * safely (src/io/safefile.h: whole or not at all) and read back so that a restarted run continues
 * bit for bit.
 *
 * File layout (host byte order; a checkpoint moves between runs on machines of one kind):
 *   header   "LIEDYNCK", u32 version, u32 byte-order mark 0x01020304,
 *            u32 method, i32 nq, k, m, nnodes, u64 fingerprint of the node layout,
 *            u64 the caller's model tag, u64 size of the caller's data
 *   scalars  t, h_next, last_h, last_err, h_cap; i32 after_reject; the statistics; the
 *            method parameters (checkpoint_impl.h: ck_scalars)
 *   vectors  q (nq); v, v̇ (k each); λ (m); the method's own state (the first doubles of
 *            its work space: genalpha's auxiliary acceleration, hht's force history)
 *   user     the caller's data
 *   u64      FNV-1a hash of everything before it
 * A file whose checksum matches is still checked field by field (checkpoint_check.c) before
 * anything of it is used.
 */
#define _POSIX_C_SOURCE 200809L
#include <errno.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../io/safefile.h"
#include "checkpoint_impl.h"
#include "liedyn/liedyn.h"
#include "../core/strf.h"
#include "../core/oom.h"

#define CK_MAGIC "LIEDYNCK"
#define CK_ORDER 0x01020304u

typedef struct ck_header {
    char magic[8];
    uint32_t version, order, method;
    int32_t nq, k, m, nnodes;
    uint64_t layout, tag, user_size;
} ck_header;

/* A running FNV-1a hash over what was written or read. */
typedef struct ck_io {
    FILE *f;
    uint64_t hash;
    int failed;
} ck_io;

static void fnv(uint64_t *h, const void *p, size_t n) {
    const unsigned char *c = p;
    for (size_t i = 0; i < n; ++i) {
        *h ^= c[i];
        *h *= 1099511628211ull;
    }
}

static void put(ck_io *io, const void *p, size_t n) {
    if (io->failed || n == 0) return;
    if (fwrite(p, 1, n, io->f) != n) io->failed = 1;
    fnv(&io->hash, p, n);
}

static void get(ck_io *io, void *p, size_t n) {
    if (io->failed || n == 0) return;
    if (fread(p, 1, n, io->f) != n) {
        io->failed = 1;
        return;
    }
    fnv(&io->hash, p, n);
}

/* Hash of the node kinds and sizes: two systems with the same value have the same layout. */
static uint64_t layout_hash(const ld_system *s) {
    uint64_t h = 1469598103934665603ull;
    for (int i = 0; i < s->nnodes; ++i) {
        int32_t d[2] = {(int32_t)s->nodes[i].kind, (int32_t)s->nodes[i].n};
        fnv(&h, d, sizeof d);
    }
    return h;
}

static void header_of(const ld_integ *it, uint64_t tag, size_t user_size, ck_header *h) {
    memset(h, 0, sizeof *h);
    memcpy(h->magic, CK_MAGIC, 8);
    h->version = LD_CHECKPOINT_VERSION;
    h->order = CK_ORDER;
    h->method = (uint32_t)it->o.method;
    h->nq = it->s->nq;
    h->k = it->k;
    h->m = it->m;
    h->nnodes = it->s->nnodes;
    h->layout = layout_hash(it->s);
    h->tag = tag;
    h->user_size = user_size;
}

/* The vectors of the state, in file order; sizes in doubles. */
static int state_vectors(const ld_integ *it, double **v, size_t *n) {
    size_t k = (size_t)it->k;
    double *list[5] = {it->q, it->v, it->vd, it->lam, it->ws};
    size_t len[5] = {(size_t)it->s->nq, k, k, (size_t)it->m, it->nkeep};
    for (int i = 0; i < 5; ++i) {
        v[i] = list[i];
        n[i] = len[i];
    }
    return 5;
}

static void scalars_of(const ld_integ *it, ck_scalars *c) {
    memset(c, 0, sizeof *c);
    c->t = it->t;
    c->h_next = it->h_next;
    c->last_h = it->last_h;
    c->last_err = it->last_err;
    c->h_cap = it->ctrl.h_cap;
    c->after_reject = it->ctrl.rejected;
    c->steps = it->st.steps;
    c->rejected = it->st.rejected;
    c->newton_iterations = it->st.newton_iterations;
    c->factorizations = it->st.factorizations;
    c->roundoff_stops = it->st.roundoff_stops;
    c->last_iterations = it->st.last_iterations;
    c->error_test_failures = it->st.error_test_failures;
    c->newton_failures = it->st.newton_failures;
    ld_ck__method_of(it, c);
}

/* Write the checkpoint to the stream f; 0, or -1 when a write failed (errno set). */
static int write_all(const ld_integ *it, FILE *f, uint64_t tag, const void *user,
                     size_t user_size) {
    ck_io io = {f, 1469598103934665603ull, 0};
    ck_header h;
    header_of(it, tag, user_size, &h);
    put(&io, &h, sizeof h);
    ck_scalars c;
    scalars_of(it, &c);
    put(&io, &c, sizeof c);
    double *v[5];
    size_t n[5];
    int nv = state_vectors(it, v, n);
    for (int i = 0; i < nv; ++i) put(&io, v[i], n[i] * sizeof(double));
    put(&io, user, user_size);
    uint64_t sum = io.hash;
    put(&io, &sum, sizeof sum);
    return io.failed || fflush(f) != 0 ? -1 : 0;
}

int ld_integ_save(const ld_integ *it, const char *path, uint64_t tag, const void *user,
                  size_t user_size, char *msg, size_t cap) {
    if (msg && cap) msg[0] = '\0';
    if (!it || !path || !path[0] || (user_size && !user))
        return ld_fail_msg(msg, cap, LD_EINVAL, "%s%s", path ? path : "", ": invalid arguments");
    safefile w;
    if (ld_io_safefile_open(&w, path, "the checkpoint", SAFEFILE_SYNC) != 0)
        return ld_fail_msg(msg, cap, errno == ENOMEM ? LD_ENOMEM : LD_EIO, "%s", w.err);
    if (write_all(it, w.f, tag, user, user_size) != 0) {
        int e = errno ? errno : EIO;
        ld_io_safefile_abort(&w); /* the previous checkpoint stays */
        return ld_fail_msg(msg, cap, LD_EIO, "writing the checkpoint '%s' failed: %s", path,
                           strerror(e));
    }
    if (ld_io_safefile_commit(&w) != 0) return ld_fail_msg(msg, cap, LD_EIO, "%s", w.err);
    return LD_OK;
}

/* A header that matches the integrator, else a message. */
static int check_header(const ld_integ *it, const ck_header *h, uint64_t tag, size_t user_size,
                        const char *path, char *msg, size_t cap) {
    char why[200];
    if (memcmp(h->magic, CK_MAGIC, 8) != 0)
        return ld_fail_msg(msg, cap, LD_EINVAL, "%s: %s", path, "not a liedyn checkpoint");
    if (h->order != CK_ORDER)
        return ld_fail_msg(msg, cap, LD_EINVAL, "%s: %s", path,
                           "written on a machine of another byte order");
    if (h->version != LD_CHECKPOINT_VERSION) {
        snprintf(why, sizeof why, "checkpoint format version %u, this build reads version %d",
                 (unsigned)h->version, LD_CHECKPOINT_VERSION);
        return ld_fail_msg(msg, cap, LD_EINVAL, "%s: %s", path, why);
    }
    ck_header mine;
    header_of(it, tag, user_size, &mine);
    if (h->method != mine.method) {
        snprintf(why, sizeof why, "written by the integrator %s, this run uses %s",
                 ld_integ_method_name((ld_integ_method)h->method),
                 ld_integ_method_name(it->o.method));
        return ld_fail_msg(msg, cap, LD_EINVAL, "%s: %s", path, why);
    }
    if (h->nq != mine.nq || h->k != mine.k || h->m != mine.m || h->nnodes != mine.nnodes ||
        h->layout != mine.layout) {
        snprintf(why, sizeof why,
                 "written for another model or formulation (%d nodes, %d coordinates, %d "
                 "constraints; this run: %d, %d, %d)",
                 (int)h->nnodes, (int)h->nq, (int)h->m, (int)mine.nnodes, (int)mine.nq,
                 (int)mine.m);
        return ld_fail_msg(msg, cap, LD_EINVAL, "%s: %s", path, why);
    }
    if (h->tag != tag)
        return ld_fail_msg(msg, cap, LD_EINVAL, "%s: %s", path,
                           "written for another model (its model tag differs)");
    if (h->user_size != user_size)
        return ld_fail_msg(
            msg, cap, LD_EINVAL, "%s: %s", path,
            "written by another program or version (its caller data differ in size)");
    return LD_OK;
}

static void apply_scalars(ld_integ *it, const ck_scalars *c) {
    it->t = c->t;
    it->h_next = c->h_next;
    it->last_h = c->last_h;
    it->last_err = c->last_err;
    it->ctrl.h_cap = c->h_cap;
    it->ctrl.rejected = c->after_reject;
    memset(&it->st, 0, sizeof it->st);
    it->st.steps = (long)c->steps;
    it->st.rejected = (long)c->rejected;
    it->st.newton_iterations = (long)c->newton_iterations;
    it->st.factorizations = (long)c->factorizations;
    it->st.roundoff_stops = (long)c->roundoff_stops;
    it->st.last_iterations = c->last_iterations;
    it->st.error_test_failures = (long)c->error_test_failures;
    it->st.newton_failures = (long)c->newton_failures;
    it->msg[0] = '\0';
}

/* Read the body into scratch (nothing of it changes until the whole file checked out). */
static int read_body(ck_io *io, ck_scalars *c, double *buf, size_t total, void *user,
                     size_t user_size) {
    get(io, c, sizeof *c);
    get(io, buf, total * sizeof(double));
    get(io, user_size ? user : NULL, user_size);
    uint64_t want = io->hash, sum = 0;
    get(io, &sum, sizeof sum);
    char extra;
    return io->failed || sum != want || fread(&extra, 1, 1, io->f) != 0 ? -1 : 0;
}

int ld_integ_load(ld_integ *it, const char *path, uint64_t tag, void *user, size_t user_size,
                  char *msg, size_t cap) {
    if (msg && cap) msg[0] = '\0';
    if (!it || !path || (user_size && !user))
        return ld_fail_msg(msg, cap, LD_EINVAL, "%s%s", path ? path : "", ": invalid arguments");
    FILE *f = fopen(path, "rb");
    if (!f)
        return ld_fail_msg(msg, cap, LD_EIO, "%s: cannot read the checkpoint: %s", path,
                           strerror(errno));
    ck_io io = {f, 1469598103934665603ull, 0};
    ck_header h;
    get(&io, &h, sizeof h);
    int rc = io.failed ? ld_fail_msg(msg, cap, LD_EINVAL, "%s: %s", path, "not a liedyn checkpoint")
                       : check_header(it, &h, tag, user_size, path, msg, cap);
    double *v[5];
    size_t n[5], total = 0;
    int nv = state_vectors(it, v, n);
    for (int i = 0; i < nv; ++i) total += n[i];
    double *buf = rc ? NULL : ld_xmalloc(total * sizeof(double) + user_size + 1, "the checkpoint");
    if (!rc && !buf) rc = ld_fail_msg(msg, cap, LD_ENOMEM, "%s: %s", path, ld_oom_last_str());
    ck_scalars c;
    void *ubuf = buf ? (char *)buf + total * sizeof(double) : NULL;
    if (!rc && read_body(&io, &c, buf, total, ubuf, user_size) != 0)
        rc = ld_fail_msg(msg, cap, LD_EINVAL, "%s: %s", path,
                         "truncated or corrupted (the checksum does not match)");
    fclose(f);
    if (!rc) rc = ld_ck__check(it, &c, buf, path, msg, cap);
    if (!rc) {
        const double *p = buf;
        for (int i = 0; i < nv; ++i) {
            memcpy(v[i], p, n[i] * sizeof(double));
            p += n[i];
        }
        if (user_size) memcpy(user, ubuf, user_size);
        apply_scalars(it, &c);
    }
    free(buf);
    return rc;
}
