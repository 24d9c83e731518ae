"""Rules for ``scipy.stats``: the log-density, density and distribution function of
the common distributions, in the point and in the parameters.

Loaded by `s2sad.primitives` the first time a rule is looked up after ``scipy.stats``
has been imported, as `scipy_special` is. The keys are the methods of SciPy's
distribution objects (``scipy.stats.norm.logpdf``); each takes its parameters by
position or by keyword as SciPy does, ``loc`` and ``scale`` left out meaning 0 and 1
(`registry.Rule.defaults`):

* ``norm.logpdf pdf cdf logcdf(x, loc=0, scale=1)``, in x, loc and scale;
* ``t.logpdf pdf(x, df, loc=0, scale=1)`` in all four, ``t.cdf`` in x, loc, scale;
* ``gamma.logpdf pdf(x, a, loc=0, scale=1)`` in all four, ``gamma.cdf`` in x, loc,
  scale;
* ``beta.logpdf pdf(x, a, b, loc=0, scale=1)`` in all five, ``beta.cdf`` in x,
  loc, scale;
* ``poisson.logpmf pmf cdf(k, mu, loc=0)`` in the mean mu (k and loc are integers);
* ``expon.logpdf``, ``laplace.logpdf``, ``lognorm.logpdf`` and ``norm.logsf``, whose
  rules are in `scipy_stats_more` (this file would be too long), loaded with these;
* ``multivariate_normal.logpdf(x, mean, cov)``, a point (d,) or points (..., d), in
  x, mean and cov. SciPy reads the lower triangle of cov (its upper one may hold
  anything), so cov's adjoint is in the lower triangle, as that of
  ``np.linalg.eigh`` is: for a symmetric parametrisation ``cov = m + m.T`` its
  chain rule gives the symmetric gradient.

The shape parameters of a distribution function (``df`` of ``t.cdf``, ``a`` and ``b``
of ``gamma.cdf`` and ``beta.cdf``) have no closed-form derivative and no rule: their
terms are None, so a call active in them is refused. The rules are written in the
standardised point ``z = (x - loc) / scale``, once for numbers and once for arrays
(whose terms `unbroadcast`), as `scipy_special`'s ``xlogy`` is; their bodies call
only functions with rules of their own (``special.digamma``, ``np.log1p``...), so
second derivatives go through. `tests/test_scipy_rules.py` checks them.
"""

import numpy as np
from scipy import special, stats

from ..runtime import unbroadcast
from .facts import TABLE, Facts
from .registry import FORWARD, REVERSE, add_rule
from .shape_rules import elementwise

_INV_SQRT_2PI = 0.3989422804014327  # 1 / sqrt(2 pi), the standard normal density at 0


def reverse(key, when=None, no_derivative=()):
    def register(func):
        add_rule(REVERSE, "reverse", key, func, when).no_derivative = no_derivative
        return func

    return register


def forward(key, when=None, no_derivative=()):
    def register(func):
        add_rule(FORWARD, "forward", key, func, when).no_derivative = no_derivative
        return func

    return register


# ------------------------------------------------------------------ norm


@reverse(stats.norm.logpdf)
def norm_logpdf_reverse(x, loc=0, scale=1, *, out, out_bar):
    z = (x - loc) / scale
    dz = z / scale
    return -out_bar * dz, out_bar * dz, out_bar * (z * z - 1.0) / scale


@forward(stats.norm.logpdf)
def norm_logpdf_forward(x, loc=0, scale=1, *, out, x_dot, loc_dot, scale_dot):
    z = (x - loc) / scale
    dz = z / scale
    return -dz * x_dot, dz * loc_dot, (z * z - 1.0) / scale * scale_dot


@reverse(stats.norm.logpdf, when="array")
def norm_logpdf_reverse_array(x, loc=0, scale=1, *, out, out_bar):
    z = (x - loc) / scale
    dz = z / scale
    return unbroadcast(-out_bar * dz, x), \
        unbroadcast(out_bar * dz, loc), \
        unbroadcast(out_bar * (z * z - 1.0) / scale, scale)


@forward(stats.norm.logpdf, when="array")
def norm_logpdf_forward_array(x, loc=0, scale=1, *, out, x_dot, loc_dot, scale_dot):
    z = (x - loc) / scale
    dz = z / scale
    return -dz * x_dot, dz * loc_dot, (z * z - 1.0) / scale * scale_dot


