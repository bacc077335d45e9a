#!/usr/bin/python3
"""Generate the IFToMM multibody benchmark models (and a plain four-bar) into models/.

usage: scripts/gen-iftomm.py [-o DIR] [--check]

The models are written as a user of Adams or Exudyn writes them: bodies with their mass and
their inertia about the centre of mass, revolute joints wherever the benchmark has revolute
joints (closed loops included: their constraint rows are redundant in space), every position,
joint point and joint axis in the spatial frame at the initial configuration, and only the
velocity that drives the mechanism (the library finds the rest from the joints).

  models/four-bar.yaml            a Grashof crank-rocker four-bar (our data), crank at 2 pi rad/s
  models/simple-pendulum.yaml     IFToMM A01, simple pendulum
  models/n-four-bar-revolute.yaml IFToMM A02, N-four-bar (N = 40), all joints revolute
  models/andrews-squeezer.yaml    IFToMM A03 / Test Set for IVP solvers "andrews" (Hairer &
                                  Wanner II, Sec. VII.7), the seven-body mechanism
  models/bricard.yaml             IFToMM A04, Bricard mechanism (overconstrained 6R loop)
  models/flyball-governor.yaml    IFToMM A05, stiff flyball governor

Sources (the numbers and where each comes from: docs/iftomm-data.md):
  M. Gonzalez, D. Dopico, U. Lugris, J. Cuadrado, "A benchmarking system for MBS simulation
  software: problem standardization and performance measurement", Multibody System Dynamics
  16 (2006) 179-190, and the problem specifications of its library (A01..A05, 2005);
  F. Mazzia, C. Magherini, "Test Set for IVP Solvers", release 2.4, University of Bari
  (2008), problem "andrews" (Andrews' squeezing mechanism); E. Hairer, G. Wanner, "Solving
  Ordinary Differential Equations II", 2nd ed., Springer (1996), Sec. VII.7.

Every joint is checked here: each body carries its own copy of the joint point (from its own
geometry: lengths, angles, offsets), and the two copies must coincide in space, as must the
two bodies' copies of a revolute axis (assertions, to 1e-12 of the model's size). The Bricard
mechanism's constraint Jacobian is checked to leave one degree of freedom, and gravity to
move it from rest. Standard library only.
"""
import argparse
import math
import os
import sys

# ----------------------------------------------------------------------------------------------
# small vector algebra (3-vectors as tuples, 3x3 matrices as tuples of rows)


def add(a, b):
    return tuple(x + y for x, y in zip(a, b))


def sub(a, b):
    return tuple(x - y for x, y in zip(a, b))


def mul(s, a):
    return tuple(s * x for x in a)


def dot(a, b):
    return sum(x * y for x, y in zip(a, b))


def cross(a, b):
    return (a[1] * b[2] - a[2] * b[1], a[2] * b[0] - a[0] * b[2], a[0] * b[1] - a[1] * b[0])


def norm(a):
    return math.sqrt(dot(a, a))


def unit(a):
    n = norm(a)
    assert n > 0
    return mul(1.0 / n, a)


def matvec(m, v):
    return tuple(dot(row, v) for row in m)


def transpose(m):
    return tuple(tuple(m[j][i] for j in range(3)) for i in range(3))


def from_columns(c1, c2, c3):
    return tuple((c1[i], c2[i], c3[i]) for i in range(3))


def rotz(angle):
    c, s = math.cos(angle), math.sin(angle)
    return ((c, -s, 0.0), (s, c, 0.0), (0.0, 0.0, 1.0))


IDENTITY = ((1.0, 0.0, 0.0), (0.0, 1.0, 0.0), (0.0, 0.0, 1.0))


def quat_from_matrix(m):
    """Unit quaternion [w, x, y, z] of a rotation matrix (body -> spatial), w >= 0."""
    t = m[0][0] + m[1][1] + m[2][2]
    if t > 0:
        s = 2.0 * math.sqrt(1.0 + t)
        q = (0.25 * s, (m[2][1] - m[1][2]) / s, (m[0][2] - m[2][0]) / s, (m[1][0] - m[0][1]) / s)
    elif m[0][0] > m[1][1] and m[0][0] > m[2][2]:
        s = 2.0 * math.sqrt(1.0 + m[0][0] - m[1][1] - m[2][2])
        q = ((m[2][1] - m[1][2]) / s, 0.25 * s, (m[0][1] + m[1][0]) / s, (m[0][2] + m[2][0]) / s)
    elif m[1][1] > m[2][2]:
        s = 2.0 * math.sqrt(1.0 + m[1][1] - m[0][0] - m[2][2])
        q = ((m[0][2] - m[2][0]) / s, (m[0][1] + m[1][0]) / s, 0.25 * s, (m[1][2] + m[2][1]) / s)
    else:
        s = 2.0 * math.sqrt(1.0 + m[2][2] - m[0][0] - m[1][1])
        q = ((m[1][0] - m[0][1]) / s, (m[0][2] + m[2][0]) / s, (m[1][2] + m[2][1]) / s, 0.25 * s)
    if q[0] < 0:
        q = tuple(-x for x in q)
    n = math.sqrt(sum(x * x for x in q))
    return tuple(x / n for x in q)


def matrix_from_quat(q):
    w, x, y, z = q
    return ((1 - 2 * (y * y + z * z), 2 * (x * y - w * z), 2 * (x * z + w * y)),
            (2 * (x * y + w * z), 1 - 2 * (x * x + z * z), 2 * (y * z - w * x)),
            (2 * (x * z - w * y), 2 * (y * z + w * x), 1 - 2 * (x * x + y * y)))


# ----------------------------------------------------------------------------------------------
# the model: bodies with body-fixed points and axes; joints between named points


class Body:
    """A rigid body: centre of mass x (spatial), rotation R (body -> spatial), principal
    moments about the centre of mass along the body axes, and body-fixed points and axes in
    body coordinates relative to the centre of mass (each from the body's own geometry)."""

    def __init__(self, name, mass, inertia, x, R=IDENTITY):
        self.name, self.mass, self.inertia, self.x, self.R = name, mass, tuple(inertia), tuple(x), R
        self.points, self.axes, self.shapes = {}, {}, []
        self.omega = None  # body-frame angular velocity, only where the benchmark gives it

    def point(self, name, p_body):
        self.points[name] = tuple(p_body)

    def point_spatial(self, name, p):
        """A point given spatially at the start, stored in body coordinates."""
        self.points[name] = matvec(transpose(self.R), sub(p, self.x))

    def axis(self, name, a_body):
        self.axes[name] = unit(a_body)

    def where(self, name):
        return add(self.x, matvec(self.R, self.points[name]))

    def direction(self, name):
        return matvec(self.R, self.axes[name])

    def bar(self, p, q, radius, color=None):
        """A cylinder from body point p to body point q (body coordinates), drawn only."""
        d = sub(q, p)
        s = {"type": "cylinder", "radius": radius, "length": norm(d), "axis": unit(d),
             "center": mul(0.5, add(p, q))}
        if color:
            s["color"] = color
        self.shapes.append(s)

    def bar_spatial(self, p, q, radius, color=None):
        Rt = transpose(self.R)
        self.bar(matvec(Rt, sub(p, self.x)), matvec(Rt, sub(q, self.x)), radius, color)


