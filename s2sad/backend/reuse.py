"""reuse: a large function's dead names given to later values, so that CPython reaches
every local without ``EXTENDED_ARG``.

Contract
--------
`shared_names(fn)` returns, for a function with more than `LIMIT` locals, the
renaming that gives a name whose value is dead to a value defined later (IR name ->
the name it shares), and an empty dict for every function of ordinary size (so their
text, and every golden file, is what `emit` always printed). `emit` applies it as it
prints (`emit.emit_module`'s `renames`), with no copy of the IR: the printed function
computes exactly what `fn` computes, statement for statement, with fewer distinct
local names, and a copy ``x = x`` the renaming makes (a loop-carried value and the
value it takes at the next iteration sharing one name) is not printed
(`without_self_copies`, `dropping_self_copies`). CPython numbers a function's locals in
its code object and reaches those numbered 256 and above through an extra
``EXTENDED_ARG`` instruction, which cost a gradient of 400 operations 30% of its
time; a person writing such a function by hand reuses temporaries.

The copy is deterministic: the same IR gives the same names. How it is decided:

* liveness of the structured IR as Python runs its printed text (branches, ``for``
  and ``while`` loops to a fixed point, ``break`` and the next iteration at each
  `ir.Exit`, nothing after a ``return``);
* every statement gets a position in printed order; a name's interval runs from its
  first definition to its last read, widened to the whole of every loop at whose
  head it is live (a value carried to the next iteration, or read after the loop
  by a path through its head). In structured code a name is live only inside its
  interval, so two names whose intervals do not meet can share one name. A
  statement reads before it writes (``t3 = t3 * v2`` is fine), so the targets of
  one statement never share a name with each other and may share one with what it
  read last;
* a linear scan in order of first definition gives each interval the lowest-numbered
  name free at its start. A name held by several values is spelt ``%r1``, ``%r2``...
  (`emit` prints ``r1``, ``r2``), in the order of the first value each holds: a
  value's own name would be wrong for the others (``d_1`` holding an adjoint). A
  name held by one value keeps its own.

Never renamed, and never given to another value: the parameters; a name live where
the function starts (read before it may be bound); a ``tape.pop()`` nothing reads
(so `native_text`'s grouped pops still assign one name each); the tapes
(`native_text` groups the pushes of a list made once by ``= []``); every name a
nested scope reads
(a ``lambda``, a comprehension or a generator, in an expression or in a statement
kept as written, which may hold the variable in a cell past its last read here); a
kept statement's own names and what it defines; a checkpointed loop's atoms.
Comments name the value the shared name holds.

`last_reads(fn)` gives, from the same liveness, the names each statement of a
function's body reads for the last time (where `release` ends arrays' bindings).

One walk of a large function gives its intervals and, for `emit`'s namer, every name
it mentions (`renames`'s `mentioned`); without a branch or a loop, what is live where
it starts comes off that walk too, with no liveness pass over its structure.
"""

from __future__ import annotations

import ast
import copy
import heapq

from .. import ir
from .kept import is_release, own_names

LIMIT = 250  # CPython reaches locals 0-255 with one instruction; a few to spare

_ATOMS = (ast.Name, ast.Constant)
_SCOPES = (ast.Lambda, ast.ListComp, ast.SetComp, ast.DictComp, ast.GeneratorExp,
           ast.NamedExpr)


def local_count(fn: ir.Function, local=None) -> int:
    """How many locals the printed function has (its code object's ``co_nlocals``,
    give or take the names only a kept statement binds inside itself); `local`: its
    `ir.local_names`, where the caller has them."""
    names = ir.local_names(fn) if local is None else local
    kept = [s for s in ir.walk(fn.body) if type(s) is ir.Kept and not is_release(s)]
    if kept:
        names = set(names)
        for s in kept:
            names |= s.own_names()
    return len(names)


