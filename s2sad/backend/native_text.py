"""native_text: an emitted function's text as numba compiles it (`native`).

Contract
--------
`rewritten(text)` is the text of one emitted function, the same computation, with
what numba cannot compile or compiles slowly spelt otherwise; `Refused` is raised
for a construct it has no spelling for (`native` then warns and runs the Python
derivative):

* ``reversed(range(...))``, which numba has no `reversed` for, as the descending
  ``range`` (`_Reversed`), a slice of the range (``range(n)[:count]``, a loop left
  by ``break``) included;
* ``a ** b`` as ``__s2sad_pow__(a, b)`` (`POW`, which `native` defines): numba
  raises a float to an int power by products, which differ from C's `pow` (what
  Python calls) in the last bit of a third of the results, and gives 0 for
  ``2 ** -1``;
* the ``del`` statements that end arrays' bindings (`release`) left out: numba
  refuses them, and frees what a compiled function no longer reads itself;
* a tape's entries pushed one by one (``tape.append(x_1)``, ``tape.append(v_1)``,
  popped last first) as one tuple per group (`_grouped`): numba's list pops one
  float at a time at twice the cost of a tuple, and a tuple holds an int beside a
  float where a list of numbers would make both floats;
* with `arrays`, the tape of a counted loop (``for i in range(n)``, left by no
  ``break``) as one NumPy array per entry of a group, written and read at a count
  (`_arrays`): the numbers a numba list holds, 10 to 15% faster on the Euler
  gradient. The arrays' dtypes are guessed from the text and the argument kinds, and
  the store (`PUT`) compiles only where the guess is right, so a wrong one is a
  numba error (then `native` compiles the lists), never an int stored as a float.
  ``while`` loops and loops left by ``break`` keep their lists.
"""

from __future__ import annotations

import ast


POW = "__s2sad_pow__"


class Refused(Exception):
    """A construct the native path does not compile (the message says which)."""


def rewritten(text: str, arrays=True) -> str:
    """The emitted function's text as numba takes it; with `arrays` (True, or {a
    parameter's name: "int", "float", "bool" or "other"}, the kinds of the values it
    is called with), the tapes of counted loops as arrays (`_arrays`)."""
    tree = ast.parse(text)
    fn = tree.body[0]
    fn.body = [s for s in fn.body if not isinstance(s, ast.Delete)]
    tree = _Reversed().visit(tree)
    tree = _Powers().visit(tree)
    _without_constant_loops(tree.body[0])
    _grouped(tree.body[0])
    if arrays is not False:
        _arrays(tree.body[0], arrays if isinstance(arrays, dict) else {})
    ast.fix_missing_locations(tree)
    return ast.unparse(tree)


GO = "s2sad_go"  # (a local that is True: `_without_constant_loops`)


def _without_constant_loops(fn: ast.FunctionDef):
    """``while True:`` -> ``while s2sad_go:``, the local set to True first: numba
    0.68 compiles a ``while True`` loop that leaves by a ``break`` in one arm of an
    ``if``, with the loop's values copied in both arms (as the derivative carries
    them), into a loop that never ends; a loop on a local that is True compiles
    right."""
    loops = [n for n in ast.walk(fn) if isinstance(n, ast.While) and isinstance(
        n.test, ast.Constant) and n.test.value is True]
    if not loops:
        return
    for loop in loops:
        loop.test = ast.Name(id=GO, ctx=ast.Load())
    fn.body.insert(0, ast.Assign(targets=[ast.Name(id=GO, ctx=ast.Store())],
                                 value=ast.Constant(True)))


class _Powers(ast.NodeTransformer):
    """``a ** b`` -> ``POW(a, b)``; ``x **= b`` -> ``x = POW(x, b)``."""

    def visit_BinOp(self, node):
        self.generic_visit(node)
        if isinstance(node.op, ast.Pow):
            return _call(POW, node.left, node.right)
        return node

    def visit_AugAssign(self, node):
        self.generic_visit(node)
        if not isinstance(node.op, ast.Pow):
            return node
        if not isinstance(node.target, (ast.Name, ast.Subscript)):
            raise Refused("it raises an attribute to a power in place")
        read = ast.parse(ast.unparse(node.target), mode="eval").body
        return ast.Assign([node.target], _call(POW, read, node.value))


