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
    pop      ``v = xs.pop()`` (a list's last element, removed)
    repeat   ``v = xs * n`` (a list repeated)
    add_at   ``np.add.at(a, index, v)`` (an `ir.Expr`: `v` added into `a` in place)
    add_into ``add_into(acc, parts)`` (an `ir.Expr`: s2sad's runtime helper adding
             each of `parts` into the list `acc`)
    sum      ``v = sum(xs)``
    nondiff  a call or operator whose result is constant (comparisons, ``not``,
             functions registered as non-differentiable)
    unknown  a call with no rule and no Python source (an error if it is active);
             its inputs are all its arguments, and for a method call the object too

`kind_of(value)` sorts runtime values into the kinds activity works with: "scalar"
(a real float), "int" (ints and bools), `ArrayKind` (a NumPy array: its rank and
dtype), `ListKind`, "other", or a tuple of kinds. `classify` takes the kinds of the
inputs into account: ``x * y`` on arrays has another rule than on floats, and a
matrix product picks its rule by the ranks of its operands.

Array methods and attributes (``x.sum(axis=0)``, ``x.dot(y)``, ``x.T``) are the NumPy
function of the same meaning, with the array as its first argument (`METHODS`).
"""

from __future__ import annotations

import ast
import types
from dataclasses import dataclass, field

from .. import ir, primitives as rules


# every kind of operation `classify` returns (the module docstring says what each
# one is), in that order; a transform that dispatches on `Op.kind` keys its table by
# these names
KINDS = ("copy", "const", "rule", "call", "pack", "getitem", "listpack", "append", "pop",
         "repeat", "add_at", "add_into", "sum", "nondiff", "unknown")


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


def _methods():
    import numpy as np

    return {
        "sum": np.sum, "mean": np.mean, "prod": np.prod, "max": np.max, "min": np.min,
        "var": np.var, "std": np.std, "dot": np.dot, "reshape": np.reshape,
        "ravel": np.ravel, "flatten": np.ravel, "transpose": np.transpose,
        "squeeze": np.squeeze, "clip": np.clip, "copy": np.copy,
    }


NONDIFF_ATTRIBUTES = {"shape", "ndim", "size", "dtype"}


def classify(value: ast.expr, fn: ir.Function, is_local, kind=None) -> Op:
    """See the module docstring. `kind(atom)` gives the kind of an input atom."""
    kind = kind or (lambda atom: None)
    if isinstance(value, ast.Name):
        if is_local(value.id):
            return Op("copy", [value], diff=(True,))
        return Op("const")
    if isinstance(value, (ast.Constant, ast.Attribute)) and not _local_attr(value, is_local):
        return Op("const")
    if isinstance(value, ast.BinOp) and isinstance(value.op, _BITWISE):
        return Op("nondiff", [value.left, value.right], diff=(False, False))
    if isinstance(value, ast.BinOp) and isinstance(value.op, ast.Mult):
        for xs, n in ((value.left, value.right), (value.right, value.left)):
            # (a list times an array is NumPy's elementwise product, not a repetition)
            if (isinstance(kind(xs), ListKind) or isinstance(xs, ast.List)) \
                    and not isinstance(kind(n), ArrayKind):
                return Op("repeat", [xs, n], diff=(True, False), text="list repetition")
    if isinstance(value, ast.BinOp):
        key = rules.OPERATORS.get(type(value.op))
        inputs = [value.left, value.right]
        return _with_rule(key, inputs, _op_text(value), [kind(x) for x in inputs])
    if isinstance(value, ast.UnaryOp):
        if isinstance(value.op, (ast.Not, ast.Invert)):
            return Op("nondiff", [value.operand], diff=(False,))
        key = rules.OPERATORS.get(type(value.op))
        return _with_rule(key, [value.operand], _op_text(value), [kind(value.operand)])
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
            if func.attr == "pop" and not value.args and not value.keywords \
                    and isinstance(func.value, ast.Name) \
                    and (isinstance(kind(func.value), ListKind) or kind(func.value) == UNKNOWN):
                return Op("pop", [func.value], diff=(True,), text="list.pop")
            if func.attr in ("argmax", "argmin") and isinstance(kind(func.value), ArrayKind):
                import numpy as np

                inputs = [func.value] + list(value.args) + [k.value for k in value.keywords]
                return Op("nondiff", inputs, key=getattr(np, func.attr),
                          diff=(False,) * len(inputs), text=f"the method .{func.attr}()")
            method = _methods().get(func.attr)
            if func.attr == "copy" and not value.args and not value.keywords \
                    and isinstance(func.value, ast.Name) and kind(func.value) == SCALAR:
                return Op("copy", [func.value], diff=(True,))  # a number's copy: itself
            if func.attr == "copy" and not isinstance(kind(func.value), ArrayKind):
                method = None  # a list's copy is not an array
            if func.attr == "astype" and isinstance(func.value, ast.Name) \
                    and isinstance(kind(func.value), ArrayKind):
                op = _astype(value, fn, kind)
                if op is not None:
                    return op
            if method is not None and isinstance(func.value, ast.Name):
                args = [func.value] + list(value.args)
                if func.attr in ("reshape", "transpose") and len(value.args) > 1:
                    args = [func.value, ast.Tuple(elts=list(value.args), ctx=ast.Load())]
                op = _rule_call(method, args, list(value.keywords), kind,
                                f"the method .{func.attr}()")
                op.copies = func.attr == "flatten"  # (always a copy, unlike ravel)
                return op
            inputs = [func.value] + list(value.args) + [k.value for k in value.keywords]
            return Op("unknown", inputs, diff=(True,) * len(inputs),
                      text=f"the method .{func.attr}()")
        return _classify_call(value, fn, kind)
    if isinstance(value, ast.Attribute):
        if value.attr == "T":
            import numpy as np

            return _rule_call(np.transpose, [value.value], [], kind, "the attribute .T")
        if value.attr in NONDIFF_ATTRIBUTES:
            return Op("nondiff", [value.value], diff=(False,), text=f".{value.attr}")
        return Op("unknown", [value.value], diff=(True,), text=f"the attribute .{value.attr}")
    return Op("unknown", text=type(value).__name__)


_BITWISE = (ast.BitAnd, ast.BitOr, ast.BitXor, ast.LShift, ast.RShift)


@dataclass(frozen=True)
class AsType:
    """The key of ``x.astype(dtype)`` to a dtype without a derivative through it:
    `dtype` the result's dtype kind ("i", "b", "c", or "f" from an integer array),
    `copies` False when ``copy=`` may let the result be `x` itself."""

    dtype: str
    copies: bool = True


def dtype_kind(atom, refs, kind=None):
    """The dtype kind ("f", "i", "b", "c") a static ``dtype=`` argument names
    (``float``, ``np.int32``, ``"float32"``, ``x.dtype`` of an array of known dtype),
    or None when it cannot be known before the call."""
    import numpy as np

    if isinstance(atom, ast.Attribute) and atom.attr == "dtype" and kind is not None:
        k = kind(atom.value)
        if isinstance(k, ArrayKind) and k.dtype != "?":
            return k.dtype
    if kind is not None and isinstance(atom, ast.Name) and isinstance(kind(atom), DTypeKind):
        return kind(atom).code
    if isinstance(atom, ast.Constant) and isinstance(atom.value, str):
        obj = atom.value
    else:
        text = ir.dotted(atom)
        if text is None or text not in refs:
            return None
        obj = refs[text]
    try:
        code = np.dtype(obj).kind
    except TypeError:
        return None
    return {"f": "f", "i": "i", "u": "i", "b": "b", "c": "c"}.get(code)


def _astype(value: ast.Call, fn: ir.Function, kind):
    """``x.astype(dtype)`` (a copy unless ``copy=`` says otherwise): to a float dtype,
    a float array's copy (the derivative passes through unchanged); to another dtype,
    or from an integer array, a constant array of that dtype. None when the dtype
    cannot be known before the call."""
    import numpy as np

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


def logical_kind(inputs: list):
    """The kind of a comparison, bitwise operation or `not`/`~` of `inputs`: a
    boolean array when an input is an array, else an int."""
    arrays = [k for k in inputs if isinstance(k, ArrayKind)]
    if not arrays:
        return INT
    ranks = [_rank(k) for k in inputs]
    return ArrayKind(max(ranks) if None not in ranks else None, "b")


def _local_attr(node, is_local) -> bool:
    while isinstance(node, ast.Attribute):
        node = node.value
    return isinstance(node, ast.Name) and is_local(node.id)


def _op_text(node) -> str:
    from ..backend.emit import BINOP_SYMBOL

    if isinstance(node, ast.BinOp):
        return f"the `{BINOP_SYMBOL[type(node.op)]}` operator"
    return "unary minus" if isinstance(node.op, ast.USub) else "unary plus"


def _with_rule(key, inputs, text, kinds) -> Op:
    rule = rules.lookup(key, len(inputs), kinds=kinds) if key else None
    if rule is None:
        return Op("unknown", inputs, key=key, diff=(True,) * len(inputs), text=text)
    return Op("rule", inputs, key=key, rule=rule, diff=rule.differentiable, text=text)


def _rule_call(obj, args, keywords, kind, text) -> Op:
    """A call of a callable that has rules: pick the rule and bind the arguments."""
    kinds = [kind(a) for a in args]
    # a callable with only a forward rule (a user's, or a runtime helper's) is
    # still a rule call: reverse mode says so when it needs the missing rule
    for rule in rules.candidates(obj) or rules.candidates(obj, "forward"):
        if not rule.matches(kinds):
            continue
        bound = rule.bind(args, keywords)
        if bound is not None:
            inputs, options = bound
            return Op("rule", inputs, key=obj, rule=rule, diff=rule.differentiable,
                      text=text, options=options)
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
    return {SCALAR: ("a number", "numbers"), INT: ("an int", "ints"),
            OTHER: ("a value that is not a number", "values that are not numbers")}.get(
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
        columns = [list(dict.fromkeys(w[i] for w in group)) for i in range(n)]
        combinations = 1
        for column in columns:
            combinations *= len(column)
        if combinations == len(set(group)):
            out.append(_plural([_classes_words(c) for c in columns]))
        else:
            out.extend(_plural([_classes_words([c]) for c in w]) for w in group)
    return out


def _classes_words(classes) -> tuple:
    if set(classes) <= {"1d", "2d"}:
        ranks = " or ".join(c[0] + "-D" for c in sorted(classes))
        return f"a {ranks} array", f"{ranks} arrays"
    words = [_PATTERN_WORDS.get(c, (c, c)) for c in classes]
    return " or ".join(w[0] for w in words), " or ".join(w[1] for w in words)


def _classify_call(value: ast.Call, fn: ir.Function, kind) -> Op:
    text = ir.dotted(value.func)
    obj = fn.refs.get(text, _MISSING)
    args = list(value.args)
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
    if obj is sum and len(args) == 1 and not value.keywords:
        return Op("sum", args, key=obj, diff=(True,), text="`sum`")
    if rules.arities(obj) or rules.arities(obj, "forward"):
        return _rule_call(obj, args, list(value.keywords), kind, f"`{text}`")
    if isinstance(obj, types.FunctionType):
        keywords = {k.arg: k.value for k in value.keywords}
        inputs = args + list(keywords.values())
        return Op("call", inputs, key=obj, diff=(True,) * len(inputs), keywords=keywords,
                  text=f"`{text}`")
    inputs = args + [k.value for k in value.keywords]
    module = getattr(obj, "__module__", "") or ""
    hint = " (a NumPy function s2sad has no rule for yet)" if module.startswith("numpy") else ""
    return Op("unknown", inputs, key=obj, diff=(True,) * len(inputs), text=f"`{text}`{hint}")


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
    import random

    import numpy as np

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
    import numpy as np

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
    obj = fn.refs.get(ir.dotted(func), None)
    if isinstance(obj, np.ufunc) and len(value.args) > obj.nin:
        return f"the output argument of `{ir.dotted(func)}`", value.args[obj.nin], \
            f"Assign the result instead: `y = {ir.dotted(func)}(...)`."
    instead = _hashable_get(_mutating_functions(), obj)
    if instead is not None and value.args:
        return f"`{ir.dotted(func)}`", value.args[0], f"Write {instead} instead."
    return None


def _hashable_get(table, key):
    try:
        return table.get(key)
    except TypeError:
        return None


def _effect(obj):
    """For a call that adds into its first argument in place, ``(op kind, number of
    arguments)``; else None."""
    import numpy as np

    from .. import runtime

    if obj is runtime.add_into:
        return "add_into", 2
    if getattr(obj, "__self__", None) is np.add and getattr(obj, "__name__", None) == "at":
        return "add_at", 3  # (each `np.add.at` is a new bound method object)
    return None


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

SCALAR, INT, OTHER, UNKNOWN = "scalar", "int", "other", "?"


@dataclass(frozen=True)
class ArrayKind:
    """A NumPy array of rank `ndim` (None: unknown) and dtype kind `dtype` ("f" float,
    "i" integer, "b" bool, "c" complex, "?" unknown). Float arrays carry derivatives.

    `dims` and `exact` are set only on the kinds of a call's arguments: `dims` (see
    `shape_pattern`) has one label per axis, 1 for an axis of length 1, and for the
    others a label shared by exactly the axes of the call's arrays that have the same
    length; `exact` is the dtype's name ("float32"), which the gradient keeps."""

    ndim: object = None
    dtype: str = "f"
    dims: tuple | None = None
    exact: str | None = None

    def __repr__(self):
        rank = "?" if self.ndim is None else self.ndim
        dims = "" if self.dims is None else f", dims {self.dims}"
        exact = "" if self.exact is None else f", {self.exact}"
        return f"array[{rank}d, {self.dtype}{dims}{exact}]"


