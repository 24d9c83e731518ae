"""Checkpointed loops: the schedules against their theory, and gradients through
`s2sad.checkpointed` loops against the same functions without the marker."""

import importlib.util
import math
import re
from pathlib import Path

import numpy as np
import pytest

import s2sad
from s2sad import checkpoint
from s2sad.checkpoint import CTZ, Binomial, binomial_cost, binomial_steps, repetitions

import zoo_checkpoint as zoo
from helpers import central_diff

SIZES = [0, 1, 2, 3, 4, 5, 7, 8, 9, 15, 16, 17, 31, 32, 33, 64, 100]


# ------------------------------------------------------------ the schedules


def drive(schedule, n):
    """Runs a loop of n steps whose state is the list of indices seen, so every state
    the reverse sweep gets can be checked; returns (step calls, peak snapshots)."""
    seen = []

    def step(indices, state, args):
        assert len(indices) > 0  # (a stretch with no step is not worth a call)
        return state + tuple(indices)

    def step_bar(i, state, args, bar):
        assert state == tuple(range(i)), (i, state)
        seen.append(i)
        return bar + 1

    assert schedule.forward(step, range(n), (), ()) == tuple(range(n))
    assert schedule.reverse(step_bar, 0) == n
    assert seen == list(range(n - 1, -1, -1))
    return schedule.steps, schedule.peak


def revolve_minimum(n, s, memo={}):
    """The fewest forward steps reversing n steps with s snapshots, by brute force."""
    if n <= 1:
        return 0
    if s == 1:
        return n * (n - 1) // 2
    if (n, s) not in memo:
        memo[n, s] = min(m + revolve_minimum(n - m, s - 1) + revolve_minimum(m, s)
                         for m in range(1, n))
    return memo[n, s]


@pytest.mark.parametrize("s", [1, 2, 3, 5, 10])
def test_binomial_is_revolve_optimal(s):
    for n in SIZES + [63, 65, 127, 128, 129]:
        steps, peak = drive(Binomial(s), n)
        # the forward sweep's last step computes the output; revolve's own count
        # leaves it to the adjoint of the last step
        assert steps == binomial_cost(n, s) + (n > 0), (n, s)
        assert peak <= s
        if n <= 70:
            assert binomial_cost(n, s) == revolve_minimum(n, s)


def test_binomial_closed_form():
    assert repetitions(100, 5) == 4
    assert binomial_cost(100, 5) == 316  # revolve's count, as Griewank and Walther's
    assert binomial_steps(100, 5) == 317  # and the last step, for the loop's output
    assert drive(Binomial(5), 100) == (317, 5)


def count_steps(schedule, n):
    """The steps a schedule's `step` actually runs over a loop of n steps (not its own
    `steps` counter), in all and per index, and the states `step_bar` gets checked."""
    runs = [0] * n

    def step(indices, state, args):
        for i in indices:
            runs[i] += 1
        return state + len(indices)

    def step_bar(i, state, args, bar):
        assert state == i
        return bar + [i]

    assert schedule.forward(step, range(n), 0, ()) == n
    assert schedule.reverse(step_bar, []) == list(range(n - 1, -1, -1))
    assert schedule.steps == sum(runs)
    return sum(runs), runs


def test_binomial_runs_the_formula_of_its_readme():
    """Griewank's t*N - C(s+t, s+1), t the smallest with C(s+t, s) >= N, and the one
    step the forward sweep runs for the output: what the step function runs."""
    for s in range(1, 13):
        for n in list(range(130)) + [200, 255, 256, 1000, 1001, 3003, 3004]:
            t = next(t for t in range(n + 1) if math.comb(s + t, s) >= n)
            formula = t * n - math.comb(s + t, s + 1) + 1 if n else 0
            ran, runs = count_steps(Binomial(s), n)
            assert ran == formula == binomial_steps(n, s), (n, s)
            assert repetitions(n, s) == t
            if n >= 2:
                assert max(runs) <= t, (n, s)
    for n in list(range(130)) + [1000, 1024, 1025]:  # (CTZ's counter counts what runs)
        ran, _ = count_steps(CTZ(), n)
        log = math.floor(math.log2(n)) if n else 0
        assert ran - n <= n * (log + 1) / 2, n
    t = repetitions(10**5, 10)
    assert math.comb(10 + t, 10) >= 10**5 > math.comb(9 + t, 10)


def test_binomial_with_many_snapshots_runs_loops_not_recursions():
    """A segment with a snapshot to spare for each of its states but the last is
    reversed by one loop keeping them (`Binomial._sweep`), revolve's schedule there,
    not by one recursive call per step: 100 snapshots over 10^5 steps take 5,975
    calls of the recursion (28,871 before, what made 100 snapshots slower than 30),
    with revolve's steps, every state right and at most 100 snapshots."""
    for s in (100, 300):
        steps, peak = drive(Binomial(s), 1000)
        assert steps == binomial_steps(1000, s) and peak <= s, s
    ckpt = Binomial(100)
    ran, runs = count_steps(ckpt, 10**5)
    assert ran == binomial_steps(10**5, 100)
    assert max(runs) <= repetitions(10**5, 100) == 3
    assert ckpt.segments < 7000, ckpt.segments


def test_binomial_recursion_deeper_than_pythons_limit():
    """As many snapshots as steps, past Python's recursion limit: revolve's calls
    are kept on a list, not Python's stack (a RecursionError before), in the
    compiled loop too."""
    steps, peak = drive(Binomial(3000), 3000)
    assert steps == binomial_steps(3000, 3000) and peak <= 3000

    def f(k):
        x = 1.0
        for i in range(1500):
            x = x + 0.001 * k * x
        return x

    want = 1500 * 0.001 * (1 + 0.001 * 0.7) ** 1499
    assert s2sad.grad(f, checkpoint="binomial", snapshots=1500)(0.7) == pytest.approx(want)


