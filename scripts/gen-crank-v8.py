#!/usr/bin/python3
"""Generate models/crank-v8.yaml: a 90-degree V8 crank drive of 17 rigid bodies, the
equivalent of the example of Sherif, Nachbagauer, Steiner & Lauß (2019), Sec. 10.2,
with data of our own (the paper's are not public). See docs/crank-v8.md.

usage: scripts/gen-crank-v8.py [-o FILE]     (from anywhere; about 10 s)

Needs python3 and numpy only (Debian: python3-numpy; `scripts/install-deps python3-numpy`).
The script
  1. solves the loop closure of every cylinder at crank angle 0 and writes the model,
  2. verifies the written numbers: each joint equation with the bodies' own geometry
     (crank pin, conrod ends, piston pin, cylinder line) at the written poses, the body-frame
     attachment points and axes that follow from the spatial joint data, axis ⊥ axis2, the
     unit quaternions, the closure along a whole revolution, and the rank of the constraint
     Jacobian (non-redundant, no dead-centre singularity; the alternatives for comparison),
  3. prints the effective inertia about the crank axis, T0, and a reference solution of the
     reduced one-degree-of-freedom equation of motion (both also go into the YAML header).
It exits non-zero if any check fails.
"""
import argparse
import math
import os
import sys

import numpy as np

# ---------------------------------------------------------------------------------------------
# Data. Each entry: value, unit, one-line reason (printed into the YAML header).
# ---------------------------------------------------------------------------------------------
DEG = math.pi / 180.0
D = {}


def datum(key, value, unit, why):
    D[key] = (value, unit, why)
    return value


r = datum("r", 0.045, "m", "crank radius = stroke/2; 4.6 L V8: stroke 90 mm")
B = datum("bore", 0.0902, "m", "bore: 8 pi/4 bore^2 stroke = 4.60 L (4.6 L V8)")
L = datum("L", 0.150, "m", "conrod centre distance (4.6 L V8: 150.7 mm)")
pitch = datum("pitch", 0.100, "m", "crank-pin spacing along x = bore spacing")
dxb = datum("dx_bank", 0.012, "m", "left/right conrod offset on a pin: 24 mm big ends")
bank = datum("bank", 45.0, "deg", "banks at +/-45 deg from vertical: 90-degree V")
phis = datum("phi", [0.0, 90.0, 270.0, 180.0], "deg", "pins 1-4 about +x from +z: cross-plane crank")
m_rod = datum("m_rod", 0.600, "kg", "conrod with bolts and bearing shells")
a_rod = datum("a_rod", L / 3.0, "m", "conrod CoM from the big-end centre: L/3")
J_rod = datum("J_rod", [2.6e-3, 2.4e-3, 3.0e-4], "kg m^2",
              "about CoM; Jxx (pin axis) = 0.87 m a (L - a)")
m_pis = datum("m_pis", 0.500, "kg", "piston + rings + pin + clips, 90 mm bore")
h_pis = datum("h_pis", 0.008, "m", "piston CoM above the pin axis (crown side)")
J_pis = datum("J_pis", [3.6e-4, 3.9e-4, 6.0e-4], "kg m^2",
              "about CoM, z = cylinder axis: cup, r.m.s. radius 35 mm")
m_cs = datum("m_cs", 23.0, "kg", "crankshaft with counterweights (balanced)")
Jx_cs = datum("Jx_cs", 0.030, "kg m^2", "crankshaft about x: radius of gyration 36 mm")
l_cs = datum("l_cs", 0.55, "m", "crankshaft length: transverse J = m l^2/12")
x_cs = datum("x_cs", 0.0, "m", "crankshaft CoM on the axis, between pins 2 and 3")
m_fw = datum("m_fw", 12.0, "kg", "flywheel (manual gearbox) with ring gear")
R_fw = datum("R_fw", 0.14, "m", "flywheel as a solid disc: J = m R^2/2")
x_fw = datum("x_fw", 0.30, "m", "flywheel plane at the rear, 0.15 m behind pin 4")
alpha_target = datum("alpha_t", 100.0, "rad/s^2", "target acceleration after the ramp")
g = np.array([0.0, 0.0, -9.81])

NCYL, NPIN = 8, 4
X = np.eye(3)[0]


def rotx(a):
    c, s = math.cos(a), math.sin(a)
    return np.array([[1.0, 0.0, 0.0], [0.0, c, -s], [0.0, s, c]])


def hat(v):
    return np.array([[0.0, -v[2], v[1]], [v[2], 0.0, -v[0]], [-v[1], v[0], 0.0]])


def expso3(w):
    t = np.linalg.norm(w)
    if t < 1e-300:
        return np.eye(3)
    K = hat(w / t)
    return np.eye(3) + math.sin(t) * K + (1.0 - math.cos(t)) * K @ K


