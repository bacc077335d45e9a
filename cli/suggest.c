/* Did-you-mean for the command line (cli.h): the nearest of a list of names to a mistyped word. */
#include <string.h>

#include "cli.h"

#define WORD_MAX 64

/* The optimal-string-alignment distance of a and b (insertions, deletions, substitutions and
 * transpositions of neighbours, each 1); words longer than WORD_MAX count as far apart. */
static int distance(const char *a, const char *b) {
    size_t n = strlen(a), m = strlen(b);
    if (n > WORD_MAX || m > WORD_MAX) return WORD_MAX;
    int d[WORD_MAX + 1][WORD_MAX + 1];
    for (size_t i = 0; i <= n; ++i) d[i][0] = (int)i;
    for (size_t j = 0; j <= m; ++j) d[0][j] = (int)j;
    for (size_t i = 1; i <= n; ++i)
        for (size_t j = 1; j <= m; ++j) {
            int c = a[i - 1] != b[j - 1], v = d[i - 1][j - 1] + c;
            if (d[i - 1][j] + 1 < v) v = d[i - 1][j] + 1;
            if (d[i][j - 1] + 1 < v) v = d[i][j - 1] + 1;
            if (i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1] &&
                d[i - 2][j - 2] + 1 < v)
                v = d[i - 2][j - 2] + 1;
            d[i][j] = v;
        }
    return d[n][m];
}

const char *cli_closest(const char *word, const char *const *names, int n) {
    if (!word) return NULL;
    int lim = (int)strlen(word) / 3, best = lim + 1;
    if (lim < 1) lim = 1, best = 2;
    const char *who = NULL;
    for (int i = 0; i < n; ++i) {
        if (!names[i]) continue;
        int dd = distance(word, names[i]);
        if (dd < best) best = dd, who = names[i];
    }
    return who;
}
