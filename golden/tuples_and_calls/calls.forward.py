# s2sad golden file: golden/inputs/tuples_and_calls.py:calls, stage forward, wrt x, y.
# Regenerate with `pytest tests/test_golden.py --update-golden` and review the diff.
from golden.inputs.tuples_and_calls import *  # noqa: F401,F403


def calls_jvp(x, y, x_dot, y_dot):
    a, a_dot = scaled_jvp(x_dot, x)
    b, b_dot = scaled_jvp_2(y_dot, x_dot, y, scale=x)
    c, c_dot = scaled_jvp_3(a_dot, b_dot, a, 3.0, shift=b)
    t1 = a + b + c
    t1_dot = a_dot + b_dot + c_dot
    return t1, t1_dot


def scaled_jvp(u_dot, u, scale=2.0, shift=0.0):
    t1 = scale * u
    t2_dot = scale * u_dot * u + t1 * u_dot
    t3 = t1 * u + shift
    return t3, t2_dot


def scaled_jvp_2(u_dot, scale_dot, u, scale=2.0, shift=0.0):
    t1 = scale * u
    t2_dot = (scale_dot * u + scale * u_dot) * u + t1 * u_dot
    t3 = t1 * u + shift
    return t3, t2_dot


def scaled_jvp_3(u_dot, shift_dot, u, scale=2.0, shift=0.0):
    t1 = scale * u
    t3 = t1 * u + shift
    t3_dot = scale * u_dot * u + t1 * u_dot + shift_dot
    return t3, t3_dot
