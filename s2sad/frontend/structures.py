"""structures: a function specialised on the structure of its container arguments.

Contract
--------
`rewrite(tree, specs, loc)` takes a parsed ``ast.FunctionDef`` and, for some of its
parameters, the structure of the container the call passes (`ir.trees.Spec`: a dict,
a list or tuple of containers, a namedtuple, a dataclass, a registered class), and
returns a `Rewritten`: the function with each such parameter replaced by one
parameter per leaf (`leaf_names`: ``params%W``, ``params%layers%0%b``, printed
``params_W``...), every operation on the containers done when the derivative is
built, and what the function returns when that is a container (`out_spec`, the
return then being the tuple of its leaves). What is left is the plain Python over
floats and arrays the later stages differentiate, so a dict of parameters costs
what one argument per array costs.

Done statically, since the structure is known: ``p["W"]`` and ``p.W`` (the leaf's
variable), ``p[0]``, ``p[-1]``, ``p[1:]``, ``len(p)``, ``"W" in p``, unpacking
(``W, b = layer``), ``for`` over a container, ``enumerate``, ``zip``, ``reversed``,
``.items()``, ``.values()``, ``.keys()`` and ``range(len(p))`` (the loop unrolled,
its variable a constant in each copy), building dicts, lists and tuples that hold
containers or are dicts (``{"h": h}``, ``dict(a=...)``, a namedtuple's or a
dataclass's constructor), ``d[k] = v`` into a container the function made, and
returning one. Anything else a container meets (a container passed to a function,
indexed by a value known only at run time, changed in a loop that is not unrolled)
is refused with an `S2SADError` at the user's line that says what is supported.

Its values (`Node`, `Const`) are in `structure_values`. Imports `ir` and `errors`.
"""

from __future__ import annotations

import ast
import copy
import re

from ..errors import NotDifferentiableError, UnsupportedSyntaxError
from ..ir import trees
from . import pairs, structure_calls
from .expand import single_displays
from .local_functions import LocalFunctions
from .structure_calls import CallRewrites
from .structure_loops import (LoopRewrites, consumed_generators, container_comprehension,
                              scoped, static_dict_comprehension)
from .structure_values import (DICT_METHODS, Const, Node, Rewritten, assign, assigned_once,
                               absent_default, copy_env, fill_lines, joined, key_like, known,
                               merged, plain_constants,
                               leaf_names, node_of, starred, tree_call, unstarred)

_CONTAINERS_HINT = ("Read a container's items by constant keys (p[\"W\"], p.W, p[0]) or "
                    "loop over it (for W, b in params:); pass the arrays themselves to "
                    "other functions.")
_KEYS_HINT = ("Read items by constant keys (p[\"W\"], p[0]), by keys made of the variable of "
              "a loop of at most 1,000 steps whose count s2sad knows (for i in range(len(p) "
              "// 2): ... p[f\"W{i}\"]), or loop over the container (for W, b in params:).")


def rewrite(tree: ast.FunctionDef, specs: dict, loc, lookup, parse=None,
            leaves_out=True, classes=None) -> Rewritten:
    """See the module docstring. `loc` builds errors at the user's lines
    (`parse.Located`); ``lookup(name)`` is the value of a free name (None if none);
    ``parse(function)`` parses a function of the user's a container is passed to
    (`structure_calls.inline`; `classes`: the caller's receivers). Without `leaves_out`
    (a function the entry points do not call themselves), a container it returns is
    returned built (a display)."""
    tree = copy.deepcopy(tree)
    env = {}
    names_of = {}
    taken = {n.id for n in ast.walk(tree) if isinstance(n, ast.Name)} | {
        a.arg for a in ast.walk(tree.args) if isinstance(a, ast.arg)}
    statics = {p for p, spec in specs.items() if isinstance(spec, trees.Static)}
    for p, spec in specs.items():
        if p in statics:  # (a function passed as an argument: read from a cell)
            names_of[p] = []
            continue
        names_of[p] = leaf_names(p, spec, taken)
        env[p] = node_of(spec, iter(names_of[p]))
    args = tree.args
    kw_defaults = dict(zip([a.arg for a in args.kwonlyargs], args.kw_defaults))
    for group in ("posonlyargs", "args", "kwonlyargs"):
        new = []
        for a in getattr(args, group):
            if a.arg in statics:
                continue
            if a.arg in specs:
                new.extend(ast.arg(arg=n, annotation=None, lineno=a.lineno,
                                   col_offset=a.col_offset) for n in names_of[a.arg])
            else:
                new.append(a)
        setattr(args, group, new)
    args.kw_defaults = [kw_defaults.get(a.arg) for a in args.kwonlyargs]
    r = _Rewriter(loc, env, lookup)
    r.displays, r.once = single_displays(tree), set(assigned_once(tree))
    r.tuple_lists, r.consumed = pairs.tuple_lists(tree), consumed_generators(tree)
    r.parse, r.classes, r.leaves_out, r.put_in_place = parse, classes or {}, leaves_out, {}
    r.caller_locals = {n.id for n in ast.walk(tree) if isinstance(n, ast.Name) and isinstance(
        n.ctx, ast.Store)} | {a.arg for a in ast.walk(tree.args) if isinstance(a, ast.arg)} | {
        n for names in names_of.values() for n in names} | set(specs)
    tree.body = r.block(tree.body)
    plain_constants(tree)
    fill_lines(tree.body, tree.lineno)
    return Rewritten(tree, names_of, r.out_spec, r.put_in_place, r.decided, r.captured)


