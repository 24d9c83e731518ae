"""Reverse-mode rules of NumPy's linear algebra: products (``np.dot``, ``np.matmul``,
``np.outer``, ``np.inner``, ``np.vdot``), ``np.trace`` (any offset and axes),
transposes and moved axes, ``np.linalg.solve``, ``inv``, ``det`` and ``slogdet``, and
the decompositions ``np.linalg.cholesky``, ``eigh``, ``eigvalsh``, ``eig`` and
``eigvals`` (of real matrices whose eigenvalues are real: `runtime.eig_inv_t` refuses
complex ones), ``svd``, ``svdvals``, ``qr`` and ``pinv``, ``np.linalg.matrix_power``
(of an int power, negative too: the corner block of a power of a block matrix) and
``np.linalg.multi_dot``.

The form of `reverse` (and its `rule` decorator), paired with `linalg_forward` as
`reverse` is with `forward` (the dot-product test): same keys, order and banner. A
variant per input kind (``("2d", "1d")``, ``"array"`` for stacks of matrices) where
the rank decides the product or the axes. ``det``'s rule holds at singular matrices
too (cofactors).
"""

import numpy as np

from ..runtime import (cofactors, diagonal_bar, eig_inv_t, inverse_t, matmul_x_bar, matmul_y_bar,
                       multi_dot_bar, unbroadcast)
from .registry import add_rule
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


@rule(np.dot, when=("scalar", "array"))
def dot_number_array(x, y, out, out_bar):  # (a number multiplies: np.dot(2.0, W))
    return np.sum(out_bar * y), out_bar * x


@rule(np.dot, when=("array", "scalar"))
def dot_array_number(x, y, out, out_bar):
    return out_bar * y, np.sum(out_bar * x)


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


@rule(np.vdot, when=("1d", "1d"))
def np_vdot_1d_1d(x, y, out, out_bar):
    return out_bar * y, out_bar * x


@rule(np.vdot)
def np_vdot(x, y, out, out_bar):
    # (of real arrays, each flattened: the other's elements, in its own shape)
    return (np.reshape(out_bar * np.ravel(y), np.shape(x)),
            np.reshape(out_bar * np.ravel(x), np.shape(y)))


@rule(np.add.outer)
def np_add_outer(x, y, out, out_bar):
    # (out[i..., j...] = x[i...] + y[j...]: out_bar summed over y's axes, and x's)
    g = np.reshape(out_bar, (np.size(x), np.size(y)))
    return np.reshape(np.sum(g, axis=1), np.shape(x)), np.reshape(np.sum(g, axis=0), np.shape(y))


@rule(np.subtract.outer)
def np_subtract_outer(x, y, out, out_bar):
    g = np.reshape(out_bar, (np.size(x), np.size(y)))
    return np.reshape(np.sum(g, axis=1), np.shape(x)), np.reshape(-np.sum(g, axis=0), np.shape(y))


@rule(np.multiply.outer)
def np_multiply_outer(x, y, out, out_bar):
    # (np.outer's terms, of x and y of any shapes: the result has their axes, x's first)
    g = np.reshape(out_bar, (np.size(x), np.size(y)))
    return np.reshape(g @ np.ravel(y), np.shape(x)), np.reshape(np.ravel(x) @ g, np.shape(y))


@rule(np.trace, when=("2d",))
def np_trace_2d(x, *, offset=0, axis1=0, axis2=1, out, out_bar):
    # (the axes the other way round: the diagonal on the other side)
    return out_bar * (np.eye(x.shape[0], x.shape[1], dtype=x.dtype)
                      if offset in (0,) and axis1 in (0, -2) else
                      np.eye(x.shape[0], x.shape[1], offset if axis1 in (0, -2) else -offset,
                             dtype=x.dtype))


@rule(np.trace)
def np_trace(x, *, offset=0, axis1=0, axis2=1, out, out_bar):
    # more than two axes: the diagonal of the first two, for each index of the others;
    # an offset or other axes (literal defaults fold to the first form): out_bar on
    # that diagonal, the diagonal's last axis broadcast from out_bar
    return (np.reshape(np.eye(x.shape[0], x.shape[1], dtype=x.dtype),
                       x.shape[:2] + (1,) * (x.ndim - 2)) * out_bar
            if offset in (0,) and axis1 in (0,) and axis2 in (1,) else
            diagonal_bar(np.expand_dims(out_bar, -1) + np.zeros_like(
                np.diagonal(x, offset, axis1, axis2)), x, offset, axis1, axis2))


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