ARRAY = ArrayKind()


@dataclass(frozen=True)
class ListKind:
    """A Python list whose elements have kind `elem`. A list is mutable: every name
    that refers to the same list object shares one adjoint (a list of adjoints).

    `items` is set only on the kinds of a call's arguments that hold arrays (and
    have at most `ITEMS` elements): each element's kind, in order, so that
    ``params[0]`` and ``w, b = params`` of ``params = [W, b]`` are a matrix and a
    vector, not the arrays of unknown rank `elem` says they may be. It says the
    list's length too, so a change of the list in place (`append`, `pop`, a write)
    forgets it (`activity`)."""

    elem: object
    items: tuple | None = None

    def __repr__(self):
        if self.items is not None:
            return f"list[{', '.join(map(repr, self.items))}]"
        return f"list[{self.elem}]"


ITEMS = 32  # the longest list of arrays whose elements' kinds an argument's kind lists


def kind_of(value, items=True):
    """The kind of `value` (a list's `items` only with `items`, for the list itself,
    not for the lists it holds: those may change through another name)."""
    if isinstance(value, bool) or isinstance(value, int):
        return INT
    if isinstance(value, float):
        return SCALAR
    if isinstance(value, tuple):
        return tuple(kind_of(v, False) for v in value)
    if isinstance(value, list):
        elem = None
        kinds = [kind_of(v, False) for v in value]
        for k in kinds:
            elem = k if elem is None else merged(elem, k)
        if items and len(kinds) <= ITEMS and any(isinstance(k, ArrayKind) for k in kinds):
            # (an int among arrays is a number, as in `elem`)
            return ListKind(elem, tuple(SCALAR if k == INT else k for k in kinds))
        return ListKind(UNKNOWN if elem is None else elem)
    np = _numpy()
    if np is not None:
        if isinstance(value, np.ndarray):
            return ArrayKind(value.ndim, _DTYPES.get(value.dtype.kind, "?"))
        if isinstance(value, np.integer) or isinstance(value, np.bool_):
            return INT
        if isinstance(value, np.floating):
            return SCALAR
    if isinstance(value, complex):
        return OTHER
    return OTHER


