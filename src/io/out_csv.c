/* The CSV writer of run rows (liedyn/output.h): the columns by name, the values of a row, and
 * whole rows in the file (rowfile.h). */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "columns.h"
#include "csv.h"
#include "jcols.h"
#include "liedyn/liedyn.h"
#include "liedyn/output.h"
#include "rowfile.h"
#include "../core/oom.h"

struct ld_out_csv {
    const ld_system *s;
    const ld_model *m;
    int est, ncols, nsel, header_done;
    char **names;
    unsigned char *exact; /* per body: the model prescribes its rotation */
    int *sel;             /* the columns written (nsel) */
    double *val;          /* the values of a row (ncols) */
    double *phi;          /* the constraint residual's scratch (s->m + 1) */
    double *jprev;        /* the joints' coordinates of the row before (jcols.h; NaN: none) */
    /* the energy balance: E0 the first row's energy, W the work of the loads and drivers
     * (ld_model_power, by the trapezoidal rule over the rows, or as the caller sets it), the
     * power and time of the row before */
    double E0, W, P_prev, t_prev;
    int rows_seen, work_given;
    double *cf;  /* per body: the contact force and torque of the next row (6; NaN: not given) */
    int contact; /* the model has contact: the cf columns are written */
    int nact;    /* the model's actuators: their force and input columns */
    /* the acceleration columns from column acc on (ncols - acc of them), written when one is
     * chosen (want_acc): the state's accelerations vd (k) and multipliers lam (m) solved for */
    int acc, want_acc;
    double *vd, *lam;
    rowfile f;
};

/* The actuators of m (the force elements of type actuator): their number, and the label of the
 * one at element e (its name, or "actuatorI" with I its place among the actuators). */
static int actuator_count(const ld_model *m) {
    int n = 0, t = ld_element_type_find("actuator");
    for (int e = 0; e < m->nelements; ++e) n += m->elements[e].type == t;
    return n;
}

static void actuator_label(const ld_model *m, int e, int i, char *buf, size_t cap) {
    if (m->elements[e].name[0])
        snprintf(buf, cap, "%s", m->elements[e].name);
    else
        snprintf(buf, cap, "actuator%d", i);
}

/* Per body of m: does an exact-torque load prescribe its rotation (an angle_error column)? */
static int is_exact(const ld_model *m, int b) {
    for (int l = 0; l < m->nloads; ++l) {
        const ld_load *ld = &m->loads[l];
        if (ld->kind == LD_LOAD_EXACT_TORQUE && ld->exact != LD_EXACT_NONE && ld->body == b)
            return 1;
    }
    return 0;
}

/* The names of the columns of m: those of every row (ld_out_columns), then with acc set the
 * acceleration columns per body (ax, ay, az, dwx, dwy, dwz), written only when named. */
