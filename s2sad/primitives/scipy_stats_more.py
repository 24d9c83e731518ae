"""More rules for ``scipy.stats``, in the form of `scipy_stats`, loaded after it once
``scipy.stats`` is imported (`registry.OPTIONAL` names both):

* ``expon.logpdf(x, loc=0, scale=1)``, ``laplace.logpdf(x, loc=0, scale=1)`` and
  ``norm.logsf(x, loc=0, scale=1)``, in x, loc and scale;
* ``lognorm.logpdf(x, s, loc=0, scale=1)`` in all four.

Each is written in the standardised point ``z = (x - loc) / scale``, once for numbers
and once for arrays (whose terms `unbroadcast`), on the distribution's support (where
the log-density is finite: ``z > 0`` for ``expon`` and ``lognorm``). ``laplace``'s
derivative in x at ``x == loc``, its kink, is 0, as ``abs``'s is at 0. ``norm.logsf``
reads its own result (``exp(-z**2 / 2 - out)``, as ``norm.logcdf``'s rule does), so it
holds far in the tail, where ``sf`` itself is 0. Their bodies call only functions
with rules, so second derivatives go through. `tests/test_scipy_stats_more_rules.py`
checks them.
"""

import numpy as np
from scipy import stats

from ..runtime import unbroadcast
from .facts import TABLE, Facts
from .scipy_stats import forward, reverse
from .shape_rules import elementwise

_INV_SQRT_2PI = 0.3989422804014327  # 1 / sqrt(2 pi), the standard normal density at 0


# ----------------------------------------------------------------- expon


@reverse(stats.expon.logpdf)
def expon_logpdf_reverse(x, loc=0, scale=1, *, out, out_bar):
    z = (x - loc) / scale
    return -out_bar / scale, out_bar / scale, out_bar * (z - 1.0) / scale


@forward(stats.expon.logpdf)
def expon_logpdf_forward(x, loc=0, scale=1, *, out, x_dot, loc_dot, scale_dot):
    z = (x - loc) / scale
    return -x_dot / scale, loc_dot / scale, (z - 1.0) / scale * scale_dot


@reverse(stats.expon.logpdf, when="array")
def expon_logpdf_reverse_array(x, loc=0, scale=1, *, out, out_bar):
    z = (x - loc) / scale
    return unbroadcast(-out_bar / scale, x), \
        unbroadcast(out_bar / scale, loc), \
        unbroadcast(out_bar * (z - 1.0) / scale, scale)


@forward(stats.expon.logpdf, when="array")
def expon_logpdf_forward_array(x, loc=0, scale=1, *, out, x_dot, loc_dot, scale_dot):
    z = (x - loc) / scale
    return -x_dot / scale, loc_dot / scale, (z - 1.0) / scale * scale_dot


# --------------------------------------------------------------- laplace


@reverse(stats.laplace.logpdf)
def laplace_logpdf_reverse(x, loc=0, scale=1, *, out, out_bar):
    z = (x - loc) / scale
    dz = np.sign(z) / scale
    return -out_bar * dz, out_bar * dz, out_bar * (np.abs(z) - 1.0) / scale


@forward(stats.laplace.logpdf)
def laplace_logpdf_forward(x, loc=0, scale=1, *, out, x_dot, loc_dot, scale_dot):
    z = (x - loc) / scale
    dz = np.sign(z) / scale
    return -dz * x_dot, dz * loc_dot, (np.abs(z) - 1.0) / scale * scale_dot


@reverse(stats.laplace.logpdf, when="array")
def laplace_logpdf_reverse_array(x, loc=0, scale=1, *, out, out_bar):
    z = (x - loc) / scale
    dz = np.sign(z) / scale
    return unbroadcast(-out_bar * dz, x), \
        unbroadcast(out_bar * dz, loc), \
        unbroadcast(out_bar * (np.abs(z) - 1.0) / scale, scale)


@forward(stats.laplace.logpdf, when="array")
def laplace_logpdf_forward_array(x, loc=0, scale=1, *, out, x_dot, loc_dot, scale_dot):
    z = (x - loc) / scale
    dz = np.sign(z) / scale
    return -dz * x_dot, dz * loc_dot, (np.abs(z) - 1.0) / scale * scale_dot