@rule(np.rollaxis)
def np_rollaxis(a, axis, start=0, *, out, out_bar):
    # (np.moveaxis(a, axis, to) with `to` start counted from the front, one less when
    # the axis was before it: the axis back from there. Written without lines of its
    # own, so literal axes fold to literals: np.moveaxis(out_bar, 2, 0))
    return np.moveaxis(out_bar, (start + np.ndim(a) if start < 0 else start) - 1
                       if (axis + np.ndim(a) if axis < 0 else axis)
                       < (start + np.ndim(a) if start < 0 else start)
                       else (start + np.ndim(a) if start < 0 else start), axis), None, None


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


@rule(np.linalg.matrix_power)
def np_matrix_power(a, n, out, out_bar):
    # (A ** n moved by E is the upper right block of [[A, E], [0, A]] ** n, exactly,
    # for any integer n; the adjoint of that map at A is the map at A^T, given G)
    at = np.swapaxes(a, -1, -2)
    m = np.shape(a)[-1]
    return np.linalg.matrix_power(np.concatenate(
        [np.concatenate([at, out_bar], -1), np.concatenate([np.zeros_like(at), at], -1)], -2),
        n)[..., :m, m:], None


@rule(np.linalg.multi_dot)
def np_multi_dot(arrays, out, out_bar):
    # (each array's: the products of those before it and after it, transposed, about
    # out_bar; a 1-D first array is a row, a 1-D last one a column)
    return multi_dot_bar(out_bar, arrays)


# ------------------------------------------------ numpy: matrix decompositions
# (Every product is of the last two axes, so stacks of matrices are decomposed matrix
# by matrix as NumPy does. cholesky and eigh read one triangle of `a`: the adjoint of
# the symmetric matrix it stands for, g, is the triangle's ``g + g.T`` (its diagonal
# once) and zero in the other triangle, as central differences of NumPy's function
# see it. A term of repeated eigenvalues or singular values (their gap 0) is taken
# as 0: see docs/guide/numpy.md.)


def cholesky_refusal(upper=False):
    """The `Rule.static` check of ``np.linalg.cholesky``'s rules."""
    if upper is False:
        return None
    return "with upper= other than False (take the transpose of the lower factor: L.T)"


def eigh_refusal(UPLO="L"):
    """The `Rule.static` check of ``np.linalg.eigh``'s and ``eigvalsh``'s rules."""
    if UPLO in ("L", "U", "l", "u"):
        return None
    return "with UPLO not a literal 'L' or 'U'"


def svd_refusal(values_only: bool):
    """The `Rule.static` check of ``np.linalg.svd``'s two rules: the singular values
    alone (`values_only`, compute_uv=False), or the thin decomposition. A call the
    first refuses goes to the second; the first's reason is the one an error shows."""

    def refusal(full_matrices=True, compute_uv=True, hermitian=False):
        if hermitian is not False:
            return "with hermitian= other than False"
        if compute_uv is not True and compute_uv is not False:
            return "with compute_uv not a literal True or False"
        if compute_uv is False:
            return None if values_only else "with compute_uv=False"
        if full_matrices is not False:
            return ("with full_matrices=True, NumPy's default (the extra columns of u or vh "
                    "are not unique: pass full_matrices=False, which is the same for a "
                    "square matrix, or compute_uv=False for the singular values alone)")
        return "with compute_uv=True" if values_only else None

    return refusal


def qr_refusal(mode="reduced"):
    """The `Rule.static` check of ``np.linalg.qr``'s rule."""
    return None if mode == "reduced" else f"with mode={mode!r} (s2sad differentiates mode='reduced')"


def pinv_refusal(rcond=None, hermitian=False, rtol=None):
    return None if hermitian is False else "with hermitian= other than False"


@rule(np.linalg.cholesky, static=cholesky_refusal)
def np_cholesky(a, *, upper=False, out, out_bar):
    n = a.shape[-1]
    lower = np.tri(n)
    l_inv = np.linalg.inv(out)
    # (l.T @ out_bar, its lower triangle with the diagonal halved, between l^-T and l^-1)
    g = np.swapaxes(l_inv, -1, -2) @ ((np.swapaxes(out, -1, -2) @ out_bar)
                                      * (lower - 0.5 * np.eye(n))) @ l_inv
    return (g + np.swapaxes(g, -1, -2)) * lower - g * np.eye(n)


