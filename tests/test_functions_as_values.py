"""Callables other than plain functions as what is differentiated: bound methods
(``grad(model.loss)``), `functools.partial`, callable objects; the object or the bound
arguments held fixed unless `wrt` names them (a dataclass `self` is a container)."""

import dataclasses
import functools
import math

import numpy as np
import pytest

import s2sad
from golden.inputs.functions import closure as closure_model  # (its golden program)
from golden.inputs.functions import squares as lambda_sum
from helpers import central_diff, tree_numeric_grad

rng = np.random.default_rng(3)
x = rng.normal(size=3)
y = rng.normal(size=2)


class Model:
    def __init__(self, W):
        self.W = W

    def loss(self, x, y):
        return np.sum((self.W @ x - y) ** 2)

    def __call__(self, x):
        return np.sum(np.tanh(self.W @ x))


@dataclasses.dataclass
class Linear:
    W: np.ndarray
    b: float

    def loss(self, x):
        return np.sum(np.sin(self.W @ x)) * self.b


def scaled(x, a, scale=1.0):
    return np.sum(np.sin(x) * a) * scale


m = Model(rng.normal(size=(2, 3)))


def test_bound_method():
    want = 2 * m.W.T @ (m.W @ x - y)
    np.testing.assert_allclose(s2sad.grad(m.loss)(x, y), want)
    np.testing.assert_allclose(s2sad.grad(m.loss, wrt="y")(x, y), -2 * (m.W @ x - y))
    value, g = s2sad.value_and_grad(m.loss, wrt=(0, 1))(x, y)
    assert value == pytest.approx(m.loss(x, y)) and len(g) == 2
    _, pullback = s2sad.vjp(m.loss, x, y)
    np.testing.assert_allclose(pullback(1.0)[0], want)
    _, dot = s2sad.jvp(m.loss, (x, y), (np.ones(3), None))
    assert dot == pytest.approx(np.sum(want))
    H = s2sad.hessian(m.loss)(x, y)
    np.testing.assert_allclose(H, 2 * m.W.T @ m.W, atol=1e-12)
    np.testing.assert_allclose(s2sad.hvp(m.loss)(x, y, np.ones(3)), H @ np.ones(3))


def test_callable_object_and_partial():
    np.testing.assert_allclose(s2sad.grad(m)(x),
                               tree_numeric_grad(lambda v: m(v), (x,), 0), rtol=1e-6)
    np.testing.assert_allclose(s2sad.jacobian(m)(x), s2sad.grad(m)(x))
    p = functools.partial(scaled, scale=2.0)
    np.testing.assert_allclose(s2sad.grad(p)(x, 1.5), 2.0 * 1.5 * np.cos(x))
    q = functools.partial(scaled, x)
    assert s2sad.grad(q)(1.5) == pytest.approx(np.sum(np.sin(x)))
    with pytest.raises(s2sad.WrtError, match="out of range"):
        s2sad.grad(q, wrt=2)(1.5)


def _kept_by_keyword(x, y, k=2.0, m=1.0):
    return np.sum(x * y) * k + m * np.sum(x)


def _keyword_only(x, *, k=2.0):
    return np.sum(x) * k


def test_vjp_and_jvp_take_a_partial_with_keywords():
    """(They refused a partial holding a keyword: "needs a Python function written
    with `def`". Its keywords pass by position after the primals, held fixed.)"""
    p = functools.partial(_kept_by_keyword, m=5.0)
    v = np.array([1.0, 2.0])
    out, pullback = s2sad.vjp(p, x[:2], v)
    assert out == pytest.approx(_kept_by_keyword(x[:2], v, m=5.0))
    gx, gv = pullback(1.0)
    np.testing.assert_allclose(gx, 2.0 * v + 5.0)
    np.testing.assert_allclose(gv, 2.0 * x[:2])
    q = functools.partial(_kept_by_keyword, np.ones(2), k=0.5)
    assert s2sad.vjp(q, v)[1](2.0)[0] == pytest.approx(np.full(2, 1.0))
    assert s2sad.jvp(q, (v,), (np.array([1.0, 0.0]),))[1] == pytest.approx(0.5)
    for derivative in (lambda r: s2sad.vjp(r, v), lambda r: s2sad.jvp(r, (v,), (v,))):
        with pytest.raises(s2sad.S2SADError, match="keyword argument"):
            derivative(functools.partial(_keyword_only, k=3.0))


def _data_loss(w, X, y, l2=0.0):
    return np.sum((X @ w - y) ** 2) + l2 * np.sum(w ** 2)


def _made_with_partials(X, y):
    fitted = functools.partial(_data_loss, X=X, y=y)
    on_first = functools.partial(_data_loss, np.ones(3), X)
    def f(w):
        return fitted(w) + fitted(0.5 * w, l2=0.1) + on_first(X @ w)
    return f


def test_a_partial_called_inside():
    """A ``functools.partial`` of a function of the user's, read from outside the
    function (a closure's variable) and called in it, is the call Python makes (the
    bound arguments first, a keyword the call gives over the partial's); it was
    refused for want of a rule."""
    X = rng.normal(size=(4, 3))
    f = _made_with_partials(X, rng.normal(size=4))
    w = rng.normal(size=3)
    want = tree_numeric_grad(f, (w,), 0)
    for mode in ("reverse", "forward"):
        np.testing.assert_allclose(s2sad.grad(f, mode=mode)(w), want, rtol=1e-6)
    H = 2 * X.T @ X * 1.25 + 0.05 * np.eye(3) + 2 * X.T @ X
    np.testing.assert_allclose(s2sad.hessian(f)(w), H, rtol=1e-10)


