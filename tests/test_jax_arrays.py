"""JAX arrays as arguments: the derivative of code written with `np.` is specialised
on them and runs with `jax.numpy` in NumPy's place (the emitted text is the NumPy one),
so the gradient is a JAX array, equals the NumPy gradient, and `jax.jit` of it traces
and gives the same numbers. A derivative that would write into an array is refused at
the user's line. Skipped where JAX is not installed (``pip install 's2sad[jax]'``;
CI installs it for this file)."""

import numpy as np
import numpy as onp
import pytest
from numpy import tanh as numpy_tanh

import s2sad
from library_losses import curved, leaves, logistic, mapped, mlp, normalise, recurrent
from s2sad.errors import S2SADError
from s2sad.ir.kinds import ArrayKind, kind_of

jax = pytest.importorskip("jax", reason="JAX is not installed (pip install 's2sad[jax]')")
jnp = pytest.importorskip("jax.numpy", reason="jax.numpy is not installed")

rng = np.random.default_rng(3)


def reductions(x):
    return np.sum(np.sum(x * x, axis=0) ** 2) + np.sum(np.max(x, axis=1)) \
        + np.sum(np.exp(x).mean(axis=1))


PROGRAMS = {
    "mlp": (mlp, (0, 1, 2), [(4, 5), (5,), (5,), (6, 4), (6,)], {}),
    "logistic": (logistic, (0, 1), [(4,), (), (8, 4), (8,)], {}),
    # b broadcasts over rows: its adjoint is summed (unbroadcast) over them
    "broadcasting": (normalise, (0, 1, 2), [(3, 4), (4,), (1, 4)], {}),
    "reductions with axis": (reductions, (0,), [(3, 4)], {}),
    # a loop whose trip count is a Python int: traced once per iteration under jit
    "static loop": (recurrent, (0, 1), [(3, 3), (3,)], {"steps": 4}),
}


def arguments(shapes):
    values = [rng.normal(size=s) for s in shapes]
    return values, [jnp.asarray(v, dtype=jnp.float32) for v in values]


def is_jax(value):
    return isinstance(value, jax.Array)


def close(got, want):
    np.testing.assert_allclose(np.asarray(got), want, rtol=2e-4, atol=2e-5)


@pytest.mark.parametrize("name", list(PROGRAMS))
def test_gradient_stays_jax_and_equals_numpy(name):
    f, wrt, shapes, kw = PROGRAMS[name]
    values, arrays = arguments(shapes)
    g = s2sad.grad(f, wrt=wrt)
    want = g(*values, **kw)
    got = g(*arrays, **kw)
    assert len(got) == len(wrt)
    for a, b in zip(got, want):
        assert is_jax(a), type(a)
        close(a, b)


@pytest.mark.parametrize("name", list(PROGRAMS))
def test_jax_jit_of_the_gradient(name):
    f, wrt, shapes, kw = PROGRAMS[name]
    values, arrays = arguments(shapes)
    g = s2sad.grad(f, wrt=wrt)
    want = g(*values, **kw)
    jitted = jax.jit(g, static_argnames=tuple(kw))
    for _ in range(2):  # (the second call runs XLA's compiled code)
        got = jitted(*arrays, **kw)
        for a, b in zip(got, want):
            assert is_jax(a)
            close(a, b)


def test_value_and_grad_vjp_and_jvp():
    values, arrays = arguments([(4, 5), (5,), (5,), (6, 4), (6,)])
    value, grads = s2sad.value_and_grad(mlp, wrt=(0, 2))(*arrays)
    want_value, want = s2sad.value_and_grad(mlp, wrt=(0, 2))(*values)
    assert is_jax(value) and all(map(is_jax, grads))
    close(value, want_value)
    for a, b in zip(grads, want):
        close(a, b)

    out, pullback = s2sad.vjp(mlp, *arrays)
    bars = pullback(jnp.float32(1.0))
    assert is_jax(out) and all(is_jax(b) for b in bars)
    for a, b in zip(bars, s2sad.vjp(mlp, *values)[1](1.0)):
        close(a, b)

    tangents = [rng.normal(size=np.shape(v)) for v in values]
    out, tangent = s2sad.jvp(mlp, arrays, [jnp.asarray(t, dtype=jnp.float32)
                                           for t in tangents])
    assert is_jax(out) and is_jax(tangent)
    close(tangent, s2sad.jvp(mlp, values, tangents)[1])
    jitted = jax.jit(lambda *a: s2sad.jvp(mlp, a[:5], a[5:])[1])
    close(jitted(*arrays, *[jnp.asarray(t, dtype=jnp.float32) for t in tangents]),
          s2sad.jvp(mlp, values, tangents)[1])


