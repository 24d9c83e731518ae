"""Forward rules for the runtime helpers that emitted reverse code calls.

Forward mode over reverse code (`s2sad.hessian`, `s2sad.hvp`, ``grad(grad(f))``)
meets these helpers as calls. Each is linear in the adjoint it receives (and
`matmul_x_bar`/`matmul_y_bar` also in the other operand), so each tangent is the
helper applied to a tangent, and the Hessian code reads like the gradient code it
came from. `multi_dot_bar` moves with the arrays too: its second term is a list
that adds to the first element by element (`runtime._Summands`), as forward code
adds terms with ``+``. Arguments that only give a shape (the operand an adjoint is summed back
to, the parts of a concatenation) have no tangent.

These are not primitives of user code, so they have no reverse rules: a third
derivative would need them. `tests/test_rules.py` checks each against central
differences.
"""

import numpy as np

from .. import runtime
from ..runtime import (cross_a_bar, cross_b_bar, cumprod_bar, cumprod_bar_dot, diag_bar, diagonal_bar, diff_bar, einsum_bar, kron_a_bar,
                       gradient_bar, interp_fp_bar, interp_fp_bar_dx, interp_x_bar, kron_b_bar, median_bar, quantile_bar,
                       take_along_axis_bar, take_bar, tensordot_a_bar, tensordot_b_bar, trapezoid_bar,
                       trapezoid_x_bar, unpad, unrepeat, unsort, unsplit, untile)
from ..runtime import (cofactors_dot, eig_inv_t, extreme_bar, matmul_x_bar, matmul_y_bar, norm_bar,
                       norm_bar_dnorm, norm_bar_dx, pieces,
                       prod_others_dot, trigamma, unbroadcast, unreduce, unstack, vstack_pieces)
from ..runtime import (kept_slots, multi_dot_bar, multi_dot_bar_dot, select_bar, stack_pieces,
                       unpacked_bar)
from . import shape_rules
from .facts import TABLE, Facts
from .registry import FORWARD, add_rule


def rule(key):
    def register(func):
        add_rule(FORWARD, "forward", key, func)
        return func

    return register


@rule(runtime.unbroadcast)
def unbroadcast_(g, x, out, g_dot, x_dot):
    return unbroadcast(g_dot, x), None


@rule(runtime.unreduce)
def unreduce_(g, x, *, axis=None, keepdims=False, out, g_dot, x_dot):
    return unreduce(g_dot, x, axis, keepdims), None


@rule(runtime.extreme_bar)
def extreme_bar_(g, x, m, *, axis=None, keepdims=False, out, g_dot, x_dot, m_dot):
    # which elements hold the extreme does not change under a small step
    return extreme_bar(g_dot, x, m, axis, keepdims), None, None


@rule(runtime.matmul_x_bar)
def matmul_x_bar_(g, x, y, out, g_dot, x_dot, y_dot):
    return matmul_x_bar(g_dot, x, y), None, matmul_x_bar(g, x, y_dot)


@rule(runtime.matmul_y_bar)
def matmul_y_bar_(g, x, y, out, g_dot, x_dot, y_dot):
    return matmul_y_bar(g_dot, x, y), matmul_y_bar(g, x_dot, y), None


@rule(runtime.pieces)
def pieces_(g, parts, *, axis=0, out, g_dot, parts_dot):
    return pieces(g_dot, parts, axis), None


@rule(runtime.unstack)
def unstack_(g, n, *, axis=0, out, g_dot, n_dot):
    return unstack(g_dot, n, axis), None


@rule(runtime.unpacked_bar)
def unpacked_bar_(value, parts, out, value_dot, parts_dot):
    # (linear in the parts; `value` gives only which it is, and its items' shapes)
    return None, unpacked_bar(value, parts_dot)


@rule(runtime.vstack_pieces)
def vstack_pieces_(g, parts, out, g_dot, parts_dot):
    return vstack_pieces(g_dot, parts), None


@rule(runtime.stack_pieces)
def stack_pieces_(g, parts, *, axis=1, out, g_dot, parts_dot):
    return stack_pieces(g_dot, parts, axis), None


@rule(runtime.multi_dot_bar)
def multi_dot_bar_(g, arrays, out, g_dot, arrays_dot):
    return multi_dot_bar(g_dot, arrays), multi_dot_bar_dot(g, arrays, arrays_dot)


@rule(runtime.select_bar)
def select_bar_(g, condlist, choicelist, out, g_dot, condlist_dot, choicelist_dot):
    # (which choice each element takes does not change under a small step)
    return select_bar(g_dot, condlist, choicelist), None, None


@rule(runtime.unsplit)
def unsplit_(g, parts, *, axis=0, out, g_dot, parts_dot):
    return unsplit(g_dot, parts, axis), None


