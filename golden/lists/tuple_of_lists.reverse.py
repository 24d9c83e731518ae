# s2sad golden file: golden/inputs/lists.py:tuple_of_lists, stage reverse, wrt x.
# Regenerate with `pytest tests/test_golden.py --update-golden` and review the diff.
from golden.inputs.lists import *  # noqa: F401,F403


def tuple_of_lists_grad(x, n):
    x_trajectories1 = x
    n_trajectories1 = n
    xs_trajectories1 = []
    vs_trajectories1 = []
    p_trajectories1 = x_trajectories1
    v_trajectories1 = 0.0
    v_trajectories1_1 = v_trajectories1
    p_trajectories1_1 = p_trajectories1
    for __trajectories1 in range(n_trajectories1):
        v_trajectories1_2 = v_trajectories1_1 - 0.1 * p_trajectories1_1
        p_trajectories1_2 = p_trajectories1_1 + 0.1 * v_trajectories1_2
        xs_trajectories1.append(p_trajectories1_2)
        vs_trajectories1.append(v_trajectories1_2)
        v_trajectories1_1 = v_trajectories1_2
        p_trajectories1_1 = p_trajectories1_2
    xs = xs_trajectories1
    vs = vs_trajectories1
    t1 = sum(xs)
    t2 = vs[-1]
    t3 = vs[-1]
    # line 72: return sum(xs) + vs[-1] * vs[-1]
    t4_bar = 1.0
    xs_trajectories1_bar = [0.0] * len(xs_trajectories1)
    vs_trajectories1_bar = [0.0] * len(vs_trajectories1)
    t2_bar = t3
    t3_bar = t2
    vs_trajectories1_bar[-1] += t3_bar + t2_bar
    for k in range(len(xs_trajectories1_bar)):
        xs_trajectories1_bar[k] += t4_bar
    # line 62: for _ in range(n):
    v_trajectories1_1_bar = 0.0
    p_trajectories1_1_bar = 0.0
    for __trajectories1 in reversed(range(n_trajectories1)):
        # line 66: vs.append(v)
        p_trajectories1_2_b_bar = p_trajectories1_1_bar
        v_trajectories1_2_c_bar = v_trajectories1_1_bar
        v_trajectories1_2_b_bar = vs_trajectories1_bar.pop()
        # line 65: xs.append(p)
        p_trajectories1_2_a_bar = xs_trajectories1_bar.pop()
        # line 64: p = p + 0.1 * v
        p_trajectories1_2_bar = p_trajectories1_2_a_bar + p_trajectories1_2_b_bar
        v_trajectories1_2_a_bar = p_trajectories1_2_bar * 0.1
        # line 63: v = v - 0.1 * p
        v_trajectories1_2_bar = (
            v_trajectories1_2_a_bar + v_trajectories1_2_b_bar + v_trajectories1_2_c_bar
        )
        v_trajectories1_1_bar = v_trajectories1_2_bar
        # adjoint of p_trajectories1_1: the sum over its uses
        p_trajectories1_1_bar = p_trajectories1_2_bar - v_trajectories1_2_bar * 0.1
    x_bar = p_trajectories1_1_bar
    return x_bar
