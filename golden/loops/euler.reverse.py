# s2sad golden file: golden/inputs/loops.py:euler, stage reverse, wrt k, c.
# Regenerate with `pytest tests/test_golden.py --update-golden` and review the diff.
from golden.inputs.loops import *  # noqa: F401,F403


def euler_grad(k, c):
    tape = []
    x = 1.0
    v = 0.0
    dt = 0.01
    t1 = -k
    x_1 = x
    v_1 = v
    for i in range(100):
        t2 = t1 * x_1
        t3 = c * v_1
        a = t2 - t3
        x_2 = x_1 + dt * v_1
        v_2 = v_1 + dt * a
        tape.append(x_1)
        tape.append(v_1)
        x_1 = x_2
        v_1 = v_2
    # line 63: return x * x + v * v
    v_1_a_bar = v_1
    v_1_b_bar = v_1
    x_1_a_bar = x_1
    x_1_b_bar = x_1
    # line 59: for i in range(100):
    v_1_bar = v_1_a_bar + v_1_b_bar
    x_1_bar = x_1_a_bar + x_1_b_bar
    k_bar = 0.0
    c_bar = 0.0
    for i in reversed(range(100)):
        v_1 = tape.pop()
        x_1 = tape.pop()
        # line 62: v = v + dt * a
        v_2_bar = v_1_bar
        x_2_bar = x_1_bar
        a_bar = v_2_bar * dt
        # line 61: x = x + dt * v
        v_1_d_bar = x_2_bar * dt
        # line 60: a = -k * x - c * v
        t3_bar = -a_bar
        c_bar += t3_bar * v_1
        v_1_c_bar = t3_bar * c
        t1_bar = a_bar * x_1
        x_1_c_bar = a_bar * t1
        k_bar -= t1_bar
        # adjoint of v_1: the sum over its uses
        v_1_bar = v_1_c_bar + v_1_d_bar + v_2_bar
        x_1_bar = x_1_c_bar + x_2_bar
    return k_bar, c_bar
