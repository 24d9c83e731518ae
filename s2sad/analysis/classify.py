"""classify: what one ANF assignment computes, as the analyses and transforms see it.

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
    pop      ``v = xs.pop()`` (a list's last element, removed)
    repeat   ``v = xs * n`` (a list repeated)
    concat   ``v = xs + ys`` (two lists joined into a new one)
    tuplecat ``v = t + u`` (two tuples of known lengths joined into a new one)
    add_at   ``np.add.at(a, index, v)`` (an `ir.Expr`: `v` added into `a` in place)
    add_into ``add_into(acc, parts)`` (an `ir.Expr`: s2sad's runtime helper adding
             each of `parts` into the list `acc`)
    sum      ``v = sum(xs)``
    nondiff  a call or operator whose result is constant (comparisons, ``not``,
             functions registered as non-differentiable)
    inactive an f-string, a dict or a set display: run as written, with no
             derivative through it (activity refuses it where its result is active,
             naming the value that carries a derivative into it)
    unknown  a call with no rule and no Python source (an error if it is active);
             its inputs are all its arguments, and for a method call the object too

`classify` takes the kinds of the inputs (`ir.kinds`) into account: ``x * y`` on
arrays has another rule than on floats, and a matrix product picks its rule by the
ranks of its operands.

Array methods and attributes (``x.sum(axis=0)``, ``x.dot(y)``, ``x.T``) are the NumPy
function of the same meaning, with the array as its first argument (`facts.METHODS`).

What each primitive does to kinds, shapes and objects is `primitives.facts`.
"""

from __future__ import annotations

import ast
import logging
import math
import os
import random
import sysconfig
import types
import warnings
from dataclasses import dataclass, field

import numpy as np

from .. import ir, primitives as rules, runtime
from ..ir.kinds import (INT, NONE, SCALAR, UNKNOWN, ArrayKind, ListKind, a_kind,
                        library_object, opaque)
from ..ir.operators import BINOP_SYMBOL
from ..primitives.facts import METHODS, AsType, dtype_kind
from ..primitives.registry import NONDIFF_METHODS

# every kind of operation `classify` returns (the module docstring says what each
# one is), in that order; a transform that dispatches on `Op.kind` keys its table by
# these names
KINDS = ("copy", "const", "rule", "call", "pack", "getitem", "listpack", "append", "pop",
         "repeat", "concat", "tuplecat", "add_at", "add_into", "sum", "nondiff", "inactive",
         "unknown")


@dataclass
class Op:
    kind: str
    inputs: list = field(default_factory=list)  # atoms, in rule order
    key: object = None  # rule key, or the called function
    rule: object = None  # the reverse Rule, for kind == "rule"
    diff: tuple = ()  # per input: may a derivative flow through it?
    keywords: dict = field(default_factory=dict)  # for kind == "call"
    text: str = ""  # how the user wrote the operation, for messages
    options: dict = field(default_factory=dict)  # a rule's static arguments (axis=...)
    # the result is a new array although `key`'s function may return a view of its
    # input (``x.flatten()`` is ravel's rule on a copy)
    copies: bool = False

    @property
    def name(self) -> str:
        return self.text or rules.key_name(self.key)


NONDIFF_ATTRIBUTES = {"shape", "ndim", "size", "dtype"}


