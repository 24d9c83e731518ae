"""The numbers and arrays an object argument holds (``self.a``, ``model.W``): their
kinds are known to the derivative where nothing the call runs can rebind them
(`kinds.held_attributes`; `analysis.attributes.runs_unseen_code` looks at what each
function analysed runs), checked again on every call; where something may rebind
one, they are values of unknown kind, as before."""

import functools
import math

import numpy as np
import pytest

import s2sad


def central(f, w, h=1e-6):
    return (f(w + h) - f(w - h)) / (2 * h)


class Scalars:
    def __init__(self):
        self.a, self.b, self.n = 1.5, 0.3, 3

    def loss(self, w):
        s = 0.0
        for i in range(self.n):
            s = s + (self.a * w - self.b) ** 2 + math.sin(w * i)
        return s


class Arrays:
    def __init__(self):
        self.W = np.array([[1.0, 2.0], [0.5, -1.0], [0.25, 3.0]])
        self.v = np.array([0.5, -2.0, 1.0])

    def predict(self, w):
        return np.tanh(self.W @ w)

    def loss(self, w):
        # (np.diag and np.dot pick their rule by rank: an attribute of unknown rank
        # was refused)
        return np.sum(np.diag(self.W @ self.W.T)) * w[0] + np.dot(self.v, self.predict(w))


def test_the_kinds_of_held_numbers_make_the_derivative_a_person_writes():
    m = Scalars()
    text = s2sad.source(Scalars.loss, wrt=1, example=(m, 0.7))
    assert "unbroadcast" not in text and "np.where" not in text, text
    got = s2sad.grad(m.loss)(0.7)
    assert got == pytest.approx(central(m.loss, 0.7), rel=1e-7)


def test_rules_that_need_a_rank_take_arrays_an_object_holds():
    m = Arrays()
    w = np.array([0.3, -0.2])
    got = s2sad.grad(m.loss)(w)
    expected = [central(lambda t: m.loss(np.where(np.arange(2) == i, t, w)), w[i])
                for i in range(2)]
    np.testing.assert_allclose(got, expected, rtol=1e-6)


def test_an_attribute_of_another_kind_builds_the_derivative_again():
    m = Scalars()
    g = s2sad.grad(m.loss)
    for a in (1.5, 2, np.float32(0.5), np.float64(-1.0), 1.5):
        m.a = a
        got = g(0.7)
        m.a = float(a)  # (central differences in float64)
        assert got == pytest.approx(central(m.loss, 0.7), rel=1e-6)
    m.n = 2.0  # (an int became a float: `range` refuses it, as Python does)
    with pytest.raises(TypeError):
        g(0.7)
    m.n = 1
    assert g(0.7) == pytest.approx(central(m.loss, 0.7), rel=1e-6)
    m.W = np.ones(3)  # (an attribute the function does not read changes nothing)
    assert g(0.7) == pytest.approx(central(m.loss, 0.7), rel=1e-6)


def _outer(obj, w):
    return obj.loss(w)


def test_an_array_of_another_rank_or_dtype_builds_the_derivative_again():
    m = Arrays()
    g = s2sad.grad(_outer, wrt=1)
    w = np.array([0.3, -0.2])
    first = g(m, w)
    m.v = np.array([[0.5, -2.0, 1.0]])  # (now a matrix: np.dot gives a vector)
    with pytest.raises(s2sad.S2SADError):
        g(m, w)
    m.v = np.array([0.5, -2.0, 1.0], dtype=np.float32)
    np.testing.assert_allclose(g(m, w), first, rtol=1e-6)