def test_ctz_snapshots_and_recomputations():
    for n in SIZES + [1000, 1024, 1025]:
        steps, peak = drive(CTZ(), n)
        log = math.floor(math.log2(n)) if n else 0
        assert peak <= log + 1 if n else peak == 0, (n, peak)
        assert steps - n <= n * (log + 1) / 2, (n, steps)
    assert drive(CTZ(), 16) == (16 + 17, 5)  # 0, 8, 12, 14, 15 kept


def test_ctz_runs_a_for_loop_that_stops():
    """``forward_while(step, test, state, args, indices)``: step k runs index
    ``indices[k]`` until the indices end or the test fails; the reverse gets the
    indices that ran, from the last, each with the state before it."""
    for indices in (range(0), range(5), range(3, 40, 2), range(10, 0, -3)):
        for stop in (0, 1, 2, 5, 8, 100):
            def step(idx, state, args):
                assert len(idx) > 0
                return state + tuple(idx)

            seen = []

            def step_bar(i, state, args, bar):
                assert state == tuple(indices[:len(state)]) and indices[len(state)] == i
                seen.append(i)
                return bar + 1

            ckpt = CTZ()
            out = ckpt.forward_while(step, lambda st, a: len(st) < stop, (), (), indices)
            ran = min(stop, len(indices))
            assert out == tuple(indices[:ran]) and ckpt.n == ran
            assert ckpt.reverse(step_bar, 0) == ran
            assert seen == list(indices[:ran])[::-1]
            check_ctz_bounds(ckpt)


@pytest.mark.parametrize("replayed", [0, 10**9])
def test_binomial_programs_replay_the_recursion(replayed, monkeypatch):
    """Replaying the cached programs of short segments (the default) reverses in the
    same order, with the same step calls and snapshots, as recursing all the way
    down (0) or replaying every segment."""
    for s in (1, 2, 3, 10):
        for n in (0, 1, 2, 5, 33, 100, 257):
            want = drive(Binomial(s), n)
            with monkeypatch.context() as m:
                m.setattr(checkpoint, "REPLAYED", replayed)
                assert drive(Binomial(s), n) == want, (s, n)


def test_ctz_keeps_the_hierarchy():
    """The positions CTZ holds after running from j to k are those a stack that keeps
    every position and drops the ones a later position outranks would hold."""
    for k in range(1, 130):
        stack = []
        for p in range(k + 1):
            while stack and checkpoint._rank(stack[-1]) < checkpoint._rank(p):
                stack.pop()
            stack.append(p)
        for i, j in enumerate(stack):
            assert checkpoint._kept_between(j, k) == stack[i + 1:], (j, k)


def test_marker_runs_the_plain_loop():
    assert list(s2sad.checkpointed(range(3), snapshots=2, schedule="binomial")) == [0, 1, 2]
    assert zoo.euler(2.0, 0.3, 10, 3) == PLAIN.euler(2.0, 0.3, 10, 3)
    with pytest.raises(ValueError):
        s2sad.checkpointed(range(3), schedule="revolve")


# ------------------------------------------------- gradients against no marker


def _plain_module(tmp):
    """tests/zoo_checkpoint.py with every `s2sad.checkpointed(range(...), ...)` replaced
    by its range: the functions without checkpointing."""
    text = Path(zoo.__file__).read_text()
    text = re.sub(r"s2sad\.checkpointed\((range\(.*?\))(, [^:]*)?\):", r"\1:", text)
    text = re.sub(r"while s2sad\.checkpointed\((.*?)(, schedule=.*)?\):$", r"while \1:", text,
                  flags=re.MULTILINE)
    assert "checkpointed(range" not in text and "while s2sad.checkpointed" not in text
    path = tmp / "zoo_checkpoint_plain.py"
    path.write_text(text)
    spec = importlib.util.spec_from_file_location("zoo_checkpoint_plain", path)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


PLAIN = None


@pytest.fixture(scope="module", autouse=True)
def plain(tmp_path_factory):
    global PLAIN
    PLAIN = _plain_module(tmp_path_factory.mktemp("plain"))
    return PLAIN


def close(a, b):
    np.testing.assert_allclose(np.asarray(a, dtype=float), np.asarray(b, dtype=float),
                               rtol=1e-12, atol=1e-14)


@pytest.mark.parametrize("n", SIZES)
def test_euler(n):
    want = s2sad.grad(PLAIN.euler, wrt=(0, 1))(2.0, 0.3, n, 3)
    for s in (1, 2, 3, 10):
        close(s2sad.grad(zoo.euler, wrt=(0, 1))(2.0, 0.3, n, s), want)
    close(s2sad.grad(zoo.euler_ctz, wrt=(0, 1))(2.0, 0.3, n),
          s2sad.grad(PLAIN.euler_ctz, wrt=(0, 1))(2.0, 0.3, n))


@pytest.mark.parametrize("n", SIZES)
def test_loop_sum(n):
    close(s2sad.grad(zoo.loop_sum, wrt=(0, 1))(0.7, 1.3, n),
          s2sad.grad(PLAIN.loop_sum, wrt=(0, 1))(0.7, 1.3, n))


@pytest.mark.parametrize("n", [0, 1, 2, 5, 8, 13])
def test_rnn(n):
    rng = np.random.default_rng(n)
    W = rng.normal(size=(4, 4)) * 0.5
    U = rng.normal(size=4)
    xs = rng.normal(size=n)
    want = s2sad.grad(PLAIN.rnn, wrt=(0, 1))(W, U, xs, 2)
    for got in (s2sad.grad(zoo.rnn, wrt=(0, 1))(W, U, xs, 2),
                s2sad.grad(zoo.rnn_ctz, wrt=(0, 1))(W, U, xs)):
        for g, w in zip(got, want):
            assert g.shape == w.shape
            close(g, w)


