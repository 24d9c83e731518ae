"""checkpointing: reverse mode's checkpointed loops.

Owns `Step` (the two functions a checkpointed loop's scheduler drives), `BROKE` (the
flag a loop with a ``break`` carries), `has_break` (does a loop body break?), and
`CheckpointedLoops`, the methods of `reverse`'s transform that build a checkpointed
loop: its forward sweep ``ckpt.forward(step, ...)``, its step functions, and its
reverse sweep ``ckpt.reverse(step_bar, bar)``, and that refuse what the step
functions cannot do (`CheckpointError`), a body that draws random numbers among it
(its recomputed iterations would draw others). The class is a mixin: its methods read the
state of `reverse._Transform` (the tapes, the active names, the adjoint blocks being
built) and call its sweeps (`forward_block`, `reverse_block`) on a loop's body.
May import `common`, `frontend`, `ir`, `checkpoint` and `errors`; `reverse` and
`loops` import it.
"""

from __future__ import annotations

import ast
import copy
import random
import types
from dataclasses import dataclass, field

import numpy as np

from .. import checkpoint, ir
from ..analysis.classify import reports_only
from ..errors import CheckpointError
from ..frontend.desugar import RETURNED
from .common import adj, zero

BROKE = "%broke"  # a checkpointed loop's carried flag: did the step break?


@dataclass
class Step:
    """The two functions a checkpointed loop's scheduler drives: `name` runs `body`
    once per index of a stretch, ``name(indices, state, args) -> state`` (the
    pipeline wraps the body in that loop; a while loop, and a loop with a ``break``
    (whose state ends with `BROKE`), also has `test_name`, its test); `bar_name`
    reverses one iteration,
    ``bar_name(i, state, args, bar) -> bar``, recomputing the iteration (`forward`)
    and then reversing it (`reverse`). `bar` holds the adjoints of the active
    loop-carried values, then of the active values the loop only reads (summed over
    the iterations)."""

    name: str
    bar_name: str
    target: str
    state: list
    args: list
    body: list  # one iteration, computing `outputs` (expressions: the new state)
    outputs: list
    forward: list
    reverse: list
    bar: list  # names of `bar`, the same on entry and on return
    line: int
    test_name: str | None = None  # ``test_name(state, args) -> bool`` (see above)
    # the step without the lines kept only for their effects (`ir.Kept`, a print, a
    # logging call), which the scheduler recomputes with, so they run once per step;
    # None where the body has none (`quiet_body`: its `body`, computing `outputs`)
    quiet_name: str | None = None
    quiet_body: list = field(default_factory=list)
    cond: list = field(default_factory=list)  # the statements computing its `test`
    test: ast.expr | None = None


