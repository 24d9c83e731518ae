"""Functions the custom-rule tests register rules for."""

import math


class _Softsign:
    """A callable object: no Python source for the compiler to read."""

    def __call__(self, x):
        return x / (1.0 + abs(x))


softsign = _Softsign()


def softsign_reverse(x, out, out_bar):
    return out_bar / (1.0 + abs(x)) ** 2


def softsign_forward(x, out, x_dot):
    return x_dot / (1.0 + abs(x)) ** 2


def uses_softsign(x):
    return softsign(x * x)


def careful_log1pexp(x):
    if x > 30.0:
        return x
    return math.log1p(math.exp(x))


def careful_reverse(x, out, out_bar):
    return out_bar / (1.0 + math.exp(-x))


def uses_careful(x):
    return careful_log1pexp(x)


class _Counter:
    def __call__(self, x):
        return 3.0


opaque_count = _Counter()


def uses_count(x):
    return x * opaque_count(x)


class _Late:
    def __call__(self, x):
        return x * x


late = _Late()


def late_reverse(x, out, out_bar):
    return out_bar * 2.0 * x


def late_reverse_changed(x, out, out_bar):
    return out_bar * 4.0 * x


def uses_late(x):
    return late(x)
