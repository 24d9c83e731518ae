"""NumPy examples: a model loss and a simulation that writes into arrays."""

import numpy as np


def logistic_loss(w, b, X, y):
    """Mean negative log-likelihood of labels y in {-1, 1}."""
    z = X @ w + b
    return np.sum(np.log1p(np.exp(-y * z))) / len(y)


def heat(u0, c):
    """Explicit finite differences for the heat equation, four steps."""
    u = u0.copy()
    for _ in range(4):
        un = u.copy()
        for i in range(1, len(u) - 1):
            un[i] = u[i] + c * (u[i + 1] - 2.0 * u[i] + u[i - 1])
        u = un
    return np.sum(u * u)
