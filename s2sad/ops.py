"""What one ANF assignment computes, as the analyses and transforms see it.

`classify(value, fn)` names the operation an ANF right-hand side performs and lists
its inputs in the order its rule expects:

    copy     ``v = x`` (a local name)
    const    a literal or a static reference
    rule     an operator or a call with a derivative rule (`rule` holds the reverse one)
    call     a call of a Python function the compiler differentiates itself
    pack     ``v = (a, b, ...)``
    getitem  ``v = t[i]`` (a tuple and a constant index, or a list and any index)
    listpack ``v = [a, b, ...]``
    append   ``xs.append(v)`` (an `ir.Expr`)
    sum      ``v = sum(xs)``
    nondiff  a call or operator whose result is constant (comparisons, ``not``,
             functions registered as non-differentiable)
    unknown  a call with no rule and no Python source (an error if it is active)

`kind_of(value)` sorts runtime values into the kinds activity works with: "scalar"
(a real float), "int" (ints and bools), "array", "other", or a tuple of kinds.
"""

from __future__ import annotations

import ast
import types
from dataclasses import dataclass, field

from . import ir, rules


@dataclass
class Op:
    kind: str
    inputs: list = field(default_factory=list)  # atoms, in rule order
    key: object = None  # rule key, or the called function
    rule: object = None  # the reverse Rule, for kind == "rule"
    diff: tuple = ()  # per input: may a derivative flow through it?
    keywords: dict = field(default_factory=dict)  # for kind == "call"
    text: str = ""  # how the user wrote the operation, for messages

    @property
    def name(self) -> str:
        return self.text or rules.key_name(self.key)


def classify(value: ast.expr, fn: ir.Function, is_local) -> Op:
    if isinstance(value, ast.Name):
        if is_local(value.id):
            return Op("copy", [value], diff=(True,))
        return Op("const")
    if isinstance(value, (ast.Constant, ast.Attribute)) and not _local_attr(value, is_local):
        return Op("const")
    if isinstance(value, ast.BinOp):
        key = rules.OPERATORS.get(type(value.op))
        return _with_rule(key, [value.left, value.right], _op_text(value))
    if isinstance(value, ast.UnaryOp):
        if isinstance(value.op, ast.Not):
            return Op("nondiff", [value.operand], diff=(False,))
        key = rules.OPERATORS.get(type(value.op))
        return _with_rule(key, [value.operand], _op_text(value))
    if isinstance(value, ast.Compare):
        inputs = [value.left, *value.comparators]
        return Op("nondiff", inputs, diff=(False,) * len(inputs))
    if isinstance(value, ast.Tuple):
        return Op("pack", list(value.elts), diff=(True,) * len(value.elts))
    if isinstance(value, ast.List):
        return Op("listpack", list(value.elts), diff=(True,) * len(value.elts))
    if isinstance(value, ast.Subscript):
        return Op("getitem", [value.value, value.slice], diff=(True, False))
    if isinstance(value, ast.Call):
        func = value.func
        if isinstance(func, ast.Attribute) and _local_attr(func, is_local):
            if func.attr == "append" and len(value.args) == 1 and not value.keywords \
                    and isinstance(func.value, ast.Name):
                return Op("append", [func.value, value.args[0]], diff=(False, True),
                          text="list.append")
            return Op("unknown", [func.value], diff=(True,), text=f"the method .{func.attr}()")
        return _classify_call(value, fn)
    if isinstance(value, ast.Attribute):
        return Op("unknown", [value.value], diff=(True,), text=f".{value.attr}")
    return Op("unknown", text=type(value).__name__)


def _local_attr(node, is_local) -> bool:
    while isinstance(node, ast.Attribute):
        node = node.value
    return isinstance(node, ast.Name) and is_local(node.id)


def _op_text(node) -> str:
    from .emit import BINOP_SYMBOL

    if isinstance(node, ast.BinOp):
        return f"the `{BINOP_SYMBOL[type(node.op)]}` operator"
    return "unary minus" if isinstance(node.op, ast.USub) else "unary plus"


def _with_rule(key, inputs, text) -> Op:
    rule = rules.lookup(key, len(inputs)) if key else None
    if rule is None:
        return Op("unknown", inputs, key=key, diff=(True,) * len(inputs), text=text)
    return Op("rule", inputs, key=key, rule=rule, diff=rule.differentiable, text=text)


