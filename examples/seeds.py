"""The worked examples from the background notes, and two classics."""

import math


def quadratic(x):
    return x * x + 3 * x + 2


def z(x, y):
    z = x * y + math.sin(x)
    return z


def program(x, y):
    p = 7 * x
    r = 1 / y
    q = p * x * 5
    v = 2 * p * q + 3 * r
    return v


def black_scholes(S, K, T, r, sigma):
    """Price of a European call option."""
    sqrtT = math.sqrt(T)
    d1 = (math.log(S / K) + (r + 0.5 * sigma * sigma) * T) / (sigma * sqrtT)
    d2 = d1 - sigma * sqrtT
    N1 = 0.5 * (1.0 + math.erf(d1 / math.sqrt(2.0)))
    N2 = 0.5 * (1.0 + math.erf(d2 / math.sqrt(2.0)))
    return S * N1 - K * math.exp(-r * T) * N2


def softplus(x):
    return math.log1p(math.exp(-abs(x))) + max(x, 0.0)


def loss(w, b, x, y):
    """Squared error of a one-input logistic model, with a helper call."""
    p = sigmoid(w * x + b)
    return (p - y) ** 2


def sigmoid(t):
    if t >= 0:
        return 1.0 / (1.0 + math.exp(-t))
    e = math.exp(t)
    return e / (1.0 + e)


CALLS = 0


def broken(x):
    """Not differentiable: s2sad says so and points here."""
    global CALLS
    CALLS += 1
    return 1.0 + x + x**2
