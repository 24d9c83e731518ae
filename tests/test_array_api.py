"""The runtime helpers' paths for arrays of other libraries use only the Python array
API standard: checked with ``array-api-strict``, which has nothing else (no NumPy
functions, no ``__array_function__``, no implicit conversion). Each helper gives an
array of that library, equal to what it gives for NumPy arrays (the helpers
docs/guide/arrays.md lists). And every entry point takes array-api-strict arrays
(the derivative's NumPy names run as the standard's, `backend.standard`) and gives
arrays of that library. Skipped where array-api-strict is not installed (CI
installs it with the test extra)."""

import numpy as np
import pytest

import s2sad
from s2sad import runtime
from s2sad.errors import NonScalarOutputError

xp = pytest.importorskip("array_api_strict",
                         reason="array-api-strict is not installed (pip install -e '.[test]')")

rng = np.random.default_rng(3)
G = rng.normal(size=(5, 3))
V = rng.normal(size=3)


Array = type(xp.asarray(0.0))


def strict(value):
    if isinstance(value, list):
        return [strict(v) for v in value]
    return xp.asarray(value) if isinstance(value, (np.ndarray, np.generic)) else value


CASES = {
    "unbroadcast: rows summed": (runtime.unbroadcast, (G, np.zeros((1, 3)))),
    "unbroadcast: columns summed": (runtime.unbroadcast, (G, np.zeros((5, 1)))),
    "unbroadcast: leading axis": (runtime.unbroadcast, (G, np.zeros(3))),
    "unbroadcast: to a number": (runtime.unbroadcast, (G, 0.0)),
    "unbroadcast: spread over missing axes": (runtime.unbroadcast, (V, np.zeros((4, 3)))),
    "unreduce: a float over everything": (runtime.unreduce, (2.0, G)),
    "unreduce: axis 1": (runtime.unreduce, (G.sum(axis=1), G, 1)),
    "unreduce: axis (0, 1) kept": (runtime.unreduce, (G.sum(axis=(0, 1), keepdims=True), G,
                                                      (0, 1), True)),
    "unreduce: axis -1": (runtime.unreduce, (G.sum(axis=-1), G, -1)),
    "matmul_x_bar: vector @ matrix": (runtime.matmul_x_bar, (G[:, 0], V, G.T)),
    "matmul_y_bar: matrix @ vector": (runtime.matmul_y_bar, (G[:, 0], G, V)),
    "matmul_x_bar: vector @ vector": (runtime.matmul_x_bar, (1.5, V, V)),
    "matmul_y_bar: stack @ matrix": (runtime.matmul_y_bar, (rng.normal(size=(2, 5, 4)),
                                                            rng.normal(size=(2, 5, 3)),
                                                            rng.normal(size=(3, 4)))),
    "zero_tangent": (runtime.zero_tangent, (G,)),
    "extreme_bar: everything": (runtime.extreme_bar, (1.5, G, G.max())),
    "extreme_bar: axis 1": (runtime.extreme_bar, (V[:2].repeat(3)[:5], G, G.max(axis=1), 1)),
    "extreme_bar: axis 0 kept, a tie": (runtime.extreme_bar, (V[None], np.vstack([G, G[:1]]),
                                                              np.vstack([G, G[:1]]).max(
                                                                  axis=0, keepdims=True),
                                                              0, True)),
    "norm_bar: a vector": (runtime.norm_bar, (2.0, V, np.linalg.norm(V))),
    "norm_bar: rows": (runtime.norm_bar, (V[:2].repeat(3)[:5], G, np.linalg.norm(G, axis=1),
                                          None, 1)),
    "norm_bar: a zero norm": (runtime.norm_bar, (1.0, 0 * V, 0.0 * np.linalg.norm(V))),
    # the adjoints of the joining and shaping functions
    "pieces: concatenate axis 1": (runtime.pieces, (G, [G[:, :1], G[:, 1:]], 1)),
    "unstack: axis -1": (runtime.unstack, (G, 3, -1)),
    "vstack_pieces: a row and a matrix": (runtime.vstack_pieces, (G, [V, G[1:]])),
    "untile": (runtime.untile, (np.tile(G, (2, 3)), G)),
    "unrepeat: axis 0": (runtime.unrepeat, (np.repeat(G, 2, axis=0), G, 2, 0)),
    "unsort: axis 1": (runtime.unsort, (G, G, np.argsort(G, axis=1), 1)),
    "diff_bar: twice along axis 0": (runtime.diff_bar, (G[:3], G, 2, 0)),
    "tensordot_a_bar": (runtime.tensordot_a_bar, (G.T @ G, G, G, ((0,), (0,)))),
    "tensordot_b_bar: axes swapped": (runtime.tensordot_b_bar, (G.T @ G, G, G, ((0,), (0,)))),
    "kron_a_bar": (runtime.kron_a_bar, (np.kron(G, G[:2]), G, G[:2])),
    "kron_b_bar": (runtime.kron_b_bar, (np.kron(G, G[:2]), G, G[:2])),
}


@pytest.mark.parametrize("name", list(CASES))
def test_helper_keeps_the_library_and_its_numbers(name):
    helper, args = CASES[name]
    got = helper(*(strict(a) for a in args))
    want = helper(*args)
    for g, w in zip(*((got, want) if isinstance(want, list) else ([got], [want]))):
        assert isinstance(g, Array), type(g)
        np.testing.assert_allclose(np.from_dlpack(g), w, rtol=1e-13, atol=1e-15)


def test_scalar_seed_of_a_zero_dimensional_array():
    assert runtime.scalar_seed(xp.sum(xp.asarray(G))) == 1.0
    with pytest.raises(NonScalarOutputError, match=r"array of shape \(5, 3\)"):
        runtime.scalar_seed(xp.asarray(G))


