# s2sad golden file: golden/inputs/checkpointing.py:newton_while, stage dup, wrt a.
# Regenerate with `pytest tests/test_golden.py --update-golden` and review the diff.
from golden.inputs.checkpointing import *  # noqa: F401,F403

from s2sad.runtime import dup


def newton_while(a, tol):
    a_a, a_b = dup(a)
    x = a_a
    x_1 = x
    while True:
        x_1_a, x_1_b, x_1_c, x_1_d = dup(x_1, 4)
        a_c, a_d, a_e = dup(a_b, 3)
        t1 = x_1_a * x_1_b
        t2 = t1 - a_c
        t3 = abs(t2)
        t4 = tol * a_d
        t5 = t3 > t4
        if not t5:
            break
        t6 = a_e / x_1_c
        t7 = x_1_d + t6
        x_2 = 0.5 * t7
        x_1 = x_2
    return x_1
