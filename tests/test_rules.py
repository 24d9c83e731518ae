"""The rule tables, row by row: each rule against central differences, forward and
reverse paired by the dot-product test, and the inlined template against the rule.

Each row gets examples from `examples(key, rule)`: scalar points on the primitive's
valid domain (the `domain` of its row in `primitives.facts`), and for NumPy rules
arrays over the broadcasting pairs (scalar, (4,), (3, 4), (1, 4), (3, 1)) where they
apply, with the options (axis, keepdims) the rule takes."""

import ast
import math
import operator
import random
import warnings
import zlib

import numpy as np
import pytest

import s2sad
import linalg_examples
import shaping_examples
from helpers import central_diff

from s2sad.engines.primitives import call_rule
from s2sad.ir.kinds import kind_of
from s2sad import primitives as rules
from s2sad import runtime
from s2sad.primitives import facts
from s2sad.primitives import forward as forward_table
from s2sad.primitives import helpers as helpers_table
from s2sad.primitives import linalg_forward as linalg_forward_table
from s2sad.primitives import linalg_reverse as linalg_reverse_table
from s2sad.primitives import reverse as reverse_table
from s2sad.primitives import shaping_forward as shaping_forward_table
from s2sad.primitives import shaping_reverse as shaping_reverse_table
from s2sad.primitives import templates
from s2sad.primitives import ufuncs_forward as ufuncs_forward_table
from s2sad.primitives import ufuncs_reverse as ufuncs_reverse_table

OPERATOR_FUNCS = {
    "add": operator.add, "sub": operator.sub, "mul": operator.mul,
    "truediv": operator.truediv, "floordiv": operator.floordiv, "mod": operator.mod,
    "pow": operator.pow, "neg": operator.neg, "pos": operator.pos, "matmul": operator.matmul,
}


def primitive(key):
    if key is np.ndarray.item:  # (a NumPy number's method too)
        return lambda x: np.asarray(x).item()
    if key is np.float32:  # (its rounding, steps of 1e-7 that central differences with
        # h = 1e-6 cannot see past, is the cast's, not the derivative's: the rules are
        # checked on the cast's value in float64; tests/test_numpy_rules_added.py checks the
        # dtypes)
        return lambda x: np.float64(x)
    if key is runtime.cofactors:  # (its second argument is det(a), given to save work)
        return lambda a, det: runtime.cofactors(a, np.linalg.det(a))
    if key is runtime.cumprod_bar:  # (its third argument is cumprod(x), given to save work)
        return lambda g, x, c, axis=None: runtime.cumprod_bar(g, x, np.cumprod(x, axis), axis)
    if key in (np.sum, np.mean):  # (a mask is given by name, where=: the second is the axis)
        return lambda x, *where, **options: key(
            x, **options, **({"where": where[0]} if where else {}))
    if key is np.average:  # (weights are given by name: the second argument is the axis)
        return lambda a, *weights, **options: np.average(
            a, **options, **({"weights": weights[0]} if weights else {}))
    if key in shaping_examples.TRAPEZOIDS:  # (the rule without x: dx by name)
        return lambda y, *given, **options: key(y, *given, **options) if len(given) != 1 \
            else key(y, dx=given[0], **options)
    if getattr(key, "__name__", None) == "logsumexp":  # (scipy's: b by name, after the axis)
        return lambda a, *b, **options: key(a, **options, **({"b": b[0]} if b else {}))
    return OPERATOR_FUNCS.get(key, key)


def singular(r, n, rank):
    """An n x n matrix of `rank` (exactly singular where rank < n: repeated rows)."""
    a = arr(r, (n, n), -1, 1)
    for i in range(rank, n):
        a[i] = a[i - rank] * (i + 1.5)
    return a


# ------------------------------------------------------------------ examples

def domains(key, arity, default):
    """Where `key`'s rule is checked, one (lo, hi) or `facts.SIGNED` per input: its
    row's domain (`facts.Facts.domain`), else `default`."""
    domain = facts.facts_of(key).domain or default
    if domain == facts.SIGNED or isinstance(domain[0], (int, float)):
        return [domain] * arity
    return list(domain[:arity])


def draw(r, domain):
    """A number of `domain`: (lo, hi), or either sign away from 0 (`facts.SIGNED`)."""
    if domain == facts.SIGNED:
        return r.choice([-1, 1]) * r.uniform(0.3, 2.0)
    return r.uniform(*domain)

PAIRS = [((4,), (4,)), ((3, 4), (4,)), ((3, 1), (1, 4)), ((), (3, 4)), ((3, 4), ()),
         ((1, 4), (3, 4))]


def arr(r, shape, lo=0.3, hi=0.9):
    if shape == ():
        return r.uniform(lo, hi)
    return np.asarray([r.uniform(lo, hi) for _ in range(int(np.prod(shape)))]).reshape(shape)


def signed(r, shape):
    return arr(r, shape, 0.3, 1.5) * np.where(arr(r, shape, 0, 1) > 0.5, 1, -1)


def well_conditioned(r, n):
    return np.eye(n) * 2.0 + arr(r, (n, n), -0.3, 0.3)


def stacked(r, k, n):
    """`k` well-conditioned n x n matrices, one with a negative determinant."""
    return np.stack([well_conditioned(r, n) * (-1.0 if i == 1 else 1.0) for i in range(k)])