def test_forward_mode_vjp_and_the_hessian_know_the_kinds_too():
    m = Scalars()
    d = central(m.loss, 0.7)
    assert s2sad.jvp(m.loss, (0.7,), (1.0,))[1] == pytest.approx(d, rel=1e-6)
    assert s2sad.vjp(m.loss, 0.7)[1](1.0)[0] == pytest.approx(d, rel=1e-6)
    assert s2sad.grad(m.loss, mode="forward")(0.7) == pytest.approx(d, rel=1e-6)
    h = s2sad.hessian(m.loss)(0.7)
    assert h == pytest.approx(central(s2sad.grad(m.loss), 0.7), rel=1e-5)
    m.a = 2  # (the jvp's cache is keyed by the kinds: built again)
    assert s2sad.jvp(m.loss, (0.7,), (1.0,))[1] == pytest.approx(central(m.loss, 0.7),
                                                                rel=1e-6)


COEFFICIENTS = [0.7, 1.5]


class Copied:
    def __init__(self):
        self.V = np.array([0.5, -1.0, 2.0])

    def loss(self, x, s):
        # (reading an item of a module's list runs no code of the user's: `self.V`
        # keeps its kind, and its copy is known to be new, so the write is followed)
        t = COEFFICIENTS[0] * s
        v = self.V.copy()
        v[0] = t
        return np.sum(v * x)


def test_an_item_of_a_global_list_leaves_the_attributes_kinds_known():
    x = np.array([0.3, -0.2, 0.5])
    gx, gs = s2sad.grad(Copied().loss, wrt=(0, 1))(x, 2.0)
    assert np.allclose(gx, [1.4, -1.0, 2.0]) and gs == pytest.approx(0.7 * 0.3)


# ------------------------------------------------------- what may rebind an attribute

A3 = np.array([1.0, 2.0, 3.0])


class Grows:
    """`a` is a float when a call starts; each `loss` below has something rebind it to
    `A3` before ``np.sum(self.a * w)``: a derivative built for a float `a` would give
    `A3` for the gradient, not its sum, 6."""

    def __init__(self):
        self.a = 2.0

    def grow(self, x=0.0):
        self.a = A3
        return x

    def loss(self, w):
        self.grow()
        return np.sum(self.a * w)


def _reset(m):
    setattr(m, "a", A3)


class Reset(Grows):
    def loss(self, w):
        _reset(self)
        return np.sum(self.a * w)


class Property(Grows):
    @property
    def scale(self):
        self.a = A3
        return 1.0

    def loss(self, w):
        return np.sum(self.scale * self.a * w)


class Cached(Grows):
    @functools.cached_property
    def scale(self):
        self.a = A3
        return 1.0

    def loss(self, w):
        return np.sum(self.scale * self.a * w)


class Helper:
    def __init__(self, owner):
        self.owner = owner

    def tweak(self):
        self.owner.a = A3


class HoldsHelper(Grows):
    def __init__(self):
        super().__init__()
        self.helper = Helper(self)

    def loss(self, w):
        self.helper.tweak()
        return np.sum(self.a * w)


GLOBAL = []


def _poke():
    GLOBAL[0].a = A3


class Global(Grows):
    def loss(self, w):
        _poke()
        return np.sum(self.a * w)


class Key(Grows):
    def loss(self, w):
        max([1.0, 2.0], key=self.grow)  # (a method handed to a function as a value)
        return np.sum(self.a * w)


class Made(Grows):
    def __init__(self, other=None):
        self.a = 2.0
        if other is not None:
            other.a = A3

    def loss(self, w):
        Made(self)  # (making an object runs its __init__)
        return np.sum(self.a * w)


def _mutator(x):
    GLOBAL[0].a = A3
    return x


VECTORIZED = np.vectorize(_mutator)


class Vectorized(Grows):
    def loss(self, w):
        VECTORIZED(1.0)  # (a library's callable object that calls the user's function)
        return np.sum(self.a * w)


class Handed(Grows):
    def loss(self, w, f):
        f(self)
        return np.sum(self.a * w)


REBINDING = [Grows, Reset, Property, Cached, HoldsHelper, Global, Key, Made, Vectorized,
             Handed]


