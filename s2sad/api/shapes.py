"""The structure of the values forward mode and the Jacobians and Hessians work
with: how many numbers an argument or output holds and in what shape (a list of n
numbers counts as a vector, a list of arrays has a block per element), unit
tangents for each of its numbers (`units_of`), zeros with its structure, a
derivative's numbers put back into it (`shaped_like`), a tangent as a vector
(`flat`), and a matrix cut into blocks (`split`).

Forward mode leaves the tangent of a value nothing varying reaches as the number
0.0 (or None); `tangent_like` and `zero` give it the value's structure, and refuse
a nonzero number there.

Another library's arrays (a Dask or JAX array, `kinds.array_library`) get tangents,
zeros and blocks of their library, from its namespace (`namespace`), never through
``np.asarray``, which would compute a Dask graph or leave JAX.

Imports `arguments` (the types blocks are given) from `api`.
"""

from __future__ import annotations

import importlib
import math

import numpy as np

from ..errors import S2SADError
from ..ir.kinds import NAMESPACES, STANDARD, array_library, dtype_kind
from .arguments import typed_like


def namespace(*values):
    """The module whose functions keep the first of `values` that is another library's
    array in its library (``jax.numpy`` for a JAX array; NumPy's own for a Dask array,
    which takes NumPy's calls over), or None where none is."""
    for v in values:
        library = array_library(v)
        if library is not None:
            return importlib.import_module(NAMESPACES.get(library, "numpy"))
    return None


def stack(arrays, axis=0):
    """``np.stack(arrays, axis)``, in the library of another library's array among
    `arrays` (a JAX array's, which ``np.stack`` would turn into a NumPy array)."""
    xp = namespace(*arrays) or np
    return xp.stack(arrays, axis=axis)


def nested(x) -> bool:
    """Is `x` a list that holds arrays (or lists): its gradient is a list of its
    elements' gradients, its Jacobian and Hessian blocks one per element (a list of
    numbers counts as one vector; an array of another library counts as an array)."""
    return isinstance(x, list) and any(_array_or_list(e) for e in x)


def _array_or_list(e) -> bool:
    return isinstance(e, (np.ndarray, list, tuple)) or array_library(e) is not None


def leaves(x) -> list:
    """The parts of the argument `x` that get a Jacobian or Hessian block each: `x`
    itself, or for a list of arrays its elements (in order, nested lists flattened)."""
    return [leaf for e in x for leaf in leaves(e)] if nested(x) else [x]


def size(x) -> int:
    """How many numbers `x` holds (a list of arrays: all its elements' numbers)."""
    if nested(x):
        return sum(size(e) for e in x)
    if isinstance(x, list):
        return len(x)
    return math.prod(x.shape) if array_library(x) is not None else int(np.size(x))


def shape(x) -> tuple:
    """The shape of a block's axes for `x` (a list of n numbers counts as ``(n,)``, an
    output that is a list of arrays of one shape as their stack)."""
    if isinstance(x, list) and not nested(x):
        return (len(x),)
    try:
        return np.shape(x)
    except ValueError:
        raise S2SADError("jacobian: an output that is a list of arrays of different "
                         "shapes has no Jacobian of one shape",
                         hint="Return a tuple of the arrays instead.") from None


def fits_tangent(t, x) -> bool:
    """Has the tangent `t` the structure and shapes of its primal `x`?"""
    if nested(x):
        return isinstance(t, (list, tuple)) and len(t) == len(x) and \
            all(fits_tangent(a, b) for a, b in zip(t, x))
    try:
        return np.shape(t) == np.shape(x)
    except ValueError:  # (a list of arrays of different shapes)
        return False


def shape_text(x) -> str:
    """`x`'s shape for an error message (a list of arrays: each element's)."""
    if isinstance(x, (list, tuple)) and any(map(_array_or_list, x)):
        return "[" + ", ".join(shape_text(e) for e in x) + "]"
    try:
        return str(np.shape(x))
    except ValueError:
        return "?"


def zero_like(x):
    """Zeros with the structure of `x` (a float, an array, a list of those)."""
    if isinstance(x, np.ndarray):
        return np.zeros(x.shape, dtype=x.dtype if x.dtype.kind in "fc" else float)
    xp = namespace(x)
    if xp is not None:
        return xp.zeros_like(x, dtype=x.dtype if dtype_kind(x.dtype) in "fc" else float)
    if nested(x):
        return [zero_like(e) for e in x]
    if isinstance(x, list):
        return [0.0] * len(x)
    return 0.0


def zero_of(x):
    """A zero adjoint for the output part `x` (a float, a float array, a list of
    them: a zero of each item's structure)."""
    if isinstance(x, np.ndarray):
        return np.zeros_like(x, dtype=float)
    if isinstance(x, list):
        return [zero_of(v) for v in x]
    xp = namespace(x)
    return 0.0 if xp is None else xp.zeros_like(x, dtype=float)


def as_float(x):
    """`x` with every number a float (an integer array as a float array)."""
    if isinstance(x, np.ndarray):
        return x.astype(float) if x.dtype.kind != "f" else x
    if array_library(x) is not None:
        if dtype_kind(x.dtype) == "f":
            return x
        return x.astype(float) if hasattr(x, "astype") else namespace(x).astype(x, float)
    if nested(x):
        return [as_float(e) for e in x]
    if isinstance(x, list):
        return [float(v) for v in x]
    return float(x)


