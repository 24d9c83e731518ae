"""Checkpointing schedules for reversing long loops in little memory.

This module imports nothing else from s2sad: the gradient code s2sad emits for a
checkpointed loop calls it, and a derivative pasted into another project needs only
this file beside `runtime.py`.

A loop of n steps is ``state = step(i, state, args)`` for each index ``i``. Reversing
it needs, for each step from the last to the first, the state the step started from;
keeping all n states is what a tape does. A schedule keeps a few snapshots instead and
recomputes the states in between during the reverse sweep:

* `CTZ` (online, n need not be known): the state before step k is kept until a later
  state with more trailing zero bits in its position replaces it, so the snapshots
  form a binary hierarchy (positions 0, 8, 12, 14, 15 after 16 steps): at most
  floor(log2 n) + 1 snapshots, and each reversed step recomputes about log2 n / 2
  steps on average. It serves ``while`` loops.
* `Binomial` (offline, n known when the loop starts): Griewank and Walther's revolve.
  With s snapshots (the loop's initial state among them) it reverses n steps with the
  fewest forward steps possible, t*n - C(s+t, s+1), t the smallest integer with
  C(s+t, s) >= n; every step is recomputed at most t times. As in revolve, the state
  the current step works on is not counted among the s snapshots.

Both drivers have the same shape: ``forward(step, indices, state, args)`` runs the
loop, keeps its snapshots and returns the final state; ``reverse(step_bar, bar)``
walks the steps backwards, calling ``bar = step_bar(i, state_before_step, args, bar)``,
and returns the last `bar`. `bar` is opaque here: the compiler passes the adjoints of
the loop-carried values followed by the accumulated adjoints of the values the loop
only reads. `steps` counts calls of `step` and `peak` the most snapshots held at
once, for tests and benchmarks.
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


class CTZ:
    def __init__(self, snapshots=None):
        self.stack = []  # (rank, position, state), ranks strictly decreasing upwards
        self.steps = self.peak = 0

    def keep(self, k, state):
        """Keep the state at position k, dropping the snapshots it outranks."""
        stack = self.stack
        rank = k & -k if k else 1 << 62
        while stack and stack[-1][0] < rank:
            stack.pop()
        stack.append((rank, k, state))
        if len(stack) > self.peak:
            self.peak = len(stack)

    def forward(self, step, indices, state, args):
        self.step, self.indices, self.args = step, indices, args
        keep = self.keep
        for k, i in enumerate(indices):
            keep(k, state)
            state = step(i, state, args)
        self.steps += len(indices)
        self.n = len(indices)
        return state

    def forward_while(self, step, test, state, args):
        """A ``while`` loop: `test(state, args)` decides whether step k runs."""
        self.step, self.args = step, args
        k = 0
        while test(state, args):
            self.keep(k, state)
            state = step(k, state, args)
            k += 1
        self.steps += k
        self.n, self.indices = k, range(k)
        return state

    def reverse(self, step_bar, bar):
        step, indices, args, stack, keep = self.step, self.indices, self.args, self.stack, \
            self.keep
        for k in range(self.n - 1, -1, -1):
            _, j, state = stack[-1]
            if j < k:  # recompute from the nearest snapshot, keeping the hierarchy
                self.steps += k - j
                while j < k:
                    state = step(indices[j], state, args)
                    j += 1
                    keep(j, state)
            stack.pop()
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
    `snapshots` snapshots (one of them holding the initial state)."""
    if steps <= 1:
        return 0
    t = repetitions(steps, snapshots)
    return t * steps - _binom(snapshots + t, snapshots + 1)


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


class Binomial:
    def __init__(self, snapshots=10):
        if snapshots < 1:
            raise ValueError("binomial checkpointing needs at least one snapshot")
        self.snapshots = snapshots
        self.steps = self.peak = 0
        self.held = 0

    def advance(self, state, a, b):
        step, indices, args = self.step, self.indices, self.args
        for k in range(a, b):
            state = step(indices[k], state, args)
        self.steps += b - a
        return state

    def forward(self, step, indices, state, args):
        """Runs every step, keeping the snapshots revolve's first sweep would keep."""
        self.step, self.indices, self.args = step, indices, args
        n = len(indices)
        wanted = {}  # position -> free snapshots left below it
        a, left, free = 0, n, self.snapshots - 1
        while left > 1 and free > 0:
            m = _split(left, free + 1)
            a, left, free = a + m, left - m, free - 1
            wanted[a] = True
        self.kept = {0: state} if n else {}
        self.working = None
        for k, i in enumerate(indices):
            if k in wanted:
                self.kept[k] = state
            if k == n - 1 and left > 1:
                self.working = state  # where revolve's first sweep would stand
            state = step(i, state, args)
        self.steps += n
        self.held = self.peak = len(self.kept)
        self.n = n
        return state

    def reverse(self, step_bar, bar):
        if not self.n:
            return bar
        return self._reverse(step_bar, 0, self.n, self.kept.pop(0), self.snapshots - 1, bar)

    def _reverse(self, step_bar, a, n, state, free, bar):
        """Reverses steps a .. a+n-1 from `state` (the state at a, held in a snapshot),
        with `free` more snapshots to use."""
        indices, args = self.indices, self.args
        while n > 1 and free > 0:
            m = _split(n, free + 1)
            mid = self.kept.pop(a + m, None)
            if mid is None:
                mid = self.advance(state, a, a + m)
                self.held += 1
                self.peak = max(self.peak, self.held)
            bar = self._reverse(step_bar, a + m, n - m, mid, free - 1, bar)
            self.held -= 1
            n = m
        for k in range(a + n - 1, a - 1, -1):  # no snapshot to spare: from `state` each time
            if k == self.n - 1 and self.working is not None:
                at_k, self.working = self.working, None
            else:
                at_k = self.advance(state, a, k)
            bar = step_bar(indices[k], at_k, args, bar)
        return bar