def _grouped(fn: ast.FunctionDef):
    """Each tape of `fn` pushed and popped in runs of the same length k > 1 becomes a
    list of k-tuples: a run of k ``X.append(e)`` statements one ``X.append((e1, ...,
    ek))``, a run of k ``t = X.pop()`` one ``tk, ..., t1 = X.pop()`` (the pops take the
    last pushed first), ``len(X) // k`` ``len(X)``. With every run k long the stack
    holds whole runs whenever no run is under way, so each run of pops takes one run
    of pushes. A list read any other way (an index, a `len` not divided by k,
    passed, returned) keeps its entries."""
    runs: dict = {}  # tape -> [(statement list, first index, length, "push"/"pop")]
    for block in _blocks(fn):
        i = 0
        while i < len(block):
            name, kind = _tape_statement(block[i])
            j = i + 1
            while j < len(block) and _tape_statement(block[j]) == (name, kind) and name:
                j += 1
            if name is not None:
                runs.setdefault(name, []).append((block, i, j - i, kind))
            i = j
    for name, found in runs.items():
        sizes = {n for _, _, n, _ in found}
        k = sizes.pop() if len(sizes) == 1 else 1
        if k < 2 or not _only_pushed_and_popped(fn, name, k):
            continue
        for block, i, n, kind in sorted(found, key=lambda r: -r[1]):  # (later runs first)
            statements = block[i:i + n]
            if kind == "push":
                values = [s.value.args[0] for s in statements]
                new = ast.Expr(ast.Call(statements[0].value.func,
                                        [ast.Tuple(values, ast.Load())], []))
            else:
                targets = [ast.Name(s.targets[0].id, ast.Store()) for s in reversed(statements)]
                new = ast.Assign([ast.Tuple(targets, ast.Store())], statements[0].value)
            block[i:i + n] = [new]
        _Undivided(name, k).visit(fn)


def _blocks(fn):
    """Every list of statements in `fn`."""
    for node in ast.walk(fn):
        for field in ("body", "orelse", "finalbody"):
            block = getattr(node, field, None)
            if isinstance(block, list) and block and isinstance(block[0], ast.stmt):
                yield block


def _tape_statement(stmt):
    """``(X, "push")`` for ``X.append(e)``, ``(X, "pop")`` for ``t = X.pop()``, else
    ``(None, None)``."""
    call = stmt.value if isinstance(stmt, (ast.Expr, ast.Assign)) else None
    if not (isinstance(call, ast.Call) and isinstance(call.func, ast.Attribute)
            and isinstance(call.func.value, ast.Name) and not call.keywords):
        return None, None
    name, method = call.func.value.id, call.func.attr
    if isinstance(stmt, ast.Expr) and method == "append" and len(call.args) == 1 \
            and not isinstance(call.args[0], ast.Starred):
        return name, "push"
    if isinstance(stmt, ast.Assign) and method == "pop" and not call.args \
            and len(stmt.targets) == 1 and isinstance(stmt.targets[0], ast.Name):
        return name, "pop"
    return None, None


def _only_pushed_and_popped(fn, name, k) -> bool:
    """Is `name` made by ``name = []`` once and read only by its pushes, its pops and
    ``len(name) // k``?"""
    made = 0
    allowed = set()
    for node in ast.walk(fn):
        if isinstance(node, ast.Assign) and len(node.targets) == 1 \
                and isinstance(node.targets[0], ast.Name) and node.targets[0].id == name:
            if not (isinstance(node.value, ast.List) and not node.value.elts):
                return False
            made += 1
            allowed.add(id(node.targets[0]))
        elif isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) \
                and isinstance(node.func.value, ast.Name) and node.func.value.id == name \
                and node.func.attr in ("append", "pop"):
            allowed.add(id(node.func.value))
        elif _divided_length(node, name, k):
            allowed.add(id(node.left.args[0]))
    if made != 1:
        return False
    return all(id(node) in allowed for node in ast.walk(fn)
               if isinstance(node, ast.Name) and node.id == name)


def _divided_length(node, name, k) -> bool:
    """Is `node` ``len(name) // k``?"""
    return (isinstance(node, ast.BinOp) and isinstance(node.op, ast.FloorDiv)
            and isinstance(node.right, ast.Constant) and node.right.value == k
            and isinstance(node.left, ast.Call) and isinstance(node.left.func, ast.Name)
            and node.left.func.id == "len" and len(node.left.args) == 1
            and isinstance(node.left.args[0], ast.Name) and node.left.args[0].id == name)


