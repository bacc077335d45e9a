/*
 * liedyn models — the shipped models: each one's name (what `liedyn run NAME` takes) and the
 * `description:` line of its file. The models directory is the first that exists of
 * $LIEDYN_MODELS, ../share/liedyn/models beside the executable (an installed liedyn) and the
 * source tree's models/ the tool was built from.
 */
#define _DEFAULT_SOURCE /* readlink */
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cli.h"
#include "liedyn/model.h"

#ifndef LD_MODELS_DIR
#define LD_MODELS_DIR "models"
#endif

static int is_dir(const char *p) {
    struct stat st;
    return p && p[0] && stat(p, &st) == 0 && S_ISDIR(st.st_mode);
}

const char *cli_models_dir(void) {
    static char dir[4096];
    const char *env = getenv("LIEDYN_MODELS");
    if (is_dir(env)) return env;
    char exe[4096];
    ssize_t n = readlink("/proc/self/exe", exe, sizeof exe - 1);
    if (n > 0) {
        exe[n] = '\0';
        char *slash = strrchr(exe, '/');
        if (slash) {
            *slash = '\0';
            snprintf(dir, sizeof dir, "%.3000s/../share/liedyn/models", exe);
            if (is_dir(dir)) return dir;
        }
    }
    return LD_MODELS_DIR;
}

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
               "the model's description. The directory is the first that exists of\n"
               "$LIEDYN_MODELS, ../share/liedyn/models beside the executable, and the source\n"
               "tree's models/.\n"
               "exit status: 0 ok, 2 bad usage or no models directory\n",
               cli_models_dir());
        return 0;
    }
    if (argc > 0) return cli_error("models: unexpected argument '%s'", argv[0]);
    static char names[256][LD_NAME_MAX];
    int n = 0;
    const char *dir = cli_models_dir();
    DIR *d = opendir(dir);
    if (!d) return cli_error("models: cannot open the models directory %s", dir);
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
    printf("shipped models (%s):\n", dir);
    for (int i = 0; i < n; ++i) {
        char path[4096], desc[400];
        snprintf(path, sizeof path, "%.3900s/%.63s.yaml", dir, names[i]);
        description(path, desc, sizeof desc);
        printf("%-28s %s\n", names[i], desc);
    }
    return 0;
}
