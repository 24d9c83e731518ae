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
import inspect
from dataclasses import dataclass, field

from .. import checkpoint, ir, primitives as rules
from ..ir.kinds import INT, UNKNOWN, ArrayKind, ListKind, differentiable
from ..primitives.facts import fancy_index, index_kind
from ..analysis.activity import Activity
from ..frontend.anf import RETURNED
from ..errors import CheckpointError, NoRuleError, NotDifferentiableError


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
    cond: list = field(default_factory=list)  # the statements computing its `test`
    test: ast.expr | None = None


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


BROKE = "%broke"  # a checkpointed loop's carried flag: did the step break?


def adj(n: str) -> str:
    return ir.adjoint(n)


def zero(kind, like=None) -> ast.expr:
    """A zero adjoint for a value of `kind` (None for kinds that never carry one);
    an array's zero is ``np.zeros_like(like)``."""
    if isinstance(kind, ArrayKind) and like is not None:
        return _call_np("zeros_like", [ir.name(like)])
    if isinstance(kind, tuple):
        return ast.Tuple(elts=[zero(k) for k in kind], ctx=ast.Load())
    if not differentiable(kind):
        return ir.const(None)
    return ir.const(0.0)


def transform(fn: ir.Function, activity: Activity, derivative_of) -> Reverse:
    if activity.conflict is not None:
        raise activity.conflict
    return _Transform(fn, activity, derivative_of).run()