def array_examples(key, rule, r):
    """(inputs, options) examples for a NumPy rule."""
    when = rule.when
    if key in shaping_examples.KEYS:
        return shaping_examples.examples(key, rule, r)
    if key in linalg_examples.KEYS:
        return linalg_examples.examples(key, rule, r)
    if key == "matmul" or key in (np.dot, np.matmul):
        shapes = {("2d", "2d"): [((3, 4), (4, 2))], ("2d", "1d"): [((3, 4), (4,))],
                  ("1d", "2d"): [((4,), (4, 2))], ("1d", "1d"): [((4,), (4,))],
                  ("scalar", "array"): [((), (4,)), ((), (3, 4)), ((), (2, 3, 4))],
                  ("array", "scalar"): [((4,), ()), ((3, 4), ()), ((2, 3, 4), ())],
                  "array": [((2, 3, 4), (4, 2)), ((3, 4), (2, 4, 2)), ((4,), (2, 4, 3)),
                            ((2, 3, 4), (4,))]}[when]
        return [([arr(r, a, -1, 1), arr(r, b, -1, 1)], {}) for a, b in shapes]
    if isinstance(key, str):  # an operator on arrays
        if rule.arity == 1:
            return [([arr(r, s, *domains(key, 1, (-1, 1))[0])], {}) for s in [(4,), (3, 4)]]
        dx, dy = domains(key, 2, (-1, 1))
        out = [([arr(r, a, *dx), arr(r, b, *dy)], {}) for a, b in PAIRS]
        if key == "pow":
            out += ZERO_POWERS
        return out
    if key in (np.power, np.float_power, pow, np.arctan2, np.maximum, np.minimum, np.logaddexp):
        lo, hi = domains(key, 1, (0.5, 1.5))[0]
        out = [([arr(r, a, lo, hi), arr(r, b, lo, hi)], {}) for a, b in PAIRS]
        if key in (np.power, np.float_power, pow):
            out += ZERO_POWERS
        if key in (np.power, np.float_power):
            out += [([[0.0, 0.6, 0.0], 0], {}), ([[0.0, 0.6, 0.0], [0, 1, 2]], {})]
            # numbers (its variants for numbers are the rules of x ** y)
            out += [(list(xs), {}) for xs in SCALAR_ZERO_POWERS if xs[0] >= 0] + \
                [([r.uniform(lo, hi), r.uniform(lo, hi)], {}), ([r.uniform(lo, hi), 3], {})]
        if key is not pow:  # Python lists (and tuples) of numbers, with numbers and arrays
            out += [([as_list(arr(r, a, lo, hi)), as_list(arr(r, b, lo, hi))], {})
                    for a, b in [((4,), ()), ((), (4,)), ((4,), (4,))]]
            out += [([as_list(arr(r, (4,), lo, hi)), arr(r, (3, 4), lo, hi)], {}),
                    ([tuple(arr(r, (4,), lo, hi)), 0.9], {})]
        return out
    if key in UFUNC_PAIRS:
        return ufunc_pair_examples(key, r)
    if key is np.sinc:  # (at 0, and either side of where the Taylor polynomial takes over)
        return [([signed(r, (3, 4))], {}), ([np.array([0.0, 1e-4, -9e-4, 1.1e-3, -0.5, 2.5])], {}),
                ([0.0], {}), ([-0.7], {}), ([[0.0, 0.3, -1.2]], {})]
    if key is np.nan_to_num:  # (no derivative where x is NaN or infinite)
        # (infinities replaced by small numbers: the largest float would swamp the
        # central differences of the sum of the others)
        x = np.array([0.5, np.nan, -1.5, np.inf, -np.inf])
        return [([x[:3]], {}), ([x], {"nan": 2.0, "posinf": 9.0, "neginf": -9.0}), ([0.7], {}),
                ([arr(r, (3, 4), -1, 1)], {}), ([[0.2, np.nan]], {})]
    if key is np.ndarray.item:  # (of an array of one element)
        return [([arr(r, (1,), -1, 1)], {}), ([arr(r, (1, 1), -1, 1)], {}),
                ([np.array(0.4)], {}), ([np.float64(-0.3)], {})]
    if key is np.clip:  # (None: no bound)
        return [([arr(r, (3, 4), 0, 1), 0.3, arr(r, (4,), 0.6, 0.8)], {}),
                ([arr(r, (4,), 0, 1), arr(r, (4,), 0.2, 0.4), 0.7], {}),
                ([arr(r, (3, 4), 0, 1), None, arr(r, (4,), 0.6, 0.8)], {}),
                ([arr(r, (4,), 0, 1), arr(r, (4,), 0.2, 0.4), None], {})]
    if key is np.where:
        return [([arr(r, (3, 4), 0, 1) > 0.5, arr(r, (3, 4), -1, 1), arr(r, (4,), -1, 1)], {}),
                ([arr(r, (4,), 0, 1) > 0.5, 0.5, arr(r, (4,), -1, 1)], {})]
    if key in (np.sum, np.mean) and rule.arity == 2:  # (where=: a mask by name, broadcast)
        x = signed(r, (3, 4))
        mask = np.array([[True, False, True, False], [False, True, True, False], [True, True, False, True]])
        return [([x, mask], {}), ([x, mask], {"axis": 0}), ([x, mask], {"axis": -1, "keepdims": True}),
                ([x, np.array([True, False, True, True])], {"axis": 1}),
                ([x, np.array([[True], [False], [True]])], {"axis": 0, "keepdims": True}),
                ([signed(r, (2, 3, 4)), mask], {"axis": (0, -1)})] + (
                    # (a row the mask leaves empty: its sum is 0, its mean NaN)
                    [([x, np.array([[False], [False], [True]])], {"axis": 1})] if key is np.sum else [])
    if key in (np.sum, np.mean, np.prod, np.max, np.amax, np.min, np.amin):
        x = signed(r, (3, 4))
        return [([x], {}), ([x], {"axis": 0}), ([x], {"axis": 1, "keepdims": True}),
                ([x], {"axis": (0, 1)}), ([signed(r, (4,))], {}),
                # axes counted from the end
                ([x], {"axis": -1}), ([x], {"axis": -2, "keepdims": True}),
                ([signed(r, (2, 3, 4))], {"axis": (0, -1)})]
    if key in (np.var, np.std):
        x = signed(r, (3, 4))
        return [([x], {}), ([x], {"axis": 0}), ([x], {"axis": 1, "keepdims": True, "ddof": 1}),
                ([x], {"axis": -1}), ([signed(r, (2, 3, 4))], {"axis": (-1, 0), "keepdims": True}),
                # one element per result (std is 0 everywhere: derivative 0, not 0 / 0),
                # and rows of equal elements (a kink of std: 0, as the norm's)
                ([signed(r, (3, 1))], {"axis": 1}), ([signed(r, (1, 4))], {"axis": 0}),
                ([np.full((2, 3), 0.5)], {"axis": 1})]
    if key is np.linalg.norm:
        return [([signed(r, (4,))], {}), ([signed(r, (4,))], {"ord": 2}), ([signed(r, (3, 4))], {}),
                ([signed(r, (3, 4))], {"axis": 1}), ([signed(r, (3, 4))], {"ord": "fro"}),
                ([signed(r, (3, 4))], {"ord": 2, "axis": 0}), ([signed(r, (2, 3, 4))], {}),
                ([signed(r, (3, 4))], {"axis": -1}), ([signed(r, (2, 3, 4))], {"axis": (-2, -1)})] \
            + [([signed(r, (4,))], {"ord": o}) for o in (1, np.inf, -np.inf, 3, -1, -2, 1.5)] \
            + [([signed(r, (3, 4))], {"ord": o, "axis": 1, "keepdims": True}) for o in (1, -np.inf, 3)] \
            + [([signed(r, s)], {"ord": o}) for s in ((3, 4), (4, 3), (3, 3))
               for o in ("nuc", 2, -2, 1, -1, np.inf, -np.inf)] \
            + [([signed(r, (2, 3, 4))], {"ord": o, "axis": (2, 0), "keepdims": k})
               for o in ("nuc", 2, -2, -1, np.inf) for k in (False, True)] \
            + [  # edge points: a zero element (sign 0), ties of the largest magnitude or
                # of the column sums (shared equally, as central differences see them)
                ([np.array([0.0, -0.7, 0.7, 0.2])], {"ord": o}) for o in (1, np.inf)] \
            + [([np.array([[0.5, -0.2], [-0.5, 0.2]])], {"ord": o}) for o in (1, np.inf)]
    if key is np.cumsum:  # (axis=None: of x flattened)
        x = arr(r, (3, 4), -1, 1)
        return [([x], {}), ([x], {"axis": 0}), ([x], {"axis": -1}), ([arr(r, (4,), -1, 1)], {})]
    if key is np.outer:
        return [([arr(r, (3,), -1, 1), arr(r, (4,), -1, 1)], {})]
    if key is np.inner:
        return [([arr(r, (4,), -1, 1), arr(r, (4,), -1, 1)], {})]
    if key in (np.add.outer, np.subtract.outer, np.multiply.outer):  # (of any shapes)
        return [([arr(r, (3,), -1, 1), arr(r, (4,), -1, 1)], {}),
                ([arr(r, (2, 3), -1, 1), arr(r, (4,), -1, 1)], {}),
                ([arr(r, (3,), -1, 1), arr(r, (2, 2), -1, 1)], {}),
                ([r.uniform(-1, 1), arr(r, (4,), -1, 1)], {}),
                ([arr(r, (3,), -1, 1), r.uniform(-1, 1)], {})]
    if key is np.vdot:  # (N-D arrays flattened, of different shapes and the same size)
        return {("1d", "1d"): [([arr(r, (4,), -1, 1), arr(r, (4,), -1, 1)], {})],
                None: [([arr(r, (3, 4), -1, 1), arr(r, (3, 4), -1, 1)], {}),
                       ([arr(r, (2, 3), -1, 1), arr(r, (6,), -1, 1)], {}),
                       ([arr(r, (2, 3, 2), -1, 1), arr(r, (4, 3), -1, 1)], {})]}[rule.when]
    if key is np.trace:  # (of more axes: the diagonal of the first two; offsets, other axes)
        out = [([arr(r, (3, 3), -1, 1)], {}), ([arr(r, (3, 4), -1, 1)], {}),
               ([arr(r, (3, 4, 2), -1, 1)], {})]
        m = arr(r, (3, 4), -1, 1)
        out += [([m], {"offset": 1}), ([m], {"offset": -2}), ([arr(r, (3, 3), -1, 1)], {"offset": 0}),
                ([m], {"offset": 5}), ([m], {"offset": 1, "axis1": 1, "axis2": 0}),
                ([m], {"offset": -1, "axis1": -1, "axis2": -2}),
                ([arr(r, (2, 3, 4), -1, 1)], {"offset": 1, "axis1": 2, "axis2": 1}),
                ([arr(r, (2, 3, 4), -1, 1)], {"axis1": -1, "axis2": 0})]
        return out
    if key is np.transpose:
        return [([arr(r, (3, 4), -1, 1)], {}), ([arr(r, (2, 3, 4), -1, 1)], {"axes": (1, 2, 0)}),
                # axes counted from the end (the reverse rule inverts the permutation)
                ([arr(r, (2, 3, 4), -1, 1)], {"axes": (-1, 0, 1)}),
                ([arr(r, (2, 3, 4), -1, 1)], {"axes": (-2, -1, 0)}),
                ([arr(r, (2, 3, 4, 5), -1, 1)], {"axes": [3, -4, -2, 1]}),
                ([arr(r, (3, 4), -1, 1)], {"axes": (-1, -2)})]
    if key is np.swapaxes:
        return [([arr(r, (3, 4), -1, 1)], {"axis1": 0, "axis2": 1}),
                ([arr(r, (2, 3, 4), -1, 1)], {"axis1": -1, "axis2": -2}),
                ([arr(r, (2, 3, 4), -1, 1)], {"axis1": -3, "axis2": 2})]
    if key is np.moveaxis:
        x = arr(r, (2, 3, 4), -1, 1)
        return [([x, 0, 2], {}), ([x, -1, 0], {}), ([x, (0, -1), (-1, 1)], {}), ([x, [2, 0], [0, -2]], {})]
    if key is np.rollaxis:  # (start counted from the front, 3 past the last axis, or the end)
        x = arr(r, (2, 3, 4), -1, 1)
        return [([x, 2, 0], {}), ([x, 0, 3], {}), ([x, 0, 2], {}), ([x, -1, 1], {}), ([x, 1, -1], {}),
                ([x, -3, -2], {}), ([x, 1, 1], {})]
    if key is np.linalg.solve:  # (and stacks of matrices, broadcasting against each other)
        return [([well_conditioned(r, 3), arr(r, (3,), -1, 1)], {}),
                ([well_conditioned(r, 3), arr(r, (3, 2), -1, 1)], {}),
                ([stacked(r, 2, 3), arr(r, (3,), -1, 1)], {}),
                ([stacked(r, 2, 3), arr(r, (3, 2), -1, 1)], {}),
                ([stacked(r, 2, 3), arr(r, (2, 3, 2), -1, 1)], {}),
                ([stacked(r, 2, 3), arr(r, (1, 3, 2), -1, 1)], {}),
                ([well_conditioned(r, 3), arr(r, (2, 3, 2), -1, 1)], {}),
                ([stacked(r, 2, 3)[:1], arr(r, (2, 3, 2), -1, 1)], {})]
    if key in (np.linalg.inv, np.linalg.det, np.linalg.slogdet):
        out = [([well_conditioned(r, 3)], {}), ([stacked(r, 2, 3)], {}),
               ([np.stack([stacked(r, 3, 3), stacked(r, 3, 3)[::-1]])], {})]
        if key is np.linalg.det:  # (a polynomial: differentiable at singular matrices too)
            out += [([singular(r, 3, 2)], {}), ([singular(r, 3, 1)], {}), ([singular(r, 2, 1)], {}),
                    ([np.zeros((2, 2))], {}), ([np.zeros((1, 1))], {}),
                    ([np.stack([singular(r, 3, 2), well_conditioned(r, 3), singular(r, 3, 1)])], {})]
        return out
    if key is np.reshape:
        return [([arr(r, (3, 4), -1, 1), (2, 6)], {})]
    if key is np.ravel:
        return [([arr(r, (3, 4), -1, 1)], {})]
    if key is np.squeeze:
        return [([arr(r, (1, 4), -1, 1)], {}), ([arr(r, (3, 1), -1, 1)], {"axis": 1}),
                ([arr(r, (3, 1), -1, 1)], {"axis": -1}), ([arr(r, (1, 3, 1), -1, 1)], {"axis": -3})]
    if key is np.expand_dims:
        return [([arr(r, (3, 4), -1, 1), 1], {}), ([arr(r, (3, 4), -1, 1), -1], {}),
                ([arr(r, (3, 4), -1, 1), (0, -1)], {})]
    if key is np.concatenate:
        return [([[arr(r, (2, 3), -1, 1), arr(r, (1, 3), -1, 1)]], {}),
                ([[arr(r, (2, 3), -1, 1), arr(r, (2, 2), -1, 1)]], {"axis": 1}),
                ([[arr(r, (2, 3), -1, 1), arr(r, (2, 2), -1, 1)]], {"axis": -1}),
                ([[arr(r, (2, 3), -1, 1), arr(r, (1, 3), -1, 1)]], {"axis": -2}),
                # axis=None: the parts are flattened first
                ([[arr(r, (2, 3), -1, 1), arr(r, (4,), -1, 1)]], {"axis": None})]
    if key is np.stack:
        return [([[arr(r, (3,), -1, 1), arr(r, (3,), -1, 1)]], {}),
                ([[arr(r, (2, 3), -1, 1), arr(r, (2, 3), -1, 1)]], {"axis": 2}),
                ([[arr(r, (2, 3), -1, 1), arr(r, (2, 3), -1, 1)]], {"axis": -1}),
                ([[arr(r, (2, 3), -1, 1), arr(r, (2, 3), -1, 1)]], {"axis": -2})]
    if key is np.hstack:
        return [([[arr(r, (2, 3), -1, 1), arr(r, (2, 1), -1, 1)]], {}),
                ([[arr(r, (3,), -1, 1), arr(r, (2,), -1, 1)]], {})]
    if key is np.vstack:
        return [([[arr(r, (3,), -1, 1), arr(r, (2, 3), -1, 1)]], {})]
    if key in (np.array, np.asarray, np.copy):
        return [([[r.uniform(-1, 1) for _ in range(4)]], {}), ([arr(r, (3, 4), -1, 1)], {})]
    domain = domains(key, 1, (0.3, 0.9))[0]
    if domain == facts.SIGNED:
        return [([signed(r, s)], {}) for s in [(4,), (3, 4)]] + \
            ([([list(signed(r, (4,)))], {})] if key is np.abs else [])
    # (and a Python list and a tuple of numbers)
    return [([arr(r, s, *domain)], {}) for s in [(4,), (3, 4)]] + \
        [([list(arr(r, (4,), *domain))], {}), ([tuple(arr(r, (3,), *domain))], {})]


