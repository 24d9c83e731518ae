"""Generators and the builtins' iterators (`map`, `zip`, `enumerate`, `filter`,
`reversed`) run when they are used, once, as in Python (frontend/iterators.py): a
generator kept in a name reads the names as they are where it is used, and one read
twice, in a loop, or handed on is refused at the user's line."""

import math

import numpy as np
import pytest

import s2sad
from s2sad.errors import UnsupportedSyntaxError

MODES = ("reverse", "forward", "tape")


def numeric_grad(f, w, h=1e-6):
    return (f(w + h) - f(w - h)) / (2 * h)


def lazy_names(w):
    g = (w * c for c in [1.0, 2.0, 3.0])
    w = w * w
    return sum(g)  # 6 w**2: the generator reads the new w


def lazy_map(w):
    m = map(lambda c: w * c, [1.0, 2.0, 3.0])
    w = w * w
    return sum(m)


def list_grows_before_use(w):
    acc = [w]
    g = (a * 2.0 for a in acc)
    acc.append(w * 3.0)
    return sum(g)  # 8 w: the generator reads the list as it is when used


def sequence_rebound(w, xs):
    g = (x * w for x in xs)
    xs = [9.0, 9.0]
    return sum(g) + sum(xs) * w  # the generator kept the first list


def slice_taken_where_made(w, xs):
    xs = list(xs)
    g = (x * w for x in xs[1:])
    xs.append(5.0)
    return sum(g)  # the slice was taken before the append


def zip_and_enumerate_kept(w, xs):
    z = zip(xs, xs[1:])
    a = sum(p * q * w for p, q in z)
    e = enumerate(xs)
    return a + sum(i * v * w for i, v in e)


def made_in_a_loop(w, xs):
    total = 0.0
    for k in range(3):
        g = (x * w * k for x in xs)
        total += sum(g)
    return total


def pairs(xs):
    return zip(xs[:-1], xs[1:])


def squares(xs, w):
    return (x * x * w for x in xs)


def loops_over_what_a_helper_returns(w, xs):
    total = 0.0
    for v in squares(xs, w):
        total += v * w
    g = squares(xs, w)
    total += sum(g)
    return total + sum(squares(xs, w))


def loops_over_a_helpers_zip(w, xs):
    return sum(a * b * w for a, b in pairs(xs))


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("f, args", [
    (lazy_names, (0.7,)), (lazy_map, (0.7,)), (list_grows_before_use, (0.7,)),
    (sequence_rebound, (0.7, [0.2, 0.9, 1.3])), (slice_taken_where_made, (0.7, [0.2, 0.9])),
    (zip_and_enumerate_kept, (0.7, [0.2, 0.9, 1.3])), (made_in_a_loop, (0.7, [0.2, 0.9])),
    (loops_over_what_a_helper_returns, (0.7, [0.2, 0.9, 1.3])),
], ids=lambda v: getattr(v, "__name__", ""))
def test_an_iterator_kept_in_a_name_runs_where_it_is_used(f, args, mode):
    copy = [list(a) if isinstance(a, list) else a for a in args]
    expected_value = f(*copy)
    copy = [list(a) if isinstance(a, list) else a for a in args]
    value, grad = s2sad.value_and_grad(f, mode=mode)(*copy) if mode != "forward" else (
        f(*copy), s2sad.grad(f, mode=mode)(*copy))
    assert value == pytest.approx(expected_value, rel=1e-12)
    expected = numeric_grad(lambda w: f(w, *[list(a) if isinstance(a, list) else a
                                             for a in args[1:]]), args[0])
    assert grad == pytest.approx(expected, rel=1e-6)


def read_twice(w):  # (Python: the second sum is 0.0)
    g = (v * v for v in [w, 2.0 * w])
    return sum(g) + 10.0 * sum(g)


def map_read_twice(w):
    m = map(lambda v: v ** 3, [w, 2.0 * w])
    return max(m) + sum(m)


def read_in_a_loop(w):
    g = (w * c for c in [1.0, 2.0])
    total = 0.0
    for _ in range(3):
        total += sum(g)
    return total


def helper(it):
    return sum(it) + 10.0 * sum(it)


def handed_to_a_function(w):
    return helper(w * c for c in [1.0, 2.0])


def kept_in_a_list(w):
    gens = [(w * c for c in [1.0, 2.0])]
    return sum(gens[0])


def array_of_a_generator(w):
    return np.sum(np.array(w * c for c in [1.0, 2.0]))