static int column_names(const ld_model *m, int estimates, int acc, char ***names, int *n_out) {
    static const char *const cols[13] = {"x",  "y",  "z",  "qw", "qx", "qy", "qz",
                                         "wx", "wy", "wz", "vx", "vy", "vz"};
    static const char *const rc[6] = {"fx", "fy", "fz", "tx", "ty", "tz"};
    int nb = m->nbodies, est = estimates != 0, n = 1 + 13 * nb + 4 + 2 * est + 6 * m->njoints;
    n += ld_io_jcols_count(m);
    n += ld_model_has_contact(m) ? 6 * nb : 0;
    n += 2 * actuator_count(m);
    for (int b = 0; b < nb; ++b) n += is_exact(m, b);
    n += acc ? 6 * nb : 0;
    size_t w = LD_NAME_MAX + 24;
    char **names_ = ld_xmalloc((size_t)n * (sizeof(char *) + w), "the column names");
    *names = names_;
    *n_out = 0;
    if (!names_) return LD_ENOMEM;
    char *buf = (char *)(names_ + n);
    for (int i = 0; i < n; ++i) names_[i] = buf + (size_t)i * w;
    int k = 0;
    snprintf(names_[k++], w, "t");
    for (int b = 0; b < nb; ++b)
        for (int c = 0; c < 13; ++c) snprintf(names_[k++], w, "%s.%s", m->bodies[b].name, cols[c]);
    snprintf(names_[k++], w, "energy");
    snprintf(names_[k++], w, "constraint_residual");
    snprintf(names_[k++], w, "work");
    snprintf(names_[k++], w, "energy_balance");
    for (int b = 0; b < nb; ++b)
        if (is_exact(m, b)) snprintf(names_[k++], w, "%s.angle_error", m->bodies[b].name);
    if (est) {
        snprintf(names_[k++], w, "h");
        snprintf(names_[k++], w, "error_estimate");
    }
    for (int j = 0; j < m->njoints; ++j) {
        char lab[LD_NAME_MAX + 16];
        ld_io_jcols_label(m, j, lab, sizeof lab);
        for (int c = 0; c < 6; ++c) snprintf(names_[k++], w, "%s.%s", lab, rc[c]);
    }
    k += ld_io_jcols_names(m, names_ + k, w);
    static const char *const cfc[6] = {"cfx", "cfy", "cfz", "ctx", "cty", "ctz"};
    int contact = ld_model_has_contact(m);
    for (int b = 0; contact && b < nb; ++b)
        for (int c = 0; c < 6; ++c) snprintf(names_[k++], w, "%s.%s", m->bodies[b].name, cfc[c]);
    for (int e = 0, i = 0, t = ld_element_type_find("actuator"); e < m->nelements; ++e) {
        if (m->elements[e].type != t) continue;
        char lab[LD_NAME_MAX + 16];
        actuator_label(m, e, i++, lab, sizeof lab);
        snprintf(names_[k++], w, "%s.force", lab);
        snprintf(names_[k++], w, "%s.input", lab);
    }
    static const char *const ac[6] = {"ax", "ay", "az", "dwx", "dwy", "dwz"};
    for (int b = 0; acc && b < nb; ++b)
        for (int c = 0; c < 6; ++c) snprintf(names_[k++], w, "%s.%s", m->bodies[b].name, ac[c]);
    *n_out = n;
    return LD_OK;
}

int ld_out_columns(const ld_model *m, int estimates, char ***names, int *n_out) {
    return column_names(m, estimates, 0, names, n_out);
}

/* The columns of list (NULL: the first nall, every row's) into sel (t first, once): their
 * number, or -1 (why). */
static int select_columns(char **names, int n, int nall, const char *list, int *sel, char *why,
                          size_t cap) {
    if (!list) {
        for (int i = 0; i < nall; ++i) sel[i] = i;
        return nall;
    }
    int got = ld_io_cols_select((const char *const *)names, n, list, sel + 1, n - 1, why, cap);
    if (got < 0) return -1;
    sel[0] = 0;
    int k = 1;
    for (int i = 1; i <= got; ++i)
        if (sel[i] != 0) sel[k++] = sel[i];
    return k;
}

int ld_out_columns_check(const ld_model *m, int estimates, const char *columns, char *why,
                         size_t cap) {
    char **names;
    int n, rc = column_names(m, estimates, 1, &names, &n);
    if (rc) {
        ld_oom_last(why, cap);
        return rc;
    }
    int *sel = ld_xmalloc((size_t)n * sizeof(int), "the column selection");
    rc = !sel ? LD_ENOMEM : select_columns(names, n, n, columns, sel, why, cap) < 0 ? LD_EINVAL : 0;
    if (rc == LD_ENOMEM) ld_oom_last(why, cap);
    free(sel);
    free(names);
    return rc;
}

void ld_out_csv_free(ld_out_csv *w) {
    if (!w) return;
    (void)ld_out_csv_close(w);
    free(w->names);
    free(w->exact);
    free(w->sel);
    free(w->val);
    free(w->phi);
    free(w->jprev);
    free(w->cf);
    free(w->vd);
    free(w->lam);
    free(w);
}

/* "cannot write 'PATH': reason" in why after ld_io_rowfile_open failed; LD_ENOMEM or LD_EIO. */
static int open_error(const char *path, char *why, size_t cap) {
    int e = errno;
    snprintf(why, cap, "cannot write '%s': %s", path,
             e == ENOMEM ? ld_oom_last_str() : strerror(e));
    return e == ENOMEM ? LD_ENOMEM : LD_EIO;
}

/* NULL with *status = rc and the reason in why. */
static ld_out_csv *open_failed(ld_out_csv *w, int *status, int rc) {
    if (status) *status = rc;
    ld_out_csv_free(w);
    return NULL;
}