class _Transform:
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

    def popped_list(self, s):
        """The name of the list ``xs`` of ``xs.pop()``, `s`'s value, or None."""
        op = self.act.ops.get(id(s))
        if op is None or op.kind != "pop" or not isinstance(op.inputs[0], ast.Name):
            return None
        return op.inputs[0].id

    def save_overwritten(self, s: ir.SetItem) -> ir.Assign:
        """``x%old = x[i]`` (a copy for a slice) before the write ``x[i] = v``: the
        reverse sweep puts it back, so what it reads of `x` is what the forward sweep
        read at the same point. `simplify` drops the pair when nothing after the
        write's reverse reads `x`. A list's element is saved as the object it is: the
        write rebinds the slot and leaves that object as it was (a copy would break
        on a number, and would not be the object other names hold)."""
        c = s.container
        index = ir.copy_tree(s.target.slice)
        value = ast.Subscript(value=ir.name(c), slice=index, ctx=ast.Load())
        if self.array_slot(c, index):
            value = ast.Call(func=ast.Attribute(value=value, attr="copy", ctx=ast.Load()),
                             args=[], keywords=[])
        return ir.Assign((ir.derived(c, "old"),), value, s.line)

    def atom_kind(self, atom):
        return self.act.atom_kind(atom, self.fn.refs)

    def array_slot(self, container: str, index) -> bool:
        """Whether ``container[index]`` is a view of `container`'s memory (an array
        container, a basic index that leaves an array), which a write into the same
        slot changes: saving it, or its adjoint, takes a copy."""
        return isinstance(self.act.kinds.get(container), ArrayKind) \
            and isinstance(self.slot_kind(container, index), ArrayKind) \
            and not fancy_index(index, self.atom_kind)

    def slot_kind(self, container: str, index):
        """The kind of ``container[index]``."""
        kind = self.act.kinds.get(container)
        if isinstance(kind, ListKind):
            return kind.elem
        if isinstance(kind, ArrayKind):
            return index_kind(kind, index, self.atom_kind)
        return UNKNOWN

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
        bound = _bind(callee, s.value, self.fn, s.line)
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

    def is_list(self, n: str) -> bool:
        return isinstance(self.act.kinds.get(n), ListKind)

    def is_container(self, n: str) -> bool:
        return self.act.is_container(n)

    def acc(self, n: str) -> str:
        """The adjoint of the list object `n` refers to: one list of adjoints, shared by
        every name of that list, updated in place."""
        return adj(self.act.root(n))

    def list_inits(self, body, top) -> list:
        """Adjoint lists of the lists this block creates (or receives, at the top),
        zeroed before any reverse statement of the block touches them."""
        roots = []
        ids = {id(s) for s in body} | ({0} if top else set())
        for root, made in self.act.created.items():
            if made in ids and root in self.act.active and self.is_container(root) \
                    and root not in roots:
                roots.append(root)
        out = []
        joins = {id(s): s for s in body if isinstance(s, ir.If)}
        for r in roots:
            name = r
            join = joins.get(self.act.created[r])
            if join is not None:  # (made at a join: a name every path gives it)
                both = ir.definitely_assigned(join.body) & ir.definitely_assigned(join.orelse)
                name = min((n for n in both if self.act.root(n) == r), default=r)
            zeros = self.zero_list(name) if self.is_list(r) else self.np_call("zeros_like",
                                                                              [ir.name(name)])
            out.append(ir.Assign((adj(r),), zeros, 0))
            if isinstance(zeros, ast.List):
                self.element_zeros[adj(r)] = out[-1]
            if r == self.seeded:
                seed = ir.name(self.seed_name)
                if self.is_list(r):  # (new elements: the caller's stay as they are)
                    from .. import runtime

                    self.helpers["add_into"] = runtime.add_into
                    out.append(ir.Expr(ast.Call(func=ir.name("add_into"), args=[
                        ir.name(adj(r)), seed], keywords=[]), 0))
                else:
                    out[-1] = ir.Assign((adj(r),), ast.BinOp(left=zeros, op=ast.Add(),
                                                             right=seed), 0)
        return out

    def assembled_lists(self, block) -> list:
        """`block` where an adjoint list that starts as one zero per element
        (`zero_list`) gets nothing but one ``add_into(xs%bar, (a, b))`` (the reverse
        of ``a, b = xs``): the list is made there, ``xs%bar = [a, b]``, as one would
        write it, with the zero of an element the unpacking gave nothing."""
        for acc, init in self.element_zeros.items():
            touching = [s for s in ir.walk(block)
                        if acc in ir.stmt_reads(s) or acc in ir.defined_names(s)]
            if len(touching) != 2 or touching[0] is not init:
                continue
            add = touching[1]
            if not (any(s is add for s in block) and isinstance(add, ir.Expr)
                    and isinstance(add.value, ast.Call)
                    and ir.dotted(add.value.func) == "add_into"
                    and isinstance(add.value.args[1], ast.Tuple)
                    and len(add.value.args[1].elts) == len(init.value.elts)):
                continue
            parts = [zero if isinstance(part, ast.Constant) else part
                     for part, zero in zip(add.value.args[1].elts, init.value.elts)]
            made = ir.Assign((acc,), ast.List(elts=parts, ctx=ast.Load()), add.line)
            block = [made if s is add else s for s in block if s is not init]
        return block

    def zero_list(self, n: str) -> ast.expr:
        """The zero adjoint of the list `n`: ``[0.0] * len(n)``, or where its kind
        lists its elements (`ListKind.items`: an argument holding arrays), one
        zero per element, an array's of its shape and dtype
        (``[np.zeros_like(n[0]), np.zeros_like(n[1])]``), so that the gradient of an
        element nothing reads is that, not the number 0.0."""
        items = self.act.kinds[n].items
        if items is None:
            return _zeros_like_list(n)
        zeros = []
        for i, k in enumerate(items):
            if isinstance(k, ArrayKind):
                element = ast.Subscript(value=ir.name(n), slice=ir.const(i), ctx=ast.Load())
                zeros.append(self.np_call("zeros_like", [element]))
            else:
                zeros.append(zero(k))
        return ast.List(elts=zeros, ctx=ast.Load())

    def np_call(self, func, args) -> ast.Call:
        import numpy

        self.helpers["np"] = numpy
        return _call_np(func, args)

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
                from .. import runtime

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
        if isinstance(s, ir.Assign):
            if not any(t in self.act.active for t in s.targets):
                return self.reverse_unread_pop(s)
            return self.reverse_assign(s)
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
        if isinstance(s, ir.Expr):
            op = self.act.op(s)
            if op.kind in ("add_at", "add_into") and op.inputs[0].id in self.act.active:
                raise self.unsupported(s, op)
            if op.kind == "append":
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
            return self.reverse_unread_pop(s)
        return []

    def reverse_list_slice(self, xs: str, index, part: str, line) -> ir.ForEach:
        """The reverse of ``part = xs[a:b]`` (a new list of some of `xs`'s elements):
        each element's adjoint goes to the element of `xs` it is, ``for k in
        range(len(part_bar)): xs_bar[range(len(xs_bar))[a:b][k]] += part_bar[k]``
        (``xs_bar[a:b] += part_bar`` would concatenate the lists)."""
        acc, got = ir.name(self.acc(xs)), ir.name(self.acc(part))
        k = "%k"

        def length(n):
            return ast.Call(func=ir.name("len"), args=[n], keywords=[])

        positions = ast.Subscript(value=ast.Call(func=ir.name("range"), args=[length(acc)],
                                                 keywords=[]),
                                  slice=ir.copy_tree(index), ctx=ast.Load())
        slot = ast.Subscript(value=ir.copy_tree(acc), slice=ast.Subscript(
            value=positions, slice=ir.name(k), ctx=ast.Load()), ctx=ast.Load())
        every = ast.Call(func=ir.name("range"), args=[length(ir.copy_tree(got))], keywords=[])
        add = ir.AugAssign(slot, ast.Subscript(value=ir.copy_tree(got), slice=ir.name(k),
                                               ctx=ast.Load()), line)
        return ir.ForEach(k, every, [add], line)

    def reverse_unread_pop(self, s) -> list:
        """The reverse of ``xs.pop()`` whose value gives the output nothing: the
        element's adjoint (zero) goes back on the end of the adjoint list, which the
        reverse sweep found one element shorter, so the adjoints after it stay with
        their elements."""
        op = self.act.op(s)
        if op.kind != "pop" or not isinstance(op.inputs[0], ast.Name):
            return []
        xs = op.inputs[0].id
        # the element goes back on the list too, for what the reverse sweep reads of
        # it afterwards (`simplify` drops this, and the forward save, when nothing does)
        old = ir.name(s.targets[0] if isinstance(s, ir.Assign) else ir.derived(xs, "old"))
        restore = ir.Expr(ast.Call(func=ast.Attribute(value=ir.name(xs), attr="append",
                                                      ctx=ast.Load()),
                                   args=[old], keywords=[]), s.line, restore=True)
        if xs not in self.act.active:
            return [restore]
        grow = ast.Call(func=ast.Attribute(value=ir.name(self.acc(xs)),
                                           attr="append", ctx=ast.Load()),
                        args=[ir.const(0.0)], keywords=[])
        return [ir.Expr(grow, s.line), restore]

    def reverse_setitem(self, s: ir.SetItem) -> list:
        """The reverse of ``x[i] = v``: `v`'s adjoint is what the slot's adjoint holds,
        the slot's adjoint becomes zero (the values before the write did not reach the
        output through it), and the overwritten values go back into `x`."""
        c = s.container
        index = s.target.slice
        out = []
        if c in self.act.active:
            acc = ir.name(self.acc(c))
            slot = ast.Subscript(value=acc, slice=ir.copy_tree(index), ctx=ast.Load())
            if self.act.is_active(s.value):
                out.append(self.set_adj(s.value.id, self.slot_adjoint(slot, c, index, s.value),
                                        s.line))
            out.append(ir.SetItem(ast.Subscript(value=ir.copy_tree(acc), slice=ir.copy_tree(index),
                                                ctx=ast.Store()), ir.const(0.0), s.line))
        out.append(ir.SetItem(ast.Subscript(value=ir.name(c), slice=ir.copy_tree(index),
                                            ctx=ast.Store()),
                              ir.name(ir.derived(c, "old")), s.line, restore=True))
        return out

    def slot_adjoint(self, slot, container, index, value) -> ast.expr:
        """The adjoint of the value written into ``container[index]``, read from the
        slot of the container's adjoint (a copy, since the slot is zeroed next)."""
        target = self.slot_kind(container, index)
        if not isinstance(target, ArrayKind):
            return slot  # one element: a number, not a view
        kind = self.act.kinds.get(value.id)
        if not isinstance(kind, ArrayKind):
            return self.np_call("sum", [slot])  # one number written into many elements
        from .. import runtime

        self.helpers["unbroadcast"] = runtime.unbroadcast
        if kind.ndim is None or target.ndim is None or kind.ndim >= target.ndim:
            if self.array_slot(container, index):  # (a list's slot is rebound, not zeroed)
                slot = ast.Call(func=ast.Attribute(value=slot, attr="copy", ctx=ast.Load()),
                                args=[], keywords=[])
        return ast.Call(func=ir.name("unbroadcast"), args=[slot, ir.name(value.id)], keywords=[])

    def hand_over(self, target: str, source, line) -> list:
        """The reverse of a loop-carried array taking its next value, ``u = v``: what
        `u`'s adjoint holds belongs to `v`; `u`'s adjoint starts again from zero for
        the array `u` held before."""
        acc = ir.name(self.acc(target))
        out = []
        if self.act.is_active(ir.name(source)):
            out.append(self.set_adj(source, acc, line))
        out.append(ir.Assign((self.acc(target),), self.np_call("zeros_like", [ir.copy_tree(acc)]),
                             line))
        return out

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

    # ------------------------------------------------------- checkpointed loops

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
        if _breaks(s.body):
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
            if self.is_list(p.name):
                return self.checkpoint_error(
                    s, f"the checkpointed loop changes the list or array "
                    f"`{p.name.split('%')[0]}` in place", "Build a new one each iteration.")
        passed = {self.act.root(n) for n in [p.name for p in s.phis] + self.checkpoint_args(s)}
        for sub in ir.walk(s.cond + s.body):
            written = sub.container if isinstance(sub, ir.SetItem) else None
            if isinstance(sub, ir.Expr) and self.act.op(sub).kind == "append":
                written = self.act.op(sub).inputs[0].id
            if written is not None and self.act.root(written) in passed:
                return self.checkpoint_error(
                    sub, f"the checkpointed loop changes `{written.split('%')[0]}` in place, "
                    "which its snapshots cannot hold", "Build a new list or array each "
                    "iteration (`u = u.copy()` before writing into it).")
        return None

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
        breaks = _breaks(s.body)
        # a loop with a `break` carries whether it broke: the scheduler's test reads it
        state = [p.name for p in s.phis] + ([BROKE] if breaks else [])
        args = self.checkpoint_args(s)
        base = self.fn.name.split("%")[0]
        suffix = self.tape_names[s.tag][len("%tape"):]
        name = f"{base}%step{suffix}"
        target = s.target or "%_"
        cond = _feeding(s.cond, s.body)
        if s.body and isinstance(s.body[-1], ir.Exit):  # one path: return the new values
            given = {c.targets[0]: c.value for c in s.body[-1].copies}
            given[BROKE] = ir.const(s.body[-1].brk)
            body = ir.copy_tree(cond + s.body[:-1])
            outputs = [ir.copy_tree(given.get(p, ir.name(p))) for p in state]
        else:
            nexts = {p: ir.derived(p, "next") for p in state}
            body = ir.copy_tree(cond) + _exits_as_copies(s.body, nexts)
            outputs = [ir.name(nexts[p]) for p in state]
        # one reversed iteration: recompute it, then reverse it (the whole test, whose
        # reverse reads its branches' conditions; not only what the body reads of it)
        tapes_before = len(self.tapes)
        forward = _without_exits(self.forward_block(s.cond) + self.forward_block(s.body))
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
                reverse.append(ir.Assign((adj(p),), zero(self.act.kinds.get(p), p), s.line))
        step = Step(name, ir.derived(name, "bar"), target, state, args, body, outputs,
                    forward, reverse, bar, s.line)
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
                start.append(zero(self.act.kinds.get(source), source))
            else:
                start.append(ir.name(b))
        out = []
        if step.bar:
            call = ast.Call(func=ast.Attribute(value=ir.name(ckpt), attr="reverse",
                                               ctx=ast.Load()),
                            args=[ir.name(step.bar_name), _tuple(start)], keywords=[])
            out.append(ir.Assign(tuple(step.bar), call, s.line, unpack=True))
        active_phis = [p for p in s.phis if p.name in self.act.active]
        out += [self.set_adj(p.init.id, ir.name(self.acc(p.name) if self.is_container(p.name)
                                                else adj(p.name)), s.line)
                for p in active_phis if self.act.is_active(p.init)]
        return out

    def reverse_iter(self, s: ir.Loop) -> ast.expr:
        if s.iter is None:
            return ast.Call(func=ir.name("range"), args=[ir.name(self.count_names[s.tag])],
                            keywords=[])
        iter_ = s.iter
        if _counted(s):
            iter_ = ast.Subscript(value=iter_, slice=ast.Slice(
                lower=None, upper=ir.name(self.count_names[s.tag]), step=None), ctx=ast.Load())
        return ast.Call(func=ir.name("reversed"), args=[iter_], keywords=[])

    def reverse_assign(self, s: ir.Assign) -> list:
        op = self.act.op(s)
        line = s.line
        names = [t for t in s.targets if t in self.act.active] + [
            x.id for x in op.inputs if self.act.is_active(x)]
        if any(_nested_list(self.act.kinds.get(n)) for n in names) and not (
                op.kind in ("listpack", "copy", "rule") and not s.unpack
                and all(_lists_only(self.act.kinds.get(n)) for n in names)):
            # (lists of lists built by displays and handed to NumPy, as in
            # ``np.array([[a, b], [c, d]])``, are fine: their adjoints are lists of rows)
            info = self.fn.source
            raise NotDifferentiableError(
                "s2sad cannot differentiate a list inside a tuple, or a list of tuples or "
                "lists, in reverse mode yet",
                filename=info.filename if info else None, lineno=line or None,
                source_line=info.line_text(line) if info and line else None,
                hint="Keep one flat list per value (xs.append(a); ys.append(b)), or use a "
                     "NumPy array.")
        if s.unpack:
            value = s.value
            if not self.act.is_active(value):
                return []
            # (a list's parts are added into its adjoint list, whose elements are
            # zeros of their kinds already: 0.0 adds nothing)
            like = [None] * len(s.targets) if self.is_list(value.id) else s.targets
            parts = [ir.name(adj(t)) if t in self.act.active else zero(self.act.kinds.get(t), x)
                     for t, x in zip(s.targets, like)]
            return [self.set_adj(value.id, ast.Tuple(elts=parts, ctx=ast.Load()), line)]
        (target,) = s.targets
        # (a container's adjoint is its object's: made at a join, it is named for
        # the object made on another path)
        out_bar = ir.name(self.acc(target) if self.is_container(target) else adj(target))
        if self.is_container(target) and op.kind == "copy":
            source = op.inputs[0].id
            if self.act.root(source) == self.act.root(target):
                return []  # the same object: its adjoint is shared
            return self.hand_over(target, source, line)
        if self.is_list(target) and op.kind in ("copy", "listpack"):
            if op.kind == "copy":
                return []  # the same list object: its adjoint list is shared
            acc = ir.name(self.acc(target))
            return [self.set_adj(x.id, ast.Subscript(value=acc, slice=ir.const(i),
                                                     ctx=ast.Load()), line)
                    for i, x in enumerate(op.inputs) if self.act.is_active(x)]
        if op.kind == "copy":
            (x,) = op.inputs
            return [self.set_adj(x.id, out_bar, line)] if self.act.is_active(x) else []
        if op.kind in ("pop", "repeat"):
            raise self.unsupported(s, op)
        if op.kind == "sum":
            (xs,) = op.inputs
            if not self.act.is_active(xs):
                return []
            acc = ir.name(self.acc(xs.id))
            k = "%k"
            item = ast.Subscript(value=acc, slice=ir.name(k), ctx=ast.Load())
            every = ast.Call(func=ir.name("range"), args=[ast.Call(
                func=ir.name("len"), args=[acc], keywords=[])], keywords=[])
            return [ir.ForEach(k, every, [ir.AugAssign(item, out_bar, line)], line)]
        if op.kind == "pack":
            return [self.set_adj(x.id, ast.Subscript(value=out_bar, slice=ir.const(i),
                                                     ctx=ast.Load()), line)
                    for i, x in enumerate(op.inputs) if self.act.is_active(x)]
        if op.kind == "getitem":
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
        if op.kind == "rule":
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
        if op.kind == "call":
            if id(s) not in self.calls:
                return []  # no active argument: the call's result is a constant
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
        return []


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


