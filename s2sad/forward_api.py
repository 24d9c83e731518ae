"""Forward mode for users: `jvp`, `derivative`, and the gradient by forward mode.

`jvp(f, primals, tangents)` runs the forward-mode derivative the compiler emits for
`f` (see `pipeline.forward_unit`): one pass that computes `f`'s output and its
directional derivative along `tangents`. The compiled derivative is specialised, and
cached, on the argument kinds and on which arguments carry a tangent, like `grad`'s.
"""

from __future__ import annotations

import inspect
import weakref

import numpy as np

from . import compile as compile_mod
from . import ops, pipeline, rules
from .errors import S2SADError, WrtError

_cache: "weakref.WeakKeyDictionary" = weakref.WeakKeyDictionary()


def _compiled(f, wrt: tuple, kinds: dict):
    from .api import _check_function, _lock, _still_valid

    _check_function(f, "jvp")
    key = (wrt, tuple(kinds.items()))
    with _lock:
        per_code = _cache.setdefault(f.__code__, {})
        got = per_code.get(key)
        if got is not None and got[0].root is f and _still_valid(got[0]):
            return got[1]
        unit = pipeline.forward_unit(f, wrt, kinds)
        unit.root = f
        fn = compile_mod.bind(unit, compile_mod.compile_unit(unit))[unit.entry[0]]
        per_code[key] = (unit, fn)
        return fn


def _forget():
    """A rule was registered: forget every derivative built before."""
    _cache.clear()


rules.ON_CHANGE.append(_forget)


def _bound(f, primals, what):
    if not isinstance(primals, (tuple, list)):
        raise S2SADError(f"{what} takes the primals as a tuple: {what}(f, (x, y), (x_dot, "
                         f"y_dot)); got {type(primals).__name__}")
    try:
        bound = inspect.signature(f).bind(*primals)
    except TypeError as exc:
        raise S2SADError(f"{what}: the primals do not fit {f.__qualname__}: {exc}",
                         hint="Give one primal per positional parameter.") from None
    bound.apply_defaults()
    return bound


def jvp(f, primals, tangents):
    """``(f(*primals), tangent of the output)``: the directional derivative of `f` at
    `primals` along `tangents` (one per primal, with its shape; ``None`` for an
    argument held fixed, such as an integer), computed in one forward pass.

    The output tangent has the output's structure: a float for a float, an array of
    the output's shape, a tuple for a tuple."""
    bound = _bound(f, primals, "jvp")
    if not isinstance(tangents, (tuple, list)) or len(tangents) != len(primals):
        raise S2SADError(f"jvp needs one tangent per primal: {len(primals)} primals, "
                         f"{len(tangents) if isinstance(tangents, (tuple, list)) else 'no'} "
                         "tangents", hint="Pass None for an argument held fixed.")
    names = list(inspect.signature(f).parameters)
    wrt, dots = [], []
    for name, x, t in zip(names, primals, tangents):
        if t is None:
            continue
        kind = ops.kind_of(x)
        if not ops.differentiable(kind) or isinstance(kind, tuple):
            if isinstance(t, (int, float)) and t == 0:
                continue  # a zero tangent for an integer: held fixed
            raise WrtError(f"jvp of {f.__qualname__}: `{name}` is a {type(x).__name__}, and "
                           "tangents are taken for floats, float arrays and lists of floats",
                           hint="Pass None as its tangent.")
        if np.shape(t) != np.shape(x):
            raise S2SADError(f"jvp of {f.__qualname__}: the tangent of `{name}` has shape "
                             f"{np.shape(t)}, its primal {np.shape(x)}",
                             hint="Give every tangent its primal's shape.")
        wrt.append(name)
        dots.append(t)
    kinds = {n: ops.kind_of(v) for n, v in bound.arguments.items()}
    fn = _compiled(f, tuple(wrt), kinds)
    positional = [bound.arguments[p.name] for p in inspect.signature(f).parameters.values()
                  if p.kind is not p.KEYWORD_ONLY]
    keywords = {p.name: bound.arguments[p.name]
                for p in inspect.signature(f).parameters.values() if p.kind is p.KEYWORD_ONLY}
    return fn(*positional, *dots, **keywords)


def derivative(f):
    """``f'``: for a function of one float, the function that returns the derivative
    of `f` at a point (computed in forward mode)."""
    def df(x, *rest):
        if isinstance(x, bool) or not isinstance(x, (float, int)):
            raise WrtError(f"derivative of {f.__qualname__} takes a number for its first "
                           f"argument; got {type(x).__name__}",
                           hint="For arrays use s2sad.jvp or s2sad.grad.")
        x = float(x)
        return jvp(f, (x, *rest), (1.0,) + (None,) * len(rest))[1]

    df.__name__ = f"derivative_of_{getattr(f, '__name__', 'f')}"
    df.__doc__ = f"The derivative of {getattr(f, '__qualname__', f)} (forward mode)."
    return df


def value_and_grad_by_forward_mode(f, wrt_names: tuple, as_tuple: bool, args, kwargs):
    """``(f(...), gradient)`` for `grad(f, wrt, mode="forward")` at one point: one
    forward pass per input number, each with a unit tangent."""
    sig = inspect.signature(f)
    bound = sig.bind(*args, **kwargs)
    bound.apply_defaults()
    names = [p.name for p in sig.parameters.values() if p.kind is not p.KEYWORD_ONLY]
    values = [bound.arguments[n] for n in names]
    base = [None] * len(values)
    grads = []
    value = None
    for name in wrt_names:
        i = names.index(name)
        x = values[i]
        if isinstance(x, np.ndarray):
            g = np.zeros_like(x)
            for k in np.ndindex(x.shape):
                t = np.zeros_like(x)
                t[k] = 1.0
                value, g[k] = _checked(f, jvp(f, values, _with(base, i, t)))
            grads.append(g)
        elif isinstance(x, list):
            g = []
            for k in range(len(x)):
                t = [0.0] * len(x)
                t[k] = 1.0
                value, part = _checked(f, jvp(f, values, _with(base, i, t)))
                g.append(part)
            grads.append(g)
        else:
            value, part = _checked(f, jvp(f, values, _with(base, i, 1.0)))
            grads.append(part)
    if value is None:  # every argument was empty
        value = f(*args, **kwargs)
    return value, (tuple(grads) if as_tuple else grads[0])


def _with(base, i, t):
    out = list(base)
    out[i] = t
    return tuple(out)


def _checked(f, pair):
    value, tangent = pair
    if np.ndim(value) != 0 or isinstance(value, (tuple, list)):
        raise S2SADError(f"grad needs a function that returns one real number; "
                         f"{f.__qualname__} returns {type(value).__name__}",
                         hint="Use s2sad.jvp for a non-scalar output.")
    return value, tangent
