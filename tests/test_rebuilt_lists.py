"""Loops that carry a list they make anew in each iteration (``xs = [g(x) for x in
xs]``, a helper's new list, ``xs[1:] + [v]``): the carried name is an object of its
own in each iteration, as a carried array is (`Objects.own_each_iteration`), so
reverse mode takes it where it used to refuse "different lists on different paths";
what could change such a list in place keeps the refusal."""

import numpy as np
import pytest

import s2sad
from s2sad.errors import S2SADError


def _differences(f, args, h=1e-6):
    """Central differences of `f` with respect to each number of each argument (a
    list of floats gives a list)."""
    out = []
    for i, a in enumerate(args):
        if isinstance(a, list):
            parts = []
            for k in range(len(a)):
                up, down = list(a), list(a)
                up[k] += h
                down[k] -= h
                parts.append((f(*args[:i], up, *args[i + 1:]) -
                              f(*args[:i], down, *args[i + 1:])) / (2 * h))
            out.append(parts)
        else:
            out.append((f(*args[:i], a + h, *args[i + 1:]) -
                        f(*args[:i], a - h, *args[i + 1:])) / (2 * h))
    return out


def scaled(xs, h, n):
    for _ in range(n):
        xs = [x * h for x in xs]
    return sum(x * x for x in xs)


def nested(xs, h):
    for _ in range(2):
        for _ in range(2):
            xs = [x * h for x in xs]
        xs = [x + h for x in xs]
    return xs[0] * xs[1]


def rotated(xs, h):
    for _ in range(3):
        xs = xs[1:] + [xs[0] * h]
    return xs[0] + 2 * xs[1]


def reversed_slice(xs, h):
    for _ in range(2):
        xs = [x * h for x in xs][::-1]
    return xs[0] + 2 * xs[1]


def until(xs, h):
    k = 0
    while True:
        xs = [x * h for x in xs]
        k += 1
        if xs[0] < 0.2 or k > 10:
            break
    return xs[0] + xs[1]


def grown_after(xs, h):
    for _ in range(2):
        xs = [x * h for x in xs]
        xs.append(h)  # (the new list, before the loop hands it on)
    return sum(xs)


def leapfrog(xs, vs, dt):
    for _ in range(4):
        xs = [x + dt * v for x, v in zip(xs, vs)]
        vs = [v - dt * x for x, v in zip(xs, vs)]
    return sum(x * x for x in xs) + vs[0]


def _step(ys, h):
    return [y * h + 0.1 for y in ys]


def by_helper(xs, h):
    for _ in range(3):
        xs = _step(xs, h)
    return sum(xs)


def midpoint(ys, dt):
    def rhs(y):
        return [y[1], -y[0]]
    for _ in range(5):
        k1 = rhs(ys)
        k2 = rhs([y + 0.5 * dt * k for y, k in zip(ys, k1)])
        ys = [y + dt * k for y, k in zip(ys, k2)]
    return ys[0] ** 2 + ys[1]


def layers(ws, x):
    for _ in range(3):
        ws = [np.tanh(w) * x for w in ws]
    return sum(np.sum(w) for w in ws)


CASES = [(scaled, ([1.0, 2.0], 0.9, 0)), (scaled, ([1.0, 2.0], 0.9, 3)),
         (nested, ([1.0, 2.0], 0.9)), (rotated, ([1.0, 2.0], 0.9)),
         (reversed_slice, ([1.0, 2.0, 3.0], 0.9)), (until, ([1.0, 2.0], 0.7)),
         (grown_after, ([1.0, 2.0], 0.9)), (leapfrog, ([1.0, 2.0], [0.5, 0.1], 0.1)),
         (by_helper, ([1.0, 2.0], 0.9)), (midpoint, ([1.0, 0.5], 0.1))]


@pytest.mark.parametrize("how", ["reverse", "forward", "binomial", "vjp"])
@pytest.mark.parametrize("f, args", CASES, ids=[f.__name__ for f, _ in CASES])
def test_against_central_differences(f, args, how):
    wrt = tuple(i for i, a in enumerate(args) if not isinstance(a, int))
    expected = _differences(lambda *a: f(*a, *args[len(wrt):]), list(args[:len(wrt)]))
    before = [list(a) if isinstance(a, list) else a for a in args]
    if how == "vjp":
        _, pullback = s2sad.vjp(f, *args)
        got = [g for g, a in zip(pullback(1.0), args) if not isinstance(a, int)]
    elif how == "binomial":
        got = s2sad.grad(f, wrt=wrt, checkpoint="binomial", snapshots=2)(*args)
    else:
        got = s2sad.grad(f, wrt=wrt, mode=how)(*args)
    for g, e in zip(got, expected):
        assert np.allclose(np.asarray(g, float), e, atol=1e-6)
    assert [list(a) if isinstance(a, list) else a for a in args] == before


