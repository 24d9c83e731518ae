"""Forward-mode rules of NumPy's functions that reorder, pick, pad, repeat and
contract arrays (the functions of `shaping_reverse`).

The form of `forward` (and of its `rule`), paired with `shaping_reverse` as `forward`
is with `reverse`: same keys, order and banners, and the same conventions. Most
tangents are the function itself applied to the tangent (the function is linear in
that input); ``np.sort`` and ``np.median`` move the tangent with the values, and
``np.cumprod`` is right at zeros too.
"""

import numpy as np

from ..runtime import extreme_bar, interp_x_bar, median_bar, prod_others, quantile_dot, unreduce
from .registry import FORWARD, add_rule
from .shaping_reverse import (TRAPEZOIDS, convolve_modes, cov_refusal, ediff1d_refusal, gradient_axis,
                              gradient_refusal, interp_refusal, meshgrid_refusal, pad_modes,
                              quantile_methods, split_refusal)


def rule(key, when=None, static=None, positional=None, lists=(), no_derivative=()):
    """`forward.rule`, how many options a call may give by position
    (`Rule.positional`) and the inputs it gives no derivative of
    (`Rule.no_derivative`), as in `shaping_reverse`."""

    def register(func):
        add_rule(FORWARD, "forward", key, func, when, static, lists)
        for made in FORWARD[key]:  # (the rule, and its variant for lists)
            if made.func is func or made.func.__name__ == f"{func.__name__}_of_list":
                made.positional, made.no_derivative = positional, no_derivative
        return func

    return register


# ------------------------------------------------ numpy: cumulative and differences


@rule(np.cumprod, positional=1, lists=("x", "x_dot"))
def np_cumprod(x, *, axis=None, out, x_dot):
    # before the first zero along the axis, out times the running sum of x_dot / x;
    # from it on, only the zero's own tangent counts, times the products after it
    xs = np.ravel(x) if axis is None else x
    ts = np.ravel(x_dot) if axis is None else x_dot
    zeros = np.cumsum(xs == 0, axis)
    first = (zeros == 1) & (xs == 0)
    return np.where(zeros == 0, out * np.cumsum(ts / np.where(zeros == 0, xs, 1.0), axis),
                    np.cumprod(np.where(first, 1.0, xs), axis) * np.cumsum(np.where(first, ts, 0.0), axis))


@rule(np.diff, positional=2)
def np_diff(x, *, n=1, axis=-1, out, x_dot):
    return np.diff(x_dot, n, axis)


@rule(np.ediff1d, static=ediff1d_refusal, positional=2, lists=("ary_dot",))
def np_ediff1d(ary, *, to_end=None, to_begin=None, out, ary_dot):
    return np.ediff1d(ary_dot)


@rule(np.gradient, when=("1d",), static=gradient_refusal, positional=0)
def np_gradient_1d(f, *, axis=None, edge_order=1, out, f_dot):
    return np.gradient(f_dot) if axis is None else np.gradient(f_dot, axis=axis)


@rule(np.gradient, when=("1d", "scalar"), static=gradient_refusal, positional=0)
def np_gradient_1d_dx(f, dx, *, axis=None, edge_order=1, out, f_dot, dx_dot):
    return (np.gradient(f_dot, dx) if axis is None else np.gradient(f_dot, dx, axis=axis),
            -out * (dx_dot / dx))


@rule(np.gradient, static=gradient_axis, positional=0)
def np_gradient(f, *, axis=None, edge_order=1, out, f_dot):
    return np.gradient(f_dot, axis=axis)


@rule(np.gradient, when=("any", "scalar"), static=gradient_axis, positional=0)
def np_gradient_dx(f, dx, *, axis=None, edge_order=1, out, f_dot, dx_dot):
    return np.gradient(f_dot, dx, axis=axis), -out * (dx_dot / dx)


# ------------------------------------------------------ numpy: sorting and picking