def _call_np(func, args) -> ast.Call:
    return ast.Call(func=ast.Attribute(value=ir.name("np"), attr=func, ctx=ast.Load()),
                    args=args, keywords=[])


def _zeros_like_list(n: str) -> ast.expr:
    """``[0.0] * len(n)``."""
    return ast.BinOp(left=ast.List(elts=[ir.const(0.0)], ctx=ast.Load()), op=ast.Mult(),
                     right=ast.Call(func=ir.name("len"), args=[ir.name(n)], keywords=[]))


def _counted(s: ir.Loop) -> bool:
    """Must the forward sweep count the iterations (a ``while``, or a ``break``)?"""
    return s.iter is None or _breaks(s.body)


def _breaks(body) -> bool:
    for s in body:
        if isinstance(s, ir.Exit) and s.brk:
            return True
        if isinstance(s, ir.If) and (_breaks(s.body) or _breaks(s.orelse)):
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


def _without_exits(body) -> list:
    out = []
    for s in body:
        if isinstance(s, ir.Exit):
            continue
        if isinstance(s, ir.If):
            s = ir.If(s.test, _without_exits(s.body), _without_exits(s.orelse), s.line)
        out.append(s)
    return out


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


def _bind(callee, call: ast.Call, fn: ir.Function, line: int):
    """Pair each argument atom of a call with the callee parameter it binds to."""
    sig = inspect.signature(callee)
    try:
        bound = sig.bind(*call.args, **{k.arg: k.value for k in call.keywords})
    except TypeError as exc:
        info = fn.source
        raise NotDifferentiableError(
            f"the call of {callee.__qualname__} does not match its signature: {exc}",
            filename=info.filename if info else None, lineno=line,
            source_line=info.line_text(line) if info else None,
        ) from None
    return list(bound.arguments.items())


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


def missing_rule(fn, s, op, mode) -> NoRuleError:
    """The error for a callable registered with rules for the other mode only."""
    info = fn.source
    other = "forward" if mode == "reverse" else "reverse"
    note = getattr(op.rule, "note", "") if mode == "reverse" else ""
    text = info.line_text(s.line) if info and s.line else None
    return NoRuleError(
        f"{op.text} has a {other} rule but no {mode} rule, and {mode} mode needs one"
        + (f"; s2sad cannot derive it from the forward rule: {note}" if note else ""),
        filename=info.filename if info else None, lineno=s.line or None,
        col=len(text) - len(text.lstrip()) if text else None, source_line=text,
        hint=f"Register one: s2sad.register_rule(func, {mode}=...), or use "
             f"{'s2sad.jvp' if mode == 'reverse' else 's2sad.grad / s2sad.vjp'}.")
