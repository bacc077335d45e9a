/*
 * liedyn/actuator.h — the actuators of a compiled model (docs/actuators.md): their control
 * inputs, what they measure and apply, and a sampled controller that sets the inputs during a
 * run.
 *
 * An actuator is a force element (model.h: ld_actuator_spec, ld_model_add_actuator; in a model
 * file `type: actuator`) on a revolute or prismatic joint. The inputs of the actuators with
 * input LD_ACT_CONTROL are mutable data of the compiled system (0 after compiling), not of the
 * model: one model may back several systems with different inputs. Setting an input changes
 * the system's force from its next evaluation on; an integrator sees it from its next step.
 */
#ifndef LIEDYN_ACTUATOR_H
#define LIEDYN_ACTUATOR_H

#include "liedyn/export.h"
#include "liedyn/integrator.h"
#include "liedyn/model.h"
#include "liedyn/system.h"

LD_BEGIN_DECLS

/* The model's actuators: their number, and the element index of actuator i (in the order of
 * the elements; −1 out of range). NULL s: 0, −1. */
int ld_sys_actuator_count(const ld_system *s);
int ld_sys_actuator_element(const ld_system *s, int i);

/* Set (get) the control input of actuator i of the model compiled as s. The inputs are the
 * system's mutable data (s is const like everywhere else an integrator holds it). LD_OK, or
 * LD_EINVAL for a NULL or uncompiled s, a bad index, a non-finite u or a NULL out. */
int ld_sys_set_control(const ld_system *s, int i, double u);
int ld_sys_get_control(const ld_system *s, int i, double *u);

/* What actuator i measures and applies at the state (t, q, v): the coordinate θ and the rate θ̇
 * of its joint as it measures them (the angle in (−π, π] plus the joint's frame-form offset;
 * coords.h unwraps across rows), the actuator force f after saturation (the joint receives
 * gear · f) and its input c(t) after ctrl_limits (the force input's value, the servo's
 * reference, or the control input). Any output may be NULL. LD_OK or LD_EINVAL. */
int ld_sys_actuator_state(const ld_system *s, int i, double t, const double *q, const double *v,
                          double *theta, double *theta_rate, double *force, double *input);

/* The sensors a controller receives, per actuator i: sensors[3i] the joint's coordinate
 * (unwrapped from sample to sample), sensors[3i + 1] its rate, sensors[3i + 2] the actuator force
 * applied just before the sample (with the input held since the last one). */
#define LD_SENSORS_PER_ACTUATOR 3

/* A sampled controller: at each sample instant t it reads the state (q, v) and the sensors and
 * writes u[i], the control input of actuator i (ld_sys_actuator_count entries; on entry the
 * values held so far, so an entry not written keeps its value; only actuators with input
 * LD_ACT_CONTROL use theirs). Status 0, or < 0 to stop the run (the integrator's call returns
 * it; > 0 is treated as < 0: a sample cannot be retried). */
typedef int (*ld_controller_fn)(double t, const double *q, const double *v, const double *sensors,
                                double *u, void *user);

/* Run fn every `period` seconds from the integrator's current time (the first sample at once,
 * at the next step), holding the inputs constant between samples (zero-order hold). The
 * integrator then never steps across a sample instant: ld_integ_step ends a step on the next
 * instant when it would pass it (the step is shorter than asked), ld_integ_advance_to and
 * ld_integ_step_adaptive split there. fn NULL removes the controller. Scratch for the sensors
 * and inputs, and the workspace of the restart's solve at every sample (ld_integ_restart), are
 * allocated here: no step and no sample allocates (unless the sparse solver of a large system
 * must pivot anew, which KLU allocates for). LD_OK; LD_EINVAL (NULL it, period not
 * positive and finite, a system without actuators), LD_ENOMEM. */
int ld_integ_set_controller(ld_integ *it, double period, ld_controller_fn fn, void *user);
/* The samples taken so far (0 without a controller). */
long ld_integ_controller_samples(const ld_integ *it);

LD_END_DECLS

#endif /* LIEDYN_ACTUATOR_H */