class CheckpointedLoops:
    """Checkpointed loops, as methods of `reverse._Transform` (see the module
    docstring)."""

    def checkpoint_error(self, s, message, hint=None):
        info = self.fn.source
        return CheckpointError(
            message, filename=info.filename if info else None, lineno=s.line or None,
            source_line=info.line_text(s.line) if info and s.line else None, hint=hint)

    def forward_checkpointed(self, s: ir.Loop) -> list:
        """``state = ckpt.forward(step, range, state, args)``: the scheduler runs the
        loop, one call of the step function per iteration, keeping a few snapshots of
        the loop-carried values instead of a tape (`Step`)."""
        schedule, snapshots = s.checkpoint[:2]
        step = self.checkpoint_step(s)
        ckpt = "%ckpt" + self.tape_names[s.tag][len("%tape"):]
        if step.test_name is not None:
            # a while loop, or one that may break: the online schedule, with the test
            # (and whether the step broke) as a function
            schedule, snapshots = "ctz", None
        cls = {"ctz": checkpoint.CTZ, "binomial": checkpoint.Binomial}[schedule]
        self.helpers[cls.__name__] = cls
        make = ast.Call(func=ir.name(cls.__name__),
                        args=[] if snapshots is None else [snapshots], keywords=[])
        self.checkpoints[s.tag] = (ckpt, step)
        inits = [p.init for p in s.phis] + ([ir.const(False)] if BROKE in step.state else [])
        args = [ir.name(step.name)]
        if step.test_name is None:
            args += [s.iter, _tuple(inits), _tuple(ir.name(a) for a in step.args)]
        else:
            args += [ir.name(step.test_name), _tuple(inits),
                     _tuple(ir.name(a) for a in step.args)]
            if s.iter is not None:
                args.append(s.iter)
        call = ast.Call(func=ast.Attribute(value=ir.name(ckpt), attr="forward"
                                           if step.test_name is None else "forward_while",
                                           ctx=ast.Load()), args=args, keywords=[])
        return [ir.Assign((ckpt,), make, s.line),
                ir.Assign(tuple(step.state), call, s.line, unpack=True)]

    def checkpoint_args(self, s: ir.Loop) -> list:
        """The names a loop reads from before it (its step functions' `args`)."""
        region = s.cond + s.body
        inner = ir.all_defined(region) | set(ir.defined_names(s))
        nodes = [s.test] if s.test is not None else []
        for sub in ir.walk(region):
            nodes += list(ir.exprs(sub)) + [get() for get, _ in ir.loop_test_slot(sub)]
        args = []
        for node in nodes:
            for n in ir.local_reads(node, lambda x: x in self.locals):
                if n not in inner and n not in args:
                    args.append(n)
        return args

    def checkpoint_refusal(self, s: ir.Loop):
        """The `CheckpointError` for what a loop's step functions cannot do (None if
        they can): the loop-carried values and what the body reads from outside are
        passed in and out, so the body must not write into them, nor leave early."""
        if has_break(s.body):
            returns = _first_break(s.body, returns=True)
            if returns is not None:
                return self.checkpoint_error(
                    returns, "s2sad checkpoints loops without return",
                    "Set a flag and `break`, then return after the loop (or remove the "
                    "marker: the loop then keeps its tape).")
            if s.checkpoint[0] == "binomial" and len(s.checkpoint) == 2:
                return self.checkpoint_error(
                    _first_break(s.body), "binomial checkpointing needs the number of "
                    "iterations when the loop starts, which a `break` leaves open",
                    "Use schedule=\"ctz\" (the default), which needs no trip count.")
        for p in s.phis:
            if p.init is None or p.unborn:
                return self.checkpoint_error(
                    s, f"`{p.name.split('%')[0]}` has no value before the checkpointed loop",
                    "Give it a value before the loop.")
            if self.is_list(p.name) and self.act.root(p.name) == p.name \
                    and p.name in self.act.created:  # (`rebuilt`: a new list each time)
                return self.checkpoint_error(
                    s, f"s2sad does not yet checkpoint a loop that carries a list "
                    f"(`{p.name.split('%')[0]}`, made anew in each iteration)",
                    "Carry an array instead (`np.array([...])`, `xs + dt * vs`), or remove "
                    "the marker: the loop then keeps its tape.")
            if self.is_list(p.name):
                return self.checkpoint_error(
                    s, f"the checkpointed loop changes the list or array "
                    f"`{p.name.split('%')[0]}` in place", "Build a new one each iteration.")
        drawn = self.random_draw(s)
        if drawn is not None:
            return self.checkpoint_error(
                drawn, "the checkpointed loop draws random numbers (on this line, or in "
                "a function it calls): the iterations recomputed between snapshots would "
                "draw others, and the gradient would not be the derivative of the draws "
                "made",
                "Draw them before the loop (`eps = rng.normal(size=n)`, then `eps[i]` in "
                "the body), or remove the marker: the loop then keeps its tape.")
        passed = {self.act.root(n) for n in [p.name for p in s.phis] + self.checkpoint_args(s)}
        for sub in ir.walk(s.cond + s.body):
            written = sub.container if isinstance(sub, ir.SetItem) else None
            hint = "Build a new list or array each iteration (`u = u.copy()` before " \
                "writing into it)."
            kind = self.act.op(sub).kind if isinstance(sub, (ir.Expr, ir.Assign)) \
                and id(sub) in self.act.ops else None
            if kind == "append":
                written = self.act.op(sub).inputs[0].id
                hint = ("A list appended to (or a tuple grown, `t += (v,)`, kept as one) "
                        "holds every iteration's value, which checkpointing is there to "
                        "avoid: carry what is needed in names (a running sum, the last "
                        "value), or remove the marker.")
            elif kind in ("add_at", "add_into"):  # (``np.add.at(a, i, v)``: a write)
                written = self.act.op(sub).inputs[0].id
            elif kind == "pop":  # (a recomputed iteration would pop another item)
                written = self.act.op(sub).inputs[0].id
                hint = ("Read the items by index instead (`xs[n - 1 - i]`), or remove "
                        "the marker: the loop then keeps its tape.")
            if written is not None and self.act.root(written) in passed:
                return self.checkpoint_error(
                    sub, f"the checkpointed loop changes `{written.split('%')[0]}` in place, "
                    "which its snapshots cannot hold", hint)
        return None

    def random_draw(self, s: ir.Loop):
        """The statement of the loop `s` (or `s` itself, for its test) that calls a
        function drawing random numbers (`np.random`'s, the `random` module's, a
        Generator's or RandomState's method, a distribution's ``rvs``, a function of
        the user's that calls one), or None."""
        found = [(sub, e) for sub in ir.walk(s.cond + s.body) for e in ir.exprs(sub)]
        for sub, e in found + ([(s, s.test)] if s.test is not None else []):
            for n in ast.walk(e):
                if isinstance(n, ast.Call) and _draws(self.fn.refs, n.func):
                    return sub
        return None

    def effect_only(self, s) -> bool:
        """Is `s` kept only for what it does, not for a value (an `ir.Kept`, a call
        of ``print``, of a `logging` function or of ``warnings.warn``)? Recomputing
        an iteration leaves it out."""
        if isinstance(s, ir.Kept):
            return not s.defines
        return isinstance(s, ir.Expr) and id(s) in self.act.ops \
            and reports_only(self.act.op(s).key)

    def can_checkpoint(self, s: ir.Loop) -> bool:
        """Whether `grad(f, checkpoint=...)` checkpoints a loop it marked: one that
        carries an active value and that the step functions can reverse."""
        return any(p.name in self.act.active for p in s.phis) and \
            self.checkpoint_refusal(s) is None

    def checkpoint_step(self, s: ir.Loop) -> Step:
        """The step functions of a checkpointed loop (`checkpoint_refusal` says what
        they cannot do). A while loop's test becomes a function of its own, and its
        step starts with the statements of the test the body reads (the copies `dup`
        made there), not with the test."""
        refusal = self.checkpoint_refusal(s)
        if refusal is not None:
            raise refusal
        breaks = has_break(s.body)
        # a loop with a `break` carries whether it broke: the scheduler's test reads it
        state = [p.name for p in s.phis] + ([BROKE] if breaks else [])
        args = self.checkpoint_args(s)
        base = self.fn.name.split("%")[0]
        suffix = self.tape_names[s.tag][len("%tape"):]
        name = f"{base}%step{suffix}"
        target = s.target or "%_"
        cond = _feeding(s.cond, s.body)
        body, outputs = _step_body(cond, s.body, state)
        # one reversed iteration: recompute it, then reverse it (the whole test, whose
        # reverse reads its branches' conditions; not only what the body reads of it)
        tapes_before = len(self.tapes)
        forward = _without_exits(self.forward_block(s.cond) + self.forward_block(s.body),
                                 self.effect_only)
        tapes = self.tapes[tapes_before:]
        del self.tapes[tapes_before:]
        forward = [ir.Assign((t,), ast.List(elts=[], ctx=ast.Load()), s.line)
                   for t in tapes] + forward
        active_phis = [p for p in state if p in self.act.active]
        reads = [n for n in args if n in self.act.active]
        acc = [n for n in reads if not self.is_container(n)]
        # A carried array read by index (a container) has one adjoint object, which
        # the body's reverse updates in place and hands over where the array takes a
        # new value (`hand_over`), as in a taped loop (`reverse_loop`): an exit that
        # passes it on (``v = v``, `continue`) leaves that adjoint as it is. Only the
        # other carried values take a new adjoint on the paths that touch them.
        values = [p for p in active_phis if not self.is_container(p)]
        bar = [self.acc(p) if self.is_container(p) else adj(p) for p in active_phis] + [
            self.acc(n) if self.is_container(n) else adj(n) for n in reads]
        self.accumulators.append(set(acc))
        self.carried.append(values)
        self.emitted.append([ir.Assign((b,), ir.const(None)) for b in bar])
        reverse = self.reverse_block(s.body) + self.reverse_block(s.cond)
        self.emitted.pop()
        self.carried.pop()
        self.accumulators.pop()
        assigned = ir.definitely_assigned(reverse)
        # Only an exit that ends every path (the body's last statement) overwrites a
        # carried value on every path; an exit inside a branch (`continue`, or the
        # branch that goes on) is the reverse of that branch's business, which passes
        # the adjoint on where the branch leaves the value as it is (`reverse_if`).
        overwritten = {c.targets[0] for x in s.body if isinstance(x, ir.Exit)
                       for c in x.copies}
        for p in values:  # a carried value the body overwrites unread gets adjoint 0
            if p in overwritten and adj(p) not in assigned:
                reverse.append(ir.Assign((adj(p),), self.zero_adjoint(self.act.kinds.get(p), p),
                                         s.line))
        step = Step(name, ir.derived(name, "bar"), target, state, args, body, outputs,
                    forward, reverse, bar, s.line)
        if any(self.effect_only(x) for x in ir.walk(cond + s.body)):
            step.quiet_name = f"{base}%quiet{suffix}"
            step.quiet_body = _step_body(_kept_out(cond, self.effect_only),
                                         _kept_out(s.body, self.effect_only), state)[0]
        if s.iter is None or breaks:
            step.test_name = f"{base}%test{suffix}"
            step.cond, step.test = ir.copy_tree(s.cond), ir.copy_tree(s.test)
            # with a break: ``not broke and test``, the test not evaluated after a break
            go = ast.UnaryOp(op=ast.Not(), operand=ir.name(BROKE))
            if breaks and s.iter is not None:
                step.cond, step.test = [], go
            elif breaks and not step.cond:
                step.test = ast.BoolOp(op=ast.And(), values=[go, step.test])
            elif breaks:
                t = self.fresh()
                step.cond = [ir.If(ir.name(BROKE), [ir.Assign((t,), ir.const(False), s.line)],
                                   step.cond + [ir.Assign((t,), step.test, s.line)], s.line)]
                step.test = ir.name(t)
        self.steps.append(step)
        return step

    def reverse_checkpointed(self, s: ir.Loop) -> list:
        """``bar = ckpt.reverse(step_bar, bar)``: the scheduler reverses the
        iterations from the last to the first, recomputing from its snapshots."""
        ckpt, step = self.checkpoints[s.tag]
        defined = self.defined_so_far()
        start = []
        for b in step.bar:
            source = b.rsplit("%", 1)[0]
            if b.endswith("%bar") and b not in defined:
                start.append(self.zero_adjoint(self.act.kinds.get(source), source))
            else:
                start.append(ir.name(b))
        out = []
        if step.bar:
            call = ast.Call(func=ast.Attribute(value=ir.name(ckpt), attr="reverse",
                                               ctx=ast.Load()),
                            args=[ir.name(step.bar_name), _tuple(start)] + (
                                [ir.name(step.quiet_name)] if step.quiet_name else []),
                            keywords=[])
            out.append(ir.Assign(tuple(step.bar), call, s.line, unpack=True))
        active_phis = [p for p in s.phis if p.name in self.act.active]
        out += [self.set_adj(p.init.id, ir.name(self.acc(p.name) if self.is_container(p.name)
                                                else adj(p.name)), s.line)
                for p in active_phis if self.act.is_active(p.init)]
        return out


