/*
 * The YAML model reader (format: docs/model-format.md); joints and time functions are read in
 * yaml_joints.c, rods in yaml_rods.c, with the helpers of reader.h.
 *
 * libyaml loads the text into a document tree; the reader walks it along the schema, so the
 * depth of the walk is bounded by the format, not by the input. Structure (known keys, given
 * once, of the right type and length; names that resolve) is checked during the walk, with
 * the key path of the item being read kept in reader.path. The physical checks are
 * ld_model_validate's; the key it reports is walked in the tree again to find its line.
 *
 * Invariants: the model under construction owns whatever it points to at every moment
 * (counts are set right after each allocation), so one ld_model_free releases it on any
 * error; the caller's *out is written only on success.
 */
#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <yaml.h>

#include "liedyn/liedyn.h"
#include "liedyn/model.h"

#include "../core/strf.h"
#include "../elements/elements.h"
#include "reader.h"
#include "../core/oom.h"

/* ------------------------------------------------------------------ errors */

/* Copy s into dst[cap], truncated. */
static void copy_str(char *dst, size_t cap, const char *s) {
    size_t n = strlen(s);
    if (n >= cap) n = cap - 1;
    memcpy(dst, s, n);
    dst[n] = '\0';
}

/* Fill the error: "FILE:LINE: KEY: REASON". Returns LD_EINVAL. */
static int vfail(reader *r, int line, const char *key, const char *fmt, va_list ap) {
    ld_model_error *e = r->err;
    char reason[384];
    vsnprintf(reason, sizeof reason, fmt, ap);
    copy_str(e->file, sizeof e->file, r->file);
    e->line = line;
    copy_str(e->key, sizeof e->key, key[0] ? key : "(document)");
    strf(e->msg, sizeof e->msg, "%s:%d: %s: %s", e->file, line, e->key, reason);
    return LD_EINVAL;
}

/* Failure of the item at the current path. */
LD_PRINTF(3, 4)
int ly_fail(reader *r, int line, const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    int rc = vfail(r, line, r->path, fmt, ap);
    va_end(ap);
    return rc;
}

/* Failure of something without a key path: "(document)", "(syntax)", "(file)". */
LD_PRINTF(4, 5)
int ly_fail_key(reader *r, int line, const char *key, const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    int rc = vfail(r, line, key, fmt, ap);
    va_end(ap);
    return rc;
}

int ly_yaml_out_of_memory(reader *r) {
    char why[160];
    ld_oom_format_lib(why, sizeof why, "libyaml");
    ly_fail_key(r, 0, "(syntax)", "%s", why);
    return LD_ENOMEM;
}

int ly_out_of_memory(reader *r, int line) {
    ly_fail(r, line, "%s", ld_oom_last_str());
    return LD_ENOMEM;
}

/* ------------------------------------------------------------------ key paths */

/* Append ".key" (or "key" at the top); returns the length to restore with pop. */
size_t ly_push_key(reader *r, const char *key) {
    size_t mark = r->plen;
    int w = strf(r->path + r->plen, sizeof r->path - r->plen, "%s%s", r->plen ? "." : "", key);
    if (w > 0) r->plen += (size_t)w;
    if (r->plen >= sizeof r->path) r->plen = sizeof r->path - 1;
    return mark;
}

size_t ly_push_index(reader *r, int i) {
    size_t mark = r->plen;
    int w = strf(r->path + r->plen, sizeof r->path - r->plen, "[%d]", i);
    if (w > 0) r->plen += (size_t)w;
    if (r->plen >= sizeof r->path) r->plen = sizeof r->path - 1;
    return mark;
}

void ly_pop(reader *r, size_t mark) {
    r->plen = mark;
    r->path[mark] = '\0';
}

/* ------------------------------------------------------------------ nodes */

int ly_line_of(const yaml_node_t *n) {
    return (int)n->start_mark.line + 1;
}

static const char *text_of(const yaml_node_t *n) {
    return (const char *)n->data.scalar.value;
}

/* Does scalar n hold exactly s? */
static int text_is(const yaml_node_t *n, const char *s) {
    size_t len = strlen(s);
    return n->type == YAML_SCALAR_NODE && n->data.scalar.length == len &&
           memcmp(n->data.scalar.value, s, len) == 0;
}

/* An empty value: "key:" or "key: ~" / null. */
static int is_null(const yaml_node_t *n) {
    if (n->type != YAML_SCALAR_NODE || n->data.scalar.style != YAML_PLAIN_SCALAR_STYLE) return 0;
    return text_is(n, "") || text_is(n, "~") || text_is(n, "null") || text_is(n, "Null") ||
           text_is(n, "NULL");
}

