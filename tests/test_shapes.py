"""Shape specialisation: the compiled gradient depends on which axes of the array
arguments have length 1 and which have equal lengths (`shape_pattern`), and the
dispatcher checks exactly that before it reuses a specialisation."""

import itertools

import numpy as np
import pytest

import s2sad
from s2sad.analysis import activity, shapes
from s2sad.ir.kinds import ArrayKind, shape_pattern
from s2sad.primitives import shape_rules
from s2sad.driver import stages
from helpers import central_diff

SHAPES = [(), (4,), (3, 4), (1, 4), (3, 1)]


def _value(shape, seed):
    rng = np.random.default_rng(seed)
    return float(rng.uniform(0.5, 1.5)) if shape == () else rng.uniform(0.5, 1.5, shape)


def broadcasting(x, y):
    z = x * y + x
    return np.sum(np.sin(z) * y) + np.sum(x / (1.0 + y * y))


def test_one_gradient_object_through_every_broadcasting_pair():
    """One dispatcher meets every pattern in turn (and again): each call takes the
    specialisation for its own pattern, never one compiled for another."""
    grad = s2sad.grad(broadcasting, wrt=(0, 1))
    pairs = list(itertools.product(SHAPES, SHAPES))
    for sx, sy in pairs + pairs[::-1]:
        x, y = _value(sx, 1), _value(sy, 2)
        gx, gy = grad(x, y)
        assert np.shape(gx) == sx and np.shape(gy) == sy
        assert np.allclose(gx, central_diff(broadcasting, (x, y), 0), rtol=1e-5, atol=1e-7)
        assert np.allclose(gy, central_diff(broadcasting, (x, y), 1), rtol=1e-5, atol=1e-7)


def test_the_pattern_labels_lengths_by_equality_and_one():
    assert shape_pattern([(64, 256), (256,), (1, 256)]) == [(2, 3), (3,), (1, 3)]
    assert shape_pattern([(5, 7), (7,), (1, 7)]) == [(2, 3), (3,), (1, 3)]
    assert shape_pattern([(3, 3), (3,)]) == [(2, 2), (2,)]


def test_the_dispatcher_checks_the_pattern_it_was_compiled_for():
    grad = s2sad.grad(broadcasting, wrt=(0, 1))
    grad(np.ones((3, 4)), np.ones(4))
    text = grad.__s2sad__.source()
    assert "x.shape[1] == y.shape[0]" in text
    # more equal lengths than the pattern asks for: the same code is right
    x, y = _value((4, 4), 3), _value((4,), 4)
    gx, gy = grad(x, y)
    assert np.allclose(gy, central_diff(broadcasting, (x, y), 1), rtol=1e-5, atol=1e-7)
    assert len(grad.__s2sad__.specs) == 1
    # a length 1 where the pattern has a length of its own: another specialisation
    x, y = _value((3, 1), 5), _value((4,), 6)
    gx, gy = grad(x, y)
    assert gx.shape == (3, 1)
    assert np.allclose(gx, central_diff(broadcasting, (x, y), 0), rtol=1e-5, atol=1e-7)
    assert len(grad.__s2sad__.specs) == 2


def layer_norm(x, gain, bias, C):
    mu = np.mean(x, axis=-1, keepdims=True)
    xc = x - mu
    var = np.mean(xc * xc, axis=-1, keepdims=True)
    xhat = xc / np.sqrt(var + 1e-5)
    y = gain * xhat + bias
    return np.sum(y * C)


def test_values_computed_only_for_their_shape_are_not_computed():
    args = (np.ones((8, 5)), np.ones(5), np.ones(5), np.ones((8, 5)))
    text = s2sad.source(layer_norm, wrt=(0, 1, 2), example=args)
    text = "\n".join(line for line in text.splitlines() if not line.strip().startswith("#"))
    assert "y * C" not in text and "gain * xhat" not in text and "unreduce" not in text
    assert "xhat_bar = y_bar * gain\n" in text  # no unbroadcast: one shape
    # C broadcast over the rows: its product with y has y's shape, not C's
    args = (np.ones((8, 5)), np.ones(5), np.ones(5), np.ones(5))
    grad = s2sad.grad(layer_norm, wrt=(0, 1, 2))
    rng = np.random.default_rng(0)
    values = (rng.normal(size=(8, 5)), rng.normal(size=5), rng.normal(size=5),
              rng.normal(size=5))
    for i, g in enumerate(grad(*values)):
        assert np.allclose(g, central_diff(layer_norm, values, i), rtol=1e-5, atol=1e-6)


def mixed(A, V, C):
    return np.sum(np.einsum("ij,jd->id", A, V) * C)


def elementwise_einsum(a, v, c):
    return np.sum(np.einsum("ij,ij->ij", a, v) * c)


