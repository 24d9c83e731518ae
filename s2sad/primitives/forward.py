"""Forward-mode rules, one per primitive.

Each rule takes the primitive's inputs, its result ``out`` and one tangent per input
(``x_dot``, ``y_dot``...), and returns each input's contribution to the tangent of
``out`` (``None``: no derivative); the compiler adds the contributions of the inputs
that are active. Same keys, order and banners as `reverse.py`, and the same
conventions at kinks. NumPy's linear algebra has its rules in `linalg_forward`.
"""

import math

import numpy as np

from ..runtime import extreme_bar, norm_bar, prod_others
from .registry import FORWARD, add_rule, norm_orders

_TWO_OVER_SQRT_PI = 1.1283791670955126  # 2 / sqrt(pi), the scale of erf's derivative
LN2 = math.log(2.0)  # Python floats, so a float32 array stays float32
LN10 = math.log(10.0)


def rule(key, when=None, static=None, lists=()):
    """Register the decorated function as the forward rule for `key` (`add_rule`;
    `lists` names the parameters its variant for lists converts with np.asarray)."""

    def register(func):
        add_rule(FORWARD, "forward", key, func, when, static, lists)
        return func

    return register


# ---------------------------------------------------------------- arithmetic


@rule("add")
def add(x, y, out, x_dot, y_dot):
    return x_dot, y_dot


@rule("sub")
def sub(x, y, out, x_dot, y_dot):
    return x_dot, -y_dot


@rule("mul")
def mul(x, y, out, x_dot, y_dot):
    return x_dot * y, x * y_dot


@rule("truediv")
def truediv(x, y, out, x_dot, y_dot):
    return x_dot / y, -out * y_dot / y


@rule("floordiv")
def floordiv(x, y, out, x_dot, y_dot):
    return None, None


