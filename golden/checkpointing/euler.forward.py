# s2sad golden file: golden/inputs/checkpointing.py:euler, stage forward, wrt k, c.
# Regenerate with `pytest tests/test_golden.py --update-golden` and review the diff.
from golden.inputs.checkpointing import *  # noqa: F401,F403


def euler_jvp(k, c, n, k_dot, c_dot):
    x = 1.0
    v = 0.0
    dt = 0.01
    t1 = -k
    t1_dot = -k_dot
    x_1 = x
    v_1 = v
    x_1_dot = 0.0
    v_1_dot = 0.0
    for i in range(n):
        a = t1 * x_1 - c * v_1
        a_dot = t1_dot * x_1 + t1 * x_1_dot - (c_dot * v_1 + c * v_1_dot)
        x_1 = x_1 + dt * v_1
        x_1_dot = x_1_dot + dt * v_1_dot
        v_1 = v_1 + dt * a
        v_1_dot = v_1_dot + dt * a_dot
    return x_1, x_1_dot