@rule(np.linalg.eigh, static=eigh_refusal)
def np_eigh(a, *, UPLO="L", out, out_bar):
    w = out[0]
    v = out[1]
    w_bar = unbroadcast(out_bar[0], w)  # (zeros where the output's part is not read)
    v_bar = unbroadcast(out_bar[1], v)
    vt = np.swapaxes(v, -1, -2)
    gap = w[..., None, :] - w[..., :, None]  # (w[j] - w[i])
    inverse_gap = 1.0 / np.where(gap == 0, np.inf, gap)  # (0 where the gap is 0)
    n = a.shape[-1]
    eye = np.eye(n)
    # (v (diag(w_bar) + inverse_gap * (vt v_bar)) vt: three products of matrices)
    g = v @ (inverse_gap * (vt @ v_bar) + w_bar[..., None] * eye) @ vt
    read = np.tri(n) if UPLO in ("L", "l") else np.tri(n).T
    return (g + np.swapaxes(g, -1, -2)) * read - g * eye


@rule(np.linalg.eigvalsh, static=eigh_refusal)
def np_eigvalsh(a, *, UPLO="L", out, out_bar):
    v = np.linalg.eigh(a, UPLO)[1]
    g = (v * np.expand_dims(out_bar, -2)) @ np.swapaxes(v, -1, -2)
    n = a.shape[-1]
    read = np.tri(n) if UPLO in ("L", "l") else np.tri(n).T
    return (g + np.swapaxes(g, -1, -2)) * read - g * np.eye(n)


# Of a matrix symmetric by construction (``B + B.T``, ``X.T @ X``: the reverse
# transform proves it, `transform.symmetric`), cholesky's, eigh's and eigvalsh's
# adjoint is g itself: such a matrix has only symmetric tangents, on which g and its
# triangle agree, so the triangle's fold (a mask and two more passes) is not needed.
# Rules of a matrix, not of a stack (``.T`` of a stack is not its matrices'
# transposes); `OF_SYMMETRIC` holds them, apart from the tables, and
# tests/test_linalg_decompositions.py checks them along symmetric directions.

OF_SYMMETRIC: dict = {}


def of_symmetric(key, static=None):
    """Register the decorated function as `key`'s reverse rule for a symmetric matrix."""

    def register(func):
        add_rule(OF_SYMMETRIC, "reverse", key, func, ("2d",), static)
        return func

    return register


@of_symmetric(np.linalg.cholesky, static=cholesky_refusal)
def np_cholesky_of_symmetric(a, *, upper=False, out, out_bar):
    n = a.shape[-1]
    l_inv = np.linalg.inv(out)
    return l_inv.T @ ((out.T @ out_bar) * (np.tri(n) - 0.5 * np.eye(n))) @ l_inv


@of_symmetric(np.linalg.eigh, static=eigh_refusal)
def np_eigh_of_symmetric(a, *, UPLO="L", out, out_bar):
    w = out[0]
    v = out[1]
    w_bar = unbroadcast(out_bar[0], w)  # (zeros where the output's part is not read)
    v_bar = unbroadcast(out_bar[1], v)
    gap = w - w[:, None]  # (w[j] - w[i])
    inverse_gap = 1.0 / np.where(gap == 0, np.inf, gap)  # (0 where the gap is 0)
    return v @ (inverse_gap * (v.T @ v_bar) + np.diag(w_bar)) @ v.T


@of_symmetric(np.linalg.eigvalsh, static=eigh_refusal)
def np_eigvalsh_of_symmetric(a, *, UPLO="L", out, out_bar):
    v = np.linalg.eigh(a, UPLO)[1]
    return (v * out_bar) @ v.T


@rule(np.linalg.eig)
def np_eig(a, out, out_bar):
    # a = v diag(w) inv(v) of a real matrix with real eigenvalues, each column of v of
    # norm 1 (NumPy's): inv(v).T (diag(w_bar) + inverse_gap * h) v.T, h = v.T v_bar less
    # v.T v diag(v.T v_bar), what keeping the norms 1 takes away
    w = out[0]
    v = out[1]
    w_bar = unbroadcast(out_bar[0], w)
    v_bar = unbroadcast(out_bar[1], v)
    vt = np.swapaxes(v, -1, -2)
    gap = np.expand_dims(w, -2) - np.expand_dims(w, -1)  # (w[j] - w[i])
    inverse_gap = np.where(gap == 0, 0.0, 1.0 / np.where(gap == 0, 1.0, gap))
    g = vt @ v_bar
    n = a.shape[-1]
    h = g - (vt @ v) * np.sum(g * np.eye(n), axis=-2, keepdims=True)  # (g's diagonal, a row)
    return eig_inv_t(v) @ (inverse_gap * h + np.expand_dims(w_bar, -1) * np.eye(n)) @ vt


