/*
 * Sampled body-frame angular velocity (gyro data): CSV reader and linear interpolation.
 */
#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../core/strf.h"
#include "liedyn/attitude.h"
#include "liedyn/liedyn.h"
#include "../core/oom.h"

struct ld_gyro {
    long n, cap;
    double *t; /* n times, strictly increasing */
    double *w; /* 3n rates */
    long hint; /* last interval used by the lookup */
};

void ld_gyro_free(ld_gyro *g) {
    if (!g) return;
    free(g->t);
    free(g->w);
    free(g);
}

long ld_gyro_count(const ld_gyro *g) {
    return g ? g->n : 0;
}
double ld_gyro_t_first(const ld_gyro *g) {
    return g ? g->t[0] : (double)NAN;
}
double ld_gyro_t_last(const ld_gyro *g) {
    return g ? g->t[g->n - 1] : (double)NAN;
}

/* Append one sample, growing the arrays geometrically. */
static int push(ld_gyro *g, double t, const double w[3]) {
    if (g->n == g->cap) {
        long cap = g->cap ? 2 * g->cap : 256;
        double *nt = ld_xrealloc(g->t, (size_t)cap * sizeof *nt, "the gyro's times");
        if (!nt) return LD_ENOMEM;
        g->t = nt;
        double *nw = ld_xrealloc(g->w, 3 * (size_t)cap * sizeof *nw, "the gyro's rates");
        if (!nw) return LD_ENOMEM;
        g->w = nw;
        g->cap = cap;
    }
    g->t[g->n] = t;
    memcpy(g->w + 3 * g->n, w, 3 * sizeof(double));
    g->n++;
    return LD_OK;
}

int ld_gyro_create(ld_gyro **out, const double *t, const double *w, long n) {
    if (!out) return LD_EINVAL;
    *out = NULL;
    if (!t || !w || n < 2) return LD_EINVAL;
    for (long i = 0; i < n; ++i) {
        if (!isfinite(t[i]) || !isfinite(w[3 * i]) || !isfinite(w[3 * i + 1]) ||
            !isfinite(w[3 * i + 2]))
            return LD_EINVAL;
        if (i > 0 && !(t[i] > t[i - 1])) return LD_EINVAL;
    }
    ld_gyro *g = ld_xcalloc(1, sizeof *g, "the gyro record");
    if (!g) return LD_ENOMEM;
    for (long i = 0; i < n; ++i) {
        if (push(g, t[i], w + 3 * i) != LD_OK) {
            ld_gyro_free(g);
            return LD_ENOMEM;
        }
    }
    *out = g;
    return LD_OK;
}

/* Parse up to 8 comma-separated fields of line s into f; returns the count, or -k when field k
 * (1-based) is not a number. *bad receives the offending field text (truncated). */
static int parse_fields(char *s, double f[8], char bad[32]) {
    int n = 0;
    char *p = s;
    for (;;) {
        char *end;
        while (*p == ' ' || *p == '\t') ++p;
        errno = 0;
        double v = strtod(p, &end);
        char *q = end;
        while (*q == ' ' || *q == '\t' || *q == '\r' || *q == '\n') ++q;
        if (end == p || (*q != ',' && *q != '\0') || (errno == ERANGE && isinf(v))) {
            size_t k = strcspn(p, ",\r\n");
            snprintf(bad, 32, "%.*s", (int)(k < 31 ? k : 31), p);
            return -(n + 1);
        }
        if (n < 8) f[n] = v;
        ++n;
        if (*q == '\0') return n;
        p = q + 1;
    }
}

static int is_blank(const char *s) {
    for (; *s; ++s)
        if (*s != ' ' && *s != '\t' && *s != '\r' && *s != '\n') return 0;
    return 1;
}

/* The next line of f into line (cap bytes), without its end: LF, CRLF or a lone CR (old Mac
 * files), so each of them ends one line. 1: a line; 0: the end of the file; −1: longer than
 * cap − 1 bytes; −2: a NUL byte (not a text file). */
static int next_line(FILE *f, char *line, size_t cap) {
    size_t n = 0;
    int c, any = 0;
    line[0] = '\0';
    while ((c = getc(f)) != EOF) {
        any = 1;
        if (c == '\n') break;
        if (c == '\r') {
            int d = getc(f);
            if (d != '\n' && d != EOF) ungetc(d, f);
            break;
        }
        if (c == '\0') return -2;
        if (n + 1 >= cap) return -1;
        line[n++] = (char)c;
    }
    line[n] = '\0';
    return any;
}

