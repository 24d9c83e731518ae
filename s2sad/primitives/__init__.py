"""Derivative rules: the registry and the template machinery that inlines them.

A rule is a plain ``def`` in a table module (`reverse`, `forward`), or one a user
registers with `register_rule`. Its parameters are placeholders: the primitive's
inputs in call order, then ``out`` (the primitive's result), then either ``out_bar``
(reverse: the adjoint of the result) or one ``<input>_dot`` per input (forward: the
inputs' tangents). Keyword-only parameters with defaults before ``out`` are options
(``axis=None, keepdims=False``): static arguments of the call, given by keyword or
by position after the inputs (only the first `Rule.positional` of them, when set).
A rule may refuse some literal options (`Rule.static`, given their values: ``ord=1``
of ``np.linalg.norm``); a call it refuses does not fit it, so an active one is a
`NoRuleError` when the function is transformed, not an error when it runs.
Its body is a few ``name = expression`` lines and a ``return`` of one term per input,
``None`` where the input is not differentiable:

* reverse: term i is the contribution to input i's adjoint;
* forward: term i is input i's contribution to the tangent of ``out`` (the compiler
  sums the terms of the active inputs).

A user who registers only a forward rule still gets reverse mode when every term is
linear and elementwise in its input's tangent (``x_dot / (1.0 + abs(x))``, ``-x_dot``,
sums and conditional expressions of those): `derive_reverse` transposes the template
(``x_dot`` becomes ``out_bar``, wrapped in ``unbroadcast(..., x)`` for arrays). Anything
else keeps the reason on the forward rule (`Rule.note`) for reverse mode's error.
`stop_gradient` and callables declared with `nondifferentiable` are constants to the
compiler and the engines (`NONDIFFERENTIABLE`).

Rules for SciPy's special functions (`scipy_special`) are loaded the first time a
rule is looked up after ``scipy.special`` has been imported; SciPy is never imported
here.

A primitive may have several rules for different kinds of inputs (`Rule.when`):
``"array"`` when some input is a NumPy array (``x * y`` on arrays needs `unbroadcast`),
``"list"`` when some input is a Python list or tuple (``np.square(xs)``: arithmetic
on it needs ``np.asarray`` first, which numbers and arrays should not pay for),
or one pattern per input (``("2d", "1d")`` for a matrix times a vector; ``"nd"`` for
an array of another or unknown rank, such as a stack of matrices; ``"int"`` for an
integer, ``x ** k``, whose ``k`` is never differentiated). The most
specific rule that matches wins (a pattern, then "list", then "array"); a rule
without `when` is the fallback. Kinds with no matching rule have no derivative: a
`NoRuleError` when the call is active.

Because rules are real functions, tests call them directly (central differences, the
dot-product test). The compiler reads their source once, and `Rule.instantiate`
substitutes the statement's atoms for the placeholders, folds constants, and returns
only the terms activity asks for, so the emitted code reads like the table.

This package knows the runtime (rule bodies may call it), not the transforms.
"""

from __future__ import annotations

import ast
import builtins
import importlib
import inspect
import linecache
import math
import operator
import sys
import textwrap
import types
from dataclasses import dataclass, field

from ..errors import S2SADError

REVERSE: dict = {}
FORWARD: dict = {}
NONDIFFERENTIABLE: set = set()  # callables whose result is constant to the compiler
# constant only while the arguments are: np.full(n, x), np.sort(v) move with x and v,
# so an active argument is an error (no rule yet), never a silently constant result
MOVES_WITH_ARGUMENTS: set = set()
REDUCTIONS: set = set()  # callables outside NumPy that reduce like np.sum (axis=, keepdims=)
ON_CHANGE: list = []  # called after a user registers a rule (caches drop what they hold)
# rule modules for optional libraries: loaded once the library is imported (`_load_optional`)
_OPTIONAL = {"scipy.special": "scipy_special"}

OPERATORS = {
    ast.Add: "add", ast.Sub: "sub", ast.Mult: "mul", ast.Div: "truediv",
    ast.FloorDiv: "floordiv", ast.Mod: "mod", ast.Pow: "pow", ast.MatMult: "matmul",
    ast.USub: "neg", ast.UAdd: "pos",
}


def key_name(key) -> str:
    """How error messages and comments name a rule key."""
    if isinstance(key, str):
        return key
    module = getattr(key, "__module__", None) or ""
    qual = getattr(key, "__qualname__", None) or getattr(key, "__name__", repr(key))
    if module in ("builtins", ""):
        return qual
    return f"{module}.{qual}"