def classify(value: ast.expr, fn: ir.Function, is_local, kind=None, memo=None) -> Op:
    """See the module docstring. `kind(atom)` gives the kind of an input atom. `memo`,
    a dict one analysis keeps, holds the rules found for a key and kinds of inputs
    (the rules do not change while it runs)."""
    kind = kind or (lambda atom: None)
    if type(value) is ast.BinOp:  # (the commonest first: none of the tests below is one)
        return _binop(value, kind, memo)
    if isinstance(value, ast.Name):
        if is_local(value.id):
            return Op("copy", [value], diff=(True,))
        return Op("const")
    if isinstance(value, (ast.Constant, ast.Attribute)) and not _local_attr(value, is_local):
        return Op("const")
    if isinstance(value, ast.BinOp):
        return _binop(value, kind, memo)
    if isinstance(value, ast.UnaryOp):
        if isinstance(value.op, (ast.Not, ast.Invert)):
            return Op("nondiff", [value.operand], diff=(False,))
        key = rules.OPERATORS.get(type(value.op))
        return _with_rule(key, [value.operand], _op_text(value), [kind(value.operand)], memo)
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
            if func.attr == "insert" and len(value.args) == 2 and not value.keywords \
                    and isinstance(func.value, ast.Name) \
                    and (isinstance(kind(func.value), (ListKind, type(None)))
                         or kind(func.value) == UNKNOWN):
                # an append at a place (`expand` made it 0 <= at <= len(xs)): the
                # derivative takes the adjoint from there (options["at"])
                return Op("append", [func.value, value.args[1]], diff=(False, True),
                          text="list.insert", options={"at": value.args[0]})
            if func.attr == "pop" and len(value.args) <= 1 and not value.keywords \
                    and isinstance(func.value, ast.Name) \
                    and (isinstance(kind(func.value), ListKind) or kind(func.value) == UNKNOWN):
                # (``xs.pop(at)``: `expand` made a place counted from the start, or
                # the adjoint of an insert; options["at"])
                return Op("pop", [func.value], diff=(True,), text="list.pop",
                          options={"at": value.args[0]} if value.args else {})
            if func.attr in NONDIFF_METHODS and isinstance(kind(func.value), ArrayKind):
                inputs = [func.value] + list(value.args) + [k.value for k in value.keywords]
                return Op("nondiff", inputs, key=getattr(np, func.attr),
                          diff=(False,) * len(inputs), text=f"the method .{func.attr}()")
            method = METHODS.get(func.attr)
            if func.attr == "copy" and not value.args and not value.keywords \
                    and isinstance(func.value, ast.Name) and kind(func.value) == SCALAR:
                return Op("copy", [func.value], diff=(True,))  # a number's copy: itself
            if func.attr == "copy" and not value.args and not value.keywords \
                    and isinstance(func.value, ast.Name) and isinstance(kind(func.value),
                                                                        ListKind):
                # a list's copy: its slice ``xs[:]``, as ``list(xs)`` is
                return Op("getitem", [func.value, ast.Slice()], diff=(True, False),
                          text="the method .copy()")
            if func.attr == "copy" and not isinstance(kind(func.value), ArrayKind):
                method = None  # a list's copy is not an array
            if func.attr == "astype" and isinstance(func.value, ast.Name) \
                    and isinstance(kind(func.value), ArrayKind):
                op = _astype(value, fn, kind)
                if op is not None:
                    return op
            if method is not None and isinstance(func.value, ast.Name):
                return _method_call(method, value, kind)
            inputs = [func.value] + list(value.args) + [k.value for k in value.keywords]
            return Op("unknown", inputs, diff=(True,) * len(inputs),
                      text=f"the method .{func.attr}()")
        return _classify_call(value, fn, kind, memo)
    if isinstance(value, ast.Attribute):
        if value.attr == "T":
            return _rule_call(np.transpose, [value.value], [], kind, "the attribute .T")
        if value.attr in NONDIFF_ATTRIBUTES:
            return Op("nondiff", [value.value], diff=(False,), text=f".{value.attr}")
        return Op("unknown", [value.value], diff=(True,), text=f"the attribute .{value.attr}")
    if isinstance(value, (ast.JoinedStr, ast.Dict, ast.Set)):
        inputs = inactive_inputs(value)
        return Op("inactive", inputs, diff=(True,) * len(inputs), text=_INACTIVE[type(value)])
    return Op("unknown", text=type(value).__name__)


