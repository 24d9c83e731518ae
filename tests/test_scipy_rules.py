"""The SciPy special-function rules (`s2sad.primitives.scipy_special`), row by row as
`test_rules.py` checks the built-in tables, and in use: compiled reverse and
forward code, second derivatives, the engines. Skipped without SciPy; the last test
checks that s2sad works without it."""

import os
import random
import subprocess
import sys

import numpy as np
import pytest

special = pytest.importorskip("scipy.special")

import s2sad  # noqa: E402
from s2sad import primitives as rules  # noqa: E402
import rule_suite  # noqa: E402

rules.candidates(special.erf)  # the rules load once scipy.special is imported
from s2sad.primitives import scipy_special  # noqa: E402


def ids(pairs):
    return [f"{getattr(k, '__name__', k)}/{r.arity}/{r.when}" for k, r in pairs]


REV, FWD = rule_suite.tables(scipy_special)

DOMAINS = {special.logit: (0.2, 0.8), special.gammaln: (0.5, 4.0),
           special.digamma: (0.5, 4.0), special.gamma: (0.5, 4.0), special.rgamma: (0.5, 4.0),
           special.erfinv: (-0.9, 0.9), special.erfcinv: (0.1, 1.9), special.entr: (0.1, 2.0),
           special.y0: (0.5, 6.0), special.y1: (0.5, 6.0), special.j0: (-6.0, 6.0),
           special.j1: (-6.0, 6.0), special.i0: (-3.0, 3.0), special.i1: (-3.0, 3.0),
           special.i0e: (0.2, 3.0), special.i1e: (0.2, 3.0), special.ndtri: (0.05, 0.95),
           special.log1p: (-0.5, 2.0), special.cbrt: (0.2, 3.0)}
# points at the edges of the domains (where the function or its derivative is steep,
# tiny or huge, and the far tails where a careless formula overflows)
EDGES = {special.logit: [0.01, 0.99], special.expit: [-30.0, 30.0],
         special.gammaln: [0.02, 40.0, -0.5], special.digamma: [0.02, 40.0, -0.5],
         special.gamma: [0.05, 9.0, -0.5, -2.5], special.rgamma: [0.05, 9.0, -0.5, -2.5],
         special.erfinv: [-0.999, 0.999, 0.0], special.erfcinv: [0.002, 1.998, 1.0],
         special.entr: [0.001, 30.0], special.erf: [-5.0, 5.0], special.erfc: [-5.0, 5.0],
         special.j0: [0.0, 40.0], special.j1: [0.0, 40.0], special.y0: [0.05, 40.0],
         special.y1: [0.05, 40.0], special.i0: [0.0, 20.0], special.i1: [0.0, 20.0],
         special.i0e: [-0.3, -40.0, 200.0], special.i1e: [-0.3, -40.0, 200.0],
         special.ndtr: [-8.0, 8.0], special.log_ndtr: [-30.0, 8.0, 0.0],
         special.ndtri: [0.001, 0.999, 0.5], special.erfcx: [-3.0, 30.0],
         special.log_expit: [-30.0, 30.0], special.log1p: [-0.9, 30.0],
         special.expm1: [-30.0, 1e-9, 5.0], special.cbrt: [-8.0, 27.0]}
ORDERS = {special.jv: (0.0, 1.0, 2.5, -1.0), special.iv: (0.0, 1.0, 2.5, -1.0),
          special.ive: (0.0, 1.0, 2.5), special.yn: (0, 1, 3),
          special.gammainc: (0.5, 1.0, 3.5), special.gammaincc: (0.5, 1.0, 3.5)}
PAIRED = {special.xlogy: ((-1.0, 1.0), (0.5, 2.0)), special.xlog1py: ((-1.0, 1.0), (-0.5, 2.0)),
          special.beta: ((0.5, 3.0), (0.5, 3.0)), special.betaln: ((0.5, 3.0), (0.5, 3.0))}


def arr(r, shape, lo, hi):
    if shape == ():
        return r.uniform(lo, hi)
    return np.asarray([r.uniform(lo, hi) for _ in range(int(np.prod(shape)))]).reshape(shape)


