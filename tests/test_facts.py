"""primitives.facts: one row per primitive, and the sets and the shapes read from it.

The sets the analyses used to keep by hand are computed from the table; they must
hold what the hand-kept sets held (the literals below are those sets)."""

import math

import numpy as np

from s2sad.primitives import facts

OLD_METHODS = {
    "sum": np.sum, "mean": np.mean, "prod": np.prod, "max": np.max, "min": np.min,
    "var": np.var, "std": np.std, "dot": np.dot, "reshape": np.reshape,
    "ravel": np.ravel, "flatten": np.ravel, "transpose": np.transpose,
    "squeeze": np.squeeze, "clip": np.clip, "copy": np.copy,
}
OLD_NUMPY_REDUCTION_NAMES = {
    "np.sum": np.sum, "np.mean": np.mean, "np.prod": np.prod, "np.max": np.max,
    "np.min": np.min, "np.amax": np.amax, "np.amin": np.amin, "np.var": np.var,
    "np.std": np.std, "np.linalg.norm": np.linalg.norm,
}
OLD_SCALAR_OK = {np.clip, np.where, np.linalg.norm, np.sum, np.mean, np.prod, np.max, np.min}
OLD_VIEW_KEYS = {np.reshape, np.ravel, np.transpose, np.squeeze, np.expand_dims, np.asarray,
                 np.swapaxes, np.moveaxis, np.diagonal, np.atleast_1d, np.atleast_2d,
                 np.broadcast_to}
OLD_KEEPS_INTEGERS = {"add", "sub", "mul", "floordiv", "mod", "pow", "neg", "pos", "matmul",
                      abs, np.abs, np.absolute, np.maximum, np.minimum, np.clip, np.where,
                      np.sum, np.prod, np.max, np.min, np.amax, np.amin, np.square, np.sign,
                      np.dot, np.matmul, np.outer, np.inner, np.vdot, np.add.outer,
                      np.subtract.outer, np.multiply.outer, np.trace, np.cumsum, np.negative,
                      np.power, np.add, np.subtract, np.multiply, np.floor_divide, np.mod}
OLD_KEEPS_DTYPE = {np.transpose, np.reshape, np.ravel, np.squeeze, np.expand_dims,
                   np.swapaxes, np.copy, np.array, np.asarray, np.concatenate, np.stack,
                   np.hstack, np.vstack, np.broadcast_to}
OLD_SAME_SHAPE = {np.sort, np.argsort, np.floor, np.ceil, np.round, np.rint, np.trunc,
                  np.isnan, np.isinf, np.isfinite}
OLD_NEW_ARRAYS = {np.zeros, np.ones, np.empty, np.full, np.zeros_like, np.ones_like,
                  np.empty_like, np.full_like, np.arange, np.linspace, np.eye, np.identity,
                  np.sort, np.argsort, np.floor, np.ceil, np.round, np.rint, np.trunc,
                  np.isnan, np.isinf, np.isfinite, np.equal, np.not_equal, np.less,
                  np.less_equal, np.greater, np.greater_equal, np.logical_and,
                  np.logical_or, np.logical_not, np.argwhere}
# the rows of the functions with rules in primitives.shaping_reverse and _forward
SHAPING_METHODS = {"cumprod": np.cumprod, "take": np.take, "repeat": np.repeat,
                   "diagonal": np.diagonal}
SHAPING_REDUCTIONS = {"np.median": np.median, "np.average": np.average, "np.nansum": np.nansum,
                      "np.nanmean": np.nanmean}
SPLITS = {np.split, np.array_split, np.vsplit, np.hsplit, np.dsplit}  # (lists of views)
SHAPING_VIEWS = {np.atleast_3d, np.flip, np.fliplr, np.flipud, np.rot90, np.rollaxis,
                 np.diag} | SPLITS
SHAPING_INTEGERS = {np.cumprod, np.diff, np.kron, np.cross, np.tensordot, np.einsum, np.nansum,
                    np.convolve, np.correlate, np.polyval, np.meshgrid}
SHAPING_DTYPE = {np.atleast_1d, np.atleast_2d, np.atleast_3d, np.flip, np.fliplr, np.flipud, np.rot90,
                 np.sort, np.partition, np.take, np.roll, np.pad, np.tile, np.repeat, np.diag, np.triu,
                 np.tril, np.diagonal, np.take_along_axis} | SPLITS
# the rows of the functions added for user code (tests/test_numpy_rules_more.py)
MORE_REDUCTIONS = {f"np.{f.__name__}": f for f in (np.nanmax, np.nanmin, np.ptp, np.nanprod,
                                                    np.nanvar, np.nanstd)}