def zero(d, f) -> float:
    """0.0 for `d`, the tangent forward mode left as a number (0.0 or None) for a
    value with structure (an array, a list, a tuple): nothing varying reaches it."""
    if d is not None and d != 0:
        raise S2SADError(f"internal: the tangent {d!r} of a structured value of "
                         f"{f.__qualname__} is a nonzero number")
    return 0.0


def tangent_like(d, x, f):
    """The tangent `d` of a value `x`, with `x`'s structure: forward mode leaves the
    tangent of a value nothing varying reaches as the number 0.0 (or None)."""
    if nested(x):  # (a list of arrays: element by element)
        if isinstance(d, (list, tuple)) and len(d) == len(x):
            return [tangent_like(e, v, f) for e, v in zip(d, x)]
        zero(d, f)
        return zero_like(x)
    if d is None or np.ndim(d) == 0 and np.ndim(x) != 0 and not isinstance(d, (list, tuple)):
        zero(d, f)
        return zero_like(x)
    return d


def units_of(x):
    """Unit tangents for every number of `x` (a float, an array, a list of floats,
    or a list of arrays: the element's unit tangent among zeros of the others), with
    the index each stands for."""
    if nested(x):
        for k, e in enumerate(x):
            for i, t in units_of(e):
                dot = [zero_like(o) for o in x]
                dot[k] = t
                yield (k, i), dot
    elif isinstance(x, np.ndarray):
        for k in np.ndindex(x.shape):
            t = np.zeros_like(x)
            t[k] = 1.0
            yield k, t
    elif (xp := namespace(x)) is not None:  # (in `x`'s library: a Dask array in its chunks)
        numpy_dtype = isinstance(x.dtype, np.dtype)
        for k in np.ndindex(x.shape):
            t = np.zeros(x.shape, dtype=x.dtype if numpy_dtype else float)
            t[k] = 1.0
            # (of `x`'s dtype: PyTorch's matmul takes no float64 tangent beside a
            # float32 array)
            yield k, xp.zeros_like(x) + (xp.asarray(t) if numpy_dtype else
                                         xp.asarray(t, dtype=x.dtype))
    elif isinstance(x, list):
        for k in range(len(x)):
            t = [0.0] * len(x)
            t[k] = 1.0
            yield k, t
    else:
        yield (), 1.0


def shaped_like(x, numbers):
    """The numbers of a derivative of `x` (one per number of `x`, in `units_of`
    order) with `x`'s structure: a float, an array of its shape, a list of floats, or
    a list of those per element for a list of arrays."""
    if nested(x):
        out, at = [], 0
        for e in x:
            n = size(e)
            out.append(shaped_like(e, numbers[at:at + n]))
            at += n
        return out
    if isinstance(x, np.ndarray) and namespace(*numbers) is None:
        return np.array([float(v) for v in numbers], dtype=float).reshape(x.shape)
    if isinstance(x, np.ndarray) or array_library(x) is not None:
        numbers = stack(numbers)  # (lazily: ``float`` would compute)
        return (namespace(numbers) or np).reshape(numbers, np.shape(x))
    if isinstance(x, list):
        return [float(v) for v in numbers]
    return numbers[0]


def flat(d, part, f):
    """The tangent `d` of the output part `part` from a pass along one direction, as
    a vector of `part`'s numbers (a tangent left as the number 0.0 is zeros; a list
    of arrays gives its elements' numbers one after the other)."""
    if nested(part):
        if isinstance(d, (list, tuple)) and len(d) == len(part):
            return np.concatenate([flat(e, p, f) for e, p in zip(d, part)])
        zero(d, f)
        return np.zeros(size(part))
    if isinstance(part, list) and isinstance(d, (list, tuple)):
        d = [0.0 if e is None else e for e in d]
    xp = namespace(d, part)
    if xp is not None:
        return xp.reshape(tangent_like(d, as_float(part), f), (-1,))
    return np.ravel(np.asarray(tangent_like(d, as_float(part), f), dtype=float))


def split(matrix, x_rows, x_columns, shape_out):
    """The (numbers of `x_rows` x numbers of `x_columns`) matrix `matrix` as blocks of
    shape ``shape_out + rows' shape + columns' shape``, one per part of each (a list
    of arrays has a part per element: a list of blocks, as JAX nests them, the
    rows' list outside), each with the type of its row argument (`block_like`);
    `x_rows` None: no row argument (a Jacobian: `shape_out` is the output's)."""
    rows = [None] if x_rows is None else leaves(x_rows)
    columns = leaves(x_columns)
    out, r0 = [], 0
    for a in rows:
        na = matrix.shape[0] if a is None else size(a)
        row, c0 = [], 0
        for b in columns:
            nb = size(b)
            block = (namespace(matrix) or np).reshape(
                matrix[r0:r0 + na, c0:c0 + nb],
                shape_out + (() if a is None else shape(a)) + shape(b))
            row.append(block_like(block, b if a is None else a))
            c0 += nb
        out.append(row if nested(x_columns) else row[0])
        r0 += na
    return out if x_rows is not None and nested(x_rows) else out[0]


def block_like(block, x):
    """A Jacobian or Hessian block with the type its argument `x` gives it (see
    `arguments.typed_like`): for an array argument its dtype (a 0-d block of a 0-d array
    is a 0-d array; a float32 tensor's is float32), for a number a float where the
    block is one number."""
    if isinstance(x, np.ndarray) or array_library(x) in STANDARD:
        return typed_like(block, x)
    return float(block) if block.ndim == 0 and namespace(block) is None else block
