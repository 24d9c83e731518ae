# s2sad golden file: golden/inputs/comprehensions.py:filtered_energy, stage forward, wrt xs, c.
# Regenerate with `pytest tests/test_golden.py --update-golden` and review the diff.
from golden.inputs.comprehensions import *  # noqa: F401,F403


def filtered_energy_jvp(xs, c, xs_dot, c_dot):
    total = 0
    t1 = len(xs)
    total_1 = total
    total_1_dot = 0.0
    for t2 in range(t1):
        x = xs[t2]
        x_dot = xs_dot[t2]
        if x > 0.0:
            t3 = c * x
            total_2 = total_1 + t3 * x
            total_2_dot = total_1_dot + ((c_dot * x + c * x_dot) * x + t3 * x_dot)
        else:
            total_2 = total_1
            total_2_dot = total_1_dot
        total_1 = total_2
        total_1_dot = total_2_dot
    return total_1, total_1_dot
