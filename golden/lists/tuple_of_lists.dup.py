# s2sad golden file: golden/inputs/lists.py:tuple_of_lists, stage dup, wrt x.
# Regenerate with `pytest tests/test_golden.py --update-golden` and review the diff.
from golden.inputs.lists import *  # noqa: F401,F403

from s2sad.runtime import dup


def tuple_of_lists(x, n):
    x_trajectories1 = x
    n_trajectories1 = n
    xs_trajectories1 = []
    xs_trajectories1_a, xs_trajectories1_b = dup(xs_trajectories1)
    vs_trajectories1 = []
    vs_trajectories1_a, vs_trajectories1_b = dup(vs_trajectories1)
    p_trajectories1 = x_trajectories1
    v_trajectories1 = 0.0
    v_trajectories1_1 = v_trajectories1
    p_trajectories1_1 = p_trajectories1
    for __trajectories1 in range(n_trajectories1):
        p_trajectories1_1_a, p_trajectories1_1_b = dup(p_trajectories1_1)
        t1 = 0.1 * p_trajectories1_1_a
        v_trajectories1_2 = v_trajectories1_1 - t1
        v_trajectories1_2_a, v_trajectories1_2_b, v_trajectories1_2_c = dup(
            v_trajectories1_2, 3
        )
        t2 = 0.1 * v_trajectories1_2_a
        p_trajectories1_2 = p_trajectories1_1_b + t2
        p_trajectories1_2_a, p_trajectories1_2_b = dup(p_trajectories1_2)
        xs_trajectories1_a.append(p_trajectories1_2_a)
        vs_trajectories1_a.append(v_trajectories1_2_b)
        v_trajectories1_1 = v_trajectories1_2_c
        p_trajectories1_1 = p_trajectories1_2_b
    xs = xs_trajectories1_b
    vs = vs_trajectories1_b
    vs_a, vs_b = dup(vs)
    t3 = sum(xs)
    t4 = vs_a[-1]
    t5 = vs_b[-1]
    t6 = t4 * t5
    t7 = t3 + t6
    return t7
