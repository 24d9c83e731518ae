"""structure_values: what `structures` knows of a container where it rewrites a function.

A `Node` is a container whose structure is known (its type, keys, and children:
other nodes, or the variables holding its leaves); a `Const` a value known when
the derivative is built (an unrolled loop's index, a key; `known` finds it for
an expression, `computed` works out those made of others, `outside` reads a
global's, `assigned_once` the names a constant may be kept in).
`leaf_names` names the
parameters that replace a container parameter, `node_of` makes its node, and
`copy_env` copies the containers names hold (for the branches of an `if`),
`assign` and `called` make and read the statements the rewrite writes, `located` and
`fill_lines` give them the user's lines; `joined` (``a + b`` of lists of containers)
and `tree_call` (``s2sad.tree_leaves``, ``s2sad.tree_map``) make the containers those
give.

Imports `ir` only.
"""

from __future__ import annotations

import ast
import copy
import dataclasses
from dataclasses import dataclass, field

from ..ir import trees
from ..ir.trees import Spec
from .tree_index import fix_locations


class Node:
    """A container whose structure is known where the function is transformed: its
    type, how its items are reached (`form`, as `Spec.form`), their `keys`, and its
    `children`: a `Node`, or the name of the variable holding a leaf. `owned`: made
    by the function (its items may be assigned); `depth`: how many loops over values
    known at run time were around the display that made it (its structure may change
    in the iteration that made it)."""

    def __init__(self, tp, form, keys, children, owned, depth=None):
        self.type = tp
        self.form = form
        self.keys = list(keys)
        self.children = list(children)
        self.owned = owned
        self.depth = depth  # (of the loops around the display that made it)

    def index(self, key):
        return trees.item_index(self.form, self.keys, len(self.children), key)

    def spec(self) -> Spec:
        return Spec(self.type, tuple(self.keys),
                    tuple(c.spec() if isinstance(c, Node) else None for c in self.children),
                    self.form)

    def leaves(self) -> list:
        out = []
        for c in self.children:
            out.extend(c.leaves() if isinstance(c, Node) else [c])
        return out

    def iteration(self) -> list:
        """What ``for x in node`` gives: a dict's keys, a sequence's items."""
        if self.form == "dict":
            return [Const(k) for k in self.keys]
        if self.form == "sequence":
            return list(self.children)
        return None


@dataclass(frozen=True)
class Const:
    """A value known where the function is transformed (a loop's index, a key)."""

    value: object


@dataclass
class Rewritten:
    tree: ast.FunctionDef
    leaf_names: dict  # parameter -> the names of its leaves' parameters, in order
    out_spec: Spec | None
    # the call's text -> the user function put in place of it (`structure_calls.inline`)
    put_in_place: dict = field(default_factory=dict)
    # a global's or closure variable's name -> the value the rewrite read of it and
    # decided something by (a loop's count, a key, a test): guarded by value
    decided: dict = field(default_factory=dict)
    # a name given a callee's variable put in place -> (the callee, the variable's
    # name, its value): `defaults.capture`
    captured: dict = field(default_factory=dict)


def leaf_names(param: str, spec: Spec, taken: set) -> list:
    """The parameters that replace `param`, one per leaf of `spec`, in order:
    ``params_W``, ``params_layers_0_b``, clear of the names in `taken` (which it
    extends)."""
    out = []
    _add_leaf_names(spec, param, taken, out)
    return out


def _add_leaf_names(s: Spec, prefix: str, taken: set, out: list) -> None:
    """`leaf_names`'s walk, the names of `s`'s leaves put in `out`."""
    for i, child in enumerate(s.children):
        key = s.keys[i] if s.keys else i
        part = key if isinstance(key, str) and key.isidentifier() else str(i)
        name = f"{prefix}_{part}"
        if child is None:
            while name in taken:
                name += "_"
            taken.add(name)
            out.append(name)
        else:
            _add_leaf_names(child, name, taken, out)


def node_of(spec: Spec, names) -> Node:
    children = [next(names) if c is None else node_of(c, names) for c in spec.children]
    return Node(spec.type, spec.form, spec.keys, children, owned=False)


