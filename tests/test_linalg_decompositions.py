"""np.linalg's decompositions as a user calls them: cholesky, eigh, eigvalsh, svd,
svdvals, qr and pinv in losses, their Hessians, stacks of matrices, the engines, the
options s2sad refuses, and eigenvalues that repeat. (Each rule row is checked on its
own against central differences and the other mode by tests/test_rules.py, with the
examples of tests/linalg_examples.py.)"""

import numpy as np
import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st

import s2sad
from s2sad.engines import dual_grad, tape_grad
from tests.helpers import central_diff
from tests.fuzz_programs import load
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


def general_spectral_loss(a):
    w, v = np.linalg.eig(a)
    # (a loss of v that the sign of each column leaves alone, as NumPy picks it)
    return (np.sum(w ** 2) + np.sum(v ** 2 * np.arange(1.0, v.shape[-1] + 1))
            + np.sum(np.linalg.eigvals(a) ** 3) + np.sum(np.abs(np.real(w))))


@pytest.mark.parametrize("shape", [(3, 3), (2, 4, 4), (1, 1)], ids=["matrix", "stack", "1x1"])
def test_eig_of_a_matrix_that_is_not_symmetric(shape):
    """eig and eigvals of real matrices with real eigenvalues: both modes, the engines
    and the Hessian against central differences."""
    from tests.linalg_examples import real_spectrum
    r = rng()
    n = shape[-1]
    a = real_spectrum(r, n) if len(shape) == 2 else np.stack([real_spectrum(r, n)
                                                             for _ in range(shape[0])])
    g = s2sad.grad(general_spectral_loss)(a)
    np.testing.assert_allclose(g, central_diff(general_spectral_loss, (a,), 0), rtol=1e-5,
                               atol=1e-6)
    np.testing.assert_allclose(s2sad.grad(general_spectral_loss, mode="forward")(a), g,
                               rtol=1e-9, atol=1e-10)
    for engine in (tape_grad, dual_grad):
        np.testing.assert_allclose(engine(general_spectral_loss, (a,), 0)[1], g, rtol=1e-9,
                                   atol=1e-10)
    if len(shape) == 2:
        expected = np.array([central_diff(lambda x: s2sad.grad(general_spectral_loss)(x)
                                          .ravel()[k], (a,), 0).ravel() for k in range(a.size)])
        H = s2sad.hessian(general_spectral_loss)(a)
        np.testing.assert_allclose(H.reshape(a.size, a.size), expected, rtol=1e-5, atol=1e-5)


def test_eig_at_complex_eigenvalues_says_why():
    """A rotation's eigenvalues are complex: s2sad's derivatives are real, so it is
    refused in every mode and engine, never the real part of a complex adjoint."""
    def real_parts(a):  # (a real loss of complex results)
        w, v = np.linalg.eig(a)
        return np.sum(np.real(w) ** 2) + np.sum(np.abs(v[..., 0])) + np.sum(np.real(np.linalg.eigvals(a)))

    rotation = np.array([[0.0, -1.0], [1.0, 0.0]])
    for mode in ("reverse", "forward"):
        with pytest.raises(ValueError, match="complex eigenvalues"):
            s2sad.grad(real_parts, mode=mode)(rotation)
    for engine in (tape_grad, dual_grad):
        with pytest.raises(s2sad.EngineError, match="complex eigenvalues"):
            engine(real_parts, (rotation,), 0)


def test_eig_at_a_repeated_eigenvalue():
    """Where two eigenvalues are equal (and the matrix diagonalizable), a loss of the
    eigenvalues alone has its derivative: the coupling of their vectors is taken as 0,
    as eigh's."""
    s = np.array([[1.0, 0.3, 0.0], [0.2, 1.0, 0.1], [0.0, 0.4, 1.0]])
    a = s @ np.diag([1.0, 2.0, 2.0]) @ np.linalg.inv(s)

    def values(x):
        return np.sum(np.real(np.linalg.eig(x)[0]) ** 2)

    np.testing.assert_allclose(s2sad.grad(values)(a), central_diff(values, (a,), 0), atol=1e-6)


# ------------------------------------------- matrices symmetric by construction


