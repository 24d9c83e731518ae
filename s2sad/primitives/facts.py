"""facts: what s2sad knows about the primitives it differentiates, apart from their rules.

The analyses and transforms ask this module what a NumPy function (or an operator,
or an array method) does to the kinds, shapes and objects it is given:

* `rule_result_kind` and `result_dtype`: the kind of a rule-bearing operation's
  result (its rank, then its dtype kind); `constant_kind` that of a function with no
  derivative (``np.zeros(n)``, ``np.arange(5)``, ``np.shape(x)``); `index_kind` that
  of ``a[index]``;
* `makes_view` and `makes_new_object`: whether a result may share memory with an
  input (`VIEW_KEYS`: reshapes, transposes, ``np.asarray``...) or is certainly a new
  object (`NEW_ARRAYS`: constructors, sorting, rounding, tests);
* `reductions`: the functions that take ``axis=`` and ``keepdims=`` like ``np.sum``:
  NumPy's (`NUMPY_REDUCTIONS`; `NUMPY_REDUCTION_NAMES` by the names the emitted
  code calls them with) and the other rules' (`primitives.REDUCTIONS`);
* `METHODS`: the array methods (``x.sum(axis=0)``) that are a NumPy function with
  the array as its first argument;
* `INT_RESULT`, `INT_PRESERVING`, `KEEPS_INTEGERS`, `KEEPS_DTYPE`, `SAME_SHAPE`,
  `SCALAR_OK`: which functions give integers, keep their input's dtype or shape, or
  take plain numbers.

The functions taking an `op` read an `analysis.classify.Op` (its `kind`, `key`,
`inputs`, `options`, `rule` and `copies`). May import `ir` and the rest of
`primitives`, never `analysis` or anything above it.
"""

from __future__ import annotations

import ast
import math
from dataclasses import dataclass

import numpy as np

from .. import ir
from ..ir.kinds import (INT, OTHER, SCALAR, UNKNOWN, ArrayKind, DTypeKind, ListKind, all_floats,
                        array_rank, leaves_dtype, rank_of)
from .registry import REDUCTIONS, stop_gradient

METHODS = {
    "sum": np.sum, "mean": np.mean, "prod": np.prod, "max": np.max, "min": np.min,
    "var": np.var, "std": np.std, "dot": np.dot, "reshape": np.reshape,
    "ravel": np.ravel, "flatten": np.ravel, "transpose": np.transpose,
    "squeeze": np.squeeze, "clip": np.clip, "copy": np.copy,
}

# the NumPy reductions, by the name the emitted code calls them with
NUMPY_REDUCTION_NAMES = {
    "np.sum": np.sum, "np.mean": np.mean, "np.prod": np.prod, "np.max": np.max,
    "np.min": np.min, "np.amax": np.amax, "np.amin": np.amin, "np.var": np.var,
    "np.std": np.std, "np.linalg.norm": np.linalg.norm,
}
NUMPY_REDUCTIONS = set(NUMPY_REDUCTION_NAMES.values())
# NumPy functions (besides ufuncs) whose rules take plain numbers too
SCALAR_OK = {np.clip, np.where, np.linalg.norm, np.sum, np.mean, np.prod, np.max, np.min}
# functions whose result may share memory with their first argument
VIEW_KEYS = {np.reshape, np.ravel, np.transpose, np.squeeze, np.expand_dims, np.asarray,
             np.swapaxes, np.moveaxis, np.diagonal, np.atleast_1d, np.atleast_2d,
             np.broadcast_to}
# operations that keep integers integers, and functions that keep their input's dtype
KEEPS_INTEGERS = {"add", "sub", "mul", "floordiv", "mod", "pow", "neg", "pos", "matmul",
                  abs, np.abs, np.absolute, np.maximum, np.minimum, np.clip, np.where,
                  np.sum, np.prod, np.max, np.min, np.amax, np.amin, np.square, np.sign,
                  np.dot, np.matmul, np.outer, np.inner, np.trace, np.cumsum, np.negative,
                  np.power, np.add, np.subtract, np.multiply, np.floor_divide, np.mod}
