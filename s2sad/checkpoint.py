"""Checkpointing schedules for reversing long loops in little memory.

This module imports nothing else from s2sad: the gradient code s2sad emits for a
checkpointed loop calls it, and a derivative pasted into another project needs only
this file beside `runtime.py`.

A loop of n steps takes the loop-carried values `state` through one step per index
``i``; ``step(indices, state, args)`` runs the steps of a stretch of consecutive
indices (a slice of the loop's range) and returns the state after them. Reversing
it needs, for each step from the last to the first, the state the step started from;
keeping all n states is what a tape does. A schedule keeps a few snapshots instead and
recomputes the states in between during the reverse sweep:

* `CTZ` (online, n need not be known): the state before step k is kept until a later
  state with more trailing zero bits in its position replaces it, so the snapshots
  form a binary hierarchy (positions 0, 8, 12, 14, 15 after 16 steps): at most
  floor(log2 n) + 1 snapshots, and each reversed step recomputes about log2 n / 2
  steps on average. It serves ``while`` loops.
* `Binomial` (offline, n known when the loop starts): Griewank and Walther's revolve.
  With s snapshots (the loop's initial state among them) revolve reverses n steps with
  the fewest forward steps possible, t*n - C(s+t, s+1) (`binomial_cost`), t the
  smallest integer with C(s+t, s) >= n (`repetitions`). Revolve leaves the last step
  to the reversal of that step (which runs it anyway); here the forward sweep runs it
  too, since the code after the loop needs the loop's output before the reverse sweep
  starts. So `step` runs t*n - C(s+t, s+1) + 1 steps for n >= 1 (`binomial_steps`),
  the fewest any schedule can with the output computed first: dropping its runs of the
  last step (no reversal starts from the state after it) leaves one of revolve's
  schedules, with one step fewer at least. `step` runs each step at most t times
  (n >= 2), the forward sweep's run included, and `step_bar` runs each once more. As
  in revolve, the state the current step works on is not counted among the s
  snapshots.

Both drivers have the same shape: ``forward(step, indices, state, args)`` runs the
loop, keeps its snapshots and returns the final state; ``reverse(step_bar, bar)``
walks the steps backwards, calling ``bar = step_bar(i, state_before_step, args, bar)``,
and returns the last `bar` (``reverse(step_bar, bar, quiet)`` recomputes with
`quiet`, the step without what it prints or checks, so that runs once per step).
`bar` is opaque here: the compiler passes the adjoints of
the loop-carried values followed by the accumulated adjoints of the values the loop
only reads. `steps` counts the steps `step` runs and `peak` the most snapshots held
at once, for tests and benchmarks.

The drivers cost little beside the steps: where the schedule is known in advance
they run each stretch of steps between two snapshots in one call of `step`, whose
loop runs the steps without going through Python calls per step (CTZ computes the
positions its hierarchy keeps, `_kept_between`, rather than keeping and dropping a
state at every step; a ``while`` loop's forward sweep, which tests before every
step, calls ``step((k,), state, args)`` for each, and so does a ``for`` loop with a
``break``, with its index), and revolve's reversal of a segment of at most
`REPLAYED` steps, which depends only on its length and the snapshots it may use, is
worked out once into a flat program (`_program`, cached) and replayed. Programs of
short segments keep that cache to a few tens of KiB; a program for all n steps would
cost memory in proportion to n, which is what checkpointing avoids. A segment of any
length with a snapshot to spare for each of its states but the last, where revolve
keeps them all, runs as one loop (`_sweep`): with many snapshots most of the reverse
sweep is such segments, and one recursive call per step there cost more than the
recomputation the snapshots save (100 snapshots were slower than 30 at 10^5 steps).
"""

from __future__ import annotations

from functools import lru_cache


