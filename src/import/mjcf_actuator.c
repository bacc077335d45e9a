/* The MJCF reader's actuators (mjcf.h): <actuator> children with a joint transmission as liedyn
 * actuators, the others reported. */
#include <string.h>

#include "liedyn/liedyn.h"
#include "mjcf.h"
#include "../core/oom.h"

/* ------------------------------------------------------------------ actuators */

/* ctrlrange / forcerange of an actuator with its *limited attribute ("true", "false", "auto":
 * limited when the range is given): *on 1 and the range in r when limited. */
static int mj_range(mj_ctx *C, const xmlNode *n, const char *tag, const xmlNode *cls,
                    const char *range, const char *limited, double r[2], int *on) {
    int given = 0;
    int rc = mj_vec(C, n, tag, cls, range, r, 2, &given);
    char *l = mj_attr(n, tag, cls, limited);
    *on = given && !(l && !strcmp(l, "false"));
    if (!rc && l && !strcmp(l, "true") && !given)
        rc = imp_fail(C->M, LD_EINVAL, imp_line(n), tag, "%s=\"true\" needs %s", limited, range);
    xmlFree(l);
    if (!rc && *on && !(r[0] < r[1]))
        rc = imp_fail(C->M, LD_EINVAL, imp_line(n), tag, "%s: needs lo < hi", range);
    return rc;
}

/* A <general> actuator as a motor, a position or a velocity servo: 1 (a filled in), 0 when it
 * is none of those, −1 (the error set) for bad numbers. */
static int mj_general(mj_ctx *C, const xmlNode *n, const xmlNode *cls, imp_actuator *a) {
    double g[10] = {1}, b[10] = {0};
    char *gt = mj_attr(n, "general", cls, "gaintype"), *bt = mj_attr(n, "general", cls, "biastype");
    int fixed = !gt || !strcmp(gt, "fixed"), none = !bt || !strcmp(bt, "none");
    int affine = bt && !strcmp(bt, "affine");
    xmlFree(gt);
    xmlFree(bt);
    if (mj_nums(C, n, "general", cls, "gainprm", g, 10) < 0 ||
        mj_nums(C, n, "general", cls, "biasprm", b, 10) < 0)
        return -1;
    if (!fixed) return 0;
    if (none && g[0] == 1.0) return a->input = LD_ACT_CONTROL, 1;
    if (affine && b[0] == 0.0 && b[1] == -g[0] && b[2] <= 0.0)
        return a->input = LD_ACT_POSITION, a->kp = g[0], a->kv = -b[2], 1;
    if (affine && b[0] == 0.0 && b[1] == 0.0 && b[2] == -g[0])
        return a->input = LD_ACT_VELOCITY, a->kv = g[0], 1;
    return 0;
}

/* The law of actuator n (motor, position, velocity, general): 1 when imported, 0 (reported). */
static int mj_law(mj_ctx *C, const xmlNode *n, const xmlNode *cls, const char *who,
                  imp_actuator *a) {
    const char *tag = (const char *)n->name;
    double tc = 0, dr = 0;
    if (imp_is(n, "motor")) return a->input = LD_ACT_CONTROL, 1;
    if (imp_is(n, "position") || imp_is(n, "velocity")) {
        a->input = imp_is(n, "position") ? LD_ACT_POSITION : LD_ACT_VELOCITY;
        a->kp = 1.0, a->kv = a->input == LD_ACT_VELOCITY ? 1.0 : 0.0;
        if (mj_vec(C, n, tag, cls, "kp", &a->kp, 1, NULL) ||
            mj_vec(C, n, tag, cls, "kv", &a->kv, 1, NULL) ||
            mj_vec(C, n, tag, cls, "timeconst", &tc, 1, NULL) ||
            mj_vec(C, n, tag, cls, "dampratio", &dr, 1, NULL))
            return -1;
        if (tc > 0 || dr > 0)
            imp_warn(C->M, LD_IMPORT_DYNAMICS, imp_line(n), tag,
                     "%s: %s not represented (imported without it)", who,
                     tc > 0 ? "timeconst (the filter of the input)" : "dampratio");
        return 1;
    }
    char *dt = imp_is(n, "general") ? mj_attr(n, "general", cls, "dyntype") : NULL;
    int ok = imp_is(n, "general") && (!dt || !strcmp(dt, "none")) ? mj_general(C, n, cls, a) : 0;
    xmlFree(dt);
    if (ok == 0)
        imp_warn(C->M, LD_IMPORT_DYNAMICS, imp_line(n), tag,
                 "%s: %s not imported (liedyn imports motor, position, velocity and the general "
                 "actuators of those forms; the joint moves freely)",
                 who, imp_is(n, "general") ? "a general actuator of another form" : "this type");
    return ok;
}

/* One child of <actuator>: an actuator with a joint transmission, else a report. */
int mj_read_actuator(mj_ctx *C, const xmlNode *n) {
    imp_model *M = C->M;
    const char *tag = (const char *)n->name;
    xmlNode *cls;
    char who[LD_NAME_MAX + 8] = "an actuator";
    int rc = mj_elem_class(C, n, C->main, &cls);
    char *nm = imp_attr(n, "name"), *jn = rc ? NULL : mj_attr(n, tag, cls, "joint");
    if (nm) snprintf(who, sizeof who, "'%s'", nm);
    imp_actuator a = {.gear = 1.0, .line = imp_line(n)};
    snprintf(a.kind, sizeof a.kind, "%s", tag);
    if (!rc && !jn) {
        static const char *const tr[] = {"tendon", "site", "jointinparent", "body", "cranksite"};
        const char *t = "no";
        for (int i = 0; i < 5; ++i) {
            char *s = imp_attr(n, tr[i]);
            if (s) t = tr[i];
            xmlFree(s);
        }
        imp_warn(M, LD_IMPORT_DYNAMICS, a.line, tag,
                 "%s: %s transmission not imported (only joint transmissions are)", who, t);
    }
    int law = !rc && jn ? mj_law(C, n, cls, who, &a) : 0;
    if (law < 0) rc = LD_EINVAL;
    double g[6] = {1, 0, 0, 0, 0, 0};
    if (law > 0 && mj_nums(C, n, tag, cls, "gear", g, 6) < 0) rc = LD_EINVAL;
    if (law > 0 && !rc)
        rc = mj_range(C, n, tag, cls, "ctrlrange", "ctrllimited", a.clim, &a.has_clim);
    if (law > 0 && !rc)
        rc = mj_range(C, n, tag, cls, "forcerange", "forcelimited", a.flim, &a.has_flim);
    if (law > 0 && !rc && g[0] == 0.0)
        rc = imp_fail(M, LD_EINVAL, a.line, tag, "%s: gear: must not be 0", who);
    if (law > 0 && !rc) {
        a.gear = g[0];
        imp_set_name(M, a.name, nm ? nm : "", a.line, tag);
        snprintf(a.joint, sizeof a.joint, "%s", jn);
        imp_actuator *slot = imp_add_actuator(M);
        if (!slot)
            rc = imp_fail(M, LD_ENOMEM, a.line, tag, "%s", ld_oom_last_str());
        else
            *slot = a;
    }
    xmlFree(nm);
    xmlFree(jn);
    return rc;
}
