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
  float where a list of numbers would make both floats.
"""

from __future__ import annotations

import ast


POW = "__s2sad_pow__"


class Refused(Exception):
    """A construct the native path does not compile (the message says which)."""


def rewritten(text: str) -> str:
    """The emitted function's text with ``reversed(range(...))`` spelt as numba
    takes it."""
    tree = ast.parse(text)
    fn = tree.body[0]
    fn.body = [s for s in fn.body if not isinstance(s, ast.Delete)]
    tree = _Reversed().visit(tree)
    tree = _Powers().visit(tree)
    _grouped(tree.body[0])
    ast.fix_missing_locations(tree)
    return ast.unparse(tree)


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