@dataclass(eq=False)
class Template:
    assigns: list  # (name, expr) pairs, in order
    terms: list  # one expr or None per input
    helpers: dict  # global names the body reads -> their objects
    reads: dict = field(default_factory=dict, repr=False)  # id(expr) -> names it reads

    def names(self, expr) -> set:
        """The names one of the template's own expressions reads (asked on every
        instantiation, and the template never changes)."""
        got = self.reads.get(id(expr))
        if got is None:
            got = self.reads[id(expr)] = frozenset(_names(expr))
        return got


@dataclass(eq=False)
class Rule:
    key: object
    mode: str  # "reverse" or "forward"
    func: types.FunctionType
    inputs: tuple
    options: dict = field(default_factory=dict)  # name -> default value
    when: object = None  # None, "array", or a pattern per input
    _template: Template | None = field(default=None, repr=False)
    positional: int | None = None  # how many options a call may give by position (None: all)
    derived: bool = False  # a reverse rule transposed from the user's forward rule
    note: str = ""  # a forward rule's: why no reverse rule could be derived from it
    # options -> None, or why the rule refuses them (see `Rule.refusal`)
    static: object = field(default=None, repr=False)

    def matches(self, kinds) -> bool:
        if self.when is None:
            return True
        if kinds is None:
            return False
        if self.when == "array":
            return any(kind_class(k) in ("1d", "2d", "array") for k in kinds)
        if self.when == "list":
            return any(kind_class(k) == "list" or isinstance(k, tuple) for k in kinds)
        # (the engines pass values for kinds: a number or an array is no kind name)
        return len(kinds) >= len(self.when) and all(
            _pattern_ok(p, kind_class(k)) if p not in ("scalar", "int")
            else isinstance(k, str) and (k == "int" or p == "scalar" and k == "scalar")
            for p, k in zip(self.when, kinds))

    def bind(self, args, keywords):
        """Inputs (atoms in rule order) and options (name -> atom) of a call, or None
        when the call does not fit this rule (or the rule refuses its options)."""
        bound = self._bind(args, keywords)
        if bound is None or self.static is not None and self._refuses(bound[1]):
            return None
        return bound

    def _bind(self, args, keywords):
        n = len(self.inputs)
        if len(args) < n:
            named = {k.arg: k.value for k in keywords}
            missing = self.inputs[len(args):]
            if not all(m in named for m in missing):
                return None
            args = list(args) + [named.pop(m) for m in missing]
            keywords = [k for k in keywords if k.arg in named]
        inputs, extra = list(args[:n]), list(args[n:])
        names = list(self.options)[:self.positional]
        if len(extra) > len(names):
            return None
        options = dict(zip(names, extra))
        for k in keywords:
            if k.arg not in self.options or k.arg in options:
                return None
            options[k.arg] = k.value
        return inputs, options

    def _refuses(self, options):
        values = dict(self.options)
        values.update({name: literal(atom) for name, atom in options.items()})
        return self.static(**values)

    def refusal(self, args, keywords) -> str | None:
        """Why this rule refuses the literal options of a call (``ord=1`` of a norm
        whose derivative it does not give), or None. `Rule.static` decides, from the
        options' values where they are literals (`NOT_LITERAL` where they are not:
        the runtime checks those); `bind` does not fit a refused call, so an active
        one is a `NoRuleError` at transform time."""
        bound = None if self.static is None else self._bind(args, keywords)
        return None if bound is None else self._refuses(bound[1])

    @property
    def arity(self) -> int:
        return len(self.inputs)

    @property
    def template(self) -> Template:
        if self._template is None:
            self._template = _read_template(self)
        return self._template

    @property
    def differentiable(self) -> tuple:
        """Per input: does the rule give it a derivative (a term that is not None)?"""
        return tuple(t is not None for t in self.template.terms)

    def instantiate(self, inputs, out, seeds, wanted, fresh, options=None):
        """Inline the rule.

        `inputs` are the statement's atoms, `out` the result's atom, `seeds` the
        expressions for ``out_bar`` (one) or the input tangents (one per input, None
        for inactive inputs), `wanted` the input positions whose terms are needed,
        `fresh()` a source of new temporary names. Returns ``(assigns, terms)``: the
        template's own lines that the wanted terms need, and the wanted terms (a dict
        position -> expression).
        """
        t = self.template
        mapping = {n: ast.Constant(v) for n, v in t.helpers.items() if _is_number(v)}
        for name, default in self.options.items():
            mapping[name] = ast.Constant(default)
        mapping.update(options or {})
        mapping.update(zip(self.inputs, inputs))
        mapping["out"] = out
        if self.mode == "reverse":
            mapping["out_bar"] = seeds[0]
        else:
            for name, seed in zip(self.inputs, seeds):
                mapping[name + "_dot"] = seed if seed is not None else ast.Constant(0.0)
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
            out_assigns.append((new, _fold_owned(_subst(expr, mapping))))
            mapping[name] = ast.Name(id=new, ctx=ast.Load())
        out_terms = {i: _fold_owned(_subst(e, mapping)) for i, e in terms.items()}
        return out_assigns, out_terms


