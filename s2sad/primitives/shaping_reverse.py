"""Reverse-mode rules of NumPy's functions that reorder, pick, pad, repeat and
contract arrays: cumulative products and differences (``np.gradient`` among them),
sorting and picking (``np.sort``, ``np.take``, ``np.take_along_axis``, ``np.roll``, the
flips), padding and repetition
(``np.pad``, ``np.tile``, ``np.repeat``), products (``np.kron``, ``np.tensordot``,
``np.einsum``, the 1-D ``np.convolve`` and ``np.correlate``, ``np.polyval``),
diagonals and triangles, the order statistics and weighted or NaN-skipping means,
``np.atleast_1d/2d/3d``, and the functions added for user code that called them:
``np.broadcast_to``, ``np.column_stack``, ``np.dstack``, ``np.append``,
``np.insert``, ``np.delete``, ``np.compress``, ``np.select``, ``np.ediff1d``,
``np.ptp``, the other NaN-skipping reductions (``np.nanmax``, ``np.nanvar``...),
``np.cov`` and ``np.corrcoef``.

The form of `reverse` (and of its `rule`), paired with `shaping_forward` as `reverse`
is with `forward` (the dot-product test): same keys, order and banners. Where an
adjoint is a scatter, a crop or a sum of repeated parts, the runtime helper that does
it (`take_bar`, `unpad`, `untile`, ...) has a forward rule (`primitives.helpers`),
so Hessians go through it.

Conventions: ``np.sort`` and ``np.median`` give each element the adjoint of the
place it was sorted to (ties in the order ``np.argsort`` gives them); the median of
an even count gives half to each middle element; ``np.quantile`` and
``np.percentile`` (method 'linear') give the adjoint times the interpolation weights
to the one or two order statistics each q lies between (ties in the order a stable
sort keeps them), and no derivative in q. ``np.cumprod`` is right at zeros
too (no division by an element that is zero). ``np.pad`` differentiates
``mode="constant"`` with a literal ``constant_values`` only (`pad_modes`).
``np.take_along_axis`` adds the adjoints of an index read twice. ``np.convolve`` and
``np.correlate`` take their mode as one of the three names, written in the call
(`convolve_modes`); their adjoints follow NumPy's centring of 'same', which for
``np.correlate`` depends on which input is the longer. They are of real arrays.
The NaN-skipping functions give a NaN element the adjoint 0, as JAX does.
``np.insert`` and ``np.delete`` ask NumPy itself where each element went (an
index array inserted or deleted as the values were), so any ``obj`` and any
broadcasting of the values is followed; ``np.select``'s conditions, like
``np.compress``'s, carry no derivative.
"""

import numpy as np

from ..runtime import (cross_a_bar, cross_b_bar, cumprod_bar, diag_bar, diagonal_bar, diff_bar, einsum_bar,
                       extreme_bar, gradient_bar, pieces, prod_others, select_bar, stack_pieces,
                       interp_fp_bar, interp_x_bar, kron_a_bar, kron_b_bar, median_bar, quantile_bar,
                       take_along_axis_bar, take_bar, tensordot_a_bar, tensordot_b_bar, trapezoid_bar,
                       trapezoid_x_bar, unbroadcast, unpad, unreduce, unrepeat, unsort, unsplit, untile)
from .registry import REVERSE, add_rule
from .templates import NOT_LITERAL

PAD_MODES = ("edge", "linear_ramp", "maximum", "mean", "median", "minimum", "reflect",
             "symmetric", "wrap", "empty")


def rule(key, when=None, static=None, positional=None, lists=(), no_derivative=()):
    """`reverse.rule`, how many options a call may give by position
    (`Rule.positional`: ``np.average(x, 0, w)`` gives weights third, not keepdims),
    and the inputs it gives no derivative of (`Rule.no_derivative`: ``np.interp``'s
    knots)."""

    def register(func):
        add_rule(REVERSE, "reverse", key, func, when, static, lists)
        for made in REVERSE[key]:  # (the rule, and its variant for lists)
            if made.func is func or made.func.__name__ == f"{func.__name__}_of_list":
                made.positional, made.no_derivative = positional, no_derivative
        return func

    return register


