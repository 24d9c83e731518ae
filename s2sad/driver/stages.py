"""stages: what the driver does to a function before it transforms it, and the
stages `s2sad show` prints.

* `Kinds` gives activity analysis the return kinds of the user functions a function
  calls, reading their IR from the `frontend.program.Program` it is given (each
  called function is lowered once per program).
* `assumed_kinds` and `kinds_of_example` are the argument kinds `s2sad.source` and
  `s2sad show` build a derivative for; `gradient_cast` and `narrow_arrays` say what
  makes a gradient have its argument's type, given the argument kinds.
* `checkpoint_outer_loops` and `without_checkpoints` mark (or unmark) the loops of a
  function's dup stage for checkpointing, for ``checkpoint=`` and `TAPED_LOOPS`.
* `stage_module(func, stage, wrt, param_kinds)` gives the IR module a stage prints:
  ``anf``, ``dup``, ``activity`` (`STAGES` names them all; ``source``, ``reverse``
  and ``forward`` are printed by `api.reverse.source`).
* `building` sets the interpreter up while a derivative (or a graph) is built: the
  cyclic garbage collector paused, room for deep expression trees.

May import analysis, frontend, ir; imports nothing from `builder`.
"""

from __future__ import annotations

import ast
import gc
import inspect
import sys
from contextlib import contextmanager

from ..analysis import activity as activity_mod
from ..analysis.attributes import runs_unseen_code
from ..ir.kinds import (INT, PENDING, SCALAR, STANDARD, UNKNOWN, ArrayKind, ListKind, ObjectKind,
                        kind_of, merged, with_shapes)
from ..frontend.program import Front, Program, classes, front
from .. import ir


# the recursion limit while a derivative is built (Python's default is 1,000 frames)
DEEP = 20_000


@contextmanager
def building():
    """The interpreter as a build needs it, put back after.

    Python's cyclic garbage collector is off (back on after, if it was on). A build
    allocates hundreds of thousands of tree nodes that stay alive until it ends, so
    every collection the allocations trigger walks more of them: a fifth of the first
    call of a 1,600-operation gradient, half of an 800-line function's Hessian,
    growing faster than the code. What a build leaves behind is freed by reference
    counting; a collection after it finds what is left.

    The recursion limit is at least `DEEP`: the passes walk expression trees
    recursively, two or three frames a level, and the adjoint of a value read n times
    is a sum n deep (a parameter read 300 times ran out of Python's 1,000 frames)."""
    was_on = gc.isenabled()
    limit = sys.getrecursionlimit()
    gc.disable()
    sys.setrecursionlimit(max(limit, DEEP))
    try:
        yield
    finally:
        sys.setrecursionlimit(limit)
        if was_on:
            gc.enable()


# ------------------------------------------------------------------- kinds


