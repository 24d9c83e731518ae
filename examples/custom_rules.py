"""Teaching s2sad derivatives it cannot work out: the walkthrough of the README's
"Custom derivative rules".

    python examples/custom_rules.py
    s2sad show examples/custom_rules.py:radius
"""

import bisect

import numpy as np

import s2sad
from my_model import price, quantize, quantized_loss, radius


# np.emath.sqrt has no rule in s2sad. Its forward rule (for real roots) is linear in
# x_dot, so it is all s2sad needs: reverse mode transposes it.
def sqrt_forward(x, out, x_dot):
    return x_dot / (2.0 * out)


s2sad.register_rule(np.emath.sqrt, forward=sqrt_forward)


# Prefix sums have no rule either, and their forward rule is linear but not elementwise:
# forward mode works, reverse mode asks for a reverse rule (s2sad does not guess one).
prefix_sums = np.add.accumulate


def prefix_sums_forward(x, out, x_dot):
    return prefix_sums(x_dot)


s2sad.register_rule(prefix_sums, forward=prefix_sums_forward)


def spread(x):
    return np.sum(prefix_sums(x) ** 2)


# round() has derivative zero, so quantize's literal derivative is zero everywhere.
# A straight-through estimator passes the derivative through instead.
def quantize_reverse(x, out, out_bar):
    return out_bar


def quantize_forward(x, out, x_dot):
    return x_dot


s2sad.register_rule(quantize, reverse=quantize_reverse, forward=quantize_forward)


# The loyalty level reached does not change under a small step: a constant.
s2sad.nondifferentiable(bisect.bisect_right)


def log_sum_exp(x):
    """log(sum(exp(x))) without overflow: shift by the largest element, a constant."""
    m = s2sad.stop_gradient(np.max(x))
    return m + np.log(np.sum(np.exp(x - m)))


try:
    from scipy.special import expit, gammaln, xlogy
except ImportError:  # SciPy is optional; its rules load when it is imported
    expit = gammaln = xlogy = None


def log_beta(a, b):
    """log B(a, b), the log of the Beta function."""
    return gammaln(a) + gammaln(b) - gammaln(a + b)


def logistic_nll(w, X, y):
    """Negative log-likelihood of a logistic regression, with SciPy's special
    functions (xlogy is 0 where y is)."""
    p = expit(X @ w)
    return -np.sum(xlogy(y, p) + xlogy(1.0 - y, 1.0 - p))


def main():
    print("radius'(2.0) =", s2sad.grad(radius)(2.0))
    print("d/dw quantized_loss =", s2sad.grad(quantized_loss)(0.3, 2.0, 1.0))
    print("d/d(amount, spent) price =", s2sad.grad(price, wrt=(0, 1))(80.0, 650.0))
    x = np.array([1.0, 2.0, 3.0])
    print("grad log_sum_exp =", s2sad.grad(log_sum_exp)(x))
    print("jvp spread =", s2sad.jvp(spread, (x,), (np.ones(3),)))
    try:
        s2sad.grad(spread)(x)
    except s2sad.NoRuleError as e:
        print("grad spread:", str(e).splitlines()[0])
    # every rule checked: compiled reverse and forward code, the engines, differences
    for f, args, wrt in ((radius, (2.0,), 0), (quantized_loss, (0.3, 2.0, 1.0), 0),
                         (price, (80.0, 650.0), (0, 1)), (log_sum_exp, (x,), 0)):
        report = s2sad.check(f, *args, wrt=wrt, raise_on_failure=False)
        # quantize's straight-through rule is not its derivative, on purpose
        assert report.ok == (f is not quantized_loss)
    if expit is not None:
        X = np.array([[1.0, 0.5], [0.2, -1.0], [-0.3, 0.8]])
        y = np.array([1.0, 0.0, 1.0])
        w = np.array([0.1, -0.2])
        print("grad logistic_nll =", s2sad.grad(logistic_nll)(w, X, y))
        assert s2sad.check(logistic_nll, w, X, y).ok
        print("grad log_beta =", s2sad.grad(log_beta, wrt=(0, 1))(2.0, 3.0))
        assert s2sad.check(log_beta, 2.0, 3.0, wrt=(0, 1), order=2).ok


if __name__ == "__main__":
    main()