/* At most 32 bytes of s[len] for a message: control characters become '?', "..." if cut. */
static const char *excerpt(char out[48], const char *s, size_t len) {
    size_t n = len;
    if (n > 32) {
        n = 32;
        while (n > 0 && ((unsigned char)s[n] & 0xC0) == 0x80) --n; /* whole UTF-8 characters */
    }
    for (size_t i = 0; i < n; ++i) {
        unsigned char c = (unsigned char)s[i];
        out[i] = c < 0x20 || c == 0x7F ? '?' : s[i];
    }
    strcpy(out + n, n < len ? "..." : "");
    return out;
}

/* "a mapping", "a list", "an empty value", "'abc'", "the quoted string \"abc\"". */
static const char *describe(char buf[80], const yaml_node_t *n) {
    char ex[48];
    if (n->type == YAML_MAPPING_NODE) return "a mapping";
    if (n->type == YAML_SEQUENCE_NODE) return "a list";
    if (is_null(n)) return "an empty value";
    excerpt(ex, text_of(n), n->data.scalar.length);
    if (n->data.scalar.style == YAML_PLAIN_SCALAR_STYLE)
        strf(buf, 80, "'%s'", ex);
    else
        strf(buf, 80, "the quoted string \"%s\"", ex);
    return buf;
}

int ly_seq_len(const yaml_node_t *n) {
    return (int)(n->data.sequence.items.top - n->data.sequence.items.start);
}

yaml_node_t *ly_seq_item(reader *r, const yaml_node_t *n, int i) {
    return yaml_document_get_node(r->doc, n->data.sequence.items.start[i]);
}

/* ------------------------------------------------------------------ mappings */

/* "a, b, c" of a NULL-terminated list. */
static const char *join(char out[256], const char *const *list) {
    size_t n = 0;
    out[0] = '\0';
    for (int i = 0; list[i]; ++i) {
        int w = strf(out + n, 256 - n, "%s%s", i ? ", " : "", list[i]);
        if (w < 0 || (size_t)w >= 256 - n) break;
        n += (size_t)w;
    }
    return out;
}

static int in_list(const yaml_node_t *key, const char *const *list) {
    for (int i = 0; list[i]; ++i)
        if (text_is(key, list[i])) return 1;
    return 0;
}

/* The pairs of map: keys are scalars from allowed[], each given once. context (NULL for
 * "unknown key") says why a key is not allowed here, e.g. "for shape 'ramp'". */
int ly_check_keys(reader *r, const yaml_node_t *map, const char *const *allowed,
                  const char *context) {
    yaml_node_pair_t *p0 = map->data.mapping.pairs.start, *top = map->data.mapping.pairs.top;
    char list[256], ex[48], d[80];
    for (yaml_node_pair_t *p = p0; p < top; ++p) {
        yaml_node_t *k = yaml_document_get_node(r->doc, p->key);
        if (k->type != YAML_SCALAR_NODE)
            return ly_fail(r, ly_line_of(k), "keys must be plain names, found %s", describe(d, k));
        size_t mark = ly_push_key(r, excerpt(ex, text_of(k), k->data.scalar.length));
        int rc = LD_OK;
        if (!in_list(k, allowed) && context)
            rc = ly_fail(r, ly_line_of(k), "key not allowed %s (expected one of: %s)", context,
                         join(list, allowed));
        else if (!in_list(k, allowed))
            rc =
                ly_fail(r, ly_line_of(k), "unknown key (expected one of: %s)", join(list, allowed));
        for (yaml_node_pair_t *q = p0; !rc && q < p; ++q) {
            yaml_node_t *k2 = yaml_document_get_node(r->doc, q->key);
            if (k2->data.scalar.length == k->data.scalar.length &&
                memcmp(k2->data.scalar.value, k->data.scalar.value, k->data.scalar.length) == 0)
                rc = ly_fail(r, ly_line_of(k), "duplicate key (first given at line %d)",
                             ly_line_of(k2));
        }
        ly_pop(r, mark);
        if (rc) return rc;
    }
    return LD_OK;
}

/* Value of key in map (keys already checked), NULL if absent or empty. The caller has pushed
 * key on the path. A required key that is absent or empty fails. */
int ly_lookup(reader *r, const yaml_node_t *map, const char *key, int required, field *f) {
    f->val = NULL;
    f->line = ly_line_of(map);
    for (yaml_node_pair_t *p = map->data.mapping.pairs.start; p < map->data.mapping.pairs.top;
         ++p) {
        yaml_node_t *k = yaml_document_get_node(r->doc, p->key);
        if (!text_is(k, key)) continue;
        yaml_node_t *v = yaml_document_get_node(r->doc, p->value);
        f->line = ly_line_of(k);
        if (!is_null(v)) {
            f->val = v;
            return LD_OK;
        }
        if (required) return ly_fail(r, f->line, "required, but has no value");
        return LD_OK;
    }
    if (required) return ly_fail(r, f->line, "required key is missing");
    return LD_OK;
}

