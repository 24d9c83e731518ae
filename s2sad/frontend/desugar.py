"""desugar: parsed function -> the same function in a smaller subset of Python.

Contract
--------
`desugar(parsed)` returns a new ``ast.FunctionDef`` (the tree in `parsed` is left as it
is) with the parameters, name and line numbers of the user's function, computing
exactly what it computes, in which

* the docstring is gone;
* every path through the body ends with a ``return`` (``return None`` is added, at
  the line of the last statement, where a path falls off the end) or a ``raise``,
  and nothing follows it: the statements after an ``if`` one of whose branches
  returns move into the branches that do not (the returned value then joins like
  any variable);
* in a loop body, likewise, ``break`` and ``continue`` are the last statements of
  their paths, the rest of the body moved into the branch that goes on;
* no loop body contains a ``return``: ``return v`` inside a loop becomes
  ``%retval = v; %returned = True; break``, with ``%returned = False`` before the
  loop and ``if %returned: return %retval`` after it, ``if %returned: break`` after
  an inner loop (``%retval = None`` before the outer loop too where several loops
  return or a loop nested in another does, so that no loop copies an unbound name). The names it adds (`RETVAL`, `RETURNED`) start with ``%``, which no name
  of the user's can.

A name that an ``import``, ``with ... as`` or ``except ... as`` binds and another
statement binds too is refused (`scopes.check_rebinding`): `anf` follows assignments.

Before those rewrites, `expand` lowers comprehensions, ``for/while ... else``, ``*``
unpacking and the builtins over sequences it knows (``min(xs)``, ``sum(xs, start)``,
``math.prod``...) to statements of this subset; `compiler_locals` names the variables
they add. Statements it adds carry the line of the statement they stand for.
Everything else (the loop forms, calls, expressions) is left for `anf`, which lowers
this subset to SSA.
"""

from __future__ import annotations

import ast
import copy

from .. import ir
from .expand import expand
from .liveness import names_with
from .parse import Located, Parsed
from .scopes import check_rebinding

RETVAL = "%retval"
RETURNED = "%returned"


def compiler_locals(tree: ast.FunctionDef, parsed=None) -> set:
    """The names the desugared `tree` assigns that are not the user's (`expand`'s and
    this module's, all starting with ``%``). `parsed`: the `Parsed` it comes from,
    where it is at hand: with no ``:=``, comprehension or lambda among its nodes, no
    expression but a statement's target stores a name (the comprehensions `expand`
    writes it lowers to loops), and only those are read."""
    nodes = getattr(parsed, "nodes", None)
    if getattr(nodes, "tree", 0) is not getattr(parsed, "tree", 1) or nodes.has(*_STORING):
        return {n for n in names_with(tree, ast.Store) if n[0] == "%"}
    out, todo = set(), list(tree.body)
    while todo:
        s = todo.pop()
        t = type(s)
        if t is ast.Assign:
            targets = s.targets
        elif t is ast.AugAssign or t is ast.AnnAssign or t is ast.For:
            targets = (s.target,)
        elif t is ast.With:
            targets = [i.optional_vars for i in s.items if i.optional_vars is not None]
        else:
            targets = ()
        for target in targets:
            if type(target) is ast.Name:  # (the commonest)
                if target.id[0] == "%" and isinstance(target.ctx, ast.Store):
                    out.add(target.id)
            else:
                out.update(n for n in names_with(target, ast.Store) if n[0] == "%")
        for f in _blocks_of(t):
            v = getattr(s, f, None)
            if type(v) is list:
                todo.extend(v)
    return out


# the expressions that can store a name (`compiler_locals`)
_STORING = (ast.NamedExpr, ast.ListComp, ast.SetComp, ast.DictComp, ast.GeneratorExp,
            ast.Lambda)


def desugar(parsed: Parsed) -> ast.FunctionDef:
    """The function of `parsed` in the subset above. See the module docstring."""
    tree = parsed.tree
    body = list(tree.body)
    if body and isinstance(body[0], ast.Expr) and isinstance(body[0].value, ast.Constant) \
            and isinstance(body[0].value.value, str):
        body = body[1:]
    # (a `return` two loops deep: anf carries `retval` through the outer loop, which
    # needs a value for it before the first iteration)
    nested = not _flat(body) and _return_in_nested_loop(body, 0) is not None
    nodes = getattr(parsed, "nodes", None)
    if nodes is None or nodes.has(ast.Import, ast.ImportFrom, ast.With, ast.ExceptHandler):
        check_rebinding(tree, Located(parsed.info, 0))
    body = expand(body, parsed, Located(parsed.info, 0))
    if not _flat(body):  # (no loop, and nothing for the loops' rewrites to look at)
        for node in _loops(body):
            node.iter = _as_sequence(node.iter, parsed)
        body = _rewrite_loop_returns(body, 0, nested or _returning_loops(body) > 1)
    out = copy.copy(tree)
    out.body = _single_exit(body, tree)
    return out