class _Rewriter(LoopRewrites, CallRewrites, LocalFunctions):
    """Rewrites one function's statements in order, knowing at each line which
    names hold which containers (`env`) and which hold constants (`consts`).

    Size: one walk over the function with one state (the containers each name holds,
    what the returns give, the loops around the line) that every statement's and
    expression's method reads and changes; split, the parts would pass it around."""

    def __init__(self, loc, env, lookup):
        self.loc = loc
        self.outer = lookup
        # (a name `defaults.capture` gave a callee's variable -> the callee,
        # the variable's name and its value)
        self.captured: dict = {}
        self.current = None
        self.env = env  # local name -> Node
        self.consts: dict = {}  # local name -> Const (an unrolled loop's variable)
        self.out_spec = None
        self.returned = False
        self.fresh = 0
        self.used_slots: set = set()
        self.loop_depth = 0  # loops that are not unrolled, around the current line
        # per such loop, innermost last: the names holding a container it carries
        # from one iteration to the next, and the container whose variables do
        self.carried: list = []
        self.exposed: list = []  # and the names it carries that hold no container before
        self.pending: list = []  # the lines of calls put in place, before the line
        self.inlining: list = []  # the functions being put in place, outermost first
        self.lazy = 0  # inside a conditional expression or `and`/`or`
        self.parse, self.classes = None, {}  # (classes: `function_values.receivers`)
        self.leaves_out = True
        # the functions defined inside the function (nested ``def``, a lambda bound to
        # a name): put in place where they are called
        self.local_functions: dict = {}
        # (a name given different functions on different paths, an `if`'s or a loop's:
        # name -> that statement; a call of it is refused)
        self.ambiguous_functions: dict = {}
        self.caller_locals: set = set()
        self.displays: dict = {}  # names given one display, and its length
        self.once = set()  # names assigned at one line (`assigned_once`)
        self.decided: dict = {}  # (`Rewritten.decided`)
        self.reading = None  # (the globals the outermost `static` read, while it reads)

    def lookup(self, name):
        """The value of the free name `name`; None if none."""
        got = self.captured.get(name)
        return self.outer(name) if got is None else got[2]

    def refuse(self, node, message, hint=_CONTAINERS_HINT):
        return self.loc.error(NotDifferentiableError, node, message, hint)

    # ------------------------------------------------------------ names

    def slot(self, hint: str, key) -> str:
        """A new variable for the item `key` of the container `hint` names: its key
        where that is a name, else the key's text with what a name cannot hold as
        ``_`` (``d[(0, 1)]``: ``d_0_1``), apart from every slot before it (``"lr"``
        and ``"lr "`` are two)."""
        part = key if isinstance(key, str) and key.isidentifier() else \
            "_".join(re.findall(r"\w+", str(key))) or "k"
        base = f"{hint}%{part}" if hint else f"%leaf{part}"
        name = base
        k = 2
        while name in self.used_slots:
            name = f"{base}%v{k}"
            k += 1
        self.used_slots.add(name)
        return name

    def anonymous(self) -> str:
        self.fresh += 1
        return self.slot("", self.fresh)

    # ------------------------------------------------------------ values

    def static(self, e):
        """The value of `e` where it is known now (a constant, a loop's index, the
        length of a container, a key test, a global's value (`outside`), and what
        `computed` makes of these: a key ``f"W{i}"``), else None (as `Const`). The
        globals read for a value known are `decided` (not those read for none)."""
        if self.reading is not None:
            return known(self, e)
        self.reading = {}
        try:
            got = known(self, e)
        finally:
            reading, self.reading = self.reading, None
        if got is not None:
            self.decided.update(reading)
        return got

    def value(self, e, pre: list, hint="", probe=False):
        """What `e` is when it is a container or a leaf of one: a `Node`, a slot name
        (str), a `Const`; None for anything else. Statements computing the leaves of
        a container it builds go to `pre` (not with `probe`, which only asks)."""
        if isinstance(e, ast.Name):
            if e.id in self.env:
                return self.env[e.id]
            return self.consts.get(e.id)
        if isinstance(e, ast.Subscript):
            base = self.value(e.value, pre, probe=probe)
            if not isinstance(base, Node):
                return None
            if isinstance(e.slice, ast.Slice):
                return self.sliced(base, e, pre, probe)
            key = self.static(e.slice)
            if key is None:
                if probe:
                    return None
                raise self.refuse(e, "s2sad reads the items of a container of parameters "
                                     "by keys it knows when it builds the derivative; this "
                                     "index is known only when the function runs",
                                  hint=_KEYS_HINT)
            i = base.index(key.value)
            if i is None:
                if probe:
                    return None
                raise self.refuse(e, f"this container has no item {key.value!r} (its keys: "
                                     f"{', '.join(map(repr, base.keys or range(len(base.children))))})",
                                  hint="Check the key.")
            return base.children[i]
        if isinstance(e, ast.Attribute):
            base = self.value(e.value, pre, probe=probe)
            if not isinstance(base, Node) or base.form == "dict" or not base.keys:
                if isinstance(base, Node) and not probe and e.attr not in DICT_METHODS:
                    raise self.refuse(e, f"a {base.type.__name__} has no attribute "
                                         f"`{e.attr}` s2sad can read")
                return None
            i = base.index(e.attr)
            if i is None and (call := self.property_read(e)) is not None:
                return self.value(call, pre, hint, probe)  # (a property: its getter's call)
            if i is None:
                if probe:
                    return None
                raise self.refuse(e, f"{base.type.__name__} has no field `{e.attr}` (its "
                                     f"fields: {', '.join(base.keys)})", hint="Check the name.")
            return base.children[i]
        if isinstance(e, ast.Call) and (got := tree_call(self, e, pre, probe)):
            return got  # (s2sad.tree_leaves(params), tree_map, p._replace(W=...)...)
        if probe:
            return None
        if isinstance(e, ast.DictComp):
            return static_dict_comprehension(self, e, pre, hint)
        if isinstance(e, ast.ListComp):
            return container_comprehension(self, e, pre, hint)
        if isinstance(e, ast.BinOp) and isinstance(e.op, ast.Add):
            return joined(self, e, pre)  # (params[:-1] + [(W, b)])
        if isinstance(e, ast.Dict) and None in e.keys:  # ({**p, "W": W}; or as written)
            return merged(self, list(zip(e.keys, e.values)), pre, hint, e)
        if isinstance(e, ast.Dict):
            keys = []
            for k in e.keys:
                key = None if k is None else self.static(k)
                if key is None:
                    raise self.refuse(k or e, "s2sad builds dicts whose keys it knows when it "
                                              "builds the derivative (constants, or a loop's "
                                              "keys)", hint="Use constant keys.")
                keys.append(key.value)
            return self.made(dict, "dict", keys, e.values, pre, hint)
        if isinstance(e, (ast.Tuple, ast.List)) and isinstance(e.ctx, ast.Load):
            parts = [self.value(x, [], probe=True) for x in e.elts]
            if not any(isinstance(p, Node) or isinstance(x, (ast.Dict, ast.List, ast.Tuple))
                       for p, x in zip(parts, e.elts)) and not getattr(e, "container", False):
                return None
            tp = tuple if isinstance(e, ast.Tuple) else list
            return self.made(tp, "sequence", [], e.elts, pre, hint)
        if isinstance(e, ast.Call):
            popped = self.popped(e)
            if popped is not None:
                return popped
            made = self.constructed(e, pre, hint)
            callee = self.passes_container(e) if made is None else None
            if callee is not None and not (isinstance(callee, ast.FunctionDef) and
                                           structure_calls.substituted(callee, e) is not None):
                return self.inlined(e)
            return made
        return None

    def made(self, tp, form, keys, values, pre, hint) -> Node:
        children = []
        for i, v in enumerate(values):
            sub = f"{hint}%{keys[i] if keys else i}" if hint else ""
            if isinstance(v, (ast.Tuple, ast.List)) and isinstance(v.ctx, ast.Load):
                # (a display inside a container is part of its structure)
                children.append(self.made(tuple if isinstance(v, ast.Tuple) else list,
                                          "sequence", [], v.elts, pre, sub))
                continue
            got = self.value(v, pre, hint=sub)
            if isinstance(got, Node) or isinstance(got, str):
                children.append(got)
                continue
            name = self.slot(hint, keys[i] if keys else i) if hint else self.anonymous()
            pre.append(assign(name, self.expr(v), v))
            children.append(name)
        return Node(tp, form, keys, children, owned=True, depth=self.loop_depth)

    def constructed(self, e: ast.Call, pre, hint):
        """``dict(...)``, ``list(p)``, ``tuple(p)``, a namedtuple's or dataclass's
        constructor: a `Node`; None for another call."""
        target = self.loc_refs(e.func)
        if target is dict:
            if len(e.args) > 1:
                return None
            if e.args or any(k.arg is None for k in e.keywords):
                # (dict(p), dict(p, W=W), dict(**p, W=W): of dicts it knows, or as written)
                return merged(self, [(None, a) for a in e.args] + [
                    (k.arg, k.value) for k in e.keywords], pre, hint, e, keywords=e.keywords)
            return self.made(dict, "dict", [k.arg for k in e.keywords],
                             [k.value for k in e.keywords], pre, hint)
        if target in (list, tuple) and len(e.args) == 1 and not e.keywords:
            base = self.value(e.args[0], pre)
            if isinstance(base, Node):
                items = base.iteration()
                if items is None:
                    raise self.refuse(e, f"a {base.type.__name__} is not iterable")
                return Node(target, "sequence", [], [self.item(x, pre) for x in items],
                            owned=True)
            return None
        if isinstance(target, type) and (trees.is_namedtuple(target) or
                                         _is_dataclass_type(target)):
            fields = list(target._fields) if trees.is_namedtuple(target) else \
                [f for f in target.__dataclass_fields__]
            values = dict(zip(fields, e.args))
            for k in e.keywords:
                values[k.arg] = k.value
            if len(values) != len(fields) or any(k.arg is None for k in e.keywords):
                raise self.refuse(e, f"s2sad builds a {target.__name__} from one value per "
                                     "field", hint=f"Give every field: {', '.join(fields)}.")
            form = "sequence" if trees.is_namedtuple(target) else "fields"
            # (its fields read here: the class is guarded, as a call put in place is)
            self.put_in_place.setdefault(ast.unparse(e.func), target)
            return self.made(target, form, fields, [values[f] for f in fields], pre, hint)
        return None

    def item(self, x, pre):
        """A `Node`, a slot, or a slot holding a constant's value."""
        if isinstance(x, Const):
            name = self.anonymous()
            pre.append(assign(name, ast.Constant(value=x.value), None))
            return name
        return x

    def sliced(self, base: Node, e, pre, probe):
        s = e.slice
        parts = [self.static(p) if p is not None else Const(None)
                 for p in (s.lower, s.upper, s.step)]
        if base.form != "sequence" or any(p is None for p in parts):
            if probe:
                return None
            raise self.refuse(e, "s2sad slices a container of parameters with bounds it "
                                 "knows when it builds the derivative")
        picked = base.children[slice(*(p.value for p in parts))]
        tp = base.type if base.type in (list, tuple) else tuple
        return Node(tp, "sequence", [], picked, owned=True)

    def loc_refs(self, func):
        """The object a call's function names, where it is a builtin or a global
        (through the function's globals); None for anything else."""
        if isinstance(func, ast.Name) and func.id not in self.env:
            return self.lookup(func.id)
        if isinstance(func, ast.Attribute) and isinstance(func.value, ast.Name) and \
                func.value.id not in self.env:
            owner = self.lookup(func.value.id)
            return getattr(owner, func.attr, None) if owner is not None else None
        return None

    # ------------------------------------------------------------ expressions

    def expr(self, e):
        """`e` with every container operation done: leaves read as their variables;
        a container met where it cannot be is refused."""
        if isinstance(e, ast.NamedExpr):  # (``(i := i + 1)``: a value known at run time)
            e.value = self.expr(e.value)
            self.forget_quietly(e.target.id, e)
            return e
        got = self.value(e, [], probe=True) if isinstance(
            e, (ast.Name, ast.Subscript, ast.Attribute)) or isinstance(e, ast.Call) \
            and getattr(e.func, "attr", None) in ("values", "get") else None  # (p.values())
        if got is None and (default := absent_default(self, e)) is not None:
            return self.expr(default)  # (p.get("scale", 1.0) of a dict with no "scale")
        if got is None and isinstance(e, (ast.Subscript, ast.Attribute)) and isinstance(
                e.value, ast.Call) and self.passes_container(e.value):
            got = self.value(e, [])  # (an item of what a call put in place returns)
        if got is None and isinstance(e, (ast.Subscript, ast.Attribute)) and isinstance(
                self.value(e.value, [], probe=True), Node) and not (
                isinstance(e, ast.Attribute) and e.attr in DICT_METHODS):
            got = self.value(e, [])  # (raises the error that says why)
        if isinstance(got, str):
            return ast.copy_location(ast.Name(id=got, ctx=ast.Load()), e)
        if isinstance(got, Const):
            return ast.copy_location(ast.Constant(value=got.value), e)
        if isinstance(got, Node):
            return ast.copy_location(self.materialised(got, e), e)
        if isinstance(e, ast.Call) and self.passes_container(e):
            got = self.inlined(e)
            if isinstance(got, Node):
                raise self.refuse(e, "s2sad cannot use the container this call returns here")
            if isinstance(got, ast.expr):
                return got
            return ast.copy_location(ast.Name(id=got, ctx=ast.Load()), e)
        if isinstance(e, ast.Name) and e.id in self.local_functions and \
                isinstance(e.ctx, ast.Load):
            raise self.loc.error(UnsupportedSyntaxError, e,
                                 f"s2sad differentiates calls of `{e.id}`, a function "
                                 "defined inside the function, not its use as a value",
                                 f"Call it: [{e.id}(v) for v in xs] rather than "
                                 f"map({e.id}, xs).")
        if isinstance(e, (ast.ListComp, ast.GeneratorExp)):
            unrolled = self.comprehension(e)  # (over a container: a display; a loop)
            if unrolled is not None:
                return unrolled
        if isinstance(e, (ast.ListComp, ast.SetComp, ast.DictComp, ast.GeneratorExp,
                          ast.Lambda)):
            return scoped(self, e)
        if isinstance(e, ast.IfExp) and self.static(e.test) is not None:
            # (decided here: ``opts["k"] if "k" in opts else 0.0``)
            return self.expr(e.body if self.static(e.test).value else e.orelse)
        if isinstance(e, (ast.IfExp, ast.BoolOp)) and not self.lazy and self.puts_lines_in(e):
            return structure_calls.branched(self, e)  # (`if` statements before the line)
        if isinstance(e, (ast.IfExp, ast.BoolOp)):
            self.lazy += 1
            try:
                return self.inside(e)
            finally:
                self.lazy -= 1
        known = self.static(e) if isinstance(e, (ast.Call, ast.Compare)) else None
        if known is not None:
            return ast.copy_location(ast.Constant(value=known.value), e)
        if isinstance(e, ast.Call) and isinstance(e.func, ast.Attribute) and \
                isinstance(self.value(e.func.value, [], probe=True), Node):
            raise self.refuse(e, f"s2sad cannot call `.{e.func.attr}()` of a container of "
                                 "parameters here")
        return self.inside(e)

    def materialised(self, node: Node, at):
        """A display that builds `node` from its leaves' variables where the function
        hands it to code that is not followed (``print(cfg)``, ``np.array(xs)``): a
        dict, list or tuple; another class is refused."""
        if node.type not in (dict, list, tuple):
            raise self.refuse(at, f"s2sad cannot pass a {node.type.__name__} of parameters "
                                  "here: it follows containers through reading their items, "
                                  "loops over them, building them and returning them")
        parts = [self.materialised(c, at) if isinstance(c, Node) else
                 ast.Name(id=c, ctx=ast.Load()) for c in node.children]
        if node.type is dict:
            return ast.Dict(keys=[ast.Constant(value=k) for k in node.keys], values=parts)
        return (ast.List if node.type is list else ast.Tuple)(elts=parts, ctx=ast.Load())

    def inside(self, node):
        """`node` with the expressions and statements in it rewritten."""
        for field, old in ast.iter_fields(node):
            if isinstance(old, list):
                if old and isinstance(old[0], ast.stmt):
                    setattr(node, field, self.block(old))
                else:
                    setattr(node, field, [self.expr(x) if isinstance(x, ast.expr) else
                                          self.inside(x) if isinstance(x, ast.AST) else x
                                          for x in old])
            elif isinstance(old, ast.expr):
                setattr(node, field, self.expr(old))
            elif isinstance(old, ast.AST) and not isinstance(
                    old, (ast.expr_context, ast.operator, ast.unaryop, ast.cmpop, ast.boolop)):
                setattr(node, field, self.inside(old))
        return node

    # ------------------------------------------------------------ statements

    def block(self, body) -> list:
        out = []
        for s in body:
            out.extend(self.stmt(s))
            if isinstance(s, ast.If) and out and isinstance(out[-1], ast.Return):
                break  # (``if isinstance(p, dict): return ...`` decided: the rest never runs)
        return out

    def stmt(self, s) -> list:
        saved, self.pending = self.pending, []
        try:
            method = getattr(self, "stmt_" + type(s).__name__, None)
            out = method(s) if method is not None else [self.generic(s)]
            return self.pending + out
        finally:
            self.pending = saved

    def generic(self, s):
        return self.inside(s)

    def popped(self, e: ast.Call):
        """The item ``xs.pop()``, ``xs.pop(k)`` or ``d.pop(key)`` (`k` and `key` known
        here) takes out of a list or dict the function made, which loses it here: a
        `Node` or a slot; None where `e` is no such call. Asked again for the same
        call, the same item."""
        if not (isinstance(e.func, ast.Attribute) and e.func.attr == "pop"):
            return None
        memo = self.__dict__.setdefault("_popped", {})
        got = memo.get(id(e))
        if got is not None and got[0] is e:
            return got[1]
        base = self.value(e.func.value, [], probe=True)
        if not isinstance(base, Node):
            return None
        if not base.owned or base.type not in (list, dict):
            raise self.refuse(e, "s2sad does not change a container passed in as an argument",
                              hint="Build a new one: rest = list(params) ... rest.pop().")
        self.no_change_in_loop(e, base)
        key = self.static(e.args[0]) if len(e.args) == 1 and not e.keywords else None
        if base.type is dict and key is None or e.keywords or len(e.args) > 1 or e.args and (
                key is None or base.type is list and type(key.value) is not int):
            raise self.refuse(e, f"s2sad pops an item of a {base.type.__name__} of parameters "
                                 "by a key it knows when it builds the derivative",
                              hint="Write xs.pop(), xs.pop(k) or d.pop(key), the key a "
                                   "constant.")
        i = base.index(key.value if e.args else -1) if base.children else None
        if i is None:
            raise self.refuse(e, f"this {base.type.__name__} has no item "
                                 f"{key.value if e.args else -1!r} to pop here (it has "
                                 f"{len(base.children)})", hint="Check the key.")
        item = base.children.pop(i)
        if base.keys:
            base.keys.pop(i)
        memo[id(e)] = (e, item)
        return item

    def stmt_Expr(self, s) -> list:
        call = s.value
        if isinstance(call, ast.Call) and self.popped(call) is not None:
            return []  # (the item is dropped: it was computed when the list was built)
        if isinstance(call, ast.Call) and isinstance(call.func, ast.Attribute) and \
                call.func.attr == "append":
            base = self.value(call.func.value, [], probe=True)
            if isinstance(base, Node):
                if not base.owned or base.type is not list:
                    raise self.refuse(s, "s2sad does not change a container passed in as an "
                                         "argument", hint="Build a new one: "
                                                          "layers = list(params) + [...].")
                self.no_change_in_loop(s, base)
                pre = []
                got = self.value(call.args[0], pre)
                if not isinstance(got, (Node, str)):
                    name = self.anonymous()
                    pre.append(assign(name, self.expr(call.args[0]), s))
                    got = name
                base.children.append(got)
                return pre
        return [self.generic(s)]

    def no_change_in_loop(self, s, node=None):  # (a `node` this iteration made may)
        if self.loop_depth and getattr(node, "depth", None) != self.loop_depth:
            raise self.refuse(s, "s2sad does not follow a container whose structure "
                                 "changes inside a loop over values known only at run time",
                              hint="Loop over the container itself (the loop is unrolled), "
                                   "or keep one list per value.")

    def stmt_Assign(self, s) -> list:
        if self.local_lambda(s):
            return []
        pre = []
        hint = s.targets[0].id if len(s.targets) == 1 and isinstance(
            s.targets[0], ast.Name) else ""
        got = self.value(s.value, pre, hint=hint)
        if got is None and (getattr(s, "static_argument", False) or hint in self.once):
            # (an argument known here, of a call put in place; a count or a key
            # ``n = len(p) // 2`` the function assigns at this line only)
            got = self.static(s.value)
            if got is not None and not getattr(s, "static_argument", False) \
                    and not key_like(got.value):
                got = None
        out = list(pre)
        if isinstance(got, (Node, Const)) or isinstance(got, str):
            for t in s.targets:
                out.extend(self.bind(t, got, s))
            return out
        s.value = self.expr(s.value)
        for t in s.targets:
            out.extend(self.store_plain(t, s))
        if len(out) == len(pre):
            return out + [s]
        return out

    def store_plain(self, t, s) -> list:
        """A plain value assigned to the target `t` of `s`: [] when `s` itself does
        it, else the statements that do."""
        if isinstance(t, ast.Name):
            self.forget(t.id)
            return []
        if isinstance(t, (ast.Tuple, ast.List)):
            for e in t.elts:
                if isinstance(e, ast.Name):
                    self.forget(e.id)
                elif isinstance(e, ast.Subscript) and isinstance(
                        self.value(e.value, [], probe=True), Node):
                    raise self.refuse(e, "s2sad writes into a container of parameters one "
                                         "item a line", hint="Write d[k] = v on its own line.")
            return []
        if isinstance(t, ast.Subscript):
            base = self.value(t.value, [], probe=True)
            if isinstance(base, Node):
                slot = self.write_slot(base, t, s)
                return [ast.copy_location(ast.Assign(
                    targets=[ast.Name(id=slot, ctx=ast.Store())], value=s.value), s)]
            t.value = self.expr(t.value)
            t.slice = self.expr(t.slice)
        return []

    def write_slot(self, base: Node, t, s) -> str:
        if not base.owned:
            raise self.refuse(s, "s2sad does not change a container passed in as an "
                                 "argument", hint="Build a new one: d = dict(params); "
                                                  "d[\"W\"] = ...")
        key = self.static(t.slice)
        if key is None:
            raise self.refuse(t, "s2sad writes into a dict by keys it knows when it builds "
                                 "the derivative", hint="Use a constant key.")
        i = base.index(key.value)
        if i is not None and isinstance(base.children[i], str):
            return base.children[i]
        self.no_change_in_loop(s, base)  # (a dict this iteration made may grow)
        if base.form != "dict":
            raise self.refuse(t, f"s2sad cannot add item {key.value!r} to this "
                                 f"{base.type.__name__}")
        name = self.anonymous()
        if i is None:
            base.keys.append(key.value)
            base.children.append(name)
        else:
            base.children[i] = name
        return name

    def no_change_in_loop_name(self, name):
        if any(name in c for c in self.carried):
            raise self.loc.error(NotDifferentiableError, self.current,
                f"`{name}` holds a container of parameters and is assigned inside a loop "
                "over values known only at run time", _CONTAINERS_HINT)

    def bind(self, t, got, s) -> list:
        """Bind the target `t` to `got` (a `Node`, a slot, a `Const`)."""
        if isinstance(got, tuple) and isinstance(t, ast.Name):
            pre = []
            got = Node(tuple, "sequence", [], [self.item(x, pre) for x in got], owned=True)
            return pre + self.bind(t, got, s)
        if isinstance(t, ast.Name):
            if isinstance(got, Node):
                self.env[t.id] = got
                self.consts.pop(t.id, None)
                return []
            self.forget_quietly(t.id, s)
            value = ast.Name(id=got, ctx=ast.Load()) if isinstance(got, str) else \
                ast.Constant(value=got.value)
            if isinstance(got, Const):
                self.consts[t.id] = got
            return [assign(t.id, value, s)]
        if isinstance(t, (ast.Tuple, ast.List)):
            if isinstance(got, Node):
                out = []  # (a starred target's list: its items copied first)
                items = starred(got.iteration(), t.elts, self.anonymous, out, s)
                if items is None or len(items) != len(t.elts):
                    raise self.refuse(s, f"cannot unpack this {got.type.__name__} of "
                                         f"{len(got.children)} items into {len(t.elts)} names")
                for target, item in zip(t.elts, items):
                    out.extend(self.bind(unstarred(target), item, s))
                return out
            if isinstance(got, tuple):
                out = []
                for target, item in zip(t.elts, got):
                    out.extend(self.bind(target, item, s))
                return out
            for e in t.elts:
                if isinstance(e, ast.Name):
                    self.forget_quietly(e.id, s)
            value = ast.Name(id=got, ctx=ast.Load()) if isinstance(got, str) else \
                ast.Constant(value=got.value)
            return [ast.copy_location(ast.Assign(targets=[t], value=value), s)]
        if isinstance(t, ast.Subscript):
            base = self.value(t.value, [], probe=True)
            if isinstance(base, Node):
                if isinstance(got, Node):
                    if not base.owned:
                        raise self.refuse(s, "s2sad does not change a container passed in "
                                             "as an argument")
                    self.no_change_in_loop(s)
                    key = self.static(t.slice)
                    if key is None or base.form != "dict" and base.index(key.value) is None:
                        raise self.refuse(t, "s2sad writes containers into a dict by keys it "
                                             "knows when it builds the derivative")
                    i = base.index(key.value)
                    if i is None:
                        base.keys.append(key.value)
                        base.children.append(got)
                    else:
                        base.children[i] = got
                    return []
                slot = self.write_slot(base, t, s)
                return [assign(slot, ast.Name(id=got, ctx=ast.Load()) if isinstance(got, str)
                                else ast.Constant(value=got.value), s)]
            if not isinstance(got, Node):  # (a value written into an array or a list)
                value = ast.Name(id=got, ctx=ast.Load()) if isinstance(got, str) else \
                    ast.Constant(value=got.value)
                return [ast.copy_location(ast.Assign(targets=[t], value=value), s)]
        raise self.refuse(s, "s2sad cannot assign a container of parameters to this target")

    def stmt_AugAssign(self, s) -> list:
        if isinstance(s.target, ast.Subscript):
            base = self.value(s.target.value, [], probe=True)
            if isinstance(base, Node):
                slot = self.write_slot(base, s.target, s)
                s.target = ast.Name(id=slot, ctx=ast.Store())
                s.value = self.expr(s.value)
                return [s]
        if isinstance(s.target, ast.Name) and s.target.id in self.env:
            raise self.refuse(s, "s2sad cannot apply `+=` to a container of parameters",
                              hint="Build a new one: xs = xs + [v] is not supported either; "
                                   "append to a list the function made.")
        self.consts.pop(getattr(s.target, "id", None), None)
        return [self.generic(s)]

    def stmt_Return(self, s) -> list:
        if s.value is None:
            return [s]
        pre = []
        got = self.value(s.value, pre)
        if isinstance(got, Node) and not self.leaves_out:
            s.value = ast.copy_location(self.materialised(got, s), s.value)
            return pre + [s]
        if isinstance(got, Node):
            spec = got.spec()
            if self.returned and self.out_spec != spec:
                raise self.refuse(s, "every `return` of this function must give a container "
                                     "of the same structure")
            self.returned = True
            self.out_spec = spec
            s.value = ast.copy_location(ast.Tuple(
                elts=[ast.Name(id=n, ctx=ast.Load()) for n in got.leaves()],
                ctx=ast.Load()), s.value)
            return pre + [s]
        if self.returned and self.out_spec is not None:
            raise self.refuse(s, "every `return` of this function must give a container "
                                 "of the same structure")
        self.returned = True
        if isinstance(got, str):  # (a leaf, or what a call put in place gives: once)
            s.value = ast.copy_location(ast.Name(id=got, ctx=ast.Load()), s.value)
        elif isinstance(got, Const):
            s.value = ast.copy_location(ast.Constant(value=got.value), s.value)
        else:
            s.value = self.expr(s.value)
        return pre + [s]

    def stmt_If(self, s) -> list:
        known = self.static(s.test)
        if known is not None and not isinstance(s.test, ast.Constant):
            return self.block(s.body if known.value else s.orelse)
        s.test = self.expr(s.test)
        before = copy_env(self.env)
        consts = dict(self.consts)
        functions = self.functions_state()
        s.body = self.block(s.body) or [ast.Pass()]
        after_body, consts_body = self.env, self.consts
        functions_body = self.functions_state()
        self.env, self.consts = before, consts
        self.local_functions, self.ambiguous_functions = functions
        s.orelse = self.block(s.orelse)
        self.env = self.join(s, after_body, self.env)
        self.consts = {k: v for k, v in consts_body.items() if self.consts.get(k) == v}
        self.join_functions(s, functions_body, self.functions_state())
        return [s]

    def join(self, s, a: dict, b: dict) -> dict:
        """The containers after an `if` whose branches left `a` and `b`."""
        out = {}
        for name in [n for n in a if n in b]:  # (in order: the names made, the message)
            x, y = a[name], b[name]
            if x.spec() != y.spec():
                raise self.refuse(s, f"`{name}` holds containers of different structures "
                                     "after this `if`", hint="Give it the same keys on "
                                                             "every path.")
            if x.leaves() == y.leaves():
                out[name] = x
                continue
            joined = Node(x.type, x.form, x.keys, [], owned=x.owned and y.owned)
            names = iter([self.slot(name, f"j{self.fresh + i}")
                          for i in range(len(x.leaves()))])
            self.fresh += len(x.leaves())
            joined.children = node_of(x.spec(), names).children
            for branch, node in ((s.body, x), (s.orelse, y)):
                for new, old in zip(joined.leaves(), node.leaves()):
                    branch.append(assign(new, ast.Name(id=old, ctx=ast.Load()), s))
            out[name] = joined
        return out


def _is_dataclass_type(tp) -> bool:
    return isinstance(tp, type) and hasattr(tp, "__dataclass_fields__")
