/*
 * MJCF's <include> (docs/import.md): a model split over five files — settings, a default class,
 * the upper body with the lower one included inside it (a nested include, in a body), the
 * actuators — translates to the very YAML text of the same model in one file
 * (tests/data/import/double-pendulum.xml), the comments aside; several top-level <default>
 * sections act as one class main whose last setting counts; every error and warning about an
 * included element names the included file and its own line; a missing file, a file included
 * twice, a cycle, a file with nothing to include and an include without a file are refused at
 * the include's line; and MuJoCo's own sample models that use includes (libmujoco-samples)
 * import and run when they are installed.
 */
#define _POSIX_C_SOURCE 200809L
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "support.h"

#include "liedyn/import.h"
#include "liedyn/integrator.h"
#include "liedyn/liedyn.h"
#include "liedyn/model.h"
#include "liedyn/system.h"

#ifndef LD_SOURCE_DIR
#define LD_SOURCE_DIR "."
#endif
#define DATA LD_SOURCE_DIR "/tests/data/import/"

static char dir[64];

/* dir/rel (a static buffer: one path at a time). */
static const char *at(const char *rel) {
    static char p[256];
    snprintf(p, sizeof p, "%s/%s", dir, rel);
    return p;
}

/* Write text to dir/rel. */
static void put(const char *rel, const char *text) {
    FILE *f = fopen(at(rel), "w");
    assert_non_null(f);
    fputs(text, f);
    fclose(f);
}

static int setup(void **state) {
    (void)state;
    snprintf(dir, sizeof dir, "/tmp/liedyn_include_XXXXXX");
    if (!mkdtemp(dir)) return -1;
    return mkdir(at("parts"), 0700);
}

static int teardown(void **state) {
    (void)state;
    char cmd[128];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
    return system(cmd) == 0 ? 0 : -1;
}

/* The YAML text of path without its comments and its description (which name the file). */
static char *yaml_of(const char *path) {
    char *y = NULL;
    size_t len = 0;
    ld_model_error err;
    int rc = ld_import_translate(path, NULL, &y, &len, &err, NULL);
    if (rc) printf("%s\n", err.msg);
    assert_int_equal(rc, LD_OK);
    char *out = malloc(len + 1), *o = out;
    assert_non_null(out);
    for (char *line = strtok(y, "\n"); line; line = strtok(NULL, "\n")) {
        if (!strncmp(line, "description:", 12)) continue;
        char *hash = strstr(line, "   #");
        size_t n = hash ? (size_t)(hash - line) : strlen(line);
        if (line[0] == '#' || n == 0) continue;
        memcpy(o, line, n);
        o += n;
        *o++ = '\n';
    }
    *o = '\0';
    free(y);
    return out;
}

/* The double pendulum of double-pendulum.xml over five files (paths relative to the main
 * file's directory, also in the nested include). */
