# s2sad golden file: golden/inputs/comprehensions.py:filtered_energy, stage dup, wrt xs, c.
# Regenerate with `pytest tests/test_golden.py --update-golden` and review the diff.
from golden.inputs.comprehensions import *  # noqa: F401,F403

from s2sad.runtime import dup


def filtered_energy(xs, c):
    xs_a, xs_b = dup(xs)
    total = 0
    t1 = len(xs_a)
    total_1 = total
    for t2 in range(t1):
        x = xs_b[t2]
        x_a, x_b = dup(x)
        t3 = x_a > 0.0
        if t3:
            x_c, x_d = dup(x_b)
            t4 = c * x_c
            t5 = t4 * x_d
            total_2 = total_1 + t5
        else:
            total_2 = total_1
        total_1 = total_2
    return total_1
