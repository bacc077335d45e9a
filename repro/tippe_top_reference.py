#!/usr/bin/env python3
"""An independent reference for the tippe top of models/tippe-top.yaml.

The tippe top of Leine & Glocker (2003, "A set-valued force law for spatial Coulomb-Contensou
friction", Eur. J. Mech. A/Solids 22, section 5) with the data of Capobianco, Harsch, Eugster &
Leine (2021, "A nonsmooth generalized-alpha method for mechanical systems with frictional
contact", Int. J. Numer. Methods Eng. 122, section 10.6), written from the papers' equations and
nothing of liedyn: Python 3 and numpy only.

The body. Mass m, inertia diag(I1, I1, I3) about the centre of mass S, symmetry axis e3. The big
sphere's centre lies at S + a1 e3 (radius r1), the peg's sphere's at S + a2 e3 (radius r2). The
top is axisymmetric and so are both spheres: nothing depends on the angle of spin about e3, so the
state is the position x of S, the unit vector e3, the velocity v of S and the spatial angular
velocity w (the velocity variables u = (v, w)). The tilt theta = arccos(e3 . ez) is Leine &
Glocker's nutation angle; e3 and w avoid the singularity of Euler angles at theta = 0 and pi,
which the top approaches once it has turned over onto its peg. With the spatial inertia
J(e3) = I1 (1 - e3 e3^T) + I3 e3 e3^T, the equations of motion are

    m dv/dt = -m g ez + sum of contact forces,
    J dw/dt = -w x (J w) + sum of contact torques about S,      de3/dt = w x e3,

(d/dt (J w) = torque, dJ/dt w = w x J w). Energy E = m v^2/2 + w.J w/2 + m g z.

The contacts. Sphere i touches the plane z = 0 at p_i = x + a_i e3 - r_i ez; its gap is
g_i = z + a_i cos(theta) - r_i. The velocity of the top's material point at p_i is
v + w x (a_i e3 - r_i ez): its ez component is dg_i/dt, its ex, ey components the sliding
velocity, and the spin about the normal is w . ez. The Coulomb-Contensou law in its ellipsoidal
form (Leine & Glocker 2003): the friction force (F_1, F_2) and the drilling torque M about ez lie
in the ellipsoid of semi-axes mu F_n, mu F_n, mu Rbar F_n, Rbar = 3 pi/16 R, and dissipate at
most; written with the scaled torque M/Rbar, the three lie in the ball of radius mu F_n and oppose
(u_1, u_2, Rbar w.ez).

The scheme. Moreau-Jean time stepping, midpoint form: q_M = q_k + h/2 u_k (e3 turned exactly
by the angle |w| h/2 about w), the contacts with g_i(q_M) <= 0 active, M(q_M)(u_{k+1} - u_k)
= h f(q_M, u_k) + W^T P, with at each active contact the impact law 0 <= U_n ⊥ P_n >= 0
(e = 0) and the friction law above for the impulses, U the contact velocities at u_{k+1};
then q_{k+1} = q_M + h/2 u_{k+1}. The local problem is solved exactly, not by projected
Gauss-Seidel: Gauss-Seidel between the (at most two) contacts; at one contact, for a given P_n
the friction impulses are the minimiser of a strictly convex quadratic over the ball of radius
mu P_n, found exactly from the eigen-decomposition of its 3 x 3 Delassus block and a safeguarded
Newton iteration on the secular equation; P_n from U_n = 0, in a fixed-point loop with the
friction. All loops run to 1e-13 of the impulses. A small overlap that the velocity-level law
leaves (O(h^2) per step) is removed by lifting the top along z at the step's end, which moves
no velocity.

Checks of the kinematics (--check): with friction off the energy is conserved (to O(h)); with
point contact (R = 0) Jellett's integral L . (a1 e3 - r1 ez), L = J w, is conserved while the big
sphere alone touches (Jellett 1872, "A treatise on the theory of friction").

Usage: tippe_top_reference.py [--h H ...] [--t-end T] [--csv DIR] [--check]
Writes DIR/tippe_top_reference_h{H}.csv (t, z, theta, energy, every 1 ms) and prints, for each
step: the time the top turns over (z rising through 18 mm), the time it falls back (z falling
through 18 mm), and the energy at the end.
"""

