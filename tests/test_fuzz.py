"""Fuzzing the whole pipeline with random programs (hypothesis).

Well-formed programs (`fuzz_programs.scalar_program`, `array_program`, and
`array_program(params=True)`, whose ``w`` and ``b`` come in a list ``params``), at
points where central differences are a fair reference (`fuzz_programs.smooth`; a
third of the numbers exactly 0.0; arrays in float64 or float32, the number a float or
a 0-d array; ``w`` of 2 rows or of 3, square and as long as ``x``, so that lengths of
axes of different meaning coincide): every entry point, `_check_everything` says which,
against central differences and against the reverse gradient, each result of its
argument's kind (type, shape, dtype). A refusal (`S2SADError`) fails the test, except where the
program's generator wrote that it may be refused (`fuzz_programs.allowed_refusals`:
arrays changed in place while a list or tuple holds them, what a checkpointed loop
cannot do, and in reverse mode a name that holds different arrays on different paths
and is read by index, as the README says), and from the tape engine.

Malformed or unsupported programs (`fuzz_programs.malformed_program`): `grad`,
`value_and_grad`, `jvp`, `vjp`, `source` and ``s2sad show`` either raise an
`S2SADError`, raise what the function itself raises at that point, or give the right
derivative; never an internal exception.

CI runs a bounded number of examples per test (`EXAMPLES`); set S2SAD_FUZZ_EXAMPLES
to run that many per test instead, for a long run:

    S2SAD_FUZZ_EXAMPLES=5000 .venv/bin/python -m pytest tests/test_fuzz.py -q
"""

import contextlib
import copy
import io
import math
import os
import random
import traceback
import zlib

import numpy as np
import pytest
from hypothesis import HealthCheck, Phase, assume, event, given, settings
from hypothesis import strategies as st

import fuzz_programs
import s2sad
from fuzz_programs import (JOIN, allowed_refusals, array_program, assigning_program,
                           bound_names_program, element_program, filled_program,
                           iterator_program, local_function_program, nested_list_program, flat, joined_list_program, leaves, load, malformed_program,
                           rebuilt_program, scalar_program, smooth, tuple_join_program, write)
from s2sad import cli
from s2sad.checkpoint import SCHEDULES as SCHEDULE_NAMES
from s2sad.errors import S2SADError

LONG = int(os.environ.get("S2SAD_FUZZ_EXAMPLES", "0") or 0)
# examples per test in CI (about 45 s for the file on a 2-core machine): every
# well-formed program compiles a dozen derivatives, the malformed ones run every entry point
EXAMPLES = {"scalar": 150, "array": 100, "params": 50, "malformed": 150, "global": 30,
            "assigning": 25, "drawing": 30, "rebuilt": 30, "joined": 30,
            "elements": 60, "names": 60, "filled": 40, "local": 60, "rows": 60,
            "iterators": 60, "partial": 40, "buffers": 30, "repeats": 30, "tuples": 40}


def fuzz_settings(kind):
    # CI runs the same examples every time and reports a failing program as it was
    # generated (shrinking one takes minutes); a long run shrinks it
    phases = tuple(Phase) if LONG else (Phase.explicit, Phase.reuse, Phase.generate)
    return settings(max_examples=LONG or EXAMPLES[kind], deadline=None, derandomize=not LONG,
                    phases=phases,
                    suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much,
                                           HealthCheck.data_too_large])


# a number, exactly 0.0 a third of the time (x ** k at 0, k a run-time integer)
NUMBER = st.one_of(st.floats(-1.5, 1.5), st.floats(-1.5, 1.5), st.just(0.0))
USER_ERRORS = (ValueError, ZeroDivisionError, OverflowError, RecursionError, IndexError)
# gradient schedules of `grad(checkpoint=..., snapshots=...)` tried on programs with loops
SCHEDULES = [(name, None) for name in SCHEDULE_NAMES] + [("binomial", 1), ("binomial", 2)]


def _close(a, b, rtol):
    a, b = np.asarray(a, dtype=float), np.asarray(b, dtype=float)
    return a.shape == b.shape and bool(np.all(np.abs(a - b) <= rtol * (1 + np.abs(b))))


def _single(value):
    return any(isinstance(leaf, np.ndarray) and leaf.dtype == np.float32
               for leaf in leaves(value))


