"""Rules for ``scipy.signal.convolve`` and ``scipy.signal.correlate``, of arrays of
any rank (1-D signals, 2-D images), in the modes 'full', 'valid' and 'same'.

Loaded by `s2sad.primitives` the first time a rule is looked up after
``scipy.signal`` has been imported, as `scipy_special` is; checked by
`tests/test_scipy_linalg_rules.py`.

Both are linear in each input, so the forward rules convolve (correlate) a tangent
with the other input. The adjoint of a full convolution ``in1 * in2`` with respect to
``in1`` is the valid correlation of the adjoint with ``in2`` (and likewise for
``in2``); 'valid' and 'same' take a window of the full result, whose adjoint is the
result's adjoint padded with zeros back to the full size first: ``min(n1, n2) - 1``
on each side for 'valid' (SciPy's valid result is the same whichever input is
larger), and ``(n2 - 1) // 2`` before and the rest after for 'same' (the window
centred on in1's size). ``correlate(in1, in2)`` is ``convolve(in1, flip(in2))``, so
its adjoints are the same with ``in2`` flipped. Each rule calls the other
function, so second derivatives go through. ``method=`` is an option (the result
is the same up to rounding).
"""

import numpy as np
from scipy import signal

from .facts import TABLE, Facts
from .registry import FORWARD, REVERSE, add_rule
from .shape_rules import Args, fresh


def reverse(key):
    def register(func):
        add_rule(REVERSE, "reverse", key, func).positional = 2
        return func

    return register


def forward(key):
    def register(func):
        add_rule(FORWARD, "forward", key, func).positional = 2
        return func

    return register


@reverse(signal.convolve)
def convolve_reverse(in1, in2, *, mode="full", method="auto", out, out_bar):
    k = np.minimum(np.shape(in1), np.shape(in2)) - 1 if mode == "valid" else \
        np.subtract(np.shape(in2), 1)
    g = out_bar if mode == "full" else np.pad(out_bar, np.stack(
        [k, k] if mode == "valid" else [k // 2, k - k // 2], axis=1))
    return signal.correlate(g, in2, mode="valid"), signal.correlate(g, in1, mode="valid")


@forward(signal.convolve)
def convolve_forward(in1, in2, *, mode="full", method="auto", out, in1_dot, in2_dot):
    return signal.convolve(in1_dot, in2, mode=mode), signal.convolve(in1, in2_dot, mode=mode)


@reverse(signal.correlate)
def correlate_reverse(in1, in2, *, mode="full", method="auto", out, out_bar):
    k = np.minimum(np.shape(in1), np.shape(in2)) - 1 if mode == "valid" else \
        np.subtract(np.shape(in2), 1)
    g = out_bar if mode == "full" else np.pad(out_bar, np.stack(
        [k, k] if mode == "valid" else [k // 2, k - k // 2], axis=1))
    return signal.convolve(g, in2, mode="valid"), np.flip(signal.correlate(g, in1, mode="valid"))


@forward(signal.correlate)
def correlate_forward(in1, in2, *, mode="full", method="auto", out, in1_dot, in2_dot):
    return signal.correlate(in1_dot, in2, mode=mode), signal.correlate(in1, in2_dot, mode=mode)


def _convolved(a: Args):
    """The shape of the result: in1's for 'same'; otherwise a rank only (the lengths
    are sums and differences of the inputs')."""
    shapes = [s for s in a.shapes if s is not None]
    if len(shapes) < 2 or len(shapes[0]) != len(shapes[1]):
        return None
    if a.option("mode", "full") == "same":
        return tuple(shapes[0])
    return fresh(len(shapes[0]))


TABLE.update({signal.convolve: Facts(shape=_convolved), signal.correlate: Facts(shape=_convolved)})