def pad_modes(mode="constant", constant_values=0):
    """The `Rule.static` check of ``np.pad``'s rules: why a call is refused."""
    if mode is NOT_LITERAL or mode != "constant":
        given = "a mode that is not a literal" if mode is NOT_LITERAL else f"mode={mode!r}"
        return (f"with {given} (s2sad differentiates np.pad's mode='constant' only, not "
                f"{', '.join(repr(m) for m in PAD_MODES)})")
    if constant_values is NOT_LITERAL or not isinstance(constant_values, (int, float)):
        return ("with constant_values= other than a literal number (s2sad does not "
                "differentiate the padding value: write np.pad(x - c, width) + c)")
    return None


def convolve_modes(mode=None):
    """The `Rule.static` check of ``np.convolve``'s and ``np.correlate``'s rules: the
    mode is one of NumPy's three names, written in the call (NumPy takes 0, 1 and 2
    for them too)."""
    if mode in ("full", "valid", "same"):
        return None
    given = "a mode that is not a literal" if mode is NOT_LITERAL else f"mode={mode!r}"
    return f"with {given} (s2sad differentiates mode='full', 'valid' or 'same', written in the call)"


def meshgrid_refusal(indexing="xy", sparse=False, copy=True):
    """The `Rule.static` check of ``np.meshgrid``'s rules: full grids of two vectors
    only (a third array takes the place of `indexing`)."""
    if not (isinstance(indexing, str) and indexing in ("xy", "ij")):
        return ("of more than two arrays, or with an indexing= other than 'xy' or 'ij' "
                "(s2sad differentiates the grids of two vectors)")
    return None if sparse is False else (
        "with sparse= (s2sad differentiates the full grids: x[None, :] and y[:, None] "
        "are the sparse ones, written out)")


def quantile_methods(axis=None, method="linear", keepdims=False):
    """The `Rule.static` check of ``np.quantile``'s and ``np.percentile``'s rules."""
    return None if method == "linear" else (
        f"with {'a method that is not a literal' if method is NOT_LITERAL else f'method={method!r}'}"
        " (s2sad differentiates method='linear', the default, written in the call or left out)")


def gradient_refusal(axis=None, edge_order=1):
    """The `Rule.static` check of ``np.gradient``'s rules: edge_order 1, the default."""
    return None if edge_order == 1 else (
        "with edge_order= other than 1 (s2sad differentiates the default, one-sided "
        "differences at the ends)")


def gradient_axis(axis=None, edge_order=1):
    """`gradient_refusal`, and of an array of more axes one `axis`, an int (without
    it NumPy gives a list of arrays)."""
    return gradient_refusal(axis, edge_order) or (
        None if axis is NOT_LITERAL or type(axis) is int else
        "of an array that may have several axes without axis= naming one of them")


def interp_refusal(period=None):
    """The `Rule.static` check of ``np.interp``'s rules: no period."""
    return None if period is None else (
        "with period= (s2sad differentiates np.interp without a period: take x % period "
        "and extend xp and fp by a point past each end yourself)")


# np.trapezoid, and np.trapz, its older name, where NumPy still has it
TRAPEZOIDS = (np.trapezoid,) + ((np.trapz,) if hasattr(np, "trapz") else ())


def split_refusal(indices_or_sections=None, axis=0):
    """The `Rule.static` check of ``np.split``'s rules and its kin's: where to cut is
    given (an int or a sequence of ints, literal or not: a count not known where the
    derivative is built makes a list of pieces)."""
    return "without indices_or_sections" if indices_or_sections is None else None


def ediff1d_refusal(to_end=None, to_begin=None):
    """The `Rule.static` check of ``np.ediff1d``'s rules: no values added at the ends."""
    return None if to_end is None and to_begin is None else (
        "with to_end= or to_begin= (s2sad differentiates the differences alone: join "
        "the values to them with np.concatenate)")


def cov_refusal(rowvar=True, bias=False, ddof=None):
    """The `Rule.static` check of ``np.cov``'s rules: options written in the call."""
    given = {"rowvar": rowvar, "bias": bias, "ddof": ddof}
    unknown = [name for name, value in given.items() if value is NOT_LITERAL]
    return None if not unknown else (
        f"with {', '.join(unknown)}= not a literal (s2sad needs them written in the call)")


# ------------------------------------------------ numpy: cumulative and differences


@rule(np.cumprod, positional=1, lists=("x",))
def np_cumprod(x, *, axis=None, out, out_bar):
    # (no division by an element that is zero: see cumprod_bar)
    return cumprod_bar(out_bar, x, out, axis)