def symmetric_direction(r, n):
    d = np.array([[r.uniform(-1, 1) for _ in range(n)] for _ in range(n)])
    return d + d.T


def pairing(value):
    """<out_bar, value> for a result that may be a tuple (eigh's)."""
    def dot(out_bar, out):
        if isinstance(out, tuple):
            return sum(np.sum(b * o) for b, o in zip(out_bar, out))
        return np.sum(out_bar * out)
    return dot


@pytest.mark.parametrize("key", [np.linalg.cholesky, np.linalg.eigh, np.linalg.eigvalsh],
                         ids=["cholesky", "eigh", "eigvalsh"])
@pytest.mark.parametrize("n", [3, 1])
def test_rules_of_a_symmetric_input(key, n):
    """The rules of linalg_reverse.OF_SYMMETRIC, along symmetric directions (the only
    ones a matrix symmetric by construction moves in): central differences, and the
    forward rule by the dot-product test."""
    from s2sad.primitives.linalg_reverse import OF_SYMMETRIC
    from s2sad import primitives as rules

    (rule,) = OF_SYMMETRIC[key]
    forward = rules.lookup(key, 1, "forward", [np.zeros((n, n))]).func
    r = rng()
    a = spd(r, n)
    out = key(a)
    like = out if isinstance(out, tuple) else (out,)
    out_bar = tuple(np.array([r.uniform(-1, 1) for _ in range(o.size)]).reshape(o.shape)
                    for o in like)
    out_bar = out_bar if isinstance(out, tuple) else out_bar[0]
    dot = pairing(out)
    a_bar = rule.func(a, out=out, out_bar=out_bar)
    for _ in range(3):
        d = symmetric_direction(r, n)
        h = 1e-6
        numeric = (dot(out_bar, key(a + h * d)) - dot(out_bar, key(a - h * d))) / (2 * h)
        assert np.sum(a_bar * d) == pytest.approx(numeric, rel=1e-6, abs=1e-8)
        assert np.sum(a_bar * d) == pytest.approx(dot(out_bar, forward(a, out=out, a_dot=d)),
                                                  rel=1e-10, abs=1e-12)


def eigh_of_sum(B, C):
    w, V = np.linalg.eigh(B + B.T)
    return np.sum(((V * np.tanh(w)) @ V.T) * C)


def gram_factors(X, c):
    lower = np.linalg.cholesky(X.T @ X * c + np.eye(3))
    return np.sum(lower ** 3) + np.sum(np.linalg.eigvalsh(0.5 * (X @ X.T) - X.T @ X) ** 2)


def twice(B):
    return np.sum(np.linalg.eigvalsh(B + B) ** 3)  # (not symmetric: the fold stays)


def written_after(B):
    S = B + B.T
    S[0, 1] = 0.0  # (symmetric no longer: the fold stays)
    return np.sum(np.linalg.eigvalsh(S) * np.array([0.0, 1.0, 2.0]))


def scaled_entry(B):
    S = B @ B.T + 3 * np.eye(3)
    S[1, 0] = 0.5 * S[1, 0]
    return np.sum(np.linalg.cholesky(S))


@pytest.mark.parametrize("f,args,folds", [
    (eigh_of_sum, (spd(rng(), 4) + np.triu(np.ones((4, 4)), 1), np.arange(16.0).reshape(4, 4)),
     False),
    (gram_factors, (spd(rng(), 3) + np.eye(3), 0.7), False),
    (twice, (spd(rng(), 3) + np.triu(np.ones((3, 3)), 1),), True),
    (written_after, (spd(rng(), 3) + np.triu(np.ones((3, 3)), 1),), True),
    (scaled_entry, (spd(rng(), 3) + np.triu(np.ones((3, 3)), 1),), True)],
    ids=["eigh(B + B.T)", "cholesky(X.T @ X * c + I), eigvalsh", "eigvalsh(B + B)",
         "eigvalsh(B + B.T) written", "cholesky(B @ B.T + 3I) written"])