def _copy_tree(node):
    """A deep copy of an expression tree (faster than copy.deepcopy)."""
    if isinstance(node, list):
        return [_copy_tree(x) for x in node]
    if not isinstance(node, ast.AST) or isinstance(node, (ast.expr_context, ast.operator,
                                                           ast.unaryop, ast.cmpop)):
        return node
    new = node.__class__.__new__(node.__class__)
    new.__dict__ = {k: _copy_tree(v) for k, v in node.__dict__.items()}
    return new


def _is_number(v) -> bool:
    return type(v) in (int, float)


def _names(expr) -> set:
    return {n.id for n in ast.walk(expr) if isinstance(n, ast.Name)}


def _subst(expr, mapping):
    """A copy of `expr` with each Name whose id is in `mapping` replaced by a copy of
    the mapped expression; copying and replacing in one pass over the tree."""
    t = type(expr)
    if t is list:
        return [_subst(x, mapping) for x in expr]
    if not isinstance(expr, ast.AST) or isinstance(expr, (ast.expr_context, ast.operator,
                                                          ast.unaryop, ast.cmpop)):
        return expr
    if t is ast.Name and expr.id in mapping:
        return _copy_tree(mapping[expr.id])
    fields = expr._fields
    new = t.__new__(t)
    new.__dict__ = {k: _subst(v, mapping) if k in fields else _copy_tree(v)
                    for k, v in expr.__dict__.items()}
    return new


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


def norm_orders(matrix: bool):
    """The `Rule.static` check of ``np.linalg.norm``'s rules: their derivative is the
    2-norm's (``ord=None``, ``2``) and the Frobenius norm's, so any other literal `ord`
    is refused, and ``ord=2`` too where it may be the spectral norm (`matrix`: the
    rule for arrays not known to be vectors, reduced over all their axes or over two).
    (A refused call falls through to the next variant, so the rule for vectors is the
    one that accepts and the fallback the one that refuses: an array of unknown rank
    needs ``ord=None`` for its 2-norm.) What is not a literal the runtime checks
    (`runtime.check_norm`)."""

    def refusal(ord=None, axis=None, keepdims=False):
        if ord is NOT_LITERAL or ord is None or ord == "fro":
            return None
        both = matrix and axis is None or isinstance(axis, tuple) and len(axis) == 2
        if type(ord) in (int, float) and ord == 2 and not both:
            return None
        return (f"with ord={ord!r}{' of a matrix' if ord == 2 else ''} (s2sad differentiates "
                "the 2-norm of vectors, ord=None or 2, and the Frobenius norm, 'fro')")

    return refusal


def kind_class(kind) -> str:
    """How rule patterns see a kind: "1d", "2d", "array" (other or unknown rank),
    "list", or "scalar" (anything else)."""
    ndim = getattr(kind, "ndim", "no")
    if ndim == "no":
        return "list" if type(kind).__name__ == "ListKind" else "scalar"
    return {1: "1d", 2: "2d"}.get(ndim, "array")


def _pattern_ok(pattern, cls) -> bool:
    """Does a kind of class `cls` fit `pattern`: a class, "any", "array" (any array) or
    "nd" (an array of another or unknown rank: a stack of matrices)? (The pattern
    "scalar" takes a number only, a float or an int, and "int" an int only:
    `Rule.matches` decides them on the kind, since a value of unknown kind or a tuple
    is of class "scalar" too.)"""
    return pattern == "any" or pattern == cls or (pattern == "array" and cls in ("1d", "2d")) \
        or (pattern == "nd" and cls == "array")