@rule("mod")
def mod(x, y, out, x_dot, y_dot):
    return x_dot, -(x // y) * y_dot


@rule("pow", when=("scalar", "int"))
def pow_by_int(x, k, out, x_dot, k_dot):
    # (an integer exponent is never differentiated: where k == 0 the term is 0, and
    # the base 1.0 keeps it so without x ** -1, which overflows for a tiny x; at
    # second order k - 1 is an integer too. A literal k folds: x ** 2 gives 2 * x)
    return k * (x if k else 1.0) ** (k - 1) * x_dot, None


@rule("pow")
def pow_(x, y, out, x_dot, y_dot):
    # (where y == 0 the term is y / x, never 0 * x ** -1: that raises at x == 0 and
    # overflows for a tiny x, at first order or, as y * (y - 1) * x ** (y - 2), at
    # second; y / x is 0 and keeps the term's derivative in y, x ** -1 (the base is
    # 1.0 where x == 0 too). A literal y folds to one branch: x ** 2 gives 2 * x)
    return (y * x ** (y - 1) * x_dot if y else y / (x if x else 1.0) * x_dot,
            out * math.log(x) * y_dot if x > 0 else 0.0 if x == 0 or not y_dot else math.nan)


@rule("neg")
def neg(x, out, x_dot):
    return -x_dot


@rule("pos")
def pos(x, out, x_dot):
    return x_dot


# ------------------------------------------------------------ builtins


@rule(abs)
def abs_(x, out, x_dot):
    return x_dot if x > 0 else -x_dot if x < 0 else 0.0


@rule(abs, when="array")
def abs_of_array(x, out, x_dot):
    return np.sign(x) * x_dot


@rule(min)
def min_(x, y, out, x_dot, y_dot):
    return 0.0 if y < x else x_dot, y_dot if y < x else 0.0


@rule(max)
def max_(x, y, out, x_dot, y_dot):
    return 0.0 if y > x else x_dot, y_dot if y > x else 0.0


@rule(pow, when=("scalar", "int"))
def builtin_pow_by_int(x, k, out, x_dot, k_dot):
    return k * (x if k else 1.0) ** (k - 1) * x_dot, None


@rule(pow)
def builtin_pow(x, y, out, x_dot, y_dot):
    return (y * x ** (y - 1) * x_dot if y else y / (x if x else 1.0) * x_dot,
            out * math.log(x) * y_dot if x > 0 else 0.0 if x == 0 or not y_dot else math.nan)


@rule(pow, when=("array", "int"))
def builtin_pow_of_array_by_int(x, k, out, x_dot, k_dot):
    return k * (x if k else np.ones_like(x)) ** (k - 1) * x_dot, None


@rule(pow, when=("array", "scalar"))
def builtin_pow_of_array_by_number(x, y, out, x_dot, y_dot):
    return (y * x ** (y - 1) * x_dot if y else y / np.where(x == 0, 1, x) * x_dot,
            out * np.log(np.where((x == 0) | (y_dot == 0), 1.0, x)) * y_dot)


@rule(pow, when="array")
def builtin_pow_of_array(x, y, out, x_dot, y_dot):
    return (np.where(y == 0, y / np.where((x == 0) | (y != 0), 1, x), y * np.where(y == 0, 1, x) ** (y - 1))
            * x_dot,
            out * np.log(np.where((x == 0) | (y_dot == 0), 1.0, x)) * y_dot)


@rule(float)
def float_(x, out, x_dot):
    return x_dot


@rule(int)
def int_(x, out, x_dot):
    return None


@rule(round)
def round_(x, out, x_dot):
    return None


@rule(round)
def round_digits(x, ndigits, out, x_dot, ndigits_dot):
    return None, None


@rule(bool)
def bool_(x, out, x_dot):
    return None


# -------------------------------------------------------- math: powers, logs


@rule(math.sqrt)
def sqrt(x, out, x_dot):
    return x_dot / (2.0 * out)


@rule(math.pow, when=("scalar", "int"))
def math_pow_by_int(x, k, out, x_dot, k_dot):
    return k * (x if k else 1.0) ** (k - 1) * x_dot, None


@rule(math.pow)
def math_pow(x, y, out, x_dot, y_dot):
    return (y * x ** (y - 1) * x_dot if y else y / (x if x else 1.0) * x_dot,
            out * math.log(x) * y_dot if x > 0 else 0.0 if x == 0 or not y_dot else math.nan)


@rule(math.exp)
def exp(x, out, x_dot):
    return out * x_dot


@rule(math.expm1)
def expm1(x, out, x_dot):
    return (out + 1.0) * x_dot


@rule(math.log)
def log(x, out, x_dot):
    return x_dot / x


@rule(math.log)
def log_base(x, base, out, x_dot, base_dot):
    return x_dot / (x * math.log(base)), -out * base_dot / (base * math.log(base))


@rule(math.log1p)
def log1p(x, out, x_dot):
    return x_dot / (1.0 + x)


@rule(math.log2)
def log2(x, out, x_dot):
    return x_dot / (x * LN2)


@rule(math.log10)
def log10(x, out, x_dot):
    return x_dot / (x * LN10)


@rule(math.hypot)
def hypot(x, y, out, x_dot, y_dot):
    return x * x_dot / out, y * y_dot / out


@rule(math.hypot)
def hypot3(x, y, z, out, x_dot, y_dot, z_dot):
    return x * x_dot / out, y * y_dot / out, z * z_dot / out


# ------------------------------------------------------ math: trigonometry


@rule(math.sin)
def sin(x, out, x_dot):
    return math.cos(x) * x_dot


@rule(math.cos)
def cos(x, out, x_dot):
    return -math.sin(x) * x_dot


@rule(math.tan)
def tan(x, out, x_dot):
    return (1.0 + out * out) * x_dot


@rule(math.asin)
def asin(x, out, x_dot):
    return x_dot / math.sqrt(1.0 - x * x)


@rule(math.acos)
def acos(x, out, x_dot):
    return -x_dot / math.sqrt(1.0 - x * x)


@rule(math.atan)
def atan(x, out, x_dot):
    return x_dot / (1.0 + x * x)


@rule(math.atan2)
def atan2(y, x, out, y_dot, x_dot):
    r2 = x * x + y * y
    return x * y_dot / r2, -y * x_dot / r2


@rule(math.sinh)
def sinh(x, out, x_dot):
    return math.cosh(x) * x_dot


@rule(math.cosh)
def cosh(x, out, x_dot):
    return math.sinh(x) * x_dot


@rule(math.tanh)
def tanh(x, out, x_dot):
    return (1.0 - out * out) * x_dot


@rule(math.asinh)
def asinh(x, out, x_dot):
    return x_dot / math.sqrt(x * x + 1.0)


@rule(math.acosh)
def acosh(x, out, x_dot):
    return x_dot / math.sqrt(x * x - 1.0)


@rule(math.atanh)
def atanh(x, out, x_dot):
    return x_dot / (1.0 - x * x)


@rule(math.degrees)
def degrees(x, out, x_dot):
    return (180.0 / math.pi) * x_dot


@rule(math.radians)
def radians(x, out, x_dot):
    return (math.pi / 180.0) * x_dot


# ------------------------------------------------------ math: special, sign


@rule(math.erf)
def erf(x, out, x_dot):
    return _TWO_OVER_SQRT_PI * math.exp(-x * x) * x_dot


@rule(math.erfc)
def erfc(x, out, x_dot):
    return -_TWO_OVER_SQRT_PI * math.exp(-x * x) * x_dot


@rule(math.fabs)
def fabs(x, out, x_dot):
    return x_dot if x > 0 else -x_dot if x < 0 else 0.0


@rule(math.copysign)
def copysign(x, y, out, x_dot, y_dot):
    return x_dot if (x < 0) == (out < 0) else -x_dot, None


@rule(math.fmod)
def fmod(x, y, out, x_dot, y_dot):
    return x_dot, -math.trunc(x / y) * y_dot


@rule(math.floor)
def floor(x, out, x_dot):
    return None


@rule(math.ceil)
def ceil(x, out, x_dot):
    return None


@rule(math.trunc)
def trunc(x, out, x_dot):
    return None


@rule(math.isnan)
def isnan(x, out, x_dot):
    return None


@rule(math.isinf)
def isinf(x, out, x_dot):
    return None


@rule(math.isfinite)
def isfinite(x, out, x_dot):
    return None


# ------------------------------------------------- numpy: arithmetic on arrays


@rule("add", when="array")
def np_add(x, y, out, x_dot, y_dot):
    return x_dot, y_dot


@rule("sub", when="array")
def np_sub(x, y, out, x_dot, y_dot):
    return x_dot, -y_dot


@rule("mul", when="array")
def np_mul(x, y, out, x_dot, y_dot):
    return x_dot * y, x * y_dot


@rule("truediv", when="array")
def np_truediv(x, y, out, x_dot, y_dot):
    return x_dot / y, -out * y_dot / y


@rule("floordiv", when="array")
def np_floordiv(x, y, out, x_dot, y_dot):
    return None, None


@rule("mod", when="array")
def np_mod(x, y, out, x_dot, y_dot):
    return x_dot, -(x // y) * y_dot


@rule("pow", when=("array", "int"))
def np_pow_by_int(x, k, out, x_dot, k_dot):
    # (an integer exponent: ones where k == 0, see the rule for numbers)
    return k * (x if k else np.ones_like(x)) ** (k - 1) * x_dot, None


@rule("pow", when=("array", "scalar"))
def np_pow_by_number(x, y, out, x_dot, y_dot):
    # (as for numbers: y / x where y == 0, with 1 for the zeros of x; 0 * x ** -1
    # would be NaN at x == 0 and for a tiny x)
    return (y * x ** (y - 1) * x_dot if y else y / np.where(x == 0, 1, x) * x_dot,
            out * np.log(np.where((x == 0) | (y_dot == 0), 1.0, x)) * y_dot)


@rule("pow", when="array")
def np_pow(x, y, out, x_dot, y_dot):
    # (an array of exponents: the same, element by element; the base of the other
    # branch is 1 where y == 0, so its x ** -1 never overflows there)
    return (np.where(y == 0, y / np.where((x == 0) | (y != 0), 1, x), y * np.where(y == 0, 1, x) ** (y - 1))
            * x_dot,
            out * np.log(np.where((x == 0) | (y_dot == 0), 1.0, x)) * y_dot)


@rule("neg", when="array")
def np_neg(x, out, x_dot):
    return -x_dot


@rule("pos", when="array")
def np_pos(x, out, x_dot):
    return x_dot


@rule("matmul", when=("2d", "2d"))
def matmul_2d_2d(x, y, out, x_dot, y_dot):
    return x_dot @ y, x @ y_dot


@rule("matmul", when=("2d", "1d"))
def matmul_2d_1d(x, y, out, x_dot, y_dot):
    return x_dot @ y, x @ y_dot


@rule("matmul", when=("1d", "2d"))
def matmul_1d_2d(x, y, out, x_dot, y_dot):
    return x_dot @ y, x @ y_dot


@rule("matmul", when=("1d", "1d"))
def matmul_1d_1d(x, y, out, x_dot, y_dot):
    return x_dot @ y, x @ y_dot


@rule("matmul", when="array")
def matmul_nd(x, y, out, x_dot, y_dot):
    return x_dot @ y, x @ y_dot


# -------------------------------------------------- numpy: elementwise functions


@rule(np.sin)
def np_sin(x, out, x_dot):
    return np.cos(x) * x_dot


@rule(np.cos)
def np_cos(x, out, x_dot):
    return -np.sin(x) * x_dot


@rule(np.tan)
def np_tan(x, out, x_dot):
    return (1.0 + out * out) * x_dot


@rule(np.arcsin, lists=("x", "x_dot"))
def np_arcsin(x, out, x_dot):
    return x_dot / np.sqrt(1.0 - x * x)


@rule(np.arccos, lists=("x", "x_dot"))
def np_arccos(x, out, x_dot):
    return -x_dot / np.sqrt(1.0 - x * x)


@rule(np.arctan, lists=("x", "x_dot"))
def np_arctan(x, out, x_dot):
    return x_dot / (1.0 + x * x)


@rule(np.arctanh, lists=("x", "x_dot"))
def np_arctanh(x, out, x_dot):
    return x_dot / (1.0 - x * x)


@rule(np.arctan2, lists=("y", "x", "y_dot", "x_dot"))
def np_arctan2(y, x, out, y_dot, x_dot):
    r2 = x * x + y * y
    return x * y_dot / r2, -y * x_dot / r2


@rule(np.sinh)
def np_sinh(x, out, x_dot):
    return np.cosh(x) * x_dot


@rule(np.cosh)
def np_cosh(x, out, x_dot):
    return np.sinh(x) * x_dot


@rule(np.tanh)
def np_tanh(x, out, x_dot):
    return (1.0 - out * out) * x_dot


@rule(np.exp)
def np_exp(x, out, x_dot):
    return out * x_dot


@rule(np.expm1)
def np_expm1(x, out, x_dot):
    return (out + 1.0) * x_dot


@rule(np.log, lists=("x", "x_dot"))
def np_log(x, out, x_dot):
    return x_dot / x


@rule(np.log1p, lists=("x", "x_dot"))
def np_log1p(x, out, x_dot):
    return x_dot / (1.0 + x)


@rule(np.log2, lists=("x", "x_dot"))
def np_log2(x, out, x_dot):
    return x_dot / (x * LN2)


@rule(np.log10, lists=("x", "x_dot"))
def np_log10(x, out, x_dot):
    return x_dot / (x * LN10)


@rule(np.sqrt)
def np_sqrt(x, out, x_dot):
    return x_dot / (2.0 * out)


@rule(np.square, lists=("x",))
def np_square(x, out, x_dot):
    return 2.0 * x * x_dot


@rule(np.abs)
def np_abs(x, out, x_dot):
    return np.sign(x) * x_dot


@rule(np.sign)
def np_sign(x, out, x_dot):
    return None


@rule(np.power, when=("array", "int"))
def np_power_by_int(x, k, out, x_dot, k_dot):
    return k * (x if k else np.ones_like(x)) ** (k - 1) * x_dot, None


@rule(np.power, when=("array", "scalar"))
def np_power_by_number(x, y, out, x_dot, y_dot):
    return (y * x ** (y - 1) * x_dot if y else y / np.where(x == 0, 1, x) * x_dot,
            out * np.log(np.where((x == 0) | (y_dot == 0), 1.0, x)) * y_dot)


@rule(np.power, lists=("x", "y"))
def np_power(x, y, out, x_dot, y_dot):
    return (np.where(y == 0, y / np.where((x == 0) | (y != 0), 1, x), y * np.where(y == 0, 1, x) ** (y - 1))
            * x_dot,
            out * np.log(np.where((x == 0) | (y_dot == 0), 1.0, x)) * y_dot)


@rule(np.maximum, lists=("x", "y"))
def np_maximum(x, y, out, x_dot, y_dot):
    return (x >= y) * x_dot, (x < y) * y_dot


@rule(np.minimum, lists=("x", "y"))
def np_minimum(x, y, out, x_dot, y_dot):
    return (x <= y) * x_dot, (x > y) * y_dot


@rule(np.logaddexp)
def np_logaddexp(x, y, out, x_dot, y_dot):
    return np.exp(x - out) * x_dot, np.exp(y - out) * y_dot


@rule(np.clip)
def np_clip(x, lo=None, hi=None, *, out, x_dot, lo_dot, hi_dot):
    # (NumPy's minimum(maximum(x, lo), hi): where lo > hi, hi; a bound compared only
    # by ==, which is False against None, no bound)
    return ((out == x) * x_dot, ((out > x) & (out == lo)) * lo_dot,
            ((out < x) | (out > x) & (out == hi) & (out != lo)) * hi_dot)


@rule(np.where, when=("int", "scalar", "scalar"))
def np_where_numbers(condition, x, y, out, condition_dot, x_dot, y_dot):
    # (of numbers: only the branch taken has its tangent computed, as for ``x if
    # condition else y``, so 1.0 / x at a masked x == 0.0 never raises)
    return None, x_dot if condition else 0.0, 0.0 if condition else y_dot


@rule(np.where)
def np_where(condition, x, y, out, condition_dot, x_dot, y_dot):
    return None, np.where(condition, x_dot, 0.0), np.where(condition, 0.0, y_dot)


# ------------------------------------------------------------ numpy: reductions


@rule(np.sum)
def np_sum(x, *, axis=None, keepdims=False, out, x_dot):
    return np.sum(x_dot, axis=axis, keepdims=keepdims)


@rule(np.cumsum)
def np_cumsum(x, *, axis=None, out, x_dot):
    return np.cumsum(x_dot, axis=axis)


@rule(np.mean)
def np_mean(x, *, axis=None, keepdims=False, out, x_dot):
    return np.mean(x_dot, axis=axis, keepdims=keepdims)


@rule(np.prod)
def np_prod(x, *, axis=None, keepdims=False, out, x_dot):
    return np.sum(prod_others(x, axis) * x_dot, axis=axis, keepdims=keepdims)


@rule(np.max)
def np_max(x, *, axis=None, keepdims=False, out, x_dot):
    return np.sum(extreme_bar(1.0, x, out, axis, keepdims) * x_dot, axis=axis, keepdims=keepdims)


@rule(np.amax)
def np_amax(x, *, axis=None, keepdims=False, out, x_dot):
    return np.sum(extreme_bar(1.0, x, out, axis, keepdims) * x_dot, axis=axis, keepdims=keepdims)


@rule(np.min)
def np_min(x, *, axis=None, keepdims=False, out, x_dot):
    return np.sum(extreme_bar(1.0, x, out, axis, keepdims) * x_dot, axis=axis, keepdims=keepdims)


@rule(np.amin)
def np_amin(x, *, axis=None, keepdims=False, out, x_dot):
    return np.sum(extreme_bar(1.0, x, out, axis, keepdims) * x_dot, axis=axis, keepdims=keepdims)


@rule(np.var)
def np_var(x, *, axis=None, keepdims=False, ddof=0, out, x_dot):
    n = np.size(x) / np.size(out) - ddof
    centred = x - np.mean(x, axis, keepdims=True)
    return np.sum(2.0 * centred * x_dot, axis=axis, keepdims=keepdims) / n


@rule(np.std)
def np_std(x, *, axis=None, keepdims=False, ddof=0, out, x_dot):
    n = np.size(x) / np.size(out) - ddof
    centred = x - np.mean(x, axis, keepdims=True)
    return np.sum(centred * x_dot, axis=axis, keepdims=keepdims) / (n * np.where(out == 0, 1.0, out))


@rule(np.linalg.norm, when=("1d",), static=norm_orders(matrix=False))
def np_norm_1d(x, *, ord=None, axis=None, keepdims=False, out, x_dot):
    return np.sum(norm_bar(1.0, x, out, ord, axis, keepdims) * x_dot, axis=axis, keepdims=keepdims)


@rule(np.linalg.norm, static=norm_orders(matrix=True))
def np_norm(x, *, ord=None, axis=None, keepdims=False, out, x_dot):
    return np.sum(norm_bar(1.0, x, out, ord, axis, keepdims) * x_dot, axis=axis, keepdims=keepdims)


# ---------------------------------------------------------------- numpy: shapes


@rule(np.reshape)
def np_reshape(x, shape, out, x_dot, shape_dot):
    return np.reshape(x_dot, np.shape(out)), None


@rule(np.ravel)
def np_ravel(x, out, x_dot):
    return np.ravel(x_dot)


@rule(np.squeeze)
def np_squeeze(x, *, axis=None, out, x_dot):
    return np.reshape(x_dot, np.shape(out))


@rule(np.expand_dims)
def np_expand_dims(x, axis, out, x_dot, axis_dot):
    return np.reshape(x_dot, np.shape(out)), None


@rule(np.concatenate)
def np_concatenate(parts, *, axis=0, out, parts_dot):
    return np.concatenate(parts_dot, axis=axis)


@rule(np.stack)
def np_stack(parts, *, axis=0, out, parts_dot):
    return np.stack(parts_dot, axis=axis)


@rule(np.hstack)
def np_hstack(parts, out, parts_dot):
    return np.hstack(parts_dot)


@rule(np.vstack)
def np_vstack(parts, out, parts_dot):
    return np.vstack(parts_dot)


@rule(np.array, when="array")
def np_array_of_array(x, out, x_dot):
    return np.array(x_dot)


@rule(np.array, when=("list",))
def np_array_of_list(x, out, x_dot):
    return np.array(x_dot)


@rule(np.array)
def np_array(x, out, x_dot):
    return np.array(x_dot)


@rule(np.asarray, when="array")
def np_asarray_of_array(x, out, x_dot):
    return np.asarray(x_dot)


@rule(np.asarray, when=("list",))
def np_asarray_of_list(x, out, x_dot):
    return np.asarray(x_dot)


@rule(np.asarray)
def np_asarray(x, out, x_dot):
    return np.asarray(x_dot)


@rule(np.copy, when="array")
def np_copy_of_array(x, out, x_dot):
    # (the method, which a Dask array has: np.array of one computes it)
    return x_dot.copy()


@rule(np.copy, when=("list",))
def np_copy_of_list(x, out, x_dot):
    return np.array(x_dot)


@rule(np.copy)
def np_copy(x, out, x_dot):
    return np.array(x_dot)
