"""Runtime helpers that generated code may call.

This module imports nothing from the rest of s2sad, so a derivative pasted into
another project needs only this file (and NumPy). Each helper does one thing a
NumPy gradient needs and NumPy has no single function for.

Arrays of other libraries (`_other`): `unbroadcast`, `unreduce`, `extreme_bar`,
`norm_bar`, the matmul helpers, `zero_tangent`, `scalar_seed`, the adjoints of the
joining functions (`pieces`, `unstack`, `vstack_pieces`), of ``np.tile``,
``np.repeat``, ``np.sort`` (along an axis), ``np.diff``, ``np.tensordot``,
``np.linalg.slogdet`` (`inverse_t`), ``np.prod`` (`prod_others`),
``np.kron`` and ``np.einsum`` (without a repeated label) take them and give back
arrays of the same library, never through ``np.asarray`` (which would compute a
Dask graph): their paths for such arrays use only functions of the Python array API
standard, called from the array's namespace (`_namespace`: its
``__array_namespace__``, array-api-compat's for a PyTorch tensor, or NumPy's
functions for an array that overrides them, NEP 18, as Dask's does).
``array-api-strict`` checks that they do
(tests/test_array_api.py). Their NumPy paths are unchanged; the other helpers are
NumPy's only, for now (`driver.libraries.NUMPY_ONLY` refuses them for other
libraries' arrays; docs/guide/arrays.md).

Size: over 800 lines, one file because emitted code imports its helpers from here
alone, so that a derivative pasted into another project needs only this file.
"""

import math

import numpy as np


def dup(value, n=2):
    """The dup stage's explicit duplication: `n` references to the same value."""
    return (value,) * n


def _other(value) -> bool:
    """Is `value` an array of another library, one that overrides NumPy's functions
    (``__array_function__``, NEP 18: a Dask array) or has a namespace of the array
    API standard (``__array_namespace__``, or array-api-compat's for a PyTorch
    tensor), which the helpers keep in its library rather than pass to
    ``np.asarray``?"""
    return not isinstance(value, _PLAIN) and (
        hasattr(type(value), "__array_function__") or hasattr(value, "__array_namespace__")
        or _tensor(value))


def _tensor(value) -> bool:
    """Is `value` a PyTorch tensor (whose namespace array-api-compat gives)?"""
    return type(value).__module__.startswith("torch") and hasattr(value, "__torch_function__")


_PLAIN = (np.ndarray, float, int, np.generic)  # (told apart first: no attribute lookup)
_FAST = (np.ndarray, float)  # (the types of most adjoints: the helpers test these first)


def _namespace(*values):
    """The functions to call on the first of `values` that is another library's array
    (`_other`): its array API namespace, or NumPy's, which hands its calls to an
    array that overrides them (Dask's has no namespace of its own)."""
    for value in values:
        if _other(value):
            if _tensor(value):
                import array_api_compat.torch

                return array_api_compat.torch
            get = getattr(value, "__array_namespace__", None)
            return np if get is None or hasattr(type(value), "__array_function__") else get()
    return np


def _kind(a) -> str:
    """NumPy's one-letter kind of the dtype of `a` (another library's array): "f",
    "i", "b", "c", or "?" (from the array API's ``isdtype`` where the dtype has no
    ``kind``)."""
    kind = getattr(a.dtype, "kind", None)
    if isinstance(kind, str):
        return {"u": "i"}.get(kind, kind)
    isdtype = _namespace(a).isdtype
    return next((k for k, name in (("f", "real floating"), ("i", "integral"), ("b", "bool"),
                                   ("c", "complex floating")) if isdtype(a.dtype, name)), "?")


def _transposed(xp, a):
    """`a` with its last two axes swapped (``permute_dims``: the standard's
    ``matrix_transpose`` is not one Dask takes over)."""
    n = a.ndim
    return xp.permute_dims(a, tuple(range(n - 2)) + (n - 1, n - 2))


def unbroadcast(g, x):
    """`g` summed over the axes broadcasting added, so it has the shape of `x` (the
    adjoint of an operand of an elementwise operation)."""
    array = type(x) is np.ndarray
    shape = x.shape if array else np.shape(x)
    g_shape = g.shape if type(g) is np.ndarray else np.shape(g)
    if g_shape == shape:
        # a number's adjoint is a number, not a 0-d array (np.where gives those)
        return g[()] if isinstance(g, np.ndarray) and not isinstance(x, np.ndarray) else g
    if type(g) is not np.ndarray and _other(g) or not array and _other(x):
        return _unbroadcast_other(g, x, shape, g_shape)
    lead = len(g_shape) - len(shape)
    if lead < 0:
        # fewer axes than `x`: the same adjoint for every element along the missing
        # ones (the 0.0 a list's adjoint starts an array element with), spread out
        return np.array(np.broadcast_to(g, shape))
    g = np.asarray(g)
    axes = tuple(range(lead)) + tuple(lead + a for a, n in enumerate(shape)
                                      if n == 1 and g_shape[lead + a] != 1)
    g = _sum_over(g, axes)
    if g.shape != shape:
        g = g.reshape(shape)
    if not isinstance(x, np.ndarray):
        return g[()]  # a scalar operand gets a scalar adjoint
    return g


def _unbroadcast_other(g, x, shape, g_shape):
    """`unbroadcast` where `g` or `x` is another library's array (`_other`), in the
    array API's functions: `g` is never written in place, so a broadcast view of it
    is kept as it is."""
    xp = _namespace(g, x)
    lead = len(g_shape) - len(shape)
    if lead < 0:
        return xp.broadcast_to(g, shape) if _other(g) else xp.zeros_like(x) + g
    axes = tuple(range(lead)) + tuple(lead + a for a, n in enumerate(shape)
                                      if n == 1 and g_shape[lead + a] != 1)
    if axes:
        g = xp.sum(g, axis=axes)
    if g.shape != shape:
        g = xp.reshape(g, shape)
    return g if _other(x) or isinstance(x, np.ndarray) else g[()]


_ONES: dict = {}


def _sum_over(g, axes):
    """`g` summed over `axes` (not kept). When they are the leading or the trailing
    axes of a C-contiguous float64 array, and not all of them, the sum is one
    matrix-vector product with a vector of ones: NumPy's own reduction costs a loop
    per row, which for short rows (a (1000, 10) array summed along either axis) is 5
    to 25 times slower. Its rounding is that of a dot product, not pairwise."""
    n, k = g.ndim, len(axes)
    if 0 < k < n and g.dtype == np.float64 and g.flags.c_contiguous:
        if n == 2:  # (the common case, without the reshapes)
            return _ones(g.shape[0]) @ g if axes == (0,) else g @ _ones(g.shape[1])
        if axes == tuple(range(k)):
            rows = math.prod(g.shape[:k])
            return (_ones(rows) @ g.reshape(rows, -1)).reshape(g.shape[k:])
        if axes == tuple(range(n - k, n)):
            cols = math.prod(g.shape[n - k:])
            return (g.reshape(-1, cols) @ _ones(cols)).reshape(g.shape[:n - k])
    return np.sum(g, axis=axes) if k else g


def _ones(n):
    ones = _ONES.get(n)
    if ones is None:
        ones = np.ones(n)
        if n <= 4096:
            _ONES[n] = ones
    return ones


def unreduce(g, x, axis=None, keepdims=False):
    """The adjoint `g` of a reduction of `x` over `axis`, spread back over `x`."""
    if type(x) is not np.ndarray and _other(x) or type(g) not in _FAST and _other(g):
        return _unreduce_other(g, x, axis, keepdims)
    if axis is not None and not keepdims and np.ndim(g):
        g = np.expand_dims(g, axis)  # (a number spreads over any shape as it is)
    if isinstance(x, (list, tuple)):  # np.sum([a, b]): an array of adjoints, row by row
        x = np.asarray(x)
    # the result has x's dtype (a Python float adjoint does not make float32 float64)
    out = np.empty(np.shape(x), dtype=np.result_type(x, g))
    out[...] = g
    return out


def _unreduce_other(g, x, axis, keepdims):
    """`unreduce` where `g` or `x` is another library's array (`_other`), in the
    array API's functions: spread lazily (in a Dask array's chunks), never written
    into an array in memory."""
    xp = _namespace(x, g)
    if isinstance(x, (list, tuple)):  # (np.sum([a, b]) of arrays of that library)
        x = xp.stack([xp.asarray(v) for v in x])
    if axis is not None and not keepdims and getattr(g, "ndim", 0):
        for a in sorted(a % x.ndim for a in ((axis,) if isinstance(axis, int) else axis)):
            g = xp.expand_dims(g, axis=a)  # (one at a time: the standard's older versions)
    # the result has x's dtype where g is a Python float, as `unreduce`'s
    dtype = xp.result_type(x, g) if hasattr(g, "dtype") or _kind(x) != "f" else x.dtype
    return xp.zeros_like(x, dtype=dtype) + g