static void write_split(void) {
    put("main.xml", "<mujoco model=\"double-pendulum\">\n"
                    "  <default><joint damping=\"3\"/></default>\n"
                    "  <include file=\"parts/settings.xml\"/>\n"
                    "  <worldbody>\n"
                    "    <include file=\"parts/upper.xml\"/>\n"
                    "  </worldbody>\n"
                    "  <include file=\"parts/actuators.xml\"/>\n"
                    "</mujoco>\n");
    put("parts/settings.xml", "<mujoco>\n"
                              "  <compiler angle=\"radian\"/>\n"
                              "  <option gravity=\"0 0 -9.81\"/>\n"
                              "  <default>\n"
                              "    <joint damping=\"0\"/>\n"
                              "    <default class=\"damped\"><joint damping=\"0.05\"/></default>\n"
                              "  </default>\n"
                              "</mujoco>\n");
    put("parts/upper.xml",
        "<mujoco>\n"
        "  <body name=\"upper\" pos=\"0 0 2\" euler=\"0 1 0\">\n"
        "    <joint name=\"shoulder\" class=\"damped\" type=\"hinge\" axis=\"0 1 0\"/>\n"
        "    <inertial pos=\"0 0 -0.5\" mass=\"1\" diaginertia=\"0.0845 0.0845 0.002\"/>\n"
        "    <geom type=\"cylinder\" fromto=\"0 0 0 0 0 -1\" size=\"0.03\" rgba=\"0.8 0.2 0.2 "
        "1\"/>\n"
        "    <include file=\"parts/lower.xml\"/>\n"
        "  </body>\n"
        "</mujoco>\n");
    put("parts/lower.xml",
        "<lower>\n"
        "  <body name=\"lower\" pos=\"0 0 -1\" euler=\"0 0.5 0\">\n"
        "    <joint name=\"elbow\" axis=\"0 1 0\" range=\"-2 2\"/>\n"
        "    <inertial pos=\"0 0 -0.4\" mass=\"0.5\" diaginertia=\"0.03 0.03 0.001\"/>\n"
        "    <geom type=\"sphere\" pos=\"0 0 -0.4\" size=\"0.05\"/>\n"
        "  </body>\n"
        "</lower>\n");
    put("parts/actuators.xml", "<mujoco><actuator>\n"
                               "  <motor name=\"elbow-motor\" joint=\"elbow\" gear=\"1\"/>\n"
                               "</actuator></mujoco>\n");
}

/* The split model is the one-file model: the same YAML text, line for line. */
static void test_same_model(void **state) {
    (void)state;
    write_split();
    char *a = yaml_of(at("main.xml")), *b = yaml_of(DATA "double-pendulum.xml");
    if (strcmp(a, b)) printf("split:\n%s\none file:\n%s\n", a, b);
    assert_string_equal(a, b);
    printf("five files, one model: %zu bytes of YAML, equal to double-pendulum.xml's\n", strlen(a));
    free(a), free(b);
    ld_model m;
    ld_model_error err;
    ld_import_report rep;
    assert_int_equal(ld_model_import(at("main.xml"), &m, &err, &rep), LD_OK);
    assert_int_equal(m.nbodies, 2);
    assert_int_equal(m.njoints, 2);
    assert_int_equal(m.nelements, 2); /* the shoulder's damper (0.05), the elbow's motor */
    assert_true(m.elements[0].par[1] == 0.05);
    int seen = 0; /* the elbow's range, reported at its own file's line */
    for (int i = 0; i < rep.nwarn; ++i) {
        const ld_import_warning *w = &rep.warn[i];
        printf("  %s:%d: %s: %s\n", w->file, w->line, w->element, w->msg);
        if (strstr(w->msg, "ranges of 1 joint")) {
            assert_string_equal(w->file, at("parts/lower.xml"));
            assert_int_equal(w->line, 3);
            ++seen;
        }
    }
    assert_int_equal(seen, 1);
    /* items of included files carry no line in the model (it has one source file) */
    for (int j = 0; j < m.njoints; ++j) assert_int_equal(m.joints[j].line, 0);
    ld_import_report_free(&rep);
    ld_model_free(&m);
}

/* Two top-level <default> sections, the second from an included file: a class nested in the
 * first copies the first as it is declared (damping 3, as MuJoCo 2.2.2 compiles it), while
 * the class main takes the last setting (7). */
