"""Rule templates: a rule's ``def`` read as a template, and the template inlined.

A rule is a plain ``def`` whose parameters are placeholders: the primitive's inputs
in call order, then ``out`` (the primitive's result), then either ``out_bar``
(reverse: the adjoint of the result) or one ``<input>_dot`` per input (forward: the
inputs' tangents). Keyword-only parameters with defaults before ``out`` are options
(``axis=None, keepdims=False``): static arguments of the call. Its body is a few
``name = expression`` lines and a ``return`` of one term per input, ``None`` where
the input is not differentiable:

* reverse: term i is the contribution to input i's adjoint;
* forward: term i is input i's contribution to the tangent of ``out`` (the compiler
  sums the terms of the active inputs).

`read_template` reads the body once, from the function's source, into a `Template`:
the lines, the terms, and the global names the body reads (its helpers).
`instantiate` substitutes a statement's atoms for the placeholders, folds constants
(`fold`), and returns only the terms activity asks for, so the emitted code reads
like the table.

Two kinds of rules are made from others' templates rather than written:

* `transpose`: the reverse templates of a forward template whose every term is
  linear and elementwise in its input's tangent (``x_dot / (1.0 + abs(x))``,
  ``-x_dot``, sums and conditional expressions of those): ``x_dot`` becomes
  ``out_bar``, wrapped in ``unbroadcast(..., x)`` for arrays;
* `as_arrays`: the template of a rule's variant for Python lists and tuples, which
  converts some parameters with ``np.asarray`` before the body reads them.

`rule_function` makes such a template a real function, as the tables' rules are
(tests and the engines call rules).

This module imports the runtime (`unbroadcast`, the helper of transposed rules) and
the errors; it knows nothing of the registry.
"""

from __future__ import annotations

import ast
import re
import builtins
import inspect
import linecache
import math
import operator
import textwrap
from dataclasses import dataclass, field

import numpy as np

from ..errors import S2SADError
from ..runtime import unbroadcast

@dataclass(eq=False)
class Template:
    assigns: list  # (name, expr) pairs, in order
    terms: list  # one expr or None per input
    helpers: dict  # global names the body reads -> their objects
    reads: dict = field(default_factory=dict, repr=False)  # id(expr) -> names it reads
    # (wanted, the kinds of the placeholders' values) -> the instance folded with
    # stand-in names (`instances`)
    plans: dict = field(default_factory=dict, repr=False)
    # the helpers that are numbers (`instances` inlines them), found where first asked
    numbers: dict | None = field(default=None, repr=False)

    def names(self, expr) -> set:
        """The names one of the template's own expressions reads (asked on every
        instantiation, and the template never changes)."""
        got = self.reads.get(id(expr))
        if got is None:
            got = self.reads[id(expr)] = frozenset(_names(expr))
        return got


def _lambda_return(func, source: str, mode: str, who: str) -> ast.Return:
    """A rule written as a lambda, as the one `return` of a rule's body: the lambda
    is found in the lines `inspect` gives for it by its parameters' names, and must
    be the only one there with those names."""
    names = list(func.__code__.co_varnames[:func.__code__.co_argcount
                                           + func.__code__.co_kwonlyargcount])
    found = []
    # (the lines may be a fragment of a longer statement: each ``lambda`` in them is
    # read up to the longest text after it that parses as a lambda)
    for start in (m.start() for m in re.finditer(r"\blambda\b", source)):
        rest = source[start:]
        for end in range(len(rest), 0, -1):
            try:
                node = ast.parse(rest[:end], mode="eval").body
            except SyntaxError:
                continue
            if not isinstance(node, ast.Lambda):
                continue  # (``lambda ...: y, z`` is a tuple: shorter)
            if [a.arg for a in node.args.args + node.args.kwonlyargs] == names:
                found.append(node)
            break
    if len(found) != 1:
        raise S2SADError(f"cannot read the {mode} rule for {who}: it is a lambda s2sad "
                         "cannot tell apart in its source",
                         hint="Write the rule as a def (name = expression lines and one "
                              "return), or put the lambda on a line of its own.")
    return ast.Return(value=found[0].body)