@rule(np.sort, positional=1, lists=("x", "x_dot"))
def np_sort(x, *, axis=-1, kind=None, out, x_dot):
    return np.take_along_axis(x_dot, np.argsort(x, axis), axis)


@rule(np.partition, positional=2)
def np_partition(a, kth, *, axis=-1, kind="introselect", out, a_dot, kth_dot):
    return np.take_along_axis(a_dot, np.argpartition(a, kth, axis), axis), None


@rule(np.take, positional=1)
def np_take(a, indices, *, axis=None, out, a_dot, indices_dot):
    return np.take(a_dot, indices, axis), None


@rule(np.take_along_axis, positional=1)
def np_take_along_axis(arr, indices, *, axis=-1, out, arr_dot, indices_dot):
    return np.take_along_axis(arr_dot, indices, axis), None


@rule(np.roll, when=("array", "int"), positional=1)
def np_roll_by_int(a, shift, *, axis=None, out, a_dot, shift_dot):
    return np.roll(a_dot, shift, axis), None


@rule(np.roll, positional=1)
def np_roll(a, shift, *, axis=None, out, a_dot, shift_dot):
    return np.roll(a_dot, shift, axis), None


@rule(np.flip)
def np_flip(m, *, axis=None, out, m_dot):
    return np.flip(m_dot, axis)


@rule(np.fliplr)
def np_fliplr(m, out, m_dot):
    return np.fliplr(m_dot)


@rule(np.flipud)
def np_flipud(m, out, m_dot):
    return np.flipud(m_dot)


@rule(np.rot90)
def np_rot90(m, *, k=1, axes=(0, 1), out, m_dot):
    return np.rot90(m_dot, k, axes)


# ------------------------------------------------------------ numpy: splitting
# (a list of pieces: the tangent split the same way)


@rule(np.split, static=split_refusal)
def np_split(ary, *, indices_or_sections=None, axis=0, out, ary_dot):
    return np.split(ary_dot, indices_or_sections, axis)


@rule(np.array_split, static=split_refusal)
def np_array_split(ary, *, indices_or_sections=None, axis=0, out, ary_dot):
    return np.array_split(ary_dot, indices_or_sections, axis)


@rule(np.vsplit, static=split_refusal)
def np_vsplit(ary, *, indices_or_sections=None, out, ary_dot):
    return np.vsplit(ary_dot, indices_or_sections)


@rule(np.hsplit, static=split_refusal)
def np_hsplit(ary, *, indices_or_sections=None, out, ary_dot):
    return np.hsplit(ary_dot, indices_or_sections)


@rule(np.dsplit, static=split_refusal)
def np_dsplit(ary, *, indices_or_sections=None, out, ary_dot):
    return np.dsplit(ary_dot, indices_or_sections)


# ------------------------------------------------- numpy: padding and repetition


@rule(np.meshgrid, when=("1d", "1d"), static=meshgrid_refusal)
def np_meshgrid(x, y, *, indexing="xy", sparse=False, copy=True, out, x_dot, y_dot):
    # (the two grids' tangents stacked in one array, so that x's and y's terms add up
    # and the grids are read back by index or by unpacking)
    return (np.array(np.meshgrid(x_dot, np.zeros_like(y), indexing=indexing)),
            np.array(np.meshgrid(np.zeros_like(x), y_dot, indexing=indexing)))


@rule(np.pad, static=pad_modes, positional=1)
def np_pad(array, pad_width, *, mode="constant", constant_values=0, out, array_dot,
           pad_width_dot):
    # (the padding is a constant: its tangent is zero)
    return np.pad(array_dot, pad_width), None


@rule(np.tile)
def np_tile(a, reps, out, a_dot, reps_dot):
    return np.tile(a_dot, reps), None


@rule(np.repeat)
def np_repeat(a, repeats, *, axis=None, out, a_dot, repeats_dot):
    return np.repeat(a_dot, repeats, axis), None


@rule(np.broadcast_to)
def np_broadcast_to(array, shape, out, array_dot, shape_dot):
    return np.broadcast_to(array_dot, np.shape(out)), None