KEEPS_DTYPE = {np.transpose, np.reshape, np.ravel, np.squeeze, np.expand_dims,
               np.swapaxes, np.copy, np.array, np.asarray, np.concatenate, np.stack,
               np.hstack, np.vstack, np.broadcast_to}
# functions without a derivative whose result is a new array of their argument's shape
SAME_SHAPE = {np.sort, np.argsort, np.floor, np.ceil, np.round, np.rint, np.trunc, np.isnan,
              np.isinf, np.isfinite}
# functions without a derivative that always return a new array: constructors,
# sorting, rounding, tests
NEW_ARRAYS = {np.zeros, np.ones, np.empty, np.full, np.zeros_like, np.ones_like,
              np.empty_like, np.full_like, np.arange, np.linspace, np.eye, np.identity,
              np.sort, np.argsort, np.floor, np.ceil, np.round, np.rint, np.trunc,
              np.isnan, np.isinf, np.isfinite, np.equal, np.not_equal, np.less,
              np.less_equal, np.greater, np.greater_equal, np.logical_and,
              np.logical_or, np.logical_not, np.argwhere}
# callables whose result is an int, and operations that keep ints ints
INT_RESULT = {int, round, len, bool, math.floor, math.ceil, math.trunc}
INT_PRESERVING = {"add", "sub", "mul", "floordiv", "mod", "neg", "pos", abs, min, max}


@dataclass(frozen=True)
class AsType:
    """The key of ``x.astype(dtype)`` to a dtype without a derivative through it:
    `dtype` the result's dtype kind ("i", "b", "c", or "f" from an integer array),
    `copies` False when ``copy=`` may let the result be `x` itself."""

    dtype: str
    copies: bool = True


def dtype_kind(atom, refs, kind=None):
    """The dtype kind ("f", "i", "b", "c") a static ``dtype=`` argument names
    (``float``, ``np.int32``, ``"float32"``, ``x.dtype`` of an array of known dtype),
    or None when it cannot be known before the call."""
    if isinstance(atom, ast.Attribute) and atom.attr == "dtype" and kind is not None:
        k = kind(atom.value)
        if isinstance(k, ArrayKind) and k.dtype != "?":
            return k.dtype
    if kind is not None and isinstance(atom, ast.Name) and isinstance(kind(atom), DTypeKind):
        return kind(atom).code
    if isinstance(atom, ast.Constant) and isinstance(atom.value, str):
        obj = atom.value
    else:
        text = ir.dotted(atom)
        if text is None or text not in refs:
            return None
        obj = refs[text]
    try:
        code = np.dtype(obj).kind
    except TypeError:
        return None
    return {"f": "f", "i": "i", "u": "i", "b": "b", "c": "c"}.get(code)


def hashable_in(key, collection) -> bool:
    try:
        return key in collection
    except TypeError:
        return False


def constant_value(atom, default="?"):
    """The value of a literal atom or of a tuple of literals; "?" for any other atom;
    for no atom (None), `default` (None when none is given)."""
    if atom is None:
        return None if default == "?" else default
    if isinstance(atom, ast.Constant):
        return atom.value
    if isinstance(atom, ast.Tuple) and all(isinstance(e, ast.Constant) for e in atom.elts):
        return tuple(e.value for e in atom.elts)
    return "?"


def index_kind(container: ArrayKind, index, kind) -> object:
    """The kind of ``a[index]`` for an array `a` (`kind(atom)` gives an atom's kind)."""
    parts = index.elts if isinstance(index, ast.Tuple) else [index]
    ndim = container.ndim
    if ndim is None:
        return ArrayKind(None, container.dtype)
    for part in parts:
        if isinstance(part, ast.Slice):
            continue
        if isinstance(part, ast.Constant) and part.value is None:
            ndim += 1
            continue
        k = kind(part)
        if isinstance(part, ast.List) and part.elts and all(
                isinstance(e, ast.Constant) and type(e.value) is int for e in part.elts):
            k = ListKind(INT)
        if k == INT:
            ndim -= 1
        elif isinstance(k, ArrayKind) and k.dtype == "b" and k.ndim is not None:
            ndim = ndim - k.ndim + 1
        elif (k == ListKind(INT) or isinstance(k, ArrayKind) and k.dtype == "i"
              and k.ndim is not None) and sum(_advanced(p, kind) for p in parts) == 1:
            # one integer array (or list) index: its axes replace the axis it indexes
            ndim = ndim - 1 + (1 if isinstance(k, ListKind) else k.ndim)
        else:
            return ArrayKind(None, container.dtype)
    if ndim == 0:
        return SCALAR if container.dtype == "f" else INT if container.dtype in "ib" else OTHER
    return ArrayKind(ndim, container.dtype)