class _Undivided(ast.NodeTransformer):
    """``len(X) // k`` -> ``len(X)`` (a tape of k-tuples)."""

    def __init__(self, name, k):
        self.name, self.k = name, k

    def visit_BinOp(self, node):
        self.generic_visit(node)
        return node.left if _divided_length(node, self.name, self.k) else node


class _Reversed(ast.NodeTransformer):
    """``reversed(range(n))`` -> ``range(n - 1, -1, -1)``; ``reversed(range(a, b))``
    -> ``range(b - 1, a - 1, -1)``; with a step `s`, or the first `c` of the range
    (``reversed(range(n)[:count])``, a loop left by ``break``), ``range(a + (m - 1)
    * s, a - s, -s)`` where `m` is how many it holds (Python's slice rule for a
    negative `c`). The bounds are names or constants in emitted code, so reading
    them twice is safe."""

    def visit_Call(self, node):
        self.generic_visit(node)
        if not (isinstance(node.func, ast.Name) and node.func.id == "reversed"):
            return node
        inner = node.args[0] if len(node.args) == 1 and not node.keywords else None
        count = None
        if isinstance(inner, ast.Subscript) and isinstance(inner.slice, ast.Slice) \
                and inner.slice.lower is None and inner.slice.step is None \
                and inner.slice.upper is not None:
            inner, count = inner.value, inner.slice.upper
        if not (isinstance(inner, ast.Call) and isinstance(inner.func, ast.Name)
                and inner.func.id == "range" and not inner.keywords
                and 1 <= len(inner.args) <= 3
                and not any(isinstance(a, ast.Starred) for a in inner.args)):
            raise Refused("it runs `reversed` over something other than a range")
        bounds = list(inner.args)
        step = bounds.pop() if len(bounds) == 3 else ast.Constant(1)
        start, stop = ([ast.Constant(0)] + bounds)[-2:]
        if count is None and isinstance(step, ast.Constant) and step.value == 1:
            return _call("range", _sub(stop, 1), _sub(start, 1), ast.Constant(-1))
        held = _call("len", _call("range", start, stop, step))
        if count is not None:  # min(L, c) if c >= 0 else max(0, L + c)
            held = ast.IfExp(
                ast.Compare(count, [ast.GtE()], [ast.Constant(0)]),
                _call("min", held, count),
                _call("max", ast.Constant(0), ast.BinOp(held, ast.Add(), count)))
        first = ast.BinOp(start, ast.Add(), ast.BinOp(_sub(held, 1), ast.Mult(), step))
        return _call("range", first, ast.BinOp(start, ast.Sub(), step),
                     ast.UnaryOp(ast.USub(), step))


def _call(name, *args):
    return ast.Call(ast.Name(name, ast.Load()), list(args), [])


def _sub(node, k):
    return ast.BinOp(node, ast.Sub(), ast.Constant(k))


# -- counted tapes as arrays ------------------------------------------------------

NP, PUT, RESERVE = "__s2sad_np__", "__s2sad_put__", "__s2sad_reserve__"
_DTYPES = {"float": "float64", "int": "int64", "bool": "bool_"}


def _arrays(fn: ast.FunctionDef, params: dict):
    """Each tape pushed only in counted loops becomes one NumPy array per entry of a
    push (`_ArrayTape`). A counted loop is ``for t in range(a, b, s)`` with bounds
    of names, constants and arithmetic, no ``break``, ``continue`` or ``return`` of
    its own, and
    the pushes direct statements of its body: each iteration pushes once, so the
    entries a run of the loop adds are known before it starts. `params` gives the
    kinds of parameters (floats where it has none)."""
    parents = {id(c): node for node in ast.walk(fn) for c in ast.iter_child_nodes(node)}
    names = {n.id for n in ast.walk(fn) if isinstance(n, ast.Name)}
    kinds = _guessed_kinds(fn, params)
    for name in sorted(_plain_tapes(fn)):
        tape = _ArrayTape(fn, name, parents, names, kinds)
        if tape.ok:
            tape.rewrite()


