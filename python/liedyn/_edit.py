"""Editing a model in place, copies of a model, and URDF / MJCF import (the Python side of
python/src/edit.c and python/src/import.c)."""

import json

import numpy as np

from . import _liedyn
from ._result import Body, Element, Record

_IMPORT_OPTIONS = ("limits", "fixed_base", "aux_mass_ratio", "chain_joints", "contact")


def _plain(v):
    """numpy values as JSON takes them."""
    if isinstance(v, np.ndarray):
        return v.tolist()
    if isinstance(v, np.generic):
        return v.item()
    raise TypeError(f"{type(v).__name__} is not a number, a name or a list of them")


class ImportNote(Record):
    """A warning of an import: file (the imported file, or a file it includes) and line in it
    (0: the file as a whole), element,
    message, severity ("dynamics": the model lacks or approximates its dynamics; "ignored": no
    effect on the dynamics). str() gives FILE:LINE: ELEMENT: MESSAGE."""

    def __str__(self):
        return f"{self.file}:{self.line}: {self.element}: {self.message}"


class EditableBody(Body):
    """A body of a model; setting mass or inertia edits the model (validated)."""

    def __init__(self, fields, model):
        super().__init__(fields)
        object.__setattr__(self, "_model", model)

    def __setattr__(self, name, value):
        self._model.set(f"bodies.{self.name}.{name}", value)
        b = next(b for b in self._model._bodies() if b["name"] == self.name)
        self._fields.update(b)


class EditableElement(Element):
    """A force element of a model: besides name, type, body1, body2, par, its editable
    parameters by their YAML keys (spring-damper k, c, l0, f0; rotational-spring-damper k, c;
    bushing stiffness, damping); setting one edits the model (validated)."""

    def __init__(self, fields, model, key):
        fields = dict(fields)
        fields.update(_liedyn._model_element_params(model, fields["index"]))
        super().__init__(fields)
        object.__setattr__(self, "_model", model)
        object.__setattr__(self, "_key", key)

    def __setattr__(self, name, value):
        self._model.set(f"elements.{self._key}.{name}", value)
        self._fields.update(_liedyn._model_element_params(self._model, self.index))
        self._fields["par"] = self._model._elements()[self.index]["par"]