static void test_default_sections(void **state) {
    (void)state;
    put("d.xml", "<mujoco>\n<default><joint damping='3'/><default class='a'/></default>\n"
                 "<include file='parts/later.xml'/>\n<worldbody>\n"
                 "<body name='b1'><joint name='j1' class='a' axis='0 1 0'/>"
                 "<geom size='0.1'/></body>\n"
                 "<body name='b2' pos='1 0 0'><joint name='j2' axis='0 1 0'/>"
                 "<geom size='0.1'/></body>\n</worldbody>\n</mujoco>\n");
    put("parts/later.xml", "<mujoco><default><joint damping='7'/></default></mujoco>\n");
    ld_model m;
    ld_model_error err;
    int rc = ld_model_import(at("d.xml"), &m, &err, NULL);
    if (rc) printf("%s\n", err.msg);
    assert_int_equal(rc, LD_OK);
    assert_int_equal(m.nelements, 2);
    printf("dampers: %s %g, %s %g\n", m.elements[0].name, m.elements[0].par[1], m.elements[1].name,
           m.elements[1].par[1]);
    assert_true(m.elements[0].par[1] == 3.0 && m.elements[1].par[1] == 7.0);
    ld_model_free(&m);
}

/* Bodies nested through a chain of five files, 240 deep each (libxml2 stops one file at 256):
 * refused at the element past MJ_DEPTH_MAX (1000) instead of running out of stack. */
static void test_deep_chain(void **state) {
    (void)state;
    size_t cap = 64 * 1024;
    char *t = malloc(cap), name[32], next[64];
    assert_non_null(t);
    for (int f = 0; f < 5; ++f) {
        size_t n = (size_t)snprintf(t, cap, "<mujoco>%s\n", f ? "" : "<worldbody>");
        for (int d = 0; d < 240; ++d)
            n += (size_t)snprintf(t + n, cap - n, "<body><geom size='0.1'/>\n");
        snprintf(next, sizeof next, "<include file='parts/deep%d.xml'/>\n", f + 1);
        n += (size_t)snprintf(t + n, cap - n, "%s", f < 4 ? next : "");
        for (int d = 0; d < 240; ++d) n += (size_t)snprintf(t + n, cap - n, "</body>");
        snprintf(t + n, cap - n, "%s</mujoco>\n", f ? "" : "</worldbody>");
        snprintf(name, sizeof name, f ? "parts/deep%d.xml" : "deep%d.xml", f);
        put(name, t);
    }
    free(t);
    ld_model m;
    ld_model_error err;
    assert_int_equal(ld_model_import(at("deep0.xml"), &m, &err, NULL), LD_EINVAL);
    printf("  %s\n", err.msg);
    assert_non_null(strstr(err.msg, "nested deeper than 1000"));
    assert_non_null(strstr(err.file, "parts/deep4.xml"));
}

/* dir/main_rel's import fails with code, the message at dir/file_rel:line holding part. */
static void expect(const char *main_rel, int code, const char *file_rel, int line,
                   const char *part) {
    char path[256], head[300];
    snprintf(path, sizeof path, "%s", at(main_rel));
    snprintf(head, sizeof head, "%s:%d: ", at(file_rel), line);
    ld_model m;
    ld_model_error err;
    int rc = ld_model_import(path, &m, &err, NULL);
    printf("  %s\n", err.msg);
    assert_int_equal(rc, code);
    assert_string_equal(err.file, at(file_rel));
    assert_int_equal(err.line, line);
    assert_non_null(strstr(err.msg, part));
    assert_null(strchr(err.msg, '\n'));
    assert_true(strncmp(err.msg, head, strlen(head)) == 0);
}