@rule(np.diff, positional=2)
def np_diff(x, *, n=1, axis=-1, out, out_bar):
    return diff_bar(out_bar, x, n, axis)


@rule(np.ediff1d, static=ediff1d_refusal, positional=2, lists=("ary",))
def np_ediff1d(ary, *, to_end=None, to_begin=None, out, out_bar):
    # (np.diff of ary flattened)
    return np.reshape(diff_bar(out_bar, np.ravel(ary), 1, -1), np.shape(ary))


@rule(np.gradient, when=("1d",), static=gradient_refusal, positional=0)
def np_gradient_1d(f, *, axis=None, edge_order=1, out, out_bar):
    # (a linear map: its transpose, edges included; see gradient_bar)
    return gradient_bar(out_bar, f) if axis is None else gradient_bar(out_bar, f, 1.0, axis)


@rule(np.gradient, when=("1d", "scalar"), static=gradient_refusal, positional=0)
def np_gradient_1d_dx(f, dx, *, axis=None, edge_order=1, out, out_bar):
    # (a spacing dx: the result is a multiple of 1 / dx. An array in its place is the
    # points' coordinates, which no rule takes)
    return gradient_bar(out_bar, f, dx, axis), -np.sum(out_bar * out) / dx


@rule(np.gradient, static=gradient_axis, positional=0)
def np_gradient(f, *, axis=None, edge_order=1, out, out_bar):
    # (more axes: along the one `axis` names; without it NumPy gives a list, one
    # array per axis, which no rule takes)
    return gradient_bar(out_bar, f, 1.0, axis)


@rule(np.gradient, when=("any", "scalar"), static=gradient_axis, positional=0)
def np_gradient_dx(f, dx, *, axis=None, edge_order=1, out, out_bar):
    return gradient_bar(out_bar, f, dx, axis), -np.sum(out_bar * out) / dx


# ------------------------------------------------------ numpy: sorting and picking


@rule(np.sort, positional=1, lists=("x",))
def np_sort(x, *, axis=-1, kind=None, out, out_bar):
    # (each element gets the adjoint of the place it was sorted to)
    return unsort(out_bar, x, np.argsort(x, axis), axis)


@rule(np.partition, positional=2)
def np_partition(a, kth, *, axis=-1, kind="introselect", out, out_bar):
    # (as np.sort's: through the permutation np.argpartition gives, which is the one
    # np.partition applies)
    return unsort(out_bar, a, np.argpartition(a, kth, axis), axis), None


@rule(np.take, positional=1)
def np_take(a, indices, *, axis=None, out, out_bar):
    return take_bar(out_bar, a, indices, axis), None


@rule(np.take_along_axis, positional=1)
def np_take_along_axis(arr, indices, *, axis=-1, out, out_bar):
    # (a scatter that adds: an index read twice gets both adjoints)
    return take_along_axis_bar(out_bar, arr, indices, axis), None


@rule(np.roll, when=("array", "int"), positional=1)
def np_roll_by_int(a, shift, *, axis=None, out, out_bar):
    return np.roll(out_bar, -shift, axis), None


@rule(np.roll, positional=1)
def np_roll(a, shift, *, axis=None, out, out_bar):
    # (shifts for several axes: each one back)
    return np.roll(out_bar, np.negative(shift), axis), None


@rule(np.flip)
def np_flip(m, *, axis=None, out, out_bar):
    return np.flip(out_bar, axis)


@rule(np.fliplr)
def np_fliplr(m, out, out_bar):
    return np.fliplr(out_bar)


@rule(np.flipud)
def np_flipud(m, out, out_bar):
    return np.flipud(out_bar)


@rule(np.rot90)
def np_rot90(m, *, k=1, axes=(0, 1), out, out_bar):
    return np.rot90(out_bar, -k, axes)


# ------------------------------------------------------------ numpy: splitting
# (a list of pieces: the adjoint joins theirs, zeros for a piece nothing reads)


@rule(np.split, static=split_refusal)
def np_split(ary, *, indices_or_sections=None, axis=0, out, out_bar):
    return unsplit(out_bar, out, axis)


@rule(np.array_split, static=split_refusal)
def np_array_split(ary, *, indices_or_sections=None, axis=0, out, out_bar):
    return unsplit(out_bar, out, axis)


