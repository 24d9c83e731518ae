"""writes: the checks on writes into lists and arrays.

``x[i] = v``, ``y op= v`` on an array and the calls that add into their first
argument change an object in place. s2sad follows such a change only into an object
the function made itself and nothing else shares, read through no view afterwards
(`Writes`; a view, or an item of what a call returned: `ViewWrites`), and refuses a
write into an array a loop-carried name may also hold where reverse mode cannot
follow it, or that two such names hold (`CarriedWrites`), and a write carrying a
derivative into a value of a kind it does not know, or ``y op= v`` on one that
something else may hold (`UnseenWrites`). What lists and tuples hold is `holders`'.
"""

from __future__ import annotations

import ast

from .. import ir
from ..errors import NotDifferentiableError
from ..ir.kinds import INT, PENDING, SCALAR, UNKNOWN, ArrayKind, ListKind, a_kind
from ..primitives.facts import facts_of, makes_new_object, makes_view
from . import rebuilt
from .holders import Holders


def exit_handoffs(loop, kinds) -> list:
    """Per exit of `loop`, its copies ``phi = src`` that hand the loop's carried
    array `phi` the array `src` holds (a name `kinds` knows), as ``(phi, src)``
    pairs."""
    phis = {p.name for p in loop.phis if isinstance(kinds.get(p.name), ArrayKind)}
    return [[(c.targets[0], c.value.id) for c in st.copies
             if isinstance(c, ir.Assign) and len(c.targets) == 1 and c.targets[0] in phis
             and isinstance(c.value, ast.Name) and c.value.id in kinds]
            for st in ir.walk(loop.cond + loop.body) if isinstance(st, ir.Exit)]


