# s2sad golden file: golden/inputs/comprehensions.py:split_and_join, stage reverse, wrt xs, v.
# Regenerate with `pytest tests/test_golden.py --update-golden` and review the diff.
from golden.inputs.comprehensions import *  # noqa: F401,F403


def split_and_join_grad(xs, v):
    tape_1 = []
    tape_2 = []
    first = xs[0]
    rest = xs[1:]
    t1 = v * first
    t2 = [t1]
    ys = rest + t2
    product = 1
    t3 = len(ys)
    product_1 = product
    for t4 in range(t3):
        item = ys[t4]
        product_2 = product_1 * item
        tape_1.append(product_1)
        product_1 = product_2
    empty = True
    highest = None
    t5 = len(ys)
    highest_1 = highest
    empty_1 = empty
    for t6 in range(t5):
        term = ys[t6]
        if empty_1:
            highest_2 = term
            empty_2 = False
        else:
            highest_2 = max(highest_1, term)
            empty_2 = empty_1
        tape_2.append(highest_1)
        tape_2.append(empty_1)
        highest_1 = highest_2
        empty_1 = empty_2
    if empty_1:
        raise ValueError("max() arg is an empty sequence")
    # line 18: return math.prod(ys) + max(ys)
    t7_bar = 1.0
    xs_bar = [0.0] * len(xs)
    rest_bar = [0.0] * len(rest)
    t2_bar = [0.0] * len(t2)
    ys_bar = [0.0] * len(ys)
    product_1_bar = t7_bar
    highest_1_bar = t7_bar
    for t6 in reversed(range(t5)):
        empty_1 = tape_2.pop()
        highest_1 = tape_2.pop()
        term = ys[t6]
        highest_2_bar = highest_1_bar
        if empty_1:
            term_bar = highest_2_bar
            highest_1_bar = 0.0
        else:
            highest_1_bar = 0.0 if term > highest_1 else highest_2_bar
            term_bar = highest_2_bar if term > highest_1 else 0.0
        # line 18: return math.prod(ys) + max(ys)
        ys_bar[t6] += term_bar
    # line 18: return math.prod(ys) + max(ys)
    for t4 in reversed(range(t3)):
        product_1 = tape_1.pop()
        item = ys[t4]
        product_2_bar = product_1_bar
        product_1_bar = product_2_bar * item
        item_bar = product_2_bar * product_1
        ys_bar[t4] += item_bar
    # line 17: ys = rest + [v * first]
    for k in range(len(rest_bar)):
        rest_bar[k] += ys_bar[k]
    for k in range(len(t2_bar)):
        t2_bar[k] += ys_bar[len(rest_bar) + k]
    t1_bar = t2_bar[0]
    v_bar = t1_bar * first
    first_bar = t1_bar * v
    # line 16: first, *rest = xs
    for k in range(len(rest_bar)):
        xs_bar[range(len(xs_bar))[1:][k]] += rest_bar[k]
    xs_bar[0] += first_bar
    return xs_bar, v_bar
