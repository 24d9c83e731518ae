"""function_loops: a loop over a sequence of functions, unrolled where the derivative is
built.

``for fun, p in zip(apply_funs, params)`` (stax's ``serial``), ``for act in LAYERS``:
where a global or closure variable holds a tuple or list of functions, `structures`
unrolls the loop (`structure_loops.LoopRewrites.static_items` asks `function_items`),
each function read by a name of its own (`defaults.capture`), which the loop's
variable stands for in that iteration's body (`named_functions`): each call is then
of a function the compiler resolves, put in place where it is handed a container.
The derivative is built for the sequence (`decided`, guarded by equality: another
function in it builds it again). `loops_over_functions` tells the parser such a
loop needs the rewrite, containers or not. `unlisted` first reads
``list(zip(LAYERS, params))`` over such a sequence as the ``zip`` itself, in the loop
and through a name only loops read.

Imports `defaults`, `scopes` and `tree_index`.
"""

from __future__ import annotations

import ast
import builtins
import copy

from .defaults import capture, is_function
from .scopes import rename_scoped
from .tree_index import of


class Function:
    """An item of a sequence of functions a loop goes through: the name it is read by
    (`defaults.capture`), which the loop's variable stands for in the body."""

    def __init__(self, name):
        self.name = name


def function_items(rw, e: ast.Name):
    """A `Function` per item of the tuple or list of functions a global or closure
    variable `e` holds (``LAYERS = (dense, relu, dense)``, stax's ``layers``), the
    derivative built for that sequence (`decided`: another builds it again); None
    for any other value."""
    if e.id in rw.caller_locals or e.id in rw.env or e.id in rw.local_functions:
        return None
    value = rw.lookup(e.id)
    if not _functions(value):
        return None
    rw.decided[e.id] = type(value)(value)  # (a list's copy: one changed in place differs)
    return [Function(capture(rw, f"{e.id}_{i}", v)) for i, v in enumerate(value)]


def loops_over_functions(nodes, meaning) -> bool:
    """Does a ``for`` of the function go through a tuple or list of functions that a
    global or closure variable holds (`meaning`: a free name's value), directly or
    in ``enumerate``, ``zip`` or ``reversed``? The rewrite unrolls it
    (`function_items`), containers or not."""
    for s in of(nodes, ast.For):
        todo = [s.iter]
        while todo:
            e = todo.pop()
            if isinstance(e, ast.Call) and isinstance(e.func, ast.Name) and e.func.id in (
                    "enumerate", "zip", "reversed"):
                todo.extend(e.args)
            elif isinstance(e, ast.Name) and _functions(meaning(e.id)):
                return True
    return False


def unlisted(meaning, nodes) -> bool:
    """``list(zip(LAYERS, params))`` and ``list(enumerate(LAYERS))`` of a sequence of
    functions a global or closure variable holds, as the iterator they list (the same
    items), so the loop through them is unrolled as any loop over the functions:
    where a loop goes through one (``reversed(list(zip(...)))`` too), and where a name
    is given one once and only loops read it (``pairs = list(zip(...))``; that line
    goes) and nothing the call reads is assigned in the function. Run before
    `higher_order.listed_pairs`, which would make it a list of the functions. Whether
    it rewrote anything."""
    stored = {n.id for n in nodes if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Store)}

    def builtin(e, *names):
        return isinstance(e, ast.Name) and e.id in names and e.id not in stored and \
            meaning(e.id) is getattr(builtins, e.id)

    def inner(call):  # (the zip or enumerate a list of a sequence of functions lists)
        if not (isinstance(call, ast.Call) and builtin(call.func, "list") and
                len(call.args) == 1 and not call.keywords):
            return None
        it = call.args[0]
        if isinstance(it, ast.Call) and builtin(it.func, "zip", "enumerate") and any(
                isinstance(a, ast.Name) and a.id not in stored and _functions(meaning(a.id))
                for a in it.args):
            return it
        return None

    def slots(loop):  # ``(holder, index)`` of the sequences a loop's iterator reads
        out, todo = [(loop, None)], [loop.iter]
        while todo:
            c = todo.pop()
            if isinstance(c, ast.Call) and builtin(c.func, "reversed", "enumerate", "zip"):
                out += [(c, i) for i in range(len(c.args))]
                todo.extend(c.args)
        return out

    changed = False
    loops = list(of(nodes, ast.For))
    for s in loops:
        for slot in slots(s):
            got = inner(_slot(*slot))
            if got is not None:
                _slot(*slot, got)
                changed = True
    for n in nodes:
        for field in ("body", "orelse", "finalbody"):
            block = getattr(n, field, None)
            for s in list(block) if isinstance(block, list) else ():
                if _listed_once(s, inner, stored, nodes, loops, slots):
                    block.remove(s)
                    changed = True
    return changed


