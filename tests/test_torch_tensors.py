"""PyTorch tensors as arguments: the derivative of code written with `np.` is
specialised on them and runs with array-api-compat's wrapper of ``torch`` in NumPy's
place (`backend.torch_numpy`: the standard's names only, with NumPy's meanings and
default dtypes), so the gradient is a tensor and equals the NumPy gradient. A tensor's
methods whose meaning differs from NumPy's (``std``, ``var``, ``size``, ``max(0)``)
run as the NumPy functions they stand for. Skipped where PyTorch or array-api-compat
is not installed (``pip install 's2sad[torch]'``; CI installs them for this file)."""

import numpy as np
import pytest

import s2sad
from library_losses import curved, leaves, logistic, mapped, mlp, normalise, recurrent
from s2sad.errors import S2SADError
from s2sad.ir.kinds import ArrayKind, kind_of

torch = pytest.importorskip("torch", reason="PyTorch is not installed (pip install "
                            "'s2sad[torch]')")
pytest.importorskip("array_api_compat", reason="array-api-compat is not installed "
                    "(pip install 's2sad[torch]')")

rng = np.random.default_rng(5)


def methods(x):
    # each of these methods means something else on a tensor (an unbiased std and
    # var, a pair from max(0), size a method): they run as NumPy's functions
    return x.std() + x.var(axis=0).sum() + x.max(0).sum() * x.size + x.T.sum() \
        + x.reshape(2, 6).sum(axis=1).mean() + np.sum(x.clip(-0.5, 0.5) ** 2) \
        + x.cumsum(axis=1).mean(axis=0).sum() + x.mean(1).min()


def written(x):
    y = np.zeros(4)  # (float64, as NumPy makes it, not PyTorch's float32)
    y[1:] = x[0, :3] * 2.0
    z = x.flatten()
    z[0] = 5.0  # (a copy, as NumPy's flatten: x is unchanged)
    w = x.copy()
    w[1] = 0.0
    return np.sum(y * y) + np.sum(z * x.ravel()) + np.sum(w * x)


def elements(x):
    total = 0.0
    for i in range(len(x)):
        total = total + np.sin(x[i]) * x[i - 1]
    return total


PROGRAMS = {
    "mlp": (mlp, (0, 1, 2), [(4, 5), (5,), (5,), (6, 4), (6,)], {}),
    "logistic": (logistic, (0, 1), [(4,), (), (8, 4), (8,)], {}),
    "broadcasting": (normalise, (0, 1, 2), [(3, 4), (4,), (1, 4)], {}),
    "methods": (methods, (0,), [(3, 4)], {}),
    "writes, copies": (written, (0,), [(3, 4)], {}),
    "elements in a loop": (elements, (0,), [(5,)], {}),
    "loop": (recurrent, (0, 1), [(3, 3), (3,)], {"steps": 4}),
}


def arguments(shapes, dtype=torch.float64):
    values = [rng.normal(size=s) for s in shapes]
    return values, [torch.tensor(v, dtype=dtype) for v in values]


def close(got, want, rtol=1e-10, atol=1e-12):
    assert isinstance(got, torch.Tensor), type(got)
    np.testing.assert_allclose(got.numpy(), want, rtol=rtol, atol=atol)


@pytest.mark.parametrize("name", list(PROGRAMS))
def test_gradient_stays_torch_and_equals_numpy(name):
    f, wrt, shapes, kw = PROGRAMS[name]
    values, tensors = arguments(shapes)
    g = s2sad.grad(f, wrt=wrt)
    want = g(*values, **kw)
    kept = [t.clone() for t in tensors]
    got = g(*tensors, **kw)
    for a, b in zip(got, want):
        assert a.dtype == torch.float64
        close(a, b)
    for t, k in zip(tensors, kept):  # (the arguments are not written into)
        assert torch.equal(t, k)


@pytest.mark.parametrize("name", ["mlp", "broadcasting", "methods"])
def test_float32_tensors_give_float32_gradients(name):
    f, wrt, shapes, kw = PROGRAMS[name]
    values, tensors = arguments(shapes, torch.float32)
    want = s2sad.grad(f, wrt=wrt)(*values, **kw)
    got = s2sad.grad(f, wrt=wrt)(*tensors, **kw)
    for a, b in zip(got, want):
        assert a.dtype == torch.float32
        close(a, b, rtol=2e-4, atol=2e-5)