ld_out_csv *ld_out_csv_open(const char *path, const ld_system *s, const ld_model *m,
                            const char *columns, int estimates, int *status, char *why,
                            size_t cap) {
    if (why && cap) why[0] = '\0';
    char scratch[8];
    if (!why || !cap) why = scratch, cap = sizeof scratch;
    ld_out_csv *w = ld_xcalloc(1, sizeof *w, "the CSV writer");
    if (!w) return ld_oom_last(why, cap), open_failed(NULL, status, LD_ENOMEM);
    w->f.fd = -1;
    w->s = s, w->m = m, w->est = estimates != 0;
    if (!path || !s || !m) {
        snprintf(why, cap, "no file, system or model");
        return open_failed(w, status, LD_EINVAL);
    }
    if (column_names(m, w->est, 1, &w->names, &w->ncols) != LD_OK ||
        !(w->vd = ld_xcalloc((size_t)s->k + 1, sizeof(double), "the CSV writer's accelerations")) ||
        !(w->lam =
              ld_xcalloc((size_t)s->m + 1, sizeof(double), "the CSV writer's accelerations")) ||
        !(w->sel = ld_xmalloc((size_t)w->ncols * sizeof(int), "the CSV writer's columns")) ||
        !(w->val = ld_xcalloc((size_t)w->ncols, sizeof(double), "the CSV writer's columns")) ||
        !(w->exact = ld_xcalloc((size_t)m->nbodies + 1, 1, "the CSV writer's columns")) ||
        !(w->phi = ld_xcalloc((size_t)s->m + 1, sizeof(double),
                              "the CSV writer's constraint residuals")) ||
        !(w->jprev = ld_xmalloc(((size_t)ld_io_jcols_count(m) + 1) * sizeof(double),
                                "the CSV writer's joint coordinates")) ||
        !(w->cf = ld_xmalloc((6 * (size_t)m->nbodies + 1) * sizeof(double),
                             "the CSV writer's constraint forces"))) {
        ld_oom_last(why, cap);
        return open_failed(w, status, LD_ENOMEM);
    }
    for (int b = 0; b < m->nbodies; ++b) w->exact[b] = (unsigned char)is_exact(m, b);
    for (int i = 0; i < ld_io_jcols_count(m); ++i) w->jprev[i] = NAN;
    for (int i = 0; i < 6 * m->nbodies; ++i) w->cf[i] = NAN;
    w->contact = ld_model_has_contact(m);
    w->nact = actuator_count(m);
    w->acc = w->ncols - 6 * m->nbodies;
    w->nsel = select_columns(w->names, w->ncols, w->acc, columns, w->sel, why, cap);
    if (w->nsel < 0) return open_failed(w, status, LD_EINVAL);
    for (int i = 0; i < w->nsel; ++i) w->want_acc |= w->sel[i] >= w->acc;
    if (ld_io_rowfile_open(&w->f, path) != 0)
        return open_failed(w, status, open_error(path, why, cap));
    if (status) *status = LD_OK;
    return w;
}

/* The header line, once. */
static void write_header(ld_out_csv *w) {
    if (w->header_done) return;
    w->header_done = 1;
    for (int i = 0; i < w->nsel; ++i) {
        char q[2 * (LD_NAME_MAX + 24) + 3]; /* the name as a CSV field (csv.h) */
        (void)ld_io_csv_field(w->names[w->sel[i]], q, sizeof q);
        ld_io_rowfile_printf(&w->f, "%s%s", i ? "," : "", q);
    }
    ld_io_rowfile_printf(&w->f, "\n");
    (void)ld_io_rowfile_end_row(&w->f, 0);
}

/* The acceleration columns of a row at (t, q, v): per body ẍ (spatial) and Ω̇ (body frame),
 * from the accelerations of the state's dynamics (ld_sys_initial_accel: [M Bᵀ; B 0] [v̇; λ] =
 * [−g; −z]); NaN where that solve fails. */
static void accel_values(ld_out_csv *w, double t, const double *q, const double *v, double *r) {
    int nb = w->m->nbodies;
    int ok = ld_sys_initial_accel(w->s, t, q, v, w->vd, w->lam) == LD_OK;
    for (int b = 0; b < nb; ++b)
        if (!ok || ld_model_body_accel(w->s, b, q, v, w->vd, r + 6 * b + 3, r + 6 * b) != LD_OK)
            for (int c = 0; c < 6; ++c) r[6 * b + c] = NAN;
}

