#!/usr/bin/env python3
"""An independent solution of the woodpecker toy (models/woodpecker.yaml), for comparison.

The toy of Glocker (1995) and Leine, Glocker & van Campen (2003): a sleeve with clearance on a
pole, a bird hinged to it by a torsion spring. Three coordinates q = (y, phi_M, phi_S): the
sleeve centre's height, the sleeve's and the bird's angles (counter-clockwise in the plane, x
towards the bird, y up); the sleeve's horizontal play neglected, as in the papers. Three
unilateral contacts with Coulomb friction: the sleeve's lower and upper corners on the bird's
side (restitution 0) and the beak (restitution 0.5), all with the pole's face x = r_O.

Two models:
  nonlinear (default)  the full rigid-body geometry: mass matrix M(q), centripetal terms, gaps
                       and contact rows of the corners and the beak as liedyn's model places
                       them (small spheres of radius RHO whose surfaces are the contact points);
  --linear             the papers' equations, linearized in the angles (constant M, gaps
                       affine in q), as Siconos' WoodPecker example writes them.
Integrated by Moreau-Jean in its midpoint form (q_M = q + h/2 v, M(q_M) (v+ - v) = h f(q_M, v)
+ W^T P, q+ = q_M + h/2 v+), the contacts closed at q_M, Newton's impact law and Coulomb's
friction by projected Gauss-Seidel to a relative tolerance of 1e-12. Plain Python and numpy,
written apart from liedyn: a check of its contact method on a mechanism with force elements.

Prints the beak's impact times, the periods between them and the descent speed; with --csv,
writes t, y, phi_M, phi_S, v, omega_M, omega_S every 10 steps.
"""
import argparse
import math
import sys

import numpy as np

R_O, R_M, H_M, L_M, L_G, H_S, L_S = 0.0025, 0.0031, 0.0058, 0.010, 0.015, 0.02, 0.0201
M_M, M_S, J_M, J_S, C_PHI, G = 0.0003, 0.0045, 5.0e-9, 7.0e-7, 0.0056, 9.81
MU = 0.3
RHO = 5e-5  # the contact spheres' radius in liedyn's model

# the papers' start on their limit cycle is liedyn's model's start: upright, spring unloaded
Q0 = (0.0, 0.0, 0.0)
V0 = (-0.3531, 31.92, 14.47)


class Nonlinear:
    """The toy's rigid-body geometry in three coordinates."""

    # contact points in their body's frame (a, b), body (0 sleeve, 1 bird), restitution
    points = [((R_M + RHO, -H_M), 0, 0.0), ((R_M + RHO, H_M), 0, 0.0), ((-L_S + RHO, H_S), 1, 0.5)]

    def forces(self, q, v):
        y, a, b = q
        ca, sa, cb, sb = math.cos(a), math.sin(a), math.cos(b), math.sin(b)
        js = np.array([[0.0, -L_M * sa, -L_G * sb], [1.0, L_M * ca, L_G * cb]])
        m = np.diag([M_M, J_M, J_S]) + M_S * js.T @ js
        acc = np.array([-L_M * v[1] ** 2 * ca - L_G * v[2] ** 2 * cb,
                        -L_M * v[1] ** 2 * sa - L_G * v[2] ** 2 * sb])
        f = -M_S * js.T @ acc - G * np.array([M_M + M_S, M_S * L_M * ca, M_S * L_G * cb])
        f += np.array([0.0, -C_PHI * (a - b), -C_PHI * (b - a)])
        return m, f

    def contact(self, q, k):
        """Gap, normal row, tangential row and restitution of contact k at q."""
        y, a, b = q
        (pa, pb), body, e = self.points[k]
        ca, sa = (math.cos(a), math.sin(a)) if body == 0 else (math.cos(b), math.sin(b))
        dx, dy = pa * ca - pb * sa, pa * sa + pb * ca
        if body == 0:
            x, yy = dx - RHO, y + dy
            wn, wt = [0.0, -(yy - y), 0.0], [1.0, x, 0.0]
        else:
            d = (L_M * math.cos(a), y + L_M * math.sin(a))
            s = (d[0] + L_G * math.cos(b), d[1] + L_G * math.sin(b))
            x, yy = s[0] + dx - RHO, s[1] + dy
            wn, wt = [0.0, -(d[1] - y), -(yy - d[1])], [1.0, d[0], x - d[0]]
        return x - R_O, np.array(wn), np.array(wt), e


