"""What every contender shares: the cases as objects, ports, fresh definitions,
gradient values in one shape, and the agreement check.

A case module holds

* ``TITLE``: the heading of its section in the report;
* ``CASES``: a list of ``(name, function, hand-written gradient, args, wrt)``, the
  function written once as plain Python (``math``, or ``numpy`` for array cases);
* ``PORTS`` (optional): ``{case name: {tool key: function}}``, the minimal port of a
  case for a tool that needs its own spelling (``jax.lax.fori_loop`` for ``jit``, say).

A tool with no explicit port runs the case's own code with the module names it uses
rebound to the tool's versions (``math`` to ``autograd.numpy``, ``jax.numpy``,
``torch``, ``numpy``...): the same source, the tool's operations. A case that calls
helper functions of its own needs explicit ports, since only its own globals are
rebound.
"""

import contextlib
import io
import itertools
import math
import sys
import types
import warnings
from dataclasses import dataclass, field

import numpy as np

_fresh_ids = itertools.count()


@dataclass
class Case:
    name: str
    f: types.FunctionType
    by_hand: types.FunctionType
    args: tuple
    wrt: object  # a position or a tuple of positions, as s2sad.grad takes it
    ports: dict = field(default_factory=dict)
    module: types.ModuleType = None
    index: int = 0

    @property
    def positions(self):
        return self.wrt if isinstance(self.wrt, tuple) else (self.wrt,)

    @property
    def arrays(self):
        """Whether the case differentiates NumPy arrays: its gradient is then arrays,
        as s2sad returns them, and tools return NumPy arrays, not lists."""
        return any(getattr(self.args[i], "ndim", 0) for i in self.positions)

    @property
    def inputs(self):
        """How many floats the gradient has."""
        total = 0
        for i in self.positions:
            a = self.args[i]
            total += len(a) if isinstance(a, list) else int(getattr(a, "size", 1))
        return total

    def port(self, keys):
        """The explicit port for the first of ``keys`` the case has, else None."""
        for key in keys:
            if key in self.ports:
                return self.ports[key]
        return None

    def fresh(self):
        """This case defined anew from its module's source: new function objects and
        new code objects, so no tool finds anything of them in a cache."""
        path = self.module.__file__
        with open(path) as fh:
            text = fh.read()
        ns = {
            "__name__": f"_bench_fresh_{next(_fresh_ids)}",
            "__package__": self.module.__package__,
            "__file__": path,
        }
        exec(compile(text, path, "exec"), ns)
        return _case(ns, self.index, self.module)


class Skipped(Exception):
    """Raised by a tool's ``make`` for a case it could run but is not run on here (a
    cost out of proportion: central differences over 100,000 inputs); reported as
    skipped, with the message, not as unsupported."""


def _case(ns, index, module):
    name, f, by_hand, args, wrt = ns["CASES"][index]
    return Case(name, f, by_hand, args, wrt, dict(ns.get("PORTS", {}).get(name, {})),
                module, index)


def load(module):
    """The cases of one case module."""
    return [_case(vars(module), i, module) for i in range(len(module.CASES))]


def rebind(func, names):
    """``func`` with the module-level names it reads (``math``, ``np``) bound to other
    objects: the same code object, another globals dictionary."""
    glb = dict(func.__globals__)
    glb.update({k: v for k, v in names.items() if k in glb})
    return types.FunctionType(func.__code__, glb, func.__name__, func.__defaults__,
                              func.__closure__)


def shim(module_name, table, fallback=math):
    """A stand-in for ``math``: each name in ``table`` maps to the tool's function;
    every other attribute (``pi``, ``e``, a function the tool lacks) is math's own, so
    a case using a function the tool has no version of fails in the tool, loudly."""
    ns = types.SimpleNamespace(**{k: getattr(fallback, k) for k in dir(fallback)
                                  if not k.startswith("_")})
    for k, v in table.items():
        setattr(ns, k, v)
    ns.__name__ = module_name
    return ns


def tidy(value):
    """A gradient as s2sad returns it: floats, lists of floats, tuples of those."""
    if isinstance(value, tuple):
        return tuple(tidy(v) for v in value)
    if isinstance(value, list):
        return [tidy(v) for v in value]
    if isinstance(value, float):
        return value
    if hasattr(value, "tolist"):  # NumPy, JAX and PyTorch arrays and scalars
        return tidy(value.tolist())
    return float(value)


