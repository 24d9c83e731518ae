"""builder: assembles derivative modules from the stages.

Contract
--------
* `reverse_unit(func, wrt, entry, param_kinds)` builds the derivative of `func` and
  of every user function it calls with active arguments (transitively, recursion
  included) as one `Unit`: an `ir.Module`, its emitted text, and what compiling it
  needs (each function's user function, helper objects, the resolutions it relies on).
  `entry` is ``"grad"`` (one fused function returning the gradient),
  ``"value_and_grad"`` (the same, also returning the value) or ``"vjp"`` (a forward
  function returning the output and what the backward function needs, and that
  backward function).
* `forward_unit(func, wrt, param_kinds)` builds the forward-mode derivative the same
  way: ``f%jvp`` and a ``g%jvp`` per callee.

Callees are always split into ``g_fwd`` (returns the output and the values its
backward sweep reads) and ``g_bwd`` (takes those values and the output's adjoint,
returns the adjoints of the callee's active parameters). A transform that fails
raises and leaves nothing behind: the builder keeps no state between calls. Both
build under `stages.building` (the cyclic garbage collector paused, deep trees).
What runs before the transforms (the front stages, argument and return kinds, the
loop marks for checkpointing) is in `stages`."""

from __future__ import annotations

import ast
import builtins
import time
from contextlib import contextmanager
from dataclasses import dataclass, field

import numpy as np

from .. import ir, runtime
from ..analysis import activity as activity_mod
from ..ir.kinds import INT, SCALAR, UNKNOWN, ArrayKind, ListKind, opaque
from ..analysis.classify import classify
from ..backend import emit, release, reuse
from ..errors import NonScalarOutputError, S2SADError
from ..frontend import anf, parse
from ..optimize import simplify, tapes
from ..optimize.context import name_kinds
from . import effects, libraries, saved as saved_mod, stages
from ..frontend.program import Front, Program
from .stages import return_kind
from ..transform import batching, common as transform_common, forward as forward_mod, reverse


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
    todo = [act.kinds.get(n) for n in act.active]
    while todo:  # (a stack, not a nested function calling itself: a reference cycle)
        kind = todo.pop()
        if isinstance(kind, (tuple, ListKind)):
            todo.extend(kind if isinstance(kind, tuple) else [kind.elem])
        elif kind not in (SCALAR, INT):
            return False
    return True


@dataclass(eq=False)
class Unit:
    module: ir.Module
    functions: list  # UnitFunction, in module order
    entry: tuple  # IR names of the entry functions
    helpers: dict  # name -> object the emitted code reads from s2sad's rules
    resolved: list  # (user function, dotted name, object): what the unit assumed
    # (user function, name, value): a global or closure variable whose value the
    # derivative was built for (a loop's count: `structure_values.Rewritten.decided`)
    decided: list = field(default_factory=list)
    # (function put in place, its variable read by a name of its own, the object)
    captured: list = field(default_factory=list)  # (`defaults.capture`: by identity)
    output_kind: object = None
    root: object = None
    scalar_tangents: bool = False  # forward units: see `_scalar_tangents`
    printed: emit.Printed | None = None
    namer: emit.Namer | None = None
    texts: dict = field(default_factory=dict)  # IR name -> that function's emitted text
    times: dict = field(default_factory=dict)  # stage -> seconds it took (`_Builder.timed`)
    # does a backward function put back what a write or an append changed (in an
    # object a callee made and returned, perhaps the output)? `vjp` copies its output
    restores: bool = False

    @property
    def text(self) -> str:
        return self.printed.text


def reverse_unit(func, wrt, entry="grad", param_kinds=None, as_tuple=False,
                 checkpoint=None, copy_views=False) -> Unit:
    """The reverse-mode derivative of `func` with respect to the parameters `wrt`, for
    `entry` (see the module's docstring).

    `checkpoint`: None, or ``(schedule, snapshots)`` to checkpoint the outermost loops
    of `func` (see `stages.checkpoint_outer_loops`), or `stages.TAPED_LOOPS` to reverse
    every loop with its tape, those the user marked with `s2sad.checkpointed` too, in
    `func` and in the functions it calls (see `stages.without_checkpoints`). With
    `copy_views`, the forward sweep copies what it reads out of an array the function
    writes into (``t1 = B[:, 1].copy()``), the gradient code forward mode
    differentiates for second derivatives: the reverse sweep reads such a value only
    where the array holds what it held when it was read (a write is undone before the
    reverse of the lines before it): the same numbers, and forward mode, which cannot
    see that, need not follow a write through a view."""
    with stages.building():
        return stages.held_or_not(lambda kinds: _ReverseBuilder(
            func, tuple(wrt), entry, kinds, as_tuple, checkpoint, copy_views), param_kinds or {})