@pytest.mark.parametrize("n", SIZES[:12])
def test_newton(n):
    close(s2sad.grad(zoo.newton)(2.0, n), s2sad.grad(PLAIN.newton)(2.0, n))
    close(s2sad.grad(zoo.newton_ctz)(2.0, n), s2sad.grad(PLAIN.newton_ctz)(2.0, n))


@pytest.mark.parametrize("n", [0, 1, 2, 3, 6, 10, 17])
def test_branches_calls_and_nested_loops(n):
    close(s2sad.grad(zoo.branches_and_calls, wrt=(0, 1))(0.4, 1.1, n),
          s2sad.grad(PLAIN.branches_and_calls, wrt=(0, 1))(0.4, 1.1, n))


def test_value_and_grad_and_vjp():
    v, g = s2sad.value_and_grad(zoo.euler, wrt=(0, 1))(2.0, 0.3, 20, 3)
    assert v == PLAIN.euler(2.0, 0.3, 20, 3)
    close(g, s2sad.grad(PLAIN.euler, wrt=(0, 1))(2.0, 0.3, 20, 3))
    out, pullback = s2sad.vjp(zoo.euler, 2.0, 0.3, 20, 3)
    want = s2sad.vjp(PLAIN.euler, 2.0, 0.3, 20, 3)[1](2.0)
    close(pullback(2.0)[:2], want[:2])


# ------------------------------------------- every exit of a step (continue)


def central(f, args, wrt, h=1e-6):
    """Central differences of f along each argument in `wrt` (numbers or arrays),
    flattened and concatenated."""
    return flat([central_diff(f, args, j, h) for j in wrt])


def flat(parts):
    return np.concatenate([np.ravel(np.asarray(p, dtype=float)) for p in parts])


def check_three_ways(f, args, wrt, want, **options):
    """grad, value_and_grad and vjp of f (with `options`) all give `want`."""
    close(flat(s2sad.grad(f, wrt=wrt, **options)(*args)), want)
    value, g = s2sad.value_and_grad(f, wrt=wrt, **options)(*args)
    assert value == f(*args)
    close(flat(g), want)
    out, pullback = s2sad.vjp(f, *args, **options)
    assert out == f(*args)
    grads = pullback(1.0)
    close(flat([grads[j] for j in wrt]), want)


SKIPS = [  # (name, args without the trip count)
    ("skip_euler", (2.0, 0.3)),
    ("skip_ctz", (0.4, 0.7)),
    ("skip_while", (0.4, 0.7)),
    ("skip_while_test", (0.4, 0.7)),
]


@pytest.mark.parametrize("n", [0, 1, 2, 3, 5, 8, 13])
@pytest.mark.parametrize("name, args", SKIPS)
def test_continue_in_marked_loops(name, args, n):
    """`continue` leaves a step by an exit of its own: the step's reverse passes the
    adjoints on along it (they were zeroed, so every gradient came out 0)."""
    wrt = (0, 1)
    snapshot_counts = (1, 2, 3, 10) if name == "skip_euler" else (None,)
    for s in snapshot_counts:
        full = args + (n,) if s is None else args + (n, s)
        want = flat(s2sad.grad(getattr(PLAIN, name), wrt=wrt)(*full))
        if n:
            assert np.abs(want).max() > 1e-3  # (a zero gradient cannot pass)
        np.testing.assert_allclose(want, central(getattr(PLAIN, name), full, wrt),
                                   rtol=1e-6, atol=1e-8)
        check_three_ways(getattr(zoo, name), full, wrt, want)


@pytest.mark.parametrize("n", [0, 1, 2, 3, 5, 8, 13])
@pytest.mark.parametrize("schedule, snapshots", [("ctz", None), ("binomial", 1),
                                                 ("binomial", 2), ("binomial", 3),
                                                 ("binomial", None)])
def test_continue_with_the_checkpoint_option(schedule, snapshots, n):
    args, wrt = (0.4, 0.7, n), (0, 1)
    text = s2sad.source(zoo.skip_steps, wrt=wrt, checkpoint=schedule, snapshots=snapshots)
    assert text.count(".forward(") == 1 and text.count(".forward_while(") == 1
    want = flat(s2sad.grad(zoo.skip_steps, wrt=wrt)(*args))
    np.testing.assert_allclose(want, central(zoo.skip_steps, args, wrt), rtol=1e-6,
                               atol=1e-8)
    check_three_ways(zoo.skip_steps, args, wrt, want, checkpoint=schedule,
                     snapshots=snapshots)
    # the marked functions under the option keep their own marks
    for name, first in SKIPS[1:]:
        full = first + (n,)
        check_three_ways(getattr(zoo, name), full, wrt,
                         flat(s2sad.grad(getattr(PLAIN, name), wrt=wrt)(*full)),
                         checkpoint=schedule, snapshots=snapshots)


ARRAYS = np.random.default_rng(7).normal(size=(6, 3))


@pytest.mark.parametrize("n", [0, 1, 2, 3, 6])
def test_arrays_rebound_and_read_by_index(n):
    """A carried array read by index (its adjoint an array updated in place, passed
    in and out of each reversed step) and arrays the step makes and reads by index
    (this crashed in the reverse transform with AttributeError)."""
    A, x, W = ARRAYS[:n], ARRAYS[-1] * 0.5, ARRAYS[:3] * 0.4
    for s in (1, 2, 10):
        args, wrt = (A, x, s), (0, 1)
        want = flat(s2sad.grad(PLAIN.rows_marked, wrt=wrt)(*args))
        np.testing.assert_allclose(want, central(PLAIN.rows_marked, args, wrt), rtol=1e-6,
                                   atol=1e-8)
        check_three_ways(zoo.rows_marked, args, wrt, want)
    args = (W, x, n)
    want = flat(s2sad.grad(PLAIN.rebind_while, wrt=(0, 1))(*args))
    np.testing.assert_allclose(want, central(PLAIN.rebind_while, args, (0, 1)), rtol=1e-6,
                               atol=1e-8)
    check_three_ways(zoo.rebind_while, args, (0, 1), want)