def test_value_and_grad_vjp_and_jvp():
    values, tensors = arguments([(4, 5), (5,), (5,), (6, 4), (6,)])
    value, grads = s2sad.value_and_grad(mlp, wrt=(0, 2))(*tensors)
    want_value, want = s2sad.value_and_grad(mlp, wrt=(0, 2))(*values)
    close(value, want_value)
    for a, b in zip(grads, want):
        close(a, b)

    out, pullback = s2sad.vjp(mlp, *tensors)
    for a, b in zip(pullback(torch.tensor(1.0, dtype=torch.float64)),
                    s2sad.vjp(mlp, *values)[1](1.0)):
        close(a, b)

    tangents = [rng.normal(size=np.shape(v)) for v in values]
    out, tangent = s2sad.jvp(mlp, tensors, [torch.tensor(t) for t in tangents])
    close(out, mlp(*values))
    close(tangent, s2sad.jvp(mlp, values, tangents)[1])


SECOND = {
    "hessian": lambda x, W: s2sad.hessian(curved, (0, 1))(x, W),
    "hvp": lambda x, W: s2sad.hvp(curved)(x, W, x * 0.5),
    "jacobian forward": lambda x, W: s2sad.jacobian(mapped, (0, 1), mode="forward")(x, W),
    "jacobian reverse": lambda x, W: s2sad.jacobian(mapped, mode="reverse")(x, W),
    'grad(mode="forward")': lambda x, W: s2sad.grad(curved, (0, 1), mode="forward")(x, W),
}


@pytest.mark.parametrize("name", list(SECOND))
def test_second_derivatives_and_jacobians_stay_torch(name):
    values, tensors = arguments([(3,), (4, 3)])
    want = leaves(SECOND[name](*values))
    got = leaves(SECOND[name](*tensors))
    assert len(got) == len(want)
    for a, b in zip(got, want):
        assert a.shape == np.shape(b)
        close(a, b)


def test_parameters_in_a_dict_and_numpy_data():
    def loss(params, X, y):
        h = np.tanh(X @ params["W"] + params["b"])
        return np.mean((h @ params["v"] - y) ** 2)

    values, tensors = arguments([(3, 4), (4,), (4,)])
    X, y = rng.normal(size=(6, 3)), rng.normal(size=6)
    want = s2sad.grad(loss)(dict(zip("Wbv", values)), X, y)
    got = s2sad.grad(loss)(dict(zip("Wbv", tensors)), torch.tensor(X), torch.tensor(y))
    assert list(got) == ["W", "b", "v"]
    for k in got:
        close(got[k], want[k])


def test_the_kind_names_the_library_and_the_text_is_numpys():
    assert kind_of(torch.ones(3, dtype=torch.float64)) == ArrayKind(1, "f", xp="torch")
    text = s2sad.source(methods, example=(np.ones((3, 4)),))
    assert "torch" not in text and "x.std()" in text


def sorted_pairs(x):
    return np.sum(np.diagonal(np.outer(x, x)))


def test_what_pytorch_has_no_counterpart_of_is_refused_at_the_users_line():
    with pytest.raises(S2SADError, match="with PyTorch tensors, the derivative calls np.diagonal, "
                       "which PyTorch has no counterpart") \
            as info:
        s2sad.grad(sorted_pairs)(torch.ones(3, dtype=torch.float64))
    assert info.value.filename == __file__
    assert info.value.source_line.strip() == "return np.sum(np.diagonal(np.outer(x, x)))"
    s2sad.grad(sorted_pairs)(np.ones(3))  # (NumPy's as ever)


def test_tensors_mixed_with_another_library_are_refused_at_the_call():
    xp = pytest.importorskip("array_api_strict", reason="array-api-strict is not installed")

    def f(w, X):
        return np.sum(np.tanh(X @ w))

    with pytest.raises(S2SADError, match=r"different libraries.*`w` \(torch\)"):
        s2sad.grad(f)(torch.ones(3, dtype=torch.float64), xp.ones((4, 3)))