def _binop(value: ast.BinOp, kind, memo) -> Op:
    """`classify` of an operator on two atoms (the kind of each asked once)."""
    left, right = kind(value.left), kind(value.right)
    if isinstance(value.op, _BITWISE):
        if all(k in (INT, SCALAR) or isinstance(k, ArrayKind) for k in (left, right)):
            return Op("nondiff", [value.left, value.right], diff=(False, False))
        # (a dict's or a set's union, an object's own operator: the values it holds
        # are not constants; refused where a derivative goes through it)
        return Op("unknown", [value.left, value.right], diff=(True, True),
                  text=_BINOP_TEXT[type(value.op)])
    if opaque(left) or opaque(right):
        # (an object's own operator, a string's or a dict's: no rule for numbers or
        # arrays is its derivative; refused where a derivative goes through it)
        other = a_kind(left if opaque(left) else right)
        return Op("unknown", [value.left, value.right], diff=(True, True),
                  text=f"{_BINOP_TEXT[type(value.op)]} on {other}")
    if not isinstance(left, (ListKind, tuple)) and not isinstance(right, (ListKind, tuple)) \
            and type(value.left) is not ast.List and type(value.right) is not ast.List:
        # (the commonest, numbers or arrays: none of the cases below)
        return _with_rule(rules.OPERATORS.get(type(value.op)), [value.left, value.right],
                          _BINOP_TEXT[type(value.op)], [left, right], memo)
    if isinstance(value.op, ast.Mult):
        for xs, n, kx, kn in ((value.left, value.right, left, right),
                              (value.right, value.left, right, left)):
            # (a list times an array is NumPy's elementwise product, not a repetition)
            if (isinstance(kx, ListKind) or isinstance(xs, ast.List)) and kn == UNKNOWN:
                # (an integer repeats the list, an array of settings multiplies it)
                return Op("unknown", [xs, n], diff=(True, True),
                          text="`*` of a list and a value whose kind s2sad cannot see "
                               "(a repetition if it is an integer, NumPy's product if an "
                               "array)")
            if (isinstance(kx, ListKind) or isinstance(xs, ast.List)) \
                    and not isinstance(kn, ArrayKind):
                return Op("repeat", [xs, n], diff=(True, False), text="list repetition")
    if isinstance(value.op, ast.Add) and isinstance(left, ListKind) \
            and isinstance(right, ListKind):
        return Op("concat", [value.left, value.right], diff=(True, True),
                  text="list concatenation")
    if isinstance(value.op, ast.Add) and isinstance(left, tuple) and isinstance(right, tuple):
        # (two tuples of lengths known here: a new tuple of both's items; a tuple the
        # function grows itself in a loop is a list, `frontend.grown`)
        return Op("tuplecat", [value.left, value.right], diff=(True, True),
                  text="tuple concatenation")
    if isinstance(value.op, ast.Add) and any(
            isinstance(a, ListKind) and (isinstance(b, tuple) or opaque(b)) and
            type(node) is not ast.List for a, b, node in
            ((left, right, value.right), (right, left, value.left))):
        # (``xs += t`` of a tuple or a range: Python extends the list with its items)
        return Op("unknown", [value.left, value.right], diff=(True, True),
                  text="`+` of a list (or of `tuple(xs)`, which s2sad holds as one) and a "
                       "tuple or another sequence")
    key = rules.OPERATORS.get(type(value.op))
    return _with_rule(key, [value.left, value.right], _op_text(value), [left, right], memo)


_INACTIVE = {ast.JoinedStr: "an f-string", ast.Dict: "a dict", ast.Set: "a set"}


def inactive_inputs(value) -> list:
    """The atoms an f-string, a dict or a set display reads, in Python's order."""
    if isinstance(value, ast.Dict):
        return [x for k, v in zip(value.keys, value.values) for x in (k, v)]
    if isinstance(value, ast.Set):
        return list(value.elts)
    out = []
    for part in value.values:
        if isinstance(part, ast.FormattedValue):
            out.append(part.value)
            if part.format_spec is not None:
                out += inactive_inputs(part.format_spec)
    return out


_BITWISE = (ast.BitAnd, ast.BitOr, ast.BitXor, ast.LShift, ast.RShift)


def _astype(value: ast.Call, fn: ir.Function, kind):
    """``x.astype(dtype)`` (a copy unless ``copy=`` says otherwise): to a float dtype,
    a float array's copy (the derivative passes through unchanged); to another dtype,
    or from an integer array, a constant array of that dtype. None when the dtype
    cannot be known before the call."""
    keywords = {k.arg: k.value for k in value.keywords}
    if len(value.args) > 1 or set(keywords) - {"dtype", "copy"} or \
            ("dtype" in keywords) == bool(value.args):
        return None
    x = value.func.value
    target = dtype_kind(value.args[0] if value.args else keywords["dtype"], fn.refs, kind)
    if target is None:
        return None
    copy = keywords.get("copy")
    copies = copy is None or isinstance(copy, ast.Constant) and copy.value is True
    text = "the method .astype()"
    if target == "f" and kind(x).dtype in ("f", "?"):
        return _rule_call(np.copy if copies else np.asarray, [x], [], kind, text)
    return Op("nondiff", [x], key=AsType(target, copies), diff=(False,), text=text)


def _method_call(method, value: ast.Call, kind) -> Op:
    """``x.name(...)`` of an array `x`: the NumPy function `method` (`facts.METHODS`)
    with the array first."""
    func = value.func
    args = [func.value] + list(value.args)
    if func.attr in ("reshape", "transpose") and len(value.args) > 1:
        args = [func.value, ast.Tuple(elts=list(value.args), ctx=ast.Load())]
    op = _rule_call(method, args, list(value.keywords), kind, f"the method .{func.attr}()")
    op.copies = func.attr == "flatten"  # (always a copy, unlike ravel)
    return op


