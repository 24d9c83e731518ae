"""NumPy functions as users write them, with example arguments.

Each entry of `ZOO` is (function, args, wrt). Arrays are float64 unless a case is about
something else; values keep every function away from its kinks."""

import numpy as np

rng = np.random.default_rng(0)


def a(*shape, lo=-1.0, hi=1.0):
    return rng.uniform(lo, hi, size=shape)


# --------------------------------------------------------------- elementwise


def broadcast_mul(x, y):
    return np.sum(x * y + np.sin(x))


def scalar_times_array(s, x):
    return np.sum(s * x - x / s + s ** 2)


def column_minus_row(c, r):
    return np.sum((c - r) ** 2)


def ufuncs(x):
    y = np.tan(x) + np.arcsin(x / 2) + np.arccos(x / 3) + np.arctan(x)
    y = y + np.sinh(x) + np.cosh(x) + np.tanh(x) + np.expm1(x) + np.log1p(x * x)
    y = y + np.log2(2.0 + x) + np.log10(3.0 + x) + np.sqrt(1.0 + x * x) + np.square(x)
    return np.sum(y * np.exp(x) + np.log(2.0 + x))


def abs_sign(x):
    return np.sum(np.abs(x) * 2.0 + np.sign(x) * x)


def power_arctan2(x, y):
    return np.sum(np.power(np.abs(x) + 1.0, y) + np.arctan2(x, y + 2.0))


def max_min_clip(x, y):
    return np.sum(np.maximum(x, y) - 2.0 * np.minimum(x, 0.1) + np.clip(x * y, -0.2, 0.3))


def where_relu(x):
    return np.sum(np.where(x > 0.0, x, 0.01 * x) ** 2)


def comparisons_are_constant(x):
    mask = (x > 0.2) & (x < 0.8)
    return np.sum(x * mask)


# ---------------------------------------------------------------- reductions


def reductions(x):
    return (x.sum() + np.mean(x, axis=0).sum() + np.sum(x, axis=1, keepdims=True).mean()
            + np.prod(x + 2.0) + np.max(x, axis=1).sum() + x.min()
            + np.var(x, axis=0).sum() + np.std(x, ddof=1))


def logsumexp(x):
    m = np.max(x)
    return m + np.log(np.sum(np.exp(x - m)))


def softmax_rows(x, w):
    z = x - np.max(x, axis=1, keepdims=True)
    p = np.exp(z) / np.sum(np.exp(z), axis=1, keepdims=True)
    return np.sum(p * w)


def norms(x):
    return np.linalg.norm(x) + np.linalg.norm(x, axis=1).sum() + np.linalg.norm(x, "fro")


# ------------------------------------------------------------- linear algebra


def matmul_mixes(A, B, v, w):
    return np.sum(A @ B) + np.sum(A @ v) + np.sum(w @ A) + v @ v + np.dot(A, v).sum() \
        + np.matmul(w, A @ B).sum() + A.dot(v).sum()


def outer_inner_trace(u, v, M):
    return np.sum(np.outer(u, v) * M) + np.inner(u, u) + np.trace(M @ M.T) + np.trace(M.T @ M)


def transpose(M):
    return np.sum(np.transpose(M) * np.arange(12.0).reshape(4, 3)) + np.sum(M.T[0])


def solve_inv_det(A, b):
    x = np.linalg.solve(A, b)
    sign, logdet = np.linalg.slogdet(A)
    return x @ x + np.sum(np.linalg.inv(A)) + np.linalg.det(A) + logdet


# -------------------------------------------------------------------- shapes


def shapes(x):
    y = x.reshape(4, 3)
    z = np.reshape(x, (2, 6)).sum(axis=0)
    w = np.ravel(x) @ np.arange(12.0)
    s = np.squeeze(x[:, :1]) * 2.0
    e = np.expand_dims(x[0], 0) * x
    return np.sum(y * y) + np.sum(z) + w + np.sum(s) + np.sum(e)


