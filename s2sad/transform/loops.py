"""loops: reverse mode's taped loops.

Owns `TapedLoops`, the methods of `reverse._Transform` that build a loop the reverse
sweep runs backwards from a tape: the forward loop that pushes what each iteration's
reverse needs at every exit (and counts the iterations where they cannot be
recomputed), and the reversed loop that pops it, with the adjoints of the names the
body reads from outside summed over the iterations and the loop-carried adjoints
passed from one reversed iteration to the one before. The class is a mixin: its
methods read the state of `reverse._Transform` (the tapes, the active names, the
adjoint blocks being built) and call its sweeps (`forward_block`, `reverse_block`)
on a loop's body. May import `checkpointing` (`has_break`), `common`, `ir`,
`runtime` (`zero_tangent`); `reverse` imports it.
"""

from __future__ import annotations

import ast

from .. import ir, runtime
from ..ir.kinds import PENDING, UNKNOWN, ListKind
from .checkpointing import has_break
from .common import adj, call_np, zero, zeros_like_list


class TapedLoops:
    """Taped loops, as methods of `reverse._Transform` (see the module docstring)."""

    def forward_loop(self, s: ir.Loop) -> list:
        """The loop as the forward sweep runs it: every iteration exit first pushes
        what the reverse of this iteration needs (which values is decided once the
        reverse sweep is final, see `simplify`), and a loop whose number of
        iterations cannot be recomputed counts them."""
        tape = self.tape_names[s.tag]
        if tape not in self.tapes:
            self.tapes.append(tape)
        inner = next((x for x in ir.walk(s.body) if isinstance(x, ir.Loop) and x.checkpoint),
                     None)
        if inner is not None:
            raise self.checkpoint_error(inner, "s2sad checkpoints loops that are not inside "
                                        "another loop", "Checkpoint the outer loop instead.")
        body = _insert_pushes(self.forward_block(s.body), tape, s.tag)
        out = []
        if _counted(s):
            count = self.count_names[s.tag]
            out.append(ir.Assign((count,), ir.const(0), s.line))
            body.insert(0, ir.AugAssign(count, ir.const(1), s.line))
        out.append(ir.Loop(s.target, s.iter, body, s.phis, s.line, s.tag,
                           self.forward_block(s.cond), s.test))
        return out

    def overwritten_zero(self, p: str, exit) -> ast.expr:
        """The zero adjoint of the value carried name `p` held before `exit` (an `Exit`,
        or None) overwrote it unread: of the shape `p` had, which a loop over layers of
        other widths changes (`zeros_before`)."""
        given = next((c.value for c in exit.copies if c.targets[0] == p), None) \
            if exit is not None else None
        return self.zeros_before(p, given.id if isinstance(given, ast.Name) else None, adj(p))

    def zero_adjoint(self, kind, like: str) -> ast.expr:
        """`zero` of `kind` like the value `like`; of a kind known only at run time
        (a number or an array: a carried name that held an array argument and then an
        array of settings, ``v = x``, then ``v = SETTINGS["w"]``), ``zero_tangent(like)``,
        which has its structure."""
        if kind not in (UNKNOWN, PENDING):
            return zero(kind, like)
        self.helpers["zero_tangent"] = runtime.zero_tangent
        return ast.Call(func=ir.name("zero_tangent"), args=[ir.name(like)], keywords=[])

    def zeros_before(self, old: str, new, adjoint: str) -> ast.expr:
        """A zero adjoint for the value the loop-carried name `old` held before an
        exit gave it `new` (a name, or None): like `adjoint` (what `new` was handed)
        where the two values certainly have the same shape, so the reverse sweep
        need not keep `old`; else like `old` itself, in the adjoint's dtype where
        `old` may hold a number (`sum`'s 0, an int)."""
        kind = self.act.kinds.get(old)
        if kind in (UNKNOWN, PENDING):
            return self.zero_adjoint(kind, old)
        if isinstance(kind, ListKind):  # (a list the loop makes anew in each iteration)
            return zeros_like_list(old)
        if new is not None and self.act.same_shape(old, new):
            return zero(kind, adjoint)
        zeros = zero(kind, old)
        if isinstance(zeros, ast.Call) and not (kind.ndim is not None and kind.dtype == "f"):
            # (of a rank not known, the adjoint may be a number: ``np.asarray(g).dtype``,
            # which a tensor's namespace takes of a number too, not `np.result_type`)
            dtype = ast.Attribute(value=ir.name(adjoint) if kind.ndim is not None else
                                  call_np("asarray", [ir.name(adjoint)]),
                                  attr="dtype", ctx=ast.Load())
            zeros.keywords = [ast.keyword(arg="dtype", value=dtype)]
        return zeros

    def reverse_loop(self, s: ir.Loop) -> list:
        """The loop run backwards: restore this iteration's values from the tape,
        reverse the body. Adjoints of outer names the body reads accumulate with
        ``+=`` (zeroed before); loop-carried adjoints pass from one reversed iteration
        to the previous one."""
        active_phis = [p for p in s.phis
                       if p.name in self.act.active and not self.is_container(p.name)]
        self.unborn |= {p.name for p in s.phis if p.init is None or p.unborn}
        region = s.cond + s.body
        outer = self.outer_active_reads(region, ir.defined_names(s))
        new_acc = [n for n in outer if not self.is_accumulator(n) and not self.is_container(n)]
        defined = self.defined_so_far()
        pre = [ir.Assign((adj(n),), zero(self.act.kinds.get(n), n), s.line) for n in new_acc]
        pre += [ir.Assign((adj(p.name),), zero(self.act.kinds.get(p.name), p.name), s.line)
                for p in active_phis if adj(p.name) not in defined]
        self.accumulators.append(set(new_acc))
        self.carried.append([p.name for p in active_phis])
        body = self.reverse_block(s.body) + self.reverse_block(s.cond)
        self.carried.pop()
        self.accumulators.pop()
        # (an initial value read by index, ``v = x`` with ``x[2]`` read, takes the carried
        # array's adjoint into its own adjoint array: ``x_bar += v_bar``)
        post = [self.set_adj(p.init.id, ir.name(adj(p.name)), s.line) for p in active_phis
                if self.act.is_active(p.init)]
        # (a carried array read by index hands its adjoint to its initial value even
        # where no reversed iteration does anything: ``v = v`` passes it on as it is)
        post += [self.set_adj(p.init.id, ir.name(self.acc(p.name)), s.line) for p in s.phis
                 if p.name in self.act.active and self.is_container(p.name)
                 and self.act.root(p.name) == p.name and self.act.is_active(p.init)
                 and self.act.root(p.init.id) != p.name]
        if not [x for x in body if not isinstance(x, ir.Comment)] and not active_phis:
            return pre + post
        assigned = ir.definitely_assigned(body)
        overwritten = {c.targets[0] for x in s.body if isinstance(x, ir.Exit) for c in x.copies}
        exit = next((x for x in s.body if isinstance(x, ir.Exit)), None)
        for p in active_phis:  # a carried value the body overwrites unread gets adjoint 0
            if p.name in overwritten and adj(p.name) not in assigned:
                body.append(ir.Assign((adj(p.name),), self.overwritten_zero(p.name, exit),
                                      s.line))
        body.insert(0, ir.Pop(self.tape_names[s.tag], (), s.tag, s.line))
        loop = ir.ForEach(s.target if s.iter is not None else "%_", self.reverse_iter(s), body,
                          s.line, s.tag)
        return pre + [loop] + post

    def reverse_iter(self, s: ir.Loop) -> ast.expr:
        if s.iter is None:
            return ast.Call(func=ir.name("range"), args=[ir.name(self.count_names[s.tag])],
                            keywords=[])
        iter_ = s.iter
        if _counted(s):
            iter_ = ast.Subscript(value=iter_, slice=ast.Slice(
                lower=None, upper=ir.name(self.count_names[s.tag]), step=None), ctx=ast.Load())
        return ast.Call(func=ir.name("reversed"), args=[iter_], keywords=[])

    # ------------------------------------------------- operations, by kind


def _counted(s: ir.Loop) -> bool:
    """Must the forward sweep count the iterations (a ``while``, or a ``break``)?"""
    return s.iter is None or has_break(s.body)


def _insert_pushes(body, tape, tag) -> list:
    """A `Push` before every `Exit` of this loop's body (not of nested loops)."""
    out = []
    for s in body:
        if isinstance(s, ir.Exit):
            out.append(ir.Push(tape, (), tag, s.line))
        elif isinstance(s, ir.If):
            s = ir.If(s.test, _insert_pushes(s.body, tape, tag),
                      _insert_pushes(s.orelse, tape, tag), s.line)
        out.append(s)
    return out
