"""anf: parsed function -> IR in A-normal form with SSA names.

Contract
--------
`to_anf(parsed)` desugars the function (`desugar`: no docstring, every ``return``,
``break`` and ``continue`` last on its path, no ``return`` inside a loop) and lowers
it to an `ir.Function` that computes exactly what the user's function computes, in
the same order, with the same exceptions, and in which

* every statement is one of:
    ``name = atom``                       a copy
    ``name = atom OP atom`` / ``OP atom``  one operator (arithmetic or comparison)
    ``name = ref(atom, ..., kw=atom)``     one call of a static reference (an
                                          argument written as a tuple of integer
                                          literals, ``axis=(0, 1)``, stays one
                                          constant atom holding the tuple)
    ``name = (atom, ...)``                 a tuple display
    ``name = atom[atom]``                  one subscript
    ``n1, n2, ... = atom``                 tuple unpacking
    ``ref(atom, ...)``                     a call evaluated for its effect
    ``if atom: ... else: ...``             (`ir.If`)
    ``return atom``                        once, as the last statement;
* every name is assigned at most once on any path (SSA): a reassigned variable ``x``
  becomes ``x``, ``x%1``, ``x%2``... (printed ``x_1``, ``x_2``); augmented assignment
  becomes plain assignment;
* where branches join, a variable assigned in a branch, defined on both paths and
  live after the join (`liveness`) is assigned under one name, as the last
  definition in each branch (the branches' versions are renamed to it, or copied
  into it); a value returned in a branch joins like any variable (as ``result``);
* lazy operators keep their laziness: ``a if c else b``, ``and``, ``or`` and chained
  comparisons become `ir.If` statements, so an operand that would raise is still
  evaluated only when Python would evaluate it;
* loops become `ir.Loop`: ``for`` over ``range(...)`` (or ``reversed(range(...))``)
  keeps its target; a loop over a list or tuple, ``enumerate`` or ``zip`` (nested
  in each other too) iterates an index over ``range(n)`` (``n`` taken once, before
  the loop) and reads the elements by index; ``while`` keeps its condition as the statements `cond` and the
  atom `test`; ``s2sad.checkpointed(...)`` around the iterable or the test becomes
  the loop's `checkpoint`. A variable the body assigns that is live at the loop's
  head is a `ir.Phi` with one name (its value at the start of an iteration), and
  every path through a body ends with one `ir.Exit` that assigns the phis (and
  breaks, for ``break``: then only those read after the loop). The flags `desugar`
  sets for a ``return`` inside a loop are phis like any variable.

``pass`` and annotations are dropped. A read of a variable that has no assignment
on any path before it raises ``UnboundLocalError`` there, as Python does, inside a
branch (where `desugar` moved the lines after an ``if`` that returns); anywhere else
it is refused (`UnsupportedSyntaxError`), as are calls of
something that is not a name or a dotted name. Loops over a list, ``enumerate``, ``zip``
or ``reversed(range(...))`` are lowered here rather than rewritten in `desugar`: the
loop reads the sequence it was given, the SSA version current before the loop (the body
may rebind the name), which a rewrite of the source could say only with a copy the
printed stages do not have.

Size: a little over 800 lines, nearly all of them the one class `_Lowerer`, whose
methods share one state (see its docstring)."""

from __future__ import annotations

import ast
import builtins

from .. import ir
from ..ir.kinds import ITERATED, PLACEHOLDER, STARRED
from ..checkpoint import SCHEDULES, checkpointed
from ..errors import CheckpointError, UnsupportedSyntaxError
from .blocks import close_open_paths, coalesce_copies, rename_block
from .desugar import compiler_locals, desugar
from .kept import KeptLowering
from .liveness import assigned_in_order, liveness
from .parse import Located, Parsed

RESULT = "%result"


def to_anf(parsed: Parsed) -> ir.Function:
    """`parsed`, desugared (`desugar.desugar`), lowered to ANF/SSA. See the module
    docstring."""
    return _Lowerer(parsed, desugar(parsed)).function()


class _Unbound(Exception):
    """A read of a local no path to it assigns (the ``ast.Name``): `unbound_read`."""


