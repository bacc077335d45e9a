"""liedyn: time integration of rigid and flexible multibody dynamics on Lie groups.

A thin layer over the C extension liedyn._liedyn, itself written on the library's public
API. The work runs in C with the GIL released; arrays are numpy float64.

    import liedyn
    r = liedyn.run("heavy-top", integrator="genalpha", dt=1e-3, t_end=2.0)
    r.bodies["top"].x          # (n, 3) centre of mass at r.t

Models: liedyn.Model (a file, a shipped model's name, YAML text or a dict). Simulation:
liedyn.run, or liedyn.Integrator for step-by-step control. Attitude from angular velocity:
liedyn.attitude. Linearization and modes about an equilibrium: liedyn.linearize,
liedyn.modes. Lie-group maps over arrays: liedyn.so3, liedyn.s3, liedyn.se3,
liedyn.s3sdr3, liedyn.so3xr3, liedyn.s3xr3 (exp, log, compose, inverse, tangent,
tangent_inv). Failures raise liedyn.Error with the library's message.
"""

import json
import os
import types

from . import _liedyn
from ._liedyn import Error, Integrator, System, attitude_case, attitude_cases
from ._liedyn import formulations, integrators, version
from ._edit import EditableBody, EditableElement, EditMixin, ImportNote
from ._linear import Linear, Modes, linearize, modes
from ._result import (AttitudeResult, Body, BodyResult, ContactResult, Element, Joint, JointResult,
                      Result)

try:
    from ._paths import MODELS as _MODELS
except ImportError:  # pragma: no cover - a copy without its generated paths
    _MODELS = None

__all__ = ["Model", "System", "Integrator", "Error", "run", "attitude", "linearize", "modes",
           "Linear", "Modes", "attitude_case",
           "attitude_cases", "find_model", "models", "integrators", "formulations", "version",
           "Result", "BodyResult", "JointResult", "ContactResult", "AttitudeResult", "so3", "s3", "se3", "s3sdr3",
           "so3xr3", "s3xr3", "quat"]
__version__ = version()


def _model_dirs():
    dirs = []
    if os.environ.get("LIEDYN_MODELS"):
        dirs.append(os.environ["LIEDYN_MODELS"])
    if _MODELS:
        dirs.append(_MODELS)
    return dirs


def models():
    """The shipped models' names (those found in $LIEDYN_MODELS, then the installed or the
    source tree's models directory)."""
    names = set()
    for d in _model_dirs():
        if os.path.isdir(d):
            names.update(f[:-5] for f in os.listdir(d) if f.endswith(".yaml"))
    return sorted(names)


def find_model(name):
    """The file of a model: `name` itself if it is a file, else the shipped model of that name
    ($LIEDYN_MODELS, then the installed share/liedyn/models or the source tree's models/)."""
    name = os.fspath(name)
    if os.path.isfile(name):
        return name
    if "/" not in name:
        for d in _model_dirs():
            p = os.path.join(d, name + ".yaml")
            if os.path.isfile(p):
                return p
    raise Error(f"'{name}' is neither a model file nor a shipped model "
                f"(shipped: {', '.join(models())})")