def renames(module: ir.Module, mentioned=None) -> dict:
    """IR function name -> its `shared_names`, for the functions of `module` that
    have any: what `emit.emit_module` prints them with. `mentioned`, a dict, gets
    for each function of more than `LIMIT` locals (IR name -> set) every name it
    mentions that `emit.user_names` counts (its locals, the other names its
    statements read, a kept statement's own), from the same walk."""
    out = {}
    for fn in module.functions:
        mapping = shared_names(fn, mentioned)
        if mapping:
            out[fn.name] = mapping
    return out


def shared_names(fn: ir.Function, mentioned=None) -> dict:
    """name -> the name it shares, where `fn` has more than `LIMIT` locals (only the
    names that change); an empty dict for a function of ordinary size. `mentioned`:
    as `renames` says."""
    local = ir.local_names(fn)
    if len(local) <= LIMIT and local_count(fn, local) <= LIMIT:  # (more locals: no walk)
        return {}
    scan = _Scan(fn, local)
    if mentioned is not None:
        mentioned[fn.name] = scan.local | scan.outside | scan.kept_own
    return _shared_names(fn, scan)


def without_self_copies(body: list, mapping: dict) -> list:
    """`body` without the statements ``x = y`` (nested blocks included) that `mapping`
    makes ``x = x`` (or that were), no statement at all: a new list, and a shallow
    copy of each statement whose nested blocks lose one; every other statement is
    `body`'s own."""
    return list(dropping_self_copies(body, mapping))


def dropping_self_copies(body: list, mapping: dict):
    """The statements of `without_self_copies(body, mapping)`, one at a time (`emit`
    prints each as it comes: no list, and no walk of its own)."""
    for s in body:
        if type(s) is ir.Assign and len(s.targets) == 1 and not s.unpack \
                and type(s.value) is ast.Name and \
                mapping.get(s.targets[0], s.targets[0]) == mapping.get(s.value.id, s.value.id):
            continue
        inner = ir.blocks(s) if type(s) in _BLOCK_FIELDS else None
        if inner:
            pruned = [without_self_copies(b, mapping) for b in inner]
            if any(len(p) != len(b) for p, b in zip(pruned, inner)) or any(
                    x is not y for p, b in zip(pruned, inner) for x, y in zip(p, b)):
                s = copy.copy(s)
                for field, block in zip(_BLOCK_FIELDS[type(s)], pruned):
                    setattr(s, field, block)
        yield s


# the fields of the nested blocks of each statement type, in `ir.blocks` order
_BLOCK_FIELDS = {ir.If: ("body", "orelse"), ir.Loop: ("cond", "body"), ir.ForEach: ("body",),
                 ir.Exit: ("copies",)}


# ------------------------------------------------------------------ the intervals