# ufuncs of two inputs (ufuncs_reverse): the operators' names and the others
UFUNC_PAIRS = (np.add, np.subtract, np.multiply, np.divide, np.floor_divide, np.mod, np.hypot,
               np.fmax, np.fmin, np.fmod, np.logaddexp2, np.copysign, np.heaviside)


def ufunc_pair_examples(key, r):
    """Numbers, arrays over the broadcasting pairs, lists and a tuple (with numbers
    and arrays), each input on its row's domain; fmax and fmin with NaNs too."""
    dx, dy = domains(key, 2, (0.5, 1.5))

    def draw_array(shape, domain):
        return signed(r, shape) if domain == facts.SIGNED else arr(r, shape, *domain)

    out = [([draw_array(a, dx), draw_array(b, dy)], {}) for a, b in PAIRS + [((), ())]]
    out += [([as_list(draw_array(a, dx)), as_list(draw_array(b, dy))], {})
            for a, b in [((4,), ()), ((), (4,)), ((4,), (4,))]]
    out += [([tuple(draw_array((4,), dx)), draw_array((3, 4), dy)], {})]
    if key in (np.fmax, np.fmin):  # (NaN gives way to the number)
        out += [([np.array([0.5, 0.7, np.nan, 1.2]), np.array([0.6, np.nan, 0.9, 0.3])], {})]
    if key is np.heaviside:  # (x1 at 0, where the result is x2)
        out += [([np.array([0.0, -0.7, 0.0, 1.2]), draw_array((4,), dy)], {}),
                ([np.array([[0.0], [0.4]]), draw_array((3,), dy)], {}), ([0.0, 0.8], {})]
    return out


# x ** k at x == 0 for whole k: x ** 0 is constant (its derivative is 0, never
# 0 * 0.0 ** -1), x ** 1 has derivative 1 and x ** 2 derivative 0. (The exponents are
# ints, so the derivative in k, which does not exist at 0 ** 0, is not checked.)
ZERO = np.array([0.0, 0.0, 0.7, 1.3])
ZERO_POWERS = [([ZERO, k], {}) for k in (0, 1, 2, 3)] + \
    [([ZERO, np.array([0, 1, 2, 0])], {}), ([ZERO.reshape(2, 2), np.array([[0, 2], [1, 0]])], {}),
     ([0.0, np.array([0, 1, 2])], {}), ([np.zeros((2, 3)), np.array([0, 1, 2])], {})]
