"""Fuzzing functions held as values: networks of layers a factory made, loops over
tuples and lists of functions, lambdas written as arguments, array items nothing
reads, and indexes into NumPy's index builders (`fuzz_functions.function_program`).

Each program's gradient is checked against central differences in reverse, forward
and tape modes, vjp against grad and jvp against grad by the dot product; then the
module global holding the functions is rebound and the same gradient object must
follow it. A program indexing ``np.r_``/``np.c_`` with a value that carries a
derivative must be refused at that line.

S2SAD_FUZZ_EXAMPLES sets the number of examples, as for test_fuzz.py."""

import os

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings

import s2sad
from fuzz_functions import function_program
from fuzz_programs import load
from helpers import assert_tree_close
from helpers import tree_numeric_grad as numeric_grad
from s2sad.ir import trees

EXAMPLES = int(os.environ.get("S2SAD_FUZZ_EXAMPLES", "0") or 0) or 20
X = np.array([0.3, -0.7, 0.5])


def _params(shapes, seed):
    rng = np.random.default_rng(seed)
    return [(rng.normal(size=(3, 3)) * 0.6, rng.normal(size=3) * 0.3) if s == "pair" else ()
            for s in shapes]


@settings(max_examples=EXAMPLES, deadline=None, derandomize=True,
          suppress_health_check=list(HealthCheck))
@given(function_program())
def test_functions_as_values(program):
    text, shapes, seed, rebound, refused = program
    f = load(text)
    params = _params(shapes, seed)
    if refused is not None:
        line = next(i for i, s in enumerate(text.splitlines(), 1) if refused in s)
        for mode in ("reverse", "forward"):
            with pytest.raises(s2sad.S2SADError) as error:
                s2sad.grad(f, mode=mode)(params, X)
            assert error.value.lineno == line, str(error.value)
        return
    grad = s2sad.grad(f)
    g = grad(params, X)
    want = numeric_grad(f, (params, X), 0)
    assert_tree_close(g, want, rtol=1e-5, atol=1e-7)
    for mode in ("forward", "tape"):
        assert_tree_close(s2sad.grad(f, mode=mode)(params, X), g, rtol=1e-9, atol=1e-12)
    out, pullback = s2sad.vjp(f, params, X)
    assert out == pytest.approx(f(params, X))
    assert_tree_close(pullback(1.0)[0], g, rtol=1e-9, atol=1e-12)
    rng = np.random.default_rng(seed + 1)
    tangent = trees.build(trees.spec_of(params), iter(
        [rng.normal(size=np.shape(v)) for v in trees.leaves(params)]))
    _, y_dot = s2sad.jvp(f, (params, X), (tangent, None))
    dot = sum(float(np.sum(a * b)) for a, b in zip(trees.leaves(g), trees.leaves(tangent)))
    assert y_dot == pytest.approx(dot, rel=1e-8, abs=1e-10)
    if rebound is not None:
        name, value = rebound
        f.__globals__[name] = eval(value, f.__globals__)
        assert_tree_close(grad(params, X), numeric_grad(f, (params, X), 0), rtol=1e-5,
                          atol=1e-7)