@pytest.mark.parametrize("n", [0, 1, 2, 3, 6])
@pytest.mark.parametrize("schedule, snapshots", [("ctz", None), ("binomial", 1),
                                                 ("binomial", 2), ("binomial", None)])
def test_rows_and_rebound_arrays_with_the_option(schedule, snapshots, n):
    A, x, W = ARRAYS[:n], ARRAYS[-1] * 0.5, ARRAYS[:3] * 0.4
    args, wrt = (A, x, W), (0, 1, 2)
    text = s2sad.source(zoo.rows_option, wrt=wrt, example=args, checkpoint=schedule,
                        snapshots=snapshots)
    assert text.count(".forward(") == 1 and text.count(".forward_while(") == 1
    want = flat(s2sad.grad(zoo.rows_option, wrt=wrt)(*args))
    np.testing.assert_allclose(want, central(zoo.rows_option, args, wrt), rtol=1e-6,
                               atol=1e-8)
    check_three_ways(zoo.rows_option, args, wrt, want, checkpoint=schedule,
                     snapshots=snapshots)
    for name, more in (("rows_marked", (2,)), ("rebind_while", ())):
        first = (A, x) if name == "rows_marked" else (W, x)
        full = first + (n,) + more if name == "rebind_while" else first + more
        check_three_ways(getattr(zoo, name), full, (0, 1),
                         flat(s2sad.grad(getattr(PLAIN, name), wrt=(0, 1))(*full)),
                         checkpoint=schedule, snapshots=snapshots)


def test_a_marked_loop_that_carries_nothing():
    """Nothing to snapshot: the loop stays a plain loop (it was code that did not
    compile, `= ckpt.forward(...)` with no names)."""
    for n in (0, 1, 4):
        check_three_ways(zoo.carries_nothing, (1.5, n), (0,), flat([3.0]))
    assert "ckpt" not in s2sad.source(zoo.carries_nothing)


@pytest.mark.parametrize("func, line, words", [
    (zoo.bad_break_after_inner, "break  # leaves the checkpointed loop",
     "binomial checkpointing needs the number of iterations"),
    (zoo.bad_return, "return x * 2.0", "without return"),
    (zoo.bad_return_while, "return x * 2.0", "without return"),
    (zoo.bad_append, "xs.append(xs[-1] * 1.5)", "changes `xs` in place"),
    (zoo.bad_write, "u[0] = u[1] * 2.0", "changes `u` in place"),
    (zoo.bad_grown_tuple, "hist += (x,)", "changes `hist` in place"),
    (zoo.bad_nested, "for i in s2sad.checkpointed(range(n)):", "not inside another loop"),
    (zoo.bad_random, "x = np.tanh(x + 0.3 * np.random.randn())", "draws random numbers"),
    (zoo.bad_generator, "noise = 0.3 * rng.normal()", "draws random numbers"),
    (zoo.bad_random_in_helper, "x = _kick(x)", "draws random numbers"),
])
def test_refusals_point_at_the_line(func, line, words):
    with pytest.raises(s2sad.CheckpointError) as info:
        s2sad.grad(func)(1.0, 3)
    err = info.value
    assert words in err.message
    assert err.source_line.strip() == line
    assert err.filename.endswith("zoo_checkpoint.py")
    if "return" in words:
        assert "Set a flag and `break`" in err.hint
    if "binomial" in words:
        assert 'schedule="ctz"' in err.hint
    if func in (zoo.bad_append, zoo.bad_grown_tuple):  # (not "u = u.copy()")
        assert "carry what is needed in names" in err.hint


@pytest.mark.parametrize("schedule", ["ctz", "binomial"])
def test_the_option_leaves_a_loop_that_draws_random_numbers_its_tape(schedule):
    """Recomputing an iteration would draw other numbers (a wrong gradient, which a
    marked loop once gave): `checkpoint=` keeps the tape of such a loop."""
    def seeded(x):
        np.random.seed(7)
        return zoo.random_walk(x, 12)

    np.random.seed(7)
    got = s2sad.grad(zoo.random_walk, checkpoint=schedule)(0.4, 12)
    assert "ckpt" not in s2sad.source(zoo.random_walk, checkpoint=schedule)
    assert got == pytest.approx(central_diff(seeded, (0.4,), 0), rel=1e-6)


@pytest.mark.parametrize("schedule", ["ctz", "binomial"])
def test_the_option_and_early_exits(schedule, ctz_runs):
    """A loop with a break is checkpointed with CTZ (its trip count is left open), one
    that may return keeps its tape."""
    for name in ("bad_break_after_inner", "bad_return", "bad_return_while"):
        f = getattr(PLAIN, name)
        for x, n in ((1.0, 3), (1.0, 9), (3.0, 12)):
            want = flat([s2sad.grad(f)(x, n)])
            assert want[0] > 1.0
            np.testing.assert_allclose(want, central(f, (x, n), (0,)), rtol=1e-6)
            check_three_ways(f, (x, n), (0,), want, checkpoint=schedule)
        text = s2sad.source(f, checkpoint=schedule)
        if "return" in name:
            assert "ckpt" not in text
        else:
            assert "= CTZ()" in text and ".forward_while(" in text
    assert ctz_runs  # (the break loop ran under CTZ)


