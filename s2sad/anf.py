"""anf: parsed function -> IR in A-normal form with SSA names.

Contract
--------
`to_anf(parsed)` returns an `ir.Function` that computes exactly what the user's
function computes, in the same order, with the same exceptions, and in which

* every statement is one of:
    ``name = atom``                       a copy
    ``name = atom OP atom`` / ``OP atom``  one operator (arithmetic or comparison)
    ``name = ref(atom, ..., kw=atom)``     one call of a static reference
    ``name = (atom, ...)``                 a tuple display
    ``name = atom[atom]``                  one subscript
    ``n1, n2, ... = atom``                 tuple unpacking
    ``ref(atom, ...)``                     a call evaluated for its effect
    ``if atom: ... else: ...``             (`ir.If`)
    ``return atom``                        once, as the last statement;
* every name is assigned at most once on any path (SSA): a reassigned variable ``x``
  becomes ``x``, ``x%1``, ``x%2``... (printed ``x_1``, ``x_2``); augmented assignment
  becomes plain assignment;
* where branches join, a variable assigned in a branch and defined on both paths is
  assigned under one name, as the last definition in each branch (the branches'
  versions are renamed to it, or copied into it);
* lazy operators keep their laziness: ``a if c else b``, ``and``, ``or`` and chained
  comparisons become `ir.If` statements, so an operand that would raise is still
  evaluated only when Python would evaluate it;
* an early ``return`` inside ``if`` is moved to the end: the statements after the
  ``if`` move into the branches that do not return, and the returned value joins
  like any variable (as ``result``).

Docstrings, ``pass`` and annotations are dropped. It refuses reads of a variable that
has no assignment on any path before the read (`UnsupportedSyntaxError`), and calls of
something that is not a name or a dotted name.
"""

from __future__ import annotations

import ast
import copy

from . import ir
from .errors import UnsupportedSyntaxError
from .parse import Parsed, _Located

RESULT = "%result"


def to_anf(parsed: Parsed) -> ir.Function:
    return _Lowerer(parsed).function()


