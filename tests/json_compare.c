/*
 * json_compare EXPECTED ACTUAL [IGNORED_KEY...] — compare two flat JSON texts token by token:
 * strings and keys must be equal, numbers equal within a relative 1e-9 (absolute 1e-300);
 * the values of ignored keys (e.g. timings) are skipped. Exit 0 when they match, else 1 with
 * the first difference on stderr.
 */
#include <ctype.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct tok {
    int kind; /* 's' string, 'n' number, 'p' punctuation/literal, 0 end */
    char text[256];
    double num;
} tok;

static char *slurp(const char *path) {
    FILE *f = fopen(path, "rb");
    if (!f) return NULL;
    fseek(f, 0, SEEK_END);
    long n = ftell(f);
    fseek(f, 0, SEEK_SET);
    char *s = malloc((size_t)n + 1);
    if (s && fread(s, 1, (size_t)n, f) != (size_t)n) n = 0;
    if (s) s[n] = '\0';
    fclose(f);
    return s;
}

/* Read the next token at *p. */
static tok next(const char **p) {
    tok t = {0, "", 0.0};
    const char *s = *p;
    while (isspace((unsigned char)*s)) ++s;
    if (!*s) {
        *p = s;
        return t;
    }
    if (*s == '"') {
        size_t k = 0;
        ++s;
        while (*s && *s != '"' && k + 1 < sizeof t.text) t.text[k++] = *s++;
        if (*s == '"') ++s;
        t.kind = 's';
    } else if (*s == '-' || isdigit((unsigned char)*s)) {
        char *end;
        t.num = strtod(s, &end);
        snprintf(t.text, sizeof t.text, "%.*s", (int)(end - s), s);
        s = end;
        t.kind = 'n';
    } else if (isalpha((unsigned char)*s)) {
        size_t k = 0;
        while (isalpha((unsigned char)*s) && k + 1 < sizeof t.text) t.text[k++] = *s++;
        t.kind = 'p';
    } else {
        t.text[0] = *s++;
        t.kind = 'p';
    }
    *p = s;
    return t;
}

/* Skip one value (number, string, literal or bracketed array/object). */
static void skip_value(const char **p) {
    tok t = next(p);
    if (t.kind == 'p' && (t.text[0] == '[' || t.text[0] == '{')) {
        int depth = 1;
        while (depth > 0) {
            t = next(p);
            if (t.kind == 0) return;
            if (t.kind == 'p' && (t.text[0] == '[' || t.text[0] == '{')) ++depth;
            if (t.kind == 'p' && (t.text[0] == ']' || t.text[0] == '}')) --depth;
        }
    }
}

/* 0 when the texts a and b match, 1 with a message otherwise. */
static int compare(const char *a, const char *b, int argc, char **argv) {
    const char *pa = a, *pb = b;
    char key[256] = "";
    for (;;) {
        tok x = next(&pa), y = next(&pb);
        if (x.kind != y.kind) {
            fprintf(stderr, "json_compare: after key '%s': expected '%s', got '%s'\n", key, x.text,
                    y.text);
            return 1;
        }
        if (x.kind == 0) return 0;
        if (x.kind == 'n') {
            double tol = fmax(1e-300, 1e-9 * fmax(fabs(x.num), fabs(y.num)));
            if (!(fabs(x.num - y.num) <= tol)) {
                fprintf(stderr, "json_compare: '%s': expected %s, got %s\n", key, x.text, y.text);
                return 1;
            }
        } else if (strcmp(x.text, y.text) != 0) {
            fprintf(stderr, "json_compare: after key '%s': expected '%s', got '%s'\n", key, x.text,
                    y.text);
            return 1;
        }
        if (x.kind == 's') {
            const char *qa = pa;
            tok colon = next(&qa);
            if (colon.kind == 'p' && colon.text[0] == ':') {
                snprintf(key, sizeof key, "%s", x.text);
                for (int i = 3; i < argc; ++i) {
                    if (strcmp(key, argv[i]) == 0) {
                        next(&pa);
                        next(&pb);
                        skip_value(&pa);
                        skip_value(&pb);
                    }
                }
            }
        }
    }
}

int main(int argc, char **argv) {
    if (argc < 3) {
        fprintf(stderr, "usage: json_compare EXPECTED ACTUAL [IGNORED_KEY...]\n");
        return 2;
    }
    char *a = slurp(argv[1]), *b = slurp(argv[2]);
    int rc = 2;
    if (!a || !b)
        fprintf(stderr, "json_compare: cannot read %s\n", !a ? argv[1] : argv[2]);
    else
        rc = compare(a, b, argc, argv);
    free(a);
    free(b);
    return rc;
}