def _read_template(rule: Rule) -> Template:
    try:
        source = textwrap.dedent(inspect.getsource(rule.func))
    except (OSError, TypeError):
        raise S2SADError(f"cannot read the source of the {rule.mode} rule for "
                         f"{key_name(rule.key)}") from None
    tree = ast.parse(source).body[0]
    body = [s for s in tree.body
            if not (isinstance(s, ast.Expr) and isinstance(s.value, ast.Constant))]
    assigns = []
    for s in body[:-1]:
        if not (isinstance(s, ast.Assign) and len(s.targets) == 1
                and isinstance(s.targets[0], ast.Name)):
            raise S2SADError(f"the {rule.mode} rule for {key_name(rule.key)} must be "
                             "`name = expression` lines followed by one `return`")
        assigns.append((s.targets[0].id, s.value))
    last = body[-1] if body else None
    if not isinstance(last, ast.Return) or last.value is None:
        raise S2SADError(f"the {rule.mode} rule for {key_name(rule.key)} must end with "
                         "`return` of one term per input")
    value = last.value
    if rule.arity == 1 and isinstance(value, ast.Tuple):
        raise S2SADError(f"the {rule.mode} rule for {key_name(rule.key)} has one input, so it "
                         "returns one term, not a tuple")
    elts = value.elts if isinstance(value, ast.Tuple) and rule.arity > 1 else [value]
    if len(elts) != rule.arity:
        raise S2SADError(f"the {rule.mode} rule for {key_name(rule.key)} returns {len(elts)} "
                         f"terms for {rule.arity} inputs")
    terms = [None if isinstance(e, ast.Constant) and e.value is None else e for e in elts]
    params = set(inspect.signature(rule.func).parameters)  # inputs, options, out, seeds
    local = {name for name, _ in assigns}
    helpers = {}
    scope = rule.func.__globals__
    closure = dict(zip(rule.func.__code__.co_freevars, rule.func.__closure__ or ()))
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
                raise S2SADError(f"the {rule.mode} rule for {key_name(rule.key)} reads `{n}`, "
                                 "which is not defined where the rule is")
    return Template(assigns, terms, helpers)


def helper_objects(template: Template) -> dict:
    """The helpers emitted code must be able to name (numbers are inlined)."""
    return {n: v for n, v in template.helpers.items() if not _is_number(v)}


def _split_params(func, mode):
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


def add_rule(table: dict, mode: str, key, func, when=None, static=None) -> Rule:
    inputs, options = _split_params(func, mode)
    rule = Rule(key, mode, func, inputs, options, when)
    rule.static = static
    return _insert(table, rule)


def _insert(table: dict, rule: Rule) -> Rule:
    """Add `rule`, replacing the rule for the same key, arity and kinds."""
    existing = table.setdefault(rule.key, [])
    existing[:] = [r for r in existing if (r.arity, r.when) != (rule.arity, rule.when)]
    existing.append(rule)
    return rule


def lookup(key, nargs: int | None = None, mode: str = "reverse", kinds=None) -> Rule | None:
    """The rule for `key` with `nargs` inputs (any number when None) that matches the
    input `kinds` best: a pattern per input, then "list", then "array", then the
    fallback."""
    for rule in candidates(key, mode):
        if (nargs is None or rule.arity == nargs) and rule.matches(kinds):
            return rule
    return None


def candidates(key, mode="reverse") -> list:
    """Every rule for `key`, most specific first."""
    if _OPTIONAL:
        _load_optional()
    table = REVERSE if mode == "reverse" else FORWARD
    try:
        rules = table.get(key) or []
    except TypeError:  # unhashable callable
        return []
    order = {None: 3, "array": 2, "list": 1}
    return sorted(rules, key=lambda r: order.get(r.when, 0) if isinstance(r.when, (str, type(None)))
                  else 0)


def arities(key, mode="reverse") -> list:
    """The numbers of inputs `key`'s rules take, each once."""
    if _OPTIONAL:
        _load_optional()
    table = REVERSE if mode == "reverse" else FORWARD
    try:
        return sorted({r.arity for r in table.get(key, ())})
    except TypeError:
        return []


def has_rule(key) -> bool:
    if _OPTIONAL:
        _load_optional()
    try:
        return key in REVERSE or key in FORWARD or key in NONDIFFERENTIABLE
    except TypeError:
        return False


# ------------------------------------------------------------------ folding

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
    return _fold_owned(_copy_tree(expr))


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


# --------------------------------------------------------------- public API


