"""reverse: dup-form function + activity -> reverse-mode derivative (IR).

Contract
--------
`transform(fn, activity, derivative_of)` returns a `Reverse`:

* `forward`: the forward sweep, the dup-form body without its ``return``, in which a
  call of a user function that needs a derivative, ``t = g(a, b)``, becomes
  ``t, t%saved = g%fwd(a, b)`` (the callee's forward sweep, which also returns what
  its reverse sweep needs);
* `reverse`: the reverse sweep, one block per forward statement in reverse order, each
  preceded by a comment quoting the user's line: the rule for the statement's
  primitive, inlined from the rule table with only the terms of active inputs;
  ``a%bar = b%bar + c%bar`` for a `dup`; ``a%bar, b%bar = g%bwd(t%saved, t%bar)``
  for a call of a user function; an ``if`` reversed as an ``if`` on the same
  condition, each branch defining the adjoint of every outer name either branch reads
  (zero where it does not read it);
* `seed`: the name of the output's adjoint, which the reverse sweep reads first;
* `grads`: per `wrt` parameter, the expression of its gradient (an adjoint name, or a
  zero of the parameter's kind when the output does not depend on it);
* `requests`: the callees whose ``%fwd``/``%bwd`` pair the reverse sweep uses.

Every adjoint is assigned once on each path, because in dup form every name is read
once: a read becomes the definition of its adjoint. Straight-line code needs no tape:
the forward sweep's names are SSA, so the reverse sweep reads them directly.
`derivative_of(callee, active_params)` is the orchestrator's callback that names (and
schedules) a callee's derivative; this module never transforms another function.

Layout
------
This module owns the contract (`Reverse`, `Request`, `mutable_names`), the state of
one transform (`_Transform`) and its two sweeps over the statements
(`forward_block`, `reverse_block`, with ``if``, `dup` and the forward sweep's calls
of user functions). The modules beside it add methods to `_Transform` as mixins,
all reading that one state: `adjoints` (the reverse of one operation, by its kind:
`adjoints.BY_KIND`), `containers` (adjoints of lists and arrays changed in place),
`loops` (taped loops), `checkpointing` (checkpointed loops), `masks` (the
adjoints of ``np.where``'s branches, without NaN) and `scatter` (``np.add.at``).
May import those modules, `common`, `analysis`, `ir`, `runtime` and `errors`.
"""

from __future__ import annotations

import ast
from dataclasses import dataclass, field
from functools import cached_property

from .. import ir, runtime
from ..ir.kinds import ArrayKind, differentiable
from ..analysis.activity import Activity
from ..analysis.writes import exit_handoffs
from ..errors import NotDifferentiableError
from .adjoints import OperationAdjoints
from .checkpointing import CheckpointedLoops
from .common import adj, bind, call_np, zero
from .containers import ContainerAdjoints
from .loops import TapedLoops
from .masks import MaskedAdjoints
from .scatter import ScatterAdjoints
from .symmetric import SymmetricInputs


@dataclass
class Request:
    func: object
    active: tuple  # names of the callee's parameters that carry adjoints
    fwd: str
    bwd: str


@dataclass
class Reverse:
    forward: list
    reverse: list
    seed: str | None
    output: ast.expr
    output_line: int
    grads: dict
    requests: list = field(default_factory=list)
    helpers: dict = field(default_factory=dict)  # names the inlined rules read
    mutable: dict = field(default_factory=dict)  # see `mutable_names`
    steps: list = field(default_factory=list)  # `Step`s of checkpointed loops


