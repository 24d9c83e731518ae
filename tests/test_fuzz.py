"""Fuzzing the whole pipeline with random programs (hypothesis).

Well-formed programs (`fuzz_programs.scalar_program`, `array_program`): the reverse
gradient against central differences, forward mode (`s2sad.jvp`) against the
reverse gradient, and the tape engine (`grad(f, mode="tape")`) against it too, at
points where central differences are a fair reference (`fuzz_programs.smooth`).

Malformed or unsupported programs (`fuzz_programs.malformed_program`): `grad`,
`value_and_grad`, `jvp`, `vjp`, `source` and ``s2sad show`` either raise an
`S2SADError`, raise what the function itself raises at that point, or give the right
derivative; never an internal exception.

CI runs a bounded number of examples per test (`EXAMPLES`); set S2SAD_FUZZ_EXAMPLES
to run that many per test instead, for a long run:

    S2SAD_FUZZ_EXAMPLES=5000 .venv/bin/python -m pytest tests/test_fuzz.py -q
"""

import contextlib
import io
import math
import os
import traceback

import numpy as np
import pytest
from hypothesis import HealthCheck, assume, event, given, settings
from hypothesis import strategies as st

import s2sad
from fuzz_programs import array_program, load, malformed_program, scalar_program, smooth, write
from s2sad import cli

LONG = int(os.environ.get("S2SAD_FUZZ_EXAMPLES", "0") or 0)
# examples per test in CI: the scalar and array programs compile a reverse and a
# forward derivative each, the malformed ones run every entry point
EXAMPLES = {"scalar": 150, "array": 80, "malformed": 150}


def fuzz_settings(kind):
    return settings(max_examples=LONG or EXAMPLES[kind], deadline=None, derandomize=not LONG,
                    suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much,
                                           HealthCheck.data_too_large])


NUMBER = st.floats(-1.5, 1.5)
USER_ERRORS = (ValueError, ZeroDivisionError, OverflowError, RecursionError)


def _close(a, b, rtol):
    a, b = np.asarray(a, dtype=float), np.asarray(b, dtype=float)
    return a.shape == b.shape and bool(np.all(np.abs(a - b) <= rtol * (1 + np.abs(b))))


def _flat(parts):
    return np.concatenate([np.ravel(np.asarray(p, dtype=float)) for p in parts])


def _refused(call):
    """(result, None), or (None, the S2SADError `call` raised: a clear refusal)."""
    try:
        return call(), None
    except s2sad.S2SADError as exc:
        return None, exc


def _check_everything(text, f, point, tangents_for, jacobian=False):
    """The reverse gradient, forward mode and the tape against central differences
    and each other at `point` (skipped where differences are unfair), and with
    `jacobian` the forward-mode Jacobian (one pass carrying every direction where
    the code allows it) against the reverse gradient. Each may refuse with an
    S2SADError; none may be wrong or crash."""
    try:
        with np.errstate(all="ignore"):
            value = f(*point)
    except USER_ERRORS:
        assume(False)
    assume(np.isfinite(value) and abs(value) < 1e6)
    with np.errstate(all="ignore"):
        ok, expected = smooth(f, point)
    assume(ok)
    wrt = tuple(range(len(point)))
    where = f"\n{text}\nat {point!r}\n"
    try:
        got, refusal = _refused(lambda: s2sad.grad(f, wrt=wrt)(*point))
        jvps = [(d, _refused(lambda: s2sad.jvp(f, point, d))) for d in tangents_for(point)]
    except USER_ERRORS:
        # a derivative that does not exist here (sqrt at 0 inside hypot, ...)
        assume(False)
    if refusal is not None:
        event(f"reverse refused: {refusal.message[:60]}")
    else:
        assert _close(_flat(got), expected, 1e-4), where + f"reverse {got} != central {expected}"
        for g, p in zip(got, point):
            assert isinstance(g, type(p)) and np.shape(g) == np.shape(p), where + f"gradient {got!r}"
        v2, g2 = s2sad.value_and_grad(f, wrt=wrt)(*point)
        assert v2 == value and _close(_flat(g2), _flat(got), 0), where + "value_and_grad"

    for direction, (pair, jvp_refusal) in jvps:
        if jvp_refusal is not None:
            event(f"jvp refused: {jvp_refusal.message[:60]}")
            continue
        v3, t = pair
        assert _close(v3, value, 1e-12), where + f"jvp value {v3} != {value}"
        flat_d = _flat(direction)
        along = float(np.dot(expected, flat_d))
        assert abs(t - along) <= 1e-4 * (1 + np.abs(expected * flat_d).sum()), \
            where + f"jvp {t} along {direction} != central differences {along}"
        if refusal is None:
            exact = float(np.dot(_flat(got), flat_d))
            assert _close(t, exact, 1e-8), where + f"jvp {t} along {direction} != reverse {exact}"

    if jacobian and refusal is None:
        blocks, jac_refusal = _refused(
            lambda: s2sad.jacobian(f, wrt=wrt, mode="forward")(*point))
        if jac_refusal is not None:
            event(f"jacobian refused: {jac_refusal.message[:60]}")
        else:
            assert _close(_flat(blocks), _flat(got), 1e-8), \
                where + f"forward jacobian {blocks} != reverse {got}"

    taped, engine_refusal = _refused(lambda: s2sad.grad(f, wrt=wrt, mode="tape")(*point))
    if engine_refusal is not None:
        event(f"tape refused: {engine_refusal.message[:60]}")
    else:
        assert _close(_flat(taped), expected, 1e-4), where + f"tape {taped} != central {expected}"
        if refusal is None:
            assert _close(_flat(taped), _flat(got), 1e-8), where + f"tape {taped} != reverse {got}"