def _listed_once(s, inner, stored, nodes, loops, slots) -> bool:
    """Is `s` ``pairs = list(zip(...))`` of a sequence of functions (`inner`), its
    name given nothing else and read by loops only, nothing its call reads assigned?
    Then each loop reads the ``zip`` in its place (and True)."""
    if not (isinstance(s, ast.Assign) and len(s.targets) == 1 and
            isinstance(s.targets[0], ast.Name)):
        return False
    name, it = s.targets[0].id, inner(s.value)
    if it is None or any(isinstance(n, ast.Name) and n.id in stored for n in ast.walk(it)):
        return False
    if sum(isinstance(n, ast.Name) and n.id == name and isinstance(n.ctx, ast.Store)
           for n in nodes) != 1:
        return False
    reads = sum(isinstance(n, ast.Name) and n.id == name and isinstance(n.ctx, ast.Load)
                for n in nodes)
    places = [slot for loop in loops for slot in slots(loop)
              if isinstance(e := _slot(*slot), ast.Name) and e.id == name]
    if not places or len(places) != reads:
        return False
    for slot in places:
        _slot(*slot, ast.fix_missing_locations(ast.copy_location(copy.deepcopy(it), s)))
    return True


def _slot(holder, i, value=None):
    """The sequence at a slot of a loop's iterator (`unlisted`'s ``(holder, index)``:
    the loop's own iterator where `i` is None, else an argument of a builtin it
    calls); given a `value`, that is put there instead."""
    if value is None:
        return holder.iter if i is None else holder.args[i]
    if i is None:
        holder.iter = value
    else:
        holder.args[i] = value


def _has_function(item) -> bool:
    return isinstance(item, Function) or isinstance(item, tuple) and any(map(_has_function,
                                                                             item))


def _functions(value) -> bool:
    return type(value) in (tuple, list) and bool(value) and all(map(is_function, value))


def named_functions(rw, target, item, body, s) -> tuple:
    """The loop's `target` and `item` less each variable given a `Function`, which
    `body` (a copy, renamed in place) reads by the function's name instead, as a
    call of it is resolved; ``(None, None)`` where nothing is left to bind."""
    if isinstance(item, Function) and isinstance(target, ast.Name):
        names, target, item = {target.id: item.name}, None, None
    elif isinstance(item, tuple) and isinstance(target, ast.Tuple) and len(
            item) == len(target.elts) and any(isinstance(x, Function) for x in item):
        pairs = list(zip(target.elts, item))
        names = {t.id: x.name for t, x in pairs if isinstance(x, Function) and
                 isinstance(t, ast.Name)}
        rest = [(t, x) for t, x in pairs if not (isinstance(t, ast.Name) and t.id in names)]
        target = ast.Tuple(elts=[t for t, _ in rest], ctx=ast.Store()) if rest else None
        item = tuple(x for _, x in rest) if rest else None
    else:
        names = {}
    if _has_function(item):
        raise rw.refuse(s, "s2sad goes through a sequence of functions where the loop's "
                           "variable takes each function whole", hint="Write `for f in "
                                                                     "layers:` or `for f, p in "
                                                                     "zip(layers, params):`.")
    for st in body if names else ():
        rename_scoped(st, names)
    return target, item