def copy_env(env: dict) -> dict:
    memo: dict = {}
    return {k: _copy_node(v, memo) for k, v in env.items()}


def _copy_node(n, memo: dict):
    """`copy_env`'s copy of one `Node` (`memo`: the copies made, by id)."""
    if id(n) in memo:
        return memo[id(n)]
    new = Node(n.type, n.form, n.keys, [], n.owned)
    memo[id(n)] = new
    new.children = [_copy_node(c, memo) if isinstance(c, Node) else c for c in n.children]
    return new


DICT_METHODS = ("items", "values", "keys")


def joined(rw, e, pre):
    """``a + b`` of two lists (or two tuples) of containers (``params[:-1] + [(W,
    b)]``), each one the function reads or builds (`rw` the rewriter): the `Node` of
    their items in order, as Python's new list holds them; None where either side is
    not one (then it is not a container, and `rw` leaves the line as it is)."""
    if not (_of_containers(rw, e.left) and _of_containers(rw, e.right)):
        return None
    left, right = rw.value(e.left, pre), rw.value(e.right, pre)
    if not (isinstance(left, Node) and isinstance(right, Node)):
        return None  # (a comprehension over values known only at run time)
    if left.type is not right.type or left.type not in (list, tuple) or \
            left.form != "sequence":
        raise rw.refuse(e, "s2sad joins two lists, or two tuples, of containers with `+`")
    return Node(left.type, "sequence", [], [rw.item(x, pre) for x in left.iteration()] +
                [rw.item(x, pre) for x in right.iteration()], owned=True,
                depth=rw.loop_depth)


def _of_containers(rw, x) -> bool:
    """Is `x` a list or tuple of containers (`joined`'s question of each side)?"""
    if isinstance(x, ast.Call) and len(x.args) == 1 and rw.loc_refs(x.func) in (list, tuple):
        return _of_containers(rw, x.args[0])  # (tuple(new[:1]) + tuple(params[1:]))
    if isinstance(x, ast.ListComp):
        return isinstance(x.elt, (ast.Tuple, ast.List, ast.Dict, ast.DictComp))
    if isinstance(x, (ast.List, ast.Tuple)):
        return any(isinstance(v, (ast.Tuple, ast.List, ast.Dict)) or isinstance(
            rw.value(v, [], probe=True), Node) for v in x.elts)
    return isinstance(rw.value(x, [], probe=True), Node)


def tree_call(rw, e, pre, probe):
    """``s2sad.tree_leaves(p)`` of a container `p`: the list of its leaves (read
    only: not `owned`); ``p.values()`` of a dict argument `p`, the tuple of its items; ``s2sad.tree_map(f, p, g, ...)`` of containers of one
    structure: the container of ``f(leaf, leaf of g, ...)``, one call a leaf (a
    lambda `f` a local function, put in place at each); a namedtuple's
    ``p._replace(W=...)`` and ``dataclasses.replace(p, W=...)``: the container with
    those items replaced; None for any other (`rw` the rewriter, `pre` the lines
    before, `probe` only asks)."""
    if isinstance(e.func, ast.Attribute) and e.func.attr in ("get", "copy"):
        got = _dict_method(rw, e, pre, probe)
        if got is not None:
            return got
    if isinstance(e.func, ast.Attribute) and e.func.attr == "values" and not e.args \
            and not e.keywords:
        # (``p.values()`` of a dict argument: its items, which the function cannot
        # change, so the view and a tuple of them are one; a dict the function made,
        # which a later ``d[k] = v`` would change under the view, stays refused)
        base = rw.value(e.func.value, pre, probe=True)
        return Node(tuple, "sequence", [], base.children, False) if isinstance(
            base, Node) and base.form == "dict" and not base.owned else None
    target = "_replace" if isinstance(e.func, ast.Attribute) and e.func.attr == "_replace" \
        else rw.loc_refs(e.func)
    if target in ("_replace", dataclasses.replace) and not probe:
        return _replaced(rw, e, pre, target)
    if target is not trees.tree_map and target is not trees.tree_leaves or not e.args:
        return None
    if target is trees.tree_leaves:
        base = rw.value(e.args[0], pre, probe=probe)
        return Node(list, "sequence", [], base.leaves(), False) if isinstance(
            base, Node) else None
    if probe or len(e.args) < 2 or e.keywords:
        return None
    nodes = [rw.value(x, pre, probe=True) for x in e.args[1:]]
    if not isinstance(nodes[0], Node):
        return None
    if any(not isinstance(n, Node) or n.spec() != nodes[0].spec() for n in nodes):
        raise rw.refuse(e, "s2sad maps over containers of parameters of one structure")
    f = e.args[0]
    if isinstance(f, ast.Lambda):
        named = ast.copy_location(ast.Assign(targets=[ast.Name(
            id=rw.anonymous(), ctx=ast.Store())], value=f), e)
        rw.local_lambda(named)
        f = ast.Name(id=named.targets[0].id, ctx=ast.Load())
    names = []
    for leaves in zip(*(n.leaves() for n in nodes)):
        names.append(rw.anonymous())
        call = ast.copy_location(ast.Call(func=copy.deepcopy(f), args=[
            ast.Name(id=x, ctx=ast.Load()) for x in leaves], keywords=[]), e)
        pre.append(assign(names[-1], rw.expr(call), e))
    got = node_of(nodes[0].spec(), iter(names))
    got.owned, got.depth = True, rw.loop_depth
    return got


