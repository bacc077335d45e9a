"""Linearization about an equilibrium or a steady motion, and modes (docs/modes.md): the C
library's ld_linearize, ld_modes_undamped and ld_modes_damped (liedyn/linearize.h) over numpy
arrays."""

import numpy as np

from . import _liedyn


class Linear:
    """The linearized equations M d'' + D d' + K d + B^T dlambda = 0, B d = 0 of a System at a
    state, in the formulation's body-frame tangent increments d (k entries), and their reduced
    form Mr z'' + Dr z' + Kr z = 0 on the motions the joints allow, d = N z (n entries).

    Attributes: system, t, q (the state linearized about: the equilibrium when the statics
    were solved), M, D, K (k, k), B (m, k), N (k, n), Mr, Dr, Kr (n, n), A (2n, 2n) the state
    matrix of x = (z, z'), x' = A x, a (k) and lambda_ (m) the state's accelerations and
    multipliers, accel = max|a| (0 at an equilibrium), asym = max|Kr - Kr^T| / max|Kr|,
    n the degrees of freedom, dependent the constraint rows dependent at the state."""

    def __init__(self, system, d):
        self.system = system
        self.t = d["t"]
        self.q = d["q"]
        for key in ("M", "D", "K", "B", "N", "Mr", "Dr", "Kr", "A", "a", "accel", "asym", "n",
                    "dependent"):
            setattr(self, key, d[key])
        self.lambda_ = d["lambda"]

    @property
    def k(self):
        """The number of velocities (tangent increments)."""
        return self.M.shape[0]

    def input_matrix(self, F):
        """Bu = [0; Mr^-1 N^T F] (2n, p): the inputs u whose generalized forces are the columns
        of F (k, p), in x' = A x + Bu u."""
        F = np.asarray(F, dtype=float).reshape(self.k, -1)
        return _liedyn._input_matrix(self.N, self.Mr, F)

    def body_jacobian(self, body):
        """(Jx, Jr), each (3, k): the displacement of the body's centre of mass and its rotation
        (spatial) per tangent increment at q. A force f at the centre is the generalized force
        Jx.T @ f; the body's displacement as an output is C = [Jx @ N, 0]."""
        return _liedyn._body_jacobian(self.system, self.q, body)

    def __repr__(self):
        return f"Linear(k={self.k}, n={self.n}, accel={self.accel:.3g}, asym={self.asym:.3g})"


class Modes:
    """The modes of a linearized system, lowest first.

    hz (count) the natural frequencies |s| / 2 pi in Hz, omega2 the eigenvalues w^2 of
    Kr z = w^2 Mr z (undamped; NaN for damped modes), s the complex eigenvalues (undamped:
    i w, or a real one for an unstable mode), zeta the damping ratios -Re s / |s|, noise the
    rounding level of each w^2 (|w^2| at or below it is a neutral motion); z (count, n) and
    shapes (count, k) the shapes in the reduced and the full tangent coordinates (complex;
    undamped: real and mass-normalized, z^T Mr z = 1); bodies: dict body name -> array
    (count, 6), the centre's displacement and the rotation (spatial) of that body per unit
    modal coordinate (complex). linear: the Linear they come from (None from the sparse path,
    which forms no matrices; its z are the shapes, mass-normalized: shapes^T M shapes = 1)."""

    def __init__(self, linear, d, damped, names):
        self.linear = linear
        self.damped = damped
        self.hz = d["hz"]
        self.omega2 = d["omega2"]
        self.s = d["re"] + 1j * d["im"]
        self.zeta = d["zeta"]
        self.noise = d["noise"]
        self.z = d["z"] + 1j * d["z_im"]
        self.shapes = d["phi"] + 1j * d["phi_im"]
        body = d["body_re"] + 1j * d["body_im"]
        self.bodies = {name: body[:, i, :] for i, name in enumerate(names)}
        if not damped:
            self.z, self.shapes = self.z.real, self.shapes.real
            self.bodies = {name: b.real for name, b in self.bodies.items()}

    @property
    def count(self):
        """The number of modes held."""
        return len(self.hz)

    def __len__(self):
        return self.count

    def __repr__(self):
        return f"Modes(count={self.count}, hz={np.array2string(self.hz, precision=5)})"


def _system(model, formulation):
    from . import Model  # the package's Model (a path, a name, YAML text, a dict)

    if isinstance(model, _liedyn.System):
        if formulation and formulation != model.formulation:
            raise ValueError(f"formulation: the System is compiled in {model.formulation}")
        return model
    if not isinstance(model, _liedyn.Model):
        model = Model(model)
    return model.compile(formulation=formulation) if formulation else model.compile()


def _call(model, formulation, q, v, t, static, steps, count, damped, sparse=False, shift=0.0):
    system = _system(model, formulation)
    if t is None:
        t = system.model.run_spec["t_end"] if static else 0.0
    d = _liedyn._linearize(system, q=q, v=v, t=float(t), static=bool(static), steps=int(steps),
                           count=count, damped=bool(damped), sparse=bool(sparse),
                           shift=float(shift))
    return system, d


def linearize(model, *, q=None, v=None, t=None, static=True, steps=10, formulation=None):
    """Linearize a model about its static equilibrium (as `liedyn modes`) and return a Linear.

    model: a Model, a path, a shipped model's name, or a compiled System. static=False
    linearizes about q as it is (the initial configuration when q is None); v (k) a steady
    motion's velocity (None: at rest). t: the time of the loads (default: the model's end
    time with the statics, 0 without). steps: the load steps of the static solve.
    formulation: compile in this one (default: the model's). Failures raise liedyn.Error with
    the library's message."""
    system, d = _call(model, formulation, q, v, t, static, steps, -1, False)
    return Linear(system, d)


def modes(model, count=10, *, damped=False, q=None, v=None, t=None, static=True, steps=10,
          formulation=None, sparse=False, shift=0.0):
    """The count lowest modes (0: all) of a model about its static equilibrium, as
    `liedyn modes`, and return Modes (its .linear holds the matrices). damped=True: the damped
    modes (the first-order form with D). sparse=True: the count lowest undamped modes by the
    sparse path, as `liedyn modes --sparse --shift S` — memory in proportion to the model, no
    matrices (.linear is None); shift: below the wanted eigenvalues (0 for a clamped structure
    or a hanging mechanism). The other arguments as for linearize."""
    if count < 0:
        raise ValueError("count: 0 (all) or more")
    system, d = _call(model, formulation, q, v, t, static, steps, int(count), damped, sparse,
                      shift)
    names = list(system.model.bodies)
    return Modes(None if sparse else Linear(system, d), d, bool(damped), names)