def _kind_error(got, arg):
    """Why `got` is not a gradient of the kind of `arg` (a float for a float, an array
    of the argument's shape and dtype for an array, 0-d included, a list of those for a
    list), or None."""
    if isinstance(arg, (list, tuple)):
        if type(got) is not type(arg) or len(got) != len(arg):
            return f"{type(got).__name__} for a {type(arg).__name__} of {len(arg)}"
        return next(filter(None, map(_kind_error, got, arg)), None)
    if isinstance(arg, np.ndarray):
        if not isinstance(got, np.ndarray):
            return f"{type(got).__name__} for an array of shape {arg.shape}"
        if got.shape != arg.shape or got.dtype != arg.dtype:
            return f"array {got.shape} {got.dtype} for an array {arg.shape} {arg.dtype}"
        return None
    if not isinstance(got, float) or isinstance(got, np.ndarray):
        return f"{type(got).__name__} for a float"
    return None


def _same_kind_as_value(got, value):
    """Has `got` (a tangent or a value) the type, shape and dtype of the output `value`?"""
    if isinstance(value, np.ndarray) != isinstance(got, np.ndarray):
        return False
    return np.shape(got) == np.shape(value) and np.asarray(got).dtype == np.asarray(value).dtype


class _Checker:
    """Runs entry points on one program at one point: a refusal is a failure unless
    the program's generator allowed it (`allowed_refusals`); any other exception, or a
    wrong kind of result, is a failure."""

    def __init__(self, text, point):
        self.where = f"\n{text}\nat {point!r}\n"
        self.allowed = allowed_refusals(text)

    def __call__(self, what, call, may_refuse=False):
        try:
            with np.errstate(all="ignore"):
                return call()
        except s2sad.S2SADError as exc:
            names = {c.__name__ for c in type(exc).__mro__}
            join = JOIN in self.allowed and "on different paths" in str(exc) and not (
                "forward" in what or what.startswith("jvp"))
            assert may_refuse or join or names & set(self.allowed), \
                self.where + f"{what} refused a program it must take: {exc}"
            event(f"{what} refused: {type(exc).__name__}")
            return None
        except Exception as exc:  # noqa: BLE001
            detail = "".join(traceback.format_exception(exc))[-3000:]
            raise AssertionError(self.where + f"{what} raised {type(exc).__name__}: {exc}\n"
                                 + detail) from None

    def gradient(self, what, got, point, reference, rtol):
        """`got`, one gradient per argument of `point`, of the arguments' kinds and
        close to `reference` (flat)."""
        assert isinstance(got, tuple) and len(got) == len(point), \
            self.where + f"{what} gave {got!r}"
        for g, p in zip(got, point):
            why = _kind_error(g, p)
            assert why is None, self.where + f"{what}: {why}: {got!r}"
        assert _close(flat(got), reference, rtol), \
            self.where + f"{what} {got} != {reference}"


