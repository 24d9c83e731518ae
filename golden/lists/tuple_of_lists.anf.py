# s2sad golden file: golden/inputs/lists.py:tuple_of_lists, stage anf, wrt x.
# Regenerate with `pytest tests/test_golden.py --update-golden` and review the diff.
from golden.inputs.lists import *  # noqa: F401,F403


def tuple_of_lists(x, n):
    x_trajectories1 = x
    n_trajectories1 = n
    xs_trajectories1 = []
    vs_trajectories1 = []
    p_trajectories1 = x_trajectories1
    v_trajectories1 = 0.0
    v_trajectories1_1 = v_trajectories1
    p_trajectories1_1 = p_trajectories1
    for __trajectories1 in range(n_trajectories1):
        t1 = 0.1 * p_trajectories1_1
        v_trajectories1_2 = v_trajectories1_1 - t1
        t2 = 0.1 * v_trajectories1_2
        p_trajectories1_2 = p_trajectories1_1 + t2
        xs_trajectories1.append(p_trajectories1_2)
        vs_trajectories1.append(v_trajectories1_2)
        v_trajectories1_1 = v_trajectories1_2
        p_trajectories1_1 = p_trajectories1_2
    xs = xs_trajectories1
    vs = vs_trajectories1
    t3 = sum(xs)
    t4 = vs[-1]
    t5 = vs[-1]
    t6 = t4 * t5
    t7 = t3 + t6
    return t7