import argparse
import math
import os
import sys
import time

import numpy as np

# The data (models/tippe-top.yaml).
M = 6.0e-3
I1 = 8.0e-7
I3 = 7.0e-7
G = 9.81
A = (3.0e-3, 1.6e-2)  # sphere centres above S along e3
RS = (1.5e-2, 5.0e-3)  # sphere radii
MU = 0.3
R_CONTACT = 5.0e-4
Z0 = 1.2015e-2
THETA0 = 0.1
SPIN0 = 180.0
Z_UP = 0.018  # the height of S that counts as turned over

EX = np.array([1.0, 0.0, 0.0])
EY = np.array([0.0, 1.0, 0.0])
EZ = np.array([0.0, 0.0, 1.0])
TOL = 1e-13


def cross(a, b):
    return np.array(
        [a[1] * b[2] - a[2] * b[1], a[2] * b[0] - a[0] * b[2], a[0] * b[1] - a[1] * b[0]]
    )


def inertia(e3):
    return I1 * np.eye(3) + (I3 - I1) * np.outer(e3, e3)


def inertia_inv(e3):
    return np.eye(3) / I1 + (1.0 / I3 - 1.0 / I1) * np.outer(e3, e3)


def turn(e3, w, t):
    """e3 turned by the angle |w| t about w (Rodrigues)."""
    n = math.sqrt(w @ w)
    if n * t == 0.0:
        return e3.copy()
    k = w / n
    c, s = math.cos(n * t), math.sin(n * t)
    r = e3 * c + cross(k, e3) * s + k * (k @ e3) * (1.0 - c)
    return r / math.sqrt(r @ r)


def energy(x, e3, v, w):
    return 0.5 * M * (v @ v) + 0.5 * (w @ inertia(e3) @ w) + M * G * x[2]


def ball_qp(ev, Q, c, rho):
    """argmin 1/2 p.A p + c.p over |p| <= rho, A = Q diag(ev) Q^T (positive definite): the
    unconstrained minimiser, or p(l) = -(A + l)^-1 c with |p(l)| = rho, l > 0 (scalar
    arithmetic: the vectors have 2 or 3 components)."""
    if rho <= 0.0:
        return np.zeros(len(c))
    cq = [float(x) for x in Q.T @ c]
    d0 = [float(x) for x in ev]
    n = math.sqrt(sum((ci / di) ** 2 for ci, di in zip(cq, d0)))
    if n <= rho:
        return Q @ np.array([-ci / di for ci, di in zip(cq, d0)])
    # Newton on phi(l) = 1/rho - 1/|p(l)|, which decreases and is convex: from l = 0 the
    # iterates rise monotonically to the root; kept inside [lo, hi], hi = |c|/rho.
    lo, hi = 0.0, math.sqrt(sum(ci * ci for ci in cq)) / rho
    lam = 0.0
    for _ in range(100):
        d = [di + lam for di in d0]
        n = math.sqrt(sum((ci / di) ** 2 for ci, di in zip(cq, d)))
        phi = 1.0 / rho - 1.0 / n
        if phi > 0.0:  # |p| > rho: l below the root
            lo = lam
        else:
            hi = lam
        if abs(n - rho) <= 1e-15 * rho:
            break
        dphi = -sum(ci * ci / di**3 for ci, di in zip(cq, d)) / n**3
        step = lam - phi / dphi
        lam = step if lo < step < hi else 0.5 * (lo + hi)
        if hi - lo <= 1e-16 * hi:
            break
    p = np.array([-ci / (di + lam) for ci, di in zip(cq, d0)])
    return Q @ (p * (rho / math.sqrt(p @ p)))


