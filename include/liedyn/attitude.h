/*
 * liedyn/attitude.h — attitude (orientation) from a given angular velocity.
 *
 * Integrates Ṙ = R hat(ω_G) = hat(ω_g) R for R(t), given ω(t) in the body frame (gyro
 * data, ω_G) or in the spatial frame (ω_g = R ω_G). Methods (Zupan & Saje 2011, plus Lie-group
 * methods beyond it):
 *   mpr      Simo–Tarnow–Doblaré midpoint rule, R_{n+1} = R_n cay(h ω_m), the rotation stored
 *            as rotation vector, tangential vector or quaternion (extracted by Spurrier).
 *   mpq      quaternion midpoint rule in frame-consistent form: q_{n+1} = q_n ∘ c (body ω) or
 *            c ∘ q_n (spatial ω), c the exact S³ Cayley factor; |q| is kept to round-off.
 *   mpq-eq25 the paper's eq. (25) taken literally: c ∘ q_n with body ω (a frame error kept
 *            for comparison; it converges to a wrong rotation).
 *   rk4, ode23, ode45   classical RK on the kinematic ODE of the parametrization
 *            (rotation vector, tangential vector or quaternion); ode23/ode45 adaptive.
 *   rkmk4, rkmk45       Runge–Kutta–Munthe-Kaas on S³ with the RK4 / Dormand–Prince tables;
 *            rkmk45 adaptive with the error measured on the group.
 *   magnus4, magnus6, magnus8   Magnus integrators of orders 4, 6 and 8 (2, 3 and 4
 *            Gauss–Legendre evaluations of ω per step, one exact exponential): ω does not depend on
 * the rotation, so Ṙ = R hat(ω) is linear and its Magnus series applies directly.
 *   magnus8x2 order 8 from 5 Gauss–Legendre evaluations of ω per step: magnus8's formula on
 *            the two half steps of the quartic through the samples (two exponentials); its error
 *            constant is ~1/250 of magnus8's, so it takes ~1.8× magnus8's step. ω at the step
 * ends t_n, t_{n+1} for midpoint rules, at the stage times for RK methods.
 *
 * NULL arguments: functions with a status return LD_EINVAL, getters a neutral value (0, NaN,
 * "?", NULL), functions without a result do nothing — except where a declaration states a
 * non-NULL precondition.
 */
#ifndef LIEDYN_ATTITUDE_H
#define LIEDYN_ATTITUDE_H

#include <stddef.h>

#include "liedyn/erk.h"
#include "liedyn/export.h"

LD_BEGIN_DECLS

typedef enum ld_frame { LD_FRAME_BODY = 0, LD_FRAME_SPATIAL = 1 } ld_frame;

/* Angular velocity ω(t) (rad/s) in the frame the problem states. Returns 0, or < 0 (e.g. t
 * outside the data) to abort the run. */
typedef int (*ld_omega_fn)(double t, double w[3], void *user);

typedef enum ld_param {
    LD_PARAM_QUAT = 0,   /* quaternion [w x y z] (4 numbers) */
    LD_PARAM_ROTVEC = 1, /* rotation vector ϑ = θ n */
    LD_PARAM_TANVEC = 2  /* tangential (Argyris) vector ψ = tan(θ/2) n */
} ld_param;

typedef enum ld_att_method {
    LD_ATT_MPR = 0,
    LD_ATT_MPQ,
    LD_ATT_MPQ_EQ25,
    LD_ATT_RK4,
    LD_ATT_ODE23,
    LD_ATT_ODE45,
    LD_ATT_RKMK4,
    LD_ATT_RKMK45,
    LD_ATT_MAGNUS4,
    LD_ATT_MAGNUS6,
    LD_ATT_MAGNUS8,
    LD_ATT_MAGNUS8X2,
    LD_ATT_METHOD_COUNT
} ld_att_method;

/* Name ("mpr", "mpq", ...) of a method and back; find returns -1 if unknown. */
const char *ld_att_method_name(ld_att_method m);
int ld_att_method_find(const char *name);
/* Name ("quat", "rotvec", "tanvec") of a parametrization and back (-1 if unknown). */
const char *ld_param_name(ld_param p);
int ld_param_find(const char *name);
/* 1 if method m uses a parametrization choice (mpr, rk4, ode23, ode45), else 0. */
int ld_att_method_has_param(ld_att_method m);
/* 1 if method m controls its step (ode23, ode45, rkmk45), else 0. */
int ld_att_method_is_adaptive(ld_att_method m);

