# s2sad golden file: golden/inputs/comprehensions.py:split_and_join, stage forward, wrt xs, v.
# Regenerate with `pytest tests/test_golden.py --update-golden` and review the diff.
from golden.inputs.comprehensions import *  # noqa: F401,F403


def split_and_join_jvp(xs, v, xs_dot, v_dot):
    first = xs[0]
    first_dot = xs_dot[0]
    rest = xs[1:]
    rest_dot = xs_dot[1:]
    t1 = [v * first]
    t1_dot = [v_dot * first + v * first_dot]
    ys = rest + t1
    ys_dot = rest_dot + t1_dot
    product = 1
    t2 = len(ys)
    product_1 = product
    product_1_dot = 0.0
    for t3 in range(t2):
        item = ys[t3]
        item_dot = ys_dot[t3]
        product_2 = product_1 * item
        product_1_dot = product_1_dot * item + product_1 * item_dot
        product_1 = product_2
    empty = True
    highest = None
    t4 = len(ys)
    highest_1 = highest
    empty_1 = empty
    highest_1_dot = None
    for t5 in range(t4):
        term = ys[t5]
        term_dot = ys_dot[t5]
        if empty_1:
            highest_2 = term
            highest_2_dot = term_dot
            empty_2 = False
        else:
            highest_2 = max(highest_1, term)
            highest_2_dot = (0.0 if term > highest_1 else highest_1_dot) + (
                term_dot if term > highest_1 else 0.0
            )
            empty_2 = empty_1
        highest_1 = highest_2
        highest_1_dot = highest_2_dot
        empty_1 = empty_2
    if empty_1:
        raise ValueError("max() arg is an empty sequence")
    t6 = product_1 + highest_1
    t6_dot = product_1_dot + highest_1_dot
    return t6, t6_dot