_LOOPS = (ast.For, ast.While)
# the statements that hold no other statement
_SIMPLE = frozenset({ast.Assign, ast.AugAssign, ast.AnnAssign, ast.Expr, ast.Return,
                     ast.Pass, ast.Break, ast.Continue, ast.Raise, ast.Assert, ast.Import,
                     ast.ImportFrom})


def _flat(stmts) -> bool:
    """Is every statement one that holds no other (straight-line code)?"""
    return all(type(s) in _SIMPLE for s in stmts)


def _loops(stmts) -> list:
    """The ``for`` statements in `stmts`, at any depth (a statement is only ever in
    a list of statements: a body, an ``else``, a handler's)."""
    out, todo, For = [], list(stmts), ast.For
    while todo:
        s = todo.pop()
        if type(s) is For:
            out.append(s)
        d = s.__dict__
        for f in _blocks_of(type(s)):
            v = d.get(f)
            if type(v) is list and v and isinstance(v[0], _HOLDS_STATEMENTS):
                todo.extend(v)
    return out


_HOLDS_STATEMENTS = (ast.stmt, ast.excepthandler) + tuple(
    getattr(ast, n) for n in ("match_case",) if hasattr(ast, n))
_BLOCK_FIELDS: dict = {}  # node type -> `_blocks_of` it


def _blocks_of(kind) -> tuple:
    """The fields of the node type `kind` that can hold statements (none for most
    statements: their other fields are not looked at)."""
    got = _BLOCK_FIELDS.get(kind)
    if got is None:
        got = _BLOCK_FIELDS[kind] = tuple(
            f for f in ("body", "orelse", "handlers", "finalbody", "cases") if f in kind._fields)
    return got


def _ends(stmts, kinds) -> bool:
    """Does every path through `stmts` end with one of the statement `kinds`?"""
    for s in stmts:
        if isinstance(s, kinds):
            return True
        if isinstance(s, ast.If) and _ends(s.body, kinds) and _ends(s.orelse, kinds):
            return True
    return False


def _has(stmts, kinds) -> bool:
    """Is there one of `kinds` in `stmts`, not counting nested loops' bodies?"""
    for s in stmts:
        if isinstance(s, kinds):
            return True
        if isinstance(s, ast.If) and (_has(s.body, kinds) or _has(s.orelse, kinds)):
            return True
    return False


def _single_exit(body, tree):
    """Make every path end with a return, then fold early exits (see `_fold`)."""
    body = list(body)
    if not _ends(body, (ast.Return, ast.Raise)):
        ret = ast.Return(value=None)
        last = body[-1] if body else tree
        ret.lineno = getattr(last, "end_lineno", None) or last.lineno
        ret.col_offset = 0
        body.append(ret)
    return _fold(body, (ast.Return,))


def _fold(stmts, kinds):
    """Move the statements after an ``if`` that exits (``return`` at function level,
    ``break``/``continue`` in a loop body) into the branches that do not exit, so an
    exit is always the last statement of its path."""
    out = []
    for i, s in enumerate(stmts):
        if isinstance(s, kinds) or isinstance(s, ast.Raise):
            out.append(s)
            return out  # anything after an exit (or a `raise`) is dead
        if isinstance(s, _LOOPS):
            new = copy.copy(s)
            new.body = _fold(list(s.body), (ast.Break, ast.Continue))
            out.append(new)
            continue
        if isinstance(s, ast.If):
            new = copy.copy(s)
            if _has(s.body, kinds) or _has(s.orelse, kinds):
                rest = stmts[i + 1:]
                new.body = _fold(list(s.body) + ([] if _ends(s.body, kinds) else ir.copy_tree(rest)), kinds)
                new.orelse = _fold(list(s.orelse) + ([] if _ends(s.orelse, kinds) else ir.copy_tree(rest)), kinds)
                out.append(new)
                return out
            new.body = _fold(list(s.body), kinds)
            new.orelse = _fold(list(s.orelse), kinds)
            out.append(new)
            continue
        out.append(s)
    return out


