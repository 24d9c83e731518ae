"""Methods an object's method calls on itself (``self.predict(x)``, ``self(x)``) and
methods called on an object passed as an argument (``model.predict(x)``): the
function the object's class defines, differentiated as any function of the user's,
in every mode; a derivative built for one class is not used for another."""

import logging

import numpy as np
import pytest

import s2sad
from helpers import numeric_grad

rng = np.random.default_rng(7)
X = rng.normal(size=(6, 3))
Y = rng.normal(size=6)
W0 = rng.normal(size=3)


class Regressor:
    def __init__(self, scale):
        self.scale = scale

    def features(self, x):
        return x * self.scale

    def predict(self, w, x):
        return np.tanh(self.features(x) @ w)

    @staticmethod
    def penalty(w):
        return 0.01 * np.sum(w * w)

    def __call__(self, w):
        return np.sum(w ** 3) * self.scale

    def loss(self, w, x, y):
        width = np.sum(self.features(x))  # (not a function of w)
        return np.mean((self.predict(w, x) - y) ** 2) + self.penalty(w) + self(w) \
            + 0.0 * width


class SineRegressor(Regressor):
    def predict(self, w, x):
        return np.sin(self.features(x) @ w)


def loss_of(model, w, x, y):
    return model.loss(w, x, y) + np.sum(model.predict(w, x)) + model(w)


def _check(g, f, w):
    np.testing.assert_allclose(g, numeric_grad(f, (w,), 0), rtol=1e-6, atol=1e-8)


@pytest.mark.parametrize("mode", ["reverse", "forward"])
def test_a_method_calls_the_methods_of_self(mode):
    """``self.predict(w, x)``, ``self.penalty(w)`` (a staticmethod), ``self(w)`` and
    a call that does not depend on `w`; they were refused for want of a rule for the
    method."""
    model = Regressor(1.5)
    g = s2sad.grad(model.loss, mode=mode)(W0, X, Y)
    _check(g, lambda w: model.loss(w, X, Y), W0)


def test_each_class_gets_its_own_methods():
    """`loss` is the same function for both classes, and `predict` is not: each
    class gets a derivative of its own, through a bound method and as an argument,
    and the first class's still holds after the second's was built."""
    first, second = Regressor(1.5), SineRegressor(0.7)
    for model in (first, second, first):
        _check(s2sad.grad(model.loss)(W0, X, Y), lambda w: model.loss(w, X, Y), W0)
        g = s2sad.grad(loss_of, wrt=1)(model, W0, X, Y)
        _check(g, lambda w: loss_of(model, w, X, Y), W0)
    dispatched = s2sad.grad(loss_of, wrt=1)
    for model in (second, first, second):
        _check(dispatched(model, W0, X, Y), lambda w: loss_of(model, w, X, Y), W0)


def test_second_order_and_products_through_methods():
    model = SineRegressor(0.7)

    def f(w):
        return model.loss(w, X, Y)

    H = s2sad.hessian(f)(W0)
    want = np.stack([numeric_grad(lambda w: s2sad.grad(f)(w)[i], (W0,), 0)
                     for i in range(3)])
    np.testing.assert_allclose(H, want, rtol=1e-5, atol=1e-7)
    v = rng.normal(size=3)
    _, dot = s2sad.jvp(loss_of, (model, W0, X, Y), (None, v, None, None))
    assert dot == pytest.approx(numeric_grad(lambda w: loss_of(model, w, X, Y),
                                             (W0,), 0) @ v, rel=1e-6)
    _, back = s2sad.vjp(model.loss, W0, X, Y)
    _check(back(1.0)[0], lambda w: model.loss(w, X, Y), W0)


def test_the_derivative_calls_the_class_by_name():
    """A call that does not depend on `w` runs as ``Regressor.features(self, x)``:
    the class read by its name, given to the derivative where the function's module
    does not name it."""
    text = s2sad.source(Regressor.loss, wrt=1, example=(Regressor(1.5), W0, X, Y))
    assert "Regressor.features(self, x)" in text
    assert "def predict_fwd(self, w, x):" in text


def test_a_local_that_takes_the_class_name():
    """The class's name means something else in the function: the derivative reads
    the class by another name."""

    class Scaled:
        def __init__(self, k):
            self.k = k

        def apply(self, v):
            return v * self.k

        def loss(self, v):
            Scaled = 2.0
            return np.sum(self.apply(v) ** 2) * Scaled + 0.0 * self.apply(1.0)

    model = Scaled(3.0)
    np.testing.assert_allclose(s2sad.grad(model.loss)(W0), 2.0 * 2 * 9.0 * W0)
    assert "Scaled_.apply(self, 1.0)" in s2sad.source(Scaled.loss, wrt=1,
                                                      example=(model, W0))