RANDOM_OWNERS = (np.random.Generator, np.random.RandomState, random.Random)
# (a Generator's or RandomState's methods by name, called on a local `rng`; not those
# a user's class may well define too)
DRAW_NAMES = frozenset(n for c in RANDOM_OWNERS[:2] for n in dir(c) if not n.startswith(
    "_")) - {"f", "power", "beta", "gamma", "bytes", "seed", "get_state", "set_state",
             "spawn", "bit_generator"} | {"rvs"}


def _draws(refs: dict, func) -> bool:
    """Does a call of `func` draw random numbers (see `random_draw`)?"""
    obj = refs.get(ir.dotted(func), None)
    if obj is None:
        return isinstance(func, ast.Attribute) and func.attr in DRAW_NAMES
    if isinstance(obj, types.FunctionType):
        return _draws_inside(obj.__code__, obj.__globals__, set())
    module = getattr(obj, "__module__", None) or ""
    return module == "random" or module.startswith("numpy.random") \
        or isinstance(getattr(obj, "__self__", None), RANDOM_OWNERS) \
        or getattr(obj, "__name__", None) == "rvs"


def _draws_inside(code, globals_: dict, seen: set) -> bool:
    """Does a function of the user's with this `code` (or one it calls by a global
    name) read a name that draws random numbers (``np.random.randn``: its names
    ``random`` and ``randn``; ``rng.normal``)?"""
    if code in seen:
        return False
    seen.add(code)
    if set(code.co_names) & (DRAW_NAMES | {"random"}):
        return True
    return any(_draws_inside(c, globals_, seen) for c in code.co_consts
               if isinstance(c, types.CodeType)) or any(
        _draws_inside(g.__code__, g.__globals__, seen) for g in (
            globals_.get(n) for n in code.co_names) if isinstance(g, types.FunctionType))