def test_an_einsum_result_has_the_lengths_of_its_labels():
    # the output's axes are the inputs' axes of the same labels: its product with C
    # needs no sum over broadcast axes, and the adjoint of the einsum is C itself
    rng = np.random.default_rng(1)
    A, V, C = rng.normal(size=(4, 6)), rng.normal(size=(6, 3)), rng.normal(size=(4, 3))
    text = s2sad.source(mixed, wrt=(0, 1), example=(A, V, C))
    assert "unreduce" not in text and "unbroadcast" not in text, text
    for i, g in enumerate(s2sad.grad(mixed, wrt=(0, 1))(A, V, C)):
        assert np.allclose(g, central_diff(mixed, (A, V, C), i), rtol=1e-5, atol=1e-7)
    # a label's axes of length 1 broadcast: the result has the other operand's length
    a1, v, c = rng.normal(size=(4, 1)), rng.normal(size=(4, 3)), rng.normal(size=(1, 3))
    text = s2sad.source(elementwise_einsum, wrt=(0, 1), example=(a1, v, c))
    # (the result is (4, 3), as its product with c: no sum over broadcast axes for it)
    assert "_bar = unreduce(" in text and "unbroadcast" not in text, text
    for i, g in enumerate(s2sad.grad(elementwise_einsum, wrt=(0, 1, 2))(a1, v, c)):
        assert np.allclose(g, central_diff(elementwise_einsum, (a1, v, c), i),
                           rtol=1e-5, atol=1e-7)
    assert shape_rules.einsum(shape_rules.Args((None, ("n", 1), (1, "d")), ("ij,jk->ik",),
                                               {})) == ("n", "d")
    assert shape_rules.einsum(shape_rules.Args((None, ("n", "m"), ("m", "d")), ("ij,jk",),
                                               {})) == ("n", "d")


def either(x, g, c):
    if c > 0.0:
        y = x * 2.0
    else:
        y = g * 3.0
    return np.sum(y * x) + np.sum(y)


@pytest.mark.parametrize("c", [1.0, -1.0])
def test_a_name_joined_from_two_shapes_keeps_its_sums(c):
    """`y` is a (3, 4) array on one path and a (4,) array on the other: nothing may
    take either shape for granted."""
    x, g = _value((3, 4), 7), _value((4,), 8)
    gx, gg = s2sad.grad(either, wrt=(0, 1))(x, g, c)
    assert np.allclose(gx, central_diff(either, (x, g, c), 0), rtol=1e-5, atol=1e-7)
    assert np.allclose(gg, central_diff(either, (x, g, c), 1), rtol=1e-5, atol=1e-7)


def shapes_of(f, example, wrt):
    kinds = stages.kinds_of_example(f, example) if isinstance(example, tuple) else example
    fr = stages.front(f)
    return activity.analyze(fr.dup, wrt, kinds, stages.Kinds()).shapes


def products(A, v, w):
    Av = A @ v
    s = np.sum(A * w, axis=0, keepdims=True)
    return np.sum(Av) + np.sum(s @ A.T) + np.sum(np.outer(v, w))


def test_shapes_follow_numpys_rules():
    shapes = shapes_of(products, (np.ones((3, 4)), np.ones(4), np.ones(4)), ("A",))
    assert shapes["A"] == (2, 3) and shapes["v"] == (3,)
    assert shapes["Av"] == (2,)
    assert shapes["s"] == (1, 3)
    # without a pattern the axes are symbols of their own: nothing is known equal
    kinds = {"A": ArrayKind(2), "v": ArrayKind(1), "w": ArrayKind(1)}
    shapes = shapes_of(products, kinds, ("A",))
    assert shapes["A"] == ("A.0", "A.1") and shapes["Av"] == ("A.0",)
    assert shapes["s"] == (1, "A.1") or shapes["s"][0] == 1  # (A * w: A's axis or w's)


def test_an_unknown_axis_broadcast_with_a_known_one_is_not_taken_for_either():
    assert shape_rules.broadcast([("a",), (2,)]) not in ((2,), ("a",))
    assert shape_rules.broadcast([("a",), (2,)], strict=True) is None
    assert shape_rules.broadcast([(1, 3), (2, 1)]) == (2, 3)
    assert shape_rules.broadcast([(3,), (2, 3), ()], strict=True) == (2, 3)


def test_a_factor_constant_along_a_sum_moves_out_of_it():
    """``unbroadcast(g * xhat / t2, t2)``: t2 has one value per row, the sum runs
    along the rows, so the division happens once per row, after the sum."""
    args = (np.ones((8, 5)), np.ones(5), np.ones(5), np.ones((8, 5)))
    text = s2sad.source(layer_norm, wrt=(0, 1, 2), example=args)
    assert "unbroadcast(xhat_bar * xhat, t1) / t1" in text
    rng = np.random.default_rng(1)
    values = (rng.normal(size=(8, 5)), rng.normal(size=5), rng.normal(size=5),
              rng.normal(size=(8, 5)))
    got = s2sad.grad(layer_norm, wrt=0)(*values)
    assert np.allclose(got, central_diff(layer_norm, values, 0), rtol=1e-6, atol=1e-8)