class Ground:
    name = "ground"

    def __init__(self):
        self.points, self.axes = {}, {}

    def point(self, name, p):
        self.points[name] = tuple(p)

    def axis(self, name, a):
        self.axes[name] = unit(a)

    def where(self, name):
        return self.points[name]

    def direction(self, name):
        return self.axes[name]


def tidy(p):
    """A joint point to 15 significant digits (body1's copy; 0.29999999999999993 -> 0.3)."""
    return tuple(float("%.15g" % c) for c in p)


class Model:
    def __init__(self, name, size):
        self.name, self.size = name, size  # size: the model's length scale, for the checks
        self.bodies, self.joints, self.elements, self.loads = [], [], [], []
        self.ground = Ground()
        self.max_gap = 0.0

    def body(self, *args, **kw):
        b = Body(*args, **kw)
        self.bodies.append(b)
        return b

    def revolute(self, name, b1, p1, a1, b2, p2, a2):
        """A revolute joint: point p1 of b1 meets point p2 of b2, axis a1 of b1 is axis a2 of
        b2. Both copies are computed from each body's own geometry and must coincide."""
        x1, x2 = b1.where(p1), b2.where(p2)
        d1, d2 = b1.direction(a1), b2.direction(a2)
        gap = norm(sub(x1, x2))
        tilt = norm(cross(d1, d2))
        self.max_gap = max(self.max_gap, gap / self.size, tilt)
        assert gap <= 1e-12 * self.size, "%s: joint %s not closed: |x1 - x2| = %g m" % (self.name, name, gap)
        assert tilt <= 1e-12 and dot(d1, d2) > 0, "%s: joint %s: axes differ (|a1 x a2| = %g)" % (self.name, name, tilt)
        self.joints.append({"name": name, "type": "revolute", "body1": b1.name, "body2": b2.name,
                            "at": tidy(x1), "axis": d1})

    def prismatic(self, name, b1, p1, a1, b2, p2, a2):
        x1, x2 = b1.where(p1), b2.where(p2)
        d1, d2 = b1.direction(a1), b2.direction(a2)
        gap = norm(sub(x1, x2))
        tilt = norm(cross(d1, d2))
        assert gap <= 1e-12 * self.size and tilt <= 1e-12, "%s: joint %s" % (self.name, name)
        self.joints.append({"name": name, "type": "prismatic", "body1": b1.name, "body2": b2.name,
                            "at": tidy(x1), "axis": d1})


# ----------------------------------------------------------------------------------------------
# YAML output


def num(x):
    x = float("%.15g" % x)  # 15 significant digits: 0.29999999999999993 -> 0.3
    if x == 0.0:
        return "0"
    if x == int(x) and abs(x) < 1e15:
        return "%d" % int(x)
    return repr(x)


def clean(v, scale):
    """Round-off below 1e-15 of the model's size to zero (cos(pi/2) and the like)."""
    return tuple(0.0 if abs(c) < 1e-15 * scale else c for c in v)


def vec(v):
    return "[" + ", ".join(num(c) for c in v) + "]"


def shape_text(s, scale):
    parts = ["type: " + s["type"]]
    for k in ("radius", "length"):
        if k in s:
            parts.append("%s: %s" % (k, num(s[k])))
    if "size" in s:
        parts.append("size: " + vec(s["size"]))
    for k in ("axis", "center", "color"):
        if k in s:
            parts.append("%s: %s" % (k, vec(clean(s[k], scale if k != "color" else 1.0))))
    return "{" + ", ".join(parts) + "}"


def emit(model, header, description, gravity, integrator, output=None):
    sc = model.size
    out = []
    w = out.append
    for line in header:
        w(("# " + line).rstrip())
    w("name: " + model.name)
    w('description: "%s"' % description)
    w("gravity: " + vec(gravity))
    w("bodies:")
    for b in model.bodies:
        w("  - name: " + b.name)
        w("    mass: " + num(b.mass))
        w("    inertia: " + vec(b.inertia) + "        # principal moments about the centre of mass, body axes")
        w("    position: " + vec(clean(b.x, sc)))
        if b.R is not IDENTITY:
            w("    orientation: " + vec(clean(quat_from_matrix(b.R), 1.0)))
        if b.omega is not None:
            w("    angular_velocity: " + vec(clean(b.omega, 1.0)) + "   # body frame: the driving velocity")
        if b.shapes:
            w("    shape:")
            for s in b.shapes:
                w("      - " + shape_text(s, sc))
    w("joints:")
    for j in model.joints:
        w("  - {name: %s, type: %s, body1: %s, body2: %s, at: %s, axis: %s}"
          % (j["name"], j["type"], j["body1"], j["body2"], vec(clean(j["at"], sc)), vec(clean(j["axis"], 1.0))))
    if model.elements:
        w("elements:")
        for e in model.elements:
            w("  - {" + ", ".join("%s: %s" % (k, vec(clean(v, sc)) if isinstance(v, tuple) else
                                          (num(v) if isinstance(v, (int, float)) else v))
                                  for k, v in e.items()) + "}")
    if model.loads:
        w("loads:")
        for ld in model.loads:
            w("  - {" + ", ".join("%s: %s" % (k, vec(v) if isinstance(v, tuple) else v)
                                  for k, v in ld.items()) + "}")
    w("integrator:")
    for k, v in integrator:
        w("  %s: %s" % (k, v))
    if output:
        w("output:")
        for k, v in output:
            w("  %s: %s" % (k, v))
    return "\n".join(out) + "\n"


GEN = "generated by scripts/gen-iftomm.py; do not edit (edit and run the script)."
SRC_IFTOMM = ("M. Gonzalez, D. Dopico, U. Lugris, J. Cuadrado, \"A benchmarking system for MBS "
              "simulation software: problem standardization and performance measurement\", "
              "Multibody System Dynamics 16 (2006) 179-190, and its problem library (IFToMM "
              "library of computational benchmark problems)")


def wrap(text, width=96):
    words, lines, line = text.split(), [], ""
    for word in words:
        if line and len(line) + 1 + len(word) > width:
            lines.append(line)
            line = word
        else:
            line = word if not line else line + " " + word
    if line:
        lines.append(line)
    return lines


def rod_inertia(m, length, radius):
    """Round bar about its centre: axial m r^2/2, across m (3 r^2 + L^2)/12; body x along it."""
    return (m * radius * radius / 2.0, m * (3 * radius * radius + length * length) / 12.0,
            m * (3 * radius * radius + length * length) / 12.0)


def link_frame(p, q, up=(0.0, 0.0, 1.0)):
    """Rotation whose body x runs from p to q and whose body z is `up` (perpendicular)."""
    e1 = unit(sub(q, p))
    e3 = unit(sub(up, mul(dot(up, e1), e1)))
    return from_columns(e1, cross(e3, e1), e3)


# ----------------------------------------------------------------------------------------------
# four-bar: a Grashof crank-rocker (our data)

FB_GROUND, FB_CRANK, FB_COUPLER, FB_ROCKER = 1.0, 0.3, 1.1, 0.7  # m
FB_RHO = 1.0  # kg/m
FB_R = 0.015  # m, bar radius (inertia and drawing)
FB_THETA0 = math.pi / 2  # initial crank angle from +x
FB_OMEGA = 2 * math.pi  # rad/s, crank


