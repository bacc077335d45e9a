"""Result records of liedyn.run and liedyn.attitude, and the model's records."""


class Record:
    """A read-only record: its fields as attributes (and as keys, r["name"])."""

    def __init__(self, fields):
        object.__setattr__(self, "_fields", dict(fields))

    def __getattr__(self, name):
        try:
            return self._fields[name]
        except KeyError:
            raise AttributeError(name) from None

    def __getitem__(self, name):
        return self._fields[name]

    def __setattr__(self, name, value):
        raise AttributeError("read-only record")

    def keys(self):
        """The field names."""
        return self._fields.keys()

    def __repr__(self):
        inner = ", ".join(f"{k}={v!r}" for k, v in self._fields.items() if k != "par")
        return f"{type(self).__name__}({inner})"


class Body(Record):
    """A body of a model: name, index, mass, inertia (3x3), and its initial x, q, omega, v."""


class Joint(Record):
    """A joint of a model: name, index, type, body1, body2 (names; "ground"), at, axis, rows."""


class Element(Record):
    """A force element of a model: name, index, type, body1, body2, par (its parameters)."""


class BodyResult:
    """One body's rows of a run: x (n, 3) centre of mass (spatial), q (n, 4) orientation
    [w x y z] (body -> spatial), omega (n, 3) body angular velocity, v (n, 3) centre-of-mass
    velocity (spatial); views into the run's arrays."""

    def __init__(self, name, x, q, omega, v):
        self.name, self.x, self.q, self.omega, self.v = name, x, q, omega, v

    def __repr__(self):
        return f"BodyResult({self.name!r}, {len(self.x)} rows)"


class JointResult:
    """One joint's rows of a run, each an array (n,) named as the CSV's columns without the
    joint's name: its coordinates and rates (include/liedyn/coords.h) -- angle, angle_rate
    (revolute; cylindrical with slide, slide_rate), slide, slide_rate (prismatic), rx, ry, rz,
    wx, wy, wz (spherical, universal: the relative rotation vector and angular velocity in
    body1's frame carried from the start), value, value_rate (driver); body2 relative to body1,
    0 at t_start, angles unwrapped through +-pi -- and its reaction fx, fy, fz, tx, ty, tz (N,
    N m; spatial frame): the force and torque (about body2's centre of mass) the joint exerts
    on body2. names: the fields."""

    def __init__(self, name, values):
        self.name, self.names = name, list(values)
        for k, a in values.items():
            setattr(self, k, a)

    def __getitem__(self, key):
        return getattr(self, key)

    def __repr__(self):
        return f"JointResult({self.name!r}, {', '.join(self.names)})"


class ContactResult:
    """The contacts of a run with contact (moreau), one entry per contact per output row: the
    contacts of the step that led to the row, at that step's midpoint (as `liedyn run
    --contacts` writes them). Arrays over the entries: row (index into Result.t), t, body1,
    body2 (body indices, -1 the ground; names in body_names), shape1, shape2 (the shape's
    index in the model's list of the bodies' shapes; the ground's: -1 its plane, -2 - g its
    ground_shapes[g]), point (n, 3), normal (n, 3) unit, from body2 towards body1, gap (m, < 0:
    overlap), force (n, 3) on body1 (N; body2 takes its opposite), fn = normal . force, ft its
    tangential magnitude. records: the same as one numpy structured array. stats: contacts
    (of the last step), sweeps (projected Gauss-Seidel sweeps over the run), max_overlap (the
    largest overlap met at a step's midpoint, m)."""

    def __init__(self, d, body_names):
        import numpy as np
        self.body_names = list(body_names)
        self.stats = d.get("stats", {})
        self.row = d["row"].astype(np.int64)
        self.t = d["t"]
        self.body1, self.body2 = d["body1"].astype(np.int64), d["body2"].astype(np.int64)
        self.shape1, self.shape2 = d["shape1"].astype(np.int64), d["shape2"].astype(np.int64)
        self.point, self.normal, self.gap, self.force = d["point"], d["normal"], d["gap"], d["force"]
        self.fn = np.einsum("ij,ij->i", self.force, self.normal)
        self.ft = np.linalg.norm(self.force - self.fn[:, None] * self.normal, axis=1)
        rec = np.zeros(len(self.t), dtype=[
            ("row", "i8"), ("t", "f8"), ("body1", "i8"), ("body2", "i8"), ("shape1", "i8"),
            ("shape2", "i8"), ("point", "f8", 3), ("normal", "f8", 3), ("gap", "f8"),
            ("fn", "f8"), ("ft", "f8"), ("force", "f8", 3)])
        for k in rec.dtype.names:
            rec[k] = getattr(self, k)
        self.records = rec

    def __len__(self):
        return len(self.t)

    def body_name(self, b):
        """The name of body index b ("ground" for -1)."""
        return "ground" if b < 0 else self.body_names[b]

    def __repr__(self):
        return f"ContactResult({len(self.t)} contacts)"


class Result:
    """The result of liedyn.run.

    t: output times (n,); bodies: dict name -> BodyResult (x, q, omega, v, one row per
    output time); joints: dict name -> JointResult (every joint's reaction, and the
    coordinates and rates of those that have some, e.g. r.joints["elbow"].angle,
    r.joints["elbow"].fx); energy (n,); constraint_residual (n,) max |Phi| at each output time;
    stats: steps, rejected, newton_iterations, ..., constraint_residual_max and
    velocity_residual_max (over every step), constraint_tol (the drift checks' tolerance; 0:
    none), energy_drift (final minus initial energy), energy_drift_rel (that over the largest
    kinetic or potential energy met, energy_scale), cpu_s (CPU seconds of the thread that ran
    the loop; a BLAS library's idle workers in other threads are not counted),
    wall_s (its wall time); status: "ok", or "drifted" when the run left its constraints (it
    ended at that step; message says where and by how much, as `liedyn run` does); integrator,
    formulation, dt, t_start, t_end; contacts: a ContactResult for a model with contact, else
    None."""

    def __init__(self, d):
        self.t = d["t"]
        self.energy = d["energy"]
        self.constraint_residual = d["constraint_residual"]
        self.stats = d["stats"]
        for k in ("integrator", "formulation", "dt", "t_start", "t_end", "status", "message"):
            setattr(self, k, d[k])
        self.bodies = {
            name: BodyResult(name, d["x"][:, b], d["q"][:, b], d["omega"][:, b], d["v"][:, b])
            for b, name in enumerate(d["body_names"])
        }
        self.joints = {name: JointResult(name, v) for name, v in d["joints"].items()}
        cons = d.get("contacts")
        self.contacts = ContactResult(cons, d["body_names"]) if cons is not None else None

    def __repr__(self):
        status = "" if self.status == "ok" else f", status={self.status!r}"
        return (f"Result({self.integrator}/{self.formulation}, dt={self.dt:g}, "
                f"{len(self.t)} rows, bodies={list(self.bodies)}{status})")


class AttitudeResult:
    """The result of liedyn.attitude: t (n,) the accepted steps' times (and t0), q (n, 4) the
    rotation as a quaternion [w x y z], p (n, np) the stored parameter (quaternion, rotation
    or tangential vector), stats (steps, rejected, fevals, h_min, h_max, t_reached), method,
    param."""

    def __init__(self, d):
        self.t, self.q, self.p, self.stats = d["t"], d["q"], d["p"], d["stats"]
        self.method, self.param = d["method"], d["param"]

    def __repr__(self):
        return f"AttitudeResult({self.method}/{self.param}, {len(self.t)} points)"
