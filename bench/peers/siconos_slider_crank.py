#!/usr/bin/env python3
"""The slider-crank with a translational clearance joint, in Siconos (the peer of liedyn's
models/slider-crank-clearance.yaml).

The mechanism of Flores, Leine & Glocker (2010), "Modeling and analysis of planar rigid multibody
systems with translational clearance joints based on the non-smooth dynamics approach"
(Multibody System Dynamics 23): a crank (O at the origin) and a connecting rod drive a slider
that moves with clearance between the two walls of its guide, y = +-(b + c). Three coordinates
q = (crank angle th1, rod angle th2, slider angle th3); the slider's centre is the end of the rod,
(l1 cos th1 + l2 cos th2, l1 sin th1 + l2 sin th2); gravity -g along y. The slider's four corners
are four unilateral contacts with the guide (the upper corners with the upper wall, the lower
with the lower), each with Newton's impact law (restitution e) and, when mu > 0, Coulomb
friction (tangential restitution 0).

Built with Siconos' own API: a LagrangianDS (mass matrix, gyroscopic and gravity forces and
their Jacobians) and four LagrangianScleronomousR relations (gap and Jacobian), all given as
plugin functions in C that this script compiles at run time with $CC (default cc), as
Siconos' own examples do; the MoreauJeanOSI one-step integrator (theta = 0.5 by default) in a
TimeStepping; at each step an LCP (Lemke) or, with friction, a 2-D FrictionContact (Lemke).
(Relations written as Python subclasses crash Siconos 4.4 in MoreauJeanOSI::computeFreeOutput
at the first contact, hence the plugin.)

Writes a CSV: t, slider x, y (m), slider angle (rad), crank angle and speed, rod angle and
speed, slider angular speed, the number of closed contacts. Prints the run time on stderr.

An optional peer: exits 0 with "siconos not installed: skipped" when the module is missing.
"""
import argparse
import math
import os
import shutil
import subprocess
import sys
import tempfile
import time

try:
    import siconos.kernel as sk
    import siconos.numerics as sn
except ImportError:
    print("siconos not installed: skipped")
    sys.exit(0)

# Table 1 of Flores, Leine & Glocker (2010)
L1, L2 = 0.153, 0.306          # crank and connecting rod lengths, m
A, B = 0.05, 0.025             # slider half-length and half-height, m
C = 0.001                      # clearance: the guide is 2 (b + c) wide, m
M1, M2, M3 = 0.038, 0.038, 0.076        # masses, kg
J1, J2, J3 = 7.4e-5, 5.9e-4, 2.7e-6     # moments of inertia about the centres of mass, kg m^2
G = 9.81


