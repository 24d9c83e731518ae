"""syntax: the AST node types s2sad takes, and the checks `parse` makes of a tree.

`SUPPORTED` and `REFUSED` list every node type Python has (`IGNORED`: abstract bases
and nodes no parsed function holds), a refused one with what it is and what to write
instead. `check_signature`, `check_keys` and `check_nodes` raise `UnsupportedSyntaxError` at the
user's line (`loc`: `parse.Located`) for what the later stages do not handle.

Imports nothing of s2sad but its errors.
"""

from __future__ import annotations

import ast

from ..errors import UnsupportedSyntaxError

# Every AST node type, with the reason it is refused (None: supported).
_TAPE_HINT = ("Rewrite that part, or differentiate this function with "
              "s2sad.grad(f, mode=\"tape\"), which runs it on the tape engine instead of "
              "transforming its source.")

SUPPORTED = {
    # statements
    ast.FunctionDef, ast.Assign, ast.AugAssign, ast.AnnAssign, ast.Return, ast.If,
    ast.Expr, ast.Pass, ast.For, ast.While, ast.Break, ast.Continue,
    # run as written, with no derivative through them (`anf` keeps them as `ir.Kept`
    # statements or inactive operations; activity refuses an active value they would
    # have to carry)
    ast.Assert, ast.Raise, ast.Import, ast.ImportFrom, ast.alias, ast.With, ast.withitem,
    ast.Try, ast.ExceptHandler, ast.JoinedStr, ast.FormattedValue, ast.Dict, ast.Set,
    ast.NamedExpr,
    # expressions
    ast.BinOp, ast.UnaryOp, ast.BoolOp, ast.Compare, ast.IfExp, ast.Call, ast.Name,
    ast.Constant, ast.Attribute, ast.Tuple, ast.List, ast.Subscript, ast.Slice, ast.keyword,
    # (lowered to loops and slices by `expand`, which leaves what it cannot lower for
    # `anf` to refuse at its line)
    ast.ListComp, ast.GeneratorExp, ast.comprehension, ast.Starred, ast.SetComp, ast.DictComp,
    # expression contexts, operators and other leaves
    ast.Load, ast.Store, ast.arguments, ast.arg,
    ast.Add, ast.Sub, ast.Mult, ast.Div, ast.FloorDiv, ast.Mod, ast.Pow, ast.MatMult,
    ast.USub, ast.UAdd, ast.Not, ast.And, ast.Or,
    ast.BitAnd, ast.BitOr, ast.BitXor, ast.LShift, ast.RShift, ast.Invert,  # constant results
    ast.Eq, ast.NotEq, ast.Lt, ast.LtE, ast.Gt, ast.GtE, ast.Is, ast.IsNot, ast.In, ast.NotIn,
}

REFUSED = {
    ast.AsyncFunctionDef: ("an `async def`", "Differentiate a plain `def` function."),
    ast.ClassDef: ("a class definition", "Define classes outside the function."),
    ast.Delete: ("`del`", "Remove the `del`; s2sad manages the lifetime of values."),
    ast.AsyncFor: ("`async for`", "Use plain Python code."),
    ast.AsyncWith: ("`async with`", "Use plain Python code."),
    ast.Global: ("`global`", "Pass the value in as an argument and return the new value."),
    ast.Nonlocal: ("`nonlocal`", "Pass the value in as an argument and return the new value."),
    ast.Lambda: ("a `lambda`", "Define a named function with `def` at module level and call it."),
    ast.Await: ("`await`", "Use plain Python code."),
    ast.Yield: ("`yield` (a generator)", "Return a value instead."),
    ast.YieldFrom: ("`yield from` (a generator)", "Return a value instead."),
    ast.Del: ("`del`", "Remove the `del`."),
    ast.Module: ("a module", "Pass a function."),
    ast.Interactive: ("interactive input", "Pass a function."),
    ast.Expression: ("an expression", "Pass a function."),
    ast.FunctionType: ("a function type comment", "Pass a function."),
    ast.TypeIgnore: ("a type comment", "Remove the comment."),
    ast.Match: ("a `match` statement", "Use `if`/`elif` instead."),
}
for _name in ("match_case", "MatchValue", "MatchSingleton", "MatchSequence", "MatchMapping",
              "MatchClass", "MatchStar", "MatchAs", "MatchOr", "TypeAlias", "TypeVar",
              "ParamSpec", "TypeVarTuple", "TryStar"):
    _node = getattr(ast, _name, None)
    if _node is not None:
        REFUSED[_node] = (f"`{_name}` syntax", "Use plain statements instead.")

# Abstract bases, and nodes older Pythons kept for compatibility, which never appear in
# a parsed function.
IGNORED = {
    getattr(ast, n)
    for n in ("AST", "mod", "stmt", "expr", "expr_context", "boolop", "operator", "unaryop",
              "cmpop", "excepthandler", "type_ignore", "pattern", "type_param", "slice",
              "AugLoad", "AugStore", "Param", "Suite", "Index", "ExtSlice")
    if n in ast.__dict__
}