def _advanced(part, kind) -> bool:
    """Is this part of an index an array or a list (NumPy's advanced indexing)?"""
    return isinstance(part, ast.List) or isinstance(kind(part), (ArrayKind, ListKind))


def fancy_index(index, kind) -> bool:
    """Does the index hold an integer or boolean array, or a list (NumPy's advanced
    indexing, which copies)? `kind(atom)` gives an atom's kind."""
    parts = index.elts if isinstance(index, ast.Tuple) else [index]
    for part in parts:
        if isinstance(part, ast.List):
            return True
        if isinstance(part, ast.Name) and isinstance(kind(part), (ArrayKind, ListKind)):
            return True
    return False


def stops_gradient(op) -> bool:
    """Is `op` ``s2sad.stop_gradient(x)`` (its input itself, as a constant)?"""
    return op.kind == "nondiff" and op.key is stop_gradient and len(op.inputs) == 1


def makes_view(op, result_kind, kind) -> bool:
    """May the array `op` makes share memory with an input array (a basic slice,
    ``A[i]`` of a matrix, a reshape, ``.T``, ``stop_gradient``)? `kind(atom)` gives an
    atom's kind."""
    if not isinstance(result_kind, ArrayKind):
        return False
    if stops_gradient(op):
        return True
    if op.kind == "getitem":
        return isinstance(kind(op.inputs[0]), ArrayKind) and not fancy_index(op.inputs[1], kind)
    if op.kind == "nondiff":
        return isinstance(op.key, AsType) and not op.key.copies
    if op.kind == "rule" and not _builtin_rule(op.rule):
        return True  # (a user's rule may hand back its argument)
    return op.kind == "rule" and not op.copies and hashable_in(op.key, VIEW_KEYS) \
        and not _copies_a_non_array(op, kind)


def _builtin_rule(rule) -> bool:
    """Is `rule` one of s2sad's own (whose functions make new arrays, but for the
    views of `VIEW_KEYS`), not a user's?"""
    module = getattr(getattr(rule, "func", None), "__module__", None) or ""
    return not getattr(rule, "derived", False) and module.startswith("s2sad.primitives")


def _copies_a_non_array(op, kind) -> bool:
    """A view-making NumPy function given a list, a tuple or a number makes a new
    array (``np.asarray([a, b])``, ``np.reshape([a, b], ...)``)."""
    x = op.inputs[0] if op.inputs else None
    if x is None or op.key is np.broadcast_to:
        return False
    return isinstance(x, (ast.List, ast.Tuple, ast.Constant)) or \
        isinstance(kind(x), (ListKind, tuple)) or kind(x) in (SCALAR, INT)


def makes_new_object(op, call, kind) -> bool:
    """Is the list or array `op` makes certainly a new object, shared with nothing
    (so writing into it changes no other value)? `call` is the statement's value."""
    if op.kind in ("listpack", "repeat"):
        return True
    if op.kind == "rule":
        return _builtin_rule(op.rule) and (op.copies or not hashable_in(op.key, VIEW_KEYS)
                                           or _copies_a_non_array(op, kind))
    if op.kind == "getitem":
        return isinstance(kind(op.inputs[0]), ArrayKind) and fancy_index(op.inputs[1], kind)
    if op.kind == "nondiff":
        if isinstance(op.key, AsType):
            return op.key.copies
        # (constructors, and functions without a derivative that always return a new
        # array: sorting, rounding, tests)
        return isinstance(call, (ast.Compare, ast.BinOp, ast.UnaryOp)) or hashable_in(
            op.key, NEW_ARRAYS)
    return False


