/*
 * Internal to the library (src/io; the liedyn tool uses it too): the columns of a run's rows by
 * name, and the short names that stand for groups of them (docs/cli-run.md, "Choosing columns"):
 *   BODY                  its 13 columns (x … vz)
 *   JOINT                 its 6 reaction columns and its coordinates and rates (jcols.h)
 *   BODY.pos  BODY.q  BODY.omega  BODY.v   (x,y,z / qw,qx,qy,qz / wx,wy,wz / vx,vy,vz)
 *   BODY.a  BODY.dw       (ax,ay,az / dwx,dwy,dwz: the accelerations, chosen by name only)
 *   JOINT.f  JOINT.t      (fx,fy,fz / tx,ty,tz)
 *   JOINT.coords          its coordinates (those of angle, slide, rx,ry,rz, value it has)
 *   JOINT.rate            its rates (angle_rate, slide_rate, wx,wy,wz, value_rate)
 *   JOINT.rotvec  JOINT.omega   (rx,ry,rz / wx,wy,wz: spherical and universal joints)
 *   any column's own name: top.z, energy, constraint_residual, h, error_estimate, …
 */
#ifndef LIEDYN_CLI_COLUMNS_H
#define LIEDYN_CLI_COLUMNS_H

#include <stddef.h>

/* The indices (into names[0..n-1]) that token stands for, in order, into idx (cap entries):
 * their number, 0 when the token names nothing, or -1 when more than cap. */
int ld_io_cols_expand(const char *const *names, int n, const char *token, int *idx, int cap);
/* A comma-separated list of tokens: the indices of all of them (duplicates kept once) into
 * idx (cap). Their number, or -1 with the reason in why ("unknown column 'foo' …"). */
int ld_io_cols_select(const char *const *names, int n, const char *list, int *idx, int cap,
                      char *why, size_t wcap);

#endif