def mutable_names(act: Activity, body: list, tangents=False) -> dict:
    """Every name of a list or array the function (`body`, as `act` analysed it)
    writes into, and of a view of one, mapped to the name of the object written (see
    `simplify`). A list that grows or
    shrinks (`append`, `pop`) counts as written: ``xs[-1]`` names another element
    once it has, so a read of it is not recomputed (or shared, or moved) past that.
    With `tangents` (forward mode), an array's tangent too, written as the array is
    (``x%dot[i] = v%dot``): two are never one object (``np.array(x_dot)`` twice)."""
    changed = set(act.written) | {
        act.root(op.inputs[0].id) for op in act.ops.values()
        if op.kind in ("append", "pop") and op.inputs and isinstance(op.inputs[0], ast.Name)}
    if not changed:
        return {}
    # (a write through a loop's carried name is a write into each array it may hold:
    # its first value, what an exit hands it, ``a, b = b, a``, and the array an
    # iteration makes and hands it, which it is after the loop: one object, one name)
    group = _one_object(act, body, changed)
    changed = {group.get(r, r) for r in changed}

    def written_root(n):
        return next((group.get(r, r) for r in [act.root(n)] + act.viewed_roots(n)
                     if group.get(r, r) in changed), None)

    out = {}
    for n in act.kinds:
        root = written_root(n)
        if root is not None:
            out[n] = root
            if tangents and isinstance(act.kinds[n], ArrayKind):
                out[f"{n}%dot"] = f"{root}%dot"
    return out


def _one_object(act: Activity, body: list, changed: set) -> dict:
    """Root -> the root that names its group: the roots of the arrays a loop-carried
    array may be one object with, its first value and what an exit hands it
    (`Activity.carried`); and where such a group is written (`changed`), the arrays
    an iteration makes and hands it (``v = np.exp(v)``: after the loop, and at the
    next iteration's head, the carried name holds that very array; a write into the
    array an iteration makes, before it hands it on, changes no array the carried
    name held). The first of a group's roots in sorted order names it."""
    parent: dict = {}

    def find(r):
        while parent.get(r, r) != r:
            r = parent[r]
        return r

    def union(a, b):
        a, b = find(a), find(b)
        if a != b:
            parent[max(a, b)] = min(a, b)

    for root, bases in act.carried.items():
        for b in bases:
            union(root, b)
    handed = []  # (the carried array's root, the root of an array an exit hands it)
    for loop in ir.walk(body):
        if isinstance(loop, ir.Loop):
            handed += [(act.root(phi), act.root(src)) for copies in exit_handoffs(
                loop, act.kinds) for phi, src in copies]
    grown = True
    while grown:  # (a group that grows may be written through a loop nested in it)
        written = {find(r) for r in changed}
        grown = False
        for phi, made in handed:
            if find(phi) in written and find(made) != find(phi):
                union(phi, made)
                grown = True
    return {r: find(r) for r in list(parent)}


def transform(fn: ir.Function, activity: Activity, derivative_of) -> Reverse:
    if activity.conflict is not None:
        raise activity.conflict
    return _Transform(fn, activity, derivative_of).run()


