# s2sad golden file: golden/inputs/seeds.py:program, stage forward, wrt x, y.
# Regenerate with `pytest tests/test_golden.py --update-golden` and review the diff.
from golden.inputs.seeds import *  # noqa: F401,F403


def program_jvp(x, y, x_dot, y_dot):
    p = 7 * x
    p_dot = 7.0 * x_dot
    r = 1 / y
    q = p * x * 5
    q_dot = (p_dot * x + p * x_dot) * 5.0
    t1 = 2 * p
    v = t1 * q + 3 * r
    v_dot = 2.0 * p_dot * q + t1 * q_dot - 3.0 * (r * y_dot / y)
    return v, v_dot