def _dict_method(rw, e, pre, probe):
    """`tree_call` of ``p.get(k)``, ``p.get(k, d)`` (the item, or what the default
    is where it is a container or a leaf: `absent_default` gives another default)
    and ``p.copy()`` of a dict or list (its shallow copy, as ``dict(p)``)."""
    base = rw.value(e.func.value, pre, probe=True)
    if not isinstance(base, Node) or e.keywords:
        return None
    if e.func.attr == "copy":
        if probe or e.args or base.type not in (dict, list):
            return None
        return Node(base.type, base.form, base.keys, own_slots(
            base.children, rw.anonymous, pre, e), owned=True, depth=rw.loop_depth)
    if base.form != "dict" or not 1 <= len(e.args) <= 2:
        return None
    key = rw.static(e.args[0])
    if key is None:
        if probe:
            return None
        raise rw.refuse(e, "s2sad reads the items of a container of parameters by keys it "
                           "knows when it builds the derivative; this key is known only "
                           "when the function runs")
    if key.value in base.keys:
        return base.children[base.keys.index(key.value)]
    return rw.value(e.args[1], pre, probe=probe) if len(e.args) == 2 else Const(None)


def absent_default(rw, e):
    """The default of ``p.get(k, d)`` where the dict `p` has no key `k`, `d` an
    expression that is not a container (the line reads `d` there); else None."""
    if not (isinstance(e, ast.Call) and isinstance(e.func, ast.Attribute) and
            e.func.attr == "get" and len(e.args) == 2 and not e.keywords):
        return None
    base = rw.value(e.func.value, [], probe=True)
    key = rw.static(e.args[0]) if isinstance(base, Node) and base.form == "dict" else None
    return e.args[1] if key is not None and key.value not in base.keys else None


def plain_constants(tree) -> None:
    """The keys the rewriting wrote into `tree` as constants, where they are NumPy
    scalars (a dict keyed by ``np.unique``'s values), as the Python numbers and
    strings they equal: a constant of the code must be one (``0`` finds the key
    ``np.int64(0)``, which hashes and compares as it does)."""
    for n in ast.walk(tree):
        if type(n) is ast.Constant and hasattr(n.value, "item") and \
                type(n.value).__module__ == "numpy":
            n.value = n.value.item()