class _Transform(OperationAdjoints, ContainerAdjoints, TapedLoops, CheckpointedLoops,
                 MaskedAdjoints, SymmetricInputs, ScatterAdjoints):
    """One reverse transform: its state, and the methods of the modules beside this
    one (see the module docstring), which read it.

    Size: about 300 lines here, over a thousand with its mixins, one class because
    every method reads and extends the same state (the adjoint blocks being built,
    the enclosing loops' accumulators, the tapes, the helpers and requests of the
    emitted code); each mixin is a part of it that can be read on its own."""

    def __init__(self, fn, activity, derivative_of):
        self.fn = fn
        self.act = activity
        self.derivative_of = derivative_of
        self.requests: list[Request] = []
        self.temps = 0
        loops = [s for s in ir.walk(fn.body) if isinstance(s, ir.Loop)]
        self.calls: dict[int, tuple] = {}  # id(Assign) -> (request, [(input atom, param)])
        self.helpers: dict = {}
        self.accumulators: list = []  # per enclosing loop: names whose adjoints accumulate
        self.carried: list = []  # per enclosing loop: its active loop-carried names
        self.emitted: list = []  # the reverse blocks being built, outermost first
        self.tape_names = {}
        self.count_names = {}
        for i, loop in enumerate(loops, 1):
            suffix = "" if len(loops) == 1 else f"%{i}"
            self.tape_names[loop.tag] = "%tape" + suffix
            self.count_names[loop.tag] = "%count" + suffix
        self.tapes: list = []  # tapes the forward sweep creates, in order
        self.params = {p.name for p in fn.params}
        self.steps: list = []
        self.checkpoints = {}  # loop tag -> (scheduler name, Step)
        self.element_zeros = {}  # adjoint list -> its ``[np.zeros_like(xs[0]), ...]``
        self.zeroed_roots = set()  # (lists and arrays the blocks being reversed zeroed)
        self.unborn = set()  # carried names with no value before their loop
        self.masks = {}  # name -> the `masks.Mask` of its adjoint, in the block being reversed
        self.finite_memo = {}  # name -> certainly finite (`masks`)
        self.template_calls = {}  # id(rule template) -> the functions it calls (`adjoints`)
        self.definitions = self.nested_lists = None  # (`adjoints.refuse_nested_lists`)
        if any(issubclass(t, ArrayKind) for t in set(map(type, activity.kinds.values()))):
            import numpy

            self.helpers["np"] = numpy  # zeros of array adjoints

    # (what an `if`, a loop or a shape asks of the function: made where first asked)
    locals = cached_property(lambda self: _locals_and_loops(self.fn)[0])
    top_level = cached_property(lambda self: self.params | {
        t for s in self.fn.body if isinstance(s, ir.Assign) for t in s.targets})
    # (bound on every path: a name's one definition precedes its reads)
    bound = cached_property(lambda self: self.params | ir.definitely_assigned(self.fn.body))

    def fresh(self) -> str:
        self.temps += 1
        return f"%r{self.temps}"

    def run(self) -> Reverse:
        # (the names an `if` of a block may read, bound before it in that block and
        # the blocks around it: an array's zero adjoint on a path is their zeros)
        self.if_bound, self.bound_before = {}, []
        body = list(self.fn.body)
        ret = body.pop() if body and isinstance(body[-1], ir.Return) else None
        output = ret.value if ret else ir.const(None)
        seed = None
        reverse = []
        self.seeded = None
        if self.act.is_active(output):
            seed = adj(output.id)
            if self.is_container(output.id):
                # the output's adjoint list (or written array) is an accumulator the
                # sweep updates in place: it starts as a copy of the caller's seed
                self.seeded = self.act.root(output.id)
                seed = self.seed_name = ir.derived(seed, "seed")
        # (before the forward sweep: a checkpointed loop's step reverses its body there,
        # and zeroes the adjoints of the arrays and lists the body makes)
        forward = self.forward_block(body)
        if self.act.is_active(output):
            self.emitted.append([ir.Assign((seed,), ir.const(1.0))])  # defined by the caller
            reverse = self.assembled_lists(self.reverse_block(body, top=True))
            self.emitted.pop()
        forward = [ir.Assign((t,), ast.List(elts=[], ctx=ast.Load()), 0) for t in self.tapes] \
            + forward
        grads = {}
        # (a parameter no path of the reverse sweep gives an adjoint: the one path
        # left where the kinds decide a test, `isinstance(node, tuple)`, reads it not)
        given = ir.all_defined(reverse) | {seed} if any(
            p in self.act.active and not self.is_container(p) for p in self.act.wrt) else ()
        for p in self.act.wrt:
            if p in self.act.active and (self.is_container(p) or adj(p) in given):
                grads[p] = ir.name(self.acc(p) if self.is_container(p) else adj(p))
            elif self.is_list(p):
                grads[p] = self.zero_list(p)
            else:
                grads[p] = zero(self.act.kinds.get(p), p)
        return Reverse(forward, reverse, seed, output, ret.line if ret else 0, grads,
                       self.requests, self.helpers, mutable_names(self.act, self.fn.body), self.steps)

    # ------------------------------------------------------------ forward

    def forward_block(self, body) -> list:
        out = []
        for s in body:
            if type(s) is ir.Assign:  # (the commonest first; nothing below is for one)
                out.append(self.forward_call(s) if self.act.ops[id(s)].kind == "call"
                           and self.needs_derivative(s) else s)
                continue
            if type(s) is ir.Dup:  # (kept as it is: nothing below is for one either)
                out.append(s)
                continue
            if isinstance(s, ir.If):
                out.append(ir.If(s.test, self.forward_block(s.body),
                                 self.forward_block(s.orelse), s.line))
                continue
            if isinstance(s, ir.Loop):
                if s.checkpoint and len(s.checkpoint) > 2 and not self.can_checkpoint(s):
                    s.checkpoint = None  # grad(f, checkpoint=...): this one stays taped
                if s.checkpoint and not s.phis:
                    # nothing passes from one iteration to the next: no state to
                    # snapshot, and nothing the loop computes reaches the output
                    refusal = self.checkpoint_refusal(s)
                    if refusal is not None:
                        raise refusal
                    out.extend(self.forward_loop(s))
                    continue
                out.extend(self.forward_checkpointed(s) if s.checkpoint
                           else self.forward_loop(s))
                continue
            if isinstance(s, ir.Exit):
                out.append(s)
                continue
            if isinstance(s, ir.SetItem):
                out.append(self.save_overwritten(s))
            out.extend(self.save_added_into(s))  # (before an ``np.add.at``)
            if isinstance(s, ir.Expr) and self.popped_list(s) is not None:
                # ``xs%old = xs.pop()``: the reverse sweep puts the element back
                out.append(ir.Assign((ir.derived(self.popped_list(s), "old"),), s.value,
                                     s.line))
                continue
            out.append(s)
        return out

    def atom_kind(self, atom):
        return self.act.atom_kind(atom, self.fn.refs)

    def needs_derivative(self, s: ir.Assign) -> bool:
        op = self.act.ops[id(s)]
        return op.kind == "call" and any(t in self.act.active for t in s.targets) \
            and any(self.act.is_active(x) for x in op.inputs)

    def forward_call(self, s: ir.Assign) -> ir.Assign:
        op = self.act.op(s)
        callee = op.key
        bound = bind(callee, s.value, self.fn, s.line)
        active = tuple(p for p, atom in bound if self.act.is_active(atom))
        kinds = {p: self.atom_kind(atom) for p, atom in bound}
        fwd, bwd = self.derivative_of(callee, active, kinds)
        request = Request(callee, active, fwd, bwd)
        if all(r.fwd != fwd for r in self.requests):
            self.requests.append(request)
        self.calls[id(s)] = (request, bound)
        (target,) = s.targets if not s.unpack else (None,)
        if s.unpack:
            raise NotDifferentiableError("internal: call results are unpacked separately")
        call = ast.Call(func=ir.name(fwd), args=list(s.value.args), keywords=list(s.value.keywords))
        return ir.Assign((target, ir.derived(target, "saved")), call, s.line, unpack=True)

    # ------------------------------------------------------------ reverse

    def np_call(self, func, args) -> ast.Call:
        import numpy

        self.helpers["np"] = numpy
        return call_np(func, args)

    def is_accumulator(self, n: str) -> bool:
        return bool(self.accumulators) and any(n in level for level in self.accumulators)

    def set_adj(self, n: str, value, line) -> ir.Assign | ir.AugAssign:
        """``n%bar = value``, or ``n%bar += value`` inside the reverse of a loop that
        reads `n` but does not define it (its adjoint sums over the iterations)."""
        if self.act.containers and self.act.is_container(n):
            if self.is_list(n):
                self.helpers["add_into"] = runtime.add_into
                if isinstance(value, ast.Call) and ir.dotted(value.func) == "list" and \
                        len(value.args) == 1 and not value.keywords:
                    value = value.args[0]  # (add_into reads its items: no list to make)
                return ir.Expr(ast.Call(func=ir.name("add_into"),
                                        args=[ir.name(self.acc(n)), value], keywords=[]), line)
            return ir.AugAssign(self.acc(n), value, line)
        if self.accumulators and self.is_accumulator(n):
            kind = self.act.kinds.get(n)
            if isinstance(kind, tuple):  # (`+=` would concatenate the tuples)
                return ir.Assign((adj(n),), _add_tuples(ir.name(adj(n)), value, kind), line)
            return ir.AugAssign(adj(n), value, line)
        return ir.Assign((adj(n),), value, line)

    def defined_so_far(self) -> set:
        out = set()
        for block in self.emitted:
            out |= ir.definitely_assigned(block)
        return out

    def reverse_block(self, body, top=False) -> list:
        if not top and any(type(s) is ir.If for s in body):
            # (what each `if` of a nested block may read: bound before it on every
            # path; at the top `bound` says it)
            before = set(self.bound_before[-1]) if self.bound_before else set()
            for s in body:
                if type(s) is ir.If:
                    self.if_bound[id(s)] = frozenset(before)
                before |= ir.definitely_assigned([s])
        zeroed = set(self.zeroed_roots)
        out = self.list_inits(body, top)
        self.emitted.append(out)
        outer_masks = dict(self.masks)  # (a mask holds in the block that made it)
        current = None
        for s in reversed(body):
            kind = type(s)  # (the commonest first: `reverse_stmt` does the same)
            stmts = self.reverse_operation(s) if kind is ir.Assign else \
                self.reverse_dup(s) if kind is ir.Dup else self.reverse_stmt(s)
            if not stmts:
                continue
            line = getattr(s, "line", 0)
            if line != current or isinstance(s, (ir.If, ir.Loop)):
                out.append(ir.Comment(_comment(self.fn.source, s, line), line))
                current = line if not isinstance(s, (ir.If, ir.Loop)) else None
            out.extend(stmts)
        self.emitted.pop()
        self.masks = outer_masks
        self.zeroed_roots = zeroed
        return out

    def reverse_stmt(self, s) -> list:
        if isinstance(s, (ir.Assign, ir.Expr)):
            return self.reverse_operation(s)
        if isinstance(s, ir.Dup):
            return self.reverse_dup(s)
        if isinstance(s, ir.SetItem):
            return self.reverse_setitem(s)
        if isinstance(s, ir.If):
            return self.reverse_if(s)
        if isinstance(s, ir.Loop):
            return self.reverse_checkpointed(s) if s.tag in self.checkpoints \
                else self.reverse_loop(s)
        if isinstance(s, ir.Exit):
            out = []
            for c in reversed(s.copies):
                out.extend(self.reverse_stmt(c))
            return out
        return []

    def reverse_dup(self, s: ir.Dup) -> list:
        active = self.act.active
        if s.source not in active or self.act.containers and self.is_container(s.source):
            return []
        copies = [t for t in s.targets if t in active]
        if not copies:
            return []
        kind = self.act.kinds.get(s.source)
        masked = self.masked_sum(s.source, copies, s.line) if self.masks else None
        if masked:
            return masked
        return [self.set_adj(s.source, _sum([ir.name(adj(c)) for c in copies], kind), s.line)]

    def reverse_if(self, s: ir.If) -> list:
        outer = [n for n in self.outer_active_reads(s.body + s.orelse)
                 if not self.is_accumulator(n) and not self.is_container(n)]
        # A name both branches assign (a join) that nothing after the `if` reads is
        # active for a use inside one path; on the other paths its adjoint is zero.
        zeros = [ir.Assign((adj(n),), zero(self.act.kinds.get(n), n), s.line)
                 for n in self.unread_joins(s)]
        self.emitted.append(zeros)
        dead = self.act.dead.get(id(s))  # (a branch that never runs has no reverse)
        here = self.if_bound.get(id(s), frozenset())
        self.bound_before.append(here)
        try:
            body = [] if dead is s.body else self.reverse_block(s.body)
            orelse = [] if dead is s.orelse else self.reverse_block(s.orelse)
        finally:
            self.emitted.pop()
            self.bound_before.pop()
        for block in (body, orelse):
            defined = ir.all_defined(block)
            for n in outer:
                if adj(n) not in defined:
                    # (an array's zero is np.zeros_like(n), but where n is bound only
                    # on some paths, `if c: t = ...` read under another `if c:`, the
                    # path this zero is for may not have bound it: a number's zero)
                    like = n if n in self.bound or n in here else None
                    block.append(ir.Assign((adj(n),), zero(self.act.kinds.get(n), like),
                                           s.line))
        # A loop-carried value a branch reads or overwrites has a new adjoint after that
        # branch's reverse (zero if the branch only overwrites it); a branch that does
        # neither passes the adjoint on unchanged.
        for p in [p for level in self.carried for p in level]:
            touched = [_touches(block, p) for block in (s.body, s.orelse)]
            for fwd_touched, fwd, block in zip(touched, (s.body, s.orelse), (body, orelse)):
                if fwd_touched and adj(p) not in ir.definitely_assigned(block):
                    exit = next((x for x in fwd if isinstance(x, ir.Exit)), None)
                    block.append(ir.Assign((adj(p),), self.overwritten_zero(p, exit), s.line))
        if not body and not orelse:
            return []
        return zeros + [ir.If(s.test, body, orelse, s.line)]

    def unread_joins(self, s: ir.If) -> list:
        """Active names both branches of `s` assign whose adjoint nothing reversed so
        far (the code after `s`) has set, in a deterministic order."""
        both = ir.all_defined(s.body, exits=False) & ir.all_defined(s.orelse, exits=False)
        carried = {p for level in self.carried for p in level}
        possibly = set()
        for block in self.emitted:
            possibly |= ir.all_defined(block)
        return sorted(n for n in both if n in self.act.active and adj(n) not in possibly
                      and n not in carried and not self.is_container(n)
                      and not self.is_accumulator(n))

    def outer_active_reads(self, region, inner=()) -> list:
        """Active names the statements of `region` read that they do not define."""
        inner = ir.all_defined(region) | set(inner)
        seen = []
        for sub in ir.walk(region):
            for node in ir.exprs(sub):
                for n in ir.local_reads(node, lambda x: x in self.locals):
                    if n not in inner and n in self.act.active and n not in seen:
                        seen.append(n)
        return seen