SCALAR_ZERO_POWERS = [[0.0, 0], [0.0, 1], [0.0, 2], [0.0, 3], [-1.5, 0], [0.0, 2.0], [0.0, 1.0]]


def as_list(x):
    return list(x) if isinstance(x, np.ndarray) else x


def examples(key, rule):
    # (seeded by the rule's text, the same in every process: `hash` of a str is not,
    # and a draw where x / y lies just off an integer put `x // y`'s central
    # difference across floor's step in some processes)
    r = random.Random(zlib.crc32(repr((rules.key_name(key), rule.arity,
                                       str(rule.when))).encode()) % 1000)
    numbers = isinstance(rule.when, tuple) and set(rule.when) <= {"scalar", "int"}
    if rule.when is not None and not numbers or (not isinstance(key, str) and getattr(key, "__module__", "") and
                                 "numpy" in str(getattr(key, "__module__", ""))) \
            or isinstance(key, np.ufunc) or getattr(key, "__objclass__", None) is np.ndarray \
            or isinstance(getattr(key, "__self__", None), np.ufunc):  # (np.add.outer)
        # a variant's examples are the ones whose kinds it matches; the fallback's
        # all of them, but lists where a variant for lists takes them
        return [(xs, options) for xs, options in array_examples(key, rule, r)
                if (rule.matches([kind_of(x) for x in xs]) if rule.when is not None
                    else not has_list(xs) or rules.lookup(key, rule.arity, rule.mode, [
                        kind_of(x) for x in xs]).when is None)]
    out = []
    if key in ("pow", pow, math.pow):
        out += [(list(xs), {}) for xs in SCALAR_ZERO_POWERS]
    for _ in range(5):
        if key is round:
            out.append(([r.uniform(0.2, 0.9), 2][: rule.arity], {}))
        else:
            out.append(([draw(r, d) for d in domains(key, rule.arity, (0.2, 0.9))], {}))
    if key in ("pow", pow, math.pow):  # (whole exponents away from 0 too)
        out += [([r.uniform(0.2, 0.9), k], {}) for k in (-2, 1, 3)]
    if numbers:  # (a variant for numbers of some kinds: the examples of those kinds)
        out = [(xs, options) for xs, options in out
               if rule.matches([kind_of(x) for x in xs])]
    return out


def has_list(xs) -> bool:
    return any(isinstance(x, (list, tuple)) for x in xs)


# ------------------------------------------------------------------ helpers


def call(key, xs, options):
    return primitive(key)(*xs, **options)


def as_tuple(terms, rule):
    return terms if rule.arity > 1 else (terms,)


def flat(value):
    """Numbers of a value (float, array, tuple or list of those) as one vector."""
    if isinstance(value, (tuple, list)):
        parts = [flat(v) for v in value]
        return np.concatenate(parts) if parts else np.zeros(0)
    return np.ravel(np.asarray(value, dtype=float))


def unflat(vector, like):
    if isinstance(like, (tuple, list)):
        out, at = [], 0
        for item in like:
            n = flat(item).size
            out.append(unflat(vector[at:at + n], item))
            at += n
        return tuple(out) if isinstance(like, tuple) else out
    if isinstance(like, np.ndarray):
        return vector.reshape(like.shape).copy()
    return float(vector[0])


def zero_like(x):
    """The tangent of an input that is held still (same structure as `x`)."""
    if isinstance(x, (list, tuple)):
        return [zero_like(p) for p in x]
    return np.zeros_like(x, dtype=float) if isinstance(x, np.ndarray) else 0.0


def as_output(term, out):
    """A forward term is a tangent that broadcasts against the output (`x_dot` of
    `x + y` keeps `x`'s shape); spread it to the output's shape."""
    if isinstance(out, np.ndarray) and not isinstance(term, (tuple, list)):
        return np.broadcast_to(term, out.shape)
    return term


def random_like(value, rng):
    return unflat(np.asarray([rng.uniform(-1, 1) for _ in range(flat(value).size)]), value)


def differentiable_input(x) -> bool:
    if isinstance(x, (list, tuple)):
        return all(differentiable_input(v) for v in x)
    return isinstance(x, float) or (isinstance(x, np.ndarray) and x.dtype.kind == "f")


def numeric_vjp(key, xs, options, i, v, h=1e-6):
    """∂⟨v, f(xs)⟩/∂xs[i], by central differences, shaped like xs[i]."""
    return flat(central_diff(lambda *a: flat(call(key, list(a), options)) @ flat(v),
                             xs, i, h))


def all_rules(table):
    """The built-in rows (other test modules register rules of their own)."""
    return [(key, r) for key, rs in table.items() for r in rs
            if r.func.__module__ in TABLES]


def ids(pairs):
    return [f"{rules.key_name(k)}/{r.arity}/{r.when}" for k, r in pairs]


TABLES = (reverse_table.__name__, forward_table.__name__, linalg_reverse_table.__name__,
          linalg_forward_table.__name__, shaping_reverse_table.__name__,
          shaping_forward_table.__name__, ufuncs_reverse_table.__name__,
          ufuncs_forward_table.__name__)
REV = all_rules(rules.REVERSE)
FWD = all_rules(rules.FORWARD)


# --------------------------------------------------------------------- tests


def test_tables_pair_up():
    """Same keys, same order, same arities and variants, same differentiable inputs."""
    rev = [(rules.key_name(k), r.arity, r.when, r.differentiable, tuple(r.options)) for k, r in REV]
    fwd = [(rules.key_name(k), r.arity, r.when, r.differentiable, tuple(r.options)) for k, r in FWD]
    assert rev == fwd


def test_tables_have_the_same_banners():
    def banners(module):
        return [line for line in open(module.__file__) if line.startswith("# ---")]

    assert banners(reverse_table) == banners(forward_table)
    assert banners(linalg_reverse_table) == banners(linalg_forward_table)
    assert banners(shaping_reverse_table) == banners(shaping_forward_table)
    assert banners(ufuncs_reverse_table) == banners(ufuncs_forward_table)


def test_variants_for_lists_are_derived_from_the_rules():
    """A rule with `lists` has a variant for lists: its body with those parameters
    through np.asarray, on a line of their own where the body reads them twice, and
    never in unbroadcast's shape argument."""
    def text(rule):
        t = rule.template
        return [f"{n} = {ast.unparse(e)}" for n, e in t.assigns] + \
            [ast.unparse(e) for e in t.terms]

    from s2sad.ir.kinds import SCALAR, ListKind

    lists = [ListKind(SCALAR)]
    log = rules.lookup(np.log, 1, "forward", lists)
    assert log.when == "list" and log.func.__name__ == "np_log_of_list"
    assert text(log) == ["np.asarray(x_dot) / np.asarray(x)"]
    assert text(rules.lookup(np.arcsin, 1, "reverse", lists)) == [
        "xa = np.asarray(x)", "out_bar / np.sqrt(1.0 - xa * xa)"]
    assert text(rules.lookup(np.maximum, 2, "reverse", lists + lists)) == [
        "xa = np.asarray(x)", "ya = np.asarray(y)", "unbroadcast(out_bar * (xa >= ya), x)",
        "unbroadcast(out_bar * (xa < ya), y)"]
    assert rules.lookup(np.square, 1, "forward", lists).func([0.5, 2.0], None, [1.0, 1.0]) \
        .tolist() == [1.0, 4.0]


@pytest.mark.parametrize("key,rule", REV, ids=ids(REV))
def test_reverse_rule_matches_central_differences(key, rule):
    reverse_matches_differences(key, rule, examples(key, rule))


def reverse_matches_differences(key, rule, cases):
    rng = random.Random(1)
    for xs, options in cases:
        out = call(key, xs, options)
        v = random_like(out, rng)
        terms = as_tuple(rule.func(*xs, out=out, out_bar=v, **options), rule)
        for i, term in enumerate(terms):
            if term is None or not differentiable_input(xs[i]):
                continue
            numeric = numeric_vjp(key, xs, options, i, v)
            assert isinstance(xs[i], (list, tuple)) or np.shape(term) == np.shape(xs[i])
            assert np.allclose(flat(term), numeric, rtol=1e-5, atol=1e-6), (xs, options, i)


