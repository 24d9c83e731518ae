"""Functions the custom-rule tests register rules for."""

import math
import operator

import numpy as np

import s2sad
from s2sad import stop_gradient


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


# ------------------------------------------- a rule in every mode, loops, branches


class _Smooth:
    """softsign again, as its own object (each test registers what it uses)."""

    def __call__(self, x):
        return x / (1.0 + abs(x))


smooth = _Smooth()


def smooth_reverse(x, out, out_bar):
    return out_bar / (1.0 + abs(x)) ** 2


def smooth_forward(x, out, x_dot):
    return x_dot / (1.0 + abs(x)) ** 2


def smooth_exact(x):
    return x / (1.0 + abs(x))


def smooth_in_loop(x, n):
    s = 0.0
    for i in range(n):
        if s < 0.5:
            s = s + smooth(x * i) * x
        else:
            s = s - smooth(s) * 0.5
    return s


def smooth_in_loop_exact(x, n):
    """`smooth_in_loop` with `smooth` read through: the reference."""
    s = 0.0
    for i in range(n):
        if s < 0.5:
            s = s + smooth_exact(x * i) * x
        else:
            s = s - smooth_exact(s) * 0.5
    return s


# ------------------------------------------------- a rule whose modes disagree


class _Twice:
    def __call__(self, x):
        return x * x


twice = _Twice()


def twice_reverse(x, out, out_bar):
    return out_bar * 2.0 * x


def twice_forward_wrong(x, out, x_dot):
    return 3.0 * x * x_dot


def uses_twice(x):
    return twice(x) + x


# ------------------------------------------------- a rule for a function redefined


def redefinable(x):
    return math.sin(x)


def redefinable_reverse(x, out, out_bar):
    return out_bar * 100.0


def redefinable_forward(x, out, x_dot):
    return 100.0 * x_dot


def redefined(x):
    """What the module's `redefinable` becomes: a new function under the same name."""
    return x * x


def uses_redefinable(x):
    return redefinable(x) * 2.0


# ------------------------------------------------------- forward rules only


class _Opaque:
    """An opaque callable computing `fn`: the rules say what its derivative is."""

    def __init__(self, fn):
        self.fn = fn

    def __call__(self, *args, **kwargs):
        return self.fn(*args, **kwargs)


soft_only_forward = _Opaque(lambda x: x / (1.0 + abs(x)))


def soft_forward(x, out, x_dot):
    d = (1.0 + abs(x)) ** 2
    return x_dot / d


def uses_soft_only_forward(x):
    return soft_only_forward(x * x) + x


product = _Opaque(lambda x, y: x * y)


def product_forward(x, y, out, x_dot, y_dot):
    return x_dot * y, x * y_dot


def uses_product(x, y):
    return np.sum(product(x, y) ** 2)


# kinks, negation, sums, a line that reads the tangent, an option, no derivative
kinked = _Opaque(lambda x, y, *, scale=1.0: scale * (abs(x) - 2.0 * x + 3.0 * x) + 0.0 * y)


def kinked_forward(x, y, *, scale=1.0, out, x_dot, y_dot):
    g = scale * x_dot
    return (g if x > 0 else -g if x < 0 else 0.0) - 2.0 * g + (+g) * 3.0, 0.0


def uses_kinked(x, y):
    return kinked(x * y, y, scale=2.0) + kinked(-x, y)


def kinked_exact(x, y):
    def k(a, scale=1.0):
        return scale * (abs(a) - 2.0 * a + 3.0 * a)

    return k(x * y, 2.0) + k(-x)


cumulative = _Opaque(lambda x: np.cumsum(x))


def cumulative_forward(x, out, x_dot):
    return np.cumsum(x_dot)


def uses_cumulative(x):
    return np.sum(cumulative(x) ** 2)


matrix_product = _Opaque(lambda x, y: x @ y)


def matrix_product_forward(x, y, out, x_dot, y_dot):
    return x_dot @ y, x @ y_dot


def uses_matrix_product(x, y):
    return np.sum(matrix_product(x, y))


squared = _Opaque(lambda x: x * x)


def squared_forward_nonlinear(x, out, x_dot):
    return x_dot * x_dot + 2.0 * x * x_dot


def squared_forward_mixed(x, out, x_dot):
    return 2.0 * x * x_dot


def uses_squared(x):
    return squared(x)


squared_again = _Opaque(lambda x: x * x)


def uses_squared_again(x):
    return squared_again(x)


pair = _Opaque(lambda x, y: x * y)


def pair_forward_crossed(x, y, out, x_dot, y_dot):
    return x_dot * y + x * y_dot, None


def uses_pair(x, y):
    return pair(x, y)


only_reverse = _Opaque(lambda x: 3.0 * x)


def only_reverse_reverse(x, out, out_bar):
    return 3.0 * out_bar


def uses_only_reverse(x):
    return only_reverse(x) * x


# ---------------------------------------------------------------- stop_gradient


def stopped(x):
    y = stop_gradient(x)
    return x * y + math.sin(y)


def stopped_by_attribute(x):
    return x * s2sad.stop_gradient(x * x)


def stopped_in_loop(x, n):
    s = x
    for i in range(n):
        if i % 2 == 0:
            s = s * stop_gradient(s) + x
        else:
            s = s - 0.5 * s2sad.stop_gradient(s * x)
    return s


def stopped_in_loop_reference(x, n, x0):
    """`stopped_in_loop` with the stopped values computed at `x0` (constants)."""
    s, c = x, x0
    for i in range(n):
        if i % 2 == 0:
            s, c = s * c + x, c * c + x0
        else:
            s, c = s - 0.5 * (c * x0), c - 0.5 * (c * x0)
    return s


def stable_logsumexp(x):
    m = stop_gradient(np.max(x))
    return m + np.log(np.sum(np.exp(x - m)))


def stopped_alias_written(x):
    a = np.zeros(3)
    b = stop_gradient(a)
    a[0] = x
    return x * b[0] + a[0]


# ----------------------------------------------------------- nondifferentiable


@s2sad.nondifferentiable
def scale_of(x):
    return abs(x) + 1.0


def uses_scale_of(x):
    return x * scale_of(x)


never_registered = operator.methodcaller("conjugate")  # (a callable s2sad cannot read)


def uses_late_unregistered(x):
    return never_registered(x)


spread = _Opaque(lambda x: x * np.array([1.0, 2.0, 3.0]))  # a number -> an array


def spread_forward(x, out, x_dot):
    return x_dot * np.array([1.0, 2.0, 3.0])


def uses_spread(x, z):
    return np.sum(spread(x) * z)  # 6 x z


def uses_spread_twice(x):
    return np.sum(spread(x) ** 2) + x  # 14 x**2 + x


doubled_total = _Opaque(lambda v: 2.0 * np.sum(v))  # an array -> a number


def doubled_total_forward(v, out, v_dot):
    return 2.0 * np.sum(v_dot)


def uses_doubled_total(w):
    return doubled_total(w) ** 2