class CarriedWrites:
    """Writes into the arrays a loop-carried name may hold: a part of `Writes` (it
    reads its `a`, `r`, `order` and `name`)."""

    def carried_bases(self, loop, phi, bases, seen=()) -> bool:
        """Add to `bases` the roots of the arrays that exist before `loop` which the
        carried array `phi` may be at its head or after the loop: its first value
        (the loop may run no iteration, or leave it as it is) and any array an exit
        hands over that the loop does not make anew (``u = w``). True where some exit
        may leave `phi` an array of an earlier iteration (passed on unchanged, or such
        an array), so that a later iteration or the code after the loop may see it."""
        r = self.r
        if phi in seen:
            return False
        seen = seen + (phi,)
        inits = {p.name: p.init for st in ir.walk([loop]) if isinstance(st, ir.Loop)
                 for p in st.phis}
        init = inits.get(phi)
        if isinstance(init, ast.Name) and init.id in r.kinds:
            self.carried_root(r.root(init.id), bases, seen)
        made_in = {id(st) for st in ir.walk(loop.cond + loop.body)}
        keeps = False
        for st in ir.walk(loop.cond + loop.body):
            if not isinstance(st, ir.Exit):
                continue
            for copy in st.copies:
                if phi not in ir.defined_names(copy) or not isinstance(copy, ir.Assign) \
                        or not isinstance(copy.value, ast.Name) \
                        or copy.value.id not in r.kinds:
                    continue
                src = r.root(copy.value.id)
                if src == r.root(phi):
                    keeps = True
                elif not (src in self.a.fresh and r.created.get(src) in made_in):
                    keeps = True
                    self.carried_root(src, bases, seen)
        return keeps

    def carried_root(self, root, bases, seen):
        """(`carried_bases`: `root`, or what it may be where it is itself carried)"""
        r = self.r
        loop = next((st for st, _ in self.order if isinstance(st, ir.Loop)
                     and any(p.name == root for p in st.phis)), None)
        if loop is not None and isinstance(r.kinds.get(root), ArrayKind):
            self.carried_bases(loop, root, bases, seen)
            return
        bases.add(root)
        for b in r.viewed_roots(root):
            bases.add(b)

    def check_carried(self, writes):
        """A carried array (an `ir.Phi`) is an object of its own for reverse mode (its
        adjoint moves along the loop's copies), but it is the very array it starts
        from while the loop has not given it a new one: all through the first
        iteration, and after a loop that ran no iteration (or broke out at once), and
        every array an exit hands over unmade. A write into such an array while the
        carried name may still hold it, with the other name read afterwards, is what
        reverse mode cannot follow (forward mode's tangents share as the values do):
        refused there (`Activity.conflict`), at the write."""
        r, a = self.r, self.a
        copies = {id(c) for st in ir.walk(a.fn.body) if isinstance(st, ir.Exit)
                  for c in st.copies}
        reads = {}  # name -> positions of the statements that read it

        for k, (s, _) in enumerate(self.order):
            if id(s) in copies:
                continue  # (handing a value on is no read of what it holds)
            if isinstance(s, ir.Loop):
                names = {p.init.id for p in s.phis if isinstance(p.init, ast.Name)}
            elif isinstance(s, ir.If):
                names = set()
            else:
                names = {n for node in ir.exprs(s) for n in ir.names_in(node)}
            for n in names:
                reads.setdefault(n, []).append(k)

        def read_at(root):
            group = {n for n in r.kinds if r.root(n) == root or root in r.viewed_roots(n)}
            return sorted({k for n in group for k in reads.get(n, ())})

        for kl, (loop, _) in enumerate(self.order):
            if not isinstance(loop, ir.Loop):
                continue
            inside = {k for k, (_, loops) in enumerate(self.order) if loop in loops}
            for p in loop.phis:
                phi = p.name
                if not isinstance(r.kinds.get(phi), ArrayKind):
                    continue
                bases = set()
                keeps = self.carried_bases(loop, phi, bases)
                own = r.root(phi)
                other = self.swapped_in(loop, phi)
                if other is not None and r.conflict is None and (
                        writes.get(own) or writes.get(r.root(other))):
                    self.refuse_swapped(loop, phi, other)
                bases.discard(own)
                if bases:
                    r.carried[own] = tuple(sorted(bases))
                for base in sorted(bases):
                    # a write into the array `phi` may be, `phi` read afterwards
                    for kw, _ in writes.get(base, ()) if r.conflict is None else ():
                        if kw < kl:
                            continue  # (before `phi` takes it)
                        for k in read_at(own):
                            if kw in inside and (k > kw and (k in inside or keeps)
                                                 or k in inside and keeps) \
                                    or kw not in inside and k > kw:
                                self.refuse_carried(kw, phi, base, self.name(phi))
                    # a write into `phi` where it may be that array, read afterwards
                    for kw, _ in writes.get(own, ()) if r.conflict is None else ():
                        for k in read_at(base):
                            if k > kw or kw in inside and k in inside:
                                self.refuse_carried(kw, phi, base, self.name(base))
        self.check_shared(writes, read_at)

    def check_shared(self, writes, read_at):
        """Refuse a write into the array two carried names of a loop both hold: an
        exit hands them one array (``v = v * 2.0; u = v``), so after the loop (and
        at the next iteration's head) a write through one changes the other, which
        neither mode's derivative follows through names the loop keeps apart."""
        r = self.r
        inits = {r.root(p.name): r.root(p.init.id) for loop in ir.walk(self.a.fn.body)
                 if isinstance(loop, ir.Loop) for p in loop.phis
                 if isinstance(p.init, ast.Name) and p.init.id in r.kinds}

        def starts(o):  # (`o`, and the arrays a loop's carried name `o` starts as)
            out = [o]
            while out[-1] in inits and inits[out[-1]] not in out:
                out.append(inits[out[-1]])
            return out

        for kl, (loop, _) in enumerate(self.order):
            if not isinstance(loop, ir.Loop):
                continue
            given = {}  # the root of an array an exit hands on -> the carried names given it
            moved = set()  # (handed on by a carried name the same exit gives another array:
            for copies in exit_handoffs(loop, r.kinds):  # ``a, b = b, a``)
                for phi, src in copies:
                    given.setdefault(r.root(src), set()).add(phi)
                    if r.root(src) in {r.root(t) for t, _ in copies}:
                        moved.add(r.root(src))
            inside = {k for k, (_, loops) in enumerate(self.order) if loop in loops}
            for root, names in given.items():
                # (the array itself, by its own name: a new one each iteration where the
                # loop makes it, so read there it is not the one written)
                made = any(r.root(n) == root for k in inside
                           for n in ir.defined_names(self.order[k][0]))
                for p in sorted(names):
                    # (a write into a later loop's carried name that starts as `p`'s array)
                    writers = [o for o in sorted(writes) if r.root(p) in starts(o)]
                    for kw, _ in [w for o in writers for w in writes.get(o, ())]:
                        if kw < kl:
                            continue
                        for q, ks in [(q, read_at(r.root(q))) for q in sorted(names - {p})] + [
                                (root, [k for k in read_at(root) if not (made and k in inside)])
                                for _ in [0] if root not in moved]:
                            if r.root(q) != r.root(p) and any(k > kw for k in ks):
                                user, other = self.name(p), self.name(q)
                                self.fail(self.order[kw][0],
                                          f"this write changes the array that both `{user}` "
                                          f"and `{other}` hold (the loop hands them one "
                                          f"array), and `{other}` is read afterwards; s2sad "
                                          f"cannot follow a write into an array that another "
                                          f"name holds",
                                          f"Copy where the loop hands one the other's array: "
                                          f"`{user} = {other}.copy()` or `{other} = "
                                          f"{user}.copy()`.")

    def swapped_in(self, loop, phi):
        """Another carried name of `loop` whose array an exit hands to the carried
        array `phi` (``a, b = b, a``: buffers that trade places each step), or None."""
        r = self.r
        phis = {p.name for p in loop.phis}
        for st in ir.walk(loop.cond + loop.body):
            if not isinstance(st, ir.Exit):
                continue
            for copy in st.copies:
                if isinstance(copy, ir.Assign) and phi in copy.targets and \
                        isinstance(copy.value, ast.Name) and copy.value.id in r.kinds:
                    src = r.root(copy.value.id)
                    if src != r.root(phi) and src in phis:
                        return src
        return None

    def refuse_swapped(self, loop, phi, other):
        """Refuse arrays that trade places between two carried names while one is
        written in place: reverse mode keeps one adjoint per carried name, which the
        arrays' trade would mix (`check_carried`)."""
        user, theirs = self.name(phi), self.name(other)
        self.r.conflict = self.a.error(
            NotDifferentiableError, loop, None,
            f"this loop hands `{user}` the array `{theirs}` held, and writes into one of "
            f"them in place (buffers that trade places each step); reverse mode cannot "
            f"follow arrays that move between names while they are written",
            f"Hand on copies: `{user}, {theirs} = {theirs}.copy(), {user}.copy()` (or "
            f"compute the new array, `{user} = f({theirs})`, instead of writing into it); "
            f"forward mode, s2sad.jvp, handles it as it is.")

    def refuse_carried(self, kw, phi, base, shown):
        if self.r.conflict is not None:
            return
        user, other = self.name(phi), self.name(base)
        s = self.order[kw][0]
        self.r.conflict = self.a.error(
            NotDifferentiableError, s, None,
            f"this write changes the array that both `{user}` and `{other}` may hold "
            f"(`{user}`, carried by a loop, is `{other}`'s array until the loop gives it "
            f"a new one, and still after a loop that runs no iteration), and `{shown}` is "
            f"read afterwards; reverse mode cannot follow a write into an array that "
            f"another name may hold",
            f"Make `{user}` a copy where it takes `{other}`: `{user} = {other}.copy()` "
            f"(forward mode, s2sad.jvp, handles it as it is).")