def four_bar():
    a, b, c, d = FB_CRANK, FB_COUPLER, FB_ROCKER, FB_GROUND
    lengths = sorted([a, b, c, d])
    assert lengths[0] + lengths[3] < lengths[1] + lengths[2] and lengths[0] == a, "not a Grashof crank"
    A, D = (0.0, 0.0, 0.0), (d, 0.0, 0.0)
    B = (a * math.cos(FB_THETA0), a * math.sin(FB_THETA0), 0.0)
    # C: |C - B| = b, |C - D| = c, the branch above the line BD (the open assembly)
    bd = sub(D, B)
    L = norm(bd)
    s = (b * b - c * c + L * L) / (2 * L)
    h = math.sqrt(b * b - s * s)
    u = unit(bd)
    n = (-u[1], u[0], 0.0)
    C = add(add(B, mul(s, u)), mul(h, n))
    if C[1] < 0:
        C = add(add(B, mul(s, u)), mul(-h, n))
    m = Model("four-bar", d)
    G = m.ground
    G.point("A", A), G.point("D", D), G.axis("z", (0, 0, 1))
    bodies = {}
    for name, p, q, L_, pn, qn, color in (("crank", A, B, a, "A", "B", (0.85, 0.45, 0.2)),
                                          ("coupler", B, C, b, "B", "C", (0.36, 0.61, 0.84)),
                                          ("rocker", D, C, c, "D", "C", (0.45, 0.7, 0.35))):
        mass = FB_RHO * L_
        R = link_frame(p, q)
        body = m.body(name, mass, rod_inertia(mass, L_, FB_R), mul(0.5, add(p, q)), R)
        body.point(pn, (-L_ / 2, 0, 0))  # from the body's own length, not from p
        body.point(qn, (L_ / 2, 0, 0))
        body.axis("z", (0, 0, 1))
        body.bar((-L_ / 2, 0, 0), (L_ / 2, 0, 0), FB_R, color)
        bodies[name] = body
    crank, coupler, rocker = bodies["crank"], bodies["coupler"], bodies["rocker"]
    crank.omega = (0.0, 0.0, FB_OMEGA)  # body z = spatial z
    m.revolute("A", G, "A", "z", crank, "A", "z")
    m.revolute("B", crank, "B", "z", coupler, "B", "z")
    m.revolute("C", coupler, "C", "z", rocker, "C", "z")
    m.revolute("D", G, "D", "z", rocker, "D", "z")
    header = [
        "Four-bar linkage: a Grashof crank-rocker of four revolute joints about z,",
        "A (ground-crank), B (crank-coupler), C (coupler-rocker), D (rocker-ground). Our data.",
        GEN,
        "",
        "Lengths: ground AD %g m, crank AB %g m, coupler BC %g m, rocker DC %g m (s + l = %g <"
        % (d, a, b, c, a + b),
        "p + q = %g: Grashof, shortest link the crank, so the crank turns fully; not a" % (c + d),
        "parallelogram). Round bars of %g kg/m, radius %g m: inertia axial m r^2/2, across"
        % (FB_RHO, FB_R),
        "m (3 r^2 + L^2)/12 about each centre. Gravity 9.81 m/s^2 along -y. At the start the",
        "crank stands at %g deg from +x, C is the assembly above BD (the open one), and the crank"
        % math.degrees(FB_THETA0),
        "turns at 2 pi rad/s about +z: that is the only velocity given; the coupler's and the",
        "rocker's follow from the joints. The loop of four parallel hinges has 3 redundant",
        "constraint rows in space (5 x 4 = 20 rows, rank 17).",
        "Points at the start (m): A %s, B %s, C %s, D %s." % (vec(A), vec(clean(B, 1)), vec(C), vec(D)),
    ]
    integ = [("name", "genalpha"), ("formulation", "so3xr3"), ("dt", "1.0e-3"), ("t_end", "5.0"),
             ("rho_inf", "0.9")]
    return m, emit(m, header, "Four-bar crank-rocker on four revolute joints, crank driven at 2 pi rad/s",
                   (0, -9.81, 0), integ)


# ----------------------------------------------------------------------------------------------
# A01: simple pendulum


def simple_pendulum():
    L, M = 1.0, 1.0
    J = 1.0e-9  # a point mass: a tiny inertia, positive definite (see the header)
    m = Model("simple-pendulum", L)
    m.ground.point("O", (0, 0, 0)), m.ground.axis("z", (0, 0, 1))
    bob = m.body("bob", M, (J, J, J), (L, 0.0, 0.0))
    bob.point("O", (-L, 0, 0)), bob.axis("z", (0, 0, 1))
    bob.shapes.append({"type": "sphere", "radius": 0.05})
    bob.bar((-L, 0, 0), (0, 0, 0), 0.008, (0.75, 0.75, 0.78))
    m.revolute("pivot", m.ground, "O", "z", bob, "O", "z")
    header = [
        "Simple pendulum, IFToMM benchmark A01: a lumped mass of 1 kg on a massless link of 1 m",
        "(a revolute joint about z at the origin), gravity 9.81 N/kg along -y, 2000 s; at the",
        "start the link is horizontal with P1 at x = +1 m and the system is at rest (all",
        "velocities zero): the specification gives no initial velocity. The point mass gets",
        "a tiny inertia (%g kg m^2) so that J is positive definite; the joint holds its spin." % J,
        "(J about z lengthens the period by J/(2 m L^2): %g relative, %.0e m in P1 after 2000 s;"
        % (J / 2, 2e-3 * J / 1e-6),
        "1e-6 kg m^2 would already shift P1 by 2e-3 m there.)",
        "Step: the phase error grows with t. Against the exact solution (Jacobi elliptic",
        "functions), liedyn's genalpha (rho_inf 0.9, so3xr3) had a largest error of P1 over the",
        "4000 rows of 6.2e-3 m at dt = 5e-4, 1.6e-3 at 2.5e-4 and 4.0e-4 at 1.25e-4 (this file's",
        "step: within the benchmark's 1e-3; 16e6 steps, about 85 s of CPU).",
    ] + wrap("Source: " + SRC_IFTOMM + " (problem A01, specification of 2005-08-30).") + [
        "Accuracy: the time history of P1 (x, y),",
        "errors 1e-1 (low) and 1e-3 (high precision) at 4000 output steps: the output block",
        "writes a row every 0.5 s. Reference values: docs/iftomm-data.md.",
        GEN,
    ]
    integ = [("name", "genalpha"), ("formulation", "so3xr3"), ("dt", "1.25e-4"), ("t_end", "2000.0"),
             ("rho_inf", "0.9")]
    return m, emit(m, header, "Simple pendulum, IFToMM benchmark A01 (1 kg, 1 m, from rest, 2000 s)",
                   (0, -9.81, 0), integ, [("dt", "0.5")])


# ----------------------------------------------------------------------------------------------
# A02: N-four-bar, all joints revolute