@reverse(stats.norm.pdf)
def norm_pdf_reverse(x, loc=0, scale=1, *, out, out_bar):
    z = (x - loc) / scale
    dz = out * z / scale
    return -out_bar * dz, out_bar * dz, out_bar * out * (z * z - 1.0) / scale


@forward(stats.norm.pdf)
def norm_pdf_forward(x, loc=0, scale=1, *, out, x_dot, loc_dot, scale_dot):
    z = (x - loc) / scale
    dz = out * z / scale
    return -dz * x_dot, dz * loc_dot, out * (z * z - 1.0) / scale * scale_dot


@reverse(stats.norm.pdf, when="array")
def norm_pdf_reverse_array(x, loc=0, scale=1, *, out, out_bar):
    z = (x - loc) / scale
    dz = out * z / scale
    return unbroadcast(-out_bar * dz, x), \
        unbroadcast(out_bar * dz, loc), \
        unbroadcast(out_bar * out * (z * z - 1.0) / scale, scale)


@forward(stats.norm.pdf, when="array")
def norm_pdf_forward_array(x, loc=0, scale=1, *, out, x_dot, loc_dot, scale_dot):
    z = (x - loc) / scale
    dz = out * z / scale
    return -dz * x_dot, dz * loc_dot, out * (z * z - 1.0) / scale * scale_dot


@reverse(stats.norm.cdf)
def norm_cdf_reverse(x, loc=0, scale=1, *, out, out_bar):
    z = (x - loc) / scale
    density = np.exp(-0.5 * z * z) * _INV_SQRT_2PI / scale
    return out_bar * density, -out_bar * density, -out_bar * density * z


@forward(stats.norm.cdf)
def norm_cdf_forward(x, loc=0, scale=1, *, out, x_dot, loc_dot, scale_dot):
    z = (x - loc) / scale
    density = np.exp(-0.5 * z * z) * _INV_SQRT_2PI / scale
    return density * x_dot, -density * loc_dot, -density * z * scale_dot


@reverse(stats.norm.cdf, when="array")
def norm_cdf_reverse_array(x, loc=0, scale=1, *, out, out_bar):
    z = (x - loc) / scale
    density = np.exp(-0.5 * z * z) * _INV_SQRT_2PI / scale
    return unbroadcast(out_bar * density, x), \
        unbroadcast(-out_bar * density, loc), \
        unbroadcast(-out_bar * density * z, scale)


@forward(stats.norm.cdf, when="array")
def norm_cdf_forward_array(x, loc=0, scale=1, *, out, x_dot, loc_dot, scale_dot):
    z = (x - loc) / scale
    density = np.exp(-0.5 * z * z) * _INV_SQRT_2PI / scale
    return density * x_dot, -density * loc_dot, -density * z * scale_dot


@reverse(stats.norm.logcdf)
def norm_logcdf_reverse(x, loc=0, scale=1, *, out, out_bar):
    z = (x - loc) / scale
    ratio = np.exp(-0.5 * z * z - out) * _INV_SQRT_2PI / scale
    return out_bar * ratio, -out_bar * ratio, -out_bar * ratio * z


@forward(stats.norm.logcdf)
def norm_logcdf_forward(x, loc=0, scale=1, *, out, x_dot, loc_dot, scale_dot):
    z = (x - loc) / scale
    ratio = np.exp(-0.5 * z * z - out) * _INV_SQRT_2PI / scale
    return ratio * x_dot, -ratio * loc_dot, -ratio * z * scale_dot


@reverse(stats.norm.logcdf, when="array")
def norm_logcdf_reverse_array(x, loc=0, scale=1, *, out, out_bar):
    z = (x - loc) / scale
    ratio = np.exp(-0.5 * z * z - out) * _INV_SQRT_2PI / scale
    return unbroadcast(out_bar * ratio, x), \
        unbroadcast(-out_bar * ratio, loc), \
        unbroadcast(-out_bar * ratio * z, scale)


@forward(stats.norm.logcdf, when="array")
def norm_logcdf_forward_array(x, loc=0, scale=1, *, out, x_dot, loc_dot, scale_dot):
    z = (x - loc) / scale
    ratio = np.exp(-0.5 * z * z - out) * _INV_SQRT_2PI / scale
    return ratio * x_dot, -ratio * loc_dot, -ratio * z * scale_dot


# --------------------------------------------------------------------- t


