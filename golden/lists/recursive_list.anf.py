# s2sad golden file: golden/inputs/lists.py:recursive_list, stage anf, wrt x.
# Regenerate with `pytest tests/test_golden.py --update-golden` and review the diff.
from golden.inputs.lists import *  # noqa: F401,F403

from golden.inputs.lists import halving


def recursive_list(x, n):
    ys = halving(x, n)
    t1 = ys[0]
    t2 = ys[-1]
    t3 = t2 * 2.0
    t4 = t1 + t3
    return t4
