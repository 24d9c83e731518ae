# s2sad golden file: golden/inputs/comprehensions.py:filtered_energy, stage anf, wrt xs, c.
# Regenerate with `pytest tests/test_golden.py --update-golden` and review the diff.
from golden.inputs.comprehensions import *  # noqa: F401,F403


def filtered_energy(xs, c):
    total = 0
    t1 = len(xs)
    total_1 = total
    for t2 in range(t1):
        x = xs[t2]
        t3 = x > 0.0
        if t3:
            t4 = c * x
            t5 = t4 * x
            total_2 = total_1 + t5
        else:
            total_2 = total_1
        total_1 = total_2
    return total_1