def local_solve(Gc, b, mu, P):
    """One contact: the impulses (P_n, P_1, P_2, P_s) with U = b + Gc P, 0 <= U_n ⊥ P_n >= 0 and
    (P_1, P_2, P_s) in the ball of radius mu P_n opposing (U_1, U_2, U_s). Exact for the
    friction at given P_n; P_n by fixed point. P: the start (updated in place)."""
    Gnn, Gnf, Gfn, Gff = Gc[0, 0], Gc[0, 1:], Gc[1:, 0], Gc[1:, 1:]
    ev, Q = np.linalg.eigh(Gff)
    pn = P[0]
    pf = P[1:].copy()
    for it in range(500):
        pn_new = max(0.0, -(b[0] + Gnf @ pf) / Gnn)
        pf = ball_qp(ev, Q, b[1:] + Gfn * pn_new, mu * pn_new)
        done = abs(pn_new - pn) <= TOL * max(pn_new, 1e-300)
        pn = pn_new
        if done:
            break
    else:
        raise RuntimeError("local problem: the normal impulse did not converge")
    P[0] = pn
    P[1:] = pf


def contact_rows(x, e3, rbar):
    """For each sphere: its gap at (x, e3) and the 4 x 6 matrix whose rows give, from
    u = (v, w), the normal velocity, the two sliding velocities and Rbar times the spin
    (3 x 6 without the spin's row where Rbar = 0: point contact)."""
    out = []
    for a, r in zip(A, RS):
        arm = a * e3 - r * EZ
        W = np.zeros((4 if rbar > 0.0 else 3, 6))
        for k, d in enumerate((EZ, EX, EY)):
            W[k, :3] = d
            W[k, 3:] = cross(arm, d)  # d . (w x arm) = w . (arm x d)
        if rbar > 0.0:
            W[3, 3:] = rbar * EZ
        out.append((x[2] + a * e3[2] - r, W))
    return out


def run(h, t_end, mu=MU, R=R_CONTACT, csv=None, every=1e-3, jellett=False):
    rbar = 3.0 * math.pi / 16.0 * R
    x = np.array([0.0, 0.0, Z0])
    e3 = np.array([0.0, -math.sin(THETA0), math.cos(THETA0)])  # THETA0 about x
    v = np.zeros(3)
    w = SPIN0 * e3
    nrow = 4 if rbar > 0.0 else 3
    P_prev = [np.zeros(nrow), np.zeros(nrow)]  # warm start, per sphere
    n = int(round(t_end / h))
    out_every = max(1, int(round(every / h)))
    rows = [(0.0, x[2], math.acos(e3[2]), energy(x, e3, v, w))]
    e_start = rows[0][3]
    t_up = t_down = None
    e_prev, rise, lift, z_prev = e_start, 0.0, 0.0, x[2]
    jel0 = (inertia(e3) @ w) @ (A[0] * e3 - RS[0] * EZ)
    jel_drift, both = 0.0, False
    for k in range(1, n + 1):
        # drift half a step
        xm = x + 0.5 * h * v
        e3m = turn(e3, w, 0.5 * h)
        Jm, Jinv = inertia(e3m), inertia_inv(e3m)
        # free velocities: gravity and the gyroscopic term at (q_M, u_k)
        vf = v - h * G * EZ
        wf = w - h * (Jinv @ cross(w, Jm @ w))
        uf = np.concatenate((vf, wf))
        act = [(i, W) for i, (g, W) in enumerate(contact_rows(xm, e3m, rbar)) if g <= 0.0]
        if act:
            Minv = np.zeros((6, 6))
            Minv[:3, :3] = np.eye(3) / M
            Minv[3:, 3:] = Jinv
            Ws = [W for _, W in act]
            Ps = [P_prev[i].copy() for i, _ in act]
            Gb = [[Wa @ Minv @ Wb.T for Wb in Ws] for Wa in Ws]
            bs = [W @ uf for W in Ws]
            for sweep in range(1000):
                change, scale = 0.0, 0.0
                for a_ in range(len(act)):
                    b = bs[a_].copy()
                    for b_ in range(len(act)):
                        if b_ != a_:
                            b += Gb[a_][b_] @ Ps[b_]
                    old = Ps[a_].copy()
                    local_solve(Gb[a_][a_], b, mu, Ps[a_])
                    change = max(change, np.max(np.abs(Ps[a_] - old)))
                    scale = max(scale, np.max(np.abs(Ps[a_])))
                if len(act) == 1 or change <= TOL * scale:
                    break
            else:
                raise RuntimeError("contacts: Gauss-Seidel did not converge at t = %g" % (k * h))
            u = uf + Minv @ sum(W.T @ P for W, P in zip(Ws, Ps))
            P_prev = [np.zeros(nrow), np.zeros(nrow)]
            for (i, _), P in zip(act, Ps):
                P_prev[i] = P
            if len(act) == 2:
                both = True
        else:
            u = uf
            P_prev = [np.zeros(nrow), np.zeros(nrow)]
        v, w = u[:3], u[3:]
        # drift the other half
        x = xm + 0.5 * h * v
        e3 = turn(e3m, w, 0.5 * h)
        # lift out of any overlap the velocity-level law left (moves no velocity)
        gmin = min(x[2] + a * e3[2] - r for a, r in zip(A, RS))
        if gmin < 0.0:
            x[2] -= gmin
            lift = max(lift, -gmin)
        t = k * h
        e = energy(x, e3, v, w)
        rise = max(rise, e - e_prev)
        e_prev = e
        if t_up is None and z_prev < Z_UP <= x[2]:
            t_up = t
        elif t_up is not None and t_down is None and z_prev >= Z_UP > x[2]:
            t_down = t
        z_prev = x[2]
        if jellett and not both:
            jel = (inertia(e3) @ w) @ (A[0] * e3 - RS[0] * EZ)
            jel_drift = max(jel_drift, abs(jel - jel0) / abs(jel0))
        if k % out_every == 0:
            rows.append((t, x[2], math.acos(max(-1.0, min(1.0, e3[2]))), e))
    if csv:
        with open(csv, "w") as f:
            f.write("t,z,theta,energy\n")
            for r in rows:
                f.write("%.6f,%.12e,%.12e,%.12e\n" % r)
    return {
        "t_up": t_up,
        "t_down": t_down,
        "e0": e_start,
        "e_end": e_prev,
        "rise": rise,
        "lift": lift,
        "jellett": jel_drift,
        "both": both,
        "rows": rows,
    }


