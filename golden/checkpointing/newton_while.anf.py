# s2sad golden file: golden/inputs/checkpointing.py:newton_while, stage anf, wrt a.
# Regenerate with `pytest tests/test_golden.py --update-golden` and review the diff.
from golden.inputs.checkpointing import *  # noqa: F401,F403


def newton_while(a, tol):
    x = a
    x_1 = x
    while True:
        t1 = x_1 * x_1
        t2 = t1 - a
        t3 = abs(t2)
        t4 = tol * a
        t5 = t3 > t4
        if not t5:
            break
        t6 = a / x_1
        t7 = x_1 + t6
        x_2 = 0.5 * t7
        x_1 = x_2
    return x_1