@rule(np.column_stack)
def np_column_stack(tup, out, tup_dot):
    return np.column_stack(tup_dot)


@rule(np.dstack)
def np_dstack(tup, out, tup_dot):
    return np.dstack(tup_dot)


@rule(np.append, positional=1)
def np_append(arr, values, *, axis=None, out, arr_dot, values_dot):
    # (zeros in the other part's places)
    return (np.append(arr_dot, np.zeros(np.shape(values)), axis),
            np.append(np.zeros(np.shape(arr)), values_dot, axis))


@rule(np.insert, positional=1, no_derivative=("obj",))
def np_insert(arr, obj, values, *, axis=None, out, arr_dot, obj_dot, values_dot):
    return (np.insert(arr_dot, obj, np.zeros(np.shape(values)), axis), None,
            np.insert(np.zeros(np.shape(arr)), obj, values_dot, axis))


@rule(np.delete, positional=1, no_derivative=("obj",))
def np_delete(arr, obj, *, axis=None, out, arr_dot, obj_dot):
    return np.delete(arr_dot, obj, axis), None


@rule(np.compress, positional=1)
def np_compress(condition, a, *, axis=None, out, condition_dot, a_dot):
    return None, np.compress(condition, a_dot, axis)


@rule(np.select, no_derivative=("condlist",))
def np_select(condlist, choicelist, default=0, *, out, condlist_dot, choicelist_dot, default_dot):
    return (None, np.select(condlist, choicelist_dot, 0.0),
            np.select(condlist, [0.0] * len(condlist), default_dot))


@rule(np.atleast_1d)
def np_atleast_1d(x, out, x_dot):
    return np.reshape(x_dot, np.shape(out))


@rule(np.atleast_2d)
def np_atleast_2d(x, out, x_dot):
    return np.reshape(x_dot, np.shape(out))


@rule(np.atleast_3d)
def np_atleast_3d(x, out, x_dot):
    return np.reshape(x_dot, np.shape(out))


# ------------------------------------------------------ numpy: products and sums


@rule(np.kron, when=("1d", "1d"))
def np_kron_1d_1d(x, y, out, x_dot, y_dot):
    return np.kron(x_dot, y), np.kron(x, y_dot)


@rule(np.kron, when=("2d", "2d"))
def np_kron_2d_2d(x, y, out, x_dot, y_dot):
    return np.kron(x_dot, y), np.kron(x, y_dot)


@rule(np.kron)
def np_kron(x, y, out, x_dot, y_dot):
    return np.kron(x_dot, y), np.kron(x, y_dot)


@rule(np.tensordot)
def np_tensordot(a, b, *, axes=2, out, a_dot, b_dot):
    return np.tensordot(a_dot, b, axes), np.tensordot(a, b_dot, axes)


@rule(np.cross)
def np_cross(a, b, *, axisa=-1, axisb=-1, axisc=-1, axis=None, out, a_dot, b_dot):
    # (literal default axes fold to the short call)
    return (np.cross(a_dot, b) if axis is None and axisa == -1 and axisb == -1 and axisc == -1
            else np.cross(a_dot, b, axisa, axisb, axisc, axis),
            np.cross(a, b_dot) if axis is None and axisa == -1 and axisb == -1 and axisc == -1
            else np.cross(a, b_dot, axisa, axisb, axisc, axis))


@rule(np.einsum, positional=0)
def np_einsum_1(subscripts, x, *, optimize=False, out, subscripts_dot, x_dot):
    return None, np.einsum(subscripts, x_dot)


@rule(np.einsum, positional=0)
def np_einsum_2(subscripts, x, y, *, optimize=False, out, subscripts_dot, x_dot, y_dot):
    return None, np.einsum(subscripts, x_dot, y), np.einsum(subscripts, x, y_dot)