def fmt(t):
    return "none" if t is None else "%.4f s" % t


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--h", type=float, nargs="+", default=[1e-4, 5e-5])
    ap.add_argument("--t-end", type=float, default=8.0)
    ap.add_argument("--csv", default=None, help="directory for the CSV files")
    ap.add_argument("--check", action="store_true", help="the kinematics' checks only")
    args = ap.parse_args()
    if args.check:
        for h in (2e-4, 1e-4):
            r = run(h, 1.0, mu=0.0)
            print(
                "friction off, h = %g: energy %.9f -> %.9f J after 1 s (relative %.2e)"
                % (h, r["e0"], r["e_end"], (r["e_end"] - r["e0"]) / r["e0"])
            )
        for h in (2e-4, 1e-4):
            r = run(h, 1.0, R=0.0, jellett=True)
            print(
                "point contact (R = 0), h = %g: Jellett's integral drifts by %.2e (relative) in "
                "1 s, the peg %s" % (h, r["jellett"], "touched" if r["both"] else "never touches")
            )
        return 0
    print("| h (s) | turns over (z up through 18 mm) | falls back | energy at %g s | largest "
          "rise of E in a step | largest lift |" % args.t_end)
    print("|---|---|---|---|---|---|")
    for h in args.h:
        t0 = time.time()
        csv = None
        if args.csv:
            os.makedirs(args.csv, exist_ok=True)
            csv = os.path.join(args.csv, "tippe_top_reference_h%g.csv" % h)
        r = run(h, args.t_end, csv=csv)
        print(
            "| %g | %s | %s | %.6f J (from %.6f) | %.2e J | %.2e m |"
            % (h, fmt(r["t_up"]), fmt(r["t_down"]), r["e_end"], r["e0"], r["rise"], r["lift"])
        )
        print("  (%.0f s)" % (time.time() - t0), file=sys.stderr)
        sys.stdout.flush()
    return 0


if __name__ == "__main__":
    sys.exit(main())
