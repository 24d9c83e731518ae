"""common: what reverse and forward mode both build.

Owns the zero of a kind (`zero`), the NumPy call and the list of zeros the two
transforms write (`call_np`, `zeros_like_list`), the binding of a call's arguments
to a callee's parameters (`bind`), the error for a callable registered with the
rules of the other mode only (`missing_rule`), and the name of an adjoint (`adj`)
and an index as an argument (`slices_as_calls`), which reverse mode's modules share. May import `ir` and `errors`; `reverse`,
`forward` and the modules beside them import it, never the other way round.
"""

from __future__ import annotations

import ast
import inspect

from .. import ir
from ..ir.kinds import ITERATED, UNKNOWN, ArrayKind, differentiable
from ..errors import NoRuleError, NotDifferentiableError


# The name of `n`'s adjoint (reverse mode): ``adj(n)``, the `ir` function itself.
adj = ir.adjoint


def zero(kind, like=None) -> ast.expr:
    """A zero adjoint for a value of `kind` (None for kinds that never carry one);
    an array's zero is ``np.zeros_like(like)``."""
    if isinstance(kind, ArrayKind) and like is not None:
        return call_np("zeros_like", [ir.name(like)])
    if isinstance(kind, tuple):
        return ast.Tuple(elts=[zero(k) for k in kind], ctx=ast.Load())
    if not differentiable(kind):
        return ir.const(None)
    return ir.const(0.0)


def call_np(func, args) -> ast.Call:
    """``np.func(*args)``."""
    return ast.Call(func=ast.Attribute(value=ir.name("np"), attr=func, ctx=ast.Load()),
                    args=args, keywords=[])


def zeros_like_list(n: str) -> ast.expr:
    """``[0.0] * len(n)``."""
    return ast.BinOp(left=ast.List(elts=[ir.const(0.0)], ctx=ast.Load()), op=ast.Mult(),
                     right=ast.Call(func=ir.name("len"), args=[ir.name(n)], keywords=[]))


def bind(callee, call: ast.Call, fn: ir.Function, line: int):
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


def slices_as_calls(index):
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


def iterate_unknown(fn: ir.Function, act) -> bool:
    """Make each item a ``for`` loop reads by index (`ir.kinds.ITERATED`) from a value
    of `UNKNOWN` kind that carries no derivative ``iterated(seq, i)``
    (`runtime.iterated`), which reads it as the loop meets it: ``seq[i]`` of a dict
    is its value at the key `i`, not its `i`-th key. True where one was made (the
    derivative then needs `iterated` among its helpers)."""
    made = False
    for s in ir.walk(fn.body):
        value = getattr(s, "value", None)
        if type(s) is not ir.Assign or type(value) is not ast.Subscript or \
                not value.__dict__.get(ITERATED, False):
            continue
        seq = value.value
        if isinstance(seq, ast.Name) and act.atom_kind(seq, fn.refs) == UNKNOWN and \
                not act.is_active(seq):
            call = ast.Call(func=ir.name("iterated"), args=[seq, value.slice], keywords=[])
            setattr(call, ITERATED, True)
            s.value = call
            made = True
    return made
