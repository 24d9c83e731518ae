"""function_values: a local name holding a function, as the function it holds.

Contract
--------
`resolve(tree, meaning)` rewrites, in place, the function `tree` (an
``ast.FunctionDef`` as `parse` reads it) where a local name is given a function and
then called, so each call names the function the compiler resolves (a rule, a user
function, a local ``def`` or lambda `structures` puts in place):

* A lambda written as an argument of a call of a function of the user's
  (``dense(h, W, act=lambda z: z)``, ``newton(lambda x: x * x - a, ...)``) is named
  first, on a line of its own before the statement (``lambda%1 = lambda z: z``), and
  passed by that name, as a person would name it (`_named_lambdas`).
* ``act = np.tanh`` (or a user function, a local ``def`` or lambda, an attribute
  chain ``special.expit``), the name assigned nowhere else, or only by lines giving
  it the same function (a loop's body naming it each iteration): every read of
  ``act`` is the function's expression, and the assignments go.
* ``act = np.tanh if use_tanh else np.sin`` (functions on both sides), the name
  assigned nowhere else, read only by calls, and the test's names assigned nowhere
  (parameters, globals): ``act(x)`` is ``np.tanh(x) if use_tanh else np.sin(x)``.
* ``for f in (np.sin, np.cos):`` over a display of functions (or a name given one
  display, read nowhere else), with no ``break``/``continue`` and `f` read nowhere
  after: the loop unrolled, one copy of its body per function with `f` the function.
  ``sum(f(x) for f in (np.sin, np.cos))`` (one ``for``, no ``if``) is the display of
  its values, ``sum((np.sin(x), np.cos(x)))``; a lambda of such a display is named
  first, on a line of its own before the statement (``f%0 = lambda y: y * y``), as
  in the loop.
* ``[lambda y, i=i: y ** i for i in range(3)]``, a list comprehension of lambdas over
  a ``range`` of constants or a display of constants (one ``for``, no ``if``), is the
  display of its lambdas, ``[lambda y, i=0: y ** i, lambda y, i=1: y ** i, ...]``:
  each default that reads the variable takes that iteration's value, and a read of
  it in a body (a closure's) the last one, as Python binds them.
* ``model.loss(x)`` and ``model(x)``, `model` an object from outside the function
  whose class defines ``loss`` or ``__call__`` in the user's Python (no rule of its
  own): ``model.loss.__func__(model, x)``, the user function called with the object
  first, as Python calls it.
* ``self.predict(x)`` and ``layer(x)``, `self` and `layer` parameters whose
  arguments are instances of a class of the user's (`classes`, from their kinds) and
  that no line assigns, ``predict`` or ``__call__`` a plain function the class
  defines or inherits: ``Model.predict(self, x)`` (`receivers`: the class read by
  its own name where that name means nothing else there); ``Model.helper(x)`` for a
  staticmethod.
* ``p(x, b=1.0)``, `p` a ``functools.partial`` of a user function from outside the
  function: ``p.func(p.args[0], ..., x, a=p.keywords["a"], b=1.0)``, the call Python
  makes (a keyword the call gives wins over the partial's).

Anything else is left as written (and refused later, at its line, if a derivative
must go through a call of a computed value). `meaning(name)` is the object a free
name means (None for none). Imports `ir`, `primitives.registry` (a method with a rule
of its own is called as written) and `structure_calls`.
"""

from __future__ import annotations

import ast
import copy
import functools
import inspect
import itertools
import types

from .. import ir
from ..primitives import registry
from .structure_calls import library_code
from .tree_index import Nodes, fix_locations, has, of