def read_template(func, mode: str, arity: int, who: str) -> Template:
    """The template of the rule `func` for `mode` with `arity` inputs; `who` names its
    key in error messages."""
    try:
        source = textwrap.dedent(inspect.getsource(func))
    except (OSError, TypeError):
        raise S2SADError(f"cannot read the source of the {mode} rule for {who}") from None
    if getattr(func, "__name__", None) == "<lambda>":
        body = [_lambda_return(func, source, mode, who)]
    else:
        tree = ast.parse(source).body[0]
        body = [s for s in tree.body
                if not (isinstance(s, ast.Expr) and isinstance(s.value, ast.Constant))]
    assigns = []
    for s in body[:-1]:
        if not (isinstance(s, ast.Assign) and len(s.targets) == 1
                and isinstance(s.targets[0], ast.Name)):
            raise S2SADError(f"the {mode} rule for {who} must be "
                             "`name = expression` lines followed by one `return`")
        assigns.append((s.targets[0].id, s.value))
    last = body[-1] if body else None
    if not isinstance(last, ast.Return) or last.value is None:
        raise S2SADError(f"the {mode} rule for {who} must end with "
                         "`return` of one term per input")
    value = last.value
    if arity == 1 and isinstance(value, ast.Tuple):
        raise S2SADError(f"the {mode} rule for {who} has one input, so it "
                         "returns one term, not a tuple")
    elts = value.elts if isinstance(value, ast.Tuple) and arity > 1 else [value]
    if len(elts) != arity:
        raise S2SADError(f"the {mode} rule for {who} returns {len(elts)} "
                         f"terms for {arity} inputs")
    terms = [None if isinstance(e, ast.Constant) and e.value is None else e for e in elts]
    params = set(inspect.signature(func).parameters)  # inputs, options, out, seeds
    local = {name for name, _ in assigns}
    helpers = {}
    scope = func.__globals__
    closure = dict(zip(func.__code__.co_freevars, func.__closure__ or ()))
    for expr in [e for _, e in assigns] + [t for t in terms if t is not None]:
        for n in _names(expr):
            if n in params or n in local or n in helpers:
                continue
            if n in closure:
                helpers[n] = closure[n].cell_contents
            elif n in scope:
                helpers[n] = scope[n]
            elif hasattr(builtins, n):
                continue  # a builtin such as abs
            else:
                raise S2SADError(f"the {mode} rule for {who} reads `{n}`, "
                                 "which is not defined where the rule is")
    return Template(assigns, terms, helpers)


def helper_objects(template: Template) -> dict:
    """The helpers emitted code must be able to name (numbers are inlined)."""
    return {n: v for n, v in template.helpers.items() if not _is_number(v)}


def split_params(func, mode):
    """(inputs, options) of a rule function; see the module docstring."""
    params = list(inspect.signature(func).parameters.values())
    names = [p.name for p in params]
    if "out" not in names:
        raise S2SADError(f"a {mode} rule's parameters are the inputs, then `out`, then "
                         f"{'`out_bar`' if mode == 'reverse' else 'one `<input>_dot` per input'}"
                         f"; {func.__name__} has {names}")
    i = names.index("out")
    inputs = tuple(p.name for p in params[:i] if p.kind is not p.KEYWORD_ONLY)
    options = {p.name: p.default for p in params[:i] if p.kind is p.KEYWORD_ONLY}
    if any(p.default is p.empty for p in params[:i] if p.kind is p.KEYWORD_ONLY):
        raise S2SADError(f"the {mode} rule {func.__name__}: options (keyword-only parameters "
                         "before `out`) need a default")
    rest = names[i + 1:]
    expected = ["out_bar"] if mode == "reverse" else [n + "_dot" for n in inputs]
    if rest != expected:
        raise S2SADError(f"the {mode} rule {func.__name__}{tuple(names)} should end with "
                         f"`out, {', '.join(expected)}`")
    return inputs, options