def _check_everything(text, f, point, tangents_for, hessian=False):
    """Every entry point at `point` (where central differences are a fair reference,
    `fuzz_programs.smooth`): grad, value_and_grad, vjp (its pullback called twice),
    grad in forward and tape mode, jvp along `tangents_for(point)`, jacobian in both
    modes, with loops grad under every checkpoint schedule, and with `hessian` the
    Hessian against central differences of the gradient; each against central
    differences and the reverse gradient, with results of the arguments' kinds. The
    arguments must come back unchanged."""
    try:
        with np.errstate(all="ignore"):
            value = f(*point)
    except USER_ERRORS:
        assume(False)
    assume(np.isfinite(value) and abs(value) < 1e6)
    with np.errstate(all="ignore"):
        ok, expected = smooth(f, point)
    assume(ok)
    before = copy.deepcopy(point)
    check = _Checker(text, point)
    where = check.where
    single = _single(point)
    rtol, exact = (2e-3, 1e-4) if single else (1e-4, 1e-8)
    wrt = tuple(range(len(point)))

    got = check("grad", lambda: s2sad.grad(f, wrt=wrt)(*point))
    same = 0
    if got is None:
        # refused (where allowed): what the other entry points give must still be right
        reverse, exact, same = expected, rtol, rtol
    else:
        check.gradient("grad", got, point, expected, rtol)
        reverse = flat(got)

    pair = check("value_and_grad", lambda: s2sad.value_and_grad(f, wrt=wrt)(*point))
    if pair is not None:
        assert pair[0] == value and _same_kind_as_value(pair[0], value), \
            where + f"value_and_grad value {pair[0]!r} != {value!r}"
        check.gradient("value_and_grad", pair[1], point, reverse, same)

    # an adjoint of the output's kind (a 0-d array for a 0-d array)
    seed = np.full((), 1.5, np.asarray(value).dtype) if isinstance(value, np.ndarray) else 1.5
    pulled = check("vjp", lambda: s2sad.vjp(f, *point))
    if pulled is not None:
        out, pullback = pulled
        assert out == value and _same_kind_as_value(out, value), \
            where + f"vjp value {out!r} != {value!r}"
        first = check("vjp's pullback", lambda: pullback(seed))
        second = check("vjp's pullback, again", lambda: pullback(seed))
        if first is not None and second is not None:
            check.gradient("vjp's pullback", first, point, seed * reverse, exact)
            assert np.array_equal(flat(first), flat(second)), \
                where + f"the pullback called twice: {first} then {second}"

    # (the tape engine runs the function on traced values: what they cannot do, it
    # refuses, and the compiler's reverse mode is the answer)
    for what, mode in (("grad(mode='forward')", "forward"), ("grad(mode='tape')", "tape")):
        other = check(what, lambda: s2sad.grad(f, wrt=wrt, mode=mode)(*point),
                      may_refuse=mode == "tape")
        if other is not None:
            check.gradient(what, other, point, reverse, exact)

    for direction in tangents_for(point):
        pair = check("jvp", lambda: s2sad.jvp(f, point, direction))
        if pair is None:
            continue
        v3, t = pair
        assert _close(v3, value, 1e-12) and _same_kind_as_value(v3, value), \
            where + f"jvp value {v3!r} != {value!r}"
        assert _same_kind_as_value(t, value), \
            where + f"jvp tangent {t!r} is not of the output's kind {value!r}"
        flat_d = flat(direction)
        along = float(np.dot(expected, flat_d))
        assert abs(t - along) <= rtol * (1 + np.abs(expected * flat_d).sum()), \
            where + f"jvp {t} along {direction} != central differences {along}"
        exact_along = float(np.dot(reverse, flat_d))
        assert abs(t - exact_along) <= exact * (1 + np.abs(reverse * flat_d).sum()), \
            where + f"jvp {t} along {direction} != reverse {exact_along}"

    for mode in ("forward", "reverse"):
        what = f"jacobian(mode={mode!r})"
        blocks = check(what, lambda: s2sad.jacobian(f, wrt=wrt, mode=mode)(*point))
        if blocks is None:
            continue
        assert isinstance(blocks, tuple) and len(blocks) == len(point), \
            where + f"{what} gave {blocks!r}"
        for b, p in zip(blocks, point):
            if not isinstance(p, list):
                assert np.shape(b) == np.shape(p) and \
                    isinstance(b, np.ndarray) == isinstance(p, np.ndarray) or \
                    isinstance(b, float) and np.ndim(p) == 0, \
                    where + f"{what}: a block {b!r} for an argument {p!r}"
        assert _close(flat(blocks), reverse, exact), where + f"{what} {blocks} != reverse {got}"

    if "for " in text or "while " in text:
        for schedule, snapshots in SCHEDULES:
            what = f"grad(checkpoint={schedule!r}, snapshots={snapshots})"
            ckpt = check(what, lambda: s2sad.grad(f, wrt=wrt, checkpoint=schedule,
                                                  snapshots=snapshots)(*point))
            if ckpt is not None:
                check.gradient(what, ckpt, point, reverse, exact)
        pulled = check("vjp(checkpoint='binomial', snapshots=2)",
                       lambda: s2sad.vjp(f, *point, checkpoint="binomial", snapshots=2))
        if pulled is not None:
            what = "vjp(checkpoint='binomial', snapshots=2)'s pullback"
            first = check(what, lambda: pulled[1](seed))
            second = check(what + ", again", lambda: pulled[1](seed))
            if first is not None and second is not None:
                check.gradient(what, first, point, seed * reverse, exact)
                assert np.array_equal(flat(first), flat(second)), \
                    where + f"{what} called twice: {first} then {second}"

    if hessian and not single and got is not None:
        _check_hessian(check, f, point, wrt)

    for a, b in zip(point, before):
        assert np.array_equal(flat(a), flat(b)) and type(a) is type(b), \
            where + f"an argument changed: {b!r} became {a!r}"