def as_numpy(value):
    """A gradient of an array case as s2sad returns it: NumPy arrays (a tuple of them
    for a tuple ``wrt``), converted from a tool's own arrays (JAX, PyTorch)."""
    if isinstance(value, tuple):
        return tuple(as_numpy(v) for v in value)
    return np.asarray(tidy_array(value))


_shared_args = {}


def shared_args(build):
    """``build()``, once per process: the arrays of a NumPy case are built once and
    shared by the fresh definitions of its module (see `Case.fresh`), which need new
    functions, not new data."""
    code = build.__code__
    key = (code.co_filename, code.co_name)
    if key not in _shared_args:
        _shared_args[key] = build()
    return _shared_args[key]


def flat(value):
    if isinstance(value, (tuple, list)):
        return [x for v in value for x in flat(v)]
    if isinstance(value, np.ndarray):
        return value.ravel().tolist()
    return [value]


def _has_arrays(value):
    return isinstance(value, np.ndarray) or (
        isinstance(value, tuple) and any(isinstance(v, np.ndarray) for v in value))


def _compare_arrays(got, ref, tolerance):
    """`compare` for gradients that are arrays or tuples of arrays, vectorised."""
    if isinstance(got, tuple) != isinstance(ref, tuple):
        return False, math.inf
    gs = got if isinstance(got, tuple) else (got,)
    rs = ref if isinstance(ref, tuple) else (ref,)
    if len(gs) != len(rs):
        return False, math.inf
    try:
        gs = [np.asarray(tidy_array(g), dtype=float) for g in gs]
        rs = [np.asarray(tidy_array(r), dtype=float) for r in rs]
    except (TypeError, ValueError):
        return False, math.inf
    if any(g.shape != r.shape for g, r in zip(gs, rs)):
        return False, math.inf
    diffs = [np.abs(g - r) for g, r in zip(gs, rs)]
    if any(np.isnan(d).any() for d in diffs):
        return False, math.nan
    scale = max((float(np.abs(r).max()) for r in rs if r.size), default=0.0) or 1.0
    err = max((float(d.max()) for d in diffs if d.size), default=0.0) / scale
    ok = all(bool(np.all(d <= tolerance * (1.0 + np.abs(r)))) for d, r in zip(diffs, rs))
    return ok, err


def tidy_array(value):
    """A tool's array (NumPy, JAX, PyTorch) as something np.asarray takes."""
    return value.detach().numpy() if hasattr(value, "detach") else value


def compare(got, ref, tolerance):
    """(agrees, relative error): every component within ``tolerance * (1 + |ref|)``,
    and the error as max |got - ref| / max |ref|."""
    if _has_arrays(got) or _has_arrays(ref):
        return _compare_arrays(got, ref, tolerance)
    try:
        got, ref = tidy(got), tidy(ref)
    except (TypeError, ValueError):
        return False, math.inf
    shape_ok = _shape(got) == _shape(ref)
    g, r = flat(got), flat(ref)
    if not shape_ok or len(g) != len(r):
        return False, math.inf
    try:
        diffs = [abs(float(a) - float(b)) for a, b in zip(g, r)]
    except (TypeError, ValueError):
        return False, math.inf
    scale = max((abs(b) for b in r), default=0.0) or 1.0
    err = max(diffs, default=0.0) / scale
    ok = all(d <= tolerance * (1.0 + abs(b)) for d, b in zip(diffs, r))
    if any(math.isnan(d) for d in diffs):
        return False, math.nan
    return ok, err


def _shape(value):
    if isinstance(value, tuple):
        return ("tuple", tuple(_shape(v) for v in value))
    if isinstance(value, list):
        return ("list", tuple(_shape(v) for v in value))
    return "scalar"


@contextlib.contextmanager
def quiet(log=None):
    """Silence what tools print or warn while they build and first run a gradient
    (tangent prints warnings on stdout); keep the text in ``log`` if given."""
    out = io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(out), \
            warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        yield
    if log is not None:
        text = [line.strip() for line in out.getvalue().splitlines() if line.strip()]
        text += [f"{w.category.__name__}: {w.message}" for w in caught]
        for line in text:
            if line not in log:
                log.append(line)


def describe(exc):
    """One line for an exception: its type and the first non-empty line of its
    message, shortened."""
    lines = [ln.strip() for ln in str(exc).splitlines() if ln.strip()]
    text = f"{type(exc).__name__}: {lines[0]}" if lines else type(exc).__name__
    text = text.replace("|", "/")
    return text if len(text) <= 160 else text[:157] + "..."


def python_description():
    return f"{sys.implementation.name} {sys.version.split()[0]}"