def resolve(tree: ast.FunctionDef, meaning, nodes=None, classes=None) -> bool:
    """See the module docstring. `nodes`: ``list(ast.walk(tree))``, where the caller
    has it; `classes`: {parameter: (the class of the user's its argument is an
    instance of, the name the class is read by)}, `receivers`'. Whether it rewrote
    anything (its nodes are then another list)."""
    nodes = Nodes(tree) if nodes is None else nodes
    named = has(nodes, ast.Lambda) and _named_lambdas(tree, meaning)
    if named:
        nodes = Nodes(tree)
    if has(nodes, ast.ListComp) and _Displayed(meaning).run(nodes):
        nodes = Nodes(tree)
    Store = ast.Store
    stored = {i for _, i, ctx in nodes.names() if ctx is Store}
    called = {n.func.id for n in of(nodes, ast.Call) if type(n.func) is ast.Name}
    iterated = any(isinstance(n.iter, (ast.Tuple, ast.List, ast.Name))
                   for n in of(nodes, ast.For, ast.comprehension))
    rewrote = _bound_methods(tree, nodes, meaning, stored, classes or {})
    if stored & called or iterated:
        _Resolver(tree, meaning).run()
        return True
    return rewrote or named


def _named_lambdas(tree, meaning) -> bool:
    """Each lambda written as an argument of a call of a function of the user's
    (``dense(h, W, act=lambda z: z)``) given a name of its own on a line before the
    statement (``lambda%1 = lambda z: z``), as a person names it, and passed by that
    name: a local lambda is put in place where it is called. (Making a lambda has no
    effect, and its body reads the names when it is called, as before.) Whether it
    named any."""
    local = {n.name for n in ast.walk(tree) if isinstance(n, ast.FunctionDef)} | {
        t.id for n in ast.walk(tree) if isinstance(n, ast.Assign)
        for t in n.targets if isinstance(t, ast.Name) and isinstance(n.value, ast.Lambda)}
    count = 0

    def user(func) -> bool:
        if isinstance(func, ast.Name) and func.id in local:
            return True
        value = meaning(func.id) if isinstance(func, ast.Name) else None
        return isinstance(value, types.FunctionType) and not library_code(value)

    def calls(node):  # (the calls of this statement's own scope, not of a nested one)
        for child in ast.iter_child_nodes(node):
            if isinstance(child, (ast.Lambda, ast.FunctionDef, ast.ClassDef, ast.ListComp,
                                  ast.SetComp, ast.DictComp, ast.GeneratorExp)) or \
                    isinstance(child, ast.stmt):
                continue
            yield from calls(child)
            if isinstance(child, ast.Call):
                yield child

    for block_owner in [n for n in ast.walk(tree) if isinstance(n, ast.stmt)]:
        for field in ("body", "orelse", "finalbody"):
            block = getattr(block_owner, field, None)
            for k in range(len(block) - 1, -1, -1) if isinstance(block, list) else ():
                named = []
                for call in (c for c in calls(block[k]) if user(c.func)):
                    places = [(call.args, i) for i in range(len(call.args))] + [
                        (call.keywords, i) for i in range(len(call.keywords))]
                    for seq, i in places:
                        lam = seq[i].value if seq is call.keywords else seq[i]
                        if not isinstance(lam, ast.Lambda):
                            continue
                        count += 1
                        name = f"lambda%{count}"
                        named.append(ast.copy_location(ast.Assign(
                            targets=[ast.Name(id=name, ctx=ast.Store())], value=lam), lam))
                        ref = ast.copy_location(ast.Name(id=name, ctx=ast.Load()), lam)
                        if seq is call.keywords:
                            seq[i].value = ref
                        else:
                            seq[i] = ref
                block[k:k] = named
    if count:
        fix_locations(tree)
    return bool(count)


