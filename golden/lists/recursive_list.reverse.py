# s2sad golden file: golden/inputs/lists.py:recursive_list, stage reverse, wrt x.
# Regenerate with `pytest tests/test_golden.py --update-golden` and review the diff.
from golden.inputs.lists import *  # noqa: F401,F403

from s2sad.runtime import add_into


def recursive_list_grad(x, n):
    ys, ys_saved = halving_fwd(x, n)
    t1 = ys[0]
    t2 = ys[-1]
    # line 83: return ys[0] + ys[-1] * 2.0
    t3_bar = 1.0
    ys_bar = [0.0] * len(ys)
    t2_bar = 2.0
    ys_bar[-1] += t2_bar
    ys_bar[0] += t3_bar
    # line 82: ys = halving(x, n)
    x_bar = halving_bwd(ys_saved, ys_bar)
    return x_bar


def halving_fwd(x, n):
    t1 = n == 0
    if t1:
        result = [x]
        # not computed on this path
        t2 = None
        t3 = None
        t3_saved = None
    else:
        t4 = x * x
        t2 = [t4]
        t5 = x * 0.5
        t6 = n - 1
        t3, t3_saved = halving_fwd(t5, t6)
        result = t2 + t3
    return result, (x, t1, result, t2, t3, t3_saved)


def halving_bwd(saved, result_bar_seed):
    x, t1, result, t2, t3, t3_saved = saved
    result_bar = [0.0] * len(result)
    add_into(result_bar, result_bar_seed)
    # line 76: if n == 0:
    if t1:
        # line 77: return [x]
        x_bar = result_bar[0]
    else:
        t2_bar = [0.0] * len(t2)
        t3_bar = [0.0] * len(t3)
        # line 78: return [x * x] + halving(x * 0.5, n - 1)
        for k in range(len(t2_bar)):
            t2_bar[k] += result_bar[k]
        for k in range(len(t3_bar)):
            t3_bar[k] += result_bar[len(t2_bar) + k]
        t5_bar = halving_bwd(t3_saved, t3_bar)
        x_c_bar = t5_bar * 0.5
        t4_bar = t2_bar[0]
        x_a_bar = t4_bar * x
        # adjoint of x: the sum over its uses
        x_bar = x_a_bar + x_a_bar + x_c_bar
    return x_bar
