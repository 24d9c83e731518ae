"""A long time-stepping loop whose gradient keeps 10 snapshots instead of a tape."""

import s2sad


def euler(k, c, n):
    x = 1.0
    v = 0.0
    dt = 0.001
    for i in s2sad.checkpointed(range(n), snapshots=10, schedule="binomial"):
        a = -k * x - c * v
        x = x + dt * v
        v = v + dt * a
    return x


def fall(v, drag):
    """A ball falling from 10 m with drag until it lands: a while loop, no marker."""
    y = 10.0
    while y > 0.0:
        v = v + 0.01 * (9.81 - drag * v * v)
        y = y - 0.01 * v
    return v
