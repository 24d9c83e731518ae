# s2sad golden file: golden/inputs/checkpointing.py:euler, stage anf, wrt k, c.
# Regenerate with `pytest tests/test_golden.py --update-golden` and review the diff.
from golden.inputs.checkpointing import *  # noqa: F401,F403


def euler(k, c, n):
    x = 1.0
    v = 0.0
    dt = 0.01
    x_1 = x
    v_1 = v
    for i in range(n):
        t1 = -k
        t2 = t1 * x_1
        t3 = c * v_1
        a = t2 - t3
        t4 = dt * v_1
        x_2 = x_1 + t4
        t5 = dt * a
        v_2 = v_1 + t5
        x_1 = x_2
        v_1 = v_2
    return x_1
