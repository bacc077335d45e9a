/*
 * The sweep file (docs/sweep.md) and the model text of a case: the base model's YAML document
 * with the case's values set at their dotted paths, emitted again as text for the model reader
 * (so every key of the model format can be varied, and the reader checks every value).
 */
#define _POSIX_C_SOURCE 200809L
#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <yaml.h>

#include "cli.h"
#include "liedyn/liedyn.h"
#include "sim.h"
#include "sweep.h"
#include "yaml_limits.h"
#include "../src/core/oom.h"

/* ------------------------------------------------------------------ YAML helpers */

static yaml_node_t *node_at(yaml_document_t *d, int id) {
    return yaml_document_get_node(d, id);
}

static int line_of(const yaml_node_t *n) {
    return n ? (int)n->start_mark.line + 1 : 0;
}

/* The scalar text of n, or NULL. */
static const char *scalar_of(const yaml_node_t *n) {
    return n && n->type == YAML_SCALAR_NODE ? (const char *)n->data.scalar.value : NULL;
}

/* The value of key in mapping node n (0 when absent). */
static int map_get(yaml_document_t *d, yaml_node_t *n, const char *key) {
    if (!n || n->type != YAML_MAPPING_NODE) return 0;
    for (yaml_node_pair_t *p = n->data.mapping.pairs.start; p < n->data.mapping.pairs.top; ++p) {
        const char *k = scalar_of(node_at(d, p->key));
        if (k && strcmp(k, key) == 0) return p->value;
    }
    return 0;
}

/* Is text a word of letters, digits and ._+- that starts like a number or a name? Such text
 * reads back as itself plain, in flow style too (the common case, without a parse). */
static int simple_word(const char *text, size_t len) {
    size_t i = text[0] == '+' || text[0] == '-' ? 1 : 0;
    if (i >= len || !(isalnum((unsigned char)text[i]) || text[i] == '.')) return 0;
    for (; i < len; ++i)
        if (!isalnum((unsigned char)text[i]) && !strchr("._+-", text[i])) return 0;
    return 1;
}

/* Does text read back as a plain scalar with exactly this text as an item of a flow sequence? */
static int plain_safe(const char *text, size_t len) {
    if (len == 0 || memchr(text, '\0', len)) return 0;
    if (simple_word(text, len)) return 1;
    sw_buf in = {0};
    sw_buf_printf(&in, "[%s]", text);
    yaml_parser_t p;
    yaml_document_t d;
    int ok = in.s && yaml_parser_initialize(&p);
    if (ok) {
        yaml_parser_set_input_string(&p, (const unsigned char *)in.s, in.len);
        ok = yaml_parser_load(&p, &d);
        yaml_parser_delete(&p);
    }
    sw_buf_free(&in);
    if (!ok) return 0;
    yaml_node_t *r = yaml_document_get_root_node(&d);
    if (r && r->type == YAML_SEQUENCE_NODE &&
        r->data.sequence.items.top - r->data.sequence.items.start == 1)
        r = yaml_document_get_node(&d, *r->data.sequence.items.start);
    else
        r = NULL;
    ok = r && r->type == YAML_SCALAR_NODE && r->data.scalar.style == YAML_PLAIN_SCALAR_STYLE &&
         r->data.scalar.length == len && memcmp(r->data.scalar.value, text, len) == 0;
    yaml_document_delete(&d);
    return ok;
}

/* Node n as YAML text that reads back as n: a quoted or block scalar double-quoted (it keeps
 * its exact text, and stays a string: "hem5 # x" is not hem5 and a comment, "15" is not the
 * number 15), a plain scalar as it is (inside a flow collection, flow, double-quoted when its
 * text would not read back there); a sequence in flow style "[a, b]", a mapping "{k: v}". The
 * limits of the sweep file (yaml_limits.h) bound what its aliases expand to. */
static void node_text(yaml_document_t *d, yaml_node_t *n, sw_buf *b, int flow) {
    if (!n) return;
    if (n->type == YAML_SCALAR_NODE) {
        const char *v = (const char *)n->data.scalar.value;
        if (n->data.scalar.style == YAML_PLAIN_SCALAR_STYLE &&
            (!flow || plain_safe(v, n->data.scalar.length)))
            sw_buf_printf(b, "%s", v);
        else
            sweep_yaml_quoted(b, v);
    } else if (n->type == YAML_SEQUENCE_NODE) {
        sw_buf_printf(b, "[");
        for (yaml_node_item_t *it = n->data.sequence.items.start; it < n->data.sequence.items.top;
             ++it) {
            if (it > n->data.sequence.items.start) sw_buf_printf(b, ", ");
            node_text(d, node_at(d, *it), b, 1);
        }
        sw_buf_printf(b, "]");
    } else {
        sw_buf_printf(b, "{");
        for (yaml_node_pair_t *p = n->data.mapping.pairs.start; p < n->data.mapping.pairs.top;
             ++p) {
            if (p > n->data.mapping.pairs.start) sw_buf_printf(b, ", ");
            node_text(d, node_at(d, p->key), b, 1);
            sw_buf_printf(b, ": ");
            node_text(d, node_at(d, p->value), b, 1);
        }
        sw_buf_printf(b, "}");
    }
}