class UnseenWrites:
    """Writes into values of a kind the analysis does not know: a part of `Writes`
    (it reads its `a`, `r`, `order`, `name` and `fail`)."""

    def unseen_object(self, s):
        """Refuse a write (``u[i] = v``, ``np.add.at(u, i, v)``) that carries a
        derivative into `u` of a kind the analysis does not know (computed from an
        array read from a dict of settings or an object's attribute, say): which names
        share its object is known only of lists and arrays, so the derivative would
        read `u`'s other names as if the write had not happened."""
        r = self.r
        if isinstance(s, ir.SetItem):
            c, value = s.container, s.value
        else:
            op = r.ops.get(id(s)) if isinstance(s, ir.Expr) else None
            if op is None or op.kind != "add_at" or not isinstance(op.inputs[0], ast.Name):
                return
            c, value = op.inputs[0].id, op.inputs[-1]
        if r.kinds.get(c) not in (UNKNOWN, PENDING):
            return
        if not (self.a.is_varied(ast.Name(id=c)) or self.a.is_varied(value)
                or self.read_before(s, c)):
            return
        user = self.name(c)
        self.fail(s, f"s2sad cannot tell what `{user}` is (an array, a list: it is computed "
                     "from a value whose kind it cannot see, such as an array read from a "
                     "dict or an attribute), so it cannot follow a write into it",
                  f"Make it an array where it is made (`{user} = np.array(...)`), or pass "
                  "the array the setting holds as an argument.")

    def unseen_inplace(self, s):
        """Refuse ``u op= v`` where `u` is of a kind the analysis does not know
        (computed from an array read from a dict of settings, say): were it an array,
        Python would change its object in place, while the derivative gives the result
        a new name and leaves the object as it was. Right only when nothing else holds
        that object: it was made here by arithmetic (or was a number), no copy ``w =
        u`` names it, and nothing but arithmetic reads it (a list, a call of the
        user's or a slice could keep it) before the change. Whether or not a
        derivative passes through: another name's value would be wrong."""
        a = self.a
        src = s.value.left.id
        if self.r.kinds.get(src) not in (UNKNOWN, PENDING):
            return
        family, copies, exits = self.family(src)
        why = None
        at, loops = self.place(s)
        for k, (st, around) in enumerate(self.order):
            if isinstance(st, (ir.Dup, ir.Loop, ir.If, ir.Exit, ir.Return)) or id(st) in exits \
                    or k >= at and not loops & set(around):
                continue  # (what holds the object only after the change sees it)
            if isinstance(st, ir.Assign) and st.inplace and isinstance(st.value, ast.BinOp) \
                    and isinstance(st.value.left, ast.Name) and st.value.left.id in family:
                reads = set(ir.names_in(st.value.right))
            else:
                reads = {n for node in ir.exprs(st) for n in ir.names_in(node)}
            if not reads & family:
                continue
            op = self.r.ops.get(id(st))
            if id(st) in copies:
                if self.read_after(family, s, at, loops):
                    why = "another name refers to it"
            elif not isinstance(st, ir.Assign) or op is None or not (
                    op.kind == "rule" and not facts_of(op.key).view
                    or op.kind == "nondiff" and isinstance(st.value, (ast.Compare, ast.BinOp))):
                why = "something else may hold it (a list, a call, a slice)"
        for n in family:
            if self.r.kinds.get(n) in (SCALAR, INT):  # (a number: ``+=`` makes a new value)
                continue
            for st, _ in a.definitions(n):
                op = self.r.ops.get(id(st)) if isinstance(st, ir.Assign) else None
                if isinstance(st, ir.Dup) or id(st) in copies or id(st) in exits \
                        or isinstance(st, ir.Assign) and st.inplace:
                    continue
                if isinstance(st, ir.Assign) and isinstance(st.value, ast.Constant) and \
                        type(st.value.value) in (int, float, bool):
                    continue  # (a number on this path: ``+=`` makes a new one)
                if op is None or not (op.kind == "rule" and not facts_of(op.key).view):
                    why = why or "it may be an object made outside this function"
            if n in {p.name for p in a.fn.params}:
                why = why or "it may be an object made outside this function"
        if why is None:
            return
        user = self.name(src)
        o = {ast.Add: "+", ast.Sub: "-", ast.Mult: "*", ast.Div: "/", ast.Pow: "**",
             ast.MatMult: "@"}.get(type(s.value.op), "op")
        self.fail(s, f"`{user} {o}= ...` may change `{user}` in place (s2sad cannot tell "
                     f"whether it is an array: it is computed from a value whose kind it "
                     f"cannot see, such as an array read from a dict or an attribute), "
                     f"and {why}",
                  f"Write `{user} = {user} {o} ...` (a new value), or make it an array "
                  f"where it is made (`{user} = np.array(...)`).")

    def family(self, n) -> tuple:
        """``(names, copies, exits)``: the names of the object `n` holds (its `dup`
        copies, plain copies, a loop's carried name and its first value, what an
        in-place operator names it next), the ids of the plain copies among them that
        are not an exit's, and the ids of the exits' copies."""
        links, copies = {}, set()  # name -> names of the same object; copies' ids
        exits = {id(c) for e in ir.walk(self.a.fn.body) if isinstance(e, ir.Exit)
                 for c in e.copies}
        for st in ir.walk(self.a.fn.body):
            pairs = []
            if isinstance(st, ir.Dup):
                pairs = [(st.source, t) for t in st.targets]
            elif isinstance(st, ir.Loop):
                pairs = [(p.init.id, p.name) for p in st.phis if isinstance(p.init, ast.Name)]
            elif isinstance(st, ir.Assign) and not st.unpack and (
                    isinstance(st.value, ast.Name) or st.inplace and isinstance(
                        st.value, ast.BinOp) and isinstance(st.value.left, ast.Name)):
                v = st.value if isinstance(st.value, ast.Name) else st.value.left
                pairs = [(v.id, st.targets[0])]
                if isinstance(st.value, ast.Name) and id(st) not in exits:
                    copies.add(id(st))
            for m, k in pairs:
                links.setdefault(m, set()).add(k)
                links.setdefault(k, set()).add(m)
        family, todo = set(), [n]
        while todo:
            m = todo.pop()
            if m not in family:
                family.add(m)
                todo.extend(links.get(m, ()))
        return family, copies, exits

    def read_after(self, family, s, at, loops) -> bool:
        """Is a name of `family` that held the object before the change `s` (at
        `at`, in `loops`) read after it, or anywhere in a loop around it? A copy
        (``acc_1 = acc`` where branches join) names the object twice; only a read of
        the other name after the change would see it changed."""
        later = {t for st, _ in self.order[at + 1:] for t in ir.defined_names(st)}
        old = family - set(s.targets) - later if not loops else family - set(s.targets)
        apart = _other_branches(self.a.fn.body, s) or set()  # (on no path with `s`)
        for k, (st, around) in enumerate(self.order):
            if k <= at and not loops & set(around) or id(st) in apart:
                continue
            if isinstance(st, ir.Dup):
                reads = {st.source}
            elif isinstance(st, (ir.Loop, ir.If)):
                reads = {n for node in ir.exprs(st) for n in ir.names_in(node)}
            else:
                reads = set(ir.stmt_reads(st))
            if reads & old:
                return True
        return False

    def place(self, s) -> tuple:
        """``(position of `s` in program order, the loops around it)``."""
        at = next(k for k, (st, _) in enumerate(self.order) if st is s)
        return at, set(self.order[at][1])

    def read_before(self, s, c) -> bool:
        """Does a line whose result varies read the value `c` holds (by any name of
        its object, `family`) before the write `s`, or in a loop around both? Its
        reverse would read the value after the write."""
        family = self.family(c)[0]
        at, loops = self.place(s)
        for k, (st, around) in enumerate(self.order):
            if isinstance(st, ir.Assign) and (k < at or loops & set(around)) \
                    and family & set(ir.names_in(st.value)) \
                    and any(self.a.is_varied(ast.Name(id=t)) for t in st.targets):
                return True
        return False


