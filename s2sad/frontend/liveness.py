"""liveness: which names of a desugared function are live where.

Contract
--------
Both functions read a body in the subset `desugar` gives (statements of the user's
function, every ``return`` last on its path and none inside a loop) and change
nothing.

* `liveness(body)` returns ``(heads, after)``: for each loop of `body` (by ``id``) the
  names live at its head, and for each ``if``, ``with`` and ``try`` the names live
  after it. `anf` makes a
  name assigned in a loop a phi only if it is live at the loop's head, and joins a
  name two branches assign only if it is live after the ``if``.
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

    def reads(node) -> set:
        return names_with(node, ast.Load) if node is not None else set()

    def stored(target) -> set:
        return names_with(target, ast.Store)

    def block(stmts, live, brk, cont):
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
                    live |= reads(st.value)
                    continue
                for t in st.targets:
                    live -= stored(t)
                live |= reads(st.value)
                for t in st.targets:
                    live |= reads(t)
            else:
                live = set(stmt(st, live, brk, cont))  # (its own: `heads` keeps some)
        return live

    def stmt(st, live, brk, cont):
        if isinstance(st, (ast.Assign, ast.AnnAssign)):
            targets = st.targets if isinstance(st, ast.Assign) else [st.target]
            killed = set().union(*(stored(t) for t in targets))
            return (live - killed) | reads(st.value) | set().union(*(reads(t) for t in targets))
        if isinstance(st, ast.AugAssign):
            return live | reads(st.value) | reads(st.target) | stored(st.target)
        if isinstance(st, ast.If):
            after[id(st)] = set(live)  # (the last pass of a loop's fixed point stays)
            return reads(st.test) | block(st.body, live, brk, cont) | block(st.orelse, live, brk, cont)
        if isinstance(st, (ast.For, ast.While)):
            head = set(live)
            while True:
                if isinstance(st, ast.For):
                    inner = block(st.body, head, live, head) - stored(st.target)
                    new = live | inner
                else:
                    new = live | reads(st.test) | block(st.body, head, live, head)
                if new <= head:
                    break
                head |= new
            heads[id(st)] = head
            return head | reads(st.iter) if isinstance(st, ast.For) else head
        if isinstance(st, ast.Break):
            return set(brk)
        if isinstance(st, ast.Continue):
            return set(cont)
        if isinstance(st, ast.Return):
            return reads(st.value)
        if isinstance(st, (ast.With, ast.Try)):
            after[id(st)] = set(live)  # (`anf` keeps it as written, or lowers a `with`)
            if isinstance(st, ast.With):
                return block(st.body, live, brk, cont) | reads(ast.Tuple(
                    elts=[i.context_expr for i in st.items], ctx=ast.Load()))
            return (live - assigned_by(st)) | reads(st)
        return live | reads(st)

    block(body, set(), set(), set())
    return heads, after


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

    def top(stmts) -> set:
        out = set()
        for s in stmts:
            if isinstance(s, (ast.Assign, ast.AnnAssign, ast.AugAssign)):
                targets = s.targets if isinstance(s, ast.Assign) else [s.target]
                out |= {n.id for t in targets for n in ast.walk(t)
                        if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Store)}
            elif isinstance(s, ast.If):
                out |= top(s.body) & top(s.orelse)
        return out

    every = top(st.body)
    for handler in st.handlers:
        every &= top(handler.body)
    return every | top(st.finalbody)


def assigned_in_order(stmts) -> list:
    out = []

    def visit(node):
        if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Store):
            if node.id not in out:
                out.append(node.id)
        if isinstance(node, ast.AugAssign) and isinstance(node.target, ast.Name):
            if node.target.id not in out:
                out.append(node.target.id)
        for child in ast.iter_child_nodes(node):
            visit(child)

    for s in stmts:
        visit(s)
    return out
