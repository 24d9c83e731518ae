"""The intermediate representation every pipeline stage reads and writes.

A `Function` is a list of statements. Statements are the small dataclasses below;
the values they compute are ordinary `ast.expr` trees, so one printer (`emit`) turns
any stage's output back into Python and every stage's output can be run.

Names. A name is a string. The user's own names appear as written. Names the compiler
makes contain a ``%`` (never valid in Python, so they cannot collide with the user's):
``%3`` is a temporary, ``x%1`` an SSA version of ``x``, ``x%a`` a dup copy, ``x%bar``
an adjoint, ``x%dot`` a tangent. `emit` turns them into ``t1``, ``x_1``, ``x_a``,
``x_bar``, ``x_dot``, numbering temporaries in order of first appearance and keeping
clear of every name the user's code uses.

Atoms. After ANF every operand is an atom: a local name (`ast.Name` whose id is a
local of the function), a literal (`ast.Constant`, including negative numbers), or a
static reference (`ast.Name` or a chain of `ast.Attribute` on a name that is not a
local: a global, closure variable or builtin, resolved once at transform time and
listed in `Function.refs`).

This module holds data and small helpers only and imports nothing from the rest of
s2sad.

Size: a little over 800 lines: the statements and the walkers every stage asks of
them, whose common cases are written out inline (`names_in`, `nodes`, `walk`): the
compiler asks them tens of thousands of times per derivative.
"""

from __future__ import annotations

import ast
import copy
import linecache
from dataclasses import dataclass, field
from typing import Iterator


# --------------------------------------------------------------------- statements


@dataclass(eq=False)
class Assign:
    """``targets[0] = value``, or ``t1, t2, ... = value`` when `unpack` is true.
    `inplace`: the user wrote ``x op= y`` (`value` is ``x op y``), which changes a list
    or an array in place; the SSA form gives the result a new name, which is right
    only when nothing else refers to the object (activity checks that)."""

    targets: tuple
    value: ast.expr
    line: int = 0
    unpack: bool = False
    inplace: bool = False
    # the user wrote ``c[i] op= y`` (`value` is ``c[i] op y``, written back by the next
    # SetItem): where ``c[i]`` is a list or an array, Python changes that object
    item: bool = False


@dataclass(eq=False)
class AugAssign:
    """``target += value``: the reverse sweep accumulates adjoints this way in loops,
    and counts loop iterations. `target` is a name or an ``ast.Subscript``
    (``acc[k] += v``, accumulating into one element of a list's adjoint)."""

    target: object
    value: ast.expr
    line: int = 0


@dataclass(eq=False)
class SetItem:
    """``target = value`` where `target` is an ``ast.Subscript`` on a local name: a
    write into a list or an array. It defines no name; the object the container
    names changes. `restore` marks the reverse sweep's writes that put back what a
    forward write overwrote."""

    target: ast.Subscript
    value: ast.expr
    line: int = 0
    restore: bool = False

    @property
    def container(self) -> str:
        return self.target.value.id


@dataclass(eq=False)
class Dup:
    """``t1, t2, ... = dup(source)``: every copy is used exactly once afterwards."""

    targets: tuple
    source: str
    line: int = 0


@dataclass(eq=False)
class Expr:
    """An expression evaluated for its effect (a call such as ``print(x)``).
    `restore` marks the reverse sweep's ``xs.pop()`` and ``xs.append(xs%old)`` that
    undo a forward ``xs.append(v)`` and ``xs.pop()`` (see `SetItem.restore`)."""

    value: ast.expr
    line: int = 0
    restore: bool = False


@dataclass(eq=False)
class If:
    """``if test: body else: orelse``; `test` is an atom after ANF.

    After ANF a variable assigned in the branches and read after the join is
    assigned, under the same name, exactly once at the end of each branch.
    """

    test: ast.expr
    body: list
    orelse: list
    line: int = 0


@dataclass
class Phi:
    """A loop-carried variable: `name` holds its value at the start of each iteration.
    It is assigned `init` before the loop (when `init` is None the variable has no
    value before the loop, as in Python) and at every iteration exit (`Exit`).
    `unborn`: the variable has no value before the loop in the user's program, and
    `init` is the None the lowering gives it for copies that read it on a path where
    Python has not bound it yet (`anf`); nothing reads that None as a value."""

    name: str
    init: ast.expr | None = None
    unborn: bool = False