@pytest.mark.parametrize("n", [0, 1, 2, 3, 5, 8, 13, 30])
def test_break_in_marked_loops(n, ctz_runs):
    """CTZ runs a loop with a `break` one step at a time until the step that breaks
    (a flag in the state) or the end of the range; every step's exit, the break's
    too, carries the adjoints. (And while tests with `and`/`or`, `lazy_test`.)"""
    W = ARRAYS[:3] * 0.8
    cases = [("stop_early", (0.4, 0.7, n)), ("stop_early_while", (0.4, 0.7, n)),
             ("stop_at_once", (0.4, 0.7, n)), ("stop_early_arrays", (W, ARRAYS[-1], n)),
             ("lazy_test", (0.4, 0.7, n))]
    for name, args in cases:
        want = flat(s2sad.grad(getattr(PLAIN, name), wrt=(0, 1))(*args))
        np.testing.assert_allclose(want, central(getattr(PLAIN, name), args, (0, 1)),
                                   rtol=1e-6, atol=1e-8)
        check_three_ways(getattr(zoo, name), args, (0, 1), want)
    for ckpt in ctz_runs:
        assert ckpt.n <= n
        check_ctz_bounds(ckpt)
    x, y, trips = 0.4, 0.7, 0  # stop_early's loop, counting the steps it runs
    for i in range(n):
        trips += 1
        y = y + x * 0.1
        if y > 3.0:
            break
        if i % 3 != 1:
            x = x * 1.2 + y * 0.01
    assert trips < n or n < 17
    assert ctz_runs[0].n == trips


def test_only_ranges_are_checkpointed():
    with pytest.raises(s2sad.UnsupportedSyntaxError, match="loops over range"):
        s2sad.grad(zoo.bad_iterable)([1.0, 2.0])


# ------------------------------------------------------------- while loops


@pytest.fixture
def ctz_runs(monkeypatch):
    """Every CTZ scheduler the gradients make, to read its step and snapshot counts."""
    made = []
    init = CTZ.__init__

    def recording(self, *args):
        init(self, *args)
        made.append(self)

    monkeypatch.setattr(CTZ, "__init__", recording)
    return made


def check_ctz_bounds(ckpt):
    n = ckpt.n
    log = math.floor(math.log2(n)) if n else 0
    assert ckpt.peak <= (log + 1 if n else 0), (n, ckpt.peak)
    assert ckpt.steps - n <= n * (log + 1) / 2, (n, ckpt.steps)


def projectile_trips(v, angle, drag, height):
    """How many steps `zoo.projectile` takes (the loop of the plain function)."""
    x = y = 0.0
    y = height
    vx, vy = v * math.cos(angle), v * math.sin(angle)
    n = 0
    while y >= 0.0:
        speed = math.sqrt(vx * vx + vy * vy)
        ax, ay = -drag * speed * vx, -9.81 - drag * speed * vy
        x, y, vx, vy = x + 0.01 * vx, y + 0.01 * vy, vx + 0.01 * ax, vy + 0.01 * ay
        n += 1
    return n


def projectile_launch(trips):
    """``(v, angle, drag, height)`` landing after `trips` steps: a launch at angle 1.0
    from the ground, or below the ground (no step), or downwards (one step)."""
    if trips <= 1:
        return (1.0, -1.0, 0.05, -1.0 if trips == 0 else 0.0)
    v = 0.002  # (not 0: the speed's derivative is infinite at 0)
    while projectile_trips(v, 1.0, 0.05, 0.0) < trips:
        v += 0.002
    assert projectile_trips(v, 1.0, 0.05, 0.0) == trips
    return (v, 1.0, 0.05, 0.0)


WHILE_TRIPS = [0, 1, 2, 3, 4, 5, 7, 8, 9, 16, 17, 31, 32, 33, 64, 100]


@pytest.mark.parametrize("n", WHILE_TRIPS)
def test_while_projectile(n, ctz_runs):
    args = projectile_launch(n)
    close(s2sad.grad(zoo.projectile, wrt=(0, 1, 2))(*args),
          s2sad.grad(PLAIN.projectile, wrt=(0, 1, 2))(*args))
    assert zoo.projectile(*args) == PLAIN.projectile(*args)
    (ckpt,) = ctz_runs
    assert ckpt.n == n
    check_ctz_bounds(ckpt)


@pytest.mark.parametrize("n", WHILE_TRIPS)
def test_while_countdown(n, ctz_runs):
    close(s2sad.grad(zoo.newton_countdown)(2.0, n), s2sad.grad(PLAIN.newton_countdown)(2.0, n))
    (ckpt,) = ctz_runs
    assert ckpt.n == n
    check_ctz_bounds(ckpt)


@pytest.mark.parametrize("a, x0", [(4.0, 2.0), (4.0, 2.0 + 1e-9), (2.0, 1.5), (2.0, 2.0),
                                   (9.0, 100.0), (0.5, 1e6), (3.0, 1e-3)])
def test_while_newton_until_converged(a, x0, ctz_runs):
    close(s2sad.grad(zoo.newton_until, wrt=(0, 1))(a, x0, 1e-12),
          s2sad.grad(PLAIN.newton_until, wrt=(0, 1))(a, x0, 1e-12))
    v, g = s2sad.value_and_grad(zoo.newton_until)(a, x0, 1e-12)
    assert v == PLAIN.newton_until(a, x0, 1e-12)
    (ckpt, _) = ctz_runs
    check_ctz_bounds(ckpt)
    if x0 * x0 == a:
        assert ckpt.n == 0


def test_while_refusals():
    with pytest.raises(s2sad.CheckpointError) as info:
        s2sad.grad(zoo.bad_binomial_while)(1.0, 3)
    assert "number of iterations" in info.value.message
    assert info.value.source_line.strip() == \
        'while s2sad.checkpointed(x < n, schedule="binomial"):'


def test_while_marker_is_the_condition():
    assert s2sad.checkpointed(True) is True
    assert zoo.newton_until(2.0, 3.0, 1e-12) == PLAIN.newton_until(2.0, 3.0, 1e-12)


# ------------------------------------------------- grad(f, checkpoint=...)


@pytest.mark.parametrize("n", [0, 1, 2, 3, 8, 13])
@pytest.mark.parametrize("schedule, snapshots", [("ctz", None), ("binomial", None),
                                                 ("binomial", 2)])