def reductions() -> set:
    """The NumPy reductions (sum, mean, max, var, norm, ...), and the other rules'
    (`primitives.REDUCTIONS`), which take axis= and keepdims=."""
    return NUMPY_REDUCTIONS | REDUCTIONS if REDUCTIONS else NUMPY_REDUCTIONS


def rule_result_kind(op, inputs: list):
    """The kind of the result of a rule-bearing NumPy operation (None: not NumPy)."""
    key = op.key
    if key is float:  # a Python float, whatever it converts (or it raises)
        return SCALAR
    arrays = [k for k in inputs if isinstance(k, ArrayKind)]
    if not arrays and key not in (np.array, np.asarray, np.copy, np.concatenate, np.stack,
                                  np.hstack, np.vstack):
        return None if not isinstance(key, np.ufunc) and key not in SCALAR_OK \
            else (SCALAR if all(k in (SCALAR, INT) for k in inputs) else UNKNOWN)
    ranks = [rank_of(k) for k in inputs]
    known = [r for r in ranks if r is not None]
    top = max(known) if len(known) == len(ranks) and known else None
    opt = op.options
    if key in NUMPY_REDUCTIONS or hashable_in(key, REDUCTIONS):
        x = inputs[0]
        axis = constant_value(opt.get("axis"), None)
        keepdims = constant_value(opt.get("keepdims"), False)
        if keepdims is True:
            return x if isinstance(x, ArrayKind) else SCALAR
        if axis is None:
            return SCALAR
        if axis == "?" or keepdims == "?" or not isinstance(x, ArrayKind) or x.ndim is None:
            return ArrayKind(None)
        drop = len(axis) if isinstance(axis, tuple) else 1
        return SCALAR if x.ndim - drop == 0 else ArrayKind(x.ndim - drop)
    if key in ("matmul", np.matmul, np.dot):
        a, b = ranks[:2]
        if a is None or b is None:
            return ArrayKind(None)
        if a == 0 or b == 0:
            return ArrayKind(max(a, b))
        rank = {(1, 1): 0, (2, 1): 1, (1, 2): 1, (2, 2): 2}.get((a, b), max(a, b))
        return SCALAR if rank == 0 else ArrayKind(rank)
    if key is np.outer:
        return ArrayKind(2)
    if key is np.inner:
        a, b = ranks[:2]
        if a is None or b is None:
            return ArrayKind(None)
        rank = max(a, b) if a == 0 or b == 0 else a + b - 2
        return SCALAR if rank == 0 else ArrayKind(rank)
    if key in (np.trace, np.linalg.det, np.linalg.slogdet):
        # one number per matrix of a stack: det and slogdet take the last two axes,
        # trace the first two; the rest are the stack's
        r = ranks[0]
        one = ArrayKind(None) if r is None else SCALAR if r <= 2 else ArrayKind(r - 2)
        return (one, one) if key is np.linalg.slogdet else one
    if key is np.linalg.inv:
        return inputs[0]
    if key is np.linalg.solve:
        # b is one vector only when it is 1-D (NumPy 2), else a matrix or a stack of
        # them; the stacks of a and b broadcast
        a, b = ranks[:2]
        if a is None or b is None:
            return ArrayKind(None)
        if b == 1:
            return SCALAR if a <= 1 else ArrayKind(a - 1)
        return ArrayKind(max(a, b))
    if key in (np.transpose, np.moveaxis):
        return inputs[0]
    if key is np.ravel:
        return ArrayKind(1)
    if key is np.reshape:
        shape = constant_value(op.inputs[1])
        if isinstance(shape, int):
            return ArrayKind(1)
        if isinstance(shape, tuple):
            return ArrayKind(len(shape))
        if isinstance(inputs[1], tuple):
            return ArrayKind(len(inputs[1]))
        return ArrayKind(1) if inputs[1] == INT else ArrayKind(None)
    if key is np.expand_dims:
        axis, given = constant_value(op.inputs[1]), inputs[1]
        added = len(axis) if isinstance(axis, tuple) else len(given) \
            if isinstance(given, tuple) else 1 if isinstance(axis, int) or given == INT else None
        return ArrayKind(None if ranks[0] is None or added is None else ranks[0] + added)
    if key is np.squeeze:
        axis = constant_value(opt.get("axis"), None)
        if isinstance(axis, int) and ranks[0] is not None:
            return ArrayKind(ranks[0] - 1) if ranks[0] > 1 else SCALAR
        return ArrayKind(None)
    if key in (np.concatenate, np.hstack, np.vstack, np.stack, np.array, np.asarray, np.copy):
        parts = inputs[0]
        elem = parts.elem if isinstance(parts, ListKind) else (
            parts[0] if isinstance(parts, tuple) and parts else UNKNOWN)
        r = rank_of(elem) if not isinstance(parts, ArrayKind) else parts.ndim
        if isinstance(parts, ArrayKind):
            return parts
        if key in (np.array, np.asarray, np.copy):
            # (a number gives a 0-d array, nested lists one axis per level; ints an
            # integer array)
            return ArrayKind(array_rank(parts),
                             "?" if "dtype" in opt else leaves_dtype(parts))
        if key is np.stack:
            return ArrayKind(None if r is None else r + 1)
        if key is np.vstack:
            return ArrayKind(2)
        if key is np.concatenate:  # axis=None flattens the parts first
            axis = constant_value(opt.get("axis"), 0)
            if axis is None:
                return ArrayKind(1)
            if axis == "?" and r != 1:
                return ArrayKind(None)
        return ArrayKind(r)
    return ArrayKind(top)  # elementwise, with broadcasting