def n_four_bar(n=40):
    L, M = 1.0, 1.0
    JT, JA = M * L * L / 12.0, 1e-4
    m = Model("n-four-bar-revolute", L)
    G = m.ground
    G.axis("z", (0, 0, 1))
    cranks, couplers = [], []
    for i in range(n + 1):
        G.point("A%d" % i, (float(i), 0.0, 0.0))
        c = m.body("crank%d" % i, M, (JT, JA, JT), (float(i), 0.5 * L, 0.0))
        c.point("A", (0, -0.5 * L, 0)), c.point("B", (0, 0.5 * L, 0)), c.axis("z", (0, 0, 1))
        c.shapes.append({"type": "box", "size": (0.06, L, 0.06)})
        cranks.append(c)
    for i in range(1, n + 1):
        c = m.body("coupler%d" % i, M, (JA, JT, JT), (i - 0.5 * L, L, 0.0))
        c.point("B-start", (-0.5 * L, 0, 0)), c.point("B-end", (0.5 * L, 0, 0)), c.axis("z", (0, 0, 1))
        c.shapes.append({"type": "box", "size": (L, 0.06, 0.06), "color": (0.36, 0.61, 0.84)})
        couplers.append(c)
    cranks[0].omega = (0.0, 0.0, -1.0)  # B0 at 1 m/s along +x
    for i in range(n + 1):
        m.revolute("A%d" % i, G, "A%d" % i, "z", cranks[i], "A", "z")
    for i in range(1, n + 1):
        m.revolute("B%d-coupler%d" % (i - 1, i), cranks[i - 1], "B", "z", couplers[i - 1], "B-start", "z")
        m.revolute("B%d-coupler%d" % (i, i), cranks[i], "B", "z", couplers[i - 1], "B-end", "z")
    header = [
        "N-four-bar mechanism, IFToMM benchmark A02, written with revolute joints only.",
    ] + wrap("Source: " + SRC_IFTOMM + " (problem A02).") + [
        GEN,
        "",
        "N = %d four-bar loops in a row: %d links of %g m with a uniformly distributed mass of %g kg"
        % (n, 2 * n + 1, L, M),
        "(slender rods: m L^2/12 across, a small 1e-4 kg m^2 along), gravity 9.81 N/kg along -y,",
        "20 s. At the start the cranks stand vertical (crank i from A_i = (i, 0, 0) to",
        "B_i = (i, 1, 0)), the couplers horizontal (coupler i from B_(i-1) to B_i), and point B0",
        "moves at 1 m/s along +x: the first crank turns at -1 rad/s about z. That is the only",
        "velocity given; the other cranks' and the couplers' follow from the joints.",
        "Joints: every one a revolute about z, %d of them (crank i to the ground at A_i; coupler"
        % (3 * n + 1),
        "i to crank i-1 at B_(i-1) and to crank i at B_i): each loop has 3 redundant constraint",
        "rows in space. When the links pass the horizontal the mechanism has N + 1 degrees of",
        "freedom for an instant (the benchmark's point). models/n-four-bar.yaml is the same",
        "mechanism with a non-redundant joint set and every crank's velocity given.",
        "Accuracy: the time history of B0 (x, y), errors 1e-1 / 1e-3 at 400 output steps (a row",
        "every 0.05 s here). Reference values: docs/iftomm-data.md.",
    ]
    integ = [("name", "genalpha"), ("formulation", "so3xr3"), ("dt", "1.0e-3"), ("t_end", "20.0"),
             ("rho_inf", "0.9")]
    return m, emit(m, header, "N-four-bar mechanism, IFToMM A02, N = %d, revolute joints only" % n,
                   (0, -9.81, 0), integ, [("dt", "0.05")])


# ----------------------------------------------------------------------------------------------
# A03: Andrews' squeezing mechanism (Test Set for IVP solvers, problem "andrews")

# Test Set data (andrews.f; the data of Hairer & Wanner II, Sec. VII.7), SI units
AW = dict(m1=.04325, m2=.00365, m3=.02373, m4=.00706, m5=.07050, m6=.00706, m7=.05498,
          xa=-.06934, ya=-.00227, xb=-0.03635, yb=.03273, xc=.014, yc=.072, c0=4530.0,
          i1=2.194e-6, i2=4.410e-7, i3=5.255e-6, i4=5.667e-7, i5=1.169e-5, i6=5.667e-7,
          i7=1.912e-5, d=28e-3, da=115e-4, e=2e-2, ea=1421e-5, rr=7e-3, ra=92e-5, l0=7785e-5,
          ss=35e-3, sa=1874e-5, sb=1043e-5, sc=18e-3, sd=2e-2, ta=2308e-5, tb=916e-5, u=4e-2,
          ua=1228e-5, ub=449e-5, zf=2e-2, zt=4e-2, fa=1421e-5, mom=33e-3)
# the consistent initial angles of the Test Set (subroutine init), as published
AW_Q0_TEXT = [("beta", "-0.0617138900142764496358948458001"),
              ("Theta", "0"),
              ("gamma", "0.455279819163070380255912382449"),
              ("Phi", "0.222668390165885884674473185609"),
              ("delta", "0.487364979543842550225598953530"),
              ("Omega", "-0.222668390165885884674473185609"),
              ("epsilon", "1.23054744454982119249735015568")]
# the Test Set's reference solution at t = 0.03 (subroutine solut): angles, then velocities
AW_REF_TEXT = [("beta", "0.1581077119629904e+2"), ("Theta", "-0.1575637105984298e+2"),
               ("gamma", "0.4082224013073101e-1"), ("Phi", "-0.5347301163226948e+0"),
               ("delta", "0.5244099658805304e+0"), ("Omega", "0.5347301163226948e+0"),
               ("epsilon", "0.1048080741042263e+1")]
AW_REF_VEL_TEXT = [("beta_dot", "0.1139920302151208e+4"), ("Theta_dot", "-0.1424379294994111e+4"),
                   ("gamma_dot", "0.1103291221937134e+2"), ("Phi_dot", "0.1929337464421385e+2"),
                   ("delta_dot", "0.5735699284790808e+0"), ("Omega_dot", "-0.1929337464421385e+2"),
                   ("epsilon_dot", "0.3231791658026955e+0")]


def e_(a):
    return (math.cos(a), math.sin(a), 0.0)


def eperp(a):
    return (-math.sin(a), math.cos(a), 0.0)