class Built:
    def __init__(self, k):
        self.k = k

    @classmethod
    def make(cls, w):
        return np.sum(w) * 2.0

    def loss(self, w):
        return self.make(w) * self.k


def test_a_classmethod_through_self_is_refused():
    with pytest.raises(s2sad.NoRuleError, match=r"method \.make\(\)"):
        s2sad.grad(Built(2.0).loss)(W0)


class Patched:
    def predict(self, w):
        return np.sum(w * w)

    def loss(self, w):
        return self.predict(w) * 2.0


def test_an_object_holding_a_function_under_a_method_name_is_refused():
    """Python calls what the object holds (``obj.predict = f``), not the class's
    method: such an object's methods are not resolved, and the call is refused at
    its line, never differentiated as the class's."""
    obj = Patched()
    obj.predict = lambda w: np.sum(np.sin(w))
    with pytest.raises(s2sad.NoRuleError, match=r"method \.predict\(\)"):
        s2sad.grad(obj.loss)(W0)
    np.testing.assert_allclose(s2sad.grad(Patched().loss)(W0), 4.0 * W0)


def test_a_method_changed_on_the_class_builds_again():
    """``Patched.predict = ...`` after a gradient was built: the dispatcher's check of
    the class's attribute sees it, and the next call builds again."""
    obj = Patched()
    g = s2sad.grad(obj.loss)
    np.testing.assert_allclose(g(W0), 4.0 * W0)
    old = Patched.predict
    try:
        Patched.predict = lambda self, w: np.sum(np.sin(w))
        np.testing.assert_allclose(g(W0), 2.0 * np.cos(W0))
    finally:
        Patched.predict = old
    np.testing.assert_allclose(g(W0), 4.0 * W0)


def test_a_parameter_of_an_inner_function_is_not_the_object():
    """An inner function whose own parameter has the object's name: its calls are
    not the class's methods (refused, not resolved)."""

    class Inner:
        def predict(self, w):
            return np.sum(w * w)

        def loss(self, w):
            def twice(self):
                return self.predict(w) * 2.0
            return twice(self)

    with pytest.raises(s2sad.NoRuleError, match=r"method \.predict\(\)"):
        s2sad.grad(Inner().loss)(W0)


class Kept(Regressor):
    def predict(self, w, x):
        return np.cos(self.features(x) @ w)


def test_not_kept_on_disk(tmp_path, caplog, monkeypatch):
    """The disk cache does not keep a derivative that calls a method of an argument:
    no name from the function reaches that method, which the entry's checks follow."""
    from s2sad.backend import diskcache

    monkeypatch.delenv("S2SAD_DISK_CACHE", raising=False)
    monkeypatch.setattr(diskcache, "_setting", None)  # (put back when the test ends)
    monkeypatch.setattr(diskcache, "_max_mb", None)
    s2sad.enable_disk_cache(tmp_path)
    with caplog.at_level(logging.INFO, logger="s2sad.backend.diskcache"):
        model = Kept(0.3)
        _check(s2sad.grad(model.loss)(W0, X, Y), lambda w: model.loss(w, X, Y), W0)
    assert "not stored" in caplog.text and "Kept.predict" in caplog.text


# ------------------------------------ values put where the derivative cannot follow


class Remembers:
    def __init__(self):
        self.cache = []

    def remember(self, w):
        self.v = w * w

    def push(self, v):
        self.cache.append(v)

    def loss(self, w):
        self.remember(w)
        return self.v * 2.0 + w

    def loss_through_list(self, w):
        self.cache.clear()
        self.push(w * w)
        return self.cache[0] * 3.0 + w


HISTORY = []


def logs_to_a_global(w):
    HISTORY.append(w * w)
    return HISTORY[-1] + w


def logs_what_it_keeps(w):
    y = w * w
    HISTORY.append(s2sad.stop_gradient(y))
    return y + w


def test_a_value_stored_where_the_derivative_cannot_follow_is_refused():
    """A method called for its effect that stores a value on `self` (its result
    unread), an append to a list read from an attribute, and a call for its effect
    that puts a value with a derivative into a list from outside: each dropped the
    derivative through what it stored (1.0 for 2.4); they are refused at their
    lines. A value held fixed with `stop_gradient` may be kept."""
    with pytest.raises(s2sad.UnsupportedSyntaxError, match="assignment to an attribute"):
        s2sad.grad(Remembers().loss)(0.7)
    with pytest.raises(s2sad.NotDifferentiableError, match="appends `v`.*cannot follow"):
        s2sad.grad(Remembers().loss_through_list)(0.7)
    with pytest.raises(s2sad.NotDifferentiableError, match="called for its effect"):
        s2sad.grad(logs_to_a_global)(0.7)
    assert s2sad.grad(logs_what_it_keeps)(0.7) == pytest.approx(2.4)