def stacking(x, y):
    c = np.concatenate([x, y])
    s = np.stack([x, y], axis=1)
    h = np.hstack([x, y * 2.0])
    v = np.vstack([x, y])
    return np.sum(c ** 2) + np.sum(s[:, 0] * s[:, 1]) + np.sum(h) + np.sum(v @ v.T)


def zeros_ones_like(x):
    z = np.zeros_like(x) + 1.0
    o = np.ones_like(x)
    return np.sum(x * z + o * x * x)


def shape_and_len(x):
    n = x.shape[0]
    return np.sum(x) / n + len(x) * np.sum(x * x)


# ------------------------------------------------------------------ indexing


def index_reads(x, A):
    return (x[0] + x[-1] + np.sum(x[1:] * x[:-1]) + np.sum(x[::-1] * x) + A[1, 2]
            + np.sum(A[:, 0]) + np.sum(A[1]) + np.sum(A[1:, ::2]))


def mask_read(x):
    return np.sum(x[x > 0.0] ** 2)


def fancy_repeated(x):
    idx = np.array([0, 2, 2, 3, 0, 0])
    return np.sum(x[idx] * np.arange(6.0))


def fancy_columns(A):
    cols = [1, 1, 3]
    return np.sum(A[:, cols] ** 2) + np.sum(A[1:, [0, 0]])


def newaxis_read(x, y):
    return np.sum((x[:, None] - y[None, :]) ** 2) + np.sum(x[np.newaxis, :] * x[:, np.newaxis])


# --------------------------------------------------------------------- loops


def loop_reads(x):
    s = 0.0
    for i in range(len(x)):
        s = s + x[i] * x[i]
    return s


def loop_stencil(u):
    total = 0.0
    for i in range(1, len(u) - 1):
        total = total + (u[i + 1] - 2.0 * u[i] + u[i - 1]) ** 2
    return total


def loop_matrix(W, x):
    h = x
    for _ in range(3):
        h = np.tanh(W @ h)
    return np.sum(h)


# -------------------------------------------------------------------- writes


def fill_in_loop(x):
    out = np.zeros(len(x))
    for i in range(len(x)):
        out[i] = x[i] ** 2
    return np.sum(out * out)


def column_update(A, e):
    B = A.copy()
    B[:, 1] += e
    B[0] *= e[1]
    return np.sum(B ** 2)


def mask_write(x):
    y = x * 2.0
    y[y > 1.0] = 0.0
    return np.sum(y * x)


def overwrite_after_read(x):
    y = x * 1.0
    s = np.sum(y * y)
    y[0] = 3.0 * x[1]
    return s + np.sum(y * y)


def recurrence(x, a):
    out = np.zeros(len(x))
    out[0] = x[0]
    for i in range(1, len(x)):
        out[i] = a * out[i - 1] + x[i]
    return np.sum(out ** 2)


def heat_steps(u0, c):
    u = u0.copy()
    for _ in range(3):
        un = u.copy()
        for i in range(1, len(u) - 1):
            un[i] = u[i] + c * (u[i + 1] - 2.0 * u[i] + u[i - 1])
        u = un
    return np.sum(u ** 2)


def boundary_writes(u0, c):
    u = u0.copy()
    for t in range(3):
        u[0] = c * t
        u[-1] = u[-2]
        u = u + c * u ** 2
    return np.sum(u * u)


def rows_and_elements(A, v):
    B = np.zeros_like(A)
    for i in range(A.shape[0]):
        B[i] = A[i] * v[i]
        B[i, 0] += v[i]
    return np.sum(B * B)


def writes_in_branches(x):
    y = np.zeros(len(x))
    k = 0
    while k < len(x):
        if x[k] > 0.0:
            y[k] = x[k] * x[k]
        else:
            y[k] = -x[k]
            if k > 2:
                break
        k = k + 1
    return np.sum(y * x)


def slice_writes(x):
    y = np.zeros(6)
    y[1:4] = x[:3] * 2.0
    y[::2] += x[0]
    y[4:] = np.sin(x[1:3])
    return np.sum(y * y)


