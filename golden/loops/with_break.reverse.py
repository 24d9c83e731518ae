# s2sad golden file: golden/inputs/loops.py:with_break, stage reverse, wrt x.
# Regenerate with `pytest tests/test_golden.py --update-golden` and review the diff.
from golden.inputs.loops import *  # noqa: F401,F403


def with_break_grad(x, n):
    tape = []
    s = 0.0
    count = 0
    s_1 = s
    for i in range(n):
        count += 1
        s_2 = s_1 + x * i
        t1 = s_2 > 10.0
        if t1:
            tape.append(t1)
            s_1 = s_2
            break
        else:
            s_3 = s_2 * 1.1
            tape.append(t1)
            s_1 = s_3
    # line 27: return s
    s_1_bar = 1.0
    # line 22: for i in range(n):
    x_bar = 0.0
    for i in reversed(range(n)[:count]):
        t1 = tape.pop()
        # line 24: if s > 10.0:
        if t1:
            # line 25: break
            s_2_b_bar = s_1_bar
        else:
            # line 26: s = s * 1.1
            s_3_bar = s_1_bar
            s_2_b_bar = s_3_bar * 1.1
        # line 23: s = s + x * i
        s_1_bar = s_2_b_bar
        x_bar += s_2_b_bar * i
    return x_bar