@dataclass(eq=False)
class Loop:
    """A loop in the structured form every later stage relies on.

    A ``for`` loop iterates `target` over `iter`, an atom holding a ``range`` (loops
    over lists, tuples, ``enumerate`` and ``zip`` are lowered to an index ``range``).
    A ``while`` loop (``iter`` None) runs `cond`, the statements computing its test,
    then stops unless the atom `test` is true, then runs `body`. Every path through
    `body` ends with exactly one `Exit`. `tag` pairs the loop with its reverse (and
    its tape) after stages copy statements. `checkpoint` is None, or
    ``(schedule, snapshots)`` for a loop the reverse sweep reverses from snapshots
    (``s2sad.checkpointed``): the schedule's name and an atom (None: the default);
    ``(schedule, snapshots, "auto")`` when ``grad(f, checkpoint=...)`` marked it.
    """

    target: str | None
    iter: ast.expr | None
    body: list
    phis: list
    line: int = 0
    tag: int = 0
    cond: list = field(default_factory=list)
    test: ast.expr | None = None
    checkpoint: tuple | None = None


@dataclass(eq=False)
class Exit:
    """The end of one path through a loop body: assign the loop-carried variables
    (``phi = current``), then ``break`` if `brk`, else go on to the next iteration."""

    copies: list  # Assign statements to phi names
    brk: bool = False
    line: int = 0


@dataclass(eq=False)
class Push:
    """``tape.append(v1)``, ``tape.append(v2)``...: the values a loop's reverse needs
    from this iteration (filled in once the reverse sweep is final), one list entry
    each (a tuple per iteration would cost 56 bytes more)."""

    tape: str
    values: tuple = ()
    tag: int = 0
    line: int = 0


@dataclass(eq=False)
class Pop:
    """``v2 = tape.pop()``, ``v1 = tape.pop()``: restore what the matching `Push`
    saved, last value first."""

    tape: str
    targets: tuple = ()
    tag: int = 0
    line: int = 0


@dataclass(eq=False)
class ForEach:
    """A plain ``for target in iter:`` loop the reverse sweep writes for itself (for
    example to add an adjoint to every element of a list); no phis, no tape."""

    target: str
    iter: ast.expr
    body: list
    line: int = 0
    tag: int = 0


@dataclass(eq=False)
class Kept:
    """A statement of the user's run as written: an ``assert``, ``raise`` or
    ``import``, or a ``try`` or ``with`` block (and the ``del`` of arrays no longer
    read, which `backend.release` adds to the final code). It carries no derivative
    (activity refuses one whose `defines` would have to). `args` are the atoms it
    reads, one per read of a local, which `stmt` names by the placeholders `KEPT_ARG`
    + index; the names it assigns itself are its own (``k%3``), and `defines` those of
    them the rest of the function reads."""

    stmt: ast.stmt
    args: list
    line: int = 0
    defines: tuple = ()

    def own_names(self) -> set:
        """The plain names `stmt` mentions (imported, assigned or read), not the
        placeholders."""
        out = set()
        for n in ast_nodes(self.stmt):  # (one walk: a `del` of arrays per line, often)
            t = type(n)
            if t is ast.Name:
                if not n.id.startswith(KEPT_ARG):
                    out.add(n.id)
            elif t is ast.alias:
                out.add(n.asname or n.name.split(".")[0])
        return out


KEPT_ARG = "\0arg"


@dataclass(eq=False)
class Return:
    value: ast.expr
    line: int = 0


@dataclass(eq=False)
class Comment:
    text: str
    line: int = 0


@dataclass
class Param:
    name: str
    default: ast.expr | None = None
    kwonly: bool = False


@dataclass(eq=False)
class Function:
    """One function of a stage's output.

    `refs` maps the dotted text of each static reference (``math.sin``, ``g``) to
    the object it named at transform time. `source` holds where the user's function
    came from, for comments and error messages.
    """

    name: str
    params: list
    body: list
    refs: dict = field(default_factory=dict)
    source: "SourceInfo | None" = None
    doc: str | None = None

    def clone(self, **changes) -> "Function":
        """A copy whose statements can be changed without touching this one."""
        fields = dict(name=self.name, params=copy_tree(self.params),
                      body=copy_tree(self.body), refs=dict(self.refs),
                      source=self.source, doc=self.doc)
        fields.update(changes)
        return Function(**fields)


