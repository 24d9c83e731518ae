"""Rules for SciPy's special functions: the error functions and their inverses,
``erfcx``, the standard normal's ``ndtr``, ``log_ndtr`` and ``ndtri``, the logistic
pair and ``log_expit``, ``log1p``, ``expm1`` and ``cbrt`` (NumPy's under SciPy's
names), the gamma family (``gamma``, ``gammaln``, ``digamma``/``psi``, ``polygamma``,
``rgamma``, ``gammainc``, ``gammaincc``, ``beta``, ``betaln``), the
Bessel functions (``j0 j1 y0 y1 i0 i1 i0e i1e`` and ``jv``/``jn``, ``yn``, ``iv``,
``ive`` in x), ``logsumexp``, ``softmax``, ``log_softmax``, ``xlogy``, ``xlog1py``
and ``entr``.

Loaded by `s2sad.primitives` the first time a rule is looked up after ``scipy.special`` has
been imported (s2sad never imports SciPy itself, and works without it). Each function
has its reverse rule and its forward rule side by side, with the same inputs and
options; `tests/test_scipy_rules.py` checks each against central differences and
pairs them with the dot-product test, as `tests/test_rules.py` does for the built-in
tables.

Conventions: ``xlogy(x, y)`` is ``x * log(y)``, 0 at ``x == 0``, with derivatives
``log(y)`` and ``x / y`` (JAX's, so at ``x == 0`` and ``y > 0`` the derivative with
respect to `y` is 0). ``logsumexp`` takes ``axis`` (by keyword or as the second
argument), ``keepdims`` and weights ``b=`` (by keyword: differentiated too); a call
with ``return_sign=`` has no rule.
``polygamma(n, x)`` has no derivative with respect to its integer order `n`, nor
have the Bessel functions in their order or ``gammainc(a, x)`` and ``gammaincc`` in
`a`. ``softmax`` and ``log_softmax`` take ``axis`` (by keyword or second), None
meaning all axes, as SciPy's. Each rule's body calls only functions that have rules
themselves (``j1``'s calls ``jv``), so second derivatives go through.
"""

import numpy as np
from scipy import special

from ..runtime import unbroadcast, unreduce
from .facts import TABLE, Facts
from .registry import FORWARD, REDUCTIONS, REVERSE, add_rule
from .shape_rules import first

_TWO_OVER_SQRT_PI = 1.1283791670955126  # 2 / sqrt(pi), the scale of erf's derivative
_SQRT_PI_OVER_TWO = 0.8862269254527579  # sqrt(pi) / 2, the scale of erfinv's
_INV_SQRT_2PI = 0.3989422804014327  # 1 / sqrt(2 pi), the standard normal density's scale
_SQRT_2PI = 2.5066282746310002  # sqrt(2 pi), the scale of ndtri's


def reverse(key, when=None, positional=None, no_derivative=()):
    def register(func):
        rule = add_rule(REVERSE, "reverse", key, func, when)
        rule.positional, rule.no_derivative = positional, no_derivative
        return func

    return register


def forward(key, when=None, positional=None, no_derivative=()):
    def register(func):
        rule = add_rule(FORWARD, "forward", key, func, when)
        rule.positional, rule.no_derivative = positional, no_derivative
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


# ------------------------------------------------- normal distribution
# (ndtr is the standard normal CDF, its derivative the density exp(-x*x/2) / sqrt(2 pi);
# log_ndtr's is density / ndtr, taken as exp(-x*x/2 - log_ndtr(x)) so the far left tail
# neither overflows nor divides 0 by 0; ndtri is ndtr's inverse)


@reverse(special.ndtr)
def ndtr_reverse(x, out, out_bar):
    return out_bar * _INV_SQRT_2PI * np.exp(-0.5 * x * x)


@forward(special.ndtr)
def ndtr_forward(x, out, x_dot):
    return _INV_SQRT_2PI * np.exp(-0.5 * x * x) * x_dot


@reverse(special.log_ndtr)
def log_ndtr_reverse(x, out, out_bar):
    return out_bar * _INV_SQRT_2PI * np.exp(-0.5 * x * x - out)


@forward(special.log_ndtr)
def log_ndtr_forward(x, out, x_dot):
    return _INV_SQRT_2PI * np.exp(-0.5 * x * x - out) * x_dot


