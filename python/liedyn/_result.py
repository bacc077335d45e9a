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
    """One joint's rows of a run: its coordinates and rates (include/liedyn/coords.h), each an
    array (n,) named as the CSV's columns without the joint's name -- angle, angle_rate
    (revolute; cylindrical with slide, slide_rate), slide, slide_rate (prismatic), rx, ry, rz,
    wx, wy, wz (spherical, universal: the relative rotation vector and angular velocity in
    body1's frame carried from the start), value, value_rate (driver); body2 relative to body1,
    0 at t_start, angles unwrapped through +-pi. names: the fields."""

    def __init__(self, name, values):
        self.name, self.names = name, list(values)
        for k, a in values.items():
            setattr(self, k, a)

    def __getitem__(self, key):
        return getattr(self, key)

    def __repr__(self):
        return f"JointResult({self.name!r}, {', '.join(self.names)})"


class Result:
    """The result of liedyn.run.

    t: output times (n,); bodies: dict name -> BodyResult (x, q, omega, v, one row per
    output time); joints: dict name -> JointResult (the coordinates and rates of every joint
    that has some, e.g. r.joints["elbow"].angle); energy (n,); constraint_residual (n,) max
    |Phi| at each output time;
    stats: steps, rejected, newton_iterations, ..., constraint_residual_max (over every
    step), cpu_s (process CPU seconds of the loop), wall_s (its wall time); integrator,
    formulation, dt, t_start, t_end."""

    def __init__(self, d):
        self.t = d["t"]
        self.energy = d["energy"]
        self.constraint_residual = d["constraint_residual"]
        self.stats = d["stats"]
        for k in ("integrator", "formulation", "dt", "t_start", "t_end"):
            setattr(self, k, d[k])
        self.bodies = {
            name: BodyResult(name, d["x"][:, b], d["q"][:, b], d["omega"][:, b], d["v"][:, b])
            for b, name in enumerate(d["body_names"])
        }
        self.joints = {name: JointResult(name, v) for name, v in d["joints"].items()}

    def __repr__(self):
        return (f"Result({self.integrator}/{self.formulation}, dt={self.dt:g}, "
                f"{len(self.t)} rows, bodies={list(self.bodies)})")


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