def andrews():
    p = AW
    q = {k: float(v) for k, v in AW_Q0_TEXT}
    be, th, ga, ph, de, om, ep = (q[k] for k in ("beta", "Theta", "gamma", "Phi", "delta", "Omega", "epsilon"))
    # the Test Set's constraints g(q) = 0 at the published start (andrews.f, g(1..6))
    g = [p["rr"] * math.cos(be) - p["d"] * math.cos(be + th) - p["ss"] * math.sin(ga) - p["xb"],
         p["rr"] * math.sin(be) - p["d"] * math.sin(be + th) + p["ss"] * math.cos(ga) - p["yb"],
         p["rr"] * math.cos(be) - p["d"] * math.cos(be + th) - p["e"] * math.sin(ph + de) - p["zt"] * math.cos(de) - p["xa"],
         p["rr"] * math.sin(be) - p["d"] * math.sin(be + th) + p["e"] * math.cos(ph + de) - p["zt"] * math.sin(de) - p["ya"],
         p["rr"] * math.cos(be) - p["d"] * math.cos(be + th) - p["zf"] * math.cos(om + ep) - p["u"] * math.sin(ep) - p["xa"],
         p["rr"] * math.sin(be) - p["d"] * math.sin(be + th) - p["zf"] * math.sin(om + ep) + p["u"] * math.cos(ep) - p["ya"]]
    assert max(abs(x) for x in g) < 1e-15, "andrews: the Test Set's start violates g by %g" % max(abs(x) for x in g)
    O, A, B, C = (0.0, 0.0, 0.0), (p["xa"], p["ya"], 0.0), (p["xb"], p["yb"], 0.0), (p["xc"], p["yc"], 0.0)
    m = Model("andrews-squeezer", 0.1)
    G = m.ground
    for name, pt in (("O", O), ("A", A), ("B", B), ("C", C)):
        G.point(name, pt)
    G.axis("z", (0, 0, 1))
    # absolute angle of each body's x axis (its angle variable), and its centre of mass from the
    # Test Set's kinematics (the mass matrix of andrews.f):
    a1, a2, a3, a4, a5, a6, a7 = be, be + th, ga, ph + de, de, om + ep, ep
    F = mul(p["rr"], e_(a1))                                      # O -> F, crank of length rr
    E = sub(F, mul(p["d"], e_(a2)))                               # F -> E, length d
    Gp = add(A, mul(p["zt"], e_(a5)))                             # A -> G, length zt
    H = sub(A, mul(p["u"], eperp(a7)))                            # A -> H, length u
    D = add(add(B, mul(p["sd"], e_(a3))), mul(-p["sc"], eperp(a3)))  # D on the lever BDE
    cm = [mul(p["ra"], e_(a1)),                                   # 1: ra from O along OF
          sub(F, mul(p["da"], e_(a2))),                           # 2: da from F along FE
          add(add(B, mul(p["sb"], e_(a3))), mul(-p["sa"], eperp(a3))),  # 3: sa along BE, sb toward D
          sub(Gp, mul(p["e"] - p["ea"], eperp(a4))),              # 4: e - ea from G along GE
          add(add(A, mul(p["ta"], e_(a5))), mul(p["tb"], eperp(a5))),   # 5: ta along AG, tb across
          add(H, mul(p["zf"] - p["fa"], e_(a6))),                 # 6: zf - fa from H along HE
          add(add(A, mul(-p["ua"], eperp(a7))), mul(p["ub"], e_(a7)))]  # 7: ua along AH, ub across
    names = ["crank-OF", "rod-FE", "lever-BDE", "rod-GE", "lever-AG", "rod-HE", "lever-AH"]
    masses = [p["m%d" % k] for k in range(1, 8)]
    moments = [p["i%d" % k] for k in range(1, 8)]
    angles = [a1, a2, a3, a4, a5, a6, a7]
    colors = [(0.85, 0.45, 0.2), (0.36, 0.61, 0.84), (0.45, 0.7, 0.35), (0.8, 0.7, 0.3),
              (0.6, 0.45, 0.75), (0.8, 0.7, 0.3), (0.6, 0.45, 0.75)]
    bd = []
    for k in range(7):
        J = moments[k]
        # planar bodies: J about z is the Test Set's; in the plane a thin lamina's J/2, J/2
        # (no effect on the planar motion, which the joints keep)
        b = m.body(names[k], masses[k], (J / 2, J / 2, J), cm[k], rotz(angles[k]))
        b.axis("z", (0, 0, 1))
        bd.append(b)
    b1, b2, b3, b4, b5, b6, b7 = bd
    # each body's joint points in its own coordinates (x along its angle variable, from the
    # Test Set's lengths), relative to its centre of mass
    b1.point("O", (-p["ra"], 0, 0)), b1.point("F", (p["rr"] - p["ra"], 0, 0))
    b2.point("F", (p["da"], 0, 0)), b2.point("E", (p["da"] - p["d"], 0, 0))
    c3 = (p["sb"], -p["sa"], 0.0)  # centre of mass of 3, from B, in its axes
    b3.point("B", mul(-1, c3)), b3.point("E", sub((0, -p["ss"], 0), c3)), b3.point("D", sub((p["sd"], -p["sc"], 0), c3))
    b4.point("G", (0, p["e"] - p["ea"], 0)), b4.point("E", (0, -p["ea"], 0))
    c5 = (p["ta"], p["tb"], 0.0)
    b5.point("A", mul(-1, c5)), b5.point("G", sub((p["zt"], 0, 0), c5))
    b6.point("H", (-(p["zf"] - p["fa"]), 0, 0)), b6.point("E", (p["fa"], 0, 0))
    c7 = (p["ub"], -p["ua"], 0.0)
    b7.point("A", mul(-1, c7)), b7.point("H", sub((0, -p["u"], 0), c7))
    assert norm(sub(b3.where("D"), D)) < 1e-15 and norm(sub(b5.where("G"), Gp)) < 1e-15
    assert norm(sub(b7.where("H"), H)) < 1e-15 and norm(sub(b2.where("E"), E)) < 1e-15
    # joints: O, F, E (three: rod FE is the hub of the bodies 2, 3, 4, 6), B, G, A (two), H
    m.revolute("O", G, "O", "z", b1, "O", "z")
    m.revolute("F", b1, "F", "z", b2, "F", "z")
    m.revolute("E-lever-BDE", b2, "E", "z", b3, "E", "z")
    m.revolute("E-rod-GE", b2, "E", "z", b4, "E", "z")
    m.revolute("E-rod-HE", b2, "E", "z", b6, "E", "z")
    m.revolute("B", G, "B", "z", b3, "B", "z")
    m.revolute("G", b4, "G", "z", b5, "G", "z")
    m.revolute("A-lever-AG", G, "A", "z", b5, "A", "z")
    m.revolute("H", b6, "H", "z", b7, "H", "z")
    m.revolute("A-lever-AH", G, "A", "z", b7, "A", "z")
    # the spring between D (lever BDE) and the ground point C; the motor torque on the crank
    m.elements.append({"name": "spring-CD", "type": "spring-damper", "body1": "ground", "body2": "lever-BDE",
                       "at1": C, "at2": b3.where("D"), "k": p["c0"], "l0": p["l0"]})
    m.loads.append({"body": "crank-OF", "type": "torque", "frame": "spatial", "value": (0, 0, p["mom"])})
    # drawing: bars between the joint points (radius 0.6 mm .. 1 mm)
    b1.bar(b1.points["O"], b1.points["F"], 0.0012, colors[0])
    b2.bar(b2.points["F"], b2.points["E"], 0.0008, colors[1])
    for u_, v_ in (("B", "D"), ("D", "E"), ("E", "B")):
        b3.bar(b3.points[u_], b3.points[v_], 0.0008, colors[2])
    b4.bar(b4.points["G"], b4.points["E"], 0.0008, colors[3])
    b5.bar(b5.points["A"], b5.points["G"], 0.0012, colors[4])
    b5.bar(b5.points["A"], (0, 0, 0), 0.0008, colors[4]), b5.bar((0, 0, 0), b5.points["G"], 0.0008, colors[4])
    b6.bar(b6.points["H"], b6.points["E"], 0.0008, colors[5])
    b7.bar(b7.points["A"], b7.points["H"], 0.0012, colors[6])
    b7.bar(b7.points["A"], (0, 0, 0), 0.0008, colors[6]), b7.bar((0, 0, 0), b7.points["H"], 0.0008, colors[6])
    L0 = norm(sub(b3.where("D"), C))
    ref = dict((k, float(v)) for k, v in AW_REF_TEXT)
    header = [
        "Andrews' squeezing mechanism (the seven-body mechanism), IFToMM benchmark A03.",
        "Sources: F. Mazzia, C. Magherini, \"Test Set for IVP Solvers\", release 2.4, University",
        "of Bari (2008), problem \"andrews\" (andrews.f: data, consistent initial values and the",
        "reference solution); E. Hairer, G. Wanner, \"Solving Ordinary Differential Equations II\",",
        "2nd ed., Springer (1996), Sec. VII.7 (the mechanism; Andrews' data);",
    ] + wrap(SRC_IFTOMM + " (problem A03).") + [
        GEN,
        "",
        "Planar, in the x-y plane, every joint a revolute about z; no gravity. Fixed points (m):",
        "O %s (the crank's pivot), A %s, B %s, C %s." % (vec(O), vec(A), vec(B), vec(C)),
        "Bodies (Test Set numbering, mass kg, J about the centre of mass about z kg m^2):",
    ] + ["  %d %-10s m = %-8s J = %s" % (k + 1, names[k], num(masses[k]), num(moments[k])) for k in range(7)] + [
        "Lengths (m): OF rr = %s, FE d = %s, BE ss = %s, AG zt = %s, GE e = %s, AH u = %s,"
        % (num(p["rr"]), num(p["d"]), num(p["ss"]), num(p["zt"]), num(p["e"]), num(p["u"])),
        "HE zf = %s; D on the lever BDE at sd = %s along and sc = %s across from B."
        % (num(p["zf"]), num(p["sd"]), num(p["sc"])),
        "Centres of mass (m): ra = %s from O along OF; da = %s from F along FE; (sa, sb) = (%s, %s)"
        % (num(p["ra"]), num(p["da"]), num(p["sa"]), num(p["sb"])),
        "from B along BE and toward D; e - ea = %s from G along GE; (ta, tb) = (%s, %s) from A"
        % (num(p["e"] - p["ea"]), num(p["ta"]), num(p["tb"])),
        "along AG and across; zf - fa = %s from H along HE; (ua, ub) = (%s, %s) from A along AH"
        % (num(p["zf"] - p["fa"]), num(p["ua"]), num(p["ub"])),
        "and across. The Test Set's equations fix only the distance of the centres of 3, 5, 7",
        "from their fixed pivots; the side across the line is ours (the motion does not depend",
        "on it: the pivot is fixed and there is no gravity). Out-of-plane moments J/2, J/2 (a",
        "lamina; the joints keep the motion planar).",
        "Spring: C - D, c0 = %s N/m, free length l0 = %s m (length at the start %.6f m)."
        % (num(p["c0"]), num(p["l0"]), L0),
        "Motor: a constant torque mom = %s N m about +z on the crank OF." % num(p["mom"]),
        "",
        "Start: the Test Set's consistent initial angles (rad), all velocities zero, so no",
        "velocity is given here:",
    ] + ["  %-8s = %s" % (k, v) for k, v in AW_Q0_TEXT] + [
        "Each body's x axis is at the absolute angle of its variable: crank beta, FE beta + Theta,",
        "BDE gamma, GE Phi + delta, AG delta, HE Omega + epsilon, AH epsilon (so beta = the",
        "crank's angle, Theta = FE's minus the crank's, Phi = GE's minus AG's, Omega = HE's minus",
        "AH's, each counted from +x, continuously through the turns).",
        "Joints: O, F, B, G, H, two at A (ground-AG and ground-AH) and three at E (FE-BDE, FE-GE,",
        "FE-HE): 10 revolutes, 7 x 6 - 1 = 41 independent rows of 50 (9 redundant in space).",
        "",
        "Reference solution at t = 0.03 s (Test Set, computed with PSIDE at rtol = atol = 1e-14;",
        "also in tests/data/andrews-reference.txt, with the velocities):",
    ] + ["  %-8s = %s" % (k, v) for k, v in AW_REF_TEXT] + [
        "(beta(0.03) = %.4f rad: the crank has turned %.2f revolutions from the start.)"
        % (ref["beta"], (ref["beta"] - be) / (2 * math.pi)),
        "liedyn's genalpha (rho_inf 0.9, so3xr3) at this file's step, 1e-5 s, ended 8.6e-5 rad",
        "from the reference beta (3.5e-4 at 2e-5, 2.2e-5 at 5e-6, 5.4e-6 at 2.5e-6: order 2).",
    ]
    integ = [("name", "genalpha"), ("formulation", "so3xr3"), ("dt", "1.0e-5"), ("t_end", "0.03"),
             ("rho_inf", "0.9")]
    return m, emit(m, header, "Andrews' squeezing mechanism, IFToMM A03 / Test Set 'andrews' (Hairer & Wanner)",
                   (0, 0, 0), integ, [("dt", "3.0e-4")])


