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
"""

from __future__ import annotations

import ast
from dataclasses import dataclass, field

from .. import ir, primitives as rules, runtime
from ..ir.kinds import INT, ArrayKind, ListKind, differentiable
from ..analysis.activity import Activity
from ..errors import NotDifferentiableError
from .checkpointing import CheckpointedLoops, has_break
from .common import adj, bind, call_np, missing_rule, zero
from .containers import ContainerAdjoints


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


def mutable_names(act: Activity) -> dict:
    """Every name of a list or array the function writes into, and of a view of one,
    mapped to the name of the object written (see `simplify`). A list that grows or
    shrinks (`append`, `pop`) counts as written: ``xs[-1]`` names another element
    once it has, so a read of it is not recomputed (or shared, or moved) past that."""
    changed = set(act.written) | {
        act.root(op.inputs[0].id) for op in act.ops.values()
        if op.kind in ("append", "pop") and op.inputs and isinstance(op.inputs[0], ast.Name)}
    if not changed:
        return {}

    def written_root(n):
        # (a loop-carried array may still be the array it started from)
        carried = [b for r in [act.root(n)] + act.viewed_roots(n)
                   for b in act.carried.get(r, ())]
        return next((r for r in [act.root(n)] + act.viewed_roots(n) + carried
                     if r in changed), None)

    out = {}
    for n in act.kinds:
        root = written_root(n)
        if root is not None:
            out[n] = root
    return out


def transform(fn: ir.Function, activity: Activity, derivative_of) -> Reverse:
    if activity.conflict is not None:
        raise activity.conflict
    return _Transform(fn, activity, derivative_of).run()


class _Transform(ContainerAdjoints, CheckpointedLoops):
    def __init__(self, fn, activity, derivative_of):
        self.fn = fn
        self.act = activity
        self.derivative_of = derivative_of
        self.requests: list[Request] = []
        self.temps = 0
        self.locals = ir.local_names(fn)
        self.calls: dict[int, tuple] = {}  # id(Assign) -> (request, [(input atom, param)])
        self.helpers: dict = {}
        self.accumulators: list = []  # per enclosing loop: names whose adjoints accumulate
        self.carried: list = []  # per enclosing loop: its active loop-carried names
        self.emitted: list = []  # the reverse blocks being built, outermost first
        loops = [s for s in ir.walk(fn.body) if isinstance(s, ir.Loop)]
        self.tape_names = {}
        self.count_names = {}
        for i, loop in enumerate(loops, 1):
            suffix = "" if len(loops) == 1 else f"%{i}"
            self.tape_names[loop.tag] = "%tape" + suffix
            self.count_names[loop.tag] = "%count" + suffix
        self.tapes: list = []  # tapes the forward sweep creates, in order
        self.params = {p.name for p in fn.params}
        self.top_level = {p.name for p in fn.params} | {
            t for s in fn.body if isinstance(s, ir.Assign) for t in s.targets}
        self.steps: list = []
        self.checkpoints = {}  # loop tag -> (scheduler name, Step)
        self.element_zeros = {}  # adjoint list -> its ``[np.zeros_like(xs[0]), ...]``
        self.unborn = set()  # carried names with no value before their loop
        if any(isinstance(k, ArrayKind) for k in activity.kinds.values()):
            import numpy

            self.helpers["np"] = numpy  # zeros of array adjoints

    def fresh(self) -> str:
        self.temps += 1
        return f"%r{self.temps}"

    def run(self) -> Reverse:
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
        for p in self.act.wrt:
            if p in self.act.active:
                grads[p] = ir.name(self.acc(p) if self.is_container(p) else adj(p))
            elif self.is_list(p):
                grads[p] = self.zero_list(p)
            else:
                grads[p] = zero(self.act.kinds.get(p), p)
        return Reverse(forward, reverse, seed, output, ret.line if ret else 0, grads,
                       self.requests, self.helpers, mutable_names(self.act), self.steps)

    # ------------------------------------------------------------ forward

    def forward_block(self, body) -> list:
        out = []
        for s in body:
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
            if isinstance(s, ir.Assign) and self.needs_derivative(s):
                out.append(self.forward_call(s))
                continue
            if isinstance(s, ir.SetItem):
                out.append(self.save_overwritten(s))
            if isinstance(s, ir.Expr) and self.popped_list(s) is not None:
                # ``xs%old = xs.pop()``: the reverse sweep puts the element back
                out.append(ir.Assign((ir.derived(self.popped_list(s), "old"),), s.value,
                                     s.line))
                continue
            out.append(s)
        return out

    def atom_kind(self, atom):
        return self.act.atom_kind(atom, self.fn.refs)

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

    def needs_derivative(self, s: ir.Assign) -> bool:
        op = self.act.op(s)
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

    def drop_needless_unbroadcast(self, term, target):
        """``unbroadcast(g, x)`` is `g` when `x` has the shape of the result `target`
        (the adjoint of an elementwise operation already has the result's shape)."""
        if isinstance(term, ast.Call) and ir.dotted(term.func) == "unbroadcast" \
                and len(term.args) == 2 and isinstance(term.args[1], ast.Name) \
                and self.act.same_shape(term.args[1].id, target):
            return term.args[0]
        return term

    def shape_donor(self, expr):
        """``unreduce(g, t4, ...)``, ``unbroadcast(g, t4)`` and ``np.size(t4)`` read
        only `t4`'s shape (and `unreduce` its dtype): read them from a parameter or a
        value the function computes at its top level (which the reverse sweep can
        see) that certainly has them, so a forward line computed only for its shape
        (``t4 = t3 ** 2``) can go. For `unbroadcast` and `np.size` any array of
        `t4`'s shape will do, the earliest first; for `unreduce`, only the array `t4`
        was computed elementwise from (`Activity.origins`), which has its dtype."""
        if self.accumulators or not isinstance(expr, ast.AST):
            return expr  # (inside a reversed loop a value's shape may change)
        for node in ir.nodes(expr):
            if not isinstance(node, ast.Call):
                continue
            text = ir.dotted(node.func)
            at = 1 if text in ("unreduce", "unbroadcast") else 0 if text == "np.size" else None
            if at is None or len(node.args) <= at or not isinstance(node.args[at], ast.Name):
                continue
            x = node.args[at].id
            if text == "unreduce":
                origin = self.act.origins.get(x)
                donors = [origin] if isinstance(origin, str) and origin != x \
                    and self.act.same_shape(origin, x) else []
            else:
                # a parameter first, then `x` itself where the reverse sweep sees it,
                # then the earliest value of its shape
                same = self.act.same_shape_names(x)
                donors = [n for n in same if n in self.params] + [
                    n for n in same if n not in self.params]
            for donor in donors:
                if donor == x and x in self.top_level:
                    break
                if donor in self.top_level and isinstance(self.act.kinds.get(donor),
                                                          ArrayKind) \
                        and (text != "unreduce" or self.act.kinds[donor].dtype == "f"):
                    node.args[at] = ir.name(donor)
                    break
        return expr

    def fancy(self, index) -> bool:
        """Could this index name one element twice (an integer array or list)?"""
        parts = index.elts if isinstance(index, ast.Tuple) else [index]
        for part in parts:
            if isinstance(part, ast.Slice) or isinstance(part, ast.Constant):
                continue
            dotted = ir.dotted(part)
            if dotted is not None and dotted in self.fn.refs and self.fn.refs[dotted] is None:
                continue  # np.newaxis
            kind = self.act.kinds.get(part.id) if isinstance(part, ast.Name) else None
            if kind == INT or (isinstance(kind, ArrayKind) and kind.dtype == "b"):
                continue
            return True
        return False

    def is_accumulator(self, n: str) -> bool:
        return any(n in level for level in self.accumulators)

    def set_adj(self, n: str, value, line) -> ir.Assign | ir.AugAssign:
        """``n%bar = value``, or ``n%bar += value`` inside the reverse of a loop that
        reads `n` but does not define it (its adjoint sums over the iterations)."""
        if self.is_container(n):
            if self.is_list(n):
                self.helpers["add_into"] = runtime.add_into
                return ir.Expr(ast.Call(func=ir.name("add_into"),
                                        args=[ir.name(self.acc(n)), value], keywords=[]), line)
            return ir.AugAssign(self.acc(n), value, line)
        if self.is_accumulator(n):
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
        out = self.list_inits(body, top)
        self.emitted.append(out)
        current = None
        for s in reversed(body):
            stmts = self.reverse_stmt(s)
            if not stmts:
                continue
            line = getattr(s, "line", 0)
            if line != current or isinstance(s, (ir.If, ir.Loop)):
                out.append(ir.Comment(self.comment(s, line), line))
                current = line if not isinstance(s, (ir.If, ir.Loop)) else None
            out.extend(stmts)
        self.emitted.pop()
        return out

    def comment(self, s, line) -> str:
        if isinstance(s, ir.Dup) and not line:
            return f"adjoint of \0{s.source}\0: the sum over its uses"
        info = self.fn.source
        text = info.line_text(line).strip() if info and line else ""
        return f"line {line}: {text}" if line else "(no line)"

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

    def unsupported(self, s, op):
        info = self.fn.source
        text = info.line_text(s.line) if info and s.line else None
        return NotDifferentiableError(
            f"s2sad cannot differentiate {op.name} in reverse mode yet",
            filename=info.filename if info else None, lineno=s.line or None,
            source_line=text, hint="Build the list with append and read it by index.")

    def missing_rule(self, s, op, mode):
        return missing_rule(self.fn, s, op, mode)

    def reverse_dup(self, s: ir.Dup) -> list:
        if s.source not in self.act.active or self.is_container(s.source):
            return []
        copies = [t for t in s.targets if t in self.act.active]
        if not copies:
            return []
        kind = self.act.kinds.get(s.source)
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
        try:
            body = [] if dead is s.body else self.reverse_block(s.body)
            orelse = [] if dead is s.orelse else self.reverse_block(s.orelse)
        finally:
            self.emitted.pop()
        for block in (body, orelse):
            defined = ir.all_defined(block)
            for n in outer:
                if adj(n) not in defined:
                    block.append(ir.Assign((adj(n),), zero(self.act.kinds.get(n), n), s.line))
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

    def overwritten_zero(self, p: str, exit) -> ast.expr:
        """The zero adjoint of the value carried name `p` held before `exit` (an `Exit`,
        or None) overwrote it unread: ``np.zeros_like(p)`` for an array. A name with
        no value before its loop (first assigned in it) has none before the first
        iteration, so its zero takes the shape of the adjoint `exit` has just handed
        on (``np.zeros_like(p_bar)``, the value it gives `p`): reading `p` there would
        put a name on the tape before it exists, and the value it gives `p` may not be
        at hand in the reverse sweep without computing it again."""
        kind = self.act.kinds.get(p)
        if p not in self.unborn:
            return zero(kind, p)
        gives = exit is not None and any(c.targets[0] == p for c in exit.copies)
        return zero(kind, adj(p) if gives else p)

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

    def reverse_operation(self, s) -> list:
        """The reverse of an assignment or an expression statement: `BY_KIND`'s
        method for the kind of its operation, given `out_bar`, the adjoint of the
        active value the statement defines (None for an expression statement, and
        for an assignment whose value the output does not depend on). An active
        unpacking ``a, b = t`` is the same for every kind (`reverse_unpack`)."""
        op = self.act.op(s)
        if not (isinstance(s, ir.Assign) and any(t in self.act.active for t in s.targets)):
            return BY_KIND[op.kind](self, s, op, None)
        self.refuse_nested_lists(s, op)
        if s.unpack:
            return self.reverse_unpack(s)
        (target,) = s.targets
        # (a container's adjoint is its object's: made at a join, it is named for
        # the object made on another path)
        out_bar = ir.name(self.acc(target) if self.is_container(target) else adj(target))
        return BY_KIND[op.kind](self, s, op, out_bar)

    def refuse_nested_lists(self, s: ir.Assign, op):
        names = [t for t in s.targets if t in self.act.active] + [
            x.id for x in op.inputs if self.act.is_active(x)]
        if any(_nested_list(self.act.kinds.get(n)) for n in names) and not (
                op.kind in ("listpack", "copy", "rule") and not s.unpack
                and all(_lists_only(self.act.kinds.get(n)) for n in names)):
            # (lists of lists built by displays and handed to NumPy, as in
            # ``np.array([[a, b], [c, d]])``, are fine: their adjoints are lists of rows)
            line = s.line
            info = self.fn.source
            raise NotDifferentiableError(
                "s2sad cannot differentiate a list inside a tuple, or a list of tuples or "
                "lists, in reverse mode yet",
                filename=info.filename if info else None, lineno=line or None,
                source_line=info.line_text(line) if info and line else None,
                hint="Keep one flat list per value (xs.append(a); ys.append(b)), or use a "
                     "NumPy array.")

    def reverse_unpack(self, s: ir.Assign) -> list:
        value = s.value
        if not self.act.is_active(value):
            return []
        # (a list's parts are added into its adjoint list, whose elements are
        # zeros of their kinds already: 0.0 adds nothing)
        like = [None] * len(s.targets) if self.is_list(value.id) else s.targets
        parts = [ir.name(adj(t)) if t in self.act.active else zero(self.act.kinds.get(t), x)
                 for t, x in zip(s.targets, like)]
        return [self.set_adj(value.id, ast.Tuple(elts=parts, ctx=ast.Load()), s.line)]

    def no_adjoint(self, s, op, out_bar) -> list:
        """A constant, or a result no derivative flows through (activity refuses an
        active operation of unknown kind before): nothing to reverse."""
        return []

    def refuse_active(self, s, op, out_bar) -> list:
        """An operation reverse mode cannot differentiate yet: refused where its
        result is active."""
        if out_bar is not None:
            raise self.unsupported(s, op)
        return []

    def reverse_copy(self, s, op, out_bar) -> list:
        if out_bar is None:
            return []
        (target,) = s.targets
        if self.is_container(target):
            source = op.inputs[0].id
            if self.act.root(source) == self.act.root(target):
                return []  # the same object: its adjoint is shared
            return self.hand_over(target, source, s.line)
        if self.is_list(target):
            return []  # the same list object: its adjoint list is shared
        (x,) = op.inputs
        return [self.set_adj(x.id, out_bar, s.line)] if self.act.is_active(x) else []

    def reverse_listpack(self, s, op, out_bar) -> list:
        if out_bar is None or not self.is_list(s.targets[0]):
            return []
        acc = ir.name(self.acc(s.targets[0]))
        return [self.set_adj(x.id, ast.Subscript(value=acc, slice=ir.const(i),
                                                 ctx=ast.Load()), s.line)
                for i, x in enumerate(op.inputs) if self.act.is_active(x)]

    def reverse_pack(self, s, op, out_bar) -> list:
        if out_bar is None:
            return []
        return [self.set_adj(x.id, ast.Subscript(value=out_bar, slice=ir.const(i),
                                                 ctx=ast.Load()), s.line)
                for i, x in enumerate(op.inputs) if self.act.is_active(x)]

    def reverse_pop(self, s, op, out_bar) -> list:
        """``v = xs.pop()`` whose value is active is refused; a ``pop`` whose value
        gives the output nothing is reversed (`reverse_unread_pop`)."""
        if out_bar is not None:
            raise self.unsupported(s, op)
        return self.reverse_unread_pop(s)

    def reverse_append(self, s, op, out_bar) -> list:
        if not isinstance(s, ir.Expr):
            return []
        xs, v = op.inputs
        # the list as it was before the append, for what the reverse sweep
        # reads of it afterwards (`simplify` drops this when nothing does)
        restore = ir.Expr(ast.Call(func=ast.Attribute(value=ir.name(xs.id), attr="pop",
                                                      ctx=ast.Load()),
                                   args=[], keywords=[]), s.line, restore=True)
        if xs.id not in self.act.active:
            return [restore]
        pop = ast.Call(func=ast.Attribute(value=ir.name(self.acc(xs.id)), attr="pop",
                                          ctx=ast.Load()), args=[], keywords=[])
        if self.act.is_active(v):
            return [self.set_adj(v.id, pop, s.line), restore]
        return [ir.Expr(pop, s.line), restore]  # keep the adjoint list aligned

    def reverse_add_at(self, s, op, out_bar) -> list:
        """``np.add.at(a, i, v)`` and ``add_into(acc, parts)`` into an active array or
        list are refused."""
        if isinstance(s, ir.Expr) and op.inputs[0].id in self.act.active:
            raise self.unsupported(s, op)
        return []

    def reverse_sum(self, s, op, out_bar) -> list:
        if out_bar is None:
            return []
        (xs,) = op.inputs
        if not self.act.is_active(xs):
            return []
        acc = ir.name(self.acc(xs.id))
        k = "%k"
        item = ast.Subscript(value=acc, slice=ir.name(k), ctx=ast.Load())
        every = ast.Call(func=ir.name("range"), args=[ast.Call(
            func=ir.name("len"), args=[acc], keywords=[])], keywords=[])
        return [ir.ForEach(k, every, [ir.AugAssign(item, out_bar, s.line)], s.line)]

    def reverse_getitem(self, s, op, out_bar) -> list:
        if out_bar is None:
            return []
        (target,) = s.targets
        line = s.line
        container, index = op.inputs
        if not self.act.is_active(container):
            return []
        kind = self.act.kinds[container.id]
        if isinstance(kind, ListKind) and isinstance(index, ast.Slice) \
                and self.is_list(target):
            return [self.reverse_list_slice(container.id, index, target, line)]
        if isinstance(kind, ListKind):
            item = ast.Subscript(value=ir.name(self.acc(container.id)), slice=index,
                                 ctx=ast.Load())
            return [ir.AugAssign(item, out_bar, line)]
        if isinstance(kind, ArrayKind):
            acc = ir.name(self.acc(container.id))
            if self.fancy(index):  # repeated indices must add up: np.add.at
                add_at = ast.Attribute(value=ast.Attribute(value=ir.name("np"), attr="add",
                                                           ctx=ast.Load()),
                                       attr="at", ctx=ast.Load())
                self.np_call("add", [])
                return [ir.Expr(ast.Call(func=add_at, args=[acc, _slices_as_calls(index),
                                                            out_bar],
                                         keywords=[]), line)]
            item = ast.Subscript(value=acc, slice=index, ctx=ast.Load())
            return [ir.AugAssign(item, out_bar, line)]
        if not isinstance(index, ast.Constant):
            # an index known at run time only (a loop over the tuple): the adjoint
            # goes to the item it read, ``(g if i == 0 or i == -2 else 0.0, ...)``
            n = len(kind)
            parts = [ast.IfExp(test=_equals_one_of(index, (j, j - n)), body=out_bar,
                               orelse=zero(k)) for j, k in enumerate(kind)]
            return [self.set_adj(container.id, ast.Tuple(elts=parts, ctx=ast.Load()),
                                 line)]
        i = index.value % len(kind)
        parts = [out_bar if j == i else zero(k) for j, k in enumerate(kind)]
        return [self.set_adj(container.id, ast.Tuple(elts=parts, ctx=ast.Load()), line)]

    def reverse_rule(self, s, op, out_bar) -> list:
        if out_bar is None:
            return []
        (target,) = s.targets
        line = s.line
        if op.rule.mode != "reverse":
            raise self.missing_rule(s, op, "reverse")
        wanted = [i for i, x in enumerate(op.inputs) if self.act.is_active(x)]
        assigns, terms = op.rule.instantiate(op.inputs, ir.name(target), [out_bar],
                                             wanted, self.fresh, op.options)
        terms = {i: self.drop_needless_unbroadcast(e, target) for i, e in terms.items()}
        used = set()  # (an unbroadcast dropped needs no import)
        for e in [e for _, e in assigns] + list(terms.values()):
            used |= set(ir.names_in(e))
        self.helpers.update({n: v for n, v in rules.helper_objects(op.rule.template).items()
                             if n in used})
        out = [ir.Assign((n,), self.shape_donor(e), line) for n, e in assigns]
        for i in wanted:
            if i in terms:
                out.append(self.set_adj(op.inputs[i].id, self.shape_donor(terms[i]), line))
        return out

    def reverse_call(self, s, op, out_bar) -> list:
        if out_bar is None or id(s) not in self.calls:
            return []  # (no active argument: the call's result is a constant)
        (target,) = s.targets
        line = s.line
        request, bound = self.calls[id(s)]
        names = [atom.id for p, atom in bound if p in request.active]
        call = ast.Call(func=ir.name(request.bwd),
                        args=[ir.name(ir.derived(target, "saved")), out_bar], keywords=[])
        # an adjoint that accumulates over a loop's iterations, or belongs to a list
        # or array object (one written into, or read by index), receives this
        # call's part
        added = [self.is_accumulator(n) or self.is_container(n) for n in names]
        parts = tuple(ir.derived(adj(n), "part") if a else adj(n)
                      for n, a in zip(names, added))
        out = [ir.Assign(parts, call, line, unpack=len(parts) > 1)]
        return out + [self.set_adj(n, ir.name(t), line)
                      for n, t, a in zip(names, parts, added) if a]


# What the reverse sweep does for each kind of operation `classify` names (every
# kind in `classify.KINDS` has an entry): ``method(transform, statement, op,
# out_bar)`` returns the reverse of the statement (see `_Transform.reverse_operation`).
BY_KIND = {
    "copy": _Transform.reverse_copy,
    "const": _Transform.no_adjoint,
    "rule": _Transform.reverse_rule,
    "call": _Transform.reverse_call,
    "pack": _Transform.reverse_pack,
    "getitem": _Transform.reverse_getitem,
    "listpack": _Transform.reverse_listpack,
    "append": _Transform.reverse_append,
    "pop": _Transform.reverse_pop,
    "repeat": _Transform.refuse_active,
    "add_at": _Transform.reverse_add_at,
    "add_into": _Transform.reverse_add_at,
    "sum": _Transform.reverse_sum,
    "nondiff": _Transform.no_adjoint,
    "unknown": _Transform.no_adjoint,
}

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


def _slices_as_calls(index):
    """An index as an ordinary expression (``1:n`` becomes ``slice(1, n)``), for
    passing it to a function such as ``np.add.at``."""
    def one(part):
        if not isinstance(part, ast.Slice):
            return part
        args = [p if p is not None else ir.const(None) for p in (part.lower, part.upper, part.step)]
        if all(isinstance(a, ast.Constant) and a.value is None for a in args):
            args = args[:1]  # slice(None)
        while len(args) > 2 and isinstance(args[-1], ast.Constant) and args[-1].value is None:
            args.pop()  # slice(1, None), never slice(1), which would mean slice(None, 1)
        return ast.Call(func=ir.name("slice"), args=args, keywords=[])

    if isinstance(index, ast.Tuple):
        return ast.Tuple(elts=[one(p) for p in index.elts], ctx=ast.Load())
    return one(index)


def _nested_list(kind) -> bool:
    """A list inside a tuple, or a list of tuples or lists: adjoints of these are not
    kept yet (a list of arrays or of numbers is fine)."""
    if isinstance(kind, tuple):
        return any(isinstance(k, ListKind) or _nested_list(k) for k in kind)
    if isinstance(kind, ListKind):
        return isinstance(kind.elem, (tuple, ListKind)) or _nested_list(kind.elem)
    return False


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


def _equals_one_of(atom, values) -> ast.expr:
    tests = [ast.Compare(left=ir.copy_tree(atom), ops=[ast.Eq()], comparators=[ir.const(v)])
             for v in values]
    return tests[0] if len(tests) == 1 else ast.BoolOp(op=ast.Or(), values=tests)


def _lists_only(kind) -> bool:
    """Lists of lists (of numbers or arrays), no tuple at any level."""
    if isinstance(kind, ListKind):
        return _lists_only(kind.elem)
    return not isinstance(kind, tuple)

