/*
 * Allocation failures that say how many bytes, for what (internal).
 *
 * Every out-of-memory message of the library and the tool reads
 * "out of memory: N bytes for WHAT" (with " (1.2 MB)" after WHAT from 1000 bytes on), N the
 * exact size that was refused, behind the prefix (file:line: item:) the message already had.
 *
 * The mechanism: allocate through ld_xmalloc / ld_xcalloc / ld_xrealloc, which on failure
 * record the size and the purpose in a per-thread "last allocation failure"; the code that
 * writes the message (often several calls above, past helpers whose contract is "0, or −1 when
 * out of memory") formats that record with ld_oom_last. Why a per-thread record rather than
 * a struct passed down: the failures are reported far from where they happen — a CSV record
 * buffer grows three calls below the reader that names the file and line, an importer's
 * helper returns −1 to the element reader — and carrying a struct through every such helper
 * would change dozens of prototypes for the sake of the failure path alone. The record is per
 * thread, so threads that allocate in parallel do not read each other's failures, and reading
 * it clears it, so a failure is never reported twice. A refusal that is survived (a fallback
 * that needs no memory) leaves its record until the next message reads it: the messages read
 * the record only right after a refusal.
 */
#ifndef LIEDYN_SRC_CORE_OOM_H
#define LIEDYN_SRC_CORE_OOM_H

#include <stddef.h>

/* malloc(bytes); NULL, with (bytes, what) recorded, when refused. what is a static string
 * ("the row buffer"). */
void *ld_xmalloc(size_t bytes, const char *what);
/* calloc(count, size); NULL with (count · size, what) recorded when refused. */
void *ld_xcalloc(size_t count, size_t size, const char *what);
/* realloc(p, bytes); NULL with (bytes, what) recorded when refused (p is then untouched). */
void *ld_xrealloc(void *p, size_t bytes, const char *what);

/* A copy of the string s; NULL with (strlen(s) + 1, what) recorded when refused. */
char *ld_xstrdup(const char *s, const char *what);

/* Write "out of memory: N bytes for WHAT" (and " (1.2 MB)" from 1000 bytes on) into buf[cap];
 * returns LD_ENOMEM. */
int ld_oom_format(char *buf, size_t cap, double bytes, const char *what);

/* ld_oom_format of this thread's last recorded refusal, which is then cleared; with none
 * recorded (the failure came from another library, which does not say how much it asked for)
 * "out of memory (the size was not reported)". Returns LD_ENOMEM. */
int ld_oom_last(char *buf, size_t cap);

/* Write "out of memory in LIB (which does not report the size it asked for)": for a library
 * (libyaml, libxml2) whose allocations do not pass through ld_x*. Returns LD_ENOMEM. */
int ld_oom_format_lib(char *buf, size_t cap, const char *lib);

/* The last refusal's message as a static per-thread string (for "%s" in a longer message);
 * cleared as by ld_oom_last. */
const char *ld_oom_last_str(void);

#endif