def merged(rw, entries, pre, hint, at, keywords=()) -> Node:
    """The dict of ``{**p, "W": v}``, ``dict(p, W=v)`` and ``dict(**p, W=v)``:
    `entries` ``(key, value)`` in order, a key an expression (or a str) and None for
    a dict unpacked with ``**`` (or `dict`'s positional one). Its items in Python's
    order: a later key replaces an earlier one's value where that stands; each of an
    unpacked dict's variables copied (`own_slots`). None where an unpacked value is
    not a dict the function's containers know (a dict of settings, a list of pairs:
    the line stays as written). A key `dict`'s `keywords` give twice is Python's
    TypeError."""
    if not all(isinstance(n := rw.value(v, [], probe=True), Node) and n.form == "dict"
               for k, v in entries if k is None):
        return None
    if keywords:
        named = []
        for k in keywords:
            named += [k.arg] if k.arg is not None else rw.value(k.value, [], probe=True).keys
        twice = next((k for i, k in enumerate(named) if k in named[:i]), None)
        if twice is not None:
            raise rw.refuse(at, f"dict() got multiple values for keyword argument {twice!r}",
                            hint="Give each key once.")
    keys, children = [], []

    def put(k, child):
        if k in keys:
            children[keys.index(k)] = child
        else:
            keys.append(k)
            children.append(child)

    for k, v in entries:
        if k is None:
            base = rw.value(v, pre)
            for key, child in zip(base.keys, own_slots(base.children, rw.anonymous, pre, at)):
                put(key, child)
            continue
        key = Const(k) if isinstance(k, str) else rw.static(k)
        if key is None:
            raise rw.refuse(k, "s2sad builds dicts whose keys it knows when it builds the "
                               "derivative (constants, or a loop's keys)", hint="Use constant keys.")
        put(key.value, rw.made(dict, "dict", [key.value], [v], pre, hint).children[0])
    return Node(dict, "dict", keys, children, owned=True, depth=rw.loop_depth)


def _replaced(rw, e, pre, target):
    """`tree_call` of ``p._replace(W=v)`` (`target` "_replace") or
    ``dataclasses.replace(p, W=v)``."""
    base = rw.value(e.func.value if target == "_replace" else e.args[0], pre, probe=True)
    if not isinstance(base, Node):
        return None
    if e.args[target != "_replace":] or any(k.arg is None or base.index(k.arg) is None
                                           for k in e.keywords):
        raise rw.refuse(e, f"s2sad replaces fields of a {base.type.__name__} of parameters "
                           "named by keywords", hint="Write p._replace(W=...) or "
                                                     "dataclasses.replace(p, W=...).")
    children = list(base.children)
    for k in e.keywords:
        got = rw.value(k.value, pre)
        if not isinstance(got, (Node, str)):
            got = rw.anonymous()
            pre.append(assign(got, rw.expr(k.value), k.value))
        children[base.index(k.arg)] = got
    return Node(base.type, base.form, base.keys, children, owned=True, depth=rw.loop_depth)


def own_slots(children, fresh, pre, at) -> list:
    """The items of a shallow copy (``dict(p)``) of a container whose items are
    `children`: each variable copied into a new one (``fresh()`` names it; the copy
    to `pre`), so that a write into the copy leaves the original as it was; an inner
    container shared, as Python shares it."""
    out = []
    for c in children:
        if isinstance(c, str):
            name = fresh()
            pre.append(assign(name, ast.Name(id=c, ctx=ast.Load()), at))
            c = name
        out.append(c)
    return out


def starred(items, elts, fresh, pre, at):
    """The value each target of `elts` (an unpacking's, ``first, *rest = p``) takes of
    `items` (a container's, None for one that has none): the part a ``*`` takes a
    new list (`own_slots`: `pre` gets the copies), as in Python; `items` itself where
    no target is starred, or where there are too few items."""
    k = next((i for i, e in enumerate(elts) if isinstance(e, ast.Starred)), None)
    if items is None or k is None or len(items) < len(elts) - 1:
        return items
    end = len(items) - (len(elts) - k - 1)
    middle = Node(list, "sequence", [], own_slots(items[k:end], fresh, pre, at), owned=True)
    return list(items[:k]) + [middle] + list(items[end:])


def unstarred(target):
    return target.value if isinstance(target, ast.Starred) else target


_INT_OPS = {ast.Add: lambda x, y: x + y, ast.Sub: lambda x, y: x - y,
            ast.Mult: lambda x, y: x * y, ast.FloorDiv: lambda x, y: x // y,
            ast.Mod: lambda x, y: x % y}
_CONVERSIONS = {-1: lambda v: v, ord("s"): str, ord("r"): repr, ord("a"): ascii}
_FORMATTED = (str, int, float)  # (bool is an int: ``f"{True}"`` is "True" here too)