@reverse(stats.t.logpdf)
def t_logpdf_reverse(x, df, loc=0, scale=1, *, out, out_bar):
    z = (x - loc) / scale
    w = df + z * z
    dz = (df + 1.0) * z / w / scale
    ddf = 0.5 * (special.digamma(0.5 * df + 0.5) - special.digamma(0.5 * df) - 1.0 / df
                 - np.log1p(z * z / df) + (df + 1.0) * z * z / (df * w))
    return -out_bar * dz, \
        out_bar * ddf, \
        out_bar * dz, \
        out_bar * ((df + 1.0) * z * z / w - 1.0) / scale


@forward(stats.t.logpdf)
def t_logpdf_forward(x, df, loc=0, scale=1, *, out, x_dot, df_dot, loc_dot, scale_dot):
    z = (x - loc) / scale
    w = df + z * z
    dz = (df + 1.0) * z / w / scale
    ddf = 0.5 * (special.digamma(0.5 * df + 0.5) - special.digamma(0.5 * df) - 1.0 / df
                 - np.log1p(z * z / df) + (df + 1.0) * z * z / (df * w))
    return -dz * x_dot, \
        ddf * df_dot, \
        dz * loc_dot, \
        ((df + 1.0) * z * z / w - 1.0) / scale * scale_dot


@reverse(stats.t.logpdf, when="array")
def t_logpdf_reverse_array(x, df, loc=0, scale=1, *, out, out_bar):
    z = (x - loc) / scale
    w = df + z * z
    dz = (df + 1.0) * z / w / scale
    ddf = 0.5 * (special.digamma(0.5 * df + 0.5) - special.digamma(0.5 * df) - 1.0 / df
                 - np.log1p(z * z / df) + (df + 1.0) * z * z / (df * w))
    return unbroadcast(-out_bar * dz, x), \
        unbroadcast(out_bar * ddf, df), \
        unbroadcast(out_bar * dz, loc), \
        unbroadcast(out_bar * ((df + 1.0) * z * z / w - 1.0) / scale, scale)


@forward(stats.t.logpdf, when="array")
def t_logpdf_forward_array(x, df, loc=0, scale=1, *, out, x_dot, df_dot, loc_dot, scale_dot):
    z = (x - loc) / scale
    w = df + z * z
    dz = (df + 1.0) * z / w / scale
    ddf = 0.5 * (special.digamma(0.5 * df + 0.5) - special.digamma(0.5 * df) - 1.0 / df
                 - np.log1p(z * z / df) + (df + 1.0) * z * z / (df * w))
    return -dz * x_dot, \
        ddf * df_dot, \
        dz * loc_dot, \
        ((df + 1.0) * z * z / w - 1.0) / scale * scale_dot


@reverse(stats.t.pdf)
def t_pdf_reverse(x, df, loc=0, scale=1, *, out, out_bar):
    z = (x - loc) / scale
    w = df + z * z
    dz = (df + 1.0) * z / w / scale
    ddf = 0.5 * (special.digamma(0.5 * df + 0.5) - special.digamma(0.5 * df) - 1.0 / df
                 - np.log1p(z * z / df) + (df + 1.0) * z * z / (df * w))
    return -out_bar * out * dz, \
        out_bar * out * ddf, \
        out_bar * out * dz, \
        out_bar * out * ((df + 1.0) * z * z / w - 1.0) / scale


@forward(stats.t.pdf)
def t_pdf_forward(x, df, loc=0, scale=1, *, out, x_dot, df_dot, loc_dot, scale_dot):
    z = (x - loc) / scale
    w = df + z * z
    dz = (df + 1.0) * z / w / scale
    ddf = 0.5 * (special.digamma(0.5 * df + 0.5) - special.digamma(0.5 * df) - 1.0 / df
                 - np.log1p(z * z / df) + (df + 1.0) * z * z / (df * w))
    return -out * dz * x_dot, \
        out * ddf * df_dot, \
        out * dz * loc_dot, \
        out * ((df + 1.0) * z * z / w - 1.0) / scale * scale_dot


@reverse(stats.t.pdf, when="array")
def t_pdf_reverse_array(x, df, loc=0, scale=1, *, out, out_bar):
    z = (x - loc) / scale
    w = df + z * z
    dz = (df + 1.0) * z / w / scale
    ddf = 0.5 * (special.digamma(0.5 * df + 0.5) - special.digamma(0.5 * df) - 1.0 / df
                 - np.log1p(z * z / df) + (df + 1.0) * z * z / (df * w))
    return unbroadcast(-out_bar * out * dz, x), \
        unbroadcast(out_bar * out * ddf, df), \
        unbroadcast(out_bar * out * dz, loc), \
        unbroadcast(out_bar * out * ((df + 1.0) * z * z / w - 1.0) / scale, scale)


