# s2sad golden file: golden/inputs/functions.py:state_dict, stage dup, wrt 0.
# Regenerate with `pytest tests/test_golden.py --update-golden` and review the diff.
from golden.inputs.functions import *  # noqa: F401,F403

import math
from s2sad.runtime import dup


def state_dict(w, xs):
    xs_a, xs_b = dup(xs)
    state_h = 0.0
    state_steps = 0
    t1 = len(xs_a)
    state_h_1 = state_h
    state_steps_1 = state_steps
    for t2 in range(t1):
        x = xs_b[t2]
        t3 = w * state_h_1
        t4 = t3 + x
        state_h_v2 = math.tanh(t4)
        state_steps_v2 = state_steps_1 + 1
        state_h_2 = state_h_v2
        state_steps_2 = state_steps_v2
        state_h_1 = state_h_2
        state_steps_1 = state_steps_2
    t5 = state_h_1**2
    t6 = t5 / state_steps_1
    return t6