@rule(runtime.norm_bar)
def norm_bar_(g, x, norm, *, ord=None, axis=None, keepdims=False, out, g_dot, x_dot, norm_dot):
    # norm_bar(g, x, norm) is unreduce(g / norm, x) * x for the 2-norm and the Frobenius
    # norm; the other orders' terms are runtime helpers (an ord known when the rule is
    # inlined picks one: ``in ("fro",)`` folds for a literal int or string)
    return (norm_bar(g_dot, x, norm, ord, axis, keepdims),
            unreduce(g / norm, x, axis, keepdims) * x_dot if ord is None or ord in ("fro",)
            else norm_bar_dx(g, x, norm, x_dot, ord, axis, keepdims),
            norm_bar(-g * norm_dot / norm, x, norm, ord, axis, keepdims)
            if ord is None or ord in ("fro",)
            else norm_bar_dnorm(g, x, norm, norm_dot, ord, axis, keepdims))


@rule(runtime.prod_others)
def prod_others_(x, *, axis=None, out, x_dot):
    return prod_others_dot(x, x_dot, axis)


@rule(runtime.cofactors)
def cofactors_(a, det, out, a_dot, det_dot):
    # (det is det(a), passed so that it is not worked out again: its tangent is a's,
    # counted in the first term)
    return cofactors_dot(a, a_dot), None


@rule(runtime.eig_inv_t)
def eig_inv_t_(v, out, v_dot):
    # (d inv(v) = -inv(v) v_dot inv(v), transposed)
    return -out @ np.swapaxes(v_dot, -1, -2) @ out


@rule(runtime.inverse_t)
def inverse_t_(a, out, a_dot):
    return -out @ np.swapaxes(a_dot, -1, -2) @ out


@rule(runtime.digamma)
def digamma_(x, out, x_dot):
    # (the derivative of math.lgamma's and math.gamma's rules)
    return trigamma(x) * x_dot


# the adjoints of NumPy's shaping functions (`shaping_reverse`): linear in g, and
# tensordot's and einsum's in each other operand too (einsum_bar's `x` gives only
# a shape: operand i's adjoint does not read its own values)


@rule(runtime.cumprod_bar)
def cumprod_bar_(g, x, c, *, axis=None, out, g_dot, x_dot, c_dot):
    # (c is np.cumprod(x, axis), passed so that it is not worked out again: its
    # tangent is x's, counted in the second term)
    return cumprod_bar(g_dot, x, c, axis), cumprod_bar_dot(g, x, x_dot, axis), None


@rule(runtime.take_bar)
def take_bar_(g, x, indices, *, axis=None, out, g_dot, x_dot, indices_dot):
    return take_bar(g_dot, x, indices, axis), None, None


@rule(runtime.kept_slots)
def kept_slots_(g, a, index, out, g_dot, a_dot, index_dot):
    # (which values a write kept does not change under a small step)
    return kept_slots(g_dot, a, index), None, None


@rule(runtime.take_along_axis_bar)
def take_along_axis_bar_(g, x, indices, *, axis=-1, out, g_dot, x_dot, indices_dot):
    return take_along_axis_bar(g_dot, x, indices, axis), None, None


@rule(runtime.unsort)
def unsort_(g, x, order, *, axis=-1, out, g_dot, x_dot, order_dot):
    return unsort(g_dot, x, order, axis), None, None


@rule(runtime.unpad)
def unpad_(g, pad_width, out, g_dot, pad_width_dot):
    return unpad(g_dot, pad_width), None


@rule(runtime.untile)
def untile_(g, x, out, g_dot, x_dot):
    return untile(g_dot, x), None


@rule(runtime.unrepeat)
def unrepeat_(g, x, repeats, *, axis=None, out, g_dot, x_dot, repeats_dot):
    return unrepeat(g_dot, x, repeats, axis), None, None


@rule(runtime.diag_bar)
def diag_bar_(g, x, *, k=0, out, g_dot, x_dot):
    return diag_bar(g_dot, x, k), None


@rule(runtime.diagonal_bar)
def diagonal_bar_(g, x, *, offset=0, axis1=0, axis2=1, out, g_dot, x_dot):
    return diagonal_bar(g_dot, x, offset, axis1, axis2), None


@rule(runtime.diff_bar)
def diff_bar_(g, x, *, n=1, axis=-1, out, g_dot, x_dot):
    return diff_bar(g_dot, x, n, axis), None


@rule(runtime.trapezoid_bar)
def trapezoid_bar_(g, y, x, dx, *, axis=-1, out, g_dot, y_dot, x_dot, dx_dot):
    # (linear in g, in the steps of x and in dx, which counts without x only; y gives
    # the shape)
    return (trapezoid_bar(g_dot, y, x, dx, axis), None,
            0.0 if x is None else trapezoid_bar(g, y, x_dot, dx, axis),
            trapezoid_bar(g, y, None, dx_dot, axis) if x is None else 0.0)


@rule(runtime.trapezoid_x_bar)
def trapezoid_x_bar_(g, y, x, *, axis=-1, out, g_dot, y_dot, x_dot):
    # (linear in g and in y; x gives the shape)
    return trapezoid_x_bar(g_dot, y, x, axis), trapezoid_x_bar(g, y_dot, x, axis), None


