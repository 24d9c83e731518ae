"""Examples for the rules of `primitives.shaping_reverse` and `shaping_forward`
(tests/test_rules.py's `array_examples` asks here for their keys): each function
with the options it takes, axes counted from the end and tuples of axes among them,
on points away from ties (a sort or a median with two equal elements is a kink)."""

import numpy as np


def arr(r, shape, lo=-1.0, hi=1.0):
    if shape == ():
        return r.uniform(lo, hi)
    return np.asarray([r.uniform(lo, hi) for _ in range(int(np.prod(shape)))]).reshape(shape)


def distinct(r, shape):
    """Values far enough apart that a small step does not reorder them."""
    n = int(np.prod(shape))
    values = np.linspace(-1.0, 1.0, n) + np.asarray([r.uniform(0.0, 0.5 / n) for _ in range(n)])
    r.shuffle(values)
    return values.reshape(shape)


def with_zeros(r, shape, at):
    x = arr(r, shape, 0.5, 1.5) * np.where(arr(r, shape) > 0, 1, -1)
    x.flat[list(at)] = 0.0
    return x


def examples(key, rule, r):
    """(inputs, options) examples for the rule `rule` of `key`."""
    x = arr(r, (3, 4))
    if key is np.cumprod:  # (and zeros: one, two, one per row, none at the start)
        return [([arr(r, (3, 4), 0.5, 1.5)], {}), ([x], {"axis": 0}), ([x], {"axis": -1}),
                ([arr(r, (5,))], {}), ([with_zeros(r, (5,), [2])], {}),
                ([with_zeros(r, (6,), [1, 4])], {}), ([with_zeros(r, (3, 4), [1, 6, 8])], {"axis": 1}),
                ([with_zeros(r, (3, 4), [0, 5])], {"axis": 0}), ([with_zeros(r, (2, 3), [3])], {}),
                # lists and tuples of numbers
                ([[0.5, -1.2, 0.9]], {}), ([(0.7, 0.0, 1.3)], {"axis": 0})]
    if key is np.diff:
        return [([arr(r, (5,))], {}), ([x], {}), ([x], {"axis": 0}), ([x], {"n": 2}),
                ([x], {"n": 2, "axis": -2}), ([arr(r, (2, 5, 3))], {"n": 3, "axis": 1})]
    if key is np.gradient:  # (two points: one-sided differences only; axes from the end)
        return {("1d",): [([arr(r, (5,))], {}), ([arr(r, (2,))], {}), ([arr(r, (6,))], {"axis": -1})],
                ("1d", "scalar"): [([arr(r, (5,)), 0.3], {}), ([arr(r, (2,)), 1.7], {}),
                                   ([arr(r, (4,)), 0.5], {"axis": 0})],
                None: [([x], {"axis": 0}), ([x], {"axis": -1}), ([arr(r, (2, 3, 4))], {"axis": 1})],
                ("any", "scalar"): [([x, 0.4], {"axis": 1}), ([arr(r, (2, 3, 4)), 1.3], {"axis": -3})],
                }[rule.when]
    if key is np.sort:
        return [([distinct(r, (5,))], {}), ([distinct(r, (3, 4))], {}),
                ([distinct(r, (3, 4))], {"axis": 0}), ([distinct(r, (3, 4))], {"axis": None}),
                ([distinct(r, (2, 3, 4))], {"axis": -2}),
                ([[0.5, -1.2, 0.9, 0.1]], {}), ([(0.7, -0.3, 1.3)], {"axis": 0})]
    if key is np.partition:  # (any rank along the axis, several, counted from the end)
        return [([distinct(r, (6,)), 2], {}), ([distinct(r, (6,)), -1], {}), ([distinct(r, (6,)), (1, 4)], {}),
                ([distinct(r, (3, 4)), 1], {"axis": 0}), ([distinct(r, (3, 4)), 3], {"axis": -1}),
                ([distinct(r, (3, 4)), 5], {"axis": None}), ([distinct(r, (2, 3, 4)), (0, 2)], {"axis": -2})]
    if key is np.take:
        return [([x, np.array([0, 2, 2])], {}), ([x, [1, 0]], {"axis": 0}),
                ([x, np.array([[3, 0], [3, 1]])], {"axis": -1}), ([x, 5], {}), ([x, 2], {"axis": 1}),
                ([arr(r, (2, 3, 4)), np.array([1, -1])], {"axis": 1})]
    if key is np.take_along_axis:  # (repeated indices, an axis of x of length 1 broadcast)
        return [([x, np.array([[0, 0], [1, 3], [2, 2]])], {"axis": 1}),
                ([x, np.array([[2, 0, 1, 1], [2, 2, 0, 0]])], {"axis": 0}),
                ([x, np.array([[3, 3, 1]])], {"axis": -1}), ([x, np.array([5, 5, 0, 11])], {"axis": None}),
                ([arr(r, (1, 4)), np.array([[0, 1], [2, 3], [1, 1]])], {"axis": 1}),
                ([arr(r, (2, 3, 4)), np.array([[[1], [1]], [[0], [2]]])], {"axis": -2}),
                ([arr(r, (5,)), np.array([4, 0, 4, 1])], {})]
    if key in (np.convolve, np.correlate):  # (either input the longer, in every mode)
        sizes = [(7, 3), (3, 7), (6, 4), (4, 6), (5, 5), (2, 5), (4, 1), (1, 4), (1, 1)]
        return [([arr(r, (n,)), arr(r, (m,))], {} if mode is None else {"mode": mode})
                for n, m in sizes for mode in (None, "full", "valid", "same")]
    if key is np.roll:
        out = [([arr(r, (5,)), 2], {}), ([x, 1], {"axis": 0}), ([x, -3], {"axis": -1}),
               ([x, 5], {})]
        if rule.when is None:  # (shifts for several axes)
            out += [([x, (1, -1)], {"axis": (0, 1)}), ([arr(r, (2, 3, 4)), [2, 1]], {"axis": (-1, 0)})]
        return out
    if key is np.flip:
        return [([x], {}), ([x], {"axis": 0}), ([x], {"axis": -1}),
                ([arr(r, (2, 3, 4))], {"axis": (0, 2)})]
    if key in (np.split, np.array_split):  # (uneven pieces: array_split only)
        out = [([arr(r, (6,))], {"indices_or_sections": 3}), ([x], {"indices_or_sections": (1, 3), "axis": 1}),
               ([x], {"indices_or_sections": [2], "axis": -2}),
               ([arr(r, (2, 4, 3))], {"indices_or_sections": 2, "axis": -2})]
        return out + ([([arr(r, (7,))], {"indices_or_sections": 3}),
                       ([x], {"indices_or_sections": 3, "axis": 1})] if key is np.array_split else [])
    if key in (np.vsplit, np.hsplit, np.dsplit):
        shape = {np.vsplit: (4, 3), np.hsplit: (3, 4), np.dsplit: (2, 3, 4)}[key]
        out = [([arr(r, shape)], {"indices_or_sections": 2}),
               ([arr(r, (2, 4, 4))], {"indices_or_sections": (1, 3)})]
        return out + ([([arr(r, (6,))], {"indices_or_sections": [2, 5]})] if key is np.hsplit else [])
    if key is np.rot90:
        return [([x], {}), ([x], {"k": 2}), ([x], {"k": -1}), ([arr(r, (2, 3, 4))], {"k": 3, "axes": (2, 0)}),
                ([arr(r, (2, 3, 4))], {"k": 1, "axes": (-1, -2)})]
    if key in (np.fliplr, np.flipud):
        return [([x], {}), ([arr(r, (2, 3, 4))], {})]
    if key is np.pad:
        return [([arr(r, (4,)), 2], {}), ([x, (1, 2)], {}), ([x, ((1, 0), (0, 2))], {}),
                ([x, 1], {"mode": "constant", "constant_values": 0.5}), ([x, ((2, 1),)], {})]
    if key is np.tile:
        return [([arr(r, (3,)), 2], {}), ([x, (2, 1)], {}), ([x, (2, 1, 3)], {}),
                ([arr(r, (3,)), (2, 2)], {})]
    if key is np.repeat:
        return [([arr(r, (3,)), 2], {}), ([x, 2], {}), ([x, 3], {"axis": 0}),
                ([x, np.array([1, 0, 2, 1])], {"axis": -1}), ([x, [2, 0, 0]], {"axis": 0})]
    if key in (np.atleast_1d, np.atleast_2d, np.atleast_3d):
        return [([arr(r, (3,))], {}), ([x], {}), ([arr(r, (2, 3, 4))], {})]
    if key is np.kron:  # (other ranks: the fallback)
        return {("1d", "1d"): [([arr(r, (3,)), arr(r, (4,))], {})],
                ("2d", "2d"): [([arr(r, (2, 3)), arr(r, (3, 2))], {}), ([x, arr(r, (1, 2))], {})],
                None: [([arr(r, (3,)), arr(r, (2, 2))], {}), ([arr(r, (2, 1, 3)), arr(r, (2, 2))], {}),
                       ([x, arr(r, (3,))], {})]}[rule.when]
    if key is np.cross:  # (broadcasting, the vector axes elsewhere, `axis` for all three)
        return [([arr(r, (3,)), arr(r, (3,))], {}), ([arr(r, (4, 3)), arr(r, (3,))], {}),
                ([arr(r, (4, 3)), arr(r, (2, 1, 3))], {}),
                ([arr(r, (3, 4)), arr(r, (4, 3))], {"axisa": 0}),
                ([arr(r, (3, 4)), arr(r, (2, 3, 4))], {"axisa": 0, "axisb": -2, "axisc": 0}),
                ([arr(r, (2, 3, 4)), arr(r, (3, 4))], {"axis": -2}),
                ([[0.5, -0.2, 0.9], arr(r, (3,))], {})]
    if key is np.tensordot:
        a, b = arr(r, (2, 3, 4)), arr(r, (3, 4, 2))
        return [([a, b], {}), ([a, arr(r, (4, 5))], {"axes": 1}),
                ([a, b], {"axes": ((1, 2), (0, 1))}), ([a, b], {"axes": ((2, 1), (1, 0))}),
                ([a, b], {"axes": (-2, 0)}), ([x, arr(r, (4, 3))], {"axes": ((0, 1), (1, 0))}),
                ([arr(r, (3,)), arr(r, (2,))], {"axes": 0})]
    if key is np.einsum:
        shapes = {2: [("ij->ji", (3, 4)), ("ii->i", (3, 3)), ("ii", (3, 3)), ("ij->", (3, 4)),
                      ("ij->i", (3, 4)), ("...ij->...j", (2, 3, 4)), ("ij", (3, 4)), ("iij->ji", (3, 3, 2))],
                  3: [("ij,jk->ik", (3, 4), (4, 2)), ("ij,jk", (3, 4), (4, 2)), ("i,i", (4,), (4,)),
                      ("i,j->ij", (3,), (4,)), ("bij,bjk->bik", (2, 3, 4), (2, 4, 2)),
                      ("...ij,jk->...ik", (2, 3, 4), (4, 2)), ("ij,k->ijk", (2, 3), (4,)),
                      ("ij, ij -> i", (3, 4), (3, 4))],
                  4: [("ij,jk,kl->il", (2, 3), (3, 4), (4, 2)), ("i,i,i", (4,), (4,), (4,)),
                      ("ij,i,j->", (3, 4), (3,), (4,))],
                  5: [("ij,jk,kl,l->i", (2, 3), (3, 4), (4, 2), (2,)),
                      ("i,i,i,i", (3,), (3,), (3,), (3,))]}[rule.arity]
        return [([s] + [arr(r, sh) for sh in shs], {}) for s, *shs in shapes]
    if key is np.diag:
        if rule.when == ("1d",):
            return [([arr(r, (4,))], {}), ([arr(r, (3,))], {"k": 1}), ([arr(r, (3,))], {"k": -2})]
        return [([arr(r, (4, 4))], {}), ([x], {}), ([x], {"k": 1}), ([x], {"k": -1}),
                ([arr(r, (4, 3))], {"k": 2})]
    if key is np.diagonal:  # (offsets either side, other axes, counted from the end)
        return [([arr(r, (4, 4))], {}), ([x], {"offset": 1}), ([x], {"offset": -2}),
                ([arr(r, (2, 3, 4))], {"axis1": 1, "axis2": 2}),
                ([arr(r, (2, 3, 4))], {"offset": 1, "axis1": -1, "axis2": 0}),
                ([arr(r, (3, 2, 3))], {"offset": -1, "axis1": 2, "axis2": -3})]
    if key in (np.triu, np.tril):
        return [([arr(r, (4, 4))], {}), ([x], {"k": 1}), ([x], {"k": -1}),
                ([arr(r, (2, 3, 3))], {})]
    if key is np.median:
        return [([distinct(r, (5,))], {}), ([distinct(r, (4,))], {}), ([distinct(r, (3, 4))], {}),
                ([distinct(r, (3, 4))], {"axis": 0}), ([distinct(r, (3, 4))], {"axis": -1}),
                ([distinct(r, (3, 5))], {"axis": 1, "keepdims": True}),
                ([distinct(r, (2, 3, 4))], {"axis": (0, -1)})]
    if key in (np.quantile, np.percentile):  # (q of 0 and of 1, one q, several, a grid point)
        scale = 100.0 if key is np.percentile else 1.0
        qs = [0.3, np.array([0.0, 0.45, 1.0]), 0.5, [0.1, 0.9], np.array([0.25])]
        return [([distinct(r, (7,)), qs[0] * scale], {}), ([distinct(r, (7,)), qs[1] * scale], {}),
                ([distinct(r, (3, 5)), qs[2] * scale], {"axis": 1}),
                ([distinct(r, (3, 5)), np.multiply(qs[3], scale)], {"axis": 0, "keepdims": True}),
                ([distinct(r, (3, 4)), 0.7 * scale], {"axis": -1, "method": "linear"}),
                ([distinct(r, (2, 3, 4)), qs[4] * scale], {"axis": (0, -1)}),
                ([distinct(r, (3, 5)), 0.6 * scale], {"keepdims": True})]
    if key is np.average:
        w = arr(r, (3, 4), 0.5, 1.5)
        if rule.arity == 1:
            return [([x], {}), ([x], {"axis": 0}), ([x], {"axis": -1, "keepdims": True}),
                    ([arr(r, (2, 3, 4))], {"axis": (0, 2)})]
        return [([arr(r, (4,)), arr(r, (4,), 0.5, 1.5)], {}),
                ([arr(r, (4,)), arr(r, (4,), 0.5, 1.5)], {"axis": 0}),
                ([x, w], {}), ([x, w], {"axis": 0}), ([x, w], {"axis": -1, "keepdims": True}),
                # weights of one axis
                ([x, arr(r, (3,), 0.5, 1.5)], {"axis": 0}), ([x, arr(r, (4,), 0.5, 1.5)], {"axis": -1}),
                ([x, arr(r, (4,), 0.5, 1.5)], {"axis": 1, "keepdims": True}),
                ([arr(r, (2, 3, 4)), arr(r, (3,), 0.5, 1.5)], {"axis": 1}),
                ([arr(r, (2, 3, 4)), arr(r, (2, 3, 4), 0.5, 1.5)], {"axis": (0, 2)})]
    if key in (np.nansum, np.nanmean):
        holes = arr(r, (3, 4))
        holes[0, 1] = holes[2, 3] = np.nan
        return [([x], {}), ([holes], {}), ([holes], {"axis": 0}), ([holes], {"axis": -1}),
                ([holes], {"axis": 1, "keepdims": True}), ([arr(r, (2, 3, 4))], {"axis": (0, 2)})]
    if key in TRAPEZOIDS:  # (1-D steps along another axis, steps of y's shape, one point)
        if "x" not in rule.inputs:
            return [([arr(r, (5,)), 1.0], {}), ([x, 1.0], {"axis": 0}), ([x, 0.3], {}),
                    ([arr(r, (2, 3, 4)), 2.0], {"axis": -2}), ([arr(r, (1,)), 1.0], {})]
        return [([arr(r, (5,)), np.cumsum(arr(r, (5,), 0.1, 1.0)), 1.0], {}), ([x, arr(r, (4,)), 1.0], {}),
                ([x, arr(r, (3,)), 1.0], {"axis": 0}), ([x, arr(r, (3, 4)), 1.0], {"axis": 0}),
                ([arr(r, (2, 3, 4)), arr(r, (3,)), 1.0], {"axis": 1}), ([x, arr(r, (3, 4)), 0.5], {"axis": -1}),
                ([arr(r, (4,)), arr(r, (3, 4)), 1.0], {}), ([arr(r, (1,)), arr(r, (1,)), 1.0], {})]
    if key is np.interp:  # (points away from the knots, past both ends, a value given there)
        xp, fp = np.array([-1.0, -0.3, 0.2, 0.9]), arr(r, (4,))
        points = np.array([-1.4, -0.8, -0.1, 0.5, 0.7, 1.2]) + arr(r, (6,), 0.0, 0.05)
        # (values at both ends first: the template test takes the first example)
        return [([points, xp, fp, -0.6, 1.5], {}), ([points, xp, fp, None, None], {}),
                ([0.35, xp, fp, None, None], {}), ([points.reshape(2, 3), xp, fp, None, None], {}),
                ([points, xp, fp, 0.4, None], {}), ([-1.2, xp, fp, None, 2.0], {})]
    if key is np.meshgrid:
        return [([arr(r, (3,)), arr(r, (4,))], {}), ([arr(r, (3,)), arr(r, (4,))], {"indexing": "ij"}),
                ([arr(r, (2,)), arr(r, (2,))], {"indexing": "xy"}), ([arr(r, (1,)), arr(r, (3,))], {})]
    if key is np.polyval:  # (x a number, a vector, a matrix; p of one coefficient; lists)
        p = arr(r, (4,))
        return [([p, arr(r, (5,))], {}), ([p, 0.7], {}), ([arr(r, (3,)), x], {}),
                ([arr(r, (1,)), arr(r, (3,))], {}), ([p, np.array([0.0, 1.0, -1.0])], {}),
                ([[0.5, -1.2, 0.3], arr(r, (4,))], {}), ([(0.4, 1.1), -0.6], {})]
    if key is np.bincount:  # (repeated bins, empty bins, more bins than the largest needs)
        return [([np.array([0, 2, 2, 1, 4]), arr(r, (5,))], {}),
                ([np.array([3, 3, 0]), arr(r, (3,))], {"minlength": 6}), ([[1, 1, 0], arr(r, (3,))], {})]
    return more_examples(key, rule, r)


