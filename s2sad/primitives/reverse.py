"""Reverse-mode rules, one per primitive.

Each rule takes the primitive's inputs, its result ``out`` and the result's adjoint
``out_bar``, and returns one adjoint contribution per input (``None``: no derivative).
`forward.py` has the same keys in the same order under the same banners; the two are
paired by the dot-product test. NumPy's linear algebra has its rules in
`linalg_reverse`.

Conventions at kinks: ``abs`` has derivative 0 at 0; ``min``/``max`` give a tie to the
argument Python returns (the first); ``x ** y`` with respect to ``y`` is 0 at ``x == 0``
and NaN at ``x < 0`` (where ``x ** y`` is real only for whole ``y``: JAX's convention,
``log`` of ``x`` with zeros replaced by one); ``np.clip`` gives its bounds' ties to ``x``.
"""

import math

import numpy as np

from ..runtime import extreme_bar, matmul_x_bar, matmul_y_bar, norm_bar
from ..runtime import pieces, prod_others
from ..runtime import unbroadcast, unreduce, unstack, vstack_pieces
from .registry import REVERSE, add_rule, norm_orders

_TWO_OVER_SQRT_PI = 1.1283791670955126  # 2 / sqrt(pi), the scale of erf's derivative
LN2 = math.log(2.0)  # Python floats, so a float32 array stays float32
LN10 = math.log(10.0)


def rule(key, when=None, static=None, lists=()):
    """Register the decorated function as the reverse rule for `key` (`add_rule`;
    `lists` names the parameters its variant for lists converts with np.asarray)."""

    def register(func):
        add_rule(REVERSE, "reverse", key, func, when, static, lists)
        return func

    return register


# ---------------------------------------------------------------- arithmetic


@rule("add")
def add(x, y, out, out_bar):
    return out_bar, out_bar


@rule("sub")
def sub(x, y, out, out_bar):
    return out_bar, -out_bar


@rule("mul")
def mul(x, y, out, out_bar):
    return out_bar * y, out_bar * x


@rule("truediv")
def truediv(x, y, out, out_bar):
    return out_bar / y, -out_bar * out / y


@rule("floordiv")
def floordiv(x, y, out, out_bar):
    return None, None