@rule(np.vsplit, static=split_refusal)
def np_vsplit(ary, *, indices_or_sections=None, out, out_bar):
    return unsplit(out_bar, out, 0)


@rule(np.hsplit, static=split_refusal)
def np_hsplit(ary, *, indices_or_sections=None, out, out_bar):
    # (of a vector: along its only axis)
    return unsplit(out_bar, out, 1 if np.ndim(ary) > 1 else 0)


@rule(np.dsplit, static=split_refusal)
def np_dsplit(ary, *, indices_or_sections=None, out, out_bar):
    return unsplit(out_bar, out, 2)


# ------------------------------------------------- numpy: padding and repetition


@rule(np.meshgrid, when=("1d", "1d"), static=meshgrid_refusal)
def np_meshgrid(x, y, *, indexing="xy", sparse=False, copy=True, out, out_bar):
    # (X repeats x down its rows with 'xy', across its columns with 'ij'; Y repeats y
    # the other way: each adjoint sums its grid's over the axis it repeats along. A
    # grid nothing read has the adjoint 0.0, which unbroadcast spreads to zeros)
    return (unbroadcast(out_bar[0] if indexing == "xy" else np.transpose(out_bar[0]), x),
            unbroadcast(np.transpose(out_bar[1]) if indexing == "xy" else out_bar[1], y))


@rule(np.pad, static=pad_modes, positional=1)
def np_pad(array, pad_width, *, mode="constant", constant_values=0, out, out_bar):
    return unpad(out_bar, pad_width), None


@rule(np.tile)
def np_tile(a, reps, out, out_bar):
    return untile(out_bar, a), None


@rule(np.repeat)
def np_repeat(a, repeats, *, axis=None, out, out_bar):
    return unrepeat(out_bar, a, repeats, axis), None


@rule(np.broadcast_to)
def np_broadcast_to(array, shape, out, out_bar):
    return unbroadcast(out_bar, array), None


@rule(np.column_stack)
def np_column_stack(tup, out, out_bar):
    # (a part of fewer than two axes is one column)
    return stack_pieces(out_bar, tup, 1)


@rule(np.dstack)
def np_dstack(tup, out, out_bar):
    # (a part of fewer than three axes is one slice along the third)
    return stack_pieces(out_bar, tup, 2)


@rule(np.append, positional=1)
def np_append(arr, values, *, axis=None, out, out_bar):
    # (axis=None: both flattened first)
    parts = pieces(out_bar, [arr, values], axis)
    return parts[0], parts[1]


@rule(np.insert, positional=1, no_derivative=("obj",))
def np_insert(arr, obj, values, *, axis=None, out, out_bar):
    # (np.insert itself places the flat index of each of values' elements where it
    # put that element, -1 where arr's are: arr's adjoint is the rest of out_bar in
    # order, values' the sum of out_bar over the places each element went to, as
    # NumPy broadcast it)
    placed = np.insert(np.full(np.shape(arr), -1), obj,
                       np.reshape(np.arange(np.size(values)), np.shape(values)), axis)
    return (np.reshape(out_bar[placed < 0], np.shape(arr)), None,
            np.reshape(np.bincount(placed[placed >= 0], out_bar[placed >= 0], np.size(values)),
                       np.shape(values)))


@rule(np.delete, positional=1, no_derivative=("obj",))
def np_delete(arr, obj, *, axis=None, out, out_bar):
    # (each kept element's flat index in arr, deleted as arr was: out_bar goes back there)
    return take_bar(out_bar, arr, np.delete(np.reshape(np.arange(np.size(arr)), np.shape(arr)),
                                            obj, axis)), None


@rule(np.compress, positional=1)
def np_compress(condition, a, *, axis=None, out, out_bar):
    # (np.take of the indices where the condition holds)
    return None, take_bar(out_bar, a, np.flatnonzero(condition), axis)


@rule(np.select, no_derivative=("condlist",))
def np_select(condlist, choicelist, default=0, *, out, out_bar):
    # (each element's adjoint goes to the choice of the first condition that holds
    # there, or to the default where none does)
    return (None, select_bar(out_bar, condlist, choicelist),
            unbroadcast(np.select(condlist, [0.0] * len(condlist), out_bar), default))


@rule(np.atleast_1d)
def np_atleast_1d(x, out, out_bar):
    return np.reshape(out_bar, np.shape(x))