@pytest.mark.parametrize("key,rule", FWD, ids=ids(FWD))
def test_forward_rule_matches_central_differences(key, rule):
    forward_matches_differences(key, rule, examples(key, rule))


def helper_examples(key):
    r = random.Random(5)
    shaping = shaping_examples.helper_examples(key, r)
    if shaping is not None:
        return shaping
    x = signed(r, (3, 4))
    if key is runtime.unbroadcast:
        return [([arr(r, (3, 4), -1, 1), arr(r, (4,))], {}), ([arr(r, (3, 4), -1, 1), 0.5], {})]
    if key is runtime.unreduce:
        return [([arr(r, (3,), -1, 1), x], {"axis": 1}), ([0.7, x], {}),
                ([arr(r, (3,), -1, 1), x], {"axis": -1})]
    if key is runtime.extreme_bar:
        return [([arr(r, (4,), -1, 1), x, np.max(x, axis=0)], {"axis": 0}),
                ([arr(r, (3,), -1, 1), x, np.max(x, axis=-1)], {"axis": -1})]
    if key in (runtime.matmul_x_bar, runtime.matmul_y_bar):
        return [([arr(r, (3, 2), -1, 1), x, arr(r, (4, 2), -1, 1)], {}),
                ([arr(r, (3,), -1, 1), x, arr(r, (4,), -1, 1)], {})]
    if key is runtime.pieces:
        return [([arr(r, (3, 3), -1, 1), [arr(r, (2, 3)), arr(r, (1, 3))]], {"axis": 0}),
                ([arr(r, (2, 5), -1, 1), [arr(r, (2, 3)), arr(r, (2, 2))]], {"axis": -1}),
                ([arr(r, (10,), -1, 1), [arr(r, (2, 3)), arr(r, (4,))]], {"axis": None})]
    if key is runtime.unstack:
        return [([arr(r, (2, 3), -1, 1), 2], {"axis": 0}), ([arr(r, (2, 3), -1, 1), 3], {"axis": 1}),
                ([arr(r, (2, 3), -1, 1), 3], {"axis": -1})]
    if key is runtime.vstack_pieces:
        return [([arr(r, (3, 3), -1, 1), [arr(r, (3,)), arr(r, (2, 3))]], {})]
    if key is runtime.kept_slots:  # (a repeated row; a repeated element of a matrix)
        return [([arr(r, (3, 4), -1, 1), x, np.array([0, 2, 0])], {}),
                ([arr(r, (3,), -1, 1), x, (np.array([1, 1, 2]), np.array([0, 0, 3]))], {})]
    if key is runtime.unpacked_bar:  # (rows of an array, one with no adjoint; a tuple)
        return [([x, (arr(r, (4,), -1, 1), None, 0.5)], {}),
                ([(0.5, arr(r, (2,))), (0.7, arr(r, (2,), -1, 1))], {})]
    if key is runtime.prod_others:
        return [([signed(r, (3, 4))], {}), ([signed(r, (3, 4))], {"axis": 1}),
                ([signed(r, (2, 3, 4))], {"axis": (0, 2)}), ([signed(r, (3, 4))], {"axis": -1}),
                ([signed(r, (2, 3, 4))], {"axis": (-1, 0)})]
    if key is runtime.norm_bar:  # (the other orders' with their own norms: their ties)
        m = signed(r, (2, 3, 4))
        return [([arr(r, (3,), -1, 1), x, arr(r, (3,), 1, 2)], {"axis": 1}),
                ([0.7, x, 1.3], {"ord": "fro"}),
                ([arr(r, (3,), -1, 1), x, arr(r, (3,), 1, 2)], {"axis": -1})] + [
            ([arr(r, (3,), -1, 1), x, np.linalg.norm(x, o, 1)], {"ord": o, "axis": 1})
            for o in (1, 2, 3, -1.5, np.inf)] + [
            ([0.7, x, np.linalg.norm(x, o)], {"ord": o}) for o in ("nuc", 2, -2, 1, -np.inf)] + [
            ([arr(r, (2,), -1, 1), m, np.linalg.norm(m, o, (2, 1))], {"ord": o, "axis": (2, 1)})
            for o in ("nuc", 2, -2)]
    if key is runtime.cofactors:  # (invertible, singular of rank n - 1 and n - 2, stacks)
        out = [well_conditioned(r, 3), singular(r, 3, 2), singular(r, 4, 2), singular(r, 2, 1),
               np.stack([singular(r, 3, 2), well_conditioned(r, 3)])]
        return [([a, np.linalg.det(a)], {}) for a in out]
    if key is runtime.inverse_t:
        return [([well_conditioned(r, 3)], {}), ([stacked(r, 2, 3)], {})]
    if key is runtime.eig_inv_t:
        return [([well_conditioned(r, 3)], {}), ([stacked(r, 2, 3)], {})]
    if key is runtime.digamma:  # (both sides of 1/2 and of 10, and negative numbers)
        return [([x], {}) for x in (0.2, 0.5, 1.3, 4.0, 9.9, 10.2, 37.0, -0.4, -2.7)]
    raise AssertionError(f"no examples for {rules.key_name(key)}")


HELPERS = [(key, r) for key, rs in rules.FORWARD.items() for r in rs
           if r.func.__module__ == helpers_table.__name__]


@pytest.mark.parametrize("key,rule", HELPERS, ids=ids(HELPERS))
def test_helper_forward_rule_matches_central_differences(key, rule):
    """The runtime helpers reverse code calls have forward rules, for Hessians."""
    forward_matches_differences(key, rule, [(xs, options) for xs, options in helper_examples(key)
                                            if len(xs) == rule.arity])


def test_every_helper_reverse_code_calls_has_a_forward_rule():
    called = {runtime.unbroadcast, runtime.unreduce, runtime.extreme_bar, runtime.matmul_x_bar,
              runtime.matmul_y_bar, runtime.pieces, runtime.unstack, runtime.vstack_pieces,
              runtime.unpacked_bar, runtime.kept_slots,
              runtime.norm_bar, runtime.prod_others, runtime.cofactors, runtime.inverse_t,
              runtime.eig_inv_t,
              runtime.digamma, *(getattr(runtime, name)
                                 for name in shaping_examples.HELPER_KEYS_NAMES)}
    public = {f for name, f in vars(runtime).items() if callable(f) and not name.startswith("_")
              and getattr(f, "__module__", None) == runtime.__name__}
    # dup is the dup stage's (never in emitted code), add_into and check_norm are
    # statements forward mode knows
    # (prod_others_dot and cofactors_dot are prod_others' and cofactors' own forward
    # rules' helpers; scalar_seed, like check_norm, is non-differentiable; zero_tangent
    # is forward code's, which nothing differentiates again; trigamma is digamma's
    # forward rule's, cumprod_bar_dot cumprod_bar's, norm_bar_dx and norm_bar_dnorm
    # norm_bar's, interp_fp_bar_dx interp_fp_bar's, quantile_dot np.quantile's own,
    # multi_dot_bar_dot multi_dot_bar's, multi_dot_dot np.linalg.multi_dot's;
    # iterated, like scalar_seed, is non-differentiable: an item of what carries none)
    assert public - called == {runtime.dup, runtime.add_into, runtime.check_norm,
                               runtime.norm_bar_dx, runtime.norm_bar_dnorm,
                               runtime.prod_others_dot, runtime.cofactors_dot,
                               runtime.scalar_seed, runtime.zero_tangent, runtime.trigamma,
                               runtime.cumprod_bar_dot, runtime.interp_fp_bar_dx,
                               runtime.quantile_dot, runtime.multi_dot_bar_dot,
                               runtime.multi_dot_dot, runtime.iterated}
    assert {key for key, _ in HELPERS} == called


def forward_matches_differences(key, rule, cases):
    rng = random.Random(2)
    for xs, options in cases:
        out = call(key, xs, options)
        for i in range(rule.arity):
            if not differentiable_input(xs[i]):
                continue
            u = random_like(xs[i], rng)
            dots = [u if j == i else zero_like(xs[j]) for j in range(rule.arity)]
            kwargs = {f"{n}_dot": d for n, d in zip(rule.inputs, dots)}
            terms = as_tuple(rule.func(*xs, out=out, **options, **kwargs), rule)
            if terms[i] is None:
                continue
            h = 1e-6
            xu, xd = list(xs), list(xs)
            xu[i] = unflat(flat(xs[i]) + h * flat(u), xs[i])
            xd[i] = unflat(flat(xs[i]) - h * flat(u), xs[i])
            numeric = (flat(call(key, xu, options)) - flat(call(key, xd, options))) / (2 * h)
            assert np.allclose(flat(as_output(terms[i], out)), numeric, rtol=1e-5, atol=1e-6), \
                (xs, options, i)