def generated_file(filename) -> bool:
    """Is `filename` one s2sad gives the code it compiles (``<s2sad-3 f_grad>``)?"""
    return (filename or "").startswith("<s2sad")


@dataclass(eq=False)
class SourceInfo:
    """Where a user function lives: file, absolute line numbers, and its lines."""

    filename: str
    qualname: str
    first_line: int  # absolute line number of the first line of `lines`
    lines: list  # the user's source lines of the function, as in the file
    func: object = None  # the function object itself

    @property
    def generated(self) -> bool:
        """Is this code s2sad wrote (a gradient forward mode reads for a Hessian)?"""
        return generated_file(self.filename)

    def line_text(self, line: int) -> str:
        i = line - self.first_line
        if 0 <= i < len(self.lines):
            return self.lines[i].rstrip("\n")
        # (a line of a function of the same file put in place of a call)
        return linecache.getline(self.filename, line).rstrip("\n") if self.filename else ""


@dataclass(eq=False)
class Module:
    """Several functions emitted together, plus what they import from outside."""

    functions: list
    imports: list = field(default_factory=list)  # lines such as "import math"
    header: list = field(default_factory=list)  # comment lines printed first


# ------------------------------------------------------------------------ helpers


def name(id_: str) -> ast.Name:
    return ast.Name(id=id_, ctx=ast.Load())


def const(value) -> ast.Constant:
    return ast.Constant(value=value)


def constant_slice(index) -> slice | None:
    """The `slice` an ``ast.Slice`` stands for when each of its bounds is absent, an
    int literal or a negated one (``t[1:]``, ``t[:-1]``, ``t[::-1]``); else None."""
    if type(index) is not ast.Slice:
        return None
    parts = []
    for p in (index.lower, index.upper, index.step):
        negate = type(p) is ast.UnaryOp and type(p.op) is ast.USub
        if negate:
            p = p.operand
        if p is None:
            parts.append(None)
        elif type(p) is ast.Constant and type(p.value) is int:
            parts.append(-p.value if negate else p.value)
        else:
            return None
    if parts[2] == 0:
        return None  # (Python raises ValueError there)
    return slice(*parts)


def derived(base: str, suffix: str) -> str:
    """A compiler-made name derived from `base`: ``x`` -> ``x%bar``."""
    return f"{base}%{suffix}"


def adjoint(n: str) -> str:
    return derived(n, "bar")


def tangent(n: str) -> str:
    return derived(n, "dot")


def dotted(node: ast.expr) -> str | None:
    """``math.sin`` for an Attribute chain on a Name, the id for a Name, else None."""
    parts = []
    while isinstance(node, ast.Attribute):
        parts.append(node.attr)
        node = node.value
    if isinstance(node, ast.Name):
        parts.append(node.id)
        return ".".join(reversed(parts))
    return None


def dotted_parts(node: ast.expr) -> list | None:
    """``math.sin`` as ``["math", "sin"]`` (`dotted`), or None."""
    text = dotted(node)
    return None if text is None else text.split(".")


def nodes(node: ast.AST) -> list:
    """Every node of an expression tree except contexts and operators (a faster
    `ast.walk` for the small trees of the IR). The common node types are taken
    inline, their children pushed in the order the general loop below pushes them."""
    out = []
    stack = [node]
    pop, push, extend, add = stack.pop, stack.append, stack.extend, out.append
    while stack:
        n = pop()
        add(n)
        t = type(n)
        if t is ast.Name or t is ast.Constant:
            continue
        if t is ast.BinOp:
            push(n.left)
            push(n.right)
            continue
        if t is ast.Attribute:
            push(n.value)
            continue
        if t is ast.Subscript:
            push(n.value)
            push(n.slice)
            continue
        if t is ast.UnaryOp:
            push(n.operand)
            continue
        for f in n._fields:
            v = getattr(n, f, None)
            if isinstance(v, ast.AST):
                if not isinstance(v, _LEAVES):
                    push(v)
            elif type(v) is list:
                extend([x for x in v if isinstance(x, ast.AST)])
    return out


