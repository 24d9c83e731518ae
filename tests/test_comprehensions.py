"""Comprehensions, generator expressions and list operations (`frontend.expand`), end
to end: gradients (reverse mode), forward mode and Hessians against central
differences, Python's scoping, and the constructs still refused, at their line."""

import math

import numpy as np
import pytest

import s2sad
import zoo_comprehensions as zoo
from helpers import central_diff, close, numeric_grad, positions, tree_numeric_grad

IDS = [f"{f.__name__}-{i}" for i, (f, _, _) in enumerate(zoo.ZOO)]


def _direction(x, rng):
    if isinstance(x, list):
        return [_direction(v, rng) for v in x]
    if isinstance(x, np.ndarray):
        return rng.standard_normal(x.shape)
    return float(rng.standard_normal()) if isinstance(x, float) else 0


def _dot(a, b):
    if isinstance(a, (list, tuple)):
        return sum(_dot(x, y) for x, y in zip(a, b))
    return float(np.sum(np.asarray(a) * np.asarray(b)))


@pytest.mark.parametrize("f,args,wrt", zoo.ZOO, ids=IDS)
def test_gradient_against_central_differences(f, args, wrt):
    got = s2sad.grad(f, wrt=wrt)(*args)
    assert close(got, numeric_grad(f, args, wrt), rtol=1e-5, atol=1e-6)
    value, _ = s2sad.value_and_grad(f, wrt=wrt)(*args)
    assert value == f(*args)