/* The text of node n, allocated; NULL when out of memory (recorded, oom.h). */
static char *node_dup(yaml_document_t *d, yaml_node_t *n) {
    sw_buf b = {0};
    node_text(d, n, &b, 0);
    if (b.nomem) return NULL;
    if (!b.s) return ld_xstrdup("", "a text");
    return b.s;
}

/* Load text as one YAML document. 0, or -1 with why (line and reason). */
static int doc_load(yaml_document_t *d, const char *text, size_t len, char *why, size_t cap) {
    yaml_parser_t p;
    if (!yaml_parser_initialize(&p)) {
        ld_oom_format_lib(why, cap, "libyaml");
        return -1;
    }
    yaml_parser_set_input_string(&p, (const unsigned char *)text, len);
    int ok = yaml_parser_load(&p, d);
    if (!ok)
        snprintf(why, cap, "%zu: %s", p.problem_mark.line + 1,
                 p.problem ? p.problem : "not valid YAML");
    yaml_parser_delete(&p);
    if (ok && !yaml_document_get_root_node(d)) {
        yaml_document_delete(d);
        snprintf(why, cap, "1: empty document");
        return -1;
    }
    return ok ? 0 : -1;
}

/* Copy node src of document s into document d; the new node's id (0 on failure). */
static int node_copy(yaml_document_t *d, yaml_document_t *s, yaml_node_t *src) {
    if (src->type == YAML_SCALAR_NODE)
        return yaml_document_add_scalar(d, src->tag, src->data.scalar.value,
                                        (int)src->data.scalar.length, src->data.scalar.style);
    if (src->type == YAML_SEQUENCE_NODE) {
        int id = yaml_document_add_sequence(d, src->tag, YAML_FLOW_SEQUENCE_STYLE);
        for (yaml_node_item_t *it = src->data.sequence.items.start;
             id && it < src->data.sequence.items.top; ++it) {
            int c = node_copy(d, s, node_at(s, *it));
            if (!c || !yaml_document_append_sequence_item(d, id, c)) return 0;
        }
        return id;
    }
    int id = yaml_document_add_mapping(d, src->tag, YAML_FLOW_MAPPING_STYLE);
    for (yaml_node_pair_t *p = src->data.mapping.pairs.start; id && p < src->data.mapping.pairs.top;
         ++p) {
        int k = node_copy(d, s, node_at(s, p->key));
        int v = k ? node_copy(d, s, node_at(s, p->value)) : 0;
        if (!v || !yaml_document_append_mapping_pair(d, id, k, v)) return 0;
    }
    return id;
}

/* Set the node at the dotted path in d to a copy of the YAML text value (NULL: only check
 * that the path can be set). The last key of a path may be new (added to its mapping).
 * 0, or -1 with why. */