def ast_nodes(tree: ast.AST) -> list:
    """``list(ast.walk(tree))``, the same nodes in the same order (breadth first, each
    node's children in `ast.iter_child_nodes` order), without a generator per node:
    the parse passes take a whole function's tree this way."""
    out = [tree]
    add, extend, i = out.append, out.extend, 0
    AST, Name, Constant, BinOp = ast.AST, ast.Name, ast.Constant, ast.BinOp
    while i < len(out):
        n = out[i]
        i += 1
        t = type(n)
        if t is Constant:
            continue
        d = n.__dict__
        if t is Name:
            v = d.get("ctx")
            if isinstance(v, AST):
                add(v)
            continue
        if t is BinOp:
            for v in (d.get("left"), d.get("op"), d.get("right")):
                if isinstance(v, AST):
                    add(v)
            continue
        for f in n._fields:
            v = d.get(f)
            if isinstance(v, AST):
                add(v)
            elif isinstance(v, list):
                extend([x for x in v if isinstance(x, AST)])
    return out


def names_in(node: ast.AST) -> list:
    """Every ``ast.Name`` id in an expression (with repeats). This is the compiler's
    most frequent question, so the common node types are handled inline (and a name,
    or an operator on two atoms, before anything else; in the order the loop below
    gives)."""
    t = type(node)
    if t is ast.Name:
        return [node.id]
    if t is ast.BinOp:
        left, right = node.left, node.right
        tl, tr = type(left), type(right)
        if tl is ast.Name:
            if tr is ast.Name:
                return [right.id, left.id]
            if tr is ast.Constant:
                return [left.id]
        elif tl is ast.Constant:
            if tr is ast.Name:
                return [right.id]
            if tr is ast.Constant:
                return []
    out = []
    stack = [node]
    pop, push, extend = stack.pop, stack.append, stack.extend
    while stack:
        n = pop()
        t = type(n)
        if t is ast.Name:
            out.append(n.id)
        elif t is ast.Constant:
            continue
        elif t is ast.BinOp:
            push(n.left)
            push(n.right)
        elif t is ast.Call:
            push(n.func)
            extend(n.args)
            extend([k.value for k in n.keywords])
        elif t is ast.Attribute or t is ast.Starred:
            push(n.value)
        elif t is ast.UnaryOp:
            push(n.operand)
        elif t is ast.Subscript:
            push(n.value)
            push(n.slice)
        elif t is ast.Compare:
            push(n.left)
            extend(n.comparators)
        elif t is ast.Tuple or t is ast.List:
            extend(n.elts)
        elif t is ast.IfExp:
            push(n.test)
            push(n.body)
            push(n.orelse)
        else:
            out.extend(x.id for x in nodes(n) if type(x) is ast.Name)
    return out


_LEAVES = (ast.expr_context, ast.operator, ast.unaryop, ast.cmpop, ast.boolop)


def expr_key(node) -> tuple:
    """A hashable key of an expression tree: two trees have the same key exactly when
    `ast.dump` prints them the same (the same node types and fields, constants with
    the same repr), without building the text."""
    t = type(node)
    # (the commonest nodes inline, their keys the same tuples the loop below makes)
    if t is ast.Name:
        d = node.__dict__
        if type(d.get("ctx")) is ast.Load and type(d.get("id")) is str:
            return (t, d["id"], _LOAD_KEY)
    elif t is ast.BinOp:
        d = node.__dict__
        if "left" in d and "right" in d and "op" in d:
            return (t, expr_key(d["left"]), (type(d["op"]),), expr_key(d["right"]))
    elif t is ast.Call:
        d = node.__dict__
        if "func" in d and type(d.get("args")) is list and d.get("keywords") == []:
            return (t, expr_key(d["func"]), (list, *[expr_key(a) for a in d["args"]]),
                    _NO_KEYWORDS)
    elif t is ast.Attribute:
        d = node.__dict__
        if type(d.get("ctx")) is ast.Load and type(d.get("attr")) is str and "value" in d:
            return (t, expr_key(d["value"]), d["attr"], _LOAD_KEY)
    elif t is ast.UnaryOp:
        d = node.__dict__
        if "op" in d and "operand" in d:
            return (t, (type(d["op"]),), expr_key(d["operand"]))
    if t is list:
        return (list, *[expr_key(x) for x in node])
    if not isinstance(node, ast.AST):
        return node if t is str else (repr, repr(node))
    out = [t]
    for f in node._fields:
        try:
            value = getattr(node, f)
        except AttributeError:
            out.append(_ABSENT)
            continue
        if value is None and getattr(t, f, ...) is None:
            out.append(_ABSENT)  # (ast.dump leaves such a field out)
        else:
            out.append(expr_key(value))
    return tuple(out)


