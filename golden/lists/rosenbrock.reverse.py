# s2sad golden file: golden/inputs/lists.py:rosenbrock, stage reverse, wrt xs.
# Regenerate with `pytest tests/test_golden.py --update-golden` and review the diff.
from golden.inputs.lists import *  # noqa: F401,F403


def rosenbrock_grad(xs):
    t1 = len(xs)
    t2 = t1 - 1
    for i in range(t2):
        t3 = xs[i + 1]
        t4 = xs[i]
        t5 = (t3 - t4**2) ** 2
        t6 = (1.0 - t4) ** 2
    # line 10: return total
    xs_bar = [0.0] * len(xs)
    # line 8: for i in range(len(xs) - 1):
    for i in reversed(range(t2)):
        t7 = i + 1
        t3 = xs[t7]
        t4 = xs[i]
        t8 = t4 * t4
        t9 = t3 - t8
        t10 = 1.0 - t4
        # line 9: total += 100.0 * (xs[i + 1] - xs[i] ** 2) ** 2 + (1.0 - xs[i]) ** 2
        t10_bar = 2.0 * t10
        t9_bar = 200.0 * t9
        xs_bar[i] -= t9_bar * 2.0 * t4 + t10_bar
        xs_bar[t7] += t9_bar
    return xs_bar