def helper_result_read_twice(w, xs):
    g = squares(xs, w)
    return sum(g) + max(g, default=0.0)


def reversed_then_changed(w, xs):
    r = reversed(xs)
    xs.append(w)
    return sum(v * w for v in r)


@pytest.mark.parametrize("f, args, where", [
    (read_twice, (0.7,), "return sum(g) + 10.0 * sum(g)"),
    (map_read_twice, (0.7,), "return max(m) + sum(m)"),
    (read_in_a_loop, (0.7,), "total += sum(g)"),
    (handed_to_a_function, (0.7,), "return helper(w * c for c in [1.0, 2.0])"),
    (kept_in_a_list, (0.7,), "gens = [(w * c for c in [1.0, 2.0])]"),
    (array_of_a_generator, (0.7,), "return np.sum(np.array(w * c for c in [1.0, 2.0]))"),
    (helper_result_read_twice, (0.7, [0.2, 0.9]), "return sum(g) + max(g, default=0.0)"),
    (reversed_then_changed, (0.7, [0.2, 0.9]), "r = reversed(xs)"),
    (loops_over_a_helpers_zip, (0.7, [0.2, 0.9]), "return sum(a * b * w for a, b in pairs(xs))"),
], ids=lambda v: getattr(v, "__name__", ""))
def test_an_iterator_python_would_read_twice_or_later_is_refused(f, args, where):
    for mode in ("reverse", "forward"):
        with pytest.raises(UnsupportedSyntaxError) as caught:
            s2sad.grad(f, mode=mode)(*args)
        assert caught.value.source_line.strip() == where
        assert "list" in str(caught.value)


def test_iterators_used_up_where_they_stand_are_as_before():
    def f(w, xs):
        a = sum(x * w for x in xs) + max(map(lambda x: x * w, xs))
        b = sum(i * x * w for i, x in enumerate(xs)) + sum(p * q for p, q in zip(xs, xs[1:]))
        first, second = (x * w for x in xs[:2])
        c = sum([*(x * w for x in xs)])
        return a + b * w + first * second + c + sum(list(reversed(xs))) * w

    xs = [0.2, 0.9, 1.3]
    expected = numeric_grad(lambda w: f(w, xs), 0.7)
    for mode in MODES:
        assert s2sad.grad(f, mode=mode)(0.7, xs) == pytest.approx(expected, rel=1e-6)


def test_a_generator_never_read_is_never_run():
    def f(w):
        g = (1.0 / (w - w) for _ in range(2))  # Python never divides
        return w * 3.0

    assert s2sad.grad(f)(0.7) == 3.0


def grows_as_it_runs(w):
    xs = [w]
    for x in xs:
        if len(xs) < 4:
            xs.append(x * w)
    return sum(xs)  # Python: w + w**2 + w**3 + w**4


def shrinks_as_it_runs(w):
    xs = [w, 2.0 * w, 3.0 * w]
    total = 0.0
    for i, x in enumerate(xs):
        total += x * xs.pop()
    return total


def grows_by_index(w):
    xs = [w]
    i = 0
    while i < len(xs):
        if len(xs) < 4:
            xs.append(xs[i] * w)
        i += 1
    return sum(xs)


@pytest.mark.parametrize("f, where", [(grows_as_it_runs, "xs.append(x * w)"),
                                      (shrinks_as_it_runs, "total += x * xs.pop()")])
def test_a_loop_over_a_list_it_resizes_is_refused(f, where):
    for mode in ("reverse", "forward"):
        with pytest.raises(UnsupportedSyntaxError, match="changes the length of the list") as caught:
            s2sad.grad(f, mode=mode)(0.7)
        assert caught.value.source_line.strip() == where
        assert "while i < len(xs):" in str(caught.value)


def test_the_loop_the_refusal_suggests_runs_over_every_item():
    expected = 1 + 2 * 0.7 + 3 * 0.7 ** 2 + 4 * 0.7 ** 3
    assert grows_by_index(0.7) == grows_as_it_runs(0.7)
    for mode in MODES:
        assert s2sad.grad(grows_by_index, mode=mode)(0.7) == pytest.approx(expected)


def pos(v):
    return v > 0.0


def filtered(w, xs):
    kept = filter(lambda v: v * w > 0.3, xs)
    a = sum(v * v * w for v in kept)
    return a + sum(filter(None, [x * w for x in xs])) + max(filter(pos, xs)) * w