def forward_unit(func, wrt, param_kinds=None, batched=False, quiet=False) -> Unit:
    """The forward-mode derivative of `func` with respect to the parameters `wrt`:
    one function ``f%jvp(params..., wrt tangents...)`` returning ``(output, output
    tangent)``, plus ``g%jvp(active tangents..., params...)`` for every user function
    it calls with a varying argument. With `batched`, every tangent carries a leading axis
    of directions (`batching`; `NotBatchable` where a line cannot); with `quiet`, without
    what only reports (`effects`)."""
    with stages.building():
        return stages.held_or_not(
            lambda kinds: _ForwardBuilder(func, tuple(wrt), kinds, batched, quiet),
            param_kinds or {})


# ------------------------------------------------------------------ builder


class _Builder:
    """Builds one `Unit`: the derivative of the root function, then of every user
    function a derivative calls with a varying argument (the transforms ask for them
    through `derivative_of`, which names each and queues it), then the module: the
    helpers its code still reads, their imports, its text.

    What differs between the modes is in the subclasses: `callee_names` (what a
    callee's derivative functions are called), `root_functions` and
    `callee_functions` (transform one function and assemble its derivative
    functions), `finish_functions` (a last pass over all of them)."""

    def __init__(self, root, wrt, param_kinds, checkpoint=None):
        self.root = root
        self.wrt = wrt
        self.param_kinds = param_kinds
        self.checkpoint = checkpoint
        self.program = Program()
        self.kinds = stages.Kinds(self.program, param_kinds)
        self.names: dict = {}  # (callee, active, kinds) -> the mode's callee names
        self.queue: list = []
        self.functions: list = []  # UnitFunction, in module order
        self.helpers: dict = {}
        self.resolved: list = []
        self.decided: list = []  # (`Unit.decided`)
        self.captured: list = []  # (`Unit.captured`)
        self.seen_users = []
        self.acts: list = []  # (user function, its activity), each analysed
        self.scalar_tangents = False  # (forward mode: see `_scalar_tangents`)
        self.times: dict = {}

    @contextmanager
    def timed(self, stage: str):
        """Add the seconds the block takes to ``times[stage]``: ``parse`` (parse,
        desugar, ANF and dup of a function), ``activity``, ``transform``,
        ``simplify`` (with the assembly of the derivative functions), ``emit``."""
        start = time.perf_counter()
        try:
            yield
        finally:
            self.times[stage] = self.times.get(stage, 0.0) + time.perf_counter() - start

    def derivative_of(self, callee, active, kinds=None):
        """The names of the derivative functions of `callee` for the `active`
        parameters and argument `kinds` (a default's where the call leaves one),
        queued to be built if they are new."""
        kinds = dict(stages.default_kinds(callee), **(kinds or {}))
        key = (callee, active, tuple(sorted(kinds.items(), key=lambda kv: kv[0])))
        got = self.names.get(key)
        if got is None:
            got = self.callee_names(callee)
            self.names[key] = got
            self.queue.append((callee, active, kinds, got))
        return got

    def build(self) -> Unit:
        fr = self.front(self.root, self.param_kinds)
        if self.checkpoint is not None and self.checkpoint != stages.TAPED_LOOPS:
            fr = Front(fr.func, fr.parsed, fr.anf,
                       stages.checkpoint_outer_loops(fr.dup, self.checkpoint))
        act = self.analyze(fr, self.wrt, self.param_kinds)
        out_kind = return_kind(fr.dup, act)
        entry = self.root_functions(fr, act, out_kind)
        while self.queue:
            callee, active, kinds, names = self.queue.pop(0)
            cfr = self.front(callee, kinds)
            cact = self.analyze(cfr, active, kinds, callee=True)
            self.callee_functions(cfr, cact, names)
        with self.timed("simplify"):
            self.finish_functions()
        self.helpers.update(libraries.refuse(self.functions, self.acts, self.param_kinds,
                                             self.library_primal))
        module = ir.Module([uf.fn for uf in self.functions])
        self.imported_helpers()
        reads = {uf.fn.name: ir.reads_in(uf.fn.body) for uf in self.functions}  # (once)
        self.helpers = _used(self.helpers, reads)
        module.imports = emit.module_imports(module, self.helpers,
                                             {uf.fn.name: uf.user for uf in self.functions},
                                             reads)
        _check_helper_clashes(self.functions, self.helpers)
        unit = Unit(module, self.functions, entry, dict(self.helpers), self.resolved,
                    self.decided, self.captured, out_kind,
                    scalar_tangents=self.scalar_tangents,
                    restores=any(getattr(s, "restore", False) for uf in self.functions
                                 for s in ir.walk(uf.fn.body)))
        with self.timed("emit"):
            _print(unit)
        unit.times = self.times
        return unit

    def imported_helpers(self):
        """A name an ``import`` inside a user function binds, or a class it reads to
        call a method (`Program.bound_names`), is read by derivative functions that
        do not bind it (``g_bwd``, a step function): they get it as a helper, in a
        closure cell (the function with the kept ``import`` binds its own)."""
        given = self.program.bound_names()
        for uf in self.functions:
            if not (names := given.get(id(uf.user))):
                continue
            bound = {n for s in ir.walk(uf.fn.body) if isinstance(s, ir.Kept)
                     for n in s.own_names()}
            for name in names & set(ir.reads_in(uf.fn.body)) & uf.fn.refs.keys() - bound:
                self.helpers.setdefault(name, uf.fn.refs[name])

    def front(self, func, kinds=None) -> Front:
        """`func`'s front for arguments of these `kinds` (`Program.function`)."""
        with self.timed("parse"):
            fr = self.program.function(func, kinds)
        if self.checkpoint == stages.TAPED_LOOPS:
            fr = Front(fr.func, fr.parsed, fr.anf, stages.without_checkpoints(fr.dup))
        return fr

    def analyze(self, fr: Front, wrt, kinds, callee=False):
        with self.timed("activity"):
            act = activity_mod.analyze(fr.dup, wrt, kinds, self.kinds, callee)
        self.acts.append((fr.func, act))
        self.kinds.note(fr.dup, act)  # (code that may rebind an object's attribute?)
        if transform_common.iterate_unknown(fr.dup, act):  # (`for k in d`, d unknown)
            self.helpers.setdefault("iterated", runtime.iterated)
        return act

    def library_primal(self, callee, kinds: dict, name: str) -> UnitFunction:
        """`callee` for arguments of `kinds` (defaults' kinds added), as the function
        `name` of the unit: its forward sweep with nothing active, so the lines of the
        user's code it runs are the unit's, and run with the unit's library
        (`libraries.run_with_library`). Raises `S2SADError` where s2sad cannot read it."""
        kinds = dict(stages.default_kinds(callee), **kinds)
        fr = self.front(callee, kinds)
        act = self.analyze(fr, (), kinds, callee=True)
        with self.timed("transform"):
            fwd = forward_mod.transform(fr.dup, act, self.derivative_of)
        self.note_user(fr)
        self.helpers.update(fwd.helpers)
        with self.timed("simplify"):
            body, _, (output,) = simplify.simplify(
                fwd.body, [], set(), [fwd.output], _purity(fr.dup, act),
                name_kinds(act, fr.dup.refs), inputs=[p.name for p in fr.anf.params],
                mutable=reverse.mutable_names(act, fr.dup.body))
        fn = ir.Function(name, _params(fr.anf), body + [ir.Return(output, fwd.output_line)],
                         fr.anf.refs, fr.anf.source)
        return UnitFunction(fn, callee)

    def note_user(self, fr: Front):
        """Record the names `fr`'s function resolved (once per user function)."""
        if any(u is fr.func for u in self.seen_users):
            return
        self.seen_users.append(fr.func)
        resolved, decided, captured = stages.assumed(fr.func, fr.parsed)
        self.resolved, self.decided = self.resolved + resolved, self.decided + decided
        self.captured += [h for h in captured.values() if h[0] is not None]
        self.helpers.update((name, value) for name, (_, _, value) in captured.items())

    def callee_names(self, callee):
        raise NotImplementedError

    def root_functions(self, fr: Front, act, out_kind) -> tuple:
        """Add the root's derivative functions; return the entry functions' names."""
        raise NotImplementedError

    def callee_functions(self, fr: Front, act, names):
        raise NotImplementedError

    def finish_functions(self):
        pass