# The model's functions, compiled at run time into a Siconos plugin (the way Siconos' own
# examples give a LagrangianDS and its relations): M(q), the gyroscopic and gravity forces of
# M q'' + F_gyr(q, q') + F_int(q) = p and their Jacobians (matrices column by column), and for
# each corner (sx, sy) its gap to the wall on its side (sy = +1: the upper wall y = b + c, -1:
# the lower one y = -(b + c)), its position along the wall (for friction) and their Jacobian.
PLUGIN_C = r"""
#include <math.h>
#define L1 %(L1).17g
#define L2 %(L2).17g
#define A %(A).17g
#define B %(B).17g
#define C %(C).17g
#define M1 %(M1).17g
#define M2 %(M2).17g
#define M3 %(M3).17g
#define J1 %(J1).17g
#define J2 %(J2).17g
#define J3 %(J3).17g
#define G %(G).17g
#define KC ((0.5 * M2 + M3) * L1 * L2)
void mass(unsigned n, const double *q, double *m, unsigned nz, double *z)
{
  m[0] = J1 + (0.25 * M1 + M2 + M3) * L1 * L1;
  m[1] = m[3] = KC * cos(q[1] - q[0]);
  m[4] = J2 + (0.25 * M2 + M3) * L2 * L2;
  m[2] = m[5] = m[6] = m[7] = 0.0;
  m[8] = J3;
}
void FGyr(unsigned n, const double *q, const double *v, double *f, unsigned nz, double *z)
{
  double s = KC * sin(q[0] - q[1]);
  f[0] = s * v[1] * v[1];
  f[1] = -s * v[0] * v[0];
  f[2] = 0.0;
}
void jacobianFGyrq(unsigned n, const double *q, const double *v, double *j, unsigned nz, double *z)
{
  double c = KC * cos(q[0] - q[1]);
  for (int i = 0; i < 9; i++) j[i] = 0.0;
  j[0] = c * v[1] * v[1];  j[3] = -c * v[1] * v[1];
  j[1] = -c * v[0] * v[0]; j[4] = c * v[0] * v[0];
}
void jacobianFGyrqDot(unsigned n, const double *q, const double *v, double *j, unsigned nz, double *z)
{
  double s = KC * sin(q[0] - q[1]);
  for (int i = 0; i < 9; i++) j[i] = 0.0;
  j[3] = 2.0 * s * v[1];
  j[1] = -2.0 * s * v[0];
}
void FInt(double t, unsigned n, const double *q, const double *v, double *f, unsigned nz, double *z)
{
  f[0] = (0.5 * M1 + M2 + M3) * G * L1 * cos(q[0]);
  f[1] = (0.5 * M2 + M3) * G * L2 * cos(q[1]);
  f[2] = 0.0;
}
void jacobianFIntq(double t, unsigned n, const double *q, const double *v, double *j, unsigned nz, double *z)
{
  for (int i = 0; i < 9; i++) j[i] = 0.0;
  j[0] = -(0.5 * M1 + M2 + M3) * G * L1 * sin(q[0]);
  j[4] = -(0.5 * M2 + M3) * G * L2 * sin(q[1]);
}
void jacobianFIntqDot(double t, unsigned n, const double *q, const double *v, double *j, unsigned nz, double *z)
{
  for (int i = 0; i < 9; i++) j[i] = 0.0;
}
#define CORNER(N, SX, SY) \
void g##N(unsigned n, const double *q, unsigned ny, double *y, unsigned nz, double *z) \
{ \
  double yc = L1 * sin(q[0]) + L2 * sin(q[1]) + (SX) * A * sin(q[2]) + (SY) * B * cos(q[2]); \
  y[0] = (B + C) - (SY) * yc; \
  if (ny > 1) \
    y[1] = L1 * cos(q[0]) + L2 * cos(q[1]) + (SX) * A * cos(q[2]) - (SY) * B * sin(q[2]); \
} \
void W##N(unsigned n, const double *q, unsigned ny, double *w, unsigned nz, double *z) \
{ \
  double d0 = L1 * cos(q[0]), d1 = L2 * cos(q[1]); \
  double d2 = (SX) * A * cos(q[2]) - (SY) * B * sin(q[2]); \
  if (ny == 1) { w[0] = -(SY) * d0; w[1] = -(SY) * d1; w[2] = -(SY) * d2; } \
  else { \
    w[0] = -(SY) * d0; w[1] = -L1 * sin(q[0]); \
    w[2] = -(SY) * d1; w[3] = -L2 * sin(q[1]); \
    w[4] = -(SY) * d2; w[5] = -(SX) * A * sin(q[2]) - (SY) * B * cos(q[2]); \
  } \
}
CORNER(1, -1, 1)
CORNER(2, 1, 1)
CORNER(3, -1, -1)
CORNER(4, 1, -1)
""" % dict(L1=L1, L2=L2, A=A, B=B, C=C, M1=M1, M2=M2, M3=M3, J1=J1, J2=J2, J3=J3, G=G)

CORNERS = ((1, -1, 1), (2, 1, 1), (3, -1, -1), (4, 1, -1))   # (number, sx, sy)


