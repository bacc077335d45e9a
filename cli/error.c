/* The tool's one-line error messages (cli.h): on stderr, or into a caller's buffer. */
#include <stdarg.h>
#include <stdio.h>

#include "cli.h"

static char *capture_buf; /* cli_error_capture */
static size_t capture_cap;

void cli_error_capture(char *buf, size_t cap) {
    capture_buf = buf;
    capture_cap = cap;
    if (buf && cap) buf[0] = '\0';
}

int cli_error(const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    if (capture_buf) { /* the first message only: the cause */
        if (!capture_buf[0]) vsnprintf(capture_buf, capture_cap, fmt, ap);
        va_end(ap);
        return 2;
    }
    fputs("liedyn: ", stderr);
    vfprintf(stderr, fmt, ap);
    fputc('\n', stderr);
    va_end(ap);
    return 2;
}