def register_rule(func, *, reverse=None, forward=None, nondifferentiable=False):
    """Register derivative rules for a callable the compiler should not look into.

    `reverse` and `forward` are plain functions in the template form described in the
    module docstring; give one or both. With only `forward`, the reverse rule is
    derived when the forward one is linear and elementwise in each tangent (see
    `derive_reverse`); otherwise reverse mode says which rule to add. With
    ``nondifferentiable=True`` the callable's result is treated as a constant (no rule
    needed). The latest registration for a callable wins. Returns `func`, so this
    works as a decorator's body too.
    """
    if nondifferentiable:
        NONDIFFERENTIABLE.add(func)
        _changed()
        return func
    if reverse is None and forward is None:
        raise S2SADError("register_rule needs reverse=..., forward=... or nondifferentiable=True")
    checked = []
    if reverse is not None:
        checked.append((REVERSE, Rule(func, "reverse", reverse, *_split_params(reverse, "reverse"))))
    if forward is not None:
        checked.append((FORWARD, Rule(func, "forward", forward, *_split_params(forward, "forward"))))
    for _, rule in checked:
        rule.template  # read now: a malformed rule fails before anything is registered
    derived = []
    if reverse is None:
        fwd = checked[0][1]
        mine = [r for r in REVERSE.get(func, ()) if r.arity == fwd.arity and not r.derived]
        if not mine:  # (a reverse rule the user registered stays)
            derived = derive_reverse(fwd)
            if isinstance(derived, str):
                fwd.note, derived = derived, []
    try:
        NONDIFFERENTIABLE.discard(func)
    except TypeError:  # an unhashable callable cannot be registered below either
        pass
    for table, rule in checked:
        _drop_derived(func, rule.arity)
        _insert(table, rule)
    for rule in derived:
        _insert(REVERSE, rule)
    _changed()
    return func


def nondifferentiable(func):
    """Declare `func` non-differentiable: its result is a constant to the compiler and
    the engines (``@s2sad.nondifferentiable`` on a def works too). Returns `func`."""
    return register_rule(func, nondifferentiable=True)


def stop_gradient(x):
    """`x` itself; the compiler and the engines treat the result as a constant, so no
    derivative flows through it (as ``jax.lax.stop_gradient``)."""
    stop = getattr(type(x), "__stop_gradient__", None)
    if stop is not None:  # a value one of s2sad's engines traces: its plain value
        return stop(x)
    if isinstance(x, (list, tuple)) and any(
            getattr(type(v), "__stop_gradient__", None) for v in x):
        return type(x)(stop_gradient(v) for v in x)
    return x


def _drop_derived(func, arity):
    rules = REVERSE.get(func)
    if rules:
        rules[:] = [r for r in rules if not (r.derived and r.arity == arity)]


# ------------------------------------------------------- derived transposes


def derive_reverse(rule: Rule):
    """Reverse rules transposed from the forward rule `rule`, or the reason there are
    none (a message).

    A term ``c * x_dot`` (with ``c`` free of tangents; also ``x_dot / c``, ``-x_dot``,
    sums of such terms, and ``a if test else b`` of them or of zero) is the elementwise
    linear map "multiply by c", which is its own transpose: the reverse term is the
    same expression with ``out_bar`` for ``x_dot``. Two rules come back: one for
    numbers, and one for arrays that sums the term back to the input's shape with
    `unbroadcast` (as the built-in array rules do). A term of zero gives None (no
    contribution). Nothing else is guessed: ``x_dot @ y`` or ``np.sum(x_dot)`` is
    linear but not elementwise, and its transpose needs a reverse rule.
    """
    from ..runtime import unbroadcast

    t = rule.template
    tangents = {n + "_dot": n for n in rule.inputs}
    inlined, assigns = {}, []
    for name, expr in t.assigns:  # lines that read a tangent become part of the term
        expr = _subst(expr, inlined)
        if _names(expr) & tangents.keys():
            inlined[name] = expr
        else:
            assigns.append((name, expr))
    name = key_name(rule.key)
    taken = set(rule.inputs) | set(rule.options) | {n for n, _ in assigns} | set(t.helpers)
    for clash in ("out_bar", "unbroadcast"):
        if clash in taken and not (clash == "unbroadcast" and t.helpers.get(clash) is unbroadcast):
            return f"its forward rule uses the name `{clash}`, which the derived rule needs"
    scalar, array = [], []
    for x, term in zip(rule.inputs, t.terms):
        if term is None or _is_zero(term):
            scalar.append(None)
            array.append(None)
            continue
        term = _subst(term, inlined)
        tangent = x + "_dot"
        others = sorted((_names(term) & tangents.keys()) - {tangent})
        if others:
            return (f"its term for `{x}` reads `{others[0]}`; each term may read only its own "
                    "input's tangent")
        if not _linear(term, tangent):
            return (f"its term for `{x}`, `{ast.unparse(term)}`, is not `{tangent}` scaled "
                    f"elementwise (`c * {tangent}`, `{tangent} / c`, sums of those)")
        g = _subst(term, {tangent: ast.Name(id="out_bar", ctx=ast.Load())})
        scalar.append(g)
        array.append(ast.Call(func=ast.Name(id="unbroadcast", ctx=ast.Load()),
                              args=[g, ast.Name(id=x, ctx=ast.Load())], keywords=[]))
    helpers = dict(t.helpers)
    out = []
    for when, terms in ((None, scalar), ("array", array)):
        used = dict(helpers, unbroadcast=unbroadcast) if when == "array" else helpers
        template = Template(list(assigns), terms, used)
        func = _derived_function(rule, template, when)
        out.append(Rule(rule.key, "reverse", func, rule.inputs, dict(rule.options), when,
                        template, rule.positional, derived=True))
    return out