typedef struct ld_attitude_problem {
    ld_omega_fn omega;
    void *user;
    ld_frame frame; /* frame of the ω that omega returns */
    double t0, t1;  /* integrate over [t0, t1], t1 > t0 */
    double q0[4];   /* initial rotation (normalized on entry) */
} ld_attitude_problem;

typedef struct ld_attitude_options {
    ld_att_method method;
    ld_param param; /* storage/ODE parametrization for mpr, rk4, ode23, ode45 */
    double dt;      /* fixed step; for adaptive methods the first step (0 = automatic) */
    int fixed;      /* adaptive methods only: 1 = run at the fixed step dt, no control */
    double error_rtol, error_atol, h_max, h_min; /* adaptive control, see ld_erk_options
                                                    (0 = default) */
    long max_steps;                              /* 0 = unlimited */
} ld_attitude_options;

/* The step of ld_attitude_options_default. */
#define LD_ATT_DT_DEFAULT 0.01

/* Defaults: mpq, quaternion, dt 0.01, error_rtol 1e-3, error_atol 1e-6. Values: dt ≥ 0,
 * error_rtol ≥ 0, error_atol ≥ 0, h_min ≥ 0 finite, h_max ≥ 0, max_steps ≥ 0 (0 = the default /
 * unlimited); anything else (negative, NaN) makes ld_attitude_integrate return LD_EINVAL. */
void ld_attitude_options_default(ld_attitude_options *o);

/* One output point: the time, the rotation as a quaternion (unit up to the method's drift;
 * exactly the stored state for quaternion storage) and the stored parameter p (np = 4 for
 * quaternions, 3 otherwise). branch_reduced = 1 when the method re-extracts the parameter
 * from a matrix every step (mpr: |ϑ| ≤ π, quaternion with w ≥ 0), 0 when p evolves
 * continuously. */
typedef struct ld_attitude_point {
    double t;
    double q[4];
    double p[4];
    int np;
    int branch_reduced;
} ld_attitude_point;

/* Called at t0 and after every accepted step; non-zero stops the run with that value. */
typedef int (*ld_attitude_output_fn)(const ld_attitude_point *pt, void *user);

typedef struct ld_attitude_stats {
    int status; /* 0 ok, else the ld_status (or callback value) that ended the run */
    double t_reached;
    long steps, rejected, fevals; /* fevals = evaluations of ω */
    double h_min_used, h_max_used;
    double q_end[4];
} ld_attitude_stats;

/* Integrate the attitude problem. The output callback and stats may be NULL. On failure the
 * run stops at the last good point: stats->t_reached and stats->q_end tell where, and the
 * status is returned:
 *   LD_ETOOMUCHWORK  max_steps steps (adaptive: step attempts) were taken before t1;
 *   LD_ESINGULAR     a singular parametrization (tangential vector at π, rotation vector
 *                    where T⁻¹ blows up) refused by the right-hand side;
 *   LD_ESTEPSIZE     the step size collapsed: the adaptive step fell below the smallest
 *                    allowed step (near a singular parametrization the tolerance cannot be
 *                    met), or a fixed step below the resolution of t;
 *   LD_EDOMAIN       a non-finite state;
 *   LD_EINVAL        NULL pb or o, no omega, t1 ≤ t0, a zero or non-finite q0, invalid options
 *                    (see ld_attitude_options_default), or dt = 0 for a fixed-step method;
 *   or the ω or output callback's value.
 * Allocates only once, before the first step. */
int ld_attitude_integrate(const ld_attitude_problem *pb, const ld_attitude_options *o,
                          ld_attitude_output_fn out, void *out_user, ld_attitude_stats *stats);

/* ---------------------------------------------------------------- analytic cases
 * Cases with the exact rotation given as a rotation vector ϑ(t) (Zupan & Saje 2011) and the
 * exact angular velocities ω_G = T(ϑ) ϑ̇ (body), ω_g = Tᵀ(ϑ) ϑ̇ = R ω_G (spatial). */
typedef struct ld_att_case {
    const char *name; /* "ex1", "ex2", "ex2-3d", "ex3", "spin", "lin3" */
    const char *title;
    double t0, t1; /* the paper's interval */
    double dt;     /* the paper's fixed step for the midpoint rules */
    /* exact ϑ(t) and ϑ̇(t) */
    void (*rotvec)(double t, double th[3], double thdot[3]);
} ld_att_case;