def _check_hessian(check, f, point, wrt, h=1e-6, seeded=None):
    """The Hessian against central differences of the compiled gradient (blocks
    ``H[i][j]`` in the order of `wrt`, each of shape arg_i + arg_j; for a list of
    arrays, a list of blocks per array of it). `seeded` runs each call (with its
    random number generators seeded alike)."""
    vec, rebuild = fuzz_programs._flat(point)
    seeded = seeded or (lambda call: call())
    grad = s2sad.grad(f, wrt=wrt)

    def g(*args):
        return seeded(lambda: grad(*args))
    columns = []
    kinked = False
    with np.errstate(all="ignore"):
        g0 = flat(g(*rebuild(vec)))
        for i in range(len(vec)):
            step = np.zeros(len(vec))
            step[i] = h
            right, left = flat(g(*rebuild(vec + step))), flat(g(*rebuild(vec - step)))
            columns.append((right - left) / (2 * h))
            # (a kink of the gradient: f = x * abs(x) at 0)
            kinked |= not _close((right - g0) / h, (g0 - left) / h,
                                 1e-3 * (1 + np.abs(columns[-1]).max()))
        full = np.array(columns).T  # full[a, b]: d gradient[a] / d number b
        # the gradient's partial derivatives can all exist where it is not
        # differentiable (np.linalg.norm(x ** 2) at 0): then there is no Hessian to
        # compare with, so the slope along a direction moving every number must be theirs
        direction = np.cos(np.arange(1, len(vec) + 1) * 1.7)
        along = (flat(g(*rebuild(vec + h * direction))) - flat(g(*rebuild(vec - h * direction)))) \
            / (2 * h)
    if kinked or not np.all(np.isfinite(full)) or not _close(along, full @ direction, 1e-4 * (
            1 + np.abs(full).max())):
        event("hessian: the gradient is not differentiable here")
        return
    hess = check("hessian", lambda: seeded(lambda: s2sad.hessian(f, wrt=wrt)(*point)))
    if hess is None:
        return
    # the numbers of each array (or float) of each argument: a list of arrays has a
    # block per pair of its arrays, in order
    spans, k = [], 0
    for p in point:
        spans.append([])
        for leaf in leaves(p):
            spans[-1].append(slice(k, k + np.size(leaf)))
            k += np.size(leaf)
    expected = np.concatenate([
        full[a, b].ravel()
        for i in range(len(point)) for j in range(len(point))
        for a in spans[i] for b in spans[j]])
    assert isinstance(hess, tuple) and len(hess) == len(point), \
        check.where + f"hessian gave {hess!r}"
    rtol = 1e-4 * (1 + np.abs(full).max())
    if not _close(flat(hess), expected, rtol) and 0.0 in vec:
        # the README's conventions at kinks (abs has derivative 0 at 0) make abs(y) ** 2
        # have second derivative 0 at y == 0 exactly, where y * y has 2: right beside
        # such a point the Hessian must be right
        nudged = vec + 1e-9 * np.cos(np.arange(1, len(vec) + 1) * 0.9)
        beside = check("hessian", lambda: seeded(
            lambda: s2sad.hessian(f, wrt=wrt)(*rebuild(nudged))))
        if beside is not None and _close(flat(beside), expected, rtol):
            event("hessian: a kink's convention at 0")
            return
    assert _close(flat(hess), expected, rtol), \
        check.where + f"hessian {hess} != central differences of the gradient {expected}"


def _unit_tangents(point):
    for i in range(len(point)):
        yield tuple(1.0 if j == i else 0.0 for j in range(len(point)))


def _cheap(text, every):
    """One program in `every` (by its text, so a derandomized run picks the same ones)."""
    return zlib.crc32(text.encode()) % every == 0


@fuzz_settings("scalar")
@given(scalar_program(), st.tuples(NUMBER, NUMBER))
def test_scalar_programs(text, point):
    # (``min(ys, key=lambda t: (t - x) ** 2)`` of ``ys = [y, x]`` at x == y, or
    # ``key=abs`` at x == -y: the keys tie, the function is smooth there, and a
    # derivative follows the element min took; no central difference shows the tie)
    x, y = point
    assume("key=" not in text or min(abs(x - y), abs(abs(x) - abs(y))) > 1e-6)
    _check_everything(text, load(text), point, _unit_tangents, hessian=_cheap(text, 3))


@fuzz_settings("tuples")
@given(tuple_join_program(), st.tuples(NUMBER, NUMBER))
def test_programs_joining_tuples(text, point):
    """``t + u`` of tuples (displays, tuples made before, a helper's ``*args``):
    refused before as the `+` of two tuples; each item's derivative its own."""
    x, y = point
    assume(abs(x - y) > 1e-6 and abs(x) > 1e-6 and abs(y) > 1e-6)  # (max/min ties)
    _check_everything(text, load(text), point, _unit_tangents, hessian=_cheap(text, 3))


@fuzz_settings("partial")
@given(scalar_program(partial=True), st.tuples(NUMBER, NUMBER))
def test_names_assigned_after_a_return(text, point):
    """A name an ``if`` assigns after a ``return`` nested in it, read after the
    ``if``: its copy on the path that does not assign it raises, as Python does,
    instead of refusing the function ("`z` is read before it is assigned")."""
    x, y = point
    assume("key=" not in text or min(abs(x - y), abs(abs(x) - abs(y))) > 1e-6)
    assume("if abs(" in text)
    _check_everything(text, load(text), point, _unit_tangents, hessian=_cheap(text, 3))