class _ReverseBuilder(_Builder):
    """Reverse mode: the root as one fused function (``grad``, ``value_and_grad``)
    or a forward and a backward function (``vjp``); every callee as ``g%fwd`` and
    ``g%bwd``; the step functions of checkpointed loops beside them."""

    def __init__(self, root, wrt, entry, param_kinds, as_tuple, checkpoint=None,
                 copy_views=False):
        super().__init__(root, wrt, param_kinds, checkpoint)
        self.entry = entry
        self.as_tuple = as_tuple
        self.copy_views = copy_views
        self.kinds_of = {}  # function name -> its analysis's kinds, for `release`

    def callee_names(self, callee):
        n = sum(1 for (c, _, _) in self.names if _named(c) == _named(callee))
        suffix = "" if n == 0 else f"%{n + 1}"
        return (f"{_named(callee)}%fwd{suffix}", f"{_named(callee)}%bwd{suffix}")

    def root_functions(self, fr: Front, act, out_kind) -> tuple:
        if self.entry in ("grad", "value_and_grad"):
            _check_scalar_output(fr, out_kind, act)
        with self.timed("transform"):
            rev = reverse.transform(fr.dup, act, self.derivative_of)
        self.note_user(fr)
        name = _named(self.root)
        if self.entry == "vjp":
            entry = (f"{name}%vjp%fwd", f"{name}%vjp%bwd")
            self.functions += self.split(fr, act, rev, *entry, root=True)
        else:
            entry = (f"{name}%{self.entry}",)
            self.functions.append(self.fused(fr, act, rev, entry[0]))
        self.helpers.update(rev.helpers)
        with self.timed("simplify"):
            self.functions += _step_functions(fr, act, rev)
        return entry

    def callee_functions(self, fr: Front, act, names):
        with self.timed("transform"):
            rev = reverse.transform(fr.dup, act, self.derivative_of)
        self.note_user(fr)
        self.helpers.update(rev.helpers)
        self.functions += self.split(fr, act, rev, *names)
        with self.timed("simplify"):
            self.functions += _step_functions(fr, act, rev)

    def finish_functions(self):
        self.functions = _share_forward_sweeps(self.functions)
        released = release.released_all([uf.fn for uf in self.functions], self.kinds_of)
        for uf, fn in zip(self.functions, released):
            uf.fn = fn

    def fused(self, fr: Front, act, rev: reverse.Reverse, name: str) -> UnitFunction:
        grads = [rev.grads[p] for p in self.wrt]
        keep = {g.id for g in grads if isinstance(g, ast.Name)}
        seed_block = []
        if rev.seed is not None:
            seed = ir.const(1.0)
            if _rank_unknown(return_kind(fr.dup, act)):
                # (an output that may be a number or an array: it is checked when the
                # gradient runs, see `_check_scalar_output`)
                seed = ast.Call(func=ir.name("scalar_seed"), args=[ir.copy_tree(rev.output)],
                                keywords=[])
                self.helpers["scalar_seed"] = runtime.scalar_seed
            seed_block = [_return_comment(fr, rev),
                          ir.Assign((rev.seed,), seed, rev.output_line)]
        with_value = self.entry == "value_and_grad"
        tail = _read_output(fr, rev.output, rev.output_line)
        if with_value:  # (a name no temporary has, nor the loop values restored)
            tail.append(ir.Assign(("%value%out",), rev.output, rev.output_line))
        with self.timed("simplify"):
            forward, backward, outputs = simplify.simplify(
                rev.forward + tail, seed_block + rev.reverse, keep,
                grads + [ir.name("%value%out")] * with_value,
                _purity(fr.dup, act), name_kinds(act, fr.dup.refs),
                inputs=[p.name for p in fr.anf.params], mutable=rev.mutable)
        if self.copy_views:
            _copy_view_reads(forward, backward, act, rev)
        grads = outputs[: len(grads)]
        if not self.copy_views:  # (second derivatives type their own results)
            grads = self.typed(grads, self.wrt, act, forward + backward, fr.dup.refs)
        if len(grads) == 1 and not self.as_tuple:
            result = grads[0]
        else:
            result = ast.Tuple(elts=grads, ctx=ast.Load())
        if with_value:
            result = ast.Tuple(elts=[outputs[-1], result], ctx=ast.Load())
        body = forward + backward + [ir.Return(result, rev.output_line)]
        fn = ir.Function(name, _params(fr.anf), body, fr.anf.refs, fr.anf.source)
        self.kinds_of[name] = {} if self.copy_views else act.kinds  # (forward mode reads no del)
        return UnitFunction(fn, fr.func)

    def typed(self, grads, names, act, body, refs) -> list:
        """The root's gradients with exactly their arguments' types: an array's dtype
        (float32 stays float32 where a float64 constant met it), a 0-d array a 0-d
        array, a float a float (not the float32 NumPy scalar a sum of float32 arrays
        gives). Float64 arrays, the common case, are left as they are where nothing
        narrower is in `body` (the derivative's code) or `refs`: nothing widens them,
        and their NumPy scalars are floats."""
        out = []
        for g, cast in zip(grads, stages.gradient_casts(self.param_kinds, names, body, refs)):
            if cast == "float" and not (isinstance(g, ast.Constant) and type(g.value) is float):
                g = ast.Call(func=ir.name("float"), args=[g], keywords=[])
            elif cast not in (None, "float"):
                self.helpers["np"] = np
                dtype = ast.Attribute(value=ir.name("np"), attr=cast, ctx=ast.Load())
                g = ast.Call(func=ast.Attribute(value=ir.name("np"), attr="asarray",
                                                ctx=ast.Load()),
                             args=[g, dtype], keywords=[])
            out.append(g)
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
        with self.timed("simplify"):
            forward, backward, (output, *grads) = simplify.simplify(
                rev.forward, rev.reverse, keep | {seed_param}, [rev.output] + grads,
                _purity(fr.dup, act), name_kinds(act, fr.dup.refs),
                inputs=[p.name for p in fr.anf.params] + [seed_param],
                mutable=rev.mutable)
        if self.copy_views:
            _copy_view_reads(forward, backward, act, rev)
        if root:  # (vjp's adjoints have their arguments' types, as grad's gradients)
            grads = self.typed(grads, active, act, forward + backward, fr.dup.refs)
        if root and isinstance(output, ast.Name) and output.id in rev.mutable and any(
                isinstance(s, (ir.SetItem, ir.Expr)) and s.restore for s in ir.walk(backward)):
            # the pullback puts back what writes overwrote (and undoes appends and
            # pops): return a copy, so the caller's output does not change when it runs
            output = ast.Call(func=ast.Attribute(value=output, attr="copy", ctx=ast.Load()),
                              args=[], keywords=[])
        params = [p.name for p in fr.anf.params]
        # what the backward sweep reads, its result too (the zero gradient of an
        # array argument the output does not depend on reads the argument)
        read = tapes.saved_names([ir.Assign((p,), ir.const(None)) for p in params] + forward,
                                 backward + [ir.Return(ast.Tuple(elts=list(grads),
                                                                    ctx=ast.Load()), 0)])
        saved = [n for n in read if n in params] + [n for n in read if n not in params]
        saved.sort(key=(params + [n for s in ir.walk(forward)
                                  for n in ir.defined_names(s)]).index)
        saved_mod.fill_unset(forward, set(saved), params)
        saved_tuple = ast.Tuple(elts=[ir.name(n) for n in saved], ctx=ast.Load())
        fwd_body = forward + [ir.Return(ast.Tuple(elts=[output, saved_tuple],
                                                  ctx=ast.Load()), rev.output_line)]
        fwd = ir.Function(fwd_name, _params(fr.anf), fwd_body, fr.anf.refs, fr.anf.source)
        bwd_body = []
        if saved:
            bwd_body.append(ir.Assign(tuple(saved), ir.name("%saved"), 0, unpack=True))
        bwd_body += backward
        if len(grads) == 1 and not root:
            result = grads[0]
        else:  # (no grads: the empty tuple)
            result = ast.Tuple(elts=grads, ctx=ast.Load())
        bwd_body.append(ir.Return(result, rev.output_line))
        bwd = ir.Function(bwd_name, [ir.Param("%saved"), ir.Param(seed_param)], bwd_body,
                          fr.anf.refs, fr.anf.source)
        self.kinds_of[fwd_name] = self.kinds_of[bwd_name] = {} if self.copy_views else act.kinds
        return [UnitFunction(fwd, fr.func), UnitFunction(bwd, fr.func, keep_defaults=False)]


