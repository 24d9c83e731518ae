# s2sad golden file: golden/inputs/lists.py:recursive_list, stage dup, wrt x.
# Regenerate with `pytest tests/test_golden.py --update-golden` and review the diff.
from golden.inputs.lists import *  # noqa: F401,F403

from golden.inputs.lists import halving
from s2sad.runtime import dup


def recursive_list(x, n):
    ys = halving(x, n)
    ys_a, ys_b = dup(ys)
    t1 = ys_a[0]
    t2 = ys_b[-1]
    t3 = t2 * 2.0
    t4 = t1 + t3
    return t4
