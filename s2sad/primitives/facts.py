"""facts: what s2sad knows about the primitives it differentiates, apart from their rules.

`TABLE` holds one row (`Facts`) per primitive: a NumPy function, an operator by its
name ("add", "matmul"), a builtin or a `math` function. A primitive without a row
gets a default (`facts_of`): NumPy's ufuncs and the operators are elementwise, the
other rules' reductions (`primitives.REDUCTIONS`) reduce. The analyses and the
transforms ask the row, or the views computed from the table:

* `rule_result_kind` and `result_dtype`: the kind of a rule-bearing operation's
  result (its rank, from the row's `shape`, then its dtype kind); `call_shape` the
  result's shape as symbols (what `analysis.shapes` gives each array);
  `constant_kind` the kind of a function with no derivative (``np.zeros(n)``,
  ``np.arange(5)``, ``np.shape(x)``); `index_kind` that of ``a[index]``;
* `makes_view` and `makes_new_object`: whether a result may share memory with an
  input (rows with `view`: reshapes, transposes, ``np.asarray``...) or is certainly
  a new object (rows with `new`: constructors, sorting, rounding, tests);
* `reductions`: the functions that take ``axis=`` and ``keepdims=`` like ``np.sum``:
  NumPy's (`NUMPY_REDUCTIONS`; `NUMPY_REDUCTION_NAMES` by the names the emitted
  code calls them with) and the other rules' (`primitives.REDUCTIONS`);
* `METHODS`: the array methods (``x.sum(axis=0)``) that are a NumPy function with
  the array as its first argument (the rows' `methods`);
* `keys_where(flag)`: the primitives whose rows set a flag (`int_result`,
  `keeps_dtype`, `same_shape`, `scalar_ok`, ...).

A row's `shape` is a function of `shape_rules` (shapes as tuples of symbols, one
per axis).

To add an elementwise ufunc (``np.arctanh``):

1. its reverse rule, a row of `primitives.reverse` (``@rule(np.arctanh,
   lists=("x",))``, giving the adjoint of each input from ``out_bar``), and its
   forward rule, a row of `primitives.forward` (``@rule(np.arctanh, lists=("x",
   "x_dot"))``, giving the tangent from ``x_dot``);
2. its row here only where it needs more than the default of a ufunc (it
   broadcasts its inputs, keeps no integers, makes a new array): ``domain=(lo,
   hi)`` where its rules are checked away from (0.3, 0.9) (``np.arctanh``: (-0.8,
   0.8)), ``keeps_integers=True`` for one that keeps integers integers.

tests/test_rules.py checks every rule row against central differences and the
other mode on the row's domain; the analyses, the optimizer and the vector mode
of forward derivatives (`transform.batching`) know a ufunc as elementwise.

To add a function with an ``axis`` and a method form (``np.cumsum(x, axis)``,
``x.cumsum(axis)``):

1. its reverse and forward rules (``@rule(np.cumsum)`` in both tables) taking
   ``axis`` as an option (``*, axis=None``), as ``np.sum``'s do;
2. its row in `TABLE`: ``shape=``, a function of `shape_rules` from the call
   (`shape_rules.Args`: the inputs' shapes, their literal values, the options'
   literal values) to the result's shape (``fresh(rank)`` where only the rank is
   known, None where not even that), ``methods=("cumsum",)``, which makes
   ``x.cumsum(...)`` the function's rule with the array first (`METHODS`, read by
   `analysis.classify`), and the other facts that hold (``keeps_integers=True``);
3. its examples in tests/test_rules.py (`array_examples`: the options to check,
   here axis=None, 0 and -1), and a test of the method form (tests/test_facts.py).

The traced engine (`engines.traced`) lists the array methods it traces by hand
(most of `METHODS`): add the new method there too (``cumsum = _array_method(
METHODS["cumsum"])``).

The functions taking an `op` read an `analysis.classify.Op` (its `kind`, `key`,
`inputs`, `options`, `rule` and `copies`). May import `ir` and the rest of
`primitives`, never `analysis` or anything above it.
"""

from __future__ import annotations

import ast
import math
from dataclasses import dataclass, fields
from typing import Callable

import numpy as np

from .. import ir
from ..ir.kinds import (INT, OTHER, SCALAR, UNKNOWN, ArrayKind, DTypeKind, ListKind, all_floats,
                        array_rank, leaves_dtype)
from .registry import REDUCTIONS, stop_gradient
from . import shape_rules as shapes
from .shape_rules import (Args, Parts, as_array, concatenate, cumulative, dot, elementwise,
                          elementwise_rank, expand_dims, first, flat, hstack, inner, matmul,
                          no_axes, norm, outer, per_matrix, reduction, reshape, same_rank,
                          slogdet, solve, squeeze, stack, transpose, vstack)