int ly_key_line(reader *r, const yaml_node_t *map, const char *key) {
    field f;
    size_t mark = ly_push_key(r, key);
    int rc = ly_lookup(r, map, key, 0, &f);
    ly_pop(r, mark);
    return !rc && f.val ? f.line : ly_line_of(map);
}

int ly_expect_map(reader *r, const yaml_node_t *n, int line, const char *what) {
    char d[80];
    if (n->type != YAML_MAPPING_NODE)
        return ly_fail(r, line, "expected %s (a mapping of 'key: value'), found %s", what,
                       describe(d, n));
    return LD_OK;
}

int ly_expect_seq(reader *r, const yaml_node_t *n, int line, const char *what) {
    char d[80];
    if (n->type != YAML_SEQUENCE_NODE)
        return ly_fail(r, line, "expected a list of %s, found %s", what, describe(d, n));
    return LD_OK;
}

/* ------------------------------------------------------------------ scalars */

static int is_digit(char c) {
    return c >= '0' && c <= '9';
}

/* A decimal number: [+-] digits [. digits] [e [+-] digits], at least one mantissa digit. */
static int is_decimal(const char *s, size_t n) {
    size_t i = 0, mant = 0, ex = 0;
    if (i < n && (s[i] == '+' || s[i] == '-')) ++i;
    for (; i < n && is_digit(s[i]); ++i) ++mant;
    if (i < n && s[i] == '.')
        for (++i; i < n && is_digit(s[i]); ++i) ++mant;
    if (mant == 0) return 0;
    if (i < n && (s[i] == 'e' || s[i] == 'E')) {
        ++i;
        if (i < n && (s[i] == '+' || s[i] == '-')) ++i;
        for (; i < n && is_digit(s[i]); ++i) ++ex;
        if (ex == 0) return 0;
    }
    return i == n;
}

/* "!!str" for the tags of the YAML core schema, else the tag as the document holds it. */
static const char *short_tag(char out[48], const yaml_node_t *n) {
    static const char core[] = "tag:yaml.org,2002:";
    const char *t = n->tag ? (const char *)n->tag : "?";
    if (strncmp(t, core, sizeof core - 1) == 0)
        strf(out, 48, "!!%s", t + sizeof core - 1);
    else
        strf(out, 48, "%s", t);
    return out;
}

/* A scalar explicitly tagged as something other than a number (`!!str 15`) fails. */
static int refuse_tagged(reader *r, const yaml_node_t *n, const char *what) {
    char ex[48], tag[48];
    if (n->type != YAML_SCALAR_NODE || !ly_is_tagged(r, n)) return LD_OK;
    return ly_fail(r, ly_line_of(n), "expected %s, found '%s' tagged %s (not a number)", what,
                   excerpt(ex, text_of(n), n->data.scalar.length), short_tag(tag, n));
}

static int read_number(reader *r, const yaml_node_t *n, double *out) {
    char d[80];
    int rc = refuse_tagged(r, n, "a number");
    if (rc) return rc;
    if (n->type != YAML_SCALAR_NODE || n->data.scalar.style != YAML_PLAIN_SCALAR_STYLE ||
        !is_decimal(text_of(n), n->data.scalar.length))
        return ly_fail(r, ly_line_of(n), "expected a number, found %s", describe(d, n));
    double v = strtod(text_of(n), NULL);
    if (!isfinite(v)) return ly_fail(r, ly_line_of(n), "number %s is out of range", describe(d, n));
    *out = v;
    return LD_OK;
}

/* A decimal integer: [+-] digits. */
static int is_integer(const char *s, size_t n) {
    size_t i = n > 0 && (s[0] == '+' || s[0] == '-') ? 1 : 0, digits = 0;
    for (; i < n && is_digit(s[i]); ++i) ++digits;
    return digits > 0 && i == n;
}

static int read_int(reader *r, const yaml_node_t *n, int *out) {
    char d[80];
    int rc = refuse_tagged(r, n, "an integer");
    if (rc) return rc;
    if (n->type != YAML_SCALAR_NODE || n->data.scalar.style != YAML_PLAIN_SCALAR_STYLE ||
        !is_integer(text_of(n), n->data.scalar.length))
        return ly_fail(r, ly_line_of(n), "expected an integer, found %s", describe(d, n));
    const char *s = text_of(n);
    errno = 0;
    long v = strtol(s, NULL, 10);
    if (errno == ERANGE || v > INT_MAX || v < INT_MIN)
        return ly_fail(r, ly_line_of(n), "integer %s is out of range", describe(d, n));
    *out = (int)v;
    return LD_OK;
}

