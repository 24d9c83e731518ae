"""np.linalg's decompositions as a user calls them: cholesky, eigh, eigvalsh, svd,
svdvals, qr and pinv in losses, their Hessians, stacks of matrices, the engines, the
options s2sad refuses, and eigenvalues that repeat. (Each rule row is checked on its
own against central differences and the other mode by tests/test_rules.py, with the
examples of tests/linalg_examples.py.)"""

import numpy as np
import pytest

import s2sad
from s2sad.engines import dual_grad, tape_grad
from tests.helpers import central_diff
from tests.linalg_examples import full_rank, spd


def spectral_loss(a):
    w, v = np.linalg.eigh(a)
    return np.sum(w ** 2) + np.sum(v[:, 0] ** 4) + np.sum(np.log(np.linalg.eigvalsh(a)))


def decompositions(a):
    lower = np.linalg.cholesky(a)
    u, s, vh = np.linalg.svd(a, full_matrices=False)
    q, r = np.linalg.qr(a)
    return (np.sum(lower ** 3) + np.sum(s ** 3) + np.sum(u ** 4) + np.sum(vh[..., 0, :] ** 2)
            + np.sum(r ** 2) + np.sum(q[..., 0] ** 3) + np.sum(np.linalg.pinv(a) ** 2)
            + np.sum(np.linalg.svd(a, compute_uv=False)) + np.sum(np.linalg.svdvals(a) ** 2))


def rng():
    import random
    return random.Random(7)


def test_hessian_of_an_eigendecomposition_loss():
    a = spd(rng(), 3)
    grad = s2sad.grad(spectral_loss)
    expected = np.array([central_diff(lambda x: grad(x).ravel()[k], (a,), 0).ravel()
                         for k in range(a.size)])
    H = s2sad.hessian(spectral_loss)(a)
    assert H.shape == a.shape + a.shape
    np.testing.assert_allclose(H.reshape(a.size, a.size), expected, rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize("a", [spd(rng(), 3), np.stack([spd(rng(), 3), spd(rng(), 3)])],
                         ids=["matrix", "stack"])
def test_a_loss_of_every_decomposition(a):
    g = s2sad.grad(decompositions)(a)
    np.testing.assert_allclose(g, central_diff(decompositions, (a,), 0), rtol=1e-5, atol=1e-6)
    for engine in (tape_grad, dual_grad):
        np.testing.assert_allclose(engine(decompositions, (a,), 0)[1], g, rtol=1e-9, atol=1e-10)
    v = full_rank(rng(), a.shape)
    _, t = s2sad.jvp(decompositions, (a,), (v,))
    assert t == pytest.approx(np.sum(g * v), rel=1e-9)


def test_svd_of_tall_and_wide_matrices():
    def f(a):
        u, s, vh = np.linalg.svd(a, full_matrices=False)
        return np.sum(u * np.arange(u.size).reshape(u.shape)) + np.sum(s) + np.sum(vh ** 3)

    for shape in [(4, 2), (2, 4)]:
        a = full_rank(rng(), shape)
        np.testing.assert_allclose(s2sad.grad(f)(a), central_diff(f, (a,), 0), rtol=1e-5,
                                   atol=1e-7)


def test_svd_with_full_matrices_is_refused_at_the_line():
    def f(a):
        u, s, vh = np.linalg.svd(a)
        return np.sum(s)

    with pytest.raises(s2sad.NoRuleError, match="pass full_matrices=False"):
        s2sad.grad(f)(np.eye(2))
    with pytest.raises(s2sad.EngineError, match="full_matrices"):
        tape_grad(f, (np.eye(2),), 0)


def test_repeated_eigenvalues():
    """A loss of the eigenvalues alone, or of the projector on an eigenspace, has a
    derivative at a repeated eigenvalue: no NaN from the eigenvalues' gap of 0."""
    def values(a):
        return np.sum(np.linalg.eigh(a)[0] ** 2)

    def projector(a):
        w, v = np.linalg.eigh(a)
        top = v[:, 1:]  # (the eigenspace of the repeated eigenvalue 2)
        return np.sum((top @ top.T) * np.arange(9.0).reshape(3, 3))

    a = np.diag([1.0, 2.0, 2.0])
    np.testing.assert_allclose(s2sad.grad(values)(a), 2 * a, atol=1e-12)
    g = s2sad.grad(projector)(a)
    assert np.all(np.isfinite(g))
    np.testing.assert_allclose(g, central_diff(projector, (a,), 0), atol=1e-6)


def lower_values(x):
    return np.sum(np.linalg.eigvalsh(x, "L") ** 3)


def upper_values(x):
    return np.sum(np.linalg.eigvalsh(x, UPLO="U") ** 3)


def test_the_triangle_not_read_has_no_derivative():
    a = spd(rng(), 3)
    a = a + np.triu(a, 1) * 0.5  # (an upper triangle the default UPLO="L" never reads)
    for f, unread in [(lower_values, np.triu(np.ones((3, 3)), 1)),
                      (upper_values, np.tril(np.ones((3, 3)), -1))]:
        g = s2sad.grad(f)(a if f is lower_values else a.T)
        assert np.all(g[unread == 1] == 0.0)
        np.testing.assert_allclose(g, central_diff(f, (a if f is lower_values else a.T,), 0),
                                   rtol=1e-6, atol=1e-8)


def test_an_uplo_that_is_not_a_literal_is_refused():
    def f(x, uplo):
        return np.sum(np.linalg.eigvalsh(x, uplo))

    with pytest.raises(s2sad.NoRuleError, match="UPLO not a literal"):
        s2sad.grad(f)(np.eye(2), "L")
