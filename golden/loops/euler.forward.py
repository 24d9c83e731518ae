# s2sad golden file: golden/inputs/loops.py:euler, stage forward, wrt k, c.
# Regenerate with `pytest tests/test_golden.py --update-golden` and review the diff.
from golden.inputs.loops import *  # noqa: F401,F403


def euler_jvp(k, c, k_dot, c_dot):
    x = 1.0
    v = 0.0
    dt = 0.01
    t1 = -k
    t1_dot = -k_dot
    x_1 = x
    v_1 = v
    x_1_dot = 0.0
    v_1_dot = 0.0
    for i in range(100):
        t2 = t1 * x_1
        t2_dot = t1_dot * x_1 + t1 * x_1_dot
        t3 = c * v_1
        t3_dot = c_dot * v_1 + c * v_1_dot
        a = t2 - t3
        a_dot = t2_dot - t3_dot
        t4 = dt * v_1
        t4_dot = dt * v_1_dot
        x_2 = x_1 + t4
        x_2_dot = x_1_dot + t4_dot
        t5 = dt * a
        t5_dot = dt * a_dot
        v_2 = v_1 + t5
        v_2_dot = v_1_dot + t5_dot
        x_1 = x_2
        x_1_dot = x_2_dot
        v_1 = v_2
        v_1_dot = v_2_dot
    t6 = x_1 * x_1
    t6_dot = 2.0 * (x_1_dot * x_1)
    t7 = v_1 * v_1
    t7_dot = 2.0 * (v_1_dot * v_1)
    t8 = t6 + t7
    t8_dot = t6_dot + t7_dot
    return t8, t8_dot