@reverse(special.ndtri)
def ndtri_reverse(x, out, out_bar):
    return out_bar * _SQRT_2PI * np.exp(0.5 * out * out)


@forward(special.ndtri)
def ndtri_forward(x, out, x_dot):
    return _SQRT_2PI * np.exp(0.5 * out * out) * x_dot


@reverse(special.erfcx)
def erfcx_reverse(x, out, out_bar):
    return out_bar * (2.0 * x * out - _TWO_OVER_SQRT_PI)


@forward(special.erfcx)
def erfcx_forward(x, out, x_dot):
    return (2.0 * x * out - _TWO_OVER_SQRT_PI) * x_dot


# ------------------------------------------- NumPy's functions, SciPy's names


@reverse(special.log1p)
def log1p_reverse(x, out, out_bar):
    return out_bar / (1.0 + x)


@forward(special.log1p)
def log1p_forward(x, out, x_dot):
    return x_dot / (1.0 + x)


@reverse(special.expm1)
def expm1_reverse(x, out, out_bar):
    return out_bar * np.exp(x)


@forward(special.expm1)
def expm1_forward(x, out, x_dot):
    return np.exp(x) * x_dot


@reverse(special.cbrt)
def cbrt_reverse(x, out, out_bar):
    return out_bar / (3.0 * out * out)


@forward(special.cbrt)
def cbrt_forward(x, out, x_dot):
    return x_dot / (3.0 * out * out)


# ----------------------------------------------------------- logistic


@reverse(special.expit)
def expit_reverse(x, out, out_bar):
    return out_bar * out * (1.0 - out)


@forward(special.expit)
def expit_forward(x, out, x_dot):
    return out * (1.0 - out) * x_dot


@reverse(special.log_expit)
def log_expit_reverse(x, out, out_bar):
    return out_bar * special.expit(-x)


@forward(special.log_expit)
def log_expit_forward(x, out, x_dot):
    return special.expit(-x) * x_dot


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
@reverse(special.polygamma, no_derivative=("n",))
def polygamma_reverse(n, x, out, out_bar):
    return None, out_bar * special.polygamma(n + 1, x)


@forward(special.polygamma, no_derivative=("n",))
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


# (weights b: out = log(sum(b exp(a))), whose derivative is b exp(a - out) in a and
# exp(a - out) in b; b broadcasts against a. Given by name only: the second
# positional argument is the axis, as in the rule above, which a call without b fits)
@reverse(special.logsumexp, positional=0)
def logsumexp_weighted_reverse(a, b, *, axis=None, keepdims=False, out, out_bar):
    p = unreduce(out_bar, a, axis, keepdims) * np.exp(a - unreduce(out, a, axis, keepdims))
    return unbroadcast(p * b, a), unbroadcast(p, b)


@forward(special.logsumexp, positional=0)
def logsumexp_weighted_forward(a, b, *, axis=None, keepdims=False, out, a_dot, b_dot):
    p = np.exp(a - unreduce(out, a, axis, keepdims))
    return (np.sum(p * b * a_dot, axis=axis, keepdims=keepdims),
            np.sum(p * b_dot, axis=axis, keepdims=keepdims))


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


@reverse(special.xlog1py)
def xlog1py_reverse(x, y, out, out_bar):
    return out_bar * np.log1p(y), out_bar * x / (1.0 + y)


@forward(special.xlog1py)
def xlog1py_forward(x, y, out, x_dot, y_dot):
    return np.log1p(y) * x_dot, x / (1.0 + y) * y_dot


@reverse(special.xlog1py, when="array")
def xlog1py_reverse_array(x, y, out, out_bar):
    return unbroadcast(out_bar * np.log1p(y), x), unbroadcast(out_bar * x / (1.0 + y), y)


@forward(special.xlog1py, when="array")
def xlog1py_forward_array(x, y, out, x_dot, y_dot):
    return np.log1p(y) * x_dot, x / (1.0 + y) * y_dot


@reverse(special.entr)
def entr_reverse(x, out, out_bar):
    return -out_bar * (np.log(x) + 1.0)


@forward(special.entr)
def entr_forward(x, out, x_dot):
    return -(np.log(x) + 1.0) * x_dot


# ------------------------------------------------------ softmax, log-softmax


@reverse(special.softmax, positional=1)
def softmax_reverse(x, *, axis=None, out, out_bar):
    return out * (out_bar - np.sum(out_bar * out, axis=axis, keepdims=True))