@fuzz_settings("assigning")
@given(assigning_program(), st.tuples(NUMBER, NUMBER))
def test_programs_whose_conditions_assign_or_whose_defaults_go_unused(text, point):
    # (a name a `while` condition assigns left the loop with the value of the test
    # before; a computed `default=` of a `max` over items got the result's adjoint)
    x, y = point
    assume("key=" not in text or abs(abs(x) - abs(y)) > 1e-6)
    _check_everything(text, load(text), point, _unit_tangents, hessian=_cheap(text, 3))


@fuzz_settings("rebuilt")
@given(rebuilt_program(), st.lists(NUMBER, min_size=2, max_size=3), NUMBER)
def test_programs_whose_loops_make_their_lists_anew(text, xs, h):
    _check_everything(text, load(text), (xs, h), _random_direction, hessian=_cheap(text, 3))


@fuzz_settings("joined")
@given(joined_list_program(), st.lists(NUMBER, min_size=2, max_size=3), NUMBER)
def test_programs_that_join_a_list_with_the_one_it_held(text, xs, h):
    _check_everything(text, load(text), (xs, h), _random_direction, hessian=_cheap(text, 3))


@fuzz_settings("rows")
@given(nested_list_program(), st.lists(NUMBER, min_size=2, max_size=3))
def test_programs_that_change_lists_held_in_a_list(text, xs):
    _check_everything(text, load(text), (xs,), _random_direction, hessian=_cheap(text, 4))


@fuzz_settings("iterators")
@given(iterator_program(), NUMBER, NUMBER, st.lists(NUMBER, min_size=1, max_size=3))
def test_programs_that_keep_iterators_in_names(text, x, y, xs):
    _check_everything(text, load(text), (x, y, xs), _random_direction, hessian=_cheap(text, 4))


@fuzz_settings("local")
@given(local_function_program(), st.tuples(NUMBER, NUMBER))
def test_programs_that_define_functions_on_some_paths(text, point):
    _check_everything(text, load(text), point, _random_direction, hessian=_cheap(text, 4))


@fuzz_settings("filled")
@given(filled_program(), st.lists(NUMBER, min_size=6, max_size=6))
def test_outputs_a_helper_wrote_into_stay_as_returned(text, numbers):
    """A helper's backward sweep puts back what its writes overwrote: never in the
    output or the metrics the caller was given (has_aux, a vjp's output, a pullback
    called twice, jacobian by pullbacks)."""
    f, loss = load(text), load(text, "loss")
    x, w = np.array(numbers[:3]), np.array(numbers[3:])
    try:
        with np.errstate(all="ignore"):
            want_out, want_aux = f(x, w), loss(x, w)[1]
    except USER_ERRORS:
        assume(False)
    assume(np.all(np.isfinite(want_out)) and np.all(np.abs(want_out) < 1e6))
    where = f"\n{text}\nat {(x, w)!r}\n"
    check = _Checker(text, (x, w))
    got = check("grad(has_aux=True)", lambda: s2sad.grad(loss, has_aux=True)(x, w))
    if got is not None:
        aux = got[1]
        assert np.array_equal(aux["y"], want_aux["y"]) and all(
            np.array_equal(a, b) for a, b in zip(aux["both"], want_aux["both"])), \
            where + f"aux {aux} != {want_aux}"
    pulled = check("vjp", lambda: s2sad.vjp(f, x, w))
    if pulled is not None:
        out, pullback = pulled
        seed = np.array([1.0, -0.5, 0.25])
        first = pullback(seed)
        assert np.array_equal(out, want_out), where + f"vjp's output {out} != {want_out}"
        second = check("vjp's pullback, again", lambda: pullback(seed))
        assert np.array_equal(out, want_out), where + f"vjp's output {out} != {want_out}"
        if second is not None:
            assert all(np.array_equal(a, b) for a, b in zip(first, second)), \
                where + f"the pullback called twice: {first} then {second}"
        ok, expected = smooth(lambda x, w: float(np.dot(seed, f(x, w))), (x, w))
        if ok:
            assert _close(flat(first), expected, 1e-4), where + f"pullback {first} != {expected}"


@fuzz_settings("names")
@given(bound_names_program(), st.lists(st.tuples(NUMBER, NUMBER), min_size=2, max_size=3))
def test_programs_that_bind_names_a_digit_apart(text, pairs):
    xs, ys = [p[0] for p in pairs], [p[1] for p in pairs]
    _check_everything(text, load(text), (xs, ys), _random_direction, hessian=_cheap(text, 4))