_ABSENT = object()
_LOAD_KEY = (ast.Load,)
_NO_KEYWORDS = (list,)


def copy_tree(node):
    """A deep copy of IR statements and expression trees (much faster than
    `copy.deepcopy`, which these trees spend most of a transform in). Strings,
    numbers, None, contexts and operators are shared, not copied."""
    t = type(node)
    if t in _SHARED:
        return node
    if t in _BY_DICT:
        new = t.__new__(t)
        d = node.__dict__.copy()
        for k, v in d.items():  # (a value replaced, no key added: the walk is safe)
            if type(v) not in _SHARED:
                d[k] = copy_tree(v)
        new.__dict__ = d
        return new
    if isinstance(node, list):
        return [x if type(x) in _SHARED else copy_tree(x) for x in node]
    if isinstance(node, _LEAVES) or isinstance(node, (str, int, float, bool)):
        return node
    if t is tuple:
        for x in node:
            if type(x) not in _SHARED:
                return tuple(copy_tree(y) for y in node)
        return node  # (immutable, and so is what it holds: a statement's targets)
    if isinstance(node, tuple):
        return tuple(copy_tree(x) for x in node)
    if hasattr(node, "__dict__"):
        _BY_DICT.add(t)  # (every test above depends on the type alone)
        return copy_tree(node)
    return copy.deepcopy(node)


def _subclasses(classes) -> set:
    out, stack = set(), list(classes)
    while stack:
        c = stack.pop()
        out.add(c)
        stack.extend(c.__subclasses__())
    return out


# the exact types `copy_tree` returns as they are (a fast test before the general ones)
_SHARED = frozenset({str, int, float, bool, type(None)} | _subclasses(_LEAVES))
_BY_DICT: set = set()  # the types `copy_tree` copies field by field (AST nodes, statements)


def local_reads(node: ast.AST, is_local) -> list:
    """Ids of local names read by an expression (static references excluded), in the
    order a depth-first walk meets them (children in `ast.iter_child_nodes` order;
    a stack, not recursion: `dup` asks it of every line)."""
    out = []
    stack = [node]
    pop, push = stack.pop, stack.append
    while stack:
        n = pop()
        t = type(n)  # (the common nodes first)
        if t is ast.Name:
            if is_local(n.id):
                out.append(n.id)
        elif t is ast.Constant:
            continue
        elif t is ast.BinOp:
            push(n.right)
            push(n.left)
        elif t is ast.Call:
            stack.extend([x.value for x in reversed(n.keywords)])
            stack.extend(reversed(n.args))
            push(n.func)
        elif isinstance(n, ast.Attribute):
            root = n
            while isinstance(root, ast.Attribute):
                root = root.value
            if isinstance(root, ast.Name) and not is_local(root.id):
                continue  # a static reference such as math.pi
            push(n.value)
        elif isinstance(n, ast.Name):
            if is_local(n.id):
                out.append(n.id)
        else:
            stack.extend(reversed(list(ast.iter_child_nodes(n))))
    return out


def substitute(node: ast.expr, mapping: dict) -> ast.expr:
    """A copy of `node` with each Name whose id is in `mapping` replaced by a copy
    of the mapped expression (or renamed, when the mapped value is a string)."""
    if not any(n in mapping for n in names_in(node)):
        return node
    return _substituted(node, mapping)