def _bound_methods(tree, nodes, meaning, stored, classes) -> bool:
    """``model.loss(x)`` and ``model(x)``, `model` an object from outside the function
    (a global, a closure's variable) and ``loss`` or ``__call__`` a method its class
    defines in the user's Python: ``model.loss.__func__(model, x)``, the call Python
    makes, so that the method is differentiated as any function of the user's is.
    For ``self.predict(x)`` and ``layer(x)``, `self` and `layer` parameters of
    `classes`, ``Model.predict(self, x)`` and ``Layer.__call__(layer, x)``, the class
    read by its name in `classes`. Whether it rewrote a call."""
    own = stored | {a.arg for a in ast.walk(tree.args) if isinstance(a, ast.arg)} | {
        n.name for n in of(nodes, ast.FunctionDef, ast.ClassDef)}
    found, owners = False, {}  # (a name -> what it means: asked once per name)
    for n in of(nodes, ast.Call):
        if isinstance(n.func, ast.Attribute) and isinstance(n.func.value, ast.Name):
            obj, attr = n.func.value, n.func.attr
        elif isinstance(n.func, ast.Name):
            obj, attr = n.func, "__call__"
        else:
            continue
        if obj.id in classes:
            cls, name = classes[obj.id]
            method = inspect.getattr_static(cls, attr, None)
            if _user_function(method.__func__ if isinstance(method, staticmethod)
                              else method):
                n.func = fix_locations(ast.copy_location(ast.Attribute(
                    value=ast.Name(id=name, ctx=ast.Load()), attr=attr, ctx=ast.Load()),
                    n.func))
                if not isinstance(method, staticmethod):
                    n.args.insert(0, ast.copy_location(ast.Name(id=obj.id, ctx=ast.Load()),
                                                       obj))
                found = True
            continue
        if obj.id not in owners:
            owners[obj.id] = None if obj.id in own else meaning(obj.id)
        owner = owners[obj.id]
        if attr == "__call__" and isinstance(owner, functools.partial):
            found = _partial_call(n, owner) or found
            continue
        if owner is None or isinstance(owner, (type, types.ModuleType)) or \
                attr in getattr(owner, "__dict__", {}) or \
                type(owner).__getattribute__ is not object.__getattribute__:
            continue  # (what Python calls is not the class's function)
        method = inspect.getattr_static(type(owner), attr, None)
        if isinstance(method, types.FunctionType) and not library_code(method) and not (
                registry.has_rule(owner) or registry.has_rule(getattr(owner, attr))):
            func = n.func if attr != "__call__" else ast.copy_location(
                ast.Attribute(value=n.func, attr=attr, ctx=ast.Load()), n.func)
            n.func = ast.copy_location(ast.Attribute(value=func, attr="__func__",
                                                     ctx=ast.Load()), n.func)
            n.args.insert(0, ast.copy_location(ast.Name(id=obj.id, ctx=ast.Load()), obj))
            found = True
    return found


def _user_function(method) -> bool:
    """Is `method` (what a class holds under a method's name, a staticmethod's
    function) a function of the user's with no rule of its own, not a property, a
    classmethod or a library's method?"""
    return isinstance(method, types.FunctionType) and not library_code(method) and \
        not registry.has_rule(method)


def receivers(tree, nodes, classes: dict, free) -> dict:
    """{parameter: (its class, the name to read the class by)}: the parameters of
    `classes` ({parameter: class}) whose methods `resolve` calls as functions: those
    that no line assigns and that no function or lambda defined inside takes as its
    own parameter (whose argument may be another object). The name is the class's own
    where it means the class or nothing here (`free(name)`: its value, None for
    none), else that name with ``_`` added until it does."""
    Store = ast.Store
    assigned = {i for _, i, ctx in nodes.names() if ctx is Store}
    inner = {a.arg for n in of(nodes, ast.FunctionDef, ast.Lambda) if n is not tree
             for a in ast.walk(n.args) if isinstance(a, ast.arg)}
    taken = assigned | inner | {a.arg for a in ast.walk(tree.args) if isinstance(a, ast.arg)}
    out = {}
    for p, cls in classes.items():
        if p in assigned or p in inner:
            continue
        name = cls.__name__
        while name in taken or free(name) not in (None, cls) or any(
                name == other and c is not cls for c, other in out.values()):
            name += "_"
        out[p] = (cls, name)
    return out


