/*
 * CSV fields and records after RFC 4180 (src/io/csv.h): the writer quotes exactly the fields
 * that need it, the reader takes quoted fields across line ends, LF and CRLF, a last record
 * without a line end, and refuses malformed records naming the line; the reader of a run's CSV
 * (ld_io_view_csv) reads a header of any length.
 */
#define _POSIX_C_SOURCE 200809L
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "support.h"

#include "csv.h"
#include "liedyn/liedyn.h"
#include "view.h"

static void test_field(void **state) {
    (void)state;
    char out[64];
    assert_int_equal(ld_io_csv_field("top.x", out, sizeof out), 5);
    assert_string_equal(out, "top.x");
    assert_int_equal(ld_io_csv_field("a,b.x", out, sizeof out), 7);
    assert_string_equal(out, "\"a,b.x\"");
    assert_int_equal(ld_io_csv_field("say \"hi\"", out, sizeof out), 12);
    assert_string_equal(out, "\"say \"\"hi\"\"\"");
    assert_int_equal(ld_io_csv_field("a\nb\rc", out, sizeof out), 7);
    assert_string_equal(out, "\"a\nb\rc\"");
    assert_int_equal(ld_io_csv_field("", out, sizeof out), 0);
    assert_int_equal(ld_io_csv_field("a,b", out, 6), 5); /* "a,b" quoted + NUL fits exactly */
    assert_int_equal(ld_io_csv_field("a,b", out, 5), -1);
    assert_string_equal(out, "");
}

/* The records of text (len bytes) into got (fields joined by '|', records by '/'); the status
 * of the last read and its reason. */
static int read_all(const char *text, size_t len, char *got, size_t cap, char *why, long *line) {
    FILE *f = fmemopen((void *)(uintptr_t)text, len, "rb");
    assert_non_null(f);
    ld_io_csv_record r = {0};
    int rc;
    got[0] = '\0';
    while ((rc = ld_io_csv_read(f, &r, why, 128)) == 1) {
        for (int i = 0; i < r.n; ++i) {
            strncat(got, r.field[i], cap - strlen(got) - 1);
            strncat(got, i + 1 < r.n ? "|" : "/", cap - strlen(got) - 1);
        }
        *line = r.line;
    }
    ld_io_csv_record_free(&r);
    fclose(f);
    return rc;
}

static void expect(const char *text, size_t len, const char *want, int want_rc,
                   const char *want_why) {
    char got[512], why[128] = "";
    long line = 0;
    int rc = read_all(text, len, got, sizeof got, why, &line);
    if (rc != want_rc || strcmp(got, want) != 0 || (want_why && !strstr(why, want_why)))
        fail_msg("'%s': rc %d (want %d), records '%s' (want '%s'), why '%s' (want '%s')", text, rc,
                 want_rc, got, want, why, want_why ? want_why : "");
}

#define EXPECT(text, want, rc, why) expect(text, sizeof text - 1, want, rc, why)

static void test_records(void **state) {
    (void)state;
    EXPECT("t,a.x\n0,1\n", "t|a.x/0|1/", 0, NULL);
    EXPECT("t,a.x\r\n0,1\r\n", "t|a.x/0|1/", 0, NULL);
    EXPECT("t,a.x\n0,1", "t|a.x/0|1/", 0, NULL); /* no line end at the end */
    EXPECT("t,\"a,b \"\"q\"\"\nline.x\"\n0,1\n", "t|a,b \"q\"\nline.x/0|1/", 0, NULL);
    EXPECT("\"\",x,\n\n", "|x|//", 0, NULL); /* an empty line: one empty field */
    EXPECT("", "", 0, NULL);
    EXPECT("a\"b,c\n", "a\"b|c/", 0, NULL); /* a quote inside an unquoted field is data */
    /* refusals name the line: a quoted line break moves the count on */
    EXPECT("t\n\"a\nb\",\"c\n", "t/", -1, "line 2: field 2 opens a quote that is not closed");
    EXPECT("t\n\"a\nb\"x\n", "t/", -1, "line 3: a character after the closing quote of field 1");
    EXPECT("t\n\"a\nb\",c\nd\0e\n", "t/a\nb|c/", -1, "line 4: a NUL byte");
    EXPECT("t\n\"a\r\"\rx\n", "t/", -1, "line 2: a character after the closing quote");
}

/* A CSV with header head (a run of the heavy top) and two rows: ld_io_view_csv's status. */
static int view_with_header(const ld_model *m, const char *head) {
    size_t cap = strlen(head) + 1024;
    char *text = malloc(cap);
    assert_non_null(text);
    int nextra = 0;
    for (const char *p = head; *p; ++p) nextra += *p == ',';
    snprintf(text, cap, "%s\n", head);
    for (int r = 0; r < 2; ++r) {
        snprintf(text + strlen(text), cap - strlen(text), "%d", r);
        for (int i = 0; i < nextra; ++i) strcat(text, i == 3 ? ",1" : ",0"); /* qw = 1 */
        strcat(text, "\n");
    }
    FILE *f = fmemopen(text, strlen(text), "rb");
    assert_non_null(f);
    view_frames F;
    double t0, t1;
    char why[256];
    int rc = ld_io_view_csv(f, "run.csv", m, 10, &F, &t0, &t1, why, sizeof why);
    if (rc == LD_OK) {
        assert_int_equal(F.n, 2);
        assert_true(t0 == 0.0 && t1 == 1.0);
        ld_io_frames_free(&F);
    }
    fclose(f);
    free(text);
    return rc;
}

/* Headers at and around the size of the fixed buffer of the reader before (64 + 520 (13 nb + 64
 * + 12 nj) bytes): 3 bytes short of it made that reader loop for ever. */
static void test_view_header_lengths(void **state) {
    (void)state;
    ld_model m;
    ld_model_error err;
    static const char model[] =
        "bodies:\n  - {name: top, mass: 1, inertia: [1, 1, 1], position: [0, 1, 0]}\n"
        "joints:\n  - {name: pivot, type: spherical, body: top, point: [0, -1, 0],"
        " ground: [0, 0, 0]}\n";
    assert_int_equal(ld_model_parse(model, sizeof model - 1, "m.yaml", &m, &err), LD_OK);
    const char *base = "t,top.x,top.y,top.z,top.qw,top.qx,top.qy,top.qz";
    size_t old = 64 + 520 * (13 * 1 + 64 + 12 * 1);
    for (size_t len = old - 6; len <= old + 2; ++len) {
        char *head = malloc(len + 1);
        assert_non_null(head);
        size_t bl = strlen(base);
        memcpy(head, base, bl);
        head[bl] = ',';
        memset(head + bl + 1, 'p', len - bl - 1);
        head[len] = '\0';
        if (view_with_header(&m, head) != LD_OK) fail_msg("a header of %zu bytes refused", len);
        free(head);
    }
    assert_int_equal(view_with_header(&m, "t,top.x"), LD_EINVAL); /* top.y … missing */
    ld_model_free(&m);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_field),
        cmocka_unit_test(test_records),
        cmocka_unit_test(test_view_header_lengths),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