def _substituted(node, mapping):
    """``_Substitute(mapping).visit(copy_tree(node))``, the same tree, with the
    commonest nodes copied inline (a transformer's visit per node was most of what
    a substitution cost)."""
    t = type(node)
    if t is ast.Name:
        new = mapping.get(node.id)
        if new is None:
            return copy_tree(node)
        return ast.Name(id=new, ctx=node.ctx) if isinstance(new, str) else copy_tree(new)
    if t is ast.BinOp or t is ast.UnaryOp or t is ast.Attribute or \
            t is ast.Call and not node.keywords:
        out = t.__new__(t)
        d = node.__dict__.copy()
        for k, v in d.items():  # (a value replaced, no key added: the walk is safe)
            if type(v) is list:
                d[k] = [_substituted(x, mapping) if isinstance(x, ast.AST) else copy_tree(x)
                        for x in v]
            elif isinstance(v, ast.AST) and not isinstance(v, _LEAVES):
                d[k] = _substituted(v, mapping)
            elif type(v) not in _SHARED:
                d[k] = copy_tree(v)
        out.__dict__ = d
        return out
    return _Substitute(mapping).visit(copy_tree(node))


class _Substitute(ast.NodeTransformer):
    def __init__(self, mapping):
        self.mapping = mapping

    def visit_Name(self, n):
        new = self.mapping.get(n.id)
        if new is None:
            return n
        if isinstance(new, str):
            return ast.Name(id=new, ctx=n.ctx)
        return copy_tree(new)


def rename_in_place(node: ast.AST, mapping: dict) -> None:
    """Rename Names in `node` itself (for trees the caller owns)."""
    t = type(node)
    if t is ast.Name:
        new = mapping.get(node.id)
        if new is not None:
            node.id = new
        return
    stack = [node]  # (the common nodes inline; any other with all its subtree)
    pop, push, extend = stack.pop, stack.append, stack.extend
    while stack:
        n = pop()
        t = type(n)
        if t is ast.Name:
            new = mapping.get(n.id)
            if new is not None:
                n.id = new
        elif t is ast.BinOp:
            push(n.left)
            push(n.right)
        elif t is ast.Constant:
            continue
        elif t is ast.Call:
            push(n.func)
            extend(n.args)
            extend([k.value for k in n.keywords])
        elif t is ast.Attribute:
            push(n.value)
        elif t is ast.UnaryOp:
            push(n.operand)
        else:
            for x in nodes(n):
                if type(x) is ast.Name:
                    new = mapping.get(x.id)
                    if new is not None:
                        x.id = new


def walk(body: list) -> Iterator:
    """Every statement of a body, depth first, in program order."""
    for stmt in body:
        yield stmt
        if type(stmt) in _FLAT:
            continue
        if isinstance(stmt, If):
            yield from walk(stmt.body)
            yield from walk(stmt.orelse)
        elif isinstance(stmt, Loop):
            yield from walk(stmt.cond)
            yield from walk(stmt.body)
        elif isinstance(stmt, ForEach):
            yield from walk(stmt.body)
        elif isinstance(stmt, Exit):
            yield from walk(stmt.copies)


_FLAT = frozenset({Assign, AugAssign, SetItem, Dup, Expr, Push, Pop, Kept, Return, Comment})


def blocks(stmt) -> list:
    """The statement lists nested directly in a statement."""
    if isinstance(stmt, If):
        return [stmt.body, stmt.orelse]
    if isinstance(stmt, Loop):
        return [stmt.cond, stmt.body]
    if isinstance(stmt, ForEach):
        return [stmt.body]
    if isinstance(stmt, Exit):
        return [stmt.copies]
    return []


def exprs(stmt) -> Iterator:
    """The expressions a statement reads itself (not in its nested blocks; a loop's
    `test` is read inside the loop, so it is not among them)."""
    t = type(stmt)
    if t is Assign or t is Expr or t is Return:  # (the most common: one value)
        yield stmt.value
        return
    for get, _ in slots(stmt):
        yield get()
    if isinstance(stmt, Dup):
        yield name(stmt.source)
    elif isinstance(stmt, AugAssign) and isinstance(stmt.target, str):
        yield name(stmt.target)
    elif isinstance(stmt, Push) and stmt.values:
        yield name(stmt.tape)
        for v in stmt.values:
            yield name(v)
    elif isinstance(stmt, Pop) and stmt.targets:
        yield name(stmt.tape)


