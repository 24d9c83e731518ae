# s2sad golden file: golden/inputs/functions.py:state_dict, stage reverse, wrt 0.
# Regenerate with `pytest tests/test_golden.py --update-golden` and review the diff.
from golden.inputs.functions import *  # noqa: F401,F403

import math


def state_dict_grad(w, xs):
    tape = []
    state_h = 0.0
    state_steps = 0
    t1 = len(xs)
    state_h_1 = state_h
    state_steps_1 = state_steps
    for t2 in range(t1):
        x = xs[t2]
        t3 = w * state_h_1 + x
        state_h_v2 = math.tanh(t3)
        state_steps_v2 = state_steps_1 + 1
        state_h_2 = state_h_v2
        state_steps_2 = state_steps_v2
        tape.append(state_h_1)
        tape.append(state_h_v2)
        state_h_1 = state_h_2
        state_steps_1 = state_steps_2
    t4 = state_h_1**2
    t5 = t4 / state_steps_1
    # line 40: return state["h"] ** 2 / state["steps"]
    t4_bar = 1.0 / state_steps_1
    state_h_1_bar = t4_bar * 2.0 * state_h_1
    # line 38: for x in xs:
    w_bar = 0.0
    for t2 in reversed(range(t1)):
        state_h_v2 = tape.pop()
        state_h_1 = tape.pop()
        state_h_2_bar = state_h_1_bar
        # line 39: state = {"h": math.tanh(w * state["h"] + x), "steps": state["steps"] + 1}
        t3_bar = state_h_2_bar * (1.0 - state_h_v2 * state_h_v2)
        w_bar += t3_bar * state_h_1
        state_h_1_bar = t3_bar * w
    return w_bar
