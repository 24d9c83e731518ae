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