/* A scalar as a name of at most LD_NAME_MAX − 1 bytes. */
int ly_read_name(reader *r, const yaml_node_t *n, int line, char out[LD_NAME_MAX],
                 int allow_empty) {
    char d[80];
    if (n->type != YAML_SCALAR_NODE)
        return ly_fail(r, line, "expected a name, found %s", describe(d, n));
    size_t len = n->data.scalar.length;
    if (memchr(text_of(n), '\0', len))
        return ly_fail(r, ly_line_of(n), "must not contain NUL characters");
    if (len >= LD_NAME_MAX)
        return ly_fail(r, ly_line_of(n), "is longer than %d characters", LD_NAME_MAX - 1);
    if (len == 0 && !allow_empty) return ly_fail(r, ly_line_of(n), "must not be empty");
    memcpy(out, text_of(n), len);
    out[len] = '\0';
    return LD_OK;
}

/* A list of exactly len (≤ 64) numbers; out is untouched unless all of them read. */
static int read_vec(reader *r, field f, double *out, int len) {
    char d[80];
    double v[64];
    if (len < 0 || len > 64) return ly_fail(r, f.line, "internal: a list of %d numbers", len);
    if (f.val->type != YAML_SEQUENCE_NODE)
        return ly_fail(r, f.line, "expected a list of %d numbers, found %s", len,
                       describe(d, f.val));
    if (ly_seq_len(f.val) != len)
        return ly_fail(r, f.line, "expected a list of %d numbers, found %d", len,
                       ly_seq_len(f.val));
    for (int i = 0; i < len; ++i) {
        size_t mark = ly_push_index(r, i);
        int rc = read_number(r, ly_seq_item(r, f.val, i), &v[i]);
        ly_pop(r, mark);
        if (rc) return rc;
    }
    memcpy(out, v, (size_t)len * sizeof *v);
    return LD_OK;
}

/* A list of any length, allocated (NULL when empty). */
int ly_read_list(reader *r, field f, double **out, int *count) {
    int rc = ly_expect_seq(r, f.val, f.line, "numbers");
    if (rc) return rc;
    int n = ly_seq_len(f.val);
    if (n > 0 && !(*out = ld_xmalloc((size_t)n * sizeof **out, "the list of numbers")))
        return ly_out_of_memory(r, f.line);
    *count = n;
    for (int i = 0; i < n && !rc; ++i) {
        size_t mark = ly_push_index(r, i);
        rc = read_number(r, ly_seq_item(r, f.val, i), &(*out)[i]);
        ly_pop(r, mark);
    }
    return rc;
}

/* ------------------------------------------------------------------ fields */

/* Each getter reads key of map into its output, which keeps its default when the key is
 * absent; the key is on the path while it is read. */

int ly_get_number(reader *r, const yaml_node_t *map, const char *key, int required, double *out) {
    field f;
    size_t mark = ly_push_key(r, key);
    int rc = ly_lookup(r, map, key, required, &f);
    if (!rc && f.val) rc = read_number(r, f.val, out);
    ly_pop(r, mark);
    return rc;
}

int ly_get_int(reader *r, const yaml_node_t *map, const char *key, int required, int *out) {
    field f;
    size_t mark = ly_push_key(r, key);
    int rc = ly_lookup(r, map, key, required, &f);
    if (!rc && f.val) rc = read_int(r, f.val, out);
    ly_pop(r, mark);
    return rc;
}

/* given (may be NULL) is set to 1 when the key is present. */
int ly_get_vec(reader *r, const yaml_node_t *map, const char *key, int required, double *out,
               int len, int *given) {
    field f;
    size_t mark = ly_push_key(r, key);
    int rc = ly_lookup(r, map, key, required, &f);
    if (!rc && f.val) {
        rc = read_vec(r, f, out, len);
        if (given) *given = 1;
    }
    ly_pop(r, mark);
    return rc;
}

int ly_get_name(reader *r, const yaml_node_t *map, const char *key, int required, int allow_empty,
                char out[LD_NAME_MAX]) {
    field f;
    size_t mark = ly_push_key(r, key);
    int rc = ly_lookup(r, map, key, required, &f);
    if (!rc && f.val) rc = ly_read_name(r, f.val, f.line, out, allow_empty);
    ly_pop(r, mark);
    return rc;
}

/* Free text (read and dropped). */
static int get_text(reader *r, const yaml_node_t *map, const char *key) {
    field f;
    char d[80];
    size_t mark = ly_push_key(r, key);
    int rc = ly_lookup(r, map, key, 0, &f);
    if (!rc && f.val && f.val->type != YAML_SCALAR_NODE)
        rc = ly_fail(r, f.line, "expected text, found %s", describe(d, f.val));
    ly_pop(r, mark);
    return rc;
}

