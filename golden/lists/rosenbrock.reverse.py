# s2sad golden file: golden/inputs/lists.py:rosenbrock, stage reverse, wrt xs.
# Regenerate with `pytest tests/test_golden.py --update-golden` and review the diff.
from golden.inputs.lists import *  # noqa: F401,F403


def rosenbrock_grad(xs):
    total = 0.0
    t1 = len(xs)
    t2 = t1 - 1
    total_1 = total
    for i in range(t2):
        t3 = xs[i + 1]
        t4 = xs[i]
        t5 = 100.0 * (t3 - t4**2) ** 2
        total_2 = total_1 + (t5 + (1.0 - t4) ** 2)
        total_1 = total_2
    # line 10: return total
    xs_bar = [0.0] * len(xs)
    # line 8: for i in range(len(xs) - 1):
    for i in reversed(range(t2)):
        t6 = i + 1
        t3 = xs[t6]
        t4 = xs[i]
        t7 = t4 * t4
        t8 = t3 - t7
        t9 = 1.0 - t4
        # line 9: total += 100.0 * (xs[i + 1] - xs[i] ** 2) ** 2 + (1.0 - xs[i]) ** 2
        t9_bar = 2.0 * t9
        t8_bar = 200.0 * t8
        xs_bar[i] -= t8_bar * 2.0 * t4 + t9_bar
        xs_bar[t6] += t8_bar
    return xs_bar