def computed(e, static):
    """The `Const` Python gives `e` where its parts' values are known now (`static`
    of each): arithmetic of ints (``+ - * // %``), strings joined by ``+``, an
    f-string, ``"W%d" % i``, ``"W{}".format(i)``, ``"_".join(...)``, ``str(v)``, a
    tuple, an item of a string or tuple, ``and`` and ``or`` (to the value that decides
    them); None for anything else, or where Python would raise (``i // 0``), which
    then happens where the function runs. These make the keys a loop reads a
    container by (``p[f"W{i}"]``, ``p["b" + str(i)]``, ``p[(name, i)]``)."""
    try:
        if isinstance(e, ast.BinOp):
            a, b = static(e.left), static(e.right)
            if a is None or b is None:
                return None
            a, b = a.value, b.value
            if all(type(x) is int for x in (a, b)) and type(e.op) in _INT_OPS:
                return Const(_INT_OPS[type(e.op)](a, b))
            if type(a) is str and type(b) is str and isinstance(e.op, ast.Add):
                return Const(a + b)
            if type(a) is str and isinstance(e.op, ast.Mod) and all(
                    isinstance(x, _FORMATTED) for x in (b if type(b) is tuple else (b,))):
                return Const(a % b)  # (``"W%d" % i``)
            return None
        if isinstance(e, ast.JoinedStr):
            parts = []
            for v in e.values:
                if isinstance(v, ast.Constant) and type(v.value) is str:
                    parts.append(v.value)
                    continue
                if not isinstance(v, ast.FormattedValue) or v.conversion not in _CONVERSIONS:
                    return None
                x = static(v.value)
                spec = Const("") if v.format_spec is None else static(v.format_spec)
                if x is None or spec is None or not isinstance(x.value, _FORMATTED):
                    return None
                parts.append(format(_CONVERSIONS[v.conversion](x.value), spec.value))
            return Const("".join(parts))
        if isinstance(e, ast.Call) and isinstance(e.func, ast.Attribute) and \
                e.func.attr in ("format", "join") and isinstance(e.func.value, ast.Constant) \
                and type(e.func.value.value) is str:
            # (``"W{}".format(i)``, ``"_".join(("W", str(i)))``)
            args = [static(x) for x in e.args]
            keywords = {k.arg: static(k.value) for k in e.keywords}
            if None in args or None in keywords.values() or None in keywords:
                return None
            values = [x.value for x in args]
            if e.func.attr == "join":
                return Const(e.func.value.value.join(*values)) if len(values) == 1 and type(
                    values[0]) is tuple and all(type(v) is str for v in values[0]) else None
            if not all(isinstance(v, _FORMATTED) for v in values + [
                    k.value for k in keywords.values()]):
                return None
            return Const(e.func.value.value.format(*values, **{
                n: k.value for n, k in keywords.items()}))
        if called(e, "str") and len(e.args) == 1 and not e.keywords:
            x = static(e.args[0])
            return Const(str(x.value)) if x is not None and isinstance(x.value, _FORMATTED) \
                else None
        if isinstance(e, ast.BoolOp):  # (``i > 0 and f"b{i}" in p``, as Python stops)
            for k, x in enumerate(e.values):
                got = static(x)
                if got is None:
                    return None
                if k == len(e.values) - 1 or bool(got.value) != isinstance(e.op, ast.And):
                    return got
        if isinstance(e, ast.Tuple):
            items = [static(x) for x in e.elts]
            return None if None in items else Const(tuple(x.value for x in items))
        if isinstance(e, ast.Subscript) and not isinstance(e.slice, ast.Slice):
            base, key = static(e.value), static(e.slice)  # (``"abc"[i]``, ``keys[i]``)
            if base is not None and key is not None and type(base.value) in (str, tuple) \
                    and type(key.value) is int:
                return Const(base.value[key.value])
    except (ArithmeticError, ValueError, TypeError, IndexError):
        return None
    return None