class Kinds:
    """Return kinds of user functions, for activity's interprocedural view.

    A recursive function's result kind is found as a fixed point: its recursive
    calls are first taken to return `PENDING` (nothing yet), so the paths that do not
    recurse give the kind (``return [x]``); then they are taken to return that kind,
    until analysing the function gives back the kind it assumed, which is then its
    kind on every path, by induction on the depth of the recursion. Where that does
    not settle, its calls return `UNKNOWN`, which reverse mode refuses to build on.

    Where the root's objects have attributes of known kinds (`ObjectKind.attrs`),
    each function analysed is looked at for code s2sad does not see into, which may
    rebind one (`attributes.runs_unseen_code`): `unseen` says if one does."""

    ROUNDS = 4

    def __init__(self, program: Program | None = None, root_kinds=None):
        self.cache = {}
        self.program = program if program is not None else Program()
        self.busy = set()
        self.assumed = {}  # key -> the kind its recursive calls are taken to return
        self.recursed = set()  # keys whose analysis met a call of themselves
        self.watch = without_held(root_kinds or {}) is not None
        self.unseen = False

    def note(self, fn: ir.Function, act):
        """`fn` was analysed as `act`: where it runs code s2sad does not see into, the
        build with the attributes' kinds stops (`UnseenCode`, `held_or_not`)."""
        if self.watch and (self.unseen or runs_unseen_code(fn, act, self.seen)):
            self.unseen = True  # (also where a caller's `except` takes what is raised)
            raise UnseenCode

    def seen(self, func, stmt, arg_kinds) -> bool:
        """Does s2sad read `func` called at `stmt` with arguments of `arg_kinds` (and so
        `note` it), not run it as written (a call for its effect of a function it
        cannot read: one that assigns an attribute)?"""
        try:
            self.analysed(func, stmt, arg_kinds)
        except Exception:  # noqa: BLE001 (what s2sad cannot read, it runs as written)
            return False
        return True

    def front(self, func, kinds=None) -> Front:
        return self.program.function(func, kinds)

    def __call__(self, func, stmt, arg_kinds):
        return self.analysed(func, stmt, arg_kinds)[0]

    def shared(self, func, stmt, arg_kinds) -> list:
        """The positions, among the call's inputs (arguments, then keyword values), of
        the lists and arrays the result may be (or be a view of); of a tuple the
        callee makes, a tuple of those per item."""
        return self.analysed(func, stmt, arg_kinds)[1]

    def analysed(self, func, stmt, arg_kinds):
        key = (func, tuple(arg_kinds))
        if key in self.cache:
            return self.cache[key]
        if key in self.busy:
            # recursion: the result's kind is the one assumed (see the class
            # docstring), and it may be any input
            self.recursed.add(key)
            return self.assumed.get(key, UNKNOWN), list(range(len(arg_kinds)))
        self.busy.add(key)
        try:
            result = self.analyse(func, stmt, arg_kinds)
            if key in self.recursed:
                result = self.fixed_point(key, func, stmt, arg_kinds, result)
        finally:
            self.busy.discard(key)
            self.assumed.pop(key, None)
            self.recursed.discard(key)
        self.cache[key] = result
        return result

    def analyse(self, func, stmt, arg_kinds):
        kinds = _param_kinds_for_call(func, stmt, arg_kinds)
        fr = self.front(func, kinds)
        act = activity_mod.analyze(fr.dup, (), kinds, self, callee=True)
        self.note(fr.dup, act)
        return return_kind(fr.dup, act), _shared_inputs(func, stmt, fr.dup, act)

    def effects(self, func, stmt, arg_kinds, varied: tuple):
        """Check a call for its effect (its result unread) whose inputs at the
        positions `varied` carry a derivative: `func` analysed with its parameters
        there varied, so its own checks refuse what it does with them that a
        derivative cannot follow (an attribute or a list from outside it given the
        value), once per function, kinds and positions."""
        key = ("effects", func, tuple(arg_kinds), varied)
        if key in self.cache or key in self.busy:
            return
        self.busy.add(key)
        try:
            kinds = _param_kinds_for_call(func, stmt, arg_kinds)
            names = _call_parameter_names(func, stmt.value)
            fn = self.front(func, kinds).dup
            self.note(fn, activity_mod.analyze(
                fn, [names[i] for i in varied if names[i] is not None], kinds, self,
                callee=True))
        finally:
            self.busy.discard(key)
        self.cache[key] = None

    def fixed_point(self, key, func, stmt, arg_kinds, first):
        """The result of a recursive function's analysis whose recursive calls
        return the kind it finds (the class docstring), or `first` (theirs unknown)."""
        kept = set(self.cache)

        def again(assumed):
            self.assumed[key] = assumed
            for k in set(self.cache) - kept:  # (found under another assumption)
                del self.cache[k]
            try:
                return self.analyse(func, stmt, arg_kinds)
            except Exception:  # (what the function does with a pending value)
                return None

        seed = again(PENDING)
        kind = None if seed is None else seed[0]
        for _ in range(self.ROUNDS):
            if kind in (None, PENDING, UNKNOWN):
                break
            got = again(kind)
            if got is None:
                break
            if got[0] == kind:
                return got
            kind = merged(kind, got[0])
        again(UNKNOWN)
        return first


def without_held(kinds: dict):
    """`kinds` with no attribute kinds on its objects (`ObjectKind.attrs`); None where
    none has any."""
    if not any(isinstance(k, ObjectKind) and k.attrs for k in kinds.values()):
        return None
    return {n: ObjectKind(k.cls) if isinstance(k, ObjectKind) else k for n, k in kinds.items()}