def test_numpy_arrays_beside_tensors_are_refused_at_the_call():
    """PyTorch does not mix tensors with NumPy arrays (an array @ a tensor raises):
    the call is refused, naming the NumPy arguments, even in a dict."""
    values, tensors = arguments([(4,), (8, 4), (8,)])
    with pytest.raises(S2SADError, match="`X`, `y` hold NumPy arrays and other "
                       "arguments are PyTorch tensors") as info:
        s2sad.grad(logistic, wrt=(0, 1))(tensors[0], 0.5, values[1], values[2])
    assert "torch.as_tensor" in info.value.hint

    def loss(params, X):
        return np.sum(np.tanh(X @ params["W"]))

    with pytest.raises(S2SADError, match=r"`params\['W'\]` holds NumPy arrays"):
        s2sad.grad(loss)({"W": values[1].T}, tensors[1])


def shaped(x, A):
    w, V = np.linalg.eigh(A + A.T)  # (its adjoint calls np.diag)
    M = A @ A.T + 3.0 * np.eye(3)
    L = np.linalg.cholesky(M)  # (np.tri)
    ys = [x * k for k in range(3)]
    return np.sum(np.tile(x, 2) ** 2) + np.sum(np.squeeze(x[None, :]) ** 3) \
        + np.sum(np.array(ys) ** 2) + np.sum(w ** 3) + np.sum(V[:, 0] ** 4) + np.sum(L) \
        + np.sum(np.linalg.solve(M, x) ** 2) + np.sum(np.linalg.inv(M))


def test_numpy_functions_the_standard_spells_otherwise():
    """np.tile of an int, np.squeeze without an axis, np.array of a list of arrays,
    and the np.diag and np.tri of eigh's and cholesky's adjoints are written with the
    standard's functions."""
    values, tensors = arguments([(3,), (3, 3)])
    for a, b in zip(s2sad.grad(shaped, (0, 1))(*tensors), s2sad.grad(shaped, (0, 1))(*values)):
        close(a, b, rtol=1e-9, atol=1e-11)


W0 = np.array([0.5, -1.0, 2.0])
SETTINGS = {"w": np.array([1.5, 0.25, -0.5]), "scale": 0.3}


def pooled(x, s):
    # element reads whose adjoints are read, then zeroed: `g = out_bar[i]` must be a
    # copy, not a view of out_bar (a tensor's x[i] is a 0-d view)
    out = np.zeros(len(x) - 1)
    for i in range(len(x) - 1):
        out[i] = max(x[i], x[i + 1]) * np.sin(s)
    return np.sum(out ** 2) + np.sum(W0 * x) + np.sum(SETTINGS["w"] * s) \
        + np.maximum(np.sin(0.5), s * s) * SETTINGS["scale"]


def test_element_reads_numpy_constants_and_numbers():
    x = rng.normal(size=3)
    want = s2sad.grad(pooled, (0, 1))(x, 0.7)
    got = s2sad.grad(pooled, (0, 1))(torch.tensor(x), 0.7)
    for a, b in zip(got, want):
        close(a, b)


def backwards(x):
    return np.sum(x[::-1] * x)


def special_of(x):
    from scipy import special
    return np.sum(special.erf(x))


def test_negative_steps_and_scipy_are_refused_at_the_users_line():
    x = torch.ones(3, dtype=torch.float64)
    with pytest.raises(S2SADError, match="negative step") as info:
        s2sad.grad(backwards)(x)
    assert info.value.source_line.strip() == "return np.sum(x[::-1] * x)"
    assert "np.flip" in info.value.hint
    pytest.importorskip("scipy", reason="SciPy is not installed")
    with pytest.raises(S2SADError, match="special.erf, SciPy's, which computes with NumPy"):
        s2sad.grad(special_of)(x)


def simulate(W, h0):
    h = h0
    for _ in s2sad.checkpointed(range(20), snapshots=3):
        h = np.tanh(W @ h)
    return np.sum(h * h)


def test_checkpointed_loops():
    values, tensors = arguments([(3, 3), (3,)])
    values[0] *= 0.5
    tensors[0] = torch.tensor(values[0])
    want = s2sad.grad(simulate, (0, 1))(*values)
    for a, b in zip(s2sad.grad(simulate, (0, 1))(*tensors), want):
        close(a, b)