def _classes(rw, e):
    """The classes `e` names (a builtin's or global's name, a chain of attributes, a
    tuple of them), as a tuple; None where it names something else."""
    parts = e.elts if isinstance(e, ast.Tuple) else [e]
    out = []
    for part in parts:
        chain = []
        while isinstance(part, ast.Attribute):
            chain.append(part.attr)
            part = part.value
        if not isinstance(part, ast.Name) or part.id in rw.caller_locals or part.id in rw.env:
            return None
        value = rw.lookup(part.id)
        for attr in reversed(chain):
            value = getattr(value, attr, None)
        if not isinstance(value, type):
            return None
        out.append(value)
    return tuple(out) if out else None


def known(rw, e):
    """The value `rw.static` finds for `e` (`rw`, a `structures._Rewriter`)."""
    if isinstance(e, ast.Constant):
        return Const(e.value)
    if isinstance(e, ast.Name) and e.id in rw.consts:
        return rw.consts[e.id]
    if isinstance(e, ast.Name):
        return outside(rw, e.id)
    if isinstance(e, ast.UnaryOp) and isinstance(e.op, ast.Not):
        inner = known(rw, e.operand)
        return None if inner is None else Const(not inner.value)
    if isinstance(e, ast.UnaryOp) and isinstance(e.op, ast.USub):
        inner = known(rw, e.operand)
        if inner is not None and isinstance(inner.value, (int, float)):
            return Const(-inner.value)
    if isinstance(e, ast.Call) and called(e, "len") and len(e.args) == 1:
        v = rw.value(e.args[0], [], probe=True)
        if isinstance(v, Node):
            return Const(len(v.children))
    if isinstance(e, ast.Call) and called(e, "isinstance") and len(e.args) == 2:
        v, classes = rw.value(e.args[0], [], probe=True), _classes(rw, e.args[1])
        if isinstance(v, Node) and classes is not None:  # (``isinstance(p, dict)``)
            return Const(issubclass(v.type, classes))
    if isinstance(e, ast.Compare) and len(e.ops) == 1 and isinstance(
            e.ops[0], (ast.Is, ast.IsNot)) and isinstance(e.left, ast.Call) and called(
            e.left, "type") and len(e.left.args) == 1:  # (``type(p) is dict``)
        v, classes = rw.value(e.left.args[0], [], probe=True), _classes(rw, e.comparators[0])
        if isinstance(v, Node) and classes is not None and len(classes) == 1:
            return Const((v.type is classes[0]) == isinstance(e.ops[0], ast.Is))
    if isinstance(e, ast.Compare) and len(e.ops) == 1 and \
            isinstance(e.ops[0], (ast.In, ast.NotIn)):
        v = rw.value(e.comparators[0], [], probe=True)
        key = rw.static(e.left)
        if isinstance(v, Node) and v.form == "dict" and key is not None:
            found = key.value in v.keys
            return Const(found if isinstance(e.ops[0], ast.In) else not found)
    if isinstance(e, ast.Compare) and len(e.ops) == 1 and type(e.ops[0]) in _COMPARE:
        a, b = rw.static(e.left), rw.static(e.comparators[0])
        if a is not None and b is not None:
            try:
                return Const(bool(_COMPARE[type(e.ops[0])](a.value, b.value)))
            except TypeError:
                return None
    return computed(e, rw.static)

def outside(rw, name):
    """The value of a global or closure variable `name` holding an int, a bool, a
    string or a tuple of ints and strings (``range(N_LAYERS)``, ``if USE_BIAS:``),
    as `Const`: the derivative is built for that value, and the name is guarded
    by it (`decided`: another value builds the derivative again); None for a
    local name or any other value."""
    if name in rw.caller_locals or name in rw.env or "%" in name or \
            name in rw.local_functions:
        return None
    value = rw.lookup(name)
    if type(value) is not bool and not key_like(value):
        return None
    rw.reading[name] = value
    return Const(value)


_COMPARE = {ast.Eq: lambda a, b: a == b, ast.NotEq: lambda a, b: a != b,
            ast.Lt: lambda a, b: a < b, ast.LtE: lambda a, b: a <= b,
            ast.Gt: lambda a, b: a > b, ast.GtE: lambda a, b: a >= b}