def _as_float_array(value: ast.Call, obj, fn: ir.Function, kind):
    """``np.asarray(x, dtype=float)`` and ``np.array(x, dtype=float)`` (a float dtype
    given by keyword or second), of floats: the call without the dtype, whose rule
    passes the derivative through. None for any other call."""
    keywords = [k for k in value.keywords if k.arg != "dtype"]
    dtype = [k.value for k in value.keywords if k.arg == "dtype"] + list(value.args[1:2])
    if not 1 <= len(value.args) <= 2 or len(dtype) != 1 \
            or dtype_kind(dtype[0], fn.refs, kind) != "f":
        return None
    x = kind(value.args[0])
    if isinstance(x, ArrayKind) and x.dtype not in ("f", "?") or x == INT:
        return None  # (integers made floats: a constant)
    return _rule_call(obj, value.args[:1], keywords, kind, f"`{ir.dotted(value.func)}`")


def _local_attr(node, is_local) -> bool:
    while isinstance(node, ast.Attribute):
        node = node.value
    return isinstance(node, ast.Name) and is_local(node.id)


_BINOP_TEXT = {op: f"the `{symbol}` operator" for op, symbol in BINOP_SYMBOL.items()}


def _op_text(node) -> str:
    if isinstance(node, ast.BinOp):
        return _BINOP_TEXT[type(node.op)]
    return "unary minus" if isinstance(node.op, ast.USub) else "unary plus"


def _with_rule(key, inputs, text, kinds, memo=None) -> Op:
    found = None
    if memo is not None and key:
        try:
            # (the same kind objects, kept alive by the entry, are found without
            # hashing or comparing their fields)
            same = (_SAME, key, len(inputs), *map(id, kinds))
            found = memo.get(same)
            if found is not None:
                found = found[0]
            else:
                at = (key, len(inputs), *kinds)
                found = memo.get(at)
                if found is not None:
                    memo[same] = (found, tuple(kinds))
        except TypeError:  # (an unhashable kind)
            memo = None
    if found is None:
        rule = rules.lookup(key, len(inputs), kinds=kinds) if key else None
        found = (rule, rule.differentiable if rule is not None else None)
        if memo is not None and key:
            memo[at] = found
            memo[same] = (found, tuple(kinds))
    rule, diff = found
    if rule is None:
        return Op("unknown", inputs, key=key, diff=(True,) * len(inputs), text=text)
    return Op("rule", inputs, key=key, rule=rule, diff=diff, text=text)


def _rule_call(obj, args, keywords, kind, text, memo=None) -> Op:
    """A call of a callable that has rules: pick the rule and bind the arguments."""
    kinds = [kind(a) for a in args]
    fitting = None
    if memo is not None:
        try:
            same = (_FITTING, _SAME, obj, *map(id, kinds))  # (as in `_with_rule`)
            fitting = memo.get(same)
            if fitting is not None:
                fitting = fitting[0]
            else:
                at = (_FITTING, obj, *kinds)
                fitting = memo.get(at)
                if fitting is not None:
                    memo[same] = (fitting, tuple(kinds))
        except TypeError:  # (an unhashable callable or kind)
            memo = None
    if fitting is None:
        # a callable with only a forward rule (a user's, or a runtime helper's) is
        # still a rule call: reverse mode says so when it needs the missing rule
        fitting = [rule for rule in rules.candidates(obj) or rules.candidates(obj, "forward")
                   if rule.matches(kinds)]
        if memo is not None:
            memo[at] = fitting
            memo[same] = (fitting, tuple(kinds))
    for rule in fitting:
        bound = rule.bind(args, keywords)
        if bound is not None:
            inputs, options = bound
            diff = memo.get((_DIFF, id(rule))) if memo is not None else None
            if diff is None:
                diff = rule.differentiable
                if memo is not None:
                    memo[(_DIFF, id(rule))] = diff
            if any(opaque(k) and k != NONE for k in kinds) and (  # (None: a bound not given)
                    type(obj).__name__ == "ufunc" or (getattr(obj, "__module__", None) or
                                                      "").partition(".")[0] in ("numpy", "scipy")):
                other = next((k for x, d in zip(inputs, diff) if d and opaque(k := kind(x))
                              and k != NONE), None)
                if other is not None:  # (np.multiply of an np.matrix: its own `*`)
                    return Op("unknown", inputs, key=obj, diff=(True,) * len(inputs),
                              text=f"{text} on {a_kind(other)}")
            return Op("rule", inputs, key=obj, rule=rule, diff=diff, text=text,
                      options=options)
    return Op("unknown", args, key=obj, diff=(True,) * len(args),
              text=_no_rule_text(obj, args, keywords, kinds, text))