static void test_errors(void **state) {
    (void)state;
    /* in the included file: its syntax (libxml2: at the end of the data), and an element the
     * reader refuses */
    put("e1.xml", "<mujoco>\n<worldbody>\n<include file='parts/bad.xml'/>\n</worldbody>\n"
                  "</mujoco>\n");
    put("parts/bad.xml", "<mujoco>\n<body>\n</mujoco>\n");
    expect("e1.xml", LD_EINVAL, "parts/bad.xml", 4, "(syntax)");
    put("parts/bad.xml", "<mujoco>\n<body name='b'>\n<joint type='screw'/>\n</body>\n</mujoco>\n");
    expect("e1.xml", LD_EINVAL, "parts/bad.xml", 3, "unknown type 'screw'");
    /* at the include's own line */
    put("e2.xml", "<mujoco>\n\n<include file='nope.xml'/>\n</mujoco>\n");
    expect("e2.xml", LD_EIO, "e2.xml", 3, "'nope.xml': cannot open");
    put("e3.xml", "<mujoco>\n<include/>\n</mujoco>\n");
    expect("e3.xml", LD_EINVAL, "e3.xml", 2, "no file attribute");
    put("parts/opt.xml", "<mujoco><option gravity='0 0 -1'/></mujoco>\n");
    put("e4.xml", "<mujoco>\n<include file='parts/opt.xml'/>\n<include file='parts/opt.xml'/>\n"
                  "</mujoco>\n");
    expect("e4.xml", LD_EINVAL, "e4.xml", 3, "included a second time");
    put("e5.xml", "<mujoco>\n<include file='e5.xml'/>\n</mujoco>\n");
    expect("e5.xml", LD_EINVAL, "e5.xml", 2, "is the main file");
    /* a cycle between two included files: at the line of the include that closes it */
    put("e6.xml", "<mujoco>\n<include file='parts/a.xml'/>\n</mujoco>\n");
    put("parts/a.xml", "<mujoco>\n<include file='parts/b.xml'/>\n</mujoco>\n");
    put("parts/b.xml", "<mujoco>\n\n<include file='parts/a.xml'/>\n</mujoco>\n");
    expect("e6.xml", LD_EINVAL, "parts/b.xml", 3, "included a second time");
    put("parts/empty.xml", "<mujoco>\n<!-- nothing -->\n</mujoco>\n");
    put("e7.xml", "<mujoco>\n<include file='parts/empty.xml'/>\n</mujoco>\n");
    expect("e7.xml", LD_EINVAL, "e7.xml", 2, "nothing to include");
}

/* Default class names, as MuJoCo 2.2.2's mj_loadXML checks them: a nested class repeated in
 * its own section or in another top-level section (of an included file, either way round), a
 * nested class named main, a nested default without a name — each refused at the first such
 * element in the document, naming the class and where it was first defined; several top-level
 * sections (one named main) with distinct nested classes are one model. */
static void test_class_names(void **state) {
    (void)state;
    static const char body[] =
        "<worldbody><body><joint class='a'/><geom size='0.1'/></body></worldbody>\n</mujoco>\n";
    char t[1024];
    snprintf(t, sizeof t,
             "<mujoco>\n<default>\n<default class='a'><joint damping='1'/></default>\n"
             "<default class='a'><joint damping='2'/></default>\n<default/>\n"
             "<default class='a'/>\n</default>\n%s",
             body);
    put("c1.xml", t);
    expect("c1.xml", LD_EINVAL, "c1.xml", 4,
           "default: class 'a' is defined a second time (first at line 3)");
    snprintf(t, sizeof t,
             "<mujoco>\n<default>\n<default class='a'><default class='hand'/></default>\n"
             "</default>\n<include file='parts/c2.xml'/>\n%s",
             body);
    put("c2.xml", t);
    put("parts/c2.xml", "<mujoco>\n<default>\n<default class='leg'>\n<default class='hand'/>\n"
                        "</default>\n</default>\n</mujoco>\n");
    expect("c2.xml", LD_EINVAL, "parts/c2.xml", 4,
           "class 'hand' is defined a second time (first at line 3)");
    snprintf(t, sizeof t,
             "<mujoco>\n<include file='parts/c3.xml'/>\n<default>\n<default class='a'/>\n"
             "<default class='hand'/>\n</default>\n%s",
             body);
    put("c3.xml", t);
    put("parts/c3.xml", "<mujoco>\n<default>\n<default class='hand'/>\n</default>\n</mujoco>\n");
    expect("c3.xml", LD_EINVAL, "c3.xml", 5,
           "class 'hand' is defined a second time (first at c3.xml:3)");
    snprintf(t, sizeof t,
             "<mujoco>\n<default>\n<default class='a'>\n<default class='main'/>\n"
             "</default>\n</default>\n%s",
             body);
    put("c4.xml", t);
    expect("c4.xml", LD_EINVAL, "c4.xml", 4, "class 'main' is the top-level class");
    snprintf(t, sizeof t,
             "<mujoco>\n<default>\n<default class='a'/>\n<default><joint damping='1'/>"
             "</default>\n</default>\n%s",
             body);
    put("c5.xml", t);
    expect("c5.xml", LD_EINVAL, "c5.xml", 4, "a nested default needs a class name");
    snprintf(t, sizeof t,
             "<mujoco>\n<default class='main'>\n<default class='a'><joint damping='2'/>"
             "</default>\n</default>\n<include file='parts/c6.xml'/>\n%s",
             body);
    put("c6.xml", t);
    put("parts/c6.xml", "<mujoco>\n<default>\n<default class='b'/>\n</default>\n</mujoco>\n");
    ld_model m;
    ld_model_error err;
    int rc = ld_model_import(at("c6.xml"), &m, &err, NULL);
    if (rc) printf("%s\n", err.msg);
    assert_int_equal(rc, LD_OK);
    assert_int_equal(m.nelements, 1);
    assert_true(m.elements[0].par[1] == 2.0);
    ld_model_free(&m);
}