@rule(np.atleast_2d)
def np_atleast_2d(x, out, out_bar):
    return np.reshape(out_bar, np.shape(x))


@rule(np.atleast_3d)
def np_atleast_3d(x, out, out_bar):
    return np.reshape(out_bar, np.shape(x))


# ------------------------------------------------------ numpy: products and sums


@rule(np.kron, when=("1d", "1d"))
def np_kron_1d_1d(x, y, out, out_bar):
    g = np.reshape(out_bar, (np.size(x), np.size(y)))
    return g @ y, x @ g


@rule(np.kron, when=("2d", "2d"))
def np_kron_2d_2d(x, y, out, out_bar):
    # (out[i p + k, j q + l] = x[i, j] y[k, l]: out_bar as (i, k, j, l))
    g = np.reshape(out_bar, (x.shape[0], y.shape[0], x.shape[1], y.shape[1]))
    return np.einsum("ikjl,kl->ij", g, y), np.einsum("ikjl,ij->kl", g, x)


@rule(np.kron)
def np_kron(x, y, out, out_bar):
    # (of other ranks: out_bar with an axis per axis of x and of y, summed against the
    # other operand)
    return kron_a_bar(out_bar, x, y), kron_b_bar(out_bar, x, y)


@rule(np.tensordot)
def np_tensordot(a, b, *, axes=2, out, out_bar):
    return tensordot_a_bar(out_bar, a, b, axes), tensordot_b_bar(out_bar, a, b, axes)


@rule(np.cross)
def np_cross(a, b, *, axisa=-1, axisb=-1, axisc=-1, axis=None, out, out_bar):
    # (b x g and g x a, of 3-vectors; `axis` given stands for all three; literal
    # default axes fold to the short call)
    return (cross_a_bar(out_bar, a, b)
            if axis is None and axisa == -1 and axisb == -1 and axisc == -1 else
            cross_a_bar(out_bar, a, b, axisa if axis is None else axis,
                        axisb if axis is None else axis, axisc if axis is None else axis),
            cross_b_bar(out_bar, a, b)
            if axis is None and axisa == -1 and axisb == -1 and axisc == -1 else
            cross_b_bar(out_bar, a, b, axisa if axis is None else axis,
                        axisb if axis is None else axis, axisc if axis is None else axis))


@rule(np.einsum, positional=0)
def np_einsum_1(subscripts, x, *, optimize=False, out, out_bar):
    return None, einsum_bar(subscripts, 0, out_bar, x)


@rule(np.einsum, positional=0)
def np_einsum_2(subscripts, x, y, *, optimize=False, out, out_bar):
    return None, einsum_bar(subscripts, 0, out_bar, x, y), einsum_bar(subscripts, 1, out_bar, y, x)


@rule(np.einsum, positional=0)
def np_einsum_3(subscripts, x, y, z, *, optimize=False, out, out_bar):
    return (None, einsum_bar(subscripts, 0, out_bar, x, y, z),
            einsum_bar(subscripts, 1, out_bar, y, x, z), einsum_bar(subscripts, 2, out_bar, z, x, y))


@rule(np.einsum, positional=0)
def np_einsum_4(subscripts, w, x, y, z, *, optimize=False, out, out_bar):
    return (None, einsum_bar(subscripts, 0, out_bar, w, x, y, z),
            einsum_bar(subscripts, 1, out_bar, x, w, y, z),
            einsum_bar(subscripts, 2, out_bar, y, w, x, z),
            einsum_bar(subscripts, 3, out_bar, z, w, x, y))


@rule(np.polyval, lists=("p",))
def np_polyval(p, x, out, out_bar):
    # (out = sum_k p[k] x ** (n - 1 - k): p's adjoint sums out_bar times x's powers
    # over x's elements; x's is the derivative polynomial's value. Written with
    # functions that have rules, so second derivatives go through them)
    return (np.ravel(out_bar) @ np.reshape(x, (-1, 1)) ** np.arange(np.size(p) - 1, -1, -1),
            out_bar * np.polyval(p[:-1] * np.arange(np.size(p) - 1, 0, -1), x))


