/*
 * The benchmark problems' models for repro_iftomm: each model loaded from models/, the bodies and
 * points its measured quantity needs, the joints for the own check of the joint equations, the
 * scale of the energy balance (repro_iftomm.h).
 */
#include "repro_iftomm.h"

/* models/<name>.yaml into m; 0 or the loader's status (reported on stderr). */
static int load(const char *name, ld_model *m) {
    char path[512];
    ld_model_error err;
    snprintf(path, sizeof path, "%s/models/%s.yaml", LD_SOURCE_DIR, name);
    int rc = ld_model_load(path, m, &err);
    if (rc)
        fprintf(stderr, "repro_iftomm: %s: %s\n", path,
                rc == LD_EINVAL ? err.msg : ld_strerror(rc));
    return rc;
}

/* Body-frame offset of a spatial point at the initial configuration. */
static void body_point(const ld_model *m, int b, const double at[3], double p[3]) {
    double R[9], d[3];
    ld_quat_to_mat(R, m->bodies[b].q);
    for (int i = 0; i < 3; ++i) d[i] = at[i] - m->bodies[b].x[i];
    for (int i = 0; i < 3; ++i) p[i] = R[i] * d[0] + R[3 + i] * d[1] + R[6 + i] * d[2];
}

/* The index of the body name in m, or < 0 (reported on stderr). */
static int find_body(const ld_model *m, const char *name) {
    int b = ld_model_body_find(m, name);
    if (b < 0) fprintf(stderr, "repro_iftomm: %s: no body '%s'\n", m->name, name);
    return b;
}

int ri_setup(problem *p) {
    memset(&p->m, 0, sizeof p->m);
    if (load(p->model, &p->m)) return 1;
    p->nrows = (int)lround(p->T / p->out_dt);
    const double g = sqrt(p->m.gravity[0] * p->m.gravity[0] + p->m.gravity[1] * p->m.gravity[1] +
                          p->m.gravity[2] * p->m.gravity[2]);
    switch (p->id) {
    case P_A01:
        p->pbody = find_body(&p->m, "bob");
        p->pcomp = 2;
        p->escale = p->m.bodies[p->pbody].mass * g * 1.0;
        p->escale_desc = "m g L (the kinetic energy at the bottom; E₀ = 0)";
        break;
    case P_A02:
        p->pbody = find_body(&p->m, "crank0");
        body_point(&p->m, p->pbody, (double[3]){0, 1, 0}, p->pp);
        p->pcomp = 2;
        break;
    case P_A03: {
        const char *names[NANG] = {"crank-OF", "rod-FE", "lever-BDE", "rod-GE",
                                   "lever-AG", "rod-HE", "lever-AH"};
        for (int b = 0; b < NANG; ++b) p->ang_body[b] = find_body(&p->m, names[b]);
        p->tau = p->m.nloads ? p->m.loads[0].vec[2] : 0.0;
        if (ri_read_andrews_reference(p->ts_ref)) return 1;
        break;
    }
    case P_A04:
        p->pbody = find_body(&p->m, "link2");
        body_point(&p->m, p->pbody, (double[3]){1, -1, 0}, p->pp);
        p->pcomp = 3;
        break;
    case P_A05:
        p->slider = find_body(&p->m, "slider");
        for (int e = 0; e < p->m.nelements && p->nd < 2; ++e) {
            const ld_element *el = &p->m.elements[e];
            if (strcmp(ld_element_type_name(el->type), "spring-damper") != 0) continue;
            int b[2] = {el->body1, el->body2};
            for (int j = 0; j < 2; ++j) {
                p->d_b[p->nd][j] = b[j];
                if (b[j] < 0)
                    memcpy(p->d_p[p->nd][j], el->par + 3 * j, 3 * sizeof(double));
                else
                    body_point(&p->m, b[j], el->par + 3 * j, p->d_p[p->nd][j]);
            }
            p->d_c[p->nd++] = el->par[7];
        }
        break;
    }
    /* the joints for our own check */
    const ld_model *m = &p->m;
    p->nj = m->njoints;
    p->jb = calloc((size_t)m->njoints + 1, sizeof *p->jb);
    p->jp = calloc((size_t)m->njoints + 1, sizeof *p->jp);
    p->ja = calloc((size_t)m->njoints + 1, sizeof *p->ja);
    p->jgap = calloc((size_t)m->njoints + 1, sizeof *p->jgap);
    p->jaxis = calloc((size_t)m->njoints + 1, sizeof *p->jaxis);
    if (!p->jb || !p->jp || !p->ja || !p->jgap || !p->jaxis) return 1;
    for (int j = 0; j < m->njoints; ++j) {
        const ld_joint *J = &m->joints[j];
        const int b[2] = {J->body1, J->body2};
        ld_joint_kind k = J->kind;
        p->jgap[j] = k == LD_JOINT_SPHERICAL || k == LD_JOINT_UNIVERSAL || k == LD_JOINT_REVOLUTE ||
                     k == LD_JOINT_FIXED;
        p->jaxis[j] = k == LD_JOINT_REVOLUTE || k == LD_JOINT_CYLINDRICAL ||
                      k == LD_JOINT_PRISMATIC || k == LD_JOINT_FIXED;
        if (J->point_form) p->jgap[j] = p->jaxis[j] = 0;
        for (int i = 0; i < 2; ++i) {
            p->jb[j][i] = b[i];
            if (b[i] < 0) {
                memcpy(p->jp[j][i], J->at, sizeof J->at);
                memcpy(p->ja[j][i], J->axis, sizeof J->axis);
            } else {
                double R[9];
                body_point(m, b[i], J->at, p->jp[j][i]);
                ld_quat_to_mat(R, m->bodies[b[i]].q);
                for (int c = 0; c < 3; ++c)
                    p->ja[j][i][c] =
                        R[c] * J->axis[0] + R[3 + c] * J->axis[1] + R[6 + c] * J->axis[2];
            }
        }
    }
    /* E₀ for the scale of the energy balance */
    if (p->escale <= 0.0) {
        ld_system s;
        double *q0, *v0;
        if (ld_model_compile(&p->m, p->m.run.formulation, &s, &q0, &v0)) return 1;
        p->escale = fabs(ld_sys_energy(&s, 0.0, q0, v0));
        p->escale_desc = "|E₀|";
        free(q0), free(v0);
        ld_model_system_free(&s);
    }
    return 0;
}
