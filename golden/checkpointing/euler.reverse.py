# s2sad golden file: golden/inputs/checkpointing.py:euler, stage reverse, wrt k, c.
# Regenerate with `pytest tests/test_golden.py --update-golden` and review the diff.
from golden.inputs.checkpointing import *  # noqa: F401,F403

from s2sad.checkpoint import Binomial


def euler_grad(k, c, n):
    x = 1.0
    v = 0.0
    dt = 0.01
    ckpt = Binomial(10)
    x_1, v_1 = ckpt.forward(euler_step, range(n), (x, v), (dt, k, c))
    # line 17: return x
    x_1_bar = 1.0
    # line 13: for i in s2sad.checkpointed(range(n), snapshots=10, schedule="binomial"):
    x_1_bar, v_1_bar, k_bar, c_bar = ckpt.reverse(
        euler_step_bar, (x_1_bar, 0.0, 0.0, 0.0)
    )
    return k_bar, c_bar


def euler_step(indices, state, args):
    x_1, v_1 = state
    dt, k, c = args
    for i in indices:
        a = -k * x_1 - c * v_1
        x_2 = x_1 + dt * v_1
        v_2 = v_1 + dt * a
        x_1, v_1 = x_2, v_2
    return x_1, v_1


def euler_step_bar(i, state, args, bar):
    x_1, v_1 = state
    dt, k, c = args
    t1 = -k
    x_1_bar, v_1_bar, k_bar, c_bar = bar
    # line 16: v = v + dt * a
    v_2_bar = v_1_bar
    x_2_bar = x_1_bar
    a_bar = v_2_bar * dt
    # line 15: x = x + dt * v
    v_1_b_bar = x_2_bar * dt
    # line 14: a = -k * x - c * v
    t2_bar = -a_bar
    c_bar += t2_bar * v_1
    v_1_a_bar = t2_bar * c
    t1_bar = a_bar * x_1
    x_1_a_bar = a_bar * t1
    k_bar -= t1_bar
    # adjoint of v_1: the sum over its uses
    v_1_bar = v_1_a_bar + v_1_b_bar + v_2_bar
    x_1_bar = x_1_a_bar + x_2_bar
    return x_1_bar, v_1_bar, k_bar, c_bar