def test_an_object_that_takes_a_method_after_the_gradient_was_built():
    """``obj.predict = f`` after the gradient was built for the class's `predict`:
    the dispatcher sees the object hold it, and the call is refused (the derivative
    of the class's `predict` would be a wrong number); so for a module-level object
    whose method another method calls."""
    obj = Patched()
    g = s2sad.grad(obj.loss)
    np.testing.assert_allclose(g(W0), 4.0 * W0)
    obj.predict = lambda w: np.sum(np.sin(w))
    with pytest.raises(s2sad.NoRuleError, match=r"method \.predict\(\)"):
        g(W0)
    del obj.predict
    np.testing.assert_allclose(g(W0), 4.0 * W0)
    global HELD
    HELD = Patched()
    g2 = s2sad.grad(uses_held)
    np.testing.assert_allclose(g2(W0), 4.0 * W0)
    HELD.predict = lambda w: np.sum(w)
    with pytest.raises(s2sad.NoRuleError):
        g2(W0)


HELD = None


def uses_held(w):
    return HELD.loss(w)


class Private:
    def __init__(self):
        self.__scale = 2.0

    def __square(self, w):
        return w * w

    def loss(self, w):
        return np.sum(self.__square(w)) * self.__scale


class Proxy:
    def __getattribute__(self, name):
        if name == "predict":
            return lambda w: np.sum(w)
        return object.__getattribute__(self, name)

    def predict(self, w):
        return np.sum(w * w)

    def loss(self, w):
        return self.predict(w)


def test_private_names_and_a_class_that_decides_its_names():
    """``self.__scale`` and ``self.__square(w)`` are the names Python compiles them
    to in the class (they raised an AttributeError in the derivative); a class with a
    ``__getattribute__`` of its own is not looked into (Python's call is the
    object's, not the class's function)."""
    np.testing.assert_allclose(s2sad.grad(Private().loss)(W0), 4.0 * W0)
    with pytest.raises(s2sad.NoRuleError):
        s2sad.grad(Proxy().loss)(W0)


LOG = []
NESTED = [[0.0]]


def _push(v):
    LOG.append(v)


def _same(xs):
    return xs


def alias_append(w):
    held = LOG
    held.append(w * w)
    return LOG[-1] + w


def nested_append(w):
    NESTED[0].append(w * w)
    return NESTED[0][-1] + w


def boxed_append(w):
    box = [LOG]
    box[0].append(w * w)
    return LOG[-1] + w


def returned_append(w):
    held = _same(LOG)
    held.append(w * w)
    return LOG[-1] + w


def used_append(w):
    r = LOG.append(w * w)
    return LOG[-1] + w + (0.0 if r is None else 1.0)


def used_helper(w):
    r = _push(w * w)
    return LOG[-1] + w + (0.0 if r is None else 1.0)


def appended_in_try(w):
    try:
        LOG.append(w * w)
    except ValueError:
        pass
    return LOG[-1] + w


def helper_in_assert(w):
    assert _push(w * w) is None
    return LOG[-1] + w


def keyword_in_try(w):
    try:
        _push(v=w * w)
    except ValueError:
        pass
    return LOG[-1] + w


def logs_text(w):
    y = w * w
    LOG.append(str(y))
    LOG.append(f"{y:.3f}")
    LOG.append("{:.3}".format(y))
    try:
        LOG.append(repr(y))
    except ValueError:
        pass
    return y + w


@pytest.mark.parametrize("f", [alias_append, nested_append, boxed_append, returned_append,
                               used_append, used_helper, appended_in_try, helper_in_assert,
                               keyword_in_try])
@pytest.mark.parametrize("mode", ["reverse", "forward"])
def test_every_way_to_a_list_from_outside_is_refused(f, mode):
    """A value with a derivative appended to a module-level list through another name,
    an item of one, a list holding one, what a function given one returns, an append
    or a helper whose result is used, a ``try`` block and an ``assert``: each gave the
    derivative without that path (1.0 for 2.4); each is refused."""
    with pytest.raises(s2sad.NotDifferentiableError):
        s2sad.grad(f, mode=mode)(0.7)