def instantiate(template: Template, mapping: dict, wanted, fresh):
    """Inline `template`: `mapping` takes each placeholder (input, option, ``out``,
    seed) to its atom or expression, `wanted` lists the input positions whose terms
    are needed, `fresh()` gives new temporary names. Returns ``(assigns, terms)``:
    the template's own lines that the wanted terms need, and the wanted terms (a dict
    position -> expression). Helpers that are numbers are inlined."""
    t = template
    full = {n: ast.Constant(v) for n, v in t.helpers.items() if _is_number(v)}
    full.update(mapping)
    mapping = full
    terms = {i: t.terms[i] for i in wanted if t.terms[i] is not None}
    needed = set()
    for expr in terms.values():
        needed |= t.names(expr)
    assigns = []
    for name, expr in reversed(t.assigns):
        if name in needed:
            needed |= t.names(expr)
            assigns.append((name, expr))
    assigns.reverse()
    out_assigns = []
    for name, expr in assigns:
        new = fresh()
        out_assigns.append((new, _fold_owned(subst(expr, mapping))))
        mapping[name] = ast.Name(id=new, ctx=ast.Load())
    out_terms = {i: _fold_owned(subst(e, mapping)) for i, e in terms.items()}
    return out_assigns, out_terms


def _one_branch_each(a, b) -> bool:
    """Are `a` and `b` ``x if c else 0.0`` and ``0.0 if c else y``, `c` one name?"""
    return isinstance(a, ast.IfExp) and isinstance(b, ast.IfExp) \
        and isinstance(a.test, ast.Name) and isinstance(b.test, ast.Name) \
        and a.test.id == b.test.id and _num(a.orelse) == 0 and _num(b.body) == 0


def copy_expr(node):
    """A deep copy of an expression tree (faster than copy.deepcopy); operators and
    contexts are shared. `instances` copies the values it substitutes with it too."""
    if isinstance(node, list):
        return [copy_expr(x) for x in node]
    if not isinstance(node, ast.AST) or isinstance(node, (ast.expr_context, ast.operator,
                                                           ast.unaryop, ast.cmpop)):
        return node
    new = node.__class__.__new__(node.__class__)
    new.__dict__ = {k: copy_expr(v) for k, v in node.__dict__.items()}
    return new


def _is_number(v) -> bool:
    return type(v) in (int, float)


def _names(expr) -> set:
    return {n.id for n in ast.walk(expr) if isinstance(n, ast.Name)}


def subst(expr, mapping):
    """A copy of `expr` with each Name whose id is in `mapping` replaced by a copy of
    the mapped expression; copying and replacing in one pass over the tree."""
    t = type(expr)
    if t is list:
        return [subst(x, mapping) for x in expr]
    if not isinstance(expr, ast.AST) or isinstance(expr, (ast.expr_context, ast.operator,
                                                          ast.unaryop, ast.cmpop)):
        return expr
    if t is ast.Name and expr.id in mapping:
        return copy_expr(mapping[expr.id])
    fields = expr._fields
    new = t.__new__(t)
    new.__dict__ = d = expr.__dict__.copy()
    for k, v in d.items():  # (a value replaced, no key added)
        if type(v) not in _PLAIN:  # (kept as they are: positions, ids, constants)
            d[k] = subst(v, mapping) if k in fields else copy_expr(v)
    return new


_PLAIN = frozenset({int, float, str, bool, type(None)})


NOT_LITERAL = type("NotLiteral", (), {"__repr__": lambda self: "NOT_LITERAL"})()