from .shape_rules import eigh, eigvalsh, pinv, qr, svd, svdvals


# ------------------------------------------------------------------ the table

SIGNED = "signed"  # a domain: either sign, magnitudes from 0.3 to 2.0 (away from a kink at 0)


@dataclass(frozen=True)
class Facts:
    """What s2sad knows about one primitive besides its rules.

    `shape`: the result's shape from the call's (`Args`); None: it broadcasts its
    inputs (for a ufunc or an operator; for another function only the rank is
    known). `number`: a result without axes is a number, not a 0-d array.
    `same_kind`: given an array first, the result has that array's kind. `lists`:
    takes a list or a tuple of arrays or numbers where an array may be, and
    `leaves_dtype`: the result's dtype is their elements' (unknown with ``dtype=``).
    `reduction`: takes ``axis=`` and ``keepdims=`` like ``np.sum``. `scalar_ok`:
    its rule takes plain numbers too. `view`: the result may share memory with
    the first argument; `new`: a function without a derivative whose result is
    always a new array, and `same_shape` one of its argument's shape.
    `keeps_integers`, `keeps_bools`: integer (boolean) inputs give an integer
    (boolean) result; `keeps_dtype`: the result has its input's dtype;
    `int_result`: the result is an int; `int_preserving`: ints give an int.
    `flags`: the positions, in a function of several results, of those that are
    flags without a derivative (``cho_factor``'s ``lower``).
    `methods`: the names of the array methods that are this function with the
    array first. `total`: given Python floats (infinities and NaN included) it
    returns a number and never raises (``math.atan``; not ``math.sin``, which
    raises on an infinity, nor ``math.exp``, which overflows), so a call of it on
    floats whose result nothing reads can go (`optimize.dead.cannot_raise`).
    `domain`: where tests/test_rules.py checks its rules, ``(lo, hi)`` for every
    input, one such pair per input, or `SIGNED` (None: the test's default)."""

    shape: Callable | None = None
    number: bool = False
    same_kind: bool = False
    lists: bool = False
    leaves_dtype: bool = False
    reduction: bool = False
    scalar_ok: bool = False
    view: bool = False
    new: bool = False
    same_shape: bool = False
    keeps_integers: bool = False
    keeps_bools: bool = False
    keeps_dtype: bool = False
    int_result: bool = False
    int_preserving: bool = False
    flags: tuple = ()
    methods: tuple = ()
    total: bool = False
    domain: object = None


_INTS = dict(keeps_integers=True, int_preserving=True)
_REDUCE = dict(shape=reduction, reduction=True, number=True)
_SHAPED = dict(view=True, keeps_dtype=True)  # (reshapes and transposes)
_STACKS = dict(same_kind=True, lists=True, keeps_dtype=True)
_ROUNDS = dict(same_shape=True, new=True)  # (no derivative: sorting, rounding, tests)
_TWO = (0.5, 1.5)