@forward(stats.t.pdf, when="array")
def t_pdf_forward_array(x, df, loc=0, scale=1, *, out, x_dot, df_dot, loc_dot, scale_dot):
    z = (x - loc) / scale
    w = df + z * z
    dz = (df + 1.0) * z / w / scale
    ddf = 0.5 * (special.digamma(0.5 * df + 0.5) - special.digamma(0.5 * df) - 1.0 / df
                 - np.log1p(z * z / df) + (df + 1.0) * z * z / (df * w))
    return -out * dz * x_dot, \
        out * ddf * df_dot, \
        out * dz * loc_dot, \
        out * ((df + 1.0) * z * z / w - 1.0) / scale * scale_dot


@reverse(stats.t.cdf, no_derivative=("df",))
def t_cdf_reverse(x, df, loc=0, scale=1, *, out, out_bar):
    z = (x - loc) / scale
    density = np.exp(special.gammaln(0.5 * df + 0.5) - special.gammaln(0.5 * df)
                     - 0.5 * np.log(df * np.pi) - (0.5 * df + 0.5) * np.log1p(z * z / df)) / scale
    return out_bar * density, None, -out_bar * density, -out_bar * density * z


@forward(stats.t.cdf, no_derivative=("df",))
def t_cdf_forward(x, df, loc=0, scale=1, *, out, x_dot, df_dot, loc_dot, scale_dot):
    z = (x - loc) / scale
    density = np.exp(special.gammaln(0.5 * df + 0.5) - special.gammaln(0.5 * df)
                     - 0.5 * np.log(df * np.pi) - (0.5 * df + 0.5) * np.log1p(z * z / df)) / scale
    return density * x_dot, None, -density * loc_dot, -density * z * scale_dot


@reverse(stats.t.cdf, when="array", no_derivative=("df",))
def t_cdf_reverse_array(x, df, loc=0, scale=1, *, out, out_bar):
    z = (x - loc) / scale
    density = np.exp(special.gammaln(0.5 * df + 0.5) - special.gammaln(0.5 * df)
                     - 0.5 * np.log(df * np.pi) - (0.5 * df + 0.5) * np.log1p(z * z / df)) / scale
    return unbroadcast(out_bar * density, x), \
        None, \
        unbroadcast(-out_bar * density, loc), \
        unbroadcast(-out_bar * density * z, scale)


@forward(stats.t.cdf, when="array", no_derivative=("df",))
def t_cdf_forward_array(x, df, loc=0, scale=1, *, out, x_dot, df_dot, loc_dot, scale_dot):
    z = (x - loc) / scale
    density = np.exp(special.gammaln(0.5 * df + 0.5) - special.gammaln(0.5 * df)
                     - 0.5 * np.log(df * np.pi) - (0.5 * df + 0.5) * np.log1p(z * z / df)) / scale
    return density * x_dot, None, -density * loc_dot, -density * z * scale_dot


# ----------------------------------------------------------------- gamma


@reverse(stats.gamma.logpdf)
def gamma_logpdf_reverse(x, a, loc=0, scale=1, *, out, out_bar):
    z = (x - loc) / scale
    dz = ((a - 1.0) / z - 1.0) / scale
    return out_bar * dz, \
        out_bar * (np.log(z) - special.digamma(a)), \
        -out_bar * dz, \
        out_bar * (z - a) / scale


@forward(stats.gamma.logpdf)
def gamma_logpdf_forward(x, a, loc=0, scale=1, *, out, x_dot, a_dot, loc_dot, scale_dot):
    z = (x - loc) / scale
    dz = ((a - 1.0) / z - 1.0) / scale
    return dz * x_dot, \
        (np.log(z) - special.digamma(a)) * a_dot, \
        -dz * loc_dot, \
        (z - a) / scale * scale_dot


@reverse(stats.gamma.logpdf, when="array")
def gamma_logpdf_reverse_array(x, a, loc=0, scale=1, *, out, out_bar):
    z = (x - loc) / scale
    dz = ((a - 1.0) / z - 1.0) / scale
    return unbroadcast(out_bar * dz, x), \
        unbroadcast(out_bar * (np.log(z) - special.digamma(a)), a), \
        unbroadcast(-out_bar * dz, loc), \
        unbroadcast(out_bar * (z - a) / scale, scale)