@rule(np.einsum, positional=0)
def np_einsum_3(subscripts, x, y, z, *, optimize=False, out, subscripts_dot, x_dot, y_dot,
                z_dot):
    return (None, np.einsum(subscripts, x_dot, y, z), np.einsum(subscripts, x, y_dot, z),
            np.einsum(subscripts, x, y, z_dot))


@rule(np.einsum, positional=0)
def np_einsum_4(subscripts, w, x, y, z, *, optimize=False, out, subscripts_dot, w_dot, x_dot,
                y_dot, z_dot):
    return (None, np.einsum(subscripts, w_dot, x, y, z), np.einsum(subscripts, w, x_dot, y, z),
            np.einsum(subscripts, w, x, y_dot, z), np.einsum(subscripts, w, x, y, z_dot))


@rule(np.polyval, lists=("p",))
def np_polyval(p, x, out, p_dot, x_dot):
    return np.polyval(p_dot, x), np.polyval(p[:-1] * np.arange(np.size(p) - 1, 0, -1), x) * x_dot


@rule(np.convolve, static=convolve_modes, positional=1)
def np_convolve(a, v, *, mode="full", out, a_dot, v_dot):
    return np.convolve(a_dot, v, mode), np.convolve(a, v_dot, mode)


@rule(np.correlate, static=convolve_modes, positional=1)
def np_correlate(a, v, *, mode="valid", out, a_dot, v_dot):
    return np.correlate(a_dot, v, mode), np.correlate(a, v_dot, mode)


# --------------------------------------------------- numpy: diagonals and triangles


@rule(np.diag, when=("1d",))
def np_diag_1d(v, *, k=0, out, v_dot):
    return np.diag(v_dot, k)


@rule(np.diag, when=("2d",))
def np_diag_2d(v, *, k=0, out, v_dot):
    return np.diag(v_dot, k)


@rule(np.diag, when=("1d", "int"))
def np_diag_1d_k(v, k, *, out, v_dot, k_dot):  # (``np.diag(x, 1)``: `k` by position)
    return np.diag(v_dot, k), None


@rule(np.diag, when=("2d", "int"))
def np_diag_2d_k(v, k, *, out, v_dot, k_dot):
    return np.diag(v_dot, k), None


@rule(np.diagonal)
def np_diagonal(a, *, offset=0, axis1=0, axis2=1, out, a_dot):
    return np.diagonal(a_dot, offset, axis1, axis2)


@rule(np.triu, when=("2d",))
def np_triu_2d(m, *, k=0, out, m_dot):
    return np.triu(m_dot, k)


@rule(np.triu, when=("1d",))
def np_triu_1d(m, *, k=0, out, m_dot):
    return np.triu(m_dot, k)


@rule(np.triu)
def np_triu(m, *, k=0, out, m_dot):
    return np.triu(m_dot, k)


@rule(np.tril, when=("2d",))
def np_tril_2d(m, *, k=0, out, m_dot):
    return np.tril(m_dot, k)


@rule(np.tril, when=("1d",))
def np_tril_1d(m, *, k=0, out, m_dot):
    return np.tril(m_dot, k)


@rule(np.tril)
def np_tril(m, *, k=0, out, m_dot):
    return np.tril(m_dot, k)


# --------------------------------------------------- numpy: statistics and nan-sums


@rule(np.median, positional=1)
def np_median(x, *, axis=None, keepdims=False, out, x_dot):
    return np.sum(median_bar(1.0, x, axis, keepdims) * x_dot, axis=axis, keepdims=keepdims)


@rule(np.quantile, positional=1, static=quantile_methods, no_derivative=("q",))
def np_quantile(a, q, *, axis=None, method="linear", keepdims=False, out, a_dot, q_dot):
    return quantile_dot(a_dot, a, q, axis, keepdims), None


@rule(np.percentile, positional=1, static=quantile_methods, no_derivative=("q",))
def np_percentile(a, q, *, axis=None, method="linear", keepdims=False, out, a_dot, q_dot):
    return quantile_dot(a_dot, a, q, axis, keepdims, 100.0), None


