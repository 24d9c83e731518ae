"""defaults: functions a user function takes by default, passed where it is put in place.

Contract
--------
`default_functions(callee, call)` says which parameters of the user function
`callee` the call leaves to a default that is a function (``def layer(x, W,
act=np.tanh)`` called as ``layer(x, W)``); `with_defaults` writes the call with them
passed, named as the callee's ``def`` names them where that means the same function
where the call is (or through the module of ``m.layer(x)``), else by a name of its
own (`capture`). `structure_calls` then puts the callee in place of the call with the
function, as it does for a function passed by the caller; a person inlining ``layer``
by hand writes the same. `capture` gives a value the caller reads a name of its own
where none of the caller's means it (a closure's variable of a function put in place,
an item of a sequence of functions a loop goes through). `is_function` is the test of
what counts as a function (a function, builtin or ufunc). `by_value` gives the parser
the value of a default whose expression reads names the function cannot see (computed
where its ``def`` ran). Imports nothing of s2sad's.
"""

from __future__ import annotations

import ast
import types


def is_function(value) -> bool:
    """Is `value` a function, builtin or ufunc (not a class, not another callable)?"""
    return callable(value) and not isinstance(value, type) and (
        isinstance(value, (types.FunctionType, types.BuiltinFunctionType)) or
        type(value).__name__ == "ufunc")


def by_value(tree, func, cells: dict, globals_, builtins_, lookup, missing) -> dict:
    """`cells`, with a cell for each default of `func`'s ``def`` (`tree`) that reads a
    name with no value in `func` (`lookup` gives `missing`), the default's expression
    replaced by that cell's name. Python computed the default where the ``def`` ran (``def h(x,
    s=scale)`` inside a function whose local `scale` `h` does not read): its value is
    `func`'s, and its names are not `func`'s own to resolve (they were refused as
    having no value). A function is left as written: one put in place reads it by its
    name at the call."""
    if func is None:
        return cells
    a = tree.args
    positional = a.posonlyargs + a.args
    values = dict(zip([p.arg for p in positional][len(positional) - len(a.defaults):],
                      func.__defaults__ or ()))
    values.update(func.__kwdefaults__ or {})
    for group, params in ((a.defaults, positional[len(positional) - len(a.defaults):]),
                          (a.kw_defaults, a.kwonlyargs)):
        for i, (d, p) in enumerate(zip(group, params)):
            if d is None or p.arg not in values or callable(values[p.arg]) or all(
                    lookup(n.id, globals_, cells, builtins_) is not missing
                    for n in ast.walk(d) if isinstance(n, ast.Name)):
                continue
            name = f"_s2sad_default_{p.arg}"
            cells = dict(cells, **{name: types.CellType(values[p.arg])})
            group[i] = ast.copy_location(ast.Name(id=name, ctx=ast.Load()), d)
    return cells


def values(func) -> dict:
    """{parameter: the default the function `func` holds now}."""
    names = func.__code__.co_varnames[:func.__code__.co_argcount]
    out = dict(zip(names[len(names) - len(func.__defaults__ or ()):], func.__defaults__ or ()))
    out.update(func.__kwdefaults__ or {})
    return out


def default_functions(callee, call: ast.Call) -> dict:
    """``{parameter: function}`` for each parameter of the user function `callee`
    that the call `call` leaves to its default where that default is a function.
    Empty where the call spreads ``*``/``**`` (which parameters it gives is not
    known here)."""
    code = getattr(callee, "__code__", None)
    if code is None or not (callee.__defaults__ or callee.__kwdefaults__) or any(
            isinstance(a, ast.Starred) for a in call.args) or any(
            k.arg is None for k in call.keywords):
        return {}
    positional = code.co_varnames[:code.co_argcount]
    given = {k.arg for k in call.keywords} | set(positional[:len(call.args)])
    return {p: v for p, v in values(callee).items() if p not in given and is_function(v)}


def with_defaults(rw, call: ast.Call, omitted: dict, a: ast.arguments, module, name, at):
    """`call` with each parameter of `omitted` (`default_functions`) passed its
    default: the expression of the callee's ``def`` (`a`, its arguments), where it
    names the same function where the call is, in `rw` (a `structures._Rewriter`: its
    `lookup` and `caller_locals`), or read through `module` (``(name, module)`` of
    ``m.f(...)``, or None). `name` and `at` place the refusal of one it cannot name."""
    params = a.posonlyargs + a.args
    written = dict(zip([p.arg for p in params][len(params) - len(a.defaults):], a.defaults))
    written.update({p.arg: d for p, d in zip(a.kwonlyargs, a.kw_defaults) if d is not None})
    keywords = list(call.keywords)
    for p, fn in omitted.items():
        found = _named(rw, written.get(p), fn, module)
        if found is None:  # (a name of its own: guarded with the callee's defaults)
            found = ast.Name(id=capture(rw, f"{p}_{name}", fn), ctx=ast.Load())
        keywords.append(ast.keyword(arg=p, value=found))
    return ast.copy_location(ast.Call(func=call.func, args=list(call.args),
                                      keywords=keywords), call)


def _named(rw, expr, fn, module):
    """`expr` (a name or a chain of attributes on one), or it read through the
    module's name, where that is `fn` at the call; else None."""
    chain, root = [], expr
    while isinstance(root, ast.Attribute):
        chain.append(root.attr)
        root = root.value
    if not isinstance(root, ast.Name):
        return None
    where = [] if root.id in rw.caller_locals else [(None, rw.lookup(root.id))]
    if module is not None and hasattr(module[1], root.id):
        where.append((module[0], getattr(module[1], root.id)))
    for owner, value in where:
        for attr in reversed(chain):
            value = getattr(value, attr, None)
        if value is not fn:
            continue
        found = ast.Name(id=root.id, ctx=ast.Load()) if owner is None else ast.Attribute(
            value=ast.Name(id=owner, ctx=ast.Load()), attr=root.id, ctx=ast.Load())
        for attr in reversed(chain):  # (`m.np.tanh`: the chain on the module's name)
            found = ast.Attribute(value=found, attr=attr, ctx=ast.Load())
        return ast.copy_location(found, expr) if hasattr(expr, "lineno") else found
    return None


def capture(rw, base: str, obj, callee=None, free=None) -> str:
    """The name the caller reads `obj` by where no name of its own means it: a
    variable `free` of `callee` that means something else where `callee` is put in
    place (a closure's variable, ``layers`` of stax's ``serial``: ``layers_apply_fun``),
    or an item of a sequence of functions (``LAYERS_0``: `function_loops.Function`).
    `base`, apart from the caller's names; `rw.captured` keeps what it holds, which
    the derivative reads (`builder.note_user`) and is guarded by: a variable by
    identity, an item by its sequence's value."""
    base = base.replace("<", "").replace(">", "")
    new, k = base, 2
    while _taken(rw, new, obj, callee, free):
        new, k = f"{base}{k}", k + 1
    rw.captured[new] = (callee, free, obj)
    return new


def _taken(rw, name, obj, callee, free) -> bool:
    got = rw.captured.get(name)
    if got is not None:
        return got[2] is not obj or got[:2] != (callee, free)
    return name in rw.caller_locals or name in rw.env or rw.lookup(name) is not None