@fuzz_settings("elements")
@given(element_program(), st.lists(NUMBER, min_size=5, max_size=5))
def test_programs_that_change_an_element_of_a_list_in_place(text, numbers):
    """Where the changed element may be the caller's array, the change shows in the
    argument (and the caller's list): each mode refuses or gives the derivative of
    the function as it runs, on fresh copies of the point."""
    f = load(text)
    shared = load(text, "SHARED")

    def point():
        return [np.array(numbers[0:2]), np.array(numbers[2:4])], numbers[4]

    def fresh(ws, h):  # (the reference: the function run on copies)
        return f([w.copy() for w in ws], h)

    try:
        with np.errstate(all="ignore"):
            value = fresh(*point())
    except USER_ERRORS:
        assume(False)
    assume(np.isfinite(value) and abs(value) < 1e6)
    ok, expected = smooth(fresh, point())
    assume(ok)
    where = f"\n{text}\nat {point()!r}\n"
    for mode in ("reverse", "forward"):
        try:
            got = s2sad.grad(f, wrt=(0, 1), mode=mode)(*point())
        except s2sad.S2SADError as exc:
            assert shared, where + f"{mode} refused a program it must take: {exc}"
            continue
        assert _close(flat(got), expected, 1e-4), where + f"{mode} {got} != {expected}"


def _array_point(params, rows=2):
    """(x, w, s), or with `params` ([w, b], x, s): x of shape (3,), w (rows, 3), b
    (rows,), in float64 or float32, s a float or a 0-d array (float64 or float32)."""
    def build(numbers, dtype, s_kind):
        x = np.array(numbers[:3], dtype=dtype[0])
        w = np.array(numbers[3:3 + 3 * rows], dtype=dtype[1]).reshape(rows, 3)
        at = 3 + 3 * rows
        s = numbers[at] if s_kind == "float" else np.array(numbers[at], dtype=s_kind)
        if params:
            return ([w, np.array(numbers[at + 1:at + 1 + rows], dtype=dtype[1])], x, s)
        return (x, w, s)

    size = 4 + 4 * rows
    return st.builds(build, st.lists(NUMBER, min_size=size, max_size=size),
                     st.sampled_from([("float64", "float64")] * 3 + [
                         ("float32", "float32"), ("float32", "float64")]),
                     st.sampled_from(["float"] * 3 + ["float64", "float32"]))


def _random_direction(point):
    rng = np.random.default_rng(len(point))

    def like(p):
        if isinstance(p, list):
            return [like(e) for e in p]
        if isinstance(p, np.ndarray):
            return rng.standard_normal(p.shape).astype(p.dtype)
        return float(rng.standard_normal())

    yield tuple(like(p) for p in point)


def _array_case(params, buffers=False, repeats=False):
    """A program and a point for it, ``w`` of 2 rows or of 3: then ``w`` is square and
    ``w @ x`` as long as ``x``, so arrays of different meaning have the same shape
    (the compiled code is specialised on which lengths are equal, `shape_pattern`)."""
    return st.sampled_from([2, 3]).flatmap(lambda rows: st.tuples(
        array_program(params=params, rows=rows, buffers=buffers, repeats=repeats),
        _array_point(params, rows)))


@fuzz_settings("array")
@given(_array_case(False))
def test_array_programs(case):
    text, point = case
    _check_everything(text, load(text), point, _random_direction, hessian=_cheap(text, 4))


@fuzz_settings("buffers")
@given(_array_case(False, buffers=True))
def test_array_programs_with_buffers_that_trade_places(case):
    """Buffers made as two copies of one value, trading places each step while one is
    written in place: reverse mode refuses them; forward mode keeps them apart."""
    text, point = case
    assume("for i in range" in text and ", v" in text)
    _check_everything(text, load(text), point, _random_direction)


@fuzz_settings("repeats")
@given(_array_case(False, repeats=True))
def test_array_programs_writing_through_indices_that_repeat(case):
    """``v[idx] = e`` (and ``+=``, ``*=``) with an index naming an element twice, of
    a kind the compiler may not see (``SETTINGS['idx']``, ``x.argsort() % 2``): only
    the value NumPy keeps has a derivative, in every mode."""
    text, point = case
    # (not the method programs: there `self.V[0]` read after such a write is refused,
    # a gap of its own)
    assume("def f(self" not in text)
    _check_everything(text, load(text), point, _random_direction)


