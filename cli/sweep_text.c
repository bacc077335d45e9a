/* Text for the sweep files (sweep.h): growing buffers, YAML quoting, files read with the size
 * limit of every YAML file. */
#define _POSIX_C_SOURCE 200809L
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "liedyn/liedyn.h"
#include "sweep.h"
#include "../src/core/oom.h"

/* ------------------------------------------------------------------ text buffers */

void sw_buf_free(sw_buf *b);

void sw_buf_printf(sw_buf *b, const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(NULL, 0, fmt, ap);
    va_end(ap);
    if (n < 0 || b->nomem) return;
    if (b->len + (size_t)n + 1 > b->cap) {
        size_t cap = b->cap ? b->cap : 256;
        while (cap < b->len + (size_t)n + 1) cap *= 2;
        char *s = ld_xrealloc(b->s, cap, "a text");
        if (!s) {
            sw_buf_free(b);
            b->nomem = 1;
            return;
        }
        b->s = s;
        b->cap = cap;
    }
    va_start(ap, fmt);
    vsnprintf(b->s + b->len, (size_t)n + 1, fmt, ap);
    va_end(ap);
    b->len += (size_t)n;
}

void sw_buf_free(sw_buf *b) {
    free(b->s);
    b->s = NULL;
    b->len = b->cap = 0;
    b->nomem = 0;
}

void sweep_yaml_quoted(sw_buf *b, const char *s) {
    sw_buf_printf(b, "\"");
    for (; *s; ++s) {
        if (*s == '"' || *s == '\\')
            sw_buf_printf(b, "\\%c", *s);
        else if ((unsigned char)*s < 0x20)
            sw_buf_printf(b, "\\x%02x", (unsigned)(unsigned char)*s);
        else
            sw_buf_printf(b, "%c", *s);
    }
    sw_buf_printf(b, "\"");
}

/* The file at path (at most LD_MODEL_MAX_BYTES) into *out (malloc'ed, NUL-terminated) and *len.
 * 0, or 2 with a message printed. */
int sweep_read_file(const char *path, char **out, size_t *len) {
    FILE *f = fopen(path, "rb");
    if (!f) return cli_error("cannot read '%s': %s", path, strerror(errno));
    size_t cap = 65536, n = 0;
    char *t = ld_xmalloc(cap + 1, "the file's text");
    while (t) {
        n += fread(t + n, 1, cap - n, f);
        if (n < cap || n > LD_MODEL_MAX_BYTES) break;
        cap = 2 * cap > LD_MODEL_MAX_BYTES + 1 ? LD_MODEL_MAX_BYTES + 1 : 2 * cap;
        char *g = ld_xrealloc(t, cap + 1, "the file's text");
        if (!g) free(t);
        t = g;
    }
    int err = ferror(f);
    fclose(f);
    if (!t) return cli_error("reading '%s': %s", path, ld_oom_last_str());
    if (err || n > LD_MODEL_MAX_BYTES) {
        free(t);
        return err ? cli_error("cannot read '%s': %s", path, strerror(errno))
                   : cli_error("%s: larger than %d MB (the limit of a YAML file)", path,
                               (int)(LD_MODEL_MAX_BYTES >> 20));
    }
    t[n] = '\0';
    *out = t;
    *len = n;
    return 0;
}