class UnseenCode(Exception):
    """A function the build analyses runs code s2sad does not see into, which may
    rebind an attribute whose kind the build took (`Kinds.note`)."""


def held_or_not(make, kinds: dict):
    """The unit ``make(kinds).build()`` builds, where no function it analyses runs
    code s2sad does not see into (`Kinds.unseen`); else the one it builds without the
    kinds of its objects' attributes, which that code may rebind while it runs: the
    first build stops at the first such function."""
    plain = without_held(kinds)
    if plain is None:
        return make(kinds).build()
    try:
        builder = make(kinds)
        unit = builder.build()
        if not builder.kinds.unseen:
            return unit
    except UnseenCode:
        pass
    return make(plain).build()


def _shared_inputs(func, stmt, fn: ir.Function, act) -> list:
    """Which of a call's inputs the callee's return value may share memory with: the
    parameter it returns, or any list or array parameter when it returns an object it
    did not make itself (a slice, an element, a call's result)."""
    value = fn.body[-1].value
    if not isinstance(value, ast.Name):
        return []
    params = [p.name for p in fn.params]
    objects = {p for p in params if isinstance(act.kinds.get(p), (ListKind, ArrayKind))}
    names = _call_parameter_names(func, stmt.value)
    made = _tuple_made(value.id, act, fn.body)
    if made is not None:  # (a tuple display: per item, ``return out, (x, w)``)
        return tuple([i for i, n in enumerate(names) if n in _shared_value(
            x.id, params, objects, act, fn.body, (value.id,))] if isinstance(x, ast.Name)
            else [] for x in made.elts)
    shared = _shared_value(value.id, params, objects, act, fn.body)
    return [i for i, n in enumerate(names) if n in shared]


def _tuple_made(n, act, body):
    """The tuple display the callee (`body`) gives `n`, a tuple, or None."""
    if not isinstance(act.kinds.get(n), tuple):
        return None
    made = next((s for s in ir.walk(body) if isinstance(s, ir.Assign) and s.targets == (n,)),
                None)
    return made.value if made is not None and isinstance(made.value, ast.Tuple) else None


def _shared_value(n, params, objects, act, body, seen=()) -> set:
    """The list and array parameters (`objects`) the value `n` a callee (`body`)
    returns may share memory with (`_shared_inputs`): a tuple's, what its items may
    share (``return v, np.sum(v)``, ``return out, (x, w)``), or any list or array
    parameter where it is not a display."""
    kind = act.kinds.get(n)
    if isinstance(kind, tuple) and n not in seen:
        made = _tuple_made(n, act, body)
        if made is None:
            return set(objects)
        return set().union(*[_shared_value(x.id, params, objects, act, body, seen + (n,))
                             for x in made.elts if isinstance(x, ast.Name)])
    if not isinstance(kind, (ListKind, ArrayKind)):
        return set()
    if isinstance(kind, ListKind) and kind.elem not in (SCALAR, INT):
        return set(objects)  # (a list that may hold arrays, ``[v, v * 2.0]``)
    root = act.root(n)
    if root in act.fresh and n not in act.views:
        return set()
    return {root} if root in params and n not in act.views else set(objects)


def _call_parameter_names(func, call) -> list:
    """The parameter each input of `call` (arguments, then keyword values) binds."""
    positional = list(inspect.signature(func).parameters)
    return [positional[i] if i < len(positional) else None for i in range(len(call.args))] \
        + [k.arg for k in call.keywords]


def _param_kinds_for_call(func, stmt, arg_kinds):
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
    return dict(default_kinds(func), **out)  # (a parameter not given has its default)


def default_kinds(func) -> dict:
    """{parameter: the kind of its default} of the parameters of `func` that have one."""
    try:
        sig = inspect.signature(func)
    except (TypeError, ValueError):
        return {}
    return {name: kind_of(p.default, items=False) for name, p in sig.parameters.items()
            if p.default is not inspect.Parameter.empty
            and p.kind not in (p.VAR_POSITIONAL, p.VAR_KEYWORD)}


