"""The ``scipy.linalg`` rules (`s2sad.primitives.scipy_linalg`) row by row, as
`test_rules.py` checks the built-in tables, and in use: compiled code against central
differences and the engines, to second order. Skipped without SciPy."""

import random

import numpy as np
import pytest

linalg = pytest.importorskip("scipy.linalg")

import s2sad  # noqa: E402
from s2sad import primitives as rules  # noqa: E402
import rule_suite  # noqa: E402
from test_rules import _eval_template, random_like, template_equals_rule  # noqa: E402

rules.candidates(linalg.sqrtm)  # the rules load once scipy.linalg is imported
from s2sad.primitives import scipy_linalg  # noqa: E402


def ids(pairs):
    return [r.func.__name__ for _, r in pairs]


REV, FWD = rule_suite.tables(scipy_linalg)


def arr(r, shape, lo=-1.0, hi=1.0):
    return np.asarray([r.uniform(lo, hi) for _ in range(int(np.prod(shape)))]).reshape(shape)


def spd(r, n, floor=0.3):
    m = arr(r, (n, n))
    return m @ m.T + floor * np.eye(n)


def dominant(r, n):
    """A matrix whose triangles are both well-conditioned (the other triangle is
    anything: the solve does not read it)."""
    return arr(r, (n, n)) + 3.0 * np.eye(n)


def examples(key, rule):
    r = random.Random(13)
    if key is linalg.solve_triangular:
        shape = (3,) if rule.when[1] == "1d" else (3, 2)
        options = [{}, {"lower": True}, {"trans": 1}, {"trans": "T", "lower": True},
                   {"trans": 2}, {"unit_diagonal": True}, {"lower": True, "unit_diagonal": True,
                                                           "trans": "N"}]
        cases = [([dominant(r, 3), arr(r, shape)], o) for o in options]
        near = dominant(r, 3)
        near[1, 1] = 0.05  # (a small pivot: large derivatives)
        return cases + [([near, arr(r, shape)], {"lower": True})]
    if key is linalg.cho_factor:
        return [([spd(r, 3)], {}), ([spd(r, 3)], {"lower": True}), ([spd(r, 1)], {}),
                ([spd(r, 4, floor=1e-2)], {"lower": True})]
    if key is linalg.cho_solve:
        shape = (3,) if rule.when[1] == "1d" else (3, 2)
        return [([linalg.cho_factor(spd(r, 3), lower=lower), arr(r, shape)], {})
                for lower in (False, True)]
    if key is linalg.solve_sylvester:
        return [([dominant(r, 3), dominant(r, 2), arr(r, (3, 2))], {}),
                ([dominant(r, 2), dominant(r, 2), arr(r, (2, 2))], {})]
    if key is linalg.sqrtm:
        return [([spd(r, 3)], {}), ([dominant(r, 3)], {}), ([spd(r, 2, floor=0.05)], {}),
                ([np.array([[4.0]])], {})]
    if key is linalg.expm:  # (not normal, larger norms, a nilpotent and a 1 x 1 matrix)
        return [([arr(r, (3, 3))], {}), ([2.0 * arr(r, (4, 4))], {}), ([spd(r, 2)], {}),
                ([np.array([[0.0, 1.5], [0.0, 0.0]])], {}), ([np.array([[0.7]])], {})]
    raise KeyError(key)


def test_every_function_has_both_rules_in_the_same_form():
    assert {key for key, _ in REV} == {linalg.solve_triangular, linalg.cho_factor,
                                      linalg.cho_solve, linalg.solve_sylvester, linalg.sqrtm,
                                      linalg.expm}
    rev = [(k, r.arity, r.when, r.differentiable, tuple(r.options)) for k, r in REV]
    fwd = [(k, r.arity, r.when, r.differentiable, tuple(r.options)) for k, r in FWD]
    assert rev == fwd


(test_reverse_rule_matches_central_differences, test_forward_rule_matches_central_differences, test_dot_product,
 _) = rule_suite.checks(REV, FWD, ids, examples, 2)


@pytest.mark.parametrize("key,rule", REV + FWD, ids=ids(REV) + ids(FWD))
def test_inlined_template_equals_rule(key, rule):
    if key is linalg.cho_solve and rule.mode == "reverse":
        # (c_and_lower's term is (c_bar, None): lower has no adjoint)
        rng = random.Random(4)
        for xs, options in examples(key, rule):
            out = key(*xs, **options)
            seed = random_like(out, rng)
            direct = rule.func(*xs, out=out, out_bar=seed, **options)
            inlined = _eval_template(rule, xs, out, [seed], options)
            assert inlined[0][1] is None and direct[0][1] is None
            assert np.allclose(inlined[0][0], direct[0][0], rtol=1e-12)
            assert np.allclose(inlined[1], direct[1], rtol=1e-12)
        return
    template_equals_rule(key, rule, examples(key, rule)[:2])


# ------------------------------------------------------------------ in use


def gaussian_solve(a, b):
    c = linalg.cho_factor(a)
    return np.sum(linalg.cho_solve(c, b) ** 2)


def gaussian_solve_lower(a, b):
    c, low = linalg.cho_factor(a, lower=True)
    x = linalg.cho_solve((c, low), b)
    return np.sum(x * x) + np.sum(np.log(np.diag(c)))


def gaussian_likelihood(a, b):
    # (the factor read twice, by cho_solve and by index: the adjoints of `c` add up
    # item by item, `lower` carrying none)
    c = linalg.cho_factor(a, lower=True)
    return b @ linalg.cho_solve(c, b) + np.sum(np.log(np.diag(c[0])))


def triangular(a, b):
    x = linalg.solve_triangular(a, b, lower=True)
    y = linalg.solve_triangular(a, x, trans="T", lower=True, unit_diagonal=True)
    return np.sum(np.tanh(y))


def square_root(a):
    return np.sum(linalg.sqrtm(a @ a.T + np.eye(3)) ** 3)


def exponential(a):
    return np.sum(linalg.expm(0.5 * a) @ a)


def test_compiled_code_agrees_with_the_engines_to_second_order():
    r = random.Random(3)
    a, b, m = spd(r, 3), arr(r, (3,)), dominant(r, 3)
    for order in (1, 2):
        for f, args in ((gaussian_solve, (a, b)), (gaussian_solve_lower, (a, arr(r, (3, 2)))),
                        (gaussian_likelihood, (a, b)),
                        (triangular, (m, arr(r, (3, 2)))), (square_root, (arr(r, (3, 3)),)),
                        (exponential, (arr(r, (3, 3)),))):
            wrt = tuple(range(len(args)))
            report = s2sad.check(f, *args, wrt=wrt, order=order)
            assert report.ok, report
            assert all("could not run" not in line for line in str(report).splitlines()), report


def test_hessian_through_a_cholesky_solve():
    r = random.Random(5)
    a, b = spd(r, 3), arr(r, (3,))
    h = s2sad.hessian(gaussian_solve, wrt=1)(a, b)
    inverse = np.linalg.inv(a)
    assert np.allclose(h, 2 * inverse @ inverse)


def test_the_emitted_code_reads_like_the_rules():
    r = random.Random(7)
    text = s2sad.source(triangular, wrt=(0, 1), example=(dominant(r, 3), arr(r, (3, 2))))
    assert "trans in" not in text and "unit_diagonal else" not in text  # (folded)
    assert "np.tril(" in text
