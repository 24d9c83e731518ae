"""standard: NumPy's names over the Python array API standard, for a derivative run
with arrays of a library that has the standard's names only (`array-api-strict`,
the standard's conformance check: `kinds.NAMESPACES`).

`compile` binds the names meaning NumPy in the derivative's text to this module
(as it binds them to ``jax.numpy`` for JAX arrays): a name the standard has
(``tanh``, ``sum``, ``where``) is the library's own; one it spells otherwise
(``power``, ``concatenate``, ``arcsin``) is the library's under the standard's
name; the few NumPy functions the derivatives call that the standard has not
(``outer``, ``shape``, ``transpose``, ``dot``) are written here in the standard's
functions. Any other name is missing, and `driver.libraries` refuses a derivative
that calls it, at the user's line.
"""

from __future__ import annotations

import math
import types

import array_api_strict as xp

_RENAMED = {"power": "pow", "concatenate": "concat", "absolute": "abs", "arcsin": "asin",
            "arccos": "acos", "arctan": "atan", "arcsinh": "asinh", "arccosh": "acosh",
            "arctanh": "atanh", "arctan2": "atan2", "amax": "max", "amin": "min"}


_RENAMED.update(cumsum="cumulative_sum", array="asarray")

# NumPy's positional parameters after the first that the standard takes by keyword
_KEYWORDS = {"sum": ("axis",), "mean": ("axis",), "max": ("axis",), "min": ("axis",),
             "var": ("axis",), "std": ("axis",), "prod": ("axis",), "flip": ("axis",),
             "sort": ("axis",), "argsort": ("axis",), "tril": ("k",), "triu": ("k",),
             "concat": ("axis",), "stack": ("axis",), "cumulative_sum": ("axis",),
             "diff": ("n", "axis"), "roll": ("shift", "axis")}


def __getattr__(name):
    standard = _RENAMED.get(name, name)
    got = getattr(xp, standard, None)
    if got is None:
        raise AttributeError(f"the array API standard has no {name}")
    if standard in _KEYWORDS:
        got = _by_keyword(got, _KEYWORDS[standard])
    globals()[name] = got  # (looked up once)
    return got


def _by_keyword(fn, names):
    """`fn`, which takes the parameters `names` by keyword, called as NumPy calls its
    counterpart: with them by position after the first argument."""
    def call(x, *args, **kwargs):
        kwargs.update(zip(names, args))
        if "ddof" in kwargs:
            kwargs["correction"] = kwargs.pop("ddof")
        return fn(x, **kwargs)

    call.__name__ = fn.__name__
    return call


def ravel(a):
    return xp.reshape(a, (-1,))


def shape(a) -> tuple:
    return tuple(getattr(a, "shape", ()))


def ndim(a) -> int:
    return len(shape(a))


def size(a) -> int:
    return math.prod(shape(a))


def transpose(a, axes=None):
    return xp.permute_dims(a, tuple(reversed(range(a.ndim))) if axes is None else tuple(axes))


def outer(a, b):
    return xp.reshape(a, (-1, 1)) * xp.reshape(b, (1, -1))


def dot(a, b):
    if a.ndim == 0 or b.ndim == 0:
        return a * b
    return xp.matmul(a, b) if b.ndim <= 2 else xp.tensordot(a, b, axes=([-1], [-2]))


def _norm(x, ord=None, axis=None, keepdims=False):
    """``np.linalg.norm``: the 2-norm of vectors and the Frobenius norm (``ord``
    None) only."""
    if ord is None or ord == 2 and (x.ndim == 1 or isinstance(axis, int)):
        return xp.linalg.vector_norm(x, axis=axis, keepdims=keepdims)
    raise ValueError("np.linalg.norm of other orders than 2 and 'fro' has no counterpart "
                     "in the array API standard: not supported yet")


linalg = types.SimpleNamespace(norm=_norm, **{n: getattr(xp.linalg, n) for n in dir(xp.linalg)
                                              if not n.startswith("_")})
