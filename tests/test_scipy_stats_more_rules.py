"""The rules of `s2sad.primitives.scipy_stats_more` (``expon.logpdf``,
``laplace.logpdf``, ``lognorm.logpdf``, ``norm.logsf``) row by row, as
tests/test_scipy_stats_rules.py checks `scipy_stats`' (central differences on the
support with points near its edges and far in the tail, the dot-product pairing, the
inlined template), and in use. Skipped without SciPy."""

import random

import numpy as np
import pytest

stats = pytest.importorskip("scipy.stats")

import s2sad  # noqa: E402
from s2sad import primitives as rules  # noqa: E402
import rule_suite  # noqa: E402
from helpers import central_diff  # noqa: E402

rules.candidates(stats.norm.logpdf)  # the rules load once scipy.stats is imported
from s2sad.primitives import scipy_stats_more  # noqa: E402

REV, FWD = rule_suite.tables(scipy_stats_more)


def ids(pairs):
    return [f"{r.func.__name__}" for k, r in pairs]


arr = rule_suite.arr


# per distribution: the ranges of its shape parameters, of the standardised point z,
# and points (z, shape parameters...) near the edges of the support or far out
PARAMETERS = {
    "expon": ([], (0.05, 5.0), [(1e-3,), (30.0,)]),
    "laplace": ([], (0.2, 4.0), [(-20.0,), (20.0,), (1e-3,)]),  # (|z| away from the kink)
    "lognorm": ([(0.3, 2.0)], (0.1, 5.0), [(1e-3, 0.5), (50.0, 1.5), (1.0, 0.05)]),
    "norm": ([], (-3.0, 3.0), [(-8.0,), (8.0,), (30.0,), (0.0,)]),
}


def distribution(key):
    return next(name for name in PARAMETERS if getattr(stats, name) is key.__self__)


def points(r, name, shape, lo, hi):
    """z on the range, either sign for laplace (whose support is the whole line)."""
    z = arr(r, shape, lo, hi)
    return z * np.where(arr(r, shape, 0, 1) > 0.5, 1, -1) if name == "laplace" else z


def examples(key, rule):
    name = distribution(key)
    return rule_suite.location_scale_examples(
        random.Random(13), PARAMETERS[name], rule.when == "array",
        lambda r, shape, lo, hi: points(r, name, shape, lo, hi))


def test_every_function_has_both_rules_in_the_same_form():
    assert {key for key, _ in REV} == {stats.expon.logpdf, stats.laplace.logpdf,
                                       stats.lognorm.logpdf, stats.norm.logsf}
    rev = [(k, r.arity, r.when, r.differentiable, tuple(r.options), r.defaults) for k, r in REV]
    fwd = [(k, r.arity, r.when, r.differentiable, tuple(r.options), r.defaults) for k, r in FWD]
    assert rev == fwd


(test_reverse_rule_matches_central_differences, test_forward_rule_matches_central_differences,
 test_dot_product, test_inlined_template_equals_rule) = rule_suite.checks(REV, FWD, ids, examples, 2)


# ------------------------------------------------------------------ in use


def likelihoods(theta, x):
    loc, scale, s = theta
    return np.sum(stats.expon.logpdf(x + 2.0, loc, scale)) \
        + np.sum(stats.laplace.logpdf(x, loc, scale)) \
        + np.sum(stats.lognorm.logpdf(x + 2.0, s, scale=scale)) \
        + np.sum(stats.norm.logsf(x, loc=loc, scale=scale)) + stats.norm.logsf(x[0])


def test_gradients_and_hessians_in_the_parameters_and_the_points():
    theta, x = np.array([0.2, 1.3, 0.7]), np.array([0.3, -1.2, 0.8, 2.4])
    for i, at in enumerate((theta, x)):
        want = central_diff(likelihoods, (theta, x), i)
        for mode in ("reverse", "forward"):
            got = s2sad.grad(likelihoods, wrt=i, mode=mode)(theta, x)
            assert np.allclose(got, want, rtol=1e-6, atol=1e-8), (i, mode)
    grad = s2sad.grad(likelihoods)
    numeric = np.array([central_diff(lambda t: grad(t, x)[k], (theta,), 0) for k in range(3)])
    assert np.allclose(s2sad.hessian(likelihoods)(theta, x), numeric, rtol=1e-5, atol=1e-6)