def quat_of(R):
    """Unit quaternion [w, x, y, z] of a rotation matrix (Shepperd), w >= 0."""
    t = np.trace(R)
    if t > 0:
        s = 2.0 * math.sqrt(1.0 + t)
        q = [0.25 * s, (R[2, 1] - R[1, 2]) / s, (R[0, 2] - R[2, 0]) / s, (R[1, 0] - R[0, 1]) / s]
    else:
        i = int(np.argmax(np.diag(R)))
        j, k = (i + 1) % 3, (i + 2) % 3
        s = 2.0 * math.sqrt(1.0 + R[i, i] - R[j, j] - R[k, k])
        q = [0.0] * 4
        q[0] = (R[k, j] - R[j, k]) / s
        q[1 + i] = 0.25 * s
        q[1 + j] = (R[j, i] + R[i, j]) / s
        q[1 + k] = (R[k, i] + R[i, k]) / s
    q = np.array(q)
    return -q if q[0] < 0 else q


def rot_of(q):
    """Rotation matrix (body -> spatial) of a quaternion [w, x, y, z], normalized first."""
    w, x, y, z = np.asarray(q, dtype=float) / np.linalg.norm(q)
    return np.array([
        [1 - 2 * (y * y + z * z), 2 * (x * y - w * z), 2 * (x * z + w * y)],
        [2 * (x * y + w * z), 1 - 2 * (x * x + z * z), 2 * (y * z - w * x)],
        [2 * (x * z - w * y), 2 * (y * z + w * x), 1 - 2 * (x * x + y * y)],
    ])


# ---------------------------------------------------------------------------------------------
# Derived data: the crankshaft assembly (crankshaft + flywheel) and the cylinders.
# ---------------------------------------------------------------------------------------------
m_crank = m_cs + m_fw
xG = (m_cs * x_cs + m_fw * x_fw) / m_crank  # CoM of the assembly, on the axis
Jxx_crank = Jx_cs + 0.5 * m_fw * R_fw**2
Jt_crank = (m_cs * l_cs**2 / 12.0 + 0.5 * Jx_cs + m_cs * (x_cs - xG) ** 2
            + 0.25 * m_fw * R_fw**2 + m_fw * (x_fw - xG) ** 2)
J_crank = [Jxx_crank, Jt_crank, Jt_crank]

# cylinder i = 0..7: pin k = i // 2; even i = left bank (y < 0), odd i = right bank (y > 0)
pin_x = [(k - 1.5) * pitch for k in range(NPIN)]
cyl = []
for i in range(NCYL):
    k, right = i // 2, i % 2 == 1
    xc = pin_x[k] + (dxb if right else -dxb)
    al = (-bank if right else bank) * DEG  # cylinder axis e = rotx(al) z
    cyl.append(dict(k=k, side="right" if right else "left", x=xc, alpha=al, phi=phis[k] * DEG,
                    e=rotx(al)[:, 2], o=np.array([xc, 0.0, 0.0])))

# Design body-frame geometry (independent of the spatial joint data written to the YAML)
P_crank = [np.array([c["x"] - xG, -r * math.sin(c["phi"]), r * math.cos(c["phi"])]) for c in cyl]
P_bearing = np.array([-xG, 0.0, 0.0])  # the origin in the crankshaft frame
P_big = np.array([0.0, 0.0, -a_rod])  # conrod frame: CoM origin, z from big to small end
P_small = np.array([0.0, 0.0, L - a_rod])
P_pin = np.array([0.0, 0.0, -h_pis])  # piston frame: CoM origin, z = cylinder axis
EY = np.eye(3)[1]
EZ = np.eye(3)[2]

NAMES = ["crankshaft"] + [f"conrod-{i + 1}" for i in range(NCYL)] + [f"piston-{i + 1}" for i in range(NCYL)]
IDX = {n: j for j, n in enumerate(NAMES)}
MASS = [m_crank] + [m_rod] * NCYL + [m_pis] * NCYL
JB = [np.diag(J_crank)] + [np.diag(J_rod)] * NCYL + [np.diag(J_pis)] * NCYL


def configuration(theta):
    """Poses (x, R) of the 17 bodies at crank angle theta (closed loops, pistons outward)."""
    Rc = rotx(theta)
    poses = [(np.array([xG, 0.0, 0.0]), Rc)]
    rods, pistons = [], []
    for i, c in enumerate(cyl):
        cp = poses[0][0] + Rc @ P_crank[i]  # crank-pin point
        w = cp - c["o"]
        we = w @ c["e"]
        lam = we + math.sqrt(L * L - (w @ w - we * we))
        s = c["o"] + lam * c["e"]  # piston-pin point
        u = (s - cp) / L
        beta = math.atan2(-u[1], u[2])  # u = rotx(beta) z
        Rr = rotx(beta)
        rods.append((cp + a_rod * Rr[:, 2], Rr))
        Rp = rotx(c["alpha"])
        pistons.append((s + h_pis * c["e"], Rp))
    return poses + rods + pistons


