/*
 * liedyn models — the shipped models: each one's name (what `liedyn run NAME` takes) and the
 * `description:` line of its file, from the models directory the tool was built with.
 */
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "liedyn/model.h"

#ifndef LD_MODELS_DIR
#define LD_MODELS_DIR "models"
#endif

static int by_name(const void *a, const void *b) {
    return strcmp((const char *)a, (const char *)b);
}

/* The text of the top-level `description:` of file path (quotes stripped), or "". */
static void description(const char *path, char *out, size_t cap) {
    out[0] = '\0';
    FILE *f = fopen(path, "r");
    if (!f) return;
    char line[512];
    while (fgets(line, sizeof line, f)) {
        if (strncmp(line, "description:", 12) != 0) continue;
        char *s = line + 12;
        while (*s == ' ') ++s;
        size_t n = strcspn(s, "\r\n");
        if (n >= 2 && (s[0] == '"' || s[0] == '\'') && s[n - 1] == s[0]) ++s, n -= 2;
        snprintf(out, cap, "%.*s", (int)n, s);
        break;
    }
    fclose(f);
}

int cli_models(int argc, char **argv) {
    if (argc > 0 && (!strcmp(argv[0], "--help") || !strcmp(argv[0], "-h"))) {
        printf("usage: liedyn models\n"
               "List the shipped models (from %s): the name that 'liedyn run NAME' takes and\n"
               "the model's description.\n",
               LD_MODELS_DIR);
        return 0;
    }
    if (argc > 0) return cli_error("models: unexpected argument '%s'", argv[0]);
    static char names[256][LD_NAME_MAX];
    int n = 0;
    DIR *d = opendir(LD_MODELS_DIR);
    if (!d) return cli_error("models: cannot open the models directory %s", LD_MODELS_DIR);
    struct dirent *e;
    while (n < 256 && (e = readdir(d)) != NULL) {
        size_t len = strlen(e->d_name);
        if (len > 5 && len - 5 < LD_NAME_MAX && !strcmp(e->d_name + len - 5, ".yaml") &&
            e->d_name[0] != '.') {
            memcpy(names[n], e->d_name, len - 5);
            names[n++][len - 5] = '\0';
        }
    }
    closedir(d);
    qsort(names, (size_t)n, sizeof names[0], by_name);
    for (int i = 0; i < n; ++i) {
        char path[4096], desc[400];
        snprintf(path, sizeof path, "%.3900s/%.63s.yaml", LD_MODELS_DIR, names[i]);
        description(path, desc, sizeof desc);
        printf("%-28s %s\n", names[i], desc);
    }
    return 0;
}