def _no_rule_text(obj, args, keywords, kinds, text) -> str:
    """What a `NoRuleError` says of a call no rule of `obj` takes: why a rule for
    these kinds refuses the call (a literal option it does not differentiate), or
    how the call's arguments differ from what the rules for these kinds take, or
    which kinds of arguments the rules take."""
    candidates = rules.candidates(obj) or rules.candidates(obj, "forward")
    fitting = [r for r in candidates if r.matches(kinds)]
    for rule in fitting:
        reason = rule.refusal(args, keywords)
        if reason:
            return f"{text} {reason}"
    if fitting:
        given = [f"{len(args)} positional argument{'s' if len(args) != 1 else ''}"]
        if keywords:
            names = ", ".join(f"`{k.arg}`" for k in keywords)
            given.append(f"the keyword{'s' if len(keywords) > 1 else ''} {names}")
        takes = []
        for r in fitting:
            form = ", ".join(r.inputs)
            if r.options:
                form += f" and the option{'s' if len(r.options) > 1 else ''} " \
                        f"{', '.join(r.options)}"
            if form not in takes:
                takes.append(form)
        return f"{text} with {' and '.join(given)} (its rules take {'; or '.join(takes)})"
    covered = "; or ".join(_covered(r.when for r in candidates)) or "no arguments s2sad can give"
    hint = "; np.asarray(xs) makes a list an array" if any(
        isinstance(k, ListKind) for k in kinds) else ""
    return f"{text} of {_describe_kinds(kinds)} (its rules take {covered}{hint})"


_PATTERN_WORDS = {
    "1d": ("a 1-D array", "1-D arrays"), "2d": ("a 2-D array", "2-D arrays"),
    "nd": ("an array of 3 or more axes", "arrays of 3 or more axes"),
    "array": ("an array", "arrays"), "any": ("any value", "any values"),
    "list": ("a list", "lists"), "scalar": ("a number", "numbers"),
    "int": ("an integer", "integers"),
}

_COUNTS = {2: "two", 3: "three", 4: "four"}


def _kind_words(kind) -> tuple:
    """(singular, plural) words for a kind in a message."""
    if isinstance(kind, ArrayKind):
        if kind.ndim is None:
            return "an array", "arrays"
        return f"a {kind.ndim}-D array", f"{kind.ndim}-D arrays"
    if isinstance(kind, ListKind):
        return "a list", "lists"
    if isinstance(kind, tuple):
        return "a tuple", "tuples"
    if opaque(kind):
        return "a value that is not a number", "values that are not numbers"
    return {SCALAR: ("a number", "numbers"), INT: ("an int", "ints")}.get(
        kind, ("a value of unknown kind", "values of unknown kind"))


def _plural(words: list) -> str:
    """``two numbers`` for two equal singulars, else the singulars joined."""
    if not words:
        return "no arguments"
    if len(words) > 1 and len(set(words)) == 1 and len(words) in _COUNTS:
        return f"{_COUNTS[len(words)]} {words[0][1]}"
    singulars = [w[0] for w in words]
    return ", ".join(singulars[:-1]) + " and " + singulars[-1] if len(singulars) > 1 \
        else singulars[0]


def _describe_kinds(kinds) -> str:
    return _plural([_kind_words(k) for k in kinds])


def _covered(patterns) -> list:
    """The argument kinds rules with these `Rule.when` patterns take, in words:
    patterns of one length that are every combination of their positions' classes
    are said per position (``two 1-D or 2-D arrays``)."""
    out, by_length = [], {}
    for when in patterns:
        if when in ("array", "list"):
            out.append(f"{'an array' if when == 'array' else 'a list or tuple'} among "
                       "their arguments")
        elif isinstance(when, tuple):
            by_length.setdefault(len(when), []).append(when)
    for n, group in by_length.items():
        # (the patterns of 1-D and 2-D arrays alone first: np.dot's also take a number)
        ranked = [w for w in group if set(w) <= {"1d", "2d"}]
        for part in ([ranked, [w for w in group if w not in ranked]] if ranked else [group]):
            if not part:
                continue
            columns = [list(dict.fromkeys(w[i] for w in part)) for i in range(n)]
            combinations = 1
            for column in columns:
                combinations *= len(column)
            if combinations == len(set(part)):
                out.append(_plural([_classes_words(c) for c in columns]))
            else:
                out.extend(_plural([_classes_words([c]) for c in w]) for w in part)
    return out


def _classes_words(classes) -> tuple:
    if set(classes) <= {"1d", "2d"}:
        ranks = " or ".join(c[0] + "-D" for c in sorted(classes))
        return f"a {ranks} array", f"{ranks} arrays"
    words = [_PATTERN_WORDS.get(c, (c, c)) for c in classes]
    return " or ".join(w[0] for w in words), " or ".join(w[1] for w in words)