def examples(key, rule):
    """(inputs, options) on the function's domain, its edges included, for numbers or
    arrays as the rule variant takes (a KeyError for another module's rule)."""
    if rule.func.__module__ != scipy_special.__name__:
        raise KeyError(key)
    r = random.Random(7)
    if key is special.logsumexp and rule.arity == 2:  # (weights b of a's shape, or broadcast)
        a, b = arr(r, (3, 4), -1.0, 1.0), arr(r, (3, 4), 0.2, 2.0)
        return [([a, b], {}), ([a, b], {"axis": 0}), ([a, arr(r, (4,), 0.2, 2.0)], {"axis": 1}),
                ([a, arr(r, (3, 1), 0.2, 2.0)], {"axis": -1, "keepdims": True}),
                ([a, 1.5], {"axis": 0}), ([arr(r, (4,), -1.0, 1.0), b], {}),
                ([np.array([700.0, 699.0, -50.0]), np.array([0.5, 2.0, 1.0])], {}),
                ([np.array([0.3, 0.1]), np.array([2.0, -1.0])], {})]
    if key is special.logsumexp:
        a = arr(r, (3, 4), -1.0, 1.0)
        return [([a], {}), ([a], {"axis": 0}), ([a], {"axis": 1, "keepdims": True}),
                ([arr(r, (4,), -1.0, 1.0)], {}), ([r.uniform(-1, 1)], {}),
                ([np.array([700.0, 699.0, -50.0])], {})]
    if key in (special.softmax, special.log_softmax):
        a = arr(r, (3, 4), -1.0, 1.0)
        return [([a], {}), ([a], {"axis": 0}), ([a], {"axis": -1}), ([a], {"axis": (0, 1)}),
                ([arr(r, (4,), -2.0, 2.0)], {}), ([np.array([700.0, 699.0, -50.0])], {})]
    if key is special.polygamma:
        return [([n, arr(r, shape, 0.5, 3.0)], {}) for n in (0, 1, 2) for shape in ((), (4,))]
    if key in ORDERS:  # (an order or shape parameter, then x)
        lo, hi = (0.05, 8.0) if key in (special.gammainc, special.gammaincc) else (0.3, 6.0)
        if rule.when == "array":
            vs = ORDERS[key]
            return [([v, arr(r, (4,), lo, hi)], {}) for v in vs] + \
                [([np.array(vs[:2]), arr(r, (3, 1), lo, hi)], {}),
                 ([np.array([vs[-1], vs[0]]), np.array([lo, hi])], {})]
        return [([v, x], {}) for v in ORDERS[key] for x in (lo, 1.3, hi)] + \
            ([([v, -2.2], {}) for v in (0.0, 1.0, 2.0)]
             if key in (special.jv, special.iv, special.ive) else [])
    if key in PAIRED:
        (alo, ahi), (blo, bhi) = PAIRED[key]
        if rule.when == "array":
            pairs = [((4,), (4,)), ((3, 4), (4,)), ((), (3, 4)), ((3, 1), (1, 4))]
            out = [([arr(r, a, alo, ahi), arr(r, b, blo, bhi)], {}) for a, b in pairs]
            if key in (special.xlogy, special.xlog1py):
                zero = arr(r, (4,), -1.0, 1.0)
                zero[1] = 0.0  # x == 0: the derivative with respect to y is 0
                out.append(([zero, arr(r, (4,), blo, bhi)], {}))
            return out
        edges = [([0.0, 1.5], {})] if key in (special.xlogy, special.xlog1py) else \
            [([0.02, 2.0], {}), ([30.0, 0.5], {})]
        return [([r.uniform(alo, ahi), r.uniform(blo, bhi)], {}) for _ in range(4)] + edges
    lo, hi = DOMAINS.get(key, (-1.5, 1.5))
    return [([arr(r, shape, lo, hi)], {}) for shape in ((), (), (4,), (3, 4))] + \
        [([x], {}) for x in EDGES.get(key, ())]


def call(key, xs, options):
    return key(*xs, **options)


def test_every_function_has_both_rules_in_the_same_form():
    expected = {special.erf, special.erfc, special.expit, special.logit, special.gammaln,
                special.digamma, special.logsumexp, special.xlogy, special.xlog1py, special.entr,
                special.softmax, special.log_softmax, special.gamma, special.rgamma,
                special.gammainc, special.gammaincc, special.beta, special.betaln,
                special.erfinv, special.erfcinv, special.j0, special.j1, special.y0,
                special.y1, special.i0, special.i1, special.i0e, special.i1e, special.jv,
                special.yn, special.iv, special.ive, special.polygamma, special.ndtr,
                special.log_ndtr, special.ndtri, special.erfcx, special.log_expit,
                special.log1p, special.expm1, special.cbrt}
    assert expected <= {key for key, _ in REV}
    rev = [(k, r.arity, r.when, r.differentiable, tuple(r.options), r.positional) for k, r in REV]
    fwd = [(k, r.arity, r.when, r.differentiable, tuple(r.options), r.positional) for k, r in FWD]
    assert rev == fwd


(test_reverse_rule_matches_central_differences, test_forward_rule_matches_central_differences, test_dot_product,
 test_inlined_template_equals_rule) = rule_suite.checks(REV, FWD, ids, examples, 2)


# ------------------------------------------------------------------ in use


def special_functions(x):
    return special.erf(x) * special.erfc(-x) + special.gammaln(x + 2.0) * special.expit(x) \
        + special.digamma(x + 1.0) + special.logit(0.5 * special.expit(x))


