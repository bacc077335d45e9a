/*
 * Internal to src/elements and src/read: the actuator element (el_actuator.c,
 * docs/actuators.md): its parameter layout in ld_element.par, a view of them, the force law, and
 * its YAML reader (yaml_actuator.c).
 */
#ifndef LIEDYN_SRC_ELEMENTS_ACTUATOR_H
#define LIEDYN_SRC_ELEMENTS_ACTUATOR_H

#include <stdint.h>

#include "elements.h"
#include "liedyn/model.h"

/* The layout of par: joint, input, gear, force limits (2), control limits (2), kp, kv, value,
 * from_control (1: the servo's reference is the control input), the time function (kind, t0, t1,
 * t2, period, n) and its table (n times, then n values). */
enum {
    LD_ACTP_JOINT = 0,
    LD_ACTP_INPUT,
    LD_ACTP_GEAR,
    LD_ACTP_FLIM,
    LD_ACTP_CLIM = LD_ACTP_FLIM + 2,
    LD_ACTP_KP = LD_ACTP_CLIM + 2,
    LD_ACTP_KV,
    LD_ACTP_VALUE,
    LD_ACTP_FROM_CONTROL,
    LD_ACTP_TFN,
    LD_ACTP_TAB = LD_ACTP_TFN + 6
};

/* The parameters as fields; fn's table points into par (nothing allocated). */
typedef struct ld_act_view {
    int joint, input, from_control;
    double gear, flo, fhi, clo, chi, kp, kv, value;
    ld_tfn fn;
} ld_act_view;

void ld_act_view_get(const ld_element *el, ld_act_view *a);
/* Fill par (allocated, n = LD_ACTP_TAB + 2 ntab) from joint and spec. LD_OK or LD_ENOMEM. */
int ld_act_pack(int joint, const ld_actuator_spec *spec, double **par, int *npar);

/* The actuator force f (saturated) at time t for control input ctrl, joint coordinate phi and
 * rate phid (revolute: the servo's error is taken to the nearest turn), and its derivatives
 * ∂f/∂φ, ∂f/∂φ̇ (may be NULL; 0 when saturated). The joint receives gear · f. */
double ld_act_force(const ld_act_view *a, int revolute, double t, double ctrl, double phi,
                    double phid, double *dphi, double *dphid);
/* The input c(t) after ctrl_limits (control: ctrl) and its rate (may be NULL; 0 when clamped or
 * for control). */
double ld_act_input(const ld_act_view *a, double t, double ctrl, double *rate);
/* The actuator force of the actuator element at c, the coordinate and rate it measures and its
 * input (phi, phid, input may be NULL). */
double ld_act_eval_force(const ld_el_ctx *c, double *phi, double *phid, double *input);

/* Is element el an actuator? */
int ld_act_is(const ld_element *el);

struct reader;
struct yaml_node_s;
/* The type's YAML keys (yaml_actuator.c): joint, input, value, time, file, gear, kp, kv,
 * force_limits, ctrl_limits. Sets the element's bodies from its joint. */
int ly_read_actuator(struct reader *r, const struct yaml_node_s *n, const ld_model *m,
                     ld_element *el);

#endif