def _classify_call(value: ast.Call, fn: ir.Function, kind, memo=None) -> Op:
    text = ir.dotted(value.func)
    obj = fn.refs.get(text, _MISSING)
    args = list(value.args)
    if makes_text(value, fn):  # (text, as an f-string is: ``"{:.3f}".format(y)``)
        inputs = args + [k.value for k in value.keywords]
        return Op("inactive", inputs, diff=(True,) * len(inputs),
                  text=f"`{text or value.func.attr}`, which makes text,")
    if obj is np.einsum and args and (isinstance(k := kind(args[0]), (ArrayKind, ListKind, tuple))
                                      or k in (SCALAR, INT)):
        # (the sublist form, operands each followed by a list of axis numbers: the
        # rules read the subscripts' text)
        inputs = args + [k.value for k in value.keywords]
        return Op("unknown", inputs, key=obj, diff=(True,) * len(inputs),
                  text=f"`{text}` in its sublist form (an operand first, then lists of "
                       "axis numbers; write the subscripts as text, 'ij,jk->ik')")
    if memo is not None:
        try:
            plain = memo.get((_PLAIN_RULE, obj))
            if plain is None:
                plain = memo[(_PLAIN_RULE, obj)] = _plain_rule_call(obj)
        except TypeError:  # (an unhashable callable)
            plain = False
        if plain:
            return _rule_call(obj, args, list(value.keywords), kind, f"`{text}`", memo)
    effect = _effect(obj)
    if effect is not None and len(args) == effect[1] and not value.keywords \
            and isinstance(args[0], ast.Name):
        return Op(effect[0], args, key=obj, diff=(False,) * (len(args) - 1) + (True,),
                  text=f"`{text}`")
    if obj is _MISSING:
        return Op("unknown", args, diff=(True,) * len(args), text=f"`{text}`")
    try:
        nondiff = obj in rules.NONDIFFERENTIABLE
    except TypeError:
        nondiff = False
    if nondiff:
        inputs = args + [k.value for k in value.keywords]
        return Op("nondiff", inputs, key=obj, diff=(False,) * len(inputs), text=f"`{text}`")
    if (obj is list or obj is tuple) and len(args) == 1 and not value.keywords \
            and isinstance(kind(args[0]), ListKind):
        # a list's copy: its slice ``xs[:]`` (a tuple of it, indexed, iterated and
        # summed as the list is: ``tuple(x * x for x in xs)``)
        return Op("getitem", [args[0], ast.Slice()], diff=(True, False),
                  text=f"`{obj.__name__}`")
    if obj is list and len(args) == 1 and not value.keywords and (
            isinstance(kind(args[0]), (tuple, ArrayKind))):
        return Op("unknown", args, diff=(True,), text="`list` of a tuple or an array")
    if (obj is dict or obj is set) and len(args) == 1 and not value.keywords:
        # (a set or dict comprehension, as `expand` lowers it: like a display)
        return Op("inactive", args, diff=(True,), text=_INACTIVE[ast.Dict if obj is dict
                                                                 else ast.Set])
    if (obj is sum or obj is math.fsum) and len(args) == 1 and not value.keywords:
        # (math.fsum: the same derivative, the sum exactly rounded)
        return Op("sum", args, key=obj, diff=(True,), text=f"`{text}`")
    method = METHODS.get(getattr(obj, "__name__", None))
    if method is not None and isinstance(getattr(obj, "__self__", None), np.ndarray) \
            and isinstance(value.func, ast.Attribute):
        # a method of an array the function reads from outside (``W.dot(x)``)
        return _method_call(method, value, kind)
    if obj is np.asarray or obj is np.array:
        op = _as_float_array(value, obj, fn, kind)
        if op is not None:
            return op
    if rules.arities(obj) or rules.arities(obj, "forward"):
        return _rule_call(obj, args, list(value.keywords), kind, f"`{text}`")
    if getattr(obj, "__s2sad__", None) is not None:  # (its text is the function it came from)
        return Op("unknown", args + [k.value for k in value.keywords], key=obj,
                  diff=(True,) * (len(args) + len(value.keywords)),
                  text=f"`{text}`, {MADE_BY_S2SAD}")
    if user_function(obj):
        keywords = {k.arg: k.value for k in value.keywords}
        inputs = args + list(keywords.values())
        return Op("call", inputs, key=obj, diff=(True,) * len(inputs), keywords=keywords,
                  text=f"`{text}`")
    inputs = args + [k.value for k in value.keywords]
    module = getattr(obj, "__module__", "") or ""
    hint = " (a NumPy function s2sad has no rule for yet)" if module.startswith("numpy") else ""
    if _scipy(obj):
        hint = " (a SciPy function s2sad has no rule for yet; it differentiates your code, not SciPy's)"
    if module.startswith("scipy.stats") and (hasattr(obj, "logpdf") or hasattr(obj, "logpmf")):
        hint = (" (a SciPy distribution frozen with its parameters: s2sad follows one read "
                "only by its methods of points, `D(a, b).logpdf(x)` or `dist = D(a, b)` then "
                "`dist.logpdf(x)`, `.pdf`, `.cdf`, ..., not yet one used otherwise)")
    return Op("unknown", inputs, key=obj, diff=(True,) * len(inputs), text=f"`{text}`{hint}")