int ld_att_case_count(void);
const ld_att_case *ld_att_case_at(int i);
const ld_att_case *ld_att_case_find(const char *name);
/* Exact rotation (unit quaternion, continuous in t) and angular velocity in frame fr. */
void ld_att_case_quat(const ld_att_case *c, double t, double q[4]);
void ld_att_case_omega(const ld_att_case *c, double t, ld_frame fr, double w[3]);
/* Exact parameter in the form a method stores it (np = 4 for LD_PARAM_QUAT, else 3);
 * branch_reduced as in ld_attitude_point (|ϑ| ≤ π, quaternion with w ≥ 0). */
void ld_att_case_param(const ld_att_case *c, double t, ld_param p, int branch_reduced, double v[4]);
/* An ld_omega_fn for a case: user = pointer to an ld_att_case_omega_ctx (LD_EINVAL if NULL). */
typedef struct ld_att_case_omega_ctx {
    const ld_att_case *c;
    ld_frame frame;
} ld_att_case_omega_ctx;
int ld_att_case_omega_fn(double t, double w[3], void *user);

/* ---------------------------------------------------------------- error metrics
 * Accumulates, over output points compared with an exact solution: the largest geodesic
 * angle error, and RL² per parameter component (Zupan & Saje 2011, Sec. 5.1):
 * ‖f − g‖₂ / max(1, ‖f‖₂) with the trapezoidal rule on the piecewise-linear interpolants. */
typedef struct ld_att_metrics {
    double max_angle;   /* max over points of the geodesic error (rad) */
    double t_max_angle; /* where it occurred */
    int np;
    double int_d2[4], int_f2[4]; /* running ∫|f−g|², ∫|f|² per component */
    double prev_t, prev_d2[4], prev_f2[4];
    long points;
} ld_att_metrics;

void ld_att_metrics_init(ld_att_metrics *m);
/* Add one point: q_num/q_exact rotations, p_num/p_exact parameter vectors of size np. */
void ld_att_metrics_add(ld_att_metrics *m, double t, const double q_num[4], const double q_exact[4],
                        const double *p_num, const double *p_exact, int np);
/* rl2[k] for k < m->np. */
void ld_att_metrics_rl2(const ld_att_metrics *m, double rl2[4]);

/* ---------------------------------------------------------------- sampled gyro data
 * Body-frame angular velocity samples (t_i strictly increasing, at least two), interpolated
 * linearly in t between samples; outside [t_first, t_last] evaluation fails (LD_EDOMAIN). */
typedef struct ld_gyro ld_gyro;

/* Read a CSV file of lines "t,wx,wy,wz" (rad/s), ended by LF, CRLF or CR, at most 4095 bytes
 * each; a NUL byte is refused (not a text file). Blank lines and lines starting with '#' are
 * skipped; the first other line may be a header (it is skipped when its first field is not a
 * number). On error returns LD_EIO (cannot open/read), LD_EINVAL (bad content, or a NULL path
 * or out) or LD_ENOMEM, leaves *out NULL and writes "path:line: reason" into msg (size msglen;
 * msg may be NULL). */
int ld_gyro_read(const char *path, ld_gyro **out, char *msg, size_t msglen);
/* Build from arrays (copied). LD_EINVAL unless out, t and w are not NULL, n ≥ 2, times strictly
 * increasing, all finite. */
int ld_gyro_create(ld_gyro **out, const double *t, const double *w, long n);
void ld_gyro_free(ld_gyro *g);
/* Samples, first and last time (0, NaN, NaN for NULL). */
long ld_gyro_count(const ld_gyro *g);
double ld_gyro_t_first(const ld_gyro *g);
double ld_gyro_t_last(const ld_gyro *g);
/* ω(t) by linear interpolation; an ld_omega_fn with user = the ld_gyro (not thread-safe:
 * it keeps a search hint). LD_EDOMAIN outside the data, LD_EINVAL for a NULL user or w. */
int ld_gyro_omega_fn(double t, double w[3], void *user);

/* The step when none is given, the one rule of `liedyn attitude` and Python's
 * liedyn.attitude: 0 (an automatic first step) for an adaptive method run with its control
 * (fixed = 0); otherwise the case's step for an analytic case c, the mean sample spacing
 * (t_last − t_first)/(count − 1) for gyro data g, else LD_ATT_DT_DEFAULT. c and g may be
 * NULL. */
double ld_attitude_dt_default(ld_att_method m, int fixed, const ld_att_case *c, const ld_gyro *g);

LD_END_DECLS

#endif /* LIEDYN_ATTITUDE_H */
