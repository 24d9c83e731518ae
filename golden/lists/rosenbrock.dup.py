# s2sad golden file: golden/inputs/lists.py:rosenbrock, stage dup, wrt xs.
# Regenerate with `pytest tests/test_golden.py --update-golden` and review the diff.
from golden.inputs.lists import *  # noqa: F401,F403

from s2sad.runtime import dup


def rosenbrock(xs):
    xs_a, xs_b = dup(xs)
    total = 0.0
    t1 = len(xs_a)
    t2 = t1 - 1
    total_1 = total
    for i in range(t2):
        i_a, i_b, i_c = dup(i, 3)
        xs_c, xs_d, xs_e = dup(xs_b, 3)
        t3 = i_a + 1
        t4 = xs_c[t3]
        t5 = xs_d[i_b]
        t6 = t5**2
        t7 = t4 - t6
        t8 = t7**2
        t9 = 100.0 * t8
        t10 = xs_e[i_c]
        t11 = 1.0 - t10
        t12 = t11**2
        t13 = t9 + t12
        total_2 = total_1 + t13
        total_1 = total_2
    return total_1