def test_dataclass_self_in_wrt():
    lin = Linear(rng.normal(size=(2, 3)), 0.5)
    g = s2sad.grad(lin.loss, wrt="self")(x)
    assert isinstance(g, Linear)
    want = tree_numeric_grad(lambda obj: obj.loss(x), (lin,), 0)
    np.testing.assert_allclose(g.W, want.W, rtol=1e-6)
    assert g.b == pytest.approx(want.b)
    np.testing.assert_allclose(s2sad.grad(lin.loss)(x), lin.b * lin.W.T @ np.cos(lin.W @ x))


def relu(z):
    return np.maximum(z, 0.0)


def layer(x, W, act):
    return np.sum(act(W @ x))


def test_functions_passed_as_arguments():
    W = rng.normal(size=(2, 3))
    g = s2sad.grad(layer, wrt=1)
    tanh = g(x, W, np.tanh)
    np.testing.assert_allclose(tanh, (1 - np.tanh(W @ x) ** 2)[:, None] * x[None, :])
    np.testing.assert_allclose(g(x, W, relu), (W @ x > 0)[:, None] * x[None, :])
    np.testing.assert_allclose(g(x, W, np.tanh), tanh)  # (the fast path checks which)
    np.testing.assert_allclose(g(x, W, np.sin), np.cos(W @ x)[:, None] * x[None, :])
    H = s2sad.hessian(layer)(x, W, np.sin)
    np.testing.assert_allclose(H, -(W.T * np.sin(W @ x)) @ W, atol=1e-12)
    _, dot = s2sad.jvp(layer, (x, W, np.tanh), (np.ones(3), None, None))
    assert dot == pytest.approx(np.sum(s2sad.grad(layer)(x, W, np.tanh)))
    adjoints = s2sad.vjp(layer, x, W, relu)[1](1.0)
    assert adjoints[2] is None and adjoints[1].shape == W.shape
    np.testing.assert_allclose(s2sad.jacobian(layer)(x, W, np.cos),
                               -np.sin(W @ x) @ W)


def mapped_with(xs, act):
    def scaled(v):
        return act(v) * 2.0

    return sum(map(act, xs)) + max(xs, key=act) * sum(map(scaled, xs))


def test_map_and_key_of_functions_as_values():
    """``map`` and ``key=`` of a function passed as an argument, and of a local
    function calling it: specialised on the function as a call of it is."""
    xs = [0.3, -0.8, 1.1]
    for act in (np.tanh, np.sin, relu_number):
        want = tree_numeric_grad(mapped_with, (xs, act), 0)
        for mode in ("reverse", "forward"):
            np.testing.assert_allclose(s2sad.grad(mapped_with, mode=mode)(xs, act), want,
                                       rtol=1e-6)
    H = np.asarray(s2sad.hessian(mapped_with)(xs, np.sin))
    grad = s2sad.grad(mapped_with)
    for k in range(3):
        up, down = list(xs), list(xs)
        up[k] += 1e-5
        down[k] -= 1e-5
        column = (np.array(grad(up, np.sin)) - np.array(grad(down, np.sin))) / 2e-5
        np.testing.assert_allclose(H[:, k], column, rtol=1e-5, atol=1e-7)


def relu_number(v):
    return v if v > 0.0 else 0.1 * v


def late_binding(x, n):
    scale = 2.0

    def step(v, k=1.0):
        y = v * scale
        if y > 1.0:
            return y - k
        return y + k

    for i in range(n):
        x = step(x)
    scale = 3.0
    return step(x, 0.5)


def default_at_def(x):
    a = 2.0

    def f(v, b=a * x):
        return v * b

    a = 5.0
    return f(x)


def applied_to_its_own_result(x, a):
    def step(t):
        u = t * a
        return u + math.sin(t)

    half = lambda t: 0.5 * t + a  # noqa: E731
    return step(step(x)) + half(half(step(x)))


def test_a_local_function_applied_to_its_own_result_does_not_call_itself():
    """`step(step(x))` computes the argument before the call: it was refused as a
    function that calls itself."""
    got = s2sad.grad(applied_to_its_own_result, wrt=(0, 1))(0.4, 1.3)
    want = [tree_numeric_grad(applied_to_its_own_result, (0.4, 1.3), i) for i in (0, 1)]
    assert got == (pytest.approx(want[0], rel=1e-6), pytest.approx(want[1], rel=1e-6))
    _, dot = s2sad.jvp(applied_to_its_own_result, (0.4, 1.3), (0.5, -1.0))
    assert dot == pytest.approx(0.5 * got[0] - got[1], rel=1e-9)


def calls_itself(x):
    def fact(v, n):
        return v if n == 0 else fact(v, n - 1) * v

    return fact(x, 2)