def embedding(E, W, tokens):
    h = np.tanh(E[tokens] @ W)  # (rows read by an index array, some twice)
    return np.sum(h ** 2) + np.sum(E[[0, 2]] * 3.0) + np.sum(E[:, tokens[:2]] ** 2)


def test_reads_with_index_arrays_add_into_their_rows():
    values, tensors = arguments([(5, 3), (3, 2)])
    tokens = np.array([0, 2, 2, 4])
    assert "np.add.at" in s2sad.source(embedding, wrt=(0, 1), example=(*values, tokens))
    got = s2sad.grad(embedding, (0, 1))(*tensors, torch.tensor(tokens))
    for a, b in zip(got, s2sad.grad(embedding, (0, 1))(*values, tokens)):
        close(a, b)


def test_a_tensor_off_the_cpu_is_refused_at_the_call():
    meta = torch.ones(3, dtype=torch.float64, device="meta")  # (a device that is not the CPU)
    with pytest.raises(S2SADError, match="on meta, and s2sad differentiates PyTorch tensors "
                                         "on the CPU only") as info:
        s2sad.grad(elements)(meta)
    assert ".cpu()" in info.value.hint


def of_a_list(x):
    s = np.mean(x)
    v = np.sin([s, s * 0.5, s])  # (its tangent: np.cos([...]) times a list of tangents)
    return v[-1] + np.sum(v)


def test_jvp_of_a_function_of_a_list_of_numbers():
    values, tensors = arguments([(3,)])
    direction = rng.normal(size=3)
    want = s2sad.jvp(of_a_list, values, [direction])[1]
    close(s2sad.jvp(of_a_list, tensors, [torch.tensor(direction)])[1], want)


LIMITS = {"w": np.array([0.5, -1.0, 2.0])}  # (read from the module: of unknown kind)


def masked_by_a_setting(x, s):
    mask = LIMITS["w"] > 0.0  # (a name of booleans times a float: float64, as NumPy's)
    ints = np.arange(3)
    return np.sum(mask * s) * np.sum(x) + np.sum(ints * s) + np.sum(x * (x > 0.0) * s)


def test_a_float_beside_booleans_or_integers_stays_float64():
    # (PyTorch makes a tensor of booleans or integers times a Python float its default
    # float32: the value and the tangent were rounded to 7 digits)
    x, s, t = np.array([0.3, -0.6, 1.7]), 1.0 / 3.0, np.array([0.2, 0.5, -1.1])
    value, tangent = s2sad.jvp(masked_by_a_setting, (x, s), (t, 1.0 / 7.0))
    got = s2sad.jvp(masked_by_a_setting, (torch.from_numpy(x), s),
                    (torch.from_numpy(t), 1.0 / 7.0))
    assert float(got[0]) == value and float(got[1]) == pytest.approx(tangent, rel=1e-15)
    grads = s2sad.grad(masked_by_a_setting, wrt=(0, 1))(torch.from_numpy(x), s)
    want = s2sad.grad(masked_by_a_setting, wrt=(0, 1))(x, s)
    assert np.allclose(grads[0].numpy(), want[0], rtol=1e-15) and float(grads[1]) == \
        pytest.approx(want[1], rel=1e-15)


# ---------------------------------------------- NumPy data an object holds, helpers

W_HELD = np.array([1.0, 2.0, 4.0])
CALLS = []


def spread(m, k=2.0, *, shift=0.0):
    return m * k + shift


def halved(m, n):
    return m if n == 0 else halved(m * 0.5, n - 1)


def squares(m):
    out = []
    for v in m:
        out.append(v * v)
    return np.array(out)


def counted(m):
    CALLS.append(1)
    return m.var()  # (on a tensor, unbiased: NumPy's here)


def deviated(m):
    return m * m.std()


class Held:
    """A model holding NumPy arrays and a float, its loss called with tensors."""

    def __init__(self):
        self.W = rng.normal(size=(3, 2))
        self.b = np.array([0.5, -0.5])
        self.k = 1.5

    def scaled(self, m):
        return np.tanh(m) * self.k

    def loss(self, x):
        h = np.tanh(x @ self.W + self.b)
        return np.sum(h * h) + np.sum(self.scaled(self.b) * h) + np.sum(self.b * 2.0) * x[0]


