# s2sad golden file: golden/inputs/math_calls.py:exp_log, stage reverse, wrt x, y.
# Regenerate with `pytest tests/test_golden.py --update-golden` and review the diff.
from golden.inputs.math_calls import *  # noqa: F401,F403


def exp_log_grad(x, y):
    t1 = -x
    t2 = t1 * y
    t3 = exp(t2)
    t4 = log(x)
    t5 = math.log1p(y)
    t6 = t4 * t5
    t7 = t3 + t6
    t8 = x * y
    t9 = sqrt(t8)
    t10 = t7 + t9
    # line 12: return exp(-x * y) + log(x) * math.log1p(y) + sqrt(x * y)
    t10_bar = 1.0
    t8_bar = t10_bar / (2.0 * t9)
    x_c_bar = t8_bar * y
    y_c_bar = t8_bar * x
    t4_bar = t10_bar * t5
    t5_bar = t10_bar * t4
    y_b_bar = t5_bar / (1.0 + y)
    x_b_bar = t4_bar / x
    t2_bar = t10_bar * t3
    t1_bar = t2_bar * y
    y_a_bar = t2_bar * t1
    x_a_bar = -t1_bar
    # adjoint of y: the sum over its uses
    y_bar = y_a_bar + y_b_bar + y_c_bar
    x_bar = x_a_bar + x_b_bar + x_c_bar
    return x_bar, y_bar