def _comment(info, s, line) -> str:
    """The comment before the reverse of `s`: the user's line it comes from."""
    if isinstance(s, ir.Dup) and not line:
        return f"adjoint of \0{s.source}\0: the sum over its uses"
    text = info.line_text(line).strip() if info and line else ""
    return f"line {line}: {text}" if line else "(no line)"


def _locals_and_loops(fn: ir.Function) -> tuple:
    """`ir.local_names(fn)` and the loops of `fn`, in order, from one walk."""
    names, loops = {p.name for p in fn.params}, []
    for s in ir.walk(fn.body):
        names.update(s.targets if type(s) in (ir.Assign, ir.Dup) else ir.defined_names(s))
        if isinstance(s, ir.Loop):
            loops.append(s)
    return names, loops


def _touches(block, p) -> bool:
    """Does `block` read `p`, or assign it at an iteration exit, outside the `if`s
    nested in it? (The reverse of each nested `if` gives `p` its adjoint on the paths
    through it that touch `p`, and passes it on unchanged on the others.)"""
    for s in block:
        if isinstance(s, ir.If) and p in ir.names_in(s.test):
            return True
    for s in ir.walk([s for s in block if not isinstance(s, ir.If)]):
        if isinstance(s, ir.Exit) and any(c.targets[0] == p for c in s.copies):
            return True
        if any(p in ir.names_in(node) for node in ir.exprs(s)):
            return True
        if isinstance(s, ir.Loop) and s.test is not None and p in ir.names_in(s.test):
            return True
    return False


def _sum(terms, kind):
    if not differentiable(kind):
        return zero(kind)
    if isinstance(kind, tuple):
        return ast.Tuple(elts=[_sum([ast.Subscript(value=t, slice=ir.const(i), ctx=ast.Load())
                                     for t in terms], k) for i, k in enumerate(kind)],
                         ctx=ast.Load())
    total = terms[0]
    for t in terms[1:]:
        total = ast.BinOp(left=total, op=ast.Add(), right=t)
    return total


def _add_tuples(acc, value, kind) -> ast.Tuple:
    """The item-by-item sum of the tuple adjoints `acc` and `value`."""
    def item(t, i):
        if isinstance(t, ast.Tuple):
            return t.elts[i]
        return ast.Subscript(value=ir.copy_tree(t), slice=ir.const(i), ctx=ast.Load())
    elts = []
    for i, k in enumerate(kind):
        if not differentiable(k):
            elts.append(zero(k))
        elif isinstance(k, tuple):
            elts.append(_add_tuples(item(acc, i), item(value, i), k))
        else:
            elts.append(ast.BinOp(left=item(acc, i), op=ast.Add(), right=item(value, i)))
    return ast.Tuple(elts=elts, ctx=ast.Load())