/* Read all lines of f into g; the work of ld_gyro_read. */
static int read_lines(FILE *f, const char *path, ld_gyro *g, char *msg, size_t len) {
    char line[4096], bad[32];
    long lineno = 0, firstdata = 1;
    int got;
    while ((got = next_line(f, line, sizeof line)) != 0) {
        ++lineno;
        if (got == -1)
            return ld_fail_msg(msg, len, LD_EINVAL, "%s:%ld: line longer than %zu characters", path,
                               lineno, sizeof line - 1);
        if (got == -2)
            return ld_fail_msg(msg, len, LD_EINVAL, "%s:%ld: a NUL byte (not a text file)", path,
                               lineno);
        char *s = line;
        if (lineno == 1 && (unsigned char)s[0] == 0xEF && (unsigned char)s[1] == 0xBB &&
            (unsigned char)s[2] == 0xBF)
            s += 3; /* UTF-8 byte-order mark */
        while (*s == ' ' || *s == '\t') ++s;
        if (*s == '#' || is_blank(s)) continue;
        double v[8];
        int n = parse_fields(s, v, bad);
        if (n == -1 && firstdata && (isalpha((unsigned char)*s) || *s == '"' || *s == '_')) {
            /* header: the first line whose first field is a name */
            firstdata = 0;
            continue;
        }
        firstdata = 0;
        if (n < 0)
            return ld_fail_msg(msg, len, LD_EINVAL, "%s:%ld: field %d ('%s') is not a number", path,
                               lineno, -n, bad);
        if (n != 4)
            return ld_fail_msg(msg, len, LD_EINVAL,
                               "%s:%ld: expected 4 comma-separated numbers t,wx,wy,wz, found %d",
                               path, lineno, n);
        for (int i = 0; i < 4; ++i)
            if (!isfinite(v[i]))
                return ld_fail_msg(msg, len, LD_EINVAL, "%s:%ld: field %d is not finite", path,
                                   lineno, i + 1);
        if (g->n > 0 && !(v[0] > g->t[g->n - 1]))
            return ld_fail_msg(msg, len, LD_EINVAL,
                               "%s:%ld: time %.17g does not increase (previous sample at %.17g)",
                               path, lineno, v[0], g->t[g->n - 1]);
        if (push(g, v[0], v + 1) != LD_OK)
            return ld_fail_msg(msg, len, LD_ENOMEM, "%s:%ld: %s", path, lineno, ld_oom_last_str());
    }
    if (ferror(f))
        return ld_fail_msg(msg, len, LD_EIO, "%s: read error: %s", path, strerror(errno));
    if (g->n < 2)
        return ld_fail_msg(msg, len, LD_EINVAL, "%s: needs at least 2 samples, found %ld", path,
                           g->n);
    return LD_OK;
}

int ld_gyro_read(const char *path, ld_gyro **out, char *msg, size_t msglen) {
    if (msg && msglen) msg[0] = '\0';
    if (!out) return ld_fail_msg(msg, msglen, LD_EINVAL, "no output pointer");
    *out = NULL;
    if (!path) return ld_fail_msg(msg, msglen, LD_EINVAL, "no file name");
    FILE *f = fopen(path, "rb");
    if (!f) return ld_fail_msg(msg, msglen, LD_EIO, "%s: cannot open: %s", path, strerror(errno));
    ld_gyro *g = ld_xcalloc(1, sizeof *g, "the gyro record");
    if (!g) {
        fclose(f);
        return ld_fail_msg(msg, msglen, LD_ENOMEM, "%s: %s", path, ld_oom_last_str());
    }
    int rc = read_lines(f, path, g, msg, msglen);
    fclose(f);
    if (rc != LD_OK) {
        ld_gyro_free(g);
        return rc;
    }
    *out = g;
    return LD_OK;
}

/* Index i with t_i ≤ t ≤ t_{i+1}, starting the search at the hint. */
static long locate(ld_gyro *g, double t) {
    long i = g->hint;
    if (i < 0 || i >= g->n - 1) i = 0;
    if (t >= g->t[i] && t <= g->t[i + 1]) return i;
    if (i + 2 < g->n && t >= g->t[i + 1] && t <= g->t[i + 2]) return i + 1;
    long lo = 0, hi = g->n - 1; /* t_lo ≤ t ≤ t_hi */
    while (hi - lo > 1) {
        long mid = lo + (hi - lo) / 2;
        if (g->t[mid] <= t)
            lo = mid;
        else
            hi = mid;
    }
    return lo;
}

int ld_gyro_omega_fn(double t, double w[3], void *user) {
    ld_gyro *g = user;
    if (!g || !w) return LD_EINVAL;
    /* stage times may round a few ulps past the ends: allow a relative slack of 1e-12; the
     * slack and the distances to the ends are formed so that they cannot overflow to inf */
    double slack = 1e-12 * g->t[g->n - 1] - 1e-12 * g->t[0];
    if (!(g->t[0] - t <= slack) || !(t - g->t[g->n - 1] <= slack)) return LD_EDOMAIN;
    t = fmin(fmax(t, g->t[0]), g->t[g->n - 1]);
    long i = locate(g, t);
    g->hint = i;
    double s = (t - g->t[i]) / (g->t[i + 1] - g->t[i]);
    const double *a = g->w + 3 * i, *b = a + 3;
    for (int k = 0; k < 3; ++k) w[k] = a[k] + s * (b[k] - a[k]);
    return 0;
}