@forward(stats.gamma.logpdf, when="array")
def gamma_logpdf_forward_array(x, a, loc=0, scale=1, *, out, x_dot, a_dot, loc_dot, scale_dot):
    z = (x - loc) / scale
    dz = ((a - 1.0) / z - 1.0) / scale
    return dz * x_dot, \
        (np.log(z) - special.digamma(a)) * a_dot, \
        -dz * loc_dot, \
        (z - a) / scale * scale_dot


@reverse(stats.gamma.pdf)
def gamma_pdf_reverse(x, a, loc=0, scale=1, *, out, out_bar):
    z = (x - loc) / scale
    dz = out * ((a - 1.0) / z - 1.0) / scale
    return out_bar * dz, \
        out_bar * out * (np.log(z) - special.digamma(a)), \
        -out_bar * dz, \
        out_bar * out * (z - a) / scale


@forward(stats.gamma.pdf)
def gamma_pdf_forward(x, a, loc=0, scale=1, *, out, x_dot, a_dot, loc_dot, scale_dot):
    z = (x - loc) / scale
    dz = out * ((a - 1.0) / z - 1.0) / scale
    return dz * x_dot, \
        out * (np.log(z) - special.digamma(a)) * a_dot, \
        -dz * loc_dot, \
        out * (z - a) / scale * scale_dot


@reverse(stats.gamma.pdf, when="array")
def gamma_pdf_reverse_array(x, a, loc=0, scale=1, *, out, out_bar):
    z = (x - loc) / scale
    dz = out * ((a - 1.0) / z - 1.0) / scale
    return unbroadcast(out_bar * dz, x), \
        unbroadcast(out_bar * out * (np.log(z) - special.digamma(a)), a), \
        unbroadcast(-out_bar * dz, loc), \
        unbroadcast(out_bar * out * (z - a) / scale, scale)


@forward(stats.gamma.pdf, when="array")
def gamma_pdf_forward_array(x, a, loc=0, scale=1, *, out, x_dot, a_dot, loc_dot, scale_dot):
    z = (x - loc) / scale
    dz = out * ((a - 1.0) / z - 1.0) / scale
    return dz * x_dot, \
        out * (np.log(z) - special.digamma(a)) * a_dot, \
        -dz * loc_dot, \
        out * (z - a) / scale * scale_dot


@reverse(stats.gamma.cdf, no_derivative=("a",))
def gamma_cdf_reverse(x, a, loc=0, scale=1, *, out, out_bar):
    z = (x - loc) / scale
    density = np.exp((a - 1.0) * np.log(z) - z - special.gammaln(a)) / scale
    return out_bar * density, None, -out_bar * density, -out_bar * density * z


@forward(stats.gamma.cdf, no_derivative=("a",))
def gamma_cdf_forward(x, a, loc=0, scale=1, *, out, x_dot, a_dot, loc_dot, scale_dot):
    z = (x - loc) / scale
    density = np.exp((a - 1.0) * np.log(z) - z - special.gammaln(a)) / scale
    return density * x_dot, None, -density * loc_dot, -density * z * scale_dot


@reverse(stats.gamma.cdf, when="array", no_derivative=("a",))
def gamma_cdf_reverse_array(x, a, loc=0, scale=1, *, out, out_bar):
    z = (x - loc) / scale
    density = np.exp((a - 1.0) * np.log(z) - z - special.gammaln(a)) / scale
    return unbroadcast(out_bar * density, x), \
        None, \
        unbroadcast(-out_bar * density, loc), \
        unbroadcast(-out_bar * density * z, scale)


@forward(stats.gamma.cdf, when="array", no_derivative=("a",))
def gamma_cdf_forward_array(x, a, loc=0, scale=1, *, out, x_dot, a_dot, loc_dot, scale_dot):
    z = (x - loc) / scale
    density = np.exp((a - 1.0) * np.log(z) - z - special.gammaln(a)) / scale
    return density * x_dot, None, -density * loc_dot, -density * z * scale_dot


# ------------------------------------------------------------------ beta


@reverse(stats.beta.logpdf)
def beta_logpdf_reverse(x, a, b, loc=0, scale=1, *, out, out_bar):
    z = (x - loc) / scale
    dz = ((a - 1.0) / z - (b - 1.0) / (1.0 - z)) / scale
    both = special.digamma(a + b)
    return out_bar * dz, \
        out_bar * (np.log(z) - special.digamma(a) + both), \
        out_bar * (np.log1p(-z) - special.digamma(b) + both), \
        -out_bar * dz, \
        -out_bar * (1.0 / scale + z * dz)


