"""pipeline: runs the stages in order and assembles derivative modules.

Contract
--------
* `front(func)` runs parse -> anf -> dup on a Python function.
* `stage_module(func, stage, wrt, param_kinds)` gives the IR module a stage prints:
  ``source`` (the user's own text), ``anf``, ``dup``, ``activity``, ``reverse``.
* `reverse_unit(func, wrt, entry, param_kinds)` builds the derivative of `func` and
  of every user function it calls with active arguments (transitively, recursion
  included) as one `Unit`: an `ir.Module`, its emitted text, and what compiling it
  needs (each function's user function, helper objects, the resolutions it relies on).
  `entry` is ``"grad"`` (one fused function returning the gradient),
  ``"value_and_grad"`` (the same, also returning the value) or ``"vjp"`` (a forward
  function returning the output and what the backward function needs, and that
  backward function).

Callees are always split into ``g_fwd`` (returns the output and the values its
backward sweep reads) and ``g_bwd`` (takes those values and the output's adjoint,
returns the adjoints of the callee's active parameters). A transform that fails
raises and leaves nothing behind: the builder keeps no state between calls.
"""

from __future__ import annotations

import ast
import types
from dataclasses import dataclass, field

from .analysis import activity as activity_mod
from .transform import forward as forward_mod
from .frontend import anf, dup, parse
from .transform import batching, reverse
from .backend import emit
from . import ir, runtime
from .ir.kinds import INT, OTHER, SCALAR, UNKNOWN, ArrayKind, ListKind, kind_of, with_shapes
from .analysis.classify import classify
from .optimize import simplify
from .errors import NonScalarOutputError, S2SADError


@dataclass(eq=False)
class Front:
    func: object
    parsed: parse.Parsed
    anf: ir.Function
    dup: ir.Function


def front(func) -> Front:
    parsed = parse.parse(func)
    a = anf.to_anf(parsed)
    return Front(func, parsed, a, dup.insert_dups(a))


# ------------------------------------------------------------------- kinds


class _Kinds:
    """Return kinds of user functions, for activity's interprocedural view."""

    def __init__(self):
        self.cache = {}
        self.fronts = {}
        self.busy = set()

    def front(self, func) -> Front:
        got = self.fronts.get(func)
        if got is None:
            got = self.fronts[func] = front(func)
        return got

    def __call__(self, func, stmt, arg_kinds):
        return self.analysed(func, stmt, arg_kinds)[0]

    def shared(self, func, stmt, arg_kinds) -> list:
        """The positions, among the call's inputs (arguments, then keyword values), of
        the lists and arrays the result may be (or be a view of)."""
        return self.analysed(func, stmt, arg_kinds)[1]

    def analysed(self, func, stmt, arg_kinds):
        key = (func, tuple(map(_freeze, arg_kinds)))
        if key in self.cache:
            return self.cache[key]
        if key in self.busy:
            # recursion: the result's kind is not known yet, and it may be any input
            return UNKNOWN, list(range(len(arg_kinds)))
        self.busy.add(key)
        try:
            fr = self.front(func)
            kinds = _param_kinds_for_call(func, stmt, arg_kinds)
            act = activity_mod.analyze(fr.dup, (), kinds, self, callee=True)
            result = _return_kind(fr.dup, act), _shared_inputs(func, stmt, fr.dup, act)
        finally:
            self.busy.discard(key)
        self.cache[key] = result
        return result


def _shared_inputs(func, stmt, fn: ir.Function, act) -> list:
    """Which of a call's inputs the callee's return value may share memory with: the
    parameter it returns, or any list or array parameter when it returns an object it
    did not make itself (a slice, an element, a call's result)."""
    value = fn.body[-1].value
    if not isinstance(value, ast.Name) or not isinstance(
            act.kinds.get(value.id), (ListKind, ArrayKind)):
        return []
    params = [p.name for p in fn.params]
    root = act.root(value.id)
    if root in act.fresh and value.id not in act.views:
        return []
    shared = {root} if root in params and value.id not in act.views else {
        p for p in params if isinstance(act.kinds.get(p), (ListKind, ArrayKind))}
    call = stmt.value
    names = _call_parameter_names(func, call)
    return [i for i, n in enumerate(names) if n in shared]


def _call_parameter_names(func, call) -> list:
    """The parameter each input of `call` (arguments, then keyword values) binds."""
    import inspect

    positional = list(inspect.signature(func).parameters)
    return [positional[i] if i < len(positional) else None for i in range(len(call.args))] \
        + [k.arg for k in call.keywords]


def _freeze(k):
    return k


def _param_kinds_for_call(func, stmt, arg_kinds):
    import inspect

    call = stmt.value
    names = list(range(len(call.args))) + [k.arg for k in call.keywords]
    sig = inspect.signature(func)
    positional = [p for p in sig.parameters]
    out = {}
    for n, k in zip(names, arg_kinds):
        if isinstance(n, int):
            if n < len(positional):
                out[positional[n]] = k
        else:
            out[n] = k
    for name, p in sig.parameters.items():  # a parameter not given has its default
        if name not in out and p.default is not inspect.Parameter.empty \
                and p.kind not in (p.VAR_POSITIONAL, p.VAR_KEYWORD):
            out[name] = kind_of(p.default, items=False)
    return out