def literal(atom):
    """The value of an option's atom when it is written as a literal (``1``, ``-1``,
    ``"fro"``, ``np.inf``), else `NOT_LITERAL`."""
    if isinstance(atom, ast.Constant):
        return atom.value
    if isinstance(atom, ast.UnaryOp) and isinstance(atom.op, ast.USub):
        value = literal(atom.operand)
        return -value if type(value) in (int, float) else NOT_LITERAL
    if isinstance(atom, ast.Tuple):
        values = tuple(literal(e) for e in atom.elts)
        return NOT_LITERAL if NOT_LITERAL in values else values
    if _dotted(atom) in ("np.inf", "numpy.inf", "math.inf"):
        return math.inf
    return NOT_LITERAL

# ------------------------------------------------------------------ folding

_ORDER = {ast.Lt: operator.lt, ast.LtE: operator.le, ast.Gt: operator.gt, ast.GtE: operator.ge,
          ast.Eq: operator.eq, ast.NotEq: operator.ne}
_FOLD_OPS = {
    ast.Add: operator.add, ast.Sub: operator.sub, ast.Mult: operator.mul,
    ast.Div: operator.truediv, ast.Pow: operator.pow, ast.FloorDiv: operator.floordiv,
    ast.Mod: operator.mod,
}


def _num(node):
    if isinstance(node, ast.Constant) and type(node.value) in (int, float):
        return node.value
    return None


def _is_one(node):
    v = _num(node)
    return v is not None and v == 1


_DEFAULT_OPTIONS = {"axis": None, "keepdims": False}
# the NumPy functions whose `axis` defaults to None (reductions over everything):
# ``axis=None`` says nothing to them, but np.concatenate's default is 0 and
# np.argsort's -1, so theirs stays
_AXIS_NONE_BY_DEFAULT = {"np.sum", "np.mean", "np.prod", "np.max", "np.min", "np.amax",
                         "np.amin", "np.var", "np.std", "np.linalg.norm", "np.squeeze",
                         "np.any", "np.all", "np.nansum", "np.nanmean", "np.ptp"}


def _int_tuple(node):
    """The value of a literal tuple of ints (an option such as ``axes=(2, 0, 1)``), or
    None."""
    value = literal(node) if isinstance(node, (ast.Constant, ast.Tuple)) else None
    if type(value) is tuple and all(type(v) is int for v in value):
        return value
    return None


def _fold_permutation_call(func, args):
    """``len``, ``np.mod`` and ``np.argsort`` of literal tuples of ints, worked out now
    (the inverse permutation of a transpose's literal `axes`), or None."""
    if func == "len" and len(args) == 1 and _int_tuple(args[0]) is not None:
        return ast.Constant(value=len(_int_tuple(args[0])))
    if func == "np.mod" and len(args) == 2 and _int_tuple(args[0]) is not None \
            and type(_num(args[1])) is int and _num(args[1]) > 0:
        return ast.Constant(value=tuple(v % _num(args[1]) for v in _int_tuple(args[0])))
    if func == "np.argsort" and len(args) == 1 and _int_tuple(args[0]) is not None:
        values = _int_tuple(args[0])
        return ast.Constant(value=tuple(sorted(range(len(values)), key=values.__getitem__)))
    return None


def _dotted(node):
    parts = []
    while isinstance(node, ast.Attribute):
        parts.append(node.attr)
        node = node.value
    if isinstance(node, ast.Name):
        return ".".join([node.id] + parts[::-1])
    return None


def _without_negation(node):
    """`node` with its leading negation removed (``-b * c / d`` -> ``b * c / d``), or
    None when it does not start with one."""
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub) \
            and _num(node.operand) is None:
        return node.operand
    if isinstance(node, ast.BinOp) and isinstance(node.op, (ast.Mult, ast.Div)):
        left = _without_negation(node.left)
        if left is not None:
            return ast.BinOp(left=left, op=node.op, right=node.right)
    return None


def fold(expr):
    """Fold arithmetic on literals and drop multiplications by one and powers of one:
    ``x ** (2 - 1)`` -> ``x``, ``out_bar * 1`` -> ``out_bar``."""
    return _fold_owned(copy_expr(expr))