/* One of the words of choices[] (NULL-terminated); *out = its index. */
int ly_get_choice(reader *r, const yaml_node_t *map, const char *key, int required,
                  const char *const *choices, int *out) {
    field f;
    char d[80], list[256];
    size_t mark = ly_push_key(r, key);
    int rc = ly_lookup(r, map, key, required, &f);
    if (!rc && f.val) {
        int k = 0;
        while (choices[k] && !text_is(f.val, choices[k])) ++k;
        if (choices[k])
            *out = k;
        else
            rc = ly_fail(r, f.line, "expected one of %s, found %s", join(list, choices),
                         describe(d, f.val));
    }
    ly_pop(r, mark);
    return rc;
}

int ly_find_body(reader *r, const ld_model *m, const char *name) {
    if (r->bodies.n != m->nbodies || r->bodies.base != (const char *)m->bodies) {
        ld_names_free(&r->bodies);
        if (ld_names_build(&r->bodies, m->bodies, sizeof *m->bodies, m->nbodies) != LD_OK) {
            for (int k = 0; k < m->nbodies; ++k) /* short of memory: a linear search */
                if (strcmp(m->bodies[k].name, name) == 0) return k;
            return -1;
        }
    }
    return ld_names_find(&r->bodies, name);
}

/* ------------------------------------------------------------------ bodies */

/* 3 principal moments, 6 = [Ixx, Iyy, Izz, Ixy, Iyz, Ixz], or 9 row-major. */
static int get_inertia(reader *r, const yaml_node_t *map, double J[9]) {
    field f;
    char d[80];
    size_t mark = ly_push_key(r, "inertia");
    int rc = ly_lookup(r, map, "inertia", 1, &f), n = 0;
    if (!rc && f.val->type != YAML_SEQUENCE_NODE)
        rc = ly_fail(r, f.line, "expected a list of 3, 6 or 9 numbers, found %s",
                     describe(d, f.val));
    if (!rc && (n = ly_seq_len(f.val)) != 3 && n != 6 && n != 9)
        rc = ly_fail(r, f.line,
                     "expected 3 (principal moments), 6 (Ixx, Iyy, Izz, Ixy, Iyz, Ixz) or 9 "
                     "(row-major matrix) numbers, found %d",
                     n);
    double v[9];
    if (!rc) rc = read_vec(r, f, v, n);
    ly_pop(r, mark);
    if (rc) return rc;
    return ld_inertia_from_numbers(v, n, J);
}

/* Orientation w, x, y, z, normalized (scaled first: no overflow, no underflow). */
static int get_orientation(reader *r, const yaml_node_t *map, double q[4]) {
    field f;
    double v[4] = {0}, s = 0.0;
    size_t mark = ly_push_key(r, "orientation");
    int rc = ly_lookup(r, map, "orientation", 0, &f);
    if (!rc && f.val) rc = read_vec(r, f, v, 4);
    for (int i = 0; !rc && f.val && i < 4; ++i) s = fmax(s, fabs(v[i]));
    if (!rc && f.val && s == 0.0)
        rc = ly_fail(r, f.line, "must be non-zero (a quaternion w, x, y, z; it is normalized)");
    ly_pop(r, mark);
    if (rc || !f.val) return rc;
    return ld_quat_normalize(q, v);
}

static const char *const body_keys[] = {
    "name",     "mass",  "inertia", "position", "orientation", "angular_velocity",
    "velocity", "shape", "hold",    NULL};
static const char *const bools[] = {"false", "true", NULL};

int ly_read_body(reader *r, const yaml_node_t *n, ld_body *b) {
    int rc;
    b->q[0] = 1.0;
    if ((rc = ly_expect_map(r, n, ly_line_of(n), "a body"))) return rc;
    if ((rc = ly_check_keys(r, n, body_keys, NULL))) return rc;
    if ((rc = ly_get_name(r, n, "name", 1, 0, b->name))) return rc;
    if (strcmp(b->name, "ground") == 0) {
        size_t mark = ly_push_key(r, "name");
        field f;
        (void)ly_lookup(r, n, "name", 1, &f);
        rc = ly_fail(r, f.line, "'ground' is reserved: joints use it for the fixed frame");
        ly_pop(r, mark);
        return rc;
    }
    if ((rc = ly_get_number(r, n, "mass", 1, &b->mass))) return rc;
    if ((rc = get_inertia(r, n, b->inertia))) return rc;
    int given = 0;
    if ((rc = ly_get_vec(r, n, "position", 0, b->x, 3, &given))) return rc;
    b->unplaced = !given;
    if ((rc = get_orientation(r, n, b->q))) return rc;
    field f;
    size_t mark = ly_push_key(r, "orientation");
    rc = ly_lookup(r, n, "orientation", 0, &f);
    ly_pop(r, mark);
    if (rc) return rc;
    if (b->unplaced && f.val) { /* an orientation without a position */
        mark = ly_push_key(r, "orientation");
        rc = ly_fail(r, f.line,
                     "is given without a position: give both, or neither (a joint in the frame "
                     "form then places the body)");
        ly_pop(r, mark);
        return rc;
    }
    if ((rc = ly_get_choice(r, n, "hold", 0, bools, &b->hold))) return rc;
    given = 0;
    if ((rc = ly_get_vec(r, n, "angular_velocity", 0, b->omega, 3, &given))) return rc;
    b->omega_free = !given;
    return ly_get_vec(r, n, "velocity", 0, b->v, 3, &b->has_v);
}