def more_examples(key, rule, r):
    """The examples of the rules added with np.ptp, the NaN-skipping reductions,
    np.cov and the functions that join, insert and delete."""
    x = arr(r, (3, 4))
    holes = arr(r, (3, 4))
    holes[0, 1] = holes[2, 3] = np.nan
    if key in (np.nanmax, np.nanmin, np.ptp):  # (NaN and no ties for np.ptp)
        out = [([distinct(r, (3, 4))], {}), ([distinct(r, (3, 4))], {"axis": 0}),
               ([distinct(r, (3, 4))], {"axis": -1, "keepdims": True}),
               ([distinct(r, (2, 3, 4))], {"axis": (0, 2)}), ([list(distinct(r, (4,)))], {})]
        if key is not np.ptp:
            d = distinct(r, (3, 4))
            d[0, 1] = d[2, 3] = np.nan
            out += [([d], {}), ([d], {"axis": 0}), ([d], {"axis": 1, "keepdims": True})]
        return out
    if key in (np.nanprod, np.nanvar, np.nanstd):
        out = [([x], {}), ([holes], {}), ([holes], {"axis": 0}), ([holes], {"axis": -1}),
               ([holes], {"axis": 1, "keepdims": True}), ([arr(r, (2, 3, 4))], {"axis": (0, 2)})]
        return out + ([([holes], {"axis": 1, "ddof": 1})] if key is not np.nanprod else [])
    if key is np.nancumsum:
        return [([x], {}), ([holes], {}), ([holes], {"axis": 0}), ([holes], {"axis": -1})]
    if key is np.ediff1d:
        return [([arr(r, (5,))], {}), ([x], {}), ([[0.5, -0.2, 0.9]], {})]
    if key is np.broadcast_to:
        return [([arr(r, (4,)), (3, 4)], {}), ([arr(r, (3, 1)), (2, 3, 4)], {}), ([0.7, (2, 2)], {}),
                ([x, (3, 4)], {})]
    if key in (np.column_stack, np.dstack):  # (parts of one, two and three axes)
        return [([[arr(r, (3,)), arr(r, (3,))]], {}),
                ([[x, arr(r, (3,)), arr(r, (3, 2))] if key is np.column_stack else
                  [arr(r, (2, 3)), arr(r, (2, 3, 2))]], {}),
                ([[arr(r, (3, 4, 2)), arr(r, (3, 4, 1))] if key is np.dstack else
                  [arr(r, (3, 2, 2)), arr(r, (3, 1, 2))]], {}), ([[x, x]], {})]
    if key is np.append:
        return [([arr(r, (4,)), arr(r, (2,))], {}), ([x, arr(r, (2, 2))], {}), ([x, 0.5], {}),
                ([x, arr(r, (1, 4))], {"axis": 0}), ([x, arr(r, (3, 2))], {"axis": -1})]
    if key is np.insert:  # (values broadcast, placed along an axis, several places)
        return [([arr(r, (5,)), 2, 0.5], {}), ([arr(r, (5,)), -1, arr(r, (3,))], {}),
                ([x, 1, arr(r, (4,))], {"axis": 0}), ([x, 2, arr(r, (3,))], {"axis": 1}),
                ([arr(r, (2, 3)), 1, arr(r, (2, 2))], {"axis": 1}), ([x, 0, 0.3], {"axis": -1}),
                ([arr(r, (5,)), [1, 3, 3], arr(r, (3,))], {}), ([x, 5, arr(r, (2,))], {})]
    if key is np.delete:
        return [([arr(r, (5,)), 2], {}), ([x, 1], {"axis": 0}), ([x, [0, 2]], {"axis": -1}),
                ([x, np.array([1, 5, 11])], {}), ([x, slice(1, 3)], {"axis": 1})]
    if key is np.compress:  # (a condition shorter than the axis)
        return [([np.array([True, False, True, True, False]), arr(r, (5,))], {}),
                ([[False, True, True], x], {"axis": 0}), ([np.array([True, False, True]), x], {"axis": 1}),
                ([[True, True, False, True], x], {})]
    if key is np.select:  # (conditions that overlap, broadcast; a default array or number)
        c1, c2 = arr(r, (3, 4)) > 0.2, arr(r, (4,)) > -0.3
        return [([[c1, c2], [arr(r, (3, 4)), arr(r, (4,))], arr(r, (3, 4))], {}),
                ([[c1, c2], [arr(r, (3, 4)), arr(r, (3, 4))], 0.5], {}),
                ([[c2], [arr(r, (4,))], arr(r, (3, 1))], {}), ([[c1, c2], [0.2, arr(r, (4,))], 0.0], {})]
    if key in (np.cov, np.corrcoef):  # (variables in rows or columns, one variable, scales)
        out = [([arr(r, (3, 5))], {}), ([arr(r, (5, 3))], {"rowvar": False}), ([arr(r, (6,))], {}),
               ([arr(r, (5, 1))], {"rowvar": False}), ([[[0.5, -0.2, 0.9], [0.1, 0.4, -0.8]]], {})]
        if key is np.cov:
            out += [([arr(r, (3, 5))], {"bias": True}), ([arr(r, (2, 6))], {"ddof": 2}),
                    ([arr(r, (4, 3))], {"rowvar": False, "ddof": 0})]
        return out
    raise AssertionError(f"no examples for {key}")


