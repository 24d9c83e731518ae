"""Functions whose derivatives raise at run time (for the note naming the user's
line). `root_of_square` at 0 runs forward and fails in the backward sweep
(the derivative of sqrt at 0). The line numbers are checked by tests/test_errors.py."""

import math


def pole(x):
    return 1.0 / (x - 2.0) + x


POLE_LINE = 9


def root_of_square(x):
    y = x * x
    return math.sqrt(y) * 2.0


SQRT_LINE = 17
