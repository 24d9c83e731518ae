"""Forward-mode rules, one per primitive.

Each rule takes the primitive's inputs, its result ``out`` and one tangent per input
(``x_dot``, ``y_dot``...), and returns each input's contribution to the tangent of
``out`` (``None``: no derivative); the compiler adds the contributions of the inputs
that are active. Same keys, order and banners as `reverse.py`, and the same
conventions at kinks.
"""

import math

from . import FORWARD, add_rule

_TWO_OVER_SQRT_PI = 1.1283791670955126  # 2 / sqrt(pi), the scale of erf's derivative


def rule(key):
    def register(func):
        add_rule(FORWARD, "forward", key, func)
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


@rule("pow")
def pow_(x, y, out, x_dot, y_dot):
    return y * x ** (y - 1) * x_dot, out * math.log(x) * y_dot if x else 0.0


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


@rule(min)
def min_(x, y, out, x_dot, y_dot):
    return 0.0 if y < x else x_dot, y_dot if y < x else 0.0


@rule(max)
def max_(x, y, out, x_dot, y_dot):
    return 0.0 if y > x else x_dot, y_dot if y > x else 0.0


@rule(pow)
def builtin_pow(x, y, out, x_dot, y_dot):
    return y * x ** (y - 1) * x_dot, out * math.log(x) * y_dot if x else 0.0


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


@rule(math.pow)
def math_pow(x, y, out, x_dot, y_dot):
    return y * x ** (y - 1) * x_dot, out * math.log(x) * y_dot if x else 0.0


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
    return x_dot / (x * math.log(2.0))


@rule(math.log10)
def log10(x, out, x_dot):
    return x_dot / (x * math.log(10.0))


@rule(math.hypot)
def hypot(x, y, out, x_dot, y_dot):
    return x * x_dot / out, y * y_dot / out


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