def extreme_bar(g, x, out, axis=None, keepdims=False):
    """Adjoint of max/min: `g` goes to the elements equal to the extreme, shared
    equally when there are ties."""
    if type(x) is not np.ndarray and _other(x) or type(g) not in _FAST and _other(g):
        return _extreme_bar_other(g, x, out, axis, keepdims)
    if isinstance(x, (list, tuple)):  # np.max([a, b])
        x = np.asarray(x)
    if axis is not None and not keepdims:  # (broadcast back over the reduced axes)
        out = np.expand_dims(out, axis)
        if np.ndim(g):
            g = np.expand_dims(g, axis)
    # g spread over x by broadcasting, not written into an array of x's shape first
    where = (x == out).astype(np.result_type(x, 1.0))
    ndim = where.ndim
    axes = tuple(range(ndim)) if axis is None else \
        tuple(sorted(a % ndim for a in np.atleast_1d(axis)))
    kept = tuple(1 if a in axes else n for a, n in enumerate(where.shape))
    return g / np.reshape(_sum_over(where, axes), kept) * where


def _extreme_bar_other(g, x, out, axis, keepdims):
    """`extreme_bar` where `x` or `g` is another library's array (`_other`), in the
    array API's functions."""
    xp = _namespace(x, g)
    if isinstance(x, (list, tuple)):
        x = xp.stack([xp.asarray(v) for v in x])
    ndim = x.ndim
    axes = tuple(range(ndim)) if axis is None else \
        tuple(sorted(a % ndim for a in ((axis,) if isinstance(axis, int) else axis)))
    if axis is not None and not keepdims:
        for a in axes:
            out = xp.expand_dims(out, axis=a)
            g = xp.expand_dims(g, axis=a) if getattr(g, "ndim", 0) else g
    equal = x == out
    dtype = x.dtype if _kind(x) == "f" else xp.float64
    # (Dask takes over no np.astype: its method)
    where = equal.astype(dtype) if xp is np else xp.astype(equal, dtype)
    kept = tuple(1 if a in axes else n for a, n in enumerate(x.shape))
    return g / xp.reshape(xp.sum(where, axis=axes), kept) * where


def _matmul_operands(g, x, y):
    """`x`, `y` and `g` of `x @ y` with 1-D operands promoted to matrices, the way
    `matmul` itself treats them."""
    xx = np.asarray(x)[np.newaxis, :] if np.ndim(x) == 1 else np.asarray(x)
    yy = np.asarray(y)[:, np.newaxis] if np.ndim(y) == 1 else np.asarray(y)
    gg = np.asarray(g)
    if np.ndim(y) == 1:  # (first: of two vectors, g is a number)
        gg = np.expand_dims(gg, -1)
    if np.ndim(x) == 1:
        gg = np.expand_dims(gg, -2)
    return gg, xx, yy


def _matmul_other(g, x, y):
    """`_matmul_operands` where one of them is another library's array (`_other`), in
    the array API's functions, and that library's namespace."""
    xp = _namespace(g, x, y)
    x, y = (v if hasattr(v, "ndim") else xp.asarray(v) for v in (x, y))
    xx = x[None, :] if x.ndim == 1 else x
    yy = y[:, None] if y.ndim == 1 else y
    gg = g if hasattr(g, "ndim") else xp.asarray(g)
    if y.ndim == 1:  # (first: of two vectors, g is a number)
        gg = xp.expand_dims(gg, axis=-1)
    if x.ndim == 1:
        gg = xp.expand_dims(gg, axis=-2)
    return xp, gg, xx, yy


def matmul_x_bar(g, x, y):
    """Adjoint of `x` in `x @ y`, for operands of any rank."""
    if type(x) is not np.ndarray and _other(x) or type(y) is not np.ndarray and _other(y) \
            or type(g) not in _FAST and _other(g):
        xp, gg, xx, yy = _matmul_other(g, x, y)
        return xp.reshape(unbroadcast(gg @ _transposed(xp, yy), xx), np.shape(x))
    gg, xx, yy = _matmul_operands(g, x, y)
    return np.reshape(unbroadcast(gg @ np.swapaxes(yy, -1, -2), xx), np.shape(x))


def matmul_y_bar(g, x, y):
    """Adjoint of `y` in `x @ y`, for operands of any rank."""
    if type(x) is not np.ndarray and _other(x) or type(y) is not np.ndarray and _other(y) \
            or type(g) not in _FAST and _other(g):
        xp, gg, xx, yy = _matmul_other(g, x, y)
        return xp.reshape(unbroadcast(_transposed(xp, xx) @ gg, yy), np.shape(y))
    gg, xx, yy = _matmul_operands(g, x, y)
    return np.reshape(unbroadcast(np.swapaxes(xx, -1, -2) @ gg, yy), np.shape(y))


def pieces(g, parts, axis=0):
    """Cut `g` (the adjoint of a concatenation) into the adjoints of its parts."""
    if _unread(g):
        return [0.0] * len(parts)
    if axis is None:  # the parts were flattened first: the pieces take their shapes back
        sizes = [np.size(p) for p in parts]
        out = np.split(g, np.cumsum(sizes)[:-1])
        return [np.reshape(piece, np.shape(p)) if np.ndim(p) else piece.reshape(())[()]
                for piece, p in zip(out, parts)]
    sizes = [np.shape(p)[axis] if np.ndim(p) else 1 for p in parts]
    if _other(g):  # (slices: neither Dask nor the array API has np.split)
        axis, at, out = axis % g.ndim, 0, []
        for n in sizes:
            out.append(g[(slice(None),) * axis + (slice(at, at + n), ...)])
            at += n
    else:
        out = np.split(g, np.cumsum(sizes)[:-1], axis=axis)
    # a number's piece (np.hstack([x, y]) of numbers) is a number
    return [piece.reshape(())[()] if not np.ndim(p) else piece for piece, p in zip(out, parts)]


def unstack(g, n, axis=0):
    """The adjoints of the `n` arrays `np.stack` stacked along `axis`."""
    if _unread(g):
        return [0.0] * n
    if _other(g):
        axis = axis % g.ndim
        return [g[(slice(None),) * axis + (i, ...)] for i in range(n)]
    return [np.take(g, i, axis=axis) for i in range(n)]


def unpacked_bar(value, parts):
    """The adjoint of `value`, unpacked into items whose adjoints are `parts` (None
    for an item with none), where the compiler could not see whether `value` is a
    tuple or list (a tuple of the parts, as they are) or an array (the array of the
    parts, each spread to its item's shape, stacked along a new first axis: a tuple
    would be repeated by ``*`` and joined by ``+``)."""
    if isinstance(value, (tuple, list)) or not hasattr(value, "ndim"):
        return tuple(0.0 if p is None else p for p in parts)
    xp = _namespace(value, *parts)
    items = [value[i] for i in range(len(parts))]
    return xp.stack([xp.zeros_like(item) if p is None else
                     xp.broadcast_to(xp.asarray(p), item.shape) if np.shape(p) != item.shape
                     else p for p, item in zip(parts, items)])


def vstack_pieces(g, parts):
    """The adjoints of the arrays `np.vstack` stacked (1-D parts are rows)."""
    if _unread(g):
        return [0.0] * len(parts)
    rows = [np.shape(p)[0] if np.ndim(p) > 1 else 1 for p in parts]
    if _other(g):
        xp, at = _namespace(g), np.cumsum([0] + rows)
        return [xp.reshape(g[a:b, ...], np.shape(p)) for a, b, p in zip(at, at[1:], parts)]
    return [np.reshape(piece, np.shape(p)) for piece, p in
            zip(np.split(g, np.cumsum(rows)[:-1], axis=0), parts)]


def stack_pieces(g, parts, axis):
    """The adjoints of the parts ``np.column_stack`` (`axis` 1) or ``np.dstack``
    (`axis` 2) joined: a part with an axis `axis` takes its length there, one with
    fewer axes one place (NumPy made it a column or a slice first), and its piece is
    given back its own shape (a number's, a number)."""
    if _unread(g):
        return [0.0] * len(parts)
    widths = [np.shape(p)[axis] if np.ndim(p) > axis else 1 for p in parts]
    return [np.reshape(piece, np.shape(p)) if np.ndim(p) else piece.reshape(())[()]
            for piece, p in zip(np.split(g, np.cumsum(widths)[:-1], axis=axis), parts)]


def _chain(arrays):
    """The arrays of ``np.linalg.multi_dot`` as matrices: a 1-D first one a row, a
    1-D last one a column."""
    last = len(arrays) - 1
    return [np.reshape(a, (1, -1)) if i == 0 and np.ndim(a) == 1 else
            np.reshape(a, (-1, 1)) if i == last and np.ndim(a) == 1 else a
            for i, a in enumerate(arrays)]