def _classify_call(value: ast.Call, fn: ir.Function) -> Op:
    text = ir.dotted(value.func)
    obj = fn.refs.get(text, _MISSING)
    args = list(value.args)
    if obj is _MISSING:
        return Op("unknown", args, diff=(True,) * len(args), text=f"`{text}`")
    try:
        nondiff = obj in rules.NONDIFFERENTIABLE
    except TypeError:
        nondiff = False
    if nondiff:
        inputs = args + [k.value for k in value.keywords]
        return Op("nondiff", inputs, key=obj, diff=(False,) * len(inputs), text=f"`{text}`")
    if obj is sum and len(args) == 1 and not value.keywords:
        return Op("sum", args, key=obj, diff=(True,), text="`sum`")
    arities = rules.arities(obj)
    if arities:
        rule = rules.lookup(obj, len(args) + len(value.keywords))
        if rule is not None:
            inputs = _bind_keywords(args, value.keywords, rule.inputs)
            if inputs is not None:
                return Op("rule", inputs, key=obj, rule=rule, diff=rule.differentiable,
                          text=f"`{text}`")
        return Op("unknown", args, key=obj, diff=(True,) * len(args),
                  text=f"`{text}` with {len(args) + len(value.keywords)} arguments "
                       f"(rules exist for {', '.join(map(str, arities))})")
    if isinstance(obj, types.FunctionType):
        keywords = {k.arg: k.value for k in value.keywords}
        inputs = args + list(keywords.values())
        return Op("call", inputs, key=obj, diff=(True,) * len(inputs), keywords=keywords,
                  text=f"`{text}`")
    inputs = args + [k.value for k in value.keywords]
    return Op("unknown", inputs, key=obj, diff=(True,) * len(inputs), text=f"`{text}`")


def _bind_keywords(args, keywords, names):
    if not keywords:
        return args
    bound = list(args) + [None] * (len(names) - len(args))
    for k in keywords:
        if k.arg not in names[len(args):]:
            return None
        bound[names.index(k.arg)] = k.value
    return None if any(b is None for b in bound) else bound


_MISSING = object()


# ------------------------------------------------------------------- kinds

SCALAR, INT, ARRAY, OTHER, UNKNOWN = "scalar", "int", "array", "other", "?"


@dataclass(frozen=True)
class ListKind:
    """A Python list whose elements have kind `elem`. A list is mutable: every name
    that refers to the same list object shares one adjoint (a list of adjoints)."""

    elem: object

    def __repr__(self):
        return f"list[{self.elem}]"


def kind_of(value):
    if isinstance(value, bool) or isinstance(value, int):
        return INT
    if isinstance(value, float):
        return SCALAR
    if isinstance(value, tuple):
        return tuple(kind_of(v) for v in value)
    if isinstance(value, list):
        elem = None
        for v in value:
            k = kind_of(v)
            elem = k if elem is None or elem == k else (
                SCALAR if {elem, k} <= {SCALAR, INT} else UNKNOWN)
        return ListKind(UNKNOWN if elem is None else elem)
    np = _numpy()
    if np is not None:
        if isinstance(value, np.ndarray):
            return ARRAY if value.dtype.kind in "fc" else OTHER
        if isinstance(value, np.integer) or isinstance(value, np.bool_):
            return INT
        if isinstance(value, np.floating):
            return SCALAR
    if isinstance(value, complex):
        return OTHER
    return OTHER


def kind_of_type(tp):
    """The kind of any value of type `tp` (None when it depends on the value)."""
    if tp is bool or tp is int:
        return INT
    if tp is float:
        return SCALAR
    np = _numpy()
    if np is not None:
        if issubclass(tp, np.floating):
            return SCALAR
        if issubclass(tp, (np.integer, np.bool_)):
            return INT
    if issubclass(tp, float):
        return SCALAR
    if issubclass(tp, int):
        return INT
    return None


def differentiable(kind) -> bool:
    if isinstance(kind, tuple):
        return any(differentiable(k) for k in kind)
    if isinstance(kind, ListKind):
        return differentiable(kind.elem)
    return kind in (SCALAR, ARRAY, UNKNOWN)


def _numpy():
    import sys

    return sys.modules.get("numpy")
