"""Fuzzing writes into arrays around loops, branches and calls
(`fuzz_writes.write_program`): each program's gradient, in reverse, forward and tape
modes and compiled with numba where it is installed, is either refused with an
`S2SADError` or agrees with central differences, at a point where `y` takes one
branch and at one where it takes the other. A saved value, a loop's tape entry, a
helper's residual or a loop-carried name that is the array a later line writes into
gave wrong gradients here before.

S2SAD_FUZZ_EXAMPLES sets the number of examples, as for test_fuzz.py."""

import importlib.util
import os

import numpy as np
from hypothesis import HealthCheck, given, settings

import s2sad
from fuzz_programs import load
from fuzz_writes import write_program

EXAMPLES = int(os.environ.get("S2SAD_FUZZ_EXAMPLES", "0") or 0) or 40
X = np.array([0.3, -0.4, 0.25])
MODES = ["reverse", "forward", "tape"] + (
    ["jit"] if importlib.util.find_spec("numba") is not None else [])


def _numeric(f, x, y, h=1e-6):
    gx = np.zeros_like(x)
    for i in range(x.size):
        e = np.zeros_like(x)
        e[i] = h
        gx[i] = (f(x + e, y) - f(x - e, y)) / (2 * h)
    return gx, (f(x, y + h) - f(x, y - h)) / (2 * h)


@settings(max_examples=EXAMPLES, deadline=None, derandomize=True,
          suppress_health_check=list(HealthCheck))
@given(write_program())
def test_writes_around_loops_branches_and_calls(text):
    f = load(text)
    for y in (0.7, 0.3):
        want_x, want_y = _numeric(f, X, y)
        for mode in MODES:
            options = {"jit": True} if mode == "jit" else {"mode": mode}
            try:
                gx, gy = s2sad.grad(f, wrt=(0, 1), **options)(X.copy(), y)
            except s2sad.S2SADError:
                continue
            np.testing.assert_allclose(gx, want_x, rtol=1e-5, atol=1e-6, err_msg=mode)
            np.testing.assert_allclose(gy, want_y, rtol=1e-5, atol=1e-6, err_msg=mode)
