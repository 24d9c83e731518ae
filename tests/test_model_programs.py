"""Models written as autograd's users write them (`model_programs`): gradients with
respect to their containers of parameters against central differences, and a few
optimizer steps with `tree_map`."""

import numpy as np
import pytest

import model_programs as mp
import s2sad
from helpers import assert_tree_close
from helpers import tree_numeric_grad as numeric_grad

rs = np.random.RandomState(0)


def test_classifier_with_a_list_of_pairs():
    params = [(0.1 * rs.randn(4, 5), 0.1 * rs.randn(5)), (0.1 * rs.randn(5, 3),
                                                         0.1 * rs.randn(3))]
    X, T = rs.randn(6, 4), np.eye(3)[rs.randint(0, 3, 6)]

    def objective(params):
        return -mp.net_log_posterior(params, X, T, 0.1)

    g = s2sad.grad(objective)(params)
    assert_tree_close(g, numeric_grad(objective, (params,), 0), rtol=1e-5, atol=1e-7)
    before = objective(params)
    for _ in range(5):
        params = s2sad.tree_map(lambda p, d: p - 0.1 * d, params, s2sad.grad(objective)(params))
    assert objective(params) < before


def test_gaussian_mixture_with_a_dict():
    special = pytest.importorskip("scipy.special")
    params = {"log proportions": rs.randn(3) * 0.5, "means": rs.randn(3, 2) * 0.5,
              "lower triangles": np.zeros((3, 2, 2)) + np.eye(2)}
    data = rs.randn(10, 2)

    def objective(params):
        return -mp.gmm_log_likelihood(params, data, special.logsumexp)

    assert_tree_close(s2sad.grad(objective)(params), numeric_grad(objective, (params,), 0),
                      rtol=1e-5, atol=1e-7)


def test_rnn_with_closures_over_a_dict():
    params = {"init": rs.randn(1, 4) * 0.1, "change": rs.randn(7, 4) * 0.3,
              "bias": rs.randn(4) * 0.1, "predict": rs.randn(4, 3) * 0.3}
    inputs, targets = rs.randn(5, 2, 3), rs.randn(5, 2, 3)

    def objective(params):
        return -mp.rnn_log_likelihood(params, inputs, targets)

    assert_tree_close(s2sad.grad(objective)(params), numeric_grad(objective, (params,), 0),
                      rtol=1e-5, atol=1e-7)