def test_lists_of_arrays():
    ws, x = [np.array([1.0, -0.5]), np.array([0.5, 0.2])], np.array([0.3, 0.7])
    g_ws, g_x = s2sad.grad(layers, wrt=(0, 1))(ws, x)
    f_ws, f_x = s2sad.grad(layers, wrt=(0, 1), mode="forward")(ws, x)
    assert np.allclose(g_x, f_x) and all(np.allclose(a, b) for a, b in zip(g_ws, f_ws))
    h = 1e-6
    for i in range(2):
        step = np.zeros(2)
        step[i] = h
        slope = (layers(ws, x + step) - layers(ws, x - step)) / (2 * h)
        assert g_x[i] == pytest.approx(slope, abs=1e-6)


def rebuilt_output(xs, h):
    for _ in range(2):
        xs = [x * h for x in xs]
    return xs


def test_the_output_list_survives_the_pullback():
    out, pullback = s2sad.vjp(rebuilt_output, [1.0, 2.0], 0.5)
    assert out == [0.25, 0.5]
    assert pullback([1.0, 1.0]) == ([0.25, 0.25], 3.0)
    assert out == [0.25, 0.5]
    assert pullback([1.0, 0.0]) == ([0.25, 0.0], 1.0)  # (the second runs f again)
    J = s2sad.jacobian(rebuilt_output, wrt=(0, 1), mode="reverse")([1.0, 2.0], 0.5)
    assert np.allclose(J[0], 0.25 * np.eye(2)) and np.allclose(J[1], [1.0, 2.0])


def appended_after(xs, h):
    for _ in range(2):
        xs = [x * h for x in xs]
    xs.append(h)  # (after no iteration, the caller's list)
    return sum(xs)


def rebuilt_on_one_path(xs, h):
    for k in range(4):
        if k % 2:
            xs = [x * h for x in xs]
    return sum(xs)


def test_what_may_be_the_argument_stays_refused():
    with pytest.raises(S2SADError, match="the caller's list would change"):
        s2sad.grad(appended_after, wrt=(0, 1))([1.0, 2.0], 0.9)
    with pytest.raises(S2SADError, match="different lists"):
        s2sad.grad(rebuilt_on_one_path, wrt=(0, 1))([1.0, 2.0], 0.9)
    # (forward mode follows values by name: a list parameter without a tangent of
    # its own starts from a zero one)
    assert s2sad.grad(rebuilt_on_one_path, wrt=1, mode="forward")([1.0, 2.0], 0.9) == \
        pytest.approx(2 * 0.9 * 3.0)


def _pair(k):
    return k * k, np.array([k, 2 * k])


def _first_of_a_pair(k):
    return _pair(k)[0]


def _second_point(k):
    pts = [np.array([k, 1.0]), np.array([2.0, k])]
    return pts[1][1]


def _trajectory_end(k):
    x, v, traj = 1.0, 0.0, []
    for _ in range(5):
        v = v - 0.1 * k * x
        x = x + 0.1 * v
        traj.append(np.array([x, v]))
    return traj[-1][0]


def _stacked_rows(k):
    return [np.stack([k * i, k]) for i in range(3)][2][0]


def _joined_rows(k):
    return [np.concatenate([np.array([k]), np.array([2 * k])]) for i in range(3)][2][0]


def _vstacked(k):
    return [np.vstack([[k], [2 * k]]) for i in range(3)][2][0, 0]


def _column_stacked(k):
    return [np.column_stack([[k], [2 * k]]) for i in range(3)][2][0, 0]


@pytest.mark.parametrize("f", [_first_of_a_pair, _second_point, _trajectory_end,
                               _stacked_rows, _joined_rows, _vstacked, _column_stacked])
def test_an_array_built_from_a_list_that_nothing_reads(f):
    """An item of a list or tuple that nothing reads has the adjoint 0.0; where it is
    an array made from a list (``np.array([x, v])``, ``np.stack``, ``np.concatenate``,
    ``np.vstack``, ``np.column_stack``), the adjoint of that call got the number
    (TypeError or IndexError in the runtime's helpers). Its parts' adjoints are 0.0."""
    k, h = 1.3, 1e-6
    g = s2sad.grad(f)(k)
    assert g == pytest.approx((f(k + h) - f(k - h)) / (2 * h), rel=1e-6, abs=1e-9)
    assert s2sad.grad(f, mode="forward")(k) == pytest.approx(g, rel=1e-12)
    second = (s2sad.grad(f)(k + 1e-5) - s2sad.grad(f)(k - 1e-5)) / 2e-5
    assert s2sad.hessian(f)(k) == pytest.approx(second, rel=1e-4, abs=1e-6)
