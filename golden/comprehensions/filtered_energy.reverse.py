# s2sad golden file: golden/inputs/comprehensions.py:filtered_energy, stage reverse, wrt xs, c.
# Regenerate with `pytest tests/test_golden.py --update-golden` and review the diff.
from golden.inputs.comprehensions import *  # noqa: F401,F403


def filtered_energy_grad(xs, c):
    tape = []
    t1 = len(xs)
    for t2 in range(t1):
        x = xs[t2]
        t3 = x > 0.0
        if t3:
            t4 = c * x
        else:
            # not computed on this path
            t4 = None
        tape.append(x)
        tape.append(t3)
        tape.append(t4)
    # line 7: return sum(c * x * x for x in xs if x > 0.0)
    total_1_bar = 1.0
    xs_bar = [0.0] * len(xs)
    c_bar = 0.0
    for t2 in reversed(range(t1)):
        t4 = tape.pop()
        t3 = tape.pop()
        x = tape.pop()
        total_2_bar = total_1_bar
        if t3:
            total_1_bar = total_2_bar
            t4_bar = total_2_bar * x
            x_d_bar = total_2_bar * t4
            c_bar += t4_bar * x
            x_c_bar = t4_bar * c
            # adjoint of x: the sum over its uses
            x_b_bar = x_c_bar + x_d_bar
        else:
            total_1_bar = total_2_bar
            x_b_bar = 0.0
        # line 7: return sum(c * x * x for x in xs if x > 0.0)
        xs_bar[t2] += x_b_bar
    return xs_bar, c_bar