TABLE = {
    # operators, by name (the rest are elementwise by default)
    "add": Facts(**_INTS, keeps_bools=True, domain=(-2.0, 2.0)),
    "sub": Facts(**_INTS, domain=(-2.0, 2.0)),
    "mul": Facts(**_INTS, keeps_bools=True, domain=(-2.0, 2.0)),
    "truediv": Facts(domain=_TWO),
    "floordiv": Facts(**_INTS),
    "mod": Facts(**_INTS, domain=((2.1, 2.4), (0.9, 1.0))),
    "pow": Facts(keeps_integers=True, domain=_TWO),
    "neg": Facts(**_INTS, domain=(-2.0, 2.0)),
    "pos": Facts(**_INTS),
    "matmul": Facts(shape=matmul, number=True, keeps_integers=True),
    # builtins and math
    abs: Facts(**_INTS, total=True, domain=SIGNED),
    min: Facts(int_preserving=True),
    max: Facts(int_preserving=True),
    pow: Facts(domain=_TWO),
    int: Facts(int_result=True),
    round: Facts(int_result=True),
    len: Facts(int_result=True),
    bool: Facts(int_result=True),
    math.floor: Facts(int_result=True),
    math.ceil: Facts(int_result=True),
    math.trunc: Facts(int_result=True),
    math.acosh: Facts(domain=(1.5, 3.0)),
    math.log: Facts(domain=((0.5, 3.0), (1.5, 4.0))),  # (x, and the base)
    math.fmod: Facts(domain=((2.1, 2.4), (0.9, 1.0))),
    math.fabs: Facts(total=True, domain=SIGNED),
    math.copysign: Facts(total=True, domain=SIGNED),
    math.gamma: Facts(domain=(0.3, 4.0)),
    math.lgamma: Facts(domain=(0.3, 4.0)),
    **{f: Facts(total=True) for f in (
        math.atan, math.atan2, math.asinh, math.tanh, math.erf, math.erfc, math.hypot,
        math.degrees, math.radians, math.isnan, math.isinf)},
    # NumPy's elementwise functions
    np.abs: Facts(keeps_integers=True, domain=SIGNED),
    np.maximum: Facts(keeps_integers=True, keeps_bools=True, domain=_TWO),
    np.minimum: Facts(keeps_integers=True, keeps_bools=True, domain=_TWO),
    np.power: Facts(keeps_integers=True, domain=_TWO),
    np.arctan2: Facts(domain=_TWO),
    np.logaddexp: Facts(domain=_TWO),
    np.arccos: Facts(domain=(-0.8, 0.8)),
    np.arcsin: Facts(domain=(-0.8, 0.8)),
    np.arctanh: Facts(domain=(-0.8, 0.8)),
    np.square: Facts(keeps_integers=True),
    np.sign: Facts(keeps_integers=True),
    np.negative: Facts(keeps_integers=True, domain=(-2.0, 2.0)),
    np.add: Facts(keeps_integers=True, keeps_bools=True, domain=(-2.0, 2.0)),
    np.subtract: Facts(keeps_integers=True, domain=(-2.0, 2.0)),
    np.multiply: Facts(keeps_integers=True, keeps_bools=True, domain=(-2.0, 2.0)),
    np.divide: Facts(domain=_TWO),  # (np.true_divide)
    np.floor_divide: Facts(keeps_integers=True),
    np.mod: Facts(keeps_integers=True, domain=((2.1, 2.4), (0.9, 1.0))),  # (np.remainder)
    np.positive: Facts(keeps_integers=True),
    np.reciprocal: Facts(keeps_integers=True),
    np.fmax: Facts(keeps_integers=True, keeps_bools=True, domain=_TWO),
    np.fmin: Facts(keeps_integers=True, keeps_bools=True, domain=_TWO),
    np.fmod: Facts(keeps_integers=True, domain=((2.1, 2.4), (0.9, 1.0))),
    np.hypot: Facts(domain=_TWO),
    np.logaddexp2: Facts(domain=_TWO),
    np.copysign: Facts(domain=SIGNED),
    np.fabs: Facts(domain=SIGNED),
    np.sinc: Facts(shape=elementwise, scalar_ok=True, domain=SIGNED),  # (not a ufunc)
    np.arccosh: Facts(domain=(1.5, 3.0)),
    np.nan_to_num: Facts(shape=elementwise, keeps_integers=True, scalar_ok=True),
    np.float_power: Facts(domain=_TWO),
    np.heaviside: Facts(domain=SIGNED),
    np.cbrt: Facts(domain=SIGNED),
    np.modf: Facts(shape=shapes.two_like_first, domain=SIGNED),
    # casts of a number, a 0-d array or an array (not ufuncs; of an array of their
    # dtype, the array itself)
    np.float64: Facts(shape=elementwise, number=True, scalar_ok=True, view=True),
    np.float32: Facts(shape=elementwise, number=True, scalar_ok=True, view=True),
    np.real: Facts(shape=elementwise, keeps_dtype=True, scalar_ok=True, view=True),
    np.imag: Facts(shape=elementwise, keeps_dtype=True, scalar_ok=True),
    np.real_if_close: Facts(shape=elementwise, keeps_dtype=True, scalar_ok=True, view=True),
    np.angle: Facts(shape=elementwise, scalar_ok=True, domain=SIGNED),
    np.conj: Facts(keeps_integers=True, methods=("conj", "conjugate")),  # (np.conjugate)
    np.clip: Facts(shape=elementwise, keeps_integers=True, scalar_ok=True, methods=("clip",)),
    np.where: Facts(shape=elementwise, keeps_integers=True, scalar_ok=True),
    # reductions
    np.sum: Facts(**_REDUCE, keeps_integers=True, scalar_ok=True, methods=("sum",)),
    np.mean: Facts(**_REDUCE, scalar_ok=True, methods=("mean",)),
    np.prod: Facts(**_REDUCE, keeps_integers=True, scalar_ok=True, methods=("prod",)),
    np.max: Facts(**_REDUCE, keeps_integers=True, scalar_ok=True, methods=("max",)),
    np.min: Facts(**_REDUCE, keeps_integers=True, scalar_ok=True, methods=("min",)),
    np.amax: Facts(**_REDUCE, keeps_integers=True),
    np.amin: Facts(**_REDUCE, keeps_integers=True),
    np.var: Facts(**_REDUCE, methods=("var",)),
    np.std: Facts(**_REDUCE, methods=("std",)),
    np.linalg.norm: Facts(**dict(_REDUCE, shape=norm), scalar_ok=True),
    np.cumsum: Facts(shape=cumulative, keeps_integers=True, methods=("cumsum",)),
    # products and linear algebra. A row giving only a rank (fresh symbols) keeps
    # what analysis.shapes knew: knowing the symbols can change the emitted code
    # (np.linalg.inv's shape as its argument's makes its adjoint's unbroadcast name
    # the argument, not the inverse)
    np.dot: Facts(shape=dot, number=True, keeps_integers=True, methods=("dot",)),
    np.matmul: Facts(shape=matmul, number=True, keeps_integers=True),
    np.outer: Facts(shape=outer, keeps_integers=True),
    np.inner: Facts(shape=inner, number=True, keeps_integers=True),
    np.vdot: Facts(shape=no_axes, number=True, keeps_integers=True),
    **{f.outer: Facts(shape=shapes.ufunc_outer, number=True, keeps_integers=True)
       for f in (np.add, np.subtract, np.multiply)},
    np.trace: Facts(shape=per_matrix, number=True, keeps_integers=True, methods=("trace",)),
    np.linalg.det: Facts(shape=per_matrix, number=True),
    np.linalg.slogdet: Facts(shape=slogdet, number=True),
    np.linalg.inv: Facts(shape=same_rank, same_kind=True),  # (only the rank: see above)
    np.linalg.matrix_power: Facts(shape=same_rank, same_kind=True, keeps_integers=True),
    np.linalg.multi_dot: Facts(shape=shapes.multi_dot, number=True, lists=True),
    np.linalg.solve: Facts(shape=solve, number=True),
    # (the decompositions: a tuple of arrays, or the array of values alone)
    np.linalg.cholesky: Facts(shape=first),
    np.linalg.eigh: Facts(shape=eigh),
    np.linalg.eigvalsh: Facts(shape=eigvalsh),
    np.linalg.eig: Facts(shape=eigh),  # (real where the rules differentiate it)
    np.linalg.eigvals: Facts(shape=eigvalsh),
    np.linalg.svd: Facts(shape=svd),
    np.linalg.svdvals: Facts(shape=svdvals),
    np.linalg.qr: Facts(shape=qr),
    np.linalg.pinv: Facts(shape=pinv),
    # reshapes and transposes (only the ranks, as above, but for transpose without axes=)
    np.transpose: Facts(**_SHAPED, shape=transpose, same_kind=True, methods=("transpose",)),
    np.moveaxis: Facts(shape=same_rank, same_kind=True, view=True),
    np.rollaxis: Facts(shape=same_rank, same_kind=True, view=True),
    np.swapaxes: Facts(**_SHAPED, methods=("swapaxes",)),
    np.ndarray.item: Facts(shape=no_axes, number=True, keeps_dtype=True, methods=("item",)),
    np.reshape: Facts(**_SHAPED, shape=reshape, methods=("reshape",)),
    np.ravel: Facts(**_SHAPED, shape=flat, methods=("ravel", "flatten")),
    np.squeeze: Facts(**_SHAPED, shape=squeeze, number=True, methods=("squeeze",)),
    np.expand_dims: Facts(**_SHAPED, shape=expand_dims),
    np.broadcast_to: Facts(**_SHAPED, shape=reshape),  # (a shape given: its rank)
    np.diagonal: Facts(view=True, shape=shapes.diagonal, keeps_dtype=True, methods=("diagonal",)),
    np.atleast_1d: Facts(**_SHAPED, shape=shapes.at_least(1), lists=True),
    np.atleast_2d: Facts(**_SHAPED, shape=shapes.at_least(2), lists=True),
    np.atleast_3d: Facts(**_SHAPED, shape=shapes.at_least(3), lists=True),
    np.flip: Facts(**_SHAPED, shape=shapes.same_as_array, same_kind=True, lists=True),
    np.fliplr: Facts(**_SHAPED, shape=shapes.same_as_array, same_kind=True, lists=True),
    np.flipud: Facts(**_SHAPED, shape=shapes.same_as_array, same_kind=True, lists=True),
    np.rot90: Facts(**_SHAPED, shape=same_rank, same_kind=True),  # (odd k: two axes swapped)
    # reordering, picking, padding, repeating (the rules of shaping_reverse, _forward;
    # of a list or a tuple too, as an array)
    np.cumprod: Facts(shape=cumulative, keeps_integers=True, methods=("cumprod",), lists=True),
    np.diff: Facts(shape=shapes.difference, keeps_integers=True, lists=True),
    np.gradient: Facts(shape=first),  # (of one axis: NumPy's list of several is refused)
    np.sort: Facts(shape=shapes.sort, keeps_dtype=True, lists=True),
    # (not x.partition(k), which partitions x in place and returns None)
    np.partition: Facts(shape=shapes.sort, keeps_dtype=True),
    np.take: Facts(shape=shapes.take, keeps_dtype=True, methods=("take",), lists=True),
    np.take_along_axis: Facts(shape=shapes.take_along_axis, keeps_dtype=True),
    np.roll: Facts(shape=shapes.same_as_array, keeps_dtype=True, same_kind=True, lists=True),
    np.pad: Facts(shape=same_rank, keeps_dtype=True, lists=True),
    np.split: Facts(shape=shapes.split(), keeps_dtype=True, view=True),
    np.array_split: Facts(shape=shapes.split(), keeps_dtype=True, view=True),
    np.vsplit: Facts(shape=shapes.split(0), keeps_dtype=True, view=True),
    np.hsplit: Facts(shape=shapes.split(1), keeps_dtype=True, view=True),
    np.dsplit: Facts(shape=shapes.split(2), keeps_dtype=True, view=True),
    np.tile: Facts(shape=shapes.tile, keeps_dtype=True, lists=True),
    np.repeat: Facts(shape=shapes.repeat, keeps_dtype=True, methods=("repeat",), lists=True),
    np.polyval: Facts(shape=shapes.second, number=True, keeps_integers=True, lists=True),
    np.meshgrid: Facts(shape=shapes.meshgrid, keeps_integers=True),
    np.kron: Facts(shape=shapes.kron, keeps_integers=True),
    np.cross: Facts(keeps_integers=True),  # (of 3-vectors: the rank broadcasting gives)
    np.tensordot: Facts(shape=shapes.tensordot, number=True, keeps_integers=True),
    np.einsum: Facts(shape=shapes.einsum, number=True, keeps_integers=True),
    np.convolve: Facts(shape=shapes.convolved, keeps_integers=True),
    np.correlate: Facts(shape=shapes.convolved, keeps_integers=True),
    np.diag: Facts(shape=shapes.diag, view=True, keeps_dtype=True),
    np.triu: Facts(shape=shapes.triangle, keeps_dtype=True, lists=True),
    np.tril: Facts(shape=shapes.triangle, keeps_dtype=True, lists=True),
    np.median: Facts(**_REDUCE, lists=True),
    np.average: Facts(**_REDUCE, lists=True),
    np.quantile: Facts(shape=shapes.quantile, number=True),
    np.percentile: Facts(shape=shapes.quantile, number=True),
    np.nansum: Facts(**_REDUCE, keeps_integers=True, lists=True),
    np.nanmean: Facts(**_REDUCE, lists=True),
    **{f: Facts(**_REDUCE, keeps_integers=True, lists=True)
       for f in (np.nanmax, np.nanmin, np.ptp, np.nanprod)},
    **{f: Facts(**_REDUCE, lists=True) for f in (np.nanvar, np.nanstd)},
    np.nancumsum: Facts(shape=cumulative, keeps_integers=True, lists=True),
    np.ediff1d: Facts(shape=flat, keeps_integers=True, lists=True),
    np.append: Facts(shape=shapes.edited, keeps_integers=True, lists=True),
    **{f: Facts(shape=shapes.edited, keeps_dtype=True, lists=True) for f in (np.insert, np.delete)},
    np.compress: Facts(shape=shapes.compressed, keeps_dtype=True),
    np.select: Facts(shape=shapes.selected, lists=True),
    **{f: Facts(shape=shapes.covariance, lists=True) for f in (np.cov, np.corrcoef)},
    # integrals, interpolation and counts (numbers for a 1-D y, a number x)
    np.trapezoid: Facts(shape=shapes.integrated, number=True),
    np.interp: Facts(shape=shapes.same_as_array, number=True),
    np.bincount: Facts(shape=shapes.counted),
    # arrays made of lists, tuples and arrays
    np.asarray: Facts(**_STACKS, shape=as_array, leaves_dtype=True, view=True),
    np.array: Facts(**_STACKS, shape=as_array, leaves_dtype=True),
    np.copy: Facts(**_STACKS, shape=as_array, leaves_dtype=True, methods=("copy",)),
    np.concatenate: Facts(**_STACKS, shape=concatenate),
    np.stack: Facts(**_STACKS, shape=stack),
    np.hstack: Facts(**_STACKS, shape=hstack),
    np.vstack: Facts(**_STACKS, shape=vstack),
    np.column_stack: Facts(**_STACKS, shape=shapes.stacked_up(2)),
    np.dstack: Facts(**_STACKS, shape=shapes.stacked_up(3)),
    # functions without a derivative
    np.zeros_like: Facts(shape=first, new=True),
    np.ones_like: Facts(shape=first, new=True),
    np.empty_like: Facts(shape=first, new=True),
    np.full_like: Facts(shape=first, new=True),
    **{f: Facts(new=True) for f in (
        np.zeros, np.ones, np.empty, np.full, np.arange, np.linspace, np.eye, np.identity,
        np.tri,
        np.equal, np.not_equal, np.less, np.less_equal, np.greater, np.greater_equal,
        np.logical_and, np.logical_or, np.logical_not, np.argwhere)},
    **{f: Facts(**_ROUNDS) for f in (
        np.argsort, np.argpartition, np.floor, np.ceil, np.round, np.rint, np.trunc, np.isnan,
        np.isinf, np.isfinite)},
}
if hasattr(np, "trapz"):  # (np.trapezoid's older name, where NumPy still has it)
    TABLE[np.trapz] = TABLE[np.trapezoid]