def multi_dot_bar(g, arrays):
    """The adjoints of the arrays of ``np.linalg.multi_dot(arrays)``: each one's is
    the product of those before it, transposed, times `g`, times the product of
    those after it, transposed (each product made once, from the ends in)."""
    mats = _chain(arrays)
    g = np.reshape(g, (np.shape(mats[0])[0], np.shape(mats[-1])[1]))
    lefts, rights = [None], [None]
    for m in mats[:-1]:
        lefts.append(m if lefts[-1] is None else lefts[-1] @ m)
    for m in mats[:0:-1]:
        rights.append(m if rights[-1] is None else m @ rights[-1])
    out = []
    for a, left, right in zip(arrays, lefts, rights[::-1]):
        b = g if right is None else g @ right.T
        out.append(np.reshape(b if left is None else left.T @ b, np.shape(a)))
    return out


class _Summands(list):
    """A list that adds to another list element by element: the term of a tangent
    that is a list, added to the other term (forward code adds terms with ``+``)."""

    def __add__(self, other):
        return _Summands(a + b for a, b in zip(self, other))

    __radd__ = __add__


def multi_dot_bar_dot(g, arrays, arrays_dot):
    """The tangent of `multi_dot_bar(g, arrays)` as the arrays move by `arrays_dot`:
    each adjoint's products with one other array replaced by its tangent, summed (a
    list that adds element by element to the term of g's tangent)."""
    arrays = list(arrays)
    dots = [np.broadcast_to(d, np.shape(a)) for d, a in zip(arrays_dot, arrays)]
    out = [np.zeros(np.shape(a)) for a in arrays]
    for j, d in enumerate(dots):
        moved = multi_dot_bar(g, arrays[:j] + [d] + arrays[j + 1:])
        for i in range(len(arrays)):
            if i != j:
                out[i] = out[i] + moved[i]
    return _Summands(out)


def multi_dot_dot(arrays, arrays_dot):
    """The tangent of ``np.linalg.multi_dot(arrays)``: the products with one array
    replaced by its tangent, summed."""
    arrays = list(arrays)
    return sum(np.linalg.multi_dot(arrays[:j] + [np.broadcast_to(d, np.shape(a))] + arrays[j + 1:])
               for j, (a, d) in enumerate(zip(arrays, arrays_dot)))


def select_bar(g, condlist, choicelist):
    """The adjoints of the choices of ``np.select(condlist, choicelist, default)``:
    each gets `g` where its condition is the first that holds, summed back to its
    shape."""
    taken = np.select(condlist, list(range(len(condlist))), len(condlist))
    return [unbroadcast(np.where(taken == i, g, 0.0), c) for i, c in enumerate(choicelist)]


def unsplit(g, parts, axis=0):
    """Adjoint of ``np.split(x, ..., axis)`` and its kin (`parts` the pieces they
    returned): the pieces' adjoints `g` joined along `axis`, zeros of a piece's shape
    where nothing read it (its adjoint is 0.0)."""
    return np.concatenate([np.broadcast_to(b, np.shape(p)) for b, p in zip(g, parts)], axis)


_INDEXED = (list, tuple, str, range)


def iterated(seq, i):
    """The `i`-th item a ``for`` loop over `seq` meets, where the compiler could not
    tell what `seq` is (it reads items by index): ``seq[i]`` for a list, a tuple, an
    array, a string or a range, else the `i`-th of ``list(seq)`` (a dict's keys, not
    ``seq[i]``, its value at the key `i`; a set's items). An array of another library
    is read by index too, as its loop reads it."""
    if type(seq) in _INDEXED or isinstance(seq, np.ndarray) or _other(seq):
        return seq[i]
    return list(seq)[i]


def zero_tangent(value):
    """A zero tangent with the structure of `value`, a value whose structure was not
    known when the derivative was compiled (what a recursive function saved for its
    reverse sweep, on a path where nothing it depends on varies): a tuple or list of
    zero tangents, an array of zeros, or 0.0."""
    if isinstance(value, tuple):
        return tuple(zero_tangent(v) for v in value)
    if isinstance(value, list):
        return [zero_tangent(v) for v in value]
    if isinstance(value, np.ndarray):
        return np.zeros_like(value)
    if _other(value):
        return _namespace(value).zeros_like(value)
    return 0.0


def scalar_seed(out):
    """The seed 1.0 of the gradient of an output that s2sad could not prove to be one
    number when it compiled the gradient (an array whose rank is known only at run
    time, such as a value that is a float or an array depending on a loop's count, or
    what a recursive function returns). Raises unless `out` is one real number."""
    if isinstance(out, (int, float, np.integer, np.floating)) or (
            isinstance(out, np.ndarray) and out.ndim == 0 and out.dtype.kind in "fiub"):
        return 1.0
    if _other(out) and out.ndim == 0 and _kind(out) in "fib":
        return 1.0  # (a Dask array's sum: its value is not computed to check it)
    try:
        from s2sad.errors import NonScalarOutputError as error
    except ImportError:  # (a derivative pasted somewhere without s2sad)
        error = ValueError
    what = f"an array of shape {out.shape}" if (isinstance(out, np.ndarray) or _other(out)) \
        and out.ndim \
        else f"a {type(out).__name__}"
    raise error(f"grad needs a function that returns one real number; this call "
                f"returned {what}")


def cofactors(a, det):
    """The cofactor matrix of `a`, its adjugate transposed (of each matrix of a stack),
    given its determinant `det`: the derivative of ``np.linalg.det``, which exists
    everywhere. ``det * inv(a).T`` where `a` is invertible; from the singular value
    decomposition where it is not (adj(a) is not zero when a has rank n - 1)."""
    if np.all(det != 0):
        try:
            inverse = np.linalg.inv(a)
        except np.linalg.LinAlgError:
            pass
        else:
            if inverse.ndim == 2:
                return det * inverse.T
            return np.expand_dims(det, (-2, -1)) * np.swapaxes(inverse, -1, -2)
    u, sign, q, vt = _adjugate_parts(a)
    p = np.diagonal(q, axis1=-2, axis2=-1)  # the products of all singular values but one
    return np.expand_dims(sign, (-2, -1)) * ((u * p[..., None, :]) @ vt)


def _adjugate_parts(a):
    """``(u, sign, q, vt)`` of a = u diag(s) vt (stacks too), sign = det(u) det(vt), and
    q[..., i, k] the product of the singular values other than s_i and s_k (for i == k,
    of those other than s_i), made without dividing (zeros are exact):
    adj(a) = sign * vt.T diag(q[i, i]) u.T."""
    u, s, vt = np.linalg.svd(np.asarray(a, dtype=np.result_type(a, 1.0)))
    n = s.shape[-1]
    rows = np.array(np.broadcast_to(s[..., None, :], s.shape + (n,)))
    rows[..., np.arange(n), np.arange(n)] = 1.0
    return u, np.linalg.det(u) * np.linalg.det(vt), prod_others(rows, -1), vt


def cofactors_dot(a, a_dot):
    """The derivative of `cofactors` at `a` along `a_dot` (any `a`, singular included).
    With a = u diag(s) vt and e = u.T a_dot vt.T, adj(u diag(s + .) vt) changes by
    sign * vt.T d u.T where d[i, i] = sum over k != i of q[i, k] e[k, k] and
    d[i, k] = -q[i, k] e[i, k]; the cofactors change by its transpose."""
    u, sign, q, vt = _adjugate_parts(a)
    n = q.shape[-1]
    e = np.swapaxes(u, -1, -2) @ a_dot @ np.swapaxes(vt, -1, -2)
    off = q * (1.0 - np.eye(n))
    d = -off * e
    d[..., np.arange(n), np.arange(n)] = (off @ np.diagonal(e, axis1=-2, axis2=-1)[..., None])[..., 0]
    return np.expand_dims(sign, (-2, -1)) * (u @ np.swapaxes(d, -1, -2) @ vt)


def inverse_t(a):
    """inv(a) with its last two axes swapped: the derivative of ``log |det a|``. At a
    singular matrix log |det a| is -inf and has no derivative: a LinAlgError that
    says so. Another library's array (`_other`): its namespace's ``linalg.inv``, and
    that library's error at a singular matrix."""
    if type(a) is not np.ndarray and _other(a):
        xp = _namespace(a)
        return _transposed(xp, xp.linalg.inv(a))
    try:
        return np.swapaxes(np.linalg.inv(a), -1, -2)
    except np.linalg.LinAlgError:
        raise np.linalg.LinAlgError(
            "np.linalg.slogdet of a singular matrix: its log-determinant is -inf there and "
            "has no derivative") from None