MORE_INTEGERS = {np.nanmax, np.nanmin, np.ptp, np.nanprod, np.nancumsum, np.ediff1d, np.append,
                 np.linalg.matrix_power}
MORE_DTYPE = {np.insert, np.delete, np.compress, np.column_stack, np.dstack}
# the rows of the functions with rules in primitives.ufuncs_reverse and _forward
UFUNC_SCALAR_OK = {np.nan_to_num, np.sinc, np.real, np.imag, np.real_if_close, np.angle,
                   np.float64, np.float32}
UFUNC_VIEWS = {np.real, np.real_if_close, np.float64, np.float32}
UFUNC_INTEGERS = {np.positive, np.reciprocal, np.fmax, np.fmin, np.fmod, np.nan_to_num, np.conj}
UFUNC_DTYPE = {np.ndarray.item, np.real, np.imag, np.real_if_close}
OLD_INT_RESULT = {int, round, len, bool, math.floor, math.ceil, math.trunc}
OLD_INT_PRESERVING = {"add", "sub", "mul", "floordiv", "mod", "neg", "pos", abs, min, max}


def test_the_sets_read_from_the_table_are_the_hand_kept_ones():
    # (and the methods added since)
    assert facts.METHODS == dict(OLD_METHODS, cumsum=np.cumsum, swapaxes=np.swapaxes,
                                 item=np.ndarray.item, **SHAPING_METHODS, trace=np.trace,
                                 conj=np.conj, conjugate=np.conj)
    assert facts.NUMPY_REDUCTION_NAMES == dict(OLD_NUMPY_REDUCTION_NAMES, **SHAPING_REDUCTIONS,
                                               **MORE_REDUCTIONS)
    assert facts.NUMPY_REDUCTIONS == set(OLD_NUMPY_REDUCTION_NAMES.values()) | set(
        SHAPING_REDUCTIONS.values()) | set(MORE_REDUCTIONS.values())
    assert facts.keys_where("scalar_ok") == OLD_SCALAR_OK | UFUNC_SCALAR_OK
    assert facts.keys_where("view") == OLD_VIEW_KEYS | SHAPING_VIEWS | UFUNC_VIEWS
    assert facts.keys_where("keeps_integers") == OLD_KEEPS_INTEGERS | UFUNC_INTEGERS \
        | SHAPING_INTEGERS | MORE_INTEGERS
    assert facts.keys_where("keeps_dtype") == OLD_KEEPS_DTYPE | UFUNC_DTYPE | SHAPING_DTYPE \
        | MORE_DTYPE
    # (np.sort has a derivative now: it is no constant of its argument's shape)
    assert facts.keys_where("same_shape") == OLD_SAME_SHAPE - {np.sort} | {np.argpartition}
    # (np.tri: the triangles the decompositions' rules read)
    assert facts.keys_where("new") == OLD_NEW_ARRAYS - {np.sort} | {np.tri, np.argpartition}
    assert facts.keys_where("int_result") == OLD_INT_RESULT
    assert facts.keys_where("int_preserving") == OLD_INT_PRESERVING


def test_a_rank_and_a_shape_come_from_the_same_row():
    import ast

    from s2sad.analysis.classify import Op
    from s2sad.ir.kinds import SCALAR, ArrayKind
    from s2sad.primitives.shape_rules import Fresh

    def kind(key, *kinds, **options):
        op = Op("rule", [ast.Name(id=f"v{i}") for i in range(len(kinds))], key=key,
                options={k: ast.Constant(v) for k, v in options.items()})
        return facts.rule_result_kind(op, list(kinds))

    def shape(key, *shapes, **options):
        return facts.call_shape(key, shapes, [ast.Name(id="v")] * len(shapes),
                                {k: ast.Constant(v) for k, v in options.items()})

    assert shape("matmul", ("n", "k"), ("k", "m")) == ("n", "m")
    assert kind("matmul", ArrayKind(2), ArrayKind(1)) == ArrayKind(1)
    assert shape(np.sum, ("n", "m"), axis=0) == ("m",) and shape(np.sum, ("n", "m")) == ()
    assert kind(np.sum, ArrayKind(2)) == SCALAR
    assert kind(np.sum, ArrayKind(3), axis=1) == ArrayKind(2)
    assert shape(np.sum, ("n", "m"), axis=1, keepdims=True) == ("n", 1)
    assert shape(np.transpose, ("n", "m")) == ("m", "n")
    assert shape(np.add, ("n", 1), ("m",)) == ("n", "m")
    # only the rank: the symbols are fresh
    solved = shape(np.linalg.solve, ("a", "n", "n"), ("n",))
    assert len(solved) == 2 and all(isinstance(a, Fresh) for a in solved)
    assert kind(np.linalg.solve, ArrayKind(3), ArrayKind(1)) == ArrayKind(2)
    assert shape(np.linalg.inv, ("n", "n"))[0] != shape(np.linalg.inv, ("n", "n"))[1]