@rule("mod")
def mod(x, y, out, out_bar):
    return out_bar, -out_bar * (x // y)


@rule("pow", when=("scalar", "int"))
def pow_by_int(x, k, out, out_bar):
    # (an integer exponent is never differentiated: where k == 0 the term is 0, and
    # the base 1.0 keeps it so without x ** -1, which overflows for a tiny x; at
    # second order k - 1 is an integer too. A literal k folds: x ** 2 gives 2 * x)
    return out_bar * k * (x if k else 1.0) ** (k - 1), None


@rule("pow")
def pow_(x, y, out, out_bar):
    # (where y == 0 the term is y / x, never 0 * x ** -1: that raises at x == 0 and
    # overflows for a tiny x, at first order or, as y * (y - 1) * x ** (y - 2), at
    # second; y / x is 0 and keeps the term's derivative in y, x ** -1 (the base is
    # 1.0 where x == 0 too). A literal y folds to one branch: x ** 2 gives 2 * x)
    return (out_bar * y * x ** (y - 1) if y else out_bar * y / (x if x else 1.0),
            out_bar * out * math.log(x) if x > 0 else 0.0 if x == 0 else out_bar * out * math.nan)


@rule("neg")
def neg(x, out, out_bar):
    return -out_bar


@rule("pos")
def pos(x, out, out_bar):
    return out_bar


# ------------------------------------------------------------ builtins


@rule(abs)
def abs_(x, out, out_bar):
    return out_bar if x > 0 else -out_bar if x < 0 else 0.0


@rule(abs, when="array")
def abs_of_array(x, out, out_bar):
    return out_bar * np.sign(x)


@rule(min)
def min_(x, y, out, out_bar):
    return 0.0 if y < x else out_bar, out_bar if y < x else 0.0


@rule(max)
def max_(x, y, out, out_bar):
    return 0.0 if y > x else out_bar, out_bar if y > x else 0.0


@rule(pow, when=("scalar", "int"))
def builtin_pow_by_int(x, k, out, out_bar):
    return out_bar * k * (x if k else 1.0) ** (k - 1), None


@rule(pow)
def builtin_pow(x, y, out, out_bar):
    return (out_bar * y * x ** (y - 1) if y else out_bar * y / (x if x else 1.0),
            out_bar * out * math.log(x) if x > 0 else 0.0 if x == 0 else out_bar * out * math.nan)


@rule(pow, when=("array", "int"))
def builtin_pow_of_array_by_int(x, k, out, out_bar):
    return unbroadcast(out_bar * k * (x if k else np.ones_like(x)) ** (k - 1), x), None


@rule(pow, when=("array", "scalar"))
def builtin_pow_of_array_by_number(x, y, out, out_bar):
    return (unbroadcast(out_bar * y * x ** (y - 1) if y else
                        out_bar * y / np.where(x == 0, 1, x), x),
            unbroadcast(out_bar * out * np.log(np.where(x == 0, 1.0, x)), y))


@rule(pow, when="array")
def builtin_pow_of_array(x, y, out, out_bar):
    return (unbroadcast(out_bar * np.where(y == 0, y / np.where((x == 0) | (y != 0), 1, x),
                                          y * np.where(y == 0, 1, x) ** (y - 1)), x),
            unbroadcast(out_bar * out * np.log(np.where(x == 0, 1.0, x)), y))


@rule(float)
def float_(x, out, out_bar):
    return out_bar


@rule(int)
def int_(x, out, out_bar):
    return None


@rule(round)
def round_(x, out, out_bar):
    return None


@rule(round)
def round_digits(x, ndigits, out, out_bar):
    return None, None


@rule(bool)
def bool_(x, out, out_bar):
    return None


# -------------------------------------------------------- math: powers, logs


@rule(math.sqrt)
def sqrt(x, out, out_bar):
    return out_bar / (2.0 * out)


@rule(math.pow, when=("scalar", "int"))
def math_pow_by_int(x, k, out, out_bar):
    return out_bar * k * (x if k else 1.0) ** (k - 1), None


@rule(math.pow)
def math_pow(x, y, out, out_bar):
    return (out_bar * y * x ** (y - 1) if y else out_bar * y / (x if x else 1.0),
            out_bar * out * math.log(x) if x > 0 else 0.0 if x == 0 else out_bar * out * math.nan)


@rule(math.exp)
def exp(x, out, out_bar):
    return out_bar * out


@rule(math.expm1)
def expm1(x, out, out_bar):
    return out_bar * (out + 1.0)


@rule(math.log)
def log(x, out, out_bar):
    return out_bar / x


@rule(math.log)
def log_base(x, base, out, out_bar):
    return out_bar / (x * math.log(base)), -out_bar * out / (base * math.log(base))


@rule(math.log1p)
def log1p(x, out, out_bar):
    return out_bar / (1.0 + x)


@rule(math.log2)
def log2(x, out, out_bar):
    return out_bar / (x * LN2)


@rule(math.log10)
def log10(x, out, out_bar):
    return out_bar / (x * LN10)


@rule(math.hypot)
def hypot(x, y, out, out_bar):
    return out_bar * x / out, out_bar * y / out


@rule(math.hypot)
def hypot3(x, y, z, out, out_bar):
    return out_bar * x / out, out_bar * y / out, out_bar * z / out


# ------------------------------------------------------ math: trigonometry


@rule(math.sin)
def sin(x, out, out_bar):
    return out_bar * math.cos(x)


@rule(math.cos)
def cos(x, out, out_bar):
    return -out_bar * math.sin(x)


@rule(math.tan)
def tan(x, out, out_bar):
    return out_bar * (1.0 + out * out)


@rule(math.asin)
def asin(x, out, out_bar):
    return out_bar / math.sqrt(1.0 - x * x)


@rule(math.acos)
def acos(x, out, out_bar):
    return -out_bar / math.sqrt(1.0 - x * x)


@rule(math.atan)
def atan(x, out, out_bar):
    return out_bar / (1.0 + x * x)


@rule(math.atan2)
def atan2(y, x, out, out_bar):
    r2 = x * x + y * y
    return out_bar * x / r2, -out_bar * y / r2


@rule(math.sinh)
def sinh(x, out, out_bar):
    return out_bar * math.cosh(x)


@rule(math.cosh)
def cosh(x, out, out_bar):
    return out_bar * math.sinh(x)


@rule(math.tanh)
def tanh(x, out, out_bar):
    return out_bar * (1.0 - out * out)


@rule(math.asinh)
def asinh(x, out, out_bar):
    return out_bar / math.sqrt(x * x + 1.0)


@rule(math.acosh)
def acosh(x, out, out_bar):
    return out_bar / math.sqrt(x * x - 1.0)


@rule(math.atanh)
def atanh(x, out, out_bar):
    return out_bar / (1.0 - x * x)


@rule(math.degrees)
def degrees(x, out, out_bar):
    return out_bar * (180.0 / math.pi)


@rule(math.radians)
def radians(x, out, out_bar):
    return out_bar * (math.pi / 180.0)


# ------------------------------------------------------ math: special, sign


@rule(math.erf)
def erf(x, out, out_bar):
    return out_bar * _TWO_OVER_SQRT_PI * math.exp(-x * x)


@rule(math.erfc)
def erfc(x, out, out_bar):
    return -out_bar * _TWO_OVER_SQRT_PI * math.exp(-x * x)


@rule(math.fabs)
def fabs(x, out, out_bar):
    return out_bar if x > 0 else -out_bar if x < 0 else 0.0


@rule(math.copysign)
def copysign(x, y, out, out_bar):
    return out_bar if (x < 0) == (out < 0) else -out_bar, None


@rule(math.fmod)
def fmod(x, y, out, out_bar):
    return out_bar, -out_bar * math.trunc(x / y)


@rule(math.floor)
def floor(x, out, out_bar):
    return None


@rule(math.ceil)
def ceil(x, out, out_bar):
    return None


@rule(math.trunc)
def trunc(x, out, out_bar):
    return None


@rule(math.isnan)
def isnan(x, out, out_bar):
    return None


@rule(math.isinf)
def isinf(x, out, out_bar):
    return None


@rule(math.isfinite)
def isfinite(x, out, out_bar):
    return None


# ------------------------------------------------- numpy: arithmetic on arrays


@rule("add", when="array")
def np_add(x, y, out, out_bar):
    return unbroadcast(out_bar, x), unbroadcast(out_bar, y)


@rule("sub", when="array")
def np_sub(x, y, out, out_bar):
    return unbroadcast(out_bar, x), unbroadcast(-out_bar, y)


@rule("mul", when="array")
def np_mul(x, y, out, out_bar):
    return unbroadcast(out_bar * y, x), unbroadcast(out_bar * x, y)


@rule("truediv", when="array")
def np_truediv(x, y, out, out_bar):
    return unbroadcast(out_bar / y, x), unbroadcast(-out_bar * out / y, y)


@rule("floordiv", when="array")
def np_floordiv(x, y, out, out_bar):
    return None, None


@rule("mod", when="array")
def np_mod(x, y, out, out_bar):
    return unbroadcast(out_bar, x), unbroadcast(-out_bar * (x // y), y)


@rule("pow", when=("array", "int"))
def np_pow_by_int(x, k, out, out_bar):
    # (an integer exponent: ones where k == 0, see the rule for numbers)
    return unbroadcast(out_bar * k * (x if k else np.ones_like(x)) ** (k - 1), x), None


@rule("pow", when=("array", "scalar"))
def np_pow_by_number(x, y, out, out_bar):
    # (as for numbers: y / x where y == 0, with 1 for the zeros of x; 0 * x ** -1
    # would be NaN at x == 0 and for a tiny x)
    return (unbroadcast(out_bar * y * x ** (y - 1) if y else
                        out_bar * y / np.where(x == 0, 1, x), x),
            unbroadcast(out_bar * out * np.log(np.where(x == 0, 1.0, x)), y))


@rule("pow", when="array")
def np_pow(x, y, out, out_bar):
    # (an array of exponents: the same, element by element; the base of the other
    # branch is 1 where y == 0, so its x ** -1 never overflows there)
    return (unbroadcast(out_bar * np.where(y == 0, y / np.where((x == 0) | (y != 0), 1, x),
                                          y * np.where(y == 0, 1, x) ** (y - 1)), x),
            unbroadcast(out_bar * out * np.log(np.where(x == 0, 1.0, x)), y))


@rule("neg", when="array")
def np_neg(x, out, out_bar):
    return -out_bar


@rule("pos", when="array")
def np_pos(x, out, out_bar):
    return out_bar


@rule("matmul", when=("2d", "2d"))
def matmul_2d_2d(x, y, out, out_bar):
    return out_bar @ y.T, x.T @ out_bar


@rule("matmul", when=("2d", "1d"))
def matmul_2d_1d(x, y, out, out_bar):
    return np.outer(out_bar, y), out_bar @ x


@rule("matmul", when=("1d", "2d"))
def matmul_1d_2d(x, y, out, out_bar):
    return y @ out_bar, np.outer(x, out_bar)


@rule("matmul", when=("1d", "1d"))
def matmul_1d_1d(x, y, out, out_bar):
    return out_bar * y, out_bar * x


@rule("matmul", when="array")
def matmul_nd(x, y, out, out_bar):
    return matmul_x_bar(out_bar, x, y), matmul_y_bar(out_bar, x, y)


# -------------------------------------------------- numpy: elementwise functions


@rule(np.sin)
def np_sin(x, out, out_bar):
    return out_bar * np.cos(x)


@rule(np.cos)
def np_cos(x, out, out_bar):
    return -out_bar * np.sin(x)


@rule(np.tan)
def np_tan(x, out, out_bar):
    return out_bar * (1.0 + out * out)


@rule(np.arcsin, lists=("x",))
def np_arcsin(x, out, out_bar):
    return out_bar / np.sqrt(1.0 - x * x)


@rule(np.arccos, lists=("x",))
def np_arccos(x, out, out_bar):
    return -out_bar / np.sqrt(1.0 - x * x)


@rule(np.arctan, lists=("x",))
def np_arctan(x, out, out_bar):
    return out_bar / (1.0 + x * x)


@rule(np.arctanh, lists=("x",))
def np_arctanh(x, out, out_bar):
    return out_bar / (1.0 - x * x)


@rule(np.arctan2, lists=("y", "x"))
def np_arctan2(y, x, out, out_bar):
    r2 = x * x + y * y
    return unbroadcast(out_bar * x / r2, y), unbroadcast(-out_bar * y / r2, x)


@rule(np.sinh)
def np_sinh(x, out, out_bar):
    return out_bar * np.cosh(x)


@rule(np.cosh)
def np_cosh(x, out, out_bar):
    return out_bar * np.sinh(x)


@rule(np.tanh)
def np_tanh(x, out, out_bar):
    return out_bar * (1.0 - out * out)


@rule(np.exp)
def np_exp(x, out, out_bar):
    return out_bar * out


@rule(np.expm1)
def np_expm1(x, out, out_bar):
    return out_bar * (out + 1.0)


@rule(np.log, lists=("x",))
def np_log(x, out, out_bar):
    return out_bar / x


@rule(np.log1p, lists=("x",))
def np_log1p(x, out, out_bar):
    return out_bar / (1.0 + x)


@rule(np.log2, lists=("x",))
def np_log2(x, out, out_bar):
    return out_bar / (x * LN2)


@rule(np.log10, lists=("x",))
def np_log10(x, out, out_bar):
    return out_bar / (x * LN10)


@rule(np.sqrt)
def np_sqrt(x, out, out_bar):
    return out_bar / (2.0 * out)


@rule(np.square, lists=("x",))
def np_square(x, out, out_bar):
    return out_bar * 2.0 * x


@rule(np.abs)
def np_abs(x, out, out_bar):
    return out_bar * np.sign(x)


@rule(np.sign)
def np_sign(x, out, out_bar):
    return None


@rule(np.power, when=("array", "int"))
def np_power_by_int(x, k, out, out_bar):
    return unbroadcast(out_bar * k * (x if k else np.ones_like(x)) ** (k - 1), x), None


@rule(np.power, when=("array", "scalar"))
def np_power_by_number(x, y, out, out_bar):
    return (unbroadcast(out_bar * y * x ** (y - 1) if y else
                        out_bar * y / np.where(x == 0, 1, x), x),
            unbroadcast(out_bar * out * np.log(np.where(x == 0, 1.0, x)), y))


@rule(np.power, lists=("x", "y"))
def np_power(x, y, out, out_bar):
    return (unbroadcast(out_bar * np.where(y == 0, y / np.where((x == 0) | (y != 0), 1, x),
                                          y * np.where(y == 0, 1, x) ** (y - 1)), x),
            unbroadcast(out_bar * out * np.log(np.where(x == 0, 1.0, x)), y))


@rule(np.maximum, lists=("x", "y"))
def np_maximum(x, y, out, out_bar):
    return unbroadcast(out_bar * (x >= y), x), unbroadcast(out_bar * (x < y), y)


@rule(np.minimum, lists=("x", "y"))
def np_minimum(x, y, out, out_bar):
    return unbroadcast(out_bar * (x <= y), x), unbroadcast(out_bar * (x > y), y)


@rule(np.logaddexp)
def np_logaddexp(x, y, out, out_bar):
    return unbroadcast(out_bar * np.exp(x - out), x), unbroadcast(out_bar * np.exp(y - out), y)


@rule(np.clip)
def np_clip(x, lo=None, hi=None, *, out, out_bar):
    # (NumPy's minimum(maximum(x, lo), hi): where lo > hi, hi; a bound compared only
    # by ==, which is False against None, no bound)
    return (unbroadcast(out_bar * (out == x), x),
            unbroadcast(out_bar * ((out > x) & (out == lo)), lo),
            unbroadcast(out_bar * ((out < x) | (out > x) & (out == hi) & (out != lo)), hi))


@rule(np.where, when=("int", "scalar", "scalar"))
def np_where_numbers(condition, x, y, out, out_bar):
    # (of numbers: a number, not the 0-d array np.where gives)
    return None, out_bar if condition else 0.0, 0.0 if condition else out_bar


@rule(np.where)
def np_where(condition, x, y, out, out_bar):
    return (None, unbroadcast(np.where(condition, out_bar, 0.0), x),
            unbroadcast(np.where(condition, 0.0, out_bar), y))


# ------------------------------------------------------------ numpy: reductions


@rule(np.sum)
def np_sum(x, *, axis=None, keepdims=False, out, out_bar):
    return unreduce(out_bar, x, axis, keepdims)


@rule(np.cumsum)
def np_cumsum(x, *, axis=None, out, out_bar):
    # (each element reaches the sums after it; axis=None: of x flattened)
    return np.reshape(np.flip(np.cumsum(np.flip(out_bar, axis), axis), axis), np.shape(x))


@rule(np.mean)
def np_mean(x, *, axis=None, keepdims=False, out, out_bar):
    # (scaled before it is spread: one multiplication per reduced element)
    return unreduce(out_bar * (np.size(out) / np.size(x)), x, axis, keepdims)


@rule(np.prod)
def np_prod(x, *, axis=None, keepdims=False, out, out_bar):
    return unreduce(out_bar, x, axis, keepdims) * prod_others(x, axis)


@rule(np.max)
def np_max(x, *, axis=None, keepdims=False, out, out_bar):
    return extreme_bar(out_bar, x, out, axis, keepdims)


@rule(np.amax)
def np_amax(x, *, axis=None, keepdims=False, out, out_bar):
    return extreme_bar(out_bar, x, out, axis, keepdims)


@rule(np.min)
def np_min(x, *, axis=None, keepdims=False, out, out_bar):
    return extreme_bar(out_bar, x, out, axis, keepdims)


@rule(np.amin)
def np_amin(x, *, axis=None, keepdims=False, out, out_bar):
    return extreme_bar(out_bar, x, out, axis, keepdims)


@rule(np.var)
def np_var(x, *, axis=None, keepdims=False, ddof=0, out, out_bar):
    n = np.size(x) / np.size(out) - ddof
    return unreduce(out_bar, x, axis, keepdims) * 2.0 * (x - np.mean(x, axis, keepdims=True)) / n


@rule(np.std)
def np_std(x, *, axis=None, keepdims=False, ddof=0, out, out_bar):
    # (a zero deviation has every element at the mean: the derivative there is taken
    # as zero, as the norm's, and it is exactly zero where one element is reduced)
    n = np.size(x) / np.size(out) - ddof
    return unreduce(out_bar / np.where(out == 0, 1.0, out), x, axis, keepdims) \
        * (x - np.mean(x, axis, keepdims=True)) / n


@rule(np.linalg.norm, when=("1d",), static=norm_orders(matrix=False))
def np_norm_1d(x, *, ord=None, axis=None, keepdims=False, out, out_bar):
    return norm_bar(out_bar, x, out, ord, axis, keepdims)


@rule(np.linalg.norm, static=norm_orders(matrix=True))
def np_norm(x, *, ord=None, axis=None, keepdims=False, out, out_bar):
    return norm_bar(out_bar, x, out, ord, axis, keepdims)


# ---------------------------------------------------------------- numpy: shapes


@rule(np.reshape)
def np_reshape(x, shape, out, out_bar):
    return np.reshape(out_bar, np.shape(x)), None


@rule(np.ravel)
def np_ravel(x, out, out_bar):
    return np.reshape(out_bar, np.shape(x))


@rule(np.squeeze)
def np_squeeze(x, *, axis=None, out, out_bar):
    return np.reshape(out_bar, np.shape(x))


@rule(np.expand_dims)
def np_expand_dims(x, axis, out, out_bar):
    return np.reshape(out_bar, np.shape(x)), None


@rule(np.concatenate)
def np_concatenate(parts, *, axis=0, out, out_bar):
    return pieces(out_bar, parts, axis)


@rule(np.stack)
def np_stack(parts, *, axis=0, out, out_bar):
    return unstack(out_bar, len(parts), axis)


@rule(np.hstack)
def np_hstack(parts, out, out_bar):
    return pieces(out_bar, parts, 1 if np.ndim(out) > 1 else 0)


@rule(np.vstack)
def np_vstack(parts, out, out_bar):
    return vstack_pieces(out_bar, parts)


@rule(np.array, when="array")
def np_array_of_array(x, out, out_bar):
    return out_bar


@rule(np.array, when=("list",))
def np_array_of_list(x, out, out_bar):
    return list(out_bar)


@rule(np.array)
def np_array(x, out, out_bar):
    return list(out_bar) if isinstance(x, list) else out_bar


@rule(np.asarray, when="array")
def np_asarray_of_array(x, out, out_bar):
    return out_bar


@rule(np.asarray, when=("list",))
def np_asarray_of_list(x, out, out_bar):
    return list(out_bar)


@rule(np.asarray)
def np_asarray(x, out, out_bar):
    return list(out_bar) if isinstance(x, list) else out_bar


@rule(np.copy, when="array")
def np_copy_of_array(x, out, out_bar):
    return out_bar


@rule(np.copy, when=("list",))
def np_copy_of_list(x, out, out_bar):
    return list(out_bar)


@rule(np.copy)
def np_copy(x, out, out_bar):
    return list(out_bar) if isinstance(x, list) else out_bar