def eig_inv_t(v):
    """inv(v) with its last two axes swapped, `v` the eigenvectors ``np.linalg.eig``
    gives for a real matrix: the rules of ``eig`` and ``eigvals`` read it. Where some
    eigenvalues are complex NumPy's eigenvectors are complex, and s2sad's derivatives
    are of real values only: a ValueError says so (never a complex adjoint, nor its
    real part taken silently). Eigenvectors NumPy gives as exactly dependent (a
    defective matrix) have no derivative: a LinAlgError says so; nearly dependent
    ones give the large derivatives a nearly defective matrix has."""
    if np.iscomplexobj(v):
        raise ValueError(
            "np.linalg.eig (or eigvals) of a matrix with complex eigenvalues: s2sad "
            "differentiates real values only, so it differentiates eig where every "
            "eigenvalue is real (for a symmetric matrix, np.linalg.eigh)")
    try:
        return np.swapaxes(np.linalg.inv(v), -1, -2)
    except np.linalg.LinAlgError:
        raise np.linalg.LinAlgError(
            "np.linalg.eig of a defective matrix (its eigenvectors are not independent): "
            "its eigendecomposition has no derivative there") from None


def _unread(g) -> bool:
    """Is `g` the adjoint of an array nothing read: the number 0.0 a list of arrays'
    zero adjoint holds for such an item (``[0.0] * len(xs)``)? Its parts' adjoints
    are zeros too."""
    return type(g) is float and g == 0.0


def add_into(acc, parts):
    """Add each of `parts` into the matching element of the list `acc`."""
    if _unread(parts):
        return
    for i, part in enumerate(parts):
        try:
            acc[i] = acc[i] + part
        except TypeError:
            acc[i] = _added(acc[i], part)


def _added(a, part):
    """``a + part`` where one is a list's adjoint, a list (the seed of a vjp whose
    output is a list of lists, added into the zero adjoint of each item): element by
    element, a new list."""
    if isinstance(part, list) and not isinstance(a, list) and np.ndim(a) == 0 and a == 0:
        return [_added(0.0, p) if isinstance(p, list) else p for p in part]
    raise TypeError(f"cannot add a {type(part).__name__} adjoint to a "
                    f"{type(a).__name__} one")


def norm_bar(g, x, out, ord=None, axis=None, keepdims=False):
    """Adjoint of the norm `out` of `x`: ``np.linalg.norm(x, ord, axis, keepdims)``
    (the 2-norm and the Frobenius norm here, the other orders in `_norm_order_bar`)."""
    if ord is not None and ord != "fro" and (ord != 2 or _matrix_norm(x, axis)):
        return _norm_order_bar(g, x, out, ord, axis, keepdims)
    # at a zero norm every element is zero: the derivative there is taken as zero
    # (the convention at a kink), not 0 / 0
    if type(x) is not np.ndarray and _other(x):
        xp = _namespace(x)
        return unreduce(g / xp.where(out == 0, xp.asarray(1.0, dtype=out.dtype), out), x,
                        axis, keepdims) * x
    return unreduce(g / np.where(out == 0, 1.0, out), x, axis, keepdims) * x


def check_norm(x, ord, axis):
    """Refuse ``ord=0`` of vectors, the count of nonzero elements: a step function,
    with no derivative. (The compiler refuses a literal 0 already; this checks an
    `ord` known only when the function runs.)"""
    if ord == 0 and not _matrix_norm(x, axis):
        raise ValueError("s2sad does not differentiate np.linalg.norm with ord=0: it counts "
                         "the nonzero elements, a step function with no derivative")


def _matrix_norm(x, axis) -> bool:
    """Does ``np.linalg.norm(x, ord, axis)`` with an `ord` take matrix norms (over all
    axes of a 2-D array, or over a pair of axes)?"""
    return np.ndim(x) > 1 if axis is None else np.ndim(axis) == 1 and len(axis) == 2


def _norm_parts(g, x, out, ord, axis, keepdims):
    """`g`, `x` (an array) and `out` as `_norm_order_bar` reads them: the reduced axes
    (all for None, in the caller's order: rows then columns) and `g` and `out` kept
    with 1 there, broadcasting over `x`."""
    check_norm(x, ord, axis)
    if _other(x) or _other(g):
        raise TypeError(f"s2sad differentiates np.linalg.norm with ord={ord!r} for NumPy "
                        "arrays only, not yet for arrays of other libraries")
    x = np.asarray(x)
    axes = tuple(range(x.ndim)) if axis is None else \
        tuple(a % x.ndim for a in np.atleast_1d(axis))
    if not keepdims and np.ndim(g):
        g = np.expand_dims(g, axes)
    if not keepdims and np.ndim(out):
        out = np.expand_dims(out, axes)
    return g, x, out, axes


def _norm_order_bar(g, x, out, ord, axis, keepdims):
    """`norm_bar` of the orders other than the 2-norm's and the Frobenius norm's. Of
    vectors: ``ord=1`` (``sign(x)``), inf and -inf (the sign at the elements whose
    magnitude is the extreme, shared equally by ties, as `extreme_bar`), any other
    p (``sign(x) * (|x| / norm) ** (p - 1)``, 0 at a zero norm). Of matrices: 1, -1,
    inf, -inf (the sign in the column, or row, of the extreme sum of magnitudes,
    shared by ties), 'nuc' (``u @ vh`` of the thin SVD) and 2, -2 (``u v^T`` of the
    largest, or smallest, singular value)."""
    g, x, out, axes = _norm_parts(g, x, out, ord, axis, keepdims)
    if len(axes) == 1:
        if ord == 1:
            return g * np.sign(x)
        if ord in (math.inf, -math.inf):
            hit = np.abs(x) == out
            return g * np.sign(x) * (hit / np.maximum(np.sum(hit, axis=axes, keepdims=True), 1))
        ratio = np.abs(x) / np.where(out == 0, 1.0, out)
        return g * np.sign(x) * ratio ** (ord - 1)
    rows, cols = axes
    if ord in (1, -1, math.inf, -math.inf):
        along, across = (rows, cols) if ord in (1, -1) else (cols, rows)
        hit = np.sum(np.abs(x), axis=along, keepdims=True) == out
        return g * np.sign(x) * (hit / np.maximum(np.sum(hit, axis=across, keepdims=True), 1))
    u, _, vh = np.linalg.svd(np.moveaxis(x, axes, (-2, -1)), full_matrices=False)
    if ord == 2:
        u, vh = u[..., :1], vh[..., :1, :]
    elif ord == -2:
        u, vh = u[..., -1:], vh[..., -1:, :]
    return g * np.moveaxis(u @ vh, (-2, -1), axes)


def norm_bar_dx(g, x, norm, x_dot, ord=None, axis=None, keepdims=False):
    """The tangent of `norm_bar` of an order `_norm_order_bar` takes along `x`'s
    tangent `x_dot`, `norm` held: for `norm_bar`'s forward rule (Hessians). Zero for
    the orders whose adjoint is piecewise constant (vectors' 1 and +-inf, matrices'
    1, -1, inf and -inf); for 'nuc' and +-2 the tangent of ``u @ vh`` (of one column
    of each) from the thin SVD's, with a gap of 0 between singular values taken as
    no term (as `np.linalg.svd`'s rules)."""
    g, x, out, axes = _norm_parts(g, x, norm, ord, axis, keepdims)
    if ord in (1, math.inf, -math.inf) or ord == -1 and len(axes) == 2:
        return np.zeros(x.shape)
    if len(axes) == 1:
        scale = np.where(out == 0, 1.0, out)
        return g * (ord - 1) * (np.abs(x) / scale) ** (ord - 2) / scale * x_dot
    a = np.moveaxis(x, axes, (-2, -1))
    a_dot = np.moveaxis(np.broadcast_to(x_dot, x.shape), axes, (-2, -1))
    u, s, vh = np.linalg.svd(a, full_matrices=False)
    v = np.swapaxes(vh, -1, -2)
    a_dot_v = a_dot @ v
    ut_a_dot = np.swapaxes(u, -1, -2) @ a_dot
    p = ut_a_dot @ v
    pt = np.swapaxes(p, -1, -2)
    if ord == "nuc":  # (the polar factor's tangent: s_i + s_j never 0 at full rank)
        core = (p - pt) / (s[..., :, None] + s[..., None, :])
        q_dot = u @ core @ vh + ((a_dot_v - u @ p) / s[..., None, :]) @ vh \
            + u @ ((ut_a_dot - p @ vh) / s[..., :, None])
        return g * np.moveaxis(q_dot, (-2, -1), axes)
    k = 0 if ord == 2 else -1
    s2 = s * s
    gap = s2[..., k, None] - s2  # (s[k]**2 - s[i]**2, for each i)
    inverse_gap = np.where(gap == 0, 0.0, 1.0 / np.where(gap == 0, 1.0, gap))
    sk = s[..., k, None]
    u_dot = (u @ (inverse_gap * (p[..., :, k] * sk + s * p[..., k, :]))[..., None])[..., 0] \
        + (a_dot_v[..., :, k] - (u @ p[..., :, k, None])[..., 0]) / sk
    v_dot = (v @ (inverse_gap * (s * p[..., :, k] + p[..., k, :] * sk))[..., None])[..., 0] \
        + (ut_a_dot[..., k, :] - (v @ pt[..., :, k, None])[..., 0]) / sk
    uv_dot = u_dot[..., :, None] * vh[..., k, None, :] + u[..., :, k, None] * v_dot[..., None, :]
    return g * np.moveaxis(uv_dot, (-2, -1), axes)