# ---------------------------------------------------------------------------------------------
# Joints: spatial data at theta = 0 (what the YAML holds) and generic joint equations.
# ---------------------------------------------------------------------------------------------
def make_joints(poses, variant="model"):
    """The joint list in the spatial form of the YAML. variant: 'model' (the one written),
    'revolute' (all-revolute planar topology), 'uaxis' (universal with axis2 along the
    cylinder axis), 'spherical' (spherical joints at both conrod ends)."""
    J = [dict(name="main-bearing", type="revolute", body1="ground", body2="crankshaft",
              at=np.zeros(3), axis=X.copy())]
    for i, c in enumerate(cyl):
        n = i + 1
        cp = poses[0][0] + poses[0][1] @ P_crank[i]
        xr, Rr = poses[1 + i]
        s = xr + Rr @ P_small
        a2 = c["e"] if variant == "uaxis" else np.cross(c["e"], X)  # = piston body y
        if variant == "revolute":
            J.append(dict(name=f"big-end-{n}", type="revolute", body1="crankshaft",
                          body2=f"conrod-{n}", at=cp, axis=X.copy()))
            J.append(dict(name=f"piston-pin-{n}", type="revolute", body1=f"conrod-{n}",
                          body2=f"piston-{n}", at=s, axis=X.copy()))
        elif variant == "spherical":
            J.append(dict(name=f"big-end-{n}", type="spherical", body1="crankshaft",
                          body2=f"conrod-{n}", at=cp))
            J.append(dict(name=f"piston-pin-{n}", type="spherical", body1=f"conrod-{n}",
                          body2=f"piston-{n}", at=s))
        else:
            J.append(dict(name=f"big-end-{n}", type="spherical", body1="crankshaft",
                          body2=f"conrod-{n}", at=cp))
            J.append(dict(name=f"piston-pin-{n}", type="universal", body1=f"conrod-{n}",
                          body2=f"piston-{n}", at=s, axis=X.copy(), axis2=a2))
        J.append(dict(name=f"cylinder-{n}", type="prismatic", body1="ground", body2=f"piston-{n}",
                      at=s, axis=c["e"].copy()))
    return J


NEQ = {"spherical": 3, "universal": 4, "revolute": 5, "cylindrical": 4, "prismatic": 5, "fixed": 6}


def pose_of(poses, name):
    return (np.zeros(3), np.eye(3)) if name == "ground" else poses[IDX[name]]


def perp_pair(a):
    """Two unit vectors completing a (unit) to an orthonormal frame."""
    t = X if abs(a[0]) < 0.9 else EY
    n1 = np.cross(a, t)
    n1 /= np.linalg.norm(n1)
    return n1, np.cross(a, n1)


def bind(joint, poses0):
    """Body-frame attachment data of a joint from its spatial data and the initial poses
    (as a loader does): points p1, p2, axes fixed in body1 / body2."""
    (x1, R1), (x2, R2) = pose_of(poses0, joint["body1"]), pose_of(poses0, joint["body2"])
    b = dict(p1=R1.T @ (joint["at"] - x1), p2=R2.T @ (joint["at"] - x2))
    if "axis" in joint:
        a = joint["axis"] / np.linalg.norm(joint["axis"])
        n1, n2 = perp_pair(a)
        b.update(a1=R1.T @ a, n11=R1.T @ n1, n12=R1.T @ n2, n21=R2.T @ n1, n22=R2.T @ n2)
    if "axis2" in joint:
        b["a2"] = R2.T @ (joint["axis2"] / np.linalg.norm(joint["axis2"]))
    return b


def residual(joint, b, poses):
    """The joint equations Phi (NEQ[type] rows) at the poses."""
    (x1, R1), (x2, R2) = pose_of(poses, joint["body1"]), pose_of(poses, joint["body2"])
    d = (x2 + R2 @ b["p2"]) - (x1 + R1 @ b["p1"])
    t = joint["type"]
    if t == "spherical":
        return d
    if t == "universal":
        return np.append(d, (R1 @ b["a1"]) @ (R2 @ b["a2"]))
    a1 = R1 @ b["a1"]
    par = [a1 @ (R2 @ b["n21"]), a1 @ (R2 @ b["n22"])]  # axis of body1 ⊥ body2's normals
    if t == "revolute":
        return np.concatenate([d, par])
    slide = [d @ (R1 @ b["n11"]), d @ (R1 @ b["n12"])]
    if t == "cylindrical":
        return np.array(slide + par)
    if t == "prismatic":  # + no rotation about the axis
        return np.array(slide + par + [(R1 @ b["n11"]) @ (R2 @ b["n22"])])
    raise ValueError(t)


def all_residuals(joints, binds, poses):
    return np.concatenate([residual(j, b, poses) for j, b in zip(joints, binds)])


def jacobian(joints, binds, poses, h=1e-6):
    """d Phi / d(omega, dx) per body (spatial rotation and translation), central differences."""
    cols = []
    for jb in range(len(poses)):
        for k in range(6):
            dv = np.zeros(6)
            dv[k] = h
            rows = []
            for sgn in (1.0, -1.0):
                P = list(poses)
                x, R = P[jb]
                P[jb] = (x + sgn * dv[3:], expso3(sgn * dv[:3]) @ R)
                rows.append(all_residuals(joints, binds, P))
            cols.append((rows[0] - rows[1]) / (2 * h))
    return np.array(cols).T


