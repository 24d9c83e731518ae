# s2sad golden file: golden/inputs/comprehensions.py:split_and_join, stage dup, wrt xs, v.
# Regenerate with `pytest tests/test_golden.py --update-golden` and review the diff.
from golden.inputs.comprehensions import *  # noqa: F401,F403

from s2sad.runtime import dup


def split_and_join(xs, v):
    xs_a, xs_b = dup(xs)
    first = xs_a[0]
    rest = xs_b[1:]
    t1 = v * first
    t2 = [t1]
    ys = rest + t2
    ys_a, ys_b, ys_c, ys_d = dup(ys, 4)
    product = 1
    t3 = len(ys_a)
    product_1 = product
    for t4 in range(t3):
        item = ys_b[t4]
        product_2 = product_1 * item
        product_1 = product_2
    empty = True
    highest = None
    t5 = len(ys_c)
    highest_1 = highest
    empty_1 = empty
    for t6 in range(t5):
        empty_1_a, empty_1_b = dup(empty_1)
        term = ys_d[t6]
        if empty_1_a:
            highest_2 = term
            empty_2 = False
        else:
            highest_2 = max(highest_1, term)
            empty_2 = empty_1_b
        highest_1 = highest_2
        empty_1 = empty_2
    if empty_1:
        raise ValueError("max() arg is an empty sequence")
    t7 = product_1 + highest_1
    return t7