@pytest.mark.parametrize("cls", REBINDING, ids=lambda c: c.__name__)
def test_an_attribute_something_in_the_call_may_rebind_is_of_unknown_kind(cls):
    extra = (_reset,) if cls is Handed else ()
    for entry in ("grad", "forward", "vjp"):
        m = cls()
        GLOBAL[:] = [m]
        if entry == "grad":
            got = s2sad.grad(m.loss)(0.7, *extra)
        elif entry == "forward":
            got = s2sad.grad(m.loss, mode="forward")(0.7, *extra)
        else:
            got = s2sad.vjp(m.loss, 0.7, *extra)[1](1.0)[0]
        assert np.ndim(got) == 0 and got == pytest.approx(6.0), (entry, got)


class Plain:
    def __init__(self):
        self.a = 2.0


def test_a_class_changed_after_the_derivative_was_built_builds_it_again():
    m = Grows()
    GLOBAL[:] = [m]

    def loss(obj, w):
        return np.sum(obj.a * w)

    g = s2sad.grad(loss, wrt=1)
    p = Plain()
    assert g(p, 0.7) == pytest.approx(2.0)
    Plain.a = property(lambda self: A3)  # (comes before the object's own `a`)
    try:
        assert g(p, 0.7) == pytest.approx(6.0)
    finally:
        del Plain.a
    assert g(p, 0.7) == pytest.approx(2.0)


class Doubling(float):
    def __mul__(self, other):
        return 2.0 * float(self) * other

    __rmul__ = __mul__


class Subclassed:
    def __init__(self):
        self.a = Doubling(1.0)

    def loss(self, w):
        return self.a * w


def test_a_subclass_of_float_is_not_taken_for_a_float():
    m = Subclassed()
    assert s2sad.grad(m.loss)(0.7) == pytest.approx(2.0)
    assert "unbroadcast" in s2sad.source(Subclassed.loss, wrt=1, example=(m, 0.7))


def test_what_runs_unseen_code_makes_the_derivative_general():
    # (the same loss, specialised where nothing rebinds `a`, general where a method
    # run as written may)
    class Pure(Grows):
        def loss(self, w):
            return np.sum(self.a * w)

    assert "unbroadcast" not in s2sad.source(Pure.loss, wrt=1, example=(Pure(), 0.7))
    assert "unbroadcast" in s2sad.source(Grows.loss, wrt=1, example=(Grows(), 0.7))


def test_a_held_attribute_is_read_once_before_a_loop():
    """Nothing the call runs rebinds a held attribute: its reads in a loop are one
    value, read before the loop (`kinds.held_by`), not one saved on a tape per turn."""
    text = s2sad.source(Scalars.loss, wrt=1, example=(Scalars(), 0.7))
    loop = text.index("for i in range")
    assert "tape" not in text and text.index("self.a") < loop and text.index("self.b") < loop
    # (where a method run as written may rebind them, each turn reads them again)
    class Counted(Scalars):
        def loss(self, w):
            self.count()
            return Scalars.loss(self, w)

        def count(self):
            self.calls = 1

    m = Counted()
    assert s2sad.grad(m.loss)(0.7) == pytest.approx(central(m.loss, 0.7), rel=1e-7)


def test_the_gradient_of_a_bound_method_is_differentiated_again():
    """``grad(model.loss)`` is the gradient of ``loss`` with the object bound first (a
    `functools.partial`: 60 ns a call, where a Python wrapper took 300), which
    ``grad`` unbinds again: the second derivative, where it raised "missing a
    required argument"."""
    m = Scalars()
    g = s2sad.grad(m.loss)
    assert g.__name__ == "loss" and g.__wrapped__.__name__ == "loss"
    assert s2sad.grad(g)(0.7) == pytest.approx(central(g, 0.7), rel=1e-5)
    assert s2sad.grad(g)(0.7) == pytest.approx(s2sad.hessian(m.loss)(0.7), rel=1e-12)