def _return_kind(fn: ir.Function, act) -> object:
    ret = fn.body[-1]
    value = ret.value
    if isinstance(value, ast.Name) and value.id in act.kinds:
        return act.kinds[value.id]
    if isinstance(value, ast.Constant):
        return kind_of(value.value)
    return UNKNOWN


# ------------------------------------------------------------------- stages

STAGES = ("source", "anf", "dup", "activity", "reverse", "forward")


def assumed_kinds(func) -> dict:
    """The argument kinds `s2sad show` assumes when it is given no example arguments:
    in a function that uses NumPy (calls into it, or `@`), every parameter is a float
    array of unknown rank (so the rules chosen are the ones for any shape); otherwise
    a parameter the function indexes, measures with len(), sums or appends to is a
    list of floats, and every other parameter is a float."""
    fr = front(func)
    params = [p.name for p in fr.dup.params]
    containers = set()
    namespace = getattr(func, "__globals__", {})

    def root(n):
        return n.split("%")[0]

    def is_numpy(node):
        while isinstance(node, ast.Attribute):
            node = node.value
        if not isinstance(node, ast.Name):
            return False
        value = namespace.get(node.id)
        return (getattr(value, "__name__", None) or "").split(".")[0] == "numpy" or \
            (getattr(value, "__module__", None) or "").split(".")[0] == "numpy"

    for s in ir.walk(fr.dup.body):
        for node in ir.exprs(s):
            for sub in ast.walk(node):
                if (isinstance(sub, ast.BinOp) and isinstance(sub.op, ast.MatMult)) or \
                        (isinstance(sub, ast.Call) and is_numpy(sub.func)):
                    return {p: ArrayKind(None, "f") for p in params}
                if isinstance(sub, ast.Subscript) and isinstance(sub.value, ast.Name):
                    containers.add(root(sub.value.id))
                elif isinstance(sub, ast.Call):
                    f = ir.dotted(sub.func) or ""
                    if f in ("len", "sum") and sub.args and isinstance(sub.args[0], ast.Name):
                        containers.add(root(sub.args[0].id))
                    if f.endswith(".append") and isinstance(sub.func, ast.Attribute) \
                            and isinstance(sub.func.value, ast.Name):
                        containers.add(root(sub.func.value.id))
    return {p: ListKind(SCALAR) if p in containers else SCALAR for p in params}


def kinds_of_example(func, args) -> dict:
    """Argument kinds from example argument values (positional, in order)."""
    names = func.__code__.co_varnames[: func.__code__.co_argcount + func.__code__.co_kwonlyargcount]
    kinds = assumed_kinds(func)
    kinds.update({n: kind_of(v) for n, v in zip(names, args)})
    return with_shapes(kinds, dict(zip(names, args)))


def stage_module(func, stage: str, wrt=None, param_kinds=None) -> ir.Module:
    fr = front(func)
    if param_kinds is None:
        param_kinds = assumed_kinds(func)
    if stage == "anf":
        return ir.Module([fr.anf])
    if stage == "dup":
        return ir.Module([fr.dup], imports=["from s2sad.runtime import dup"])
    if stage == "activity":
        act = activity_mod.analyze(fr.dup, wrt, param_kinds, _Kinds())
        return ir.Module([activity_mod.annotate(fr.dup, act)],
                         imports=["from s2sad.runtime import dup"])
    raise ValueError(f"unknown stage {stage!r}; choose from {', '.join(STAGES)}")


# -------------------------------------------------------------------- units


@dataclass(eq=False)
class UnitFunction:
    fn: ir.Function  # the derivative function's IR
    user: object  # the user function it derives from (globals, closure, defaults)
    keep_defaults: bool = True


def _scalar_tangents(act) -> bool:
    """Is every tangent of the function a number (or a list or tuple of numbers)? Then
    the tangent code runs unchanged on vectors of tangents (`jacobian`'s vector mode)
    where every line reading a tangent works entry by entry, which
    `batching.check_vectors` decides."""
    def scalar(kind):
        if isinstance(kind, tuple):
            return all(scalar(k) for k in kind)
        if isinstance(kind, ListKind):
            return scalar(kind.elem)
        return kind in (SCALAR, INT)

    return all(scalar(act.kinds.get(n)) for n in act.active)


@dataclass(eq=False)
class Unit:
    module: ir.Module
    functions: list  # UnitFunction, in module order
    entry: tuple  # IR names of the entry functions
    helpers: dict  # name -> object the emitted code reads from s2sad's rules
    resolved: list  # (user function, dotted name, object): what the unit assumed
    output_kind: object = None
    root: object = None
    scalar_tangents: bool = False  # forward units: see `_scalar_tangents`
    printed: emit.Printed | None = None
    namer: emit.Namer | None = None
    texts: dict = field(default_factory=dict)  # IR name -> that function's emitted text

    @property
    def text(self) -> str:
        return self.printed.text


def reverse_unit(func, wrt, entry="grad", param_kinds=None, as_tuple=False,
                 checkpoint=None, copy_views=False) -> Unit:
    """`checkpoint`: None, or ``(schedule, snapshots)`` to checkpoint the outermost
    loops of `func` (see `checkpoint_outer_loops`), or `TAPED_LOOPS` to reverse every
    loop with its tape, those the user marked with `s2sad.checkpointed` too, in `func`
    and in the functions it calls (see `without_checkpoints`). With `copy_views`, the
    forward sweep copies what it reads out of an array the function writes into
    (``t1 = B[:, 1].copy()``), the gradient code forward mode differentiates for
    second derivatives: the reverse sweep reads such a value only where the array
    holds what it held when the value was read (a write is undone before the reverse
    of the lines before it), so the copy is the same numbers, and forward mode, which
    cannot see that, need not follow a write through a view."""
    builder = _Builder(func, tuple(wrt), entry, param_kinds or {}, as_tuple, checkpoint)
    builder.copy_views = copy_views
    return builder.build()