def probit_loss(w, x, y):
    # (a probit model's log-likelihood, with the normal family and NumPy's functions
    # under SciPy's names)
    z = x * w
    return np.sum(y * special.log_ndtr(z) + (1.0 - y) * special.log_ndtr(-z)) \
        + np.sum(special.ndtri(special.ndtr(0.3 * z)) + special.erfcx(z)) \
        + np.sum(special.log_expit(z) + special.log1p(z * z) + special.expm1(0.2 * z)
                 + special.cbrt(z * z + 1.0))


def entropy_loss(p, q):
    return np.sum(special.xlogy(p, p) - special.xlogy(p, q))


def neg_entropy(p):
    return np.sum(special.xlogy(p, p))


def cross_entropy(p, q):
    return -np.sum(special.xlogy(p, q))


def log_partition(a):
    return np.sum(special.logsumexp(a, axis=1)) + special.logsumexp(a)


def log_partition_keepdims(a):
    return np.sum(np.exp(a - special.logsumexp(a, 0, keepdims=True)) * a)


def test_compiled_reverse_and_forward_code_agree_with_the_engines():
    s2sad.check(special_functions, 0.4)
    s2sad.check(special_functions, 0.4, order=2)
    p, q = np.array([0.1, 0.3, 0.6]), np.array([0.2, 0.3, 0.5])
    report = s2sad.check(entropy_loss, p, q, wrt=(0, 1))
    assert report.ok
    a = np.array([[0.1, -0.5, 0.3], [0.2, 0.9, -0.4]])
    s2sad.check(log_partition, a)
    s2sad.check(log_partition, a, order=2)
    s2sad.check(log_partition_keepdims, a)
    x, y = np.array([0.5, -1.2, 2.0, -6.0]), np.array([1.0, 0.0, 1.0, 0.0])
    assert s2sad.check(probit_loss, 0.7, x, y).ok
    assert s2sad.check(probit_loss, 0.7, x, y, order=2).ok


def test_the_emitted_code_reads_like_the_rules():
    text = s2sad.source(special_functions)
    assert "special.digamma(" in text and "import scipy.special as special" in text
    assert "unbroadcast" not in text  # numbers get the rules for numbers
    text = s2sad.source(neg_entropy, example=(np.ones(3),))
    assert "np.log(p)" in text and "unbroadcast" not in text  # one shape throughout
    text = s2sad.source(cross_entropy, wrt=(0, 1), example=(np.ones(3), np.ones(3)))
    # (arguments of one shape: nothing to sum, and the total's adjoint -1.0 is
    # broadcast where it is used, never written into an array of its own)
    assert "q_bar = t2_bar * p / q\n" in text and "unreduce" not in text
    text = s2sad.source(cross_entropy, wrt=(0, 1), example=(np.ones((2, 3)), np.ones(3)))
    assert "unbroadcast(t1_bar * p, q) / q" in text  # q is broadcast over p's rows
    hessian = s2sad.source(special_functions, mode="forward")
    assert "special.polygamma(1," in hessian


def test_xlogy_at_zero_follows_jax():
    grad = s2sad.grad(lambda_free_xlogy, wrt=(0, 1))
    gx, gy = grad(0.0, 2.0)
    assert gx == pytest.approx(np.log(2.0)) and gy == 0.0
    gx, gy = s2sad.grad(cross_entropy, wrt=(0, 1))(np.array([0.0, 0.5]), np.array([0.5, 0.5]))
    assert gy[0] == 0.0 and np.allclose(gx, -np.log(0.5))


def lambda_free_xlogy(x, y):
    return special.xlogy(x, y)


def weighted_partition(a, b):
    return special.logsumexp(a, b=b) + np.sum(special.logsumexp(a, axis=0, b=b) ** 2) \
        + np.sum(special.logsumexp(a, 1, keepdims=True) * special.logsumexp(a, axis=1, b=b))


def test_logsumexp_with_weights_in_use_to_second_order():
    a = np.array([[0.1, -0.5, 0.3], [0.2, 0.9, -0.4]])
    b = np.array([[0.5, 1.2, 2.0], [1.0, 0.3, 0.7]])
    for order in (1, 2):
        report = s2sad.check(weighted_partition, a, b, wrt=(0, 1), order=order)
        assert report.ok and "could not run" not in str(report), report
    # (the derivative in a is the softmax weighted by b, in b the plain softmax)
    ga, gb = s2sad.grad(lambda_free_weighted, wrt=(0, 1))(a[0], b[0])
    p = b[0] * np.exp(a[0]) / np.sum(b[0] * np.exp(a[0]))
    assert np.allclose(ga, p) and np.allclose(gb, p / b[0])


def lambda_free_weighted(a, b):
    return special.logsumexp(a, b=b)