class Model(EditMixin, _liedyn.Model):
    """A multibody model (docs/model-format.md).

    Model(source, name=None): source is a path, a shipped model's name ("heavy-top"), YAML
    text (a string with a newline or a '{'), or a dict with the YAML file's structure.
    Model.from_yaml(text), Model.from_dict(d), Model.load(path) say it explicitly. Model()
    (or Model(name=...)) is empty: add_body, add_joint, add_element build it.
    bodies, joints, elements: dicts name -> record; compile(formulation=...) -> System;
    add_force / add_c_force: user forces. Errors raise liedyn.Error (FILE:LINE: ITEM: REASON,
    with .file, .line, .item). A .urdf or .xml file is imported (Model.from_urdf,
    Model.from_mjcf: the import options as keywords; m.import_warnings). Editing:
    m.bodies[name].mass / .inertia, m.elements[name].<YAML key>, m.gravity, m.set(key, value),
    validated as the YAML reader validates (ValueError); m.copy()."""

    def __new__(cls, source=None, name=None, *, path=None, text=None, **import_options):
        if isinstance(source, (str, os.PathLike)) and path is None and text is None:
            s = os.fspath(source)
            if not ("\n" in s or s.lstrip().startswith("{")):
                path, source = find_model(s), None
        if path is not None and _liedyn._import_recognizes(os.fspath(path)):
            return cls._import(os.fspath(path), "auto", **import_options)
        if import_options:
            raise TypeError(f"Model: import options ({', '.join(import_options)}) are for URDF "
                            "and MJCF files only")
        if path is not None or text is not None or source is None:
            pass  # Model(): an empty model, built by add_body, add_joint, add_element
        elif isinstance(source, dict):
            text, name = json.dumps(source), name or "<dict>"
        elif isinstance(source, str):
            text, name = source, name or "<string>"
        else:
            raise TypeError("Model: a path, a shipped model's name, YAML text or a dict is "
                            "required")
        m = super().__new__(cls, path=path, text=text, name=name)
        return m._init_origin(("new", path, text, name))

    @classmethod
    def from_urdf(cls, path, *, limits=False, fixed_base=False, aux_mass_ratio=1e-3,
                  chain_joints=False):
        """A model imported from a URDF file (docs/import.md): limits (write the joints'
        position limits as limits, and moreau, which holds them, as the integrator),
        fixed_base (fix a root link that has a mass to the ground), aux_mass_ratio,
        chain_joints (MJCF). The import's warnings are in m.import_warnings, its counts in
        m.import_report."""
        return cls._import(os.fspath(path), "urdf", limits=limits, fixed_base=fixed_base,
                           aux_mass_ratio=aux_mass_ratio, chain_joints=chain_joints)

    @classmethod
    def from_mjcf(cls, path, *, limits=False, fixed_base=False, aux_mass_ratio=1e-3,
                  chain_joints=False, contact=False):
        """A model imported from an MJCF (MuJoCo XML) file (docs/import.md): the options of
        from_urdf; aux_mass_ratio (an auxiliary body's mass as a fraction of its body's,
        between two joints of one body at different points), chain_joints (a body with several
        joints as a chain of auxiliary bodies, one joint each), contact (the geoms that collide
        in MuJoCo collide, the worldbody's plane and geoms are the ground's, and the
        integrator is moreau)."""
        return cls._import(os.fspath(path), "mjcf", limits=limits, fixed_base=fixed_base,
                           aux_mass_ratio=aux_mass_ratio, chain_joints=chain_joints,
                           contact=contact)

    @classmethod
    def from_yaml(cls, text, name="<string>"):
        """A model from YAML text (name: the file name in messages)."""
        return cls(text=text, name=name)

    @classmethod
    def from_dict(cls, d, name="<dict>"):
        """A model from a dict with the YAML file's structure (it goes through JSON, which is
        YAML's flow style)."""
        return cls(text=json.dumps(d), name=name)

    @classmethod
    def load(cls, path):
        """A model from a YAML file."""
        return cls(path=os.fspath(path))

    @property
    def bodies(self):
        """The bodies (rods' and beams' nodes included): dict name -> Body."""
        return {b["name"]: EditableBody(b, self) for b in self._bodies()}

    @property
    def joints(self):
        """The joints: dict name -> Joint (unnamed ones as 'joint<i>')."""
        return {(j["name"] or f"joint{j['index']}"): Joint(j) for j in self._joints()}

    @property
    def elements(self):
        """The force elements: dict name -> Element (unnamed ones as 'element<i>')."""
        return {k: EditableElement(e, self, k)
                for k, e in ((e["name"] or f"element{e['index']}", e) for e in self._elements())}

    def __repr__(self):
        return f"Model({self.name!r}, bodies={list(self.bodies)})"