def _other_branches(body, s):
    """The ids of the statements in the branches of the ``if``s around `s` that do not
    hold it (None where `body` does not hold `s`)."""
    for x in body:
        if x is s:
            return set()
        if isinstance(x, ir.If):
            for mine, other in ((x.body, x.orelse), (x.orelse, x.body)):
                got = _other_branches(mine, s)
                if got is not None:
                    return got | {id(y) for y in ir.walk(other)}
        else:
            for block in ir.blocks(x):
                got = _other_branches(block, s)
                if got is not None:
                    return got
    return None


# (a write into a view of a value with no name: ``K = np.zeros(4).reshape(2, 2)``)
_UNNAMED_VIEW = (" may share memory with the array it was made from (a slice, a reshape "
                 "or .T of a value computed on its line), and s2sad cannot follow a write "
                 "through it")
_UNNAMED_VIEW_HINT = ("Make `{}` an array of its own: `.copy()` at the end of the line that "
                      "makes it, or make it in its shape at once (for example "
                      "`np.zeros((2, 2))`, not `np.zeros(4).reshape(2, 2)`).")


class ViewWrites:
    """Writes into an array a view of it, or an item of what a call returned, still
    shows: a part of `Writes` (it reads its `r`, `order`, `name` and `fail`)."""

    def check_view(self, view, writes):
        r = self.r
        group = {n for n in r.kinds if r.root(n) == r.root(view)}
        made = view
        while made in r.view_from and r.view_from[made] != made:  # (since the call)
            made = r.view_from[made]
        define = next(((k, loops) for k, (s, loops) in enumerate(self.order)
                       if made in ir.defined_names(s)), None)
        if define is None:
            return
        kd, loops_d = define
        for k, (s, loops) in enumerate(self.order):
            if isinstance(s, (ir.Loop, ir.If)):
                reads = {p.init.id for p in getattr(s, "phis", ())
                         if isinstance(p.init, ast.Name)} & group
                carried = isinstance(s, ir.Loop) and any(p.name in group for p in s.phis)
            else:
                reads = {n for node in ir.exprs(s) for n in ir.names_in(node)} & group
                carried = False
            if not reads and not carried:
                continue
            for kw, loops_w in writes:
                between = kd < kw < k
                again = any(loop not in loops_d and loop in loops_w for loop in loops) or (
                    carried and s in loops_w)
                if between or again:
                    s_w = self.order[kw][0]
                    if made != view:  # (an item of what a call returned)
                        self.fail(s_w, "this write changes an array that what a call "
                                       "returned still holds (a function of yours handed "
                                       "back what it was given, in a tuple or a list), and "
                                       "that item is read afterwards; s2sad cannot follow a "
                                       "write into an array another value holds",
                                  "Write into a copy made first (`a = a.copy()`), or have "
                                  "the function return a copy of what it was given.")
                    if view.startswith("%"):  # a part read within a line
                        self.fail(s_w, "this write changes a slice or row of the array that "
                                       "was read before it (it shares the array's memory: "
                                       "`A[0], A[1] = A[1], A[0]` does not swap rows in "
                                       "NumPy), and that part is used afterwards; s2sad "
                                       "cannot follow a write through a view",
                                  "Copy the parts where you read them: "
                                  "`A[0], A[1] = A[1].copy(), A[0].copy()`.")
                    self.fail(s_w, f"this write changes what `{self.name(view)}` shows (it "
                                   f"may share memory with the array written), and "
                                   f"`{self.name(view)}` is read again afterwards; s2sad cannot "
                                   "follow a write through a view",
                              f"Make `{self.name(view)}` a copy where it is taken: "
                              f"`{self.name(view)} = ....copy()`.")