_DTYPES = {"f": "f", "i": "i", "u": "i", "b": "b", "c": "c"}


def merged(a, b):
    """The kind of a value that is either of kind `a` or of kind `b` (an element of
    a list holding both): an int and a float are a float; arrays of different ranks
    an array of unknown rank (of unknown dtype where theirs differ), and arrays with
    numbers too; lists of such elements a list of their merged kind; anything else
    unknown."""
    if a == b:
        return a
    if {a, b} <= {SCALAR, INT}:
        return SCALAR
    if isinstance(a, ListKind) and isinstance(b, ListKind):
        return ListKind(merged(a.elem, b.elem))
    if isinstance(a, tuple) and isinstance(b, tuple) and len(a) == len(b):
        return tuple(merged(x, y) for x, y in zip(a, b))
    if isinstance(a, ArrayKind) or isinstance(b, ArrayKind):
        arrays = [k for k in (a, b) if isinstance(k, ArrayKind)]
        others = [k for k in (a, b) if not isinstance(k, ArrayKind)]
        if all(k in (SCALAR, INT) for k in others):
            ndims = {k.ndim for k in arrays}
            dtypes = {k.dtype for k in arrays}
            return ArrayKind(ndims.pop() if len(ndims) == 1 and not others else None,
                             dtypes.pop() if len(dtypes) == 1 else "?")
    return UNKNOWN