def run(model, integrator=None, dt=None, t_end=None, *, formulation=None, t_start=None,
        times=None, every=None, overrides=None, **options):
    """Simulate a model as `liedyn run` does and return a Result.

    model: a Model, a path or a shipped model's name. integrator, dt, t_end, formulation,
    t_start: override the model's integrator block. Output rows: every `every`-th step
    (default: the block's output_every) and the last; or, with times= (ascending, within
    [t_start, t_end]), exactly at those times by dense output (a cubic Hermite curve on the
    group between the steps, third order) without changing the steps. options: method
    parameters (rho_inf, alpha, ...) and the Integrator's options (adaptive, error_atol,
    newton_atol, max_iter, la, ...). constraint_tol: the drift checks of `liedyn run` on every
    step (default 1e-6 times the model's longest link; 0: off): a run whose positions or
    velocities leave their constraints ends at that step with r.status "drifted" and
    r.message. The loop runs in C with the GIL released (Ctrl-C stops
    it). A failing step raises liedyn.Error with the library's message; e.result holds the
    rows up to the failure. overrides: {"bodies.NAME.mass": value, "elements.NAME.k": value,
    "gravity": [...], ...} (the keys of Model.set) applied to a copy of the model, which is
    left unchanged."""
    if not isinstance(model, _liedyn.Model):
        model = Model(model)
        if overrides:
            for key, value in overrides.items():
                model.set(key, value)
    elif overrides:
        model = model.copy()
        for key, value in overrides.items():
            model.set(key, value)
    try:
        d = _liedyn.run(model, integrator, dt, t_end, formulation=formulation,
                        t_start=t_start, times=times, every=every, **options)
    except Error as e:
        if isinstance(getattr(e, "result", None), dict):
            e.result = Result(e.result)
        raise
    return Result(d)


def attitude(omega, t=None, *, q0=None, method="mpq", dt=None, t0=None, t1=None,
             frame="body", param="quat", fixed=False, rtol=None, atol=None, h_max=None,
             h_min=None, max_steps=None):
    """Integrate the attitude R' = R hat(omega) from angular velocity and return an
    AttitudeResult.

    omega: gyro samples, an array (n, 3) with their times t (n,) (interpolated linearly; the
    run spans them unless t0, t1 say otherwise); or an analytic case's name ("ex1", ...:
    liedyn.attitude_cases(); its interval, step and exact start by default); or a callable
    omega(t) -> 3 numbers (slower: called from C for every evaluation; give t0, t1).
    method: mpr, mpq, mpq-eq25, rk4, ode23, ode45, rkmk4, rkmk45, magnus4, magnus6, magnus8, magnus8x2;
    param: quat, rotvec, tanvec (for mpr, rk4, ode23, ode45); frame: 'body' or 'spatial';
    dt: the step (adaptive methods: the first step; fixed=True: no control); by default, as
    `liedyn attitude`, the case's step, one step per sample interval for samples, 0.01 for a
    callable, and an automatic first step for adaptive methods; rtol, atol,
    h_max, h_min, max_steps: the adaptive control. q0: initial rotation [w x y z]."""
    kw = dict(t=t, q0=q0, method=method, dt=dt, t0=t0, t1=t1, frame=frame, param=param,
              fixed=1.0 if fixed else 0.0, rtol=rtol, atol=atol, h_max=h_max, h_min=h_min,
              max_steps=max_steps)
    kw = {k: v for k, v in kw.items() if v is not None}
    try:
        return AttitudeResult(_liedyn._attitude(omega, **kw))
    except Error as e:
        if isinstance(getattr(e, "result", None), dict):
            e.result = AttitudeResult(e.result)
        raise


def _group(prefix, doc, names):
    ns = types.SimpleNamespace(**{n: getattr(_liedyn, f"{prefix}_{n}") for n in names})
    ns.__doc__ = doc
    return ns


_OPS = ("exp", "log", "compose", "inverse", "tangent", "tangent_inv")
so3 = _group("so3", "SO(3): rotation matrices (..., 3, 3), rotation vectors (..., 3).",
             _OPS + ("hat", "vee"))
s3 = _group("s3", "S3: unit quaternions [w x y z] (..., 4), exp the half-angle map.", _OPS)
se3 = _group("se3", "SE(3): g = (R row-major, x) (..., 12), v = (Omega, U) (..., 6).", _OPS)
so3xr3 = _group("so3xr3", "R3 x SO(3): g = (R row-major, x) (..., 12).", _OPS)
s3sdr3 = _group("s3sdr3", "S3 |x R3: g = (q, x) (..., 7).", _OPS)
s3xr3 = _group("s3xr3", "S3 x R3: g = (q, x) (..., 7).", _OPS)
quat = types.SimpleNamespace(to_mat=_liedyn.quat_to_mat, from_mat=_liedyn.quat_from_mat,
                             normalize=_liedyn.quat_normalize, rotate=_liedyn.quat_rotate,
                             __doc__="Quaternion helpers over arrays.")