/* ------------------------------------------------------------------ lists of items */

/* The lists of bodies, joints and loads: allocated, the count set right away, each item read
 * with its index on the path. Bodies come first (required unless there are rods or beams),
 * then the rods (yaml_rods.c) and the beams (yaml_beams.c): joints and loads name their nodes. */
static int read_bodies(reader *r, const yaml_node_t *root, ld_model *m) {
    field f, fb;
    int rc = ly_lookup(r, root, "rods", 0, &f), n = 0;
    if (!rc) rc = ly_lookup(r, root, "beams", 0, &fb);
    size_t mark = ly_push_key(r, "bodies");
    if (!rc) rc = ly_lookup(r, root, "bodies", !f.val && !fb.val, &f);
    if (!rc && f.val) rc = ly_expect_seq(r, f.val, f.line, "bodies");
    if (!rc && f.val && (n = ly_seq_len(f.val)) > 0 &&
        !(m->bodies = ld_xcalloc((size_t)n, sizeof *m->bodies, "the bodies")))
        rc = ly_out_of_memory(r, f.line);
    if (!rc) m->nbodies = n;
    for (int i = 0; !rc && i < n; ++i) {
        size_t im = ly_push_index(r, i);
        const yaml_node_t *item = ly_seq_item(r, f.val, i);
        m->bodies[i].line = ly_line_of(item);
        rc = ly_read_body(r, item, &m->bodies[i]);
        ly_pop(r, im);
    }
    ly_pop(r, mark);
    return rc;
}

static int read_joints(reader *r, const yaml_node_t *root, ld_model *m) {
    field f;
    size_t mark = ly_push_key(r, "joints");
    int rc = ly_lookup(r, root, "joints", 0, &f), n = 0;
    if (!rc && f.val) rc = ly_expect_seq(r, f.val, f.line, "joints");
    if (!rc && f.val && (n = ly_seq_len(f.val)) > 0 &&
        !(m->joints = ld_xcalloc((size_t)n, sizeof *m->joints, "the joints")))
        rc = ly_out_of_memory(r, f.line);
    if (!rc) m->njoints = n;
    for (int i = 0; !rc && i < n; ++i) {
        size_t im = ly_push_index(r, i);
        const yaml_node_t *item = ly_seq_item(r, f.val, i);
        m->joints[i].line = ly_line_of(item);
        rc = ly_read_joint(r, item, m, &m->joints[i]);
        ly_pop(r, im);
    }
    ly_pop(r, mark);
    return rc;
}

/* ------------------------------------------------------------------ integrator, model */

static const char *const top_keys[] = {
    "name",          "description", "gravity",         "bodies",   "rods",   "beams",
    "joints",        "loads",       "integrator",      "elements", "output", "ground_plane",
    "ground_shapes", "contact_law", "contact_exclude", NULL};

static int read_model(reader *r, const yaml_node_t *root, ld_model *m) {
    int rc;
    char d[80];
    if (root->type != YAML_MAPPING_NODE)
        return ly_fail_key(r, ly_line_of(root), "(document)",
                           "the top level must be a mapping of keys such as 'bodies:', found %s",
                           describe(d, root));
    if ((rc = ly_check_keys(r, root, top_keys, NULL))) return rc;
    if ((rc = ly_get_name(r, root, "name", 0, 1, m->name))) return rc;
    if ((rc = get_text(r, root, "description"))) return rc;
    if ((rc = ly_get_vec(r, root, "gravity", 0, m->gravity, 3, NULL))) return rc;
    if ((rc = read_bodies(r, root, m))) return rc;
    if ((rc = ly_read_shapes(r, root, m))) return rc;      /* yaml_shapes.c, with ground_shapes */
    if ((rc = ly_read_contact_law(r, root, m))) return rc; /* yaml_contact.c */
    if ((rc = ly_read_rods(r, root, m))) return rc;
    if ((rc = ly_read_beams(r, root, m))) return rc;           /* yaml_beams.c */
    if ((rc = ly_read_contact_exclude(r, root, m))) return rc; /* yaml_contact.c */
    if ((rc = read_joints(r, root, m))) return rc;
    if ((rc = ly_read_loads(r, root, m))) return rc;
    if ((rc = ly_read_elements(r, root, m))) return rc; /* yaml_elements.c */
    if ((rc = ly_read_run(r, root, &m->run))) return rc;
    return ly_read_output(r, root, m); /* yaml_output.c (after run: it may set output_every) */
}

