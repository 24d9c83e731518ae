"""The ``scipy.signal`` rules (`s2sad.primitives.scipy_signal`: ``convolve`` and
``correlate``) row by row, as `test_rules.py` checks the built-in tables, on 1-D and
2-D inputs in every mode (either input the larger), and in use: compiled code against
central differences and the engines, to second order. Skipped without SciPy."""

import random

import numpy as np
import pytest

signal = pytest.importorskip("scipy.signal")

import s2sad  # noqa: E402
from s2sad import primitives as rules  # noqa: E402
import rule_suite  # noqa: E402

rules.candidates(signal.convolve)  # the rules load once scipy.signal is imported
from s2sad.primitives import scipy_signal  # noqa: E402


def ids(pairs):
    return [r.func.__name__ for _, r in pairs]


REV, FWD = rule_suite.tables(scipy_signal)


def arr(r, shape):
    return np.asarray([r.uniform(-1, 1) for _ in range(int(np.prod(shape)))]).reshape(shape)


def examples(key, rule):
    if key not in (signal.convolve, signal.correlate):
        raise KeyError(key)
    r = random.Random(17)
    one = [((7,), (3,)), ((3,), (7,)), ((5,), (5,)), ((4,), (1,)), ((6,), (4,)), ((1,), (1,))]
    two = [((5, 4), (2, 3)), ((2, 3), (5, 4)), ((4, 4), (4, 4)), ((5, 6), (3, 2)),
           ((3, 1), (2, 1))]
    return [([arr(r, a), arr(r, b)], {"mode": mode} if mode != "full" else {})
            for a, b in one + two for mode in ("full", "valid", "same")
            if mode != "valid" or all(x >= y for x, y in zip(a, b))
            or all(x <= y for x, y in zip(a, b))]


def test_every_function_has_both_rules_in_the_same_form():
    assert {key for key, _ in REV} == {signal.convolve, signal.correlate}
    rev = [(k, r.arity, r.when, r.differentiable, tuple(r.options), r.positional) for k, r in REV]
    fwd = [(k, r.arity, r.when, r.differentiable, tuple(r.options), r.positional) for k, r in FWD]
    assert rev == fwd


(test_reverse_rule_matches_central_differences, test_forward_rule_matches_central_differences, test_dot_product,
 test_inlined_template_equals_rule) = rule_suite.checks(REV, FWD, ids, examples, 3)


# ------------------------------------------------------------------ in use


def smoothed(x, k):
    return np.sum(signal.convolve(x, k, mode="same") ** 2) \
        + np.sum(signal.convolve(x, k)) + np.sum(signal.convolve(k, x, "valid") ** 3)


def blurred(image, kernel):
    return np.sum(np.tanh(signal.convolve(image, kernel, mode="valid"))) \
        + np.sum(signal.correlate(image, kernel, mode="same") ** 2)


def test_compiled_code_agrees_with_the_engines_to_second_order():
    r = random.Random(3)
    for order in (1, 2):
        for f, args in ((smoothed, (arr(r, (8,)), arr(r, (3,)))),
                        (blurred, (arr(r, (5, 6)), arr(r, (2, 3))))):
            report = s2sad.check(f, *args, wrt=(0, 1), order=order)
            assert report.ok, report
            assert "could not run" not in str(report), report


def test_hessian_of_a_squared_convolution_is_a_gram_matrix():
    r = random.Random(5)
    x, k = arr(r, (6,)), arr(r, (3,))
    h = s2sad.hessian(lambda_free_energy, wrt=0)(x, k)
    # (sum(conv(x, k)**2) = |C x|^2 with C the full convolution matrix of k)
    c = np.stack([signal.convolve(e, k) for e in np.eye(6)], axis=1)
    assert np.allclose(h, 2 * c.T @ c)


def lambda_free_energy(x, k):
    return np.sum(signal.convolve(x, k) ** 2)


def test_the_adjoint_is_a_correlation_of_the_padded_adjoint():
    r = random.Random(7)
    text = s2sad.source(smoothed, wrt=(0, 1), example=(arr(r, (8,)), arr(r, (3,))))
    assert "signal.correlate(" in text and "np.pad(" in text
    assert "mode ==" not in text  # (the literal mode folded)