@rule(runtime.interp_x_bar)
def interp_x_bar_(g, x, xp, fp, out, g_dot, x_dot, xp_dot, fp_dot):
    # (the slopes are linear in fp and do not move with x within a segment)
    return interp_x_bar(g_dot, x, xp, fp), None, None, interp_x_bar(g, x, xp, fp_dot)


@rule(runtime.interp_fp_bar)
def interp_fp_bar_(g, x, xp, *, left=None, right=None, out, g_dot, x_dot, xp_dot):
    # (the weights move with x within a segment: `interp_fp_bar_dx`)
    return interp_fp_bar(g_dot, x, xp, left, right), interp_fp_bar_dx(g, x, xp, x_dot), None


@rule(runtime.median_bar)
def median_bar_(g, x, *, axis=None, keepdims=False, out, g_dot, x_dot):
    # (which elements are the middle ones does not change under a small step)
    return median_bar(g_dot, x, axis, keepdims), None


@rule(runtime.gradient_bar)
def gradient_bar_(g, f, dx=1.0, *, axis=None, out, g_dot, f_dot, dx_dot):
    # (linear in g, a multiple of 1 / dx)
    return gradient_bar(g_dot, f, dx, axis), None, -out * (dx_dot / dx)


@rule(runtime.quantile_bar)
def quantile_bar_(g, a, q, *, axis=None, keepdims=False, whole=1.0, out, g_dot, a_dot, q_dot):
    # (which order statistics a q lies between, and their weights, do not change under
    # a small step of a)
    return quantile_bar(g_dot, a, q, axis, keepdims, whole), None, None


@rule(runtime.cross_a_bar)
def cross_a_bar_(g, a, b, *, axisa=-1, axisb=-1, axisc=-1, out, g_dot, a_dot, b_dot):
    return (cross_a_bar(g_dot, a, b, axisa, axisb, axisc), None,
            cross_a_bar(g, a, b_dot, axisa, axisb, axisc))


@rule(runtime.cross_b_bar)
def cross_b_bar_(g, a, b, *, axisa=-1, axisb=-1, axisc=-1, out, g_dot, a_dot, b_dot):
    return (cross_b_bar(g_dot, a, b, axisa, axisb, axisc),
            cross_b_bar(g, a_dot, b, axisa, axisb, axisc), None)


@rule(runtime.kron_a_bar)
def kron_a_bar_(g, a, b, out, g_dot, a_dot, b_dot):
    return kron_a_bar(g_dot, a, b), None, kron_a_bar(g, a, b_dot)


@rule(runtime.kron_b_bar)
def kron_b_bar_(g, a, b, out, g_dot, a_dot, b_dot):
    return kron_b_bar(g_dot, a, b), kron_b_bar(g, a_dot, b), None


@rule(runtime.tensordot_a_bar)
def tensordot_a_bar_(g, a, b, *, axes=2, out, g_dot, a_dot, b_dot):
    return tensordot_a_bar(g_dot, a, b, axes), None, tensordot_a_bar(g, a, b_dot, axes)


@rule(runtime.tensordot_b_bar)
def tensordot_b_bar_(g, a, b, *, axes=2, out, g_dot, a_dot, b_dot):
    return tensordot_b_bar(g_dot, a, b, axes), tensordot_b_bar(g, a_dot, b, axes), None


@rule(runtime.einsum_bar)
def einsum_bar_1(subscripts, i, g, x, out, subscripts_dot, i_dot, g_dot, x_dot):
    return None, None, einsum_bar(subscripts, i, g_dot, x), None


@rule(runtime.einsum_bar)
def einsum_bar_2(subscripts, i, g, x, y, out, subscripts_dot, i_dot, g_dot, x_dot, y_dot):
    return None, None, einsum_bar(subscripts, i, g_dot, x, y), None, einsum_bar(subscripts, i, g, x, y_dot)


@rule(runtime.einsum_bar)
def einsum_bar_3(subscripts, i, g, x, y, z, out, subscripts_dot, i_dot, g_dot, x_dot, y_dot, z_dot):
    return (None, None, einsum_bar(subscripts, i, g_dot, x, y, z), None,
            einsum_bar(subscripts, i, g, x, y_dot, z), einsum_bar(subscripts, i, g, x, y, z_dot))


@rule(runtime.einsum_bar)
def einsum_bar_4(subscripts, i, g, x, y, z, w, out, subscripts_dot, i_dot, g_dot, x_dot, y_dot,
                 z_dot, w_dot):
    return (None, None, einsum_bar(subscripts, i, g_dot, x, y, z, w), None,
            einsum_bar(subscripts, i, g, x, y_dot, z, w), einsum_bar(subscripts, i, g, x, y, z_dot, w),
            einsum_bar(subscripts, i, g, x, y, z, w_dot))


# (unbroadcast gives back its operand's shape: forward mode over reverse code then
# knows the rank of what it returns, ``np.diag(unbroadcast(H_bar, t1))``)
TABLE[runtime.unbroadcast] = Facts(shape=shape_rules.second)
