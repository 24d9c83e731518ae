"""Arguments and results of the engines' `*_grad` functions.

Contract
--------
* `wrt_positions(f, wrt, nargs)` turns `wrt` (a position, a parameter name, or a
  tuple of them) into a list of positions and says whether the caller asked for a
  tuple of gradients; bad values raise `WrtError`, an integer value for a
  differentiated argument raises `IntegerArgumentError` (as `s2sad.grad` does).
* `lift(value, make)` turns one differentiated argument into traced form: a float
  becomes ``make(float)``, a list of floats a list of ``make(float)``, an ndarray one
  ``make(array)`` (as a float array).
* `scalar_output(f, out, engine)` checks that the function returned one number (or a
  0-d array), else raises `NonScalarOutputError`; a 0-d object array (NumPy wrapped
  a traced number) is unwrapped, a larger one raises `EngineError`.
"""

from __future__ import annotations

import inspect
import numbers

import numpy as np

from ..errors import ComplexArgumentError, IntegerArgumentError, NonScalarOutputError, WrtError
from .primitives import object_array_error
from .traced import Traced, primal


def _name(f) -> str:
    return getattr(f, "__qualname__", None) or getattr(f, "__name__", None) or repr(f)


def _parameters(f) -> list:
    try:
        return list(inspect.signature(f).parameters)
    except (TypeError, ValueError):
        return []


def wrt_positions(f, wrt, nargs: int):
    """(positions, as_tuple) for `wrt`; see the module docstring."""
    as_tuple = isinstance(wrt, tuple)
    items = wrt if as_tuple else (wrt,)
    names = _parameters(f)
    out = []
    for w in items:
        if isinstance(w, str):
            if w not in names:
                raise WrtError(f"wrt names {w!r}, which is not a parameter of {_name(f)} "
                               f"(its parameters are {', '.join(names) or 'unknown'})")
            pos = names.index(w)
        elif isinstance(w, int) and not isinstance(w, bool):
            pos = w
        else:
            raise WrtError(f"wrt must be a parameter position, a name or a tuple of them, "
                           f"not {w!r}")
        if not 0 <= pos < nargs:
            raise WrtError(f"wrt position {pos} of {_name(f)} is not among the {nargs} "
                           "arguments given")
        if pos in out:
            raise WrtError(f"wrt names argument {pos} of {_name(f)} twice")
        out.append(pos)
    return out, as_tuple


def _check_real(f, pos, value, names):
    label = names[pos] if pos < len(names) else f"argument {pos}"
    if ComplexArgumentError.holds(value):
        raise ComplexArgumentError.of(f"the gradient of {_name(f)} with respect to "
                                      f"`{label}`", value)
    bad = None
    if isinstance(value, (bool, np.bool_)) or (isinstance(value, numbers.Integral)):
        bad = value
    elif isinstance(value, list):
        bad = next((v for v in value if isinstance(v, numbers.Integral)), None)
        if bad is None and not all(isinstance(v, numbers.Real) or isinstance(v, np.ndarray)
                                   and np.issubdtype(v.dtype, np.floating) for v in value):
            raise WrtError(f"the gradient of {_name(f)} with respect to `{label}` needs a "
                           "list of floats or of float arrays")
    elif isinstance(value, np.ndarray):
        if not np.issubdtype(value.dtype, np.floating):
            raise IntegerArgumentError(
                f"the gradient of {_name(f)} with respect to `{label}` needs a float "
                f"array, not one of dtype {value.dtype}",
                hint="Convert it with arr.astype(float).")
        return
    elif not isinstance(value, numbers.Real):
        raise WrtError(f"the gradient of {_name(f)} with respect to `{label}` needs a float, "
                       f"a list of floats or a float array, not {type(value).__name__}")
    if bad is not None:
        raise IntegerArgumentError(
            f"grad of {_name(f)} with respect to `{label}`: its value {bad!r} is an integer, "
            "and gradients are taken with respect to real numbers",
            hint=f"Pass a float ({float(bad)!r} instead of {bad!r}), or take the gradient "
                 "with respect to another parameter.")


def check_values(f, args, positions):
    names = _parameters(f)
    for pos in positions:
        _check_real(f, pos, args[pos], names)


def lift(value, make):
    """The traced form of one differentiated argument (see the module docstring)."""
    if isinstance(value, list):  # (of floats, or of arrays: `for W in params`)
        return [make(np.array(v, dtype=float)) if isinstance(v, np.ndarray) else make(float(v))
                for v in value]
    if isinstance(value, np.ndarray):
        return make(np.array(value, dtype=float))
    return make(float(value))


def scalar_output(f, out, engine="traced"):
    """`out`, checked to be one number (traced or not)."""
    value = primal(out)
    if isinstance(value, np.ndarray) and value.dtype == object:
        if value.ndim != 0:
            raise object_array_error(engine)
        out = value[()]  # NumPy wrapped one traced number: unwrap it
        value = primal(out)
    if isinstance(value, Traced) or isinstance(value, np.ndarray) and value.dtype == object:
        raise object_array_error(engine)  # (traced values inside a traced value)
    if isinstance(value, np.ndarray) and value.ndim == 0:
        return out
    if isinstance(value, numbers.Real) and not isinstance(value, np.ndarray):
        return out
    what = f"an array of shape {value.shape}" if isinstance(value, np.ndarray) else \
        f"a {type(value).__name__}"
    raise NonScalarOutputError(f"a gradient needs a function that returns one number; "
                               f"{_name(f)} returned {what}")