def helpers_on_constants(x):
    # each helper carries no derivative, and gets or gives NumPy data of the module
    return np.sum(halved(W_HELD, 3) * x) + np.sum(squares(W_HELD) * x) * counted(W_HELD) \
        + np.sum(x * spread(W_HELD, shift=1.0)) + np.sum(deviated(W_HELD * 2) * x)


def grown(t, n):
    if n == 0:
        return np.sum(np.array(t))
    u = t + (1.0,)  # (a tuple of another length at every depth)
    return grown(u, n - 1)


def recursive_helper(x):
    return np.sum(x * x) * grown((1.0,), 6)


def helper_with_a_constant_argument(x):
    return np.sum(deviated(W_HELD) * x * x)  # (W_HELD also passed to a derivative)


@pytest.mark.parametrize("f", [Held().loss, helpers_on_constants, recursive_helper,
                               helper_with_a_constant_argument],
                         ids=["object", "helpers", "recursive helper", "active helper"])
def test_numpy_data_held_by_objects_and_read_by_helpers(f):
    """NumPy arrays an object holds (``self.W``) are made tensors where the
    derivative reads them, as a module's are, and a function of the user's that
    carries no derivative runs with the tensors' functions too (``halved%torch``):
    it neither gets tensors where its code expects NumPy arrays nor gives NumPy
    arrays that meet tensors (an array times a tensor raises)."""
    x = rng.normal(size=3)
    want = s2sad.grad(f)(x)
    del CALLS[:]
    close(s2sad.grad(f)(torch.tensor(x)), want)
    assert len(CALLS) == (1 if f is helpers_on_constants else 0)  # (run once, as written)
    direction = rng.normal(size=3)
    close(s2sad.jvp(f, (torch.tensor(x),), (torch.tensor(direction),))[1],
          s2sad.jvp(f, (x,), (direction,))[1])


def test_helpers_run_with_tensors_are_shown_in_the_source():
    text = s2sad.source(helpers_on_constants, example=(torch.tensor(rng.normal(size=3)),))
    for name in ("halved_torch", "squares_torch", "counted_torch", "spread_torch"):
        assert f"def {name}(" in text
    assert "np.var(m)" in text  # (a method of a value of unknown kind: NumPy's meaning)
    text = s2sad.source(Held.loss, wrt=1, example=(Held(), torch.tensor(rng.normal(size=3))))
    assert "np.from_numpy(self.W)" in text and "def scaled_torch(self, m):" in text


class Spread:
    def __init__(self, W):
        self.W = W

    def loss(self, x):
        return np.sum(x) * self.W.std() + np.sum(x * self.W.var(axis=0))


def test_methods_of_values_of_unknown_kind_mean_numpys():
    """``self.W.std()`` of a tensor an object holds (its kind unknown to the
    compiler) is NumPy's, not PyTorch's unbiased one."""
    x, W = rng.normal(size=3), rng.normal(size=3)
    want = s2sad.grad(Spread(W).loss)(x)
    close(s2sad.grad(Spread(torch.tensor(W)).loss)(torch.tensor(x)), want)


V_HELD = np.array([1.0, -2.0, 0.5])
B_HELD = np.array([[1.0, 2.0, 3.0], [0.5, -1.0, 4.0]])
M_HELD = np.array([[1.0, 2.0], [0.5, -1.0], [3.0, 0.25]])
CFG_HELD = {"list": [np.array([0.5, -1.0, 2.0]), 0.5]}


def globals_everywhere(x):
    # (a module's NumPy arrays where the derivative passes them to NumPy functions
    # that take no NumPy array beside a tensor: np.outer(g, v) is the adjoint of x @ v,
    # a list given to np.concatenate; and an array in a list in a dict)
    return np.sum((x @ V_HELD) ** 2) + np.sum(np.concatenate([x, B_HELD]) ** 2) \
        + np.sum((M_HELD.T @ x.T) ** 2) + np.sum(np.stack([x, B_HELD]) ** 2) \
        + np.sum(CFG_HELD["list"][0] * x[0] ** 2) * CFG_HELD["list"][1] \
        + np.sum(np.cumsum(x) * np.arange(6.0))  # (np.cumsum of no axis: x flat)


class Dotted:
    def __init__(self, b):
        self.b = b

    def loss(self, x):
        return np.sum(np.dot(x, self.b) ** 2)