# ---------------------------------------------------------------------------------------------
# Effective inertia, gravity torque, reduced equation of motion
# ---------------------------------------------------------------------------------------------
def reduced_terms(theta, h=1e-5):
    """M(theta) = sum m |dx/dtheta|^2 + w' J w (w = d(rotation)/dtheta), and the generalized
    gravity force Q_g = sum m g . dx/dtheta, by central differences of the exact kinematics."""
    Pp, Pm, P0 = configuration(theta + h), configuration(theta - h), configuration(theta)
    M = Qg = 0.0
    for j in range(len(P0)):
        v = (Pp[j][0] - Pm[j][0]) / (2 * h)
        W = Pp[j][1] @ Pm[j][1].T
        w = np.array([W[2, 1] - W[1, 2], W[0, 2] - W[2, 0], W[1, 0] - W[0, 1]]) / 2.0 / (2 * h)
        R = P0[j][1]
        M += MASS[j] * v @ v + w @ (R @ JB[j] @ R.T) @ w
        Qg += MASS[j] * g @ v
    return M, Qg


def fourier(samples):
    """Trigonometric interpolant of 2pi-periodic samples: f(t), f'(t)."""
    N = len(samples)
    c = np.fft.rfft(samples) / N
    kk = np.arange(len(c))
    keep = np.abs(c) > 1e-8 * np.abs(c).max()  # drops the differencing noise (~1e-11)
    c, kk = c[keep], kk[keep]
    w = np.where(kk == 0, 1.0, 2.0)
    if N % 2 == 0:
        w = np.where(kk == N // 2, 1.0, w)

    def f(t):
        e = np.exp(1j * kk * t)
        return float(np.real(np.sum(w * c * e))), float(np.real(np.sum(w * c * 1j * kk * e)))
    return f


# ---------------------------------------------------------------------------------------------
# YAML output
# ---------------------------------------------------------------------------------------------
def num(v):
    """A computed number with 17 significant digits (exact round trip); zero as 0."""
    v = float(v) + 0.0
    if v == 0.0:
        return "0"
    s = "%.17g" % v
    assert float(s) == v
    return s


def vec(v):
    return "[" + ", ".join(num(x) for x in v) + "]"


def given(v):
    """A chosen (decimal) datum, as chosen: shortest round-trip form."""
    return repr(float(v))


def shape_lines(w, j):
    """The drawn shape of body j (viewer and VTK only; sizes from the data above)."""
    def c3(v):
        return "[" + ", ".join("%.6g" % (round(float(a), 9) + 0.0) for a in v) + "]"
    w("    shape:")
    if j == 0:  # shaft, flywheel, and per pin two webs and the pin (webs along body y or z)
        steel, dark = "[0.62, 0.64, 0.68]", "[0.45, 0.47, 0.52]"
        w(f"      - {{type: cylinder, radius: 0.022, length: {l_cs:.6g}, axis: [1, 0, 0], "
          f"center: {c3([pin_x[0] - 0.075 + l_cs / 2 - xG, 0, 0])}, color: {steel}}}")
        w(f"      - {{type: cylinder, radius: {R_fw:.6g}, length: 0.03, axis: [1, 0, 0], "
          f"center: {c3([x_fw - xG, 0, 0])}, color: {dark}}}")
        for k in range(NPIN):
            d = np.array([0.0, -math.sin(phis[k] * DEG), math.cos(phis[k] * DEG)])
            pin = np.array([pin_x[k] - xG, 0.0, 0.0]) + r * d
            w(f"      - {{type: cylinder, radius: 0.02, length: {4 * dxb:.6g}, axis: [1, 0, 0], "
              f"center: {c3(pin)}, color: {steel}}}")
            for sgn in (-1, 1):
                size = [0.012, 0.05 + r * abs(d[1]), 0.05 + r * abs(d[2])]
                cen = np.array([pin_x[k] - xG + sgn * (2 * dxb + 0.006), 0.0, 0.0]) + 0.5 * r * d
                w(f"      - {{type: box, size: {c3(size)}, center: {c3(cen)}, color: {dark}}}")
    elif j <= NCYL:  # conrod: a capsule from the big end to the small end, the big-end eye
        w(f"      - {{type: capsule, radius: 0.007, length: {L:.6g}, axis: [0, 0, 1], "
          f"center: {c3(0.5 * (P_big + P_small))}, color: [0.80, 0.55, 0.30]}}")
        w(f"      - {{type: cylinder, radius: 0.024, length: 0.02, axis: [1, 0, 0], "
          f"center: {c3(P_big)}, color: [0.80, 0.55, 0.30]}}")
    else:  # piston: a cylinder of the bore, pin near its skirt
        w(f"      - {{type: cylinder, radius: {B / 2 - 0.001:.6g}, length: 0.06, axis: [0, 0, 1], "
          f"center: {c3(P_pin + np.array([0.0, 0.0, 0.02]))}, color: [0.75, 0.78, 0.82]}}")


def write_yaml(path, poses, joints, T0, est):
    L_ = []
    w = L_.append
    w("# V8 crank drive: crankshaft (with flywheel), 8 connecting rods, 8 pistons; a 90-degree V8,")
    w("# cross-plane crank, started from rest and accelerated by a torque on the crankshaft.")
    w("# GENERATED by scripts/gen-crank-v8.py -- edit the script, not this file. See docs/crank-v8.md.")
    w("#")
    w("# Source: Sherif, Nachbagauer, Steiner & Lauß (2019, modified HHT with Euler parameters), Sec.")
    w("# 10.2, simulates a V8 crank drive of 17 bodies, 119 coordinates, 118 constraints under a")
    w("# crankshaft torque; its data are not public. The topology follows it; the DATA ARE OUR OWN.")
    w("#")
    w("# Frames: spatial x = crankshaft axis (front -> rear), z up, gravity (0, 0, -9.81). Crank angle")
    w("# theta about +x; crank pin k points along rotx(phi_k + theta) z = (0, -sin, cos). Cylinder i")
    w("# (1..8) sits on pin k = ceil(i/2): odd i = left bank (y < 0, axis rotx(+45 deg) z), even i =")
    w("# right bank (y > 0, axis rotx(-45 deg) z). Cylinder axes cross the crank axis (no pin offset).")
    w("# Initial state: theta = 0, all joints closed (computed), every velocity zero.")
    w("#")
    w("# Data (each chosen; reason):")
    for key, (val, unit, why) in D.items():
        sval = ", ".join("%g" % x for x in val) if isinstance(val, list) else "%.6g" % val
        w(f"#   {key:8s} {sval + ' ' + unit:32s} {why}")
    w("# Derived:")
    w(f"#   crankshaft assembly mass {m_crank:g} kg, CoM on the axis at x = {xG:.6g} m; J about the CoM =")
    w(f"#   diag({Jxx_crank:.6g}, {Jt_crank:.6g}, {Jt_crank:.6g}) kg m^2 (disc m R^2/2 + crank; transverse:")
    w("#   rod m l^2/12 + disc m R^2/4 + parallel-axis terms). Displacement"
      f" 8 pi/4 bore^2 2r = {8 * math.pi / 4 * B**2 * 2 * r * 1e3:.3f} L.")
    w("#   Body frames: crankshaft = spatial at theta = 0; conrod: x = pin axis (spatial x), z = long axis")
    w("#   big end -> small end (orientation = rotation about x taking z to the rod); piston: x = pin")
    w("#   axis, z = cylinder axis (outward), y = z cross x. All inertia tensors are diagonal in them.")
    w("#")
    w("# Joints (non-redundant):")
    w("#   main-bearing   revolute   ground-crankshaft about x through the origin          5 eqs")
    w("#   big-end-i      spherical  crankshaft-conrod-i at the crank-pin point             3 x 8")
    w("#   piston-pin-i   universal  conrod-i-piston-i at the piston pin; axis = x fixed in the")
    w("#                             conrod, axis2 = e_i cross x fixed in the piston (its body y),")
    w("#                             perpendicular to x and to the cylinder axis e_i        4 x 8")
    w("#   cylinder-i     prismatic  ground-piston-i along the cylinder axis e_i            5 x 8")
    w("# Counts: 17 bodies; 17 x 6 = 102 DOF - (5 + 8 x 12 = 101) joint equations = 1 DOF (the crank")
    w("# angle). Euler formulation: 17 x 7 = 119 coordinates, 101 + 17 unit-norm = 118 constraints.")
    w("# The all-revolute planar topology (revolute + revolute + prismatic) would give 125 equations of")
    w("# rank 101: 3 redundant per cylinder. This one has rank 101 (full) at every crank angle checked,")
    w("# dead centres included (scripts/gen-crank-v8.py, check 4).")
    w("#")
    rf = est["ref"]
    w("# Load: torque (T0, 0, 0) on the crankshaft, spatial frame, ramp 0 -> T0 over [0, 1] s, then")
    w("# constant. Effective inertia about the crank axis (exact kinematics, 720 angles):")
    w(f"#   I_eff = {est['mean']:.6g} kg m^2 mean, {est['min']:.6g} .. {est['max']:.6g}"
      " (a 4 theta ripple: the")
    w("#   harmonics 1-3 of the reciprocating inertia cancel over the 8 cylinders);")
    w("#   two-mass estimate J_crank + 8 [m_rod (L-a)/L r^2 + (m_pis + m_rod a/L) r^2 (1/2 + r^2/(8 L^2))]")
    w(f"#   = {est['two_mass']:.6g}; rough J_crank + 8 (m_pis + m_rod/2) r^2/2 = {est['rough']:.6g}.")
    w(f"# T0 = 100 rad/s^2 x I_eff, rounded to 0.1 N m: {T0:g} N m -> {T0 / est['mean']:.4g} rad/s^2"
      " after the ramp.")
    w(f"# Max |gravity torque| about x: {est['qg']:.3g} N m (4 theta). Reference, reduced 1-DOF equation")
    w("# M(th) th'' + M'(th) th'^2/2 = T(t) + Q_g(th), RK4 dt 1e-4 (error about 1e-7 relative):")
    w(f"#   t = 1: theta = {rf['th1']:.10g} rad, omega = {rf['w1']:.10g} rad/s")
    w(f"#   t = 9: theta = {rf['th9']:.8g} rad, omega = {rf['w9']:.8g} rad/s"
      f" ({rf['w9'] * 30 / math.pi:.0f} rpm)")
    w("name: crank-v8")
    w('description: "V8 crank drive, 17 bodies (topology of Sherif et al. 2019, Sec. 10.2; our own data)"')
    w("gravity: [" + ", ".join(given(v) if v else "0" for v in g) + "]")
    w("bodies:")
    for j, n in enumerate(NAMES):
        x, R = poses[j]
        J = np.diag(JB[j])
        w(f"  - name: {n}")
        w(f"    mass: {given(MASS[j]) if j else num(MASS[j])}")
        w("    inertia: " + ("[" + ", ".join(given(v) for v in J) + "]" if j else vec(J)))
        w("    position: " + vec(x))
        w("    orientation: " + vec(quat_of(R)))
        w("    angular_velocity: [0, 0, 0]")
        w("    velocity: [0, 0, 0]")
        shape_lines(w, j)
    w("joints:")
    for jt in joints:
        w(f"  - name: {jt['name']}")
        w(f"    type: {jt['type']}")
        w(f"    body1: {jt['body1']}")
        w(f"    body2: {jt['body2']}")
        w("    at: " + vec(jt["at"]))
        if "axis" in jt:
            w("    axis: " + vec(jt["axis"]))
        if "axis2" in jt:
            w("    axis2: " + vec(jt["axis2"]))
    w("loads:")
    w("  - body: crankshaft")
    w("    type: torque")
    w("    frame: spatial")
    w(f"    value: [{given(T0)}, 0, 0]")
    w("    time: {shape: ramp, t0: 0, t1: 1}")
    w("# The paper's setting, kept on purpose: hht-modified on Euler parameters. It is not the fast")
    w("# one: 1 s of motion costs 6.4 s CPU as shipped, 3.8 s with --newton-reuse on, 2.2 s with")
    w("# --formulation so3xr3 and 0.9 s with both (the crankshaft's speed at 1 s agrees to 6e-6")
    w("# rad/s; docs/performance.md).")
    w("integrator:")
    w("  name: hht-modified")
    w("  formulation: euler")
    w("  dt: 1.0e-4")
    w("  t_end: 9.0")
    w("  alpha: -0.3")
    w("output:")
    w("  plot: [crankshaft.omega, conrod-1.pos, energy]")
    with open(path, "w", encoding="utf-8") as f:
        f.write("\n".join(L_) + "\n")


# ---------------------------------------------------------------------------------------------
# Checks
# ---------------------------------------------------------------------------------------------
FAIL = []
TOL = 1e-12


def check(what, err, tol=TOL):
    ok = err <= tol
    print(f"  {'ok  ' if ok else 'FAIL'} {what}: {err:.3g} (tol {tol:g})")
    if not ok:
        FAIL.append(what)


def written_poses(poses):
    """The poses as the YAML holds them: positions and quaternions through their 17-digit text."""
    return [(np.array([float(num(v)) for v in x]), rot_of([float(num(v)) for v in quat_of(R)]))
            for x, R in poses]


def verify_design(P, joints, written_quats):
    """Joint equations with the bodies' own (design) geometry at the written poses P, and the
    body-frame data that follow from the spatial joint data against that geometry."""
    print("check 1: joint equations at t0 with the design geometry, written poses (|Phi|_inf)")
    xc, Rc = P[0]
    e_main = [np.max(np.abs(xc + Rc @ P_bearing)), abs((Rc @ X) @ EY), abs((Rc @ X) @ EZ)]
    check("main-bearing revolute (point on the origin, axis along x)", max(e_main))
    es, eu, ep, el, eax = [], [], [], [], []
    for i, c in enumerate(cyl):
        xr, Rr = P[1 + i]
        xp, Rp = P[1 + NCYL + i]
        big_c, big_r = xc + Rc @ P_crank[i], xr + Rr @ P_big
        es.append(np.max(np.abs(big_c - big_r)))
        small_r, pin_p = xr + Rr @ P_small, xp + Rp @ P_pin
        eu.append(max(np.max(np.abs(small_r - pin_p)), abs((Rr @ X) @ (Rp @ EY))))
        d = pin_p - c["o"]
        gy = np.cross(c["e"], X)
        ep.append(max(abs(d @ X), abs(d @ gy), abs((Rp @ EZ) @ X), abs((Rp @ EZ) @ gy),
                      abs((Rp @ X) @ gy)))
        el.append(abs(np.linalg.norm(small_r - big_r) - L))
        eax.append(max(np.max(np.abs(Rr @ EZ - (small_r - big_r) / L)), abs((Rr @ X) @ X - 1),
                       abs((Rp @ EZ) @ c["e"] - 1), abs((Rp @ X) @ X - 1)))
    check("big-end spherical x8 (crank pin = conrod big end)", max(es))
    check("piston-pin universal x8 (small end = piston pin; conrod x . piston y = 0)", max(eu))
    check("cylinder prismatic x8 (pin on the cylinder axis; piston z || e, x || x)", max(ep))
    check("conrod length |small end - big end| - L", max(el))
    check("body frames (conrod z = rod direction, x = x; piston z = e)", max(eax))
    check("unit quaternions |q| - 1 (as written)", max(abs(np.linalg.norm(q) - 1) for q in written_quats))

    print("check 2: body-frame attachment data from the spatial joint data vs the design")
    design = {"main-bearing": (None, P_bearing)}
    for i in range(NCYL):
        n = i + 1
        design[f"big-end-{n}"] = (P_crank[i], P_big)
        design[f"piston-pin-{n}"] = (P_small, P_pin)
        design[f"cylinder-{n}"] = (None, P_pin)
    ept, eaxs, eperp, enorm = [], [], [], []
    for jt in joints:
        b = bind(jt, P)
        d1, d2 = design[jt["name"]]
        if d1 is not None:
            ept.append(np.max(np.abs(b["p1"] - d1)))
        else:  # ground side: the spatial point itself
            ept.append(0.0)
        ept.append(np.max(np.abs(b["p2"] - d2)))
        enorm.append(abs(np.linalg.norm(jt["axis"]) - 1) if "axis" in jt else 0.0)
        if jt["type"] == "universal":
            eaxs.append(np.max(np.abs(b["a1"] - X)))  # conrod body x
            eaxs.append(np.max(np.abs(b["a2"] - EY)))  # piston body y
            eperp.append(abs(jt["axis"] @ jt["axis2"]))
            enorm.append(abs(np.linalg.norm(jt["axis2"]) - 1))
        if jt["type"] == "prismatic":
            eaxs.append(np.max(np.abs(P[IDX[jt["body2"]]][1].T @ jt["axis"] - EZ)))  # piston z
            i = int(jt["name"].split("-")[1]) - 1
            eaxs.append(np.linalg.norm(np.cross(jt["at"] - cyl[i]["o"], cyl[i]["e"])))
        if jt["type"] == "revolute":
            eaxs.append(np.max(np.abs(b["a1"] - X)))
    check("attachment points R^T (at - x) = design body points", max(ept))
    check("axes in body frames (universal: conrod x, piston y; prismatic: piston z, line)", max(eaxs))
    check("universal axis . axis2 (perpendicular)", max(eperp))
    check("|axis| = |axis2| = 1", max(enorm))
    n_eq = sum(NEQ[j["type"]] for j in joints)
    print(f"  joint equations: {n_eq}  (expected 5 + 8 x 12 = 101)")
    if n_eq != 101:
        FAIL.append("equation count")


def verify_motion(joints, P0):
    """Closure along a revolution with the loader's binding, and the Jacobian rank."""
    print("check 3: joint equations along a revolution (bodies bound at t0, as a loader does)")
    binds = [bind(j, P0) for j in joints]
    worst = max(np.max(np.abs(all_residuals(joints, binds, configuration(t))))
                for t in np.linspace(0, 2 * math.pi, 73))
    check("max |Phi| over theta in [0, 2pi] (73 angles)", worst)
    print("check 4: rank of the 101 x 102 joint Jacobian (spatial twists), incl. dead centres")
    # dead centres: theta = 45 deg: cylinders 1, 6 at TDC, 4, 7 at BDC; 135 deg: 5, 8 TDC, 2, 3 BDC
    angles = [0.0, 45.0, 135.0, 10.0, 200.0]
    dead = {45.0: " (TDC 1, 6; BDC 4, 7)", 135.0: " (TDC 5, 8; BDC 2, 3)"}
    for t in angles:
        Jm = jacobian(joints, binds, configuration(t * DEG))
        sv = np.linalg.svd(Jm, compute_uv=False)
        rank = int(np.sum(sv > 1e-8 * sv[0]))
        ok = rank == 101
        print(f"  {'ok  ' if ok else 'FAIL'} theta = {t:5.1f} deg: rank {rank} of {Jm.shape[0]},"
              f" sigma_min {sv[-1]:.3g}, sigma_max {sv[0]:.3g}{dead.get(t, '')}")
        if not ok:
            FAIL.append(f"rank at {t}")
    print("  (for comparison, not written) other topologies at theta = 0 and 45 deg:")
    for variant, what in (("revolute", "revolute + revolute + prismatic"),
                          ("uaxis", "universal with axis2 = cylinder axis"),
                          ("spherical", "spherical + spherical + prismatic")):
        jv = make_joints(P0, variant)
        bv = [bind(j, P0) for j in jv]
        out = []
        for t in (0.0, 45.0):
            Jm = jacobian(jv, bv, configuration(t * DEG))
            sv = np.linalg.svd(Jm, compute_uv=False)
            rank = int(np.sum(sv > 1e-8 * sv[0]))
            out.append(f"theta {t:4.1f}: {Jm.shape[0]} eqs, rank {rank}")
        print(f"    {what:38s} " + "; ".join(out))


def effective_inertia(n=720):
    th = np.arange(n) * 2 * math.pi / n
    MQ = np.array([reduced_terms(t) for t in th])
    m_recip = m_pis + m_rod * a_rod / L
    m_rot = m_rod * (L - a_rod) / L
    lam = r / L
    est = dict(mean=float(MQ[:, 0].mean()), min=float(MQ[:, 0].min()), max=float(MQ[:, 0].max()),
               qg=float(np.abs(MQ[:, 1]).max()),
               two_mass=Jxx_crank + NCYL * (m_rot * r**2 + m_recip * r**2 * (0.5 + lam**2 / 8)),
               rough=Jxx_crank + NCYL * (m_pis + m_rod / 2) * r**2 / 2,
               M=fourier(MQ[:, 0]), Q=fourier(MQ[:, 1]))
    return est


def reference(est, T0, dt=1e-4, t_end=9.0):
    """RK4 on M(th) th'' + M'(th)/2 th'^2 = T0 ramp(t) + Q_g(th), from rest at th = 0."""
    M, Q = est["M"], est["Q"]

    def f(t, y):
        m, dm = M(y[0] % (2 * math.pi))
        q, _ = Q(y[0] % (2 * math.pi))
        tq = T0 * min(max(t, 0.0), 1.0)
        return np.array([y[1], (tq + q - 0.5 * dm * y[1] ** 2) / m])

    y, t, out = np.zeros(2), 0.0, {}
    nsteps = int(round(t_end / dt))
    for k in range(nsteps):
        k1 = f(t, y)
        k2 = f(t + dt / 2, y + dt / 2 * k1)
        k3 = f(t + dt / 2, y + dt / 2 * k2)
        k4 = f(t + dt, y + dt * k3)
        y = y + dt / 6 * (k1 + 2 * k2 + 2 * k3 + k4)
        t = (k + 1) * dt
        if k + 1 == int(round(1.0 / dt)):
            out.update(th1=y[0], w1=y[1])
    out.update(th9=y[0], w9=y[1])
    return out


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    here = os.path.dirname(os.path.abspath(__file__))
    ap.add_argument("-o", "--output", default=os.path.join(here, "..", "models", "crank-v8.yaml"))
    args = ap.parse_args()

    poses = configuration(0.0)
    joints = make_joints(poses)
    P = written_poses(poses)
    print(f"V8 crank drive: {len(NAMES)} bodies, {sum(NEQ[j['type']] for j in joints)} joint equations,"
          f" euler: {7 * len(NAMES)} coordinates, {sum(NEQ[j['type']] for j in joints) + len(NAMES)}"
          " constraints")
    verify_design(P, joints, [[float(num(v)) for v in quat_of(R)] for _, R in poses])
    verify_motion(joints, P)

    est = effective_inertia()
    T0 = round(alpha_target * est["mean"], 1)
    print("effective inertia about the crank axis (kg m^2):")
    print(f"  J_crank (crankshaft + flywheel)                      {Jxx_crank:.6g}")
    print(f"  rough J_crank + 8 (m_pis + m_rod/2) r^2/2            {est['rough']:.6g}")
    print(f"  two-mass J_crank + 8 [m_rot r^2 + m_rec r^2 (1/2 + lambda^2/8)]  {est['two_mass']:.6g}")
    print(f"  exact kinematics, mean over a revolution             {est['mean']:.6g}"
          f"  (min {est['min']:.6g}, max {est['max']:.6g})")
    print(f"  max |gravity torque| about x                         {est['qg']:.4g} N m")
    print(f"T0 = round({alpha_target:g} * I_eff, 0.1) = {T0:g} N m  ->  {T0 / est['mean']:.4g} rad/s^2")
    est["ref"] = reference(est, T0)
    rf = est["ref"]
    print(f"reference (reduced 1-DOF equation, RK4, dt 1e-4): theta(1) = {rf['th1']:.8g} rad,"
          f" omega(1) = {rf['w1']:.8g} rad/s; theta(9) = {rf['th9']:.8g} rad,"
          f" omega(9) = {rf['w9']:.8g} rad/s")
    if FAIL:
        print("FAILED: " + ", ".join(FAIL), file=sys.stderr)
        return 1
    out = os.path.normpath(args.output)
    write_yaml(out, poses, joints, T0, est)
    print(f"all checks passed; wrote {out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
