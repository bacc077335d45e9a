/* Allocation failures that say how many bytes, for what: the per-thread record and the one
 * formatter (oom.h says why a per-thread record). */
#include "oom.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "liedyn/liedyn.h"

typedef struct oom_record {
    double bytes;     /* the size refused; 0 when nothing is recorded */
    const char *what; /* its purpose (a static string) */
} oom_record;

static _Thread_local oom_record last;
static _Thread_local char last_msg[192];

/* Record a refusal of bytes for what (a static string). */
static void note(double bytes, const char *what) {
    last.bytes = bytes > 0.0 ? bytes : 1.0;
    last.what = what && *what ? what : "an unnamed buffer";
}

void *ld_xmalloc(size_t bytes, const char *what) {
    void *p = malloc(bytes ? bytes : 1);
    if (!p) note((double)bytes, what);
    return p;
}

void *ld_xcalloc(size_t count, size_t size, const char *what) {
    void *p = calloc(count ? count : 1, size ? size : 1);
    if (!p) note((double)count * (double)size, what);
    return p;
}

void *ld_xrealloc(void *p, size_t bytes, const char *what) {
    void *q = realloc(p, bytes ? bytes : 1);
    if (!q) note((double)bytes, what);
    return q;
}

char *ld_xstrdup(const char *s, const char *what) {
    size_t n = strlen(s) + 1;
    char *d = ld_xmalloc(n, what);
    if (d) memcpy(d, s, n);
    return d;
}

/* " (1.2 MB)": the size in decimal units from 1000 bytes on, else "". */
static void human(char *buf, size_t cap, double bytes) {
    static const char *const unit[] = {"kB", "MB", "GB", "TB", "PB", "EB"};
    if (bytes < 1000.0) {
        buf[0] = '\0';
        return;
    }
    int u = 0;
    double x = bytes / 1000.0;
    while (x >= 999.95 && u < 5) x /= 1000.0, ++u;
    snprintf(buf, cap, " (%.1f %s)", x, unit[u]);
}

int ld_oom_format(char *buf, size_t cap, double bytes, const char *what) {
    if (!buf || !cap) return LD_ENOMEM;
    char h[32];
    human(h, sizeof h, bytes);
    snprintf(buf, cap, "out of memory: %.0f bytes for %s%s", bytes,
             what && *what ? what : "an unnamed buffer", h);
    return LD_ENOMEM;
}

int ld_oom_last(char *buf, size_t cap) {
    if (!buf || !cap) return LD_ENOMEM;
    if (last.bytes > 0.0)
        ld_oom_format(buf, cap, last.bytes, last.what);
    else
        snprintf(buf, cap, "out of memory (the size was not reported)");
    last.bytes = 0.0;
    last.what = NULL;
    return LD_ENOMEM;
}

int ld_oom_format_lib(char *buf, size_t cap, const char *lib) {
    if (buf && cap)
        snprintf(buf, cap, "out of memory in %s (which does not report the size it asked for)",
                 lib);
    return LD_ENOMEM;
}

const char *ld_oom_last_str(void) {
    ld_oom_last(last_msg, sizeof last_msg);
    return last_msg;
}