@forward(special.softmax, positional=1)
def softmax_forward(x, *, axis=None, out, x_dot):
    return out * (x_dot - np.sum(out * x_dot, axis=axis, keepdims=True))


TABLE[special.softmax] = Facts(shape=first)


@reverse(special.log_softmax, positional=1)
def log_softmax_reverse(x, *, axis=None, out, out_bar):
    return out_bar - np.exp(out) * np.sum(out_bar, axis=axis, keepdims=True)


@forward(special.log_softmax, positional=1)
def log_softmax_forward(x, *, axis=None, out, x_dot):
    return x_dot - np.sum(np.exp(out) * x_dot, axis=axis, keepdims=True)


TABLE[special.log_softmax] = Facts(shape=first)


# ------------------------------------------------- more of the gamma family
# (gamma(x) = exp(gammaln(x)) where positive; rgamma = 1 / gamma; the regularized
# incomplete gamma functions P(a, x) and Q(a, x) = 1 - P(a, x) are differentiated in x
# only, where P's density is x**(a - 1) exp(-x) / gamma(a); beta and betaln through
# digamma.)


@reverse(special.gamma)
def gamma_reverse(x, out, out_bar):
    return out_bar * out * special.digamma(x)


@forward(special.gamma)
def gamma_forward(x, out, x_dot):
    return out * special.digamma(x) * x_dot


@reverse(special.rgamma)
def rgamma_reverse(x, out, out_bar):
    return -out_bar * out * special.digamma(x)


@forward(special.rgamma)
def rgamma_forward(x, out, x_dot):
    return -out * special.digamma(x) * x_dot


@reverse(special.gammainc, no_derivative=("a",))
def gammainc_reverse(a, x, out, out_bar):
    return None, out_bar * np.exp((a - 1.0) * np.log(x) - x - special.gammaln(a))


@forward(special.gammainc, no_derivative=("a",))
def gammainc_forward(a, x, out, a_dot, x_dot):
    return None, np.exp((a - 1.0) * np.log(x) - x - special.gammaln(a)) * x_dot


@reverse(special.gammainc, when="array", no_derivative=("a",))
def gammainc_reverse_array(a, x, out, out_bar):
    return None, unbroadcast(out_bar * np.exp((a - 1.0) * np.log(x) - x - special.gammaln(a)), x)


@forward(special.gammainc, when="array", no_derivative=("a",))
def gammainc_forward_array(a, x, out, a_dot, x_dot):
    return None, np.exp((a - 1.0) * np.log(x) - x - special.gammaln(a)) * x_dot


@reverse(special.gammaincc, no_derivative=("a",))
def gammaincc_reverse(a, x, out, out_bar):
    return None, -out_bar * np.exp((a - 1.0) * np.log(x) - x - special.gammaln(a))


@forward(special.gammaincc, no_derivative=("a",))
def gammaincc_forward(a, x, out, a_dot, x_dot):
    return None, -np.exp((a - 1.0) * np.log(x) - x - special.gammaln(a)) * x_dot


@reverse(special.gammaincc, when="array", no_derivative=("a",))
def gammaincc_reverse_array(a, x, out, out_bar):
    return None, unbroadcast(-out_bar * np.exp((a - 1.0) * np.log(x) - x - special.gammaln(a)),
                             x)


@forward(special.gammaincc, when="array", no_derivative=("a",))
def gammaincc_forward_array(a, x, out, a_dot, x_dot):
    return None, -np.exp((a - 1.0) * np.log(x) - x - special.gammaln(a)) * x_dot


@reverse(special.beta)
def beta_reverse(a, b, out, out_bar):
    both = special.digamma(a + b)
    return out_bar * out * (special.digamma(a) - both), out_bar * out * (special.digamma(b) - both)


@forward(special.beta)
def beta_forward(a, b, out, a_dot, b_dot):
    both = special.digamma(a + b)
    return out * (special.digamma(a) - both) * a_dot, out * (special.digamma(b) - both) * b_dot


@reverse(special.beta, when="array")
def beta_reverse_array(a, b, out, out_bar):
    both = special.digamma(a + b)
    return unbroadcast(out_bar * out * (special.digamma(a) - both), a), \
        unbroadcast(out_bar * out * (special.digamma(b) - both), b)