@forward(stats.beta.logpdf)
def beta_logpdf_forward(x, a, b, loc=0, scale=1, *,
        out, x_dot, a_dot, b_dot, loc_dot, scale_dot):
    z = (x - loc) / scale
    dz = ((a - 1.0) / z - (b - 1.0) / (1.0 - z)) / scale
    both = special.digamma(a + b)
    return dz * x_dot, \
        (np.log(z) - special.digamma(a) + both) * a_dot, \
        (np.log1p(-z) - special.digamma(b) + both) * b_dot, \
        -dz * loc_dot, \
        -(1.0 / scale + z * dz) * scale_dot


@reverse(stats.beta.logpdf, when="array")
def beta_logpdf_reverse_array(x, a, b, loc=0, scale=1, *, out, out_bar):
    z = (x - loc) / scale
    dz = ((a - 1.0) / z - (b - 1.0) / (1.0 - z)) / scale
    both = special.digamma(a + b)
    return unbroadcast(out_bar * dz, x), \
        unbroadcast(out_bar * (np.log(z) - special.digamma(a) + both), a), \
        unbroadcast(out_bar * (np.log1p(-z) - special.digamma(b) + both), b), \
        unbroadcast(-out_bar * dz, loc), \
        unbroadcast(-out_bar * (1.0 / scale + z * dz), scale)


@forward(stats.beta.logpdf, when="array")
def beta_logpdf_forward_array(x, a, b, loc=0, scale=1, *,
        out, x_dot, a_dot, b_dot, loc_dot, scale_dot):
    z = (x - loc) / scale
    dz = ((a - 1.0) / z - (b - 1.0) / (1.0 - z)) / scale
    both = special.digamma(a + b)
    return dz * x_dot, \
        (np.log(z) - special.digamma(a) + both) * a_dot, \
        (np.log1p(-z) - special.digamma(b) + both) * b_dot, \
        -dz * loc_dot, \
        -(1.0 / scale + z * dz) * scale_dot


@reverse(stats.beta.pdf)
def beta_pdf_reverse(x, a, b, loc=0, scale=1, *, out, out_bar):
    z = (x - loc) / scale
    dz = ((a - 1.0) / z - (b - 1.0) / (1.0 - z)) / scale
    both = special.digamma(a + b)
    return out_bar * out * dz, \
        out_bar * out * (np.log(z) - special.digamma(a) + both), \
        out_bar * out * (np.log1p(-z) - special.digamma(b) + both), \
        -out_bar * out * dz, \
        -out_bar * out * (1.0 / scale + z * dz)


@forward(stats.beta.pdf)
def beta_pdf_forward(x, a, b, loc=0, scale=1, *, out, x_dot, a_dot, b_dot, loc_dot, scale_dot):
    z = (x - loc) / scale
    dz = ((a - 1.0) / z - (b - 1.0) / (1.0 - z)) / scale
    both = special.digamma(a + b)
    return out * dz * x_dot, \
        out * (np.log(z) - special.digamma(a) + both) * a_dot, \
        out * (np.log1p(-z) - special.digamma(b) + both) * b_dot, \
        -out * dz * loc_dot, \
        -out * (1.0 / scale + z * dz) * scale_dot


@reverse(stats.beta.pdf, when="array")
def beta_pdf_reverse_array(x, a, b, loc=0, scale=1, *, out, out_bar):
    z = (x - loc) / scale
    dz = ((a - 1.0) / z - (b - 1.0) / (1.0 - z)) / scale
    both = special.digamma(a + b)
    return unbroadcast(out_bar * out * dz, x), \
        unbroadcast(out_bar * out * (np.log(z) - special.digamma(a) + both), a), \
        unbroadcast(out_bar * out * (np.log1p(-z) - special.digamma(b) + both), b), \
        unbroadcast(-out_bar * out * dz, loc), \
        unbroadcast(-out_bar * out * (1.0 / scale + z * dz), scale)


@forward(stats.beta.pdf, when="array")
def beta_pdf_forward_array(x, a, b, loc=0, scale=1, *,
        out, x_dot, a_dot, b_dot, loc_dot, scale_dot):
    z = (x - loc) / scale
    dz = ((a - 1.0) / z - (b - 1.0) / (1.0 - z)) / scale
    both = special.digamma(a + b)
    return out * dz * x_dot, \
        out * (np.log(z) - special.digamma(a) + both) * a_dot, \
        out * (np.log1p(-z) - special.digamma(b) + both) * b_dot, \
        -out * dz * loc_dot, \
        -out * (1.0 / scale + z * dz) * scale_dot