def test_numpy_data_read_anywhere_and_tensors_held_by_an_object():
    x = rng.normal(size=(2, 3))
    close(s2sad.grad(globals_everywhere)(torch.tensor(x)), s2sad.grad(globals_everywhere)(x))
    b = rng.normal(size=3)
    model = Dotted(torch.tensor(b))  # (a tensor an object holds: its kind is known)
    g = s2sad.grad(model.loss)
    close(g(torch.tensor(x)), s2sad.grad(Dotted(b).loss)(x))
    B = rng.normal(size=(3, 2))
    model.b = torch.tensor(B)  # (another rank: built again)
    close(g(torch.tensor(x)), s2sad.grad(Dotted(B).loss)(x))


def scaled_sum(x, c):
    return np.sum(np.tanh(x) * x) * c


def test_float32_tensors_keep_float32_in_every_entry_point():
    x = rng.normal(size=3)
    t = torch.tensor(x, dtype=torch.float32)
    for mode in ("reverse", "forward"):
        gx, gc = s2sad.grad(scaled_sum, wrt=(0, 1), mode=mode)(t, 1.5)
        assert isinstance(gx, torch.Tensor) and gx.dtype == torch.float32, (mode, type(gx))
        assert isinstance(gc, torch.Tensor) and gc.ndim == 0, (mode, type(gc))
    assert s2sad.hessian(scaled_sum)(t, 1.5).dtype == torch.float32
    for mode in ("reverse", "forward"):
        assert s2sad.jacobian(squashed, mode=mode)(t).dtype == torch.float32


def squashed(x):
    return np.tanh(x) * x


LOOPS = {"order": {0: 2, 2: 1}}


def over_a_dict(x, w):
    s = 0.5
    for i in LOOPS["order"]:  # (a number overwritten: its zero, of unknown rank)
        s = 0.5
        s = s * x[i] + w[1, i]
    return s


def test_a_zero_of_unknown_rank_in_the_tensors_dtype():
    x, w = rng.normal(size=3), rng.normal(size=(2, 3))
    got = s2sad.grad(over_a_dict, wrt=(0, 1))(torch.tensor(x), torch.tensor(w))
    for a, b in zip(got, s2sad.grad(over_a_dict, wrt=(0, 1))(x, w)):
        close(a, b)


W32 = np.array([[0.5, -1.2, 0.3], [0.8, 0.1, -0.7], [0.2, 0.9, 1.4]])


def through_a_float64_matrix(x):
    return np.sum(np.tanh(x @ W32))


def test_float32_tensors_beside_a_float64_numpy_matrix():
    # (PyTorch's matmul takes no float64 matrix beside a float32 vector: the module's
    # matrix is made a float32 tensor, and so are the Hessian's unit tangents)
    x = rng.normal(size=3)
    t = torch.tensor(x, dtype=torch.float32)
    f = through_a_float64_matrix
    close(s2sad.grad(f)(t), s2sad.grad(f)(x), rtol=1e-5, atol=1e-6)
    close(s2sad.grad(f, mode="forward")(t), s2sad.grad(f)(x), rtol=1e-5, atol=1e-6)
    close(s2sad.jvp(f, (t,), (torch.ones(3),))[1], s2sad.jvp(f, (x,), (np.ones(3),))[1],
          rtol=1e-5, atol=1e-6)
    close(s2sad.hessian(f)(t), s2sad.hessian(f)(x), rtol=1e-4, atol=1e-5)


def _shifted_mean(w, b):
    return np.mean(np.tanh(w * w + b) ** 2)


def test_forward_mode_with_a_float_beside_tensors():
    """A float's tangent broadcast to a tensor's shape (``np.broadcast_to(b_dot,
    ...)``): PyTorch's broadcast_to takes no float, and grad(mode="forward") of a
    tensor and a float raised TypeError."""
    w = torch.linspace(-1.0, 1.0, 3, dtype=torch.float64)
    got = s2sad.grad(_shifted_mean, wrt=(0, 1), mode="forward")(w, 0.5)
    want = s2sad.grad(_shifted_mean, wrt=(0, 1))(w.numpy(), 0.5)
    close(got[0], want[0])
    close(got[1], want[1])


def _softmax(z):
    e = np.exp(z - np.max(z))
    return e / np.sum(e)