def _partial_call(call: ast.Call, p) -> bool:
    """``p(x, b=1.0)``, `p` the ``functools.partial`` the name `call.func` means (a
    user function's): ``p.func(p.args[0], ..., x, a=p.keywords["a"], b=1.0)``, in
    place. Whether it did (not for a call that spreads ``*``/``**``)."""
    if not isinstance(p.func, types.FunctionType) or library_code(p.func) or any(
            isinstance(a, ast.Starred) for a in call.args) or any(
            k.arg is None for k in call.keywords):
        return False

    def read(attr, key=None):
        node = ast.Attribute(value=ast.Name(id=call.func.id, ctx=ast.Load()), attr=attr,
                             ctx=ast.Load())
        if key is not None:
            node = ast.Subscript(value=node, slice=ast.Constant(key), ctx=ast.Load())
        return fix_locations(ast.copy_location(node, call.func))

    given = {k.arg for k in call.keywords}
    call.args[:0] = [read("args", i) for i in range(len(p.args))]
    call.keywords[:0] = [ast.keyword(arg=k, value=read("keywords", k))
                         for k in p.keywords if k not in given]
    call.func = read("func")
    return True


_COMPREHENSIONS = (ast.ListComp, ast.SetComp, ast.DictComp, ast.GeneratorExp)


class _Displayed:
    """A list comprehension of lambdas as the display of its lambdas (the module
    docstring)."""

    def __init__(self, meaning):
        self.meaning = meaning

    def run(self, nodes) -> bool:
        found = False
        for n in nodes:
            if isinstance(n, ast.Assign) and isinstance(n.value, ast.ListComp):
                items = self.display(n.value)
                if items is not None:
                    n.value = ast.copy_location(ast.List(elts=items, ctx=ast.Load()), n.value)
                    found = True
        return found

    def display(self, comp):
        """The lambdas the comprehension `comp` makes, or None."""
        lam, gens = comp.elt, comp.generators
        if not isinstance(lam, ast.Lambda) or len(gens) != 1 or gens[0].ifs or \
                gens[0].is_async or not isinstance(gens[0].target, ast.Name):
            return None
        values = _constants(gens[0].iter, self.meaning)
        name = gens[0].target.id
        if values is None or any(isinstance(n, (ast.Lambda, *_COMPREHENSIONS, ast.NamedExpr))
                                 for n in ast.walk(lam) if n is not lam):
            return None
        params = {a.arg for a in ast.walk(lam.args) if isinstance(a, ast.arg)}
        out = []
        for v in values:
            new = copy.deepcopy(lam)
            new.args.defaults = [_Constant(name, v).visit(d) for d in new.args.defaults]
            new.args.kw_defaults = [d if d is None else _Constant(name, v).visit(d)
                                    for d in new.args.kw_defaults]
            if name not in params:  # (a closure reads the variable's last value)
                new.body = _Constant(name, values[-1]).visit(new.body)
            out.append(ast.copy_location(new, lam))
        return out


def _constants(e, meaning):
    """The values of a ``range`` of int constants or a display of constants, or None."""
    if isinstance(e, (ast.Tuple, ast.List)) and all(isinstance(x, ast.Constant)
                                                    for x in e.elts):
        return [x.value for x in e.elts]
    if isinstance(e, ast.Call) and isinstance(e.func, ast.Name) and meaning(e.func.id) is range \
            and not e.keywords and 1 <= len(e.args) <= 3:
        args = []
        for a in e.args:
            sign = -1 if isinstance(a, ast.UnaryOp) and isinstance(a.op, ast.USub) else 1
            a = a.operand if sign == -1 else a
            if not isinstance(a, ast.Constant) or type(a.value) is not int:
                return None
            args.append(sign * a.value)
        return list(range(*args))
    return None