# `checkpoint=` of `reverse_unit` for the gradient that second derivatives run in
# forward mode: the schedulers' calls are opaque to the forward transform, the taped
# loops are plain Python it differentiates. The same gradient, without checkpointing.
TAPED_LOOPS = ("taped",)


def without_checkpoints(fn: ir.Function) -> ir.Function:
    """`fn` with no loop marked for checkpointing (`fn` itself if none is)."""
    if not any(isinstance(s, ir.Loop) and s.checkpoint for s in ir.walk(fn.body)):
        return fn
    fn = fn.clone()
    for s in ir.walk(fn.body):
        if isinstance(s, ir.Loop):
            s.checkpoint = None
    return fn


def _tuple_of(names) -> ast.Tuple:
    return ast.Tuple(elts=[ir.name(n) for n in names], ctx=ast.Load())


def _carry(state: list, new, line) -> list:
    """The last line of a step function's loop: the loop-carried names take their
    values for the next iteration, ``x_1, v_1 = x_2, v_1 + dt * a`` (all at once, as
    one new value may read another's old one); a value the iteration leaves as it is
    is not assigned."""
    if not isinstance(new, ast.Tuple):  # (an expression holding the whole tuple)
        return [ir.Assign(tuple(state), new, line, unpack=True)]
    pairs = [(n, v) for n, v in zip(state, new.elts)
             if not (isinstance(v, ast.Name) and v.id == n)]
    if len(pairs) == 1:
        return [ir.Assign((pairs[0][0],), pairs[0][1], line)]
    return [ir.Assign(tuple(n for n, _ in pairs),
                      ast.Tuple(elts=[v for _, v in pairs], ctx=ast.Load()), line,
                      unpack=True)] if pairs else []


def checkpoint_outer_loops(fn: ir.Function, checkpoint) -> ir.Function:
    """`fn` with its outermost loops (in its body or its branches, not inside another
    loop) marked for checkpointing with ``(schedule, snapshots)``, except loops the
    user marked: ``grad(f, checkpoint=...)``. The mark says it was not the user's
    (``Loop.checkpoint[2]``): `reverse` leaves such a loop on the tape when its step
    functions cannot reverse it, or when it carries nothing active."""
    schedule, snapshots = checkpoint
    atom = None if snapshots is None else ir.const(snapshots)

    def mark(body):
        for s in body:
            if isinstance(s, ir.If):
                mark(s.body)
                mark(s.orelse)
            elif isinstance(s, ir.Loop) and s.checkpoint is None:
                s.checkpoint = (schedule, atom, "auto")

    fn = fn.clone()
    mark(fn.body)
    return fn