def test_grad_checkpoint_option(n, schedule, snapshots):
    want = s2sad.grad(zoo.simulate, wrt=(0, 1))(2.0, 0.3, n)
    got = s2sad.grad(zoo.simulate, wrt=(0, 1), checkpoint=schedule,
                     snapshots=snapshots)(2.0, 0.3, n)
    close(got, want)
    v, g = s2sad.value_and_grad(zoo.simulate, wrt=(0, 1), checkpoint=schedule)(2.0, 0.3, n)
    assert v == zoo.simulate(2.0, 0.3, n)
    close(g, want)
    out, pullback = s2sad.vjp(zoo.simulate, 2.0, 0.3, n, checkpoint=schedule)
    close(pullback(1.0)[:2], want)
    close(s2sad.grad(zoo.simulate_marked, wrt=(0, 1), checkpoint=schedule)(2.0, 0.3, n),
          s2sad.grad(PLAIN.simulate_marked, wrt=(0, 1))(2.0, 0.3, n))


def test_which_loops_the_option_checkpoints():
    text = s2sad.source(zoo.simulate, wrt=(0, 1), checkpoint="binomial", snapshots=4)
    # the first loop (its inner loop in its step), the while loop (CTZ), the loop with
    # a break (CTZ) and the loop inside the branch; not the integer counter
    assert text.count(" = Binomial(4)") == 2 and text.count(" = CTZ()") == 2
    assert text.count(".forward(") == 2 and text.count(".reverse(") == 4
    assert text.count(".forward_while(") == 2 and "def simulate_test_3(state, args):" in text
    assert "def simulate_test_4(state, args):" in text
    assert "for j_1 in indices:" in text and "for j_2 in range(n):\n        count" in text
    assert "for j in range(2):" not in text.split("def simulate_step_1(")[0]
    marked = s2sad.source(zoo.simulate_marked, wrt=(0, 1), checkpoint="ctz")
    assert "Binomial(2)" in marked and "CTZ()" in marked
    assert "ckpt" not in s2sad.source(zoo.simulate, wrt=(0, 1))


def test_the_cache_keys_on_the_option(ctz_runs, tmp_path, monkeypatch):
    from s2sad.backend import diskcache

    def schedulers(checkpoint):
        before = len(ctz_runs)
        s2sad.grad(zoo.euler_plain_loop, checkpoint=checkpoint)(2.0, 0.3, 20)
        return len(ctz_runs) - before

    assert [schedulers(c) for c in (None, "ctz", None, "ctz", None)] == [0, 1, 0, 1, 0]
    monkeypatch.delenv("S2SAD_DISK_CACHE", raising=False)
    monkeypatch.delenv("S2SAD_CACHE_DIR", raising=False)
    monkeypatch.setattr(diskcache, "_setting", None)
    s2sad.enable_disk_cache(tmp_path / "cache")
    for rounds in range(2):  # the second round from the disk
        from s2sad.api import dispatch
        dispatch.forget_everything()
        assert [schedulers(c) for c in ("ctz", None, "ctz")] == [1, 0, 1]
    assert len(list((tmp_path / "cache").glob("*.json"))) == 2


def test_checkpoint_option_errors():
    with pytest.raises(s2sad.S2SADError, match="no checkpoint schedule 'revolve'"):
        s2sad.grad(zoo.simulate, checkpoint="revolve")
    with pytest.raises(s2sad.S2SADError, match="needs a schedule"):
        s2sad.grad(zoo.simulate, snapshots=3)
    with pytest.raises(s2sad.S2SADError, match="at least 1"):
        s2sad.grad(zoo.simulate, checkpoint="binomial", snapshots=0)
    with pytest.raises(s2sad.S2SADError, match="mode='tape'"):
        s2sad.grad(zoo.simulate, mode="tape", checkpoint="ctz")


# ------------------------------------------------------------ second derivatives
# Forward mode over the gradient cannot see into a scheduler's calls, so second
# derivatives run the gradient with every loop on its tape: the same function.


def gradient_differences(f, args, wrt, h=1e-5):
    """H[i][j] by central differences of s2sad.grad(f) along args[wrt[j]]."""
    g = s2sad.grad(f, wrt=wrt)
    columns = []
    for j in wrt:
        up, down = list(args), list(args)
        up[j] += h
        down[j] -= h
        columns.append((np.array(g(*up)) - np.array(g(*down))) / (2 * h))
    return np.array(columns).T


SECOND = [
    ("euler", (2.0, 0.3, 17, 2), (0, 1)),  # binomial, 2 snapshots
    ("euler_ctz", (2.0, 0.3, 17), (0, 1)),
    ("newton_until", (2.0, 3.0, 1e-12), (0, 1)),  # while
    ("projectile", projectile_launch(20), (0, 1, 2)),  # while, three parameters
    ("branches_and_calls", (0.4, 1.1, 10), (0, 1)),
    ("calls_checkpointed", (2.0, 0.3, 10), (0, 1)),  # the loops are in callees
]


@pytest.mark.parametrize("name, args, wrt", SECOND)
def test_hessian_of_checkpointed_loops(name, args, wrt, ctz_runs):
    got = s2sad.hessian(getattr(zoo, name), wrt=wrt)(*args)
    assert not ctz_runs  # second derivatives do not checkpoint
    assert np.array(got).any()  # (not the zeros forward mode once gave through ckpt)
    close(got, s2sad.hessian(getattr(PLAIN, name), wrt=wrt)(*args))
    np.testing.assert_allclose(np.array(got), gradient_differences(getattr(zoo, name), args,
                                                                   wrt), rtol=1e-6, atol=1e-8)


def test_hessian_and_hvp_of_an_array_loop():
    rng = np.random.default_rng(3)
    W, U, xs = rng.normal(size=(4, 4)) * 0.5, rng.normal(size=4), rng.normal(size=9)
    for f, extra in ((zoo.rnn, (2,)), (zoo.rnn_ctz, ())):
        H = s2sad.hessian(f, wrt=1)(W, U, xs, *extra)
        plain = getattr(PLAIN, f.__name__)
        close(H, s2sad.hessian(plain, wrt=1)(W, U, xs, *extra))
        v = rng.normal(size=4)
        close(s2sad.hvp(f, wrt=1)(W, U, xs, *extra, v), H @ v)