# The elementwise primitives whose value and derivative are finite wherever their
# inputs are: the mask of an ``np.where`` branch's adjoint need not go through them
# (`transform.masks`). A primitive left out is only taken to be possibly singular.
BOUNDED = frozenset({"add", "sub", "mul", "neg", "pos", abs, min, max, np.abs, np.fabs,
                     np.negative, np.positive, np.add, np.subtract, np.multiply, np.sin,
                     np.cos, np.arctan, np.tanh, np.square, np.maximum, np.minimum,
                     math.sin, math.cos, math.atan, math.tanh, math.fabs, math.erf,
                     math.erfc})

DEFAULT = Facts()
REDUCTION = Facts(**_REDUCE)  # (the other rules' reductions: scipy's logsumexp)


def facts_of(key) -> Facts:
    """The row of `key`, or the default for a primitive without one."""
    try:
        row = TABLE.get(key)
    except TypeError:  # (an unhashable key)
        return DEFAULT
    if row is not None:
        return row
    return REDUCTION if REDUCTIONS and key in REDUCTIONS else DEFAULT


def keys_where(flag: str) -> set:
    """The primitives whose rows set `flag` (a field of `Facts`)."""
    assert flag in {f.name for f in fields(Facts)}, flag
    return {key for key, row in TABLE.items() if getattr(row, flag)}


