#!/usr/bin/env python3
"""The woodpecker toy in Siconos, on the papers' linearized equations (a peer of liedyn's
models/woodpecker.yaml and of repro/woodpecker_reference.py --linear).

Glocker (1995) and Leine, Glocker & van Campen (2003): q = (y, phi_M, phi_S), a constant mass
matrix, the torsion spring as a stiffness, gravity as a constant force, and three contacts whose
gaps are affine in q (the sleeve's lower and upper corner on the bird's side, restitution 0; the
beak, restitution 0.5; friction 0.3), as Siconos' own WoodPecker example writes them: a
LagrangianLinearTIDS, LagrangianLinearTIR relations with NewtonImpactFrictionNSL laws, the
MoreauJeanOSI (theta = 0.5) in a TimeStepping with a 2-D FrictionContact problem.

Starts from liedyn's model's state (upright, the spring unloaded, y' = -0.3531 m/s,
phi_M' = 31.92 rad/s, phi_S' = 14.47 rad/s) and prints the beak's impact times, the periods and
the descent speed after t = 0.1 s; --csv writes t, y, phi_M, phi_S, v, omega_M, omega_S.
An optional peer: exits 0 with "siconos not installed: skipped" when the module is missing.
"""
import argparse
import sys
import time

try:
    import numpy as np
    import siconos.kernel as sk
except ImportError:
    print("siconos not installed: skipped")
    sys.exit(0)

R_O, R_M, H_M, L_M, L_G, H_S, L_S = 0.0025, 0.0031, 0.0058, 0.010, 0.015, 0.02, 0.0201
M_M, M_S, J_M, J_S, C_PHI, G, MU = 0.0003, 0.0045, 5.0e-9, 7.0e-7, 0.0056, 9.81, 0.3


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--dt", type=float, default=2e-5)
    ap.add_argument("--t-end", type=float, default=1.0)
    ap.add_argument("--csv")
    a = ap.parse_args()
    m = np.array([[M_S + M_M, M_S * L_M, M_S * L_G],
                  [M_S * L_M, J_M + M_S * L_M ** 2, M_S * L_M * L_G],
                  [M_S * L_G, M_S * L_M * L_G, J_S + M_S * L_G ** 2]])
    k = np.array([[0.0, 0.0, 0.0], [0.0, C_PHI, -C_PHI], [0.0, -C_PHI, C_PHI]])
    ds = sk.LagrangianLinearTIDS(np.zeros(3), np.array([-0.3531, 31.92, 14.47]), m, k,
                                 np.zeros((3, 3)))
    ds.setFExtPtr(np.array([-(M_S + M_M) * G, -M_S * L_M * G, -M_S * L_G * G]))
    nsds = sk.NonSmoothDynamicalSystem(0.0, a.t_end)
    nsds.insertDynamicalSystem(ds)
    contacts = [([[0, 0, -H_S], [1, L_M, L_G - L_S]], [L_M + L_G - L_S - R_O, 0], 0.5),
                ([[0, H_M, 0], [1, R_M, 0]], [R_M - R_O, 0], 0.0),
                ([[0, -H_M, 0], [1, R_M, 0]], [R_M - R_O, 0], 0.0)]
    for h, b, e in contacts:
        inter = sk.Interaction(sk.NewtonImpactFrictionNSL(e, 0.0, MU, 2),
                               sk.LagrangianLinearTIR(np.array(h, dtype=float),
                                                      np.array(b, dtype=float)))
        nsds.link(inter, ds)
    sim = sk.TimeStepping(nsds, sk.TimeDiscretisation(0.0, a.dt), sk.MoreauJeanOSI(0.5),
                          sk.FrictionContact(2))
    rows, impacts, w_prev, t0 = [], [], 14.47, time.process_time()
    while sim.hasNextEvent():
        sim.computeOneStep()
        q, v = ds.q(), ds.velocity()
        if w_prev > 0.5 and v[2] < 0.0 and q[2] > 0.05:
            impacts.append(sim.nextTime())
        w_prev = v[2]
        rows.append([sim.nextTime(), *q, *v])
        sim.nextStep()
    cpu = time.process_time() - t0
    r = np.array(rows)
    late = r[:, 0] > 0.1
    speed = np.polyfit(r[late, 0], r[late, 1], 1)[0] if late.sum() > 2 else float("nan")
    print("woodpecker in Siconos (linearized): dt = %g s, t_end = %g s, cpu %.2f s"
          % (a.dt, a.t_end, cpu))
    print("  beak impacts at t = " + ", ".join("%.5f" % t for t in impacts))
    if len(impacts) > 1:
        per = np.diff(impacts)
        print("  periods " + ", ".join("%.5f" % p for p in per) + "; mean of the last four %.5f s"
              % per[-4:].mean())
    print("  descent speed after t = 0.1 s: %.5f m/s; bird angle %.4f .. %.4f rad"
          % (speed, r[:, 3].min(), r[:, 3].max()))
    if a.csv:
        np.savetxt(a.csv, r, delimiter=",", header="t,y,phi_M,phi_S,v,omega_M,omega_S",
                   comments="")


if __name__ == "__main__":
    sys.exit(main())
