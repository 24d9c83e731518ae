"""Reverse mode on a Wengert list: an independent witness for the compiler.

Contract
--------
* `Tape` is the list of operations in the order they ran. Node ``i`` stores its
  parents' indices and either their local partial derivatives (scalar operations:
  the rule table's reverse rule called with ``out_bar = 1``) or a pullback (array
  operations: the rule itself, called with the adjoint). Adjoints are not stored on
  the tape: `Tape.backward(i)` makes one sweep from node ``i`` down to node 0 and
  returns a fresh list of adjoints (``None`` for nodes the output does not depend
  on), so one tape serves several outputs and can be swept any number of times.
* `Var` is a traced value on a tape (see `traced.Traced` for what it supports).
* `trace(f, args, wrt)` runs `f` once with the `wrt` arguments traced (a float
  becomes a `Var`, a list of floats a list of `Var`, an ndarray one array `Var`)
  and returns a `Recording` (tape, traced arguments, output).
* `tape_grad(f, args, wrt=0, kwargs=None)` returns ``(value, gradient)``: `wrt` is a
  position, a parameter name or a tuple of them; a tuple gives a tuple of gradients,
  one per entry (a list for a list argument, an array for an array argument).

Derivatives of operations the output does not depend on are never needed: a rule
that fails (``sqrt`` at 0) raises `EngineError` only if the sweep reaches it. Anything
the engine cannot follow raises `EngineError` (an `S2SADError`) naming the operation.
This module imports nothing from the compiler pipeline.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from . import args as args_mod
from .shim import run
from .primitives import (EngineError, call_rule, describe, undefined)
from .traced import Traced, held, part_term, traced_parts


class _Failed:
    """Partials a rule could not compute; raised if the backward sweep needs them."""

    __slots__ = ("error",)

    def __init__(self, error):
        self.error = error


class Tape:
    """The Wengert list (see the module docstring)."""

    def __init__(self):
        self.parents: list[tuple] = []
        self.partials: list = []  # tuple of numbers, _Failed, or None (use pullback)
        self.pullbacks: list = []
        self.labels: list[str] = []
        self.kept: dict = {}  # id of a constant array -> (it, its copy): `snapshot`

    def __len__(self):
        return len(self.parents)

    def push(self, value, parents=(), partials=(), pullback=None, label="input") -> "Var":
        self.parents.append(tuple(parents))
        self.partials.append(partials)
        self.pullbacks.append(pullback)
        self.labels.append(label)
        return Var(value, self, len(self.parents) - 1)

    def snapshot(self, array):
        """The constant `array` an operation reads, as it is now, for its pullback: a
        copy, made again only where the array has changed since the last one (an
        accumulator or a buffer written in place after the read, whose pullback must
        see the values it was computed with)."""
        kept = self.kept.get(id(array))  # (which holds `array`: its id is not reused)
        if kept is not None:
            try:
                if np.array_equal(kept[1], array, equal_nan=array.dtype.kind in "fc"):
                    return kept[1]
            except TypeError:  # (an array of objects or strings: copied again)
                pass
        copy = array.copy()
        self.kept[id(array)] = (array, copy)
        return copy

    def leaf(self, value, label="input") -> "Var":
        return self.push(value, label=label)

    def backward(self, output: int, seed=1.0, on_visit=None) -> list:
        """Adjoints of every node with respect to node `output` (seeded with `seed`).
        `on_visit(i)` is called once for every node the sweep processes."""
        adj = [None] * len(self.parents)
        adj[output] = seed
        for i in range(output, -1, -1):
            a = adj[i]
            if a is None:
                continue
            if on_visit is not None:
                on_visit(i)
            parents = self.parents[i]
            if not parents:
                continue
            partials = self.partials[i]
            if partials is None:
                terms = self.pullbacks[i](a)
            elif isinstance(partials, _Failed):
                raise partials.error
            else:
                terms = [w * a for w in partials]
            for p, t in zip(parents, terms):
                if t is not None:
                    adj[p] = t if adj[p] is None else adj[p] + t
        return adj

    def __repr__(self):
        return f"<Tape of {len(self)} nodes>"


class Var(Traced):
    """A value recorded on a `Tape` at position `index`."""

    __slots__ = ("tape", "index")
    engine = "tape"
    mode = "reverse"

    def __init__(self, value, tape: Tape, index: int):
        self.value = value
        self.tape = tape
        self.index = index

    @classmethod
    def apply(cls, key, fn, args, options=None, elementwise=False):
        out, primals, rule, used = cls.evaluate(key, fn, args, options or {})
        if rule is None:
            return held(out)
        options = options or {}
        # (the traced inputs, and the traced items of list inputs: np.stack([a, b]))
        parts = traced_parts(args, used, cls)
        tape = parts[0][2].tape
        if any(v.tape is not tape for _, _, v in parts):
            raise EngineError(f"{describe(key)} mixes values traced on two different tapes")
        parents = [v.index for _, _, v in parts]
        # (the pullback keeps where each term goes, not the traced values: a temporary
        # nothing reads any more must not stay alive, see `traced.shared`)
        parts = [(i, k) for i, k, _ in parts]
        label = describe(key)
        if isinstance(out, (tuple, list)):  # (eigh, np.split: a node per part of the result)
            return held(_parts_of(out, [tape.push(
                part, parents, None, _part_pullback(rule, key, primals, options, out, parts, j),
                label=f"{label}[{j}]") for j, part in enumerate(out)]))
        if not isinstance(out, np.ndarray) and not any(isinstance(p, np.ndarray) for p in primals):
            try:
                terms = call_rule(rule, primals, options, out, 1.0)
                partials = tuple(part_term(terms, i, k) for i, k in parts)
            except (ArithmeticError, ValueError) as exc:
                partials = _Failed(undefined(key, primals, exc))
            return held(tape.push(out, parents, partials, label=label))

        # (the plain values the pullback reads as they are now: arrays, and lists and
        # tuples holding numbers and arrays, copied where they may change after)
        primals = [p if isinstance(a, Var) else _frozen(tape, a, p)
                   for a, p in zip(args, primals)]

        wanted = {i for i, _ in parts}

        def pullback(g):
            try:
                terms = call_rule(rule, primals, options, out, g, wanted)
            except (ArithmeticError, ValueError) as exc:
                raise undefined(key, primals, exc) from None
            return [part_term(terms, i, k) for i, k in parts]

        return held(tape.push(out, parents, None, pullback, label=label))

    def _take(self, value, result):
        """(see `Traced._become`: ``x -= v`` on an array)"""
        self.value = value
        self.index = result.index if isinstance(result, Var) and result.tape is self.tape \
            else self.tape.push(value, label="constant").index


def _frozen(tape, arg, primal):
    """`primal`, the value of the input `arg` that is not traced itself, as the tape
    keeps it for a pullback: a plain array copied (`Tape.snapshot`), a list or a
    tuple rebuilt with its plain items so (``np.interp(w, xp, fp)`` of a list `fp`
    written into afterwards; ``multi_dot([C, C, w])`` of an array `C`), its traced
    items' values as they are."""
    if type(primal) is np.ndarray:
        return tape.snapshot(primal)
    if type(primal) in (list, tuple) and type(arg) in (list, tuple) and len(arg) == len(primal):
        return type(primal)(p if isinstance(a, Var) else _frozen(tape, a, p)
                            for a, p in zip(arg, primal))
    return primal


