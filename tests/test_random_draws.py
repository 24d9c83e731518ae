"""Derivatives that run a function more than once at one point (`jacobian` by
forward mode, `hessian`, ``grad(grad(f))``, ``grad(f, mode="forward")``) of a function
that draws random numbers: every pass sees the draws of the first
(`api.repeats.Repeats`), so the result is the derivative of one realization (the one
reverse mode, which runs the function once, gives with the generators seeded alike),
and the generators end where one call leaves them; draws nothing can put back are
refused, never mixed into a matrix."""

import random

import numpy as np
import pytest

import helpers
import s2sad
from s2sad.errors import S2SADError

RNG = np.random.default_rng(3)


def _seeded(call):
    np.random.seed(1)
    random.seed(1)
    RNG.bit_generator.state = np.random.default_rng(3).bit_generator.state
    return call()


def _next():
    return np.random.random(), random.random(), RNG.random()


def gauss_mix(x, y):
    return x * y * random.gauss(0.0, 1.0) + x * x * random.random()


def test_hessian_of_the_random_module_is_one_realization():
    H = _seeded(lambda: s2sad.hessian(gauss_mix, wrt=(0, 1))(1.0, 2.0))
    after = _next()
    g, r = _seeded(lambda: (random.gauss(0.0, 1.0), random.random()))
    assert H[0][1] == H[1][0] == pytest.approx(g)
    assert H[0][0] == pytest.approx(2 * r) and H[1][1] == 0.0
    _seeded(lambda: gauss_mix(1.0, 2.0))
    assert after == _next()  # (where one call leaves the generator)


def noisy_square(x):
    return x * x * np.random.normal(size=3)


@pytest.mark.parametrize("mode", ["forward", "reverse", "auto"])
def test_jacobian_of_numpys_global_generator(mode):
    point = np.array([1.0, 2.0, 3.0])
    J = _seeded(lambda: s2sad.jacobian(noisy_square, mode=mode)(point))
    after = _next()
    n = _seeded(lambda: np.random.normal(size=3))
    assert np.allclose(J, np.diag(2 * np.asarray(point) * n), rtol=1e-12)
    _seeded(lambda: noisy_square(np.asarray(point)))
    assert after == _next()


def reshaped(x):  # (np.reshape's tangent takes one pass per input number)
    return np.reshape(np.outer(x, x), -1) * RNG.normal(size=9)


def test_jacobian_by_one_pass_per_number_of_a_global_generator():
    x = np.array([1.0, -2.0, 0.5])
    J = _seeded(lambda: s2sad.jacobian(reshaped, mode="forward")(x))
    n = _seeded(lambda: RNG.normal(size=9)).reshape(3, 3)
    expected = np.zeros((3, 3, 3))
    for i in range(3):
        expected[i, :, i] += x * n[i]
        expected[:, i, i] += x * n[:, i]
    assert np.allclose(J, expected.reshape(9, 3), rtol=1e-12)
    assert np.allclose(J, _seeded(lambda: s2sad.jacobian(reshaped, mode="reverse")(x)))


def uniform_product(a, b):
    return a * b * RNG.uniform()


def test_grad_by_forward_mode_takes_one_draw():
    ga, gb = _seeded(lambda: s2sad.grad(uniform_product, wrt=(0, 1), mode="forward")(1.0, 2.0))
    u = _seeded(lambda: RNG.uniform())
    assert (ga, gb) == (pytest.approx(2.0 * u), pytest.approx(u))


def with_generator(x, rng):
    return np.sum(x ** 3 * rng.normal(size=x.shape))


class Noisy:
    def __init__(self):
        self.rng = np.random.default_rng(9)

    def loss(self, x):
        return np.sum(x ** 3 * self.rng.normal(size=x.shape))


def test_a_generator_passed_in_or_held_by_the_object():
    x = np.array([0.5, -1.0])
    H = s2sad.hessian(with_generator)(x, np.random.default_rng(4))
    n = np.random.default_rng(4).normal(size=2)
    assert np.allclose(H, np.diag(6 * x * n))
    model = Noisy()
    H = s2sad.hessian(model.loss)(x)
    assert np.allclose(H, np.diag(6 * x * np.random.default_rng(9).normal(size=2)))
    # (the model's generator moved on by one call's draws)
    assert model.rng.random() == pytest.approx(_after_one(9, 2))


def _after_one(seed, n):
    rng = np.random.default_rng(seed)
    rng.normal(size=n)
    return rng.random()


class Dropout:
    def mask(self, h):
        return h * (np.random.random(h.shape) > 0.5)

    def loss(self, w, x):
        return np.sum(np.tanh(self.mask(w * x)) ** 2)


def test_a_draw_in_another_method_of_the_object():
    w, x = np.array([0.3, -0.2, 0.5, 0.1]), np.array([1.0, 2.0, -1.0, 0.5])
    H = _seeded(lambda: s2sad.hessian(Dropout().loss)(w, x))
    kept = _seeded(lambda: np.random.random(4) > 0.5)
    t = np.tanh(w * x) * kept
    assert np.allclose(H, np.diag(kept * x * x * (2 - 6 * t * t) * (1 - t * t)))