_FOLD_LEAVES = (ast.expr_context, ast.operator, ast.unaryop, ast.cmpop, ast.boolop)


def _fold_owned(expr):
    """`fold` for a tree the caller owns (changed in place where it can be)."""
    return _Fold().visit(expr)


class _Fold(ast.NodeTransformer):
    """`fold`'s rewrites, applied in place. `visit` and `generic_visit` do what
    NodeTransformer's do, without looking a method up by name for every node or
    visiting contexts and operators (which nothing here changes)."""

    def visit(self, node):
        t = type(node)
        if t is ast.BinOp:
            return self.visit_BinOp(node)
        if t is ast.UnaryOp:
            return self.visit_UnaryOp(node)
        if t is ast.Call:
            return self.visit_Call(node)
        if t is ast.Compare:
            return self.visit_Compare(node)
        if t is ast.IfExp:
            return self.visit_IfExp(node)
        if t is ast.BoolOp:
            return self.visit_BoolOp(node)
        return self.generic_visit(node)

    def generic_visit(self, node):
        for name in node._fields:
            try:
                old = getattr(node, name)
            except AttributeError:
                continue
            if type(old) is list:
                new = []
                for value in old:
                    if isinstance(value, ast.AST) and not isinstance(value, _FOLD_LEAVES):
                        value = self.visit(value)
                        if value is None:
                            continue
                        if not isinstance(value, ast.AST):
                            new.extend(value)
                            continue
                    new.append(value)
                old[:] = new
            elif isinstance(old, ast.AST) and not isinstance(old, _FOLD_LEAVES):
                value = self.visit(old)
                if value is None:
                    delattr(node, name)
                else:
                    setattr(node, name, value)
        return node

    def visit_BinOp(self, n):
        self.generic_visit(n)
        a, b = _num(n.left), _num(n.right)
        op = _FOLD_OPS.get(type(n.op))
        if a is not None and b is not None and op is not None:
            try:
                value = op(a, b)
            except (ArithmeticError, ValueError):
                return n
            if isinstance(value, (int, float)) and math.isfinite(value) \
                    and (isinstance(value, int) or len(repr(value)) <= 12):
                return ast.Constant(value=value)
            return n
        if isinstance(n.op, ast.Mult):
            if _is_one(n.right):
                return n.left
            if _is_one(n.left):
                return n.right
        if isinstance(n.op, (ast.Pow, ast.Div)) and _is_one(n.right):
            return n.left
        if isinstance(n.op, ast.Pow) and isinstance(n.left, ast.Call) \
                and _dotted(n.left.func) == "np.ones_like":
            return n.left  # (ones to any power: a literal exponent 0's base)
        if isinstance(n.op, (ast.Add, ast.Sub)) and _num(n.right) == 0 \
                and type(_num(n.right)) is int:
            return n.left
        if isinstance(n.op, ast.Add) and _one_branch_each(n.left, n.right):
            # (a if c else 0.0) + (0.0 if c else b): a if c else b (np.where of numbers)
            return ast.IfExp(test=n.left.test, body=n.left.body, orelse=n.right.orelse)
        if isinstance(n.op, (ast.Add, ast.Sub)):
            positive = _without_negation(n.right)
            if positive is not None:  # a + -b * c -> a - b * c (negation is exact)
                n.op = ast.Sub() if isinstance(n.op, ast.Add) else ast.Add()
                n.right = positive
        return n

    def visit_Call(self, n):
        # a NumPy reduction's options at their defaults say nothing: np.sum(x)
        self.generic_visit(n)
        func = _dotted(n.func)
        if func is not None and not n.keywords:
            folded = _fold_permutation_call(func, n.args)
            if folded is not None:
                return folded
        if func is not None and func.startswith("np."):
            n.keywords = [k for k in n.keywords
                          if not (k.arg in _DEFAULT_OPTIONS and isinstance(k.value, ast.Constant)
                                  and k.value.value is _DEFAULT_OPTIONS[k.arg]
                                  and (k.arg != "axis" or func in _AXIS_NONE_BY_DEFAULT)
                                  or (k.arg == "ddof" and _num(k.value) == 0))]
        return n

    def visit_Compare(self, n):
        # an option's literal tested against None (``axes is None``): known now, and
        # Python warns of `is` with a literal
        self.generic_visit(n)
        if len(n.ops) == 1 and isinstance(n.ops[0], (ast.Is, ast.IsNot)):
            left, right = n.left, n.comparators[0]
            if isinstance(right, ast.Constant) and right.value is None \
                    and isinstance(left, (ast.Tuple, ast.List)):  # a display is never None
                left = ast.Constant(value=())
            if isinstance(left, ast.Constant) and isinstance(right, ast.Constant) \
                    and None in (left.value, right.value):
                same = left.value is right.value
                return ast.Constant(value=same if isinstance(n.ops[0], ast.Is) else not same)
        # an option's literal string compared with literals (``UPLO in ("L", "l")``), or
        # its literal int tested for membership (``trans in (1, 2, "T", "C")``)
        if len(n.ops) == 1 and isinstance(n.ops[0], (ast.Eq, ast.NotEq, ast.In, ast.NotIn)) \
                and isinstance(n.left, ast.Constant) and (
                    isinstance(n.left.value, str) or isinstance(n.left.value, int)
                    and isinstance(n.ops[0], (ast.In, ast.NotIn))):
            right = n.comparators[0]
            values = [right] if isinstance(n.ops[0], (ast.Eq, ast.NotEq)) else \
                right.elts if isinstance(right, ast.Tuple) else None
            if values is not None and all(isinstance(v, ast.Constant) for v in values):
                hit = n.left.value in [v.value for v in values]
                return ast.Constant(value=hit if isinstance(n.ops[0], (ast.Eq, ast.In))
                                    else not hit)
        # literal numbers compared (``start < 0``, ``axisa == -1`` of literal axes)
        if len(n.ops) == 1 and type(n.ops[0]) in _ORDER and _num(n.left) is not None \
                and _num(n.comparators[0]) is not None:
            return ast.Constant(value=_ORDER[type(n.ops[0])](_num(n.left), _num(n.comparators[0])))
        return n

    def visit_BoolOp(self, n):
        # ``2 or x`` is 2, ``0 or x`` is x (a literal option or exponent in a test)
        self.generic_visit(n)
        values = list(n.values)
        while len(values) > 1 and isinstance(values[0], ast.Constant):
            if bool(values[0].value) == isinstance(n.op, ast.Or):
                return values[0]
            values.pop(0)
        if len(values) == 1:
            return values[0]
        n.values = values
        return n

    def visit_IfExp(self, n):
        self.generic_visit(n)
        if isinstance(n.test, ast.Constant):
            return n.body if n.test.value else n.orelse
        return n

    def visit_UnaryOp(self, n):
        self.generic_visit(n)
        v = _num(n.operand)
        if isinstance(n.op, ast.USub):
            if v is not None:
                return ast.Constant(value=-v)
            if isinstance(n.operand, ast.UnaryOp) and isinstance(n.operand.op, ast.USub):
                return n.operand.operand
        return n