class _ForwardBuilder(_Builder):
    """Forward mode: one function ``f%jvp`` for the root and ``g%jvp`` for every
    callee (see `forward_unit`)."""

    def __init__(self, root, wrt, param_kinds, batched=False, quiet=False):
        super().__init__(root, wrt, param_kinds)
        self.batched = batched
        self.quiet = quiet

    def finish_functions(self):
        if self.quiet:
            effects.quiet_functions(self.functions)

    def callee_names(self, callee):
        n = sum(_named(c) == _named(callee) for c, _, _ in [*self.names, (self.root, 0, 0)])
        return f"{_named(callee)}%jvp" + ("" if n == 0 else f"%{n + 1}")

    def root_functions(self, fr: Front, act, out_kind) -> tuple:
        entry = (f"{_named(self.root)}%jvp",)
        self.functions.append(self.assemble(fr, act, entry[0], root=True))
        self.scalar_tangents = _scalar_tangents(act)
        return entry

    def callee_functions(self, fr: Front, act, name):
        self.functions.append(self.assemble(fr, act, name, root=False))
        self.scalar_tangents = self.scalar_tangents and _scalar_tangents(act)

    def assemble(self, fr: Front, act, name: str, root: bool) -> UnitFunction:
        with self.timed("transform"):
            fwd = forward_mod.transform(fr.dup, act, self.derivative_of)
        self.note_user(fr)
        self.helpers.update(fwd.helpers)
        params = [p.name for p in fr.anf.params]
        dots = [fwd.tangents[p] for p in act.wrt] if root else \
            [fwd.tangents[p] for p in params if p in act.wrt]
        with self.timed("simplify"):
            body, _, (output, output_dot) = simplify.simplify(
                fwd.body, [], set(), [fwd.output, fwd.output_dot], _purity(fr.dup, act),
                name_kinds(act, fr.dup.refs), inputs=params + dots,
                mutable=reverse.mutable_names(act, fr.dup.body, tangents=True))
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
            batching.batch(fn, act.kinds)
            self.helpers["np"] = np
        # the root is always called with every argument; a callee's defaults are the
        # user function's, which stay last
        return UnitFunction(fn, fr.func, keep_defaults=not root)