def test_a_matrix_symmetric_by_construction_needs_no_fold(f, args, folds):
    """B + B.T, X.T @ X and what is made of them are symmetric for every argument:
    their adjoint is not folded into a triangle (``(g + np.swapaxes(g, -1, -2)) *
    tri - g * eye``), and the gradient is still that of central differences."""
    for i in range(len(args)):
        np.testing.assert_allclose(s2sad.grad(f, wrt=i)(*args), central_diff(f, args, i),
                                   rtol=1e-6, atol=1e-7)
    assert ("np.swapaxes(" in s2sad.source(f, example=args)) is folds


SYMMETRIC_BUILDS = ["B + B.T", "B.T @ B + 3.0 * np.eye(3)", "(B @ B.T) * c + np.eye(3)",
                    "0.5 * (B + B.T) - c * (B.T @ B)"]
LATER_WRITES = ["", "S[0, 1] = 0.0", "S[1, 0] = 0.5 * S[1, 0]", "S[:, 0] *= 2.0",
                "S[2] = S[2] + c", "T = S[1:]\n    T[0, 2] = c"]
DECOMPOSITIONS = ["np.sum(np.linalg.eigvalsh(S) * np.array([0.0, 1.0, 2.0]))",
                  "np.sum(np.linalg.eigvalsh(S, UPLO='U') ** 2)",
                  "np.sum(np.linalg.cholesky(S + 9.0 * np.eye(3)))",
                  "np.sum(np.linalg.eigh(S)[0] ** 3)"]


@settings(max_examples=30, deadline=None, derandomize=True)
@given(st.sampled_from(SYMMETRIC_BUILDS), st.sampled_from(LATER_WRITES),
       st.sampled_from(DECOMPOSITIONS))
def test_a_matrix_symmetric_by_construction_then_written(build, write, decomposition):
    """The symmetric shortcut (no triangle fold) holds for a matrix symmetric for
    every argument only: a write after it was built (into it or through a view)
    makes it a matrix of its own, whose triangle the decomposition reads."""
    text = (f"import numpy as np\n\n\ndef f(B, c):\n    S = {build}\n    {write}\n"
            f"    return {decomposition}\n")
    f = load(text)
    args = (spd(rng(), 3) + np.triu(np.ones((3, 3)), 1) * 0.3, 0.7)
    try:
        got = s2sad.grad(f, wrt=(0, 1))(*args)
    except s2sad.S2SADError:  # (a write through a view may be refused; never a number)
        assume(False)
    for g, i in zip(got, (0, 1)):
        np.testing.assert_allclose(g, central_diff(f, args, i), rtol=1e-5, atol=1e-6,
                                   err_msg=text)


def _eigh_shifted_by_a_listed_diagonal(A):
    w, V = np.linalg.eigh(A + np.diag([0.0, 3.0, 6.0]))
    return np.sum(w ** 3) + np.sum(V[:, 0] ** 4)


def _svd_of_a_gram_plus_a_list(A, lst):
    u, s, vh = np.linalg.svd(A @ A.T + np.diag(lst), full_matrices=False)
    return np.sum(s ** 2) + np.sum(u[0] ** 4)


def _qr_of_a_shifted_matrix(A):
    q, r = np.linalg.qr(A + np.diag([1.0, 2.0, 3.0]))
    return np.sum(r ** 2) + np.sum(np.abs(np.diag(r)))


@pytest.mark.parametrize("f,extra", [(_eigh_shifted_by_a_listed_diagonal, ()),
                                     (_svd_of_a_gram_plus_a_list, ([0.5, 1.0, 2.0],)),
                                     (_qr_of_a_shifted_matrix, ())])
def test_a_decomposition_of_a_matrix_built_with_a_listed_diagonal(f, extra):
    """``np.diag([...])`` of a list had no kind (no rule takes a list there), so the
    sum had no rank, and eigh's pair of results was unpacked as an array's rows:
    ValueError from np.stack in the reverse sweep."""
    A = spd(rng(), 3) + np.triu(np.ones((3, 3)), 1) * 0.3
    args = (A,) + extra
    for mode in ("reverse", "forward"):
        np.testing.assert_allclose(s2sad.grad(f, mode=mode)(*args), central_diff(f, args, 0),
                                   rtol=1e-5, atol=1e-6)
