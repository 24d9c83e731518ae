"""The ``scipy.stats`` rules (`s2sad.primitives.scipy_stats`) row by row, as
`test_rules.py` checks the built-in tables (central differences on the
distributions' domains with their edges, the dot-product pairing, the inlined
template), and in use: parameters by position and by keyword, left out, second
derivatives. Skipped without SciPy."""

import random

import numpy as np
import pytest

stats = pytest.importorskip("scipy.stats")

import s2sad  # noqa: E402
from s2sad import primitives as rules  # noqa: E402
import rule_suite  # noqa: E402

rules.candidates(stats.norm.logpdf)  # the rules load once scipy.stats is imported
from s2sad.primitives import scipy_stats  # noqa: E402


def ids(pairs):
    return [f"{r.func.__name__}" for k, r in pairs]


REV, FWD = rule_suite.tables(scipy_stats)


arr = rule_suite.arr


# per distribution: the ranges of the parameters after x (loc and scale last), and of
# the standardised point z; then points at the edges: (z, parameters...)
PARAMETERS = {
    "norm": ([], (-3.0, 3.0),
             [(-8.0,), (8.0,), (-30.0,), (0.0,)]),
    "t": ([(1.0, 30.0)], (-3.0, 3.0),
          [(-40.0, 0.5), (40.0, 3.0), (0.0, 2.0), (2.0, 300.0)]),
    "gamma": ([(0.5, 4.0)], (0.1, 6.0),
              [(0.02, 0.5), (0.02, 3.0), (25.0, 2.0), (1.0, 0.05)]),
    "beta": ([(0.5, 4.0), (0.5, 4.0)], (0.05, 0.95),
             [(0.01, 0.5, 3.0), (0.99, 3.0, 0.5), (0.5, 0.05, 0.05), (0.3, 40.0, 60.0)]),
}


def distribution(key):
    return next(name for name in PARAMETERS if getattr(stats, name) is key.__self__)


def examples(key, rule):
    if rule.func.__module__ != scipy_stats.__name__:
        raise KeyError(key)
    r = random.Random(11)
    if key == stats.multivariate_normal.logpdf:
        m = np.array([[1.2, 0.3, -0.2], [0.1, 0.9, 0.4], [0.0, -0.3, 1.1]])
        cov = m @ m.T + 0.2 * np.eye(3)
        lopsided = np.diag([1e-2, 1.0, 30.0]) + 0.001
        return [([arr(r, (3,), -1, 1), arr(r, (3,), -1, 1), cov], {}),
                ([arr(r, (4, 3), -1, 1), arr(r, (3,), -1, 1), cov], {}),
                ([arr(r, (2, 3), -1, 1), arr(r, (3,), -1, 1), lopsided], {}),
                ([np.array([6.0, -5.0, 7.0]), np.zeros(3), cov], {}),
                # (an upper triangle SciPy does not read: nor does the derivative)
                ([arr(r, (3,), -1, 1), arr(r, (3,), -1, 1), cov + np.triu(cov + 0.7, 1)], {})]
    if key.__self__ is stats.poisson:
        if rule.when == "array":
            return [([np.array([0, 1, 4, 9]), arr(r, (4,), 0.3, 6.0), 0], {}),
                    ([np.array([[0], [3]]), arr(r, (4,), 0.3, 6.0), 0], {}),
                    ([np.array([2, 5]), 1.7, 1], {}), ([np.array([0, 3]), 0.01, 0], {})]
        return [([k, r.uniform(0.3, 6.0), 0], {}) for k in (0, 1, 4, 12)] + \
            [([0, 0.01, 0], {}), ([3, 0.01, 0], {}), ([30, 25.0, 0], {}), ([5, 2.5, 2], {})]
    name = distribution(key)
    cases = rule_suite.location_scale_examples(r, PARAMETERS[name], rule.when == "array")
    if rule.when == "array":
        return cases
    edges = PARAMETERS[name][2]
    cases.append(([edges[0][0] * 0.05 + 0.1, *edges[0][1:], 0.1, 0.05], {}))  # (a small scale)
    return cases


def test_every_function_has_both_rules_in_the_same_form():
    expected = {getattr(getattr(stats, d), f) for d, fs in (
        ("norm", ("logpdf", "pdf", "cdf", "logcdf")), ("t", ("logpdf", "pdf", "cdf")),
        ("gamma", ("logpdf", "pdf", "cdf")), ("beta", ("logpdf", "pdf", "cdf")),
        ("poisson", ("logpmf", "pmf", "cdf")), ("multivariate_normal", ("logpdf",)))
        for f in fs}
    assert expected == {key for key, _ in REV}
    rev = [(k, r.arity, r.when, r.differentiable, tuple(r.options), r.defaults) for k, r in REV]
    fwd = [(k, r.arity, r.when, r.differentiable, tuple(r.options), r.defaults) for k, r in FWD]
    assert rev == fwd


(test_reverse_rule_matches_central_differences, test_forward_rule_matches_central_differences, test_dot_product,
 test_inlined_template_equals_rule) = rule_suite.checks(REV, FWD, ids, examples, 2)


# ------------------------------------------------------------------ in use


def normal_nll(x, mu, sigma):
    return -np.sum(stats.norm.logpdf(x, mu, sigma))


def normal_nll_by_keyword(x, mu, sigma):
    return -np.sum(stats.norm.logpdf(x, loc=mu, scale=sigma))


def scale_only(x, sigma):
    return np.sum(stats.norm.logpdf(x, scale=sigma) + stats.norm.cdf(x))