def slots(stmt) -> list:
    """(get, set) pairs for every expression field of a statement itself, so a pass
    can read or replace them without knowing every statement type."""
    out = []

    def field_of(obj, attr):
        out.append((lambda: getattr(obj, attr), lambda v: setattr(obj, attr, v)))

    if isinstance(stmt, (Assign, Expr, Return)):
        field_of(stmt, "value")
    elif isinstance(stmt, AugAssign):
        field_of(stmt, "value")
        if isinstance(stmt.target, ast.AST):
            field_of(stmt, "target")
    elif isinstance(stmt, SetItem):
        field_of(stmt, "value")
        field_of(stmt, "target")
    elif isinstance(stmt, If):
        field_of(stmt, "test")
    elif isinstance(stmt, Loop):
        if stmt.iter is not None:
            field_of(stmt, "iter")
        for phi in stmt.phis:
            if phi.init is not None:
                field_of(phi, "init")
    elif isinstance(stmt, ForEach):
        field_of(stmt, "iter")
    elif isinstance(stmt, Kept):
        for i in range(len(stmt.args)):
            out.append((lambda i=i: stmt.args[i],
                        lambda v, i=i: stmt.args.__setitem__(i, v)))
    return out


def slot_values(stmt) -> list:
    """The expressions of `slots` (``[get() for get, _ in slots(stmt)]``), without
    making the closures: a pass asks every line, and rewrites few."""
    t = type(stmt)
    if t is Assign or t is Expr or t is Return:
        return [stmt.value]
    if t is Comment:
        return []
    return [get() for get, _ in slots(stmt)]


def loop_test_slot(stmt) -> list:
    if isinstance(stmt, Loop) and stmt.test is not None:
        return [(lambda: stmt.test, lambda v: setattr(stmt, "test", v))]
    return []


def rename_reads(body: list, mapping: dict, substitute_fn=None) -> None:
    """Rename every read of a name in `body` (in place; the statements are the
    caller's own). Mapped values are names (str)."""
    for stmt in walk(body):
        rename_stmt_reads(stmt, mapping)


def rename_stmt_reads(stmt, mapping: dict) -> None:
    """`rename_reads` for one statement itself (not its nested blocks)."""
    if type(stmt) is Assign:  # (the commonest: its value is all it reads)
        rename_in_place(stmt.value, mapping)
        return
    for node in _read_exprs(stmt):
        rename_in_place(node, mapping)
    if isinstance(stmt, Dup):
        stmt.source = mapping.get(stmt.source, stmt.source)
    elif isinstance(stmt, AugAssign) and isinstance(stmt.target, str):
        stmt.target = mapping.get(stmt.target, stmt.target)
    elif isinstance(stmt, Push):
        stmt.values = tuple(mapping.get(v, v) for v in stmt.values)
    elif isinstance(stmt, Comment) and "\0" in stmt.text:
        parts = stmt.text.split("\0")
        parts[1::2] = [mapping.get(x, x) for x in parts[1::2]]
        stmt.text = "\0".join(parts)


def rename_defs(body: list, mapping: dict) -> None:
    """Rename every definition of a name in `body` (in place)."""
    for stmt in walk(body):
        rename_stmt_defs(stmt, mapping)


def rename_stmt_defs(stmt, mapping: dict) -> None:
    """`rename_defs` for one statement itself (not its nested blocks)."""
    if isinstance(stmt, (Assign, Dup, Pop)):
        stmt.targets = tuple(mapping.get(t, t) for t in stmt.targets)
    elif isinstance(stmt, AugAssign) and isinstance(stmt.target, str):
        stmt.target = mapping.get(stmt.target, stmt.target)
    elif isinstance(stmt, (Loop, ForEach)):
        if stmt.target:
            stmt.target = mapping.get(stmt.target, stmt.target)
        for phi in getattr(stmt, "phis", ()):
            phi.name = mapping.get(phi.name, phi.name)
    elif isinstance(stmt, Kept) and any(t in mapping for t in stmt.defines):
        own = {t: mapping[t] for t in stmt.defines if t in mapping}
        stmt.defines = tuple(own.get(t, t) for t in stmt.defines)
        rename_in_place(stmt.stmt, own)


def reads_in(body: list) -> dict:
    """How many times each name is read in `body`, counting nested blocks."""
    count = {}
    get = count.get
    for stmt in walk(body):
        for n in names_in(stmt.value) if type(stmt) is Assign else stmt_reads(stmt):
            count[n] = get(n, 0) + 1
    return count