def build_plugin(workdir):
    """Compiles the plugin into workdir; returns its path without the suffix."""
    src = os.path.join(workdir, "slider_crank_plugin.c")
    lib = os.path.join(workdir, "slider_crank_plugin")
    with open(src, "w") as f:
        f.write(PLUGIN_C)
    cc = os.environ.get("CC", "cc")
    subprocess.run([cc, "-O2", "-shared", "-fPIC", "-o", lib + ".so", src, "-lm"], check=True)
    return lib


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--out", default="siconos_slider_crank.csv")
    ap.add_argument("--h", type=float, default=1e-5, help="time step, s")
    ap.add_argument("--t-end", type=float, default=0.2, help="s")
    ap.add_argument("--e", type=float, default=0.4, help="normal restitution")
    ap.add_argument("--mu", type=float, default=0.01, help="friction coefficient (0: frictionless LCP)")
    ap.add_argument("--theta", type=float, default=0.5, help="MoreauJeanOSI theta")
    ap.add_argument("--every", type=int, default=10, help="write every k-th step")
    args = ap.parse_args()
    workdir = tempfile.mkdtemp(prefix="siconos-slider-crank-")
    try:
        run(args, build_plugin(workdir))
    finally:
        shutil.rmtree(workdir, ignore_errors=True)


def run(args, lib):
    # initial state: crank and rod along x, the slider centred in its guide; the crank turns
    # at 150 rad/s and the rod at -75 rad/s, so that the slider starts at rest
    ds = sk.LagrangianDS([0.0, 0.0, 0.0], [150.0, -75.0, 0.0], lib + ":mass")
    ds.setComputeFGyrFunction(lib, "FGyr")
    ds.setComputeJacobianFGyrqFunction(lib, "jacobianFGyrq")
    ds.setComputeJacobianFGyrqDotFunction(lib, "jacobianFGyrqDot")
    ds.setComputeFIntFunction(lib, "FInt")
    ds.setComputeJacobianFIntqFunction(lib, "jacobianFIntq")
    ds.setComputeJacobianFIntqDotFunction(lib, "jacobianFIntqDot")

    nsds = sk.NonSmoothDynamicalSystem(0.0, args.t_end)
    nsds.insertDynamicalSystem(ds)
    friction = args.mu > 0.0
    inters = []
    for n, sx, sy in CORNERS:
        if friction:
            law = sk.NewtonImpactFrictionNSL(args.e, 0.0, args.mu, 2)
        else:
            law = sk.NewtonImpactNSL(args.e)
        rel = sk.LagrangianScleronomousR("%s:g%d" % (lib, n), "%s:W%d" % (lib, n))
        inter = sk.Interaction(law, rel)
        nsds.link(inter, ds)
        inters.append((inter, rel, law))

    osi = sk.MoreauJeanOSI(args.theta)
    td = sk.TimeDiscretisation(0.0, args.h)
    if friction:
        osnspb = sk.FrictionContact(2, sn.SICONOS_FRICTION_2D_LEMKE)
    else:
        osnspb = sk.LCP(sn.SICONOS_LCP_LEMKE)
    osnspb.numericsSolverOptions().dparam[0] = 1e-10
    sim = sk.TimeStepping(nsds, td, osi, osnspb)
    sim.setNewtonTolerance(1e-10)
    sim.setNewtonMaxIteration(50)

    q = ds.q()
    v = ds.velocity()

    def row(t, ncontact):
        th1, th2, th3 = q[0], q[1], q[2]
        x = L1 * math.cos(th1) + L2 * math.cos(th2)
        y = L1 * math.sin(th1) + L2 * math.sin(th2)
        return "%.9g,%.12g,%.12g,%.12g,%.12g,%.12g,%.12g,%.12g,%.12g,%d\n" % (
            t, x, y, th3, th1, v[0], th2, v[1], v[2], ncontact)

    out = open(args.out, "w")
    out.write("t,slider.x,slider.y,slider.angle,crank.angle,crank.omega,rod.angle,rod.omega,"
              "slider.omega,contacts\n")
    out.write(row(0.0, 0))
    k = 0
    newton = 0
    t0 = time.perf_counter()
    while sim.hasNextEvent():
        sim.computeOneStep()
        newton += sim.getNewtonNbIterations()
        k += 1
        if k % args.every == 0:
            n1 = sum(1 for it, _, _ in inters
                     if it.lambda_(1) is not None and it.lambda_(1)[0] > 0.0)
            out.write(row(sim.nextTime(), n1))
        sim.nextStep()
    wall = time.perf_counter() - t0
    out.close()
    sys.stderr.write("siconos: %d steps of %g s in %.3f s (%.1f us/step), %d Newton iterations\n"
                     % (k, args.h, wall, 1e6 * wall / max(k, 1), newton))


if __name__ == "__main__":
    main()