def closed_over():
    rng = np.random.default_rng(12)

    def f(x):
        return x ** 3 * rng.normal()
    return f


def test_grad_of_grad_through_a_closure():
    f = closed_over()
    second = s2sad.grad(s2sad.grad(f))(2.0)
    assert second == pytest.approx(12.0 * np.random.default_rng(12).normal())


def test_the_pullback_called_again_draws_what_the_value_drew():
    x = np.array([1.0, 2.0, 3.0])
    y, pullback = _seeded(lambda: s2sad.vjp(noisy_square, x))
    after = _next()
    n = _seeded(lambda: np.random.normal(size=3))
    assert np.array_equal(y, x * x * n)
    np.random.seed(5)
    rows = [pullback(np.eye(3)[i])[0] for i in range(3)]  # (the second runs f again)
    assert np.allclose(rows, np.diag(2 * x * n), rtol=1e-12)
    drawn = np.random.random()
    np.random.seed(5)
    assert np.random.random() == drawn  # (a pullback draws nothing of its own)
    assert after != _next()


def fresh_generator(x):
    return np.sum(x * x * np.random.default_rng().normal(size=x.shape))


def fresh_generator_added(x):
    return np.sum(x * x) + np.random.default_rng().normal()


def test_draws_nothing_can_put_back_are_refused():
    x = np.array([0.5, -1.0])
    _refused_in_a_hessian_and_a_second_pullback(fresh_generator, x)
    # (noise that leaves the gradient as it is changes nothing a Hessian reads)
    assert np.allclose(s2sad.hessian(fresh_generator_added)(x), 2 * np.eye(2))


def _tanh_layer(W, x):
    return np.sum(np.tanh(W @ x))


def test_a_pullback_called_again_after_its_argument_changed_in_place():
    # (the second call runs the function again, on what the argument now holds: a
    # gradient at another point than the value's, refused)
    W, x = np.ones((2, 2)), np.ones(2)
    _, pullback = s2sad.vjp(_tanh_layer, W, x)
    W -= 0.1 * pullback(1.0)[0]
    with pytest.raises(S2SADError, match="changed in place"):
        pullback(1.0)


class _HeldByTheClass:
    rng = np.random.default_rng(3)

    def loss(self, x):
        return np.sum((x - 1.0) ** 2 * self.rng.normal(size=2))


def _through_a_module(x):
    return np.sum((x - 1.0) ** 2 * helpers.RNG.normal(size=2))


def _fresh_at_a_minimum(x):
    return np.sum((x - 1.0) ** 2 * np.random.default_rng().normal(size=2))


def test_at_a_minimum_every_generator_is_put_back_or_the_draws_refused():
    # (at x = 1 the value and the gradient are 0 whatever is drawn: only the Hessian
    # shows the draws, so a generator the class holds, or one a module holds, must be
    # put back, and one made inside refused by a second run of the first pass)
    x = np.array([1.0, 1.0])
    assert np.allclose(np.diag(s2sad.hessian(_HeldByTheClass().loss)(x)),
                       2 * np.random.default_rng(3).normal(size=2))
    helpers.RNG = np.random.default_rng(0)
    try:
        H = s2sad.hessian(_through_a_module)(x)
    finally:
        del helpers.RNG
    assert np.allclose(np.diag(H), 2 * np.random.default_rng(0).normal(size=2))
    _refused_in_a_hessian_and_a_second_pullback(_fresh_at_a_minimum, x)


def _refused_in_a_hessian_and_a_second_pullback(f, x):
    with pytest.raises(S2SADError, match="different values"):
        s2sad.hessian(f)(x)
    _, pullback = s2sad.vjp(f, x)
    pullback(1.0)
    with pytest.raises(S2SADError, match="different values"):
        pullback(1.0)


def _drawn_by_an_argument(x, rng):
    return np.sum(x * x * rng.normal(size=x.shape))


def test_vjp_holds_a_generator_argument_fixed_and_puts_it_back():
    x = np.array([1.0, 2.0, 3.0])
    rng = np.random.default_rng(4)
    y, pullback = s2sad.vjp(_drawn_by_an_argument, x, rng)
    n = np.random.default_rng(4).normal(size=3)
    assert y == pytest.approx(np.sum(x * x * n))
    after = rng.bit_generator.state
    for _ in range(2):  # (the second call runs the function again, from the same state)
        gx, grng = pullback(1.0)
        assert np.allclose(gx, 2 * x * n, rtol=1e-12) and grng is None
    assert rng.bit_generator.state == after
    J = s2sad.jacobian(_drawn_by_an_argument, mode="reverse")(x, np.random.default_rng(4))
    assert np.allclose(J, 2 * x * n, rtol=1e-12)