def _is_zero(node) -> bool:
    return isinstance(node, ast.Constant) and type(node.value) in (int, float) and node.value == 0


def _linear(expr, t) -> bool:
    """Is `expr` provably ``c * t`` with ``c`` not reading `t`, elementwise (see
    `derive_reverse`)?"""
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


def _derived_function(rule: Rule, template: Template, when):
    """The derived rule as a real function (the engines and tests call rules), with
    its source in `linecache` so tracebacks and `inspect` show it."""
    params = list(rule.inputs)
    if rule.options:
        params += ["*"] + list(rule.options) + ["out", "out_bar"]
    else:
        params += ["out", "out_bar"]
    lines = [f"    {n} = {ast.unparse(e)}" for n, e in template.assigns]
    terms = ["None" if e is None else ast.unparse(e) for e in template.terms]
    lines.append(f"    return {', '.join(terms)}")
    qualname = getattr(rule.func, "__qualname__", "rule")
    name = f"{rule.func.__name__}_transposed" + ("_array" if when else "")
    source = f"def {name}({', '.join(params)}):\n" + "\n".join(lines) + "\n"
    filename = f"<s2sad: reverse rule transposed from {qualname}{' for arrays' if when else ''}>"
    linecache.cache[filename] = (len(source), None, source.splitlines(True), filename)
    namespace = dict(template.helpers)
    exec(compile(source, filename, "exec"), namespace)
    func = namespace[name]
    func.__kwdefaults__ = dict(rule.options) or None
    func.__module__ = rule.func.__module__
    func.__qualname__ = qualname.rsplit(".", 1)[0] + "." + name if "." in qualname else name
    return func


def _changed():
    for callback in ON_CHANGE:
        callback()


def _load_optional():
    """Load the rules of optional libraries the process has imported by now."""
    for module, ours in list(_OPTIONAL.items()):
        if module in sys.modules:
            del _OPTIONAL[module]
            try:
                importlib.import_module(f"{__name__}.{ours}")
            except (ImportError, AttributeError):  # a version without what the rules read:
                pass  # its functions have no rules, and say so when differentiated


def _load_tables():
    from . import forward, helpers, reverse  # noqa: F401  (their decorators fill the tables)

    NONDIFFERENTIABLE.update({len, range, print, isinstance, type, callable})
    from .. import runtime

    NONDIFFERENTIABLE.update({runtime.check_norm, runtime.scalar_seed, stop_gradient})
    import numpy as np

    MOVES_WITH_ARGUMENTS.update({np.full, np.full_like, np.linspace, np.arange, np.sort})
    NONDIFFERENTIABLE.update(MOVES_WITH_ARGUMENTS)
    NONDIFFERENTIABLE.update({
        np.zeros, np.ones, np.empty, np.zeros_like, np.ones_like, np.empty_like,
        np.eye, np.identity, np.shape, np.ndim,
        np.size, np.argmax, np.argmin, np.argsort, np.isnan, np.isinf, np.isfinite,
        np.floor, np.ceil, np.round, np.rint, np.trunc, np.equal, np.not_equal, np.less,
        np.less_equal, np.greater, np.greater_equal, np.logical_and, np.logical_or,
        np.logical_not, np.any, np.all, np.count_nonzero, np.nonzero, np.argwhere})


_load_tables()