def numpy_name(key) -> str:
    """The name the emitted code calls a NumPy function by (``np.linalg.norm``)."""
    module = key.__module__.replace("numpy", "np", 1)
    return f"{module}.{key.__name__}"


METHODS = {name: key for key, row in TABLE.items() for name in row.methods}
NUMPY_REDUCTIONS = keys_where("reduction")
# the NumPy reductions, by the name the emitted code calls them with
NUMPY_REDUCTION_NAMES = {numpy_name(key): key for key in NUMPY_REDUCTIONS}
# the functions without a derivative whose result has their first argument's shape
# (``np.zeros_like``), by the names the emitted code calls them with
LIKE_FIRST_NAMES = {numpy_name(key) for key, row in TABLE.items() if row.shape is first}


def shape_rule(key) -> Callable:
    """The function giving the shape of `key`'s result (`Facts.shape`)."""
    rule = facts_of(key).shape
    if rule is not None:
        return rule
    return elementwise if isinstance(key, (str, np.ufunc)) else elementwise_rank


def call_shape(key, shapes, atoms, options: dict):
    """The shape of the result of a call of `key` with inputs of `shapes` (their
    atoms `atoms`) and `options` (atoms by name); a list of shapes for a function
    of several results."""
    values = tuple(constant_value(x) for x in atoms)
    given = {name: constant_value(atom) for name, atom in options.items()}
    return shape_rule(key)(Args(tuple(shapes), values, given))


