"""The driver of the fuzz target fuzz_python (fuzz_python.c, docs/fuzzing.md).

run(data) reads the bytes as a small program over a pool of values: each instruction byte
pushes a value (None, an int, a huge int, a float from eight raw bytes or a special one, a
known name or raw text, a list, tuple or dict of pooled values, a numpy array of an odd
shape, dtype or layout, a model, a callable), calls one of the module's functions or types
with pooled arguments, calls a method or reads or sets an attribute of a pooled object, drops
a value (then collects garbage) or reads every pooled array (views outliving their owner show
here). Results are pooled too. Callables may run a piece of the program themselves when the
module calls them (a force, a controller, omega(t)): callbacks can do anything, re-enter the
module, re-initialize an integrator, drop what the running call uses.

Every exception of a call is an answer. The work per call is capped (steps, iterations,
samples, array sizes) so that an input runs in milliseconds; paths are never taken from the
input: files are read from the source tree, checkpoints go to one private temporary file,
and add_c_force (an address) is never called.
"""
import atexit
import gc
import math
import os
import struct
import tempfile
import warnings
import zlib

import numpy as np

np.seterr(all="ignore")
warnings.simplefilter("ignore")
ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
os.environ["LIEDYN_MODELS"] = os.path.join(ROOT, "models")

import liedyn  # noqa: E402  (after LIEDYN_MODELS)
from liedyn import _liedyn  # noqa: E402

MAX_OPS = 64          # instructions per program
MAX_POOL = 24         # pooled values
MAX_DEPTH = 2         # callbacks running programs inside callbacks
MAX_CALLBACK_RUNS = 3  # a callable runs its program this often, then only returns
MAX_STEPS = 500       # simulated steps per call (2000 steps of run took over 10 s instrumented)
MAX_ITEMS = 64        # elements of an array, items of a list

MODEL_FILES = ["simple-pendulum", "heavy-top", "two-link-arm-servo", "four-bar",
               "bouncing-ball", "mass-spring", "slider-crank", "double-pendulum-damped",
               "free-top", "spinning-body", "sliding-box"]
MODELS = []
for _name in MODEL_FILES:
    with open(os.path.join(ROOT, "models", _name + ".yaml"), encoding="utf-8") as _f:
        MODELS.append(_f.read())
PATHS = [os.path.join(ROOT, "models", n + ".yaml") for n in MODEL_FILES] + [
    os.path.join(ROOT, "tests", "data", "import", n)
    for n in ("double-pendulum.urdf", "double-pendulum.xml", "meshes.urdf", "meshes.xml",
              "box.stl")] + [os.path.join(ROOT, "models"), os.path.join(ROOT, "no-such-file")]
_fd, CHECKPOINT = tempfile.mkstemp(prefix="liedyn-fuzz-python-")
os.close(_fd)
atexit.register(lambda: os.path.exists(CHECKPOINT) and os.unlink(CHECKPOINT))


def _names():
    """Every name the module knows, and a few awkward strings."""
    out = set(liedyn.integrators()) | set(liedyn.formulations()) | set(liedyn.attitude_cases())
    out |= set(liedyn.models())
    out |= {"mpr", "mpq", "mpq-eq25", "rk4", "ode23", "ode45", "rkmk4", "rkmk45", "magnus4",
            "magnus6", "magnus8", "magnus8x2", "quat", "rotvec", "tanvec", "body", "spatial",
            "ground", "dense", "klu", "auto", "urdf", "mjcf"}
    out |= {"rho_inf", "alpha", "alpha_m", "alpha_f", "beta", "gamma", "newton_atol",
            "newton_rtol", "max_iter", "max_halvings", "adaptive", "error_atol", "error_rtol",
            "fac", "facmin", "facmax", "h_init", "h_min", "h_max", "max_rejects", "project",
            "newton_reuse", "la", "integrator", "formulation", "t0", "t_start", "t_end", "dt",
            "times", "every", "overrides", "q0", "method", "param", "frame", "fixed", "rtol",
            "atol", "max_steps", "t1", "t", "q", "v", "static", "steps", "count", "damped",
            "text", "name", "user", "user_size", "body1", "body2", "fn", "keep", "mass",
            "inertia", "k", "c", "l0", "f0", "stiffness", "damping", "gravity", "limits",
            "fixed_base", "aux_mass_ratio", "chain_joints", "format", "i", "u", "row", "body"}
    for text in MODELS:
        m = liedyn.Model(text)
        for b in m.bodies:
            out |= {b, f"bodies.{b}.mass", f"bodies.{b}.inertia"}
        for e in m.elements:
            out |= {e, f"elements.{e}.k", f"elements.{e}.c", f"elements.{e}.stiffness"}
    out |= {"", " ", "x" * 300, "\x00", "a\x00b", "\u00e9", "\ud800", "-", "0", "nan", "1e999"}
    return sorted(out)