class _Builder:
    def __init__(self, root, wrt, entry, param_kinds, as_tuple, checkpoint=None):
        self.root = root
        self.checkpoint = checkpoint
        self.as_tuple = as_tuple
        self.wrt = wrt
        self.entry = entry
        self.param_kinds = param_kinds
        self.kinds = _Kinds()
        self.copy_views = False
        self.names: dict = {}  # (callee, active, kinds) -> (fwd, bwd)
        self.queue: list = []
        self.functions: list = []
        self.helpers: dict = {}
        self.resolved: list = []
        self.seen_users = []

    def derivative_of(self):
        def derivative_of(callee, active, kinds=None):
            kinds = dict(kinds or {})
            key = (callee, active, tuple(sorted(kinds.items(), key=lambda kv: kv[0])))
            got = self.names.get(key)
            if got is None:
                base = callee.__name__
                n = sum(1 for (c, _, _) in self.names if c is callee)
                suffix = "" if n == 0 else f"%{n + 1}"
                got = (f"{base}%fwd{suffix}", f"{base}%bwd{suffix}")
                self.names[key] = got
                self.queue.append((callee, active, kinds, got))
            return got
        return derivative_of

    def analyze(self, fr: Front, wrt, kinds, callee=False):
        return activity_mod.analyze(fr.dup, wrt, kinds, self.kinds, callee)

    def build(self) -> Unit:
        fr = self.front(self.root)
        if self.checkpoint is not None and self.checkpoint != TAPED_LOOPS:
            fr = Front(fr.func, fr.parsed, fr.anf, checkpoint_outer_loops(fr.dup,
                                                                         self.checkpoint))
        act = self.analyze(fr, self.wrt, self.param_kinds)
        out_kind = _return_kind(fr.dup, act)
        if self.entry in ("grad", "value_and_grad"):
            _check_scalar_output(fr, out_kind, act)
        rev = reverse.transform(fr.dup, act, self.derivative_of())
        self.note_user(fr)
        name = self.root.__name__
        if self.entry == "vjp":
            entry = (f"{name}%vjp%fwd", f"{name}%vjp%bwd")
            self.functions += self.split(fr, act, rev, *entry, root=True)
        else:
            entry = (f"{name}%{self.entry}",)
            self.functions.append(self.fused(fr, act, rev, entry[0]))
        self.helpers.update(rev.helpers)
        self.functions += self.steps(fr, act, rev)
        while self.queue:
            callee, active, kinds, (fwd, bwd) = self.queue.pop(0)
            cfr = self.front(callee)
            cact = self.analyze(cfr, active, kinds, callee=True)
            crev = reverse.transform(cfr.dup, cact, self.derivative_of())
            self.note_user(cfr)
            self.helpers.update(crev.helpers)
            self.functions += self.split(cfr, cact, crev, fwd, bwd)
            self.functions += self.steps(cfr, cact, crev)
        self.functions = _share_forward_sweeps(self.functions)
        module = ir.Module([uf.fn for uf in self.functions])
        self.helpers = _used(self.helpers, self.functions)
        module.imports = _import_lines(self.helpers)
        _check_helper_clashes(self.functions, self.helpers)
        unit = Unit(module, self.functions, entry, dict(self.helpers), self.resolved, out_kind)
        _print(unit)
        return unit

    def front(self, func) -> Front:
        fr = self.kinds.front(func)
        if self.checkpoint == TAPED_LOOPS:
            fr = Front(fr.func, fr.parsed, fr.anf, without_checkpoints(fr.dup))
        return fr

    def note_user(self, fr: Front):
        if any(u is fr.func for u in self.seen_users):
            return
        self.seen_users.append(fr.func)
        for text, obj in fr.parsed.refs.items():
            if "." not in text:
                self.resolved.append((fr.func, text, obj))

    # -------------------------------------------------------- assembly

    def fused(self, fr: Front, act, rev: reverse.Reverse, name: str) -> UnitFunction:
        grads = [rev.grads[p] for p in self.wrt]
        keep = {g.id for g in grads if isinstance(g, ast.Name)}
        seed_block = []
        if rev.seed is not None:
            seed = ir.const(1.0)
            if _rank_unknown(_return_kind(fr.dup, act)):
                # (an output that may be a number or an array: it is checked when the
                # gradient runs, see `_check_scalar_output`)
                seed = ast.Call(func=ir.name("scalar_seed"), args=[ir.copy_tree(rev.output)],
                                keywords=[])
                self.helpers["scalar_seed"] = runtime.scalar_seed
            seed_block = [_return_comment(fr, rev),
                          ir.Assign((rev.seed,), seed, rev.output_line)]
        with_value = self.entry == "value_and_grad"
        tail = _read_output(fr, rev.output, rev.output_line)
        if with_value:  # the reverse sweep may restore loop values under the same names
            tail.append(ir.Assign(("%value",), rev.output, rev.output_line))
        forward, backward, outputs = simplify.simplify(
            rev.forward + tail, seed_block + rev.reverse, keep,
            grads + [ir.name("%value")] * with_value,
            _purity(fr.dup, act), _float_names(act), inputs=[p.name for p in fr.anf.params],
            mutable=rev.mutable)
        self.copy_view_reads(forward, backward, act, rev)
        grads = outputs[: len(grads)]
        if not self.copy_views:  # (second derivatives type their own results)
            grads = self.typed(grads, self.wrt, act)
        if len(grads) == 1 and not self.as_tuple:
            result = grads[0]
        else:
            result = ast.Tuple(elts=grads, ctx=ast.Load())
        if with_value:
            result = ast.Tuple(elts=[outputs[-1], result], ctx=ast.Load())
        body = forward + backward + [ir.Return(result, rev.output_line)]
        fn = ir.Function(name, _params(fr.anf), body, fr.anf.refs, fr.anf.source)
        return UnitFunction(fn, fr.func)

    def typed(self, grads, names, act) -> list:
        """The root's gradients with exactly their arguments' types: an array's dtype
        (float32 stays float32 where a float64 constant met it), a 0-d array a 0-d
        array, a float a float (not the float32 NumPy scalar a sum of float32 arrays
        gives). Float64 arrays, the common case, are left as they are: nothing widens
        them, and their NumPy scalars are floats."""
        out = []
        narrow = narrow_arrays(self.param_kinds)
        for p, g in zip(names, grads):
            cast = gradient_cast(self.param_kinds.get(p), narrow)
            if cast == "float" and not _is_float_literal(g):
                g = ast.Call(func=ir.name("float"), args=[g], keywords=[])
            elif cast not in (None, "float"):
                import numpy

                self.helpers["np"] = numpy
                dtype = ast.Attribute(value=ir.name("np"), attr=cast, ctx=ast.Load())
                g = ast.Call(func=ast.Attribute(value=ir.name("np"), attr="asarray",
                                                ctx=ast.Load()),
                             args=[g, dtype], keywords=[])
            out.append(g)
        return out

    def copy_view_reads(self, forward, backward, act, rev):
        """With `copy_views` (see `reverse_unit`): ``t = B[...]`` of an array `B` the
        code writes into (an array of the function's, or an adjoint array the
        reverse sweep updates in place) reads ``B[...].copy()``."""
        if not self.copy_views:
            return
        written = set(rev.mutable)
        for s in ir.walk(forward + backward):
            target = getattr(s, "target", None)
            if isinstance(s, (ir.SetItem, ir.AugAssign)) and isinstance(target, ast.Subscript) \
                    and isinstance(target.value, ast.Name):
                written.add(target.value.id)

        def array(n):
            base = n[: -len("%bar")] if n.endswith("%bar") else n
            return isinstance(act.kinds.get(base), ArrayKind)

        for s in ir.walk(forward + backward):
            if isinstance(s, ir.Assign) and not s.unpack and \
                    isinstance(s.value, ast.Subscript) and isinstance(s.value.value, ast.Name) \
                    and s.value.value.id in written and array(s.value.value.id):
                s.value = ast.Call(func=ast.Attribute(value=s.value, attr="copy",
                                                      ctx=ast.Load()), args=[], keywords=[])

    def steps(self, fr: Front, act, rev: reverse.Reverse) -> list:
        """The step function of each checkpointed loop, ``step(indices, state, args)``,
        a while loop's test, ``test(state, args)``, and the step's reverse,
        ``step_bar(i, state, args, bar)`` (see `reverse.Step`)."""
        out = []
        for st in rev.steps:
            unpack = [ir.Assign(tuple(st.state), ir.name("%state"), st.line, unpack=True)]
            if st.args:
                unpack.append(ir.Assign(tuple(st.args), ir.name("%args"), st.line, unpack=True))
            params = [ir.Param(st.target), ir.Param("%state"), ir.Param("%args")]
            inputs = [p.name for p in params]
            body, _, outputs = simplify.simplify(
                st.body, [], set(), [ast.Tuple(elts=st.outputs, ctx=ast.Load())],
                _purity(fr.dup, act), _float_names(act),
                inputs=[st.target] + st.state + st.args, mutable=rev.mutable)
            loop = ir.ForEach(st.target, ir.name("%indices"),
                              body + _carry(st.state, outputs[0], st.line), st.line)
            fn = ir.Function(st.name, [ir.Param("%indices")] + params[1:],
                             unpack + [loop, ir.Return(_tuple_of(st.state), st.line)],
                             fr.anf.refs, fr.anf.source)
            out.append(UnitFunction(fn, fr.func, keep_defaults=False))
            if st.test_name is not None:  # a while loop's test, ``test(state, args)``
                unpack = [ir.Assign(tuple(st.state), ir.name("%state"), st.line, unpack=True)]
                if st.args:
                    unpack.append(ir.Assign(tuple(st.args), ir.name("%args"), st.line,
                                            unpack=True))
                body, _, outputs = simplify.simplify(
                    unpack + ir.copy_tree(st.cond), [], set(), [ir.copy_tree(st.test)],
                    _purity(fr.dup, act), _float_names(act), inputs=inputs[1:],
                    mutable=rev.mutable)
                fn = ir.Function(st.test_name, params[1:],
                                 body + [ir.Return(outputs[0], st.line)],
                                 fr.anf.refs, fr.anf.source)
                out.append(UnitFunction(fn, fr.func, keep_defaults=False))
            bar_unpack = [ir.Assign(tuple(st.bar), ir.name("%bar"), st.line, unpack=True)]
            forward, backward, outputs = simplify.simplify(
                unpack + st.forward, bar_unpack + st.reverse, set(st.bar),
                [ast.Tuple(elts=[ir.name(n) for n in st.bar], ctx=ast.Load())],
                _purity(fr.dup, act), _float_names(act), inputs=inputs + ["%bar"],
                mutable=rev.mutable, replayed=True)
            fn = ir.Function(st.bar_name, params + [ir.Param("%bar")],
                             forward + backward + [ir.Return(outputs[0], st.line)],
                             fr.anf.refs, fr.anf.source)
            out.append(UnitFunction(fn, fr.func, keep_defaults=False))
        return out

    def split(self, fr: Front, act, rev: reverse.Reverse, fwd_name, bwd_name,
              root=False) -> list:
        """A forward function returning ``(output, saved)`` and a backward function of
        ``(saved, output adjoint)``; the root of a vjp returns a tuple of adjoints
        (one per `wrt` parameter), a callee its active parameters' adjoints."""
        active = list(act.wrt) if root else [p.name for p in fr.anf.params if p.name in act.wrt]
        grads = [rev.grads[p] for p in active]
        keep = {g.id for g in grads if isinstance(g, ast.Name)}
        seed_param = rev.seed or ir.adjoint("%out")
        forward, backward, (output, *grads) = simplify.simplify(
            rev.forward, rev.reverse, keep | {seed_param}, [rev.output] + grads,
            _purity(fr.dup, act), inputs=[p.name for p in fr.anf.params] + [seed_param],
            mutable=rev.mutable)
        self.copy_view_reads(forward, backward, act, rev)
        if root:  # (vjp's adjoints have their arguments' types, as grad's gradients)
            grads = self.typed(grads, active, act)
        if root and isinstance(output, ast.Name) and output.id in rev.mutable and any(
                isinstance(s, (ir.SetItem, ir.Expr)) and s.restore for s in ir.walk(backward)):
            # the pullback puts back what writes overwrote (and undoes appends and
            # pops): return a copy, so the caller's output does not change when it runs
            output = ast.Call(func=ast.Attribute(value=output, attr="copy", ctx=ast.Load()),
                              args=[], keywords=[])
        params = [p.name for p in fr.anf.params]
        # what the backward sweep reads, its result too (the zero gradient of an
        # array argument the output does not depend on reads the argument)
        read = simplify.saved_names([ir.Assign((p,), ir.const(None)) for p in params] + forward,
                                    backward + [ir.Return(ast.Tuple(elts=list(grads),
                                                                    ctx=ast.Load()), 0)])
        saved = [n for n in read if n in params] + [n for n in read if n not in params]
        saved.sort(key=(params + [n for s in ir.walk(forward)
                                  for n in ir.defined_names(s)]).index)
        _fill_branches(forward, set(saved))
        saved_tuple = ast.Tuple(elts=[ir.name(n) for n in saved], ctx=ast.Load())
        fwd_body = forward + [ir.Return(ast.Tuple(elts=[output, saved_tuple],
                                                  ctx=ast.Load()), rev.output_line)]
        fwd = ir.Function(fwd_name, _params(fr.anf), fwd_body, fr.anf.refs, fr.anf.source)
        bwd_body = []
        if saved:
            bwd_body.append(ir.Assign(tuple(saved), ir.name("%saved"), 0, unpack=True))
        bwd_body += backward
        if not grads:
            result = ast.Tuple(elts=[], ctx=ast.Load())
        elif len(grads) == 1 and not root:
            result = grads[0]
        else:
            result = ast.Tuple(elts=grads, ctx=ast.Load())
        bwd_body.append(ir.Return(result, rev.output_line))
        bwd = ir.Function(bwd_name, [ir.Param("%saved"), ir.Param(seed_param)], bwd_body,
                          fr.anf.refs, fr.anf.source)
        return [UnitFunction(fwd, fr.func), UnitFunction(bwd, fr.func, keep_defaults=False)]