@pytest.mark.parametrize("f,args,wrt", zoo.ZOO, ids=IDS)
def test_forward_mode_against_central_differences(f, args, wrt):
    rng = np.random.default_rng(1)
    where = positions(f, wrt)
    tangents = tuple(_direction(a, rng) if i in where else
                     (np.zeros_like(a) if isinstance(a, np.ndarray) else None)
                     for i, a in enumerate(args))
    value, tangent = s2sad.jvp(f, tuple(args), tangents)
    assert value == f(*args)
    want = sum(_dot(central_diff(f, args, i), tangents[i]) for i in where)
    assert close(float(tangent), want, rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize("f,args", zoo.SECOND, ids=[f.__name__ for f, _ in zoo.SECOND])
def test_hessian_against_differences_of_the_gradient(f, args):
    wrt = 0
    H = np.asarray(s2sad.hessian(f, wrt=wrt)(*args), dtype=float)
    scalar = isinstance(args[0], float)
    x = np.atleast_1d(np.asarray(args[0], dtype=float))
    H = H.reshape(len(x), len(x))
    h = 1e-5
    grad = s2sad.grad(f, wrt=wrt)

    def at(v):
        return float(v[0]) if scalar else list(v)

    for k in range(len(x)):
        up, down = x.copy(), x.copy()
        up[k] += h
        down[k] -= h
        col = (np.asarray(grad(at(up), *args[1:])) - np.asarray(grad(at(down), *args[1:]))) \
            / (2 * h)
        assert np.allclose(H[:, k], col, rtol=1e-4, atol=1e-5), (k, H[:, k], col)


def test_sum_of_a_generator_is_a_loop_adding_its_terms():
    lowered = s2sad.source(zoo.filtered, wrt=0, example=(zoo.XS, 1.5), stage="anf")
    assert "total = 0" in lowered and "for " in lowered and "sum(" not in lowered
    text = s2sad.source(zoo.filtered, wrt=0, example=(zoo.XS, 1.5))
    text = "\n".join(line for line in text.splitlines() if not line.strip().startswith("#"))
    # (the gradient does not return the sum: its loop adds no terms, only adjoints)
    assert "items" not in text and "total = 0" not in text and "total_1_bar" in text
    assert "for " in text and "sum(" not in text


def test_a_named_comprehension_is_built_in_its_name():
    text = s2sad.source(zoo.named_list, wrt=0, stage="anf", example=(zoo.XS, 0.7))
    assert "ys = []" in text and "ys.append(" in text


def test_the_loop_variable_does_not_leak_and_globals_stay_visible():
    x = 2.0
    assert s2sad.grad(zoo.loop_variable_does_not_leak, wrt=1)(zoo.XS, x) == \
        pytest.approx(central_diff(zoo.loop_variable_does_not_leak, (zoo.XS, x), 1))
    # a comprehension variable named like a global: the global is read elsewhere
    assert s2sad.grad(uses_global_name)(1.5) == pytest.approx(
        central_diff(uses_global_name, (1.5,), 0))


t = 3.0


def uses_global_name(a):
    ys = [a * t for t in range(3)]
    return sum(ys) * t


def test_min_of_an_empty_generator_raises_as_python_does():
    def smallest(xs):
        return min(x * 2.0 for x in xs)

    with pytest.raises(ValueError) as python:
        smallest([])
    with pytest.raises(ValueError) as ours:
        s2sad.grad(smallest)([])
    assert "empty" in str(ours.value) and "empty" in str(python.value)
    with pytest.raises(ValueError, match=r"^min\(\) "):
        s2sad.grad(zoo.min_max_of_list)([])


def test_ties_go_to_the_first():
    assert s2sad.grad(zoo.min_max_of_list)([2.0, 1.0, 1.0, 3.0, 3.0]) == \
        [0.0, 3.0, 0.0, 1.0, 0.0]
    assert s2sad.grad(zoo.nary_min_max, wrt=(0, 1, 2))(1.0, 0.5, -1.0) == (1.0, 0.0, 1.0)


def test_too_few_items_for_a_starred_unpacking_raise():
    """(an IndexError, where Python raises a ValueError: never a value)"""
    with pytest.raises(ValueError):
        zoo.star_unpacking([1.0])
    for call in (s2sad.grad(zoo.star_unpacking), lambda xs: s2sad.jvp(zoo.star_unpacking,
                                                                      (xs,), ([1.0],))):
        with pytest.raises(IndexError):
            call([1.0])


def test_order_of_evaluation_is_kept():
    calls = []

    def note(v):
        calls.append(s2sad.stop_gradient(v))  # (a record: a value with its derivative is
        return v  # refused where it goes into a list from outside the function)

    def f(x):
        return note(x) + sum(note(2.0 * x) for _ in range(2)) + note(3.0 * x)

    calls.clear()
    f(1.0)
    want = list(calls)
    calls.clear()
    s2sad.grad(f)(1.0)
    assert calls[:4] == want


def refused_active_dict_comprehension(xs):
    d = {i: x * 2.0 for i, x in enumerate(xs)}
    return d[0] * xs[0]


def refused_star_of_unknown_length(xs):
    return _scaled(*[x for x in xs if x > 0.0])


def refused_star_of_a_list_that_grows(xs):
    args = [xs[0], xs[1]]
    args.append(xs[2])
    return _scaled(*args)


def refused_star_of_unknown_length_to_star_args(xs):
    return zoo._sum_of_squares(*[x for x in xs if x > 0.0])


def refused_keyword_a_callee_has_not(xs):
    return zoo._sum_of_squares(xs[0], weight=2.0)


def refused_map_of_a_computed_function(xs):
    return sum(map([math.sin][0], xs))


def map_of_a_long_local_function(xs):
    def g(v):
        u = v * 2.0
        return u * u
    return sum(map(g, xs))


def refused_key_lambda_with_a_default(xs):
    return min(xs, key=lambda t, k=2.0: t * k)


@pytest.mark.parametrize("f,what", [(refused_active_dict_comprehension,
                                     "a value computed on this line carries a derivative"),
                                    (refused_star_of_unknown_length, "`*` unpacking"),
                                    (refused_star_of_unknown_length_to_star_args,
                                     "whose length it does not know"),
                                    (refused_keyword_a_callee_has_not,
                                     "has no parameter `weight`"),
                                    (refused_map_of_a_computed_function, "`map`"),
                                    (refused_key_lambda_with_a_default, "`lambda`")])
def test_what_is_still_refused_points_at_the_line(f, what):
    with pytest.raises(s2sad.S2SADError) as e:
        s2sad.grad(f)([1.0, 2.0, 3.0])
    assert e.value.filename == __file__
    assert e.value.lineno == f.__code__.co_firstlineno + 1
    assert what in str(e.value)


def _scaled(a, b, c):
    return a * b + c


def test_a_long_local_function_mapped_and_summed():
    """``sum(map(g, xs))`` of a local function of several lines: the list of its
    values built by a loop (`structure_loops.looped_comprehension`), `g` put in place
    in its body."""
    f = map_of_a_long_local_function
    assert s2sad.grad(f)([1.0, 2.0]) == [8.0, 16.0]
    assert s2sad.jvp(f, ([1.0, 2.0],), ([1.0, 0.5],))[1] == 16.0


def test_star_args_of_the_differentiated_function_are_still_refused():
    def spread(*xs):
        return xs[0] * xs[1]

    with pytest.raises(s2sad.S2SADError, match="takes [*]args"):
        s2sad.grad(spread)(1.0, 2.0)


def test_insert_and_pop_at_a_place_as_python_does():
    """``xs.insert(i, v)`` and ``xs.pop(i)`` for every kind of place (negative, past
    either end), against Python's own lists; the derivative takes the adjoint from the
    place the item went to (``v_bar = xs_bar.pop(at)``) and puts a popped one back
    (``xs_bar.insert(at, v_bar)``), and a place out of range
    raises Python's IndexError."""
    def moved(xs, i, j):
        ys = [x * 2.0 for x in xs]
        ys.insert(i, xs[0] * xs[1])
        v = ys.pop(j)
        return v * 3.0 + ys[0] * ys[-1] + ys[1]

    xs = [0.5, -1.25, 2.0]
    for i in (0, 1, 3, 7, -1, -2, -9):
        for j in (0, 2, -1, -3, 3):
            want = numeric_grad(moved, (xs, i, j), 0)
            assert close(s2sad.grad(moved)(xs, i, j), want), (i, j)
            _, tangent = s2sad.jvp(moved, (xs, i, j), ([1.0, 0.5, -1.0], None, None))
            assert close(tangent, sum(g * d for g, d in zip(want, [1.0, 0.5, -1.0]))), (i, j)
    for j in (4, -5):
        with pytest.raises(IndexError):
            moved(xs, 0, j)
        with pytest.raises(IndexError, match="pop index out of range"):
            s2sad.grad(moved)(xs, 0, j)
    text = s2sad.source(moved, example=(xs, 1, 0))
    assert "ys_bar.pop(at)" in text and "ys_bar.insert(at2, v_bar)" in text


def _spread_tuple(x, t):
    return _scaled(*t) * x + zoo._weighted(x, *t[1:], gain=t[0])


def _spread_dict(x, opts):
    return zoo._weighted(x, **opts)


def test_a_tuple_or_dict_argument_spread_is_specialised_on_its_length():
    """``h(*t)`` of a tuple (or list) argument, ``h(**d)`` of a dict: its length and
    keys are part of what the derivative is specialised on, differentiated or not; a
    call with another length gets its own."""
    for t in [(0.5, -1.25, 2.0), (1.5, 0.25, -0.5, 3.0)]:
        if len(t) == 4:
            with pytest.raises(TypeError):
                _spread_tuple(0.7, t)
            with pytest.raises(TypeError):
                s2sad.grad(_spread_tuple)(0.7, t)
            continue
        want = numeric_grad(_spread_tuple, (0.7, t), 0)
        assert close(s2sad.grad(_spread_tuple)(0.7, t), want)
        assert close(s2sad.grad(_spread_tuple, mode="forward")(0.7, t), want)
        both = s2sad.grad(_spread_tuple, wrt=(0, 1))(0.7, t)
        assert close(both[1], tuple(numeric_grad(_spread_tuple, (0.7, list(t)), 1)))
        _, tangent = s2sad.jvp(_spread_tuple, (0.7, t), (1.0, None))
        assert close(tangent, want)
        H = s2sad.hessian(_spread_tuple)(0.7, t)
        assert close(H, 0.0)
    for opts in [{"gain": 1.5}, {"gain": 1.5, "scale": 2.0, "shift": 0.5}]:
        want = numeric_grad(_spread_dict, (0.7, opts), 0)
        assert close(s2sad.grad(_spread_dict)(0.7, opts), want)
        assert close(s2sad.grad(_spread_dict, mode="forward")(0.7, opts), want)


def test_a_place_computed_with_a_shadowed_builtin_is_refused():
    def shadows(xs):
        len = 2
        ys = [x * 1.0 for x in xs]
        ys.insert(-1, xs[0])
        return ys[0] * len

    with pytest.raises(s2sad.UnsupportedSyntaxError, match="builtin `len`") as e:
        s2sad.grad(shadows)([1.0, 2.0])
    assert e.value.lineno == shadows.__code__.co_firstlineno + 3


def test_keys_order_without_a_derivative_and_ties_go_to_the_first():
    """The key's values pick the item; the derivative is the picked item's, and of
    equal keys the first is picked (sorted keeps their order), as Python does."""
    xs = [2.0, -2.0, 1.0]
    assert s2sad.grad(lambda v: max(v, key=abs) * 3.0)(xs) == [3.0, 0.0, 0.0]
    assert s2sad.grad(lambda v: min(v, key=lambda t: -abs(t)))(xs) == [1.0, 0.0, 0.0]
    first = s2sad.grad(lambda v: sorted(v, key=abs, reverse=True)[1] * 2.0)(xs)
    assert first == [0.0, 2.0, 0.0]
    with pytest.raises(ValueError):
        s2sad.grad(lambda v: min(v, key=abs))([])
    assert s2sad.grad(lambda v, d: max(v, key=abs, default=d), wrt=(0, 1))([], 2.0) == \
        ([], 1.0)


def test_generator_with_yield_is_still_refused():
    def gen(x):
        yield x

    with pytest.raises(s2sad.S2SADError, match="yield"):
        s2sad.grad(gen)(1.0)


def test_a_star_of_a_list_display_that_grows_is_refused_not_cut_short():
    with pytest.raises(s2sad.UnsupportedSyntaxError, match="`[*]` unpacking") as e:
        s2sad.grad(refused_star_of_a_list_that_grows)([1.0, 2.0, 3.0])
    assert e.value.lineno == refused_star_of_a_list_that_grows.__code__.co_firstlineno + 3


def starred_loop_target(xs):
    t = 0.0
    for a, *b in [xs[:3], xs[1:]]:
        t = t + a * sum(b)
    return t


def test_a_starred_loop_target():
    """``for a, *b in rows`` unpacks each row by a statement of its own: forward mode
    takes it; reverse mode refuses the list of lists at the loop (it did fail inside
    the compiler)."""
    xs = [0.5, -1.25, 2.0, 1.5]
    direction = [1.0, 0.5, -0.25, 2.0]
    _, tangent = s2sad.jvp(starred_loop_target, (xs,), (direction,))
    want = sum(g * d for g, d in zip(central_diff(starred_loop_target, (xs,), 0), direction))
    assert close(tangent, want)
    with pytest.raises(s2sad.NotDifferentiableError) as e:
        s2sad.grad(starred_loop_target)(xs)
    assert e.value.lineno == starred_loop_target.__code__.co_firstlineno + 2


def test_divmod_and_a_dict_comprehension_over_a_dict():
    """``divmod(a, b)`` is ``(a // b, a % b)``; a dict comprehension over a dict of
    computed values, with keys known where the derivative is built, is a dict of them
    (`structures`)."""
    def remainder(x):
        q, r = divmod(x * 7.0, 2.0 + x)
        return q + r * x

    def scaled(x):
        d = {"a": x, "b": 2.0 * x, "c": 3.0}
        e = {k: v * x for k, v in d.items() if k != "c"}
        return e["a"] + e["b"] * e["a"]

    for f in (remainder, scaled):
        eps = 1e-6
        numeric = (f(0.7 + eps) - f(0.7 - eps)) / (2 * eps)
        assert s2sad.grad(f)(0.7) == pytest.approx(numeric, rel=1e-6), f.__name__
        assert s2sad.jvp(f, (0.7,), (1.0,))[1] == pytest.approx(numeric, rel=1e-6)
        h = s2sad.hessian(f)(0.7)
        assert h == pytest.approx((s2sad.grad(f)(0.7 + 1e-5) - s2sad.grad(f)(0.7 - 1e-5)) / 2e-5,
                                  rel=1e-4)


def test_value_and_grad_of_a_function_whose_temporaries_are_named_value():
    """`expand` names some temporaries ``value`` (a reversed list read in a zip); the
    value returned beside the gradient has a name of its own, not that one (the
    gradient code returned the temporary, or failed measuring it)."""
    def f(x, y):
        pairs = []
        for v in (y, x):
            pairs.append((v * math.atan(x), v + x))
        for p in reversed(pairs):  # (zip(reversed(...), reversed(...)): temporaries)
            y = y * 0.5 + p[0] * p[1]
        return y

    value, g = s2sad.value_and_grad(f)(0.3, 0.7)
    assert value == f(0.3, 0.7)
    assert g == pytest.approx((f(0.3 + 1e-6, 0.7) - f(0.3 - 1e-6, 0.7)) / 2e-6, rel=1e-6)


H = 2


def _multi_head(x, W):
    q = x @ W
    q = q.reshape(*q.shape[:-1], H, q.shape[-1] // H)
    q = q.transpose(*range(q.ndim - 3), -2, -3, -1)
    s = q @ np.swapaxes(q, -1, -2)
    w = np.exp(s - s.max(axis=-1, keepdims=True))
    w = w / w.sum(axis=-1, keepdims=True)
    out = (w @ q).reshape(*x.shape[:-1], -1)
    return np.sum(np.tanh(out) * np.ones((*out.shape[:-1], 1)) + out ** 2)


def _star_of_its_own_shape(x):
    return np.sum(x.reshape(*x.shape) ** 3) + np.sum(x.reshape(*(x.size,)))


@pytest.mark.parametrize("mode", ["reverse", "forward", "tape"])
def test_a_shape_unpacked_into_a_shape(mode):
    """``h.reshape(*h.shape[:-1], H, D)``, ``x.transpose(*range(n), -1)`` and
    ``np.zeros((*x.shape, 2))``, an attention layer's idioms: the items of a shape
    are ints, so the display is joined as Python joins it (refused before: the
    length of ``x.shape`` is not written in the function)."""
    rng = np.random.default_rng(0)
    x, W = rng.normal(size=(2, 3, 4)) * 0.5, rng.normal(size=(4, 4)) * 0.5
    g = s2sad.grad(_multi_head, wrt=(0, 1), mode=mode)(x, W)
    assert close(g, numeric_grad(_multi_head, (x, W), (0, 1)), 1e-5, 1e-7)
    assert close(s2sad.grad(_star_of_its_own_shape, mode=mode)(x),
                 central_diff(_star_of_its_own_shape, (x,), 0), 1e-5, 1e-7)


def _listed_pairs(Ws, x):
    hs = [x]
    for W in Ws:
        hs.append(np.tanh(hs[-1] @ W))
    total = 0.0
    for W, h in reversed(list(zip(Ws, hs))):  # (backprop written by hand, in order)
        total = total * 0.5 + np.sum(h @ W)
    for i, W in list(enumerate(Ws)):
        total = total + i * np.sum(W ** 2)
    pairs = list(zip(Ws, Ws[1:]))
    return total + sum(np.sum(a @ b) for a, b in list(zip(Ws, Ws[1:]))) + \
        sum(np.sum(a * b) for a, b in pairs)


def _listed_numbers(ws):
    t = 0.0
    for i, w in reversed(list(enumerate(ws, start=1))):
        t = t * w + i
    return t + sum(a * b for a, b in list(zip(ws, ws[1:])))


def test_a_list_of_a_zip_or_an_enumerate():
    """``list(zip(...))`` and ``list(enumerate(...))``, looped over (also reversed)
    or given to a name: the list of their tuples, which was refused as a call of
    `zip` with no derivative rule."""
    rng = np.random.default_rng(4)
    Ws = [rng.normal(size=(3, 3)) * 0.5 for _ in range(3)]
    x = rng.normal(size=(2, 3))
    want = tree_numeric_grad(_listed_pairs, (Ws, x), 0)
    for mode in ("reverse", "forward"):
        for a, b in zip(s2sad.grad(_listed_pairs, mode=mode)(Ws, x), want):
            np.testing.assert_allclose(a, b, rtol=1e-6, atol=1e-8)
    ws = [0.5, -1.5, 2.0]
    g = s2sad.grad(_listed_numbers)(ws)
    np.testing.assert_allclose(g, tree_numeric_grad(_listed_numbers, (ws,), 0), rtol=1e-6)
    assert s2sad.grad(_listed_numbers, mode="forward")(ws) == pytest.approx(g)


def _dropout(W, x):
    h = np.tanh(x @ W)
    return np.sum(h * (np.random.rand(*h.shape) < 0.5)) + \
        np.sum(h * np.random.randn(*h.shape[1:], 1).T)


def test_a_shape_spread_into_numpys_samplers():
    """``np.random.rand(*h.shape)`` (the dropout mask of CS231n's code) and ``randn``:
    the same draws as the sampler that takes the shape whole, which the derivative
    calls; it was refused as a ``*`` of a length not written in the function."""
    W, x = np.eye(3) * 0.5, np.linspace(-1.0, 1.0, 12).reshape(4, 3)
    for mode in ("reverse", "forward"):
        np.random.seed(5)
        g = s2sad.grad(_dropout, mode=mode)(W, x)
        np.random.seed(5)
        h = np.tanh(x @ W)
        mask = (np.random.rand(*h.shape) < 0.5) + np.random.randn(*h.shape[1:], 1).T
        np.testing.assert_allclose(g, x.T @ (mask * (1 - h ** 2)), rtol=1e-12)