def stmt_reads(stmt) -> list:
    """The names one statement itself reads, with repeats, as `reads_in` counts them:
    those of `exprs` and a loop's `test`."""
    t = type(stmt)
    if t is Assign or t is Expr or t is Return:
        return names_in(stmt.value)
    if t is Comment:
        return []
    out = []
    for node in _read_exprs(stmt):
        out += names_in(node)
    if isinstance(stmt, Dup):
        out.append(stmt.source)
    elif isinstance(stmt, AugAssign) and isinstance(stmt.target, str):
        out.append(stmt.target)
    elif isinstance(stmt, Push) and stmt.values:
        out.append(stmt.tape)
        out.extend(stmt.values)
    elif isinstance(stmt, Pop) and stmt.targets:
        out.append(stmt.tape)
    return out


def _read_exprs(stmt) -> list:
    """The expression trees of `slots` and `loop_test_slot`, without the closures
    (the passes that only read or rename them in place ask this for every statement)."""
    t = type(stmt)
    if t is Assign or t is Expr or t is Return:
        return [stmt.value]
    if t is Comment:
        return []
    if t is AugAssign:
        return [stmt.value, stmt.target] if isinstance(stmt.target, ast.AST) else [stmt.value]
    if t is SetItem:
        return [stmt.value, stmt.target]
    if t is If:
        return [stmt.test]
    if t is Loop:
        out = [] if stmt.iter is None else [stmt.iter]
        out += [phi.init for phi in stmt.phis if phi.init is not None]
        if stmt.test is not None:
            out.append(stmt.test)
        return out
    if t is ForEach:
        return [stmt.iter]
    if t is Kept:
        return list(stmt.args)
    return []


def defined_names(stmt) -> tuple:
    """Names a single statement defines (not counting nested blocks; a loop defines
    its target and the loop-carried variables)."""
    t = type(stmt)
    if t is Assign or t is Dup:  # (the most common first)
        return tuple(stmt.targets)
    if t is Comment or t is Expr or t is Return or t is SetItem:
        return ()
    if isinstance(stmt, (Assign, Dup)):
        return tuple(stmt.targets)
    if isinstance(stmt, AugAssign):
        return (stmt.target,) if isinstance(stmt.target, str) else ()
    if isinstance(stmt, Loop):
        return ((stmt.target,) if stmt.target else ()) + tuple(p.name for p in stmt.phis)
    if isinstance(stmt, ForEach):
        return (stmt.target,)
    if isinstance(stmt, Pop):
        return tuple(stmt.targets)
    if isinstance(stmt, Kept):
        return stmt.defines
    return ()


def all_defined(body: list, exits=True) -> set:
    """Names assigned anywhere in `body`; with ``exits=False`` not counting the
    loop-carried names an `Exit` assigns."""
    out = set()
    for stmt in walk(body):
        t = type(stmt)
        if t is Assign or t is Dup:  # (the commonest, inline)
            out.update(stmt.targets)
            continue
        if not exits and isinstance(stmt, Exit):
            continue
        out.update(defined_names(stmt))
    if not exits:
        for stmt in walk(body):
            if isinstance(stmt, Exit):
                out -= {c.targets[0] for c in stmt.copies} - _defined_outside_exits(body)
    return out


def _defined_outside_exits(body) -> set:
    out = set()
    for stmt in body:
        if isinstance(stmt, Exit):
            continue
        out.update(defined_names(stmt))
        for block in blocks(stmt):
            out |= _defined_outside_exits(block)
    return out


def local_names(fn: Function) -> set:
    """Parameters and every name assigned anywhere in the function."""
    return {p.name for p in fn.params} | all_defined(fn.body)


def definitely_assigned(body: list) -> set:
    """Names assigned on every path through `body` (a loop's body may not run)."""
    out = set()
    for stmt in body:
        if isinstance(stmt, Loop):
            out.update(p.name for p in stmt.phis if p.init is not None)
            continue
        out.update(defined_names(stmt))
        if isinstance(stmt, If):
            out |= definitely_assigned(stmt.body) & definitely_assigned(stmt.orelse)
    return out


def terminates(body: list) -> bool:
    """Does every path through `body` end with a ``break``?"""
    if not body:
        return False
    last = body[-1]
    if isinstance(last, Exit):
        return last.brk
    if isinstance(last, If):
        return terminates(last.body) and terminates(last.orelse)
    return False