def shape_pattern(shapes: list) -> list:
    """The `dims` labels of arrays with these shapes: an axis of length 1 is 1; any
    other axis gets 2 plus the position (counting every axis of every array in order)
    of the first axis of its length. So the labels say which axes are 1 and which are
    equal, and nothing about the lengths themselves: (64, 256) and (256,) give
    ``[(2, 3), (3,)]``, as (5, 7) and (7,) do."""
    first: dict = {}
    out = []
    at = 0
    for shape in shapes:
        dims = []
        for n in shape:
            dims.append(1 if n == 1 else first.setdefault(n, 2 + at))
            at += 1
        out.append(tuple(dims))
    return out


def shaped_arguments(values: dict) -> list:
    """The arrays among the arguments `values` that the shape pattern labels, in
    order, as ``(name, index, shape)``: an array argument (index None), and each array
    element of a list whose kind lists its elements (`ListKind.items`)."""
    np = _numpy()
    out = []
    if np is None:
        return out
    for n, v in values.items():
        if isinstance(v, np.ndarray):
            out.append((n, None, v.shape))
        elif isinstance(v, list) and len(v) <= ITEMS and \
                any(isinstance(e, np.ndarray) for e in v):
            out.extend((n, i, e.shape) for i, e in enumerate(v) if isinstance(e, np.ndarray))
    return out


def with_shapes(kinds: dict, values: dict) -> dict:
    """`kinds` with the `dims` and `exact` dtype of every array argument among
    `values` filled in, and the `dims` of the array elements a list argument's kind
    lists (`shaped_arguments`: the dispatcher keys on the same labels)."""
    shaped = [(n, i, shape) for n, i, shape in shaped_arguments(values)
              if n in kinds and (isinstance(kinds[n], ArrayKind) if i is None else
                                 isinstance(kinds[n], ListKind) and kinds[n].items is not None
                                 and len(kinds[n].items) == len(values[n]))]
    if not shaped:
        return kinds
    out = dict(kinds)
    items = {}
    for (n, i, _), dims in zip(shaped, shape_pattern([shape for _, _, shape in shaped])):
        if i is None:
            out[n] = ArrayKind(kinds[n].ndim, kinds[n].dtype, dims, values[n].dtype.name)
        else:
            k = items.setdefault(n, list(kinds[n].items))[i]
            items[n][i] = ArrayKind(k.ndim, k.dtype, dims)
    for n, listed in items.items():
        out[n] = ListKind(kinds[n].elem, tuple(listed))
    return out


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
    if isinstance(kind, ArrayKind):
        return kind.dtype in ("f", "?")
    return kind in (SCALAR, UNKNOWN)


def _numpy():
    import sys

    return sys.modules.get("numpy")


# ------------------------------------------------------- kinds of results


def _rank(kind):
    return kind.ndim if isinstance(kind, ArrayKind) else (0 if kind in (SCALAR, INT) else None)


def _array_rank(kind):
    """The rank of ``np.asarray(value)`` for a value of `kind` (None: unknown): a
    number is 0-d, a list or tuple adds one axis to its elements' common rank."""
    if isinstance(kind, ListKind):
        inner = _array_rank(kind.elem)
        return None if inner is None else inner + 1
    if isinstance(kind, tuple):
        ranks = {_array_rank(k) for k in kind}
        if not kind:
            return 1
        return None if len(ranks) != 1 or None in ranks else ranks.pop() + 1
    return _rank(kind)


def isinstance_known(kind, classes: tuple):
    """``isinstance(p, classes)`` for a parameter `p` of `kind`, where the kind decides
    it for every value the compiled code is called with (it is specialised on the
    arguments' types): True, False, or None when it does not."""
    np = _numpy()
    if isinstance(kind, ArrayKind) and kind.ndim not in (None, 0):
        # (a value of rank 0 may be a NumPy scalar: a ufunc of 0-d arrays gives one)
        types = (np.ndarray,)
    elif isinstance(kind, ListKind):
        types = (list,)
    elif isinstance(kind, tuple):
        types = (tuple,)
    elif kind == SCALAR:
        types = (float,) + ((np.floating,) if np is not None else ())
    elif kind == INT:
        types = (int,) + ((np.integer, np.bool_) if np is not None else ())
    else:
        return None
    # classes no value of another of these types can be an instance of
    fixed = {float, int, bool, complex, str, bytes, list, tuple, dict, set, type(None)}
    if np is not None:
        fixed |= {np.ndarray, np.generic, np.number, np.floating, np.integer, np.bool_,
                  np.complexfloating, np.float64, np.float32, np.int64, np.int32}
    answers = set()
    for cls in classes:
        if not isinstance(cls, type):
            return None
        if all(issubclass(t, cls) for t in types):
            return True
        if cls in fixed and not any(issubclass(t, cls) or issubclass(cls, t) for t in types):
            answers.add(False)
        else:
            answers.add(None)
    return False if answers == {False} else None