def _unit_tangents(point):
    for i in range(len(point)):
        yield tuple(1.0 if j == i else 0.0 for j in range(len(point)))


@fuzz_settings("scalar")
@given(scalar_program(), st.tuples(NUMBER, NUMBER))
def test_scalar_programs(text, point):
    _check_everything(text, load(text), point, _unit_tangents)


ARRAY_POINT = st.tuples(
    st.lists(NUMBER, min_size=3, max_size=3).map(np.array),
    st.lists(NUMBER, min_size=6, max_size=6).map(lambda v: np.array(v).reshape(2, 3)),
    NUMBER)


def _random_direction(point):
    rng = np.random.default_rng(len(point))
    yield tuple(rng.standard_normal(np.shape(p)) if np.ndim(p) else float(rng.standard_normal())
                for p in point)


@fuzz_settings("array")
@given(array_program(), ARRAY_POINT)
def test_array_programs(text, point):
    _check_everything(text, load(text), point, _random_direction, jacobian=True)


# ------------------------------------------------------------------ malformed programs

S2SAD_DIR = os.path.dirname(os.path.abspath(s2sad.__file__))


def _internal(exc) -> bool:
    """Was `exc` raised by s2sad's own code (not the user's code, not the code s2sad
    generated, not the runtime helpers that code calls)?"""
    frames = traceback.extract_tb(exc.__traceback__)
    if not frames:
        return True
    where = os.path.abspath(frames[-1].filename)
    return where.startswith(S2SAD_DIR + os.sep) and not where.endswith("runtime.py")


def _outcome(call):
    try:
        return "ok", call()
    except s2sad.S2SADError as exc:
        return "refused", exc
    except Exception as exc:  # noqa: BLE001 - judged by the caller
        return "raised", exc


def _judge(what, text, got, own):
    """A refusal is fine; another exception only if the function itself raises one of
    its type at these arguments, from outside s2sad."""
    kind, value = got
    if kind != "raised":
        return
    detail = "".join(traceback.format_exception(value))[-3000:]
    assert own is not None and isinstance(value, type(own)) and not _internal(value), \
        f"{what} raised {type(value).__name__} ({value}); the function itself " \
        f"{'raises ' + type(own).__name__ if own is not None else 'runs'}\n{text}\n{detail}"


@pytest.mark.filterwarnings("ignore:coroutine .* was never awaited:RuntimeWarning")
@fuzz_settings("malformed")
@given(malformed_program())
def test_malformed_programs_raise_only_s2sad_errors(case):
    text, wrt, args = case
    path = write(text, "malformed")
    ns = {"__name__": f"malformed_{os.path.basename(path)[:-3]}"}
    try:
        exec(compile(text, path, "exec"), ns)
    except (SyntaxError, TypeError, AttributeError):
        assume(False)  # Python itself refuses the module (nonlocal at the top, ...)
    f = ns["f"]
    own, value = None, None
    try:
        with np.errstate(all="ignore"), contextlib.redirect_stdout(io.StringIO()):
            value = f(*args)
    except Exception as exc:  # noqa: BLE001
        own = exc

    quiet = contextlib.redirect_stdout(io.StringIO())
    with quiet, np.errstate(all="ignore"):
        got = _outcome(lambda: s2sad.grad(f, wrt=wrt)(*args))
        _judge("grad", text, got, own)
        _judge("value_and_grad", text, _outcome(lambda: s2sad.value_and_grad(f, wrt=wrt)(*args)),
               own)
        tangents = tuple(1.0 if type(a) is float else None for a in args)
        _judge("jvp", text, _outcome(lambda: s2sad.jvp(f, args, tangents)), own)
        _judge("vjp", text, _outcome(lambda: s2sad.vjp(f, *args)[1](1.0)), own)
        for mode in ("reverse", "forward"):
            _judge(f"source(mode={mode!r})", text,
                   _outcome(lambda: s2sad.source(f, mode=mode, wrt=wrt)), None)

    # the CLI: an exit status and a message, never a traceback
    err = io.StringIO()
    with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(err):
        status = cli.main(["show", f"{path}:f"])
    assert status in (0, 1), (text, err.getvalue())
    assert status == 0 or err.getvalue().startswith("s2sad: error: "), (text, err.getvalue())

    # what runs must be right
    if got[0] == "ok" and own is None and all(type(a) is float for a in args) \
            and isinstance(value, float) and math.isfinite(value) and abs(value) < 1e6:
        names = [n for n in ("x", "y")]
        wanted = tuple(wrt) if isinstance(wrt, (tuple, list)) else (wrt,)
        index = [names.index(w) if isinstance(w, str) and w in names else w for w in wanted]
        ok, expected = smooth(f, args)
        if ok and all(isinstance(i, int) for i in index):  # (not a keyword-only `z`)
            flat = np.ravel(np.asarray(got[1], dtype=float))
            assert _close(flat, expected[index], 1e-4), (text, wrt, args, got[1], expected)