class Linear:
    """The papers' linearized equations (Siconos' WoodPecker example)."""

    m = np.array([[M_S + M_M, M_S * L_M, M_S * L_G],
                  [M_S * L_M, J_M + M_S * L_M ** 2, M_S * L_M * L_G],
                  [M_S * L_G, M_S * L_M * L_G, J_S + M_S * L_G ** 2]])
    k = np.array([[0.0, 0.0, 0.0], [0.0, C_PHI, -C_PHI], [0.0, -C_PHI, C_PHI]])
    fext = np.array([-(M_S + M_M) * G, -M_S * L_M * G, -M_S * L_G * G])
    # gap = g0 + wn q, tangential row wt, restitution: the lower and upper corner, the beak
    rows = [(R_M - R_O, [0.0, H_M, 0.0], [1.0, R_M, 0.0], 0.0),
            (R_M - R_O, [0.0, -H_M, 0.0], [1.0, R_M, 0.0], 0.0),
            (L_M + L_G - L_S - R_O, [0.0, 0.0, -H_S], [1.0, L_M, L_G - L_S], 0.5)]
    points = rows

    def forces(self, q, v):
        return self.m, self.fext - self.k @ q

    def contact(self, q, k):
        g0, wn, wt, e = self.rows[k]
        wn = np.array(wn)
        return g0 + wn @ q, wn, np.array(wt), e


def step(model, q, v, h, tol=1e-12, maxit=5000):
    qm = q + 0.5 * h * v
    m, f = model.forces(qm, v)
    mi = np.linalg.inv(m)
    vn = v + h * mi @ f
    act = []
    for k in range(len(model.points)):
        gap, wn, wt, e = model.contact(qm, k)
        if gap <= 0.0:
            act.append((wn, wt, mi @ wn, mi @ wt, wn @ mi @ wn, wt @ mi @ wt, e, wn @ v))
    p = np.zeros((len(act), 2))
    for _ in range(maxit if act else 0):
        change = 0.0
        for i, (wn, wt, mn, mt, dn, dt, e, un0) in enumerate(act):
            pn = max(0.0, p[i, 0] - (wn @ vn + e * min(un0, 0.0)) / dn)
            vn += (pn - p[i, 0]) * mn
            pt = min(MU * pn, max(-MU * pn, p[i, 1] - (wt @ vn) / dt))
            vn += (pt - p[i, 1]) * mt
            change = max(change, abs(pn - p[i, 0]), abs(pt - p[i, 1]))
            p[i] = (pn, pt)
        if change <= tol * np.abs(p).max():
            break
    return qm + 0.5 * h * vn, vn


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--linear", action="store_true", help="the papers' linearized equations")
    ap.add_argument("--dt", type=float, default=2e-5, help="step (s), default 2e-5")
    ap.add_argument("--t-end", type=float, default=1.0, help="horizon (s), default 1")
    ap.add_argument("--csv", help="write the trajectory to this file")
    a = ap.parse_args()
    model = Linear() if a.linear else Nonlinear()
    q, v = np.array(Q0), np.array(V0)
    n = int(round(a.t_end / a.dt))
    rows, impacts, w_prev = [[0.0, *q, *v]], [], v[2]
    for i in range(1, n + 1):
        q, v = step(model, q, v, a.dt)
        if w_prev > 0.5 and v[2] < 0.0 and q[2] > 0.05:  # the beak bounced off the pole
            impacts.append(i * a.dt)
        w_prev = v[2]
        if i % 10 == 0:
            rows.append([i * a.dt, *q, *v])
    r = np.array(rows)
    late = r[:, 0] > 0.1
    speed = np.polyfit(r[late, 0], r[late, 1], 1)[0] if late.sum() > 2 else float("nan")
    print("woodpecker reference (%s): dt = %g s, t_end = %g s" %
          ("linearized" if a.linear else "nonlinear", a.dt, a.t_end))
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