def _op_add(x, y):
    return np.sum(np.sin(x + y))


def _op_sub(x, y):
    return np.sum(np.sin(x - y))


def _op_mul(x, y):
    return np.sum(np.sin(x * y))


def _op_div(x, y):
    return np.sum(np.sin(x / y))


def _op_pow(x, y):
    return np.sum(np.sin(x ** y))


def _op_power(x, y):
    return np.sum(np.sin(np.power(x, y)))


def _op_arctan2(x, y):
    return np.sum(np.sin(np.arctan2(x, y)))


def _op_maximum(x, y):
    return np.sum(np.sin(np.maximum(x, 1.3 * y)))


def _op_minimum(x, y):
    return np.sum(np.sin(np.minimum(x, 1.3 * y)))


def _op_where(x, y):
    return np.sum(np.sin(np.where(x > 1.3 * y, x * y, y)))


def _op_logaddexp(x, y):
    return np.sum(np.sin(np.logaddexp(x, y)))


BINARY = [_op_add, _op_sub, _op_mul, _op_div, _op_pow, _op_power, _op_arctan2, _op_maximum,
          _op_minimum, _op_where, _op_logaddexp]


@pytest.mark.parametrize("f", BINARY, ids=[f.__name__[4:] for f in BINARY])
def test_every_binary_operation_through_every_broadcasting_pair(f):
    """The compiled gradient of each elementwise operation, for every pair of the
    shapes (), (4,), (3, 4), (1, 4), (3, 1): one specialisation per pattern, the
    adjoint of a broadcast operand summed back to its shape, float arguments get
    floats."""
    grad = s2sad.grad(f, wrt=(0, 1))
    for sx, sy in itertools.product(SHAPES, SHAPES):
        x, y = _value(sx, 11), _value(sy, 12)
        gx, gy = grad(x, y)
        for g, i, shape in ((gx, 0, sx), (gy, 1, sy)):
            assert np.shape(g) == shape and (shape != () or isinstance(g, float))
            assert np.allclose(g, central_diff(f, (x, y), i), rtol=1e-5, atol=1e-7), (sx, sy, i)


def weighted_sum(x, C):
    return np.sum(x * C)


def test_an_adjoint_equal_to_an_argument_is_that_argument_only_where_unseen():
    """``y_bar = 1.0 * C`` is ``y_bar = C`` inside the gradient (nothing changes it
    and every reader makes a new array), never a gradient handed back: the caller
    could change it and would change C."""
    args = (np.ones((8, 5)), np.ones(5), np.ones(5), np.ones((8, 5)))
    assert "y_bar = C\n" in s2sad.source(layer_norm, wrt=(0, 1, 2), example=args)
    x, C = np.ones((3, 4)), np.full((3, 4), 2.0)
    g = s2sad.grad(weighted_sum)(x, C)
    assert np.array_equal(g, C) and not np.shares_memory(g, C)


def _eigh_loss(B, C):
    w, V = np.linalg.eigh(B + B.T)
    F = (V * np.tanh(w)) @ V.T
    return np.sum(F * C)


def test_the_arrays_a_call_returns_in_a_tuple_have_its_facts_shapes():
    # np.linalg.eigh's (w, V): w has the matrix's last axis dropped, V its shape, so
    # F has C's and the adjoint of np.sum(F * C) is C itself
    rng = np.random.default_rng(4)
    B, C = rng.normal(size=(5, 5)), rng.normal(size=(5, 5))
    text = s2sad.source(_eigh_loss, example=(B, C))
    assert "F_bar = C" in text and "unreduce" not in text, text
    assert "\n    F = " not in text  # nothing reads it, and (5, 5) @ (5, 5) cannot raise
    assert np.allclose(s2sad.grad(_eigh_loss)(B, C), central_diff(_eigh_loss, (B, C), 0),
                       rtol=1e-5, atol=1e-6)


def _unread_product(A, B):
    P = A @ B  # nothing reads it
    return np.sum(A * A)


def test_an_unread_matrix_product_goes_only_where_it_cannot_raise():
    rng = np.random.default_rng(5)
    A = rng.normal(size=(2, 3))
    text = s2sad.source(_unread_product, example=(A, rng.normal(size=(3, 4))))
    assert "A @ B" not in text.split("#")[0]
    assert np.allclose(s2sad.grad(_unread_product)(A, rng.normal(size=(3, 4))), 2.0 * A)
    with pytest.raises(ValueError):  # (3 against 4: the function raises, so does this)
        s2sad.grad(_unread_product)(A, rng.normal(size=(4, 4)))
