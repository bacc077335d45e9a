/*
 * The YAML model reader, continued (yaml_elements.c): the keys of an element of type `actuator`
 * (docs/actuators.md) — its joint (by name, read before the elements), its input, the input's
 * signal (value and time function, or a CSV table file), gear, gains and limits — packed into
 * the element's parameters (actuator.h). A table file is read here: rows "t, u" (comma,
 * semicolon, tab or blank separated), '#' comments and blank lines skipped, one header line
 * allowed first; a bad row fails with the file and its line.
 */
#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../elements/actuator.h"
#include "liedyn/liedyn.h"
#include "reader.h"
#include "../core/oom.h"

#define CSV_MAX_ROWS 1000000

/* In the YAML `input` words: `table` is the force input with a table file. */
static const char *const inputs[] = {"force", "position", "velocity", "control", "table", NULL};
enum { IN_TABLE = 4 };

/* The path of file `name` relative to the directory of the model file. */
static void resolve(const reader *r, const char *name, char *out, size_t n) {
    const char *slash = r->file ? strrchr(r->file, '/') : NULL;
    if (name[0] == '/' || !slash)
        strf(out, n, "%s", name);
    else
        strf(out, n, "%.*s/%s", (int)(slash - r->file), r->file, name);
}

/* Two numbers of one line into t and u: 1, or 0 when the line is not two numbers. */
static int parse_row(const char *s, double *t, double *u) {
    char *end;
    errno = 0;
    *t = strtod(s, &end);
    if (end == s || errno) return 0;
    s = end;
    while (*s == ' ' || *s == '\t') ++s;
    if (*s == ',' || *s == ';') ++s;
    *u = strtod(s, &end);
    if (end == s || errno) return 0;
    for (s = end; *s; ++s)
        if (!isspace((unsigned char)*s)) return 0;
    return isfinite(*t) && isfinite(*u);
}

/* Append (t, u) to the table of fn (grown by doubling). */
static int push_row(ld_tfn *fn, int *cap, double t, double u) {
    if (fn->ntab == *cap) {
        int nc = *cap ? 2 * *cap : 64;
        double *a = ld_xrealloc(fn->tab_t, (size_t)nc * sizeof *a, "the actuator's table");
        if (!a) return LD_ENOMEM;
        fn->tab_t = a;
        double *b = ld_xrealloc(fn->tab_f, (size_t)nc * sizeof *b, "the actuator's table");
        if (!b) return LD_ENOMEM;
        fn->tab_f = b;
        *cap = nc;
    }
    fn->tab_t[fn->ntab] = t, fn->tab_f[fn->ntab] = u;
    fn->ntab++;
    return LD_OK;
}

/* The rows of the open file fp (called path) into fn; line is the YAML key's line. */
static int read_rows(reader *r, FILE *fp, const char *path, int line, ld_tfn *fn) {
    char buf[512];
    int lno = 0, cap = 0, rc = LD_OK, seen = 0;
    while (!rc && fgets(buf, sizeof buf, fp)) {
        ++lno;
        size_t len = strlen(buf);
        if (len == sizeof buf - 1 && buf[len - 1] != '\n')
            return ly_fail(r, line, "%s:%d: the line is longer than %d bytes", path, lno,
                           (int)sizeof buf - 2);
        char *s = buf;
        while (isspace((unsigned char)*s)) ++s;
        if (*s == '\0' || *s == '#') continue;
        double t, u;
        s[strcspn(s, "\r\n")] = '\0';
        if (!parse_row(s, &t, &u)) {
            if (!seen++ && isalpha((unsigned char)*s)) continue; /* a header */
            return ly_fail(r, line, "%s:%d: expected two finite numbers 't, u', found '%.40s'",
                           path, lno, s);
        }
        seen = 1;
        if (fn->ntab > 0 && !(t > fn->tab_t[fn->ntab - 1]))
            return ly_fail(r, line, "%s:%d: times must increase strictly (%.17g after %.17g)", path,
                           lno, t, fn->tab_t[fn->ntab - 1]);
        if (fn->ntab >= CSV_MAX_ROWS)
            return ly_fail(r, line, "%s:%d: more than %d rows", path, lno, CSV_MAX_ROWS);
        if (push_row(fn, &cap, t, u)) rc = ly_out_of_memory(r, line);
    }
    if (!rc && fn->ntab < 2)
        rc = ly_fail(r, line, "%s: a table needs at least 2 rows 't, u', found %d", path, fn->ntab);
    return rc;
}

/* The table file under key `file` into fn (kind LD_TFN_TABLE, tables allocated). */
static int read_file(reader *r, const yaml_node_t *n, ld_tfn *fn) {
    char name[LD_NAME_MAX * 4], path[1024];
    field f;
    size_t mark = ly_push_key(r, "file");
    int rc = ly_lookup(r, n, "file", 1, &f);
    if (!rc && (f.val->type != YAML_SCALAR_NODE || f.val->data.scalar.length >= sizeof name ||
                f.val->data.scalar.length == 0))
        rc = ly_fail(r, f.line, "must be a file name (shorter than %d bytes)", (int)sizeof name);
    if (!rc) {
        memcpy(name, f.val->data.scalar.value, f.val->data.scalar.length);
        name[f.val->data.scalar.length] = '\0';
        resolve(r, name, path, sizeof path);
        FILE *fp = fopen(path, "r");
        if (!fp)
            rc = ly_fail(r, f.line, "cannot open '%s': %s", path, strerror(errno));
        else {
            fn->kind = LD_TFN_TABLE;
            rc = read_rows(r, fp, path, f.line, fn);
            fclose(fp);
        }
    }
    ly_pop(r, mark);
    return rc;
}

