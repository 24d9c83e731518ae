"""Forward mode with vector dual numbers: an independent witness for the compiler.

Contract
--------
* `Dual` pairs a primal `value` with `dot`, its tangents along ``n`` directions at
  once: an ndarray of shape ``(n,) + shape(value)`` (direction first). Each
  operation computes its tangent with the rule table's forward rule (`s2sad.primitives`,
  ``rule(*inputs, out, *input_dots)``): scalar operations and elementwise NumPy
  operations (inputs broadcast to the result's shape) in one call for all
  directions; other array operations (reductions, products, indexing) once per
  direction.
* `dual_grad(f, args, wrt=0, kwargs=None)` returns ``(value, gradient)`` with the
  same conventions as `tape.tape_grad`: every scalar the `wrt` arguments hold (a
  float, each float of a list, each element of an array) gets one direction, so one
  run of `f` gives every partial derivative.
* `jacobian(f, args, wrt=0, kwargs=None)` returns ``(value, J)`` for an `f` whose
  output is a number, an ndarray, or lists and tuples of them: ``J[i, k]`` is the
  derivative of the output's scalar ``i`` (flattened in order, arrays in C order)
  with respect to input scalar ``k`` (numbered as `dual_grad` numbers them). Run
  over a gradient function, it gives a Hessian (forward over reverse).

Anything the engine cannot follow raises `EngineError` (an `S2SADError`) naming the
operation; a rule that fails (``sqrt`` at 0) raises it at once, since the tangent is
needed as soon as the operation runs. This module imports nothing from the compiler
pipeline.
"""

from __future__ import annotations

import numpy as np

from .. import primitives as rules
from . import args as args_mod
from .shim import run
from .primitives import call_rule, object_array_error, undefined
from .traced import Traced, deep_primal, held, primal, traced_parts


class Dual(Traced):
    """A primal value with a tangent per direction (see the module docstring)."""

    __slots__ = ("dot",)
    engine = "dual"
    mode = "forward"

    def __init__(self, value, dot):
        self.value = value
        self.dot = dot

    @classmethod
    def apply(cls, key, fn, args, options=None, elementwise=False):
        out, primals, rule, used = cls.evaluate(key, fn, args, options or {})
        if rule is None:
            return held(out)
        options = options or {}
        n = traced_parts(args, used, cls)[0][2].dot.shape[0]
        shape = () if isinstance(out, (tuple, list)) else np.shape(out)
        arrays = isinstance(out, np.ndarray) or any(isinstance(p, np.ndarray) for p in primals)
        lists = any(not isinstance(args[i], Dual) for i in used)  # (np.stack([a, b]))
        try:
            if isinstance(out, (tuple, list)):  # (eigh, np.split: a tangent per part)
                per_direction = [_direction(rule, args, primals, options, out, used, k, parts=True)
                                 for k in range(n)]
                return held(_parts_of(out, [
                    Dual(part, _spread(np.stack([np.asarray(d[j], dtype=float) for d in per_direction]),
                                       n, np.shape(part)))
                    for j, part in enumerate(out)]))
            if lists:
                tangent = np.stack([_direction(rule, args, primals, options, out, used, k)
                                    for k in range(n)])
            elif not arrays and not _numpy_function(key):
                # Python floats raise on a division by zero; so do their tangents
                dots = [args[i].dot if i in used else 0.0 for i in range(len(args))]
                with np.errstate(divide="raise", invalid="raise"):
                    tangent = _total(call_rule(rule, primals, options, out, dots), used)
            elif elementwise:
                dots = [_spread(args[i].dot, n, shape) if i in used else 0.0
                        for i in range(len(args))]
                tangent = _total(call_rule(rule, primals, options, out, dots), used)
            else:  # a reduction, product or index: the rule sees one direction at a time
                tangent = np.stack([_direction(rule, args, primals, options, out, used, k)
                                    for k in range(n)])
        except (ArithmeticError, ValueError) as exc:
            raise undefined(key, primals, exc) from None
        return held(Dual(out, _spread(tangent, n, shape)))

    def _take(self, value, result):
        """(see `Traced._become`: ``x -= v`` on an array)"""
        self.value = value
        self.dot = result.dot if isinstance(result, Dual) else np.zeros_like(self.dot)


def _numpy_function(key) -> bool:
    """Is `key` a NumPy function that is no ufunc (``np.sum``, ``np.mean``), another
    library's reduction (``logsumexp``), one of s2sad's runtime helpers (``unbroadcast``
    in a gradient the engine runs through) or a function the user gave rules (which
    may say ``np.sum(x_dot)``)? Its rule may reduce the tangent it is given, so even
    on numbers it sees one direction at a time: given a number's tangents along every
    direction, ``np.sum(x_dot)`` would add the directions together."""
    module = getattr(key, "__module__", None) or ""
    if (module == "numpy" or module.startswith("numpy.")) and not isinstance(key, np.ufunc):
        return True
    if module == "s2sad.runtime" or rules.registry.registered(key):
        return True
    try:
        return key in rules.REDUCTIONS
    except TypeError:  # (an unhashable callable)
        return False