class _Lowerer:
    def __init__(self, parsed: Parsed):
        self.parsed = parsed
        self.tree = parsed.tree
        self.loc = _Located(parsed.info, 0)
        self.locals = parsed.locals
        self.env: dict[str, str] = {}
        self.versions: dict[str, int] = {}
        self.temps = 0
        self.out: list = []
        self.line = 0

    # ------------------------------------------------------------ naming

    def temp(self) -> str:
        self.temps += 1
        return f"%{self.temps}"

    def new_version(self, var: str) -> str:
        n = self.versions.get(var)
        if n is None:
            self.versions[var] = 0
            return var
        self.versions[var] = n + 1
        return ir.derived(var, str(n + 1))

    def error(self, node, message, hint=None):
        return self.loc.error(UnsupportedSyntaxError, node, message, hint)

    # ---------------------------------------------------------- function

    def function(self) -> ir.Function:
        a = self.tree.args
        params = []
        positional = a.posonlyargs + a.args
        defaults = [None] * (len(positional) - len(a.defaults)) + list(a.defaults)
        for p, d in zip(positional, defaults):
            params.append(ir.Param(p.arg, _plain_default(d)))
        for p, d in zip(a.kwonlyargs, a.kw_defaults):
            params.append(ir.Param(p.arg, _plain_default(d), kwonly=True))
        for p in params:
            self.env[p.name] = p.name
            self.versions[p.name] = 0
        body = list(self.tree.body)
        if body and isinstance(body[0], ast.Expr) and isinstance(body[0].value, ast.Constant) \
                and isinstance(body[0].value.value, str):
            body = body[1:]
        body = _single_exit(body, self.tree)
        self.block(body, top=True)
        _coalesce_copies(self.out)
        return ir.Function(self.tree.name, params, self.out, dict(self.parsed.refs),
                           self.parsed.info)

    # ---------------------------------------------------------- statements

    def block(self, stmts, top=False):
        for s in stmts:
            self.line = s.lineno
            if isinstance(s, ast.Return):
                value = self.atom(s.value) if s.value is not None else ir.const(None)
                if top:
                    self.emit(ir.Return(value, s.lineno))
                else:
                    self.assign_var(RESULT, value)
            else:
                self.statement(s)
        if top and (not self.out or not isinstance(self.out[-1], ir.Return)):
            self.emit(ir.Return(ir.name(self.env[RESULT]), self.line))

    def emit(self, stmt):
        self.out.append(stmt)

    def statement(self, s):
        meth = getattr(self, "s_" + type(s).__name__, None)
        if meth is None:  # parse refuses these; a missing handler is our bug
            raise self.error(s, f"s2sad cannot differentiate a `{type(s).__name__}` statement")
        meth(s)

    def s_Pass(self, s):
        pass

    def s_Expr(self, s):
        if isinstance(s.value, ast.Constant):
            return  # a stray string or number: no effect
        value = self.value(s.value)
        self.emit(ir.Expr(value, self.line))

    def s_Assign(self, s):
        if len(s.targets) == 1:
            self.assign_target(s.targets[0], s.value)
            return
        value = self.atom(s.value)
        for t in s.targets:
            self.bind_target(t, value)

    def s_AnnAssign(self, s):
        self.assign_target(s.target, s.value)

    def s_AugAssign(self, s):
        current = self.read(s.target)
        right = self.atom(s.value)
        self.assign_var(s.target.id, ast.BinOp(left=current, op=s.op, right=right))

    def s_If(self, s):
        test = self.atom(s.test)
        self.branch(test, lambda: self.block(s.body), lambda: self.block(s.orelse), s.lineno)

    # ------------------------------------------------------- assignments

    def assign_target(self, target, value_node):
        if isinstance(target, ast.Name):
            self.assign_var(target.id, self.value(value_node))
            return
        # tuple target
        if isinstance(value_node, ast.Tuple) and len(value_node.elts) == len(target.elts) \
                and not any(isinstance(e, ast.Starred) for e in value_node.elts):
            atoms = [self.atom(e) for e in value_node.elts]  # all evaluated first
            for t, a in zip(target.elts, atoms):
                self.bind_target(t, a)
            return
        self.bind_target(target, self.atom(value_node))

    def bind_target(self, target, atom):
        """Bind `target` (a name or nested tuple of names) to an evaluated atom."""
        if isinstance(target, ast.Name):
            self.assign_var(target.id, atom)
            return
        names = []
        nested = []
        for e in target.elts:
            if isinstance(e, ast.Name):
                names.append(None)
            else:
                t = self.temp()
                names.append(t)
                nested.append((e, t))
        # Evaluate the unpacking first, then bind names in order.
        final = []
        for e, n in zip(target.elts, names):
            if n is None:
                final.append(self.new_version(e.id))
            else:
                final.append(n)
        self.emit(ir.Assign(tuple(final), atom, self.line, unpack=True))
        for e, n in zip(target.elts, final):
            if isinstance(e, ast.Name):
                self.env[e.id] = n
        for e, t in nested:
            self.bind_target(e, ir.name(t))

    def assign_var(self, var, value):
        target = self.new_version(var)
        self.emit(ir.Assign((target,), value, self.line))
        self.env[var] = target

    # -------------------------------------------------------- branches

    def branch(self, test, then_fn, else_fn, line):
        before = dict(self.env)
        outer, self.out = self.out, []
        then_fn()
        then_body, then_env = self.out, self.env
        self.env, self.out = dict(before), []
        else_fn()
        else_body, else_env = self.out, self.env
        self.out = outer
        self.env = dict(before)
        order = list(then_env) + [k for k in else_env if k not in then_env]
        for var in order:
            vt, ve = then_env.get(var), else_env.get(var)
            if vt == ve:
                if vt is not None:
                    self.env[var] = vt
                continue
            if vt is None or ve is None:
                self.env[var] = vt or ve  # defined on one path only, as in Python
                continue
            if vt != before.get(var):
                joined = vt
                if ve != before.get(var):
                    _rename_block(else_body, {ve: joined})
                else:
                    else_body.append(ir.Assign((joined,), ir.name(ve), line))
            else:
                joined = ve
                then_body.append(ir.Assign((joined,), ir.name(vt), line))
            self.env[var] = joined
        self.emit(ir.If(test, then_body, else_body, line))

    # ------------------------------------------------------- expressions

    def read(self, node: ast.Name) -> ast.expr:
        if node.id not in self.locals:
            return ir.name(node.id)  # static reference
        current = self.env.get(node.id)
        if current is None:
            raise self.error(
                node, f"`{node.id}` is read before it is assigned",
                f"Assign `{node.id}` on every path before this line.",
            )
        return ir.name(current)

    def atom(self, node) -> ast.expr:
        """Lower `node` and return an atom holding its value."""
        if isinstance(node, ast.Constant):
            return ir.const(node.value)
        if isinstance(node, ast.Name):
            return self.read(node)
        if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub) \
                and isinstance(node.operand, ast.Constant) \
                and type(node.operand.value) in (int, float, complex):
            return ir.const(-node.operand.value)
        if self.is_static(node):
            return copy.deepcopy(node)
        value = self.value(node)
        if isinstance(value, (ast.Name, ast.Constant)):
            return value
        t = self.temp()
        self.emit(ir.Assign((t,), value, self.line))
        return ir.name(t)

    def is_static(self, node) -> bool:
        text = ir.dotted(node)
        return text is not None and text.split(".")[0] not in self.locals

    def value(self, node) -> ast.expr:
        """Lower `node` to one operation over atoms (or an atom)."""
        if isinstance(node, (ast.Constant, ast.Name)) or self.is_static(node):
            return self.atom(node)
        meth = getattr(self, "e_" + type(node).__name__, None)
        if meth is None:
            raise self.error(node, f"s2sad cannot differentiate this expression "
                                   f"(`{type(node).__name__}`)")
        return meth(node)

    def e_BinOp(self, node):
        left = self.atom(node.left)
        right = self.atom(node.right)
        return ast.BinOp(left=left, op=node.op, right=right)

    def e_UnaryOp(self, node):
        if isinstance(node.op, ast.USub) and isinstance(node.operand, ast.Constant):
            return self.atom(node)
        return ast.UnaryOp(op=node.op, operand=self.atom(node.operand))

    def e_Compare(self, node):
        left = self.atom(node.left)
        if len(node.ops) == 1:
            return ast.Compare(left=left, ops=node.ops, comparators=[self.atom(node.comparators[0])])
        # a < b < c: evaluate b once, and c only when a < b holds
        result = self.temp()

        def chain(left, ops, rights):
            right = self.atom(rights[0])
            cmp = ast.Compare(left=left, ops=[ops[0]], comparators=[right])
            if len(ops) == 1:
                self.assign_var(result, cmp)
                return
            t = self.temp()
            self.emit(ir.Assign((t,), cmp, self.line))
            test = ir.name(t)
            self.branch(test, lambda: chain(right, ops[1:], rights[1:]),
                        lambda: self.assign_var(result, test), self.line)

        chain(left, node.ops, node.comparators)
        return ir.name(self.env.pop(result))

    def e_BoolOp(self, node):
        result = self.temp()
        is_and = isinstance(node.op, ast.And)

        def chain(values):
            first = self.atom(values[0])
            if len(values) == 1:
                self.assign_var(result, first)
                return
            rest = lambda: chain(values[1:])  # noqa: E731
            keep = lambda: self.assign_var(result, first)  # noqa: E731
            if is_and:
                self.branch(first, rest, keep, self.line)
            else:
                self.branch(first, keep, rest, self.line)

        chain(node.values)
        return ir.name(self.env.pop(result))

    def e_IfExp(self, node):
        result = self.temp()
        test = self.atom(node.test)
        self.branch(test, lambda: self.assign_var(result, self.value(node.body)),
                    lambda: self.assign_var(result, self.value(node.orelse)), self.line)
        return ir.name(self.env.pop(result))

    def e_Call(self, node):
        if not self.is_static(node.func):
            raise self.error(
                node, "s2sad can only differentiate calls of functions named directly "
                      "(`f(x)`, `math.sin(x)`), not of a computed or local value",
                "Call the function by its module-level name.",
            )
        for k in node.keywords:
            if k.arg is None:
                raise self.error(node, "s2sad cannot differentiate `**` unpacking in a call",
                                 "Pass keyword arguments one by one.")
        args = [self.atom(a) for a in node.args]
        keywords = [ast.keyword(arg=k.arg, value=self.atom(k.value)) for k in node.keywords]
        return ast.Call(func=copy.deepcopy(node.func), args=args, keywords=keywords)

    def e_Tuple(self, node):
        return ast.Tuple(elts=[self.atom(e) for e in node.elts], ctx=ast.Load())

    def e_Subscript(self, node):
        value = self.atom(node.value)
        index = self.atom(node.slice)
        return ast.Subscript(value=value, slice=index, ctx=ast.Load())

    def e_Attribute(self, node):
        return ast.Attribute(value=self.atom(node.value), attr=node.attr, ctx=ast.Load())


