"""liveness: which names of a desugared function are live where.

Contract
--------
Both functions read a body in the subset `desugar` gives (statements of the user's
function, every ``return`` last on its path and none inside a loop) and change
nothing.

* `liveness(body)` returns ``(heads, after)``: for each loop of `body` (by ``id``) the
  names live at its head, and for each loop, ``if``, ``with`` and ``try`` the names
  live after it. `anf` makes a name assigned in a loop a phi only if it is live at
  the loop's head, copies it into its phi at a ``break`` only if it is live after
  the loop, and joins a name two branches assign only if it is live after the
  ``if`` (so a ``break`` reads no name a join left out).
* `assigned_by(try_statement)` gives the names a ``try`` assigns on every path that
  goes on after it.
* `names_with(node, ctx)` is the set of the ids of the names in `node` whose
  context is a `ctx` (``ast.Load``, ``ast.Store``): those `ast.walk` finds, without
  its generators.
* `assigned_in_order(stmts)` lists the names `stmts` assign (targets, loop targets,
  augmented assignments), each once, in the order they first appear: the order of a
  loop's phis.
"""

from __future__ import annotations

import ast


def liveness(body) -> tuple:
    """``(heads, after)``: for each loop of `body` the names live at its head, and for
    each ``if`` the names live after it. A name is live where it is read, on some path
    from there, before being assigned (backward dataflow over the structured AST, the
    loops iterated to a fixed point). What is live after a loop is live at its head."""
    heads, after = {}, {}
    if all(type(s) in _SIMPLE for s in body):
        return heads, after  # (no loop, no branch: nothing to say)

    flow = _Flow(heads, after)
    flow.block(body, set(), set(), set())
    return heads, after


def _reads(node) -> set:
    return names_with(node, ast.Load) if node is not None else set()


def _stored(target) -> set:
    return names_with(target, ast.Store)


class _Flow:
    """`liveness`'s walk, filling its `heads` and `after` (methods, not functions
    nested in `liveness`: those that call each other are a reference cycle, left for
    the cyclic collector)."""

    def __init__(self, heads, after):
        self.heads, self.after = heads, after

    def block(self, stmts, live, brk, cont):
        # one set for the block, changed in place by its assignments: a new set per
        # line cost what is live, which on a long straight-line block grows with it
        live = set(live)
        Assign, Name, Store = ast.Assign, ast.Name, ast.Store
        for st in reversed(stmts):
            if type(st) is Assign:
                targets = st.targets
                if len(targets) == 1 and type(targets[0]) is Name and \
                        type(targets[0].ctx) is Store:  # (the commonest: ``x = ...``)
                    live.discard(targets[0].id)
                    live |= _reads(st.value)
                    continue
                for t in st.targets:
                    live -= _stored(t)
                live |= _reads(st.value)
                for t in st.targets:
                    live |= _reads(t)
            else:
                live = set(self.stmt(st, live, brk, cont))  # (its own: heads keeps some)
        return live

    def stmt(self, st, live, brk, cont):
        if isinstance(st, (ast.Assign, ast.AnnAssign)):
            targets = st.targets if isinstance(st, ast.Assign) else [st.target]
            killed = set().union(*(_stored(t) for t in targets))
            return (live - killed) | _reads(st.value) | \
                set().union(*(_reads(t) for t in targets))
        if isinstance(st, ast.AugAssign):
            return live | _reads(st.value) | _reads(st.target) | _stored(st.target)
        if isinstance(st, ast.If):
            self.after[id(st)] = set(live)  # (the last pass of a loop's fixed point stays)
            return _reads(st.test) | self.block(st.body, live, brk, cont) | \
                self.block(st.orelse, live, brk, cont)
        if isinstance(st, (ast.For, ast.While)):
            self.after[id(st)] = set(live)  # (what a `break` must hand on)
            head = set(live)
            while True:
                if isinstance(st, ast.For):
                    inner = self.block(st.body, head, live, head) - _stored(st.target)
                    new = live | inner
                else:
                    new = live | _reads(st.test) | self.block(st.body, head, live, head)
                if new <= head:
                    break
                head |= new
            self.heads[id(st)] = head
            return head | _reads(st.iter) if isinstance(st, ast.For) else head
        if isinstance(st, ast.Break):
            return set(brk)
        if isinstance(st, ast.Continue):
            return set(cont)
        if isinstance(st, ast.Return):
            return _reads(st.value)
        if isinstance(st, (ast.With, ast.Try)):
            self.after[id(st)] = set(live)  # (`anf` keeps it as written, or lowers a `with`)
            if isinstance(st, ast.With):
                return self.block(st.body, live, brk, cont) | _reads(ast.Tuple(
                    elts=[i.context_expr for i in st.items], ctx=ast.Load()))
            return (live - assigned_by(st)) | _reads(st)
        return live | _reads(st)