def _plain_tapes(fn) -> set:
    """The lists made once by ``X = []`` and read only by ``X.append(e)``, ``t =
    X.pop()`` (a tuple target too) and ``len(X)``."""
    made, bad = {}, set()
    for node in ast.walk(fn):
        if isinstance(node, ast.Assign) and len(node.targets) == 1 \
                and isinstance(node.targets[0], ast.Name):
            name = node.targets[0].id
            fresh = isinstance(node.value, ast.List) and not node.value.elts
            made[name] = made.get(name, 0) + 1 if fresh else 2
    allowed = set()
    for node in ast.walk(fn):
        if isinstance(node, ast.Assign) and len(node.targets) == 1 \
                and isinstance(node.targets[0], ast.Name):
            allowed.add(id(node.targets[0]))
        if isinstance(node, ast.Expr) and _tape_call(node.value, "append", 1):
            allowed.add(id(node.value.func.value))
        elif isinstance(node, ast.Assign) and _tape_call(node.value, "pop", 0) \
                and len(node.targets) == 1 \
                and isinstance(node.targets[0], (ast.Name, ast.Tuple)):
            allowed.add(id(node.value.func.value))
        elif isinstance(node, ast.Call) and isinstance(node.func, ast.Name) \
                and node.func.id == "len" and len(node.args) == 1:
            allowed.add(id(node.args[0]))
    for node in ast.walk(fn):
        if isinstance(node, ast.Name) and id(node) not in allowed:
            bad.add(node.id)
    return {name for name, count in made.items() if count == 1 and name not in bad}


def _tape_call(call, method, nargs) -> bool:
    """Is `call` ``X.method(...)`` with `nargs` plain arguments?"""
    return (isinstance(call, ast.Call) and isinstance(call.func, ast.Attribute)
            and call.func.attr == method and isinstance(call.func.value, ast.Name)
            and len(call.args) == nargs and not call.keywords
            and not any(isinstance(a, ast.Starred) for a in call.args))


class _ArrayTape:
    """Tape `name` as arrays ``name_0 ... name_k-1`` (k entries per push) and a count
    ``name_top``. Pushed by one loop that no loop holds, the arrays are made just
    before it, as long as its run (``X = []`` makes them empty only where that loop
    is not at the function's top level, so that they exist on every path); else ``X
    = []`` makes them empty and each counted loop that pushes reserves room for its
    run first (``RESERVE``, which doubles an array that is too short, so a loop
    nested in another costs one copy now and then). A push writes each entry at the
    count (``PUT``, which numba compiles only when the value's type is the array's:
    a wrong guess of the dtype from the text is a numba error, and `native` then
    compiles the lists) and adds one, a pop takes one off the count and reads, and
    ``len(X)`` is the count."""

    def __init__(self, fn, name, parents, names, kinds):
        self.fn, self.name, self.parents = fn, name, parents
        self.pushes, self.pops, self.loops, self.ok = [], [], {}, False
        for node in ast.walk(fn):
            if isinstance(node, ast.Expr) and _tape_call(node.value, "append", 1) \
                    and node.value.func.value.id == name:
                self.pushes.append(node)
            elif isinstance(node, ast.Assign) and _tape_call(node.value, "pop", 0) \
                    and node.value.func.value.id == name:
                self.pops.append(node)
        widths = {self._width(p) for p in self.pushes}
        widths |= {len(p.targets[0].elts) if isinstance(p.targets[0], ast.Tuple) else 1
                   for p in self.pops}
        if not self.pushes or len(widths) != 1:
            return
        self.k = widths.pop()
        for push in self.pushes:
            loop = parents.get(id(push))
            if not (isinstance(loop, ast.For) and push in loop.body and _counted(loop)):
                return
            self.loops[id(loop)] = (loop, self.loops.get(id(loop), (loop, 0))[1] + 1)
        loops = [loop for loop, _ in self.loops.values()]
        self.alone = len(loops) == 1 and not self._enclosed(loops[0])
        self.columns = [self._fresh(f"{name}_{j}", names) for j in range(self.k)]
        self.top = self._fresh(f"{name}_top", names)
        self.dtypes = []
        for j in range(self.k):
            guessed = _joined({_kind(p_entries[j], kinds) or "float"
                               for p_entries in map(self._entries, self.pushes)})
            if guessed == "other":
                return
            self.dtypes.append(_DTYPES[guessed])
        self.ok = True

    def _width(self, push):
        value = push.value.args[0]
        return len(value.elts) if isinstance(value, ast.Tuple) else 1

    def _entries(self, push):
        value = push.value.args[0]
        return list(value.elts) if self.k > 1 else [value]

    def _enclosed(self, loop) -> bool:
        node = self.parents.get(id(loop))
        while node is not None and node is not self.fn:
            if isinstance(node, (ast.For, ast.While)):
                return True
            node = self.parents.get(id(node))
        return False

    @staticmethod
    def _fresh(base, names):
        while base in names:
            base += "_"
        names.add(base)
        return base

    def rewrite(self):
        _Replace({id(p): self._pushed(p) for p in self.pushes}
                 | {id(p): self._popped(p) for p in self.pops}
                 | {id(loop): self._reserved(loop, n) + [loop]
                    for loop, n in self.loops.values()}
                 | self._made(), self.name, self.top).visit(self.fn)

    def _made(self):
        for node in ast.walk(self.fn):
            if isinstance(node, ast.Assign) and isinstance(node.targets[0], ast.Name) \
                    and node.targets[0].id == self.name:
                loop = next(iter(self.loops.values()))[0]
                made = [] if self.alone and loop in self.fn.body else [
                    _assign(c, self._empty(ast.Constant(0), d))
                    for c, d in zip(self.columns, self.dtypes)]
                return {id(node): made + [_assign(self.top, ast.Constant(0))]}
        return {}

    def _pushed(self, push):
        out = [ast.Expr(_call(PUT, _name(c), _name(self.top), e))
               for c, e in zip(self.columns, self._entries(push))]
        return out + [ast.AugAssign(_name(self.top, ast.Store()), ast.Add(), ast.Constant(1))]

    def _popped(self, pop):
        target = pop.targets[0]
        targets = target.elts if isinstance(target, ast.Tuple) else [target]
        out = [ast.AugAssign(_name(self.top, ast.Store()), ast.Sub(), ast.Constant(1))]
        return out + [ast.Assign([t], ast.Subscript(_name(c), _name(self.top), ast.Load()))
                      for t, c in zip(targets, self.columns)]

    def _reserved(self, loop, n):
        run = _call("len", loop.iter)
        if n > 1:
            run = ast.BinOp(run, ast.Mult(), ast.Constant(n))
        if self.alone:
            return [_assign(c, self._empty(run, d)) for c, d in zip(self.columns, self.dtypes)]
        need = ast.BinOp(_name(self.top), ast.Add(), run)
        return [_assign(c, _call(RESERVE, _name(c), need)) for c in self.columns]

    @staticmethod
    def _empty(length, dtype):
        return ast.Call(_parse(f"{NP}.empty"), [length, _parse(f"{NP}.{dtype}")], [])