# ------------------------------------------------------------------ functions added by a row

def cumulative_method(x):
    return np.sum(np.sin(x.cumsum(axis=0)) * x)


def cumulative_flat(x):
    c = np.cumsum(x)  # (axis=None: of x flattened)
    return np.sum(c * c)


def cumulative_positional(x):
    return np.sum(np.cumsum(x, -1) ** 2)


def hyperbolic(x):
    return np.sum(np.arctanh(0.5 * x) * x)


def test_cumsum_and_its_method_differentiate_both_ways():
    import s2sad
    from helpers import central_diff

    x = np.linspace(-0.8, 0.9, 12).reshape(3, 4)
    u = np.cos(np.arange(12.0)).reshape(3, 4)
    for f in (cumulative_method, cumulative_flat, cumulative_positional, hyperbolic):
        expected = central_diff(f, (x,), 0)
        assert np.allclose(s2sad.grad(f)(x), expected, rtol=1e-5, atol=1e-7), f.__name__
        out, out_dot = s2sad.jvp(f, (x,), (u,))
        assert np.isclose(out, f(x)) and np.isclose(out_dot, np.sum(expected * u)), f.__name__


def test_cumsum_shapes():
    import ast

    from s2sad.analysis.classify import Op
    from s2sad.ir.kinds import ArrayKind

    def kind(*options):
        op = Op("rule", [ast.Name(id="x")], key=np.cumsum,
                options={k: ast.Constant(v) for k, v in options})
        return facts.rule_result_kind(op, [ArrayKind(2, "i")])

    assert facts.METHODS["cumsum"] is np.cumsum
    assert kind() == ArrayKind(1) and kind(("axis", 0)) == ArrayKind(2)
    assert facts.result_dtype(kind(("axis", 1)), Op("rule", key=np.cumsum),
                              [ArrayKind(2, "i")]) == ArrayKind(2, "i")
    assert facts.call_shape(np.cumsum, [("n", "m")], [ast.Name(id="x")],
                            {"axis": ast.Constant(-1)}) == ("n", "m")


# ------------------------------------------------ method forms and conversions

W = np.linspace(0.2, 1.3, 12).reshape(3, 4)  # an array read from outside


def dot_of_a_global(x):
    return np.sum(np.tanh(W.dot(x)))


def swapped(x):
    m = np.outer(x, np.arange(1.0, 4.0)).reshape(2, 2, 3)
    return np.sum(np.sin(m.swapaxes(0, 2)) * m.swapaxes(-1, 0).swapaxes(1, -2))


def item_of_one(x):
    total = np.sum(x * x, keepdims=True)
    return total.item() * x[1:2].item() + np.sum(x[:1]).item()


def converted(x):
    y = x.astype(float) * x.astype(np.float64) + x.astype(x.dtype)
    ints = x.astype(int)  # (no derivative through an integer array)
    return np.sum(np.cos(y) * x) + np.sum(ints)


def converted_by_numpy(x):
    z = np.asarray(x, dtype=float) * np.array(x, dtype=np.float64)
    return np.sum(np.cos(z) * np.asarray(x, np.float64)) + np.sum(
        np.asarray([x[0], x[1]], dtype=float))


def test_method_forms_and_float_conversions_differentiate_both_ways():
    import s2sad
    from helpers import central_diff

    x = np.array([0.3, -0.7, 1.1, 0.4])
    u = np.array([0.5, 1.0, -0.25, 0.75])
    for f in (dot_of_a_global, converted_by_numpy, swapped, item_of_one, converted):
        expected = central_diff(f, (x,), 0)
        for mode in ("reverse", "forward"):
            assert np.allclose(s2sad.grad(f, mode=mode)(x), expected, rtol=1e-5, atol=1e-7), \
                (f.__name__, mode)
        out, out_dot = s2sad.jvp(f, (x,), (u,))
        assert np.isclose(out, f(x)) and np.isclose(out_dot, expected @ u), f.__name__
        if f in (dot_of_a_global, converted_by_numpy):
            continue  # (the engines cannot see into NumPy's own conversions of traced values)
        for g in (s2sad.grad(f, mode="tape")(x), s2sad.engines.dual_grad(f, (x,))[1]):
            assert np.allclose(g, expected, rtol=1e-5, atol=1e-7), f.__name__


