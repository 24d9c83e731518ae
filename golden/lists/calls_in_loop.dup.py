# s2sad golden file: golden/inputs/lists.py:calls_in_loop, stage dup, wrt x.
# Regenerate with `pytest tests/test_golden.py --update-golden` and review the diff.
from golden.inputs.lists import *  # noqa: F401,F403

from golden.inputs.lists import step
from s2sad.runtime import dup


def calls_in_loop(x, n):
    x_a, x_b = dup(x)
    s = x_a
    s_1 = s
    for i in range(n):
        s_2 = step(s_1, x_b)
        s_1 = s_2
    return s_1