@pytest.mark.parametrize("key,rule", REV, ids=ids(REV))
def test_dot_product(key, rule):
    """<J u, v> == <u, J^T v> for random points, directions u and adjoints v."""
    dot_product_holds(key, rule, examples(key, rule))


def dot_product_holds(key, rule, cases):
    fwd = next(r for r in rules.candidates(key, "forward")
               if (r.arity, r.when) == (rule.arity, rule.when))
    rng = random.Random(3)
    for xs, options in cases:
        out = call(key, xs, options)
        us = [random_like(x, rng) if differentiable_input(x) else zero_like(x) for x in xs]
        v = random_like(out, rng)
        jvp = as_tuple(fwd.func(*xs, out=out, **options,
                                **{f"{n}_dot": u for n, u in zip(rule.inputs, us)}), rule)
        vjp = as_tuple(rule.func(*xs, out=out, out_bar=v, **options), rule)
        left = sum(flat(as_output(t, out)) @ flat(v) for t, x in zip(jvp, xs)
                   if t is not None and differentiable_input(x))
        right = sum(flat(u) @ flat(t) for u, t, x in zip(us, vjp, xs)
                    if t is not None and differentiable_input(x))
        assert left == pytest.approx(right, rel=1e-9, abs=1e-12)
        assert [t is None for t in jvp] == [t is None for t in vjp]


def _eval_template(rule, xs, out, seeds, options):
    names = [f"in{i}" for i in range(rule.arity)]
    counter = iter(range(1000))
    opts = {k: ast.Name(id=f"opt_{k}", ctx=ast.Load()) for k in options}
    assigns, terms = rule.instantiate(
        [ast.Name(id=n, ctx=ast.Load()) for n in names], ast.Name(id="out", ctx=ast.Load()),
        [ast.Name(id=f"seed{i}", ctx=ast.Load()) for i in range(len(seeds))],
        list(range(rule.arity)), lambda: f"tmp{next(counter)}", opts)
    env = dict(zip(names, xs), out=out, **{f"seed{i}": s for i, s in enumerate(seeds)},
               **{f"opt_{k}": v for k, v in options.items()})
    env.update(rules.helper_objects(rule.template))
    for name, expr in assigns:
        env[name] = eval(compile(ast.Expression(ast.fix_missing_locations(expr)), "<t>", "eval"), env)
    return {i: eval(compile(ast.Expression(ast.fix_missing_locations(e)), "<t>", "eval"), env)
            for i, e in terms.items()}


@pytest.mark.parametrize("key,rule", REV + FWD, ids=ids(REV) + ids(FWD))
def test_inlined_template_equals_rule(key, rule):
    template_equals_rule(key, rule, examples(key, rule)[:1])


def template_equals_rule(key, rule, cases):
    """The rule's template, inlined as the compiler inlines it, computes what
    calling the rule computes."""
    rng = random.Random(4)
    for xs, options in cases:
        out = call(key, xs, options)
        if rule.mode == "reverse":
            seeds = [random_like(out, rng)]
            direct = rule.func(*xs, out=out, out_bar=seeds[0], **options)
        else:
            seeds = [random_like(x, rng) if differentiable_input(x) else x for x in xs]
            direct = rule.func(*xs, out=out, **options,
                               **{f"{n}_dot": s for n, s in zip(rule.inputs, seeds)})
        direct = as_tuple(direct, rule)
        inlined = _eval_template(rule, xs, out, seeds, options)
        for i, term in enumerate(direct):
            if term is None:
                assert i not in inlined
            else:
                assert np.allclose(flat(inlined[i]), flat(term), rtol=1e-12)
        if rule.mode == "reverse" and rule.arity > 1:
            # the tape engine's call for one input's term alone (a plain operand's
            # term is not computed) gives that term, and None for the others
            for i, term in enumerate(direct):
                alone = call_rule(rule, xs, options, out, seeds[0], wanted={i})
                assert all(t is None for j, t in enumerate(alone) if j != i)
                assert (alone[i] is None) == (term is None)
                if term is not None:
                    assert np.allclose(flat(alone[i]), flat(term), rtol=1e-12)


def test_conventions_at_kinks():
    assert reverse_table.abs_(0.0, 0.0, 1.0) == 0.0
    assert reverse_table.min_(1.0, 1.0, 1.0, 1.0) == (1.0, 0.0)  # Python returns the first
    assert reverse_table.max_(1.0, 1.0, 1.0, 1.0) == (1.0, 0.0)
    assert reverse_table.pow_(0.0, 2.0, 0.0, 1.0) == (0.0, 0.0)
    x = np.array([1.0, 3.0, 3.0])  # a tie at the maximum shares the adjoint
    assert list(reverse_table.np_max(x, out=3.0, out_bar=1.0)) == [0.0, 0.5, 0.5]
    # x ** y at x < 0: NaN in y (log of a negative base, as JAX and the array rule),
    # never a math domain error, and the x term is exact
    for rev, fwd in ((reverse_table.pow_, forward_table.pow_),
                     (reverse_table.builtin_pow, forward_table.builtin_pow),
                     (reverse_table.math_pow, forward_table.math_pow)):
        x_bar, y_bar = rev(-2.0, 3.0, -8.0, 1.0)
        assert x_bar == 12.0 and math.isnan(y_bar)
        x_term, y_term = fwd(-2.0, 3.0, -8.0, 1.0, 1.0)
        assert x_term == 12.0 and math.isnan(y_term)
        # along a direction that keeps y the term is 0 (not NaN * 0: a Hessian's
        # column for x would be NaN)
        assert fwd(-2.0, 3.0, -8.0, 1.0, 0.0) == (12.0, 0.0)
        assert fwd(0.0, 3.0, 0.0, 1.0, 1.0) == (0.0, 0.0)
    # clip: a tie with a bound goes to x; None is no bound
    x = np.array([0.2, 0.5, 0.9])
    got = reverse_table.np_clip(x, 0.5, None, out=np.clip(x, 0.5, None), out_bar=np.ones(3))
    assert list(got[0]) == [0.0, 1.0, 1.0]


def test_fold():
    e = ast.parse("out_bar * 2 * x ** (2 - 1)", mode="eval").body
    assert ast.dump(rules.fold(e)) == ast.dump(ast.parse("out_bar * 2 * x", mode="eval").body)
    e = ast.parse("out_bar * 1", mode="eval").body
    assert ast.dump(rules.fold(e)) == ast.dump(ast.parse("out_bar", mode="eval").body)
    e = ast.parse("-(-x) + 1.0 / 3.0", mode="eval").body
    assert ast.dump(rules.fold(e)) == ast.dump(ast.parse("x + 1.0 / 3.0", mode="eval").body)
    # an option's literal tested against None picks its branch now (a literal
    # tuple of axes is one constant in the compiler's code)
    e = ast.parse("np.transpose(g, None if axes is None else np.argsort(axes))", mode="eval").body
    axes = {"axes": ast.Constant(value=(2, 0, 1))}
    assert ast.unparse(rules.fold(templates.subst(e, axes))) == "np.transpose(g, (1, 2, 0))"
    # the transpose rule's inverse permutation of a literal `axes`, counted from either
    # end, is worked out now
    e = linalg_reverse_table.np_transpose
    rule = next(r for r in rules.candidates(np.transpose) if r.func is e)
    for axes, inverse in [((2, 0, 1), (1, 2, 0)), ((-1, 0, 1), (1, 2, 0)), ((-2, -1, 0), (2, 0, 1)),
                          ((-1, -2), (1, 0))]:
        _, terms = rule.instantiate([ast.Name(id="x")], ast.Name(id="out"), [ast.Name(id="g")],
                                    [0], None, {"axes": ast.Constant(value=axes)})
        assert ast.unparse(terms[0]) == f"np.transpose(g, {inverse})"
    # a literal exponent in the power rules' test of y == x == 0: ``2 or x`` is 2
    for text, folded in [("(x if 2 or x else 1.0) ** (2 - 1)", "x"),
                         ("(x if 0 or x else 1.0) ** (0 - 1)", "(x if x else 1.0) ** -1"),
                         ("a or b", "a or b"), ("0 and x", "0"), ("1 and x and y", "x and y")]:
        assert ast.unparse(rules.fold(ast.parse(text, mode="eval").body)) == folded, text
    # axis=None is np.sum's default, not np.concatenate's (0) nor np.argsort's (-1)
    e = ast.parse("np.sum(x, axis=None) + np.concatenate(xs, axis=None)", mode="eval").body
    assert ast.unparse(rules.fold(e)) == "np.sum(x) + np.concatenate(xs, axis=None)"
    e = ast.parse("None if None is None else np.argsort(None)", mode="eval").body
    assert ast.unparse(rules.fold(e)) == "None"
    e = ast.parse("a if x is None else b", mode="eval").body
    assert ast.unparse(rules.fold(e)) == "a if x is None else b"