def narrow_arrays(kinds: dict) -> bool:
    """Is some argument an array narrower than float64? (A NumPy scalar of float64 is
    a float; one of float32 is not, and a float argument's gradient could become one.)"""
    return any(isinstance(k, ArrayKind) and k.exact not in (None, "float64")
               for k in kinds.values())


def gradient_cast(kind, narrow: bool):
    """What makes the gradient of an argument of `kind` (from `with_shapes`) have
    exactly its argument's type, for every entry point (`_Builder.typed` writes it
    into the compiled gradient; `api.typed_like` applies it to what the other entry
    points compute): a dtype name (``np.asarray(g, np.float32)``) for an array whose
    gradient may come out wider or as a NumPy scalar (an array narrower than float64,
    a 0-d array), ``"float"`` for a number while some argument is a narrower array
    (`narrow`), None where the gradient has its argument's type already (float64
    arrays, the common case: nothing widens them, and their NumPy scalars are
    floats)."""
    if isinstance(kind, ArrayKind) and kind.exact is not None and (
            kind.exact != "float64" or kind.ndim == 0):
        return kind.exact
    if kind == SCALAR and narrow:
        return "float"
    return None


def forward_unit(func, wrt, param_kinds=None, batched=False) -> Unit:
    """The forward-mode derivative of `func` with respect to the parameters `wrt`:
    one function ``f%jvp(params..., wrt tangents...)`` returning ``(output, output
    tangent)``, plus ``g%jvp(active tangents..., params...)`` for every user function
    it calls with a varying argument. With `batched`, every tangent carries a leading
    axis of directions (see `batching`; `batching.NotBatchable` when a line cannot)."""
    return _ForwardBuilder(func, tuple(wrt), param_kinds or {}, batched).build()