def test_numpy_constants_mix_with_jax_parameters():
    values, arrays = arguments([(4,), (), (8, 4), (8,)])
    w, b = arrays[:2]
    X, y = values[2:]  # NumPy data, JAX parameters: the gradient is a JAX array
    got = s2sad.grad(logistic, wrt=(0, 1))(w, b, X, y)
    want = s2sad.grad(logistic, wrt=(0, 1))(*values)
    for a, c in zip(got, want):
        assert is_jax(a)
        close(a, c)


def test_the_kind_names_the_library_and_the_text_is_numpys():
    assert kind_of(jnp.ones(3)) == ArrayKind(1, "f", xp="jax")
    # (the tracer jax.jit passes is a JAX array too)
    seen = []
    jax.jit(lambda x: seen.append(kind_of(x)) or x)(jnp.ones((2, 2)))
    assert seen == [ArrayKind(2, "f", xp="jax")]
    numpy_text = s2sad.source(mlp, wrt=(0, 1, 2), example=arguments(
        [(4, 5), (5,), (5,), (6, 4), (6,)])[0])
    assert "jnp" not in numpy_text and "jax" not in numpy_text


def aliased(W, x):
    return onp.sum(numpy_tanh(W @ x) ** 2) + onp.linalg.norm(x)


def test_the_users_own_names_for_numpy():
    """Another alias of numpy, a NumPy function imported by name and numpy.linalg
    through the alias run as jax.numpy's; the module's globals stay NumPy's."""
    values, arrays = arguments([(3, 3), (3,)])
    want = s2sad.grad(aliased, wrt=(0, 1))(*values)
    for got in (s2sad.grad(aliased, wrt=(0, 1))(*arrays),
                jax.jit(s2sad.grad(aliased, wrt=(0, 1)))(*arrays)):
        for a, b in zip(got, want):
            assert is_jax(a)
            close(a, b)
    assert onp is np and numpy_tanh is np.tanh


def test_a_list_of_jax_parameters():
    def loss(params, X):
        W, b = params
        return np.sum(np.tanh(X @ W + b))

    X = rng.normal(size=(5, 3))
    params = [rng.normal(size=(3, 2)), rng.normal(size=2)]
    want = s2sad.grad(loss)(params, X)
    got = jax.jit(s2sad.grad(loss))([jnp.asarray(p, dtype=jnp.float32) for p in params], X)
    for a, b in zip(got, want):
        assert is_jax(a)
        close(a, b)


def write_into(x):
    y = np.zeros(3)
    y[0] = x[0] * 2.0
    return np.sum(y * y)


def read_elements(x, W):
    h = np.tanh(W @ x)
    return np.sum(h) + x[0] * x[1]


def read_indices(x, idx):
    return np.sum(x[idx] ** 2)


@pytest.mark.parametrize("f, args, line", [
    (write_into, lambda: (jnp.ones(3),), "y[0] = x[0] * 2.0"),
    (read_elements, lambda: (jnp.ones(3), jnp.ones((3, 3))), "return np.sum(h) + x[0] * x[1]"),
    (read_indices, lambda: (jnp.ones(3), np.array([0, 0, 2])), "return np.sum(x[idx] ** 2)"),
])
def test_writes_into_arrays_are_refused_at_the_users_line(f, args, line):
    with pytest.raises(S2SADError, match="JAX arrays cannot be changed") as info:
        s2sad.grad(f)(*args())
    assert info.value.source_line.strip() == line
    assert info.value.filename == __file__
    with pytest.raises(S2SADError, match="JAX arrays cannot be changed"):  # (its gradient's)
        s2sad.hessian(f)(*args())
    # the same function on NumPy arrays is differentiated as ever
    s2sad.grad(f)(*[np.asarray(a) for a in args()])