def _counted(loop: ast.For) -> bool:
    """Does `loop` run ``range`` over arithmetic of names and constants, to its end
    every time?"""
    it = loop.iter
    if loop.orelse or not (isinstance(it, ast.Call) and isinstance(it.func, ast.Name)
                           and it.func.id == "range" and 1 <= len(it.args) <= 3
                           and not it.keywords
                           and all(_simple(a) for a in it.args)):
        return False
    return not any(_leaves(s) for s in loop.body)


def _simple(node) -> bool:
    """Arithmetic of names and constants: read again just before the loop, the same
    value its ``range`` takes."""
    return all(isinstance(n, (ast.Name, ast.Constant, ast.BinOp, ast.UnaryOp,
                              ast.operator, ast.unaryop, ast.expr_context))
               for n in ast.walk(node))


def _leaves(node) -> bool:
    """Does `node` hold a ``return``, or a ``break`` or ``continue`` outside a loop
    of its own?"""
    if isinstance(node, (ast.Return, ast.Break, ast.Continue)):
        return True
    if isinstance(node, (ast.For, ast.While)):
        return any(isinstance(n, ast.Return) for n in ast.walk(node))
    return any(_leaves(c) for c in ast.iter_child_nodes(node))


def _guessed_kinds(fn, params) -> dict:
    """{name: "int", "bool", "float" or "other"} from the text: ints are made
    from int constants, ``len``, a ``range``'s target and int arithmetic of those;
    booleans by comparisons and ``not``; "other" (an array, a tuple, None: no array
    tape) by a call of anything but `math` and a few builtins, an unpacking, an
    attribute. Parameters have the kinds `params` gives, and they and what is left
    are otherwise taken for floats. A guess only: `PUT` checks it where numba types
    the code."""
    assigned: dict = {}
    restored = {id(n) for node in ast.walk(fn)
                if isinstance(node, ast.Assign) and _tape_call(node.value, "pop", 0)
                for n in ast.walk(node)}  # (a pop restores the kind that was pushed)
    for node in ast.walk(fn):
        if id(node) in restored:
            continue
        if isinstance(node, ast.Assign) and len(node.targets) == 1 \
                and isinstance(node.targets[0], ast.Name):
            assigned.setdefault(node.targets[0].id, []).append(node.value)
        elif isinstance(node, ast.AugAssign) and isinstance(node.target, ast.Name):
            assigned.setdefault(node.target.id, []).append(
                ast.BinOp(node.target, node.op, node.value))
        elif isinstance(node, ast.For) and isinstance(node.target, ast.Name):
            it = node.iter
            counted = isinstance(it, ast.Call) and isinstance(it.func, ast.Name) \
                and it.func.id == "range"
            assigned.setdefault(node.target.id, []).append(
                ast.Constant(0) if counted else ast.Constant(None))
        elif isinstance(node, (ast.Tuple, ast.List)) and isinstance(node.ctx, ast.Store):
            for e in node.elts:
                if isinstance(e, ast.Name):
                    assigned.setdefault(e.id, []).append(ast.Constant(None))
    for a in fn.args.args:
        assigned.setdefault(a.arg, []).append(
            ast.Name(a.arg, ast.Load()) if a.arg in params else ast.Constant(0.0))
    kinds: dict = dict(params)
    # (a name not in `kinds` yet: no kind known, optimistically)
    for _ in range(8):
        before = dict(kinds)
        for name, values in assigned.items():
            if name in params:
                continue
            found = _joined({_kind(v, kinds) for v in values})
            if found is not None:
                kinds[name] = found
        if kinds == before:
            break
    return kinds


