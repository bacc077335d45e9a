/*
 * Internal to the library (src/io; the liedyn tool uses it too): CSV fields and records after
 * RFC 4180 (Shafranovich, "Common Format and MIME Type for Comma-Separated Values (CSV) Files",
 * 2005). A field that holds a comma, a double quote, a CR or an LF is written between double
 * quotes, with each double quote doubled; any other field is written as it is. The reader
 * takes both forms, quoted fields across line ends included, and records ended by LF, CRLF or
 * the end of the file, so it reads back every field the writer writes.
 */
#ifndef LIEDYN_IO_CSV_H
#define LIEDYN_IO_CSV_H

#include <stddef.h>
#include <stdio.h>

/* The longest record the reader takes (bytes): beyond it a file is refused, not read into
 * memory without bound. */
#define LD_IO_CSV_MAX_RECORD ((size_t)64 << 20)

/* s as one CSV field into out (cap bytes, NUL-terminated), quoted when it needs to be. Returns
 * the field's length, or -1 when it does not fit (out then holds ""). */
int ld_io_csv_field(const char *s, char *out, size_t cap);

/* ",OWNER.SUFFIX" for each of suffix[0 .. n−1], each name a CSV field (header lines written
 * with stdio). OWNER is at most LD_NAME_MAX − 1 bytes (a name of the model), a suffix at most
 * 23. */
void ld_io_csv_put_names(FILE *f, const char *owner, const char *const *suffix, int n);

/* A record read by ld_io_csv_read: n fields, field[i] NUL-terminated (inside text). */
typedef struct ld_io_csv_record {
    char *text; /* the fields' bytes, each followed by a NUL */
    size_t len, cap;
    char **field;  /* n pointers into text (valid until the next read or free) */
    size_t *start; /* n offsets into text */
    int n, fcap;
    long line;      /* the file line the record starts on (1 for the first) */
    long next_line; /* the line the next record starts on */
} ld_io_csv_record;

/* Read the next record of f into r (r zeroed before the first read; r->next_line 0 or 1 at the
 * start of the file). 1: a record; 0: the end of the file (no record); −1: a malformed record
 * or a read error, with the reason in why ("line 4: field 2 opens a quote that is not
 * closed", "line 2: a NUL byte", "line 9: a character after the closing quote of field 3",
 * "line 7: a record longer than 67108864 bytes", "out of memory", "read error: …"). A record
 * that ends at the end of the file without a line end counts as a record. */
int ld_io_csv_read(FILE *f, ld_io_csv_record *r, char *why, size_t cap);
void ld_io_csv_record_free(ld_io_csv_record *r);

#endif
