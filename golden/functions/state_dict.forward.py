# s2sad golden file: golden/inputs/functions.py:state_dict, stage forward, wrt 0.
# Regenerate with `pytest tests/test_golden.py --update-golden` and review the diff.
from golden.inputs.functions import *  # noqa: F401,F403

import math


def state_dict_jvp(w, xs, w_dot):
    state_h = 0.0
    state_steps = 0
    t1 = len(xs)
    state_h_1 = state_h
    state_steps_1 = state_steps
    state_h_1_dot = 0.0
    for t2 in range(t1):
        x = xs[t2]
        state_h_v2 = math.tanh(w * state_h_1 + x)
        state_h_1_dot = (1.0 - state_h_v2 * state_h_v2) * (
            w_dot * state_h_1 + w * state_h_1_dot
        )
        state_steps_v2 = state_steps_1 + 1
        state_h_1 = state_h_v2
        state_steps_1 = state_steps_v2
    t3 = state_h_1**2 / state_steps_1
    t3_dot = 2.0 * state_h_1 * state_h_1_dot / state_steps_1
    return t3, t3_dot