SECOND = {  # (forward mode over the gradient, whose np.outer runs as jnp.outer)
    "hessian": lambda x, W, v: s2sad.hessian(curved, (0, 1))(x, W),
    "hvp": lambda x, W, v: s2sad.hvp(curved)(x, W, v),
    "jacobian forward": lambda x, W, v: s2sad.jacobian(mapped, (0, 1), mode="forward")(x, W),
    "jacobian reverse": lambda x, W, v: s2sad.jacobian(mapped, mode="reverse")(x, W),
    'grad(mode="forward")': lambda x, W, v: s2sad.grad(curved, (0, 1), mode="forward")(x, W),
}


@pytest.mark.parametrize("name", list(SECOND))
def test_second_derivatives_and_jacobians_stay_jax(name):
    values, arrays = arguments([(3,), (4, 3), (3,)])
    want = leaves(SECOND[name](*values))
    for got in (leaves(SECOND[name](*arrays)), leaves(jax.jit(SECOND[name])(*arrays))):
        assert len(got) == len(want)
        for a, b in zip(got, want):
            assert is_jax(a), type(a)
            assert a.shape == np.shape(b)
            close(a, b)


def test_python_control_flow_on_traced_values_is_jaxs_error():
    def branchy(x):
        if np.sum(x) > 0:
            return np.sum(x * x)
        return np.sum(x)

    x = jnp.ones(3)
    close(s2sad.grad(branchy)(x), 2 * np.ones(3))  # outside jit: a concrete array
    with pytest.raises(jax.errors.ConcretizationTypeError):
        jax.jit(s2sad.grad(branchy))(x)


def test_arrays_of_two_libraries_are_refused_at_the_call():
    """A JAX array and a Dask array cannot be mixed in one computation: the call is
    refused, naming both (NumPy arrays mix with either)."""
    da = pytest.importorskip("dask.array", reason="Dask is not installed")

    def f(w, X):
        return np.sum(np.tanh(X @ w))

    with pytest.raises(S2SADError, match=r"different libraries.*`w` \(jax\).*`X` \(dask\)"):
        s2sad.grad(f)(jnp.ones(3), da.ones((4, 3), chunks=2))
    with pytest.raises(S2SADError, match="different libraries"):
        s2sad.jvp(f, (jnp.ones(3), da.ones((4, 3), chunks=2)), (jnp.ones(3), None))


_SPD = rng.normal(size=(4, 4))
_SPD = _SPD @ _SPD.T + 4.0 * np.eye(4)
_WEIGHTS = rng.normal(size=(4, 4))


def _linalg(A):
    L = np.linalg.cholesky(A)
    w, _ = np.linalg.eigh(A)
    return np.sum(L * _WEIGHTS) + np.sum(np.linalg.inv(A) * _WEIGHTS) \
        + np.sum(np.linalg.solve(A, _WEIGHTS[0])) + np.sum(w ** 2)


def test_linear_algebra_equals_numpy():
    """``cholesky``, ``eigh``, ``inv`` and ``solve`` on JAX arrays (float64, as JAX
    keeps them with x64 on): gradient and tangent equal NumPy's."""
    with jax.enable_x64(True):
        A = jnp.asarray(_SPD)
        g = s2sad.grad(_linalg)(A)
        assert is_jax(g)
        np.testing.assert_allclose(np.asarray(g), s2sad.grad(_linalg)(_SPD), rtol=1e-10)
        t = rng.normal(size=(4, 4))
        _, dot = s2sad.jvp(_linalg, (A,), (jnp.asarray(t),))
        assert float(dot) == pytest.approx(s2sad.jvp(_linalg, (_SPD,), (t,))[1], rel=1e-10)


def _weighted(x):
    return np.sum(x * np.array([1.0, 2.0, 3.0]))


def test_a_float32_argument_gets_a_float32_gradient_with_x64_on():
    """With ``jax_enable_x64``, a float64 NumPy constant makes the gradient of a
    float32 argument float64 by JAX's promotion; ``jax.grad`` gives float32, as
    s2sad does for NumPy's float32 arrays and PyTorch's tensors, and now for JAX's."""
    with jax.enable_x64(True):
        x = jnp.ones(3, dtype=jnp.float32)
        g = s2sad.grad(_weighted)(x)
        assert g.dtype == jnp.float32 == jax.grad(_weighted_jax)(x).dtype
        assert jax.jit(s2sad.grad(_weighted))(x).dtype == jnp.float32
        assert s2sad.grad(_weighted)(jnp.ones(3)).dtype == jnp.float64


def _weighted_jax(x):
    return jnp.sum(x * jnp.array([1.0, 2.0, 3.0]))