class _Constant(ast.NodeTransformer):
    """Reads of `name` as the constant `value`."""

    def __init__(self, name, value):
        self.name, self.value = name, value

    def visit_Name(self, node):
        if node.id == self.name and isinstance(node.ctx, ast.Load):
            return ast.copy_location(ast.Constant(value=self.value), node)
        return node


def _scope_of(comp):
    """The name nodes inside the comprehension `comp` that are its own variables
    (bound by its ``for`` targets), read or bound; not those of its first iterable,
    which Python evaluates outside."""
    own = {x.id for g in comp.generators for x in ast.walk(g.target)
           if isinstance(x, ast.Name)}
    outer = {id(x) for x in ast.walk(comp.generators[0].iter)}
    return [x for x in ast.walk(comp) if isinstance(x, ast.Name) and x.id in own
            and id(x) not in outer]


class _Resolver:
    def __init__(self, tree, meaning):
        self.tree, self.meaning = tree, meaning
        self.nodes = ir.ast_nodes(tree)
        self.params = {a.arg for a in ast.walk(tree.args) if isinstance(a, ast.arg)}
        # (a comprehension's variables are its own: not the function's names)
        self.scoped = {id(x) for n in self.nodes if isinstance(n, _COMPREHENSIONS)
                       for x in _scope_of(n)}
        self.stores: dict = {}  # name -> how many times it is bound in the function
        for n in self.nodes:
            names = []
            if id(n) in self.scoped:
                continue
            if isinstance(n, ast.Name) and not isinstance(n.ctx, ast.Load):
                names = [n.id]
            elif isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)) \
                    and n is not tree:
                names = [n.name]
            elif isinstance(n, ast.arg):
                names = [n.arg]
            elif isinstance(n, (ast.Global, ast.Nonlocal)):
                names = list(n.names) * 2  # (never one binding)
            for name in names:
                self.stores[name] = self.stores.get(name, 0) + 1
        self.local_functions = {
            n.name for n in self.nodes if isinstance(n, ast.FunctionDef) and n is not tree
        } | {n.targets[0].id for n in self.nodes if isinstance(n, ast.Assign)
             and len(n.targets) == 1 and isinstance(n.targets[0], ast.Name)
             and isinstance(n.value, ast.Lambda)}

    def names_function(self, e) -> bool:
        """Is `e` a name or attribute chain meaning a function: a local ``def`` or
        lambda, or a function, builtin, ufunc or other callable (not a class) it
        resolves to outside?"""
        chain = ir.dotted_parts(e)
        if chain is None:
            return False
        if len(chain) == 1 and chain[0] in self.local_functions:
            return self.stores.get(chain[0], 0) == 1
        if chain[0] in self.stores:
            return False
        value = self.meaning(chain[0])
        for attr in chain[1:]:
            value = getattr(value, attr, None)
        return value is not None and callable(value) and not isinstance(
            value, (type, types.ModuleType))

    def stable(self, e) -> bool:
        """An expression whose names no statement of the function assigns, so it
        means the same wherever it is read."""
        return all(isinstance(n, (ast.Name, ast.Constant, ast.Attribute, ast.Compare,
                                  ast.BoolOp, ast.UnaryOp, ast.cmpop, ast.boolop,
                                  ast.unaryop, ast.expr_context))
                   for n in ast.walk(e)) and not any(
            isinstance(n, ast.Name) and (n.id in self.stores and n.id not in self.params
                                         or self.stores.get(n.id, 0) > 1)
            for n in ast.walk(e))

    def run(self):
        aliases, choices = {}, {}
        assigned: dict = {}  # name -> its plain assignments ``name = ...``
        for n in self.nodes:
            if isinstance(n, ast.Assign) and len(n.targets) == 1 and \
                    isinstance(n.targets[0], ast.Name) and id(n.targets[0]) not in self.scoped:
                assigned.setdefault(n.targets[0].id, []).append(n)
        for name, lines in assigned.items():
            if self.stores.get(name) != len(lines) or name in self.params:
                continue
            v = lines[0].value
            if self.names_function(v) and not (isinstance(v, ast.Name) and v.id == name) \
                    and all(ir.expr_key(x.value) == ir.expr_key(v) for x in lines[1:]):
                # (given one function, on every line that binds it: a loop's body that
                # names its activation again each iteration)
                aliases[name] = (lines, v)
            elif len(lines) == 1 and isinstance(v, ast.IfExp) and \
                    self.names_function(v.body) and self.names_function(v.orelse) and \
                    self.stable(v.test) and self.only_called(name):
                choices[name] = (lines, v)
        if aliases or choices:
            _Substitute({k: v for k, (_, v) in aliases.items()},
                        {k: v for k, (_, v) in choices.items()}, self.scoped).visit(self.tree)
            dropped = {id(n) for lines, _ in list(aliases.values()) + list(choices.values())
                       for n in lines}
            _Drop(dropped).visit(self.tree)
        _Unroll(self).visit(self.tree)
        fix_locations(self.tree)

    def only_called(self, name) -> bool:
        """Is every read of `name` the function of a call?"""
        calls = {id(n.func) for n in self.nodes if isinstance(n, ast.Call)}
        return all(id(n) in calls for n in self.nodes if isinstance(n, ast.Name)
                   and n.id == name and isinstance(n.ctx, ast.Load))