def checkpointed(iterable, snapshots=None, schedule="ctz"):
    """Marks a loop for checkpointing: ``for i in checkpointed(range(n), snapshots=10,
    schedule="binomial"):``, or ``while checkpointed(x > tol):`` (CTZ only: a while
    loop's trip count is not known when it starts). Called directly, the function runs
    the plain loop (the marker returns `iterable`, the range or the condition,
    itself); `grad` reverses it with the schedule."""
    if schedule not in SCHEDULES:
        raise ValueError(f"schedule must be one of {', '.join(map(repr, SCHEDULES))}, "
                         f"not {schedule!r}")
    return iterable


SCHEDULES = ("ctz", "binomial")


def schedule(name, snapshots=None):
    """The driver object for one run of a checkpointed loop."""
    if name == "binomial":
        return Binomial(10 if snapshots is None else snapshots)
    if name == "ctz":
        return CTZ()
    raise ValueError(f"unknown checkpointing schedule {name!r}")


def _rank(k):
    """The lowest set bit of position k (its trailing zeros, as a power of two);
    position 0 outranks every other."""
    return k & -k if k else 1 << 62


def _kept_between(j, k):
    """The positions in (j, k] the CTZ hierarchy holds after stepping from j to k,
    ascending: each the highest-ranked position after the one before it (clearing
    k's low bits while the result stays above it), so k is always the last.
    `j` outranks every position in (j, k]."""
    out = []
    while j < k:
        p = k
        while p & (p - 1) > j:
            p &= p - 1
        out.append(p)
        j = p
    return out


class CTZ:
    def __init__(self, snapshots=None):
        self.stack = []  # (rank, position, state), ranks strictly decreasing upwards
        self.steps = self.peak = 0

    def forward(self, step, indices, state, args):
        """n known: only the states the hierarchy still holds after the last step
        are kept, and the steps between them run in one loop each."""
        self.step, self.indices, self.args = step, indices, args
        n = self.n = len(indices)
        if n:
            stack = self.stack
            stack.append((_rank(0), 0, state))
            j = 0
            for p in _kept_between(0, n - 1):
                state = step(indices[j:p], state, args)
                stack.append((p & -p, p, state))
                j = p
            state = step(indices[n - 1:], state, args)
            self.peak = max(self.peak, len(stack))
        self.steps += n
        return state

    def forward_while(self, step, test, state, args, indices=None):
        """A ``while`` loop: `test(state, args)` decides whether step k runs. The
        state before each step is kept, dropping the snapshots it outranks. With
        `indices`, a ``for`` loop over them that may stop early (a ``break``): step k
        runs index ``indices[k]``, while there is one and `test` says so."""
        self.step, self.args = step, args
        stack = self.stack
        pop, push = stack.pop, stack.append
        peak = self.peak
        stop = len(indices) if indices is not None else -1
        k = 0
        while k != stop and test(state, args):
            rank = k & -k if k else 1 << 62
            while stack and stack[-1][0] < rank:
                pop()
            push((rank, k, state))
            if len(stack) > peak:
                peak = len(stack)
            state = step((k,) if indices is None else (indices[k],), state, args)
            k += 1
        self.steps += k
        self.n, self.peak = k, peak
        self.indices = range(k) if indices is None else indices[:k]
        return state

    def reverse(self, step_bar, bar, quiet=None):
        if quiet is not None:
            self.step = quiet
        step, indices, args, stack = self.step, self.indices, self.args, self.stack
        for k in range(self.n - 1, -1, -1):
            _, j, state = stack[-1]
            if j == k:
                stack.pop()
            else:  # recompute from the nearest snapshot, keeping the hierarchy
                self.steps += k - j
                if j == k - 1:  # (half of them: one step, nothing to keep)
                    state = step(indices[j:k], state, args)
                else:
                    for p in _kept_between(j, k):
                        state = step(indices[j:p], state, args)
                        if p < k:
                            stack.append((p & -p, p, state))
                        j = p
                if len(stack) >= self.peak:  # the state at k counts while it is used
                    self.peak = len(stack) + 1
            bar = step_bar(indices[k], state, args, bar)
        return bar


def _binom(n, k):
    if k < 0 or k > n:
        return 0
    out = 1
    for i in range(min(k, n - k)):
        out = out * (n - i) // (i + 1)
    return out


