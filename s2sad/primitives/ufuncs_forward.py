"""Forward-mode rules of NumPy's ufuncs named like the operators (``np.multiply``,
``np.add``, ``np.subtract``, ``np.divide``, ``np.negative``, ``np.positive``,
``np.mod``, ``np.floor_divide``; ``np.power`` of numbers: its rules for arrays are
`forward`'s), of more of NumPy's elementwise functions
(``np.hypot``, ``np.fmax``, ``np.sinc``, ``np.reciprocal``, ``np.exp2``,
``np.logaddexp2``, ``np.copysign``, ``np.nan_to_num``, angle conversions,
``np.heaviside``, ``np.float_power``, ``np.float64`` and ``np.float32``...),
``np.cbrt``, ``np.modf``, ``.item()``, and of ``math.cbrt``, ``math.exp2``,
``math.gamma`` and ``math.lgamma``.

The form of `forward` (and its `rule` decorator), paired with `ufuncs_reverse` as
`forward` is with `reverse`: same keys, order and banners, and the same conventions
at kinks (see `ufuncs_reverse`). Each tangent is a product with the input's tangent,
so the vector mode of forward derivatives (`transform.batching`) carries them.
"""

import math

import numpy as np

from ..runtime import digamma
from . import forward
from .forward import rule

LN2 = math.log(2.0)  # Python floats, so a float32 array stays float32
TO_RADIANS = math.pi / 180.0
TO_DEGREES = 180.0 / math.pi
PI = math.pi
SINC_SMALL = 1e-3  # below: sinc's derivative by its Taylor polynomial (error < 1e-15)
PI2_3 = math.pi ** 2 / 3.0
PI4_30 = math.pi ** 4 / 30.0


# ------------------------------------------- numpy: the operators' ufuncs


@rule(np.add, when=("scalar", "scalar"))
def np_add_numbers(x, y, out, x_dot, y_dot):
    return x_dot, y_dot


@rule(np.add, lists=("x_dot", "y_dot"))
def np_add(x, y, out, x_dot, y_dot):
    return x_dot, y_dot


@rule(np.subtract, when=("scalar", "scalar"))
def np_subtract_numbers(x, y, out, x_dot, y_dot):
    return x_dot, -y_dot


@rule(np.subtract, lists=("x_dot", "y_dot"))
def np_subtract(x, y, out, x_dot, y_dot):
    return x_dot, -y_dot


@rule(np.multiply, when=("scalar", "scalar"))
def np_multiply_numbers(x, y, out, x_dot, y_dot):
    return x_dot * y, x * y_dot


@rule(np.multiply, lists=("x", "y", "x_dot", "y_dot"))
def np_multiply(x, y, out, x_dot, y_dot):
    return x_dot * y, x * y_dot


@rule(np.divide, when=("scalar", "scalar"))
def np_divide_numbers(x, y, out, x_dot, y_dot):
    return x_dot / y, -out * y_dot / y


@rule(np.divide, lists=("y", "x_dot", "y_dot"))
def np_divide(x, y, out, x_dot, y_dot):
    return x_dot / y, -out * y_dot / y


@rule(np.floor_divide)
def np_floor_divide(x, y, out, x_dot, y_dot):
    return None, None