def has_break(body) -> bool:
    for s in body:
        if isinstance(s, ir.Exit) and s.brk:
            return True
        if isinstance(s, ir.If) and (has_break(s.body) or has_break(s.orelse)):
            return True
    return False


def _first_break(body, returns=False):
    """The first `Exit` of this loop's body (not of a nested loop's) that breaks; with
    `returns`, the first that is a ``return`` (it sets the flag `anf` makes for it)."""
    for s in body:
        if isinstance(s, ir.Exit) and s.brk and (not returns or any(
                (c.targets[0] + "%").startswith(RETURNED + "%") for c in s.copies)):
            return s
        if isinstance(s, ir.If):
            found = _first_break(s.body, returns) or _first_break(s.orelse, returns)
            if found is not None:
                return found
    return None


def _tuple(elts) -> ast.Tuple:
    return ast.Tuple(elts=list(elts), ctx=ast.Load())


def _exits_as_copies(body, nexts) -> list:
    """A checkpointed loop's body as a step function's: every `Exit` becomes
    ``x%next = ...`` for each carried value (``x%next = x`` where the path leaves it),
    and for a loop with a ``break`` `BROKE`, whether this exit breaks."""
    out = []
    for s in body:
        if isinstance(s, ir.Exit):
            given = {c.targets[0]: c.value for c in s.copies}
            given[BROKE] = ir.const(s.brk)
            out += [ir.Assign((n,), ir.copy_tree(given.get(p, ir.name(p))), s.line)
                    for p, n in nexts.items()]
        elif isinstance(s, ir.If):
            out.append(ir.If(s.test, _exits_as_copies(s.body, nexts),
                             _exits_as_copies(s.orelse, nexts), s.line))
        else:
            out.append(ir.copy_tree(s))
    return out