def kind_shape(kind, tag="x"):
    """The shape, its symbols made up, of a value of `kind` (its rank, and a list's
    or a tuple's parts)."""
    if isinstance(kind, ArrayKind):
        return None if kind.ndim is None else tuple(f"{tag}.{i}" for i in range(kind.ndim))
    if isinstance(kind, ListKind):
        return Parts(elem=kind_shape(kind.elem, tag + "e"))
    if isinstance(kind, tuple):
        return Parts(items=tuple(kind_shape(k, f"{tag}{i}") for i, k in enumerate(kind)))
    return () if kind in (SCALAR, INT) else None


def _kind_of_shape(shape, row):
    if isinstance(shape, Parts) and shape.items is None:  # (np.split into a count not known)
        return ListKind(_kind_of_shape(shape.elem, row))
    if not isinstance(shape, tuple):
        return ArrayKind(None)
    return SCALAR if not shape and row.number else ArrayKind(len(shape))


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
        # (an element of an array of unknown dtype may be a float: unknown, never a
        # constant, whose derivative would be silently lost)
        return SCALAR if container.dtype == "f" else INT if container.dtype in "ib" else \
            UNKNOWN if container.dtype == "?" else OTHER
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
    ``A[i]`` of a matrix, a reshape, ``.T``, ``stop_gradient``, a row an unpacking
    takes)? `kind(atom)` gives an atom's kind."""
    if not isinstance(result_kind, ArrayKind):
        return False
    if stops_gradient(op):
        return True
    if op.kind == "copy":  # (asked of an unpacking, ``a, b = Y``: an array's rows are views)
        return isinstance(kind(op.inputs[0]), ArrayKind)
    if op.kind == "getitem":
        return isinstance(kind(op.inputs[0]), ArrayKind) and not fancy_index(op.inputs[1], kind)
    if op.kind == "nondiff":
        return isinstance(op.key, AsType) and not op.key.copies
    if op.kind == "rule" and not _builtin_rule(op.rule):
        return True  # (a user's rule may hand back its argument)
    return op.kind == "rule" and not op.copies and facts_of(op.key).view \
        and not _copies_a_non_array(op, kind)


