# s2sad golden file: golden/inputs/lists.py:rosenbrock, stage anf, wrt xs.
# Regenerate with `pytest tests/test_golden.py --update-golden` and review the diff.
from golden.inputs.lists import *  # noqa: F401,F403


def rosenbrock(xs):
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
        t8 = t7**2
        t9 = 100.0 * t8
        t10 = xs[i]
        t11 = 1.0 - t10
        t12 = t11**2
        t13 = t9 + t12
        total_2 = total_1 + t13
        total_1 = total_2
    return total_1