def repetitions(steps, snapshots):
    """The smallest t with C(snapshots + t, snapshots) >= steps."""
    t = 0
    while _binom(snapshots + t, snapshots) < steps:
        t += 1
    return t


@lru_cache(maxsize=4096)
def binomial_cost(steps, snapshots):
    """Revolve's minimal number of forward steps to reverse `steps` steps with
    `snapshots` snapshots (one of them holding the initial state), Griewank's
    t*l - C(s+t, s+1): the reversal of a step runs that step itself, so reversing one
    step costs none."""
    if steps <= 1:
        return 0
    t = repetitions(steps, snapshots)
    return t * steps - _binom(snapshots + t, snapshots + 1)


def binomial_steps(steps, snapshots):
    """The steps `Binomial`'s step function runs for a loop of `steps` steps: revolve's
    minimum and the last step, which the forward sweep runs for the loop's output."""
    return binomial_cost(steps, snapshots) + (steps > 0)


@lru_cache(maxsize=4096)
def _split(steps, snapshots):
    """Where to take the next snapshot: m minimising m + cost(steps - m) with one
    snapshot fewer + cost(m). The cost is convex in m, so a binary search finds it."""
    def cost(m):
        return m + binomial_cost(steps - m, snapshots - 1) + binomial_cost(m, snapshots)

    lo, hi = 1, steps - 1
    while lo < hi:
        mid = (lo + hi) // 2
        if cost(mid + 1) < cost(mid):
            lo = mid + 1
        else:
            hi = mid
    return lo


REPLAYED = 32  # segments up to this many steps replay a cached program


@lru_cache(maxsize=1024)
def _program(n, free):
    """Revolve's reversal of a segment of n steps with `free` snapshots besides the
    one holding its first state, as a flat program: ``(ops, steps, held)``.

    Each op ``(src, lo, hi, dst)`` advances the state in slot `src` (the state at
    position `lo` of the segment) to position `hi`; then ``dst > 0`` stores it in slot
    `dst`, ``dst == 0`` reverses step `hi` from it. Slot 0 holds the segment's first
    state; slot d the snapshot taken d levels down. `steps` counts the step calls and
    `held` the most slots above 0 in use at once. The program depends on n and `free`
    only, not on where the segment starts, so it is built once and replayed."""
    ops = []
    _build_program(ops, 0, n, 0, free)
    return (tuple(ops), sum(hi - lo for _, lo, hi, _ in ops),
            max((dst for _, _, _, dst in ops), default=0))


def _build_program(ops, lo, n, slot, free):
    """`_program`'s operations for `n` steps from `lo` with `free` slots above `slot`,
    appended to `ops` (a function of the module, not a closure calling itself: that
    is a reference cycle per call)."""
    while n > 1 and free > 0:
        m = _split(n, free + 1)
        ops.append((slot, lo, lo + m, slot + 1))
        _build_program(ops, lo + m, n - m, slot + 1, free - 1)
        n = m
    ops.extend((slot, lo, k, 0) for k in range(lo + n - 1, lo - 1, -1))