def own_names(e) -> set:
    """The names a comprehension's ``for`` clauses or a lambda's parameters bind:
    its own, which hide the enclosing function's inside it."""
    if isinstance(e, ast.Lambda):
        return {a.arg for a in ast.walk(e.args) if isinstance(a, ast.arg)}
    return {n.id for g in e.generators for n in ast.walk(g.target) if isinstance(n, ast.Name)}


def key_like(v) -> bool:
    """An int, a string, or a tuple of these (a count or a key, kept as a constant)."""
    return type(v) in (int, str) or type(v) is tuple and all(map(key_like, v))


def assigned_once(tree) -> frozenset:
    """The names `tree` (a function) binds at one place only: one assignment, no
    parameter, loop, ``del``, ``import``, ``except ... as``, ``global`` or
    ``nonlocal`` of the name anywhere in it (nested functions included). Each time
    that one line runs, a value computed of constants gives the name the same value,
    so later lines may read it as that constant (`Const`)."""
    count: dict = {}
    for n in ast.walk(tree):
        if isinstance(n, ast.Name) and not isinstance(n.ctx, ast.Load):
            names = [n.id] if not isinstance(n.ctx, ast.Del) else [n.id, n.id]
        elif isinstance(n, ast.arg):
            names = [n.arg, n.arg]
        elif isinstance(n, (ast.Global, ast.Nonlocal)):
            names = list(n.names) * 2
        elif isinstance(n, ast.alias):
            names = [(n.asname or n.name).split(".")[0]] * 2
        elif isinstance(n, ast.ExceptHandler) and n.name:
            names = [n.name, n.name]
        elif isinstance(n, (ast.For, ast.AsyncFor, ast.comprehension)):
            names = [x.id for x in ast.walk(n.target) if isinstance(x, ast.Name)]
        elif isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            names = [n.name, n.name]
        else:
            continue
        for name in names:
            count[name] = count.get(name, 0) + 1
    return frozenset(n for n, k in count.items() if k == 1)


def called(e, name) -> bool:
    return isinstance(e, ast.Call) and isinstance(e.func, ast.Name) and e.func.id == name


def assign(name, value, at):
    node = ast.Assign(targets=[ast.Name(id=name, ctx=ast.Store())], value=value)
    if at is not None and getattr(at, "lineno", None) is not None:
        ast.copy_location(node, at)
        fix_locations(node)
        for n in ast.walk(node):
            if hasattr(n, "lineno"):
                n.lineno = n.end_lineno = at.lineno
    return node


def located(lines, at) -> list:
    """`lines`, each statement and expression in them without a place given the
    place of `at` (the user's line they are written for)."""
    for node in lines:
        for n in ast.walk(node):
            if isinstance(n, (ast.stmt, ast.expr)) and getattr(n, "lineno", None) is None:
                ast.copy_location(n, at)
    return lines


def fill_lines(body, line):
    """Give each statement made without a line the line of the one before it."""
    for s in body:
        if getattr(s, "lineno", None) is None:
            for n in ast.walk(s):
                if isinstance(n, (ast.stmt, ast.expr)) and getattr(n, "lineno", None) is None:
                    n.lineno = n.end_lineno = line
                    n.col_offset, n.end_col_offset = 0, 0
        line = s.lineno
        for field in ("body", "orelse", "finalbody"):
            inner = getattr(s, field, None)
            if isinstance(inner, list) and inner and isinstance(inner[0], ast.stmt):
                fill_lines(inner, line)


def dict_of_pairs(node) -> bool:
    """Is `node` ``dict(zip(keys, values))`` (a `Call`; `higher_order.listed_pairs`
    makes it a dict comprehension), or a dict comprehension of computed values keyed
    by the variable of its one ``for`` (``{k: v for k, v in zip(names, arrays)}``)?
    `structures` builds either as a display where it knows the keys."""
    if isinstance(node, ast.Call):
        return len(node.args) == 1 and isinstance(node.args[0], ast.Call) and isinstance(
            node.args[0].func, ast.Name) and node.args[0].func.id == "zip"
    return len(node.generators) == 1 and not isinstance(node.value, ast.Constant) and \
        isinstance(node.key, ast.Name) and any(isinstance(n, ast.Name) and n.id == node.key.id
                                               for n in ast.walk(node.generators[0].target))
