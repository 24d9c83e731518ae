# s2sad golden file: golden/inputs/lists.py:rosenbrock, stage reverse, wrt xs.
# Regenerate with `pytest tests/test_golden.py --update-golden` and review the diff.
from golden.inputs.lists import *  # noqa: F401,F403


def rosenbrock_grad(xs):
    total = 0.0
    t1 = len(xs)
    t2 = t1 - 1
    total_1 = total
    for i in range(t2):
        t3 = i + 1
        t4 = xs[t3]
        t5 = xs[i]
        t6 = t5**2
        t7 = t4 - t6
        t8 = 100.0 * t7**2
        t9 = 1.0 - t5
        total_2 = total_1 + (t8 + t9**2)
        total_1 = total_2
    # line 10: return total
    xs_bar = [0.0] * len(xs)
    # line 8: for i in range(len(xs) - 1):
    for i in reversed(range(t2)):
        t3 = i + 1
        t4 = xs[t3]
        t5 = xs[i]
        t6 = t5 * t5
        t7 = t4 - t6
        t9 = 1.0 - t5
        # line 9: total += 100.0 * (xs[i + 1] - xs[i] ** 2) ** 2 + (1.0 - xs[i]) ** 2
        t9_bar = 2.0 * t9
        t7_bar = 200.0 * t7
        xs_bar[i] -= t7_bar * 2.0 * t5 + t9_bar
        xs_bar[t3] += t7_bar
    return xs_bar