# ------------------------------------------------------- derived transposes


def transpose(template: Template, inputs, options):
    """The reverse template transposed from the forward `template` of a rule with
    `inputs` and `options`, or the reason there is none (a message).

    A term ``c * x_dot`` (with ``c`` free of tangents; also ``x_dot / c``, ``-x_dot``,
    sums of such terms, and ``a if test else b`` of them or of zero) is the elementwise
    linear map "multiply by c", which is its own transpose: the reverse term is the
    same expression with ``out_bar`` for ``x_dot``, summed back to the input's shape
    with `unbroadcast` (what the function returns is not known: a function of a
    number may return an array, ``x * np.ones(3)``, whose adjoint sums to a number).
    A term of zero gives None (no contribution). Nothing else is guessed:
    ``x_dot @ y`` or ``np.sum(x_dot)`` is linear but not elementwise, and its
    transpose needs a reverse rule.
    """
    t = template
    tangents = {n + "_dot": n for n in inputs}
    inlined, assigns = {}, []
    for name, expr in t.assigns:  # lines that read a tangent become part of the term
        expr = subst(expr, inlined)
        if _names(expr) & tangents.keys():
            inlined[name] = expr
        else:
            assigns.append((name, expr))
    taken = set(inputs) | set(options) | {n for n, _ in assigns} | set(t.helpers)
    for clash in ("out_bar", "unbroadcast"):
        if clash in taken and not (clash == "unbroadcast" and t.helpers.get(clash) is unbroadcast):
            return f"its forward rule uses the name `{clash}`, which the derived rule needs"
    array = []
    for x, term in zip(inputs, t.terms):
        if term is None or _is_zero(term):
            array.append(None)
            continue
        term = subst(term, inlined)
        tangent = x + "_dot"
        others = sorted((_names(term) & tangents.keys()) - {tangent})
        if others:
            return (f"its term for `{x}` reads `{others[0]}`; each term may read only its own "
                    "input's tangent")
        if not _linear(term, tangent):
            return (f"its term for `{x}`, `{ast.unparse(term)}`, is not `{tangent}` scaled "
                    f"elementwise (`c * {tangent}`, `{tangent} / c`, sums of those)")
        g = subst(term, {tangent: ast.Name(id="out_bar", ctx=ast.Load())})
        array.append(ast.Call(func=ast.Name(id="unbroadcast", ctx=ast.Load()),
                              args=[g, ast.Name(id=x, ctx=ast.Load())], keywords=[]))
    return Template(list(assigns), array, dict(t.helpers, unbroadcast=unbroadcast))