def _part_pullback(rule, key, primals, options, out, parts, j):
    """The pullback of part `j` of a result that is a tuple: the rule with that
    part's adjoint and 0.0 for the others'."""
    def pullback(g):
        seeds = tuple(g if i == j else 0.0 for i in range(len(out)))
        try:
            terms = call_rule(rule, primals, options, out, seeds)
        except (ArithmeticError, ValueError) as exc:
            raise undefined(key, primals, exc) from None
        return [part_term(terms, i, k) for i, k in parts]

    return pullback


def _parts_of(out, parts):
    """`parts` in a tuple of `out`'s type (a named tuple: EighResult), or a list."""
    return type(out)(*parts) if hasattr(out, "_fields") else type(out)(parts)


def _snapshot(traced):
    """Copies of the traced arguments as they start (a Var, a list of Vars): what
    the function does to them in place (``x -= v``) does not move their nodes."""
    if isinstance(traced, list):
        return [_snapshot(v) for v in traced]
    return Var(traced.value, traced.tape, traced.index) if isinstance(traced, Var) else traced


def dup(value):
    """A new node equal to `value` with partial 1 (how the dup stage's copies look on
    a tape, so each copy has its own adjoint); tuples are copied element by element,
    lists and plain values are returned as they are (a list is one shared object)."""
    if isinstance(value, Var):
        if isinstance(value.value, np.ndarray):
            return value.tape.push(value.value, (value.index,), None, lambda g: [g], "dup")
        return value.tape.push(value.value, (value.index,), (1.0,), label="dup")
    if isinstance(value, tuple):
        return tuple(dup(v) for v in value)
    return value


@dataclass
class Recording:
    tape: Tape
    inputs: list  # the traced form of each wrt argument, in wrt order
    positions: list  # their positions
    output: object  # what the function returned (traced or not)


def trace(f, args, wrt=0, kwargs=None) -> Recording:
    """Run `f` once with the `wrt` arguments on a fresh tape."""
    args = tuple(args)
    positions, _ = args_mod.wrt_positions(f, wrt, len(args))
    args_mod.check_values(f, args, positions)
    tape = Tape()
    traced = list(args)
    for pos in positions:
        traced[pos] = args_mod.lift(args[pos], tape.leaf)
    inputs = [_snapshot(traced[p]) for p in positions]
    out = run(f, traced, args, kwargs, "tape")
    return Recording(tape, inputs, positions, out)


def gradient_of(inputs, adj):
    """The adjoints of traced inputs (a Var, a list of Vars) from a `backward` result."""
    if isinstance(inputs, list):
        return [gradient_of(v, adj) for v in inputs]
    got = None if adj is None else adj[inputs.index]
    if isinstance(inputs.value, np.ndarray):
        return np.zeros_like(inputs.value) if got is None else \
            np.broadcast_to(np.asarray(got, dtype=float), inputs.value.shape).copy()
    return 0.0 if got is None else float(got)


def tape_grad(f, args, wrt=0, kwargs=None):
    """``(f(*args), gradient)`` by reverse mode on a tape (see the module docstring)."""
    rec = trace(f, args, wrt, kwargs)
    out = args_mod.scalar_output(f, rec.output, "tape")
    adj = rec.tape.backward(out.index) if isinstance(out, Var) else None
    grads = tuple(gradient_of(x, adj) for x in rec.inputs)
    value = out.value if isinstance(out, Traced) else out
    return value, grads if isinstance(wrt, tuple) else grads[0]