def _builtin_rule(rule) -> bool:
    """Is `rule` one of s2sad's own (whose functions make new arrays, but for the
    views of the rows with `view`), not a user's?"""
    module = getattr(getattr(rule, "func", None), "__module__", None) or ""
    return not getattr(rule, "derived", False) and module.startswith("s2sad.primitives")


def _copies_a_non_array(op, kind) -> bool:
    """A view-making NumPy function given a list, a tuple or a number makes a new
    array (``np.asarray([a, b])``, ``np.reshape([a, b], ...)``); so does ``np.diag``
    of a vector (the matrix; of a matrix, its diagonal is a view)."""
    x = op.inputs[0] if op.inputs else None
    if x is None or op.key is np.broadcast_to:
        return False
    if op.key is np.diag and isinstance(kind(x), ArrayKind) and kind(x).ndim == 1:
        return True
    return isinstance(x, (ast.List, ast.Tuple, ast.Constant)) or \
        isinstance(kind(x), (ListKind, tuple)) or kind(x) in (SCALAR, INT)


def makes_new_object(op, call, kind) -> bool:
    """Is the list or array `op` makes certainly a new object, shared with nothing
    (so writing into it changes no other value)? `call` is the statement's value."""
    if op.kind in ("listpack", "repeat", "concat"):  # (``xs + ys`` is a new list)
        return True
    if op.kind == "rule":
        return _builtin_rule(op.rule) and (op.copies or not facts_of(op.key).view
                                           or _copies_a_non_array(op, kind))
    if op.kind == "getitem":
        if isinstance(kind(op.inputs[0]), ListKind):  # (a slice of a list is a new list)
            return isinstance(op.inputs[1], ast.Slice)
        return isinstance(kind(op.inputs[0]), ArrayKind) and fancy_index(op.inputs[1], kind)
    if op.kind == "nondiff":
        if isinstance(op.key, AsType):
            return op.key.copies
        # (constructors, and functions without a derivative that always return a new
        # array: sorting, rounding, tests)
        return isinstance(call, (ast.Compare, ast.BinOp, ast.UnaryOp)) or facts_of(op.key).new
    return False


def reductions() -> set:
    """The NumPy reductions (sum, mean, max, var, norm, ...), and the other rules'
    (`primitives.REDUCTIONS`), which take axis= and keepdims=."""
    return NUMPY_REDUCTIONS | REDUCTIONS if REDUCTIONS else NUMPY_REDUCTIONS