class EditMixin:
    """Model editing: set(key, value), copy(), the gravity setter; records that edit the
    model; the import report of an imported model."""

    import_warnings = ()  # ImportNote records (an imported model only)
    import_report = None  # dict: format, file, links, merged, auxiliary (imported only)

    def _init_origin(self, origin):
        self._origin = origin
        self._edits = {}
        self._adds = []
        self._has_forces = False
        return self

    @classmethod
    def _import(cls, path, format, **options):
        bad = set(options) - set(_IMPORT_OPTIONS)
        if bad:
            raise TypeError(f"unknown import option(s) {', '.join(sorted(bad))} "
                            f"(options: {', '.join(_IMPORT_OPTIONS)})")
        m, rep = _liedyn._import(cls, path, format=format, **options)
        m._init_origin(("import", path, format, dict(options)))
        warnings = rep.pop("warnings")
        m.import_report = rep
        m.import_warnings = [ImportNote(w) for w in warnings]
        return m

    def _element_index(self, name):
        for e in self._elements():
            if (e["name"] or f"element{e['index']}") == name:
                return e["index"]
        raise KeyError(f"no element named '{name}' in model '{self.name}'")

    def set(self, key, value):
        """Edit one parameter by its dotted key: "bodies.NAME.mass", "bodies.NAME.inertia"
        (3 principal moments, 6 numbers [Jxx, Jyy, Jzz, Jxy, Jyz, Jxz] or 3x3, as in
        the YAML file), "elements.NAME.KEY"
        (KEY as in the YAML file: spring-damper k, c, l0, f0; rotational-spring-damper k, c; bushing
        stiffness, damping: 6 diagonal numbers or 6x6) or "gravity". The model is validated
        as the YAML reader validates it: an invalid value raises ValueError("ITEM: REASON")
        and leaves the model unchanged. A model with live Systems or Integrators compiled from
        it cannot be edited (RuntimeError)."""
        parts = key.split(".")
        if parts == ["gravity"]:
            _liedyn._model_set_gravity(self, value)
        elif len(parts) >= 3 and parts[0] == "bodies":
            _liedyn._model_set_body(self, ".".join(parts[1:-1]), parts[-1], value)
        elif len(parts) >= 3 and parts[0] == "elements":
            i = self._element_index(".".join(parts[1:-1]))
            _liedyn._model_set_element(self, i, parts[-1], value)
        else:
            raise KeyError(f"'{key}': expected bodies.NAME.FIELD, elements.NAME.KEY or gravity")
        self._edits.pop(key, None)
        self._edits[key] = np.array(value, dtype=float) if not np.isscalar(value) else value

    def copy(self):
        """A new model read from the same source (file, text or import) with this model's
        edits applied. User forces are not copied: a model with them raises ValueError."""
        if self._has_forces:
            raise ValueError("a model with user forces cannot be copied (add them to the copy)")
        kind = self._origin[0]
        cls = type(self)
        if kind == "import":
            _, path, fmt, options = self._origin
            m = cls._import(path, fmt, **options)
        else:
            _, path, text, name = self._origin
            m = cls(path=path, text=text, name=name)
        for op in self._adds:
            if op[0] == "assemble":
                m.assemble()
            else:
                m._add(*op)
        for k, v in self._edits.items():
            m.set(k, v)
        return m

    def _add(self, list_, item):
        text = json.dumps({k: v for k, v in item.items() if v is not None}, default=_plain)
        _liedyn._model_add_item(self, list_, text)
        self._adds.append((list_, item))

    def add_body(self, name, mass, inertia, position=None, orientation=None, *,
                 angular_velocity=None, velocity=None, shape=None, hold=None):
        """Append a rigid body (docs/model-format.md, the keys of a body): mass (kg), inertia
        (3 principal moments, 6 numbers [Jxx, Jyy, Jzz, Jxy, Jyz, Jxz] or 3x3, about the centre
        of mass in body axes), position (its centre of mass, spatial), orientation (quaternion
        w, x, y, z, body -> spatial), angular_velocity (body frame), velocity (spatial), shape
        (a dict or a list of dicts as in the file), hold. Read and checked as the YAML reader
        reads a body; a refused body raises ValueError("bodies[i].KEY: REASON") and leaves
        the model unchanged. Without a position (and orientation) a joint in the frame form
        places it: call assemble() after the joints."""
        self._add("bodies", dict(name=name, mass=mass, inertia=inertia, position=position,
                                 orientation=orientation, angular_velocity=angular_velocity,
                                 velocity=velocity, shape=shape, hold=hold))

    def add_joint(self, kind, body1, body2=None, point=None, axis=None, *, name=None, **keys):
        """Append a joint of type kind (spherical, universal, revolute, cylindrical, prismatic,
        fixed, driver) between body1 (a body's name or "ground") and body2, at the spatial
        point `point` (the file's `at`) with the unit axis `axis`, both at the bodies'
        placement as given; keys: the file's other joint keys (axis2, limits, angle_rate,
        slide_rate, motion, value, time; or the frame form frame1, frame2, angle, slide, hold,
        then assemble()). Read and checked as the YAML reader reads a joint; a refused joint
        raises ValueError("joints[i].KEY: REASON") and leaves the model unchanged."""
        item = dict(name=name, type=kind, body1=body1, body2=body2, at=point, axis=axis)
        item.update(keys)
        self._add("joints", item)

    def add_element(self, type, body1=None, body2=None, *, name=None, **keys):
        """Append a force element of the registry (docs/elements.md: spring-damper,
        rotational-spring-damper, bushing, ...) between body1 (a body or "ground") and body2,
        its parameters by the file's keys (spring-damper: point1, point2, k, c, l0, f0;
        rotational-spring-damper: axis, k, c, angle0; ...). Read and checked as the YAML
        reader reads an element; a refused one raises ValueError("elements[i].KEY: REASON")
        and leaves the model unchanged."""
        item = dict(name=name, type=type, body1=body1, body2=body2)
        item.update(keys)
        self._add("elements", item)

    def assemble(self):
        """Place the bodies given without a position and close the joints of the frame form
        (ld_model_assemble, docs/model-format.md#assembly); ValueError naming the body or
        joint that cannot be placed or closed."""
        _liedyn._model_assemble(self)
        self._adds.append(("assemble",))

    @property
    def gravity(self):
        """The gravity vector (m/s^2, spatial); settable."""
        return _liedyn.Model.gravity.__get__(self)

    @gravity.setter
    def gravity(self, value):
        self.set("gravity", value)

    def add_force(self, *args, **kw):
        super().add_force(*args, **kw)
        self._has_forces = True

    add_force.__doc__ = _liedyn.Model.add_force.__doc__

    def add_c_force(self, *args, **kw):
        super().add_c_force(*args, **kw)
        self._has_forces = True

    add_c_force.__doc__ = _liedyn.Model.add_c_force.__doc__