/* All the values of a row at (t, q, v, λ) into w->val (the order of w->names). */
static void row_values(ld_out_csv *w, double t, const double *q, const double *v, const double *lam,
                       double h, double err) {
    const ld_model *m = w->m;
    const ld_system *s = w->s;
    int nb = m->nbodies, k = 0;
    double *r = w->val;
    r[k++] = t;
    for (int b = 0; b < nb; ++b) {
        ld_model_body_state(s, b, q, v, r + k, r + k + 3, r + k + 7, r + k + 10);
        k += 13;
    }
    double E = ld_sys_energy(s, t, q, v);
    r[k++] = E;
    r[k++] = ld_sys_phi_max(s, t, q, w->phi, NULL);
    double P = NAN;
    if (!w->work_given && ld_model_power(s, t, q, v, lam, w->phi, &P) != LD_OK) P = NAN;
    if (!w->work_given && w->rows_seen > 0) w->W += 0.5 * (t - w->t_prev) * (P + w->P_prev);
    if (w->rows_seen == 0 && !w->work_given) w->E0 = E;
    w->P_prev = P, w->t_prev = t, w->rows_seen++;
    r[k++] = w->W;
    r[k++] = E - w->E0 - w->W;
    for (int b = 0; b < nb; ++b) {
        if (!w->exact[b]) continue;
        double qe[4];
        r[k++] = ld_model_exact_rotation(m, b, t, qe) != LD_OK
                     ? (double)NAN
                     : ld_quat_angle(qe, w->val + 1 + 13 * b + 3);
    }
    if (w->est) {
        r[k++] = h;
        r[k++] = err;
    }
    for (int j = 0; j < m->njoints; ++j) {
        for (int c = 0; c < 6; ++c) r[k + c] = NAN;
        (void)ld_model_joint_reaction_at(s, j, t, q, v, lam, r + k, r + k + 3);
        k += 6;
    }
    ld_io_jcols_values(s, m, t, q, v, w->jprev, r + k);
    k += ld_io_jcols_count(m);
    for (int i = 0; w->contact && i < 6 * nb; ++i) r[k++] = w->cf[i];
    for (int i = 0; i < w->nact; ++i) { /* the applied force; the control input */
        r[k] = r[k + 1] = NAN;
        (void)ld_sys_actuator_state(s, i, t, q, v, NULL, NULL, r + k, r + k + 1);
        k += 2;
    }
    if (w->want_acc) accel_values(w, t, q, v, r + k);
}

int ld_out_csv_row(ld_out_csv *w, double t, const double *q, const double *v, const double *lambda,
                   double h, double err) {
    if (w->f.fd < 0 || w->f.failed) return LD_EIO;
    write_header(w);
    row_values(w, t, q, v, lambda, h, err);
    for (int i = 0; i < w->nsel; ++i)
        ld_io_rowfile_printf(&w->f, i ? ",%.17g" : "%.17g", w->val[w->sel[i]]);
    ld_io_rowfile_printf(&w->f, "\n");
    return ld_io_rowfile_end_row(&w->f, 1) == 0 ? LD_OK : LD_EIO;
}

void ld_out_csv_set_balance(ld_out_csv *w, double e0, double work) {
    if (!w) return;
    w->work_given = 1;
    w->W = work;
    w->E0 = e0;
}

void ld_out_csv_set_contact_forces(ld_out_csv *w, const double *f) {
    if (!w) return;
    for (int i = 0; i < 6 * w->m->nbodies; ++i) w->cf[i] = f ? f[i] : (double)NAN;
}

long ld_out_csv_rows(const ld_out_csv *w) {
    return w->f.rows;
}

const char *ld_out_csv_message(const ld_out_csv *w) {
    return w->f.failed ? w->f.err : "";
}

int ld_out_csv_close(ld_out_csv *w) {
    if (w->f.fd < 0) return w->f.failed ? LD_EIO : LD_OK;
    if (!w->f.failed) write_header(w);
    return ld_io_rowfile_close(&w->f) == 0 ? LD_OK : LD_EIO;
}

/* ------------------------------------------------------------------ the contacts CSV */

struct ld_out_contacts {
    const ld_model *m;
    int *local; /* per shape of m: its index among its body's shapes */
    rowfile f;
};