def result_dtype(result, op, inputs: list):
    """`result` (`rule_result_kind`'s answer) with the dtype kind NumPy gives it: an
    operation on integer arrays and ints that keeps integers (``+ - * // % **``,
    ``abs``, ``maximum``, sums, products, shapes, stacks, ``@``) is an integer array
    (a number: an int), one that makes floats (``/``, ``sqrt``, ``mean``) a float
    array; a float or a complex input makes it float or complex; an input whose
    dtype is not known makes it "?"."""
    if not isinstance(result, ArrayKind) and result != SCALAR:
        return result
    kinds = list(inputs)
    if op.key is np.where and len(kinds) == 3:
        kinds = kinds[1:]  # (the condition does not count)
    codes = set()
    for k in kinds:
        if isinstance(k, (ListKind, tuple)) and op.key in KEEPS_DTYPE:
            codes |= _element_codes(k)
        elif isinstance(k, ArrayKind):
            codes.add(k.dtype)
        elif k == SCALAR:
            codes.add("f")
        elif k == INT:
            codes.add("i")
        else:
            codes.add("?")
    if "c" in codes:
        code = "c"
    elif "f" in codes:
        code = "f"
    elif "?" in codes or not codes:
        code = "?"
    elif hashable_in(op.key, KEEPS_INTEGERS) or hashable_in(op.key, KEEPS_DTYPE):
        code = "b" if codes == {"b"} and op.key in ("add", "mul", np.maximum, np.minimum) \
            or codes == {"b"} and hashable_in(op.key, KEEPS_DTYPE) else "i"
    else:
        code = "f"
    if isinstance(result, ArrayKind):
        return result if code == "f" else ArrayKind(result.ndim, code)
    return INT if code in ("i", "b") else result if code in ("f", "?") else OTHER


def _element_codes(kind) -> set:
    if isinstance(kind, ListKind):
        return _element_codes(kind.elem)
    if isinstance(kind, tuple):
        return set().union(*[_element_codes(k) for k in kind]) if kind else {"f"}
    if isinstance(kind, ArrayKind):
        return {kind.dtype}
    return {"f"} if kind == SCALAR else {"i"} if kind == INT else {"?"}