/* ------------------------------------------------------------------ physical checks */

/* Line of the deepest node of the tree that key ("loads[0].time.t[2]") reaches. */
static int line_of_key(reader *r, const yaml_node_t *root, const char *key) {
    const yaml_node_t *cur = root;
    int line = ly_line_of(root);
    const char *s = key;
    while (*s) {
        if (*s == '[') {
            char *end;
            long i = strtol(s + 1, &end, 10);
            if (*end != ']' || cur->type != YAML_SEQUENCE_NODE || i < 0 || i >= ly_seq_len(cur))
                break;
            cur = ly_seq_item(r, cur, (int)i);
            line = ly_line_of(cur);
            s = end + 1;
            continue;
        }
        if (*s == '.') ++s;
        size_t n = strcspn(s, ".[");
        if (cur->type != YAML_MAPPING_NODE) break;
        const yaml_node_t *next = NULL;
        for (yaml_node_pair_t *p = cur->data.mapping.pairs.start; p < cur->data.mapping.pairs.top;
             ++p) {
            const yaml_node_t *k = yaml_document_get_node(r->doc, p->key);
            if (k->type == YAML_SCALAR_NODE && k->data.scalar.length == n &&
                memcmp(k->data.scalar.value, s, n) == 0) {
                next = yaml_document_get_node(r->doc, p->value);
                line = ly_line_of(k);
                break;
            }
        }
        if (!next) break;
        cur = next;
        s += n;
    }
    return line;
}

/* ld_model_validate, its failure placed at the line of its key. */
int ly_validate_located(reader *r, const yaml_node_t *root, const ld_model *m) {
    ld_model_error e;
    if (ld_model_validate(m, &e) == LD_OK) return LD_OK;
    char prefix[sizeof e.file + sizeof e.key + 16];
    int w = strf(prefix, sizeof prefix, "%s:%d: %s: ", e.file, e.line, e.key);
    const char *reason = e.msg;
    if (w > 0 && strncmp(e.msg, prefix, (size_t)w) == 0) reason = e.msg + w;
    return ly_fail_key(r, root ? line_of_key(r, root, e.key) : 0, e.key, "%s", reason);
}

/* ld_model_assemble, its failure placed at the line of the body or joint at fault. */
static int assemble_located(reader *r, ld_model *m) {
    char msg[512];
    int item = -1, is_joint = 0;
    int rc = ld_model_assemble(m, msg, sizeof msg, &item, &is_joint);
    if (rc != LD_EINVAL) return rc == LD_ENOMEM ? ly_out_of_memory(r, 0) : rc;
    char key[48];
    int line = 0;
    if (item >= 0) {
        strf(key, sizeof key, "%s[%d]", is_joint ? "joints" : "bodies", item);
        line = is_joint ? m->joints[item].line : m->bodies[item].line;
    } else {
        strf(key, sizeof key, "joints");
    }
    return ly_fail_key(r, line, key, "%s", msg);
}

/* ------------------------------------------------------------------ documents */

/* Line (1-based) of byte offset in text. */
static int line_at(const char *text, size_t len, size_t offset) {
    int line = 1;
    for (size_t i = 0; i < offset && i < len; ++i) line += text[i] == '\n';
    return line;
}

/* libyaml's complaint as an error. */
int ly_syntax_error(reader *r, const yaml_parser_t *p, const char *text, size_t len) {
    if (p->error == YAML_MEMORY_ERROR) {
        ly_yaml_out_of_memory(r);
        return LD_ENOMEM;
    }
    const char *problem = p->problem ? p->problem : "unknown error";
    if (p->error == YAML_READER_ERROR)
        return ly_fail_key(r, line_at(text, len, p->problem_offset), "(syntax)", "invalid text: %s",
                           problem);
    int line = (int)p->problem_mark.line + 1;
    if (p->context)
        return ly_fail_key(r, line, "(syntax)", "%s (%s at line %d)", problem, p->context,
                           (int)p->context_mark.line + 1);
    return ly_fail_key(r, line, "(syntax)", "%s", problem);
}

/* Load the single document of the stream into doc (deleted by the caller on success only). */
int ly_load_document(reader *r, yaml_parser_t *p, yaml_document_t *doc, const char *text,
                     size_t len) {
    if (!yaml_parser_load(p, doc)) return ly_syntax_error(r, p, text, len);
    if (!yaml_document_get_root_node(doc)) {
        yaml_document_delete(doc);
        return ly_fail_key(r, 1, "(document)", "the model is empty (it needs at least 'bodies')");
    }
    yaml_document_t extra;
    if (!yaml_parser_load(p, &extra)) {
        yaml_document_delete(doc);
        return ly_syntax_error(r, p, text, len);
    }
    yaml_node_t *root2 = yaml_document_get_root_node(&extra);
    int line2 = root2 ? (int)extra.start_mark.line + 1 : 0;
    yaml_document_delete(&extra);
    if (root2) {
        yaml_document_delete(doc);
        return ly_fail_key(r, line2, "(document)",
                           "a second YAML document starts here; a model file holds one");
    }
    return LD_OK;
}