static int doc_set(yaml_document_t *d, const char *path, const char *value, char *why, size_t cap) {
    int cur = 1; /* the root node */
    const char *p = path;
    int *slot = NULL; /* where the id of the node at the path is kept */
    while (*p) {
        yaml_node_t *n = node_at(d, cur);
        if (*p == '[') {
            char *end;
            long k = strtol(p + 1, &end, 10);
            if (end == p + 1 || *end != ']' || k < 0) {
                snprintf(why, cap, "%s: bad index at '%s'", path, p);
                return -1;
            }
            long len = n && n->type == YAML_SEQUENCE_NODE
                           ? (long)(n->data.sequence.items.top - n->data.sequence.items.start)
                           : -1;
            if (len < 0) {
                snprintf(why, cap, "%s: '%.*s' is not a list in the model", path, (int)(p - path),
                         path);
                return -1;
            }
            if (k >= len) {
                snprintf(why, cap, "%s: index %ld is out of range (the model's list has %ld)", path,
                         k, len);
                return -1;
            }
            slot = &n->data.sequence.items.start[k];
            cur = *slot;
            p = end + 1;
            if (*p == '.') ++p;
            continue;
        }
        size_t kl = strcspn(p, ".[");
        char key[SW_PATH_MAX];
        if (kl == 0 || kl >= sizeof key) {
            snprintf(why, cap, "%s: empty or too long key at '%s'", path, p);
            return -1;
        }
        memcpy(key, p, kl);
        key[kl] = '\0';
        p += kl;
        int last = *p == '\0';
        if (*p == '.') ++p;
        if (!n || n->type != YAML_MAPPING_NODE) {
            snprintf(why, cap, "%s: the model has no mapping to hold '%s'", path, key);
            return -1;
        }
        slot = NULL;
        for (yaml_node_pair_t *q = n->data.mapping.pairs.start; q < n->data.mapping.pairs.top;
             ++q) {
            const char *k = scalar_of(node_at(d, q->key));
            if (k && strcmp(k, key) == 0) slot = &q->value;
        }
        if (!slot) {
            if (!last) {
                snprintf(why, cap, "%s: the model has no key '%s'", path, key);
                return -1;
            }
            if (!value) return 0; /* a new key: the model reader checks it */
            int kid =
                yaml_document_add_scalar(d, NULL, (yaml_char_t *)key, -1, YAML_PLAIN_SCALAR_STYLE);
            int vid = kid ? yaml_document_add_scalar(d, NULL, (yaml_char_t *)"~", -1,
                                                     YAML_PLAIN_SCALAR_STYLE)
                          : 0;
            if (!vid || !yaml_document_append_mapping_pair(d, cur, kid, vid)) {
                ld_oom_format_lib(why, cap, "libyaml");
                return -1;
            }
            n = node_at(d, cur);
            slot = &(n->data.mapping.pairs.top - 1)->value;
        }
        cur = *slot;
    }
    if (!slot) {
        snprintf(why, cap, "%s: an empty path", path);
        return -1;
    }
    if (!value) return 0;
    /* the slot's address may move when nodes are added: keep it as (parent, position) */
    yaml_node_t *parent = NULL;
    ptrdiff_t off = 0;
    for (yaml_node_t *n = d->nodes.start; n < d->nodes.top; ++n) {
        if (n->type == YAML_SEQUENCE_NODE && slot >= n->data.sequence.items.start &&
            slot < n->data.sequence.items.top) {
            parent = n;
            off = slot - n->data.sequence.items.start;
        } else if (n->type == YAML_MAPPING_NODE &&
                   (yaml_node_pair_t *)(void *)slot >= n->data.mapping.pairs.start &&
                   (yaml_node_pair_t *)(void *)slot < n->data.mapping.pairs.top) {
            parent = n;
            off = (yaml_node_pair_t *)(void *)slot - n->data.mapping.pairs.start;
        }
    }
    ptrdiff_t pid = parent - d->nodes.start;
    yaml_document_t v;
    if (doc_load(&v, value, strlen(value), why, cap)) {
        char tmp[256];
        snprintf(tmp, sizeof tmp, "%s", why);
        snprintf(why, cap, "%s: the value '%s' is not YAML (%s)", path, value, tmp);
        return -1;
    }
    int id = node_copy(d, &v, yaml_document_get_root_node(&v));
    yaml_document_delete(&v);
    if (!id || !parent) {
        ld_oom_format_lib(why, cap, "libyaml");
        return -1;
    }
    parent = d->nodes.start + pid;
    if (parent->type == YAML_SEQUENCE_NODE)
        parent->data.sequence.items.start[off] = id;
    else
        parent->data.mapping.pairs.start[off].value = id;
    return 0;
}

static int emit_out(void *data, unsigned char *buf, size_t size) {
    sw_buf *b = data;
    sw_buf_printf(b, "%.*s", (int)size, (const char *)buf);
    return 1;
}

/* Emit d as text (d is consumed). 0 or -1. */
static int doc_emit(yaml_document_t *d, sw_buf *b) {
    yaml_emitter_t e;
    if (!yaml_emitter_initialize(&e)) {
        yaml_document_delete(d);
        return -1;
    }
    yaml_emitter_set_output(&e, emit_out, b);
    yaml_emitter_set_unicode(&e, 1);
    yaml_emitter_set_width(&e, -1);
    int ok = yaml_emitter_open(&e) && yaml_emitter_dump(&e, d) && yaml_emitter_close(&e);
    if (!ok) yaml_document_delete(d);
    yaml_emitter_delete(&e);
    return ok && b->s ? 0 : -1;
}

/* ------------------------------------------------------------------ random samples */