# what the global `C` the programs below read is rebound to between two calls of one
# gradient: each of another type, rank or dtype than the float it was built for
_OTHER_KINDS_OF_C = [np.array([0.5, -1.0, 2.0]), np.array([[0.5, -1.0, 2.0], [1.0, 0.3, -0.2]]),
                     np.float32(0.7), np.array([[0.5], [-1.0]], dtype=np.float32),
                     np.array(0.7), 2]


@fuzz_settings("global")
@given(_array_case(False), st.sampled_from(range(len(_OTHER_KINDS_OF_C))))
def test_array_programs_reading_a_global_that_changes_kind(case, which):
    # (the derivative is built for the kind a global holds: one gradient object, called
    # again after the global became an array of another rank, must build it again; a
    # float `C` times the float `s` has a float's adjoint, an array `C` one summed);
    # or a global list `CL` whose item `CL[0]` is changed in place (the same list), or
    # the default of a helper's parameter, assigned anew (its derivative holds it)
    text, point = case
    head, _, rest = text.partition("\ndef f(")
    signature, _, body = rest.partition("\n")  # (the first line of f: `s` is a parameter)
    how = zlib.crc32(text.encode()) % 3  # (no draw: the drawn programs stay)
    k = ("C", "CL[0]", "held_c(s)")[how]
    text = (f"{head}\nC = 0.7\nCL = [0.7]\n\n\ndef held_c(t, c=0.7):\n    return c * t"
            f"\n\n\ndef f({signature}\n"
            f"    s = s * 1.0 + np.sum({k} * s) + np.sum({k} * x * s)\n{body}")
    f = load(text)
    module = getattr(f, "__func__", f).__globals__
    grad = s2sad.grad(f, wrt=(0, 1, 2))
    check = _Checker(text, point)
    rtol = 2e-3 if _single(point) else 1e-4
    for c in (0.7, _OTHER_KINDS_OF_C[which]):
        if how == 1:
            module["CL"][0] = c
        elif how == 2:
            module["held_c"].__defaults__ = (c,)
        else:
            module["C"] = c
        try:
            with np.errstate(all="ignore"):
                value = f(*point)
                ok, expected = smooth(f, point)
        except USER_ERRORS:
            return
        if not ok or not np.all(np.isfinite(value)) or np.size(value) != 1:
            return
        got = check("grad", lambda: grad(*point))
        if got is None:
            return  # (refused, where the generator allows it)
        check.gradient(f"grad with C = {c!r}", got, point, expected, rtol)


# what the programs below draw: from NumPy's global generator, a Generator the module
# holds, the `random` module; a number, or an array as long as ``x``
_DRAWS = ("np.random.standard_normal()", "RNG.normal()", "random.gauss(0.0, 1.0)",
          "np.mean(np.random.normal(size=np.shape(x)) * x)")


@fuzz_settings("drawing")
@given(_array_case(False))
def test_array_programs_that_draw_random_numbers(case):
    # (a derivative that runs the function more than once at a point, forward mode
    # one pass per input number, the Hessian, must give the derivative of one
    # realization: that of the reverse gradient, with the generators seeded alike,
    # and leave them where one call leaves them)
    text, point = case
    head, _, rest = text.partition("\ndef f(")
    signature, _, body = rest.partition("\n")
    draw = _DRAWS[zlib.crc32(text.encode()) % len(_DRAWS)]
    text = (f"{head}\nimport random\n\nRNG = np.random.default_rng(5)\n\n\ndef f({signature}\n"
            f"    s = s * (1.0 + 0.25 * {draw})\n{body}")
    f = load(text)
    rng = getattr(f, "__func__", f).__globals__["RNG"]
    start = rng.bit_generator.state

    def seeded(call):
        np.random.seed(7)
        random.seed(7)
        rng.bit_generator.state = start
        return call()

    def next_draws():
        return np.random.random(), random.random(), rng.random()

    try:
        with np.errstate(all="ignore"):
            value = seeded(lambda: f(*point))
            after = next_draws()
            ok, expected = smooth(lambda *a: seeded(lambda: f(*a)), point)
    except USER_ERRORS:
        return
    if not ok or not np.all(np.isfinite(value)) or np.size(value) != 1:
        return
    check = _Checker(text, point)
    wrt = tuple(range(len(point)))
    rtol, exact = (2e-3, 1e-4) if _single(point) else (1e-4, 1e-8)
    # (what reverse mode refuses of the program as generated is `test_array_programs`'s
    # business: here it leaves no reference)
    got = check("grad", lambda: seeded(lambda: s2sad.grad(f, wrt=wrt)(*point)), may_refuse=True)
    if got is None:
        return
    check.gradient("grad", got, point, expected, rtol)
    event("drawing: checked")
    for what, call in (
            ("grad(mode='forward')", lambda: s2sad.grad(f, wrt=wrt, mode="forward")(*point)),
            ("jacobian(mode='forward')", lambda: s2sad.jacobian(f, wrt=wrt, mode="forward")(*point)),
            ("jacobian(mode='reverse')", lambda: s2sad.jacobian(f, wrt=wrt, mode="reverse")(*point)),
            ("jacobian", lambda: s2sad.jacobian(f, wrt=wrt)(*point))):
        other = check(what, lambda: seeded(call))
        if other is not None:
            assert _close(flat(other), flat(got), exact), \
                check.where + f"{what} {other} != the reverse gradient of the same draws {got}"
            assert next_draws() == after, \
                check.where + f"{what} left the generators elsewhere than one call does"
    if _cheap(text, 3):
        _check_hessian(check, f, point, wrt, seeded=seeded)
        assert next_draws() == after, check.where + "hessian left the generators elsewhere"


