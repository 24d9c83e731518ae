"""kept: the text of an `ir.Kept` statement, the user's code run as written.

`kept_lines(stmt, expr)` gives ``(depth, text)`` lines for an `ir.Kept` (an
``assert``, ``raise``, ``import``, or a ``try`` or ``with`` block with the
statements in it), its placeholders replaced by its arguments, every expression
printed by `expr` (an `emit.ExprPrinter`: black's style, names through the namer),
or by ``ast.unparse`` where that printer has no form for it (a ``lambda`` in a
kept block, say). `release`'s ``del`` of names (`is_release`, about one per line of
array code) is printed from its arguments' names, and `own_names` knows it has none:
neither walks its tree.
"""

from __future__ import annotations

import ast

from .. import ir


def kept_lines(s: ir.Kept, expr) -> list:
    if is_release(s):  # (``del`` of names, one after most lines of array code)
        return [(0, "del " + ", ".join(expr.namer(a.id) for a in s.args))]
    stmt = ir.copy_tree(s.stmt)
    args = {f"{ir.KEPT_ARG}{i}": a for i, a in enumerate(s.args)}
    stmt = _Fill(args).visit(stmt)
    out = []
    _Lines(expr, out).stmt(stmt, 0)
    return out


def is_release(s: ir.Kept) -> bool:
    """Is `s` a ``del`` of its arguments, each a name (`release`'s), whose own names
    (`ir.Kept.own_names`) are none and which holds no nested scope?"""
    stmt = s.stmt
    if type(stmt) is not ast.Delete:
        return False
    targets, args = stmt.targets, s.args
    if len(targets) != len(args):
        return False
    if len(targets) > len(_PLACEHOLDERS):
        return all(type(t) is ast.Name and type(a) is ast.Name and t.id == f"{ir.KEPT_ARG}{i}"
                   for i, (t, a) in enumerate(zip(targets, args)))
    for t, a, p in zip(targets, args, _PLACEHOLDERS):
        if type(t) is not ast.Name or type(a) is not ast.Name or t.id != p:
            return False
    return True


_PLACEHOLDERS = tuple(f"{ir.KEPT_ARG}{i}" for i in range(32))


def own_names(s: ir.Kept) -> set:
    """`s.own_names()`, without a walk for a `release` ``del``."""
    return set() if is_release(s) else s.own_names()


class _Fill(ast.NodeTransformer):
    def __init__(self, args):
        self.args = args

    def visit_Name(self, n):
        got = self.args.get(n.id)
        return ir.copy_tree(got) if got is not None else n


class _Lines:
    def __init__(self, expr, out):
        self.printer = expr
        self.out = out

    def e(self, node) -> str:
        try:
            return self.printer(node)
        except TypeError:  # (a form the printer has none for)
            if isinstance(node, ast.Call) and len(node.args) == 1 and not node.keywords \
                    and isinstance(node.args[0], ast.GeneratorExp):
                # ``sum(t for t in xs)``, as written (not ``sum((t for t in xs))``)
                return f"{self.e(node.func)}({self.e(node.args[0])[1:-1]})"
            named = ir.copy_tree(node)
            for n in ast.walk(named):
                if isinstance(n, ast.Name):
                    n.id = self.printer.namer(n.id)
            return ast.unparse(named)

    def put(self, depth, text):
        self.out.append((depth, text))

    def body(self, stmts, depth):
        for st in stmts:
            self.stmt(st, depth)

    def stmt(self, st, depth):
        meth = getattr(self, "s_" + type(st).__name__, None)
        if meth is not None:
            meth(st, depth)
            return
        named = ir.copy_tree(st)
        for n in ast.walk(named):
            if isinstance(n, ast.Name):
                n.id = self.printer.namer(n.id)
        for line in ast.unparse(named).splitlines():
            stripped = line.lstrip(" ")
            self.put(depth + (len(line) - len(stripped)) // 4, stripped)

    def s_Assert(self, st, depth):
        self.put(depth, f"assert {self.e(st.test)}" + (
            f", {self.e(st.msg)}" if st.msg is not None else ""))

    def s_Raise(self, st, depth):
        text = "raise" if st.exc is None else f"raise {self.e(st.exc)}"
        if st.cause is not None:
            text += f" from {self.e(st.cause)}"
        self.put(depth, text)

    def s_Import(self, st, depth):
        self.put(depth, "import " + _aliases(st.names))

    def s_ImportFrom(self, st, depth):
        self.put(depth, f"from {'.' * st.level}{st.module or ''} import {_aliases(st.names)}")

    def s_Expr(self, st, depth):
        self.put(depth, self.e(st.value))

    def s_Assign(self, st, depth):
        self.put(depth, " = ".join(self.e(t) for t in st.targets) + " = " + self.e(st.value))

    def s_Pass(self, st, depth):
        self.put(depth, "pass")

    def s_Try(self, st, depth):
        self.put(depth, "try:")
        self.body(st.body, depth + 1)
        for h in st.handlers:
            head = "except" if h.type is None else f"except {self.e(h.type)}"
            if h.name:
                head += f" as {self.printer.namer(h.name)}"
            self.put(depth, head + ":")
            self.body(h.body, depth + 1)
        if st.orelse:
            self.put(depth, "else:")
            self.body(st.orelse, depth + 1)
        if st.finalbody:
            self.put(depth, "finally:")
            self.body(st.finalbody, depth + 1)

    def s_With(self, st, depth):
        items = [self.e(i.context_expr) + ("" if i.optional_vars is None
                                           else f" as {self.e(i.optional_vars)}")
                 for i in st.items]
        self.put(depth, f"with {', '.join(items)}:")
        self.body(st.body, depth + 1)


def _aliases(names) -> str:
    return ", ".join(a.name + (f" as {a.asname}" if a.asname else "") for a in names)
