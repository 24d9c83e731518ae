"""Reverse-mode rules of NumPy's ufuncs named like the operators (``np.multiply``,
``np.add``, ``np.subtract``, ``np.divide``, ``np.negative``, ``np.positive``,
``np.mod``, ``np.floor_divide``; ``np.power`` of numbers: its rules for arrays are
`reverse`'s), of more of NumPy's elementwise functions
(``np.hypot``, ``np.fmax``, ``np.sinc``, ``np.reciprocal``, ``np.exp2``,
``np.logaddexp2``, ``np.copysign``, ``np.nan_to_num``, angle conversions, ``np.angle``
and ``np.real_if_close`` of real values, ``np.heaviside``, ``np.float_power`` (with
``np.power``'s rules), the casts ``np.float64`` and ``np.float32``...), of
``np.cbrt``, ``np.modf`` (two results: the fractional part's derivative 1, the
integral part's 0), ``.item()``, and of ``math.cbrt``, ``math.exp2``, ``math.gamma``
and ``math.lgamma``.

The form of `reverse` (and its `rule` decorator), paired with `ufuncs_forward` as
`reverse` is with `forward` (the dot-product test): same keys, order and banners.
A ufunc named like an operator has the operator's terms: a variant for two
numbers (``("scalar", "scalar")``), the rule for arrays and anything else
(``unbroadcast`` back to each operand's shape, which the optimizer drops where the
shapes prove it idle) and the variant for Python lists and tuples derived from it. Conventions at kinks: ``np.fmax`` and
``np.fmin`` give a tie to ``x``, as ``np.maximum`` does (and NaN's place to the
number chosen); ``np.copysign`` is differentiated in its first argument only, with
``math.copysign``'s sign at 0; ``np.nan_to_num`` passes the derivative where ``x``
is finite; ``np.sinc``'s derivative is 0 at 0 (a Taylor polynomial near 0, so its
second derivative there is right too); ``np.angle`` of real values (0 or pi) has
derivative 0, at 0 too, where it jumps; ``np.heaviside(x1, x2)`` is a step in ``x1``
(derivative 0, at 0 too, as ``np.sign``'s) and ``x2`` itself where ``x1`` is 0; the
casts pass the derivative through unchanged, as ``float()`` and ``.astype()`` do.
"""

import math

import numpy as np

from ..runtime import digamma, unbroadcast
from . import reverse
from .reverse import rule

LN2 = math.log(2.0)  # Python floats, so a float32 array stays float32
TO_RADIANS = math.pi / 180.0
TO_DEGREES = 180.0 / math.pi
PI = math.pi
SINC_SMALL = 1e-3  # below: sinc's derivative by its Taylor polynomial (error < 1e-15)
PI2_3 = math.pi ** 2 / 3.0
PI4_30 = math.pi ** 4 / 30.0


# ------------------------------------------- numpy: the operators' ufuncs


@rule(np.add, when=("scalar", "scalar"))
def np_add_numbers(x, y, out, out_bar):
    return out_bar, out_bar


@rule(np.add, lists=("x", "y"))
def np_add(x, y, out, out_bar):
    return unbroadcast(out_bar, x), unbroadcast(out_bar, y)


@rule(np.subtract, when=("scalar", "scalar"))
def np_subtract_numbers(x, y, out, out_bar):
    return out_bar, -out_bar


@rule(np.subtract, lists=("x", "y"))
def np_subtract(x, y, out, out_bar):
    return unbroadcast(out_bar, x), unbroadcast(-out_bar, y)


@rule(np.multiply, when=("scalar", "scalar"))
def np_multiply_numbers(x, y, out, out_bar):
    return out_bar * y, out_bar * x


@rule(np.multiply, lists=("x", "y"))
def np_multiply(x, y, out, out_bar):
    return unbroadcast(out_bar * y, x), unbroadcast(out_bar * x, y)


@rule(np.divide, when=("scalar", "scalar"))
def np_divide_numbers(x, y, out, out_bar):
    # (np.true_divide is np.divide)
    return out_bar / y, -out_bar * out / y