NAMES = _names()
SPECIAL_FLOATS = [0.0, -0.0, 1.0, -1.0, 0.5, 2.0, 1e-3, 1e-2, 0.1, 10.0, 1e3, 1e308, -1e308,
                  5e-324, 2.2250738585072014e-308, math.nan, -math.nan, math.inf, -math.inf,
                  1e-9, 1e9, 3.141592653589793]
DTYPES = [np.float64, np.float32, np.int64, np.int8, np.uint8, np.bool_, np.complex128, object,
          np.float16, "U3", "V8"]
LIE = [n for n in dir(_liedyn)
       if n.split("_")[0] in ("so3", "s3", "se3", "s3sdr3", "so3xr3", "s3xr3", "quat")]
# methods that take a path, write files or an address: called with safe paths, or never
NEVER = {"add_c_force", "mro", "register", "_init_origin"}
PATH_METHODS = {"from_urdf", "from_mjcf", "load", "_import", "save"}
OUR_MODULES = ("liedyn",)


class Program:
    """The bytes, read front to back; reads past the end give zeros."""

    def __init__(self, data):
        self.data, self.pos = data, 0

    def more(self):
        return self.pos < len(self.data)

    def u8(self):
        if self.pos >= len(self.data):
            return 0
        self.pos += 1
        return self.data[self.pos - 1]

    def take(self, n):
        b = self.data[self.pos:self.pos + n]
        self.pos += len(b)
        return b


class State:
    """The pool of one input, shared by the callbacks its program creates."""

    def __init__(self):
        self.pool = [None]

    def push(self, v):
        self.pool.append(v)
        if len(self.pool) > MAX_POOL:
            del self.pool[0]

    def pick(self, p):
        return self.pool[p.u8() % len(self.pool)] if self.pool else None

    def pick_of(self, p, kind):
        """A pooled value of a type, or None."""
        got = [v for v in self.pool if isinstance(v, kind)]
        return got[p.u8() % len(got)] if got else None

    def take(self, n):
        n = min(n, len(self.pool))
        out = self.pool[len(self.pool) - n:]
        del self.pool[len(self.pool) - n:]
        return out


# ---------------------------------------------------------------- values

def make_int(p):
    k = p.u8()
    if k & 1:
        return (1 << (k >> 1)) * (-1 if p.u8() & 1 else 1) + (p.u8() % 3 - 1)
    return (k >> 1) - 64


def make_float(p):
    if p.u8() & 1:
        return SPECIAL_FLOATS[p.u8() % len(SPECIAL_FLOATS)]
    return struct.unpack("<d", p.take(8).ljust(8, b"\0"))[0]


def make_string(p):
    k = p.u8()
    if k < 200:
        return NAMES[(k << 8 | p.u8()) % len(NAMES)]
    return p.take(p.u8() % 40).decode("utf-8", "surrogateescape")