_INT_CALLS = {"len", "int", "round", "floor", "ceil", "trunc", "factorial", "gcd",
              "comb", "perm", "isqrt"}


def _joined(found):
    """One kind for the kinds a value may have (None: none known yet)."""
    found = set(found) - {None}
    if not found:
        return None
    if len(found) == 1:
        return found.pop()
    return "other" if "other" in found else "float"


def _kind(node, kinds):
    """The kind `_guessed_kinds` gives the value of expression `node`."""
    if isinstance(node, ast.Constant):
        value = node.value
        return "bool" if isinstance(value, bool) else "int" if isinstance(value, int) \
            else "float" if isinstance(value, float) else "other"
    if isinstance(node, ast.Name):
        return kinds.get(node.id)
    if isinstance(node, ast.Compare) or (isinstance(node, ast.UnaryOp)
                                         and isinstance(node.op, ast.Not)):
        return "bool"
    if isinstance(node, ast.Call):
        f = node.func
        name = f.attr if isinstance(f, ast.Attribute) and isinstance(f.value, ast.Name) \
            and f.value.id == "math" else f.id if isinstance(f, ast.Name) \
            and f.id in _INT_CALLS | {"abs", "min", "max", "float"} else None
        if isinstance(f, ast.Name) and f.id == POW:
            return _joined({_kind(a, kinds) for a in node.args} | {"float"})
        if name is None:
            return "other"
        if name in ("abs", "min", "max"):
            return _joined({_kind(a, kinds) for a in node.args})
        return "int" if name in _INT_CALLS else "float"
    if isinstance(node, ast.BinOp):
        sides = _joined({_kind(node.left, kinds), _kind(node.right, kinds)})
        if sides in (None, "other") or isinstance(node.op, ast.Div):
            return sides if sides in (None, "other") else "float"
        return "int" if sides == "int" and not isinstance(node.op, ast.Pow) else "float"
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub):
        inner = _kind(node.operand, kinds)
        return inner if inner in (None, "int", "other") else "float"
    if isinstance(node, ast.IfExp):
        return _joined({_kind(node.body, kinds), _kind(node.orelse, kinds)})
    if isinstance(node, ast.Subscript):
        return "float"  # (an element of a list of floats, most often)
    return "other"


class _Replace(ast.NodeTransformer):
    """Statements by id -> their replacements; ``len(X)`` -> the count."""

    def __init__(self, table, name, top):
        self.table, self.name, self.top = table, name, top

    def generic_visit(self, node):
        node = super().generic_visit(node)
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) \
                and node.func.id == "len" and len(node.args) == 1 \
                and isinstance(node.args[0], ast.Name) and node.args[0].id == self.name:
            return _name(self.top)
        return node

    def visit(self, node):
        new = self.generic_visit(node) if id(node) not in self.table else None
        if id(node) in self.table:
            out = self.table[id(node)]
            if isinstance(node, ast.For):  # (its body holds pushes)
                out[-1] = self.generic_visit(node)
            return out
        return new


def _parse(text):
    return ast.parse(text, mode="eval").body


def _name(name, ctx=None):
    return ast.Name(name, ctx or ast.Load())


def _assign(name, value):
    return ast.Assign([_name(name, ast.Store())], value)