/* The joint named under `joint`: its index. */
static int read_joint(reader *r, const yaml_node_t *n, const ld_model *m, int *joint) {
    char name[LD_NAME_MAX];
    field f;
    size_t mark = ly_push_key(r, "joint");
    int rc = ly_lookup(r, n, "joint", 1, &f);
    if (!rc) rc = ly_read_name(r, f.val, f.line, name, 0);
    if (!rc && (*joint = ld_model_joint_find(m, name)) < 0)
        rc = ly_fail(r, f.line, "no joint named '%s'", name);
    if (!rc && m->joints[*joint].kind != LD_JOINT_REVOLUTE &&
        m->joints[*joint].kind != LD_JOINT_PRISMATIC)
        rc = ly_fail(r, f.line, "joint '%s' is %s: an actuator needs a revolute or prismatic joint",
                     name, ld_joint_kind_name(m->joints[*joint].kind));
    ly_pop(r, mark);
    return rc;
}

/* [lo, hi] under key (both given; .inf allowed). */
static int read_limits(reader *r, const yaml_node_t *n, const char *key, double lim[2]) {
    return ly_get_vec(r, n, key, 0, lim, 2, NULL);
}

/* A key that the input does not take. */
static int refuse(reader *r, const yaml_node_t *n, const char *key, const char *input) {
    field f;
    size_t mark = ly_push_key(r, key);
    int rc = ly_lookup(r, n, key, 0, &f);
    if (!rc && f.val) rc = ly_fail(r, f.line, "not a key of input '%s'", input);
    ly_pop(r, mark);
    return rc;
}

/* The signal of the input: value and time function, or a table file. */
static int read_signal(reader *r, const yaml_node_t *n, int in, ld_actuator_spec *s) {
    field f;
    size_t mark = ly_push_key(r, "file");
    int rc = ly_lookup(r, n, "file", 0, &f), has_file = f.val != NULL;
    ly_pop(r, mark);
    if (rc) return rc;
    if (in == LD_ACT_CONTROL || s->from_control) {
        const char *no[] = {"value", "time", "file"};
        for (int i = 0; !rc && i < 3; ++i)
            rc = refuse(r, n, no[i], s->from_control ? "with reference 'control'" : inputs[in]);
        return rc;
    }
    if ((rc = ly_get_number(r, n, "value", 0, &s->value))) return rc;
    if (in == IN_TABLE && !has_file) return read_file(r, n, &s->fn); /* fails: required */
    if (has_file) {
        if ((rc = refuse(r, n, "time", "with a file"))) return rc;
        return read_file(r, n, &s->fn);
    }
    return ly_read_time(r, n, &s->fn);
}

int ly_read_actuator(reader *r, const yaml_node_t *n, const ld_model *m, ld_element *el) {
    ld_actuator_spec s;
    int joint = -1, in = 0, rc;
    ld_actuator_spec_init(&s);
    if ((rc = read_joint(r, n, m, &joint))) return rc;
    if ((rc = ly_get_choice(r, n, "input", 1, inputs, &in))) return rc;
    s.input = in == IN_TABLE ? LD_ACT_FORCE : (ld_actuator_input)in;
    if (in != LD_ACT_POSITION && (rc = refuse(r, n, "kp", inputs[in]))) return rc;
    if (in != LD_ACT_POSITION && in != LD_ACT_VELOCITY && (rc = refuse(r, n, "kv", inputs[in])))
        return rc;
    static const char *const refs[] = {"time", "control", NULL};
    int ref = 0;
    if ((in == LD_ACT_POSITION || in == LD_ACT_VELOCITY) &&
        (rc = ly_get_choice(r, n, "reference", 0, refs, &ref)))
        return rc;
    if (in != LD_ACT_POSITION && in != LD_ACT_VELOCITY &&
        (rc = refuse(r, n, "reference", inputs[in])))
        return rc;
    s.from_control = ref == 1;
    rc = read_signal(r, n, in, &s);
    if (!rc) rc = ly_get_number(r, n, "gear", 0, &s.gear);
    if (!rc) rc = ly_get_number(r, n, "kp", 0, &s.kp);
    if (!rc) rc = ly_get_number(r, n, "kv", 0, &s.kv);
    if (!rc) rc = read_limits(r, n, "force_limits", s.force_limits);
    if (!rc) rc = read_limits(r, n, "ctrl_limits", s.ctrl_limits);
    if (!rc && ld_act_pack(joint, &s, &el->par, &el->npar)) rc = ly_out_of_memory(r, ly_line_of(n));
    free(s.fn.tab_t);
    free(s.fn.tab_f);
    if (rc) return rc;
    el->body1 = m->joints[joint].body1;
    el->body2 = m->joints[joint].body2;
    return LD_OK;
}