def andrews_reference_text():
    lines = [
        "# Andrews' squeezing mechanism (IFToMM benchmark A03): the reference solution at t = 0.03 s",
        "# of the Test Set for IVP Solvers, problem \"andrews\".",
        "# Source: F. Mazzia, C. Magherini, \"Test Set for IVP Solvers\", release 2.4, Department of",
        "# Mathematics, University of Bari (2008), problem \"andrews\", file andrews.f, subroutine",
        "# solut (y(1..14)): \"computed at Cray C90, using Cray double precision: Solving Andrews'",
        "# squeezing mechanism using PSIDE, rtol = atol = 1d-14\". Every digit as published.",
        "# The problem and its data: E. Hairer, G. Wanner, \"Solving Ordinary Differential",
        "# Equations II\", 2nd ed., Springer (1996), Sec. VII.7.",
        "# Angles in rad (beta, Theta, gamma, Phi, delta, Omega, epsilon), velocities in rad/s.",
        "# In models/andrews-squeezer.yaml (scripts/gen-iftomm.py) body k's x axis sits at the",
        "# absolute angle: crank-OF beta, rod-FE beta + Theta, lever-BDE gamma, rod-GE Phi + delta,",
        "# lever-AG delta, rod-HE Omega + epsilon, lever-AH epsilon; the angles are continuous",
        "# (beta has grown by about 2.5 turns at t = 0.03), so unwrap a body's rotation about z.",
        "# format: NAME VALUE, one a line; '#' starts a comment",
        "t 0.03",
    ]
    lines += ["%s %s" % (k, v) for k, v in AW_REF_TEXT]
    lines += ["%s %s" % (k, v) for k, v in AW_REF_VEL_TEXT]
    return "\n".join(lines) + "\n"


# ----------------------------------------------------------------------------------------------
# A04: Bricard mechanism

BR_L, BR_M, BR_A = 1.0, 1.0, 0.1  # rod length, mass, square section (see the header)