def test_grad_of_a_checkpointed_gradient():
    for n in (0, 1, 5, 17):
        want = gradient_differences(zoo.euler_ctz, (2.0, 0.3, n), (0,))[0][0]
        got = s2sad.grad(s2sad.grad(zoo.euler_ctz))(2.0, 0.3, n)
        assert got == pytest.approx(want, rel=1e-6, abs=1e-9)
        close(s2sad.grad(s2sad.grad(zoo.euler, wrt=1), wrt=0)(2.0, 0.3, n, 3),
              s2sad.grad(s2sad.grad(PLAIN.euler, wrt=1), wrt=0)(2.0, 0.3, n, 3))
    # grad(f, checkpoint=...) inside: the outer derivative runs the taped gradient
    for schedule in ("ctz", "binomial"):
        close(s2sad.grad(s2sad.grad(zoo.simulate, checkpoint=schedule, snapshots=2),
                         wrt=(0, 1))(2.0, 0.3, 8),
              s2sad.grad(s2sad.grad(zoo.simulate), wrt=(0, 1))(2.0, 0.3, 8))


def test_second_derivatives_do_not_take_checkpoint():
    with pytest.raises(s2sad.S2SADError, match=r"grad\(grad\(f\), checkpoint=\.\.\.\) is "
                                               "not supported") as info:
        s2sad.grad(s2sad.grad(zoo.euler_ctz), checkpoint="ctz")
    assert "Drop checkpoint=" in info.value.hint


def _marked_list_loop(x):
    xs = [x, 2.0 * x]
    for _ in s2sad.checkpointed(range(5)):
        xs = [v * v * 0.5 for v in xs]
    return sum(xs)


def test_second_derivatives_of_a_marked_loop_the_schedulers_refuse():
    """A marked loop the schedulers refuse (it carries a list made anew each
    iteration): the gradient says so, but second derivatives, which put every loop
    on its tape, differentiate it (they raised the gradient's CheckpointError)."""
    with pytest.raises(s2sad.CheckpointError):
        s2sad.grad(_marked_list_loop)(1.1)
    g = s2sad.grad(_marked_list_loop, mode="forward")
    want = (g(1.1 + 1e-5) - g(1.1 - 1e-5)) / 2e-5
    assert s2sad.hessian(_marked_list_loop)(1.1) == pytest.approx(want, rel=1e-6)
    assert s2sad.hvp(_marked_list_loop)(1.1, 2.0) == pytest.approx(2.0 * want, rel=1e-6)


# ------------------------------------------- carried arrays passed on, objects changed after

X3 = np.array([-0.89, -0.5, 0.3])
PASSED_ON = [  # (name, args, wrt, snapshot counts for a binomial marker or None)
    ("carried_unchanged", (X3,), (0,), (1, 2, 10)),
    ("carried_unchanged_ctz", (X3,), (0,), None),
    ("skip_rebind", (X3,), (0,), (1, 2, 10)),
    ("skip_rebind_while", (X3,), (0,), None),
    ("stop_rebind", (-X3,), (0,), None),
    ("grown_after", (0.01, 0.3), (0, 1), None),
    ("grown_after_for", (0.3, 0.2), (0, 1), (1, 2, 10)),
    ("written_after", (X3,), (0,), (1, 2, 10)),
    ("aliased_init", (X3,), (0,), (1, 2, 10)),
]


@pytest.mark.parametrize("n", [0, 1, 2, 3, 5, 8])
@pytest.mark.parametrize("name, first, wrt, counts", PASSED_ON)
def test_carried_arrays_passed_on_and_objects_changed_after(name, first, wrt, counts, n):
    """A carried array read by index keeps one adjoint array, which a step that passes
    the array on (``v = v``, `continue`, `break`) passes on too (the step's reverse
    zeroed it: the gradient lost every read after the loop); and a list or array the
    loop reads, or carries out, that changes in place after the loop is put back
    before the reverse sweep recomputes steps from it (they read the longer list)."""
    for s in counts or (None,):
        args = first + (n,) + ((s,) if s else ())
        want = flat(s2sad.grad(getattr(PLAIN, name), wrt=wrt)(*args))
        np.testing.assert_allclose(want, central(getattr(PLAIN, name), args, wrt),
                                   rtol=1e-6, atol=1e-8)
        check_three_ways(getattr(zoo, name), args, wrt, want)


@pytest.mark.parametrize("schedule, snapshots", [("ctz", None), ("binomial", 1),
                                                 ("binomial", 2), ("binomial", None)])
@pytest.mark.parametrize("name, first, wrt, counts", PASSED_ON)
def test_carried_arrays_passed_on_with_the_option(name, first, wrt, counts, schedule,
                                                  snapshots):
    for n in (0, 1, 3, 6):
        args = first + (n,) + ((2,) if counts else ())
        f = getattr(PLAIN, name)
        text = s2sad.source(f, wrt=wrt, example=args, checkpoint=schedule,
                            snapshots=snapshots)
        assert ".forward(" in text or ".forward_while(" in text
        want = flat(s2sad.grad(f, wrt=wrt)(*args))
        check_three_ways(f, args, wrt, want, checkpoint=schedule, snapshots=snapshots)
        # (the marked function keeps its own marks under the option)
        check_three_ways(getattr(zoo, name), args, wrt, want, checkpoint=schedule,
                         snapshots=snapshots)


