# s2sad golden file: golden/inputs/loops.py:euler, stage dup, wrt k, c.
# Regenerate with `pytest tests/test_golden.py --update-golden` and review the diff.
from golden.inputs.loops import *  # noqa: F401,F403

from s2sad.runtime import dup


def euler(k, c):
    x = 1.0
    v = 0.0
    dt = 0.01
    x_1 = x
    v_1 = v
    for i in range(100):
        x_1_c, x_1_d = dup(x_1)
        v_1_c, v_1_d, v_1_e = dup(v_1, 3)
        dt_a, dt_b = dup(dt)
        t1 = -k
        t2 = t1 * x_1_c
        t3 = c * v_1_c
        a = t2 - t3
        t4 = dt_a * v_1_d
        x_2 = x_1_d + t4
        t5 = dt_b * a
        v_2 = v_1_e + t5
        x_1 = x_2
        v_1 = v_2
    x_1_a, x_1_b = dup(x_1)
    v_1_a, v_1_b = dup(v_1)
    t6 = x_1_a * x_1_b
    t7 = v_1_a * v_1_b
    t8 = t6 + t7
    return t8