def bricard():
    L, M, a = BR_L, BR_M, BR_A
    P = [(0.0, 0.0, 0.0), (L, 0.0, 0.0), (L, -L, 0.0), (L, -L, L), (0.0, -L, L), (0.0, 0.0, L)]
    # each hinge axis is perpendicular to both links that meet at it
    axes = [(0, 1, 0), (0, 0, 1), (1, 0, 0), (0, 1, 0), (0, 0, 1), (1, 0, 0)]
    m = Model("bricard", L)
    G = m.ground
    G.point("P0", P[0]), G.point("P5", P[5])
    G.axis("a0", axes[0]), G.axis("a5", axes[5])
    links = []
    Jax = M * (a * a + a * a) / 12.0
    Jtr = M * (L * L + a * a) / 12.0
    for k in range(1, 6):
        p, q = P[k - 1], P[k]
        e1 = unit(sub(q, p))
        e2 = unit(axes[k - 1])  # the hinge at the start of the link, perpendicular to it
        R = from_columns(e1, e2, cross(e1, e2))
        b = m.body("link%d" % k, M, (Jax, Jtr, Jtr), mul(0.5, add(p, q)), R)
        b.point("start", (-L / 2, 0, 0)), b.point("end", (L / 2, 0, 0))
        Rt = transpose(R)
        b.axis("start", matvec(Rt, axes[k - 1]))  # body-fixed hinge axes at both ends
        b.axis("end", matvec(Rt, axes[k]))
        assert abs(dot(b.axes["end"], (1, 0, 0))) < 1e-15  # the end hinge is across the link too
        b.shapes.append({"type": "box", "size": (L, a, a)})
        links.append(b)
    m.revolute("P0", G, "P0", "a0", links[0], "start", "start")
    for k in range(1, 5):
        m.revolute("P%d" % k, links[k - 1], "end", "end", links[k], "start", "start")
    m.revolute("P5", G, "P5", "a5", links[4], "end", "end")
    # check: one degree of freedom, and gravity moves it from rest
    dof, mode = mobility(m)
    assert dof == 1, "bricard: %d degrees of freedom, expected 1" % dof
    # power of gravity along the mode (mode = body twists (omega, v) stacked, spatial)
    power = sum(b.mass * -9.81 * mode[6 * i + 4] for i, b in enumerate(m.bodies))
    assert abs(power) > 1e-3 * max(abs(x) for x in mode), "bricard: starts in equilibrium"
    header = [
        "Bricard mechanism, IFToMM benchmark A04: an overconstrained spatial 6R loop that moves.",
    ] + wrap("Source: " + SRC_IFTOMM + " (problem A04); the geometry and the rods' section as in"
             " the OpenSim implementation of the benchmarks (L. Tagliapietra, M. Vivian,"
             " E. Ceseracciu, M. Reggiani, \"MBS benchmarks in OpenSim\", 2013-2015, problem A04).") + [
        GEN,
        "",
        "Five rods of %g m and %g kg (uniform, square section %g m: J = m (a^2 + a^2)/12 along,"
        % (L, M, a),
        "m (L^2 + a^2)/12 across), gravity 9.81 m/s^2 along -y, 10 s. The loop: ground point",
        "P0 = (0, 0, 0), rods P0-P1-P2-P3-P4-P5 with P1 = (1, 0, 0), P2 = (1, -1, 0), P3 = (1, -1, 1),",
        "P4 = (0, -1, 1), P5 = (0, 0, 1) (a ground point); the sixth side P5-P0 is the ground.",
        "Six revolute joints, at P0 .. P5, each axis perpendicular to the two links meeting there:",
        "y, z, x, y, z, x. Gruebler's count gives 6 x 5 - 6 x 5 = 0 degrees of freedom; the",
        "geometry gives 1 (the constraint Jacobian has rank 29 of 30 rows: checked by the script).",
        "The mechanism starts at rest in this position and moves under gravity (neither",
        "implementation we could read sets an initial velocity; the specification's own text",
        "could not be read: docs/iftomm-data.md). Accuracy: the position of P3 (the joint",
        "between link2 and link3, (1, -1, 0) at the start) over the 10 s.",
    ]
    integ = [("name", "genalpha"), ("formulation", "so3xr3"), ("dt", "1.0e-3"), ("t_end", "10.0"),
             ("rho_inf", "0.9")]
    return m, emit(m, header, "Bricard mechanism, IFToMM A04: five rods, six revolute joints in one loop",
                   (0, -9.81, 0), integ, [("dt", "0.01")])


def mobility(m):
    """Degrees of freedom of the joints' velocity equations at the start and a velocity mode.
    Unknowns per body: spatial angular velocity w and the centre's velocity v. A revolute
    joint: v2 + w2 x r2 - v1 - w1 x r1 = 0 (r from each centre to the joint point) and
    (w2 - w1) perpendicular to the axis (two rows)."""
    nb = len(m.bodies)
    idx = {b.name: i for i, b in enumerate(m.bodies)}
    rows = []
    for j in m.joints:
        at, ax = j["at"], j["axis"]
        t1 = unit(cross(ax, (1.0, 0.0, 0.0)) if abs(ax[0]) < 0.9 else cross(ax, (0.0, 1.0, 0.0)))
        t2 = cross(ax, t1)
        for comp in range(3):
            row = [0.0] * (6 * nb)
            for bname, sgn in ((j["body1"], -1.0), (j["body2"], 1.0)):
                if bname == "ground":
                    continue
                i = idx[bname]
                r = sub(at, m.bodies[i].x)
                # (w x r)_comp = sum_k w_k (e_k x r)_comp
                for k in range(3):
                    ek = [0.0, 0.0, 0.0]
                    ek[k] = 1.0
                    row[6 * i + k] += sgn * cross(ek, r)[comp]
                row[6 * i + 3 + comp] += sgn
            rows.append(row)
        for t in (t1, t2):
            row = [0.0] * (6 * nb)
            for bname, sgn in ((j["body1"], -1.0), (j["body2"], 1.0)):
                if bname != "ground":
                    for k in range(3):
                        row[6 * idx[bname] + k] += sgn * t[k]
            rows.append(row)
    rank, null = rank_and_null(rows, 6 * nb)
    return 6 * nb - rank, (null[0] if null else None)


def rank_and_null(rows, n, tol=1e-10):
    a = [list(r) for r in rows]
    pivots, r = [], 0
    for c in range(n):
        piv = max(range(r, len(a)), key=lambda i: abs(a[i][c]), default=None)
        if piv is None or abs(a[piv][c]) < tol:
            continue
        a[r], a[piv] = a[piv], a[r]
        pv = a[r][c]
        a[r] = [x / pv for x in a[r]]
        for i in range(len(a)):
            if i != r and a[i][c] != 0.0:
                f = a[i][c]
                a[i] = [x - f * y for x, y in zip(a[i], a[r])]
        pivots.append(c)
        r += 1
        if r == len(a):
            break
    free = [c for c in range(n) if c not in pivots]
    null = []
    for fc in free:
        v = [0.0] * n
        v[fc] = 1.0
        for i, pc in enumerate(pivots):
            v[pc] = -a[i][fc]
        null.append(v)
    return r, null


# ----------------------------------------------------------------------------------------------
# A05: stiff flyball governor

FG_RHO = 3000.0  # kg/m^3
FG_BAR = (1.0, 0.01, 0.01)  # shaft and rods, m
FG_SLIDER = 0.1  # m, cube
FG_BALL = 5.0  # kg, point masses at the rods' ends
FG_K, FG_C, FG_L0 = 8e5, 4e4, 0.5
FG_OMEGA = 2 * math.pi  # rad/s, shaft
FG_OFFSET = 0.05  # m, the rods' pivots and the springs' slider points off the shaft axis
FG_ALPHA = math.radians(30.0)  # rods below the horizontal at the start