class _Substitute(ast.NodeTransformer):
    """Reads of `aliases` names as their functions, calls of `choices` names as the
    choice between calls; not where a comprehension's own variable (`skip`) is meant."""

    def __init__(self, aliases, choices, skip=frozenset()):
        self.aliases, self.choices, self.skip = aliases, choices, skip

    def visit_Call(self, node):
        f = node.func
        self.generic_visit(node)
        if isinstance(f, ast.Name) and f.id in self.choices and id(f) not in self.skip:
            choice = self.choices[f.id]
            return ast.copy_location(ast.IfExp(
                test=copy.deepcopy(choice.test),
                body=ast.Call(func=copy.deepcopy(choice.body), args=node.args,
                              keywords=node.keywords),
                orelse=ast.Call(func=copy.deepcopy(choice.orelse),
                                args=copy.deepcopy(node.args),
                                keywords=copy.deepcopy(node.keywords))), node)
        return node

    def visit_Name(self, node):
        if isinstance(node.ctx, ast.Load) and node.id in self.aliases and \
                id(node) not in self.skip:
            return ast.copy_location(copy.deepcopy(self.aliases[node.id]), node)
        return node


class _Drop(ast.NodeTransformer):
    def __init__(self, ids):
        self.ids = ids

    def visit_Assign(self, node):
        return None if id(node) in self.ids else node