TRAPEZOIDS = (np.trapezoid,) + ((np.trapz,) if hasattr(np, "trapz") else ())
KEYS = {*TRAPEZOIDS, np.interp, np.bincount, np.cross, np.cumprod, np.diff, np.sort, np.take, np.take_along_axis, np.convolve,
        np.correlate, np.roll, np.flip, np.fliplr, np.flipud, np.pad,
        np.partition, np.rot90, np.split, np.array_split, np.vsplit, np.hsplit, np.dsplit,
        np.tile, np.repeat, np.atleast_1d, np.atleast_2d, np.atleast_3d, np.kron, np.tensordot,
        np.einsum, np.diag, np.diagonal, np.triu, np.tril, np.median, np.polyval, np.meshgrid, np.quantile, np.percentile, np.gradient, np.average, np.nansum, np.nanmean,
        np.nanmax, np.nanmin, np.ptp, np.nanprod, np.nanvar, np.nanstd, np.nancumsum, np.ediff1d,
        np.broadcast_to, np.column_stack, np.dstack, np.append, np.insert, np.delete, np.compress,
        np.select, np.cov, np.corrcoef}


def helper_examples(key, r):
    """(inputs, options) examples for the runtime helpers of the shaping rules' adjoints."""
    from s2sad import runtime

    x = arr(r, (3, 4))
    if key is runtime.cumprod_bar:  # (c is np.cumprod(x, axis), given to save work)
        zeros = with_zeros(r, (3, 4), [1, 6, 8])
        return [([arr(r, (3, 4)), zeros, np.cumprod(zeros, axis=1)], {"axis": 1}),
                ([arr(r, (12,)), x, np.cumprod(x)], {}),
                ([arr(r, (6,)), with_zeros(r, (6,), [2]), np.cumprod(with_zeros(r, (6,), [2]))], {})]
    if key is runtime.take_bar:
        return [([arr(r, (3,)), x, np.array([0, 2, 2])], {}),
                ([arr(r, (3, 2)), x, np.array([1, 1])], {"axis": -1})]
    if key is runtime.take_along_axis_bar:
        return [([arr(r, (3, 2)), x, np.array([[0, 0], [1, 3], [2, 2]])], {"axis": 1}),
                ([arr(r, (4,)), x, np.array([5, 5, 0, 11])], {"axis": None})]
    if key is runtime.unsort:
        order = np.argsort(distinct(r, (3, 4)), axis=0)
        return [([arr(r, (3, 4)), x, order], {"axis": 0}),
                ([arr(r, (12,)), x, np.argsort(distinct(r, (12,)))], {"axis": None})]
    if key is runtime.unpad:
        return [([arr(r, (5, 7)), ((1, 1), (2, 1))], {}), ([arr(r, (6,)), 1], {})]
    if key is runtime.untile:
        return [([arr(r, (6, 4)), x], {}), ([arr(r, (2, 3, 8)), x], {})]
    if key is runtime.unrepeat:
        return [([arr(r, (24,)), x, 2], {}), ([arr(r, (3, 5)), x, np.array([2, 0, 1, 2])],
                                                {"axis": 1})]
    if key is runtime.unsplit:  # (a piece nothing read: 0.0)
        return [([[arr(r, (1, 4)), arr(r, (2, 4))], [x[:1], x[1:]]], {}),
                ([[arr(r, (3, 2)), 0.0, arr(r, (3, 1))], [x[:, :2], x[:, 2:3], x[:, 3:]]], {"axis": -1})]
    if key is runtime.gradient_bar:
        return [([arr(r, (5,)), arr(r, (5,))], {}), ([arr(r, (2,)), arr(r, (2,)), 2.0], {}),
                ([arr(r, (3, 4)), x, 0.5], {"axis": 0}), ([arr(r, (3, 4)), x, 1.5], {"axis": -1})]
    if key is runtime.quantile_bar:
        return [([arr(r, (2,)), distinct(r, (7,)), np.array([0.3, 1.0])], {}),
                ([arr(r, (3,)), distinct(r, (3, 4)), 0.4], {"axis": 1}),
                ([arr(r, (3, 1)), distinct(r, (3, 4)), 40.0], {"axis": -1, "keepdims": True, "whole": 100.0})]
    if key is runtime.diag_bar:
        return [([arr(r, (3,)), x], {}), ([arr(r, (2,)), x], {"k": -1})]
    if key is runtime.diagonal_bar:
        return [([arr(r, (3,)), x], {}), ([arr(r, (2, 2)), arr(r, (2, 3, 4))],
                                          {"offset": 1, "axis1": -1, "axis2": 1})]
    if key is runtime.diff_bar:
        return [([arr(r, (3, 3)), x], {}), ([arr(r, (1, 4)), x], {"n": 2, "axis": 0})]
    if key is runtime.median_bar:
        return [([arr(r, (3,)), distinct(r, (3, 4))], {"axis": 1}), ([0.7, distinct(r, (3, 4))], {})]
    if key in (runtime.kron_a_bar, runtime.kron_b_bar):
        return [([arr(r, (6, 6)), arr(r, (2, 3)), arr(r, (3, 2))], {}),
                ([arr(r, (2, 6)), arr(r, (3,)), arr(r, (2, 2))], {})]
    if key in (runtime.cross_a_bar, runtime.cross_b_bar):
        return [([arr(r, (4, 3)), arr(r, (4, 3)), arr(r, (3,))], {}),
                ([arr(r, (3, 2)), arr(r, (3, 2)), arr(r, (2, 3))], {"axisa": 0, "axisb": -1, "axisc": 0})]
    if key in (runtime.tensordot_a_bar, runtime.tensordot_b_bar):
        return [([arr(r, (2, 5)), arr(r, (2, 3, 4)), arr(r, (3, 4, 5))], {}),
                ([arr(r, (2, 4, 4)), arr(r, (2, 3, 4)), arr(r, (3, 4))], {"axes": ((1,), (0,))})]
    if key is runtime.einsum_bar:
        return [(["ij->i", 0, arr(r, (3,)), x], {}),
                (["ij,jk->ik", 0, arr(r, (3, 2)), x, arr(r, (4, 2))], {}),
                (["ij,jk->ik", 1, arr(r, (3, 2)), arr(r, (4, 2)), x], {}),
                (["ij,jk,k->i", 1, arr(r, (2,)), arr(r, (3, 4)), arr(r, (2, 3)), arr(r, (4,))], {}),
                (["i,ij,jk,k->", 2, 1.3, arr(r, (3, 4)), arr(r, (2,)), arr(r, (2, 3)), arr(r, (4,))],
                 {})]
    if key is runtime.trapezoid_bar:  # (steps of x, of a 1-D x along another axis, or dx)
        return [([arr(r, (3,)), x, arr(r, (3, 4)), 1.0], {}), ([arr(r, (4,)), x, arr(r, (3,)), 1.0], {"axis": 0}),
                ([0.7, arr(r, (5,)), arr(r, (5,)), 1.0], {}), ([arr(r, (4,)), x, None, 0.3], {"axis": 0})]
    if key is runtime.trapezoid_x_bar:
        return [([arr(r, (3,)), x, arr(r, (3, 4))], {}), ([arr(r, (4,)), x, arr(r, (3,))], {"axis": 0}),
                ([0.7, arr(r, (5,)), arr(r, (5,))], {}), ([arr(r, (3,)), arr(r, (4,)), arr(r, (3, 4))], {})]
    xp = np.array([-1.0, -0.3, 0.2, 0.9])
    points = np.array([-1.4, -0.8, -0.1, 0.5, 1.2]) + arr(r, (5,), 0.0, 0.05)
    if key is runtime.interp_x_bar:
        return [([arr(r, (5,)), points, xp, arr(r, (4,))], {}), ([0.7, 0.35, xp, arr(r, (4,))], {})]
    if key is runtime.interp_fp_bar:
        return [([arr(r, (5,)), points, xp], {}), ([arr(r, (5,)), points, xp], {"left": 0.3, "right": 0.1}),
                ([0.7, 0.35, xp], {})]
    if key is runtime.stack_pieces:
        return [([arr(r, (3, 6)), [arr(r, (3,)), x, arr(r, (3, 1))]], {"axis": 1}),
                ([arr(r, (1, 3, 2)), [arr(r, (3,)), arr(r, (1, 3))]], {"axis": 2})]
    if key is runtime.multi_dot_bar:  # (1-D ends)
        return [([arr(r, (3, 2)), [x, arr(r, (4, 5)), arr(r, (5, 2))]], {}),
                ([arr(r, (5,)), [arr(r, (3,)), x, arr(r, (4, 5))]], {}),
                ([0.7, [arr(r, (3,)), x, arr(r, (4, 2)), arr(r, (2,))]], {})]
    if key is runtime.select_bar:
        c1, c2 = arr(r, (3, 4)) > 0.2, arr(r, (4,)) > -0.3
        return [([arr(r, (3, 4)), [c1, c2], [x, arr(r, (4,))]], {})]
    return None


HELPER_KEYS_NAMES = ("trapezoid_bar", "trapezoid_x_bar", "interp_x_bar", "interp_fp_bar", "cumprod_bar", "take_bar", "take_along_axis_bar", "unsort", "unsplit", "cross_a_bar", "cross_b_bar", "diagonal_bar", "unpad", "untile", "unrepeat",
                     "diag_bar", "diff_bar", "median_bar", "quantile_bar", "gradient_bar", "kron_a_bar", "kron_b_bar",
                     "tensordot_a_bar", "tensordot_b_bar", "einsum_bar", "stack_pieces", "multi_dot_bar",
                     "select_bar")
