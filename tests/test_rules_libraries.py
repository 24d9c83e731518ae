"""The NumPy rule rows on other libraries' arrays: for a representative row of each
family (elementwise functions and operators, reductions with `axis` and `keepdims`,
matrix products, broadcasting, the shaping functions), the gradient of a small
program that uses it, taken on Dask arrays, JAX arrays (CPU), PyTorch tensors (CPU,
float64) and array-api-strict arrays (the array API standard and nothing else), is
an array of that library (a
Dask one still lazy: nothing computed before `.compute()`) and equals the gradient
of the same program on NumPy arrays.

The rows whose adjoint is written for NumPy arrays only are refused for the other
libraries with an `S2SADError` at the user's line (`REFUSED`), never a NumPy array or
a wrong number; docs/guide/arrays.md lists them. Each library's run is skipped where
it is not installed."""

import contextlib

import numpy as np
import pytest

import s2sad
from s2sad.errors import S2SADError

rng = np.random.default_rng(7)


# ------------------------------------------------------------------ programs
# (each a sum of sines of its result, so every number's adjoint differs)

def elementwise(x):
    return np.sum(np.sin(np.tanh(x) * np.exp(x) + np.log1p(x * x) + np.sqrt(x * x + 1.0)))


def elementwise_more(x):
    return np.sum(np.sin(np.cos(x) / (2.0 + np.abs(x)) + np.arctan(x) ** 3 - np.expm1(-x * x)))


def binary(x, y):
    return np.sum(np.sin(np.maximum(x, y) * np.minimum(x, y) + np.exp(x) ** y + x / (y + 2.0)))


def where(x, y):
    return np.sum(np.sin(np.where(x > 0.0, x * y, 0.1 * x) + np.square(y)))


def sums(x):
    return np.sum(np.sin(np.sum(x, axis=0))) + np.sum(np.sin(np.sum(x * x, axis=1,
                                                                    keepdims=True) * x))


def means(x):
    return np.sum(np.sin(np.mean(x, axis=-1))) + np.sin(np.mean(x)) \
        + np.sum(np.sin(np.var(x, axis=0)) + np.std(x, axis=0, keepdims=True))


def extremes(x):
    return np.sum(np.sin(np.max(x, axis=1))) + np.sum(np.min(x, axis=0, keepdims=True) ** 2)


def norms(x):
    return np.sum(np.sin(np.linalg.norm(x, axis=1))) + np.linalg.norm(x)


def softmax(x):
    z = x - np.max(x, axis=1, keepdims=True)
    return np.sum(np.sin(np.exp(z) / np.sum(np.exp(z), axis=1, keepdims=True)))


def matrix_vector(W, x):
    return np.sum(np.sin(W @ x)) + np.sin(x @ x)


def matrix_matrix(A, B):
    return np.sum(np.sin(A @ B.T)) + np.sum(np.sin(np.matmul(A.T, A)))


def dots(A, x):
    return np.sum(np.sin(np.dot(A, x))) + np.sum(np.sin(np.outer(x, x)))


def broadcasting(x, row, col, v):
    return np.sum(np.sin(x * row + col - v)) + np.sum(np.sin(2.5 * x / (row + 3.0)))


def reshaping(x):
    y = np.reshape(x, (3, 2, 2))  # (evenly: Dask reshapes only so)
    return np.sum(np.sin(y @ np.transpose(y, (0, 2, 1)))) + np.sum(np.sin(np.reshape(y, (12,))))


def joining(x, y):
    return np.sum(np.sin(np.concatenate([x, y * y], axis=0))) \
        + np.sum(np.sin(np.stack([x, y], axis=1)))


def axes(x):
    return np.sum(np.sin(np.expand_dims(x, 0) * np.expand_dims(x.T.T, 1)))


def none_index(x):
    return np.sum(np.sin(x[:, None] * x))


def slicing(x):
    return np.sum(np.sin(x[:, 1:] * x[:, :-1])) + np.sum(np.sin(x[1, ...]))


def flips(x):
    return np.sum(np.sin(np.flip(x, axis=0) * x))


def tiles(x):
    return np.sum(np.sin(np.tile(x, (2, 1)) * np.repeat(x, 2, axis=0)))


def cumulative(x):
    return np.sum(np.sin(np.cumsum(x, axis=1)))


def differences(x):
    return np.sum(np.sin(np.diff(x, axis=0)))


def sorted_(x):
    return np.sum(np.sin(np.sort(x, axis=1)) * np.arange(4.0))


def einsum(A, B):
    return np.sum(np.sin(np.einsum("ij,kj->ik", A, B)))


def triangles(x):
    return np.sum(np.sin(np.triu(x)) + np.tril(x) ** 2)


def clipped(x):
    return np.sum(np.sin(np.clip(x, -0.5, 0.5) * x))


