"""release: a derivative function's arrays unbound after their last read, as
``del name``, so that they are freed before the code that follows allocates.

Contract
--------
`released(fn, kinds)` returns `fn` with a ``del`` after a statement of its body
that reads an array for the last time, where a later statement computes something
before the function returns: the names it unbinds are the ones `reuse.last_reads`
says that statement reads last, of them those whose kind in `kinds` (the analysis's
kinds; a ``%bar`` adjoint has its value's; a copy, an item of a tuple, or
arithmetic on an array, which a rule's inlined template makes after the analysis,
its source's) is an array of one or more axes, or a tuple or list holding one, and
which every path has bound there. `released_all(functions, kinds)` is each of a
unit's functions `released` with its own kinds, where what a callee's forward
function saves (``t1, t1_saved = g_fwd(x)``) has the kinds of the values it saves:
unbound once ``g_bwd(t1_saved, ...)`` has run. A person writing the gradient by
hand drops such arrays (``del d`` once ``d_bar`` is computed); without it each one
stays bound, and allocated, until the gradient returns, so a gradient's peak memory
is the sum of every array it computes.

Numbers are never unbound (a float is small, and scalar code stays as it was: its
text, and every golden file of scalar code, is what `emit` always printed), nor is
a parameter or a copy or an item of one (``a, b, h = saved``: the caller holds
them), nor an item of a tuple still bound (``w, V = t1``: unbinding ``w`` frees
nothing), a name a nested scope reads or a kept statement's own (see
`reuse.last_reads`), nor a name only some paths bind (an ``if`` that binds it on
one branch). The deletions sit between the statements of the function's body, not
inside its branches or loops: a value read last inside a loop is unbound after the
loop. ``del`` changes no value: what it unbinds, nothing reads again, and an object
another name still holds stays alive.

A ``del`` is an `ir.Kept` of ``ast.Delete`` whose arguments are the names: every
later stage reads it as a read of those names (`reuse` keeps each name alive up to
it and renames it with the rest) and `kept` prints it. The builder runs
`released_all` last, once every function of a unit is final; second derivatives,
whose forward mode reads the gradient's text (where ``del`` is outside the subset),
pass no kinds and get none; numba's text leaves them out (`native_text`).
"""

from __future__ import annotations

import ast

from .. import ir
from ..ir.kinds import ArrayKind, ListKind
from . import reuse


def released_all(functions: list, kinds: dict) -> list:
    """`released` of each of `functions` with its own analysis's kinds (`kinds`:
    function name -> kinds; a function not there, or with none, is left as it is),
    where what a callee's forward function saves (``t1, t1_saved = g_fwd(x)``) has
    the kinds of the values it saves: once ``g_bwd(t1_saved, ...)`` has run, the
    arrays in it are unbound with it."""
    saved = {}  # forward function -> the kinds of what it saves, a tuple
    for fn in functions:
        ret = fn.body[-1] if fn.body and fn.name.split("%")[1:2] == ["fwd"] else None
        value = ret.value if isinstance(ret, ir.Return) else None
        if kinds.get(fn.name) and isinstance(value, ast.Tuple) and len(value.elts) == 2 \
                and isinstance(value.elts[1], ast.Tuple):
            saved[fn.name] = tuple(kinds[fn.name].get(e.id) if isinstance(e, ast.Name)
                                   else None for e in value.elts[1].elts)
    out = []
    for fn in functions:
        known = kinds.get(fn.name)
        if known and saved:
            calls = {s.targets[1]: saved[s.value.func.id] for s in ir.walk(fn.body)
                     if type(s) is ir.Assign and len(s.targets) == 2
                     and isinstance(s.value, ast.Call) and isinstance(s.value.func, ast.Name)
                     and s.value.func.id in saved}
            known = {**known, **calls} if calls else known
        out.append(released(fn, known) if known else fn)
    return out