# --------------------------------------------------------------- lognorm
# (with y = (x - loc) / scale and u = log y: logpdf = -log s - u - u**2 / (2 s**2)
# - log(scale) - log(2 pi) / 2, so x's derivative is -(1 + u / s**2) / (y scale),
# loc's its negative, scale's u / (s**2 scale) and s's (u**2 / s**2 - 1) / s)


@reverse(stats.lognorm.logpdf)
def lognorm_logpdf_reverse(x, s, loc=0, scale=1, *, out, out_bar):
    y = (x - loc) / scale
    u = np.log(y) / (s * s)
    dy = (1.0 + u) / (y * scale)
    return -out_bar * dy, \
        out_bar * (u * np.log(y) - 1.0) / s, \
        out_bar * dy, \
        out_bar * u / scale


@forward(stats.lognorm.logpdf)
def lognorm_logpdf_forward(x, s, loc=0, scale=1, *, out, x_dot, s_dot, loc_dot, scale_dot):
    y = (x - loc) / scale
    u = np.log(y) / (s * s)
    dy = (1.0 + u) / (y * scale)
    return -dy * x_dot, (u * np.log(y) - 1.0) / s * s_dot, dy * loc_dot, u / scale * scale_dot


@reverse(stats.lognorm.logpdf, when="array")
def lognorm_logpdf_reverse_array(x, s, loc=0, scale=1, *, out, out_bar):
    y = (x - loc) / scale
    u = np.log(y) / (s * s)
    dy = (1.0 + u) / (y * scale)
    return unbroadcast(-out_bar * dy, x), \
        unbroadcast(out_bar * (u * np.log(y) - 1.0) / s, s), \
        unbroadcast(out_bar * dy, loc), \
        unbroadcast(out_bar * u / scale, scale)


@forward(stats.lognorm.logpdf, when="array")
def lognorm_logpdf_forward_array(x, s, loc=0, scale=1, *, out, x_dot, s_dot, loc_dot,
                                 scale_dot):
    y = (x - loc) / scale
    u = np.log(y) / (s * s)
    dy = (1.0 + u) / (y * scale)
    return -dy * x_dot, (u * np.log(y) - 1.0) / s * s_dot, dy * loc_dot, u / scale * scale_dot


# ------------------------------------------------------------- norm.logsf
# (log(1 - cdf(z)): its derivative in z is -pdf(z) / sf(z) = -exp(-z**2 / 2 - out) /
# sqrt(2 pi), read from the result, finite far in the tail)


@reverse(stats.norm.logsf)
def norm_logsf_reverse(x, loc=0, scale=1, *, out, out_bar):
    z = (x - loc) / scale
    ratio = np.exp(-0.5 * z * z - out) * _INV_SQRT_2PI / scale
    return -out_bar * ratio, out_bar * ratio, out_bar * ratio * z


@forward(stats.norm.logsf)
def norm_logsf_forward(x, loc=0, scale=1, *, out, x_dot, loc_dot, scale_dot):
    z = (x - loc) / scale
    ratio = np.exp(-0.5 * z * z - out) * _INV_SQRT_2PI / scale
    return -ratio * x_dot, ratio * loc_dot, ratio * z * scale_dot


@reverse(stats.norm.logsf, when="array")
def norm_logsf_reverse_array(x, loc=0, scale=1, *, out, out_bar):
    z = (x - loc) / scale
    ratio = np.exp(-0.5 * z * z - out) * _INV_SQRT_2PI / scale
    return unbroadcast(-out_bar * ratio, x), \
        unbroadcast(out_bar * ratio, loc), \
        unbroadcast(out_bar * ratio * z, scale)


@forward(stats.norm.logsf, when="array")
def norm_logsf_forward_array(x, loc=0, scale=1, *, out, x_dot, loc_dot, scale_dot):
    z = (x - loc) / scale
    ratio = np.exp(-0.5 * z * z - out) * _INV_SQRT_2PI / scale
    return -ratio * x_dot, ratio * loc_dot, ratio * z * scale_dot


# (they broadcast their inputs, as ufuncs do)
TABLE.update({key: Facts(shape=elementwise) for key in (
    stats.expon.logpdf, stats.laplace.logpdf, stats.lognorm.logpdf, stats.norm.logsf)})