# ---------------------------------------------------------------- assembly


def _step_functions(fr: Front, act, rev: reverse.Reverse) -> list:
    """The step function of each checkpointed loop, ``step(indices, state, args)``,
    a while loop's test, ``test(state, args)``, and the step's reverse,
    ``step_bar(i, state, args, bar)`` (see `transform.checkpointing.Step`)."""
    out = []
    for st in rev.steps:
        unpack = [ir.Assign(tuple(st.state), ir.name("%state"), st.line, unpack=True)]
        if st.args:
            unpack.append(ir.Assign(tuple(st.args), ir.name("%args"), st.line, unpack=True))
        params = [ir.Param(st.target), ir.Param("%state"), ir.Param("%args")]
        inputs = [p.name for p in params]
        for name, step_body in [(st.name, st.body)] + (
                [(st.quiet_name, st.quiet_body)] if st.quiet_name else []):
            body, _, outputs = simplify.simplify(
                step_body, [], set(), [ast.Tuple(elts=ir.copy_tree(st.outputs),
                                                 ctx=ast.Load())],
                _purity(fr.dup, act), name_kinds(act, fr.dup.refs),
                inputs=[st.target] + st.state + st.args, mutable=rev.mutable)
            loop = ir.ForEach(st.target, ir.name("%indices"),
                              body + _carry(st.state, outputs[0], st.line), st.line)
            fn = ir.Function(name, [ir.Param("%indices")] + params[1:],
                             ir.copy_tree(unpack) + [loop, ir.Return(_tuple_of(st.state),
                                                                     st.line)],
                             fr.anf.refs, fr.anf.source)
            out.append(UnitFunction(fn, fr.func, keep_defaults=False))
        if st.test_name is not None:  # a while loop's test, ``test(state, args)``
            body, _, outputs = simplify.simplify(
                ir.copy_tree(unpack) + ir.copy_tree(st.cond), [], set(), [ir.copy_tree(st.test)],
                _purity(fr.dup, act), name_kinds(act, fr.dup.refs), inputs=inputs[1:],
                mutable=rev.mutable)
            fn = ir.Function(st.test_name, params[1:],
                             body + [ir.Return(outputs[0], st.line)],
                             fr.anf.refs, fr.anf.source)
            out.append(UnitFunction(fn, fr.func, keep_defaults=False))
        bar_unpack = [ir.Assign(tuple(st.bar), ir.name("%bar"), st.line, unpack=True)]
        forward, backward, outputs = simplify.simplify(
            unpack + st.forward, bar_unpack + st.reverse, set(st.bar),
            [ast.Tuple(elts=[ir.name(n) for n in st.bar], ctx=ast.Load())],
            _purity(fr.dup, act), name_kinds(act, fr.dup.refs), inputs=inputs + ["%bar"],
            mutable=rev.mutable, replayed=True)
        fn = ir.Function(st.bar_name, params + [ir.Param("%bar")],
                         forward + backward + [ir.Return(outputs[0], st.line)],
                         fr.anf.refs, fr.anf.source)
        out.append(UnitFunction(fn, fr.func, keep_defaults=False))
    return out