def test_functions_defined_inside():
    x = np.array([0.3, -0.5])
    np.testing.assert_allclose(s2sad.grad(closure_model)(x, 1.5),
                               tree_numeric_grad(closure_model, (x, 1.5), 0), rtol=1e-6)
    assert s2sad.grad(closure_model, wrt=1)(x, 1.5) == pytest.approx(
        tree_numeric_grad(closure_model, (x, 1.5), 1), rel=1e-6)
    np.testing.assert_allclose(s2sad.grad(lambda_sum)(np.array([1.0, 2.0])), [2.0, 4.0])
    for x0 in (0.2, 0.9):
        assert s2sad.grad(late_binding)(x0, 3) == pytest.approx(
            tree_numeric_grad(late_binding, (x0, 3), 0), rel=1e-6)
    # (a default is computed when the def runs: b = 2 x, so f(x) = 2 x^2)
    assert default_at_def(1.5) == pytest.approx(4.5)
    assert s2sad.grad(default_at_def)(1.5) == pytest.approx(6.0)
    H = s2sad.hessian(closure_model)(x, 1.5)
    assert H.shape == (2, 2)
    _, dot = s2sad.jvp(closure_model, (x, 1.5), (np.ones(2), 0.0))
    assert dot == pytest.approx(np.sum(s2sad.grad(closure_model)(x, 1.5)))
    with pytest.raises(s2sad.S2SADError, match="calls itself"):
        s2sad.grad(calls_itself)(1.5)


def _doubled_twice(c):
    def step(y):
        y = y * 2.0  # (its parameter assigned: the name is the function's own)
        return y

    for _ in range(2):
        c = step(c)
    return c


def _nested_shadows(a, w):
    def step(a):  # (a parameter of the helper's name: a name of its own)
        a = a * math.tanh(w) + math.sin(a)
        return a

    def push(v):
        v = v * 0.5
        return v + a  # (the helper's `a`, as it is where `push` is called)

    for _ in range(2):
        a = step(a * 0.5 + w)
    return push(a)


def test_functions_defined_inside_a_function_put_in_place_keep_their_own_names():
    """(Putting the outer function in place renamed the names a function defined
    inside it assigns, but not its parameters: `y` was read before it was assigned,
    an internal error.)"""
    def g(c):
        return _doubled_twice(c)

    def f(x, y):
        return _nested_shadows(x, y) * x

    for mode in ("reverse", "forward"):
        assert s2sad.grad(g, mode=mode)(0.3) == pytest.approx(4.0)
        got = s2sad.grad(f, wrt=(0, 1), mode=mode)(0.3, 0.7)
        assert got == pytest.approx(tuple(tree_numeric_grad(f, (0.3, 0.7), i) for i in (0, 1)),
                                    rel=1e-6)
    h = s2sad.hessian(f, wrt=(0, 1))(0.3, 0.7)
    step = 1e-5
    numeric = [[(s2sad.grad(f, wrt=j)(*(np.add((0.3, 0.7), step * np.eye(2)[i])))
                 - s2sad.grad(f, wrt=j)(*(np.subtract((0.3, 0.7), step * np.eye(2)[i]))))
                / (2 * step) for j in (0, 1)] for i in (0, 1)]
    assert np.allclose(np.array(h, dtype=float).reshape(2, 2), numeric, atol=1e-5)


def test_lambdas():
    assert s2sad.grad(lambda v: v * v + 3.0 * v)(2.0) == 7.0
    f = lambda a, b: np.sin(a) * b  # noqa: E731
    g = s2sad.grad(f, wrt=(0, 1))(0.5, 2.0)
    assert g == (pytest.approx(2.0 * np.cos(0.5)), pytest.approx(np.sin(0.5)))
    cube, square = (lambda v: v ** 3), (lambda v: v ** 2)
    assert (s2sad.grad(cube)(2.0), s2sad.grad(square)(2.0)) == (12.0, 4.0)
    np.testing.assert_allclose(s2sad.hessian(lambda v: np.sum(v ** 3))(np.array([1.0, 2.0])),
                               np.diag([6.0, 12.0]))
    assert "def lambda__grad(v):" in s2sad.source(lambda v: v * v)
    same, again = (lambda v: v * 2.0), (lambda v: v * 2.0)
    assert s2sad.grad(same)(1.0) == s2sad.grad(again)(1.0) == 2.0
    with pytest.raises(s2sad.SourceNotFoundError, match="lambda"):
        s2sad.grad(eval("lambda v: v"))(1.0)


# lambdas on lines of a display or a call that do not parse alone: found in the tree
# of their file by their line and what they read
LOSSES = {
    "square": lambda v: v * v + 3.0 * v,
    "cube": (lambda v: v ** 3,
             lambda v: np.sum(np.sin(v) * v)),
}
STEPS = [
    lambda x, h: x + h * np.cos(x),
    lambda x, h: x - h * x ** 2,
]


def test_lambdas_on_lines_of_a_display():
    assert s2sad.grad(LOSSES["square"])(2.0) == 7.0
    assert s2sad.grad(LOSSES["cube"][0])(2.0) == 12.0
    x = np.array([0.3, -0.8])
    np.testing.assert_allclose(s2sad.grad(LOSSES["cube"][1])(x), np.sin(x) + x * np.cos(x))
    assert s2sad.grad(STEPS[0])(0.5, 0.1) == pytest.approx(1.0 - 0.1 * np.sin(0.5))
    assert s2sad.grad(STEPS[1], wrt=(0, 1))(0.5, 0.1) == (pytest.approx(1.0 - 0.1),
                                                          pytest.approx(-0.25))
    g = s2sad.grad(
        lambda v: v * v * 2.0,
    )
    assert g(3.0) == 12.0
    with pytest.raises(s2sad.S2SADError) as info:
        s2sad.grad(BROKEN["b"])(1.0)
    assert info.value.lineno == BROKEN_LINE


