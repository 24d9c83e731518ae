"""A name given a list on each path of an ``if``: a new list on one path and the list
it held (an argument, a copy, a list made before) on the other, or new lists on both
(a comprehension and a slice, a listpack and a comprehension), inside a loop or not.
Where nothing changes the list in place after the join, its value is all that matters
(`Objects.value_join`, `list_changed`): reverse mode takes it where it used to refuse
"different lists on different paths". A change after the join (an append, a pop, a
write) keeps the refusal in reverse mode, and forward mode follows the one object.
Elements of a shallow copy (``list(ws)``, ``ws[:]``) are the caller's arrays: ``+=``
on one is refused, not differentiated as if it were a new array."""

import numpy as np
import pytest

import s2sad
from helpers import central_diff, close
from s2sad.errors import S2SADError


def _want(f, args):
    return [central_diff(f, args, i) for i in range(len(args))]


def _all_entry_points(f, args, want):
    """grad in both modes, a pullback called twice, and jvp along the first unit
    direction, against central differences `want`."""
    for mode in ("reverse", "forward"):
        got = s2sad.grad(f, wrt=tuple(range(len(args))), mode=mode)(*args)
        assert close(tuple(got), tuple(want), 1e-5, 1e-6), (mode, got, want)
    _, pullback = s2sad.vjp(f, *args)
    for _ in range(2):
        assert close(tuple(pullback(1.0)), tuple(want), 1e-5, 1e-6)


# --------------------------------------------- lists of floats, no loop


def kept_or_new(xs, h):
    ys = xs
    if h > 0.5:
        ys = [x * h for x in xs]
    return sum(y * y for y in ys) + ys[0] * h + sum(xs)


def new_or_reversed_argument(xs, h):
    if h > 0.5:
        ys = [x * h for x in xs]
    else:
        ys = xs[::-1]
    return ys[0] * ys[1] * h + sum(y * y for y in ys)


def comprehension_or_listpack(xs, h):
    if h > 0.5:
        ys = [x * h for x in xs]
    else:
        ys = [xs[1], xs[0]]
    return ys[0] * ys[1] * h


def made_before_then_rebuilt(xs, h):
    ys = [x * 1.0 for x in xs]
    if h > 0.5:
        ys = [0.5 * y + h for y in ys]
    return sum(y * y for y in ys) + ys[0] * h


def rebuilt_on_one_path(x, c):
    ys = [x, x * x]
    if c > 0.5:
        ys = [ys[0] * 2.0, ys[1]]
    return ys[0] * ys[1]


# --------------------------------------------- in loops


def rebuilt_on_both_paths(x, h):
    xs = [x, 2.0 * x]
    for i in range(5):
        if i % 2 == 0:
            xs = [xs[1] * h, xs[0] + x]
        else:
            xs = xs[1:] + [xs[0] * xs[1]]
    return xs[0] * xs[1]


def joined_in_the_body_then_carried(x, h):
    xs = [x, 2.0 * x]
    for i in range(5):
        if i % 2 == 0:
            ys = [xs[1] * 0.5, xs[0] + h]
        else:
            ys = xs[1:] + [xs[0] * xs[1]]
        if i == 2:
            ys = [ys[0] * 2.0, ys[1]]
        xs = ys
    return xs[0] * xs[1]


def history_of_a_list_rebuilt_two_ways(xs, h):
    hist = []
    for k in range(3):
        xs = xs[1:] + [xs[0] * h]
        if k == 1:
            xs = list(map(lambda x: x, xs))
        else:
            xs = [x * h for x in xs]
        hist.append(sum(xs))
    return sum(x * x for x in xs) + sum(hist)


# --------------------------------------------- lists of arrays


def arrays_kept_or_scaled(ws, h):
    ys = ws
    if h > 0:
        ys = [w * h for w in ws]
    return sum(np.sum(y * y) for y in ys) + np.sum(ys[0]) * h + np.sum(ws[1])


def arrays_new_or_reversed(ws, h):
    if h > 0:
        ys = [np.sin(w) * h for w in ws]
    else:
        ys = ws[::-1]
    return np.sum(ys[0] * ys[1]) + np.sum(ws[1]) * h


FLOATS = [kept_or_new, new_or_reversed_argument, comprehension_or_listpack,
          made_before_then_rebuilt]


@pytest.mark.parametrize("h", [0.7, 0.3])
@pytest.mark.parametrize("f", FLOATS)
def test_a_list_joined_with_the_one_it_held(f, h):
    args = ([0.3, 0.5, 0.2], h)
    _all_entry_points(f, args, _want(f, args))
    H = s2sad.hessian(f, wrt=1)(*args)
    g = s2sad.grad(f, wrt=1)
    assert H == pytest.approx((g(*args[:1], h + 1e-5) - g(*args[:1], h - 1e-5)) / 2e-5,
                              rel=1e-4, abs=1e-6)


@pytest.mark.parametrize("c", [0.7, 0.3])
def test_a_list_rebuilt_on_one_path_of_an_if(c):
    _all_entry_points(rebuilt_on_one_path, (0.7, c), _want(rebuilt_on_one_path, (0.7, c)))


