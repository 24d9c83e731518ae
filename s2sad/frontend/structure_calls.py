"""structure_calls: a function of the user's called with a container of parameters.

`structures` follows containers where the derivative is built, so a call that passes
one (``h = layer(p, h)``, ``loss = model(params, x)``) cannot hand it to a separately
compiled function: `inline` puts the callee's body in place of the call, its
variables renamed apart (``h%layer1``), its parameters bound to the arguments (a
container stays a container), each `return` an assignment of the result, so the
containers it reads, builds and returns are followed as the caller's own. The lines
it adds carry the line of the call (errors and the derivative's comments point
there). `single_exit` moves the statements after a ``return`` inside an ``if`` into
the branch that goes on, so every return ends the body.

Refused, at the call: a callee that is recursive, has ``*args``/``**kwargs``, a
default that is not a constant, a ``return`` inside a loop, or reads a global name
that means something else where it is called.

Imports `errors` only.
"""

from __future__ import annotations

import ast
import copy

from ..errors import NotDifferentiableError

_HINT = ("Pass the arrays themselves (layer(p[\"W\"], p[\"b\"], x)), or keep the function "
         "simple enough to be put in place of the call.")


def inline(rw, callee, call: ast.Call, at: ast.AST, parse) -> str:
    """Rewrite the call `call` of the user function `callee` (in `rw`, a
    `structures._Rewriter`), whose arguments include a container, into `rw.pending`;
    the name its result is bound to (in `rw.env` where it is a container)."""
    name = getattr(callee, "__name__", "f")
    if callee in rw.inlining:
        raise _refuse(rw, at, f"s2sad cannot pass a container of parameters to `{name}`: it "
                              "calls itself")
    parsed = parse(callee)
    tree = copy.deepcopy(parsed.tree)
    a = tree.args
    if a.vararg or a.kwarg:
        raise _refuse(rw, at, f"s2sad cannot pass a container of parameters to `{name}`: "
                              "it takes *args or **kwargs")
    line = getattr(at, "lineno", None)
    rw.fresh += 1
    suffix = f"{name}{rw.fresh}"
    local = {p.arg for p in a.posonlyargs + a.args + a.kwonlyargs} | parsed.locals
    for free, obj in parsed.refs.items():
        if "." in free:
            continue
        if free in rw.caller_locals or rw.lookup(free) is not obj:
            raise _refuse(rw, at, f"s2sad cannot pass a container of parameters to `{name}` "
                                  f"here: `{name}` reads `{free}`, which means something else "
                                  "where it is called")
    renamed = {n: f"{n}%{suffix}" for n in local}
    result = f"%{suffix}"
    for node in ast.walk(tree):
        if isinstance(node, ast.Name) and node.id in renamed:
            node.id = renamed[node.id]
    body = single_exit(tree.body, result, rw, at, name)
    bound = _bind(rw, a, call, renamed, at, name)
    for node in ast.walk(ast.Module(body=bound + body, type_ignores=[])):
        if isinstance(node, (ast.stmt, ast.expr)):
            node.lineno = node.end_lineno = line
            node.col_offset = getattr(at, "col_offset", 0)
            node.end_col_offset = getattr(at, "end_col_offset", None)
    rw.inlining.append(callee)
    try:
        rw.pending.extend(rw.block(bound + body))
    finally:
        rw.inlining.pop()
    return result


def _bind(rw, a, call, renamed, at, name) -> list:
    """Assignments of the call's arguments to the callee's renamed parameters."""
    params = a.posonlyargs + a.args
    values: dict = {}
    for p, arg in zip(params, call.args):
        values[p.arg] = arg
    if len(call.args) > len(params) or any(isinstance(x, ast.Starred) for x in call.args):
        raise _refuse(rw, at, f"s2sad cannot pass a container of parameters to `{name}` "
                              "with these arguments")
    for k in call.keywords:
        if k.arg is None:
            raise _refuse(rw, at, f"s2sad cannot pass **kwargs to `{name}` here")
        values[k.arg] = k.value
    defaults = dict(zip([p.arg for p in params][len(params) - len(a.defaults):], a.defaults))
    defaults.update({p.arg: d for p, d in zip(a.kwonlyargs, a.kw_defaults) if d is not None})
    out = []
    for p in params + a.kwonlyargs:
        value = values.get(p.arg, defaults.get(p.arg))
        if value is None:
            raise _refuse(rw, at, f"`{name}` is called without its parameter `{p.arg}`")
        if p.arg not in values and not isinstance(value, ast.Constant):
            raise _refuse(rw, at, f"s2sad puts `{name}` in place of the call, and its default "
                                  f"for `{p.arg}` is not a constant")
        bind = ast.Assign(targets=[ast.Name(id=renamed[p.arg], ctx=ast.Store())], value=value)
        bind.static_argument = True  # (a constant argument stays one: `structures`)
        out.append(bind)
    return out


def single_exit(body: list, result: str, rw, at, name) -> list:
    """`body` with each ``return e`` an assignment ``result = e`` that ends its
    path: statements after an ``if`` one of whose branches returns move into the
    other branch."""
    out = []
    for i, s in enumerate(body):
        if isinstance(s, ast.Return):
            value = s.value if s.value is not None else ast.Constant(value=None)
            out.append(ast.Assign(targets=[ast.Name(id=result, ctx=ast.Store())],
                                  value=value))
            return out
        if isinstance(s, (ast.For, ast.While)) and any(
                isinstance(n, ast.Return) for n in ast.walk(s)):
            raise _refuse(rw, at, f"s2sad puts `{name}` in place of the call, and it returns "
                                  "from inside a loop")
        if isinstance(s, ast.If) and any(isinstance(n, ast.Return) for n in ast.walk(s)):
            rest = body[i + 1:]
            s.body = single_exit(s.body + ([] if _ends(s.body) else rest), result, rw, at,
                                 name)
            s.orelse = single_exit(s.orelse + ([] if _ends(s.orelse) else rest), result, rw,
                                   at, name)
            out.append(s)
            return out
        out.append(s)
    # (a path that falls off the end returns None)
    out.append(ast.Assign(targets=[ast.Name(id=result, ctx=ast.Store())],
                          value=ast.Constant(value=None)))
    return out


def _ends(body) -> bool:
    """Does every path through `body` end in a ``return``?"""
    if not body:
        return False
    last = body[-1]
    if isinstance(last, ast.Return):
        return True
    if isinstance(last, ast.If):
        return _ends(last.body) and _ends(last.orelse)
    return False


def _refuse(rw, at, message):
    return rw.loc.error(NotDifferentiableError, at, message, _HINT)