def test_hessian_of_an_array_passed_on():
    x = np.array([0.5, 0.0, 0.24, -1.3])
    for n in (0, 1, 3):
        # (the taped loop whose reversed iterations do nothing lost the hand-over of the
        # array's adjoint to its initial value: NameError, and zeros through hessian)
        want = s2sad.grad(PLAIN.variance_passed_on)(x, n)
        np.testing.assert_allclose(want, central_diff(PLAIN.variance_passed_on, (x, n), 0),
                                   rtol=1e-6, atol=1e-8)
        check_three_ways(zoo.variance_passed_on, (x, n), (0,), want)
        H = s2sad.hessian(zoo.variance_passed_on)(x, n)
        close(H, s2sad.hessian(PLAIN.variance_passed_on)(x, n))
        assert np.abs(H).max() > 0.1
        np.testing.assert_allclose(H, gradient_differences1(zoo.variance_passed_on, x, n),
                                   rtol=1e-5, atol=1e-7)


def gradient_differences1(f, x, *rest, h=1e-5):
    g = s2sad.grad(f)
    cols = []
    for j in range(x.size):
        e = np.zeros_like(x)
        e[j] = h
        cols.append((g(x + e, *rest) - g(x - e, *rest)) / (2 * h))
    return np.array(cols).T


def _state_read_only_by_a_dead_line(x, s):
    s2 = np.sum(x)
    for i in s2sad.checkpointed(range(3), schedule="binomial"):
        s2 = x[i % 3] + x[i % 3]
    s5 = np.maximum(-1.25, s)
    for i in s2sad.checkpointed(range(0), snapshots=1):
        s5 = s2 + s2
    return np.sum(np.sin(x)) * s


def test_a_step_whose_state_adjoint_is_empty():
    """The second loop's state (`s2`) is read only by a line nothing needs: its step
    function's adjoint unpacks an empty state, ``() = bar``, which must go rather than
    be printed with no target (the array fuzzer found it as an IndentationError)."""
    x = np.array([1.1, 0.2, -0.8])
    got = s2sad.grad(_state_read_only_by_a_dead_line, wrt=(0, 1))(x, 0.7)
    want = central_diff(_state_read_only_by_a_dead_line, (x, 0.7), 0)
    assert np.allclose(got[0], want, rtol=1e-6, atol=1e-8)
    assert np.isclose(got[1], central_diff(_state_read_only_by_a_dead_line, (x, 0.7), 1))


def _leapfrog_of_lists(xs, vs, dt):
    for _ in s2sad.checkpointed(range(6)):
        xs = [x + dt * v for x, v in zip(xs, vs)]
        vs = [v - dt * x for x, v in zip(xs, vs)]
    return sum(x * x for x in xs) + vs[0]


def test_a_checkpointed_loop_that_carries_lists_made_anew_is_refused_as_such():
    with pytest.raises(s2sad.CheckpointError, match="carries a list .*made anew"):
        s2sad.grad(_leapfrog_of_lists, wrt=(0, 1, 2))([1.0, 2.0], [0.5, 0.1], 0.1)


def popped_in_a_loop(x):
    xs = [x * k for k in range(1, 13)]
    s = 0.0
    for i in range(4):
        s = s * 0.5 + xs.pop() * x
    return s


def popped_until_empty(x):
    xs = [x, 2.0 * x, 3.0 * x]
    s = 0.0
    while len(xs) > 0:
        s = s * 0.5 + xs.pop(0) * x
    return s


def popped_in_a_marked_loop(x):
    xs = [x * k for k in range(1, 13)]
    s = 0.0
    for i in s2sad.checkpointed(range(4), snapshots=2, schedule="binomial"):
        s = s * 0.5 + xs.pop() * x
    return s


@pytest.mark.parametrize("f", [popped_in_a_loop, popped_until_empty])
@pytest.mark.parametrize("schedule, snapshots", [("ctz", None), ("binomial", 2)])
def test_a_loop_that_pops_keeps_its_tape(f, schedule, snapshots):
    # recomputing its steps from a snapshot would pop other items: the loop is not
    # checkpointed (a marker on it is refused)
    want = s2sad.grad(f)(0.7)
    assert want == pytest.approx(central_diff(f, (0.7,), 0), rel=1e-7)
    got = s2sad.grad(f, checkpoint=schedule, snapshots=snapshots)(0.7)
    assert got == pytest.approx(want, rel=1e-12)
    assert s2sad.vjp(f, 0.7, checkpoint=schedule)[1](1.0)[0] == pytest.approx(want, rel=1e-12)


def test_a_marked_loop_that_pops_is_refused():
    with pytest.raises(s2sad.CheckpointError, match="changes `xs` in place") as info:
        s2sad.grad(popped_in_a_marked_loop)(0.7)
    assert info.value.source_line.strip() == "s = s * 0.5 + xs.pop() * x"


def _adds_into_the_carried_array(x):
    a = x * 1.0
    for i in s2sad.checkpointed(range(2)):
        np.add.at(a, np.array([i, i + 1]), x[i] * a[i + 1])
        a = a * 1.0
    return np.sum(a * a)


def _adds_into_it_unmarked(x):
    a = x * 1.0
    for i in range(2):
        np.add.at(a, np.array([i, i + 1]), x[i] * a[i + 1])
        a = a * 1.0
    return np.sum(a * a)


def test_np_add_at_into_a_carried_array():
    """``np.add.at`` writes into the array the checkpointed loop carries, which its
    snapshots hold: the recomputed iterations read the written values (a wrong
    gradient, as under ``checkpoint=`` for the unmarked loop). Refused where the loop
    is marked, like ``u[i] += ...``; the unmarked loop keeps its tape."""
    x = np.array([0.3, 0.7, 1.1, 0.45])
    with pytest.raises(s2sad.CheckpointError, match="changes `a` in place") as info:
        s2sad.grad(_adds_into_the_carried_array)(x)
    assert "np.add.at(a" in info.value.source_line
    want = central_diff(_adds_into_it_unmarked, (x,), 0)
    for options in ({}, {"checkpoint": "ctz"}, {"checkpoint": "binomial", "snapshots": 2}):
        got = s2sad.grad(_adds_into_it_unmarked, **options)(x)
        assert np.allclose(got, want, rtol=1e-6, atol=1e-8), options