@forward(special.beta, when="array")
def beta_forward_array(a, b, out, a_dot, b_dot):
    both = special.digamma(a + b)
    return out * (special.digamma(a) - both) * a_dot, out * (special.digamma(b) - both) * b_dot


@reverse(special.betaln)
def betaln_reverse(a, b, out, out_bar):
    both = special.digamma(a + b)
    return out_bar * (special.digamma(a) - both), out_bar * (special.digamma(b) - both)


@forward(special.betaln)
def betaln_forward(a, b, out, a_dot, b_dot):
    both = special.digamma(a + b)
    return (special.digamma(a) - both) * a_dot, (special.digamma(b) - both) * b_dot


@reverse(special.betaln, when="array")
def betaln_reverse_array(a, b, out, out_bar):
    both = special.digamma(a + b)
    return unbroadcast(out_bar * (special.digamma(a) - both), a), \
        unbroadcast(out_bar * (special.digamma(b) - both), b)


@forward(special.betaln, when="array")
def betaln_forward_array(a, b, out, a_dot, b_dot):
    both = special.digamma(a + b)
    return (special.digamma(a) - both) * a_dot, (special.digamma(b) - both) * b_dot


# ------------------------------------------------- inverse error functions
# (erf(erfinv(y)) = y, so erfinv's derivative is sqrt(pi) / 2 * exp(erfinv(y)**2))


@reverse(special.erfinv)
def erfinv_reverse(x, out, out_bar):
    return out_bar * _SQRT_PI_OVER_TWO * np.exp(out * out)


@forward(special.erfinv)
def erfinv_forward(x, out, x_dot):
    return _SQRT_PI_OVER_TWO * np.exp(out * out) * x_dot


@reverse(special.erfcinv)
def erfcinv_reverse(x, out, out_bar):
    return -out_bar * _SQRT_PI_OVER_TWO * np.exp(out * out)


@forward(special.erfcinv)
def erfcinv_forward(x, out, x_dot):
    return -_SQRT_PI_OVER_TWO * np.exp(out * out) * x_dot


# ------------------------------------------------------------------ Bessel
# (J and Y: d/dx C_v = (C_{v-1} - C_{v+1}) / 2, so j0' = -j1 and y0' = -y1; I: d/dx
# I_v = (I_{v-1} + I_{v+1}) / 2, i0' = i1; the scaled ive(v, x) = iv(v, x) exp(-|x|)
# adds -sign(x) ive(v, x). Orders are not differentiated.)


@reverse(special.j0)
def j0_reverse(x, out, out_bar):
    return -out_bar * special.j1(x)


@forward(special.j0)
def j0_forward(x, out, x_dot):
    return -special.j1(x) * x_dot


@reverse(special.j1)
def j1_reverse(x, out, out_bar):
    return out_bar * 0.5 * (special.j0(x) - special.jv(2.0, x))


@forward(special.j1)
def j1_forward(x, out, x_dot):
    return 0.5 * (special.j0(x) - special.jv(2.0, x)) * x_dot


@reverse(special.y0)
def y0_reverse(x, out, out_bar):
    return -out_bar * special.y1(x)


@forward(special.y0)
def y0_forward(x, out, x_dot):
    return -special.y1(x) * x_dot


@reverse(special.y1)
def y1_reverse(x, out, out_bar):
    return out_bar * 0.5 * (special.y0(x) - special.yn(2, x))


@forward(special.y1)
def y1_forward(x, out, x_dot):
    return 0.5 * (special.y0(x) - special.yn(2, x)) * x_dot


@reverse(special.i0)
def i0_reverse(x, out, out_bar):
    return out_bar * special.i1(x)


@forward(special.i0)
def i0_forward(x, out, x_dot):
    return special.i1(x) * x_dot


@reverse(special.i1)
def i1_reverse(x, out, out_bar):
    return out_bar * 0.5 * (special.i0(x) + special.iv(2.0, x))


@forward(special.i1)
def i1_forward(x, out, x_dot):
    return 0.5 * (special.i0(x) + special.iv(2.0, x)) * x_dot


@reverse(special.i0e)
def i0e_reverse(x, out, out_bar):
    return out_bar * (special.i1e(x) - np.sign(x) * out)


@forward(special.i0e)
def i0e_forward(x, out, x_dot):
    return (special.i1e(x) - np.sign(x) * out) * x_dot