@rule(np.convolve, static=convolve_modes, positional=1)
def np_convolve(a, v, *, mode="full", out, out_bar):
    # (the full convolution's adjoint in each input is the valid correlation of its
    # adjoint with the other; 'valid' and 'same' keep a window of the full result,
    # so their adjoint is padded back to full length first: by min(len) - 1 on both
    # sides for 'valid', around the window NumPy centres for 'same')
    k = min(np.size(a), np.size(v)) - 1
    g = out_bar if mode == "full" else np.pad(
        out_bar, (k, k) if mode == "valid" else (k // 2, k - k // 2))
    return np.correlate(g, v, "valid"), np.correlate(g, a, "valid")


@rule(np.correlate, static=convolve_modes, positional=1)
def np_correlate(a, v, *, mode="valid", out, out_bar):
    # (np.convolve(a, np.flip(v))'s adjoints, v's flipped back: np.correlate(a, g)
    # with a the shorter is np.correlate(g, a) reversed. For 'same' NumPy centres the
    # window one place later where a is the shorter)
    k = min(np.size(a), np.size(v)) - 1
    g = out_bar if mode == "full" else np.pad(out_bar, (k, k) if mode == "valid" else (
        (k // 2, k - k // 2) if np.size(a) >= np.size(v) else (k - k // 2, k // 2)))
    return np.convolve(g, v, "valid"), np.correlate(a, g, "valid")


# --------------------------------------------------- numpy: diagonals and triangles


@rule(np.diag, when=("1d",))
def np_diag_1d(v, *, k=0, out, out_bar):
    # (`k` by keyword, as the forward rules take it: a Hessian differentiates this)
    return np.diag(out_bar, k=k)


@rule(np.diag, when=("2d",))
def np_diag_2d(v, *, k=0, out, out_bar):
    return diag_bar(out_bar, v, k=k)


@rule(np.diag, when=("1d", "int"))
def np_diag_1d_k(v, k, *, out, out_bar):  # (``np.diag(x, 1)``: `k` by position)
    return np.diag(out_bar, k=k), None


@rule(np.diag, when=("2d", "int"))
def np_diag_2d_k(v, k, *, out, out_bar):
    return diag_bar(out_bar, v, k=k), None


@rule(np.diagonal)
def np_diagonal(a, *, offset=0, axis1=0, axis2=1, out, out_bar):
    return diagonal_bar(out_bar, a, offset, axis1, axis2)


@rule(np.triu, when=("2d",))
def np_triu_2d(m, *, k=0, out, out_bar):
    return np.triu(out_bar, k)


@rule(np.triu, when=("1d",))
def np_triu_1d(m, *, k=0, out, out_bar):
    # (a vector is the row of every line of the square it makes)
    return np.sum(np.triu(out_bar, k), axis=0)


@rule(np.triu)
def np_triu(m, *, k=0, out, out_bar):
    return unbroadcast(np.triu(out_bar, k), m)


@rule(np.tril, when=("2d",))
def np_tril_2d(m, *, k=0, out, out_bar):
    return np.tril(out_bar, k)


@rule(np.tril, when=("1d",))
def np_tril_1d(m, *, k=0, out, out_bar):
    return np.sum(np.tril(out_bar, k), axis=0)


@rule(np.tril)
def np_tril(m, *, k=0, out, out_bar):
    return unbroadcast(np.tril(out_bar, k), m)


# --------------------------------------------------- numpy: statistics and nan-sums


@rule(np.median, positional=1)
def np_median(x, *, axis=None, keepdims=False, out, out_bar):
    return median_bar(out_bar, x, axis, keepdims)


@rule(np.quantile, positional=1, static=quantile_methods, no_derivative=("q",))
def np_quantile(a, q, *, axis=None, method="linear", keepdims=False, out, out_bar):
    # (the one or two order statistics each q lies between get out_bar times their
    # interpolation weights; ties in the order a stable sort keeps them)
    return quantile_bar(out_bar, a, q, axis, keepdims), None


@rule(np.percentile, positional=1, static=quantile_methods, no_derivative=("q",))
def np_percentile(a, q, *, axis=None, method="linear", keepdims=False, out, out_bar):
    return quantile_bar(out_bar, a, q, axis, keepdims, 100.0), None


@rule(np.average, positional=1)
def np_average(a, *, axis=None, keepdims=False, out, out_bar):
    return unreduce(out_bar * (np.size(out) / np.size(a)), a, axis, keepdims)


@rule(np.average, positional=0)
def np_average_weighted(a, weights, *, axis=None, keepdims=False, out, out_bar):
    # (out = sum(a w) / sum(w): a's adjoint is w / sum(w), w's (a - out) / sum(w);
    # weights of one axis (1-D, along `axis`) get axes of length 1 after it, and are
    # summed whole. A rule after the one without weights: np.average(x, 0) gives the
    # axis)
    w = np.reshape(weights, np.shape(weights) + (1,) * (
        (np.ndim(a) - np.ndim(weights)) and (np.ndim(a) - 1 - axis % np.ndim(a))))
    total = np.sum(w, axis if np.ndim(weights) == np.ndim(a) else None, keepdims=True)
    g = unreduce(out_bar, a, axis, keepdims) / total
    return g * w, np.reshape(unbroadcast(g * (a - unreduce(out, a, axis, keepdims)), w),
                             np.shape(weights))


@rule(np.nansum, positional=1)
def np_nansum(x, *, axis=None, keepdims=False, out, out_bar):
    return np.where(np.isnan(x), 0.0, unreduce(out_bar, x, axis, keepdims))


@rule(np.nanmean, positional=1)
def np_nanmean(x, *, axis=None, keepdims=False, out, out_bar):
    counted = np.where(np.isnan(x), 0.0, 1.0)
    return counted * unreduce(out_bar / np.sum(counted, axis, keepdims=keepdims), x, axis, keepdims)


@rule(np.nanmax, positional=1)
def np_nanmax(x, *, axis=None, keepdims=False, out, out_bar):
    # (as np.max's, among the numbers: a NaN is never equal to the maximum, and gets
    # 0 in a slice of NaNs only too, where the maximum is NaN)
    return np.where(np.isnan(x), 0.0, extreme_bar(out_bar, x, out, axis, keepdims))


@rule(np.nanmin, positional=1)
def np_nanmin(x, *, axis=None, keepdims=False, out, out_bar):
    return np.where(np.isnan(x), 0.0, extreme_bar(out_bar, x, out, axis, keepdims))


@rule(np.ptp, positional=1)
def np_ptp(x, *, axis=None, keepdims=False, out, out_bar):
    # (the maximum's adjoint less the minimum's, ties shared as np.max's and np.min's)
    return (extreme_bar(out_bar, x, np.max(x, axis=axis, keepdims=keepdims), axis, keepdims)
            - extreme_bar(out_bar, x, np.min(x, axis=axis, keepdims=keepdims), axis, keepdims))


@rule(np.nanprod, positional=1)
def np_nanprod(x, *, axis=None, keepdims=False, out, out_bar):
    # (np.prod's with a NaN as 1, which gets no adjoint)
    return np.where(np.isnan(x), 0.0, unreduce(out_bar, x, axis, keepdims)
                    * prod_others(np.where(np.isnan(x), 1.0, x), axis))


@rule(np.nancumsum, positional=1)
def np_nancumsum(x, *, axis=None, out, out_bar):
    return np.where(np.isnan(x), 0.0, np.reshape(
        np.flip(np.cumsum(np.flip(out_bar, axis), axis), axis), np.shape(x)))


@rule(np.nanvar, positional=1)
def np_nanvar(x, *, axis=None, keepdims=False, ddof=0, out, out_bar):
    # (np.var's over the numbers: their count less ddof, their mean)
    count = np.sum(np.where(np.isnan(x), 0.0, 1.0), axis, keepdims=True) - ddof
    return np.where(np.isnan(x), 0.0, unreduce(out_bar, x, axis, keepdims) * 2.0
                    * (x - np.nanmean(x, axis, keepdims=True)) / count)


@rule(np.nanstd, positional=1)
def np_nanstd(x, *, axis=None, keepdims=False, ddof=0, out, out_bar):
    # (a zero deviation: derivative zero, as np.std's)
    count = np.sum(np.where(np.isnan(x), 0.0, 1.0), axis, keepdims=True) - ddof
    return np.where(np.isnan(x), 0.0, unreduce(out_bar / np.where(out == 0, 1.0, out), x, axis,
                                               keepdims) * (x - np.nanmean(x, axis, keepdims=True)) / count)


@rule(np.cov, static=cov_refusal, positional=0)
def np_cov(m, *, rowvar=True, bias=False, ddof=None, out, out_bar):
    # (one variable per row of xs, m as NumPy reads it: with rowvar=False, m's
    # columns, but for a row, whose columns NumPy 1 took as one variable and NumPy 2
    # as several, as out's size tells; C = xc xc^T / n of the centred rows: xs's
    # adjoint is (G + G^T) xc / n, centred already)
    given = np.atleast_2d(m)
    turned = not rowvar and np.ndim(m) == 2 and np.size(out) == np.shape(given)[1] ** 2
    xs = given.T if turned else given
    xc = xs - np.mean(xs, 1, keepdims=True)
    g = np.reshape(out_bar, (np.shape(xs)[0], np.shape(xs)[0]))
    xs_bar = (g + g.T) @ xc / (np.shape(xs)[1] - (ddof if ddof is not None else 0 if bias else 1))
    return np.reshape(xs_bar.T if turned else xs_bar, np.shape(m))


@rule(np.corrcoef, static=cov_refusal, positional=0)
def np_corrcoef(x, *, rowvar=True, out, out_bar):
    # (R = C / (s s^T) of C = xc xc^T, whatever its scale: C's adjoint is G / (s s^T)
    # less, on the diagonal, the sums of G R over each row and column over 2 C_ii,
    # whose part of (C_bar + C_bar^T) xc scales xc's rows)
    given = np.atleast_2d(x)
    turned = not rowvar and np.ndim(x) == 2 and np.size(out) == np.shape(given)[1] ** 2
    xs = given.T if turned else given
    xc = xs - np.mean(xs, 1, keepdims=True)
    c = np.diagonal(xc @ xc.T)
    r = np.reshape(out, (np.shape(xs)[0], np.shape(xs)[0]))
    g = np.reshape(out_bar, np.shape(r))
    gr = g * r
    gs = g / np.sqrt(np.outer(c, c))
    xs_bar = (gs + gs.T) @ xc - ((np.sum(gr, 1) + np.sum(gr, 0)) / c)[:, None] * xc
    return np.reshape(xs_bar.T if turned else xs_bar, np.shape(x))


@rule(np.sum, positional=0)
def np_sum_where(x, where, *, axis=None, keepdims=False, out, out_bar):
    # (``np.sum(x, where=mask)``, a mask given by name that carries no derivative: the
    # elements it leaves out get 0. A rule after np.sum's own, which takes np.sum(x, 0))
    return unreduce(out_bar, x, axis, keepdims) * where, None


@rule(np.mean, positional=0)
def np_mean_where(x, where, *, axis=None, keepdims=False, out, out_bar):
    # (the mean of the elements the mask keeps: each gets out_bar over their count; a
    # count of 0, whose mean NumPy gives as NaN, gives its masked elements 0)
    count = np.sum(np.broadcast_to(where, np.shape(x)), axis, keepdims=keepdims)
    return unreduce(out_bar / np.maximum(count, 1), x, axis, keepdims) * where, None


# -------------------------------------- numpy: integrals, interpolation and counts


def np_trapezoid_x(y, x, dx=1.0, *, axis=-1, out, out_bar):
    # (half the steps either side of each point; each step's adjoint the half sum of
    # the points it joins, given back to the x it is the difference of. NumPy does not
    # read dx where x is given)
    return trapezoid_bar(out_bar, y, x, dx, axis), trapezoid_x_bar(out_bar, y, x, axis), None


def np_trapezoid(y, dx=1.0, *, axis=-1, out, out_bar):
    # (out is a multiple of dx. A rule after the one with x, which takes a second
    # argument by position: here dx is by keyword, or left out)
    return (trapezoid_bar(out_bar, y, None, dx, axis),
            np.sum(out_bar * np.trapezoid(y, axis=axis)))


for _key in TRAPEZOIDS:
    rule(_key, positional=1)(np_trapezoid_x)
    rule(_key, positional=0)(np_trapezoid)


@rule(np.interp, static=interp_refusal, no_derivative=("xp",))
def np_interp(x, xp, fp, left=None, right=None, *, period=None, out, out_bar):
    # (the slope of the segment each point is on, the one right of a knot as JAX
    # picks it; fp's linear weights; a left or right value given is the value of
    # every point past that end)
    return (interp_x_bar(out_bar, x, xp, fp), None, interp_fp_bar(out_bar, x, xp, left, right),
            np.sum(out_bar * (x < xp[0])), np.sum(out_bar * (x > xp[-1])))


@rule(np.bincount, positional=1)
def np_bincount(x, weights, *, minlength=0, out, out_bar):
    # (of integers x: each weight's adjoint is its bin's)
    return None, out_bar[x]