@rule(np.average, positional=1)
def np_average(a, *, axis=None, keepdims=False, out, a_dot):
    return np.mean(a_dot, axis=axis, keepdims=keepdims)


@rule(np.average, positional=0)
def np_average_weighted(a, weights, *, axis=None, keepdims=False, out, a_dot, weights_dot):
    w = np.reshape(weights, np.shape(weights) + (1,) * (
        (np.ndim(a) - np.ndim(weights)) and (np.ndim(a) - 1 - axis % np.ndim(a))))
    total = np.sum(w, axis=axis if np.ndim(weights) == np.ndim(a) else None, keepdims=keepdims)
    return (np.sum(w * a_dot, axis=axis, keepdims=keepdims) / total,
            np.sum((a - unreduce(out, a, axis, keepdims)) * np.reshape(weights_dot, np.shape(w)),
                   axis=axis, keepdims=keepdims) / total)


@rule(np.nansum, positional=1)
def np_nansum(x, *, axis=None, keepdims=False, out, x_dot):
    return np.sum(np.where(np.isnan(x), 0.0, x_dot), axis=axis, keepdims=keepdims)


@rule(np.nanmean, positional=1)
def np_nanmean(x, *, axis=None, keepdims=False, out, x_dot):
    # (a NaN's tangent, which may be NaN, is not read)
    nan = np.isnan(x)
    return np.sum(np.where(nan, 0.0, x_dot), axis=axis, keepdims=keepdims) \
        / np.sum(np.where(nan, 0.0, 1.0), axis=axis, keepdims=keepdims)


@rule(np.nanmax, positional=1)
def np_nanmax(x, *, axis=None, keepdims=False, out, x_dot):
    # (a NaN's tangent, which may be NaN, is not read)
    return np.sum(np.where(np.isnan(x), 0.0, extreme_bar(1.0, x, out, axis, keepdims) * x_dot),
                  axis=axis, keepdims=keepdims)


@rule(np.nanmin, positional=1)
def np_nanmin(x, *, axis=None, keepdims=False, out, x_dot):
    return np.sum(np.where(np.isnan(x), 0.0, extreme_bar(1.0, x, out, axis, keepdims) * x_dot),
                  axis=axis, keepdims=keepdims)


@rule(np.ptp, positional=1)
def np_ptp(x, *, axis=None, keepdims=False, out, x_dot):
    return np.sum((extreme_bar(1.0, x, np.max(x, axis=axis, keepdims=keepdims), axis, keepdims)
                   - extreme_bar(1.0, x, np.min(x, axis=axis, keepdims=keepdims), axis, keepdims))
                  * x_dot, axis=axis, keepdims=keepdims)


@rule(np.nanprod, positional=1)
def np_nanprod(x, *, axis=None, keepdims=False, out, x_dot):
    return np.sum(np.where(np.isnan(x), 0.0, prod_others(np.where(np.isnan(x), 1.0, x), axis) * x_dot),
                  axis=axis, keepdims=keepdims)


@rule(np.nancumsum, positional=1)
def np_nancumsum(x, *, axis=None, out, x_dot):
    return np.cumsum(np.where(np.isnan(x), 0.0, x_dot), axis=axis)


@rule(np.nanvar, positional=1)
def np_nanvar(x, *, axis=None, keepdims=False, ddof=0, out, x_dot):
    count = np.sum(np.where(np.isnan(x), 0.0, 1.0), axis=axis, keepdims=keepdims) - ddof
    return np.sum(np.where(np.isnan(x), 0.0, 2.0 * (x - np.nanmean(x, axis, keepdims=True)) * x_dot),
                  axis=axis, keepdims=keepdims) / count


@rule(np.nanstd, positional=1)
def np_nanstd(x, *, axis=None, keepdims=False, ddof=0, out, x_dot):
    count = np.sum(np.where(np.isnan(x), 0.0, 1.0), axis=axis, keepdims=keepdims) - ddof
    return np.sum(np.where(np.isnan(x), 0.0, (x - np.nanmean(x, axis, keepdims=True)) * x_dot),
                  axis=axis, keepdims=keepdims) / (count * np.where(out == 0, 1.0, out))


