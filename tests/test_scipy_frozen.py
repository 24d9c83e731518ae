"""SciPy's frozen distributions (``stats.norm(mu, sigma).logpdf(x)``, ``dist =
stats.t(df, loc)`` then ``dist.logpdf(x)``), which the frontend reads as the
distribution's own methods (s2sad.frontend.frozen): the derivative in each
parameter against central differences in both modes and the engines, a parameter
changed after freezing, a Hessian, and what is not followed (refused at its line)."""

import numpy as np
import pytest

stats = pytest.importorskip("scipy.stats")

import s2sad  # noqa: E402
from s2sad.engines import dual_grad, tape_grad  # noqa: E402
from helpers import central_diff  # noqa: E402

norm = stats.norm
X = np.array([0.15, 0.4, 0.85])


def inline(x, mu, sigma):
    return (np.sum(stats.norm(mu, sigma).logpdf(x)) + np.sum(norm(loc=mu, scale=sigma).cdf(x))
            + np.sum(stats.t(3.0 + sigma, mu, sigma).logpdf(x))
            + np.sum(stats.gamma(2.0 * sigma, scale=mu).pdf(x))
            + np.sum(stats.beta(mu + 1.0, sigma, loc=-0.1).logpdf(x))
            + np.sum(stats.poisson(mu + 2.0).logpmf(np.array([0, 1, 3]))))


def bound(x, mu, sigma):
    dist = stats.norm(mu, sigma)
    t = stats.t(df=4.0, loc=mu, scale=2.0 * sigma)
    total = np.sum(dist.logpdf(x)) + np.sum(dist.cdf(x) ** 2) + np.sum(t.logpdf(x))
    for k in range(2):  # (read in a loop too)
        total = total + dist.pdf(x[k])
    return total


def changed_after_freezing(x, mu, sigma):
    dist = stats.norm(mu * 2.0, sigma)
    mu = mu + 10.0  # (dist keeps the mean it was made with)
    return np.sum(dist.logpdf(x)) + mu


def multivariate(x, mean, m):
    cov = m @ m.T + np.eye(2)
    return np.sum(stats.multivariate_normal(mean, cov).logpdf(x))


CASES = [(inline, (X, 0.6, 1.3)), (bound, (X, 0.6, 1.3)), (changed_after_freezing, (X, 0.6, 1.3)),
         (multivariate, (np.array([[0.2, -0.1], [0.5, 0.3], [0.1, 0.4]]), np.array([0.1, 0.2]),
                         np.array([[1.0, 0.2], [-0.3, 0.8]])))]


@pytest.mark.parametrize("f,args", CASES, ids=[f.__name__ for f, _ in CASES])
def test_frozen_distributions_match_central_differences(f, args):
    wrt = tuple(range(len(args)))
    for mode in ("reverse", "forward"):
        got = s2sad.grad(f, wrt=wrt, mode=mode)(*args)
        for i in wrt:
            np.testing.assert_allclose(got[i], central_diff(f, list(args), i), rtol=1e-5,
                                       atol=1e-7)
    for engine in (tape_grad, dual_grad):
        for i in wrt:
            np.testing.assert_allclose(engine(f, args, i)[1], central_diff(f, list(args), i),
                                       rtol=1e-5, atol=1e-7)


def test_the_derivative_calls_the_distributions_methods():
    """The emitted code calls ``stats.norm.logpdf(x, mu, sigma)``: no frozen object,
    and a parameter of the function is read as it is."""
    text = s2sad.source(bound, wrt=(1, 2), example=(X, 0.6, 1.3))
    code = "\n".join(line for line in text.splitlines() if not line.strip().startswith("#"))
    assert "stats.norm.logpdf(x, mu, sigma)" in code
    assert "stats.norm(" not in code and "stats.t(" not in code


def test_hessian_of_a_frozen_log_density():
    def f(p):
        return np.sum(stats.norm(p[0], p[1]).logpdf(X)) + np.sum(stats.t(3.0, p[0]).logpdf(X))

    p = np.array([0.3, 1.2])
    g = s2sad.grad(f)
    expected = np.array([central_diff(lambda q: g(q)[k], [p], 0) for k in range(2)])
    np.testing.assert_allclose(s2sad.hessian(f)(p), expected, rtol=1e-5, atol=1e-7)


def used_otherwise(x, mu):
    dist = stats.norm(mu, 1.0)  # marker: used otherwise
    return np.sum(dist.logpdf(x)) + dist.mean()


def shadowed(x, norm):
    return np.sum(norm(x))


def test_a_frozen_distribution_used_otherwise_is_refused_at_its_line():
    with pytest.raises(s2sad.NoRuleError, match="frozen with its parameters") as info:
        s2sad.grad(used_otherwise, wrt=1)(X, 0.5)
    assert "marker: used otherwise" in info.value.source_line
    with pytest.raises(s2sad.EngineError, match="'mean' of a frozen"):
        tape_grad(used_otherwise, (X, 0.5), 1)
    # a constant frozen distribution is run as it is
    assert s2sad.grad(used_otherwise)(X, 0.5) == pytest.approx(-(X - 0.5))


def test_a_local_name_is_not_taken_for_a_distribution():
    assert s2sad.grad(shadowed)(X, np.sin) == pytest.approx(np.cos(X))
