/* Columns of a run's rows chosen by name (columns.h). */
#include "columns.h"

#include <stdio.h>
#include <string.h>

/* The member names that a group name stands for, NULL-terminated ("pos" → x, y, z). */
static const char *const *group_members(const char *g) {
    static const char *const pos[] = {"x", "y", "z", NULL};
    static const char *const q[] = {"qw", "qx", "qy", "qz", NULL};
    static const char *const om[] = {"wx", "wy", "wz", NULL};
    static const char *const v[] = {"vx", "vy", "vz", NULL};
    static const char *const f[] = {"fx", "fy", "fz", NULL};
    static const char *const t[] = {"tx", "ty", "tz", NULL};
    static const char *const rv[] = {"rx", "ry", "rz", NULL};
    static const char *const co[] = {"angle", "slide", "rx", "ry", "rz", "value", NULL};
    static const char *const ra[] = {"angle_rate", "slide_rate", "wx", "wy",
                                     "wz",         "value_rate", NULL};
    static const char *const ac[] = {"ax", "ay", "az", NULL};
    static const char *const dw[] = {"dwx", "dwy", "dwz", NULL};
    static const struct {
        const char *name;
        const char *const *members;
    } groups[] = {{"pos", pos},    {"position", pos},
                  {"q", q},        {"quaternion", q},
                  {"omega", om},   {"v", v},
                  {"velocity", v}, {"f", f},
                  {"force", f},    {"t", t},
                  {"torque", t},   {"rotvec", rv},
                  {"coords", co},  {"coordinates", co},
                  {"rate", ra},    {"rates", ra},
                  {"a", ac},       {"acceleration", ac},
                  {"dw", dw},      {"angular_acceleration", dw}};
    for (size_t i = 0; i < sizeof groups / sizeof groups[0]; ++i)
        if (strcmp(g, groups[i].name) == 0) return groups[i].members;
    return NULL;
}

/* Is member (the part after OWNER.) an acceleration column's? Those are chosen by name or
 * group only, not with all of their owner's columns (they cost a solve per row). */
static int is_accel(const char *member) {
    static const char *const acc[] = {"ax", "ay", "az", "dwx", "dwy", "dwz"};
    for (size_t i = 0; i < sizeof acc / sizeof acc[0]; ++i)
        if (strcmp(member, acc[i]) == 0) return 1;
    return 0;
}

static int find(const char *const *names, int n, const char *name) {
    for (int i = 0; i < n; ++i)
        if (strcmp(names[i], name) == 0) return i;
    return -1;
}

int ld_io_cols_expand(const char *const *names, int n, const char *token, int *idx, int cap) {
    int k = find(names, n, token);
    if (k >= 0) {
        if (cap < 1) return -1;
        idx[0] = k;
        return 1;
    }
    char buf[512];
    const char *dot = strrchr(token, '.');
    if (dot && (size_t)(dot - token) < sizeof buf - 16) { /* OWNER.group */
        const char *const *mem = group_members(dot + 1);
        int cnt = 0;
        for (int i = 0; mem && mem[i]; ++i) {
            snprintf(buf, sizeof buf, "%.*s.%s", (int)(dot - token), token, mem[i]);
            int j = find(names, n, buf);
            if (j < 0) continue;
            if (cnt >= cap) return -1;
            idx[cnt++] = j;
        }
        if (cnt > 0) return cnt;
    }
    size_t len = strlen(token), cnt = 0; /* OWNER: all its columns */
    for (int i = 0; i < n && len > 0; ++i) {
        if (strncmp(names[i], token, len) != 0 || names[i][len] != '.') continue;
        if (is_accel(names[i] + len + 1)) continue;
        if ((int)cnt >= cap) return -1;
        idx[cnt++] = i;
    }
    return (int)cnt;
}

int ld_io_cols_select(const char *const *names, int n, const char *list, int *idx, int cap,
                      char *why, size_t wcap) {
    int total = 0;
    const char *s = list;
    while (*s) {
        size_t len = strcspn(s, ",");
        char tok[256];
        if (len == 0 || len >= sizeof tok) {
            snprintf(why, wcap, "empty or overlong column name in '%s'", list);
            return -1;
        }
        memcpy(tok, s, len);
        tok[len] = '\0';
        int got = ld_io_cols_expand(names, n, tok, idx + total, cap - total);
        if (got <= 0) {
            snprintf(why, wcap,
                     got < 0
                         ? "too many columns in '%s'"
                         : "unknown column '%s' (a body or joint name; BODY.pos, .q, .omega, "
                           ".v, .a, .dw or one column such as BODY.z; JOINT.f, .t, .coords, .rate, "
                           ".rotvec, .omega or one column such as JOINT.angle, .slide, "
                           ".value; energy, constraint_residual, work, energy_balance, h, "
                           "error_estimate where "
                           "written)",
                     got < 0 ? list : tok);
            return -1;
        }
        int base = total;
        for (int i = 0; i < got; ++i) { /* keep the first of duplicates */
            int c = idx[base + i], dup = 0;
            for (int j = 0; j < total && !dup; ++j) dup = idx[j] == c;
            if (!dup) idx[total++] = c;
        }
        s += len;
        if (*s == ',') ++s;
    }
    if (total == 0) snprintf(why, wcap, "no columns given");
    return total > 0 ? total : -1;
}