@pytest.mark.parametrize("checkpoint", [None, "binomial"])
@pytest.mark.parametrize("f", [rebuilt_on_both_paths, joined_in_the_body_then_carried])
def test_a_loop_that_rebuilds_its_list_on_every_path(f, checkpoint):
    args = (0.7, 0.6)
    want = _want(f, args)
    kw = {} if checkpoint is None else {"checkpoint": checkpoint, "snapshots": 2}
    assert close(s2sad.grad(f, wrt=(0, 1), **kw)(*args), tuple(want), 1e-5, 1e-6)
    _all_entry_points(f, args, want)


def test_a_history_of_a_list_rebuilt_two_ways():
    args = ([0.3, 0.5, 0.1], 0.7)
    _all_entry_points(history_of_a_list_rebuilt_two_ways, args,
                      _want(history_of_a_list_rebuilt_two_ways, args))


@pytest.mark.parametrize("h", [0.7, -0.7])
@pytest.mark.parametrize("f", [arrays_kept_or_scaled, arrays_new_or_reversed])
def test_a_list_of_arrays_joined_with_the_one_it_held(f, h):
    args = ([np.array([0.3, 0.5]), np.array([0.2, -0.4])], h)
    _all_entry_points(f, args, _want(f, args))


# --------------------------------------------- changed in place after the join


def appended_after_the_join(xs, h):
    ys = xs[:]
    if h > 0.5:
        ys = [x * h for x in xs]
    zs = ys
    zs.append(h)
    return sum(y * y for y in ys) * h + sum(zs)


def popped_after_the_join(xs, h):
    ys = xs
    if len(xs) > 0:  # (always: the argument itself is never popped)
        ys = [x * h for x in xs]
    out = ys.pop()
    return out * h + sum(ys) + sum(xs)


@pytest.mark.parametrize("h", [0.7, 0.3])
@pytest.mark.parametrize("f", [appended_after_the_join, popped_after_the_join])
def test_a_list_changed_after_the_join_keeps_its_objects(f, h):
    """Reverse mode refuses it; forward mode follows the one object, and gives the
    argument's derivative too (it lost it: after a second pass of the analysis, the
    argument's object had another name, and nothing it reached was varied)."""
    args = ([0.3, 0.5, 0.2], h)
    with pytest.raises(S2SADError, match="different lists"):
        s2sad.grad(f, wrt=(0, 1))(*args)
    got = s2sad.grad(f, wrt=(0, 1), mode="forward")(*args)
    assert close(tuple(got), tuple(_want(f, args)), 1e-5, 1e-6)


def shallow_copy_element_added_into(ws, h):
    ys = list(ws)
    ys[0] += h
    return np.sum(ys[0]) + np.sum(ws[0]) * h


def sliced_copy_element_added_into(ws, h):
    ys = ws[:]
    ys[0] += h
    return np.sum(ys[0] * ys[1])


def joined_copy_element_added_into(ws, h):
    ys = list(ws)
    if h > 0:
        ys = [w * h for w in ws]
    ys[0] += h
    return np.sum(ys[0]) + np.sum(ws[0]) * h


@pytest.mark.parametrize("f", [shallow_copy_element_added_into, sliced_copy_element_added_into,
                               joined_copy_element_added_into])
@pytest.mark.parametrize("mode", ["reverse", "forward"])
def test_an_element_of_a_shallow_copy_changed_in_place_is_refused(f, mode):
    """``ys[0] += h`` changes the caller's array ``ws[0]`` in place, which the
    function reads again: both modes gave the derivative of a function where it did
    not change (2.8 where 0.0 is right, at h = -0.7)."""
    args = ([np.array([0.3, 0.5]), np.array([0.2, -0.4])], -0.7)
    with pytest.raises(S2SADError, match="shared with another value"):
        s2sad.grad(f, wrt=(0, 1), mode=mode)(*args)


def _copied_then_grown(xs):
    ys = xs.copy()
    ys.append(xs[0] * 2.0)
    return sum(y * y for y in ys) + sum(xs)


def _copied_arrays_added_into(ws, h):
    ys = ws.copy()
    ys[0] += h
    return np.sum(ys[0]) + np.sum(ws[0]) * h


def test_a_list_copy_is_a_new_list_of_the_same_items():
    """``xs.copy()`` was refused (no rule for the method), though the messages
    suggest it; it is ``list(xs)``: a new list, whose appends leave `xs` as it is, of
    the same items, whose arrays are the caller's."""
    args = ([0.5, 1.5],)
    for mode in ("reverse", "forward"):
        assert close(s2sad.grad(_copied_then_grown, mode=mode)(*args),
                     central_diff(_copied_then_grown, args, 0), 1e-6, 1e-8)
        with pytest.raises(S2SADError, match="shared with another value"):
            s2sad.grad(_copied_arrays_added_into, wrt=(0, 1), mode=mode)(
                [np.array([0.3, 0.5]), np.array([0.2, -0.4])], 0.7)
