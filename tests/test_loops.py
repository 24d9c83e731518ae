"""Loops, lists, break/continue/return and recursion, end to end."""

import math

import pytest

import s2sad
import zoo_loops
from helpers import close, numeric_grad, positions
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
    assert "tape.append((x_1, v_1))" in text and "count" not in text
    g = s2sad.grad(damped, wrt=(0, 1))(0.7, 0.2, 30)
    h = 1e-6
    for i, want in enumerate(g):
        args = [0.7, 0.2]
        args[i] += h
        up = damped(*args, 30)
        args[i] -= 2 * h
        assert math.isclose(want, (up - damped(*args, 30)) / (2 * h), rel_tol=1e-6)
