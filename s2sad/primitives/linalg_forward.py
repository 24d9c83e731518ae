"""Forward-mode rules of NumPy's linear algebra: products (``np.dot``, ``np.matmul``,
``np.outer``, ``np.inner``, ``np.vdot``), ``np.trace``, transposes and moved axes,
``np.linalg.solve``, ``inv``, ``det`` and ``slogdet``, and the decompositions
``np.linalg.cholesky``, ``eigh``, ``eigvalsh``, ``eig``, ``eigvals`` (real eigenvalues
only: `runtime.eig_inv_t`), ``svd``, ``svdvals``, ``qr`` and ``pinv`` (their option
checks are `linalg_reverse`'s).

The form of `forward` (and its `rule` decorator), paired with `linalg_reverse` as
`forward` is with `reverse`: same keys, order and banner. A variant per input kind
(``("2d", "1d")``, ``"array"`` for stacks of matrices) where the rank decides the
product or the axes.
"""

import numpy as np

from ..runtime import cofactors, eig_inv_t, inverse_t, multi_dot_dot
from .forward import rule
from .linalg_reverse import (cholesky_refusal, eigh_refusal, pinv_refusal, qr_refusal,
                             svd_refusal)


# -------------------------------------------------------- numpy: linear algebra


@rule(np.dot, when=("2d", "2d"))
def dot_2d_2d(x, y, out, x_dot, y_dot):
    return np.dot(x_dot, y), np.dot(x, y_dot)


@rule(np.dot, when=("2d", "1d"))
def dot_2d_1d(x, y, out, x_dot, y_dot):
    return np.dot(x_dot, y), np.dot(x, y_dot)


@rule(np.dot, when=("1d", "2d"))
def dot_1d_2d(x, y, out, x_dot, y_dot):
    return np.dot(x_dot, y), np.dot(x, y_dot)


@rule(np.dot, when=("1d", "1d"))
def dot_1d_1d(x, y, out, x_dot, y_dot):
    return np.dot(x_dot, y), np.dot(x, y_dot)


@rule(np.dot, when=("scalar", "array"))
def dot_number_array(x, y, out, x_dot, y_dot):
    return x_dot * y, x * y_dot


@rule(np.dot, when=("array", "scalar"))
def dot_array_number(x, y, out, x_dot, y_dot):
    return x_dot * y, x * y_dot


@rule(np.matmul, when=("2d", "2d"))
def np_matmul_2d_2d(x, y, out, x_dot, y_dot):
    return x_dot @ y, x @ y_dot


@rule(np.matmul, when=("2d", "1d"))
def np_matmul_2d_1d(x, y, out, x_dot, y_dot):
    return x_dot @ y, x @ y_dot


@rule(np.matmul, when=("1d", "2d"))
def np_matmul_1d_2d(x, y, out, x_dot, y_dot):
    return x_dot @ y, x @ y_dot


@rule(np.matmul, when=("1d", "1d"))
def np_matmul_1d_1d(x, y, out, x_dot, y_dot):
    return x_dot @ y, x @ y_dot


@rule(np.matmul, when="array")
def np_matmul(x, y, out, x_dot, y_dot):
    return x_dot @ y, x @ y_dot


@rule(np.outer)
def np_outer(x, y, out, x_dot, y_dot):
    return np.outer(x_dot, y), np.outer(x, y_dot)


@rule(np.inner, when=("1d", "1d"))
def np_inner(x, y, out, x_dot, y_dot):
    return np.inner(x_dot, y), np.inner(x, y_dot)


@rule(np.vdot, when=("1d", "1d"))
def np_vdot_1d_1d(x, y, out, x_dot, y_dot):
    return np.vdot(x_dot, y), np.vdot(x, y_dot)


@rule(np.vdot)
def np_vdot(x, y, out, x_dot, y_dot):
    return np.vdot(x_dot, y), np.vdot(x, y_dot)