def matrix_fill(x):
    M = np.zeros((3, 3))
    for i in range(3):
        for j in range(3):
            M[i, j] = x[i] * x[j] + (i == j)
    return np.linalg.det(M) + np.sum(M @ x)


def list_writes(x, y):
    ys = [x, y, x * y]
    ys[1] = ys[0] * ys[2]
    for i in range(3):
        ys[i] = ys[i] * 2.0
    return ys[0] + ys[1] + ys[2]


def fill_rows(x):
    out = np.zeros((len(x), 2))
    out[:, 0] = x
    out[:, 1] = x ** 2
    return np.sum(out @ np.array([1.0, 3.0]))


def _helper_with_writes(v):
    w = np.zeros(len(v))
    for i in range(len(v)):
        w[i] = np.sin(v[i]) * v[i]
    return np.sum(w)


def calls_writer(x):
    return _helper_with_writes(x * 2.0) + _helper_with_writes(x)


def written_output(x):
    """Returns an array it wrote into (for vjp)."""
    y = x * 1.0
    s = y * y
    y[0] = 3.0 * x[1]
    return y * s + y


def returns_written(x):
    """Returns the very array it wrote into (for vjp: its adjoint starts as the seed)."""
    out = np.zeros(3)
    out[0] = x[0] * x[1]
    out[2] = x[2] ** 2
    return out


# --------------------------------------------------------------- models


def logistic_nll(w, X, y):
    z = X @ w
    return np.sum(np.log1p(np.exp(-y * z))) + np.sum(np.logaddexp(0.0, -y * z))


def mlp_layer(W, b, X):
    h = np.tanh(X @ W + b)
    return np.mean(h ** 2)


def layer_norm(x, g, b):
    mu = x.mean(axis=1, keepdims=True)
    var = ((x - mu) ** 2).mean(axis=1, keepdims=True)
    y = (x - mu) / np.sqrt(var + 1e-5) * g + b
    return np.sum(y * y * np.arange(4.0))


# ------------------------------------------ tuple axes, argmax, stacks of matrices


def tuple_axes(x):
    return (np.sum(x, axis=(0, 1)) @ np.linalg.norm(x, None, (0, 1))
            + x.mean(axis=(1, 2)) @ x[:, 0, 0] + np.sum(x, axis=(0, 1, 2)) + np.sum(x ** 2, axis=(-2, -1), keepdims=True).mean()
            + np.linalg.norm(x[0], None, (0, 1)))


def argmax_pick(x):
    return x[np.argmax(x)] * np.sum(x) + x[x.argmin()] + np.sum(x[np.argmax(x, axis=0)])


def stacked_linalg(a, b):
    sign, logdet = np.linalg.slogdet(a)
    return (np.mean(logdet ** 2) + np.sum(sign * logdet) + np.mean(np.linalg.solve(a, b[0]) ** 2)
            + np.mean(np.linalg.solve(a, b) * b) + np.sum(np.linalg.det(a) ** 2)
            + np.mean(np.trace(b) ** 2))


_stack_rng = np.random.default_rng(11)
STACK = _stack_rng.uniform(-0.3, 0.3, (3, 3, 3)) + 2.0 * np.eye(3)
STACK[1] *= -1.0


x4 = a(4)
y4 = a(4)
m34 = a(3, 4)
A3 = np.eye(3) * 2.0 + a(3, 3) * 0.3