def flyball():
    Lb, wb, hb = FG_BAR
    m_bar = FG_RHO * Lb * wb * hb
    m_sl = FG_RHO * FG_SLIDER ** 3
    m = Model("flyball-governor", 1.0)
    G = m.ground
    G.point("O", (0, 0, 0)), G.axis("y", (0, 1, 0))
    # shaft along y from the origin (ground pivot) to (0, 1, 0); body x across, y along it
    shaft = m.body("shaft", m_bar, (m_bar * (Lb * Lb + hb * hb) / 12, m_bar * (wb * wb + hb * hb) / 12,
                                    m_bar * (Lb * Lb + wb * wb) / 12), (0, Lb / 2, 0))
    shaft.omega = (0.0, FG_OMEGA, 0.0)
    shaft.point("O", (0, -Lb / 2, 0)), shaft.axis("y", (0, 1, 0)), shaft.axis("z", (0, 0, 1))
    shaft.point("slide", (0, 0, 0))
    shaft.point("pivot+", (FG_OFFSET, Lb / 2, 0)), shaft.point("pivot-", (-FG_OFFSET, Lb / 2, 0))
    shaft.shapes.append({"type": "box", "size": (wb, Lb, hb)})
    shaft.shapes.append({"type": "box", "size": (2 * FG_OFFSET + 0.02, 0.02, 0.02), "center": (0, Lb / 2, 0)})
    s = 0.5  # the slider's centre above the pivot at the start
    Js = m_sl * 2 * FG_SLIDER ** 2 / 12
    slider = m.body("slider", m_sl, (Js, Js, Js), (0, s, 0))
    slider.point("slide", (0, Lb / 2 - s, 0))
    slider.point("spring+", (FG_OFFSET, 0, 0)), slider.point("spring-", (-FG_OFFSET, 0, 0))
    slider.axis("y", (0, 1, 0))
    slider.shapes.append({"type": "box", "size": (FG_SLIDER, FG_SLIDER, FG_SLIDER), "color": (0.5, 0.5, 0.55)})
    m.revolute("shaft-ground", G, "O", "y", shaft, "O", "y")
    m.prismatic("slider-shaft", shaft, "slide", "y", slider, "slide", "y")
    arms = []
    for sign, tag in ((1, "+"), (-1, "-")):
        pivot = (sign * FG_OFFSET, Lb, 0.0)
        d = (sign * math.cos(FG_ALPHA), -math.sin(FG_ALPHA), 0.0)  # along the rod, outward and down
        # arm = rod (m_bar, centre at L/2) + ball (FG_BALL at L): one rigid body
        mt = m_bar + FG_BALL
        c = (m_bar * Lb / 2 + FG_BALL * Lb) / mt  # centre of mass from the pivot along the rod
        Jax = m_bar * (wb * wb + hb * hb) / 12
        Jtr = m_bar * (Lb * Lb + wb * wb) / 12 + m_bar * (c - Lb / 2) ** 2 + FG_BALL * (Lb - c) ** 2
        R = link_frame(pivot, add(pivot, d))
        arm = m.body("arm" + ("1" if sign > 0 else "2"), mt, (Jax, Jtr, Jtr), add(pivot, mul(c, d)), R)
        arm.point("pivot", (-c, 0, 0)), arm.point("mid", (Lb / 2 - c, 0, 0)), arm.axis("z", (0, 0, 1))
        arm.shapes.append({"type": "box", "size": (Lb, wb, hb), "center": (Lb / 2 - c, 0, 0)})
        arm.shapes.append({"type": "sphere", "radius": 0.06, "center": (Lb - c, 0, 0), "color": (0.6, 0.45, 0.75)})
        m.revolute("arm%s-shaft" % ("1" if sign > 0 else "2"), shaft, "pivot" + tag, "z", arm, "pivot", "z")
        # the spring-damper from the slider to the rod's midpoint: at its free length at the start
        p1, p2 = slider.where("spring" + tag), arm.where("mid")
        assert abs(norm(sub(p2, p1)) - FG_L0) < 1e-12, "flyball: the spring is not at its free length"
        m.elements.append({"name": "spring%s" % ("1" if sign > 0 else "2"), "type": "spring-damper",
                           "body1": "slider", "body2": arm.name, "at1": p1, "at2": p2,
                           "k": FG_K, "c": FG_C, "l0": FG_L0})
        arms.append(arm)
    header = [
        "Stiff flyball governor, IFToMM benchmark A05: the coupler rods of Watt's governor are",
        "replaced by stiff spring-dampers.",
    ] + wrap("Source: " + SRC_IFTOMM + " (problem A05); the data as tabulated by the OpenSim"
             " implementation of the benchmarks (L. Tagliapietra, M. Vivian, E. Ceseracciu,"
             " M. Reggiani, \"MBS benchmarks in OpenSim\", 2013-2015, problem A05), its frame"
             " turned so that the shaft is along y (OpenSim: z).") + [
        GEN,
        "",
        "Shaft and rods: bars %g x %g x %g m, slider: a cube of %g m, density %g kg/m^3 (bars %g kg,"
        % (Lb, wb, hb, FG_SLIDER, FG_RHO, m_bar),
        "slider %g kg); point masses of %g kg at the rods' ends (each rod and its ball one body"
        % (m_sl, FG_BALL),
        "here). Spring-dampers k = %g N/m, c = %g N s/m, free length %g m from the slider"
        % (FG_K, FG_C, FG_L0),
        "(+-%g m off the axis) to each rod's midpoint. Gravity 9.81 m/s^2 along -y." % FG_OFFSET,
        "The shaft (0..1 m along y) turns on a revolute joint about y at the origin; the slider",
        "slides along it (prismatic), its centre at s = %g m; the rods hang from hinges about z" % s,
        "at (+-%g, 1, 0), %g deg below the horizontal (alpha), so the springs start at their free"
        % (FG_OFFSET, math.degrees(FG_ALPHA)),
        "length. The shaft turns at 2 pi rad/s about +y: the only velocity given (the slider and",
        "the arms turn with it; the joints give their velocities); no motor drives it after.",
        "Accuracy: the slider's position s over the 10 s.",
    ]
    integ = [("name", "genalpha"), ("formulation", "so3xr3"), ("dt", "1.0e-3"), ("t_end", "10.0"),
             ("rho_inf", "0.9")]
    return m, emit(m, header, "Stiff flyball governor, IFToMM A05 (spring-damper couplers), shaft at 2 pi rad/s",
                   (0, -9.81, 0), integ, [("dt", "0.01")])


# ----------------------------------------------------------------------------------------------


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    here = os.path.dirname(os.path.abspath(__file__))
    root = os.path.join(here, "..")
    ap.add_argument("-o", default=os.path.join(root, "models"), help="output directory (default models/)")
    ap.add_argument("--reference", default=os.path.join(root, "tests", "data", "andrews-reference.txt"),
                    help="where to write the Andrews reference solution ('' for nowhere)")
    ap.add_argument("--check", action="store_true", help="build and check only, write nothing")
    a = ap.parse_args()
    makers = [("four-bar", four_bar), ("simple-pendulum", simple_pendulum),
              ("n-four-bar-revolute", n_four_bar), ("andrews-squeezer", andrews),
              ("bricard", bricard), ("flyball-governor", flyball)]
    for name, make in makers:
        model, text = make()
        msg = "%-20s %3d bodies %4d joints, closure to %.1e of its size" % (
            name, len(model.bodies), len(model.joints), model.max_gap)
        if not a.check:
            path = os.path.join(a.o, name + ".yaml")
            with open(path, "w") as f:
                f.write(text)
            msg += " -> " + os.path.relpath(path)
        print(msg)
    if a.reference and not a.check:
        with open(a.reference, "w") as f:
            f.write(andrews_reference_text())
        print("andrews reference -> " + os.path.relpath(a.reference))


if __name__ == "__main__":
    sys.exit(main())