class _Scan:
    """Positions, reads and definitions of one function's names, in printed order."""

    def __init__(self, fn: ir.Function, local=None):
        self.local = ir.local_names(fn) if local is None else local
        self.outside: set = set()  # the other names read (not in a loop's test)
        self.kept_own: set = set()  # the own names of kept statements
        self.compound = False  # is there a branch or a loop?
        self.returns = 0  # how many ``return`` statements
        self.first: dict = {}  # name -> first position it is read or defined at
        self.last: dict = {}  # name -> last position
        self.read: set = set()
        self.popped: set = set()  # the targets of tapes' pops
        self.fixed: set = {p.name for p in fn.params}
        self.spans: dict = {}  # id(loop) -> (first, last) position of the printed loop
        self.heads: dict = {}  # id(loop) -> names live at its head
        self.reads_of: dict = {}  # id(statement) -> the locals it reads (`_Live.uses`)
        self.pos = 0
        self.block(fn.body)

    def mark(self, names, defined):
        at = 2 * self.pos + (1 if defined else 0)
        first, last = self.first, self.last
        for n in names:
            if n in self.local:
                if n not in first:
                    first[n] = at
                last[n] = at
                if not defined:
                    self.read.add(n)

    def reads(self, s) -> list:
        return self.locals_of(ir.stmt_reads(s), s)

    def locals_of(self, names, s=None) -> list:
        """The locals of `names` (those of statement `s` in `reads_of`); the others
        go to `outside`."""
        local = self.local
        got = [n for n in names if n in local]
        if len(got) != len(names):
            self.outside.update(n for n in names if n not in local)
        if s is not None:
            self.reads_of[id(s)] = got
        return got

    def block(self, stmts):
        Assign, Comment, Kept, Name, BinOp = ir.Assign, ir.Comment, ir.Kept, ast.Name, ast.BinOp
        names_in, nested, atoms = ir.names_in, self.nested, _ATOMS
        first, last, read, local, reads_of = self.first, self.last, self.read, self.local, \
            self.reads_of
        pos = self.pos
        for s in stmts:
            pos += 1
            t = type(s)
            if t is Assign:  # (the commonest: `stmt`, `locals_of` and `mark` inline)
                value = s.value
                if type(value) is not Name and not (type(value) is BinOp and type(
                        value.left) in atoms and type(value.right) in atoms):
                    nested(value)
                names = names_in(value)
                got = reads_of[id(s)] = [n for n in names if n in local]
                if len(got) != len(names):
                    self.outside.update(n for n in names if n not in local)
                at = 2 * pos
                for n in got:
                    if n not in first:
                        first[n] = at
                    last[n] = at
                read.update(got)
                at += 1
                for n in s.targets:
                    if n in local:
                        if n not in first:
                            first[n] = at
                        last[n] = at
            elif t is Kept and is_release(s):  # (a ``del`` of names: reads them)
                got = reads_of[id(s)] = [a.id for a in s.args if a.id in local]
                at = 2 * pos
                for n in got:
                    if n not in first:
                        first[n] = at
                    last[n] = at
                read.update(got)
                if len(got) != len(s.args):
                    self.outside.update(a.id for a in s.args if a.id not in local)
            elif t is not Comment:
                self.pos = pos - 1
                self.stmt(s)
                pos = self.pos
        self.pos = pos

    def stmt(self, s):
        self.pos += 1
        if type(s) is ir.Return:
            self.returns += 1
        elif type(s) in _BLOCK_FIELDS:
            self.compound = True
        if isinstance(s, ir.Loop):
            self.loop(s)
            return
        if isinstance(s, ir.Comment):
            return
        for node in ir.exprs(s):
            self.nested(node)
        if isinstance(s, (ir.Push, ir.Pop)):
            self.fixed.add(s.tape)
            if isinstance(s, ir.Pop):
                self.popped.update(s.targets)
        if isinstance(s, ir.Kept) and not is_release(s):
            self.kept_own |= s.own_names()
            self.fixed |= s.own_names() | set(s.defines)
            if any(isinstance(n, _SCOPES) for n in ir.ast_nodes(s.stmt)):
                self.fixed.update(n for a in s.args for n in ir.names_in(a))
        self.mark(self.reads(s), False)
        if isinstance(s, ir.ForEach):
            start = 2 * self.pos
            self.mark(ir.defined_names(s), True)
            self.block(s.body)
            self.spans[id(s)] = (start, 2 * self.pos + 1)
            return
        if isinstance(s, ir.Exit):
            self.block(s.copies)
            return
        self.mark(ir.defined_names(s), True)
        for block in ir.blocks(s):
            self.block(block)

    def loop(self, s: ir.Loop):
        if s.checkpoint is not None:
            self.fixed.update(n for part in s.checkpoint if isinstance(part, ast.AST)
                              for n in ir.names_in(part))
        for phi in s.phis:  # ``p = init``, printed before the loop
            if phi.init is not None:
                self.nested(phi.init)
                self.mark(self.locals_of(ir.names_in(phi.init)), False)
                self.mark([phi.name], True)
                self.pos += 1
        start = 2 * self.pos
        if s.iter is not None:
            self.nested(s.iter)
            self.mark(self.locals_of(ir.names_in(s.iter)), False)
            self.mark([s.target], True)
        self.block(s.cond)
        if s.test is not None:
            self.pos += 1
            self.nested(s.test)
            self.mark([n for n in ir.names_in(s.test) if n in self.local], False)
        self.block(s.body)
        self.spans[id(s)] = (start, 2 * self.pos + 1)

    def nested(self, node):
        """Names read inside a nested scope of `node` are fixed."""
        if node is None or _plain(node):
            return
        for n in ir.nodes(node):
            if isinstance(n, _SCOPES):
                self.fixed.update(x.id for x in ast.walk(n) if isinstance(x, ast.Name))