def _named(func) -> str:
    """The name the functions derived from `func` are emitted under: its own, or for a
    lambda `parse.LAMBDA`; `callee_names` numbers (``%2``) another of the same name."""
    name = func.__name__
    return name if name.isidentifier() else parse.LAMBDA


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


def _copy_view_reads(forward, backward, act, rev):
    """For `copy_views` (see `reverse_unit`): ``t = B[...]`` of an array `B` the
    code writes into (an array of the function's, or an adjoint array the reverse
    sweep updates in place) reads ``B[...].copy()``."""
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
        if op.kind == "inactive" and isinstance(value, ast.JoinedStr):
            # (an f-string of numbers and arrays: `format` of them changes nothing)
            return all(isinstance(x, ast.Constant) or kind(x) in (SCALAR, INT)
                       or isinstance(kind(x), ArrayKind) for x in op.inputs)
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
    what = "a value that is not a number" if opaque(kind) else (
        "a tuple" if isinstance(kind, tuple) else
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


def _used(helpers: dict, reads: dict) -> dict:
    """The helpers some function still reads (simplify may have dropped the last
    ``unreduce`` or ``unbroadcast``); `reads`: each function's `ir.reads_in`."""
    return {n: obj for n, obj in helpers.items() if any(n in r for r in reads.values())}


_BUILTIN_NAMES = frozenset(n for n in dir(builtins) if not n.startswith("_"))


def _check_helper_clashes(functions, helpers):
    for uf in functions:
        local = ir.local_names(uf.fn)
        shadowed = local & _BUILTIN_NAMES
        for name in sorted(shadowed):
            if any(isinstance(n, ast.Call) and isinstance(n.func, ast.Name) and n.func.id == name
                   for st in ir.walk(uf.fn.body) for e in ir.exprs(st) for n in ast.walk(e)):
                info = uf.fn.source
                raise S2SADError(
                    f"{info.qualname if info else uf.fn.name} gives the name `{name}` a "
                    f"value, and s2sad's derivative code calls Python's `{name}` there",
                    hint=f"Rename your `{name}`.", **_where_given(uf.fn, name))
        if not helpers:
            continue
        for name, obj in helpers.items():
            if name in local or (name in uf.fn.refs and uf.fn.refs[name] is not obj):
                info = uf.fn.source
                raise S2SADError(
                    f"{info.qualname if info else uf.fn.name} uses the name `{name}` for "
                    f"something else, but s2sad's derivative code needs `{name}` to be {obj!r}",
                    hint=f"Rename your `{name}`.", **_where_given(uf.fn, name))


def _where_given(fn, name) -> dict:
    """The user's line that first gives `name` a value in `fn`, as an error's
    location (empty where no line of the user's does: a name read from outside)."""
    info = fn.source
    line = next((st.line for st in ir.walk(fn.body) if st.line and name in {
        t.split("%")[0] for t in ir.defined_names(st)}), None)
    if info is None or line is None:
        return {}
    return {"filename": info.filename, "lineno": line, "source_line": info.line_text(line)}


def _print(unit: Unit):
    renames = reuse.renames(unit.module, mentioned := {})  # (and the names the namer needs)
    unit.namer = emit.make_namer([uf.fn for uf in unit.functions], set(unit.helpers), mentioned)
    unit.printed = emit.emit_module(unit.module, unit.namer, renames)
    unit.texts.update(unit.printed.function_texts([uf.fn.name for uf in unit.functions]))