@reverse(stats.beta.cdf, no_derivative=("a", "b"))
def beta_cdf_reverse(x, a, b, loc=0, scale=1, *, out, out_bar):
    z = (x - loc) / scale
    density = np.exp((a - 1.0) * np.log(z) + (b - 1.0) * np.log1p(-z)
                     - special.betaln(a, b)) / scale
    return out_bar * density, None, None, -out_bar * density, -out_bar * density * z


@forward(stats.beta.cdf, no_derivative=("a", "b"))
def beta_cdf_forward(x, a, b, loc=0, scale=1, *, out, x_dot, a_dot, b_dot, loc_dot, scale_dot):
    z = (x - loc) / scale
    density = np.exp((a - 1.0) * np.log(z) + (b - 1.0) * np.log1p(-z)
                     - special.betaln(a, b)) / scale
    return density * x_dot, None, None, -density * loc_dot, -density * z * scale_dot


@reverse(stats.beta.cdf, when="array", no_derivative=("a", "b"))
def beta_cdf_reverse_array(x, a, b, loc=0, scale=1, *, out, out_bar):
    z = (x - loc) / scale
    density = np.exp((a - 1.0) * np.log(z) + (b - 1.0) * np.log1p(-z)
                     - special.betaln(a, b)) / scale
    return unbroadcast(out_bar * density, x), \
        None, \
        None, \
        unbroadcast(-out_bar * density, loc), \
        unbroadcast(-out_bar * density * z, scale)


@forward(stats.beta.cdf, when="array", no_derivative=("a", "b"))
def beta_cdf_forward_array(x, a, b, loc=0, scale=1, *,
        out, x_dot, a_dot, b_dot, loc_dot, scale_dot):
    z = (x - loc) / scale
    density = np.exp((a - 1.0) * np.log(z) + (b - 1.0) * np.log1p(-z)
                     - special.betaln(a, b)) / scale
    return density * x_dot, None, None, -density * loc_dot, -density * z * scale_dot


# --------------------------------------------------------------- poisson


@reverse(stats.poisson.logpmf, no_derivative=("k", "loc"))
def poisson_logpmf_reverse(k, mu, loc=0, *, out, out_bar):
    return None, out_bar * ((k - loc) / mu - 1.0), None


@forward(stats.poisson.logpmf, no_derivative=("k", "loc"))
def poisson_logpmf_forward(k, mu, loc=0, *, out, k_dot, mu_dot, loc_dot):
    return None, ((k - loc) / mu - 1.0) * mu_dot, None


@reverse(stats.poisson.logpmf, when="array", no_derivative=("k", "loc"))
def poisson_logpmf_reverse_array(k, mu, loc=0, *, out, out_bar):
    return None, unbroadcast(out_bar * ((k - loc) / mu - 1.0), mu), None


@forward(stats.poisson.logpmf, when="array", no_derivative=("k", "loc"))
def poisson_logpmf_forward_array(k, mu, loc=0, *, out, k_dot, mu_dot, loc_dot):
    return None, ((k - loc) / mu - 1.0) * mu_dot, None


@reverse(stats.poisson.pmf, no_derivative=("k", "loc"))
def poisson_pmf_reverse(k, mu, loc=0, *, out, out_bar):
    return None, out_bar * out * ((k - loc) / mu - 1.0), None


@forward(stats.poisson.pmf, no_derivative=("k", "loc"))
def poisson_pmf_forward(k, mu, loc=0, *, out, k_dot, mu_dot, loc_dot):
    return None, out * ((k - loc) / mu - 1.0) * mu_dot, None


@reverse(stats.poisson.pmf, when="array", no_derivative=("k", "loc"))
def poisson_pmf_reverse_array(k, mu, loc=0, *, out, out_bar):
    return None, unbroadcast(out_bar * out * ((k - loc) / mu - 1.0), mu), None


@forward(stats.poisson.pmf, when="array", no_derivative=("k", "loc"))
def poisson_pmf_forward_array(k, mu, loc=0, *, out, k_dot, mu_dot, loc_dot):
    return None, out * ((k - loc) / mu - 1.0) * mu_dot, None