def taken(x):
    return np.sum(np.sin(np.take(x, np.array([0, 2, 2]), axis=1)))


def taken_along(x):
    return np.sum(np.sin(np.take_along_axis(x, np.array([[0, 2], [3, 3], [1, 0]]), axis=1)))


def median(x):
    return np.sum(np.sin(np.median(x, axis=0)))


def products(x):
    return np.sum(np.sin(np.prod(x, axis=1)))


def cumulative_products(x):
    return np.sum(np.sin(np.cumprod(x, axis=0)))


def contractions(A, B):
    return np.sum(np.sin(np.tensordot(A, B, axes=([0], [0]))))


def vstacked(A, B):
    return np.sum(np.sin(np.vstack([np.sum(A, axis=0), B])))


def kronecker(A, B):
    return np.sum(np.sin(np.kron(A, B)))


def diagonal(x):
    return np.sum(np.sin(np.diag(x)))


def determinant(x):
    return np.sin(np.linalg.det(x))


def log_determinant(x):
    sign, logdet = np.linalg.slogdet(x @ x.T + np.eye(4))
    return np.sin(logdet)


M34, M44 = (3, 4), (4, 4)
PROGRAMS = {  # name: (program, its arguments' shapes)
    "elementwise": (elementwise, [M34]),
    "elementwise, more": (elementwise_more, [M34]),
    "maximum, minimum, power, division": (binary, [M34, M34]),
    "where": (where, [M34, M34]),
    "sum with axis and keepdims": (sums, [M34]),
    "mean, var, std": (means, [M34]),
    "max and min with axis": (extremes, [M34]),
    "norm": (norms, [M34]),
    "softmax": (softmax, [M34]),
    "matrix @ vector, vector @ vector": (matrix_vector, [M34, (4,)]),
    "matrix @ matrix, matmul": (matrix_matrix, [M34, M34]),
    "dot, outer": (dots, [M34, (4,)]),
    "broadcasting": (broadcasting, [M34, (1, 4), (3, 1), (4,)]),
    "reshape, transpose": (reshaping, [M34]),
    "concatenate, stack": (joining, [M34, M34]),
    "expand_dims, .T": (axes, [M34]),
    "an index with None": (none_index, [M34]),
    "slices": (slicing, [M34]),
    "flip": (flips, [M34]),
    "tile, repeat": (tiles, [M34]),
    "cumsum": (cumulative, [M34]),
    "diff": (differences, [M34]),
    "sort": (sorted_, [M34]),
    "einsum": (einsum, [M34, M34]),
    "triu, tril": (triangles, [M44]),
    "clip": (clipped, [M34]),
    "take": (taken, [M34]),
    "take_along_axis": (taken_along, [M34]),
    "median": (median, [M34]),
    "prod": (products, [M34]),
    "cumprod": (cumulative_products, [M34]),
    "tensordot": (contractions, [M34, M34]),
    "vstack": (vstacked, [M34, M34]),
    "kron": (kronecker, [(2, 3), (3, 2)]),
    "diag": (diagonal, [M44]),
    "det": (determinant, [M44]),
    "slogdet": (log_determinant, [M44]),
}

# The rows refused, by library, with what the error says: adjoints written for NumPy
# arrays only, functions the library has not, writes JAX arrays cannot take
NUMPY_ONLY = "written for NumPy arrays only"
UNCHANGEABLE = "JAX arrays cannot be changed"
MASK = "arithmetic on a comparison's booleans"
NO = "which array-api-strict has no counterpart of"
REFUSED = {
    "array-api-strict": {
        "maximum, minimum, power, division": MASK, "clip": MASK, "einsum": f"np.einsum, {NO}",
        "take": NUMPY_ONLY, "take_along_axis": NUMPY_ONLY, "median": f"np.median, {NO}",
        "cumprod": NUMPY_ONLY, "vstack": f"np.vstack, {NO}", "kron": f"np.kron, {NO}",
        "diag": NUMPY_ONLY, "det": NUMPY_ONLY,
        # (its adjoint writes through x[:, None], which array-api-strict refuses)
        "an index with None": "index with None"},
    "dask": {"an index with None": "index with None", "sort": "np.sort, which Dask has no",
             "take": NUMPY_ONLY, "take_along_axis": "np.take_along_axis, which Dask has no",
             "median": NUMPY_ONLY, "cumprod": NUMPY_ONLY, "diag": NUMPY_ONLY,
             "kron": "np.kron, which Dask has no",
             "det": "np.linalg.det, which Dask has no",
             "slogdet": "np.linalg.slogdet, which Dask has no"},
    "torch": {"einsum": "np.einsum, which PyTorch has no", "take": NUMPY_ONLY,
              "take_along_axis": NUMPY_ONLY,
              "median": "np.median, which PyTorch has no", "cumprod": NUMPY_ONLY,
              "vstack": "np.vstack, which PyTorch has no",
              "kron": "np.kron, which PyTorch has no", "diag": NUMPY_ONLY, "det": NUMPY_ONLY},
    "jax": {"an index with None": UNCHANGEABLE, "slices": UNCHANGEABLE, "take": NUMPY_ONLY,
            "take_along_axis": NUMPY_ONLY,
            "median": NUMPY_ONLY, "cumprod": NUMPY_ONLY, "diag": NUMPY_ONLY,
            "det": NUMPY_ONLY},
}