@rule(np.mod, when=("scalar", "scalar"))
def np_mod_numbers(x, y, out, x_dot, y_dot):
    return x_dot, -(x // y) * y_dot


@rule(np.mod, lists=("x", "y", "x_dot", "y_dot"))
def np_mod(x, y, out, x_dot, y_dot):
    return x_dot, -(x // y) * y_dot


@rule(np.power, when=("scalar", "int"))
def np_power_of_number_by_int(x, k, out, x_dot, k_dot):
    return k * (x if k else 1.0) ** (k - 1) * x_dot, None


@rule(np.power, when=("scalar", "scalar"))
def np_power_of_numbers(x, y, out, x_dot, y_dot):
    return (y * x ** (y - 1) * x_dot if y else y / (x if x else 1.0) * x_dot,
            out * math.log(x) * y_dot if x > 0 else 0.0 if x == 0 or not y_dot else math.nan)


@rule(np.negative, lists=("x_dot",))
def np_negative(x, out, x_dot):
    return -x_dot


@rule(np.positive, lists=("x_dot",))
def np_positive(x, out, x_dot):
    return x_dot


# ----------------------------------------- numpy: more elementwise functions


@rule(np.reciprocal, lists=("x_dot",))
def np_reciprocal(x, out, x_dot):
    return -out * out * x_dot


@rule(np.exp2, lists=("x_dot",))
def np_exp2(x, out, x_dot):
    return out * LN2 * x_dot


@rule(np.logaddexp2, lists=("x", "y", "x_dot", "y_dot"))
def np_logaddexp2(x, y, out, x_dot, y_dot):
    return np.exp2(x - out) * x_dot, np.exp2(y - out) * y_dot


@rule(np.hypot, lists=("x", "y", "x_dot", "y_dot"))
def np_hypot(x, y, out, x_dot, y_dot):
    return x * x_dot / out, y * y_dot / out


@rule(np.fmax, lists=("x", "x_dot", "y_dot"))
def np_fmax(x, y, out, x_dot, y_dot):
    return (out == x) * x_dot, (out != x) * y_dot


@rule(np.fmin, lists=("x", "x_dot", "y_dot"))
def np_fmin(x, y, out, x_dot, y_dot):
    return (out == x) * x_dot, (out != x) * y_dot


@rule(np.fmod, lists=("x", "y", "x_dot", "y_dot"))
def np_fmod(x, y, out, x_dot, y_dot):
    return x_dot, -np.trunc(x / y) * y_dot


@rule(np.copysign, lists=("x", "x_dot"))
def np_copysign(x, y, out, x_dot, y_dot):
    return np.where((x < 0) == (out < 0), 1.0, -1.0) * x_dot, None


@rule(np.fabs, lists=("x_dot",))
def np_fabs(x, out, x_dot):
    return np.sign(x) * x_dot


@rule(np.sinc, lists=("x", "x_dot"))
def np_sinc(x, out, x_dot):
    small = np.abs(x) < SINC_SMALL
    return np.where(small, x * (PI4_30 * x * x - PI2_3),
                    (np.cos(PI * x) - out) / np.where(small, 1.0, x)) * x_dot


@rule(np.arcsinh, lists=("x", "x_dot"))
def np_arcsinh(x, out, x_dot):
    return x_dot / np.sqrt(x * x + 1.0)


@rule(np.arccosh, lists=("x", "x_dot"))
def np_arccosh(x, out, x_dot):
    return x_dot / np.sqrt(x * x - 1.0)


@rule(np.cbrt, lists=("x", "x_dot"))
def np_cbrt(x, out, x_dot):
    return x_dot / (3.0 * out * out)


@rule(np.modf)
def np_modf(x, out, x_dot):
    # (the two parts' tangents: x_dot, and zeros; one term, a pair, which reads out,
    # so forward code knows it has out's shape)
    return tuple((x_dot, np.zeros_like(out[1])))


@rule(np.deg2rad, lists=("x_dot",))
def np_deg2rad(x, out, x_dot):
    return TO_RADIANS * x_dot


@rule(np.radians, lists=("x_dot",))
def np_radians(x, out, x_dot):
    return TO_RADIANS * x_dot


@rule(np.rad2deg, lists=("x_dot",))
def np_rad2deg(x, out, x_dot):
    return TO_DEGREES * x_dot


@rule(np.degrees, lists=("x_dot",))
def np_degrees(x, out, x_dot):
    return TO_DEGREES * x_dot


@rule(np.real, lists=("x_dot",))
def np_real(x, out, x_dot):
    return x_dot


@rule(np.imag)
def np_imag(x, out, x_dot):
    return None


@rule(np.real_if_close, lists=("x_dot",))
def np_real_if_close(x, *, tol=100, out, x_dot):
    return x_dot


@rule(np.angle)
def np_angle(x, *, deg=False, out, x_dot):
    return None


@rule(np.conj, lists=("x_dot",))
def np_conj(x, out, x_dot):
    return x_dot


@rule(np.nan_to_num, lists=("x_dot",))
def np_nan_to_num(x, *, nan=0.0, posinf=None, neginf=None, out, x_dot):
    return np.isfinite(x) * x_dot


@rule(np.heaviside, lists=("x1", "x2_dot"))
def np_heaviside(x1, x2, out, x1_dot, x2_dot):
    return None, (x1 == 0) * x2_dot


@rule(np.float64)
def np_float64(x, out, x_dot):
    return x_dot


@rule(np.float32)
def np_float32(x, out, x_dot):
    # (the tangent passes as it is, as through .astype(np.float32): the float32
    # arithmetic after the cast makes the tangents it meets float32)
    return x_dot


for _when, _func, _lists in ((("scalar", "int"), np_power_of_number_by_int, ()),
                             (("scalar", "scalar"), np_power_of_numbers, ()),
                             (("array", "int"), forward.np_power_by_int, ()),
                             (("array", "scalar"), forward.np_power_by_number, ()),
                             (None, forward.np_power, ("x", "y"))):
    rule(np.float_power, when=_when, lists=_lists)(_func)


# ------------------------------------------------------- numpy: array methods


@rule(np.ndarray.item, when=("scalar",))
def item_of_number(x, out, x_dot):
    return x_dot


@rule(np.ndarray.item)
def item(x, out, x_dot):
    return np.reshape(x_dot, np.shape(out))


# ------------------------------------------------------------ math: more


if hasattr(math, "cbrt"):  # (Python 3.11 on)
    @rule(math.cbrt)
    def cbrt(x, out, x_dot):
        return x_dot / (3.0 * out * out)


if hasattr(math, "exp2"):
    @rule(math.exp2)
    def exp2(x, out, x_dot):
        return out * LN2 * x_dot


@rule(math.gamma)
def gamma(x, out, x_dot):
    return out * digamma(x) * x_dot


@rule(math.lgamma)
def lgamma(x, out, x_dot):
    return digamma(x) * x_dot