def _plain(node) -> bool:
    """Is `node` made of names, constants, operators, attributes and calls without
    keywords only (so it holds no nested scope)? Most expressions are."""
    stack = [node]
    pop, push = stack.pop, stack.append
    while stack:
        n = pop()
        t = type(n)
        if t is ast.Name or t is ast.Constant:
            continue
        if t is ast.BinOp:
            push(n.left)
            push(n.right)
        elif t is ast.UnaryOp:
            push(n.operand)
        elif t is ast.Attribute:
            push(n.value)
        elif t is ast.Call and not n.keywords:
            push(n.func)
            stack += n.args
        else:
            return False
    return True


def last_reads(fn: ir.Function, local=None) -> list:
    """For each statement of `fn.body`, the locals it reads for the last time: live
    where it starts (read by it or inside it) and dead where it ends (nothing after
    reads them before they are bound again; a value carried round a loop lives to
    the loop's end), in order of first mention. Never a name `shared_names` keeps fixed
    (a parameter, a tape, a kept statement's own names, a name a nested scope reads,
    which a cell may hold past its last read here). `local`: `fn`'s
    `ir.local_names`, where the caller has them."""
    scan = _Scan(fn, local)
    live = _Live(fn, scan.local, whole=False, reads_of=scan.reads_of)
    fixed, first = scan.fixed, scan.first
    out = []
    after: set = set()  # (live after the statement; a line's own updated in place)
    for s in reversed(fn.body):
        t = type(s)
        if t is ir.Comment:
            out.append([])
            continue
        if t is ir.If or t is ir.Loop or t is ir.ForEach:
            before = live.stmt(s, set(after), set(), set())
            dying = before - after
        else:
            uses = live.uses(s)
            dying = {n for n in uses if n not in after}
            if t is ir.Assign or t is ir.Kept:  # (`_Live.stmt` inline)
                after.difference_update(s.targets if t is ir.Assign else s.defines)
                after.update(uses)
                before = after
            else:
                before = live.stmt(s, after, set(), set())
        if dying:
            dying -= fixed
        out.append(sorted(dying, key=lambda n: (first.get(n, -1), n)) if dying else [])
        after = before
    out.reverse()
    return out