BROKEN = {
    "a": 1.0,
    "b": lambda v: v * {"k": v}["k"] + len(str(v)) * open,
}
BROKEN_LINE = BROKEN["b"].__code__.co_firstlineno


@dataclasses.dataclass
class Net:
    layers: list
    scale: float = 1.0

    def __call__(self, x):
        for W, b in self.layers:
            x = np.tanh(x @ W + b)
        return x * self.scale

    def penalty(self):
        return sum(np.sum(W ** 2) for W, b in self.layers)

    def loss(self, x, y):
        return np.mean((self(x)[:, 0] - y) ** 2) + 0.01 * self.penalty()


def test_a_container_calls_its_own_methods():
    """`self(x)` and `self.penalty()` on a dataclass of parameters put the class's
    methods in place, the container their first argument."""
    net = Net([(rng.normal(size=(3, 4)), np.zeros(4)), (rng.normal(size=(4, 1)), np.zeros(1))],
              1.5)
    X, Y = rng.normal(size=(5, 3)), rng.normal(size=5)
    g = s2sad.grad(net.loss, wrt="self")(X, Y)
    assert isinstance(g, Net)
    want = tree_numeric_grad(lambda n: n.loss(X, Y), (net,), 0)
    for (gw, gb), (ww, wb) in zip(g.layers, want.layers):
        np.testing.assert_allclose(gw, ww, rtol=1e-5, atol=1e-8)
        np.testing.assert_allclose(gb, wb, rtol=1e-5, atol=1e-8)
    assert g.scale == pytest.approx(want.scale, rel=1e-5)


@dataclasses.dataclass
class Affine:
    a: float
    b: float

    @property
    def ab(self):
        return self.a * self.b

    @property
    def pair(self):
        return (self.a, self.b * 2.0)

    def predict(self, x):
        return self.a * x + self.b

    def loss(self, x, y):
        return (self.predict(x) - y) ** 2 + 0.1 * self.ab ** 2


def built_affine(a, b, x):
    model = Affine(a, b)
    first, second = model.pair
    return model.loss(x, 2.0) + model.ab * x + first * second


@pytest.mark.parametrize("mode", ["reverse", "forward"])
def test_a_container_reads_its_properties(mode):
    """A property of a dataclass of parameters (``self.ab``, ``model.pair``) is its
    getter put in place, the container its argument, as a method is; it was refused
    as a field the class does not have."""
    args = (0.5, -0.3, 1.5)
    g = s2sad.grad(built_affine, wrt=(0, 1, 2), mode=mode)(*args)
    for i in range(3):
        assert g[i] == pytest.approx(tree_numeric_grad(built_affine, args, i), rel=1e-6)
    model = Affine(0.5, -0.3)
    gs = s2sad.grad(model.loss, wrt="self")(1.5, 2.0)
    want = tree_numeric_grad(lambda obj: obj.loss(1.5, 2.0), (model,), 0)
    assert gs.a == pytest.approx(want.a, rel=1e-6) and gs.b == pytest.approx(want.b, rel=1e-6)


def uses_a_global_model(v, w):
    return m.loss(v, w) * 2.0 + m(v)


def test_a_method_of_a_global_object_called_inside():
    """``m.loss(v, w)``, `m` a module-level object of a class of the user's, is the
    call of the class's function with `m` first, differentiated as any function of
    the user's, in every mode; it was refused for want of a rule for `m.loss`."""
    want = 4 * m.W.T @ (m.W @ x - y) + m.W.T @ (1 - np.tanh(m.W @ x) ** 2)
    np.testing.assert_allclose(s2sad.grad(uses_a_global_model)(x, y), want)
    _, dot = s2sad.jvp(uses_a_global_model, (x, y), (np.ones(3), None))
    assert dot == pytest.approx(np.sum(want))
    np.testing.assert_allclose(s2sad.grad(uses_a_global_model, wrt=1)(x, y),
                               -4 * (m.W @ x - y))


def _timed(f):
    @functools.wraps(f)
    def wrapper(*args, **kwargs):
        result = f(*args, **kwargs)
        print(f"{f.__name__} done", end="")
        return result
    return wrapper


def _doubled(f):
    @functools.wraps(f)
    def wrapper(*args, **kwargs):
        return 2.0 * f(*args, **kwargs)
    return wrapper


@_timed
def _timed_sin(v, k=1.0):
    return math.sin(k * v)


@_doubled
def _doubled_sin(v):
    return math.sin(v)


def uses_timed(v):
    return _timed_sin(v) * v + _timed_sin(v, k=2.0)


def uses_doubled(v):
    return _doubled_sin(v) * v


class _Box:
    scale = 1.0


def _rescaling(f):
    @functools.wraps(f)
    def wrapper(*args, **kwargs):
        setattr(args[1], "scale", 3.0)  # (changes what the wrapped function reads)
        print(f"calling with {args}", end="")  # (reporting them is fine)
        return f(*args, **kwargs)
    return wrapper


@_rescaling
def _scaled_sin(v, box):
    return box.scale * math.sin(v)


def uses_rescaling(v):
    return _scaled_sin(v, _Box()) * v