def mixture(x, df, a, b):
    return np.sum(stats.t.logpdf(x, df) + stats.gamma.logpdf(x + 3.0, a, scale=2.0)
                  + stats.beta.logpdf(stats.norm.cdf(x), a, b) + stats.norm.logcdf(x, 0.5))


def poisson_loss(rate):
    counts = np.array([0, 2, 5])
    return -np.sum(stats.poisson.logpmf(counts, rate)) + stats.poisson.cdf(3, rate[0])


def gaussian_fit(x, mean, m):
    return np.sum(stats.multivariate_normal.logpdf(x, mean, m @ m.T + np.eye(2)))


def test_parameters_by_position_by_keyword_and_left_out():
    x = np.array([0.3, -1.2, 2.0])
    by_position = s2sad.grad(normal_nll, wrt=(0, 1, 2))(x, 0.4, 1.5)
    by_keyword = s2sad.grad(normal_nll_by_keyword, wrt=(0, 1, 2))(x, 0.4, 1.5)
    for a, b in zip(by_position, by_keyword):
        assert np.allclose(a, b)
    z = (x - 0.4) / 1.5
    assert np.allclose(by_position[0], z / 1.5)
    assert by_position[1] == pytest.approx(-np.sum(z) / 1.5)
    assert by_position[2] == pytest.approx(-np.sum(z * z - 1.0) / 1.5)
    assert s2sad.check(scale_only, x, 0.7, wrt=(0, 1)).ok


def test_compiled_code_agrees_with_the_engines_to_second_order():
    x = np.array([0.3, -1.2, 0.8])
    for order in (1, 2):
        assert s2sad.check(mixture, x, 4.0, 2.5, 1.5, wrt=(0, 1, 2, 3), order=order).ok
        assert s2sad.check(poisson_loss, np.array([1.5, 2.0, 3.0]), order=order).ok
    points, mean = np.array([[0.1, 0.4], [1.0, -0.3], [0.2, 0.2]]), np.array([0.3, 0.1])
    m = np.array([[1.0, 0.2], [-0.3, 0.8]])
    for order in (1, 2):
        assert s2sad.check(gaussian_fit, points, mean, m, wrt=(0, 1, 2), order=order).ok


def test_the_covariance_is_read_by_its_lower_triangle_to_second_order():
    """SciPy reads `cov`'s lower triangle: the gradient is that of the matrix it
    mirrors, and the Hessian has no entry along the upper triangle, at a symmetric
    `cov` too (where the rules once solved with the matrix as given)."""
    def f(c):
        return stats.multivariate_normal.logpdf(np.array([0.5, 2.0]), np.zeros(2), c)

    lopsided = np.array([[2.0, 0.9], [0.3, 1.0]])
    want = np.array([[-0.26040953, 0.0], [0.05153368, 1.50797676]])
    for mode in ("reverse", "forward"):
        np.testing.assert_allclose(s2sad.grad(f, mode=mode)(lopsided), want, rtol=1e-6)
    sym = np.array([[2.0, 0.3], [0.3, 1.0]])
    h, eps = s2sad.hessian(f)(sym), 1e-5
    for i in np.ndindex(2, 2):
        step = np.zeros((2, 2))
        step[i] = eps
        np.testing.assert_allclose(
            h[(slice(None), slice(None)) + i],
            (s2sad.grad(f)(sym + step) - s2sad.grad(f)(sym - step)) / (2 * eps), atol=1e-7)


def test_hessian_of_a_negative_log_likelihood():
    x = np.array([0.3, -1.2, 2.0])
    h = s2sad.hessian(lambda_free_nll)(np.array([0.4, 1.5]), x)
    mu, sigma = 0.4, 1.5
    n, r = len(x), x - mu
    expected = np.array([[n / sigma**2, 2 * np.sum(r) / sigma**3],
                         [2 * np.sum(r) / sigma**3, -n / sigma**2 + 3 * np.sum(r * r) / sigma**4]])
    assert np.allclose(h, expected)


def lambda_free_nll(theta, x):
    return -np.sum(stats.norm.logpdf(x, theta[0], theta[1]))


def test_the_emitted_code_reads_like_the_rules():
    text = s2sad.source(normal_nll, wrt=(1, 2), example=(np.ones(3), 0.0, 1.0))
    assert "unbroadcast" in text and "stats.norm.logpdf(x, mu, sigma)" in text
    text = s2sad.source(normal_nll, wrt=(0,), example=(np.ones(3), np.zeros(3), np.ones(3)))
    assert "unbroadcast" not in text  # one shape throughout
    text = s2sad.source(normal_nll, wrt=(0,), example=(0.5, 0.0, 1.0))
    assert "unbroadcast" not in text


def test_a_shape_parameter_of_a_distribution_function_has_no_derivative():
    """Refused at the user's line, never taken as a constant (a derivative of 0)."""
    for f in (t_cdf_in_df, gamma_cdf_in_a):
        with pytest.raises(s2sad.NoRuleError, match="with respect to its argument") as info:
            s2sad.grad(f)(3.0)
        assert "test_scipy_stats_rules.py" in str(info.value)
    assert s2sad.grad(gamma_cdf_in_x)(3.0) == pytest.approx(stats.gamma.pdf(3.0, 2.0))


def t_cdf_in_df(df):
    return stats.t.cdf(0.5, df) * 2.0


def gamma_cdf_in_a(a):
    return stats.gamma.cdf(2.0, a)


def gamma_cdf_in_x(x):
    return stats.gamma.cdf(x, 2.0)