class _Lowerer(KeptLowering):
    """Lowers one desugared function (`kept`: the code it keeps as written).

    Size: about 650 lines, one class because its methods share one state: the
    current SSA name of each variable, the statements being written and the loops
    being lowered."""

    def __init__(self, parsed: Parsed, tree: ast.FunctionDef):
        self.parsed = parsed
        self.tree = tree  # (desugared)
        self.loc = Located(parsed.info, 0)
        self.locals = set(parsed.locals) | compiler_locals(tree, parsed)
        self.env: dict[str, str] = {}
        self.versions: dict[str, int] = {}
        self.temps = 0
        self.out: list = []
        self.line = 0
        self.loops: list = []  # (phis, names live after) of the loops lowered, innermost last
        self.loop_count = 0
        self.terminated = False  # the current path has left the iteration (Exit)
        self.branches = 0  # the branches the current statement is in (`unbound_read`)
        self.live: dict = {}  # id of a loop -> the names live at its head
        self.live_after: dict = {}  # id of an `if` -> the names live after it
        # loop-carried versions with no value before their loop (first assigned in it),
        # and those of them a copy the lowering adds reads (see `copied`)
        self.unborn: dict = {}
        self.unborn_copied: set = set()

    # ------------------------------------------------------------ naming

    def temp(self) -> str:
        self.temps += 1
        return f"%{self.temps}"

    def new_version(self, var: str) -> str:
        n = self.versions.get(var)
        if n is None:
            self.versions[var] = 0
            return var
        while ir.derived(var, str(n + 1)) in self.locals:  # (``q%1``: the second place
            n += 1  # of a tuple `q` split by place, a name of the function's own)
        self.versions[var] = n + 1
        return ir.derived(var, str(n + 1))

    def error(self, node, message, hint=None):
        return self.loc.error(UnsupportedSyntaxError, node, message, hint)

    # ---------------------------------------------------------- function

    def function(self) -> ir.Function:
        a = self.tree.args
        params = []
        positional = a.posonlyargs + a.args
        defaults = [None] * (len(positional) - len(a.defaults)) + list(a.defaults)
        for p, d in zip(positional, defaults):
            params.append(ir.Param(p.arg, _plain_default(d)))
        for p, d in zip(a.kwonlyargs, a.kw_defaults):
            params.append(ir.Param(p.arg, _plain_default(d), kwonly=True))
        for p in params:
            self.env[p.name] = p.name
            self.versions[p.name] = 0
        body = self.tree.body
        self.live, self.live_after = liveness(body)
        self.block(body, top=True)
        for version in self.unborn_copied:
            # A copy the lowering adds (an inner loop's initial value, a join of a branch
            # that does not assign the name, an exit) may read the name where Python has
            # not bound it: None before its loop, never read as a number (Python raises)
            self.unborn[version].init = ir.const(None)
            self.unborn[version].unborn = True
        coalesce_copies(self.out)
        refs = dict(self.parsed.refs)
        for name in ("len", "range", "min", "list"):  # builtins the loops' lowering calls
            refs.setdefault(name, getattr(builtins, name))
        return ir.Function(self.tree.name, params, self.out, refs, self.parsed.info)

    # ---------------------------------------------------------- statements

    def block(self, stmts, top=False):
        for s in stmts:
            if self.terminated:
                break  # after break/continue: never runs
            self.line = s.lineno
            out, loops, branches = self.out, len(self.loops), self.branches
            try:
                if isinstance(s, ast.Return):
                    value = self.atom(s.value) if s.value is not None else ir.const(None)
                    if top:
                        self.emit(ir.Return(value, s.lineno))
                    else:
                        self.assign_var(RESULT, value)
                elif type(s) is ast.Assign:  # (the commonest: no look for its method)
                    self.s_Assign(s)
                else:
                    self.statement(s)
            except _Unbound as unbound:  # (what lowering `s` began is left behind)
                self.out, self.branches = out, branches
                del self.loops[loops:]
                self.unbound_read(unbound.args[0])
        if top and (not self.out or not isinstance(self.out[-1], ir.Return)):
            # (no value where every path raises)
            self.emit(ir.Return(ir.name(self.env[RESULT]) if RESULT in self.env
                                else ir.const(None), self.line))

    def unbound_read(self, node: ast.Name):
        """A read of `node`, a local no path to here assigns: inside a branch, where
        the statements after an ``if`` whose branch returns were moved (`desugar`),
        that path raises there as Python does, and the paths that assign the name run
        (``if x > y: (if y > 1.96: return x) z = x * x`` then ``return z * y``): a
        ``raise UnboundLocalError(...)`` ends the path (and the iteration, in a loop:
        an `ir.Exit` after it, never reached). Elsewhere the read is refused."""
        if not self.branches:
            raise self.error(node, f"`{node.id}` is read before it is assigned",
                             f"Assign `{node.id}` on every path before this line.")
        message = f"cannot access local variable '{node.id}' where it is not associated " \
                  "with a value"
        self.emit(ir.Kept(ast.Raise(exc=ast.Call(
            func=ast.Name(id="UnboundLocalError", ctx=ast.Load()),
            args=[ast.Constant(value=message)], keywords=[]), cause=None,
            lineno=node.lineno, col_offset=node.col_offset), [], self.line))
        if self.loops:
            self.emit(self.exit_stmt(False))
        self.terminated = True

    def lowered(self, branch):
        """Lower one branch of an ``if`` or of a lazy operator (``a if c else m``,
        ``c and m``): a read of a name no path to it assigns raises on that branch
        alone (`unbound_read`)."""
        try:
            branch()
        except _Unbound as unbound:
            self.unbound_read(unbound.args[0])

    def emit(self, stmt):
        self.out.append(stmt)

    def statement(self, s):
        meth = getattr(self, "s_" + type(s).__name__, None)
        if meth is None:  # parse refuses these; a missing handler is our bug
            raise self.error(s, f"s2sad cannot differentiate a `{type(s).__name__}` statement")
        meth(s)

    def s_Pass(self, s):
        pass

    def s_Expr(self, s):
        if isinstance(s.value, ast.Constant):
            return  # a stray string or number: no effect
        value = self.value(s.value)
        self.emit(ir.Expr(value, self.line))

    def s_Assign(self, s):
        if len(s.targets) == 1:
            self.assign_target(s.targets[0], s.value)
            return
        value = self.atom(s.value)
        for t in s.targets:
            self.bind_target(t, value)

    def s_AnnAssign(self, s):
        self.assign_target(s.target, s.value)

    def s_AugAssign(self, s):
        if isinstance(s.target, ast.Subscript):
            # x[i] += v: read the element, compute, write it back (the index once)
            container, index = self.item_target(s.target)
            current = self.temp()
            self.emit(ir.Assign((current,), ast.Subscript(value=container, slice=index,
                                                           ctx=ast.Load()), self.line))
            right = self.atom(s.value)
            new = self.temp()
            self.emit(ir.Assign((new,), ast.BinOp(left=ir.name(current), op=s.op, right=right),
                                self.line, item=True))
            self.emit(ir.SetItem(ast.Subscript(value=ir.copy_tree(container),
                                               slice=ir.copy_tree(index), ctx=ast.Store()),
                                 ir.name(new), self.line))
            return
        current = self.read(s.target)
        right = self.atom(s.value)
        self.assign_var(s.target.id, ast.BinOp(left=current, op=s.op, right=right))
        self.out[-1].inplace = True

    def item_target(self, target: ast.Subscript):
        """The container (a local's current name) and the lowered index of a write
        ``x[...] = ...``."""
        name = target.value
        if name.id not in self.locals:
            raise self.error(target, f"s2sad cannot differentiate a write into `{name.id}`, "
                                     "which is not a local variable of the function",
                             f"Pass `{name.id}` in and write into a copy: "
                             f"`{name.id} = {name.id}.copy()`.")
        return self.read(name), self.index(target.slice)

    def s_If(self, s):
        test = self.atom(s.test)
        self.branch(test, lambda: self.block(s.body), lambda: self.block(s.orelse), s.lineno,
                    self.live_after.get(id(s)))

    # ------------------------------------------------------------- loops

    def s_Break(self, s):
        self.exit(True)

    def s_Continue(self, s):
        self.exit(False)

    def exit(self, brk):
        self.emit(self.exit_stmt(brk))
        self.terminated = True

    def copied(self, version: str) -> ast.Name:
        """`version` read by a copy the lowering adds (not by the user's code)."""
        if version in self.unborn:
            self.unborn_copied.add(version)
        return ir.name(version)

    def exit_stmt(self, brk) -> ir.Exit:
        phis, after = self.loops[-1]  # (a `break` copies only what is read after the loop)
        copies = [ir.Assign((phi.name,), self.copied(self.env[v]), self.line)
                  for v, phi in phis if v in self.env and self.env[v] != phi.name
                  and (not brk or after is None or v in after)]
        return ir.Exit(copies, brk, self.line)

    def s_While(self, s):
        if s.orelse:
            raise self.error(s, "s2sad cannot differentiate `while ... else`",
                             "Move the `else` part after the loop, guarded by a flag.")
        func = s.test.func if isinstance(s.test, ast.Call) else None
        if func is not None and self.is_static(func) and \
                self.parsed.refs.get(ir.dotted(func)) is checkpointed:
            # ``while s2sad.checkpointed(test):``: CTZ, the schedule that needs no trip
            # count in advance
            test, checkpoint = self.checkpoint_marker(s.test)
            if checkpoint[0] != "ctz":
                raise self.loc.error(
                    CheckpointError, s.test, "binomial checkpointing needs the number of "
                    "iterations when the loop starts, and a while loop's is not known then",
                    "Use schedule=\"ctz\" (the default) for a while loop, or loop over "
                    "range(n).")
            self.loop(s, None, None, None, checkpoint, test)
            return
        self.loop(s, None, None, None)

    def s_For(self, s):
        if s.orelse:
            raise self.error(s, "s2sad cannot differentiate `for ... else`",
                             "Move the `else` part after the loop, guarded by a flag.")
        func = s.iter.func if isinstance(s.iter, ast.Call) else None
        callee = self.parsed.refs.get(ir.dotted(func)) if func is not None and \
            self.is_static(func) else None
        checkpoint = None
        if callee is checkpointed:
            iter_node, checkpoint = self.checkpoint_marker(s.iter)
            func = iter_node.func if isinstance(iter_node, ast.Call) else None
            callee = self.parsed.refs.get(ir.dotted(func)) if func is not None and \
                self.is_static(func) else None
            if callee is not range:
                raise self.error(iter_node, "s2sad checkpoints loops over range() only",
                                 "Write `for i in s2sad.checkpointed(range(n), ...)`.")
        if callee is range:
            if not isinstance(s.target, ast.Name):
                raise self.error(s.target, "the target of a loop over range() must be one name")
            self.line = s.lineno
            iter_ = self.e_Call(iter_node if checkpoint else s.iter)
            self.loop(s, iter_, s.target.id, None, checkpoint)
            return
        backwards = self.reversed_range(s.iter) if callee is reversed else None
        if backwards is not None:  # reversed(range(...)): the range read backwards
            if not isinstance(s.target, ast.Name):
                raise self.error(s.target, "the target of a loop over range() must be one name")
            self.line = s.lineno
            iter_ = ast.Subscript(value=backwards(), slice=ast.Slice(
                lower=None, upper=None, step=ir.const(-1)), ctx=ast.Load())
            self.loop(s, iter_, s.target.id, None)
            return
        if callee is enumerate or callee is zip:
            self.line = s.lineno
            tree = self.sequences(s.iter)  # (zips and enumerates in each other, read in step)
            n = self.length(_leaves(tree))
            self.loop(s, _call("range", [n]), None,
                      lambda index: self.bind_items(s.target, tree, index))
            return
        self.line = s.lineno
        seq = self.atom(s.iter)
        n = self.length([seq])
        self.loop(s, _call("range", [n]), None,
                  lambda index: self.bind_element(s.target, seq, index))

    def sequences(self, node):
        """What a loop over `node` reads in step: ``("zip", parts)``, ``("enumerate",
        part, start atom or None)``, or ``("seq", atom)`` for a sequence."""
        callee = self.parsed.refs.get(ir.dotted(node.func)) if isinstance(node, ast.Call) \
            and self.is_static(node.func) else None
        if callee is zip and (node.keywords or not node.args):
            raise self.error(node, "s2sad differentiates zip() of sequences, without strict=")
        if callee is zip:
            return "zip", [self.sequences(a) for a in node.args]
        args = list(getattr(node, "args", ()))
        if callee is enumerate and len(args) in (1, 2):
            start = next((k.value for k in node.keywords if k.arg == "start"), args[1:] or None)
            part = self.sequences(args[0])
            return "enumerate", part, None if start is None else self.atom(
                start[0] if isinstance(start, list) else start)
        if callee is enumerate or getattr(callee, "__module__", None) == "itertools":
            what = "takes one sequence" if callee is enumerate else "has no length"
            raise self.error(node, "s2sad lowers a loop over zip() or enumerate() to indexes "
                                   f"of its sequences, and {callee.__name__}() {what}",
                             hint="Index a sequence in the loop (`w = ws[i % len(ws)]`).")
        return "seq", self.atom(node)

    def bind_items(self, target, tree, index):
        """Bind `target` to item `index` of what `sequences` gave, unpacking as Python
        does (``for i, (a, (b, c)) in enumerate(zip(xs, zip(ys, zs)))``)."""
        if tree[0] == "seq":
            return self.bind_element(target, tree[1], index)
        parts = tree[1] if tree[0] == "zip" else [None, tree[1]]
        if not (isinstance(target, ast.Tuple) and len(target.elts) == len(parts)):
            raise self.error(target, f"unpack the items of {tree[0]}() into {len(parts)} "
                                     "names: `for a, b in ...`")
        if tree[0] == "enumerate":
            count = ast.BinOp(left=ir.name(index), op=ast.Add(), right=tree[2])
            self.bind_target(target.elts[0], ir.name(index) if tree[2] is None else
                             self.value_atom(count))
        for t, part in zip(target.elts, parts):
            if part is not None:
                self.bind_items(t, part, index)

    def checkpoint_marker(self, call):
        """The loop's iterable and ``(schedule, snapshots atom)`` of
        ``s2sad.checkpointed(iterable, snapshots=..., schedule=...)``."""
        names = ["iterable", "snapshots", "schedule"]
        given = dict(zip(names, call.args))
        for k in call.keywords:
            if k.arg not in names or k.arg in given:
                raise self.error(call, f"checkpointed() takes {', '.join(names)}")
            given[k.arg] = k.value
        if "iterable" not in given or len(call.args) > 3:
            raise self.error(call, f"checkpointed() takes {', '.join(names)}")
        schedule = given.get("schedule", ast.Constant(value="ctz"))
        if not (isinstance(schedule, ast.Constant) and schedule.value in SCHEDULES):
            raise self.error(schedule, "the schedule of checkpointed() must be written as "
                             f"one of {', '.join(map(repr, SCHEDULES))}")
        snapshots = given.get("snapshots")
        self.line = call.lineno
        atom = None if snapshots is None else self.atom(snapshots)
        return given["iterable"], (schedule.value, atom)

    def reversed_range(self, call):
        """For ``reversed(range(...))`` or ``reversed(range(...)[a:b])``, a function
        lowering the range expression; else None."""
        if len(call.args) != 1 or call.keywords:
            return None
        inner = call.args[0]
        sliced = None
        if isinstance(inner, ast.Subscript) and isinstance(inner.slice, ast.Slice):
            inner, sliced = inner.value, inner.slice
        if not (isinstance(inner, ast.Call) and self.is_static(inner.func)
                and self.parsed.refs.get(ir.dotted(inner.func)) is range):
            return None

        def lower():
            value = self.e_Call(inner)
            if sliced is None:
                return value
            return ast.Subscript(value=value, slice=self.index(sliced), ctx=ast.Load())
        return lower

    def length(self, seqs) -> ast.expr:
        """An atom holding the number of items, taken once before the loop."""
        lens = []
        for seq in seqs:
            t = self.temp()
            self.emit(ir.Assign((t,), _call("len", [seq]), self.line))
            lens.append(ir.name(t))
        if len(lens) == 1:
            return lens[0]
        t = self.temp()
        self.emit(ir.Assign((t,), _call("min", lens), self.line))
        return ir.name(t)

    def value_atom(self, value) -> ast.expr:
        t = self.temp()
        self.emit(ir.Assign((t,), value, self.line))
        return ir.name(t)

    def bind_element(self, target, seq, index):
        item = ast.Subscript(value=seq, slice=ir.name(index), ctx=ast.Load())
        setattr(item, ITERATED, True)  # (`ir.kinds.ITERATED`)
        if isinstance(target, ast.Name):
            self.assign_var(target.id, item)
        else:
            self.bind_target(target, self.value_atom(item))

    def loop(self, s, iter_, target_var, prefix, checkpoint=None, test_node=None):
        line = s.lineno
        self.loop_count += 1
        tag = self.loop_count
        phis = []
        for v in self.phi_vars(s, target_var):
            init = self.copied(self.env[v]) if v in self.env else None
            phis.append((v, ir.Phi(self.new_version(v), init)))
            if init is None:
                self.unborn[phis[-1][1].name] = phis[-1][1]
        for v, phi in phis:
            self.env[v] = phi.name
        if target_var is not None:
            target = self.new_version(target_var)
        elif iter_ is not None:
            target = self.temp()
        else:
            target = None
        outer_out, outer_terminated = self.out, self.terminated
        self.terminated = False
        cond, test = [], None
        if iter_ is None:
            self.out = cond
            self.line = line
            test = self.atom(s.test if test_node is None else test_node)
        self.out = body = []
        self.loops.append((phis, self.live_after.get(id(s))))
        if target_var is not None:
            self.env[target_var] = target
        if prefix is not None:
            self.line = line
            prefix(target)
        self.block(s.body)
        if not self.terminated:
            close_open_paths(body, self.exit_stmt(False))
        self.loops.pop()
        self.out, self.terminated = outer_out, outer_terminated
        self.emit(ir.Loop(target, iter_, body, [p for _, p in phis], line, tag, cond, test,
                          checkpoint))
        for v, phi in phis:  # after the loop every phi holds its last value
            self.env[v] = phi.name

    def phi_vars(self, s, target_var) -> list:
        """Variables the loop assigns (its body, or its target) that are live at the
        loop's head: read after the loop, or read in an iteration before that
        iteration assigns them (`liveness`). A loop variable read after the loop
        is carried too: it keeps its earlier value when the loop runs no iteration."""
        live = self.live[id(s)]
        # (a while loop's test assigns what its `:=` does, at every iteration)
        targets = assigned_in_order([s.target] if isinstance(s, ast.For) else [s.test])
        return [v for v in dict.fromkeys(targets + assigned_in_order(s.body)) if v in live]

    # ------------------------------------------------------- assignments

    def assign_target(self, target, value_node):
        if isinstance(target, ast.Name):
            self.assign_var(target.id, self.value(value_node))
            return
        if isinstance(target, ast.Subscript):  # Python evaluates the value first
            value = self.atom(value_node)
            container, index = self.item_target(target)
            self.emit(ir.SetItem(ast.Subscript(value=container, slice=index, ctx=ast.Store()),
                                 value, self.line))
            return
        # tuple target
        if isinstance(value_node, ast.Tuple) and len(value_node.elts) == len(target.elts) \
                and not any(isinstance(e, ast.Starred) for e in value_node.elts):
            atoms = [self.atom(e) for e in value_node.elts]  # all evaluated first
            for t, a in zip(target.elts, atoms):
                self.bind_target(t, a)
            return
        self.bind_target(target, self.atom(value_node))

    def bind_target(self, target, atom):
        """Bind `target` (a name, an element ``x[i]``, or a nested tuple of those) to
        an evaluated atom. Python unpacks the whole value first, then assigns the
        targets from left to right (an element's index is computed when its turn
        comes, after the names before it are bound)."""
        if isinstance(target, ast.Name):
            self.assign_var(target.id, atom)
            return
        if isinstance(target, ast.Subscript):
            container, index = self.item_target(target)
            self.emit(ir.SetItem(ast.Subscript(value=container, slice=index, ctx=ast.Store()),
                                 atom, self.line))
            return
        ordered = any(isinstance(e, ast.Subscript) for e in ast.walk(target))
        names = []
        nested = []
        for e in target.elts:
            if isinstance(e, ast.Name) and not ordered:
                names.append(None)
            else:
                t = self.temp()
                names.append(t)
                nested.append((e, t))
        # Evaluate the unpacking first, then bind names in order.
        final = []
        for e, n in zip(target.elts, names):
            if n is None:
                final.append(self.new_version(e.id))
            else:
                final.append(n)
        self.emit(ir.Assign(tuple(final), atom, self.line, unpack=True))
        for e, n, temp in zip(target.elts, final, names):
            if isinstance(e, ast.Name) and temp is None:
                self.env[e.id] = n
        for e, t in nested:
            self.bind_target(e, ir.name(t))

    def assign_var(self, var, value):
        target = self.new_version(var)
        self.emit(ir.Assign((target,), value, self.line))
        self.env[var] = target

    # -------------------------------------------------------- branches

    def branch(self, test, then_fn, else_fn, line, live=None):
        """Lower both branches and join them: a name the branches leave with different
        values gets one (the other branch copies into it), if it is in `live` (the
        names read after the join; None: every name)."""
        before = dict(self.env)
        outer, self.out = self.out, []
        outer_terminated = self.terminated
        self.branches += 1
        self.lowered(then_fn)
        then_body, then_env, then_done = self.out, self.env, self.terminated
        self.env, self.out, self.terminated = dict(before), [], outer_terminated
        self.lowered(else_fn)
        self.branches -= 1
        else_body, else_env, else_done = self.out, self.env, self.terminated
        self.out = outer
        self.terminated = then_done and else_done
        if then_done or else_done:
            # a branch that left the iteration does not reach the join
            self.env = dict(else_env if then_done else then_env)
            self.emit(ir.If(test, then_body, else_body, line))
            return
        self.env = dict(before)
        order = list(then_env) + [k for k in else_env if k not in then_env]
        for var in order:
            vt, ve = then_env.get(var), else_env.get(var)
            if vt == ve:
                if vt is not None:
                    self.env[var] = vt
                continue
            if vt is None or ve is None:
                self.env[var] = vt or ve  # defined on one path only, as in Python
                continue
            if live is not None and var not in live and var != RESULT:
                # never read after the join (nor by a `break`'s copies): no copy, the
                # other value may not exist; RESULT is read by the function's end
                self.env[var] = vt
                continue
            if vt != before.get(var):
                joined = vt
                if ve != before.get(var):
                    rename_block(else_body, {ve: joined})
                else:
                    close_open_paths(else_body, ir.Assign((joined,), self.copied(ve), line))
            else:
                joined = ve
                close_open_paths(then_body, ir.Assign((joined,), self.copied(vt), line))
            self.env[var] = joined
        self.emit(ir.If(test, then_body, else_body, line))

    # ------------------------------------------------------- expressions

    def read(self, node: ast.Name) -> ast.expr:
        if node.id not in self.locals:
            return ir.name(node.id)  # static reference
        current = self.env.get(node.id)
        if current is None:
            raise _Unbound(node)  # (`unbound_read`)
        return ir.name(current)

    def atom(self, node) -> ast.expr:
        """Lower `node` and return an atom holding its value."""
        if isinstance(node, ast.Constant):
            out = ir.const(node.value)
            if getattr(node, PLACEHOLDER, False):  # (`ir.kinds.PLACEHOLDER`)
                setattr(out, PLACEHOLDER, True)
            return out
        if isinstance(node, ast.Name):
            return self.read(node)
        if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub) \
                and isinstance(node.operand, ast.Constant) \
                and type(node.operand.value) in (int, float, complex):
            return ir.const(-node.operand.value)
        if self.is_static(node):
            return ir.copy_tree(node)
        value = self.value(node)
        if isinstance(value, (ast.Name, ast.Constant)):
            return value
        t = self.temp()
        self.emit(ir.Assign((t,), value, self.line))
        return ir.name(t)

    def is_static(self, node) -> bool:
        text = ir.dotted(node)
        return text is not None and text.split(".")[0] not in self.locals

    def value(self, node) -> ast.expr:
        """Lower `node` to one operation over atoms (or an atom)."""
        if type(node) is ast.BinOp:  # (the commonest two, neither a static reference)
            return self.e_BinOp(node)
        if type(node) is ast.Call:
            return self.e_Call(node)
        if isinstance(node, (ast.Constant, ast.Name)) or self.is_static(node):
            return self.atom(node)
        meth = getattr(self, "e_" + type(node).__name__, None)
        if meth is None:
            raise self.error(node, f"s2sad cannot differentiate this expression "
                                   f"(`{type(node).__name__}`)")
        return meth(node)

    def e_BinOp(self, node):
        left = self.atom(node.left)
        right = self.atom(node.right)
        return ast.BinOp(left=left, op=node.op, right=right)

    def e_UnaryOp(self, node):
        if isinstance(node.op, ast.USub) and isinstance(node.operand, ast.Constant):
            return self.atom(node)
        return ast.UnaryOp(op=node.op, operand=self.atom(node.operand))

    def e_Compare(self, node):
        left = self.atom(node.left)
        if len(node.ops) == 1:
            return ast.Compare(left=left, ops=node.ops, comparators=[self.atom(node.comparators[0])])
        # a < b < c: evaluate b once, and c only when a < b holds
        result = self.temp()
        self.compare_chain(result, left, node.ops, node.comparators)
        return ir.name(self.env.pop(result))

    def compare_chain(self, result, left, ops, rights):  # (a method: no cycle per call)
        right = self.atom(rights[0])
        cmp = ast.Compare(left=left, ops=[ops[0]], comparators=[right])
        if len(ops) == 1:
            self.assign_var(result, cmp)
            return
        t = self.temp()
        self.emit(ir.Assign((t,), cmp, self.line))
        test = ir.name(t)
        self.branch(test, lambda: self.compare_chain(result, right, ops[1:], rights[1:]),
                    lambda: self.assign_var(result, test), self.line)

    def e_BoolOp(self, node):
        result = self.temp()
        self.bool_chain(result, isinstance(node.op, ast.And), node.values)
        return ir.name(self.env.pop(result))

    def bool_chain(self, result, is_and, values):  # (a method: no cycle per call)
        first = self.atom(values[0])
        if len(values) == 1:
            self.assign_var(result, first)
            return
        rest = lambda: self.bool_chain(result, is_and, values[1:])  # noqa: E731
        keep = lambda: self.assign_var(result, first)  # noqa: E731
        if is_and:
            self.branch(first, rest, keep, self.line)
        else:
            self.branch(first, keep, rest, self.line)

    def e_IfExp(self, node):
        result = self.temp()
        test = self.atom(node.test)
        self.branch(test, lambda: self.assign_var(result, self.value(node.body)),
                    lambda: self.assign_var(result, self.value(node.orelse)), self.line)
        return ir.name(self.env.pop(result))

    def e_Call(self, node):
        func = node.func
        static = self.is_static(func)
        if isinstance(func, ast.Attribute) and not static:
            # a method of a local value (xs.append(v), x.sum(axis=0)): the receiver is
            # evaluated first, then the arguments, as Python does
            receiver = self.atom(func.value)
            args, keywords = self.call_arguments(node)
            return ast.Call(func=ast.Attribute(value=receiver, attr=func.attr, ctx=ast.Load()),
                            args=args, keywords=keywords)
        if not static:
            raise self.error(
                node, "s2sad can only differentiate calls of functions named directly "
                      "(`f(x)`, `math.sin(x)`), not of a computed or local value",
                "Call the function by its module-level name. (A derivative made inside, "
                "s2sad.grad(g)(x), is not differentiated yet: s2sad.hessian and hvp are.)")
        args, keywords = self.call_arguments(node)
        return ast.Call(func=ir.copy_tree(node.func), args=args, keywords=keywords)

    def call_arguments(self, node):
        """A call's arguments as atoms, in Python's order (positional, then keyword)."""
        for k in node.keywords:
            if k.arg is None:
                raise self.error(node, "s2sad cannot differentiate `**` unpacking in a call",
                                 "Pass keyword arguments one by one.")
        args = [self.argument(a) for a in node.args]
        keywords = [ast.keyword(arg=k.arg, value=self.argument(k.value)) for k in node.keywords]
        return args, keywords

    def argument(self, node) -> ast.expr:
        """A call's argument as an atom; a tuple of integer literals (``axis=(0, 1)``,
        a shape) stays a literal, so the rules and the kinds see its value."""
        value = _int_tuple(node)
        return ir.const(value) if value is not None else self.atom(node)

    def e_Tuple(self, node):
        return ast.Tuple(elts=[self.atom(e) for e in node.elts], ctx=ast.Load())

    def e_List(self, node):
        return ast.List(elts=[self.atom(e) for e in node.elts], ctx=ast.Load())

    def e_Subscript(self, node):
        out = ast.Subscript(value=self.atom(node.value), slice=self.index(node.slice),
                            ctx=ast.Load())
        if getattr(node, STARRED, False):  # (`ir.kinds.STARRED`)
            setattr(out, STARRED, True)
        return out

    def index(self, node):
        """An index stays an index: atoms, slices of atoms, or a tuple of those."""
        if isinstance(node, ast.Slice):
            return ast.Slice(*(None if part is None else self.atom(part)
                               for part in (node.lower, node.upper, node.step)))
        if isinstance(node, ast.Tuple):
            return ast.Tuple(elts=[self.index(e) for e in node.elts], ctx=ast.Load())
        return self.atom(node)

    def e_Attribute(self, node):
        return ast.Attribute(value=self.atom(node.value), attr=node.attr, ctx=ast.Load())

    def e_Starred(self, node):
        # (`expand` lowers a `*` of a display, or of a name given one display only)
        raise self.error(node, "s2sad cannot differentiate `*` unpacking of a value whose "
                               "length is not written in the function",
                         "Pass the items one by one (`f(xs[0], xs[1])`), or name a display "
                         "first: `args = (a, b)`, then `f(*args)`.")


def _int_tuple(node):
    """The value of a tuple display of integer literals (``(0, -1)``, nested ones
    too), else None."""
    if not isinstance(node, ast.Tuple):
        return None
    out = []
    for e in node.elts:
        if isinstance(e, ast.UnaryOp) and isinstance(e.op, ast.USub):
            value = e.operand.value if isinstance(e.operand, ast.Constant) else None
            value = -value if type(value) is int else None
        elif isinstance(e, ast.Constant):
            value = e.value if type(e.value) is int else None
        else:
            value = _int_tuple(e)
        if value is None:
            return None
        out.append(value)
    return tuple(out)


def _leaves(tree) -> list:
    """The sequences of a `_Lowerer.sequences` tree, in order."""
    if tree[0] == "seq":
        return [tree[1]]
    return [a for part in (tree[1] if tree[0] == "zip" else [tree[1]]) for a in _leaves(part)]


def _call(func_name, args) -> ast.Call:
    return ast.Call(func=ir.name(func_name), args=list(args), keywords=[])


def _plain_default(node):
    return None if node is None else ir.copy_tree(node)