def norm_bar_dnorm(g, x, norm, norm_dot, ord=None, axis=None, keepdims=False):
    """The tangent of `norm_bar` of an order `_norm_order_bar` takes along the
    tangent `norm_dot` of the norm it is given, `x` held: ``(1 - p) / norm`` times
    the adjoint of a vector's p-norm, and zero for the other orders (whose adjoint
    does not read the norm but where ties are told apart)."""
    if ord in (1, math.inf, -math.inf) or _matrix_norm(x, axis):
        return np.zeros(np.shape(x))
    scale = np.where(np.asarray(norm) == 0, 1.0, norm)
    return _norm_order_bar((1 - ord) * g * norm_dot / scale, x, norm, ord, axis, keepdims)


def _along_last(x, axis):
    """`x` with the reduced axes (all for None) moved last and flattened into one:
    ``(moved, restore)`` where `restore` turns such an array back into `x`'s layout."""
    x = np.asarray(x)
    axes = tuple(range(x.ndim)) if axis is None else \
        tuple(a % x.ndim for a in np.atleast_1d(axis))
    rest = [a for a in range(x.ndim) if a not in axes]
    order = rest + list(axes)
    moved = np.transpose(x, order)
    shape = moved.shape

    def restore(y):
        return np.transpose(np.reshape(y, shape), np.argsort(order))

    return np.reshape(moved, shape[:len(rest)] + (-1,)), restore


def prod_others(x, axis=None):
    """For each element of `x`, the product of the other elements it is reduced with
    (along `axis`, or all): the derivative of ``np.prod``, without dividing by `x`,
    so it is right where `x` has zeros."""
    if type(x) is not np.ndarray and _other(x):
        return _prod_others_other(x, axis)
    flat, restore = _along_last(x, axis)
    if flat.shape[-1] == 0:
        return np.ones_like(np.asarray(x))
    ones = np.ones(flat.shape[:-1] + (1,), dtype=flat.dtype)
    left = np.concatenate([ones, np.cumprod(flat[..., :-1], axis=-1)], axis=-1)
    right = np.concatenate([np.cumprod(flat[..., :0:-1], axis=-1)[..., ::-1], ones], axis=-1)
    return restore(left * right)


def _prod_others_other(x, axis):
    """`prod_others` of another library's array (`_other`), in the array API's
    functions: the products of the elements before and after each, as cumulative
    products along the reduced axes moved last and merged."""
    xp = _namespace(x)
    cumprod = xp.cumprod if xp is np else xp.cumulative_prod
    n = x.ndim
    axes = tuple(range(n)) if axis is None else tuple(
        a % n for a in ((axis,) if isinstance(axis, int) else axis))
    order = tuple(a for a in range(n) if a not in axes) + axes
    moved = xp.permute_dims(x, order)
    flat = xp.reshape(moved, tuple(moved.shape[:n - len(axes)]) + (-1,))
    ones = xp.ones_like(flat[..., :1])
    left = xp.concat([ones, cumprod(flat[..., :-1], axis=-1)], axis=-1)
    after = cumprod(xp.flip(flat[..., 1:], axis=-1), axis=-1)
    right = xp.flip(xp.concat([ones, after], axis=-1), axis=-1)
    back = tuple(sorted(range(n), key=order.__getitem__))  # (the inverse of `order`)
    return xp.permute_dims(xp.reshape(left * right, moved.shape), back)


def prod_others_dot(x, x_dot, axis=None):
    """The derivative of `prod_others` along `x_dot`: for each element, the sum over
    the other elements j of x_dot[j] times the product of the rest."""
    flat, restore = _along_last(x, axis)
    flat_dot, _ = _along_last(x_dot, axis)
    out = np.zeros(np.broadcast_shapes(flat.shape, flat_dot.shape))
    for j in range(flat.shape[-1]):
        swapped = np.array(flat, dtype=out.dtype)
        swapped[..., j] = flat_dot[..., j]
        term = prod_others(swapped, -1)
        term[..., j] = 0.0
        out = out + term
    return restore(out)


# ------------------------------------------- adjoints of NumPy's shaping functions


def take_bar(g, x, indices, axis=None):
    """Adjoint of ``np.take(x, indices, axis)``: `g` added into zeros of `x`'s shape
    at the indices it was read from (an index read twice gets both)."""
    x_bar = np.zeros(np.shape(x), dtype=np.result_type(np.asarray(x), g))
    if axis is None:
        np.add.at(x_bar.reshape(-1), indices, g)
        return x_bar
    axis = axis % x_bar.ndim
    index = (slice(None),) * axis + (indices,)
    np.add.at(x_bar, index, g)
    return x_bar


def kept_slots(g, a, index):
    """`g`, the adjoint read from ``a_bar[index]`` for the value a write ``a[index] =
    v`` put there (`index` holding integer arrays or lists), with zeros where the
    index names an element twice and the write did not keep that value: only the
    value an element kept has a derivative. Which one that is (NumPy keeps the last,
    but promises no order) is asked of the array library by the same write of each
    value's position. Only `a`'s shape is read."""
    if _other(g):
        xp = _namespace(g)
        ids = xp.reshape(xp.arange(math.prod(g.shape)), g.shape)
        order = xp.empty(a.shape, dtype=ids.dtype)
    else:
        ids = np.arange(g.size).reshape(g.shape)
        order = np.empty(np.shape(a), dtype=ids.dtype)
    order[index] = ids
    return g * (order[index] == ids)


def take_along_axis_bar(g, x, indices, axis=-1):
    """Adjoint of ``np.take_along_axis(x, indices, axis)``: `g` added into zeros of
    `x`'s shape at the places it was read from (an index read twice gets both, and
    so does an axis of `x` of length 1 that `indices` broadcast)."""
    x_bar = np.zeros(np.shape(x), dtype=np.result_type(np.asarray(x), g))
    if axis is None:  # (x read flat)
        np.add.at(x_bar.reshape(-1), indices, g)
        return x_bar
    axis = axis % x_bar.ndim
    # (the place along every other axis is its own position there, as NumPy reads it)
    where = tuple(indices if d == axis else np.arange(n).reshape(
        (1,) * d + (n,) + (1,) * (x_bar.ndim - d - 1)) for d, n in enumerate(x_bar.shape))
    np.add.at(x_bar, where, g)
    return x_bar


def unsort(g, x, order, axis=-1):
    """Adjoint of ``np.sort(x, axis)``: `g` put back where each element came from
    (`order` is ``np.argsort(x, axis)``, a permutation along the axis: no element is
    read twice, so a put, not a sum; for another library's array, a take by the
    inverse permutation)."""
    if _other(g) and axis is not None:
        xp = _namespace(g)
        return xp.take_along_axis(g, xp.argsort(order, axis=axis), axis=axis)
    x_bar = np.empty(np.shape(x), dtype=np.result_type(np.asarray(x), g))
    if axis is None:
        x_bar.reshape(-1)[order] = g
    else:
        np.put_along_axis(x_bar, order, g, axis)
    return x_bar


def unpad(g, pad_width):
    """Adjoint of ``np.pad(x, pad_width)``: the part of `g` that is `x`."""
    widths = np.asarray(pad_width, dtype=int)
    widths = np.broadcast_to(widths[None] if widths.shape == (2,) else widths, (np.ndim(g), 2))
    return g[tuple(slice(before, n - after) for (before, after), n in zip(widths, np.shape(g)))]