def _plain_default(node):
    return None if node is None else copy.deepcopy(node)


# ------------------------------------------------------------ early returns


def _always_returns(stmts) -> bool:
    for s in stmts:
        if isinstance(s, ast.Return):
            return True
        if isinstance(s, ast.If) and _always_returns(s.body) and _always_returns(s.orelse):
            return True
    return False


def _has_return(stmts) -> bool:
    return any(isinstance(n, ast.Return) for s in stmts for n in ast.walk(s))


def _single_exit(body, tree):
    """Move statements after an ``if`` that returns into its other branches, so
    that every return is the last statement on its path; add ``return None``
    where the function can fall off its end."""
    body = list(body)
    if not _always_returns(body):
        ret = ast.Return(value=None)
        last = body[-1] if body else tree
        ret.lineno = getattr(last, "end_lineno", None) or last.lineno
        ret.col_offset = 0
        body.append(ret)
    return _fold(body)


def _fold(stmts):
    out = []
    for i, s in enumerate(stmts):
        if isinstance(s, ast.Return):
            out.append(s)
            return out  # anything after a return is dead
        if isinstance(s, ast.If) and (_has_return(s.body) or _has_return(s.orelse)):
            rest = stmts[i + 1:]
            new = copy.copy(s)
            new.body = _fold(list(s.body) + ([] if _always_returns(s.body) else copy.deepcopy(rest)))
            new.orelse = _fold(list(s.orelse) + ([] if _always_returns(s.orelse) else copy.deepcopy(rest)))
            out.append(new)
            return out
        out.append(s)
    return out