class _Live:
    """Backward liveness over the printed structure: the names live at each loop's
    head (`heads`) and where the function starts (`entry`; not asked without
    `whole`)."""

    def __init__(self, fn: ir.Function, local: set, whole=True, reads_of=None):
        self.local = local
        self.reads_of = reads_of if reads_of is not None else {}  # (`_Scan`'s, shared)
        self.heads: dict = {}
        if whole:
            self.entry = self.block(fn.body, set(), set(), set())

    def uses(self, s) -> list:
        got = self.reads_of.get(id(s))
        return got if got is not None else [n for n in ir.stmt_reads(s) if n in self.local]

    def block(self, stmts, after, brk, cont) -> set:
        live = set(after)
        Assign, Kept, Comment, get = ir.Assign, ir.Kept, ir.Comment, self.reads_of.get
        for s in reversed(stmts):
            t = type(s)
            if t is Assign or t is Kept:  # (`stmt` inline: what it defines, then reads)
                live.difference_update(s.targets if t is Assign else s.defines)
                got = get(id(s))
                live.update(got if got is not None else self.uses(s))
            elif t is not Comment:
                live = self.stmt(s, live, brk, cont)
        return live

    def stmt(self, s, live, brk, cont) -> set:
        t = type(s)
        if t is ir.Comment:
            return live
        if t is ir.Return:
            return set(self.uses(s))
        if t is ir.Exit:
            return self.block(s.copies, brk if s.brk else cont, brk, cont)
        if t is ir.If:
            out = self.block(s.body, live, brk, cont) | self.block(s.orelse, live, brk, cont)
            out.update(self.uses(s))
            return out
        if t is ir.Loop:
            return self.loop(s, live)
        if t is ir.ForEach:
            head = set(live)
            while True:
                inner = self.block(s.body, head, live, head)
                inner.discard(s.target)
                new = live | inner
                if new == head:
                    break
                head = new
            self.heads[id(s)] = head
            return head | set(self.uses(s))
        live.difference_update(ir.defined_names(s))
        live.update(self.uses(s))
        return live

    def loop(self, s: ir.Loop, after) -> set:
        test = [n for n in ir.names_in(s.test) if n in self.local] if s.test is not None else []
        head = set(after) if s.iter is not None else set()
        while True:
            body = self.block(s.body, head, after, head)
            if s.iter is not None:
                body.discard(s.target)
                new = after | body
            else:
                new = self.block(s.cond, after | body | set(test), after, head)
            if new == head:
                break
            head = new
        self.heads[id(s)] = head
        live = set(head)
        if s.iter is not None:
            live.update(n for n in ir.names_in(s.iter) if n in self.local)
        for phi in reversed(s.phis):
            if phi.init is not None:
                live.discard(phi.name)
                live.update(n for n in ir.names_in(phi.init) if n in self.local)
        return live


def _entry_and_heads(fn: ir.Function, scan: _Scan):
    """`_Live`'s `entry` and `heads` of `fn`; without a branch or a loop, and with a
    ``return`` only at the end, from `scan`: what is live at the start is what is
    read before it is bound (first marked at a read's even position), and there are
    no heads."""
    if scan.compound or scan.returns > (bool(fn.body) and type(fn.body[-1]) is ir.Return):
        live = _Live(fn, scan.local, reads_of=scan.reads_of)
        return live.entry, live.heads
    return {n for n, at in scan.first.items() if not at % 2}, {}


def _shared_names(fn: ir.Function, scan=None) -> dict:
    """name -> the name it shares (only the names that change); `scan`: `fn`'s
    `_Scan`, where the caller has it."""
    scan = _Scan(fn) if scan is None else scan
    entry, heads = _entry_and_heads(fn, scan)
    fixed = scan.fixed | entry
    first, last = scan.first, dict(scan.last)
    for key, names in heads.items():
        start, end = scan.spans[key]
        for n in names:
            if n in first:
                first[n] = min(first[n], start)
                last[n] = max(last[n], end)
    fixed |= scan.popped - scan.read
    order = sorted([(first[n], i, n) for i, n in enumerate(first) if n not in fixed])
    active: list = []  # (end, color) of the intervals holding a name
    free: list = []  # colors whose holder is dead
    held: list = []  # color -> the names it holds, in order
    for start, _, n in order:
        while active and active[0][0] < start:
            heapq.heappush(free, heapq.heappop(active)[1])
        if free:
            color = heapq.heappop(free)
            held[color].append(n)
        else:
            color = len(held)
            held.append([n])
        heapq.heappush(active, (last[n], color))
    mapping = {}
    number = 0
    for names in held:
        if len(names) > 1:
            number += 1
            while f"%r{number}" in scan.local:
                number += 1
            mapping.update(dict.fromkeys(names, f"%r{number}"))
    return mapping
