# s2sad golden file: golden/inputs/lists.py:calls_in_loop, stage anf, wrt x.
# Regenerate with `pytest tests/test_golden.py --update-golden` and review the diff.
from golden.inputs.lists import *  # noqa: F401,F403

from golden.inputs.lists import step


def calls_in_loop(x, n):
    s = x
    s_1 = s
    for i in range(n):
        s_2 = step(s_1, x)
        s_1 = s_2
    return s_1