@rule(np.linalg.eigvals)
def np_eigvals(a, out, out_bar):
    v = np.linalg.eig(a)[1]
    return eig_inv_t(v) @ (np.expand_dims(out_bar, -1) * np.swapaxes(v, -1, -2))


@rule(np.linalg.svd, when="array", static=svd_refusal(values_only=True))
def np_svd_values(a, *, full_matrices=True, compute_uv=True, hermitian=False, out, out_bar):
    # (u diag(s_bar) vh of the thin decomposition)
    usv = np.linalg.svd(a, full_matrices=False)
    return (usv[0] * np.expand_dims(out_bar, -2)) @ usv[2]


@rule(np.linalg.svd, static=svd_refusal(values_only=False))
def np_svd(a, *, full_matrices=True, compute_uv=True, hermitian=False, out, out_bar):
    # (the thin decomposition a = u diag(s) vh; nonzero singular values where a is not
    # square, whose u or vh leave out a complement)
    u = out[0]
    s = out[1]
    vh = out[2]
    u_bar = unbroadcast(out_bar[0], u)
    s_bar = unbroadcast(out_bar[1], s)
    vh_bar = unbroadcast(out_bar[2], vh)
    ut = np.swapaxes(u, -1, -2)
    v = np.swapaxes(vh, -1, -2)
    s2 = s * s
    gap = np.expand_dims(s2, -2) - np.expand_dims(s2, -1)  # (s[j]**2 - s[i]**2)
    inverse_gap = np.where(gap == 0, 0.0, 1.0 / np.where(gap == 0, 1.0, gap))
    j = inverse_gap * (ut @ u_bar)
    k = inverse_gap * (vh @ np.swapaxes(vh_bar, -1, -2))
    core = (j + np.swapaxes(j, -1, -2)) * np.expand_dims(s, -2) \
        + np.expand_dims(s, -1) * (k + np.swapaxes(k, -1, -2))
    inner = u @ (core + np.expand_dims(s_bar, -1) * np.eye(s.shape[-1])) @ vh
    # (the parts of u_bar and vh_bar outside the spans of u and v)
    u_out = (u_bar - u @ (ut @ u_bar)) / np.expand_dims(s, -2)
    vh_out = (vh_bar - (vh_bar @ v) @ vh) / np.expand_dims(s, -1)
    return inner + u_out @ vh + u @ vh_out


@rule(np.linalg.svdvals)
def np_svdvals(x, out, out_bar):
    usv = np.linalg.svd(x, full_matrices=False)
    return (usv[0] * np.expand_dims(out_bar, -2)) @ usv[2]


@rule(np.linalg.qr, static=qr_refusal)
def np_qr(a, *, mode="reduced", out, out_bar):
    # (a tall or square matrix: r is square and invertible)
    q = out[0]
    r = out[1]
    q_bar = unbroadcast(out_bar[0], q)
    r_bar = unbroadcast(out_bar[1], r)
    n = r.shape[-1]
    m = r_bar @ np.swapaxes(r, -1, -2) - np.swapaxes(q, -1, -2) @ q_bar
    # (m's upper triangle, and its transpose's strictly lower one)
    m = m * np.tri(n).T + np.swapaxes(m, -1, -2) * (np.tri(n) - np.eye(n))
    return np.swapaxes(np.linalg.solve(r, np.swapaxes(q_bar + q @ m, -1, -2)), -1, -2)


@rule(np.linalg.pinv, static=pinv_refusal)
def np_pinv(a, *, rcond=None, hermitian=False, rtol=None, out, out_bar):
    # (where the rank is constant: a matrix of full rank)
    pt = np.swapaxes(out, -1, -2)
    gt = np.swapaxes(out_bar, -1, -2)
    left = gt @ out @ pt
    right = pt @ out @ gt
    return -pt @ out_bar @ pt + left - a @ (out @ left) + right - (right @ out) @ a