def constant_kind(call: ast.Call, obj, kind, refs=None):
    """The kind of the result of a NumPy function with no derivative (an array
    constructor such as `np.zeros(n)` or `np.arange(5.0)`, or `np.shape(x)`); None when
    it is not one of those. `kind(atom)` gives an argument's kind, `refs` the
    function's static names (a ``dtype=`` argument's meaning). An array's dtype kind
    is "?" where it cannot be known before the call."""
    args = list(call.args)
    keywords = {k.arg: k.value for k in call.keywords}
    dtype = keywords.get("dtype")
    given = (dtype_kind(dtype, refs or {}, kind) or "?") if dtype is not None else None
    if isinstance(obj, AsType) and isinstance(call.func, ast.Attribute):
        x = kind(call.func.value)
        return ArrayKind(x.ndim if isinstance(x, ArrayKind) else None, obj.dtype)
    if obj in (np.zeros, np.ones, np.empty, np.full) and args:
        shape = args[0]
        value = constant_value(shape)
        k = kind(shape)
        if isinstance(value, int) or k == INT:
            rank = 1
        elif isinstance(value, tuple):
            rank = len(value)
        elif isinstance(k, tuple):
            rank = len(k)
        else:
            rank = None
        fill = kind(args[1]) if obj is np.full and len(args) > 1 else SCALAR
        return ArrayKind(rank, given or ("f" if fill == SCALAR else "i" if fill == INT else "?"))
    if obj in (np.zeros_like, np.ones_like, np.empty_like, np.full_like) and args:
        x = kind(args[0])
        if isinstance(x, ArrayKind):
            return ArrayKind(x.ndim, given or x.dtype)
        rank = array_rank(x)  # (of a number, a 0-d array; of a list, its rank)
        if rank is not None:
            return ArrayKind(rank, "f" if dtype is None and x == SCALAR or isinstance(
                x, (ListKind, tuple)) and dtype is None and all_floats(x) else "?")
        return UNKNOWN
    if obj in (np.arange, np.linspace):
        floats = obj is np.linspace or any(
            isinstance(a, ast.Constant) and isinstance(a.value, float) or kind(a) == SCALAR
            for a in args)
        ints = all(isinstance(a, ast.Constant) and type(a.value) is int or kind(a) == INT
                   for a in args)
        return ArrayKind(1, given or ("f" if floats else "i" if ints else "?"))
    if obj in (np.eye, np.identity):
        return ArrayKind(2, given or "f")
    if hashable_in(obj, SAME_SHAPE) and len(args) == 1 and not keywords:
        # (sorting, rounding and tests of an array: a new array of its shape)
        x = kind(args[0])
        if isinstance(x, ArrayKind):
            code = {np.sort: x.dtype, np.round: x.dtype, np.argsort: "i"}.get(
                obj, "f" if x.dtype in "fib" else x.dtype)
            if obj in (np.isnan, np.isinf, np.isfinite):
                code = "b"
            return ArrayKind(x.ndim, code)
    if obj in (np.ndim, np.size):
        return INT
    if obj in (np.argmax, np.argmin):
        return _arg_extreme_kind(call, kind)
    if obj is np.shape and args:
        x = kind(args[0])
        if isinstance(x, ArrayKind) and x.ndim is not None:
            return (INT,) * x.ndim
    return None


def _arg_extreme_kind(call: ast.Call, kind):
    """The kind of ``np.argmax(x, axis, keepdims=...)`` or of the method
    ``x.argmax(axis)`` (also argmin): an int without an axis, else an integer array
    with the axis dropped (kept with ``keepdims=True``)."""
    func, args = call.func, list(call.args)
    if isinstance(func, ast.Attribute) and isinstance(kind(func.value), ArrayKind):
        x = func.value  # the method: the array is the receiver
    else:
        x, args = (args[0] if args else None), args[1:]
    keywords = {k.arg: k.value for k in call.keywords}
    axis = constant_value(keywords.get("axis", args[0] if args else None))
    keepdims = constant_value(keywords.get("keepdims"), False)
    x_kind = kind(x) if x is not None else UNKNOWN
    rank = x_kind.ndim if isinstance(x_kind, ArrayKind) else None
    if keepdims is True:
        return ArrayKind(rank, "i")
    if axis is None and keepdims is False:
        return INT
    if rank is None or keepdims == "?":
        return ArrayKind(None, "i")
    return INT if rank <= 1 else ArrayKind(rank - 1, "i")