_FITTING, _PLAIN_RULE, _DIFF, _SAME = object(), object(), object(), object()  # (tags of
# the memo's keys)


def _plain_rule_call(obj) -> bool:
    """Does `_classify_call` take any call of `obj` to `_rule_call`, whatever its
    arguments (no case before that one applies to `obj`)?"""
    if obj is _MISSING or _effect(obj) is not None:
        return False
    if any(obj is x for x in (list, tuple, dict, set, sum, math.fsum, np.asarray, np.array)):
        return False
    try:
        if obj in rules.NONDIFFERENTIABLE:
            return False
    except TypeError:
        pass
    if METHODS.get(getattr(obj, "__name__", None)) is not None \
            and isinstance(getattr(obj, "__self__", None), np.ndarray):
        return False
    return bool(rules.arities(obj) or rules.arities(obj, "forward"))


# how an error names a derivative s2sad made (``dinner = s2sad.grad(inner)``) called in
# a function it differentiates
MADE_BY_S2SAD = "a derivative s2sad made"


def user_function(obj) -> bool:
    """Is `obj` a Python function of the user's (one s2sad differentiates: not
    NumPy's, SciPy's or the standard library's, nor another library's that
    `kinds.library_object` knows, ``array_api_strict.asarray``, whose source is the
    library's business)?"""
    return isinstance(obj, types.FunctionType) and not _scipy(obj) and not _numpy(obj) \
        and not _standard_library(obj) and not library_object(obj)


_TEXT = {str, repr, format, ascii, np.array2string, np.array_repr, np.array_str}


def makes_text(value, fn: ir.Function) -> bool:
    """Is `value` text made of what it reads (an f-string, ``str(y)``, ``repr(y)``,
    ``"{:.3f}".format(y)``)? Text carries no derivative anywhere it is put (a log, a
    history); a number read back from it is refused as an f-string's is (its kind
    is unknown where a derivative reaches it, `results.inactive_result`)."""
    if isinstance(value, ast.JoinedStr):
        return True
    if not isinstance(value, ast.Call):
        return False
    func = value.func
    if isinstance(func, ast.Attribute) and isinstance(func.value, ast.Constant):
        return isinstance(func.value.value, str)
    try:
        return fn.refs.get(ir.dotted(func)) in _TEXT
    except TypeError:  # (an unhashable callable)
        return False


def _standard_library(obj) -> bool:
    """Is `obj` a Python function of the standard library (``copy.deepcopy``,
    ``statistics.mean``)? Its source is the library's, not code to differentiate: a
    call of it without a rule runs as written, and is refused at the user's line where
    a derivative would have to pass through it."""
    path = os.path.abspath(obj.__code__.co_filename)
    return path.startswith(_STANDARD_LIBRARY) and not any(
        part in path for part in ("site-packages", "dist-packages"))


_STANDARD_LIBRARY = tuple(os.path.join(os.path.abspath(sysconfig.get_paths()[k]), "")
                          for k in ("stdlib", "platstdlib"))


def _scipy(obj) -> bool:
    """Is `obj` SciPy's (a function, a distribution's method)? A Python function of
    SciPy is SciPy's source (argument checks, LAPACK calls, writes through views), not
    code to differentiate: a call of it without a rule is refused at the user's line,
    not put in place."""
    return (getattr(obj, "__module__", "") or "").partition(".")[0] == "scipy"


def _numpy(obj) -> bool:
    """Is `obj` one of NumPy's functions written in Python (``np.tril_indices``,
    ``np.indices``, ``np.hamming``, ``np.asarray_chkfinite``)? As SciPy's, its source
    is the library's (writes into arrays it made, loops over dicts of options): a call
    of it without a rule runs as written, and is refused at the user's line where a
    derivative would have to pass through it; it was put in place and refused inside
    NumPy's source."""
    return (getattr(obj, "__module__", "") or "").partition(".")[0] == "numpy"


# methods that change their list or array in place, with what to write instead
_LIST_MUTATORS = {
    "extend": "`xs = xs + ys`", "insert": "`xs = xs[:i] + [v] + xs[i:]`",
    "remove": "a new list without the element", "pop": "`v = xs[i]` and a new list",
    "clear": "`xs = []`", "sort": "`xs = sorted(xs)`", "reverse": "`xs = xs[::-1]`",
}