@rule(np.divide, lists=("x", "y"))
def np_divide(x, y, out, out_bar):
    return unbroadcast(out_bar / y, x), unbroadcast(-out_bar * out / y, y)


@rule(np.floor_divide)
def np_floor_divide(x, y, out, out_bar):
    return None, None


@rule(np.mod, when=("scalar", "scalar"))
def np_mod_numbers(x, y, out, out_bar):
    # (np.remainder is np.mod)
    return out_bar, -out_bar * (x // y)


@rule(np.mod, lists=("x", "y"))
def np_mod(x, y, out, out_bar):
    return unbroadcast(out_bar, x), unbroadcast(-out_bar * (x // y), y)


@rule(np.power, when=("scalar", "int"))
def np_power_of_number_by_int(x, k, out, out_bar):
    # (numbers: the rules of ``x ** k`` and ``x ** y``, the arrays' are in `reverse`)
    return out_bar * k * (x if k else 1.0) ** (k - 1), None


@rule(np.power, when=("scalar", "scalar"))
def np_power_of_numbers(x, y, out, out_bar):
    return (out_bar * y * x ** (y - 1) if y else out_bar * y / (x if x else 1.0),
            out_bar * out * math.log(x) if x > 0 else 0.0 if x == 0 else out_bar * out * math.nan)


@rule(np.negative, lists=("x",))
def np_negative(x, out, out_bar):
    return -out_bar


@rule(np.positive, lists=("x",))
def np_positive(x, out, out_bar):
    return out_bar


# ----------------------------------------- numpy: more elementwise functions


@rule(np.reciprocal, lists=("x",))
def np_reciprocal(x, out, out_bar):
    return -out_bar * out * out


@rule(np.exp2, lists=("x",))
def np_exp2(x, out, out_bar):
    return out_bar * out * LN2


@rule(np.logaddexp2, lists=("x", "y"))
def np_logaddexp2(x, y, out, out_bar):
    return unbroadcast(out_bar * np.exp2(x - out), x), unbroadcast(out_bar * np.exp2(y - out), y)


@rule(np.hypot, lists=("x", "y"))
def np_hypot(x, y, out, out_bar):
    return unbroadcast(out_bar * x / out, x), unbroadcast(out_bar * y / out, y)


@rule(np.fmax, lists=("x", "y"))
def np_fmax(x, y, out, out_bar):
    # (the result is x where x wins or ties, and where y is NaN)
    return unbroadcast(out_bar * (out == x), x), unbroadcast(out_bar * (out != x), y)


@rule(np.fmin, lists=("x", "y"))
def np_fmin(x, y, out, out_bar):
    return unbroadcast(out_bar * (out == x), x), unbroadcast(out_bar * (out != x), y)


@rule(np.fmod, lists=("x", "y"))
def np_fmod(x, y, out, out_bar):
    return unbroadcast(out_bar, x), unbroadcast(-out_bar * np.trunc(x / y), y)


@rule(np.copysign, lists=("x", "y"))
def np_copysign(x, y, out, out_bar):
    return unbroadcast(out_bar * np.where((x < 0) == (out < 0), 1.0, -1.0), x), None


@rule(np.fabs, lists=("x",))
def np_fabs(x, out, out_bar):
    return out_bar * np.sign(x)


@rule(np.sinc, lists=("x",))
def np_sinc(x, out, out_bar):
    # (cos(pi x) - sinc(x)) / x, and near 0 its Taylor polynomial: no 0 / 0
    small = np.abs(x) < SINC_SMALL
    return out_bar * np.where(small, x * (PI4_30 * x * x - PI2_3),
                              (np.cos(PI * x) - out) / np.where(small, 1.0, x))


@rule(np.arcsinh, lists=("x",))
def np_arcsinh(x, out, out_bar):
    return out_bar / np.sqrt(x * x + 1.0)


@rule(np.arccosh, lists=("x",))
def np_arccosh(x, out, out_bar):
    return out_bar / np.sqrt(x * x - 1.0)


@rule(np.cbrt, lists=("x",))
def np_cbrt(x, out, out_bar):
    # (infinite at 0, as 1 / (3 x ** (2/3)) is)
    return out_bar / (3.0 * out * out)


@rule(np.modf)
def np_modf(x, out, out_bar):
    # (the fractional part's derivative is 1, the integral part's 0, as np.trunc's;
    # a part nothing read has the adjoint 0.0, which unbroadcast spreads)
    return unbroadcast(out_bar[0], x)


@rule(np.deg2rad, lists=("x",))
def np_deg2rad(x, out, out_bar):
    return out_bar * TO_RADIANS


@rule(np.radians, lists=("x",))
def np_radians(x, out, out_bar):
    return out_bar * TO_RADIANS


@rule(np.rad2deg, lists=("x",))
def np_rad2deg(x, out, out_bar):
    return out_bar * TO_DEGREES


@rule(np.degrees, lists=("x",))
def np_degrees(x, out, out_bar):
    return out_bar * TO_DEGREES


@rule(np.real, lists=("x",))
def np_real(x, out, out_bar):
    # (of real values, which are all s2sad differentiates: x itself)
    return out_bar


@rule(np.imag)
def np_imag(x, out, out_bar):
    # (of real values: zeros)
    return None


@rule(np.real_if_close, lists=("x",))
def np_real_if_close(x, *, tol=100, out, out_bar):
    # (of real values: x itself)
    return out_bar


@rule(np.angle)
def np_angle(x, *, deg=False, out, out_bar):
    # (of real values: 0 or pi, constant either side of 0; at 0, the jump, 0 as the
    # other kinks' conventions)
    return None


@rule(np.conj, lists=("x",))
def np_conj(x, out, out_bar):
    # (np.conjugate; of real values: x)
    return out_bar


@rule(np.nan_to_num, lists=("x",))
def np_nan_to_num(x, *, nan=0.0, posinf=None, neginf=None, out, out_bar):
    return out_bar * np.isfinite(x)


@rule(np.heaviside, lists=("x1", "x2"))
def np_heaviside(x1, x2, out, out_bar):
    # (a step in x1: derivative 0, at 0 too, as np.sign's; where x1 is 0 the result
    # is x2 itself)
    return None, unbroadcast(out_bar * (x1 == 0), x2)


@rule(np.float64)
def np_float64(x, out, out_bar):
    # (a number, a 0-d array or an array made float64: the derivative passes, as
    # through float())
    return out_bar


@rule(np.float32)
def np_float32(x, out, out_bar):
    # (made float32: the adjoint passes as it is, as through .astype(np.float32))
    return out_bar


# np.float_power: np.power's rules (its result is float64; each term has its input's
# dtype, as np.power's)
for _when, _func, _lists in ((("scalar", "int"), np_power_of_number_by_int, ()),
                             (("scalar", "scalar"), np_power_of_numbers, ()),
                             (("array", "int"), reverse.np_power_by_int, ()),
                             (("array", "scalar"), reverse.np_power_by_number, ()),
                             (None, reverse.np_power, ("x", "y"))):
    rule(np.float_power, when=_when, lists=_lists)(_func)


# ------------------------------------------------------- numpy: array methods


@rule(np.ndarray.item, when=("scalar",))
def item_of_number(x, out, out_bar):
    # (of a NumPy number: a Python float, the derivative passing as through float())
    return out_bar


@rule(np.ndarray.item)
def item(x, out, out_bar):
    # (``x.item()`` of an array of one element: the adjoint has its shape)
    return np.reshape(out_bar, np.shape(x))


# ------------------------------------------------------------ math: more


if hasattr(math, "cbrt"):  # (Python 3.11 on)
    @rule(math.cbrt)
    def cbrt(x, out, out_bar):
        return out_bar / (3.0 * out * out)


if hasattr(math, "exp2"):
    @rule(math.exp2)
    def exp2(x, out, out_bar):
        return out_bar * out * LN2


@rule(math.gamma)
def gamma(x, out, out_bar):
    return out_bar * out * digamma(x)


@rule(math.lgamma)
def lgamma(x, out, out_bar):
    # (log |gamma(x)|: its derivative is digamma for negative x too)
    return out_bar * digamma(x)