@fuzz_settings("params")
@given(_array_case(True))
def test_programs_of_lists_of_arrays(case):
    text, point = case
    _check_everything(text, load(text), point, _random_direction, hessian=_cheap(text, 4))


def _tensors(value):
    """`value` (a point, or a gradient) with its NumPy arrays as PyTorch tensors."""
    import torch

    if isinstance(value, (list, tuple)):
        return type(value)(_tensors(v) for v in value)
    return torch.from_numpy(value.copy()) if isinstance(value, np.ndarray) else value


def _numbers(value):
    """`value` (a gradient of tensors) with its tensors as NumPy arrays."""
    if isinstance(value, (list, tuple)):
        return type(value)(_numbers(v) for v in value)
    return value.numpy() if hasattr(value, "numpy") else value


# what the derivative for tensors may be refused with: adjoints written for NumPy
# arrays only, NumPy functions the array API standard has not
TORCH_REFUSALS = ("written for NumPy arrays only", "which PyTorch has no counterpart of",
                  "SciPy's, which computes with NumPy arrays", "slices with a negative step",
                  "the `*` part of an unpacking")  # (a slice PyTorch's stack does not take)


@fuzz_settings("array")
@given(_array_case(False))
def test_array_programs_on_torch_tensors(case):
    """The array programs on float64 PyTorch tensors: the gradient is tensors with the
    NumPy gradient's numbers, and `jvp` gives the NumPy tangent's (a tensor's methods
    and element reads mean what an array's do: `driver.libraries.as_functions`), or a
    refusal that says why."""
    _on_tensors(case)


@fuzz_settings("params")
@given(_array_case(True))
def test_programs_of_lists_of_tensors(case):
    _on_tensors(case)


def _on_tensors(case):
    torch = pytest.importorskip("torch", reason="PyTorch is not installed")
    pytest.importorskip("array_api_compat", reason="array-api-compat is not installed")
    text, point = case
    assume(not _single(point))
    f = load(text)
    wrt = tuple(range(len(point)))
    try:
        with np.errstate(all="ignore"):
            want = s2sad.grad(f, wrt=wrt)(*point)
    except (S2SADError, *USER_ERRORS):
        assume(False)
    assume(all(np.all(np.isfinite(g)) for g in flat(want)))
    # (the function itself may fail on tensors, a NumPy global or `self.M` times a
    # tensor; its derivative makes the NumPy data it reads tensors, and runs the
    # helpers it calls without a derivative with the tensors' functions: it may not)
    try:
        got = s2sad.grad(f, wrt=wrt)(*_tensors(point))
    except S2SADError as e:
        assert any(r in str(e) for r in TORCH_REFUSALS), f"{text}\n{e}"
        return
    for g, w in zip(leaves(got), leaves(want)):
        assert not isinstance(w, np.ndarray) or isinstance(g, torch.Tensor), (text, type(g))
    np.testing.assert_allclose(flat(_numbers(got)), flat(want), rtol=1e-9, atol=1e-11,
                               err_msg=text)
    # the forward derivative too (its tangents' lines run with the tensors' namespace)
    direction = next(_random_direction(point))
    with np.errstate(all="ignore"):
        want = s2sad.jvp(f, point, direction)[1]
    try:
        got = s2sad.jvp(f, _tensors(point), _tensors(direction))[1]
    except S2SADError as e:
        assert any(r in str(e) for r in TORCH_REFUSALS), f"{text}\n{e}"
        return
    np.testing.assert_allclose(flat(_numbers(got)), flat(want), rtol=1e-9, atol=1e-11,
                               err_msg=text)


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