# ------------------------------------------------------------------ libraries

def dask_library():
    dask = pytest.importorskip("dask", reason="Dask is not installed (pip install 's2sad[dask]')")
    da = pytest.importorskip("dask.array", reason="dask.array is not installed")
    computed = [0]

    def get(graph, keys, **kwargs):
        computed[0] += 1
        return dask.get(graph, keys, **kwargs)

    @contextlib.contextmanager
    def lazily():
        before = computed[0]
        with dask.config.set(scheduler=get):
            yield
        assert computed[0] == before, "the gradient computed part of the graph"

    return {"convert": lambda a: da.from_array(a, chunks=(2,) + a.shape[1:]), "type": da.Array,
            "lazily": lazily, "numbers": lambda g: g.compute(scheduler="sync"),
            "rtol": 1e-11, "atol": 1e-13}


def jax_library():
    pytest.importorskip("jax", reason="JAX is not installed (pip install 's2sad[jax]')")
    import jax
    import jax.numpy as jnp
    return {"convert": lambda a: jnp.asarray(a, dtype=jnp.float32), "type": jax.Array,
            "lazily": contextlib.nullcontext, "numbers": np.asarray,
            "rtol": 3e-4, "atol": 3e-5}


def strict_library():
    xp = pytest.importorskip("array_api_strict", reason="array-api-strict is not installed "
                             "(pip install -e '.[test]')")
    return {"convert": xp.asarray, "type": type(xp.asarray(0.0)),
            "lazily": contextlib.nullcontext, "numbers": np.from_dlpack,
            "rtol": 1e-11, "atol": 1e-13}


def torch_library():
    torch = pytest.importorskip("torch", reason="PyTorch is not installed (pip install "
                                "'s2sad[torch]')")
    pytest.importorskip("array_api_compat", reason="array-api-compat is not installed "
                        "(pip install 's2sad[torch]')")
    return {"convert": torch.from_numpy, "type": torch.Tensor,
            "lazily": contextlib.nullcontext, "numbers": lambda g: g.numpy(),
            "rtol": 1e-11, "atol": 1e-13}


LIBRARIES = {"dask": dask_library, "jax": jax_library, "array-api-strict": strict_library,
             "torch": torch_library}


@pytest.mark.parametrize("library", list(LIBRARIES))
@pytest.mark.parametrize("name", list(PROGRAMS))
def test_rule_row_on_another_library(name, library):
    lib = LIBRARIES[library]()
    f, shapes = PROGRAMS[name]
    values = [rng.uniform(-1.0, 1.0, size=s) for s in shapes]
    wrt = tuple(range(len(values)))
    refused = REFUSED[library].get(name)
    if refused is not None:
        with pytest.raises(S2SADError, match=refused) as info:
            s2sad.grad(f, wrt)(*map(lib["convert"], values))
        assert info.value.filename == __file__
        return
    want = s2sad.grad(f, wrt)(*values)
    with lib["lazily"]():
        got = s2sad.grad(f, wrt)(*map(lib["convert"], values))
        assert all(isinstance(g, lib["type"]) for g in got), [type(g) for g in got]
    for g, ref in zip(got, want):
        assert g.shape == ref.shape
        np.testing.assert_allclose(lib["numbers"](g), ref, rtol=lib["rtol"], atol=lib["atol"])


@pytest.mark.parametrize("library", list(LIBRARIES))
def test_a_refused_row_is_refused_in_forward_mode_too(library):
    """The forward derivative (``grad(mode="forward")``, and `hessian`'s forward pass
    over the gradient) calls NumPy-only helpers too: refused at the user's line."""
    lib = LIBRARIES[library]()
    x = lib["convert"](rng.uniform(0.5, 1.0, size=M34))
    for call, name in ((s2sad.grad(determinant, mode="forward"), "np.linalg.det"),
                       (s2sad.hessian(products), "np.prod")):
        with pytest.raises(S2SADError, match="not supported yet") as info:
            call(x if name == "np.prod" else lib["convert"](rng.uniform(0.5, 1.0, M44)))
        assert info.value.filename == __file__
        assert name in str(info.value)  # (the Hessian's: at the user's def line)
