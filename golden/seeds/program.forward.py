# s2sad golden file: golden/inputs/seeds.py:program, stage forward, wrt x, y.
# Regenerate with `pytest tests/test_golden.py --update-golden` and review the diff.
from golden.inputs.seeds import *  # noqa: F401,F403


def program_jvp(x, y, x_dot, y_dot):
    p = 7 * x
    p_dot = 7.0 * x_dot
    r = 1 / y
    t1 = p * x
    t1_dot = p_dot * x + p * x_dot
    q = t1 * 5
    q_dot = t1_dot * 5.0
    t2 = 2 * p
    t2_dot = 2.0 * p_dot
    t3 = t2 * q
    t3_dot = t2_dot * q + t2 * q_dot
    v = t3 + 3 * r
    v_dot = t3_dot - 3.0 * (r * y_dot / y)
    return v, v_dot
