/* CSV fields and records after RFC 4180 (csv.h). */
#define _POSIX_C_SOURCE 200809L
#include "csv.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "liedyn/model.h"
#include "../core/oom.h"

int ld_io_csv_field(const char *s, char *out, size_t cap) {
    int quote = strpbrk(s, ",\"\r\n") != NULL;
    size_t need = strlen(s) + (quote ? 2 : 0);
    for (const char *p = s; quote && *p; ++p) need += *p == '"';
    if (need + 1 > cap || need > (size_t)0x7fffffff) {
        if (cap) out[0] = '\0';
        return -1;
    }
    size_t n = 0;
    if (quote) out[n++] = '"';
    for (; *s; ++s) {
        if (quote && *s == '"') out[n++] = '"';
        out[n++] = *s;
    }
    if (quote) out[n++] = '"';
    out[n] = '\0';
    return (int)n;
}

void ld_io_csv_put_names(FILE *f, const char *owner, const char *const *suffix, int n) {
    for (int i = 0; i < n; ++i) {
        char name[LD_NAME_MAX + 24], q[2 * sizeof name + 3];
        snprintf(name, sizeof name, "%s.%s", owner, suffix[i]);
        (void)ld_io_csv_field(name, q, sizeof q);
        fprintf(f, ",%s", q);
    }
}

/* Append byte c to the record's text. 0, or −1 (out of memory or too long; why says which). */
static int put(ld_io_csv_record *r, int c, char *why, size_t cap) {
    if (r->len + 1 >= r->cap) {
        if (r->cap >= LD_IO_CSV_MAX_RECORD) {
            snprintf(why, cap, "line %ld: a record longer than %zu bytes", r->line,
                     LD_IO_CSV_MAX_RECORD);
            return -1;
        }
        size_t nc = r->cap ? 2 * r->cap : 256;
        char *t = ld_xrealloc(r->text, nc, "the CSV record's text");
        if (!t) {
            ld_oom_last(why, cap);
            return -1;
        }
        r->text = t;
        r->cap = nc;
    }
    r->text[r->len++] = (char)c;
    return 0;
}

/* End the field being read: NUL-terminate it and note where it starts. 0 or −1. */
static int end_field(ld_io_csv_record *r, size_t start, char *why, size_t cap) {
    if (put(r, '\0', why, cap)) return -1;
    if (r->n == r->fcap) {
        int nc = r->fcap ? 2 * r->fcap : 16;
        size_t *s = ld_xrealloc(r->start, (size_t)nc * sizeof *s, "the CSV record's fields");
        if (s) r->start = s;
        char **f =
            s ? ld_xrealloc(r->field, (size_t)nc * sizeof *f, "the CSV record's fields") : NULL;
        if (!f) {
            ld_oom_last(why, cap);
            return -1;
        }
        r->field = f;
        r->fcap = nc;
    }
    r->start[r->n++] = start;
    return 0;
}

/* A quoted field after its opening quote, up to and including its closing quote. 0 or −1. */
static int read_quoted(FILE *f, ld_io_csv_record *r, char *why, size_t cap) {
    for (;;) {
        int c = getc_unlocked(f);
        if (c == EOF) {
            snprintf(why, cap, "line %ld: field %d opens a quote that is not closed", r->line,
                     r->n + 1);
            return -1;
        }
        if (c == '\0') {
            snprintf(why, cap, "line %ld: a NUL byte", r->next_line);
            return -1;
        }
        if (c == '\n') ++r->next_line;
        if (c == '"') {
            int d = getc_unlocked(f);
            if (d != '"') {
                if (d != EOF) ungetc(d, f);
                return 0;
            }
        }
        if (put(r, c, why, cap)) return -1;
    }
}

int ld_io_csv_read(FILE *f, ld_io_csv_record *r, char *why, size_t cap) {
    if (r->next_line < 1) r->next_line = 1;
    r->line = r->next_line;
    r->len = 0;
    r->n = 0;
    size_t start = 0;
    int any = 0, c;
    for (;;) {
        c = getc_unlocked(f);
        if (c == EOF) break;
        any = 1;
        if (c == '\0') {
            snprintf(why, cap, "line %ld: a NUL byte", r->next_line);
            return -1;
        }
        if (c == '"' && r->len == start) {
            if (read_quoted(f, r, why, cap)) return -1;
            c = getc_unlocked(f);
            if (c == '\r') {
                int d = getc_unlocked(f);
                if (d != '\n') {
                    if (d != EOF) ungetc(d, f);
                    d = c;
                }
                c = d;
            }
            if (c != ',' && c != '\n' && c != EOF) {
                snprintf(why, cap, "line %ld: a character after the closing quote of field %d",
                         r->next_line, r->n + 1);
                return -1;
            }
            if (c == '\n' || c == EOF) break;
        } else if (c != ',' && c != '\n') {
            if (put(r, c, why, cap)) return -1;
            continue;
        } else if (c == '\n' && r->len > start && r->text[r->len - 1] == '\r') {
            --r->len; /* CRLF */
        }
        if (c == '\n') break;
        if (end_field(r, start, why, cap)) return -1; /* a comma */
        start = r->len;
    }
    if (ferror(f)) {
        snprintf(why, cap, "read error: %s", strerror(errno));
        return -1;
    }
    if (!any) return 0;
    if (c == '\n') ++r->next_line;
    if (end_field(r, start, why, cap)) return -1;
    for (int i = 0; i < r->n; ++i) r->field[i] = r->text + r->start[i];
    return 1;
}

void ld_io_csv_record_free(ld_io_csv_record *r) {
    free(r->text);
    free(r->field);
    free(r->start);
    memset(r, 0, sizeof *r);
}