ZOO = [
    (broadcast_mul, (a(3, 4), a(4)), (0, 1)),
    (broadcast_mul, (a(3, 1), a(1, 4)), (0, 1)),
    (broadcast_mul, (a(4), a(3, 4)), (0, 1)),
    (broadcast_mul, (0.7, a(3, 4)), (0, 1)),
    (broadcast_mul, (a(1, 4), a(3, 4)), (0, 1)),
    (scalar_times_array, (1.3, a(3, 4)), (0, 1)),
    (column_minus_row, (a(3, 1), a(1, 4)), (0, 1)),
    (ufuncs, (a(3, 4, lo=-0.9, hi=0.9),), 0),
    (abs_sign, (a(4, lo=0.2) * np.array([1, -1, 1, -1]),), 0),
    (power_arctan2, (a(3, 4), a(4, lo=0.5, hi=1.5)), (0, 1)),
    (max_min_clip, (np.array([0.5, -0.4, 0.9, 0.05]), np.array([0.1, 0.2, -0.3, 0.7])), (0, 1)),
    (where_relu, (np.array([[0.5, -0.4], [0.9, -0.05]]),), 0),
    (comparisons_are_constant, (np.array([0.1, 0.5, 0.7, 0.9]),), 0),
    (reductions, (a(3, 4, lo=0.2),), 0),
    (logsumexp, (a(5),), 0),
    (softmax_rows, (a(3, 4), a(3, 4)), 0),
    (norms, (a(3, 4),), 0),
    (matmul_mixes, (a(3, 3), a(3, 2), a(3), a(3)), (0, 1, 2, 3)),
    (outer_inner_trace, (a(3), a(3), a(3, 3)), (0, 1, 2)),
    (transpose, (a(3, 4),), 0),
    (solve_inv_det, (A3, a(3)), (0, 1)),
    (shapes, (a(3, 4),), 0),
    (stacking, (a(3), a(3)), (0, 1)),
    (zeros_ones_like, (a(3, 4),), 0),
    (shape_and_len, (a(5),), 0),
    (index_reads, (a(5), a(3, 4)), (0, 1)),
    (mask_read, (np.array([0.5, -0.4, 0.9, -0.2]),), 0),
    (fancy_repeated, (a(4),), 0),
    (fancy_columns, (a(3, 4),), 0),
    (newaxis_read, (a(3), a(4)), (0, 1)),
    (loop_reads, (a(6),), 0),
    (loop_stencil, (a(7),), 0),
    (loop_matrix, (a(3, 3), a(3)), (0, 1)),
    (fill_in_loop, (a(4),), 0),
    (column_update, (a(2, 3), a(2)), (0, 1)),
    (mask_write, (np.array([0.2, 0.7, -0.4, 0.9, 0.55]),), 0),
    (overwrite_after_read, (a(4),), 0),
    (recurrence, (a(5), 0.7), (0, 1)),
    (heat_steps, (a(6), 0.2), (0, 1)),
    (boundary_writes, (a(5), 0.3), (0, 1)),
    (rows_and_elements, (a(3, 2), a(3)), (0, 1)),
    (writes_in_branches, (np.array([0.5, -0.3, 0.8, -0.6, 0.4, 0.9]),), 0),
    (writes_in_branches, (np.array([0.5, 0.3, 0.8, 0.6]),), 0),
    (slice_writes, (a(3),), 0),
    (matrix_fill, (a(3),), 0),
    (list_writes, (0.3, 0.7), (0, 1)),
    (fill_rows, (a(4),), 0),
    (calls_writer, (a(4),), 0),
    (logistic_nll, (a(5), a(20, 5), np.sign(a(20))), (0, 1)),
    (mlp_layer, (a(4, 3), a(3), a(5, 4)), (0, 1, 2)),
    (layer_norm, (a(3, 4), a(4), a(4)), (0, 1, 2)),
    (tuple_axes, (_stack_rng.uniform(-1, 1, (2, 3, 4)),), 0),
    (argmax_pick, (np.array([0.3, -0.7, 0.9, 0.1]),), 0),
    (stacked_linalg, (STACK, _stack_rng.uniform(-1, 1, (3, 3, 2))), (0, 1)),
]


def returns_indexed(x):
    """Its output is an array it also reads by index (for vjp)."""
    y = x * 2.0
    t = y[0] * y[1]
    return y * t


def elementwise_out(x):
    """An array output (for jvp)."""
    return np.sin(x) * x