def test_filter_keeps_the_items_its_function_is_true_of():
    xs = [0.2, 0.0, 0.9, -1.3]
    for mode in MODES:
        value, grad = s2sad.value_and_grad(filtered, mode=mode)(0.7, xs) if mode != "forward" \
            else (filtered(0.7, xs), s2sad.grad(filtered, mode=mode)(0.7, xs))
        assert value == filtered(0.7, xs)
        assert grad == pytest.approx(numeric_grad(lambda w: filtered(w, xs), 0.7), rel=1e-6)


def grows_through_another_name(w):
    xs = [w, 2.0 * w]
    ys = xs
    t = 0.0
    for v in xs:
        t += v
        if len(ys) < 4:
            ys.append(v * v)
    return t


def grow(lst, v):
    if len(lst) < 4:
        lst.append(v * v)


def grows_in_a_helper(w):
    xs = [w, 2.0 * w]
    t = 0.0
    for v in xs:
        t += v
        grow(xs, v)
    return t


def grows_by_plus(w):
    xs = [w, 2.0 * w]
    t = 0.0
    for v in xs:
        t += v
        if len(xs) < 4:
            xs += [v * v]
    return t


@pytest.mark.parametrize("f, where", [
    (grows_through_another_name, "ys.append(v * v)"), (grows_in_a_helper, "grow(xs, v)"),
    (grows_by_plus, "xs += [v * v]")], ids=lambda v: getattr(v, "__name__", ""))
def test_a_loop_over_a_list_resized_by_another_way_is_refused(f, where):
    for mode in ("reverse", "forward"):
        with pytest.raises(UnsupportedSyntaxError, match="the loop over `xs` changes") as caught:
            s2sad.grad(f, mode=mode)(0.7)
        assert caught.value.source_line.strip() == where


def any_stops_at_the_first(xs):
    total = 0.0
    if any((w := v) > 1.5 for v in xs):  # Python stops at 2.0: w is 2.0
        total = w * 10.0
    return total + sum(xs)


def all_stops_at_the_first(xs, x):
    w = 0.0
    found = all((w := v) < 1.5 for v in xs if v > 0.0)
    if all(math.log(v) > 0.5 for v in xs):  # stops at log(1.0): never log(-1.0)
        x = x * 5.0
    return w * 10.0 + found + x


@pytest.mark.parametrize("mode", MODES)
def test_any_and_all_draw_from_a_generator_until_they_know(mode):
    xs = [1.0, 2.0, 3.0]
    assert s2sad.value_and_grad(any_stops_at_the_first)(xs) == (26.0, [1.0, 11.0, 1.0]) \
        if mode == "reverse" else s2sad.grad(any_stops_at_the_first, mode=mode)(xs) == \
        [1.0, 11.0, 1.0]
    xs = [1.0, 2.0, -1.0]
    got = s2sad.grad(all_stops_at_the_first, wrt=(0, 1), mode=mode)(xs, 0.5)
    assert got == ([0.0, 10.0, 0.0], 1.0)


def _stacked(W, xs):
    seq = xs
    for _ in range(2):
        h = np.zeros(3)
        outs = []  # (a new list: not the one `seq` holds, whatever `seq = outs` below)
        for x in seq:
            h = np.tanh(W @ (x + h))
            outs.append(h)
        seq = outs
    return np.sum(seq[-1])


def test_a_list_made_new_before_the_loop_is_not_the_one_it_runs_over():
    """A stacked RNN appends to `outs`, made new before each layer's loop, then
    hands it on with ``seq = outs``: the loop over `seq` was refused as one that
    resizes its own list. An alias that holds the list at the loop's start still is."""
    rng = np.random.default_rng(4)
    W, xs = rng.normal(size=(3, 3)) * 0.5, [rng.normal(size=3) for _ in range(3)]
    g = s2sad.grad(_stacked)(W, xs)
    e = np.zeros((3, 3))
    e[1, 2] = 1e-6
    assert g[1, 2] == pytest.approx((_stacked(W + e, xs) - _stacked(W - e, xs)) / 2e-6,
                                    rel=1e-6)

    def grows(W, xs):
        seq = xs
        outs = seq
        for x in seq:
            if len(outs) < 5:
                outs.append(x * 2.0)
        return np.sum(W @ outs[-1])

    with pytest.raises(UnsupportedSyntaxError, match="changes the length"):
        s2sad.grad(grows)(W, list(xs))
