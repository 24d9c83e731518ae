# s2sad golden file: golden/inputs/loops.py:nested, stage forward, wrt x.
# Regenerate with `pytest tests/test_golden.py --update-golden` and review the diff.
from golden.inputs.loops import *  # noqa: F401,F403


def nested_jvp(x, n, x_dot):
    s = x
    s_1 = s
    s_1_dot = x_dot
    for i in range(n):
        s_2 = s_1
        s_2_dot = s_1_dot
        for j in range(i):
            s_2 = s_2 * 0.9 + x * j
            s_2_dot = s_2_dot * 0.9 + x_dot * j
        s_1 = s_2
        s_1_dot = s_2_dot
    return s_1, s_1_dot