def test_a_decorators_wrapper_is_followed_or_refused():
    """A function a decorator wraps (`functools.wraps`) is read from the wrapped
    function's text: fine where the wrapper returns ``f(*args, **kwargs)`` as it is
    (a timer); a wrapper that does more (``2.0 * f(...)``) is refused, where it once
    gave the derivative of the undecorated function, a silently wrong number."""
    v = 0.7
    want = math.sin(v) + v * math.cos(v) + 2.0 * math.cos(2.0 * v)
    assert s2sad.grad(uses_timed)(v) == pytest.approx(want)
    assert s2sad.jvp(uses_timed, (v,), (1.0,))[1] == pytest.approx(want)
    for mode in ("reverse", "forward"):
        with pytest.raises(s2sad.NotDifferentiableError, match="_doubled.<locals>.wrapper"):
            s2sad.grad(uses_doubled, mode=mode)(v)
        # (a wrapper that hands its arguments to anything but the wrapped function and
        # a report: it gave the derivative with `scale` 1.0, where the call has 3.0)
        with pytest.raises(s2sad.NotDifferentiableError, match="_rescaling.<locals>.wrapper"):
            s2sad.grad(uses_rescaling, mode=mode)(v)


def test_a_decorated_function_is_differentiated_as_the_one_it_wraps():
    # (grad of the decorated function itself, as of a call of it inside another)
    v = 0.7
    assert s2sad.grad(_timed_sin)(v) == pytest.approx(math.cos(v))
    assert s2sad.grad(_timed_sin, wrt=(0, 1))(v, 2.0) == (
        pytest.approx(2.0 * math.cos(2.0 * v)), pytest.approx(v * math.cos(2.0 * v)))
    assert s2sad.hessian(_timed_sin)(v) == pytest.approx(-math.sin(v))
    assert s2sad.vjp(_timed_sin, v)[1](1.0) == (pytest.approx(math.cos(v)),)
    assert s2sad.jvp(_timed_sin, (v,), (1.0,))[1] == pytest.approx(math.cos(v))
    assert "def _timed_sin_grad(v, k=1.0):" in s2sad.source(_timed_sin)
    with pytest.raises(s2sad.NotDifferentiableError, match="_doubled.<locals>.wrapper"):
        s2sad.grad(_doubled_sin)(v)
    with pytest.raises(s2sad.NotDifferentiableError, match="_rescaling.<locals>.wrapper"):
        s2sad.grad(_scaled_sin)(v, _Box())


def _half_square(v):
    return 0.5 * v * v


def test_local_names_given_functions():
    """A local name given a function (``act = np.tanh``), chosen by a test that does
    not change (``act = np.tanh if smooth else np.sin``), or a loop or generator over
    a display of functions, is the function where it is called
    (`frontend.function_values`), in every mode."""
    def alias(x):
        act = np.tanh
        half = _half_square
        return act(x) * 2.0 + half(x)

    def chosen(x, smooth=True):
        act = _half_square if smooth else np.cos
        return act(x) + act(2.0 * x)

    def looped(x):
        total = 0.0
        for f in (np.sin, _half_square, lambda t: t * 3.0):
            total = total * 0.5 + f(x)
        fs = [math.exp, math.cos]
        return total + sum(f(x) for f in fs) + max([g(x) for g in (np.sin, np.cos)])

    def aliased_lambda(x):
        sq = lambda t: t * t  # noqa: E731
        act = sq
        return act(x) * np.sin(x)

    def named_in_loops(x):
        # (given the same function on every line that binds it, in nested loops)
        acc = x
        for _ in range(2):
            act = math.tanh
            acc = acc + 0.5 * act(acc * x)
            for _ in range(2):
                act = math.tanh
                acc = acc + 0.5 * act(acc)
        return acc

    for f, args in [(alias, (0.3,)), (chosen, (0.3, True)), (chosen, (0.3, False)),
                    (looped, (0.3,)), (aliased_lambda, (0.7,)), (named_in_loops, (0.3,))]:
        g = s2sad.grad(f)(*args)
        assert g == pytest.approx(tree_numeric_grad(f, args, 0), rel=1e-6), f.__name__
        assert s2sad.jvp(f, args, (1.0,) + (None,) * (len(args) - 1))[1] == \
            pytest.approx(g, rel=1e-9)
        eps = 1e-5
        h = s2sad.hessian(f)(*args)
        assert h == pytest.approx((s2sad.grad(f)(args[0] + eps, *args[1:]) -
                                   s2sad.grad(f)(args[0] - eps, *args[1:])) / (2 * eps),
                                  rel=1e-4, abs=1e-7), f.__name__


def _square(t):
    return t * t


def _apply_twice(f, x):
    return f(f(x))


def _integrate(f, y, dt, steps=3):
    for _ in range(steps):  # (explicit Euler of y' = f(y))
        y = y + dt * f(y)
    return y


def test_a_function_passed_from_one_function_to_another():
    """A module function, a builtin or a ufunc handed to another function of the
    user's (``integrate(f, y, dt)``), by position or keyword: the callee is put in
    place with the function where its parameter is called."""
    def twice(x):
        return _apply_twice(_square, x) + _apply_twice(math.sin, x)

    def integrated(x):
        return np.sum(_integrate(np.tanh, x, 0.1) * _integrate(f=_square, y=x, dt=0.05))

    def chosen(x):  # (in a conditional expression: an `if` before the line)
        return x * 0.5 if _apply_twice(math.sin, x) > 0.2 else _integrate(np.tanh, x, 0.1)

    for f, x in [(twice, 0.3), (integrated, np.array([0.3, -0.2])), (chosen, 0.3),
                 (chosen, 0.1)]:
        g = s2sad.grad(f)(x)
        assert np.allclose(g, tree_numeric_grad(f, (x,), 0), rtol=1e-6), f.__name__
    assert s2sad.grad(twice)(0.3) == pytest.approx(4 * 0.3 ** 3 + math.cos(math.sin(0.3))
                                                   * math.cos(0.3))
    assert s2sad.jvp(twice, (0.3,), (1.0,))[1] == pytest.approx(s2sad.grad(twice)(0.3))
    assert s2sad.hessian(twice)(0.3) == pytest.approx(
        12 * 0.09 - math.sin(math.sin(0.3)) * math.cos(0.3) ** 2
        - math.cos(math.sin(0.3)) * math.sin(0.3))