def check_signature(tree: ast.FunctionDef, loc):
    """Refuse ``*args`` and ``**kwargs`` in the signature of the function `tree`."""
    a = tree.args
    for star in (a.vararg, a.kwarg):
        if star is not None:
            kind = "*" if star is a.vararg else "**"
            raise loc.error(UnsupportedSyntaxError, star,
                f"s2sad cannot differentiate a function with `{kind}{star.arg}` parameters",
                "List the parameters one by one (x, y, z) or pass a tuple.")


def drop_bare_annotations(nodes) -> bool:
    """A bare annotation, ``c: float`` (no value), does nothing where it runs: each
    becomes ``pass``. Whether there was one."""
    found = False
    for block in (getattr(n, f, None) for n in nodes for f in ("body", "orelse", "finalbody")):
        if isinstance(block, list) and any(
                isinstance(s, ast.AnnAssign) and s.value is None for s in block):
            block[:] = [ast.copy_location(ast.Pass(), s) if isinstance(s, ast.AnnAssign)
                        and s.value is None else s for s in block]
            found = True
    return found


def check_nodes(tree: ast.FunctionDef, loc, nodes: list):
    """Refuse a node of `tree` of a type the later stages do not handle (`REFUSED`,
    or one not in the table) and a target they cannot write (a bare annotation is
    ``pass`` by then: `drop_bare_annotations`).
    `nodes`: `tree`'s `tree_index.Nodes` (one by one only where a kind is odd)."""
    odd = len(nodes.of(ast.FunctionDef)) > 1 or not SUPPORTED.issuperset(nodes.by_type)
    for node in nodes if odd else ():
        kind = type(node)
        if node is not tree and kind is ast.FunctionDef:
            raise loc.error(
                UnsupportedSyntaxError, node,
                "s2sad cannot differentiate a function defined inside the function",
                f"Define `{node.name}` at module level and call it; s2sad differentiates "
                "calls to module-level functions.")
        if kind in SUPPORTED:
            continue
        if kind in REFUSED:
            what, hint = REFUSED[kind]
            raise loc.error(UnsupportedSyntaxError, _located_node(node, tree),
                            f"s2sad cannot differentiate {what}", hint)
        raise loc.error(UnsupportedSyntaxError, _located_node(node, tree),
                        f"s2sad does not know the construct `{kind.__name__}`",
                        "Rewrite that expression with plain arithmetic and calls.")
    for node in nodes.of(ast.Assign, ast.AugAssign, ast.AnnAssign):
        targets = node.targets if isinstance(node, ast.Assign) else [node.target]
        for t in targets:
            # (elements of an unpacking and of a chained assignment are written
            # in order, after the value is computed: `y[j], y[k] = y[k], y[j]`)
            if type(t) is not ast.Name:  # (a name: the commonest, always fine)
                _check_target(t, loc, isinstance(node, ast.Assign), True)


def check_keys(nodes, loc) -> None:
    """Refuse a dict display among `nodes` that gives one key twice (``{"a": x, "a":
    y}``, or keys Python takes as one, ``{1: x, 1.0: y}``): Python keeps one entry, at
    the first key's place, with the last value. (Before `structures` and the other
    passes read the displays.)"""
    for node in nodes.of(ast.Dict):
        seen = {}
        for key in node.keys:
            if type(key) is not ast.Constant:
                continue
            if key.value in seen:
                raise loc.error(
                    UnsupportedSyntaxError, key, f"this dict display gives the key "
                    f"{key.value!r} a value again (Python keeps the last one, at the place "
                    f"of {seen[key.value]!r})", "Give each key once.")
            seen[key.value] = key.value


def _check_target(t, loc, allow_tuple, allow_item=False):
    if isinstance(t, ast.Name):
        return
    if allow_tuple and isinstance(t, ast.Tuple):
        for e in t.elts:
            if isinstance(e, ast.Starred):  # `a, *rest = xs` (`expand` slices xs)
                e = e.value
            _check_target(e, loc, True, allow_item)
        return
    if isinstance(t, ast.Subscript):
        if not allow_item:
            raise loc.error(UnsupportedSyntaxError, t,
                            "s2sad cannot differentiate a write into an element as part of "
                            "an unpacking or chained assignment yet",
                            "Write each element on a line of its own: `x[i] = a`.")
        if not isinstance(t.value, ast.Name):
            raise loc.error(UnsupportedSyntaxError, t,
                            "s2sad can write into a list or array named by a variable "
                            "(`x[i] = v`, `A[i, j] = v`), not into this expression",
                            "Index once with a tuple, `A[i, j] = v`. For an array in a "
                            "list, change a copy and put it back: `row = xs[i].copy()`, "
                            "`row[j] = v`, `xs[i] = row`.")
        return
    what = {ast.Attribute: "assignment to an attribute (obj.a = ...)"}.get(
        type(t), "this assignment target")
    raise loc.error(UnsupportedSyntaxError, t, f"s2sad cannot differentiate {what}",
                    "Assign to a plain variable name instead.")


def _located_node(node, tree):
    """The nearest node with a line number (operators and contexts have none)."""
    if hasattr(node, "lineno"):
        return node
    for parent in ast.walk(tree):
        for child in ast.iter_child_nodes(parent):
            if child is node and hasattr(parent, "lineno"):
                return parent
    return tree
