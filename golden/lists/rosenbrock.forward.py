# s2sad golden file: golden/inputs/lists.py:rosenbrock, stage forward, wrt xs.
# Regenerate with `pytest tests/test_golden.py --update-golden` and review the diff.
from golden.inputs.lists import *  # noqa: F401,F403


def rosenbrock_jvp(xs, xs_dot):
    total = 0.0
    t1 = len(xs)
    t2 = t1 - 1
    total_1 = total
    total_1_dot = 0.0
    for i in range(t2):
        t3 = i + 1
        t4 = xs[t3]
        t4_dot = xs_dot[t3]
        t5 = xs[i]
        t5_dot = xs_dot[i]
        t6 = t4 - t5**2
        t7 = 100.0 * t6**2
        t8 = 1.0 - t5
        total_1 = total_1 + (t7 + t8**2)
        total_1_dot = total_1_dot + (
            100.0 * (2.0 * t6 * (t4_dot - 2.0 * t5 * t5_dot)) - 2.0 * t8 * t5_dot
        )
    return total_1, total_1_dot