def _is_zero(node) -> bool:
    return isinstance(node, ast.Constant) and type(node.value) in (int, float) and node.value == 0


def _linear(expr, t) -> bool:
    """Is `expr` provably ``c * t`` with ``c`` not reading `t`, elementwise (see
    `transpose`)?"""
    if isinstance(expr, ast.Name):
        return expr.id == t
    if isinstance(expr, ast.UnaryOp) and isinstance(expr.op, (ast.USub, ast.UAdd)):
        return _linear(expr.operand, t)
    if isinstance(expr, ast.BinOp):
        left, right = t in _names(expr.left), t in _names(expr.right)
        if isinstance(expr.op, ast.Mult):
            return left != right and _linear(expr.left if left else expr.right, t)
        if isinstance(expr.op, ast.Div):
            return left and not right and _linear(expr.left, t)
        if isinstance(expr.op, (ast.Add, ast.Sub)):
            return (left or right) and all(_linear(e, t) or _is_zero(e)
                                           for e in (expr.left, expr.right))
        return False
    if isinstance(expr, ast.IfExp):
        return t not in _names(expr.test) and all(_linear(e, t) or _is_zero(e)
                                                  for e in (expr.body, expr.orelse))
    return False


# ------------------------------------------------------------ variants for lists


def as_arrays(template: Template, params, convert) -> Template:
    """The template of a rule's variant for Python lists and tuples: `template` with
    each parameter in `convert` passed through ``np.asarray`` before the body reads
    it (arithmetic on a list needs an array; numbers and arrays need not pay for the
    call, so they keep the rule itself). A parameter read once is converted where it
    is read (``out_bar / np.asarray(x)``); one read more often is converted once, on a
    line of its own ahead of the body (``xa = np.asarray(x)``), in the order of
    `params`. The second argument of `unbroadcast` (the input an adjoint is summed
    back to, for its shape) keeps the parameter as it is."""
    unknown = [n for n in convert if n not in params]
    if unknown:
        raise S2SADError(f"a variant for lists converts `{unknown[0]}`, which is not a "
                         "parameter of the rule")
    if template.helpers.get("np", np) is not np:
        raise S2SADError("a variant for lists needs the name `np` for NumPy")
    reads = {}
    for expr in [e for _, e in template.assigns] + [e for e in template.terms if e is not None]:
        for name in _value_reads(expr):
            reads[name] = reads.get(name, 0) + 1
    taken = set(params) | {n for n, _ in template.assigns} | set(template.helpers)
    lines, mapping = [], {}
    for name in params:
        if name not in convert:
            continue
        converted = ast.Call(
            func=ast.Attribute(value=ast.Name(id="np", ctx=ast.Load()), attr="asarray",
                               ctx=ast.Load()),
            args=[ast.Name(id=name, ctx=ast.Load())], keywords=[])
        if reads.get(name, 0) > 1:
            line = name + "a"
            if line in taken:
                raise S2SADError(f"a variant for lists needs the name `{line}` for "
                                 f"np.asarray({name})")
            lines.append((line, converted))
            mapping[name] = ast.Name(id=line, ctx=ast.Load())
        else:
            mapping[name] = converted
    to_arrays = _ToArrays(mapping)
    assigns = lines + [(n, to_arrays.visit(copy_expr(e))) for n, e in template.assigns]
    terms = [None if e is None else to_arrays.visit(copy_expr(e)) for e in template.terms]
    return Template(assigns, terms, dict(template.helpers, np=np))