def _rename_block(stmts, mapping):
    """Rename definitions and uses in a block (used when joining branches)."""
    for s in ir.walk(stmts):
        if isinstance(s, (ir.Assign, ir.Dup)):
            s.targets = tuple(mapping.get(t, t) for t in s.targets)
        if isinstance(s, ir.Dup):
            s.source = mapping.get(s.source, s.source)
        if isinstance(s, (ir.Assign, ir.Expr, ir.Return)):
            s.value = ir.substitute(s.value, mapping)
        if isinstance(s, ir.If):
            s.test = ir.substitute(s.test, mapping)


def _coalesce_copies(body):
    """Drop copies ``v = %t`` of a temporary read nowhere else, by naming the
    temporary's definitions `v` directly (``%t = a * b; v = %t`` -> ``v = a * b``)."""
    while True:
        reads = {}
        for s in ir.walk(body):
            for node in ir.exprs(s):
                for n in ir.names_in(node):
                    reads[n] = reads.get(n, 0) + 1
        for s in ir.walk(body):
            if isinstance(s, ir.Assign) and not s.unpack and isinstance(s.value, ast.Name):
                src, dst = s.value.id, s.targets[0]
                if src.startswith("%") and src != dst and reads.get(src) == 1:
                    _remove(body, s)
                    _rename_block(body, {src: dst})
                    break
        else:
            return



def _remove(body, target):
    for i, s in enumerate(body):
        if s is target:
            del body[i]
            return True
        if isinstance(s, ir.If) and (_remove(s.body, target) or _remove(s.orelse, target)):
            return True
    return False
