# s2sad golden file: golden/inputs/checkpointing.py:euler, stage dup, wrt k, c.
# Regenerate with `pytest tests/test_golden.py --update-golden` and review the diff.
from golden.inputs.checkpointing import *  # noqa: F401,F403

from s2sad.runtime import dup


def euler(k, c, n):
    x = 1.0
    v = 0.0
    dt = 0.01
    x_1 = x
    v_1 = v
    for i in range(n):
        x_1_a, x_1_b = dup(x_1)
        v_1_a, v_1_b, v_1_c = dup(v_1, 3)
        dt_a, dt_b = dup(dt)
        t1 = -k
        t2 = t1 * x_1_a
        t3 = c * v_1_a
        a = t2 - t3
        t4 = dt_a * v_1_b
        x_2 = x_1_b + t4
        t5 = dt_b * a
        v_2 = v_1_c + t5
        x_1 = x_2
        v_1 = v_2
    return x_1