def test_text_made_of_a_value_may_be_kept():
    """Text carries no derivative: ``str(y)``, an f-string, ``"...".format(y)`` and
    ``repr(y)`` may go into a list from outside; a number read back from text is
    refused, not differentiated as a constant."""
    assert s2sad.grad(logs_text)(0.7) == pytest.approx(2.4)

    def read_back(w):
        return float(str(w * w)) + w

    with pytest.raises(s2sad.NotDifferentiableError, match="makes text"):
        s2sad.grad(read_back)(0.7)


class Net:
    def __init__(self, act):
        self.act = act

    def activation(self, z):
        if self.act == "tanh":
            return np.tanh(z)
        return np.sin(z)

    def forward(self, params, x):
        return self.activation(x @ params["W1"] + params["b1"]) @ params["W2"]

    def loss(self, params, x, y):
        return np.mean((self.forward(params, x) - y) ** 2)


@pytest.mark.parametrize("act", ["tanh", "sin"])
def test_a_dict_of_parameters_through_methods_that_call_methods(act):
    """``self.forward(params, x)`` is put in place (it is handed a dict of
    parameters), and calls ``self.activation(z)`` in turn: the caller's `self` and its
    class are the callee's (it was refused for want of a rule for .activation())."""
    params = {"W1": rng.normal(size=(3, 4)), "b1": rng.normal(size=4),
              "W2": rng.normal(size=4)}
    model = Net(act)
    g = s2sad.grad(model.loss)(params, X, Y)
    for key in params:
        def f(v, key=key):
            return model.loss({**params, key: v}, X, Y)
        np.testing.assert_allclose(g[key], numeric_grad(f, (params[key],), 0),
                                   rtol=1e-5, atol=1e-8)


class Normalizer:
    def __init__(self, training):
        self.running_mean = np.full(3, 0.3)
        self.training = training

    def loss(self, x):
        mu = x.mean(0) if self.training else self.running_mean
        return np.sum((x - mu) ** 2 * x)


@pytest.mark.parametrize("training", [True, False])
@pytest.mark.parametrize("mode", ["reverse", "forward"])
def test_an_attribute_read_on_one_path_of_a_join(training, mode):
    """``mu = x.mean(0) if self.training else self.running_mean``: the attribute is a
    constant on its path, whatever the other path carries (it was refused for want of
    a rule for the attribute .running_mean, on either path)."""
    model = Normalizer(training)
    x = rng.normal(size=(4, 3))
    np.testing.assert_allclose(s2sad.grad(model.loss, mode=mode)(x),
                               numeric_grad(model.loss, (x,), 0), rtol=1e-5, atol=1e-8)


class _Squares:
    def __call__(self, x):
        return x * x


def _cubes(self, x):
    return x * x * x


def test_a_callable_object_follows_a_new_call_method():
    """``grad(obj)`` kept the ``__call__`` of the class when it was made: after
    ``Cls.__call__ = ...`` it gave the old derivative and the old value."""
    k = _Squares()
    entries = [s2sad.grad(k), s2sad.value_and_grad(k), s2sad.hessian(k), s2sad.jacobian(k)]
    assert [e(3.0) for e in entries] == [6.0, (9.0, 6.0), 2.0, 6.0]
    old = _Squares.__call__
    _Squares.__call__ = _cubes
    try:
        assert [e(3.0) for e in entries] == [27.0, (27.0, 27.0), 18.0, 27.0]
    finally:
        _Squares.__call__ = old
    assert entries[0](3.0) == 6.0


class _Table:
    def __getitem__(self, x):
        return 3.0 * x * x


_TABLE = _Table()


def _padded(u):
    return np.sum(np.diff(np.r_[0.0, u, 1.0]) ** 2)


def _columns(u):
    return np.sum(np.c_[u, u ** 2] ** 2)


def _grid(length):
    return np.sum(np.sin(np.mgrid[0:length:5j]))


def _looked_up(x):
    return _TABLE[x]


@pytest.mark.parametrize("f, arg", [(_padded, np.array([0.2, 0.5, 0.7])),
                                    (_columns, np.array([0.2, 0.5])), (_grid, 1.3),
                                    (_looked_up, 0.7)])
@pytest.mark.parametrize("mode", ["reverse", "forward"])
def test_an_index_that_carries_a_derivative_into_an_object_is_refused(f, arg, mode):
    """``np.r_[0.0, u, 1.0]``, ``np.c_``, ``np.mgrid`` and a class's ``__getitem__``
    compute from their index: read as constants, their gradient was silently 0."""
    with pytest.raises(s2sad.NotDifferentiableError, match="index carries a derivative"):
        s2sad.grad(f, mode=mode)(arg)