class _ForwardBuilder:
    def __init__(self, root, wrt, param_kinds, batched=False):
        self.root = root
        self.wrt = wrt
        self.param_kinds = param_kinds
        self.batched = batched
        self.kinds = _Kinds()
        self.names: dict = {}  # (callee, active, kinds) -> jvp name
        self.queue: list = []
        self.functions: list = []
        self.helpers: dict = {}
        self.resolved: list = []
        self.seen_users = []

    def derivative_of(self, callee, active, kinds=None):
        kinds = dict(kinds or {})
        key = (callee, active, tuple(sorted(kinds.items(), key=lambda kv: kv[0])))
        got = self.names.get(key)
        if got is None:
            n = sum(1 for (c, _, _) in self.names if c is callee) + (callee is self.root)
            got = f"{callee.__name__}%jvp" + ("" if n == 0 else f"%{n + 1}")
            self.names[key] = got
            self.queue.append((callee, active, kinds, got))
        return got

    def build(self) -> Unit:
        fr = self.kinds.front(self.root)
        act = activity_mod.analyze(fr.dup, self.wrt, self.param_kinds, self.kinds)
        entry = (f"{self.root.__name__}%jvp",)
        self.functions.append(self.assemble(fr, act, entry[0], root=True))
        scalar = _scalar_tangents(act)
        while self.queue:
            callee, active, kinds, name = self.queue.pop(0)
            cfr = self.kinds.front(callee)
            cact = activity_mod.analyze(cfr.dup, active, kinds, self.kinds, callee=True)
            self.functions.append(self.assemble(cfr, cact, name, root=False))
            scalar = scalar and _scalar_tangents(cact)
        module = ir.Module([uf.fn for uf in self.functions])
        self.helpers = _used(self.helpers, self.functions)
        module.imports = _import_lines(self.helpers)
        _check_helper_clashes(self.functions, self.helpers)
        unit = Unit(module, self.functions, entry, dict(self.helpers), self.resolved,
                    _return_kind(fr.dup, act))
        unit.scalar_tangents = scalar
        _print(unit)
        return unit

    def assemble(self, fr: Front, act, name: str, root: bool) -> UnitFunction:
        fwd = forward_mod.transform(fr.dup, act, self.derivative_of)
        _note_user(self, fr)
        self.helpers.update(fwd.helpers)
        params = [p.name for p in fr.anf.params]
        dots = [fwd.tangents[p] for p in act.wrt] if root else \
            [fwd.tangents[p] for p in params if p in act.wrt]
        body, _, (output, output_dot) = simplify.simplify(
            fwd.body, [], set(), [fwd.output, fwd.output_dot], _purity(fr.dup, act),
            _float_names(act), inputs=params + dots, mutable=reverse.mutable_names(act))
        result = ast.Tuple(elts=[output, output_dot], ctx=ast.Load())
        body = body + [ir.Return(result, fwd.output_line)]
        # after a parameter with a default, the tangents get defaults too (None: the
        # caller always passes them)
        late = root and any(p.default is not None for p in fr.anf.params)
        tangent_params = [ir.Param(d, ir.const(None) if late else None) for d in dots]
        own = _params(fr.anf)
        if root:  # f%jvp(positional..., tangents..., *, keyword-only...)
            positional = [p for p in own if not p.kwonly]
            all_params = positional + tangent_params + [p for p in own if p.kwonly]
        else:  # g%jvp(tangents..., params...): the caller's own arguments follow
            all_params = tangent_params + own
        fn = ir.Function(name, all_params, body, fr.anf.refs, fr.anf.source)
        if self.batched:
            import numpy

            batching.batch(fn, act.kinds)
            self.helpers["np"] = numpy
        # the root is always called with every argument; a callee's defaults are the
        # user function's, which stay last
        return UnitFunction(fn, fr.func, keep_defaults=not root)


