# s2sad golden file: golden/inputs/math_calls.py:exp_log, stage forward, wrt x, y.
# Regenerate with `pytest tests/test_golden.py --update-golden` and review the diff.
from golden.inputs.math_calls import *  # noqa: F401,F403


def exp_log_jvp(x, y, x_dot, y_dot):
    t1 = -x
    t2 = t1 * y
    t2_dot = t1 * y_dot - x_dot * y
    t3 = exp(t2)
    t3_dot = t3 * t2_dot
    t4 = log(x)
    t4_dot = x_dot / x
    t5 = math.log1p(y)
    t5_dot = y_dot / (1.0 + y)
    t6 = t4 * t5
    t6_dot = t4_dot * t5 + t4 * t5_dot
    t7 = t3 + t6
    t7_dot = t3_dot + t6_dot
    t8 = x * y
    t8_dot = x_dot * y + x * y_dot
    t9 = sqrt(t8)
    t9_dot = t8_dot / (2.0 * t9)
    t10 = t7 + t9
    t10_dot = t7_dot + t9_dot
    return t10, t10_dot
