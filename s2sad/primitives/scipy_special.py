"""Rules for the SciPy special functions users reach for most.

Loaded by `s2sad.primitives` the first time a rule is looked up after ``scipy.special`` has
been imported (s2sad never imports SciPy itself, and works without it). Each function
has its reverse rule and its forward rule side by side, with the same inputs and
options; `tests/test_scipy_rules.py` checks each against central differences and
pairs them with the dot-product test, as `tests/test_rules.py` does for the built-in
tables.

Conventions: ``xlogy(x, y)`` is ``x * log(y)``, 0 at ``x == 0``, with derivatives
``log(y)`` and ``x / y`` (JAX's, so at ``x == 0`` and ``y > 0`` the derivative with
respect to `y` is 0). ``logsumexp`` takes ``axis`` (by keyword or as the second
argument) and ``keepdims``; a call with ``b=`` or ``return_sign=`` has no rule.
``polygamma(n, x)`` has no derivative with respect to its integer order `n`.
"""

import numpy as np
from scipy import special

from ..runtime import unbroadcast, unreduce
from .registry import FORWARD, REDUCTIONS, REVERSE, add_rule

_TWO_OVER_SQRT_PI = 1.1283791670955126  # 2 / sqrt(pi), the scale of erf's derivative


def reverse(key, when=None, positional=None):
    def register(func):
        add_rule(REVERSE, "reverse", key, func, when).positional = positional
        return func

    return register


def forward(key, when=None, positional=None):
    def register(func):
        add_rule(FORWARD, "forward", key, func, when).positional = positional
        return func

    return register


# ------------------------------------------------------------ error functions


@reverse(special.erf)
def erf_reverse(x, out, out_bar):
    return out_bar * _TWO_OVER_SQRT_PI * np.exp(-x * x)


@forward(special.erf)
def erf_forward(x, out, x_dot):
    return _TWO_OVER_SQRT_PI * np.exp(-x * x) * x_dot


@reverse(special.erfc)
def erfc_reverse(x, out, out_bar):
    return -out_bar * _TWO_OVER_SQRT_PI * np.exp(-x * x)


@forward(special.erfc)
def erfc_forward(x, out, x_dot):
    return -_TWO_OVER_SQRT_PI * np.exp(-x * x) * x_dot


# ----------------------------------------------------------- logistic


@reverse(special.expit)
def expit_reverse(x, out, out_bar):
    return out_bar * out * (1.0 - out)


@forward(special.expit)
def expit_forward(x, out, x_dot):
    return out * (1.0 - out) * x_dot


@reverse(special.logit)
def logit_reverse(x, out, out_bar):
    return out_bar / (x * (1.0 - x))


@forward(special.logit)
def logit_forward(x, out, x_dot):
    return x_dot / (x * (1.0 - x))


# ------------------------------------------------------------- gamma family


@reverse(special.gammaln)
def gammaln_reverse(x, out, out_bar):
    return out_bar * special.digamma(x)


@forward(special.gammaln)
def gammaln_forward(x, out, x_dot):
    return special.digamma(x) * x_dot


@reverse(special.digamma)
def digamma_reverse(x, out, out_bar):
    return out_bar * special.polygamma(1, x)


@forward(special.digamma)
def digamma_forward(x, out, x_dot):
    return special.polygamma(1, x) * x_dot


# (digamma's rules call polygamma, so a second derivative of gammaln needs these)
@reverse(special.polygamma)
def polygamma_reverse(n, x, out, out_bar):
    return None, out_bar * special.polygamma(n + 1, x)


@forward(special.polygamma)
def polygamma_forward(n, x, out, n_dot, x_dot):
    return None, special.polygamma(n + 1, x) * x_dot


# -------------------------------------------------------- log-sum-exp, x log y


@reverse(special.logsumexp, positional=1)
def logsumexp_reverse(a, *, axis=None, keepdims=False, out, out_bar):
    return unreduce(out_bar, a, axis, keepdims) * np.exp(a - unreduce(out, a, axis, keepdims))


@forward(special.logsumexp, positional=1)
def logsumexp_forward(a, *, axis=None, keepdims=False, out, a_dot):
    return np.sum(np.exp(a - unreduce(out, a, axis, keepdims)) * a_dot, axis=axis,
                  keepdims=keepdims)


REDUCTIONS.add(special.logsumexp)


@reverse(special.xlogy)
def xlogy_reverse(x, y, out, out_bar):
    return out_bar * np.log(y), out_bar * x / y


@forward(special.xlogy)
def xlogy_forward(x, y, out, x_dot, y_dot):
    return np.log(y) * x_dot, x / y * y_dot


@reverse(special.xlogy, when="array")
def xlogy_reverse_array(x, y, out, out_bar):
    return unbroadcast(out_bar * np.log(y), x), unbroadcast(out_bar * x / y, y)


@forward(special.xlogy, when="array")
def xlogy_forward_array(x, y, out, x_dot, y_dot):
    return np.log(y) * x_dot, x / y * y_dot