def test_rule_variants_are_chosen_by_kinds():
    from s2sad.ir.kinds import ArrayKind

    m, v = ArrayKind(2), ArrayKind(1)
    assert rules.lookup("matmul", 2, kinds=[m, v]).func is reverse_table.matmul_2d_1d
    assert rules.lookup("mul", 2, kinds=[1.0, m]).func is reverse_table.np_mul
    assert rules.lookup("mul", 2, kinds=["scalar", "scalar"]).func is reverse_table.mul
    assert rules.lookup(np.matmul, 2, kinds=[v, v]).func is linalg_reverse_table.np_matmul_1d_1d
    assert rules.lookup(abs, 1, kinds=[m]).func is reverse_table.abs_of_array
    stack = ArrayKind(3)
    assert rules.lookup(np.linalg.det, 1, kinds=[m]).func is linalg_reverse_table.np_det_2d
    assert rules.lookup(np.linalg.det, 1, kinds=[stack]).func is linalg_reverse_table.np_det
    assert rules.lookup(np.linalg.solve, 2, kinds=[stack, stack]).func is linalg_reverse_table.np_solve
    assert rules.lookup(np.linalg.solve, 2, kinds=[m, stack]).func is linalg_reverse_table.np_solve
    assert rules.lookup(np.linalg.solve, 2, kinds=[stack, v]).func is linalg_reverse_table.np_solve
    assert rules.lookup(np.linalg.solve, 2, kinds=[stack, m]).func is linalg_reverse_table.np_solve
    assert rules.lookup(np.linalg.solve, 2, kinds=[m, v]).func is linalg_reverse_table.np_solve_2d_1d
    assert rules.lookup(np.linalg.slogdet, 1, kinds=[m]).func is linalg_reverse_table.np_slogdet_2d
    assert rules.lookup(np.linalg.slogdet, 1, kinds=[stack]).func is linalg_reverse_table.np_slogdet


def test_rules_refuse_literal_options_they_do_not_differentiate():
    """A norm's literal `ord` the rules have no derivative for (0 of vectors, a count)
    does not fit them (so an active call is a NoRuleError at transform time); other
    `ord`s run, and the runtime checks those that are not literals."""
    from s2sad.ir.kinds import ArrayKind

    def fits(text, kind):
        call = ast.parse(text, mode="eval").body
        return any(r.matches([kind]) and r.bind(call.args, call.keywords) is not None
                   for r in rules.candidates(np.linalg.norm))

    v, m, unknown = ArrayKind(1), ArrayKind(2), ArrayKind(None)
    for text in ["norm(x)", "norm(x, ord=2)", "norm(x, 2.0)", "norm(x, ord=None)",
                 "norm(x, ord=order)", "norm(x, ord=-order)", "norm(x, 1)", "norm(x, ord=-1)",
                 "norm(x, ord=np.inf)", "norm(x, -2)", "norm(x, 3.5)"]:
        assert fits(text, v), text
    for text in ["norm(x, 'fro')", "norm(x, 2, 1)", "norm(x, ord=2, axis=-1)",
                 "norm(x, ord=order)", "norm(x, 2, axes)", "norm(x, 2)", "norm(x, 'nuc')",
                 "norm(x, -np.inf, (0, 1))", "norm(x, ord=2, axis=None)"]:
        assert fits(text, m) and fits(text, unknown), text
    for text in ["norm(x, ord=0)", "norm(x, 0.0, 1)", "norm(x, 0, axis=-1, keepdims=True)"]:
        assert not fits(text, v) and not fits(text, m) and not fits(text, unknown), text
    call = ast.parse("norm(x, ord=0)", mode="eval").body
    reason = rules.candidates(np.linalg.norm)[0].refusal(call.args, call.keywords)
    assert "ord=0" in reason and "step function" in reason
    assert rules.literal(ast.parse("-1", mode="eval").body) == -1
    assert rules.literal(ast.parse("order", mode="eval").body) is rules.NOT_LITERAL


def literal_zero_power_after_a_product(x, y):
    y *= x
    return y - y ** 0


def literal_zero_power_of_an_element(x, y):
    ys = [y, x]
    return ys[0] ** 0 + x


def power_by_int(x, k):
    return x ** k + pow(x, k) + math.pow(x, k)


def power_by_float(x, y):
    return x ** y + pow(x, y) + math.pow(x, y)


def test_a_power_whose_exponent_makes_the_term_vanish_never_computes_a_huge_base():
    """x ** k at a tiny nonzero x: where the exponent makes the derivative term 0,
    ``0 * x ** -1`` (first order) and ``0 * x ** -2`` (second) overflowed (Python
    floats raise OverflowError, NumPy gives 0 * inf = NaN)."""
    H = s2sad.hessian(literal_zero_power_after_a_product, wrt=(0, 1))(1e-170, 1.0)
    assert H == ((0.0, 1.0), (1.0, 0.0))
    assert s2sad.grad(literal_zero_power_of_an_element, wrt=(0, 1))(1.0, 5e-324) == (1.0, 0.0)
    for x in (1e-170, 5e-324, 0.0, 0.5):
        for k in (0, 1, 2):
            want = 3.0 * k * x ** (k - 1) if k else 0.0
            assert s2sad.grad(power_by_int)(x, k) == want, (x, k)
            assert s2sad.grad(power_by_int, mode="forward")(x, k) == want, (x, k)
            assert s2sad.hessian(power_by_int)(x, k) == (6.0 if k == 2 else 0.0), (x, k)
    # a float exponent at 0: the term is 0, its derivative in y is 1 / x (the mixed
    # second derivative of x ** y), in x 0
    for x in (1e-170, 2.0):
        g = s2sad.grad(power_by_float, wrt=(0, 1))(x, 0.0)
        assert g[0] == 0.0 and np.isclose(g[1], 3.0 * math.log(x))
        (hxx, hxy), (hyx, hyy) = s2sad.hessian(power_by_float, wrt=(0, 1))(x, 0.0)
        assert hxx == 0.0 and np.isclose(hxy, 3.0 / x) and np.isclose(hyx, 3.0 / x)
        assert np.isclose(hyy, 3.0 * math.log(x) ** 2)
    assert s2sad.grad(power_by_float)(5e-324, 0.0) == 0.0
    (hxx, hxy), _ = s2sad.hessian(power_by_float, wrt=(0, 1))(1e-170, 1.0)
    assert hxx == 0.0 and np.isclose(hxy, 3.0 * (1.0 + math.log(1e-170)))
    assert rules.lookup("pow", 2, kinds=["scalar", "int"]).when == ("scalar", "int")
    assert rules.lookup("pow", 2, kinds=["scalar", "scalar"]).when is None


def array_power_by_int(x, k):
    return np.sum(x ** k) + np.sum(np.power(x, k))


def array_power_by_float(x, y):
    return np.sum(x ** y) + np.sum(np.power(x, y))