static uint64_t splitmix64(uint64_t *s) {
    uint64_t z = (*s += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}

/* Uniform in (0, 1), 53 bits. */
static double unif(uint64_t *s) {
    return ((double)(splitmix64(s) >> 11) + 0.5) * 0x1.0p-53;
}

void sweep_case_value(const sweep *sw, long i, int k, char *buf, size_t cap) {
    const sw_param *p = &sw->params[k];
    buf[0] = '\0';
    if (p->kind == SW_GRID) {
        long stride = 1;
        for (int j = sw->nparams - 1; j > k; --j)
            if (sw->params[j].kind == SW_GRID) stride *= sw->params[j].nvalues;
        snprintf(buf, cap, "%s", p->values[(i / stride) % p->nvalues]);
        return;
    }
    if (p->kind == SW_LIST) {
        if (p->values[i]) snprintf(buf, cap, "%s", p->values[i]);
        return;
    }
    /* the case's own generator: seeded by (seed, case), the draws in parameter order */
    uint64_t s = sw->seed ^ (0xD1B54A32D192ED03ull * (uint64_t)(i + 1));
    (void)splitmix64(&s);
    double x = 0.0;
    for (int j = 0; j <= k; ++j) {
        double u1 = unif(&s), u2 = unif(&s);
        if (j < k) continue;
        if (p->kind == SW_UNIFORM)
            x = p->a + (p->b - p->a) * u1;
        else if (p->kind == SW_LOGUNIFORM)
            x = exp(log(p->a) + (log(p->b) - log(p->a)) * u1);
        else
            x = p->a + p->b * sqrt(-2.0 * log(u1)) * cos(6.283185307179586 * u2);
    }
    snprintf(buf, cap, "%.17g", x);
}

int sweep_case_text(const sweep *sw, long i, const sw_set *extra, int nextra, char **out,
                    size_t *len, char *why, size_t cap) {
    yaml_document_t d;
    *out = NULL;
    if (doc_load(&d, sw->model_text, sw->model_len, why, cap)) return -1;
    int rc = 0;
    for (int k = 0; !rc && k < sw->nset; ++k)
        rc = doc_set(&d, sw->set[k].path, sw->set[k].value, why, cap);
    char val[4096];
    for (int k = 0; !rc && i >= 0 && k < sw->nparams; ++k) {
        sweep_case_value(sw, i, k, val, sizeof val);
        if (val[0]) rc = doc_set(&d, sw->params[k].path, val, why, cap);
    }
    for (int k = 0; !rc && k < nextra; ++k)
        rc = doc_set(&d, extra[k].path, extra[k].value, why, cap);
    if (rc) {
        yaml_document_delete(&d);
        return -1;
    }
    sw_buf b = {0};
    if (doc_emit(&d, &b) || b.nomem) {
        if (b.nomem)
            ld_oom_last(why, cap);
        else
            snprintf(why, cap, "cannot emit the model text");
        sw_buf_free(&b);
        return -1;
    }
    *out = b.s;
    *len = b.len;
    return 0;
}

/* ------------------------------------------------------------------ the sweep file */

typedef struct loader {
    sweep *sw;
    yaml_document_t doc, model;
    int have_model;
    int model_given; /* the caller gave the model's text: the model key is not looked up */
} loader;

/* "FILE:LINE: KEY: REASON" on stderr; returns 2. */
__attribute__((format(printf, 4, 5))) static int bad(const loader *L, int line, const char *key,
                                                     const char *fmt, ...) {
    char reason[1024];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(reason, sizeof reason, fmt, ap);
    va_end(ap);
    return cli_error("%s:%d: %s: %s", L->sw->file, line, key, reason);
}

/* The model: a path (relative to the sweep file's directory, or as given) or a shipped name. */
static int find_model(loader *L, const char *name, int line) {
    sweep *sw = L->sw;
    const char *slash = strrchr(sw->file, '/');
    if (name[0] != '/' && slash) {
        snprintf(sw->model_path, sizeof sw->model_path, "%.*s/%s", (int)(slash - sw->file),
                 sw->file, name);
        if (is_file(sw->model_path)) return 0;
    }
    snprintf(sw->model_path, sizeof sw->model_path, "%s", name);
    if (is_file(sw->model_path)) return 0;
    if (!strchr(name, '/')) {
        snprintf(sw->model_path, sizeof sw->model_path, "%s/%s.yaml", cli_models_dir(), name);
        if (is_file(sw->model_path)) return 0;
    }
    return bad(L, line, "model", "'%s' is neither a model file nor a shipped model (liedyn models)",
               name);
}

static int read_model(loader *L) {
    sweep *sw = L->sw;
    if (!sw->model_text && sweep_read_file(sw->model_path, &sw->model_text, &sw->model_len))
        return 2;
    ld_model m;
    ld_model_error err;
    memset(&err, 0, sizeof err);
    if (ld_model_parse(sw->model_text, sw->model_len, sw->model_path, &m, &err))
        return cli_error("%s", err.msg[0] ? err.msg : "cannot read the model");
    model_base(&m, sw->model_path, sw->base, sizeof sw->base);
    if (sw->nbodies == 0 && (sw->record & SW_REC_STATE)) {
        sw->bodies = ld_xcalloc((size_t)m.nbodies + 1, sizeof *sw->bodies, "the sweep's bodies");
        if (!sw->bodies) return ld_model_free(&m), cli_error("%s", ld_oom_last_str());
        for (int b2 = 0; sw->bodies && b2 < m.nbodies; ++b2)
            snprintf(sw->bodies[b2], LD_NAME_MAX, "%s", m.bodies[b2].name);
        sw->nbodies = sw->bodies ? m.nbodies : 0;
    }
    ld_model_free(&m);
    char why[512];
    if (doc_load(&L->model, sw->model_text, sw->model_len, why, sizeof why))
        return cli_error("%s:%s", sw->model_path, why);
    L->have_model = 1;
    return 0;
}

/* Check that path can be set in the base model. */
static int check_path(loader *L, const char *key, const char *path, int line) {
    char why[512];
    if (strlen(path) >= SW_PATH_MAX) return bad(L, line, key, "the path '%s' is too long", path);
    if (doc_set(&L->model, path, NULL, why, sizeof why)) return bad(L, line, key, "%s", why);
    return 0;
}

/* A fixed override path = value into set[*n]. */
static int add_set(loader *L, sw_set *set, int *n, const char *key, const char *path,
                   yaml_node_t *v, int line) {
    if (*n == SW_MAX_PARAMS) return bad(L, line, key, "at most %d overrides", SW_MAX_PARAMS);
    if (check_path(L, key, path, line)) return 2;
    if (v->type == YAML_MAPPING_NODE)
        return bad(L, line, key, "%s: a value must be a scalar or a list", path);
    snprintf(set[*n].path, sizeof set[*n].path, "%s", path);
    set[*n].value = node_dup(&L->doc, v);
    if (!set[*n].value) return cli_error("%s", ld_oom_last_str());
    set[*n].line = line;
    ++*n;
    return 0;
}

static sw_param *new_param(loader *L, const char *key, const char *path, int line) {
    sweep *sw = L->sw;
    if (sw->nparams == SW_MAX_PARAMS) {
        bad(L, line, key, "at most %d varied parameters", SW_MAX_PARAMS);
        return NULL;
    }
    for (int k = 0; k < sw->nparams; ++k)
        if (strcmp(sw->params[k].path, path) == 0) {
            bad(L, line, key, "'%s' is varied twice", path);
            return NULL;
        }
    if (check_path(L, key, path, line)) return NULL;
    sw_param *p = &sw->params[sw->nparams++];
    snprintf(p->path, sizeof p->path, "%s", path);
    p->line = line;
    return p;
}

/* vary: {PATH: [v1, v2, ...], ...} — every combination. */
static int read_grid(loader *L, yaml_node_t *n) {
    sweep *sw = L->sw;
    if (n->type != YAML_MAPPING_NODE)
        return bad(L, line_of(n), "vary", "expected a mapping of paths to lists of values");
    sw->ncases = 1;
    for (yaml_node_pair_t *q = n->data.mapping.pairs.start; q < n->data.mapping.pairs.top; ++q) {
        const char *path = scalar_of(node_at(&L->doc, q->key));
        yaml_node_t *v = node_at(&L->doc, q->value);
        int line = line_of(node_at(&L->doc, q->key));
        if (!path) return bad(L, line, "vary", "a key must be a path");
        if (v->type != YAML_SEQUENCE_NODE ||
            v->data.sequence.items.top == v->data.sequence.items.start)
            return bad(L, line, "vary", "%s: expected a non-empty list of values", path);
        sw_param *p = new_param(L, "vary", path, line);
        if (!p) return 2;
        p->kind = SW_GRID;
        p->nvalues = (int)(v->data.sequence.items.top - v->data.sequence.items.start);
        p->values = ld_xcalloc((size_t)p->nvalues, sizeof *p->values, "the parameter's values");
        if (!p->values) return cli_error("%s", ld_oom_last_str());
        for (int k = 0; k < p->nvalues; ++k) {
            p->values[k] = node_dup(&L->doc, node_at(&L->doc, v->data.sequence.items.start[k]));
            if (!p->values[k]) return cli_error("%s", ld_oom_last_str());
            if (!p->values[k][0]) return bad(L, line, "vary", "%s: value %d is empty", path, k + 1);
        }
        if (sw->ncases > 100000000L / p->nvalues)
            return bad(L, line, "vary", "more than 100000000 combinations");
        sw->ncases *= p->nvalues;
    }
    return 0;
}

/* cases: [{PATH: v, ...}, ...] — one case per item. */
static int read_list(loader *L, yaml_node_t *n) {
    sweep *sw = L->sw;
    if (n->type != YAML_SEQUENCE_NODE || n->data.sequence.items.top == n->data.sequence.items.start)
        return bad(L, line_of(n), "cases", "expected a non-empty list of mappings");
    long nc = n->data.sequence.items.top - n->data.sequence.items.start;
    sw->ncases = nc;
    for (long c = 0; c < nc; ++c) {
        yaml_node_t *m = node_at(&L->doc, n->data.sequence.items.start[c]);
        if (m->type != YAML_MAPPING_NODE)
            return bad(L, line_of(m), "cases", "case %ld: expected a mapping of paths to values",
                       c);
        for (yaml_node_pair_t *q = m->data.mapping.pairs.start; q < m->data.mapping.pairs.top;
             ++q) {
            const char *path = scalar_of(node_at(&L->doc, q->key));
            int line = line_of(node_at(&L->doc, q->key));
            if (!path) return bad(L, line, "cases", "a key must be a path");
            sw_param *p = NULL;
            for (int k = 0; k < sw->nparams; ++k)
                if (strcmp(sw->params[k].path, path) == 0) p = &sw->params[k];
            if (!p) {
                if (!(p = new_param(L, "cases", path, line))) return 2;
                p->kind = SW_LIST;
                p->nvalues = (int)nc;
                p->values = ld_xcalloc((size_t)nc, sizeof *p->values, "the parameter's values");
                if (!p->values) return cli_error("%s", ld_oom_last_str());
            }
            if (p->values[c]) return bad(L, line, "cases", "case %ld: '%s' given twice", c, path);
            p->values[c] = node_dup(&L->doc, node_at(&L->doc, q->value));
            if (!p->values[c]) return cli_error("%s", ld_oom_last_str());
        }
    }
    return 0;
}

static int number(loader *L, yaml_node_t *n, const char *key, double *x) {
    const char *s = scalar_of(n);
    char *end = NULL;
    if (s) *x = strtod(s, &end);
    if (!s || end == s || *end || !isfinite(*x))
        return bad(L, line_of(n), key, "expected a finite number");
    return 0;
}

/* random: {PATH: {uniform|loguniform|normal: [a, b]}, ...} with samples and seed. */
static int read_random(loader *L, yaml_node_t *n) {
    if (n->type != YAML_MAPPING_NODE)
        return bad(L, line_of(n), "random", "expected a mapping of paths to distributions");
    for (yaml_node_pair_t *q = n->data.mapping.pairs.start; q < n->data.mapping.pairs.top; ++q) {
        const char *path = scalar_of(node_at(&L->doc, q->key));
        yaml_node_t *v = node_at(&L->doc, q->value);
        int line = line_of(node_at(&L->doc, q->key));
        if (!path) return bad(L, line, "random", "a key must be a path");
        yaml_node_t *dk = NULL, *dv = NULL;
        if (v->type == YAML_MAPPING_NODE &&
            v->data.mapping.pairs.top - v->data.mapping.pairs.start == 1) {
            dk = node_at(&L->doc, v->data.mapping.pairs.start->key);
            dv = node_at(&L->doc, v->data.mapping.pairs.start->value);
        }
        const char *dist = scalar_of(dk);
        if (!dist || dv->type != YAML_SEQUENCE_NODE ||
            dv->data.sequence.items.top - dv->data.sequence.items.start != 2)
            return bad(L, line, "random",
                       "%s: expected one of {uniform: [LO, HI]}, {loguniform: [LO, HI]}, "
                       "{normal: [MEAN, SD]}",
                       path);
        sw_param *p = new_param(L, "random", path, line);
        if (!p) return 2;
        if (number(L, node_at(&L->doc, dv->data.sequence.items.start[0]), "random", &p->a) ||
            number(L, node_at(&L->doc, dv->data.sequence.items.start[1]), "random", &p->b))
            return 2;
        if (strcmp(dist, "uniform") == 0)
            p->kind = SW_UNIFORM;
        else if (strcmp(dist, "loguniform") == 0)
            p->kind = SW_LOGUNIFORM;
        else if (strcmp(dist, "normal") == 0)
            p->kind = SW_NORMAL;
        else
            return bad(L, line, "random",
                       "%s: unknown distribution '%s' (uniform, loguniform, normal)", path, dist);
        if (p->kind != SW_NORMAL && !(p->b > p->a))
            return bad(L, line, "random", "%s: needs LO < HI, got [%g, %g]", path, p->a, p->b);
        if (p->kind == SW_LOGUNIFORM && !(p->a > 0.0))
            return bad(L, line, "random", "%s: loguniform needs 0 < LO, got %g", path, p->a);
        if (p->kind == SW_NORMAL && !(p->b >= 0.0))
            return bad(L, line, "random", "%s: the standard deviation must be >= 0, got %g", path,
                       p->b);
    }
    return 0;
}

static int read_record(loader *L, yaml_node_t *n) {
    sweep *sw = L->sw;
    if (n->type != YAML_SEQUENCE_NODE)
        return bad(L, line_of(n), "record", "expected a list such as [final_state, status]");
    static const struct {
        const char *name;
        int flag;
    } items[] = {{"final_state", SW_REC_STATE},
                 {"energy_drift", SW_REC_ENERGY},
                 {"constraint_residual", SW_REC_PHI},
                 {"error", SW_REC_ERROR},
                 {"steps", SW_REC_STEPS},
                 {"cpu_time", SW_REC_CPU},
                 {"status", 0}};
    for (yaml_node_item_t *it = n->data.sequence.items.start; it < n->data.sequence.items.top;
         ++it) {
        yaml_node_t *v = node_at(&L->doc, *it);
        const char *name = scalar_of(v);
        yaml_node_t *bodies = NULL;
        if (!name && v->type == YAML_MAPPING_NODE &&
            v->data.mapping.pairs.top - v->data.mapping.pairs.start == 1) {
            name = scalar_of(node_at(&L->doc, v->data.mapping.pairs.start->key));
            bodies = node_at(&L->doc, v->data.mapping.pairs.start->value);
            if (!name || strcmp(name, "final_state") != 0 || bodies->type != YAML_SEQUENCE_NODE)
                return bad(L, line_of(v), "record", "expected {final_state: [BODY, ...]}");
        }
        int flag = -1;
        for (size_t k = 0; name && k < sizeof items / sizeof items[0]; ++k)
            if (strcmp(name, items[k].name) == 0) flag = items[k].flag;
        if (flag < 0)
            return bad(L, line_of(v), "record",
                       "unknown output '%s' (final_state, energy_drift, constraint_residual, "
                       "error, steps, cpu_time, status)",
                       name ? name : "?");
        sw->record |= flag;
        if (bodies) {
            long nb = bodies->data.sequence.items.top - bodies->data.sequence.items.start;
            sw->bodies = ld_xcalloc((size_t)nb + 1, sizeof *sw->bodies, "the sweep's bodies");
            if (!sw->bodies) return cli_error("%s", ld_oom_last_str());
            for (long b = 0; b < nb; ++b) {
                const char *s = scalar_of(node_at(&L->doc, bodies->data.sequence.items.start[b]));
                if (!s || strlen(s) >= LD_NAME_MAX)
                    return bad(L, line_of(v), "record", "final_state: expected body names");
                snprintf(sw->bodies[b], LD_NAME_MAX, "%s", s);
            }
            sw->nbodies = (int)nb;
        }
    }
    return 0;
}

static int read_reference(loader *L, yaml_node_t *n) {
    sweep *sw = L->sw;
    if (n->type != YAML_MAPPING_NODE)
        return bad(L, line_of(n), "reference", "expected a mapping of paths to values");
    sw->has_ref = 1;
    for (yaml_node_pair_t *q = n->data.mapping.pairs.start; q < n->data.mapping.pairs.top; ++q) {
        const char *path = scalar_of(node_at(&L->doc, q->key));
        yaml_node_t *v = node_at(&L->doc, q->value);
        int line = line_of(node_at(&L->doc, q->key));
        if (!path) return bad(L, line, "reference", "a key must be a path");
        if (strcmp(path, "shared") == 0) {
            const char *s = scalar_of(v);
            if (!s || (strcmp(s, "true") && strcmp(s, "false")))
                return bad(L, line, "reference", "shared: expected true or false");
            sw->ref_shared = strcmp(s, "true") == 0;
            continue;
        }
        if (add_set(L, sw->ref, &sw->nref, "reference", path, v, line)) return 2;
    }
    return 0;
}

/* The integrator block's keys may be given at the top of the sweep file. */
static int is_integrator_key(const char *k) {
    static const char *const keys[] = {"name",         "formulation", "dt",          "t_start",
                                       "t_end",        "newton_atol", "newton_rtol", "max_iter",
                                       "output_every", "adaptive",    "error_atol",  "error_rtol",
                                       "fac",          "facmin",      "facmax"};
    for (size_t i = 0; i < sizeof keys / sizeof keys[0]; ++i)
        if (strcmp(k, keys[i]) == 0) return 1;
    return ld_method_param_find(k, NULL) != NULL;
}

static int load_doc(loader *L, yaml_node_t *root) {
    sweep *sw = L->sw;
    if (root->type != YAML_MAPPING_NODE)
        return bad(L, line_of(root), "(document)", "expected a mapping (model:, vary:, ...)");
    yaml_node_t *model = node_at(&L->doc, map_get(&L->doc, root, "model"));
    if (!scalar_of(model)) return bad(L, 1, "model", "required: a shipped model's name or a path");
    yaml_node_t *rec = node_at(&L->doc, map_get(&L->doc, root, "record"));
    sw->record = SW_REC_STATE | SW_REC_ENERGY | SW_REC_PHI; /* without record: */
    if (rec) {
        sw->record = 0;
        if (read_record(L, rec)) return 2;
    }
    if ((!L->model_given && find_model(L, scalar_of(model), line_of(model))) || read_model(L))
        return 2;
    int have_vary = 0;
    for (yaml_node_pair_t *q = root->data.mapping.pairs.start; q < root->data.mapping.pairs.top;
         ++q) {
        yaml_node_t *kn = node_at(&L->doc, q->key), *v = node_at(&L->doc, q->value);
        const char *k = scalar_of(kn);
        int line = line_of(kn), rc = 0;
        if (!k) return bad(L, line, "(document)", "a key must be a name");
        if (!strcmp(k, "model") || !strcmp(k, "record") || !strcmp(k, "samples") ||
            !strcmp(k, "seed"))
            continue;
        if (!strcmp(k, "vary") || !strcmp(k, "cases") || !strcmp(k, "random")) {
            if (have_vary++)
                return bad(L, line, k, "give one of vary (a grid), cases (a list), random");
            rc = !strcmp(k, "vary")    ? read_grid(L, v)
                 : !strcmp(k, "cases") ? read_list(L, v)
                                       : read_random(L, v);
        } else if (!strcmp(k, "reference")) {
            rc = read_reference(L, v);
        } else if (!strcmp(k, "set")) {
            if (v->type != YAML_MAPPING_NODE)
                return bad(L, line, "set", "expected a mapping of paths to values");
            for (yaml_node_pair_t *s = v->data.mapping.pairs.start;
                 !rc && s < v->data.mapping.pairs.top; ++s) {
                const char *path = scalar_of(node_at(&L->doc, s->key));
                if (!path) return bad(L, line, "set", "a key must be a path");
                rc = add_set(L, sw->set, &sw->nset, "set", path, node_at(&L->doc, s->value),
                             line_of(node_at(&L->doc, s->key)));
            }
        } else if (is_integrator_key(k)) {
            char path[SW_PATH_MAX];
            snprintf(path, sizeof path, "integrator.%s", k);
            rc = add_set(L, sw->set, &sw->nset, k, path, v, line);
        } else {
            return bad(L, line, k,
                       "unknown key (model, vary, cases, random, samples, seed, set, record, "
                       "reference, or a key of the integrator block)");
        }
        if (rc) return 2;
    }
    if (!have_vary) return bad(L, 1, "vary", "required: vary (a grid), cases (a list) or random");
    yaml_node_t *ns = node_at(&L->doc, map_get(&L->doc, root, "samples"));
    yaml_node_t *nseed = node_at(&L->doc, map_get(&L->doc, root, "seed"));
    int is_random = map_get(&L->doc, root, "random") != 0;
    if ((ns || nseed) && !is_random)
        return bad(L, line_of(ns ? ns : nseed), ns ? "samples" : "seed", "only with random");
    if (is_random) {
        double x = 0.0, y = 0.0;
        if (!ns || !nseed) return bad(L, 1, "random", "needs samples: N and seed: S");
        if (number(L, ns, "samples", &x) || number(L, nseed, "seed", &y)) return 2;
        if (!(x >= 1 && x <= 1e8 && x == floor(x)))
            return bad(L, line_of(ns), "samples", "expected an integer in 1 ... 1e8");
        if (!(y >= 0 && y < 0x1.0p63 && y == floor(y)))
            return bad(L, line_of(nseed), "seed", "expected a non-negative integer");
        sw->ncases = (long)x;
        sw->seed = (uint64_t)y;
    }
    if ((sw->record & SW_REC_ERROR) && !sw->has_ref) {
        /* without a reference run the error is against the exact rotation */
        ld_model m;
        ld_model_error err;
        int exact = 0, rc = ld_model_parse(sw->model_text, sw->model_len, sw->model_path, &m, &err);
        if (rc == LD_ENOMEM) return cli_error("%s", err.msg);
        if (rc == LD_OK) {
            double q[4];
            for (int b = 0; b < m.nbodies; ++b)
                exact |= ld_model_exact_rotation(&m, b, m.run.t_end, q) == LD_OK;
            ld_model_free(&m);
        }
        if (!exact)
            return bad(L, line_of(rec), "record",
                       "error needs a reference: run (e.g. reference: {integrator.dt: 1e-5}) "
                       "or a model with an exact solution");
    }
    return 0;
}

/* The hint for libyaml's complaint about a path with [ ] in a flow mapping ("" otherwise). */
static const char *flow_hint(const char *why) {
    return strstr(why, "expected ',' or '}'")
               ? " (in a flow mapping { }, quote a path with [ ]: \"bodies[0].mass\")"
               : "";
}

int sweep_parse(sweep *sw, const char *path, const char *text, size_t len, const char *model_path,
                const char *model_text, size_t model_len) {
    memset(sw, 0, sizeof *sw);
    sw->la = -1;
    snprintf(sw->file, sizeof sw->file, "%s", path);
    if (model_text) {
        snprintf(sw->model_path, sizeof sw->model_path, "%s", model_path);
        if (!(sw->model_text = ld_xmalloc(model_len + 1, "the model's text")))
            return cli_error("%s", ld_oom_last_str());
        memcpy(sw->model_text, model_text, model_len);
        sw->model_text[model_len] = '\0';
        sw->model_len = model_len;
    }
    loader L = {.sw = sw, .model_given = model_text != NULL};
    char why[512];
    int line = 0, rc = 0;
    if (len > LD_MODEL_MAX_BYTES)
        rc = cli_error("%s: larger than %d MB (the limit of a YAML file)", path,
                       (int)(LD_MODEL_MAX_BYTES >> 20));
    else if (ld_yaml_check(text, len, "a sweep file", &line, why, sizeof why))
        rc = cli_error("%s:%d: %s%s", path, line, why, flow_hint(why));
    else if (doc_load(&L.doc, text, len, why, sizeof why))
        rc = cli_error("%s:%s%s", path, why, flow_hint(why));
    if (rc) {
        sweep_free(sw);
        return rc;
    }
    rc = load_doc(&L, yaml_document_get_root_node(&L.doc));
    yaml_document_delete(&L.doc);
    if (L.have_model) yaml_document_delete(&L.model);
    if (!rc) rc = sweep_check_paths(sw);
    if (rc) sweep_free(sw);
    return rc;
}

int sweep_load(sweep *sw, const char *path, const char *text) {
    char *own = NULL;
    size_t len = text ? strlen(text) : 0;
    if (!text && sweep_read_file(path, &own, &len)) {
        memset(sw, 0, sizeof *sw);
        return 2;
    }
    int rc = sweep_parse(sw, path, text ? text : own, len, NULL, NULL, 0);
    free(own);
    return rc;
}

void sweep_free(sweep *sw) {
    for (int k = 0; k < sw->nparams; ++k) {
        for (int j = 0; sw->params[k].values && j < sw->params[k].nvalues; ++j)
            free(sw->params[k].values[j]);
        free(sw->params[k].values);
    }
    for (int k = 0; k < sw->nset; ++k) free(sw->set[k].value);
    for (int k = 0; k < sw->nref; ++k) free(sw->ref[k].value);
    free(sw->bodies);
    free(sw->model_text);
    memset(sw, 0, sizeof *sw);
}