def _leaves_dtype(kind) -> str:
    """The dtype kind of ``np.asarray`` of a value of `kind`: "i" for ints only, "f"
    for floats (and ints), else "?"."""
    found = set()

    def visit(k):
        if isinstance(k, ListKind):
            visit(k.elem)
        elif isinstance(k, tuple):
            for e in k:
                visit(e)
        elif isinstance(k, ArrayKind):
            found.add(k.dtype)
        else:
            found.add({INT: "i", SCALAR: "f"}.get(k, "?"))

    visit(kind)
    if found == {"i"}:
        return "i"
    return "f" if found and found <= {"i", "f"} else "?"


def _all_floats(kind) -> bool:
    if isinstance(kind, ListKind):
        return _all_floats(kind.elem)
    if isinstance(kind, tuple):
        return bool(kind) and all(_all_floats(k) for k in kind)
    return kind == SCALAR


def attribute_kind(attr: str, kind):
    """The kind of ``x.shape``, ``x.ndim`` or ``x.size`` for an `x` of `kind` (a
    number's, for NumPy scalars, too)."""
    if attr in ("ndim", "size"):
        return INT if isinstance(kind, ArrayKind) or kind in (SCALAR, INT) else UNKNOWN
    if attr == "shape":
        rank = _rank(kind)
        return (INT,) * rank if rank is not None else UNKNOWN
    if attr == "dtype" and isinstance(kind, ArrayKind) and kind.dtype != "?":
        return DTypeKind(kind.dtype)  # (so `np.zeros(n, dtype=x.dtype)` has a known dtype)
    return UNKNOWN


@dataclass(frozen=True)
class DTypeKind:
    """The kind of ``x.dtype`` for an array whose dtype kind `code` is known."""

    code: str

    def __repr__(self):
        return f"dtype[{self.code}]"


def _const(atom, default="?"):
    if atom is None:
        return None if default == "?" else default
    if isinstance(atom, ast.Constant):
        return atom.value
    if isinstance(atom, ast.Tuple) and all(isinstance(e, ast.Constant) for e in atom.elts):
        return tuple(e.value for e in atom.elts)
    return "?"


def index_kind(container: ArrayKind, index, kind) -> object:
    """The kind of ``a[index]`` for an array `a` (`kind(atom)` gives an atom's kind)."""
    parts = index.elts if isinstance(index, ast.Tuple) else [index]
    ndim = container.ndim
    if ndim is None:
        return ArrayKind(None, container.dtype)
    for part in parts:
        if isinstance(part, ast.Slice):
            continue
        if isinstance(part, ast.Constant) and part.value is None:
            ndim += 1
            continue
        k = kind(part)
        if isinstance(part, ast.List) and part.elts and all(
                isinstance(e, ast.Constant) and type(e.value) is int for e in part.elts):
            k = ListKind(INT)
        if k == INT:
            ndim -= 1
        elif isinstance(k, ArrayKind) and k.dtype == "b" and k.ndim is not None:
            ndim = ndim - k.ndim + 1
        elif (k == ListKind(INT) or isinstance(k, ArrayKind) and k.dtype == "i"
              and k.ndim is not None) and sum(_advanced(p, kind) for p in parts) == 1:
            # one integer array (or list) index: its axes replace the axis it indexes
            ndim = ndim - 1 + (1 if isinstance(k, ListKind) else k.ndim)
        else:
            return ArrayKind(None, container.dtype)
    if ndim == 0:
        return SCALAR if container.dtype == "f" else INT if container.dtype in "ib" else OTHER
    return ArrayKind(ndim, container.dtype)


def _advanced(part, kind) -> bool:
    """Is this part of an index an array or a list (NumPy's advanced indexing)?"""
    return isinstance(part, ast.List) or isinstance(kind(part), (ArrayKind, ListKind))