@rule(np.add.outer)
def np_add_outer(x, y, out, x_dot, y_dot):
    # (x's tangent with an axis of length 1 for each of y's, y's as it is: each
    # spread to the result's shape, since one may be the only term)
    return (np.broadcast_to(np.reshape(x_dot, np.shape(x) + (1,) * np.ndim(y)), np.shape(out)),
            np.broadcast_to(y_dot, np.shape(out)))


@rule(np.subtract.outer)
def np_subtract_outer(x, y, out, x_dot, y_dot):
    return (np.broadcast_to(np.reshape(x_dot, np.shape(x) + (1,) * np.ndim(y)), np.shape(out)),
            -np.broadcast_to(y_dot, np.shape(out)))


@rule(np.multiply.outer)
def np_multiply_outer(x, y, out, x_dot, y_dot):
    return np.multiply.outer(x_dot, y), np.multiply.outer(x, y_dot)


@rule(np.trace, when=("2d",))
def np_trace_2d(x, *, offset=0, axis1=0, axis2=1, out, x_dot):
    return (np.trace(x_dot) if offset in (0,) and axis1 in (0, -2) and axis2 in (1, -1) else
            np.trace(x_dot, offset, axis1, axis2))


@rule(np.trace)
def np_trace(x, *, offset=0, axis1=0, axis2=1, out, x_dot):
    return (np.trace(x_dot) if offset in (0,) and axis1 in (0,) and axis2 in (1,) else
            np.trace(x_dot, offset, axis1, axis2))


@rule(np.transpose)
def np_transpose(x, *, axes=None, out, x_dot):
    return np.transpose(x_dot, axes)


@rule(np.swapaxes)
def np_swapaxes(x, *, axis1=0, axis2=1, out, x_dot):
    return np.swapaxes(x_dot, axis1, axis2)


@rule(np.moveaxis)
def np_moveaxis(x, source, destination, out, x_dot, source_dot, destination_dot):
    return np.moveaxis(x_dot, source, destination), None, None


@rule(np.rollaxis)
def np_rollaxis(a, axis, start=0, *, out, a_dot, axis_dot, start_dot):
    return np.rollaxis(a_dot, axis, start), None, None


@rule(np.linalg.solve, when=("2d", "1d"))
def np_solve_2d_1d(a, b, out, a_dot, b_dot):
    return -np.linalg.solve(a, a_dot @ out), np.linalg.solve(a, b_dot)


@rule(np.linalg.solve, when=("2d", "2d"))
def np_solve_2d_2d(a, b, out, a_dot, b_dot):
    return -np.linalg.solve(a, a_dot @ out), np.linalg.solve(a, b_dot)


@rule(np.linalg.solve)
def np_solve(a, b, out, a_dot, b_dot):
    # (vectors of b solved as one-column matrices, as in the reverse rule)
    vector = np.ndim(out) < np.ndim(a)
    a_dot_x = a_dot @ out[..., None] if vector else a_dot @ out
    x_dot = np.linalg.solve(a, a_dot_x)
    return -(x_dot[..., 0] if vector else x_dot), np.linalg.solve(a, b_dot)


@rule(np.linalg.inv, when=("2d",))
def np_inv_2d(a, out, a_dot):
    return -out @ a_dot @ out


@rule(np.linalg.inv)
def np_inv(a, out, a_dot):
    return -out @ a_dot @ out


@rule(np.linalg.det, when=("2d",))
def np_det_2d(a, out, a_dot):
    # trace(adj(a) a_dot), which holds at singular matrices too
    return np.sum(cofactors(a, out) * a_dot, axis=(-2, -1))


@rule(np.linalg.det)
def np_det(a, out, a_dot):
    return np.sum(cofactors(a, out) * a_dot, axis=(-2, -1))


