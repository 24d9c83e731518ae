"""scopes: names renamed as Python scopes them.

`rename_scoped(node, names)` renames, in place, each name of `names` that `node`
reads or assigns, but inside a function or lambda defined in it only the names that
function reads from the enclosing one: its parameters and what it assigns are its
own (unless declared ``nonlocal`` or ``global``). `own_names(fn, body)` says which.
`structure_calls` renames a function's locals apart this way when it puts the
function in place of a call, so a function defined inside keeps its own names.
`mangle_private` gives a method's private attributes (``self.__scale``) the names
Python gives them inside the class. `check_rebinding` refuses a name that an
``import``, a ``with ... as`` or an ``except ... as`` binds and the function also binds
another way. `drop_read_only_globals` removes a ``global`` statement of names the
function only reads (it changes nothing).

Imports nothing from s2sad but its errors.
"""

from __future__ import annotations

import ast

from ..errors import UnsupportedSyntaxError


def rename_scoped(node, names: dict):
    """Each name of `names` read or assigned in `node` renamed, as Python scopes it:
    in a function or lambda defined inside, only the names it reads from the
    enclosing function (not its parameters, nor the names it assigns itself unless
    declared ``nonlocal``); its own name, defaults and decorators are the enclosing
    function's."""
    if isinstance(node, ast.Name):
        if node.id in names:
            node.id = names[node.id]
        return
    if isinstance(node, (ast.FunctionDef, ast.Lambda)):
        if isinstance(node, ast.FunctionDef):
            if node.name in names:
                node.name = names[node.name]
            for d in node.decorator_list:
                rename_scoped(d, names)
        a = node.args
        for d in a.defaults + [d for d in a.kw_defaults if d is not None]:
            rename_scoped(d, names)
        body = node.body if isinstance(node, ast.FunctionDef) else [node.body]
        own = own_names(node, body)
        inner = {k: v for k, v in names.items() if k not in own}
        for s in body:
            rename_scoped(s, inner)
        return
    for child in ast.iter_child_nodes(node):
        rename_scoped(child, names)


def own_names(fn, body) -> set:
    """The names local to the function or lambda `fn` (its body `body`): its
    parameters and what it assigns (not inside functions defined in it), less those
    it declares ``nonlocal`` or ``global``."""
    a = fn.args
    own = {p.arg for p in a.posonlyargs + a.args + a.kwonlyargs} | {
        p.arg for p in (a.vararg, a.kwarg) if p is not None}
    declared = set()
    todo = list(body)
    while todo:
        n = todo.pop()
        if isinstance(n, ast.Name) and isinstance(n.ctx, (ast.Store, ast.Del)):
            own.add(n.id)
        elif isinstance(n, (ast.Nonlocal, ast.Global)):
            declared.update(n.names)
        elif isinstance(n, (ast.FunctionDef, ast.Lambda)):
            if isinstance(n, ast.FunctionDef):
                own.add(n.name)
            continue
        todo.extend(ast.iter_child_nodes(n))
    return own - declared


def mangle_private(nodes, qualname: str):
    """``self.__scale`` in a method of ``class Priv`` as ``self._Priv__scale``, the
    name Python compiles it to inside the class (the derivative's code is compiled
    outside it), in place: an attribute among `nodes` (`tree_index.Nodes`) whose name
    starts with two underscores and does not end with two, in a function whose
    qualified name puts it in a class."""
    parts = qualname.split(".")
    i = len(parts) - 1
    while i >= 2 and parts[i - 1] == "<locals>":
        i -= 2  # (a function defined inside a method is in the method's class too)
    owner = parts[i - 1].lstrip("_") if i >= 1 and parts[i - 1] != "<locals>" else ""
    if not owner:
        return
    for node in nodes.of(ast.Attribute):
        if node.attr.startswith("__") and not node.attr.endswith("__"):
            node.attr = f"_{owner}{node.attr}"


def check_rebinding(tree: ast.FunctionDef, loc) -> None:
    """Refuse (`loc` builds the error) a name of `tree` that an ``import``, a ``with
    ... as`` or an ``except ... as`` binds and that the function also binds another
    way: a parameter, an assignment, a loop, another such statement (an import of
    the same thing again is the same binding). The later stages follow the values
    assignments give a name; such a statement binds it where they do not look, and
    the name would keep its other value."""
    a = tree.args
    bound = {p.arg: [(None, "other")] for p in a.posonlyargs + a.args + a.kwonlyargs
             + [p for p in (a.vararg, a.kwarg) if p is not None]}
    held = set()  # the names `with ... as` binds (Store names, told apart)
    todo = list(tree.body)
    while todo:
        n = todo.pop()
        t = type(n)
        if t is ast.Import or t is ast.ImportFrom:
            for alias in n.names:
                name = alias.asname or alias.name.split(".")[0]
                key = ("import", getattr(n, "module", None), getattr(n, "level", 0),
                       alias.name, alias.asname is None)
                bound.setdefault(name, []).append((n, key))
        elif t is ast.With:
            for item in n.items:
                for v in ast.walk(item.optional_vars) if item.optional_vars else ():
                    if type(v) is ast.Name:
                        held.add(id(v))
                        bound.setdefault(v.id, []).append((n, ("with", id(n))))
        elif t is ast.ExceptHandler and n.name:
            bound.setdefault(n.name, []).append((n, ("except", id(n))))
        elif t is ast.Name and type(n.ctx) is not ast.Load and id(n) not in held:
            bound.setdefault(n.id, []).append((None, "other"))
        elif t is ast.FunctionDef or t is ast.Lambda:
            if t is ast.FunctionDef:
                bound.setdefault(n.name, []).append((None, "other"))
            continue  # (its own names are its own)
        todo.extend(ast.iter_child_nodes(n))
    for name, binds in bound.items():
        statements = [node for node, key in binds if node is not None]
        if statements and len({key for _, key in binds}) > 1:
            raise loc.error(
                UnsupportedSyntaxError, min(statements, key=lambda s: s.lineno),
                f"`{name}` is given a value here by an `import`, `with ... as` or "
                "`except ... as`, and another elsewhere in the function, which s2sad "
                "does not follow yet", f"Use another name for one of them than `{name}`.")


def drop_read_only_globals(tree: ast.FunctionDef) -> bool:
    """Remove each ``global`` statement of `tree` whose names nothing in it binds:
    the names are read as globals all the same, so the statement changes nothing
    (a ``global`` of a name the function assigns stays, for `syntax` to refuse).
    Whether any was removed."""
    bound = set()
    for n in ast.walk(tree):
        if isinstance(n, ast.Name) and not isinstance(n.ctx, ast.Load):
            bound.add(n.id)
        elif isinstance(n, ast.alias):
            bound.add((n.asname or n.name).split(".")[0])
        elif isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)) \
                and n is not tree:
            bound.add(n.name)
        elif isinstance(n, ast.ExceptHandler) and n.name:
            bound.add(n.name)
    dropped = False
    for n in ast.walk(tree):
        for field in ("body", "orelse", "finalbody"):
            stmts = getattr(n, field, None)
            if not isinstance(stmts, list) or not any(isinstance(s, ast.Global) for s in stmts):
                continue
            kept = [s for s in stmts if not isinstance(s, ast.Global) or bound & set(s.names)]
            if len(kept) < len(stmts):
                dropped = True
                setattr(n, field, kept or [ast.Pass()])
    return dropped