def test_item_and_swapaxes_are_methods_of_their_rows():
    assert facts.METHODS["item"] is np.ndarray.item
    assert facts.METHODS["swapaxes"] is np.swapaxes
    assert facts.call_shape(np.ndarray.item, [(1, 1)], [None], {}) == ()


# ------------------------------------- the methods of the shaping functions' rows

def cumulative_product_method(x):
    return np.sum(x.cumprod(axis=-1) * x) + np.sum(x.cumprod() ** 2)


def taken_and_repeated(x):
    return np.sum(x.take([2, 0, 2], axis=1) ** 2) + np.sum(x.repeat(2, axis=0) * x.repeat(2, 0))


def test_cumprod_take_and_repeat_methods_are_their_functions():
    import s2sad
    from helpers import central_diff

    assert facts.METHODS["cumprod"] is np.cumprod and facts.METHODS["take"] is np.take \
        and facts.METHODS["repeat"] is np.repeat
    x = np.linspace(-0.8, 0.9, 12).reshape(3, 4)
    u = np.cos(np.arange(12.0)).reshape(3, 4)
    for f in (cumulative_product_method, taken_and_repeated):
        expected = central_diff(f, (x,), 0)
        for mode in ("reverse", "tape"):
            assert np.allclose(s2sad.grad(f, mode=mode)(x), expected, rtol=1e-5, atol=1e-7), f
        assert np.isclose(s2sad.jvp(f, (x,), (u,))[1], np.sum(expected * u)), f.__name__


def test_shapes_of_the_shaping_functions():
    import ast

    from s2sad.analysis.classify import Op
    from s2sad.ir.kinds import SCALAR, ArrayKind

    def shape(key, *shapes, values=(), **options):
        atoms = [ast.Constant(v) for v in values] + [ast.Name(id="v")] * (len(shapes) - len(values))
        return facts.call_shape(key, shapes, atoms, {k: ast.Constant(v) for k, v in options.items()})

    def kind(key, *kinds, values=(), **options):
        atoms = [ast.Constant(v) for v in values] + [ast.Name(id=f"v{i}") for i in range(
            len(kinds) - len(values))]
        op = Op("rule", atoms, key=key, options={k: ast.Constant(v) for k, v in options.items()})
        return facts.rule_result_kind(op, list(kinds))

    assert shape(np.sort, ("n", "m")) == ("n", "m") and len(shape(np.sort, ("n", "m"), axis=None)) == 1
    assert shape(np.take, ("n", "m"), ("k",), axis=-1) == ("n", "k")
    # (the indices' length along the axis; along another, x's length 1 broadcast)
    assert shape(np.take_along_axis, ("n", "m"), ("n", "k"), axis=1) == ("n", "k")
    assert shape(np.take_along_axis, (1, "m"), ("n", "k"), axis=-1) == ("n", "k")
    assert shape(np.take_along_axis, ("n", "m"), (1, "m"), axis=0) == (1, "m")
    assert shape(np.take_along_axis, ("n", "m"), ("k",), axis=None) == ("k",)
    assert shape(np.take_along_axis, ("n", "m"), ("k",)) is None  # (ranks differ: NumPy's error)
    assert kind(np.convolve, ArrayKind(1), ArrayKind(1), mode="same") == ArrayKind(1)
    assert shape(np.flip, ("n", "m")) == ("n", "m") and shape(np.triu, ("n", "n")) == ("n", "n")
    assert shape(np.diff, ("n", "m"))[0] == "n" and shape(np.diff, ("n", "m"), axis=0)[1] == "m"
    assert shape(np.atleast_2d, ("n",)) == (1, "n") and shape(np.atleast_3d, ("n", "m")) == ("n", "m", 1)
    assert shape(np.median, ("n", "m"), axis=0) == ("m",)
    assert kind(np.einsum, SCALAR, ArrayKind(2), ArrayKind(2), values=("ij,jk->ik",)) == ArrayKind(2)
    assert kind(np.einsum, SCALAR, ArrayKind(1), ArrayKind(1), values=("i,i",)) == SCALAR
    assert kind(np.einsum, SCALAR, ArrayKind(3), values=("...ii->...i",)) == ArrayKind(2)
    assert kind(np.tensordot, ArrayKind(3), ArrayKind(3), axes=((1, 2), (0, 1))) == ArrayKind(2)
    assert kind(np.tensordot, ArrayKind(3), ArrayKind(2)) == ArrayKind(1)
    assert kind(np.diag, ArrayKind(1)) == ArrayKind(2) and kind(np.diag, ArrayKind(2)) == ArrayKind(1)
    assert kind(np.repeat, ArrayKind(2), ArrayKind(None)) == ArrayKind(1)
    assert kind(np.kron, ArrayKind(2), ArrayKind(2)) == ArrayKind(2)