def _direction(rule, args, primals, options, out, used, k, parts=False):
    """The tangent of `out` along direction `k` alone (with `parts`, of each part of
    a tuple `out`, as a tuple)."""
    dots = [_item_dots(args[i], k) if i in used else _zeros(primals[i])
            for i in range(len(args))]
    total = _total(call_rule(rule, primals, options, out, dots), used)
    if parts:
        return tuple(np.broadcast_to(t, np.shape(o)) for t, o in zip(total, out)) \
            if isinstance(total, (tuple, list)) else tuple(np.zeros(np.shape(o)) for o in out)
    return np.asarray(total, dtype=float)


def _zeros(value):
    """A zero tangent of `value`: one per item of a list or a tuple, whose items may
    differ in shape (the pieces ``unsplit`` joins)."""
    if isinstance(value, (list, tuple)):
        return [_zeros(v) for v in value]
    return np.zeros(np.shape(value))


def _parts_of(out, parts):
    """`parts` in a tuple of `out`'s type (a named tuple: EighResult), or a list."""
    return type(out)(*parts) if hasattr(out, "_fields") else type(out)(parts)


def _item_dots(arg, k):
    """The tangent along direction `k` of an input: a traced value's, or for a list
    input one per item (zeros for a plain item)."""
    if isinstance(arg, Dual):
        return arg.dot[k]
    return type(arg)(e.dot[k] if isinstance(e, Dual) else np.zeros(np.shape(e)) for e in arg)


def _spread(dot, n, shape):
    """`dot` as an array of shape ``(n,) + shape`` (broadcast like its primal)."""
    dot = np.asarray(dot, dtype=float)
    full = (n,) + tuple(shape)
    if dot.shape == full:
        return dot
    if dot.ndim == 0:
        return np.broadcast_to(dot, full)
    lead = dot.reshape((dot.shape[0],) + (1,) * (len(full) - dot.ndim) + dot.shape[1:])
    return np.broadcast_to(lead, full)


def _total(terms, used):
    total = None
    for i in used:
        t = terms[i]
        if t is not None:
            total = t if total is None else total + t
    return 0.0 if total is None else total


def _seed(value, offset, n):
    """The traced form of one wrt argument, whose scalars get directions
    ``offset, offset + 1, ...``; returns (traced, next offset)."""
    if isinstance(value, list):
        out = []
        for v in value:
            d, offset = _seed(v, offset, n)
            out.append(d)
        return out, offset
    if isinstance(value, np.ndarray):
        size = value.size
        dot = np.zeros((n, size))
        dot[offset:offset + size] = np.eye(size)
        return Dual(np.array(value, dtype=float), dot.reshape((n,) + value.shape)), offset + size
    dot = np.zeros(n)
    dot[offset] = 1.0
    return Dual(float(value), dot), offset + 1


def _size(value) -> int:
    if isinstance(value, list):  # (of floats, or of arrays)
        return sum(_size(v) for v in value)
    if isinstance(value, np.ndarray):
        return value.size
    return 1


def _read(value, tangent, offset):
    """The gradient entry of one wrt argument from the output's tangent vector."""
    if isinstance(value, list):
        out = []
        for v in value:
            out.append(_read(v, tangent, offset))
            offset += _size(v)
        return out
    if isinstance(value, np.ndarray):
        return np.array(tangent[offset:offset + value.size], dtype=float).reshape(value.shape)
    return float(tangent[offset])


def dual_grad(f, args, wrt=0, kwargs=None):
    """``(f(*args), gradient)`` by forward mode in one pass (see the module docstring)."""
    args = tuple(args)
    positions, as_tuple = args_mod.wrt_positions(f, wrt, len(args))
    args_mod.check_values(f, args, positions)
    n = sum(_size(args[p]) for p in positions)
    traced, offset, offsets = list(args), 0, []
    for pos in positions:
        offsets.append(offset)
        traced[pos], offset = _seed(args[pos], offset, n)
    out = args_mod.scalar_output(f, run(f, traced, args, kwargs, "dual"), "dual")
    tangent = np.asarray(out.dot, dtype=float).reshape(n) if isinstance(out, Dual) \
        else np.zeros(n)
    grads = tuple(_read(args[p], tangent, o) for p, o in zip(positions, offsets))
    value = out.value if isinstance(out, Traced) else out
    return value, grads if as_tuple else grads[0]


def _rows(out, n) -> list:
    """The tangent rows (one per output scalar, each of length `n`) of `out`."""
    if isinstance(out, (list, tuple)):
        return [row for item in out for row in _rows(item, n)]
    if np.asarray(primal(out)).dtype == object:
        raise object_array_error("dual")
    if isinstance(out, Dual):
        dot = np.asarray(out.dot, dtype=float).reshape(n, -1)
        return list(dot.T)
    return [np.zeros(n)] * max(int(np.size(out)), 1)


def jacobian(f, args, wrt=0, kwargs=None):
    """``(f(*args), J)`` by forward mode in one pass (see the module docstring)."""
    args = tuple(args)
    positions, _ = args_mod.wrt_positions(f, wrt, len(args))
    args_mod.check_values(f, args, positions)
    n = sum(_size(args[p]) for p in positions)
    traced, offset = list(args), 0
    for pos in positions:
        traced[pos], offset = _seed(args[pos], offset, n)
    out = run(f, traced, args, kwargs, "dual")
    rows = _rows(out, n)
    return deep_primal(out), np.array(rows, dtype=float).reshape(len(rows), n)