@reverse(special.i1e)
def i1e_reverse(x, out, out_bar):
    return out_bar * (0.5 * (special.i0e(x) + special.ive(2.0, x)) - np.sign(x) * out)


@forward(special.i1e)
def i1e_forward(x, out, x_dot):
    return (0.5 * (special.i0e(x) + special.ive(2.0, x)) - np.sign(x) * out) * x_dot


@reverse(special.jv, no_derivative=("v",))
def jv_reverse(v, x, out, out_bar):
    return None, out_bar * 0.5 * (special.jv(v - 1.0, x) - special.jv(v + 1.0, x))


@forward(special.jv, no_derivative=("v",))
def jv_forward(v, x, out, v_dot, x_dot):
    return None, 0.5 * (special.jv(v - 1.0, x) - special.jv(v + 1.0, x)) * x_dot


@reverse(special.jv, when="array", no_derivative=("v",))
def jv_reverse_array(v, x, out, out_bar):
    return None, unbroadcast(out_bar * 0.5 * (special.jv(v - 1.0, x) - special.jv(v + 1.0, x)), x)


@forward(special.jv, when="array", no_derivative=("v",))
def jv_forward_array(v, x, out, v_dot, x_dot):
    return None, 0.5 * (special.jv(v - 1.0, x) - special.jv(v + 1.0, x)) * x_dot


@reverse(special.yn, no_derivative=("n",))
def yn_reverse(n, x, out, out_bar):
    return None, out_bar * 0.5 * (special.yn(n - 1, x) - special.yn(n + 1, x))


@forward(special.yn, no_derivative=("n",))
def yn_forward(n, x, out, n_dot, x_dot):
    return None, 0.5 * (special.yn(n - 1, x) - special.yn(n + 1, x)) * x_dot


@reverse(special.yn, when="array", no_derivative=("n",))
def yn_reverse_array(n, x, out, out_bar):
    return None, unbroadcast(out_bar * 0.5 * (special.yn(n - 1, x) - special.yn(n + 1, x)), x)


@forward(special.yn, when="array", no_derivative=("n",))
def yn_forward_array(n, x, out, n_dot, x_dot):
    return None, 0.5 * (special.yn(n - 1, x) - special.yn(n + 1, x)) * x_dot


@reverse(special.iv, no_derivative=("v",))
def iv_reverse(v, x, out, out_bar):
    return None, out_bar * 0.5 * (special.iv(v - 1.0, x) + special.iv(v + 1.0, x))


@forward(special.iv, no_derivative=("v",))
def iv_forward(v, x, out, v_dot, x_dot):
    return None, 0.5 * (special.iv(v - 1.0, x) + special.iv(v + 1.0, x)) * x_dot


@reverse(special.iv, when="array", no_derivative=("v",))
def iv_reverse_array(v, x, out, out_bar):
    return None, unbroadcast(out_bar * 0.5 * (special.iv(v - 1.0, x) + special.iv(v + 1.0, x)), x)


@forward(special.iv, when="array", no_derivative=("v",))
def iv_forward_array(v, x, out, v_dot, x_dot):
    return None, 0.5 * (special.iv(v - 1.0, x) + special.iv(v + 1.0, x)) * x_dot


@reverse(special.ive, no_derivative=("v",))
def ive_reverse(v, x, out, out_bar):
    return None, out_bar * (0.5 * (special.ive(v - 1.0, x) + special.ive(v + 1.0, x))
                            - np.sign(x) * out)


@forward(special.ive, no_derivative=("v",))
def ive_forward(v, x, out, v_dot, x_dot):
    return None, (0.5 * (special.ive(v - 1.0, x) + special.ive(v + 1.0, x))
                  - np.sign(x) * out) * x_dot


@reverse(special.ive, when="array", no_derivative=("v",))
def ive_reverse_array(v, x, out, out_bar):
    return None, unbroadcast(out_bar * (0.5 * (special.ive(v - 1.0, x) + special.ive(v + 1.0, x))
                                        - np.sign(x) * out), x)


@forward(special.ive, when="array", no_derivative=("v",))
def ive_forward_array(v, x, out, v_dot, x_dot):
    return None, (0.5 * (special.ive(v - 1.0, x) + special.ive(v + 1.0, x))
                  - np.sign(x) * out) * x_dot
