/* Message formatting shared by the readers and validators (internal). */
#ifndef LIEDYN_SRC_CORE_STRF_H
#define LIEDYN_SRC_CORE_STRF_H

#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>

#if defined(__GNUC__)
#define LD_PRINTF(f, a) __attribute__((format(printf, f, a)))
#else
#define LD_PRINTF(f, a)
#endif

/* snprintf through a va_list: truncation of messages and keys is intended. */
LD_PRINTF(3, 4)
static inline int strf(char *dst, size_t cap, const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    int w = vsnprintf(dst, cap, fmt, ap);
    va_end(ap);
    return w;
}

/* Format the reason into msg (cap bytes; msg may be NULL) and return the status rc: the one
 * failure helper of the library's functions that say why they fail. */
LD_PRINTF(4, 5)
static inline int ld_fail_msg(char *msg, size_t cap, int rc, const char *fmt, ...) {
    if (msg && cap) {
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(msg, cap, fmt, ap);
        va_end(ap);
    }
    return rc;
}

#endif