def test_logsumexp_with_return_sign_or_b_by_position_has_no_rule():
    a = np.array([0.1, 0.2])
    with pytest.raises(s2sad.NoRuleError, match="return_sign"):
        s2sad.grad(logsumexp_signed)(a)
    with pytest.raises(s2sad.NoRuleError, match="a, b and the options axis, keepdims"):
        s2sad.grad(logsumexp_positional_b)(a)


def logsumexp_signed(a):
    return special.logsumexp(a, b=np.ones(2), return_sign=True)[0]


def logsumexp_positional_b(a):
    return special.logsumexp(a, None, np.ones(2))


def test_s2sad_works_without_scipy(tmp_path):
    (tmp_path / "no_scipy.py").write_text(
        "import sys\n"
        "sys.modules['scipy'] = None  # import scipy fails from here on\n"
        "import math\n"
        "import s2sad\n"
        "from s2sad.primitives import registry\n\n\n"
        "def f(x):\n"
        "    return math.erf(x) * x\n\n\n"
        "print(s2sad.grad(f)(0.5), sorted(registry.OPTIONAL), 's2sad.primitives.scipy_special' in sys.modules)\n")
    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    done = subprocess.run([sys.executable, str(tmp_path / "no_scipy.py")], capture_output=True,
                          text=True, env=dict(os.environ, PYTHONPATH=root))
    assert done.returncode == 0, done.stderr
    assert done.stdout.split()[1:] == ["['scipy.linalg',", "'scipy.signal',", "'scipy.special',",
                                       "'scipy.stats']", "False"]


# ------------------------------------------------- the rest of autograd's set, in use


def gamma_family(x):
    return special.gamma(x) * special.rgamma(x + 1.0) + special.beta(x, 2.0) \
        + special.betaln(1.5, x) + special.gammainc(2.0, x) - special.gammaincc(0.5, x) \
        + special.psi(x) + special.polygamma(1, x)


def bessel(x):
    return special.j0(x) + special.j1(x) * special.y0(x) + special.y1(x) + special.i0(x) \
        * special.i1(x) + special.i0e(x) + special.i1e(x) + special.jn(2, x) \
        + special.yn(1, x) + special.iv(1.5, x) + special.ive(0.5, x)


def inverses(x):
    return special.erfinv(x / 2.0) + special.erfcinv(1.0 - x / 3.0) + special.entr(x) \
        + special.xlog1py(x, x) + special.logit(special.expit(x) * 0.9)


def classifier(w, x):
    logits = x @ w
    return np.sum(special.log_softmax(logits, axis=1)[:, 0]) \
        + np.sum(special.softmax(logits, 1) ** 2) + special.logsumexp(logits, axis=0)[1]


def test_the_new_special_functions_agree_with_the_engines_to_second_order():
    for f in (gamma_family, bessel, inverses):
        assert s2sad.check(f, 0.8).ok
        assert s2sad.check(f, 0.8, order=2).ok
    w, x = np.array([[0.3, -0.2, 0.5], [0.1, 0.4, -0.6]]), np.array([[1.0, 0.5], [-0.3, 0.8]])
    assert s2sad.check(classifier, w, x, wrt=(0, 1)).ok
    assert s2sad.check(classifier, w, x, order=2).ok


def test_hessian_through_the_gamma_family_and_softmax():
    h = s2sad.hessian(gamma_family)(0.8)
    step = 1e-4
    numeric = (gamma_family(0.8 + step) - 2 * gamma_family(0.8) + gamma_family(0.8 - step)) \
        / step ** 2
    assert h == pytest.approx(numeric, rel=1e-4)
    w, x = np.array([[0.3, -0.2, 0.5], [0.1, 0.4, -0.6]]), np.array([[1.0, 0.5], [-0.3, 0.8]])
    h = s2sad.hessian(classifier)(w, x)
    assert h.shape == (2, 3, 2, 3) and np.allclose(h.reshape(6, 6), h.reshape(6, 6).T)


def test_an_order_that_carries_a_derivative_is_refused():
    with pytest.raises(s2sad.NoRuleError, match="its argument `v`"):
        s2sad.grad(bessel_in_its_order)(1.5)
    with pytest.raises(s2sad.NoRuleError, match="its argument `a`"):
        s2sad.grad(gammainc_in_a)(1.5)


def bessel_in_its_order(v):
    return special.jv(v, 2.0)


def gammainc_in_a(a):
    return special.gammainc(a, 2.0) + a


def test_the_engines_refuse_an_order_that_carries_a_derivative_too():
    with pytest.raises(s2sad.S2SADError, match="its argument `v`"):
        s2sad.grad(bessel_in_its_order, mode="tape")(1.5)
    assert s2sad.grad(bessel, mode="tape")(0.8) == pytest.approx(s2sad.grad(bessel)(0.8))