class Binomial:
    def __init__(self, snapshots=10):
        if snapshots < 1:
            raise ValueError("binomial checkpointing needs at least one snapshot")
        self.snapshots = snapshots
        self.steps = self.peak = 0
        self.held = self.segments = 0

    def forward(self, step, indices, state, args):
        """Runs every step, keeping the snapshots revolve's first sweep would keep:
        the loop runs in one stretch from each of them to the next."""
        self.step, self.indices, self.args = step, indices, args
        n = self.n = len(indices)
        self.kept = {}
        self.working = False  # revolve's first sweep ends standing at step n - 1
        if not n:
            return state
        self.kept[0] = state
        a, left, free = 0, n, self.snapshots - 1
        while left > 1 and free > 0:
            m = _split(left, free + 1)
            state = step(indices[a:a + m], state, args)
            a, left, free = a + m, left - m, free - 1
            self.kept[a] = state
        if left > 1:
            state = step(indices[a:n - 1], state, args)
            self.working, self.at_last = True, state
        state = step(indices[n - 1:], state, args)
        self.steps += n
        self.held = self.peak = len(self.kept)
        return state

    def reverse(self, step_bar, bar, quiet=None):
        if quiet is not None:
            self.step = quiet
        if not self.n:
            return bar
        return self._reverse(step_bar, 0, self.n, self.kept.pop(0), self.snapshots - 1, bar)

    def _reverse(self, step_bar, a, n, state, free, bar):
        """Reverses steps a .. a+n-1 from `state` (the state at a, held in a snapshot),
        with `free` more snapshots to use. Revolve's recursion, its calls kept on a
        list: one as deep as the snapshots would pass Python's limit at about 1,000.
        An entry ``(a, n, state, free, called)`` is a segment to reverse: a call of
        the recursion (`called`), or what is left of one after its right part;
        ``None`` gives back the snapshot of a right part reversed. `segments` counts
        the calls."""
        step, indices, args, kept = self.step, self.indices, self.args, self.kept
        todo = [(a, n, state, free, True)]
        while todo:
            entry = todo.pop()
            if entry is None:
                self.held -= 1
                continue
            a, n, state, free, called = entry
            if called:
                self.segments += 1
                if not kept and not self.working:
                    if free >= n - 2:
                        bar = self._sweep(step_bar, a, n, state, bar)
                        continue
                    if n <= REPLAYED:
                        bar = self._replay(step_bar, a, n, state, free, bar)
                        continue
            if n > 1 and free > 0:
                m = _split(n, free + 1)
                mid = kept.pop(a + m, None)
                if mid is None:
                    mid = step(indices[a:a + m], state, args)
                    self.steps += m
                    self.held += 1
                    if self.held > self.peak:
                        self.peak = self.held
                # (the right part first, then its snapshot goes, then the left part)
                todo += [(a, m, state, free, False), None, (a + m, n - m, mid, free - 1, True)]
                continue
            bar = self._from_state(step_bar, a, n, state, bar)
        return bar

    def _from_state(self, step_bar, a, n, state, bar):
        """Reverses steps a .. a+n-1 with no snapshot to spare: each from `state`."""
        step, indices, args = self.step, self.indices, self.args
        last = a + n - 1
        if last == self.n - 1 and self.working:
            bar = step_bar(indices[last], self.at_last, args, bar)
            self.working, self.at_last = False, None
            last -= 1
        self.steps += (last - a) * (last - a + 1) // 2
        for k in range(last, a - 1, -1):
            at_k = step(indices[a:k], state, args) if k > a else state
            bar = step_bar(indices[k], at_k, args, bar)
        return bar

    def _sweep(self, step_bar, a, n, state, bar):
        """`_reverse` where the snapshots to spare hold every state of the segment but
        its last (``free >= n - 2``): revolve then runs the segment once keeping each
        state (n - 1 steps, a snapshot after each but the last, which is reversed as
        it is reached), one recursive call per step in `_reverse`, a loop here."""
        step, indices, args = self.step, self.indices, self.args
        states = [state]
        for k in range(a, a + n - 1):
            state = step((indices[k],), state, args)
            states.append(state)
        self.steps += n - 1
        if self.held + n - 2 > self.peak:
            self.peak = self.held + n - 2
        for k in range(a + n - 1, a - 1, -1):
            bar = step_bar(indices[k], states.pop(), args, bar)
        return bar

    def _replay(self, step_bar, a, n, state, free, bar):
        """`_reverse` by the segment's cached program."""
        ops, steps, held = _program(n, free)
        step, args = self.step, self.args
        seg = self.indices[a:a + n]
        slots = [state] * (held + 1)
        for src, lo, hi, dst in ops:
            at = slots[src]
            if lo < hi:  # (most reversals start from the slot's own state)
                at = step(seg[lo:hi], at, args)
            if dst:
                slots[dst] = at
            else:
                bar = step_bar(seg[hi], at, args, bar)
        self.steps += steps
        if self.held + held > self.peak:
            self.peak = self.held + held
        return bar
