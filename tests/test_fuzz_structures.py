"""Fuzzing containers of parameters: random nestings of dicts, lists, tuples,
namedtuples and dataclasses (ints and strings among the leaves) read every way users
write it (`fuzz_structures.structured_program`); grad against central differences
leaf by leaf, vjp against grad, jvp paired with grad by the dot product.

S2SAD_FUZZ_EXAMPLES sets the number of examples, as for test_fuzz.py."""

import os

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings

import s2sad
from fuzz_programs import load
from fuzz_structures import keyed_program, structured_program
from helpers import assert_tree_close
from helpers import tree_numeric_grad as numeric_grad
from s2sad.ir import trees

EXAMPLES = int(os.environ.get("S2SAD_FUZZ_EXAMPLES", "0") or 0) or 60
X = [0.3, -0.7, 0.2]


FUZZED = settings(max_examples=EXAMPLES, deadline=None, derandomize=True,
                  suppress_health_check=list(HealthCheck))


@FUZZED
@given(structured_program())
def test_structured_programs(program):
    text, params = program
    f = load(text)
    if not any(isinstance(v, (float, np.ndarray)) for v in trees.leaves(params)):
        with pytest.raises(s2sad.WrtError):
            s2sad.grad(f)(params, X)
        return
    grad = s2sad.grad(f)
    g = grad(params, X)
    assert_tree_close(g, numeric_grad(f, (params, X), 0), rtol=1e-4, atol=1e-6)
    # (the same gradient object given the dicts with their keys in the other order:
    # the gradient has that order, and the same values by key)
    reordered = _reordered(params)
    again = grad(reordered, X)
    assert trees.spec_of(again) == trees.spec_of(reordered)
    assert_tree_close(again, _reordered(g), rtol=1e-12, atol=1e-14)
    out, pullback = s2sad.vjp(f, params, X)
    assert out == pytest.approx(f(params, X))
    assert_tree_close(pullback(1.0)[0], g, rtol=1e-9, atol=1e-12)
    rng = np.random.default_rng(0)
    tangent = trees.build(trees.spec_of(params), iter(
        [rng.normal(size=np.shape(v)) if isinstance(v, np.ndarray) else
         (0.5 if isinstance(v, float) else None) for v in trees.leaves(params)]))
    _, y_dot = s2sad.jvp(f, (params, X), (tangent, None))
    dot = sum(float(np.sum(a * b)) for a, b in zip(trees.leaves(g), trees.leaves(tangent))
              if a is not None)
    assert y_dot == pytest.approx(dot, rel=1e-8, abs=1e-10)


def _reordered(tree):
    """`tree` with the keys of every dict in it in the reverse order."""
    if type(tree) is dict:
        return {k: _reordered(tree[k]) for k in reversed(list(tree))}
    if type(tree) in (list, tuple):
        return type(tree)(_reordered(v) for v in tree)
    return tree


@FUZZED
@given(keyed_program())
def test_layers_read_by_keys_made_of_the_loop_variable(program):
    text, params = program
    f = load(text)
    x = np.array([[0.3, -0.7], [0.2, 0.9], [-0.4, 0.1]])
    g = s2sad.grad(f)(params, x)
    assert list(g) == list(params)
    assert_tree_close(g, numeric_grad(f, (params, x), 0), rtol=1e-5, atol=1e-7)
