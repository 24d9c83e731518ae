"""Scalar benchmark cases: each written once as plain Python, with a gradient written
carefully by hand beside it as the reference for what Python can do.

No case here needs a port: every peer runs the code below with ``math`` bound to
its own operations (see harness.py). tangent has no derivative for ``erf``, and
says so on Black-Scholes."""

import math


def straight_line(x, y, z):
    """A straight-line scalar function of 25 operations."""
    a = x * y + z
    b = a * a - x
    c = math.sin(b) + y * z
    d = c * x / (1.0 + y * y)
    e = math.exp(-d * d) + a
    f = e * b - c * z
    g = math.tanh(f) + d * e
    return g * g + a * x


def straight_line_by_hand(x, y, z):
    a = x * y + z
    b = a * a - x
    sb = math.sin(b)
    c = sb + y * z
    q = 1.0 + y * y
    d = c * x / q
    ex = math.exp(-d * d)
    e = ex + a
    f = e * b - c * z
    th = math.tanh(f)
    g = th + d * e
    # reverse
    gb = 2.0 * g
    ab = x
    xb = a
    fb = gb * (1.0 - th * th)
    db = gb * e
    eb = gb * d + fb * b
    bb = fb * e
    cb = -fb * z
    zb = -fb * c
    db += eb * ex * (-2.0 * d)
    ab += eb
    cb += db * x / q
    xb += db * c / q
    yb = -db * d * 2.0 * y / q
    bb += cb * math.cos(b)
    yb += cb * z
    zb += cb * y
    ab += bb * 2.0 * a
    xb -= bb
    xb += ab * y
    yb += ab * x
    zb += ab
    return xb, yb, zb


def black_scholes(S, K, T, r, sigma):
    sqrtT = math.sqrt(T)
    d1 = (math.log(S / K) + (r + 0.5 * sigma * sigma) * T) / (sigma * sqrtT)
    d2 = d1 - sigma * sqrtT
    N1 = 0.5 * (1.0 + math.erf(d1 / math.sqrt(2.0)))
    N2 = 0.5 * (1.0 + math.erf(d2 / math.sqrt(2.0)))
    return S * N1 - K * math.exp(-r * T) * N2


_INV_SQRT_2PI = 0.3989422804014327


def black_scholes_by_hand(S, K, T, r, sigma):
    sqrtT = math.sqrt(T)
    sst = sigma * sqrtT
    d1 = (math.log(S / K) + (r + 0.5 * sigma * sigma) * T) / sst
    d2 = d1 - sst
    N1 = 0.5 * (1.0 + math.erf(d1 / math.sqrt(2.0)))
    N2 = 0.5 * (1.0 + math.erf(d2 / math.sqrt(2.0)))
    disc = math.exp(-r * T)
    n1 = _INV_SQRT_2PI * math.exp(-0.5 * d1 * d1)
    dS = N1
    dK = -disc * N2
    dT = S * n1 * sigma / (2.0 * sqrtT) + r * K * disc * N2
    dr = K * T * disc * N2
    dsigma = S * n1 * sqrtT
    return dS, dK, dT, dr, dsigma


TITLE = "Scalar functions"

CASES = [
    # name, function, hand-written gradient, arguments, wrt
    ("straight-line (25 ops)", straight_line, straight_line_by_hand, (0.3, 0.7, 1.1), (0, 1, 2)),
    ("Black-Scholes", black_scholes, black_scholes_by_hand, (100.0, 95.0, 0.5, 0.02, 0.3),
     (0, 1, 2, 3, 4)),
]

# {case name: {tool key: port}}: none needed, see the docstring.
PORTS = {}