def rule_result_kind(op: Op, inputs: list):
    """The kind of the result of a rule-bearing NumPy operation (None: not NumPy)."""
    import numpy as np

    key = op.key
    if key is float:  # a Python float, whatever it converts (or it raises)
        return SCALAR
    arrays = [k for k in inputs if isinstance(k, ArrayKind)]
    if not arrays and key not in (np.array, np.asarray, np.copy, np.concatenate, np.stack,
                                  np.hstack, np.vstack):
        return None if not isinstance(key, np.ufunc) and key not in _NUMPY_SCALAR_OK \
            else (SCALAR if all(k in (SCALAR, INT) for k in inputs) else UNKNOWN)
    ranks = [_rank(k) for k in inputs]
    known = [r for r in ranks if r is not None]
    top = max(known) if len(known) == len(ranks) and known else None
    opt = op.options
    if key in _REDUCTIONS or _hashable_in(key, rules.REDUCTIONS):
        x = inputs[0]
        axis, keepdims = _const(opt.get("axis"), None), _const(opt.get("keepdims"), False)
        if keepdims is True:
            return x if isinstance(x, ArrayKind) else SCALAR
        if axis is None:
            return SCALAR
        if axis == "?" or keepdims == "?" or not isinstance(x, ArrayKind) or x.ndim is None:
            return ArrayKind(None)
        drop = len(axis) if isinstance(axis, tuple) else 1
        return SCALAR if x.ndim - drop == 0 else ArrayKind(x.ndim - drop)
    if key in ("matmul", np.matmul, np.dot):
        a, b = ranks[:2]
        if a is None or b is None:
            return ArrayKind(None)
        if a == 0 or b == 0:
            return ArrayKind(max(a, b))
        rank = {(1, 1): 0, (2, 1): 1, (1, 2): 1, (2, 2): 2}.get((a, b), max(a, b))
        return SCALAR if rank == 0 else ArrayKind(rank)
    if key is np.outer:
        return ArrayKind(2)
    if key is np.inner:
        a, b = ranks[:2]
        if a is None or b is None:
            return ArrayKind(None)
        rank = max(a, b) if a == 0 or b == 0 else a + b - 2
        return SCALAR if rank == 0 else ArrayKind(rank)
    if key in (np.trace, np.linalg.det, np.linalg.slogdet):
        # one number per matrix of a stack: det and slogdet take the last two axes,
        # trace the first two; the rest are the stack's
        r = ranks[0]
        one = ArrayKind(None) if r is None else SCALAR if r <= 2 else ArrayKind(r - 2)
        return (one, one) if key is np.linalg.slogdet else one
    if key is np.linalg.inv:
        return inputs[0]
    if key is np.linalg.solve:
        # b is one vector only when it is 1-D (NumPy 2), else a matrix or a stack of
        # them; the stacks of a and b broadcast
        a, b = ranks[:2]
        if a is None or b is None:
            return ArrayKind(None)
        if b == 1:
            return SCALAR if a <= 1 else ArrayKind(a - 1)
        return ArrayKind(max(a, b))
    if key in (np.transpose, np.moveaxis):
        return inputs[0]
    if key is np.ravel:
        return ArrayKind(1)
    if key is np.reshape:
        shape = _const(op.inputs[1])
        if isinstance(shape, int):
            return ArrayKind(1)
        if isinstance(shape, tuple):
            return ArrayKind(len(shape))
        if isinstance(inputs[1], tuple):
            return ArrayKind(len(inputs[1]))
        return ArrayKind(1) if inputs[1] == INT else ArrayKind(None)
    if key is np.expand_dims:
        axis, given = _const(op.inputs[1]), inputs[1]
        added = len(axis) if isinstance(axis, tuple) else len(given) \
            if isinstance(given, tuple) else 1 if isinstance(axis, int) or given == INT else None
        return ArrayKind(None if ranks[0] is None or added is None else ranks[0] + added)
    if key is np.squeeze:
        axis = _const(opt.get("axis"), None)
        if isinstance(axis, int) and ranks[0] is not None:
            return ArrayKind(ranks[0] - 1) if ranks[0] > 1 else SCALAR
        return ArrayKind(None)
    if key in (np.concatenate, np.hstack, np.vstack, np.stack, np.array, np.asarray, np.copy):
        parts = inputs[0]
        elem = parts.elem if isinstance(parts, ListKind) else (
            parts[0] if isinstance(parts, tuple) and parts else UNKNOWN)
        r = _rank(elem) if not isinstance(parts, ArrayKind) else parts.ndim
        if isinstance(parts, ArrayKind):
            return parts
        if key in (np.array, np.asarray, np.copy):
            # (a number gives a 0-d array, nested lists one axis per level; ints an
            # integer array)
            return ArrayKind(_array_rank(parts),
                             "?" if "dtype" in opt else _leaves_dtype(parts))
        if key is np.stack:
            return ArrayKind(None if r is None else r + 1)
        if key is np.vstack:
            return ArrayKind(2)
        if key is np.concatenate:  # axis=None flattens the parts first
            axis = _const(opt.get("axis"), 0)
            if axis is None:
                return ArrayKind(1)
            if axis == "?" and r != 1:
                return ArrayKind(None)
        return ArrayKind(r)
    return ArrayKind(top)  # elementwise, with broadcasting


def fancy_index(index, kind) -> bool:
    """Does the index hold an integer or boolean array, or a list (NumPy's advanced
    indexing, which copies)? `kind(atom)` gives an atom's kind."""
    parts = index.elts if isinstance(index, ast.Tuple) else [index]
    for part in parts:
        if isinstance(part, ast.List):
            return True
        if isinstance(part, ast.Name) and isinstance(kind(part), (ArrayKind, ListKind)):
            return True
    return False


def _view_keys():
    import numpy as np

    return {np.reshape, np.ravel, np.transpose, np.squeeze, np.expand_dims, np.asarray,
            np.swapaxes, np.moveaxis, np.diagonal, np.atleast_1d, np.atleast_2d,
            np.broadcast_to}


def stops_gradient(op: Op) -> bool:
    """Is `op` ``s2sad.stop_gradient(x)`` (its input itself, as a constant)?"""
    return op.kind == "nondiff" and op.key is rules.stop_gradient and len(op.inputs) == 1


def makes_view(op: Op, result_kind, kind) -> bool:
    """May the array `op` makes share memory with an input array (a basic slice,
    ``A[i]`` of a matrix, a reshape, ``.T``, ``stop_gradient``)? `kind(atom)` gives an
    atom's kind."""
    if not isinstance(result_kind, ArrayKind):
        return False
    if stops_gradient(op):
        return True
    if op.kind == "getitem":
        return isinstance(kind(op.inputs[0]), ArrayKind) and not fancy_index(op.inputs[1], kind)
    if op.kind == "nondiff":
        return isinstance(op.key, AsType) and not op.key.copies
    if op.kind == "rule" and not _builtin_rule(op.rule):
        return True  # (a user's rule may hand back its argument)
    return op.kind == "rule" and not op.copies and _hashable_in(op.key, _view_keys()) \
        and not _copies_a_non_array(op, kind)


