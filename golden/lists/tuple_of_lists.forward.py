# s2sad golden file: golden/inputs/lists.py:tuple_of_lists, stage forward, wrt x.
# Regenerate with `pytest tests/test_golden.py --update-golden` and review the diff.
from golden.inputs.lists import *  # noqa: F401,F403


def tuple_of_lists_jvp(x, n, x_dot):
    x_trajectories1 = x
    n_trajectories1 = n
    xs_trajectories1 = []
    xs_trajectories1_dot = [0.0] * len(xs_trajectories1)
    vs_trajectories1 = []
    vs_trajectories1_dot = [0.0] * len(vs_trajectories1)
    p_trajectories1 = x_trajectories1
    v_trajectories1 = 0.0
    v_trajectories1_1 = v_trajectories1
    p_trajectories1_1 = p_trajectories1
    v_trajectories1_1_dot = 0.0
    p_trajectories1_1_dot = x_dot
    for __trajectories1 in range(n_trajectories1):
        v_trajectories1_1 = v_trajectories1_1 - 0.1 * p_trajectories1_1
        v_trajectories1_1_dot = v_trajectories1_1_dot - 0.1 * p_trajectories1_1_dot
        p_trajectories1_1 = p_trajectories1_1 + 0.1 * v_trajectories1_1
        p_trajectories1_1_dot = p_trajectories1_1_dot + 0.1 * v_trajectories1_1_dot
        xs_trajectories1.append(p_trajectories1_1)
        xs_trajectories1_dot.append(p_trajectories1_1_dot)
        vs_trajectories1.append(v_trajectories1_1)
        vs_trajectories1_dot.append(v_trajectories1_1_dot)
    xs = xs_trajectories1
    vs = vs_trajectories1
    t1 = sum(xs)
    t1_dot = sum(xs_trajectories1_dot)
    t2 = vs[-1]
    t3 = vs[-1]
    t4 = t1 + t2 * t3
    t4_dot = t1_dot + (vs_trajectories1_dot[-1] * t3 + t2 * vs_trajectories1_dot[-1])
    return t4, t4_dot