def rule_result_kind(op, inputs: list):
    """The kind of the result of a rule-bearing NumPy operation (None: not NumPy):
    its rank from the row's `shape`, given shapes made up from the inputs' kinds."""
    key = op.key
    if key is float:  # a Python float, whatever it converts (or it raises)
        return SCALAR
    row = facts_of(key)
    if not row.lists and any(isinstance(k, (ListKind, tuple)) for k in inputs) and (
            isinstance(key, np.ufunc) or getattr(key, "__module__", "") == "numpy"):
        # (a list or tuple is an array to NumPy: ``np.sin([x, y])`` is one of rank 1)
        inputs = [ArrayKind(_array_rank_of(k), "?") if isinstance(k, (ListKind, tuple))
                  else k for k in inputs]
    if not any(isinstance(k, ArrayKind) for k in inputs) and not row.lists:
        return None if not isinstance(key, np.ufunc) and not row.scalar_ok \
            else (SCALAR if all(k in (SCALAR, INT) for k in inputs) else UNKNOWN)
    x = inputs[0] if inputs else None
    if isinstance(x, ArrayKind) and (row.same_kind or row.reduction and constant_value(
            op.options.get("keepdims"), False) is True):
        return x  # (a transpose, a keepdims reduction: its input's rank, dtype and dims)
    shapes = [kind_shape(k, str(i)) for i, k in enumerate(inputs)]
    shape = call_shape(key, shapes, op.inputs, op.options)
    if isinstance(shape, list):  # (several results)
        return tuple(INT if i in row.flags else _kind_of_shape(s, row)
                     for i, s in enumerate(shape))
    if row.leaves_dtype:
        # (ints give an integer array; a dtype= one of a dtype not known here)
        return ArrayKind(len(shape) if isinstance(shape, tuple) else None,
                         "?" if "dtype" in op.options else leaves_dtype(x))
    return _kind_of_shape(shape, row)


def result_dtype(result, op, inputs: list):
    """`result` (`rule_result_kind`'s answer) with the dtype kind NumPy gives it: an
    operation on integer arrays and ints that keeps integers (``+ - * // % **``,
    ``abs``, ``maximum``, sums, products, shapes, stacks, ``@``) is an integer array
    (a number: an int), one that makes floats (``/``, ``sqrt``, ``mean``) a float
    array; a float or a complex input makes it float or complex; an input whose
    dtype is not known makes it "?"."""
    if not isinstance(result, ArrayKind) and result != SCALAR:
        return result
    kinds, row = list(inputs), facts_of(op.key)
    if op.key is np.where and len(kinds) == 3:
        kinds = kinds[1:]  # (the condition does not count)
    codes = set()
    for k in kinds:
        if isinstance(k, (ListKind, tuple)) and (row.keeps_dtype or row.lists or isinstance(
                op.key, np.ufunc) or getattr(op.key, "__module__", "") == "numpy"):
            # (a list or a tuple of numbers: an array of their dtype, to NumPy)
            codes |= _element_codes(k)
        elif isinstance(k, ArrayKind):
            codes.add(k.dtype)
        elif k == SCALAR:
            codes.add("f")
        elif k == INT:
            codes.add("i")
        else:
            codes.add("?")
    if "c" in codes:  # (the size, a part or the angle of a complex number is real)
        code = "f" if op.key in (abs, np.abs, np.real, np.imag, np.angle) else "c"
    elif "f" in codes:
        code = "f"
    elif "?" in codes or not codes:
        code = "?"
    elif row.keeps_integers or row.keeps_dtype:
        code = "b" if codes == {"b"} and (row.keeps_bools or row.keeps_dtype) else "i"
    else:
        code = "f"
    if isinstance(result, ArrayKind):
        return result if code == "f" else ArrayKind(result.ndim, code)
    return INT if code in ("i", "b") else result if code in ("f", "?") else OTHER


def _array_rank_of(kind):
    """The rank of the array NumPy makes of a value of `kind` (None: not known)."""
    if kind in (SCALAR, INT):
        return 0
    if isinstance(kind, ArrayKind):
        return kind.ndim
    items = [kind.elem] if isinstance(kind, ListKind) else list(kind) if isinstance(
        kind, tuple) else None
    if not items:
        return None if items is None else 1
    inner = {_array_rank_of(k) for k in items}
    return None if None in inner or len(inner) != 1 else 1 + inner.pop()


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
        return ArrayKind(rank, "f" if dtype is None and x == SCALAR or isinstance(
            x, (ListKind, tuple)) and dtype is None and all_floats(x) else "?")
    if obj in (np.arange, np.linspace):
        floats = obj is np.linspace or any(
            isinstance(a, ast.Constant) and isinstance(a.value, float) or kind(a) == SCALAR
            for a in args)
        ints = all(isinstance(a, ast.Constant) and type(a.value) is int or kind(a) == INT
                   for a in args)
        return ArrayKind(1, given or ("f" if floats else "i" if ints else "?"))
    if obj in (np.eye, np.identity, np.tri):
        return ArrayKind(2, given or "f")
    if facts_of(obj).same_shape and len(args) == 1 and not keywords:
        # (sorting, rounding and tests of an array: a new array of its shape)
        x = kind(args[0])
        if isinstance(x, ArrayKind):
            code = {np.sort: x.dtype, np.round: x.dtype, np.argsort: "i", np.argpartition: "i"}.get(
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