class _Unroll(ast.NodeTransformer):
    """Loops and generators over displays of functions (the module docstring)."""

    def __init__(self, r: _Resolver):
        self.r = r
        displays = {}
        for n in r.nodes:  # (a name given one display of functions, read only by a loop)
            if isinstance(n, ast.Assign) and len(n.targets) == 1 and \
                    isinstance(n.targets[0], ast.Name) and \
                    r.stores.get(n.targets[0].id) == 1 and self.functions(n.value):
                displays[n.targets[0].id] = n
        reads = {}
        for n in r.nodes:
            if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Load):
                reads[n.id] = reads.get(n.id, 0) + 1
        self.displays = {k: v for k, v in displays.items() if reads.get(k) == 1}
        self.used = set()
        self.count = itertools.count()
        self.pending: list = []  # the lambdas the statement's generators name first

    def visit(self, node):
        if not isinstance(node, ast.stmt) or node is self.r.tree:
            return super().visit(node)
        outer, self.pending = self.pending, []
        got = super().visit(node)
        named, self.pending = self.pending, outer
        return named + (got if isinstance(got, list) else [got]) if named else got

    def named(self, f, var, at):
        """`f`, a lambda given a name of its own on a line before (`structures` puts a
        lambda bound to a name in place), or the function `f` names."""
        if not isinstance(f, ast.Lambda):
            return f
        name = f"{var}%{next(self.count)}"
        self.pending.append(ast.copy_location(ast.Assign(
            targets=[ast.Name(id=name, ctx=ast.Store())], value=copy.deepcopy(f)), at))
        return ast.Name(id=name, ctx=ast.Load())

    def reads(self, name, nodes) -> int:
        """How many of `nodes` are `name` as the function's own variable."""
        return sum(isinstance(n, ast.Name) and n.id == name and id(n) not in self.r.scoped
                   for n in nodes)

    def functions(self, e):
        return isinstance(e, (ast.Tuple, ast.List)) and e.elts and \
            all(self.r.names_function(x) or isinstance(x, ast.Lambda) for x in e.elts)

    def items(self, e, use=True):
        """The functions a loop over `e` goes through, or None."""
        if self.functions(e):
            return e.elts
        if isinstance(e, ast.Name) and e.id in self.displays:
            if use:
                self.used.add(e.id)
            return self.displays[e.id].value.elts
        return None

    def unrollable(self, loop) -> bool:
        """A ``for`` over a display of functions, whose variable is bound only by
        such loops and read only inside them."""
        t = loop.target
        if not isinstance(t, ast.Name) or loop.orelse or self.items(loop.iter, False) is None \
                or any(isinstance(n, (ast.Break, ast.Continue)) for n in ast.walk(loop)):
            return False
        loops = [n for n in self.r.nodes if isinstance(n, ast.For) and
                 isinstance(n.target, ast.Name) and n.target.id == t.id]
        return self.r.stores.get(t.id) == len(loops) and \
            self.reads(t.id, self.r.nodes) == sum(self.reads(t.id, ast.walk(n)) for n in loops) \
            and all(n is loop or self.items(n.iter, False) is not None for n in loops)

    def visit_For(self, node):
        unrollable = self.unrollable(node)  # (asked before the body changes)
        self.generic_visit(node)
        items = self.items(node.iter)
        t = node.target
        if not unrollable or items is None:
            if isinstance(node.iter, ast.Name):
                self.used.discard(node.iter.id)
            return node
        out = []
        for k, f in enumerate(items):
            if isinstance(f, ast.Lambda):  # (named, so `structures` puts it in place)
                name = f"{t.id}%{next(self.count)}"
                out.append(ast.copy_location(ast.Assign(
                    targets=[ast.Name(id=name, ctx=ast.Store())], value=copy.deepcopy(f)),
                    node))
                f = ast.Name(id=name, ctx=ast.Load())
            for s in node.body:
                out.append(_Substitute({t.id: f}, {}).visit(copy.deepcopy(s)))
        return out

    def visit_GeneratorExp(self, node):
        self.generic_visit(node)
        if len(node.generators) != 1:
            return node
        g = node.generators[0]
        items = self.items(g.iter)
        if items is None or g.ifs or g.is_async or not isinstance(g.target, ast.Name):
            if isinstance(g.iter, ast.Name):
                self.used.discard(g.iter.id)
            return node
        display = ast.List if isinstance(node, ast.ListComp) else ast.Tuple
        return ast.copy_location(display(
            elts=[_Substitute({g.target.id: self.named(f, g.target.id, node)}, {}).visit(
                copy.deepcopy(node.elt)) for f in items], ctx=ast.Load()), node)

    visit_ListComp = visit_GeneratorExp

    def visit_FunctionDef(self, node):
        self.generic_visit(node)
        if node is self.r.tree and self.used:
            drop = {id(self.displays[n]) for n in self.used}
            _Drop(drop).visit(node)
        return node