def test_jacobian_in_auto_mode():
    """``jacobian`` with its default mode ran the function itself on the tensors to
    see the output's size, where ``np.max`` of a tensor raised a TypeError; it
    takes the size from the derivative's forward sweep now."""
    z = rng.normal(size=3)
    t = torch.tensor(z)
    J = s2sad.jacobian(_softmax)(t)
    assert isinstance(J, torch.Tensor)
    np.testing.assert_allclose(J.numpy(), s2sad.jacobian(_softmax)(z), rtol=1e-12)
    w = rng.normal(size=(4,))
    g = s2sad.jacobian(lambda_free_sum)(torch.tensor(w))  # (more inputs than outputs)
    np.testing.assert_allclose(g.numpy(), s2sad.grad(lambda_free_sum)(w), rtol=1e-12)


def lambda_free_sum(w):
    return np.sum(w ** 2) * np.max(w)


def _relu_sum(w, X):
    return np.sum(np.maximum(0.0, X @ w))


def _hinge(w, X, y):
    return np.mean(np.maximum(0.0, 1.0 - y * (X @ w)))


@pytest.mark.parametrize("dtype", [torch.float32, torch.float64], ids=str)
def test_a_mask_times_a_number_meets_float32_in_a_product(dtype):
    """A rule's ``g * (0.0 < t)`` with a Python float `g` is float64, as in NumPy;
    its ``@`` with a float32 argument raised PyTorch's RuntimeError (a plain hinge
    loss on float32 tensors). The product promotes as NumPy's does now."""
    w, X, y = rng.normal(size=3), rng.normal(size=(5, 3)), np.sign(rng.normal(size=5))
    tw, tX, ty = (torch.tensor(v, dtype=dtype) for v in (w, X, y))
    got = s2sad.grad(_relu_sum)(tw, tX)
    assert got.dtype == dtype
    close(got, s2sad.grad(_relu_sum)(w, X), rtol=1e-5, atol=1e-6)
    got = s2sad.grad(_hinge)(tw, tX, ty)
    assert got.dtype == dtype
    close(got, s2sad.grad(_hinge)(w, X, y), rtol=1e-5, atol=1e-6)


def _solved(A):
    return np.sum(np.linalg.solve(A, np.ones(A.shape[0])))


def _cubed_eigenvalues(A):
    w, _ = np.linalg.eigh(A)
    return np.sum(w ** 3)


def test_float32_linear_algebra_in_every_entry_point():
    """Forward mode and Hessians of ``solve``, and the gradient of ``eigh``, on a
    float32 matrix with float64 constants beside it raised PyTorch's dtype errors
    (a tangent's matrix product of float64 and float32)."""
    B = rng.normal(size=(4, 4))
    S = B @ B.T + 4.0 * np.eye(4)
    A = torch.tensor(S, dtype=torch.float32)
    t = rng.normal(size=(4, 4))
    _, dot = s2sad.jvp(_solved, (A,), (torch.tensor(t, dtype=torch.float32),))
    assert float(dot) == pytest.approx(s2sad.jvp(_solved, (S,), (t,))[1], rel=1e-4)
    close(s2sad.hessian(_solved)(A), s2sad.hessian(_solved)(S), rtol=2e-3, atol=1e-5)
    close(s2sad.grad(_cubed_eigenvalues)(A), s2sad.grad(_cubed_eigenvalues)(S),
          rtol=1e-4, atol=1e-4)


def _dtype_idioms(x):
    return np.sum(x.astype(np.float64) ** 2) + np.sum(np.float32(0.5) * x) \
        + float(np.float64(x[0])) * 2.0


@pytest.mark.parametrize("dtype", [torch.float32, torch.float64], ids=str)
def test_numpys_dtype_idioms(dtype):
    """``x.astype(np.float64)`` and ``np.float32(0.5)`` raised an AttributeError (a
    tensor has no ``astype``) and a TypeError (a torch dtype is not callable); they
    are the standard's ``astype`` and ``asarray(v, dtype=...)`` now."""
    x = rng.normal(size=4)
    got = s2sad.grad(_dtype_idioms)(torch.tensor(x, dtype=dtype))
    assert isinstance(got, torch.Tensor) and got.dtype == dtype
    close(got, s2sad.grad(_dtype_idioms)(x), rtol=1e-6, atol=1e-6)