# the statements that hold no other statement
_SIMPLE = frozenset({ast.Assign, ast.AugAssign, ast.AnnAssign, ast.Expr, ast.Return,
                     ast.Pass, ast.Break, ast.Continue, ast.Raise, ast.Assert, ast.Import,
                     ast.ImportFrom, ast.Global, ast.Nonlocal, ast.Delete})


def names_with(node, ctx) -> set:
    """The ids of the names in `node` whose context is a `ctx` (the names `ast.walk`
    finds, without its generators: `liveness` asks every statement, and a loop's
    again until the dataflow settles)."""
    out = set()
    stack = [node]
    pop, push, extend, AST = stack.pop, stack.append, stack.extend, ast.AST
    while stack:
        n = pop()
        t = type(n)
        if t is ast.Name:
            if isinstance(n.ctx, ctx):
                out.add(n.id)
            continue
        if t is ast.Constant:
            continue
        # (the commonest nodes inline: none of their other fields holds a name)
        if t is ast.BinOp:
            push(n.left)
            push(n.right)
            continue
        if t is ast.Attribute:
            push(n.value)
            continue
        if t is ast.Call:
            push(n.func)
            extend(n.args)
            extend([k.value for k in n.keywords])
            continue
        if t is ast.Assign:
            extend(n.targets)
            push(n.value)
            continue
        for field in n._fields:
            value = getattr(n, field, None)
            if type(value) is list:
                extend([x for x in value if isinstance(x, AST)])
            elif isinstance(value, AST):
                push(value)
    return out


def assigned_by(st) -> set:
    """The names a ``try`` statement assigns on every path that goes on after it:
    in its body and in every ``except``, or in its ``finally`` (an assignment nested in
    an ``if`` counts where both branches make it)."""

    every = _assigned_on_every_path(st.body)
    for handler in st.handlers:
        every &= _assigned_on_every_path(handler.body)
    return every | _assigned_on_every_path(st.finalbody)


def _assigned_on_every_path(stmts) -> set:
    """`assigned_by`'s names of one block."""
    out = set()
    for s in stmts:
        if isinstance(s, (ast.Assign, ast.AnnAssign, ast.AugAssign)):
            targets = s.targets if isinstance(s, ast.Assign) else [s.target]
            out |= {n.id for t in targets for n in ast.walk(t)
                    if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Store)}
        elif isinstance(s, ast.If):
            out |= _assigned_on_every_path(s.body) & _assigned_on_every_path(s.orelse)
    return out


def assigned_in_order(stmts) -> list:
    out = []
    for s in stmts:
        _add_assigned(s, out)
    return out


def _add_assigned(node, out) -> None:
    """`assigned_in_order`'s walk (at module level: a nested function that calls
    itself is a reference cycle, left for the cyclic collector)."""
    if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Store):
        if node.id not in out:
            out.append(node.id)
    if isinstance(node, ast.AugAssign) and isinstance(node.target, ast.Name):
        if node.target.id not in out:
            out.append(node.target.id)
    for child in ast.iter_child_nodes(node):
        _add_assigned(child, out)