def _note_user(builder, fr: Front):
    if any(u is fr.func for u in builder.seen_users):
        return
    builder.seen_users.append(fr.func)
    for text, obj in fr.parsed.refs.items():
        if "." not in text:
            builder.resolved.append((fr.func, text, obj))


def _fill_branches(body, saved: set):
    """A saved value computed in one branch only is set to None in the other, so the
    forward function can return it whichever branch ran."""
    for s in body:
        if not isinstance(s, ir.If):
            continue
        _fill_branches(s.body, saved)
        _fill_branches(s.orelse, saved)
        then_defs = ir.definitely_assigned(s.body)
        else_defs = ir.definitely_assigned(s.orelse)
        for mine, other in ((then_defs, s.orelse), (else_defs, s.body)):
            missing = [n for n in sorted(saved & mine, key=_def_order(s)) if n not in
                       (then_defs if other is s.body else else_defs)]
            if missing:
                other.append(ir.Comment("not computed on this path"))
                other.extend(ir.Assign((n,), ir.const(None), s.line) for n in missing)


def _def_order(s: ir.If):
    order = {}
    for sub in ir.walk(s.body + s.orelse):
        for n in ir.defined_names(sub):
            order.setdefault(n, len(order))
    return lambda n: order.get(n, 0)


def _share_forward_sweeps(functions) -> list:
    """A callee called with different active arguments gets one backward function per
    set, but their forward functions often come out the same: keep the first of each
    identical group, and call it everywhere."""
    seen = {}
    rename = {}
    for uf in functions:
        if not uf.fn.name.split("%")[1:2] == ["fwd"]:
            continue
        probe = uf.fn.clone(name="%probe")
        text = emit.emit_function(probe).text
        key = (uf.user, text)
        if key in seen:
            rename[uf.fn.name] = seen[key]
        else:
            seen[key] = uf.fn.name
    if not rename:
        return functions
    kept = [uf for uf in functions if uf.fn.name not in rename]
    for uf in kept:
        for s in ir.walk(uf.fn.body):
            if isinstance(s, ir.Assign):
                s.value = ir.substitute(s.value, rename)
    return kept



def _read_output(fr: Front, out, line) -> list:
    """When the output may be unassigned, read it, so that the gradient raises the
    UnboundLocalError the user's function would raise."""
    if not isinstance(out, ast.Name):
        return []
    assigned = ir.definitely_assigned(fr.dup.body) | {p.name for p in fr.dup.params}
    if out.id in assigned or out.id in fr.dup.refs:
        return []
    return [ir.Comment(f"\0{out.id}\0 may be unassigned here: read it as the function does"),
            ir.Expr(ir.name(out.id), line)]


def _float_names(act):
    """Names that certainly hold Python floats (scalars, and their adjoints and
    tangents: a tangent the caller passes is a number of the primal's shape, for
    which the operations this is used for cannot raise either); its `is_int` says
    which certainly hold Python ints."""
    def float_name(n: str) -> bool:
        base = n[: -len("%bar")] if n.endswith("%bar") else n
        base = base[: -len("%dot")] if base.endswith("%dot") else base
        return act.kinds.get(base) == SCALAR and (n != base or n in act.kinds)

    def array(n: str) -> bool:
        kind = act.kinds.get(n)
        return isinstance(kind, ArrayKind) and kind.dtype == "f"

    def unary_ufunc(text: str) -> bool:
        import numpy as np

        if not text.startswith("np."):
            return False
        obj = getattr(np, text[3:], None)
        return isinstance(obj, np.ufunc) and obj.nin == 1 and obj.nout == 1

    float_name.is_int = lambda n: act.kinds.get(n) == INT
    float_name.array = array  # float arrays, and NumPy calls on them
    float_name.same_shape = act.same_shape
    float_name.broadcastable = act.broadcastable

    def rank(n: str):
        kind = act.kinds.get(n)
        return kind.ndim if isinstance(kind, ArrayKind) else (
            0 if kind in (SCALAR, INT) else None)

    float_name.rank = rank
    float_name.unary_ufunc = unary_ufunc
    return float_name