ld_out_contacts *ld_out_contacts_open(const char *path, const ld_model *m, int *status, char *why,
                                      size_t cap) {
    char scratch[8];
    if (!why || !cap) why = scratch, cap = sizeof scratch;
    why[0] = '\0';
    int rc = LD_OK;
    ld_out_contacts *w = NULL;
    if (!path || !m) {
        rc = LD_EINVAL;
        snprintf(why, cap, "no file or model");
    } else if (!(w = ld_xcalloc(1, sizeof *w, "the contact CSV writer")) ||
               !(w->local = ld_xcalloc((size_t)m->nshapes + 1, sizeof(int),
                                       "the contact CSV writer's shapes"))) {
        rc = LD_ENOMEM;
        ld_oom_last(why, cap);
    } else {
        w->m = m;
        w->f.fd = -1;
        for (int i = 0; i < m->nshapes; ++i)
            for (int j = 0; j < i; ++j) w->local[i] += m->shapes[j].body == m->shapes[i].body;
        if (ld_io_rowfile_open(&w->f, path) != 0) {
            rc = open_error(path, why, cap);
        } else {
            ld_io_rowfile_printf(&w->f, "t,body1,body2,shape1,shape2,px,py,pz,nx,ny,nz,gap,fn,ft,"
                                        "fx,fy,fz\n");
            (void)ld_io_rowfile_end_row(&w->f, 0);
        }
    }
    if (status) *status = rc;
    if (rc == LD_OK) return w;
    ld_out_contacts_free(w);
    return NULL;
}

/* The name of body b ("ground" for b < 0) and the index of shape s among its body's shapes
 * (the ground's: −1 the plane, g the ground shape g). */
static const char *contact_body(const ld_out_contacts *w, int b) {
    return b >= 0 && b < w->m->nbodies ? w->m->bodies[b].name : "ground";
}

static int contact_shape(const ld_out_contacts *w, int s) {
    if (s >= 0) return s < w->m->nshapes ? w->local[s] : s;
    return s == -1 ? -1 : -2 - s;
}

int ld_out_contacts_rows(ld_out_contacts *w, double t, const ld_contact_point *c, int n) {
    if (!w || w->f.fd < 0 || w->f.failed || n < 0 || (n > 0 && !c)) return LD_EIO;
    for (int i = 0; i < n; ++i) {
        const ld_contact_point *p = &c[i];
        const double *f = p->force, *nv = p->normal;
        double fn = f[0] * nv[0] + f[1] * nv[1] + f[2] * nv[2], ft2 = 0.0;
        for (int k = 0; k < 3; ++k) ft2 += (f[k] - fn * nv[k]) * (f[k] - fn * nv[k]);
        char b1[2 * LD_NAME_MAX + 3], b2[2 * LD_NAME_MAX + 3]; /* CSV fields (csv.h) */
        (void)ld_io_csv_field(contact_body(w, p->body1), b1, sizeof b1);
        (void)ld_io_csv_field(contact_body(w, p->body2), b2, sizeof b2);
        ld_io_rowfile_printf(&w->f, "%.17g,%s,%s,%d,%d", t, b1, b2, contact_shape(w, p->shape1),
                             contact_shape(w, p->shape2));
        ld_io_rowfile_printf(&w->f, ",%.17g,%.17g,%.17g,%.17g,%.17g,%.17g,%.17g", p->point[0],
                             p->point[1], p->point[2], nv[0], nv[1], nv[2], p->gap);
        ld_io_rowfile_printf(&w->f, ",%.17g,%.17g,%.17g,%.17g,%.17g\n", fn, sqrt(ft2), f[0], f[1],
                             f[2]);
    }
    /* one output time's rows end together: the file holds whole output times */
    return ld_io_rowfile_end_row(&w->f, n) == 0 ? LD_OK : LD_EIO;
}

long ld_out_contacts_count(const ld_out_contacts *w) {
    return w ? w->f.rows : 0;
}

const char *ld_out_contacts_message(const ld_out_contacts *w) {
    return w && w->f.failed ? w->f.err : "";
}

int ld_out_contacts_close(ld_out_contacts *w) {
    if (!w) return LD_OK;
    if (w->f.fd < 0) return w->f.failed ? LD_EIO : LD_OK;
    return ld_io_rowfile_close(&w->f) == 0 ? LD_OK : LD_EIO;
}

void ld_out_contacts_free(ld_out_contacts *w) {
    if (!w) return;
    (void)ld_out_contacts_close(w);
    free(w->local);
    free(w);
}