def result_dtype(result, op: Op, inputs: list):
    """`result` (`rule_result_kind`'s answer) with the dtype kind NumPy gives it: an
    operation on integer arrays and ints that keeps integers (``+ - * // % **``,
    ``abs``, ``maximum``, sums, products, shapes, stacks, ``@``) is an integer array
    (a number: an int), one that makes floats (``/``, ``sqrt``, ``mean``) a float
    array; a float or a complex input makes it float or complex; an input whose
    dtype is not known makes it "?"."""
    import numpy as np

    if not isinstance(result, ArrayKind) and result != SCALAR:
        return result
    kinds = list(inputs)
    if op.key is np.where and len(kinds) == 3:
        kinds = kinds[1:]  # (the condition does not count)
    codes = set()
    for k in kinds:
        if isinstance(k, (ListKind, tuple)) and op.key in _KEEPS_DTYPE:
            codes |= _element_codes(k)
        elif isinstance(k, ArrayKind):
            codes.add(k.dtype)
        elif k == SCALAR:
            codes.add("f")
        elif k == INT:
            codes.add("i")
        else:
            codes.add("?")
    if "c" in codes:
        code = "c"
    elif "f" in codes:
        code = "f"
    elif "?" in codes or not codes:
        code = "?"
    elif _hashable_in(op.key, _KEEPS_INTEGERS) or _hashable_in(op.key, _KEEPS_DTYPE):
        code = "b" if codes == {"b"} and op.key in ("add", "mul", np.maximum, np.minimum) \
            or codes == {"b"} and _hashable_in(op.key, _KEEPS_DTYPE) else "i"
    else:
        code = "f"
    if isinstance(result, ArrayKind):
        return result if code == "f" else ArrayKind(result.ndim, code)
    return INT if code in ("i", "b") else result if code in ("f", "?") else OTHER


def _element_codes(kind) -> set:
    if isinstance(kind, ListKind):
        return _element_codes(kind.elem)
    if isinstance(kind, tuple):
        return set().union(*[_element_codes(k) for k in kind]) if kind else {"f"}
    if isinstance(kind, ArrayKind):
        return {kind.dtype}
    return {"f"} if kind == SCALAR else {"i"} if kind == INT else {"?"}


def _dtype_sets():
    import numpy as np

    keeps_integers = {"add", "sub", "mul", "floordiv", "mod", "pow", "neg", "pos", "matmul",
                      abs, np.abs, np.absolute, np.maximum, np.minimum, np.clip, np.where,
                      np.sum, np.prod, np.max, np.min, np.amax, np.amin, np.square, np.sign,
                      np.dot, np.matmul, np.outer, np.inner, np.trace, np.cumsum, np.negative,
                      np.power, np.add, np.subtract, np.multiply, np.floor_divide, np.mod}
    keeps_dtype = {np.transpose, np.reshape, np.ravel, np.squeeze, np.expand_dims,
                   np.swapaxes, np.copy, np.array, np.asarray, np.concatenate, np.stack,
                   np.hstack, np.vstack, np.broadcast_to}
    return keeps_integers, keeps_dtype


_KEEPS_INTEGERS, _KEEPS_DTYPE = _dtype_sets()


def _same_shape_set():
    import numpy as np

    return {np.sort, np.argsort, np.floor, np.ceil, np.round, np.rint, np.trunc, np.isnan,
            np.isinf, np.isfinite}


_SAME_SHAPE = _same_shape_set()


def _builtin_rule(rule) -> bool:
    """Is `rule` one of s2sad's own (whose functions make new arrays, but for the
    views of `_view_keys`), not a user's?"""
    module = getattr(getattr(rule, "func", None), "__module__", None) or ""
    return not getattr(rule, "derived", False) and module.startswith("s2sad.primitives")


def _copies_a_non_array(op: Op, kind) -> bool:
    """A view-making NumPy function given a list, a tuple or a number makes a new
    array (``np.asarray([a, b])``, ``np.reshape([a, b], ...)``)."""
    import numpy as np

    x = op.inputs[0] if op.inputs else None
    if x is None or op.key is np.broadcast_to:
        return False
    return isinstance(x, (ast.List, ast.Tuple, ast.Constant)) or \
        isinstance(kind(x), (ListKind, tuple)) or kind(x) in (SCALAR, INT)


def makes_new_object(op: Op, call, kind) -> bool:
    """Is the list or array `op` makes certainly a new object, shared with nothing
    (so writing into it changes no other value)? `call` is the statement's value."""
    import numpy as np

    if op.kind in ("listpack", "repeat"):
        return True
    if op.kind == "rule":
        return _builtin_rule(op.rule) and (op.copies or not _hashable_in(op.key, _view_keys())
                                           or _copies_a_non_array(op, kind))
    if op.kind == "getitem":
        return isinstance(kind(op.inputs[0]), ArrayKind) and fancy_index(op.inputs[1], kind)
    if op.kind == "nondiff":
        if isinstance(op.key, AsType):
            return op.key.copies
        # (constructors, and functions without a derivative that always return a new
        # array: sorting, rounding, tests)
        return isinstance(call, (ast.Compare, ast.BinOp, ast.UnaryOp)) or _hashable_in(
            op.key, {np.zeros, np.ones, np.empty, np.full, np.zeros_like, np.ones_like,
                     np.empty_like, np.full_like, np.arange, np.linspace, np.eye, np.identity,
                     np.sort, np.argsort, np.floor, np.ceil, np.round, np.rint, np.trunc,
                     np.isnan, np.isinf, np.isfinite, np.equal, np.not_equal, np.less,
                     np.less_equal, np.greater, np.greater_equal, np.logical_and,
                     np.logical_or, np.logical_not, np.argwhere})
    return False