_ARRAY_MUTATORS = {
    "fill": "`y = np.full_like(y, v)`", "sort": "`y = np.sort(y)`",
    "put": "a write `y[idx] = v`", "itemset": "a write `y[i] = v`",
    "resize": "`y = np.resize(y, shape)`", "partition": "`y = np.partition(y, k)`",
    "setfield": "a new array", "byteswap": "a new array",
}


_IN_PLACE_DUNDERS = {"__setitem__", "__delitem__"} | {
    f"__i{op}__" for op in ("add", "sub", "mul", "truediv", "floordiv", "mod", "pow",
                            "matmul", "and", "or", "xor", "lshift", "rshift")}


def _mutating_functions() -> dict:
    global _MUTATING
    if _MUTATING is None:
        _MUTATING = _mutating_table()
    return _MUTATING


_MUTATING = None


def _mutating_table() -> dict:
    return {np.copyto: "`y = x.copy()` (or a write `y[...] = x`)",
            np.put: "a write `y[idx] = v`", np.place: "`y = np.where(mask, v, y)`",
            np.putmask: "`y = np.where(mask, v, y)`",
            np.fill_diagonal: "a write through `np.diag_indices`",
            np.put_along_axis: "a write `y[idx] = v`",
            np.random.shuffle: "`y = np.random.permutation(y)`",
            random.shuffle: "`xs = random.sample(xs, len(xs))`"}


def changed_in_place(value, op: Op, fn: ir.Function, is_local, kind):
    """``(what, atom, instead)`` when the call `value` changes one of its list or array
    arguments in place (an ``out=`` argument, a ufunc's positional output, a mutating
    method such as ``.fill()`` or ``.sort()``, ``np.copyto``...): `atom` is the object
    changed, `instead` what to write in its place. None otherwise."""
    if not isinstance(value, ast.Call) or op.kind in ("append", "pop", "add_at", "add_into"):
        return None
    for k in value.keywords:
        if k.arg == "out" and not (isinstance(k.value, ast.Constant) and k.value.value is None):
            return "the `out=` argument", k.value, \
                "Assign the result instead: `y = np.clip(x, lo, hi)` for " \
                "`np.clip(x, lo, hi, out=y)`."
    func = value.func
    if isinstance(func, ast.Attribute) and _local_attr(func, is_local):
        receiver = kind(func.value)
        table = _LIST_MUTATORS if isinstance(receiver, ListKind) else \
            _ARRAY_MUTATORS if isinstance(receiver, ArrayKind) else {}
        if func.attr in table or func.attr in _IN_PLACE_DUNDERS:
            instead = table.get(func.attr, "an assignment")
            return f"`.{func.attr}()`", func.value, f"Write {instead} instead."
        return None
    if isinstance(func, ast.Attribute):  # (a global's or an attribute's: ``K.fill(0.0)``)
        held = fn.refs.get(ir.dotted(func.value) or "", None)
        table = _LIST_MUTATORS if type(held) is list else \
            _ARRAY_MUTATORS if isinstance(held, np.ndarray) else {}
        if func.attr in table or held is not None and func.attr in _IN_PLACE_DUNDERS:
            instead = table.get(func.attr, "an assignment")
            return f"`.{func.attr}()`", func.value, f"Write {instead} instead."
    obj = fn.refs.get(ir.dotted(func), None)
    if isinstance(obj, np.ufunc) and len(value.args) > obj.nin:
        return f"the output argument of `{ir.dotted(func)}`", value.args[obj.nin], \
            f"Assign the result instead: `y = {ir.dotted(func)}(...)`."
    instead = _hashable_get(_mutating_functions(), obj)
    if instead is not None and value.args:
        return f"`{ir.dotted(func)}`", value.args[0], f"Write {instead} instead."
    return None


def reports_only(obj) -> bool:
    """Does calling `obj` only report what it is given (``print``, a `logging`
    function or logger method, ``warnings.warn``), never change it?"""
    return obj is print or obj is warnings.warn \
        or isinstance(getattr(obj, "__self__", None), logging.Logger) \
        or getattr(obj, "__module__", None) == "logging"


def _hashable_get(table, key):
    try:
        return table.get(key)
    except TypeError:
        return None


def _effect(obj):
    """For a call that adds into its first argument in place, ``(op kind, number of
    arguments)``; else None."""
    if obj is runtime.add_into:
        return "add_into", 2
    if getattr(obj, "__self__", None) is np.add and getattr(obj, "__name__", None) == "at":
        return "add_at", 3  # (each `np.add.at` is a new bound method object)
    return None


_MISSING = object()