def test_unreduce_keeps_float32():
    x = xp.asarray(G.astype(np.float32))
    assert runtime.unreduce(2.0, x).dtype == xp.float32
    assert runtime.unbroadcast(x, xp.zeros((1, 3), dtype=xp.float32)).dtype == xp.float32


def curved(x, W):
    return np.sum(np.tanh(W @ x) ** 2) + np.sum(np.mean(x * x * x, axis=0, keepdims=True))


def mapped(x, W):
    return np.tanh(W @ x) * np.sum(x)


ENTRY_POINTS = {
    "grad": lambda x, W: s2sad.grad(curved, (0, 1))(x, W),
    "value_and_grad": lambda x, W: s2sad.value_and_grad(curved)(x, W),
    "vjp": lambda x, W: s2sad.vjp(mapped, x, W)[1](W @ x),
    "jvp": lambda x, W: s2sad.jvp(mapped, (x, W), (x, W)),
    "hessian": lambda x, W: s2sad.hessian(curved, (0, 1))(x, W),
    "hvp": lambda x, W: s2sad.hvp(curved)(x, W, x),
    "jacobian forward": lambda x, W: s2sad.jacobian(mapped, mode="forward")(x, W),
    "jacobian reverse": lambda x, W: s2sad.jacobian(mapped, (0, 1), mode="reverse")(x, W),
    'grad(mode="forward")': lambda x, W: s2sad.grad(curved, (0, 1), mode="forward")(x, W),
}


def leaves(value):
    return [e for v in value for e in leaves(v)] if isinstance(value, tuple) else [value]


@pytest.mark.parametrize("name", list(ENTRY_POINTS))
def test_entry_point_takes_strict_arrays(name):
    x, W = rng.normal(size=3), rng.normal(size=(4, 3))
    got = leaves(ENTRY_POINTS[name](xp.asarray(x), xp.asarray(W)))
    want = leaves(ENTRY_POINTS[name](x, W))
    assert len(got) == len(want)
    for g, w in zip(got, want):
        assert isinstance(g, Array), type(g)
        np.testing.assert_allclose(np.from_dlpack(g), w, rtol=1e-12, atol=1e-14)


W_HELD = np.array([1.0, -2.0, 0.5])


def doubled(m):
    return m * 2.0


class Holder:
    def __init__(self):
        self.W = W_HELD

    def loss(self, x):
        return np.sum(x * self.W) + np.sum(doubled(W_HELD) * x * x)


def module_data(x):
    return np.sum(x * W_HELD) + np.sum(doubled(W_HELD) * x)


@pytest.mark.parametrize("f", [module_data, Holder().loss], ids=["module", "object"])
def test_numpy_data_and_helpers_run_with_strict_arrays(f):
    """NumPy arrays a module or an object holds meet strict arrays (which take no
    NumPy array) as strict arrays, and a helper run without a derivative runs with
    the standard's functions (`driver.libraries.run_with_library`)."""
    xp = pytest.importorskip("array_api_strict")
    x = np.array([0.3, -0.7, 1.2])
    got = s2sad.grad(f)(xp.asarray(x))
    assert type(got).__module__.startswith("array_api_strict")
    np.testing.assert_allclose(np.asarray(got), s2sad.grad(f)(x), rtol=1e-12)


try:
    import array_api_strict as xps
except ImportError:  # (the test below is skipped)
    xps = None


def strict_constant(x):
    return np.sum(np.exp(x) * np.asarray(xps.asarray(W_HELD)))


def strict_of_x(x):
    return np.sum(xps.asarray(x) * 2.0)


def test_a_librarys_function_is_run_as_written_not_read():
    """A Python function of a library (array-api-strict's ``asarray``) is not the
    user's: called on constants it runs as written; on a value carrying a derivative
    it is refused at the user's line (its own source is never read: s2sad stopped in
    array-api-strict's file at a name of its type hints)."""
    pytest.importorskip("array_api_strict")
    x = np.array([0.1, 0.2, 0.3])
    np.testing.assert_allclose(s2sad.grad(strict_constant)(x), np.exp(x) * W_HELD)
    with pytest.raises(s2sad.errors.NoRuleError) as info:
        s2sad.grad(strict_of_x)(x)
    assert info.value.filename == __file__


def _singular_values(x):
    return np.sum(np.linalg.svd(x, compute_uv=False))


def _squared_eigenvalues(S):
    return np.sum(np.linalg.eigvalsh(S) ** 2)


def _frobenius(M):
    return np.linalg.norm(M, "fro")


_SYMMETRIC = np.array([[2.0, 0.3, 0.1], [0.3, 1.5, -0.2], [0.1, -0.2, 1.0]])
_TALL = np.array([[1.0, 2.0], [3.0, 4.0], [0.5, -1.0]])


@pytest.mark.parametrize("f,a", [(_singular_values, _TALL), (_squared_eigenvalues, _SYMMETRIC),
                                 (_frobenius, _TALL)])
@pytest.mark.parametrize("mode", ["reverse", "forward"])
def test_linear_algebra_the_standard_spells_otherwise(f, a, mode):
    """``svd(x, compute_uv=False)`` (the standard's svdvals), ``eigh(S, "L")`` of
    eigvalsh's rule (the standard's eigh takes no UPLO) and ``norm(M, "fro")``
    raised TypeError or ValueError inside the derivative."""
    got = s2sad.grad(f, mode=mode)(strict(a))
    np.testing.assert_allclose(np.asarray(got), s2sad.grad(f)(a), rtol=1e-12, atol=1e-14)
