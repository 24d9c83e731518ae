# s2sad golden file: golden/inputs/checkpointing.py:newton_while, stage reverse, wrt a.
# Regenerate with `pytest tests/test_golden.py --update-golden` and review the diff.
from golden.inputs.checkpointing import *  # noqa: F401,F403

from s2sad.checkpoint import CTZ


def newton_while_grad(a, tol):
    x = a
    ckpt = CTZ()
    (x_1,) = ckpt.forward_while(newton_while_step, newton_while_test, (x,), (a, tol))
    # line 34: return x
    x_1_bar = 1.0
    # line 32: while s2sad.checkpointed(abs(x * x - a) > tol * a):
    x_1_bar, a_b_bar = ckpt.reverse(newton_while_step_bar, (x_1_bar, 0.0))
    x_bar = x_1_bar
    # adjoint of a: the sum over its uses
    a_bar = x_bar + a_b_bar
    return a_bar


def newton_while_step(indices, state, args):
    (x_1,) = state
    a_b, tol = args
    for _ in indices:
        x_2 = 0.5 * (x_1 + a_b / x_1)
        x_1 = x_2
    return (x_1,)


def newton_while_test(state, args):
    (x_1,) = state
    a_b, tol = args
    t1 = abs(x_1 * x_1 - a_b) > tol * a_b
    return t1


def newton_while_step_bar(_, state, args, bar):
    (x_1,) = state
    a_b, tol = args
    t2 = a_b / x_1
    x_1_bar, a_b_bar = bar
    # line 33: x = 0.5 * (x + a / x)
    x_2_bar = x_1_bar
    t3_bar = x_2_bar * 0.5
    a_e_bar = t3_bar / x_1
    # adjoint of a_b: the sum over its uses
    a_b_bar += a_e_bar
    x_1_bar = t3_bar - t3_bar * t2 / x_1
    return x_1_bar, a_b_bar