def _is_unbroadcast(node) -> bool:
    return isinstance(node, ast.Call) and isinstance(node.func, ast.Name) \
        and node.func.id == "unbroadcast" and len(node.args) == 2 and not node.keywords


def _value_reads(expr):
    """The names `expr` reads, once per reading, but for the shape argument of
    `unbroadcast`."""
    if _is_unbroadcast(expr):
        yield from _value_reads(expr.args[0])
        return
    if isinstance(expr, ast.Name):
        yield expr.id
    for child in ast.iter_child_nodes(expr):
        yield from _value_reads(child)


class _ToArrays(ast.NodeTransformer):
    """`as_arrays`' substitution, in place on a copy."""

    def __init__(self, mapping):
        self.mapping = mapping

    def visit_Name(self, node):
        return copy_expr(self.mapping[node.id]) if node.id in self.mapping else node

    def visit_Call(self, node):
        if _is_unbroadcast(node):
            node.args[0] = self.visit(node.args[0])
            return node
        return self.generic_visit(node)


# ------------------------------------------------------------------ as functions


def rule_function(base, mode: str, inputs, options: dict, template: Template, name: str,
                  what: str):
    """`template` as a real function named `name` (the engines and tests call rules),
    with the parameters of a `mode` rule with `inputs` and `options`, in `base`'s
    module beside it. Its source goes into `linecache` under ``<s2sad: what>``, so
    tracebacks and `inspect` show it."""
    params = list(inputs)
    if options:
        params += ["*"] + list(options)
    params += ["out"] + (["out_bar"] if mode == "reverse" else [n + "_dot" for n in inputs])
    lines = [f"    {n} = {ast.unparse(e)}" for n, e in template.assigns]
    terms = ["None" if e is None else ast.unparse(e) for e in template.terms]
    lines.append(f"    return {', '.join(terms)}")
    qualname = getattr(base, "__qualname__", "rule")
    source = f"def {name}({', '.join(params)}):\n" + "\n".join(lines) + "\n"
    filename = f"<s2sad: {what}>"
    linecache.cache[filename] = (len(source), None, source.splitlines(True), filename)
    namespace = dict(template.helpers)
    exec(compile(source, filename, "exec"), namespace)
    func = namespace[name]
    func.__kwdefaults__ = dict(options) or None
    func.__module__ = base.__module__
    func.__qualname__ = qualname.rsplit(".", 1)[0] + "." + name if "." in qualname else name
    return func