def return_kind(fn: ir.Function, act) -> object:
    ret = fn.body[-1]
    value = ret.value
    if isinstance(value, ast.Name) and value.id in act.kinds:
        return act.kinds[value.id]
    if isinstance(value, ast.Constant):
        return kind_of(value.value)
    return UNKNOWN


# ------------------------------------------------------------------- stages

STAGES = ("source", "anf", "dup", "activity", "reverse", "forward")


def assumed_kinds(func, lowered=None, objects=()) -> dict:
    """The argument kinds `s2sad show` assumes when it is given no example arguments:
    in a function that uses NumPy (calls into it, or `@`), every parameter is a float
    array of unknown rank (so the rules chosen are the ones for any shape); otherwise
    a parameter the function indexes, measures with len(), sums or appends to is a
    list of floats, and every other parameter is a float. `lowered`: `func`'s dup
    stage where the caller has it already; `objects`: `program.classes` of the
    parameters whose arguments are objects of the user's."""
    fn = lowered if lowered is not None else front(func, objects).dup
    params = [p.name for p in fn.params]
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

    for s in ir.walk(fn.body):
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


def kinds_of_example(func, args, lowered=None) -> dict:
    """Argument kinds from example argument values (positional, in order)."""
    names = func.__code__.co_varnames[: func.__code__.co_argcount + func.__code__.co_kwonlyargcount]
    given = {n: kind_of(v) for n, v in zip(names, args)}
    # (the front of `func` with the classes of the objects given: ``self(x)`` is
    # refused without them)
    kinds = assumed_kinds(func, lowered, classes(given)) if len(given) < len(names) else {}
    kinds.update(given)
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
        act = activity_mod.analyze(fr.dup, wrt, param_kinds, Kinds())
        return ir.Module([activity_mod.annotate(fr.dup, act)],
                         imports=["from s2sad.runtime import dup"])
    raise ValueError(f"unknown stage {stage!r}; choose from {', '.join(STAGES)}")


# ------------------------------------------------------------------ loops


# `checkpoint=` of `builder.reverse_unit` for the gradient that second derivatives run
# in forward mode: the schedulers' calls are opaque to the forward transform, the taped
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


def checkpoint_outer_loops(fn: ir.Function, checkpoint) -> ir.Function:
    """`fn` with its outermost loops (in its body or its branches, not inside another
    loop) marked for checkpointing with ``(schedule, snapshots)``, except loops the
    user marked: ``grad(f, checkpoint=...)``. The mark says it was not the user's
    (``Loop.checkpoint[2]``): `reverse` leaves such a loop on the tape when its step
    functions cannot reverse it, or when it carries nothing active."""
    schedule, snapshots = checkpoint
    atom = None if snapshots is None else ir.const(snapshots)
    fn = fn.clone()
    blocks = [fn.body]  # (a stack, not a closure calling itself: no reference cycle)
    while blocks:
        for s in blocks.pop():
            if isinstance(s, ir.If):
                blocks += [s.orelse, s.body]
            elif isinstance(s, ir.Loop) and s.checkpoint is None:
                s.checkpoint = (schedule, atom, "auto")
    return fn


# ----------------------------------------------------------- gradient types


def narrow_arrays(kinds: dict) -> bool:
    """Is some argument an array narrower than float64? (A NumPy scalar of float64 is
    a float; one of float32 is not, and a float argument's gradient could become one.
    Not a PyTorch tensor or an array-api-strict array: beside those, a float
    argument's gradient is a 0-d array, as it is beside float64 ones.)"""
    return any(isinstance(k, ArrayKind) and k.xp not in STANDARD and
               k.exact not in (None, "float64") for k in kinds.values())


_CAST = (None, "jax") + STANDARD  # (the libraries `gradient_cast` casts: NumPy too)

# what names a float dtype narrower than float64, or converts to one (``.astype``)
_NARROWING = frozenset({"float32", "float16", "half", "single", "bfloat16", "f4", "f2",
                        "astype"})


