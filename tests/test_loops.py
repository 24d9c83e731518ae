"""Loops, lists, break/continue/return and recursion, end to end."""

import math

import numpy as np
import pytest

import s2sad
import zoo_loops
from helpers import both_modes, central_diff, close, numeric_grad, positions
from stagerun import run_stage

IDS = [f"{f.__name__}{args}" for f, args, _ in zoo_loops.ZOO]


@pytest.mark.parametrize("f,args,wrt", zoo_loops.ZOO, ids=IDS)
def test_against_central_differences(f, args, wrt):
    got = s2sad.grad(f, wrt=wrt)(*args)
    assert close(got, numeric_grad(f, args, wrt), rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize("f,args,wrt", zoo_loops.ZOO, ids=IDS)
def test_vjp_and_value(f, args, wrt):
    value, grad = s2sad.value_and_grad(f, wrt=wrt)(*args)
    assert value == f(*args)
    out, pullback = s2sad.vjp(f, *args)
    assert out == f(*args)
    adjoints = pullback(1.0)
    got = tuple(adjoints[i] for i in positions(f, wrt))
    assert close(got, grad if isinstance(wrt, tuple) else (grad,), rtol=1e-12, atol=1e-14)


@pytest.mark.parametrize("stage", ["anf", "dup", "activity"])
@pytest.mark.parametrize("f,args,wrt", zoo_loops.ZOO, ids=IDS)
def test_stages_run(stage, f, args, wrt):
    got, _ = run_stage(f, stage, args, wrt)
    assert got == f(*args)


def test_gradient_of_a_list_is_a_list():
    g = s2sad.grad(zoo_loops.rosenbrock)([0.5, 1.2, -0.3, 0.8])
    assert isinstance(g, list) and len(g) == 4


def test_no_tape_for_straight_line_code_or_loop_invariants():
    text = s2sad.source(zoo_loops.loop_sum, wrt=0, example=(0.7, 1.3, 20))
    assert "tape" not in text  # x * i, which cos() needs, is cheaper to recompute
    forward, reverse = text.split("reversed(")
    assert "math.sin(x * i)" in forward and "t2 = x * i" in reverse
    text = s2sad.source(zoo_loops.loop_sum, wrt=(0, 1), example=(0.7, 1.3, 20))
    # sin(x * i), which y's adjoint needs, is saved; x * i is recomputed from i
    forward, reverse = text.split("reversed(")
    assert "t1 = math.sin(x * i)" in forward and "tape.append(t1)" in forward
    assert "t1 = tape.pop()" in reverse and "t2 = x * i" in reverse


def test_tape_is_empty_after_the_gradient():
    """Every pushed value is popped: a second call starts from an empty tape."""
    g = s2sad.grad(zoo_loops.data_dependent_branch)
    first = g(0.9, 8)
    assert g(0.9, 8) == first


def test_reverse_loop_reads_like_a_loop_running_backwards():
    text = s2sad.source(zoo_loops.loop_sum, wrt=(0, 1), example=(0.7, 1.3, 20))
    assert "for i in reversed(range(n)):" in text
    assert "# line 10: acc += math.sin(x * i) * y" in text
    text = s2sad.source(zoo_loops.newton_sqrt, example=(2.0,))
    # as many iterations as tape entries: no count
    assert "for _ in range(len(tape)):" in text and "count" not in text

    def steps(y):
        x = 0.0
        while x < 10.0:
            x = x + y
        return x

    text = s2sad.source(steps)  # nothing saved: the forward sweep counts
    assert "count += 1" in text and "for _ in range(count):" in text
    assert s2sad.grad(steps)(3.0) == 4.0
    text = s2sad.source(zoo_loops.with_break, example=(0.9, 10))
    assert "for i in reversed(range(n)[:count]):" in text


def test_while_loop_invariants_move_out_and_stay_off_the_tape():
    def damped(k, c, n):
        x, v, t = 1.0, 0.0, 0.0
        while t < n:
            a = -k * x - c * v
            x = x + 0.01 * v
            v = v + 0.01 * a
            t = t + 1.0
        return x

    text = s2sad.source(damped, wrt=(0, 1))
    forward = text.split("while")[0]
    assert "t1 = -k" in forward  # before the loop, computed once
    assert "tape.append(x_1)\n        tape.append(v_1)" in text and "count" not in text
    assert "v_1 = tape.pop()\n        x_1 = tape.pop()" in text  # (no tuple per step)
    assert "range(len(tape) // 2)" in text
    g = s2sad.grad(damped, wrt=(0, 1))(0.7, 0.2, 30)
    h = 1e-6
    for i, want in enumerate(g):
        args = [0.7, 0.2]
        args[i] += h
        up = damped(*args, 30)
        args[i] -= 2 * h
        assert math.isclose(want, (up - damped(*args, 30)) / (2 * h), rel_tol=1e-6)


# ------------------------------------------------- loops over tuples (both modes)


def loop_over_a_tuple_display(x, y):
    s = 0.0
    for v in (x, y, x * y):
        s = s + v * v
    return s


def loop_over_a_tuple_of_arrays(a, b):
    s = 0.0
    for v in (a, b, a * b):
        s = s + np.sum(np.sin(v) * v)
    return s


def loop_over_a_tuple_of_a_number_and_an_array(x, a):
    s = 0.0
    for v in (x, a):
        s = s + np.sum(v * v) * x
    return s


def loop_over_a_tuple_built_before(x, y):
    t = (x, y)
    t = (t[1], t[0], 2.0)
    s = 0.0
    for v in t:
        s = s * v + v
    return s


def enumerate_a_tuple(x, y):
    s = 0.0
    for i, v in enumerate((x, y, x + y), 1):
        s = s + i * v * v
    return s


def zip_tuples(x, y):
    s = 0.0
    for v, w in zip((x, y), (y, x * x, 5.0)):
        s = s + v * w
    return s


def _sum_times(t, x):
    s = 0.0
    for v in t:
        s = s + v * x
    return s


def loop_over_a_tuple_argument(x, y):
    return _sum_times((x, y, 2.0), x) + _sum_times((y,), y)


def nested_loops_over_tuples(x, y):
    s = 0.0
    for v in (x, y):
        for w in (v, x):
            s = s + v * w
    return s


def tuple_read_by_a_negative_index(x, y):
    t = (x, y, x + y)
    s = 0.0
    i = -1
    while i >= -3:
        s = s + t[i] * i
        i = i - 1
    return s


def tuple_read_in_a_loop_by_constant_index(x, y):
    t = (x, y)
    s = 0.0
    for i in range(3):
        s = s + t[0] * t[1] * i
    return s


def loop_over_a_tuple_of_pairs(x, y):
    s = 0.0
    for a, b in ((x, y), (y, x * x), (2.0, x)):
        s = s + a * b * s + a
    return s


def tuple_read_at_computed_indices(x, y):
    t = (x, y)
    s = 0.0
    for k in range(4):
        s = s + t[k % 2] * t[(k + 1) % 2] * s + t[k % 2]
    return s


def loop_over_the_tuples_of_a_tuple(x, y):
    tt = ((x, y), (y, x))
    s = 0.0
    for t in tt:
        for v in t:
            s = s * v + v
    return s


TUPLE_LOOPS = [
    (loop_over_a_tuple_of_pairs, (0.5, 1.5)),
    (tuple_read_at_computed_indices, (0.5, 1.5)),
    (loop_over_the_tuples_of_a_tuple, (0.5, 1.5)),
    (loop_over_a_tuple_display, (1.5, -2.0)),
    (loop_over_a_tuple_of_arrays, (np.array([0.5, 1.0, -0.3]), np.array([0.2, -0.7, 1.1]))),
    (loop_over_a_tuple_of_a_number_and_an_array, (1.3, np.array([0.5, -1.0]))),
    (loop_over_a_tuple_built_before, (1.5, -0.5)),
    (enumerate_a_tuple, (1.5, -2.0)),
    (zip_tuples, (1.5, -2.0)),
    (loop_over_a_tuple_argument, (1.5, -2.0)),
    (nested_loops_over_tuples, (1.5, -2.0)),
    (tuple_read_by_a_negative_index, (1.5, -2.0)),
    (tuple_read_in_a_loop_by_constant_index, (1.5, -2.0)),
]


@pytest.mark.parametrize("f,args", TUPLE_LOOPS, ids=[f.__name__ for f, _ in TUPLE_LOOPS])
def test_loops_over_tuples_in_both_modes(f, args):
    both_modes(f, args)


def test_a_loop_over_a_constant_tuple_argument():
    def scaled(x, c):
        s = 0.0
        for v in c:
            s = s + v * x * x
        return s

    assert s2sad.grad(scaled)(2.0, (1.0, 2.0, 3.0)) == 24.0
    assert s2sad.jvp(scaled, (2.0, (1.0, 2.0)), (1.0, None))[1] == 12.0


def test_a_loop_over_a_tuple_of_a_number_and_a_list_is_unrolled():
    def mixed(x, y):
        s = 0.0
        for v in (x, [y * y, x]):  # (a number, then a list: each turn its own kinds)
            s = s + np.sum(v) * x
        return s

    assert s2sad.grad(mixed, wrt=(0, 1))(1.5, 2.0) == (2 * (1.5 + 1.5 + 4.0) - 4.0, 6.0)
    assert s2sad.jvp(mixed, (1.5, 2.0), (1.0, 0.0))[1] == 2 * (1.5 + 1.5 + 4.0) - 4.0


def test_second_derivatives_of_loops_over_tuples():
    x, y = 1.5, -2.0
    got = s2sad.hessian(loop_over_a_tuple_display, wrt=(0, 1))(x, y)
    assert close(got, ((2 + 2 * y * y, 4 * x * y), (4 * x * y, 2 + 2 * x * x)), rtol=1e-12)
    got = s2sad.hessian(tuple_read_in_a_loop_by_constant_index, wrt=(0, 1))(x, y)
    assert close(got, ((0.0, 3.0), (3.0, 0.0)), rtol=1e-12, atol=1e-12)


# A name first assigned inside a loop and read after it is carried out of the loop with
# no value before the first iteration: the reverse sweep's zero adjoint for the value an
# iteration overwrites must not read (and so tape) that value, which does not exist yet.

def unborn_read_after_the_loop(x, s):
    v1 = x
    for i in range(2):
        v2 = v1 * s
        v1 = x * 2.0
    return np.sum(v1 * x) * s + np.sum(v2)


def unborn_loop_invariant(x, s):
    for i in range(3):
        v2 = x * s
    return np.sum(v2) * s


def unborn_assigned_in_both_branches(x, s):
    v = x
    for i in range(4):
        if i == 2:
            w = v * s
        else:
            w = v * 2.0
        v = w * s
    return np.sum(w * v)


def unborn_with_break(x, s):
    v = x
    for i in range(4):
        w = v * s
        if i == 2:
            break
        v = np.sin(w)
    return np.sum(w) + np.sum(v)


def unborn_with_continue(x, s):
    v = x
    for i in range(4):
        w = v * s
        if i == 1:
            continue
        v = np.sin(w)
    return np.sum(w) + np.sum(v)


def unborn_in_a_while_loop(x, s):
    v = x
    i = 0
    while i < 3:
        w = v * s
        v = np.sin(w) * x
        i += 1
    return np.sum(w * v)


def unborn_chain_and_tuple(x, s):
    v = x
    for i in range(3):
        a, b = v * s, v + s
        z = a * x
        v = np.sin(z) * b
    return np.sum(a) + np.sum(z) * s + np.sum(b * v)


UNBORN = [unborn_read_after_the_loop, unborn_loop_invariant, unborn_assigned_in_both_branches,
          unborn_with_break, unborn_with_continue, unborn_in_a_while_loop,
          unborn_chain_and_tuple]


@pytest.mark.parametrize("f", UNBORN, ids=lambda f: f.__name__)
@pytest.mark.parametrize("checkpoint", [None, "binomial"])
def test_a_name_first_assigned_in_a_loop_and_read_after_it(f, checkpoint):
    from helpers import central_diff

    x, s = np.array([0.3, 0.6, 0.8]), 0.5
    got = s2sad.grad(f, wrt=(0, 1), checkpoint=checkpoint)(x, s)
    assert close(got[0], central_diff(f, (x, s), 0), rtol=1e-6, atol=1e-8)
    assert close(got[1], central_diff(f, (x, s), 1), rtol=1e-6, atol=1e-8)
    value, back = s2sad.vjp(f, x, s, checkpoint=checkpoint)
    assert close(value, f(x, s), rtol=1e-12)
    x_bar, s_bar = back(2.0)
    assert close(x_bar, 2.0 * central_diff(f, (x, s), 0), rtol=1e-6, atol=1e-8)
    assert close(s_bar, 2.0 * central_diff(f, (x, s), 1), rtol=1e-6, atol=1e-8)


@pytest.mark.parametrize("f", UNBORN, ids=lambda f: f.__name__)
def test_second_derivative_of_a_name_first_assigned_in_a_loop(f):
    from helpers import central_diff

    x, s = np.array([0.3, 0.6, 0.8]), 0.5
    got = s2sad.hessian(f, wrt=1)(x, s)
    first = s2sad.grad(f, wrt=1)
    assert close(got, central_diff(lambda x, s: first(x, s), (x, s), 1), rtol=1e-5, atol=1e-7)


def test_no_tape_for_a_name_first_assigned_in_a_loop_invariant_body():
    x = np.array([0.3, 0.6])
    text = s2sad.source(unborn_loop_invariant, wrt=(0, 1), example=(x, 0.5))
    assert "tape" not in text


# The lowering's own copies may read such a name on a path where Python has not bound
# it yet: an inner loop's initial value (the first outer iteration), the branch of an
# `if` that does not assign it. It starts as None there, in both modes.

def unborn_in_nested_loops_read_after_both(x, s):
    v = x
    for j in range(2):
        for i in range(2):
            w = v * s
            v = np.cos(w)
    return np.sum(w) + np.sum(v)


def unborn_in_an_inner_loop_read_in_the_outer(x, s):
    u = 0.0
    for j in range(3):
        v = x * (j + 1.0)
        for i in range(2):
            w = v * s
            v = np.cos(w)
        u = u + np.sum(w * v)
    return u


def unborn_in_nested_loops_carried_out(x, s):
    v = x
    for j in range(2):
        for i in range(2):
            w = v * s
            v = np.cos(w)
        u = w * v
    return np.sum(u) + np.sum(w)


def unborn_assigned_in_one_branch(x, s):
    v = x
    for i in range(3):
        if i > 0:
            w = v * s
        v = v * 2.0
    return np.sum(w)


def unborn_scalar_in_one_branch_of_a_while(x, s):
    i = 0
    while i < 4:
        if i % 2 == 1:
            w = x * s
        x = x * 1.5
        i += 1
    return w * s


def unborn_set_by_the_first_iteration(x, s):
    for i in range(4):
        if i == 0:
            prev = x * s
        else:
            prev = np.sin(prev) * s + x
    return np.sum(prev * prev)


def unborn_set_first_and_read_by_index(x, s):
    for i in range(4):
        if i == 0:
            prev = x * 1.0
        else:
            prev = np.sin(prev) * x * s
    return prev[0] + np.sum(prev)


def unborn_of_other_widths(x, s):
    layers = [np.outer(x, x[:1]) * s, np.outer(x[:1], x), np.outer(x, x[:2]),
              np.outer(x[:2], x) * s]
    for i in range(4):
        if i == 0:
            h = np.tanh(x @ layers[0])  # (1,), then (3,), (2,), (3,)
        else:
            h = np.sin(h @ layers[i]) + 0.5
    return h[0] * h[1] + np.sum(h * h)


COPIED = [unborn_in_nested_loops_read_after_both, unborn_in_an_inner_loop_read_in_the_outer,
          unborn_in_nested_loops_carried_out, unborn_assigned_in_one_branch,
          unborn_scalar_in_one_branch_of_a_while, unborn_set_by_the_first_iteration,
          unborn_set_first_and_read_by_index, unborn_of_other_widths]


@pytest.mark.parametrize("f", COPIED, ids=lambda f: f.__name__)
@pytest.mark.parametrize("mode", ["reverse", "forward"])
def test_a_name_a_copy_may_read_before_python_binds_it(f, mode):
    from helpers import central_diff

    x = 0.7 if f is unborn_scalar_in_one_branch_of_a_while else np.array([0.3, 0.6, 0.8])
    s = 0.5
    got = s2sad.grad(f, wrt=(0, 1), mode=mode)(x, s)
    assert close(got[0], central_diff(f, (x, s), 0), rtol=1e-6, atol=1e-8)
    assert close(got[1], central_diff(f, (x, s), 1), rtol=1e-6, atol=1e-8)
    if mode == "reverse":
        first = s2sad.grad(f, wrt=1)
        assert close(s2sad.hessian(f, wrt=1)(x, s),
                     central_diff(lambda x, s: first(x, s), (x, s), 1), rtol=1e-5, atol=1e-7)


def test_a_number_first_assigned_by_the_first_iteration():
    """``if i == 0: prev = x`` then ``prev = f(prev)``: the tape keeps `prev` for the
    reverse of the later iterations, and it has no value when the first saves it;
    it starts as None, which the first iteration's reverse does not read. The
    derivative raised an UnboundLocalError."""
    def chained(x):
        for i in range(4):
            if i == 0:
                prev = x
            else:
                prev = math.sin(prev) * x
        return prev

    got = s2sad.grad(chained)(0.3)
    assert got == pytest.approx(numeric_grad(chained, (0.3,), 0), rel=1e-7)
    assert s2sad.jvp(chained, (0.3,), (1.0,))[1] == pytest.approx(got)
    eps = 1e-5
    assert s2sad.hessian(chained)(0.3) == pytest.approx(
        (s2sad.grad(chained)(0.3 + eps) - s2sad.grad(chained)(0.3 - eps)) / (2 * eps), rel=1e-6)


def test_a_checkpointed_loop_with_a_name_first_assigned_in_it_is_refused():
    def marked(x, n):
        y = x
        for i in s2sad.checkpointed(range(n)):
            if i > 0:
                w = y * 2.0
            y = y * 1.5
        return w

    with pytest.raises(s2sad.CheckpointError, match="`w` has no value before") as info:
        s2sad.grad(marked)(1.0, 3)
    assert info.value.lineno == marked.__code__.co_firstlineno + 2


def _halving(x, n):
    if n == 0:
        return [x]
    rest = _halving(x * 0.5, n - 1)
    return [x * x] + rest


def _halving_inline(x, n):
    if n == 0:
        return [x]
    return [x * x] + _halving_inline(x * 0.5, n - 1)


def test_a_recursive_function_returning_a_list():
    """What a recursion returns is found from the paths that do not recurse (a list of
    numbers here), so the list it builds by ``+`` has its adjoint: the kind was
    unknown, ``[x * x] + rest`` taken for arithmetic, and the gradient code failed."""
    def total(x):
        return sum(_halving(x, 3))

    def indexed(x):
        ys = _halving_inline(x, 2)
        return ys[0] + ys[2] * 2.0

    x = 1.3
    assert s2sad.grad(total)(x) == pytest.approx(2 * x + 2 * x / 4 + 2 * x / 16 + 1 / 8)
    assert s2sad.grad(indexed)(x) == pytest.approx(2 * x + 0.5)
    assert s2sad.jvp(indexed, (x,), (1.0,))[1] == pytest.approx(2 * x + 0.5)
    assert s2sad.hessian(indexed)(x) == pytest.approx(2.0)


def test_a_list_made_again_in_each_turn_keeps_its_element_kind():
    """``p = []`` in a loop's body, appended to and popped: the empty list adds no
    element kind on the analysis's next pass (its elements were unknown, and the pop
    of a number refused)."""
    def popped(x, y):
        acc = x
        for _ in range(2):
            p = []
            for v in [y, x]:
                p.append(v * acc)
            a = p.pop()
            acc = acc + a * p[0]
        return acc

    eps = 1e-6
    assert s2sad.grad(popped)(0.3, 0.2) == pytest.approx(
        (popped(0.3 + eps, 0.2) - popped(0.3 - eps, 0.2)) / (2 * eps), rel=1e-6)


def test_loops_over_sets_and_dicts():
    """A ``for`` loop reads its items by index (`anf`): a set or a dict the code
    builds (a display, ``set(...)``, ``.items()``) is read as the list of its items
    (`desugar`); one of unknown origin (an argument, a name given a display) is
    refused at the loop. An argument dict with int keys was read by position, a
    silently wrong gradient; a set raised a TypeError in the derivative."""
    def over_a_set(x):
        acc = 0.0
        for v in {1.0, 2.0, 4.0}:
            acc = acc + v * x * x
        return acc

    def over_items(x):
        acc = 0.0
        for k, v in {"a": 1.0, "b": 3.0}.items():
            acc = acc + v * math.sin(x) * len(k)
        return acc

    def extreme_of_a_set(x, y):
        h = lambda t: t * 2.0  # noqa: E731  (a local function: `structures` runs)
        v = max({t * 0.5 for t in range(3)})
        return h(x) * y + v * x

    for f, args in [(over_a_set, (0.3,)), (over_items, (0.3,))]:
        assert s2sad.grad(f)(*args) == pytest.approx(numeric_grad(f, args, 0), rel=1e-6)
    assert s2sad.grad(extreme_of_a_set, wrt=(0, 1))(0.3, 0.7) == pytest.approx((2.4, 0.6))

    def over_an_argument(x, d):
        acc = 0.0
        for k in d:
            acc = acc + (k + 1) * x
        return acc

    with pytest.raises(s2sad.S2SADError, match="reading its items by index") as info:
        s2sad.grad(over_an_argument)(0.3, {0: 0, 1: 0})
    assert "for k in d" in str(info.value)
    with pytest.raises(s2sad.S2SADError, match="reading its items by index"):
        s2sad.grad(over_an_argument)(0.3, {2.0, 5.0})


def _last_list_of_the_loop(x):
    for i in range(3):
        ys = [x * i, x]
    return ys[0] + ys[1]


def _list_made_in_the_first_iteration(x):
    for i in range(3):
        if i == 0:
            acc = []
        acc.append(x * i)
    return sum(acc)


def test_a_list_first_made_inside_a_loop():
    """A list made anew in each iteration and read after the loop is another list in
    each: reverse mode refuses it, as it refuses one made before the loop too, and
    forward mode follows it (it raised UnboundLocalError in reverse mode). Made in the
    first iteration and appended to in the others, it was silently inactive, the
    gradient 0.0: refused in both modes."""
    with pytest.raises(s2sad.S2SADError, match="different lists"):
        s2sad.grad(_last_list_of_the_loop)(0.5)
    assert s2sad.grad(_last_list_of_the_loop, mode="forward")(0.5) == pytest.approx(3.0)
    for mode in ("reverse", "forward"):
        with pytest.raises(s2sad.S2SADError, match="first made inside a loop") as info:
            s2sad.grad(_list_made_in_the_first_iteration, mode=mode)(0.5)
        assert info.value.lineno == _list_made_in_the_first_iteration.__code__.co_firstlineno + 4


def _returns_from_a_join_it_skipped(x, y):
    acc = x
    n = 0
    while n < 4 and acc < 2.5:
        n += 1
        if y > 0.5:
            acc = math.tanh(x)
        else:
            acc = acc + x  # (not read after the `if` on the path that returns)
        if x > -0.3:
            return math.tanh(2.0) * x * y
        acc = 0.5 - x
    return 2.0 * y


@pytest.mark.parametrize("mode", ["reverse", "forward"])
@pytest.mark.parametrize("point", [(1.0, 0.25), (1.0, 0.75), (-1.0, 0.25)])
def test_a_break_copies_only_what_is_read_after_the_loop(mode, point):
    """A `return` in a loop is a `break`, which copied every loop-carried name into its
    phi, also one a join before it left out because nothing after it reads it: the
    `else` branch's `acc` was never bound on that path (an UnboundLocalError in the
    derivative)."""
    got = s2sad.grad(_returns_from_a_join_it_skipped, wrt=(0, 1), mode=mode)(*point)
    for i in range(2):
        assert got[i] == pytest.approx(central_diff(_returns_from_a_join_it_skipped, point, i),
                                       rel=1e-6, abs=1e-9)


SETTINGS = {"order": {0: 2, 2: 1}, "weights": {1.0, 2.0}}


class _Held:
    """Settings an object holds, of kinds the compiler does not take (a dict, a set)."""

    def __init__(self):
        self.order = {1: 0.5, 0: 0.25}

    def loss(self, x):
        t = 0.0
        for k in self.order:  # (the keys 1 and 0, as Python iterates a dict)
            t = t * x[k] + self.order[k]
        return t


def _over_unknown(x):
    t = 0.0
    for i in SETTINGS["order"]:  # (the keys 0 and 2, not the values at 0 and 1)
        t = t * x[i] + x[i] * x[i]
    for w in SETTINGS["weights"]:  # (a set: its items, which it cannot index)
        t = t + w * x[1]
    return t


@pytest.mark.parametrize("mode", ["reverse", "forward"])
def test_a_loop_over_a_dict_or_a_set_of_unknown_kind_reads_what_python_reads(mode):
    # (the loop read ``seq[i]``: a dict's value at the key i where Python gives its i-th
    # key, a wrong gradient; a set raised an internal TypeError)
    x = np.array([0.3, -0.7, 1.1])
    got = s2sad.grad(_over_unknown, mode=mode)(x)
    assert close(got, central_diff(_over_unknown, (x,), 0))
    held = _Held()
    got = s2sad.grad(held.loss, mode=mode)(x)
    assert close(got, central_diff(held.loss, (x,), 0))
    text = s2sad.source(_over_unknown, example=(x,))
    assert "iterated(" in text and "from s2sad.runtime import iterated" in text


def test_a_loop_over_a_list_of_known_kind_reads_items_by_index():
    # (no helper where the compiler knows a list, a tuple or an array is looped over)
    def f(x, ws):
        t = 0.0
        for w in ws:
            t = t + w * x
        for v in sorted(ws):
            t = t + v * x * x
        return t

    text = s2sad.source(f, example=(1.5, [1.0, 2.0]))
    assert "iterated" not in text
    assert s2sad.grad(f)(1.5, [1.0, 2.0]) == 3.0 + 2 * 1.5 * 3.0


def _item_of_unknown_kind_then_break(x, w):
    s = 0.5
    for i in SETTINGS["order"]:  # (`x[i]` of an `i` of unknown kind: of a rank not known)
        s = np.mean(w) * x[i] + w[1, i]
        if x[i] > 0.5:
            break
    return s


def test_a_value_of_unknown_rank_overwritten_by_a_break_gets_a_zero_adjoint():
    # (its zero was `np.zeros_like(s, dtype=s_bar.dtype)`, and the adjoint of a number
    # has no dtype: an internal AttributeError)
    x, w = np.array([0.0, 0.0, 0.0]), np.array([[0.0, 0.0, 0.0], [0.0, 0.0, 0.0], [0.0, 0.9, 0.0]])
    got = s2sad.grad(_item_of_unknown_kind_then_break, wrt=(0, 1))(x, w)
    for g, i in zip(got, (0, 1)):
        assert close(g, central_diff(_item_of_unknown_kind_then_break, (x, w), i))


def _walrus_sum(x, c):
    s = 0.0
    while (s := s + x * c) < 3.0:
        pass
    return s


def _walrus_newton(x):
    y = 1.0
    while abs(r := y * y - x) > 1e-10:
        y = y - r / (2 * y)
    return y + r


def _walrus_and(y, x):
    k = 0
    while k < 10 and (e := y * 0.5) > 0.1:
        y = y - e * x
        k += 1
    return y + e


@pytest.mark.parametrize("f,args", [(_walrus_sum, (0.4, 3.0)), (_walrus_newton, (2.0,)),
                                    (_walrus_and, (1.0, 0.3))],
                         ids=["sum", "newton", "and"])
def test_a_name_the_while_condition_assigns_leaves_the_loop_with_the_last_tests_value(f, args):
    # (it left with its value from the test before: the derivative of the sum was
    # (6.0, 0.8) for (9.0, 1.2), and the value itself 2.4 for 3.6)
    wrt = tuple(range(len(args)))
    for mode in ("reverse", "forward"):
        value, got = s2sad.value_and_grad(f, wrt=wrt, mode=mode)(*args) if mode == "reverse" \
            else (f(*args), s2sad.grad(f, wrt=wrt, mode=mode)(*args))
        assert value == f(*args)
        for i in wrt:
            assert got[i] == pytest.approx(central_diff(f, args, i), rel=1e-6, abs=1e-9)


def test_a_checkpointed_while_whose_condition_assigns_is_refused():
    def f(x):
        s = 0.0
        while s2sad.checkpointed((s := s + x) < 3.0):
            s = s * 1.1
        return s

    with pytest.raises(s2sad.S2SADError, match="condition assigns a name"):
        s2sad.grad(f)(0.4)


def zip_in_a_zip(xs, ys):
    zs = [1.0, -1.0, 2.0]
    return sum(a * b for (a, (b, c)) in zip(xs, zip(ys, zs)) if c > 0)


def enumerate_in_a_zip(xs, ys):
    t = 0.0
    for (i, a), b in zip(enumerate(xs), ys):
        t = t + a * b * i
    return t


def zip_in_an_enumerate_from_one(xs, ys):
    t = 0.0
    for i, (a, b) in enumerate(zip(xs, ys), start=1):
        t = t + math.sin(a * b) * i
    return t


def zip_of_a_reversed(xs, ys):
    t = 0.0
    for a, b in zip(xs, reversed(ys)):
        t = t * 0.5 + a * b
    return t


def zip_in_a_zip_beside_a_reversed(xs, ys):
    # (L-BFGS's two-loop recursion: the inner zip is read in step, not made a value)
    r = 0.5
    for (s, y), a in zip(zip(xs, ys), reversed(xs)):
        r = r + s * (y * a)
    return r * r


def enumerate_from_two_beside_a_reversed(xs, ys):
    s = 0.0
    for (i, a), b in zip(enumerate(xs, start=2), reversed(ys)):
        s += a * b * i
    return s


NESTED_SEQUENCES = [zip_in_a_zip, enumerate_in_a_zip, zip_in_an_enumerate_from_one,
                    zip_of_a_reversed, zip_in_a_zip_beside_a_reversed,
                    enumerate_from_two_beside_a_reversed]


@pytest.mark.parametrize("f", NESTED_SEQUENCES, ids=[f.__name__ for f in NESTED_SEQUENCES])
def test_zips_and_enumerates_nested_in_each_other(f):
    xs, ys = np.array([0.5, 1.5, 0.2]), np.array([1.0, -0.7, 3.0])
    both_modes(f, (xs, ys))
    by_forward = s2sad.grad(f, wrt=(0, 1), mode="forward")(xs, ys)
    by_reverse = s2sad.grad(f, wrt=(0, 1))(xs, ys)
    assert all(np.allclose(a, b, rtol=1e-12) for a, b in zip(by_forward, by_reverse))


def zip_with_a_cycle(xs):
    import itertools
    return sum(x * w for x, w in zip(xs, itertools.cycle([1.0, -1.0])))


def test_a_zip_with_an_endless_iterator_is_refused_at_its_line():
    for mode in ("reverse", "forward"):
        with pytest.raises(s2sad.S2SADError, match=r"cycle\(\) has no length") as e:
            s2sad.grad(zip_with_a_cycle, mode=mode)([0.5, -1.5, 1.0])
        assert "zip(xs, itertools.cycle" in str(e.value)


def last_index_read_after(x, n):
    tot = x
    for i in range(n):
        tot = tot + x
    return tot * i if n > 0 else tot


def last_value_read_after(x, n):
    for i in range(n):
        y = math.sin(x * i)
    if n > 0:
        return y * x
    return x


def last_power_of_a_while(x, n):
    k = 0
    while k < n:
        last = x ** k
        k += 1
    return last * x if n else x


def calls_them(x, n):
    return last_index_read_after(x, n) + last_value_read_after(x, n) * 2.0 + \
        last_power_of_a_while(x, n)


BOUND_IN_A_LOOP = [last_index_read_after, last_value_read_after, last_power_of_a_while,
                   calls_them]


@pytest.mark.parametrize("n", [0, 3])
@pytest.mark.parametrize("f", BOUND_IN_A_LOOP, ids=[f.__name__ for f in BOUND_IN_A_LOOP])
def test_a_name_bound_only_in_a_loop_that_may_run_no_iteration(f, n):
    # (the forward function of a vjp, or of a callee, returns what its backward
    # function reads: a name the loop binds is None there after no iteration)
    want = central_diff(f, (0.3, n), 0)
    _, pullback = s2sad.vjp(f, 0.3, n)
    assert close(pullback(1.0)[0], want, 1e-6, 1e-7)
    assert close(s2sad.grad(f)(0.3, n), want, 1e-6, 1e-7)
    assert close(s2sad.jacobian(f, mode="reverse")(0.3, n), want, 1e-6, 1e-7)


def returns_from_a_nested_for(x, n):
    for i in range(n):
        for j in range(n):
            if x * i * j > 1.0:
                return x * i + math.sin(x * j)
    return x * x


def returns_from_a_for_in_a_while(x, n):
    k = 0
    while k < n:
        for j in range(3):
            t = x * k + j
            if t > 2.0:
                return t * t
        k += 1
    return -x


@pytest.mark.parametrize("f, args", [(returns_from_a_nested_for, (0.7, 4)),
                                     (returns_from_a_nested_for, (0.1, 4)),
                                     (returns_from_a_for_in_a_while, (0.7, 5)),
                                     (returns_from_a_for_in_a_while, (0.1, 2))])
def test_a_return_from_loops_nested_in_each_other(f, args):
    want = central_diff(f, args, 0)
    for mode in ("reverse", "forward", "tape"):
        assert close(s2sad.grad(f, mode=mode)(*args), want, 1e-6, 1e-7), mode
    assert close(s2sad.grad(f, checkpoint="binomial", snapshots=2)(*args), want, 1e-6, 1e-7)
    assert close(s2sad.vjp(f, *args)[1](1.0)[0], want, 1e-6, 1e-7)
    assert close(s2sad.hessian(f)(*args), central_diff(s2sad.grad(f), args, 0), 1e-5, 1e-6)


def over_a_string_literal(x):
    s = 0.0
    for c in "abca":
        if c == "a":
            s = s + x * x
        else:
            s = s + 3.0 * x
    return s


def over_bytes_enumerated(x):
    s = 0.0
    for i, c in enumerate(b"ab"):
        s = s + (c - 96) * i * x ** 2
    return s


@pytest.mark.parametrize("f", [over_a_string_literal, over_bytes_enumerated])
def test_a_loop_over_a_literal_string_reads_its_characters(f):
    # (a string literal's items are read by index as Python iterates them; the
    # refusal of a loop over a dict or an iterator is for names, not literals)
    want = central_diff(f, (0.7,), 0)
    for mode in ("reverse", "forward", "tape"):
        assert close(s2sad.grad(f, mode=mode)(0.7), want, 1e-6, 1e-7), mode


def _assigned_after_a_return(x, y):
    if x > y:
        if y > 1.96:
            return x * 0.5
        z = x * x
    return z * y


def _read_lazily(x, y):
    if x > y:
        if y > 1.96:
            return x * 0.5
        z = x * x
    return (x * y if y > 0.0 else z) * y


def _read_in_a_loop(x, y, n):
    if x > y:
        if y > 1.96:
            return x * 0.5
        z = x * x
    s = x
    for i in range(n):
        s = s + z * y
    return s


@pytest.mark.parametrize("f, args", [
    (_assigned_after_a_return, (0.7, 0.5)), (_assigned_after_a_return, (0.3, 0.5)),
    (_read_lazily, (0.3, 0.5)), (_read_lazily, (0.7, 0.5)), (_read_lazily, (0.3, -0.5)),
    (_read_in_a_loop, (0.3, 0.5, 0)), (_read_in_a_loop, (0.7, 0.5, 3)),
    (_read_in_a_loop, (0.3, 0.5, 2))])
def test_a_name_assigned_after_a_return_in_a_branch(f, args):
    """The lines after an ``if`` whose branch returns are moved into its branches,
    so the path that never assigns `z` read it: refused at build as "read before it
    is assigned". That path raises UnboundLocalError where Python would (not where
    the read is never reached: the other side of a conditional expression, a loop
    of no steps), and the others are differentiated."""
    try:
        f(*args)
    except UnboundLocalError:
        for mode in ("reverse", "forward"):
            with pytest.raises(UnboundLocalError):
                s2sad.grad(f, wrt=(0, 1), mode=mode)(*args)
        return
    want = (central_diff(f, args, 0), central_diff(f, args, 1))
    for mode in ("reverse", "forward"):
        assert close(s2sad.grad(f, wrt=(0, 1), mode=mode)(*args), want, 1e-6, 1e-7), mode


def _descent_that_breaks(A, b):
    x = np.zeros(2)
    for _ in range(200):
        g = A @ x - b
        if np.max(np.abs(g)) < 1e-6:
            break
        x = x - 0.1 * g
    return np.sum(x ** 2)


def _descent_while_true(A, b):
    x = np.zeros_like(b)
    k = 0
    while True:
        g = (A @ x - b).reshape(2, 1)
        if np.linalg.norm(g) < 1e-6 or k > 300:
            break
        x = x - 0.1 * g.reshape(2)
        k += 1
    return np.sum(x ** 2)


def _skips_a_step(A, b):
    x = np.ones(2)
    for i in range(6):
        g = A @ x - b
        if i % 2 == 1:
            continue
        x = x - 0.2 * g
    return np.sum(x ** 3)


@pytest.mark.parametrize("f", [_descent_that_breaks, _descent_while_true, _skips_a_step],
                         ids=["break", "while True", "continue"])
def test_an_array_a_branch_leaves_unread_gets_an_array_of_zeros(f):
    """On the path of a ``break`` (or ``continue``) the adjoint of ``g`` is zero; as
    the number 0.0 it reached ``g_bar @ A`` (a ValueError) or ``g_bar.reshape``: it is
    ``np.zeros_like(g)``, ``g`` bound before the ``if`` in that iteration."""
    A, b = np.array([[2.0, 0.3], [0.3, 1.0]]), np.array([1.0, -0.5])
    want = s2sad.grad(f, wrt=(0, 1), mode="forward")(A, b)
    got = s2sad.grad(f, wrt=(0, 1))(A, b)
    assert close(got, want, 1e-8, 1e-10)
    assert close(got, numeric_grad(f, (A, b), (0, 1)), 1e-4, 1e-6)
