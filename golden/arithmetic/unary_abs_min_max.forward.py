# s2sad golden file: golden/inputs/arithmetic.py:unary_abs_min_max, stage forward, wrt x, y.
# Regenerate with `pytest tests/test_golden.py --update-golden` and review the diff.
from golden.inputs.arithmetic import *  # noqa: F401,F403


def unary_abs_min_max_jvp(x, y, x_dot, y_dot):
    t1 = -x
    t2 = x - y
    t2_dot = x_dot - y_dot
    t3_dot = t2_dot if t2 > 0 else -t2_dot if t2 < 0 else 0.0
    t4 = t1 + abs(t2)
    t4_dot = t3_dot - x_dot
    t5 = min(x, y)
    t5_dot = (0.0 if y < x else x_dot) + (y_dot if y < x else 0.0)
    t6 = max(x, 2.0)
    t6_dot = 0.0 if 2.0 > x else x_dot
    t7 = t4 + t5 * t6
    t7_dot = t4_dot + (t5_dot * t6 + t5 * t6_dot)
    return t7, t7_dot