def gradient_casts(kinds: dict, names, body, refs) -> list:
    """`gradient_cast` of each argument of `names` (of `kinds`) for the compiled
    gradient whose code is `body` (`refs`, what its names resolve to): a float64
    array's gradient too where the code could make it narrower (`narrowing`, asked
    only where such an argument has a gradient: its walk is the build's)."""
    narrow = narrow_arrays(kinds)
    out = [gradient_cast(kinds.get(p), narrow) for p in names]
    wide = [i for i, p in enumerate(names) if gradient_cast(kinds.get(p), True) == "float64"
            and out[i] is None]
    if wide and narrowing(body, refs):
        for i in wide:
            out[i] = "float64"
    return out


def narrowing(body, refs) -> bool:
    """Could the code `body` (statements) make a float64 argument's gradient
    narrower? It names a narrower float dtype (``np.float32``, ``"f4"``) or
    converts (``.astype``), or reads a global NumPy array or scalar narrower than
    float64 (of `refs`): a float32 value meeting the argument's adjoint keeps it
    float32 where the arithmetic is simplified (``1.0 * t1``, not ``unreduce(1.0,
    t2) * t1``)."""
    for s in ir.walk(body):
        for node in ir.slot_values(s):
            for n in ast.walk(node):
                t = type(n)
                if t is ast.Attribute and n.attr in _NARROWING or \
                        t is ast.Name and n.id in _NARROWING or \
                        t is ast.Constant and type(n.value) is str and n.value in _NARROWING:
                    return True
    return any(getattr(v, "dtype", None) is not None and getattr(v.dtype, "kind", "") == "f"
               and v.dtype.itemsize < 8 for v in refs.values())


def gradient_cast(kind, narrow: bool):
    """What makes the gradient of an argument of `kind` (from `with_shapes`) have
    exactly its argument's type, for every entry point (`builder.reverse_unit` writes it
    into the compiled gradient; `api.arguments.typed_like` applies it to what the other entry
    points compute): a dtype name (``np.asarray(g, np.float32)``) for an array whose
    gradient may come out wider or as a NumPy scalar (an array narrower than float64,
    a 0-d array), and for a float64 array where something narrower may meet its
    adjoint (`narrow`: a narrower argument; `gradient_casts` asks the code too),
    ``"float"`` for a number while some argument is a narrower array (`narrow`),
    None where the gradient has its argument's type already (float64 arrays, the
    common case: nothing widens them, nothing narrows them, and their NumPy scalars
    are floats; the arrays of Dask, which ``np.asarray`` would compute: their gradients
    have the dtype Dask's promotion gives). JAX arrays, PyTorch tensors and
    array-api-strict arrays are cast as NumPy's (``np.asarray`` is their namespace's,
    ``jax.numpy`` or `backend.standard`), as ``jax.grad`` gives a float32 argument a
    float32 gradient where a float64 constant met it (``jax_enable_x64`` on); their
    number gradients (``s_bar = 1.0``) become 0-d arrays."""
    if isinstance(kind, ArrayKind) and kind.exact is not None and kind.xp in _CAST and (
            kind.exact != "float64" or kind.ndim == 0 or narrow):
        return kind.exact
    if kind == SCALAR and narrow:
        return "float"
    return None


def assumed(func, parsed) -> tuple:
    """What a derivative of the user function `func` (`parsed`, its `parse.Parsed`)
    assumes of the names it reads: ``(resolved, decided, captured)`` as
    `builder.Unit` keeps them. A name the rewrite gave a variable of a function put
    in place (`defaults.capture`) is that function's variable; one given an item of a
    sequence of functions is guarded by the sequence (`decided`), not by itself."""
    held = parsed.captured
    resolved = []
    for text, obj in parsed.refs.items():
        origin = held.get(text, (func, text))[:2]
        if "." not in text and text not in parsed.imported | parsed.classes.keys() and \
                origin[0] is not None:
            resolved.append((*origin, obj))
    # (a call put in place: no line reads the name)
    resolved += [(func, text, callee) for text, callee in parsed.put_in_place.items()]
    decided = [(*held.get(name, (func, name))[:2], value)
               for name, value in parsed.decided.items()]
    return resolved, decided, held