/* MuJoCo's samples that include files: the humanoid in humanoid_body.xml, with 100 free
 * objects (humanoid100.xml) and in a hammock of cloth (hammock.xml: its composite is not
 * represented, the humanoid is). Each imports and runs 20 steps. */
static void test_samples(void **state) {
    (void)state;
    static const struct {
        const char *path;
        int bodies, joints;
    } S[] = {{"/usr/share/mujoco/model/humanoid100/humanoid100.xml", 118, 17},
             {"/usr/share/mujoco/model/hammock/hammock.xml", 18, 17}};
    int ran = 0;
    for (int i = 0; i < 2; ++i) {
        struct stat st;
        if (stat(S[i].path, &st) != 0) {
            printf("skipped %s: not installed (apt-get install libmujoco-samples)\n", S[i].path);
            continue;
        }
        ld_model m;
        ld_model_error err;
        ld_import_report rep;
        int rc = ld_model_import(S[i].path, &m, &err, &rep);
        if (rc) printf("%s\n", err.msg);
        assert_int_equal(rc, LD_OK);
        printf("%s: %d bodies, %d joints, %d warnings\n", S[i].path, m.nbodies, m.njoints,
               rep.nwarn);
        assert_int_equal(m.nbodies, S[i].bodies);
        assert_int_equal(m.njoints, S[i].joints);
        ld_system s;
        double *q0 = NULL, *v0 = NULL;
        ld_integ_options o;
        assert_int_equal(ld_model_compile(&m, m.run.formulation, &s, &q0, &v0), LD_OK);
        assert_int_equal(ld_integ_options_from_model(&m, &o), LD_OK);
        ld_integ *it = ld_integ_create(&s, &o, &rc);
        assert_non_null(it);
        assert_int_equal(ld_integ_init(it, 0.0, q0, v0), LD_OK);
        for (int k = 1; k <= 20 && rc == LD_OK; ++k) rc = ld_integ_advance_to(it, k * m.run.dt);
        assert_int_equal(rc, LD_OK);
        ld_integ_free(it);
        free(q0), free(v0);
        ld_model_system_free(&s);
        ld_import_report_free(&rep);
        ld_model_free(&m);
        ++ran;
    }
    if (!ran) skip();
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_same_model), cmocka_unit_test(test_default_sections),
        cmocka_unit_test(test_errors),     cmocka_unit_test(test_deep_chain),
        cmocka_unit_test(test_samples),    cmocka_unit_test(test_class_names),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