@reverse(stats.poisson.cdf, no_derivative=("k", "loc"))
def poisson_cdf_reverse(k, mu, loc=0, *, out, out_bar):
    n = np.floor(k - loc)
    return None, -out_bar * np.exp(special.xlogy(n, mu) - mu - special.gammaln(n + 1.0)), None


@forward(stats.poisson.cdf, no_derivative=("k", "loc"))
def poisson_cdf_forward(k, mu, loc=0, *, out, k_dot, mu_dot, loc_dot):
    n = np.floor(k - loc)
    return None, -np.exp(special.xlogy(n, mu) - mu - special.gammaln(n + 1.0)) * mu_dot, None


@reverse(stats.poisson.cdf, when="array", no_derivative=("k", "loc"))
def poisson_cdf_reverse_array(k, mu, loc=0, *, out, out_bar):
    n = np.floor(k - loc)
    return None, \
        unbroadcast(-out_bar * np.exp(special.xlogy(n, mu) - mu - special.gammaln(n + 1.0)), mu), \
        None


@forward(stats.poisson.cdf, when="array", no_derivative=("k", "loc"))
def poisson_cdf_forward_array(k, mu, loc=0, *, out, k_dot, mu_dot, loc_dot):
    n = np.floor(k - loc)
    return None, -np.exp(special.xlogy(n, mu) - mu - special.gammaln(n + 1.0)) * mu_dot, None



# --------------------------------------------------- multivariate normal
# (with r = x - mean and s = cov^-1 r, row by row: logpdf = -(d log 2 pi + log det cov
# + r.s) / 2, so x's derivative is -s, mean's s, and cov's (s s^T - cov^-1) / 2, its
# symmetric adjoint g folded into the lower triangle SciPy reads: g + g.T there, the
# diagonal once. Both rules read cov as SciPy does, its lower triangle mirrored: the
# upper one changes nothing, not even the second derivative. The points, of any rank, are solved as the columns of one (d, n)
# matrix: solve(cov, r.T) of points (n1, d, d) would read r.T (d, d, n1) as a stack
# of d matrices, a wrong s and no error)


@reverse(stats.multivariate_normal.logpdf)
def multivariate_normal_logpdf_reverse(x, mean, cov, out, out_bar):
    n = cov.shape[-1]
    cov = np.tril(cov) + np.tril(cov, -1).T  # (what SciPy reads: the lower triangle)
    r = x - mean
    s = np.reshape(np.linalg.solve(cov, np.reshape(r, (-1, n)).T).T, np.shape(r))
    gs = np.expand_dims(out_bar, -1) * s
    g = 0.5 * (np.reshape(s, (-1, n)).T @ np.reshape(gs, (-1, n))
               - np.sum(out_bar) * np.linalg.inv(cov))
    return -gs, unbroadcast(gs, mean), (g + g.T) * np.tri(n) - g * np.eye(n)


@forward(stats.multivariate_normal.logpdf)
def multivariate_normal_logpdf_forward(x, mean, cov, out, x_dot, mean_dot, cov_dot):
    n = cov.shape[-1]
    cov = np.tril(cov) + np.tril(cov, -1).T  # (what SciPy reads: the lower triangle)
    r = x - mean
    s = np.reshape(np.linalg.solve(cov, np.reshape(r, (-1, n)).T).T, np.shape(r))
    # (the symmetric matrix cov_dot's lower triangle stands for)
    c = cov_dot * np.tri(n) + (cov_dot * (np.tri(n) - np.eye(n))).T
    return -np.sum(s * x_dot, axis=-1), np.sum(s * mean_dot, axis=-1), \
        -0.5 * (np.sum(np.linalg.inv(cov) * c) - np.sum((s @ c) * s, axis=-1))


def _points(a):
    """The shape of ``multivariate_normal.logpdf``'s result: x's without its last axis."""
    x = a.shapes[0] if a.shapes else None
    return None if x is None else tuple(x[:-1])


# (the elementwise ones broadcast their inputs, as ufuncs do)
TABLE.update({key: Facts(shape=elementwise) for key in (
    stats.norm.logpdf, stats.norm.pdf, stats.norm.cdf, stats.norm.logcdf, stats.t.logpdf,
    stats.t.pdf, stats.t.cdf, stats.gamma.logpdf, stats.gamma.pdf, stats.gamma.cdf,
    stats.beta.logpdf, stats.beta.pdf, stats.beta.cdf, stats.poisson.logpmf,
    stats.poisson.pmf, stats.poisson.cdf)})
TABLE[stats.multivariate_normal.logpdf] = Facts(shape=_points, number=True)