@rule(np.linalg.slogdet, when=("2d",))
def np_slogdet_2d(a, out, a_dot):
    logabsdet_dot = np.sum(inverse_t(a) * a_dot, axis=(-2, -1))
    sign_and_logabsdet_dot = (0.0, logabsdet_dot)
    return sign_and_logabsdet_dot


@rule(np.linalg.slogdet)
def np_slogdet(a, out, a_dot):
    # a stack of matrices: the signs' tangents are zeros of their shape
    logabsdet_dot = np.sum(inverse_t(a) * a_dot, axis=(-2, -1))
    sign_and_logabsdet_dot = (np.zeros_like(logabsdet_dot), logabsdet_dot)
    return sign_and_logabsdet_dot


@rule(np.linalg.matrix_power)
def np_matrix_power(a, n, out, a_dot, n_dot):
    # (the upper right block of [[A, A_dot], [0, A]] ** n: see linalg_reverse)
    m = np.shape(a)[-1]
    return np.linalg.matrix_power(np.concatenate(
        [np.concatenate([a, a_dot], -1), np.concatenate([np.zeros_like(a), a], -1)], -2),
        n)[..., :m, m:], None


@rule(np.linalg.multi_dot)
def np_multi_dot(arrays, out, arrays_dot):
    return multi_dot_dot(arrays, arrays_dot)


# ------------------------------------------------ numpy: matrix decompositions
# (see linalg_reverse: products of the last two axes, one triangle of `a` read by
# cholesky and eigh, a gap of 0 between eigenvalues or singular values taken as no
# coupling)


@rule(np.linalg.cholesky, static=cholesky_refusal)
def np_cholesky(a, *, upper=False, out, a_dot):
    n = a.shape[-1]
    lower = np.tri(n)
    # (the symmetric matrix the lower triangle of a_dot stands for)
    a_dot = a_dot * lower + np.swapaxes(a_dot * (lower - np.eye(n)), -1, -2)
    l_inv = np.linalg.inv(out)
    return out @ ((l_inv @ a_dot @ np.swapaxes(l_inv, -1, -2)) * (lower - 0.5 * np.eye(n)))


@rule(np.linalg.eigh, static=eigh_refusal)
def np_eigh(a, *, UPLO="L", out, a_dot):
    n = a.shape[-1]
    read = np.tri(n) if UPLO in ("L", "l") else np.tri(n).T
    a_dot = a_dot * read + np.swapaxes(a_dot * (read - np.eye(n)), -1, -2)
    w = out[0]
    v = out[1]
    a_dot_v = a_dot @ v
    gap = np.expand_dims(w, -2) - np.expand_dims(w, -1)  # (w[j] - w[i])
    inverse_gap = np.where(gap == 0, 0.0, 1.0 / np.where(gap == 0, 1.0, gap))
    w_and_v_dot = (np.sum(v * a_dot_v, axis=-2),
                   v @ (inverse_gap * (np.swapaxes(v, -1, -2) @ a_dot_v)))
    return w_and_v_dot


@rule(np.linalg.eigvalsh, static=eigh_refusal)
def np_eigvalsh(a, *, UPLO="L", out, a_dot):
    n = a.shape[-1]
    read = np.tri(n) if UPLO in ("L", "l") else np.tri(n).T
    a_dot = a_dot * read + np.swapaxes(a_dot * (read - np.eye(n)), -1, -2)
    v = np.linalg.eigh(a, UPLO)[1]
    return np.sum(v * (a_dot @ v), axis=-2)


@rule(np.linalg.eig)
def np_eig(a, out, a_dot):
    w = out[0]
    v = out[1]
    eye = np.eye(a.shape[-1])
    p = np.swapaxes(eig_inv_t(v), -1, -2) @ a_dot @ v  # (its diagonal is w's tangent)
    gap = np.expand_dims(w, -2) - np.expand_dims(w, -1)  # (w[j] - w[i])
    inverse_gap = np.where(gap == 0, 0.0, 1.0 / np.where(gap == 0, 1.0, gap))
    c = inverse_gap * p
    # (v's tangent v (c + diag(d)), d keeping each column's norm 1: v.T v's diagonal is 1)
    d = -np.sum(np.swapaxes(v, -1, -2) @ v @ c * eye, axis=-2, keepdims=True)
    w_and_v_dot = (np.sum(p * eye, axis=-2), v @ c + v * d)
    return w_and_v_dot