def _contains_return(stmts) -> bool:
    return any(isinstance(n, ast.Return) for s in stmts for n in ast.walk(s))


def _located(node, like):
    node.lineno = like.lineno
    node.col_offset = like.col_offset
    node.end_lineno = getattr(like, "end_lineno", like.lineno)
    node.end_col_offset = getattr(like, "end_col_offset", like.col_offset)
    for child in ast.walk(node):
        if not hasattr(child, "lineno") and isinstance(child, (ast.expr, ast.stmt)):
            child.lineno, child.col_offset = node.lineno, node.col_offset
            child.end_lineno, child.end_col_offset = node.end_lineno, node.end_col_offset
    return node


def _flag(value, like):
    return _located(ast.Assign(targets=[ast.Name(id=RETURNED, ctx=ast.Store())],
                               value=ast.Constant(value)), like)


def _return_in_nested_loop(stmts, depth):
    """The first ``return`` two or more loops deep, or None."""
    for s in stmts:
        if isinstance(s, ast.Return) and depth >= 2:
            return s
        if isinstance(s, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef, ast.Lambda)):
            continue
        for field in _blocks_of(type(s)):
            if field == "cases":
                continue
            block = getattr(s, field, None)
            if isinstance(block, list):
                inner = depth + 1 if isinstance(s, _LOOPS) and field == "body" else depth
                found = _return_in_nested_loop(block, inner)
                if found is not None:
                    return found
    return None


def _returning_loops(stmts) -> int:
    """How many loops not nested in another loop contain a ``return``."""
    count = 0
    for s in stmts:
        if isinstance(s, _LOOPS):
            count += _contains_return(s.body)
        elif isinstance(s, ast.If):
            count += _returning_loops(s.body) + _returning_loops(s.orelse)
    return count


def _rewrite_loop_returns(stmts, depth, init=False):
    """``return v`` inside loops becomes ``retval = v; returned = True; break``, and
    after each loop that may return: ``if returned: break`` (in an outer loop) or
    ``if returned: return retval`` (at function level)."""
    out = []
    for s in stmts:
        if isinstance(s, ast.Return) and depth > 0:
            value = s.value if s.value is not None else ast.Constant(None)
            out.append(_located(ast.Assign(targets=[ast.Name(id=RETVAL, ctx=ast.Store())],
                                           value=value), s))
            out.append(_flag(True, s))
            out.append(_located(ast.Break(), s))
            continue
        if isinstance(s, _LOOPS) and _contains_return(s.body):
            if depth == 0:
                out.append(_flag(False, s))
                if init:
                    # retval is read only when returned is True; with several loops
                    # that return, binding it first keeps a later loop from copying
                    # an unbound name
                    out.append(_located(ast.Assign(targets=[ast.Name(id=RETVAL, ctx=ast.Store())],
                                                   value=ast.Constant(None)), s))
            new = copy.copy(s)
            new.body = _rewrite_loop_returns(list(s.body), depth + 1, init)
            out.append(new)
            exit_ = ast.Break() if depth > 0 else ast.Return(value=ast.Name(id=RETVAL, ctx=ast.Load()))
            out.append(_located(ast.If(test=ast.Name(id=RETURNED, ctx=ast.Load()),
                                       body=[_located(exit_, s)], orelse=[]), s))
            continue
        if isinstance(s, ast.If):
            new = copy.copy(s)
            new.body = _rewrite_loop_returns(list(s.body), depth, init)
            new.orelse = _rewrite_loop_returns(list(s.orelse), depth, init)
            out.append(new)
            continue
        out.append(s)
    return out


def _as_sequence(node, parsed):
    """`node`, a ``for`` loop's iterable, as what `anf` reads its items from by index:
    a set or a dict (a display, ``set(...)``, ``frozenset(...)``, ``dict(...)``,
    ``d.keys()``, ``.values()``, ``.items()``) as the list of its items, in its order
    (``list(node)``); anything else as it is."""
    func = node.func if isinstance(node, ast.Call) else None
    if isinstance(node, (ast.Set, ast.Dict)) or isinstance(func, ast.Name) and \
            func.id not in parsed.locals and parsed.refs.get(func.id) in (set, frozenset, dict) \
            or isinstance(func, ast.Attribute) and not node.args and not node.keywords \
            and func.attr in ("keys", "values", "items"):
        return ast.copy_location(ast.Call(func=ast.Name(id="list", ctx=ast.Load()),
                                          args=[node], keywords=[]), node)
    return node
