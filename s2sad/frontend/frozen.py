"""frozen: SciPy's frozen distributions, as calls of the distribution's own methods.

Contract
--------
`unfreeze(tree, meaning)` rewrites, in place, ``D(a, b, scale=c).m(x)`` into
``D.m(x, a, b, scale=c)`` where ``D`` is a name or a dotted name whose value
(`meaning` gives a free name's) is a distribution of ``scipy.stats`` (``norm``,
``t``, ``poisson``, ``multivariate_normal``...) and ``m`` one of `METHODS`, called
with its points by position only: what SciPy's frozen distribution does itself (the
parameters it was made with after the method's own arguments), and the form s2sad's
rules for ``scipy.stats`` take.

A local name bound once to a frozen distribution, ``dist = D(a, b)``, gets one name
per parameter (``dist%0``, ``dist%scale``), assigned where ``dist`` was, so each
parameter is read as it was then; each ``dist.m(x)`` becomes ``D.m(x, dist%0,
scale=dist%scale)``. (A constant parameter, or a parameter of the function that it
never assigns, is read as it is.) Where ``dist`` is also used another way (passed
on, returned, its ``.mean()``) it is still bound, ``dist = D(dist%0, ...)``: the call
of ``D`` has no rule, so reverse mode refuses it at its line when its parameters
carry a derivative, and runs it as written when they do not.

Imports `ir`.
"""

from __future__ import annotations

import ast
import copy

from .. import ir
from .tree_index import Nodes, fix_locations, of

# the methods of a frozen distribution that take the points first, then the parameters
METHODS = frozenset({"logpdf", "pdf", "cdf", "logcdf", "sf", "logsf", "pmf", "logpmf", "ppf",
                     "isf"})


def unfreeze(tree: ast.FunctionDef, meaning, nodes=None) -> bool:
    """See the module docstring. `meaning(name)` is the value of a free name, or None;
    `nodes`: ``list(ast.walk(tree))``, where the caller has it. Whether it may have
    rewritten anything."""
    if nodes is None:
        nodes = Nodes(tree)
    if not any(n.attr in METHODS for n in of(nodes, ast.Attribute)):
        return False
    params = {a.arg for a in ast.walk(tree.args) if isinstance(a, ast.arg)}
    stores = {}
    for n in nodes:
        if isinstance(n, ast.Name) and not isinstance(n.ctx, ast.Load):
            stores[n.id] = stores.get(n.id, 0) + 1
        elif isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)) and n is not tree:
            stores[n.name] = stores.get(n.name, 0) + 2
    local = set(stores) | params

    def distribution(node) -> bool:
        parts = ir.dotted_parts(node)
        if parts is None or parts[0] in local:
            return False
        value = meaning(parts[0])
        for part in parts[1:]:
            value = getattr(value, part, None)
        module = getattr(type(value), "__module__", "") or ""
        return module.startswith("scipy.stats") and callable(value) \
            and (hasattr(value, "logpdf") or hasattr(value, "logpmf"))

    frozen, otherwise = _bound_once(tree, nodes, stores, params, distribution)
    # (a constant, or a parameter never assigned, is read where it is used as it is)
    fixed = {p for p in params if p not in stores}
    _Unfreeze(distribution, frozen, fixed, otherwise).visit(tree)
    fix_locations(tree)
    return True


def _method_call(node, name=None):
    """Is `node` a call ``<value>.m(x, ...)`` (m in `METHODS`, positional points
    only), of the local `name` where given?"""
    return isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) \
        and node.func.attr in METHODS \
        and not any(isinstance(a, ast.Starred) for a in node.args) \
        and all(k.arg is not None for k in node.keywords) \
        and (name is None or isinstance(node.func.value, ast.Name) and node.func.value.id == name)


def _freezes(node, distribution) -> bool:
    """Is `node` a call ``D(...)`` of a distribution, without ``*`` or ``**``?"""
    return isinstance(node, ast.Call) and distribution(node.func) \
        and not any(isinstance(a, ast.Starred) for a in node.args) \
        and all(k.arg is not None for k in node.keywords)


def _bound_once(tree, nodes, stores, params, distribution):
    """name -> the ``D(...)`` call it is bound to, for the local names bound once to a
    frozen distribution; and those of them read otherwise than by its methods."""
    found = {}
    for n in nodes:
        if isinstance(n, ast.Assign) and len(n.targets) == 1 \
                and isinstance(n.targets[0], ast.Name) and _freezes(n.value, distribution):
            name = n.targets[0].id
            if stores.get(name) == 1 and name not in params:
                found[name] = n.value
    if not found:
        return found, set()
    read_by_method = set()
    for n in nodes:
        if _method_call(n) and isinstance(n.func.value, ast.Name):
            read_by_method.add(id(n.func.value))
    otherwise = {n.id for n in nodes if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Load)
                 and n.id in found and id(n) not in read_by_method}
    return found, otherwise


class _Unfreeze(ast.NodeTransformer):
    def __init__(self, distribution, frozen: dict, fixed: set, otherwise: set):
        self.distribution = distribution
        self.frozen = frozen  # name -> its D(...) call
        self.fixed = fixed
        self.otherwise = otherwise  # the frozen names also read another way

    def as_read(self, value) -> bool:
        return isinstance(value, ast.Constant) or isinstance(value, ast.Name) \
            and value.id in self.fixed

    def parameter(self, name, position, value):
        """How a use of the frozen `name` reads its parameter at `position`."""
        if self.as_read(value):
            return copy.deepcopy(value)
        return ast.Name(f"{name}%{position}", ast.Load())

    def visit_Assign(self, node):
        self.generic_visit(node)
        target = node.targets[0] if len(node.targets) == 1 else None
        if not isinstance(target, ast.Name) or self.frozen.get(target.id) is not node.value:
            return node
        call = node.value  # (one name per parameter, assigned here)
        out = []
        named = list(enumerate(call.args)) + [(k.arg, k.value) for k in call.keywords]
        for position, value in named:
            if not self.as_read(value):
                out.append(ast.copy_location(ast.Assign(
                    targets=[ast.Name(f"{target.id}%{position}", ast.Store())], value=value),
                    node))
        if target.id in self.otherwise:  # (still bound, to the same parameters)
            out.append(ast.copy_location(ast.Assign(targets=[target], value=ast.Call(
                func=call.func, args=[self.parameter(target.id, i, a)
                                      for i, a in enumerate(call.args)],
                keywords=[ast.keyword(k.arg, self.parameter(target.id, k.arg, k.value))
                          for k in call.keywords])), node))
        return out or ast.copy_location(ast.Pass(), node)

    def visit_Call(self, node):
        self.generic_visit(node)
        if not _method_call(node):
            return node
        owner = node.func.value
        if isinstance(owner, ast.Name) and owner.id in self.frozen:
            call = self.frozen[owner.id]
            args = [self.parameter(owner.id, i, a) for i, a in enumerate(call.args)]
            keywords = [ast.keyword(k.arg, self.parameter(owner.id, k.arg, k.value))
                        for k in call.keywords]
        elif _freezes(owner, self.distribution):
            call = owner
            args, keywords = list(call.args), list(call.keywords)
        else:
            return node
        method = ast.Attribute(copy.deepcopy(call.func), node.func.attr, ast.Load())
        return ast.copy_location(ast.Call(func=ast.copy_location(method, node.func),
                                          args=node.args + args,
                                          keywords=node.keywords + keywords), node)