def untile(g, x):
    """Adjoint of ``np.tile(x, reps)``: the tiles of `g` summed, in `x`'s shape."""
    xp = _namespace(g)
    if not _other(g):
        g = np.asarray(g)
    shape = (1,) * (g.ndim - np.ndim(x)) + np.shape(x)
    split = []
    for n, m in zip(g.shape, shape):
        split += [n // m if m else 0, m]
    summed = xp.sum(xp.reshape(g, tuple(split)), axis=tuple(range(0, 2 * g.ndim, 2)))
    return xp.reshape(summed, np.shape(x))


def unrepeat(g, x, repeats, axis=None):
    """Adjoint of ``np.repeat(x, repeats, axis)``: each element's copies in `g` summed
    (another library's array: as many copies of each, `repeats` a number)."""
    xp = _namespace(g)
    if not _other(g):
        g = np.asarray(g)
    n = math.prod(np.shape(x)) if axis is None else np.shape(x)[axis]
    axis = 0 if axis is None else axis % g.ndim
    counts = np.broadcast_to(repeats, (n,))
    if counts.ndim == 1 and np.all(counts == counts[0]) and n:
        shape = g.shape[:axis] + (n, int(counts[0])) + g.shape[axis + 1:]
        return xp.reshape(xp.sum(xp.reshape(g, shape), axis=axis + 1), np.shape(x))
    if _other(g):
        raise ValueError("s2sad differentiates np.repeat of another library's array with "
                         "as many copies of each element only: not supported yet")
    # (counts of zero: elements repeated no time, whose adjoint is 0)
    given = counts > 0
    sums = np.add.reduceat(g, (np.cumsum(counts) - counts)[given], axis=axis)
    x_bar = np.zeros(g.shape[:axis] + (n,) + g.shape[axis + 1:], dtype=g.dtype)
    x_bar[(slice(None),) * axis + (given,)] = sums
    return np.reshape(x_bar, np.shape(x))


def diag_bar(g, x, k=0):
    """Adjoint of ``np.diag(x, k)`` of a matrix `x` (its `k`-th diagonal): `g` on that
    diagonal of zeros of `x`'s shape."""
    x_bar = np.zeros(np.shape(x), dtype=np.result_type(np.asarray(x), g))
    rows = np.arange(np.size(g)) + max(-k, 0)
    x_bar[rows, rows + k] = g
    return x_bar


def diagonal_bar(g, x, offset=0, axis1=0, axis2=1):
    """Adjoint of ``np.diagonal(x, offset, axis1, axis2)``: `g` (the diagonal along
    its last axis) on that diagonal of zeros of `x`'s shape, built with the two axes
    last and moved back."""
    shape = np.shape(x)
    pair = (axis1 % len(shape), axis2 % len(shape))
    rest = tuple(n for i, n in enumerate(shape) if i not in pair)
    x_bar = np.zeros(rest + (shape[pair[0]], shape[pair[1]]),
                     dtype=np.result_type(np.asarray(x), g))
    rows = np.arange(np.shape(g)[-1]) + max(-offset, 0)
    x_bar[..., rows, rows + offset] = g
    return np.moveaxis(x_bar, (-2, -1), pair)


def _cumprod_rows(x, axis):
    """`x` with `axis` (None: x flattened) moved last, and the function putting an
    array of that layout back in x's shape."""
    x = np.asarray(x)
    if axis is None:
        return np.ravel(x), lambda y: np.reshape(y, x.shape)
    return np.moveaxis(x, axis, -1), lambda y: np.moveaxis(y, -1, axis)


def _cumprod_tangent(x, t):
    """The tangent of ``np.cumprod(x, axis=-1)`` along `t`, right at zeros: before
    the first zero of a row, out times the running sum of t / x; from it on, the
    zero's own tangent times the products after it."""
    zeros = np.cumsum(x == 0, axis=-1)
    first = (zeros == 1) & (x == 0)
    before = zeros == 0
    return np.where(before, np.cumprod(x, -1) * np.cumsum(t / np.where(before, x, 1.0), -1),
                    np.cumprod(np.where(first, 1.0, x), -1) * np.cumsum(np.where(first, t, 0.0), -1))


def _others(x):
    """``(a, mask)``: a[..., i, j] is x[..., j] but 1 at j == i, so that the
    cumulative products of row i leave x[i] out; `mask` is j >= i."""
    n = x.shape[-1]
    eye = np.eye(n, dtype=bool)
    return np.where(eye, 1.0, x[..., None, :]), np.triu(np.ones((n, n), dtype=bool))


def _reversed_cumsum(v):
    return np.flip(np.cumsum(np.flip(v, -1), -1), -1)


def cumprod_bar(g, x, out, axis=None):
    """Adjoint of ``out = np.cumprod(x, axis)``: each element gets the later
    products' adjoints times the products without it, ``cumsum`` from the end of
    ``g * out`` divided by the element; in a row that holds a zero, the products
    without each element, one row of them per element (n² for such a row)."""
    xs, back = _cumprod_rows(x, axis)
    gs, _ = _cumprod_rows(np.broadcast_to(g, np.shape(out)), axis)
    zero = xs == 0
    x_bar = _reversed_cumsum(gs * _cumprod_rows(out, axis)[0]) / np.where(zero, 1.0, xs)
    rows = np.any(zero, axis=-1)
    if np.any(rows):
        a, mask = _others(xs[rows])
        x_bar[rows] = np.sum(np.cumprod(a, -1) * mask * gs[rows][..., None, :], axis=-1)
    return back(x_bar)


def cumprod_bar_dot(g, x, x_dot, axis=None):
    """The tangent of ``cumprod_bar(g, x, np.cumprod(x, axis), axis)`` along `x_dot`
    (`g` held still), right at zeros too."""
    xs, back = _cumprod_rows(x, axis)
    gs, _ = _cumprod_rows(np.broadcast_to(g, np.shape(xs) if axis is None else np.shape(x)), axis)
    ts, _ = _cumprod_rows(np.broadcast_to(x_dot, np.shape(x)), axis)
    zero = xs == 0
    safe = np.where(zero, 1.0, xs)
    out, out_dot = np.cumprod(xs, -1), _cumprod_tangent(xs, ts)
    tangent = (_reversed_cumsum(gs * out_dot) - _reversed_cumsum(gs * out) * ts / safe) / safe
    rows = np.any(zero, axis=-1)
    if np.any(rows):
        a, mask = _others(xs[rows])
        a_dot = np.where(np.eye(xs.shape[-1], dtype=bool), 0.0, ts[rows][..., None, :])
        tangent[rows] = np.sum(_cumprod_tangent(a, a_dot) * mask * gs[rows][..., None, :], axis=-1)
    return back(tangent)


def median_bar(g, x, axis=None, keepdims=False):
    """Adjoint of ``np.median(x, axis)``: `g` to the middle element along the reduced
    axes, or half of it to each of the two middle ones."""
    flat, restore = _along_last(x, axis)
    n = flat.shape[-1]
    order = np.argsort(flat, axis=-1)
    middle = np.zeros_like(flat, dtype=np.result_type(flat, 1.0))
    half = np.zeros(order.shape[:-1] + (1,), dtype=middle.dtype) + 0.5
    np.put_along_axis(middle, order[..., (n - 1) // 2:(n - 1) // 2 + 1], half, axis=-1)
    lower = np.take_along_axis(middle, order[..., n // 2:n // 2 + 1], axis=-1)
    np.put_along_axis(middle, order[..., n // 2:n // 2 + 1], lower + half, axis=-1)
    return unreduce(g, x, axis, keepdims) * restore(middle)


def _quantile_parts(a, q, axis):
    """What ``np.quantile(a, q, axis)`` (method 'linear') reads: `a` with the reduced
    axes last and flattened (`_along_last`), its restore, the order that sorts it
    (ties in the order a stable sort keeps), and per q (flattened) the two sorted
    places interpolated between and the weight of the upper one."""
    flat, restore = _along_last(a, axis)
    n = flat.shape[-1]
    order = np.argsort(flat, axis=-1, kind="stable")
    h = np.ravel(np.asarray(q, dtype=float)) * (n - 1)
    lower = np.clip(np.floor(h).astype(int), 0, n - 1)
    upper = np.minimum(lower + 1, n - 1)
    return flat, restore, order, lower, upper, h - lower


def quantile_bar(g, a, q, axis=None, keepdims=False, whole=1.0):
    """Adjoint of ``np.quantile(a, q, axis, keepdims=keepdims)`` (method 'linear'; of
    ``np.percentile`` with `whole` 100): for each q, `g` times 1 - w to the order
    statistic below it and times w to the one above (w the interpolation weight), 0
    elsewhere."""
    flat, restore, order, lower, upper, w = _quantile_parts(a, np.divide(q, whole), axis)
    rest = flat.shape[:-1]
    g = np.reshape(g, (lower.size,) + rest)
    placed = np.zeros(flat.shape, dtype=np.result_type(flat, g, 1.0))
    for k in range(lower.size):  # (a few q, each one or two places)
        placed[..., lower[k]] += g[k] * (1.0 - w[k])
        placed[..., upper[k]] += g[k] * w[k]
    a_bar = np.empty_like(placed)
    np.put_along_axis(a_bar, order, placed, axis=-1)
    return restore(a_bar)


def quantile_dot(t, a, q, axis=None, keepdims=False, whole=1.0):
    """Tangent of ``np.quantile(a, q, axis, keepdims=keepdims)`` (method 'linear'; of
    ``np.percentile`` with `whole` 100) along `t`: `t` at the two order statistics
    each q interpolates between, mixed with the same weights."""
    flat, _, order, lower, upper, w = _quantile_parts(a, np.divide(q, whole), axis)
    moved, _ = _along_last(np.broadcast_to(t, np.shape(a)), axis)
    t_sorted = np.take_along_axis(moved, order, axis=-1)
    out = t_sorted[..., lower] * (1.0 - w) + t_sorted[..., upper] * w  # (rest + (q,))
    out = np.moveaxis(out, -1, 0).reshape(np.shape(q) + out.shape[:-1])
    if keepdims:  # (the reduced axes kept, of length 1)
        ndim = np.ndim(a)
        axes = range(ndim) if axis is None else [x % ndim for x in np.atleast_1d(axis)]
        out = np.reshape(out, np.shape(q) + tuple(1 if i in axes else n
                                                  for i, n in enumerate(np.shape(a))))
    return out


def _tensordot_axes(a, b, axes):
    """The summed axes of `a` and of `b` in ``np.tensordot(a, b, axes)``, paired in
    order, and the free axes of each."""
    na, nb = np.ndim(a), np.ndim(b)
    if np.ndim(axes) == 0:
        ia, ib = list(range(na - axes, na)), list(range(axes))
    else:
        ia, ib = ([v] if np.ndim(v) == 0 else list(v) for v in axes)
        ia, ib = [v % na for v in ia], [v % nb for v in ib]
    return ia, ib, [v for v in range(na) if v not in ia], [v for v in range(nb) if v not in ib]


def _permuted(xp, a, order):
    """`a` with its axes in `order` (``permute_dims``: NumPy before 2.0 has only
    ``transpose``, which Dask takes over)."""
    order = tuple(int(v) for v in order)
    return np.transpose(a, order) if xp is np else xp.permute_dims(a, order)


def tensordot_a_bar(g, a, b, axes=2):
    """Adjoint of `a` in ``np.tensordot(a, b, axes)``: `g` contracted with `b` over
    b's free axes, its axes put back in a's order."""
    ia, ib, free_a, free_b = _tensordot_axes(a, b, axes)
    xp = _namespace(g, b)
    got = xp.tensordot(g, b, axes=(list(range(len(free_a), np.ndim(g))), free_b))
    # (its axes: a's free ones, then those b summed over, in b's order)
    order = free_a + [ia[ib.index(v)] for v in sorted(ib)]
    return got if order == sorted(order) else _permuted(xp, got, np.argsort(order))


def tensordot_b_bar(g, a, b, axes=2):
    """Adjoint of `b` in ``np.tensordot(a, b, axes)``."""
    ia, ib, free_a, free_b = _tensordot_axes(a, b, axes)
    xp = _namespace(g, a)
    got = xp.tensordot(a, g, axes=(free_a, list(range(len(free_a)))))
    order = [ib[ia.index(v)] for v in sorted(ia)] + free_b
    return got if order == sorted(order) else _permuted(xp, got, np.argsort(order))


def _kron_parts(g, a, b):
    """`g` (the adjoint of ``np.kron(a, b)``) with one axis per axis of a and of b,
    interleaved, and the shapes of a and b with as many axes as the result."""
    n = np.ndim(g)
    sa = (1,) * (n - np.ndim(a)) + np.shape(a)
    sb = (1,) * (n - np.ndim(b)) + np.shape(b)
    return _namespace(g).reshape(g, tuple(m for pair in zip(sa, sb) for m in pair)), sa, sb


def kron_a_bar(g, a, b):
    """Adjoint of `a` in ``np.kron(a, b)``, for operands of any rank: `g` summed
    against `b` over b's axes."""
    parts, sa, sb = _kron_parts(g, a, b)
    n, xp = len(sa), _namespace(g, b)
    got = xp.tensordot(parts, xp.reshape(b, sb), axes=(list(range(1, 2 * n, 2)),
                                                       list(range(n))))
    return xp.reshape(got, np.shape(a))


def kron_b_bar(g, a, b):
    """Adjoint of `b` in ``np.kron(a, b)``, for operands of any rank."""
    parts, sa, sb = _kron_parts(g, a, b)
    n, xp = len(sa), _namespace(g, a)
    got = xp.tensordot(parts, xp.reshape(a, sa), axes=(list(range(0, 2 * n, 2)),
                                                       list(range(n))))
    return xp.reshape(got, np.shape(b))


def _cross_parts(g, a, b, axisa, axisb, axisc):
    """`a`, `b` and `g` with their vector axes last (3-vectors only)."""
    x, y = np.moveaxis(np.asarray(a), axisa, -1), np.moveaxis(np.asarray(b), axisb, -1)
    if x.shape[-1] != 3 or y.shape[-1] != 3:
        raise ValueError("s2sad differentiates np.cross of 3-vectors only (NumPy 2 deprecates "
                         "2-vectors: give them a third component 0.0)")
    return np.moveaxis(g, axisc, -1), x, y


def cross_a_bar(g, a, b, axisa=-1, axisb=-1, axisc=-1):
    """Adjoint of `a` in ``np.cross(a, b, axisa, axisb, axisc)``: b x g (<g, a x b> is
    <a, b x g>), the vector axes last, summed back to a's shape."""
    gg, x, y = _cross_parts(g, a, b, axisa, axisb, axisc)
    return np.moveaxis(unbroadcast(np.cross(y, gg), x), -1, axisa)


def cross_b_bar(g, a, b, axisa=-1, axisb=-1, axisc=-1):
    """Adjoint of `b` in ``np.cross(a, b, axisa, axisb, axisc)``: g x a."""
    gg, x, y = _cross_parts(g, a, b, axisa, axisb, axisc)
    return np.moveaxis(unbroadcast(np.cross(gg, x), y), -1, axisb)


def diff_bar(g, x, n=1, axis=-1):
    """Adjoint of ``np.diff(x, n, axis)``: the differences of `g` with `n` zeros on
    each side, negated for an odd `n` (the transpose of a difference is minus a
    difference)."""
    axis = axis % np.ndim(x)
    shape = np.shape(g)[:axis] + (n,) + np.shape(g)[axis + 1:]
    if _other(g):  # (the array API's concat and diff)
        xp = _namespace(g)
        zeros = xp.zeros(shape, dtype=g.dtype)
        if xp is np:  # (Dask's: NumPy's names, which it takes over)
            return np.diff(np.concatenate((zeros, -g if n % 2 else g, zeros), axis), n, axis)
        return xp.diff(xp.concat((zeros, -g if n % 2 else g, zeros), axis=axis), n=n, axis=axis)
    zeros = np.zeros(shape, dtype=np.result_type(g))
    return np.diff(np.concatenate((zeros, -g if n % 2 else g, zeros), axis), n, axis)



def gradient_bar(g, f, dx=1.0, axis=None):
    """Adjoint in `f` of ``np.gradient(f, dx, axis=axis)`` (a uniform spacing `dx`,
    ``edge_order=1``; `axis` None: of a 1-D `f`): the transpose of its differences,
    central inside (each point gives half its adjoint to the points either side, with
    opposite signs) and one-sided at the two ends."""
    axis = 0 if axis is None else axis % np.ndim(f)
    h = np.moveaxis(np.asarray(g), axis, -1)
    f_bar = np.zeros(h.shape, dtype=np.result_type(h, 1.0))
    inner = 0.5 * h[..., 1:-1]
    f_bar[..., :-2] -= inner
    f_bar[..., 2:] += inner
    f_bar[..., 0] -= h[..., 0]
    f_bar[..., 1] += h[..., 0]
    f_bar[..., -2] -= h[..., -1]
    f_bar[..., -1] += h[..., -1]
    return np.moveaxis(f_bar, -1, axis) / dx


def _trapezoid_steps(x, dx, ndim, axis):
    """The steps of ``np.trapezoid`` along `axis` of an array of `ndim` axes: `dx`
    without `x`, else the differences of `x` (of a 1-D `x`, with axes of length 1
    after the one along `axis`, as NumPy lays them out)."""
    if x is None:
        return dx
    x = np.asarray(x)
    if x.ndim == 1:
        return np.diff(x).reshape((-1,) + (1,) * (ndim - 1 - axis % ndim))
    return np.diff(x, axis=axis)


def _shifted_pair(h, axis, sign):
    """`h` one place longer along `axis` (counted from the end): `h` shifted one place
    on, plus `sign` times `h` (the adjoint of ``y[1:] + sign * y[:-1]``)."""
    zeros = np.zeros(h.shape[:axis] + (1,) + h.shape[axis:][1:], dtype=h.dtype)
    return np.concatenate((zeros, h), axis) + sign * np.concatenate((h, zeros), axis)


def trapezoid_bar(g, y, x, dx, axis=-1):
    """Adjoint in `y` of ``np.trapezoid(y, x, dx, axis)``: `g` times half the step on
    either side of each point (steps of `x` where it is given, else `dx`)."""
    shape = np.shape(y)
    ndim = len(shape)
    axis = axis % ndim - ndim  # (from the end: g has more axes than y where x has)
    half = np.expand_dims(g, axis) * (0.5 * _trapezoid_steps(x, dx, ndim, axis))
    pairs = list(shape)
    pairs[axis] -= 1
    half = np.broadcast_to(half, np.broadcast_shapes(np.shape(half), tuple(pairs)))
    y_bar = _shifted_pair(half, axis, 1.0)
    return y_bar if y_bar.shape == shape else unbroadcast(y_bar, y)


def trapezoid_x_bar(g, y, x, axis=-1):
    """Adjoint in `x` of ``np.trapezoid(y, x, axis=axis)``: each step's adjoint is `g`
    times half the sum of the two points it joins, and a step is the difference of
    the two `x` it joins (a 1-D `x` steps every line along the axis: their adjoints
    add up)."""
    y = np.asarray(y)
    ndim = y.ndim
    axis = axis % ndim - ndim  # (from the end: g has more axes than y where x has)
    after = (slice(None),) * (-1 - axis)
    pairs = y[(Ellipsis, slice(1, None)) + after] + y[(Ellipsis, slice(None, -1)) + after]
    steps_bar = np.expand_dims(g, axis) * 0.5 * pairs
    x = np.asarray(x)
    if x.ndim == 1:
        steps_bar = np.sum(steps_bar, axis=tuple(i for i in range(-steps_bar.ndim, 0) if i != axis))
        return _shifted_pair(steps_bar, 0, -1.0)
    shape = list(x.shape)
    shape[axis] -= 1
    steps_bar = unbroadcast(steps_bar, np.broadcast_to(0.0, tuple(shape)))
    return _shifted_pair(steps_bar, axis, -1.0)


def _interp_segments(x, xp):
    """The segment of `xp` each point of `x` is interpolated on, as the index of its
    left end (the segment to the right of a knot, the last one at the last knot: as
    ``jax.numpy.interp`` picks it), and one over each segment's length (0 for two
    equal knots, between which the value does not move with x), one per segment."""
    j = np.clip(np.searchsorted(xp, x, "right") - 1, 0, len(xp) - 2)
    steps = np.diff(xp)
    flat = steps == 0
    return j, np.where(flat, 0.0, 1.0 / np.where(flat, 1.0, steps)), flat


def _inside(x, xp):
    """Whether each point of `x` is within ``[xp[0], xp[-1]]``."""
    return (x >= xp[0]) & (x <= xp[-1])


def interp_x_bar(g, x, xp, fp):
    """Adjoint in `x` of ``np.interp(x, xp, fp)``: `g` times the slope of the segment
    each point is on; zero outside ``[xp[0], xp[-1]]``, where the value is a constant,
    and between two equal knots."""
    xp, fp = np.asarray(xp), np.asarray(fp)
    if len(xp) < 2:
        return g * np.zeros(np.shape(x))
    j, inverse, _ = _interp_segments(x, xp)
    return g * ((np.diff(fp) * inverse)[j] * _inside(x, xp))


def interp_fp_bar(g, x, xp, left=None, right=None):
    """Adjoint in `fp` of ``np.interp(x, xp, fp, left, right)``: each point's `g`
    shared between the two ends of its segment by their linear weights (all of it to
    the right one between two equal knots, as NumPy's value there is), all of it to
    the first (last) value for a point left (right) of `xp` unless `left` (`right`)
    gives its value there."""
    xp = np.asarray(xp)
    g = np.broadcast_to(g, np.shape(x))
    if left is not None:
        g = np.where(x < xp[0], 0.0, g)
    if right is not None:
        g = np.where(x > xp[-1], 0.0, g)
    if len(xp) < 2:
        return np.full(1, np.sum(g))
    j, inverse, flat = _interp_segments(x, xp)
    t = np.clip((x - xp[j]) * inverse[j], 0.0, 1.0)
    if flat.any():
        t = np.where(flat[j], 1.0, t)
    j, right_part = np.ravel(j), np.ravel(g * t)
    return (np.bincount(j, np.ravel(g) - right_part, len(xp))
            + np.bincount(j + 1, right_part, len(xp)))


def interp_fp_bar_dx(g, x, xp, x_dot):
    """The tangent of `interp_fp_bar` as `x` moves along `x_dot`: each point's
    weights move by ``x_dot / step`` between the ends of its segment (within
    ``[xp[0], xp[-1]]``: past it they are constant)."""
    xp = np.asarray(xp)
    if len(xp) < 2:
        return np.zeros(1)
    j, inverse, _ = _interp_segments(x, xp)
    moved = np.ravel(g * x_dot * inverse[j] * _inside(x, xp))
    j = np.ravel(j)
    return np.bincount(j + 1, moved, len(xp)) - np.bincount(j, moved, len(xp))


_EINSUM_PLANS: dict = {}


def einsum_bar(subscripts, i, g, x, *others):
    """Adjoint of operand `i`, `x`, of ``np.einsum(subscripts, *operands)`` (`others`
    the other operands, in order): one einsum of `g` and the others (with ones for
    the labels only `x` has), put on the diagonal where `x` repeats a label, summed
    where it broadcast."""
    operands = others[:i] + (x,) + others[i:]
    key = (subscripts, i) + tuple(np.ndim(x) for x in operands)
    plan = _EINSUM_PLANS.get(key)
    if plan is None:
        plan = _EINSUM_PLANS[key] = _einsum_plan(subscripts, i, [np.ndim(x) for x in operands])
    spec, ones, distinct, full = plan
    if _other(g) and full is None:  # (einsum is not the standard's: the library's own)
        xp = _namespace(g)
        args = [g, *others] + ([xp.ones_like(x)] if ones else [])
        got = xp.einsum(spec, *args)
        axes = tuple(a for a, n in enumerate(np.shape(x)) if n == 1 and got.shape[a] != 1)
        return xp.sum(got, axis=axes, keepdims=True) if axes else got
    args = [g, *others]
    if ones:
        args.append(np.ones(np.shape(x), dtype=np.result_type(np.asarray(x), g)))
    got = np.einsum(spec, *args)
    shape = np.shape(x)
    if full is not None:  # (a label repeated: got goes on the diagonal)
        x_bar = np.zeros(shape, dtype=got.dtype)
        np.einsum(full, x_bar)[...] = got
        return x_bar
    if got.shape != shape:  # (broadcast axes of length 1)
        got = np.sum(got, axis=tuple(a for a, n in enumerate(shape) if n == 1 and got.shape[a] != 1),
                     keepdims=True)
    return got


def _einsum_plan(subscripts, i, ndims):
    """How `einsum_bar` works out operand `i`'s adjoint, made once per subscripts and
    ranks: ``(subscripts, ones, distinct, full)``."""
    text = subscripts.replace(" ", "")
    inputs, arrow, output = text.partition("->")
    parts = inputs.split(",")
    letters = set(text) - set(",->.")
    free = iter(c for c in "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz" if c not in letters)
    broadcast = max((n - len(p.replace("...", "")) for p, n in zip(parts, ndims) if "..." in p),
                    default=0)
    dots = "".join(next(free) for _ in range(broadcast))
    parts = [p.replace("...", dots[len(dots) - (n - len(p.replace("...", ""))):])
             for p, n in zip(parts, ndims)]
    if not arrow:
        counts = "".join(parts)
        output = dots + "".join(sorted(c for c in set(counts) if counts.count(c) == 1
                                       and c not in dots))
    else:
        output = output.replace("...", dots)
    mine = parts[i]
    others = [p for j, p in enumerate(parts) if j != i]
    distinct = "".join(dict.fromkeys(mine))
    seen = set(output) | set("".join(others))
    ones = any(c not in seen for c in distinct)
    spec = ",".join([output] + others + ([mine] if ones else [])) + "->" + distinct
    full = f"{mine}->{distinct}" if len(distinct) < len(mine) else None
    return spec, ones, distinct, full


def digamma(x):
    """ψ(x), the derivative of ``math.lgamma`` (and of ``math.gamma`` over its value),
    for a number: the reflection ψ(x) = ψ(1 - x) - π / tan(πx) below 1/2, the
    recurrence ψ(x) = ψ(x + 1) - 1/x up to 10, then the asymptotic series (to
    x**-14: below 1e-16 there). NaN at the poles 0, -1, -2, ..."""
    if x <= 0.0 and x == math.floor(x):
        return math.nan
    if x < 0.5:
        return digamma(1.0 - x) - math.pi / math.tan(math.pi * x)
    acc = 0.0
    while x < 10.0:
        acc -= 1.0 / x
        x += 1.0
    z = 1.0 / (x * x)
    tail = z * (1 / 12 - z * (1 / 120 - z * (1 / 252 - z * (1 / 240 - z * (
        1 / 132 - z * (691 / 32760 - z / 12))))))
    return acc + math.log(x) - 0.5 / x - tail


def trigamma(x):
    """ψ'(x), the derivative of `digamma` (its forward rule's), for a number: the
    reflection ψ'(x) = π² / sin²(πx) - ψ'(1 - x) below 1/2, the recurrence
    ψ'(x) = ψ'(x + 1) + 1/x² up to 10, then the asymptotic series. NaN at the poles."""
    if x <= 0.0 and x == math.floor(x):
        return math.nan
    if x < 0.5:
        return (math.pi / math.sin(math.pi * x)) ** 2 - trigamma(1.0 - x)
    acc = 0.0
    while x < 10.0:
        acc += 1.0 / (x * x)
        x += 1.0
    w = 1.0 / x
    z = w * w
    tail = w * z * (1 / 6 - z * (1 / 30 - z * (1 / 42 - z * (1 / 30 - z * (
        5 / 66 - z * (691 / 2730 - z * 7 / 6))))))
    return acc + w + 0.5 * z + tail