def make_array(p, st):
    dtype = DTYPES[p.u8() % len(DTYPES)]
    nd = p.u8() % 4
    shape = tuple(p.u8() % 7 for _ in range(nd))
    size = int(np.prod(shape)) if shape else 1
    if size > MAX_ITEMS:
        shape, size = (size % MAX_ITEMS,), size % MAX_ITEMS
    fill = p.u8() % 4
    if fill == 0:
        a = np.array([make_float(p) for _ in range(min(size, 8))] * (size // 8 + 1))[:size]
    elif fill == 1:
        a = np.arange(size, dtype=float) * make_float(p)
    elif fill == 2:
        a = np.full(size, make_float(p))
    else:
        raw = p.take(8 * size).ljust(8 * size, b"\0")
        a = np.frombuffer(raw, dtype=np.float64).copy()
    try:
        a = a.reshape(shape).astype(dtype)
    except (TypeError, ValueError):
        a = a.reshape(shape)
    layout = p.u8() % 5
    if layout == 1 and a.ndim:
        a = np.asfortranarray(a)
    elif layout == 2 and a.ndim and a.shape[0] > 1:
        a = a[::2]  # not contiguous
    elif layout == 3 and a.ndim:
        a = np.broadcast_to(a, (2,) + a.shape)  # zero strides, read-only
    elif layout == 4:
        a = a.view(np.recarray) if a.dtype == np.float64 else a
    return a


def make_callable(p, st, depth):
    kind = p.u8() % 6
    value = st.pick(p)
    if kind == 0:
        return lambda *a, **k: value
    if kind == 1:
        def raises(*a, **k):
            raise ValueError("from the fuzzed callable")
        return raises
    if kind == 2:
        return lambda *a, **k: np.zeros(12)
    if kind == 3:
        return lambda *a, **k: np.zeros(3)
    if kind == 4:
        return lambda *a, **k: [0.0]
    # a piece of the program, run when called (at most MAX_CALLBACK_RUNS times)
    sub = p.take(p.u8() % 24)
    runs = [0]
    ret = np.zeros(12) if p.u8() & 1 else value

    def reenters(*a, **k):
        if runs[0] < MAX_CALLBACK_RUNS and depth < MAX_DEPTH:
            runs[0] += 1
            st.push(a[0] if a else None)
            interpret(Program(sub), st, depth + 1)
        return ret
    return reenters


def make_model(p):
    text = MODELS[p.u8() % len(MODELS)]
    how = p.u8() % 4
    if how == 0:
        return liedyn.Model(text)
    if how == 1:
        return _liedyn.Model(text=text, name="fuzz.yaml")
    if how == 2:
        return liedyn.Model(PATHS[p.u8() % len(MODEL_FILES)])
    return liedyn.Model.from_urdf(PATHS[len(MODEL_FILES)])


# ---------------------------------------------------------------- caps on the work of a call

# models whose static equilibrium takes tens of ms (hundreds under the sanitizers): linearized
# where they stand
SLOW_STATICS = {"two-link-arm-servo", "double-pendulum-damped"}
CAPS = {"max_iter": 30, "max_halvings": 20, "max_rejects": 30, "steps": 20, "every": 10 ** 6}
SMALLEST = {"h_min", "h_max", "h_init", "error_atol", "error_rtol", "newton_atol",
            "newton_rtol"}


def real(x):
    return isinstance(x, (int, float)) and not isinstance(x, bool) and math.isfinite(x)


def cap_options(kw):
    """Iteration counts at most CAPS; tolerances and step limits, when positive, at least
    1e-9 (many steps or iterations, not a different path)."""
    for k, v in list(kw.items()):
        if k in CAPS and real(v) and v > CAPS[k]:
            kw[k] = CAPS[k]
        if k in SMALLEST and real(v) and 0 < v < 1e-9:
            kw[k] = 1e-9
    return kw


def steps_of(model, dt, t_end, t_start=None):
    """The number of steps a run would take (0 when it would be refused before stepping)."""
    if not isinstance(model, _liedyn.Model):
        return 0
    spec = model.run_spec
    dt = spec["dt"] if dt is None else dt
    t1 = spec["t_end"] if t_end is None else t_end
    t0 = spec["t_start"] if t_start is None else t_start
    if not (real(dt) and real(t1) and real(t0)) or dt <= 0 or t1 <= t0:
        return 0
    return (t1 - t0) / dt


def stable(x):
    """A hash of x that is the same in every process (str's hash is salted)."""
    return zlib.crc32(repr(x).encode("utf-8", "surrogateescape"))


def safe_path(x):
    return PATHS[stable(x) % len(PATHS)] if isinstance(x, (str, bytes, os.PathLike)) else x


def guard(name, fn, args, kw):
    """The call with capped work and safe paths: (fn, args, kw), or None to skip it."""
    kw = cap_options(dict(kw))
    args = list(args)
    if name in ("run", "_run"):
        if args and isinstance(args[0], str):
            return None  # a model read by name or path: Model's paths
        get = lambda i, k: args[i] if len(args) > i else kw.get(k)  # noqa: E731
        n = steps_of(args[0] if args else None, get(2, "dt"), get(3, "t_end"), kw.get("t_start"))
        if n > MAX_STEPS or (kw.get("adaptive") and n > 1):
            return None
    elif name == "_time_steps":
        if len(args) == 3 and steps_of(args[0], args[1], args[2]) > MAX_STEPS:
            return None
    elif name in ("attitude", "_attitude"):
        ms = kw.get("max_steps")
        if ms is None or (real(ms) and (ms == 0 or ms > MAX_STEPS)):
            kw["max_steps"] = MAX_STEPS
    elif name in ("linearize", "modes", "_linearize") and args:
        target = args[0].model if isinstance(args[0], _liedyn.System) else args[0]
        if isinstance(target, _liedyn.Model) and target.name in SLOW_STATICS:
            if name == "_linearize" and len(args) > 4:
                args[4] = False
            else:
                kw["static"] = False
        if isinstance(args[0], str):
            args[0] = safe_path(args[0])
    elif name in ("Model", "CModel", "_import_recognizes"):
        if args and isinstance(args[0], str) and "\n" not in args[0] and "{" not in args[0]:
            args[0] = safe_path(args[0])
        if "path" in kw:
            kw["path"] = safe_path(kw["path"])
    elif name in ("advance_to", "step_adaptive", "advance", "step"):
        it = fn.__self__
        if args and real(args[0]):
            span = args[0] - it.t if name in ("advance_to", "step_adaptive") else args[0]
            if span > 1.0:
                return None
    elif name in PATH_METHODS:
        if name == "save" or (name == "load" and isinstance(fn.__self__, liedyn.Integrator)):
            if args:
                args[0] = CHECKPOINT
            kw.pop("path", None)
        else:
            args = [safe_path(a) for a in args]
            if "path" in kw:
                kw["path"] = safe_path(kw["path"])
    return fn, args, kw


API = [("run", liedyn.run), ("_run", _liedyn.run), ("Model", liedyn.Model),
       ("CModel", _liedyn.Model), ("Integrator", liedyn.Integrator),
       ("attitude", liedyn.attitude), ("_attitude", _liedyn._attitude),
       ("attitude_case", liedyn.attitude_case), ("attitude_cases", liedyn.attitude_cases),
       ("linearize", liedyn.linearize), ("modes", liedyn.modes),
       ("_linearize", _liedyn._linearize), ("_input_matrix", _liedyn._input_matrix),
       ("_body_jacobian", _liedyn._body_jacobian), ("_model_set_body", _liedyn._model_set_body),
       ("_model_set_element", _liedyn._model_set_element),
       ("_model_set_gravity", _liedyn._model_set_gravity),
       ("_model_element_params", _liedyn._model_element_params),
       ("_time_steps", _liedyn._time_steps), ("_import_recognizes", _liedyn._import_recognizes),
       ("integrators", liedyn.integrators), ("formulations", liedyn.formulations),
       ("version", liedyn.version), ("from_dict", liedyn.Model.from_dict),
       ("from_yaml", liedyn.Model.from_yaml)] + [(n, getattr(_liedyn, n)) for n in LIE]

_ATTRS = {}


def attributes(obj):
    """The attributes of one of the package's objects that the program may use."""
    t = type(obj)
    if t not in _ATTRS:
        _ATTRS[t] = [n for n in sorted(set(dir(t)) | {"__init__"})
                     if (not n.startswith("__") or n == "__init__") and n not in NEVER]
    return _ATTRS[t]


def ours(obj):
    return type(obj).__module__.split(".")[0] in OUR_MODULES


def call(st, name, fn, args, kw):
    try:
        g = guard(name, fn, args, kw)
    except Exception:  # arguments the caps cannot judge (an array's truth value ...)
        return
    if g is None:
        return
    fn, args, kw = g
    try:
        st.push(fn(*args, **kw))
    except Exception as e:  # an answer
        st.push(e)


def arguments(p, st):
    n = p.u8() % 5
    args = st.take(n) if p.u8() & 1 else [st.pick(p) for _ in range(n)]
    kw = {}
    for _ in range(p.u8() % 4):
        kw[make_string(p)] = st.pick(p)
    return args, kw


def interpret(p, st, depth=0):
    for _ in range(MAX_OPS):
        if not p.more():
            return
        op = p.u8() % 20
        if op == 0:
            st.push(None)
        elif op == 1:
            st.push(make_int(p))
        elif op == 2:
            st.push(make_float(p))
        elif op == 3:
            st.push(make_string(p))
        elif op == 4:
            st.push(st.take(p.u8() % 6))
        elif op == 5:
            st.push(tuple(st.take(p.u8() % 6)))
        elif op == 6:
            vals = st.take(p.u8() % 6)
            st.push({make_string(p): v for v in vals})
        elif op == 7:
            try:
                st.push(make_array(p, st))
            except Exception as e:
                st.push(e)
        elif op == 8:
            try:
                st.push(make_model(p))
            except Exception as e:
                st.push(e)
        elif op == 9:
            st.push(make_callable(p, st, depth))
        elif op in (10, 11, 12):  # a function of the module
            name, fn = API[(p.u8() << 8 | p.u8()) % len(API)]
            args, kw = arguments(p, st)
            call(st, name, fn, args, kw)
        elif op in (13, 14):  # a method or attribute of a pooled object
            obj = st.pick(p)
            if not ours(obj):
                continue
            names = attributes(obj)
            name = names[(p.u8() << 8 | p.u8()) % len(names)]
            try:
                attr = getattr(obj, name)
            except Exception as e:
                st.push(e)
                continue
            if callable(attr) and p.u8() % 4:
                args, kw = arguments(p, st)
                call(st, name, attr, args, kw)
            else:
                st.push(attr)
        elif op == 15:  # set an attribute (the editing setters)
            obj = st.pick(p)
            if not ours(obj):
                continue
            names = [n for n in attributes(obj) if not n.startswith("_")] + [
                "mass", "inertia", "k", "c", "l0", "stiffness", "damping", "gravity"]
            try:
                setattr(obj, names[p.u8() % len(names)], st.pick(p))
            except Exception as e:
                st.push(e)
        elif op == 16:  # an item of a pooled dict, list or result
            obj = st.pick(p)
            key = make_string(p) if p.u8() & 1 else make_int(p)
            try:
                st.push(obj[key])
            except Exception as e:
                st.push(e)
        elif op == 17:  # drop a value, then collect the youngest garbage
            if st.pool:
                del st.pool[p.u8() % len(st.pool)]
            gc.collect(0)
        elif op == 18:  # read every pooled array (a view must still see live memory)
            for v in list(st.pool):
                if isinstance(v, np.ndarray) and v.dtype == np.float64:
                    float(np.nansum(v))
        else:  # an integrator of a pooled model or system, as a start for the methods
            target = st.pick_of(p, (_liedyn.Model, _liedyn.System))
            if target is not None:
                call(st, "Integrator", liedyn.Integrator, [target],
                     {"integrator": make_string(p)} if p.u8() & 1 else {})


def run(data):
    st = State()
    interpret(Program(bytes(data)), st)
    st.pool.clear()  # everything freed now (callables that hold st make cycles)
