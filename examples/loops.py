"""Loops, lists and iteration, as simulations and solvers write them."""

import math


def rosenbrock(xs):
    total = 0.0
    for i in range(len(xs) - 1):
        total += 100.0 * (xs[i + 1] - xs[i] ** 2) ** 2 + (1.0 - xs[i]) ** 2
    return total


def oscillator(k, c, steps):
    """Energy left after `steps` explicit Euler steps of x'' = -k x - c x'."""
    x = 1.0
    v = 0.0
    dt = 0.01
    for i in range(steps):
        a = -k * x - c * v
        x = x + dt * v
        v = v + dt * a
    return 0.5 * (k * x * x + v * v)


def sqrt_newton(a):
    """The square root of `a` by Newton's method, iterated until it converges."""
    x = a
    while abs(x * x - a) > 1e-12 * a:
        x = 0.5 * (x + a / x)
    return x


def projectile(v0, angle):
    """How far a ball thrown at speed v0 flies before it lands."""
    x = 0.0
    y = 0.0
    vx = v0 * math.cos(angle)
    vy = v0 * math.sin(angle)
    while y >= 0.0:
        x += vx * 0.01
        y += vy * 0.01
        vy -= 9.81 * 0.01
    return x


def smoothed(xs, alpha):
    """Exponential smoothing; the mean of the smoothed series."""
    out = []
    s = xs[0]
    for v in xs:
        s = alpha * v + (1.0 - alpha) * s
        out.append(s)
    return sum(out) / len(out)