@rule(np.cov, static=cov_refusal, positional=0)
def np_cov(m, *, rowvar=True, bias=False, ddof=None, out, m_dot):
    given = np.atleast_2d(m)
    turned = not rowvar and np.ndim(m) == 2 and np.size(out) == np.shape(given)[1] ** 2
    xs = given.T if turned else given
    xc = xs - np.mean(xs, 1, keepdims=True)
    xs_dot = np.atleast_2d(m_dot).T if turned else np.atleast_2d(m_dot)
    d = (xs_dot - np.mean(xs_dot, 1, keepdims=True)) @ xc.T
    return np.reshape((d + d.T) / (np.shape(xs)[1] - (ddof if ddof is not None else 0 if bias else 1)),
                      np.shape(out))


@rule(np.corrcoef, static=cov_refusal, positional=0)
def np_corrcoef(x, *, rowvar=True, out, x_dot):
    # (dR = dC / (s s^T) - R (a_i + a_j), a = diag(dC) / 2 diag(C))
    given = np.atleast_2d(x)
    turned = not rowvar and np.ndim(x) == 2 and np.size(out) == np.shape(given)[1] ** 2
    xs = given.T if turned else given
    xc = xs - np.mean(xs, 1, keepdims=True)
    c = np.diagonal(xc @ xc.T)
    xs_dot = np.atleast_2d(x_dot).T if turned else np.atleast_2d(x_dot)
    d = (xs_dot - np.mean(xs_dot, 1, keepdims=True)) @ xc.T
    a = np.diagonal(d) / c
    r = np.reshape(out, (np.shape(xs)[0], np.shape(xs)[0]))
    return np.reshape((d + d.T) / np.sqrt(np.outer(c, c)) - r * (a[:, None] + a[None, :]),
                      np.shape(out))


@rule(np.sum, positional=0)
def np_sum_where(x, where, *, axis=None, keepdims=False, out, x_dot, where_dot):
    return np.sum(x_dot, axis=axis, keepdims=keepdims, where=where), None


@rule(np.mean, positional=0)
def np_mean_where(x, where, *, axis=None, keepdims=False, out, x_dot, where_dot):
    # (a count of 0 gives 0, as the reverse rule does, not NumPy's NaN)
    count = np.sum(np.broadcast_to(where, np.shape(x)), axis, keepdims=keepdims)
    return np.sum(x_dot, axis=axis, keepdims=keepdims, where=where) / np.maximum(count, 1), None


# -------------------------------------- numpy: integrals, interpolation and counts


def np_trapezoid_x(y, x, dx=1.0, *, axis=-1, out, y_dot, x_dot, dx_dot):
    # (the sum of steps times pair sums is linear in each)
    return np.trapezoid(y_dot, x, axis=axis), np.trapezoid(y, x_dot, axis=axis), None


def np_trapezoid(y, dx=1.0, *, axis=-1, out, y_dot, dx_dot):
    return np.trapezoid(y_dot, dx=dx, axis=axis), np.trapezoid(y, axis=axis) * dx_dot


for _key in TRAPEZOIDS:
    rule(_key, positional=1)(np_trapezoid_x)
    rule(_key, positional=0)(np_trapezoid)


@rule(np.interp, static=interp_refusal, no_derivative=("xp",))
def np_interp(x, xp, fp, left=None, right=None, *, period=None, out, x_dot, xp_dot, fp_dot,
              left_dot, right_dot):
    return (interp_x_bar(x_dot, x, xp, fp), None,
            np.interp(x, xp, fp_dot, None if left is None else 0.0, None if right is None else 0.0),
            left_dot * (x < xp[0]), right_dot * (x > xp[-1]))


@rule(np.bincount, positional=1)
def np_bincount(x, weights, *, minlength=0, out, x_dot, weights_dot):
    return None, np.bincount(x, weights_dot, minlength)