class Writes(CarriedWrites, UnseenWrites, ViewWrites):
    """Checks on writes into lists and arrays (``x[i] = v``): each goes into an object
    the function made itself and nothing else shares (not an argument, not a slice,
    reshape or ``.T`` of another array), and no view of a written array is read
    after a write that could change what it shows (the derivative would take the
    view's values from before the write, while Python sees them after)."""

    def __init__(self, analysis):
        self.a = analysis
        self.r = analysis.result
        self.order = []  # (statement, enclosing loops), in program order
        self.visit(analysis.fn.body, ())

    def visit(self, body, loops):
        for s in body:
            self.order.append((s, loops))
            if isinstance(s, ir.Loop):
                self.visit(s.cond, loops + (s,))
                self.visit(s.body, loops + (s,))
            elif isinstance(s, ir.If):
                self.visit(s.body, loops)
                self.visit(s.orelse, loops)
            elif isinstance(s, ir.Exit):
                self.visit(s.copies, loops)

    def fail(self, s, message, hint):
        raise self.a.error(NotDifferentiableError, s, None, message, hint)

    def name(self, n: str) -> str:
        return n.split("%")[0] or "this value"

    def check(self):
        r = self.r
        if self.a.own_code():
            return  # (see `checks.Checks.own_code`)
        writes = {}  # root -> [(position, loops)]
        for k, (s, loops) in enumerate(self.order):
            if isinstance(s, (ir.Expr, ir.Assign)):
                self.argument_list_changed(s)
            if isinstance(s, ir.Assign) and s.inplace and isinstance(s.value, ast.BinOp) \
                    and isinstance(s.value.left, ast.Name) and self.a.is_object(s.value.left.id):
                for root in self.inplace(s):
                    writes.setdefault(root, []).append((k, loops))
                continue
            if isinstance(s, ir.Assign) and s.inplace and isinstance(s.value, ast.BinOp) \
                    and isinstance(s.value.left, ast.Name):
                self.unseen_inplace(s)
                continue
            if not isinstance(s, ir.SetItem):
                self.unseen_object(s)  # (an ``np.add.at``)
                op = r.ops.get(id(s)) if isinstance(s, ir.Expr) else None
                if op is None or op.kind != "add_at" or not isinstance(op.inputs[0], ast.Name) \
                        or not isinstance(r.kinds.get(op.inputs[0].id), ArrayKind):
                    continue
                # (``np.add.at(a, i, v)`` writes into `a` as ``a[i] += v`` does)
                c, value = op.inputs[0].id, op.inputs[-1]
            else:
                c, value = s.container, s.value
            root = r.root(c)
            writes.setdefault(root, []).append((k, loops))
            user = self.name(c)
            if isinstance(value, ast.Name) and value.id in r.kinds \
                    and r.root(value.id) == root:
                self.fail(s, f"this writes `{user}` into itself; s2sad's derivative would "
                             "read the values the write has already changed",
                          f"Write a copy: `{user}[...] = {self.name(value.id)}.copy()`.")
            # (what `c` may be here, not what other names sharing its object may be: a
            # later ``v = c`` on one path of a join does not make `c` `v`'s other value)
            for obj, made in self.origins(c) or [(c, None)]:
                op = r.ops.get(id(made)) if made is not None else None
                if op is not None and makes_new_object(op, made.value, self.a.atom_kind):
                    continue
                who = f"`{user}`" if self.name(obj) == user else \
                    f"`{user}` (which may be `{self.name(obj)}`)"
                if r.created.get(obj) == 0:
                    self.fail(s, f"s2sad cannot differentiate a write into the argument "
                                 f"`{self.name(obj)}`"
                                 f"{'' if self.name(obj) == user else f' (`{user}` may be it)'}: "
                                 f"the caller's list or array would change",
                              f"Write into a copy made first: `{user} = {user}.copy()`.")
                self.joined_write(s, obj, f"`{user}[...] = ...` writes into `{user}`")
                bases = r.views.get(obj) or (r.views.get(c) if obj == root else None)
                if not bases and op is not None and op.inputs \
                        and isinstance(op.inputs[0], ast.Name) \
                        and makes_view(op, r.kinds.get(obj), self.a.atom_kind):
                    bases = (op.inputs[0].id,)
                if bases and self.name(bases[0]) == "this value":  # (no name to give)
                    self.fail(s, who + _UNNAMED_VIEW, _UNNAMED_VIEW_HINT.format(user))
                if bases:
                    base = self.name(bases[0])
                    self.fail(s, f"{who} may share memory with `{base}` (a slice, a reshape "
                                 f"or .T of it, or what a function given it returns), and "
                                 f"s2sad cannot follow a write through it",
                              f"Write into `{base}` itself, or make `{user}` a copy: "
                              f"`{user} = ....copy()`.")
                if op is not None and (made.unpack or op.kind in ("getitem", "pop") and not
                                       isinstance(self.a.atom_kind(op.inputs[0]), ArrayKind)):
                    named = bool(op.inputs) and isinstance(op.inputs[0], ast.Name)
                    source = self.name(op.inputs[0].id) if named else "a list or tuple"
                    in_list = named and self.a.is_list(op.inputs[0].id)
                    self.fail(s, f"`{user}` is an element of `{source}` (the same object, which "
                                 f"`{source}` still holds), and s2sad cannot follow a write "
                                 "through it",
                              f"Change a copy and put it back: `{user} = {source}[i].copy()`, "
                              f"`{user}[...] = v`, `{source}[i] = {user}`." if in_list else
                              f"Write into a copy (`{user} = {user}.copy()` first), and make "
                              f"a new tuple with it where the tuple should show the change.")
                self.fail(s, f"s2sad cannot tell whether the value of `{user}` is shared with "
                             "another value, so it cannot follow a write into it",
                          f"Write into a copy made first: `{user} = {user}.copy()`.")
            if not isinstance(s, ir.SetItem):
                continue
            kind = r.kinds.get(c)
            index = s.target.slice
            if isinstance(kind, ArrayKind) and kind.dtype == "?" and self.a.is_varied(s.value):
                self.fail(s, f"s2sad cannot tell the dtype of `{user}` before the call: if it "
                             "holds integers, NumPy truncates what this writes (no derivative "
                             "passes through), if floats, it keeps it",
                          f"Give `{user}` its dtype where it is made with a name s2sad can "
                          f"read (`dtype=float`, `dtype=np.float32`, `dtype=int`).")
            if isinstance(kind, ListKind) and not (
                    isinstance(index, (ast.Name, ast.Constant))
                    and self.a.atom_kind(index) == INT):
                if isinstance(index, ast.Slice):
                    self.fail(s, "s2sad can write one element of a list (`xs[i] = v`), "
                                 "not a slice", "Write the elements one by one in a loop.")
                self.fail(s, "s2sad can write one element of a list (`xs[i] = v`) at an "
                             f"int `i`, and this index is {a_kind(self.a.atom_kind(index))}",
                          "Pass an int: `xs[int(i)] = v`.")
            self.unseen_object(s)
        for view in r.views:
            for root in r.viewed_roots(view):
                if root in writes:
                    self.check_view(view, writes[root])
        if writes:
            self.check_carried(writes)
        rebuilt.note_carried(self.a)
        Holders(self).check()

    def origins(self, n: str) -> list:
        """``(name, statement)`` for each definition that makes an object `n` may be
        where it is written (the statement None for an argument): copies, dups, the
        first and next values of a loop-carried name and every assignment of a joined
        name are followed back to what they hand over, the way values flow, so that a
        later ``v = n`` (on one path of a join whose other path gives `v` a view of
        another array) does not make `n` what `v` may be. A name `value_join` made an
        object of its own stops the walk: its own checks apply to it."""
        r, a = self.r, self.a
        inits = {p.name: p.init for loop in ir.walk(a.fn.body) if isinstance(loop, ir.Loop)
                 for p in loop.phis}
        params = {p.name for p in a.fn.params}
        out, seen, todo = [], set(), [n]
        while todo:
            m = todo.pop()
            if m in seen or m not in r.kinds:
                continue
            seen.add(m)
            if m in params:
                out.append((m, None))
            init = inits.get(m)
            if isinstance(init, ast.Name):
                todo.append(init.id)
            joined = a.value_joins.get(m) is not None
            for st, _ in a.definitions(m):
                op = r.ops.get(id(st))
                if isinstance(st, ir.Dup) and not joined:
                    todo.append(st.source)
                elif isinstance(st, ir.Assign) and not st.unpack and not joined \
                        and op is not None and op.kind == "copy" \
                        and isinstance(op.inputs[0], ast.Name):
                    todo.append(op.inputs[0].id)
                elif isinstance(st, ir.Assign):
                    out.append((m, st))
        return out

    def argument_list_changed(self, s):
        """Refuse ``xs.append(v)``, ``insert``, ``extend`` (appends, as `expand` writes
        it) and ``pop`` on a list argument (or a name for it): the caller's list would
        change, once per pass of a derivative that runs the function more than once."""
        op = self.r.ops.get(id(s))
        if op is None or op.kind not in ("append", "pop") or not op.inputs \
                or not isinstance(op.inputs[0], ast.Name) or op.inputs[0].id not in self.r.kinds:
            return
        xs = op.inputs[0].id
        # (what `xs` may be here: a list made fresh in each iteration of a loop that
        # later hands it to a name the argument started, ``xs = [... for p in xs]``,
        # is not the argument, though the loop's name may be either)
        origins = self.origins(xs)
        made = [obj for obj, st in origins if st is None or not (
            (o := self.r.ops.get(id(st))) is not None
            and makes_new_object(o, st.value, self.a.atom_kind))]
        root = self.r.root(xs)
        what = "takes an item out of" if op.kind == "pop" else "adds to"
        _refuse_taken_out(self, s, xs, what, origins)
        if self.r.created.get(root) == 0 and made:
            user = self.name(xs)
            self.fail(s, f"this {what} the argument `{self.name(root)}`"
                         f"{'' if user == self.name(root) else f' (`{user}` is it)'}: the "
                         "caller's list would change",
                      f"Change a copy made first: `{user} = list({user})`, or build a new "
                      f"list (`{user} + [v]`, `{user}[:-1]`).")

    def joined_write(self, s, root, what):
        """Refuse a write into `root`, a name given an array that exists already on
        some path into a join (`objects.Objects.value_join`): it may be that array."""
        if self.a.value_joins.get(root) is None:
            return
        user = self.name(root)
        bases = [self.name(b) for b in self.r.views.get(root, ())]
        base = next((b for b in bases if b != "this value"), "another array")
        self.fail(s, f"{what}, which is `{base}` itself (or a view of it) on some path "
                     f"into it; s2sad cannot follow a write into an array that another "
                     f"name may hold",
                  f"Make `{user}` a copy on that path (`{user} = {base}.copy()`), or write "
                  f"into a copy made here: `{user} = {user}.copy()`.")

    def inplace(self, s) -> list:
        """``x op= y`` on a list or an array (`s.inplace`): the SSA form's new name is
        right only if the object is the function's own, and no other variable refers
        to it. Gives the objects the statement changes (through a loop's carried
        value, the object it started from too)."""
        r = self.r
        src = s.value.left.id
        user = self.name(src)
        what = "list" if self.a.is_list(src) else "array"
        op = {ast.Add: "+", ast.Sub: "-", ast.Mult: "*", ast.Div: "/", ast.Pow: "**",
              ast.MatMult: "@", ast.FloorDiv: "//", ast.Mod: "%"}.get(type(s.value.op), "+")
        roots, todo = [], [r.root(src)]
        inits = {p.name: p.init for loop in ir.walk(self.a.fn.body)
                 if isinstance(loop, ir.Loop) for p in loop.phis}
        while todo:
            root = todo.pop()
            if root in roots:
                continue
            roots.append(root)
            init = inits.get(root)
            if isinstance(init, ast.Name) and init.id in r.kinds:
                todo.append(r.root(init.id))
        for root in roots:
            if root not in self.a.fresh:
                self.joined_write(s, root, f"`{user} {op}= ...` changes `{user}` in place")
                if r.created.get(root) == 0:
                    self.fail(s, f"`{user} {op}= ...` changes the argument `{self.name(root)}` "
                                 f"in place: the caller's {what} would change",
                              f"Write `{user} = {user} {op} ...` (a new {what}), or change a "
                              f"copy made first: `{user} = {user}.copy()`.")
                self.fail(s, f"`{user} {op}= ...` changes `{user}` in place, and s2sad cannot "
                             f"tell whether it shares memory with another value (a slice, "
                             f"reshape or .T of an array, an element of a list, a call's "
                             f"result)",
                          f"Write `{user} = {user} {op} ...` (a new {what}), or make "
                          f"`{user}` a copy where it is taken.")
            others = sorted({self.name(n) for n in r.kinds if r.root(n) == root} - {user})
            others = [n for n in others if n != "this value"]
            if others:
                self.fail(s, f"`{user} {op}= ...` changes the {what} `{user}` in place, and "
                             f"`{others[0]}` refers to the same {what}: s2sad's derivative "
                             f"would see `{others[0]}` unchanged",
                          f"Write `{user} = {user} {op} ...` if `{others[0]}` keeps its "
                          f"value, or make one of them a copy (`{user} = {others[0]}.copy()`).")
        return roots


def _refuse_taken_out(w, s, xs, what, origins):
    """Refuse (for the `Writes` `w`) an append or a pop `s` on the list `xs` taken out
    of another list or a tuple (``rows[i].append(v)``, ``for r in rows:
    r.append(v)``; `origins`: `Writes.origins` of `xs`): the container still holds
    it, and its own name's adjoint is apart from the container's."""
    taken = next((st for _, st in origins if st is not None and (
        isinstance(st, ir.Assign) and st.unpack or (o := w.r.ops.get(id(st))) is not None
        and o.kind in ("getitem", "pop") and not (
            o.kind == "getitem" and isinstance(o.inputs[1], ast.Slice))
        and not isinstance(w.a.atom_kind(o.inputs[0]), ArrayKind))), None)
    if taken is None:
        return
    user = w.name(xs)
    who = "a list" if user == "this value" else f"`{user}`, a list"
    w.fail(s, f"this {what} {who} taken out of another list or a tuple (an item, a loop "
              "over it, an unpacking), which still holds it; s2sad's derivative would not "
              "see the change there",
           "Keep one list per name (`row0.append(v)`), or build the rows as new lists: "
           "`rows = [row + [v] for row in rows]`.")