def test_an_array_power_whose_exponent_makes_the_term_vanish_is_not_nan():
    """The same for arrays: no NaN from 0 * inf, and no overflow warning."""
    x = np.array([1e-170, 5e-324, 0.0, 2.0])
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        for k in (0, 1, 2):
            want = 2.0 * k * x ** (k - 1) if k else np.zeros(4)
            np.testing.assert_array_equal(s2sad.grad(array_power_by_int)(x, k), want)
            np.testing.assert_array_equal(s2sad.hessian(array_power_by_int)(x, k),
                                          np.diag(np.full(4, 4.0 if k == 2 else 0.0)))
        x = np.array([1e-170, 2.0, 0.0])
        for y in (0.0, np.zeros(3), np.array([0.0, 1.0, 0.0])):
            g = s2sad.grad(array_power_by_float, wrt=(0, 1))(x, y)
            yv = np.broadcast_to(y, 3)
            np.testing.assert_array_equal(g[0], [0.0 if b == 0 else 2.0 * b * float(a) ** (b - 1)
                                                 for a, b in zip(x, yv)])
            (hxx, hxy), _ = s2sad.hessian(array_power_by_float, wrt=(0, 1))(x, y)
            assert np.all(hxx == 0.0)
            # d2/dxdy of 2 x ** y: 2 x ** (y - 1) (1 + y log x); 2 at x == y == 0
            want = [2.0 / (a or 1.0) if b == 0 else
                    2.0 * float(a) ** (b - 1) * (1.0 + b * math.log(a or 1.0))
                    for a, b in zip(x, yv)]
            np.testing.assert_allclose(hxy, np.diag(want) if np.ndim(y) else want, rtol=1e-12)
    # (the engines look rules up with values for kinds: the integer pattern takes none)
    x, y = np.array([0.5, 2.0]), np.array([1.5, 0.0])
    for a, b in zip(s2sad.grad(array_power_by_float, wrt=(0, 1), mode="tape")(x, y),
                    s2sad.grad(array_power_by_float, wrt=(0, 1))(x, y)):
        np.testing.assert_allclose(a, b)


def array_to_the_literal_zero(x):
    return np.sum(x ** 0) + np.sum(x)


def test_a_literal_zero_exponent_of_an_array_computes_no_power():
    text = s2sad.source(array_to_the_literal_zero, example=(np.zeros(3),))
    assert "**" not in text.split("def ", 1)[1].split("\n", 2)[2], text
    np.testing.assert_array_equal(s2sad.grad(array_to_the_literal_zero)(np.array([5e-324, 0.0])),
                                  [1.0, 1.0])


# ------------------------------------------- ufuncs named like the operators


def with_operators(x, y):
    a = x * y + x / y - (y - x)
    b = -a * x + (+y) ** 2.0 + x % 0.7 + x // 0.7
    return np.sum(b * b) + np.sum(x ** 3)


def with_ufuncs(x, y):
    a = np.subtract(np.add(np.multiply(x, y), np.true_divide(x, y)), np.subtract(y, x))
    b = np.add(np.add(np.multiply(np.negative(a), x), np.power(np.positive(y), 2.0)),
               np.add(np.remainder(x, 0.7), np.floor_divide(x, 0.7)))
    return np.sum(np.multiply(b, b)) + np.sum(np.power(x, 3))


def lists_with_operators(a, b):
    return np.sum(np.array([a, b]) * np.array([b, 2.0]) - np.array([a, a]) / np.array([b, b]))


def lists_with_ufuncs(a, b):
    return np.sum(np.subtract(np.multiply([a, b], [b, 2.0]), np.divide([a, a], (b, b))))


def test_the_ufuncs_named_like_the_operators_differentiate_as_the_operators():
    """np.multiply(x, y) and the rest give what x * y gives: broadcasting, numbers,
    lists and tuples, both modes and second derivatives."""
    r = random.Random(7)
    cases = [(arr(r, (3, 4), 0.5, 1.5), arr(r, (4,), 0.5, 1.5)),
             (arr(r, (4,), 0.5, 1.5), arr(r, (3, 1), 0.5, 1.5)),
             (0.9, arr(r, (4,), 0.5, 1.5)), (1.3, 0.8)]
    for x, y in cases:
        want = s2sad.grad(with_operators, wrt=(0, 1))(x, y)
        for mode in ("reverse", "forward", "tape"):
            got = s2sad.grad(with_ufuncs, wrt=(0, 1), mode=mode)(x, y)
            for g, w in zip(got, want):
                assert np.shape(g) == np.shape(w) and np.allclose(g, w, rtol=1e-12), mode
        assert np.allclose(want[0], central_diff(with_ufuncs, (x, y), 0), rtol=1e-5)
    x, y = arr(r, (4,), 0.5, 1.5), arr(r, (4,), 0.5, 1.5)
    assert np.allclose(s2sad.hessian(with_ufuncs)(x, y), s2sad.hessian(with_operators)(x, y),
                       rtol=1e-10)
    want = s2sad.grad(lists_with_operators, wrt=(0, 1))(0.7, 1.2)
    for mode in ("reverse", "forward", "tape"):
        assert np.allclose(s2sad.grad(lists_with_ufuncs, wrt=(0, 1), mode=mode)(0.7, 1.2), want)


# ------------------------------------- more elementwise functions, second order


def elementwise_zoo(x):
    return np.sum(np.hypot(x, 0.5) + np.sinc(x) + np.reciprocal(x + 2.0) + np.exp2(x)
                  + np.logaddexp2(x, 0.3) + np.deg2rad(x) * np.rad2deg(x)
                  + np.radians(x) * np.degrees(x) + np.copysign(x, -1.0) ** 3
                  + np.arcsinh(x) + np.arccosh(x + 2.0) + np.fmax(x, 0.1) ** 2
                  + np.fmin(x, 0.1) ** 2 + np.fabs(x - 2.0) ** 2 + np.nan_to_num(x) ** 3
                  + np.fmod(x, 0.9))


def elementwise_vector(x):
    return np.sinc(x) * np.hypot(x, 0.5) + np.exp2(x) * np.reciprocal(x + 2.0)


def special_numbers(t):
    return math.gamma(t) * math.lgamma(t + 1.5) + math.lgamma(-t)


def roots_and_powers(t):
    return math.cbrt(t) * math.exp2(t) + math.cbrt(-t)


def test_new_elementwise_rules_give_second_derivatives():
    """Each new rule's forward-over-reverse Hessian matches central differences of
    its gradient (sinc at 0 and beside it included), and the vector mode of
    forward derivatives carries them."""
    x = np.array([0.0, 5e-4, -0.6, 1.3, 0.45])
    grad = s2sad.grad(elementwise_zoo)
    want = np.array([central_diff(lambda v: grad(v)[i], (x,), 0) for i in range(x.size)])
    assert np.allclose(s2sad.hessian(elementwise_zoo)(x), want, rtol=1e-5, atol=1e-6)
    assert np.allclose(s2sad.grad(elementwise_zoo, mode="forward")(x), grad(x), rtol=1e-12)
    assert np.isclose(s2sad.hessian(lambda_free_sinc)(0.0), -math.pi ** 2 / 3, rtol=1e-12)
    jac = s2sad.jacobian(elementwise_vector)(x)
    numeric = np.array([central_diff(lambda v: elementwise_vector(v)[i], (x,), 0)
                        for i in range(x.size)])
    assert np.allclose(jac, numeric, rtol=1e-5, atol=1e-7)
    for t in (0.7, 2.5):  # (lgamma of a negative number: log |gamma|)
        h = s2sad.hessian(special_numbers)(t)
        numeric = central_diff(s2sad.grad(special_numbers), (t,), 0)
        assert np.isclose(h, numeric, rtol=1e-6), t
        assert np.isclose(s2sad.grad(special_numbers, mode="tape")(t),
                          s2sad.grad(special_numbers)(t), rtol=1e-12)


def lambda_free_sinc(t):
    return np.sinc(t)


@pytest.mark.skipif(not hasattr(math, "cbrt"), reason="math.cbrt and math.exp2: Python 3.11")
def test_cbrt_and_exp2_of_math():
    for t in (0.4, 1.7):
        g = s2sad.grad(roots_and_powers)(t)
        assert np.isclose(g, central_diff(roots_and_powers, (t,), 0), rtol=1e-6)
        assert np.isclose(s2sad.hessian(roots_and_powers)(t),
                          central_diff(s2sad.grad(roots_and_powers), (t,), 0), rtol=1e-6)
        assert np.isclose(s2sad.grad(roots_and_powers, mode="tape")(t), g, rtol=1e-12)