def test_a_function_chosen_by_a_value_that_changes_is_refused():
    def changed(x, smooth=True):
        act = np.tanh if smooth else np.sin
        smooth = not smooth  # (the test no longer says which function `act` holds)
        return act(x)

    with pytest.raises(s2sad.S2SADError, match="computed or local value"):
        s2sad.grad(changed)(0.3)

    def rebound(x):
        act = np.sin
        y = act(x)
        act = np.cos  # (another function: which one a call means depends on the line)
        return y + act(x)

    with pytest.raises(s2sad.S2SADError, match="computed or local value"):
        s2sad.grad(rebound)(0.3)


_ACT = math.tanh


def _layer(x, w, act=_ACT):
    return act(w * x)


def _layer_of(x, w, act=np.tanh, *, out=_square):
    return out(act(w * x))


def test_a_function_taken_by_default_is_put_in_place():
    """``def layer(x, w, act=np.tanh)`` called without `act`: the call is put in
    place with the default passed, named as the ``def`` names it (a global, an
    attribute chain, a keyword-only parameter's default), by position or keyword."""
    def plain(x):
        return _layer(x, 2.0) + _layer(x, 3.0, _square)

    def keywords(x):
        return _layer_of(x, 0.5) + _layer_of(x, 1.5, act=math.sin) + _layer_of(
            x, 2.0, out=np.cos)

    def looped(x):
        acc = x
        for i in range(3):
            acc = acc + 0.25 * _layer(acc, 1.0 + i)
        return acc

    def on_arrays(x):
        return np.sum(_layer_of(x, 0.7) * _layer_of(x, 1.3, act=np.sin))

    for f, x in [(plain, 0.3), (keywords, 0.3), (looped, 0.4),
                 (on_arrays, np.array([0.3, -0.2, 0.5]))]:
        g = s2sad.grad(f)(x)
        assert np.allclose(g, tree_numeric_grad(f, (x,), 0), rtol=1e-6), f.__name__
        assert s2sad.jvp(f, (x,), (np.ones_like(x),))[1] == pytest.approx(
            np.sum(g), rel=1e-9), f.__name__
    assert s2sad.grad(plain)(0.3) == pytest.approx(2 / math.cosh(0.6) ** 2 + 18 * 0.3)
    eps = 1e-5
    assert s2sad.hessian(looped)(0.4) == pytest.approx(
        (s2sad.grad(looped)(0.4 + eps) - s2sad.grad(looped)(0.4 - eps)) / (2 * eps), rel=1e-5)


def test_a_default_function_named_otherwise_where_it_is_called():
    """The default's name means something else in the caller (a local of the same
    name): it is read by a name of its own; or it is read through the module of
    ``m.layer(x)``."""
    def shadowed(x):
        _ACT = 2.0  # noqa: N806 (the caller's own `_ACT`)
        return _layer(x, _ACT)

    assert s2sad.grad(shadowed)(0.3) == pytest.approx(2.0 / math.cosh(0.6) ** 2)
    assert s2sad.jvp(shadowed, (0.3,), (1.0,))[1] == pytest.approx(2.0 / math.cosh(0.6) ** 2)

    def by_lambda(x):
        return _layer_by_lambda(x)

    assert s2sad.grad(by_lambda)(0.3) == pytest.approx(2.0)  # (the lambda, by a name)
    assert s2sad.jvp(by_lambda, (0.3,), (1.0,)) == pytest.approx((0.6, 2.0))
    assert s2sad.grad(lambda x: _layer_by_lambda(x, act=math.sin))(0.3) == \
        pytest.approx(math.cos(0.3))


def _layer_by_lambda(x, act=lambda z: 2.0 * z):
    return act(x)


