# s2sad golden file: golden/inputs/checkpointing.py:branchy_ctz, stage reverse, wrt x, y.
# Regenerate with `pytest tests/test_golden.py --update-golden` and review the diff.
from golden.inputs.checkpointing import *  # noqa: F401,F403

import math
from s2sad.checkpoint import CTZ


def branchy_ctz_grad(x, y, n):
    s = x
    ckpt = CTZ()
    (s_1,) = ckpt.forward(branchy_ctz_step, range(n), (s,), (y,))
    # line 27: return s
    s_1_bar = 1.0
    # line 22: for i in s2sad.checkpointed(range(n), schedule="ctz"):
    s_1_bar, y_bar = ckpt.reverse(branchy_ctz_step_bar, (s_1_bar, 0.0))
    x_bar = s_1_bar
    return x_bar, y_bar


def branchy_ctz_step(indices, state, args):
    (s_1,) = state
    (y,) = args
    for i in indices:
        if i % 2 == 0:
            s_2 = s_1 * y
        else:
            s_2 = math.sin(s_1) + y
        s_1 = s_2
    return (s_1,)


def branchy_ctz_step_bar(i, state, args, bar):
    (s_1,) = state
    (y,) = args
    t1 = i % 2 == 0
    s_1_bar, y_bar = bar
    # line 26: s = math.sin(s) + y
    s_2_bar = s_1_bar
    # line 23: if i % 2 == 0:
    if t1:
        # line 24: s = s * y
        s_1_bar = s_2_bar * y
        y_bar += s_2_bar * s_1
    else:
        # line 26: s = math.sin(s) + y
        y_bar += s_2_bar
        s_1_bar = s_2_bar * math.cos(s_1)
    return s_1_bar, y_bar
