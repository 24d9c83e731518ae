"""Reverse-mode rules, one per primitive.

Each rule takes the primitive's inputs, its result ``out`` and the result's adjoint
``out_bar``, and returns one adjoint contribution per input (``None``: no derivative).
`forward.py` has the same keys in the same order under the same banners; the two are
paired by the dot-product test.

Conventions at kinks: ``abs`` has derivative 0 at 0; ``min``/``max`` give a tie to the
argument Python returns (the first); ``x ** y`` with respect to ``y`` is 0 at ``x == 0``.
"""

import math

from . import REVERSE, add_rule

_TWO_OVER_SQRT_PI = 1.1283791670955126  # 2 / sqrt(pi), the scale of erf's derivative


def rule(key):
    def register(func):
        add_rule(REVERSE, "reverse", key, func)
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


@rule("pow")
def pow_(x, y, out, out_bar):
    return out_bar * y * x ** (y - 1), out_bar * out * math.log(x) if x else 0.0


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


@rule(min)
def min_(x, y, out, out_bar):
    return 0.0 if y < x else out_bar, out_bar if y < x else 0.0


@rule(max)
def max_(x, y, out, out_bar):
    return 0.0 if y > x else out_bar, out_bar if y > x else 0.0


@rule(pow)
def builtin_pow(x, y, out, out_bar):
    return out_bar * y * x ** (y - 1), out_bar * out * math.log(x) if x else 0.0


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


@rule(math.pow)
def math_pow(x, y, out, out_bar):
    return out_bar * y * x ** (y - 1), out_bar * out * math.log(x) if x else 0.0


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
    return out_bar / (x * math.log(2.0))


@rule(math.log10)
def log10(x, out, out_bar):
    return out_bar / (x * math.log(10.0))


@rule(math.hypot)
def hypot(x, y, out, out_bar):
    return out_bar * x / out, out_bar * y / out


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