def test_a_default_function_of_another_module(tmp_path, monkeypatch):
    (tmp_path / "s2sad_default_layers.py").write_text(
        "import math\n\nACT = math.sin\n\n\ndef layer(x, w, act=ACT):\n"
        "    return act(w * x) * w\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    import s2sad_default_layers as layers

    def f(x):
        return layers.layer(x, 2.0) + x * x

    assert s2sad.grad(f)(0.3) == pytest.approx(4 * math.cos(0.6) + 0.6)


def test_a_function_put_in_place_in_the_first_iterable_of_a_comprehension():
    """The first iterable of a comprehension (and of `map`, a comprehension too) is
    evaluated where the comprehension is made, so a call in it that puts a function
    in place (one handed a function) goes before the line, as elsewhere; it was
    refused as a call inside a comprehension (found by the scalar fuzzer)."""
    def mapped(x, y):
        return x + 0.5 * max(map(lambda a, b: a * math.sin(b), [y, x],
                                 [0.5, _apply_twice(math.sin, x)]))

    def generated(x, y):
        return sum(v * x for v in [_apply_twice(math.sin, y), y])

    for f in (mapped, generated):
        got = s2sad.grad(f, wrt=(0, 1))(0.3, 0.7)
        want = [tree_numeric_grad(f, (0.3, 0.7), k) for k in (0, 1)]
        assert got == pytest.approx(want, rel=1e-6), f.__name__


def _rk2_step(rhs, y, h, k):
    return y + h * rhs(y + 0.5 * h * rhs(y, k), k)


def _decay(y, k):
    return -k * y * y


def _integrate_default(k, y0, step=_rk2_step, n=5):
    y = y0
    for _ in range(n):
        y = step(_decay, y, 0.1, k)
    return y


def _scaled(x, act=np.sin, *, c=2.0):
    return act(x) * c


def test_the_function_differentiated_takes_a_function_by_default_in_every_entry():
    """The function differentiated itself leaves a parameter to a default that is a
    function (``def integrate(k, y0, step=rk2_step)``): jvp and vjp hold it fixed as
    grad does (they were refused as a call of a computed value), and a function
    passed beside a keyword-only parameter reaches the derivative with that parameter
    by keyword (grad raised an internal TypeError)."""
    args = (0.7, 1.2)
    want = [tree_numeric_grad(_integrate_default, args, k) for k in (0, 1)]
    assert s2sad.grad(_integrate_default, wrt=(0, 1))(*args) == pytest.approx(want, rel=1e-6)
    out, dot = s2sad.jvp(_integrate_default, args, (1.0, -0.5))
    assert out == pytest.approx(_integrate_default(*args), rel=1e-12)
    assert dot == pytest.approx(want[0] - 0.5 * want[1], rel=1e-6)
    out, pullback = s2sad.vjp(_integrate_default, *args)
    assert pullback(2.0) == pytest.approx((2 * want[0], 2 * want[1]), rel=1e-6)
    assert s2sad.vjp(_integrate_default, *args, _rk2_step)[1](1.0)[:2] == pytest.approx(
        want, rel=1e-6)
    assert s2sad.grad(_scaled)(0.3) == pytest.approx(2 * math.cos(0.3))
    assert s2sad.grad(_scaled)(0.3, np.cos, c=3.0) == pytest.approx(-3 * math.sin(0.3))
    assert s2sad.jvp(_scaled, (0.3,), (1.0,))[1] == pytest.approx(2 * math.cos(0.3))
    assert s2sad.vjp(_scaled, 0.3)[1](1.0) == pytest.approx((2 * math.cos(0.3),))


def _inner_loss(w, x):
    return (w * x - 1.0) ** 2 + 0.1 * w ** 4


_inner_grad = s2sad.grad(_inner_loss)


def _unrolled(lr, w0, x):
    w = w0
    for _ in range(3):
        w = w - lr * _inner_grad(w, x)
    return _inner_loss(w, x)


def _scaled_by_a_constant_gradient(w):
    return w * _inner_grad(0.5, 2.0)


def test_a_derivative_s2sad_made_called_inside_is_refused_or_run():
    # (its text is the function it came from: read as that function, the value and
    # the gradient were those of the loop with `_inner_loss` for `_inner_grad`)
    for mode in ("reverse", "forward"):
        with pytest.raises(s2sad.NoRuleError, match="a derivative s2sad made"):
            s2sad.grad(_unrolled, wrt=(0, 1), mode=mode)(0.1, 0.5, 2.0)
    with pytest.raises(s2sad.NotDifferentiableError, match="derivatives it made"):
        s2sad.grad(_unrolled, wrt=(0, 1), mode="tape")(0.1, 0.5, 2.0)
    # (where nothing varying reaches it, it is called as it is)
    assert s2sad.grad(_scaled_by_a_constant_gradient)(0.3) == _inner_grad(0.5, 2.0)


def _with_its_own_default(f):
    @functools.wraps(f)
    def wrapper(v, k=10.0):
        return f(v, k)
    return wrapper


@_with_its_own_default
def _defaulted_sin(v, k=1.5):
    return math.sin(k * v)


def _calls_defaulted_sin(v):
    return _defaulted_sin(v) * 2.0


def test_a_wrapper_with_defaults_of_its_own_is_refused():
    # (it passes its arguments on as they came, but `k` is 10.0 where the wrapped
    # function's text says 1.5: the gradient was that of k = 1.5, the tape's too)
    for call in (lambda: s2sad.grad(_defaulted_sin)(0.7),
                 lambda: s2sad.grad(_defaulted_sin, mode="tape")(0.7),
                 lambda: s2sad.grad(_calls_defaulted_sin)(0.7)):
        with pytest.raises(s2sad.NotDifferentiableError, match="default of its own"):
            call()


def _applied_twice(fn, a, steps=2):
    for _ in range(steps):
        a = a + 0.25 * fn(a)
    return a


def _squared(a):
    return a * a


def _written_with_a_function_argument(x):
    y = x.copy()
    y[0] = _applied_twice(_squared, x[0])
    return np.sum(y * y)


def test_a_call_given_a_function_written_into_an_array_element():
    """``y[0] = apply(fn, x[0])``: the call's result written into an array was
    refused as "a container of parameters" assigned to that target."""
    x = np.array([0.3, 0.5, 0.7])
    for mode in ("reverse", "forward"):
        g = s2sad.grad(_written_with_a_function_argument, mode=mode)(x)
        assert np.allclose(g, central_diff(_written_with_a_function_argument, (x,), 0),
                           rtol=1e-6, atol=1e-8)


def _chosen_in_an_if(x, smooth):
    if smooth:
        def g(u):
            return u * 2.0
    else:
        def g(u):
            return u * x
    return g(x)


def _lambda_rebound_in_an_if(x, smooth):
    g = lambda u: u * 2.0  # noqa: E731
    if not smooth:
        g = lambda u: u * x  # noqa: E731
    return g(x)


def _lambda_rebound_in_a_loop(x):
    acc = 0.0
    g = lambda t: t * 2.0  # noqa: E731
    for _ in range(2):
        acc += g(x)
        g = lambda t: t * x  # noqa: E731
    return acc


def _defined_and_called_in_each_branch(x, smooth):
    if smooth:
        def g(u):
            return u * 2.0
        y = g(x)
    else:
        def g(u):
            return u * x
        y = g(x)
    return y


def _shadowed_inside_another(x):
    def b(t):
        return t * 3.0

    def a(t):
        def b(t):  # (a's own b)
            return t * x
        return b(t)
    return a(x) + b(x)


@pytest.mark.parametrize("f,args", [(_chosen_in_an_if, (0.7, True)),
                                    (_lambda_rebound_in_an_if, (0.7, True)),
                                    (_lambda_rebound_in_a_loop, (0.7,))])
def test_a_local_function_given_on_some_paths_is_refused_at_the_call(f, args):
    """A name given one function or another by an `if` or a loop: the derivative
    used the last definition in the text, whichever ran (0.49 where 1.4 is right)."""
    for mode in ("reverse", "forward"):
        with pytest.raises(s2sad.S2SADError, match="different function on different paths"):
            s2sad.value_and_grad(f, mode=mode)(*args)


@pytest.mark.parametrize("f,args", [(_defined_and_called_in_each_branch, (0.7, True)),
                                    (_defined_and_called_in_each_branch, (0.7, False)),
                                    (_shadowed_inside_another, (0.7,))])
def test_a_local_function_is_the_one_its_scope_and_path_give(f, args):
    """Called where one definition reaches it; a function's own nested `def` does not
    replace the caller's of the same name (the outer `b(x)` was `x * x`)."""
    for mode in ("reverse", "forward"):
        value, grad = s2sad.value_and_grad(f, mode=mode)(*args)
        assert value == pytest.approx(f(*args))
        h = 1e-6
        assert grad == pytest.approx((f(args[0] + h, *args[1:]) - f(args[0] - h, *args[1:]))
                                     / (2 * h), rel=1e-6)


def _dense_act(h, W, act=np.tanh):
    return act(h @ W)


def _newton(f, df, x):
    for _ in range(20):
        x = x - f(x) / df(x)
    return x


def _apply_twice(g, x):
    return g(g(x))


def test_a_lambda_written_as_an_argument_of_a_function_of_yours():
    """``dense(h, W, act=lambda z: z * z)``, ``newton(lambda x: x * x - a, ...)``: the
    lambda named on a line before the call, as the same code with ``act = lambda
    ...`` first (which worked) names it; it was refused as a `lambda`."""
    W, x = np.eye(2) * 0.5, np.ones((3, 2))

    def squared(W, x):
        return np.sum(_dense_act(x, W, act=lambda z: z * z))

    def in_a_dict(p, x):
        return np.sum(_dense_act(x, p["W"], lambda z: np.sin(z)))

    def root(a):
        return _newton(lambda t: t * t - a, lambda t: 2 * t, 1.0)

    def twice(a):
        return _apply_twice(lambda t: a * math.sin(t), 0.3) + sum(map(lambda v: v * a, [1.0, 2.0]))

    for mode in ("reverse", "forward"):
        np.testing.assert_allclose(s2sad.grad(squared, mode=mode)(W, x), np.full((2, 2), 3.0))
        np.testing.assert_allclose(s2sad.grad(in_a_dict, mode=mode)({"W": W}, x)["W"],
                                   tree_numeric_grad(in_a_dict, ({"W": W}, x), 0)["W"],
                                   rtol=1e-6)
        assert s2sad.grad(root, mode=mode)(2.0) == pytest.approx(0.5 / math.sqrt(2.0))
        e = 1e-6
        assert s2sad.grad(twice, mode=mode)(0.7) == pytest.approx(
            (twice(0.7 + e) - twice(0.7 - e)) / (2 * e), rel=1e-6)


def _simpson(f, lo, hi, depth):
    mid = 0.5 * (lo + hi)
    if depth >= 2:
        return (hi - lo) * (f(lo) + 4 * f(mid) + f(hi)) / 6.0
    return _simpson(f, lo, mid, depth + 1) + _simpson(f, mid, hi, depth + 1)


def test_a_recursive_function_handed_a_function_says_so():
    """Adaptive Simpson handed `math.exp`: put in place for the function, it cannot be
    (it calls itself); the message said a container was passed, and there is none."""
    def area(a):
        return _simpson(math.exp, 0.0, a, 0)

    with pytest.raises(s2sad.NotDifferentiableError, match="handed a function") as info:
        s2sad.grad(area)(1.0)
    assert "container" not in str(info.value)
    assert s2sad.grad(area, mode="tape")(1.0) == pytest.approx(math.exp(1.0), rel=1e-4)