@rule(np.linalg.eigvals)
def np_eigvals(a, out, a_dot):
    v = np.linalg.eig(a)[1]
    return np.sum(eig_inv_t(v) * (a_dot @ v), axis=-2)


@rule(np.linalg.svd, when="array", static=svd_refusal(values_only=True))
def np_svd_values(a, *, full_matrices=True, compute_uv=True, hermitian=False, out, a_dot):
    usv = np.linalg.svd(a, full_matrices=False)
    return np.sum(usv[0] * (a_dot @ np.swapaxes(usv[2], -1, -2)), axis=-2)


@rule(np.linalg.svd, static=svd_refusal(values_only=False))
def np_svd(a, *, full_matrices=True, compute_uv=True, hermitian=False, out, a_dot):
    u = out[0]
    s = out[1]
    vh = out[2]
    v = np.swapaxes(vh, -1, -2)
    a_dot_v = a_dot @ v
    p = np.swapaxes(u, -1, -2) @ a_dot_v  # (its diagonal is s's tangent)
    s2 = s * s
    gap = np.expand_dims(s2, -2) - np.expand_dims(s2, -1)  # (s[j]**2 - s[i]**2)
    inverse_gap = np.where(gap == 0, 0.0, 1.0 / np.where(gap == 0, 1.0, gap))
    ps = p * np.expand_dims(s, -2)
    sp = np.expand_dims(s, -1) * p
    u_dot = u @ (inverse_gap * (ps + np.swapaxes(ps, -1, -2))) \
        + (a_dot_v - u @ p) / np.expand_dims(s, -2)
    at_dot_u = np.swapaxes(a_dot, -1, -2) @ u
    v_dot = v @ (inverse_gap * (sp + np.swapaxes(sp, -1, -2))) \
        + (at_dot_u - v @ np.swapaxes(p, -1, -2)) / np.expand_dims(s, -2)
    usv_dot = (u_dot, np.sum(u * a_dot_v, axis=-2), np.swapaxes(v_dot, -1, -2))
    return usv_dot


@rule(np.linalg.svdvals)
def np_svdvals(x, out, x_dot):
    usv = np.linalg.svd(x, full_matrices=False)
    return np.sum(usv[0] * (x_dot @ np.swapaxes(usv[2], -1, -2)), axis=-2)


@rule(np.linalg.qr, static=qr_refusal)
def np_qr(a, *, mode="reduced", out, a_dot):
    q = out[0]
    r = out[1]
    n = r.shape[-1]
    # (c = a_dot r^-1; q.T c is an antisymmetric part, q.T q_dot, and an upper
    # triangular one, r_dot r^-1)
    c = np.swapaxes(np.linalg.solve(np.swapaxes(r, -1, -2), np.swapaxes(a_dot, -1, -2)), -1, -2)
    b = np.swapaxes(q, -1, -2) @ c
    below = b * (np.tri(n) - np.eye(n))
    upper = b - below + np.swapaxes(below, -1, -2)
    qr_dot = (c - q @ upper, upper @ r)
    return qr_dot


@rule(np.linalg.pinv, static=pinv_refusal)
def np_pinv(a, *, rcond=None, hermitian=False, rtol=None, out, a_dot):
    pt = np.swapaxes(out, -1, -2)
    at_dot = np.swapaxes(a_dot, -1, -2)
    left = out @ pt @ at_dot
    right = at_dot @ pt @ out
    return -out @ a_dot @ out + left - (left @ a) @ out + right - out @ (a @ right)