def _feeding(cond, body) -> list:
    """The statements of a while loop's `cond` that compute what `body` reads."""
    needed = set(ir.reads_in(body))
    out = []
    for s in reversed(cond):
        if not needed & ir.all_defined([s]):
            continue
        out.insert(0, s)
        needed |= set(ir.reads_in([s]))
    return out


def _without_exits(body, drop=lambda s: False) -> list:
    """`body` without its `Exit`s and the statements `drop` names."""
    out = []
    for s in body:
        if isinstance(s, ir.Exit) or drop(s):
            continue
        if isinstance(s, ir.If):
            s = ir.If(s.test, _without_exits(s.body, drop), _without_exits(s.orelse, drop),
                      s.line)
        out.append(s)
    return out


def _step_body(cond, body, state) -> tuple:
    """One iteration of a step function and the expressions of the new state."""
    if body and isinstance(body[-1], ir.Exit):  # one path: return the new values
        given = {c.targets[0]: c.value for c in body[-1].copies}
        given[BROKE] = ir.const(body[-1].brk)
        return ir.copy_tree(cond + body[:-1]), \
            [ir.copy_tree(given.get(p, ir.name(p))) for p in state]
    nexts = {p: ir.derived(p, "next") for p in state}
    return ir.copy_tree(cond) + _exits_as_copies(body, nexts), [ir.name(nexts[p]) for p in state]


def _kept_out(body, drop) -> list:
    """`body` without the statements `drop` names, in branches and loops too (new
    statements where something inside them goes; the others are `body`'s own)."""
    out = []
    for s in body:
        if drop(s):
            continue
        blocks = ir.blocks(s)
        if blocks and any(drop(x) for b in blocks for x in ir.walk(b)):
            s = copy.copy(s)
            for attr in ("body", "orelse", "cond", "copies"):
                if isinstance(getattr(s, attr, None), list):
                    setattr(s, attr, _kept_out(getattr(s, attr), drop))
        out.append(s)
    return out
