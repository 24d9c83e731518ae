# s2sad golden file: golden/inputs/lists.py:recursive_list, stage forward, wrt x.
# Regenerate with `pytest tests/test_golden.py --update-golden` and review the diff.
from golden.inputs.lists import *  # noqa: F401,F403


def recursive_list_jvp(x, n, x_dot):
    ys, ys_dot = halving_jvp(x_dot, x, n)
    t1 = ys[0]
    t1_dot = ys_dot[0]
    t2 = t1 + ys[-1] * 2.0
    t2_dot = t1_dot + ys_dot[-1] * 2.0
    return t2, t2_dot


def halving_jvp(x_dot, x, n):
    if n == 0:
        result = [x]
        result_dot = [x_dot]
    else:
        t1 = [x * x]
        t1_dot = [2.0 * (x_dot * x)]
        t2 = x * 0.5
        t2_dot = x_dot * 0.5
        t3 = n - 1
        t4, t4_dot = halving_jvp(t2_dot, t2, t3)
        result = t1 + t4
        result_dot = t1_dot + t4_dot
    return result, result_dot