def _hashable_in(key, collection) -> bool:
    try:
        return key in collection
    except TypeError:
        return False


def constant_kind(call: ast.Call, obj, kind, refs=None):
    """The kind of the result of a NumPy function with no derivative (an array
    constructor such as `np.zeros(n)` or `np.arange(5.0)`, or `np.shape(x)`); None when
    it is not one of those. `kind(atom)` gives an argument's kind, `refs` the
    function's static names (a ``dtype=`` argument's meaning). An array's dtype kind
    is "?" where it cannot be known before the call."""
    import numpy as np

    args = list(call.args)
    keywords = {k.arg: k.value for k in call.keywords}
    dtype = keywords.get("dtype")
    given = (dtype_kind(dtype, refs or {}, kind) or "?") if dtype is not None else None
    if isinstance(obj, AsType) and isinstance(call.func, ast.Attribute):
        x = kind(call.func.value)
        return ArrayKind(x.ndim if isinstance(x, ArrayKind) else None, obj.dtype)
    if obj in (np.zeros, np.ones, np.empty, np.full) and args:
        shape = args[0]
        value = _const(shape)
        k = kind(shape)
        if isinstance(value, int) or k == INT:
            rank = 1
        elif isinstance(value, tuple):
            rank = len(value)
        elif isinstance(k, tuple):
            rank = len(k)
        else:
            rank = None
        fill = kind(args[1]) if obj is np.full and len(args) > 1 else SCALAR
        return ArrayKind(rank, given or ("f" if fill == SCALAR else "i" if fill == INT else "?"))
    if obj in (np.zeros_like, np.ones_like, np.empty_like, np.full_like) and args:
        x = kind(args[0])
        if isinstance(x, ArrayKind):
            return ArrayKind(x.ndim, given or x.dtype)
        rank = _array_rank(x)  # (of a number, a 0-d array; of a list, its rank)
        if rank is not None:
            return ArrayKind(rank, "f" if dtype is None and x == SCALAR or isinstance(
                x, (ListKind, tuple)) and dtype is None and _all_floats(x) else "?")
        return UNKNOWN
    if obj in (np.arange, np.linspace):
        floats = obj is np.linspace or any(
            isinstance(a, ast.Constant) and isinstance(a.value, float) or kind(a) == SCALAR
            for a in args)
        ints = all(isinstance(a, ast.Constant) and type(a.value) is int or kind(a) == INT
                   for a in args)
        return ArrayKind(1, given or ("f" if floats else "i" if ints else "?"))
    if obj in (np.eye, np.identity):
        return ArrayKind(2, given or "f")
    if _hashable_in(obj, _SAME_SHAPE) and len(args) == 1 and not keywords:
        # (sorting, rounding and tests of an array: a new array of its shape)
        x = kind(args[0])
        if isinstance(x, ArrayKind):
            code = {np.sort: x.dtype, np.round: x.dtype, np.argsort: "i"}.get(
                obj, "f" if x.dtype in "fib" else x.dtype)
            if obj in (np.isnan, np.isinf, np.isfinite):
                code = "b"
            return ArrayKind(x.ndim, code)
    if obj in (np.ndim, np.size):
        return INT
    if obj in (np.argmax, np.argmin):
        return _arg_extreme_kind(call, kind)
    if obj is np.shape and args:
        x = kind(args[0])
        if isinstance(x, ArrayKind) and x.ndim is not None:
            return (INT,) * x.ndim
    return None


def _arg_extreme_kind(call: ast.Call, kind):
    """The kind of ``np.argmax(x, axis, keepdims=...)`` or of the method
    ``x.argmax(axis)`` (also argmin): an int without an axis, else an integer array
    with the axis dropped (kept with ``keepdims=True``)."""
    func, args = call.func, list(call.args)
    if isinstance(func, ast.Attribute) and isinstance(kind(func.value), ArrayKind):
        x = func.value  # the method: the array is the receiver
    else:
        x, args = (args[0] if args else None), args[1:]
    keywords = {k.arg: k.value for k in call.keywords}
    axis = _const(keywords.get("axis", args[0] if args else None))
    keepdims = _const(keywords.get("keepdims"), False)
    x_kind = kind(x) if x is not None else UNKNOWN
    rank = x_kind.ndim if isinstance(x_kind, ArrayKind) else None
    if keepdims is True:
        return ArrayKind(rank, "i")
    if axis is None and keepdims is False:
        return INT
    if rank is None or keepdims == "?":
        return ArrayKind(None, "i")
    return INT if rank <= 1 else ArrayKind(rank - 1, "i")


def reductions() -> set:
    """The NumPy reductions (sum, mean, max, var, norm, ...), and the other rules'
    (`rules.REDUCTIONS`), which take axis= and keepdims=."""
    return _REDUCTIONS | rules.REDUCTIONS if rules.REDUCTIONS else _REDUCTIONS


def _numpy_sets():
    import numpy as np

    reductions = {np.sum, np.mean, np.prod, np.max, np.min, np.amax, np.amin, np.var, np.std,
                  np.linalg.norm}
    scalar_ok = {np.clip, np.where, np.linalg.norm, np.sum, np.mean, np.prod, np.max, np.min}
    return reductions, scalar_ok


try:
    _REDUCTIONS, _NUMPY_SCALAR_OK = _numpy_sets()
except ImportError:  # pragma: no cover - numpy is a dependency
    _REDUCTIONS, _NUMPY_SCALAR_OK = set(), set()
