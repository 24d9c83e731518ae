"""Examples for the rules of np.linalg's decompositions (tests/test_rules.py's
`array_examples` asks here for their keys): well-conditioned matrices, symmetric
positive definite ones for cholesky and eigh (whose eigenvalues are distinct), ones
with real eigenvalues apart for eig and eigvals, stacks
of them, tall and wide ones, and the options each function takes."""

import numpy as np

KEYS = (np.linalg.cholesky, np.linalg.eigh, np.linalg.eigvalsh, np.linalg.svd,
        np.linalg.svdvals, np.linalg.qr, np.linalg.pinv, np.linalg.eig, np.linalg.eigvals,
        np.linalg.matrix_power, np.linalg.multi_dot)


def arr(r, shape, lo=-1.0, hi=1.0):
    return np.asarray([r.uniform(lo, hi) for _ in range(int(np.prod(shape)))]).reshape(shape)


def spd(r, n):
    """A symmetric positive definite matrix, its eigenvalues apart (1, 2, ... n, and a
    random rotation)."""
    q, _ = np.linalg.qr(arr(r, (n, n)))
    return (q * np.arange(1.0, n + 1)) @ q.T


def lower_read(r, n):
    """`spd` with another upper triangle: cholesky and eigh read the lower one."""
    a = spd(r, n)
    return a + np.triu(arr(r, (n, n)), 1)


def real_spectrum(r, n):
    """A matrix that is not symmetric, with real eigenvalues apart (1, -2, 3, ...:
    negative ones too) and independent eigenvectors: s diag(w) inv(s)."""
    s = arr(r, (n, n)) + 2.0 * np.eye(n)
    w = np.arange(1.0, n + 1) * np.where(np.arange(n) % 2, -1.0, 1.0)
    return (s * w) @ np.linalg.inv(s)


def full_rank(r, shape):
    """A matrix (or a stack) whose singular values are apart, none near 0."""
    a = arr(r, shape)
    u, s, vh = np.linalg.svd(a, full_matrices=False)
    return (u * np.linspace(2.0, 1.0, s.shape[-1])) @ vh


def examples(key, rule, r):
    """(inputs, options) examples for the rule `rule` of `key`."""
    if key in (np.linalg.cholesky, np.linalg.eigh, np.linalg.eigvalsh):
        out = [([spd(r, 3)], {}), ([lower_read(r, 3)], {}),
               ([np.stack([spd(r, 3), spd(r, 3)])], {}), ([spd(r, 1)], {})]
        if key is not np.linalg.cholesky:
            out += [([lower_read(r, 3).T], {"UPLO": "U"}), ([spd(r, 2)], {"UPLO": "L"})]
        return out
    if key in (np.linalg.svd, np.linalg.svdvals):
        shapes = [(3, 3), (4, 2), (2, 4), (2, 3, 2)]
        if key is np.linalg.svdvals:
            return [([full_rank(r, s)], {}) for s in shapes]
        options = {"compute_uv": False} if rule.when == "array" else {"full_matrices": False}
        return [([full_rank(r, s)], options) for s in shapes]
    if key is np.linalg.qr:  # (tall or square: r is invertible)
        return [([full_rank(r, s)], {}) for s in [(3, 3), (4, 2), (2, 4, 3)]]
    if key in (np.linalg.eig, np.linalg.eigvals):  # (real eigenvalues: see real_spectrum)
        return [([real_spectrum(r, 3)], {}), ([real_spectrum(r, 4)], {}), ([real_spectrum(r, 1)], {}),
                ([np.stack([real_spectrum(r, 3), real_spectrum(r, 3)])], {})]
    if key is np.linalg.pinv:  # (of full rank, where the derivative exists)
        return [([full_rank(r, s)], {}) for s in [(3, 3), (4, 2), (2, 4), (2, 3, 2)]]
    if key is np.linalg.matrix_power:  # (n of 0, 1, more, negative; a stack)
        a = np.eye(3) + arr(r, (3, 3), -0.4, 0.4)
        return [([a, 3], {}), ([a, 0], {}), ([a, 1], {}), ([a, 6], {}), ([a, -2], {}),
                ([np.stack([a, a.T]), 2], {})]
    if key is np.linalg.multi_dot:  # (1-D ends, two arrays)
        return [([[arr(r, (3, 4)), arr(r, (4, 5)), arr(r, (5, 2))]], {}),
                ([[arr(r, (4,)), arr(r, (4, 5)), arr(r, (5, 2))]], {}),
                ([[arr(r, (3, 4)), arr(r, (4, 2)), arr(r, (2,))]], {}),
                ([[arr(r, (4,)), arr(r, (4, 3)), arr(r, (3,))]], {}),
                ([[arr(r, (3, 4)), arr(r, (4, 2))]], {})]
    raise KeyError(key)