def released(fn: ir.Function, kinds) -> ir.Function:
    """`fn`, its body with ``del`` statements (see the module's docstring); `fn`
    itself where there is nothing to release."""
    if not kinds or not any(_holds_array(k) for k in kinds.values()):
        return fn  # (no array: scalar code costs one look at its kinds)
    kinds = _known(fn, kinds)
    local = ir.local_names(fn)
    arrays = {n for n in local if _holds_array(kinds.get(_value_of(n)))}
    if not arrays:
        return fn
    body = fn.body
    later = [False] * len(body)  # does a statement after this one compute something?
    seen = False
    for i in range(len(body) - 1, -1, -1):
        later[i] = seen
        seen = seen or _computes(body[i])
    held = {p.name: None for p in fn.params}  # name -> the name holding its value
    bound: set = set()
    gone: set = set()  # the names unbound so far
    out = []
    for s, last, after in zip(body, reuse.last_reads(fn, local), later):
        out.append(s)
        if type(s) is ir.Assign:  # (`_bound` inline)
            bound.update(s.targets)
            if isinstance(s.value, ast.Name):
                held.update((t, s.value.id) for t in s.targets)
        else:
            bound |= _bound(s)
        if not last:
            continue
        names = [n for n in last if n in arrays and n in bound and _free(n, held, gone)]
        if names and after:
            gone.update(names)
            # (positional fields and one context object each, as ``ast.parse`` shares
            # them: a third of the time of making a ``del`` per line)
            args = [ast.Name(n, _LOAD) for n in names]
            stmt = ast.Delete([ast.Name(f"{ir.KEPT_ARG}{i}", _DEL) for i in range(len(names))])
            out.append(ir.Kept(stmt, args, getattr(s, "line", 0)))
    if len(out) == len(body):
        return fn
    return ir.Function(fn.name, fn.params, out, fn.refs, fn.source, fn.doc)


_LOAD, _DEL = ast.Load(), ast.Del()


def _free(name: str, held: dict, gone: set) -> bool:
    """Would unbinding `name` free its value? Not a parameter's, nor the value of a
    copy or an item of a tuple (``w, V = t1``) while the name it came from is bound."""
    if name not in held:
        return True
    return held[name] in gone


def _known(fn: ir.Function, kinds) -> dict:
    """`kinds` with the kinds of the temporaries a rule's inlined template made (the
    analysis ran before), where their values say: a copy or an item of a tuple has
    its source's kind, arithmetic on an array of one or more axes (not ``@``) gives
    one."""
    out = dict(kinds)
    for s in ir.walk(fn.body):
        if type(s) is not ir.Assign or (s.targets[0] in out if len(s.targets) == 1
                                        else any(t in out for t in s.targets)):
            continue
        kind = _kind_of(s.value, out)
        if s.unpack:
            if isinstance(kind, tuple) and len(kind) == len(s.targets):
                out.update(zip(s.targets, kind))
        elif kind is not None:
            out[s.targets[0]] = kind
    return out


def _kind_of(value, kinds):
    if isinstance(value, ast.Name):
        return kinds.get(value.id)
    if isinstance(value, ast.Subscript) and isinstance(value.value, ast.Name) \
            and isinstance(value.slice, ast.Constant) and type(value.slice.value) is int:
        kind = kinds.get(value.value.id)
        if isinstance(kind, tuple) and -len(kind) <= value.slice.value < len(kind):
            return kind[value.slice.value]
        return None
    if isinstance(value, ast.BinOp) and not isinstance(value.op, ast.MatMult):
        for side in (value.left, value.right):
            kind = _kind_of(side, kinds) if isinstance(side, ast.Name) else None
            if isinstance(kind, ArrayKind) and _holds_array(kind):
                return ArrayKind(kind.ndim, kind.dtype)
    return None


def _value_of(name: str) -> str:
    """The value whose kind `name` has: an adjoint has its value's."""
    return name[: -len("%bar")] if name.endswith("%bar") else name


def _holds_array(kind) -> bool:
    if isinstance(kind, ArrayKind):
        return kind.ndim is not None and kind.ndim >= 1
    if isinstance(kind, tuple):
        return any(_holds_array(k) for k in kind)
    if isinstance(kind, ListKind):
        return _holds_array(kind.elem) or any(_holds_array(k) for k in kind.items or ())
    return False


def _bound(s) -> set:
    """The names `s` binds on every path through it."""
    if isinstance(s, ir.If):
        return _bound_in(s.body) & _bound_in(s.orelse)
    if isinstance(s, ir.Loop):  # (its body may not run; the phis are bound before it)
        return {p.name for p in s.phis if p.init is not None}
    if isinstance(s, (ir.Assign, ir.Dup, ir.Pop, ir.AugAssign)):
        return set(ir.defined_names(s))
    return set()  # (a kept ``try`` may not bind what it assigns)


def _bound_in(body) -> set:
    out: set = set()
    for s in body:
        out |= _bound(s)
    return out


def _computes(s) -> bool:
    """Does `s` compute anything (so an array freed before it could lower the peak)?
    Not a comment, the ``return``, or a copy of a name."""
    if isinstance(s, (ir.Comment, ir.Return)):
        return False
    if isinstance(s, ir.Assign):
        return not isinstance(s.value, (ast.Name, ast.Constant))
    return True
