# s2sad golden file: golden/inputs/loops.py:newton_sqrt, stage reverse, wrt a.
# Regenerate with `pytest tests/test_golden.py --update-golden` and review the diff.
from golden.inputs.loops import *  # noqa: F401,F403


def newton_sqrt_grad(a):
    tape = []
    x = a
    x_1 = x
    while abs(x_1 * x_1 - a) > 1e-12 * a:
        t1 = x_1 + a / x_1
        x_2 = 0.5 * t1
        tape.append(x_1)
        x_1 = x_2
    # line 17: return x
    x_1_bar = 1.0
    # line 15: while abs(x * x - a) > 1e-12 * a:
    a_b_bar = 0.0
    for _ in range(len(tape)):
        x_1 = tape.pop()
        t2 = a / x_1
        # line 16: x = 0.5 * (x + a / x)
        x_2_bar = x_1_bar
        t1_bar = x_2_bar * 0.5
        a_e_bar = t1_bar / x_1
        # adjoint of a: the sum over its uses
        a_b_bar += a_e_bar
        x_1_bar = t1_bar - t1_bar * t2 / x_1
    x_bar = x_1_bar
    # adjoint of a: the sum over its uses
    a_bar = x_bar + a_b_bar
    return a_bar
