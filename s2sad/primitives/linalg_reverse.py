"""Reverse-mode rules of NumPy's linear algebra: products (``np.dot``, ``np.matmul``,
``np.outer``, ``np.inner``), ``np.trace``, transposes and moved axes, and
``np.linalg.solve``, ``inv``, ``det`` and ``slogdet``.

The form of `reverse` (and its `rule` decorator), paired with `linalg_forward` as
`reverse` is with `forward` (the dot-product test): same keys, order and banner. A
variant per input kind (``("2d", "1d")``, ``"array"`` for stacks of matrices) where
the rank decides the product or the axes. ``det``'s rule holds at singular matrices
too (cofactors).
"""

import numpy as np

from ..runtime import cofactors, inverse_t, matmul_x_bar, matmul_y_bar, unbroadcast
from .reverse import rule


# -------------------------------------------------------- numpy: linear algebra


@rule(np.dot, when=("2d", "2d"))
def dot_2d_2d(x, y, out, out_bar):
    return out_bar @ y.T, x.T @ out_bar


@rule(np.dot, when=("2d", "1d"))
def dot_2d_1d(x, y, out, out_bar):
    return np.outer(out_bar, y), out_bar @ x


@rule(np.dot, when=("1d", "2d"))
def dot_1d_2d(x, y, out, out_bar):
    return y @ out_bar, np.outer(x, out_bar)


@rule(np.dot, when=("1d", "1d"))
def dot_1d_1d(x, y, out, out_bar):
    return out_bar * y, out_bar * x


@rule(np.matmul, when=("2d", "2d"))
def np_matmul_2d_2d(x, y, out, out_bar):
    return out_bar @ y.T, x.T @ out_bar


@rule(np.matmul, when=("2d", "1d"))
def np_matmul_2d_1d(x, y, out, out_bar):
    return np.outer(out_bar, y), out_bar @ x


@rule(np.matmul, when=("1d", "2d"))
def np_matmul_1d_2d(x, y, out, out_bar):
    return y @ out_bar, np.outer(x, out_bar)


@rule(np.matmul, when=("1d", "1d"))
def np_matmul_1d_1d(x, y, out, out_bar):
    return out_bar * y, out_bar * x


@rule(np.matmul, when="array")
def np_matmul(x, y, out, out_bar):
    return matmul_x_bar(out_bar, x, y), matmul_y_bar(out_bar, x, y)


@rule(np.outer)
def np_outer(x, y, out, out_bar):
    return np.reshape(out_bar @ np.ravel(y), np.shape(x)), np.reshape(np.ravel(x) @ out_bar, np.shape(y))


@rule(np.inner, when=("1d", "1d"))
def np_inner(x, y, out, out_bar):
    return out_bar * y, out_bar * x


@rule(np.trace, when=("2d",))
def np_trace_2d(x, out, out_bar):
    return out_bar * np.eye(x.shape[0], x.shape[1], dtype=x.dtype)


@rule(np.trace)
def np_trace(x, out, out_bar):
    # more than two axes: the diagonal of the first two, for each index of the others
    eye = np.eye(x.shape[0], x.shape[1], dtype=x.dtype)
    return np.reshape(eye, x.shape[:2] + (1,) * (x.ndim - 2)) * out_bar


@rule(np.transpose)
def np_transpose(x, *, axes=None, out, out_bar):
    # the inverse permutation, of axes counted from the end too (-1 is the last); a
    # literal `axes` folds to a literal tuple
    return np.transpose(out_bar, None if axes is None else np.argsort(np.mod(axes, len(axes))))


@rule(np.swapaxes)
def np_swapaxes(x, *, axis1=0, axis2=1, out, out_bar):
    return np.swapaxes(out_bar, axis1, axis2)


@rule(np.moveaxis)
def np_moveaxis(x, source, destination, out, out_bar):
    # (the axes back where they came from; NumPy counts negative ones from the end)
    return np.moveaxis(out_bar, destination, source), None, None


@rule(np.linalg.solve, when=("2d", "1d"))
def np_solve_2d_1d(a, b, out, out_bar):
    b_bar = np.linalg.solve(a.T, out_bar)
    return -np.outer(b_bar, out), b_bar


@rule(np.linalg.solve, when=("2d", "2d"))
def np_solve_2d_2d(a, b, out, out_bar):
    b_bar = np.linalg.solve(a.T, out_bar)
    return -b_bar @ out.T, b_bar


@rule(np.linalg.solve)
def np_solve(a, b, out, out_bar):
    # stacks of matrices: b holds vectors when the result has fewer axes than a
    # (where NumPy 1 and 2 differ), solved here as one-column matrices; batch axes
    # broadcasting added are summed away
    vector = np.ndim(out) < np.ndim(a)
    b_bar = np.linalg.solve(np.swapaxes(a, -1, -2), out_bar[..., None] if vector else out_bar)
    x = out[..., None, :] if vector else np.swapaxes(out, -1, -2)
    return unbroadcast(-b_bar @ x, a), unbroadcast(b_bar[..., 0] if vector else b_bar, b)


@rule(np.linalg.inv, when=("2d",))
def np_inv_2d(a, out, out_bar):
    return -out.T @ out_bar @ out.T


@rule(np.linalg.inv)
def np_inv(a, out, out_bar):
    out_t = np.swapaxes(out, -1, -2)
    return -out_t @ out_bar @ out_t


@rule(np.linalg.det, when=("2d",))
def np_det_2d(a, out, out_bar):
    # the cofactor matrix (det * inv(a).T where a is invertible, and at singular
    # matrices too)
    return out_bar * cofactors(a, out)


@rule(np.linalg.det)
def np_det(a, out, out_bar):
    # a stack of matrices: each matrix's factor times its own cofactor matrix
    return np.expand_dims(out_bar, (-2, -1)) * cofactors(a, out)


@rule(np.linalg.slogdet, when=("2d",))
def np_slogdet_2d(a, out, out_bar):
    # (inv(a).T: no derivative at a singular matrix, where log |det a| is -inf)
    return out_bar[1] * inverse_t(a)


@rule(np.linalg.slogdet)
def np_slogdet(a, out, out_bar):
    # a stack of matrices: each log-determinant's adjoint times its own inverse
    # transposed (the sign is constant)
    return np.expand_dims(out_bar[1], (-2, -1)) * inverse_t(a)
