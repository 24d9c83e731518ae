"""Forward-mode rules of NumPy's linear algebra: products (``np.dot``, ``np.matmul``,
``np.outer``, ``np.inner``), ``np.trace``, transposes and moved axes, and
``np.linalg.solve``, ``inv``, ``det`` and ``slogdet``.

The form of `forward` (and its `rule` decorator), paired with `linalg_reverse` as
`forward` is with `reverse`: same keys, order and banner. A variant per input kind
(``("2d", "1d")``, ``"array"`` for stacks of matrices) where the rank decides the
product or the axes.
"""

import numpy as np

from ..runtime import cofactors, inverse_t
from .forward import rule


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


@rule(np.trace, when=("2d",))
def np_trace_2d(x, out, x_dot):
    return np.trace(x_dot)


@rule(np.trace)
def np_trace(x, out, x_dot):
    return np.trace(x_dot)


@rule(np.transpose)
def np_transpose(x, *, axes=None, out, x_dot):
    return np.transpose(x_dot, axes)


@rule(np.swapaxes)
def np_swapaxes(x, *, axis1=0, axis2=1, out, x_dot):
    return np.swapaxes(x_dot, axis1, axis2)


@rule(np.moveaxis)
def np_moveaxis(x, source, destination, out, x_dot, source_dot, destination_dot):
    return np.moveaxis(x_dot, source, destination), None, None


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
