/*
 * The paths of a sweep file checked against the model before any case runs (sweep.h,
 * sweep_check_paths): a mistyped last key (`bodies[0].mas`) would otherwise be added to every
 * case's model and fail each case alone as bad_parameter.
 */
#define _POSIX_C_SOURCE 200809L
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "liedyn/liedyn.h"
#include "sweep.h"
#include "../src/core/oom.h"

#define CANDIDATES_MAX 64

/* The names listed in a reader's message after "expected one of: " (up to ')') into buf, split
 * into names[]; their number. */
static int expected_names(const char *msg, char *buf, size_t cap, const char **names) {
    const char *p = strstr(msg, "expected one of: ");
    if (!p) return 0;
    snprintf(buf, cap, "%s", p + strlen("expected one of: "));
    buf[strcspn(buf, ")")] = '\0';
    int n = 0;
    for (char *s = buf; *s && n < CANDIDATES_MAX;) {
        names[n++] = s;
        char *c = strstr(s, ", ");
        if (!c) break;
        *c = '\0';
        s = c + 2;
    }
    return n;
}

/* Path set to value in the base model (with the fixed overrides), the model read: 0, or 2 with
 * "FILE:LINE: KEY: PATH: unknown key …" printed when the reader refuses the path's last key. */
static int check_one(const sweep *sw, const char *key, const char *path, const char *value,
                     int line) {
    sw_set probe;
    snprintf(probe.path, sizeof probe.path, "%s", path);
    probe.value = ld_xstrdup(value, "a parameter's value");
    if (!probe.value) return cli_error("%s: %s", key, ld_oom_last_str());
    probe.line = line;
    char *text = NULL, why[512];
    size_t len = 0;
    int bad = sweep_case_text(sw, -1, &probe, 1, &text, &len, why, sizeof why);
    free(probe.value);
    if (bad && strncmp(why, "out of memory", 13) == 0) return cli_error("%s: %s", key, why);
    if (bad) return 0;
    ld_model m;
    ld_model_error err;
    memset(&err, 0, sizeof err);
    int rc = ld_model_parse(text, len, sw->model_path, &m, &err);
    free(text);
    if (rc == LD_ENOMEM) return cli_error("%s", err.msg);
    if (rc == LD_OK) {
        ld_model_free(&m);
        return 0;
    }
    if (strcmp(err.key, path) != 0 ||
        (!strstr(err.msg, ": unknown key (") && !strstr(err.msg, ": key not allowed")))
        return 0; /* a bad value: that case's status, not the sweep file's error */
    const char *last = strrchr(path, '.');
    last = last ? last + 1 : path;
    char buf[sizeof err.msg];
    const char *names[CANDIDATES_MAX];
    int n = expected_names(err.msg, buf, sizeof buf, names);
    const char *near = cli_closest(last, names, n);
    char hint[128] = "";
    if (near) snprintf(hint, sizeof hint, "did you mean '%s'? ", near);
    const char *list = strstr(err.msg, "expected one of: ");
    return cli_error("%s:%d: %s: %s: the model format has no key '%s' there (%s%s", sw->file, line,
                     key, path, last, hint, list ? list : "see docs/model-format.md)");
}

/* The first value a case gives parameter k (YAML text into buf). */
static void first_value(const sweep *sw, int k, char *buf, size_t cap) {
    const sw_param *p = &sw->params[k];
    buf[0] = '\0';
    for (long i = 0; !buf[0] && i < (p->kind == SW_LIST ? p->nvalues : 1); ++i)
        sweep_case_value(sw, i, k, buf, cap);
}

int sweep_check_paths(const sweep *sw) {
    static const char *const section[] = {"vary", "cases", "random", "random", "random"};
    char val[4096];
    for (int k = 0; k < sw->nparams; ++k) {
        first_value(sw, k, val, sizeof val);
        if (val[0] &&
            check_one(sw, section[sw->params[k].kind], sw->params[k].path, val, sw->params[k].line))
            return 2;
    }
    for (int k = 0; k < sw->nset; ++k)
        if (check_one(sw, "set", sw->set[k].path, sw->set[k].value, sw->set[k].line)) return 2;
    for (int k = 0; k < sw->nref; ++k)
        if (check_one(sw, "reference", sw->ref[k].path, sw->ref[k].value, sw->ref[k].line))
            return 2;
    return 0;
}