def _purity(fn: ir.Function, act):
    """Which right-hand sides compute a value and nothing else (so they may be nested
    into the line that reads them): operators and calls with a derivative rule (for
    the kinds of their inputs: ``X @ W`` has a rule for matrices)."""
    locals_ = ir.local_names(fn)

    def is_local(n):
        return n in locals_ or "%" in n

    def kind(atom):
        return act.atom_kind(atom, fn.refs)

    def pure(value) -> bool:
        op = classify(value, fn, is_local, kind)
        if op.kind in ("rule", "pack", "getitem", "copy", "const"):
            return True
        return op.kind == "nondiff" and isinstance(value, (ast.Compare, ast.UnaryOp, ast.BinOp))

    return pure


def _params(fn: ir.Function) -> list:
    return [ir.Param(p.name, p.default, p.kwonly) for p in fn.params]


def _return_comment(fr: Front, rev) -> ir.Comment:
    info = fr.anf.source
    text = info.line_text(rev.output_line).strip() if info and rev.output_line else ""
    return ir.Comment(f"line {rev.output_line}: {text}" if text else "seed", rev.output_line)


def _check_scalar_output(fr: Front, kind, act=None):
    line = None
    if kind == UNKNOWN and act is not None:
        # returns of different kinds join into an unknown one: a `return` of a tuple,
        # list or array on some path is still not one number
        for s in ir.walk(fr.dup.body):
            if isinstance(s, ir.Assign) and not s.unpack and \
                    s.targets[0].split("%")[1:2] == [anf.RESULT.strip("%")]:
                if isinstance(s.value, (ast.Tuple, ast.List)):
                    k = ListKind(UNKNOWN) if isinstance(s.value, ast.List) else ()
                else:
                    k = act.kinds.get(s.value.id) if isinstance(s.value, ast.Name) else None
                if isinstance(k, (tuple, ListKind)) or isinstance(k, ArrayKind) \
                        and k.ndim not in (0, None):  # (those may be one number)
                    kind, line = k, s.line
                    break
    if kind in (SCALAR, INT, UNKNOWN) or isinstance(kind, ArrayKind) \
            and kind.ndim == 0:  # (a 0-d array is one number)
        return
    if _rank_unknown(kind):
        # an array whose rank the kinds do not say (a float or an array after a loop
        # that may run no iteration, a rank that depends on the values): the gradient
        # checks the output when it runs (`runtime.scalar_seed`) rather than refuse a
        # function that returns a number
        return
    ret = fr.anf.body[-1]
    if line is not None:
        ret = ir.Return(ret.value, line)
    info = fr.anf.source
    what = {OTHER: "a value that is not a number"}.get(
        kind, "a tuple" if isinstance(kind, tuple) else
        "a list" if isinstance(kind, ListKind) else
        "an array" if isinstance(kind, ArrayKind) else str(kind))
    text = info.line_text(ret.line) if info else None
    raise NonScalarOutputError(
        f"grad needs a function that returns one real number; {fr.func.__qualname__} "
        f"returns {what}",
        filename=info.filename if info else None, lineno=ret.line or None,
        col=(len(text) - len(text.lstrip())) if text else None, source_line=text,
        hint="Use s2sad.vjp(f, *args) for a non-scalar output, or return a scalar "
             "(for example a sum).",
    )


def _rank_unknown(kind) -> bool:
    """Is `kind` an output's that may or may not be one number (an array of unknown
    rank, or a kind not known at all)?"""
    return kind == UNKNOWN or isinstance(kind, ArrayKind) and kind.ndim is None


def _is_float_literal(node) -> bool:
    return isinstance(node, ast.Constant) and type(node.value) is float


def _used(helpers: dict, functions) -> dict:
    """The helpers some function still reads (simplify may have dropped the last
    ``unreduce`` or ``unbroadcast``)."""
    read = set()
    for uf in functions:
        read.update(ir.reads_in(uf.fn.body))
    return {name: obj for name, obj in helpers.items() if name in read}


def _import_lines(helpers: dict) -> list:
    """Module imports first, then one ``from module import a, b`` per module, sorted,
    as a person writes them."""
    modules, names = [], {}
    for name, obj in sorted(helpers.items()):
        if isinstance(obj, types.ModuleType):
            mod = obj.__name__
            modules.append(f"import {mod}" if mod == name else f"import {mod} as {name}")
        else:
            mod = getattr(obj, "__module__", None)
            real = getattr(obj, "__name__", name)
            if mod:
                names.setdefault(mod, []).append(real if real == name else f"{real} as {name}")
    return modules + [f"from {mod} import {', '.join(parts)}"
                      for mod, parts in sorted(names.items())]


def _check_helper_clashes(functions, helpers):
    for uf in functions:
        for name, obj in helpers.items():
            if name in ir.local_names(uf.fn) or (name in uf.fn.refs and uf.fn.refs[name] is not obj):
                info = uf.fn.source
                raise S2SADError(
                    f"{info.qualname if info else uf.fn.name} uses the name `{name}` for "
                    f"something else, but s2sad's derivative code needs `{name}` to be {obj!r}",
                    hint=f"Rename your `{name}`.",
                )


def _print(unit: Unit):
    namer = emit.make_namer([uf.fn for uf in unit.functions], set(unit.helpers))
    unit.namer = namer
    unit.printed = emit.emit_module(unit.module, namer)
    for uf in unit.functions:
        unit.texts[uf.fn.name] = unit.printed.function_text(uf.fn.name)