static void set_source(ld_model *m, const char *name) {
    copy_str(m->source, sizeof m->source, name);
}

/* More than LD_MODEL_MAX_BYTES of text fails. */
static int too_large(reader *r, size_t len) {
    if (len <= LD_MODEL_MAX_BYTES) return LD_OK;
    return ly_fail_key(r, 0, "(file)", "larger than %d MB (the limit of a model file)",
                       (int)(LD_MODEL_MAX_BYTES >> 20));
}

/* After the pre-scan: load the document, read the model, validate it; *out written on success
 * only. */
static int parse_scanned(reader *r, const char *text, size_t len, ld_model *out) {
    yaml_parser_t parser;
    if (!yaml_parser_initialize(&parser)) {
        ly_yaml_out_of_memory(r);
        return LD_ENOMEM;
    }
    yaml_parser_set_input_string(&parser, (const unsigned char *)text, len);
    yaml_document_t doc;
    ld_model m;
    ld_model_init(&m);
    set_source(&m, r->file);
    int rc = ly_load_document(r, &parser, &doc, text, len);
    if (rc == LD_OK) {
        r->doc = &doc;
        const yaml_node_t *root = yaml_document_get_root_node(&doc);
        rc = read_model(r, root, &m);
        if (rc == LD_OK) rc = ly_validate_located(r, root, &m);
        if (rc == LD_OK) rc = assemble_located(r, &m);
        yaml_document_delete(&doc);
        r->doc = NULL;
    }
    yaml_parser_delete(&parser);
    if (rc != LD_OK) {
        ld_model_free(&m);
        return rc;
    }
    *out = m;
    return LD_OK;
}

int ld_model_parse(const char *text, size_t len, const char *name, ld_model *out,
                   ld_model_error *err) {
    ld_model_error scratch;
    reader r = {.file = name ? name : "<string>", .err = &scratch};
    if (!out || (!text && len > 0)) {
        ly_fail_key(&r, 0, "(arguments)", "no text or no output model");
        if (err) *err = scratch;
        return LD_EINVAL;
    }
    if (!text) text = "";
    int rc = too_large(&r, len);
    if (rc == LD_OK) rc = ly_prescan(&r, text, len);
    if (rc == LD_OK) rc = parse_scanned(&r, text, len, out);
    free(r.tagged);
    ld_names_free(&r.bodies);
    if (rc != LD_OK && err) *err = scratch;
    return rc;
}

/* The whole file in a malloc'ed buffer. Reading stops one byte past LD_MODEL_MAX_BYTES (the
 * parser then refuses the text), so a huge file costs no more memory than that. */
static int slurp(FILE *f, char **buf, size_t *len) {
    size_t cap = 1 << 14, n = 0;
    char *b = ld_xmalloc(cap, "the model file's text");
    if (!b) return LD_ENOMEM;
    for (;;) {
        n += fread(b + n, 1, cap - n, f);
        if (n < cap || n > LD_MODEL_MAX_BYTES) break;
        cap = 2 * cap > LD_MODEL_MAX_BYTES + 1 ? LD_MODEL_MAX_BYTES + 1 : 2 * cap;
        char *nb = ld_xrealloc(b, cap, "the model file's text");
        if (!nb) {
            free(b);
            return LD_ENOMEM;
        }
        b = nb;
    }
    if (ferror(f)) {
        free(b);
        return LD_EIO;
    }
    *buf = b;
    *len = n;
    return LD_OK;
}

int ld_model_load(const char *path, ld_model *out, ld_model_error *err) {
    ld_model_error scratch;
    reader r = {.file = path ? path : "<null>", .err = &scratch};
    if (!path || !out) {
        ly_fail_key(&r, 0, "(arguments)", "no path or no output model");
        if (err) *err = scratch;
        return LD_EINVAL;
    }
    FILE *f = fopen(path, "rb");
    if (!f) {
        ly_fail_key(&r, 0, "(file)", "cannot open: %s", strerror(errno));
        if (err) *err = scratch;
        return LD_EIO;
    }
    char *text = NULL;
    size_t len = 0;
    errno = 0;
    int rc = slurp(f, &text, &len);
    int saved = errno;
    fclose(f);
    if (rc != LD_OK) {
        ly_fail_key(&r, 0, "(file)", "cannot read: %s",
                    rc == LD_ENOMEM ? ld_oom_last_str() : strerror(saved));
        if (err) *err = scratch;
        return rc;
    }
    rc = ld_model_parse(text, len, path, out, err);
    free(text);
    return rc;
}
