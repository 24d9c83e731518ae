"""simplify: tidy a derivative's statements without changing what they compute.

Contract
--------
`simplify(forward, reverse, keep)` takes a forward sweep and a reverse sweep (lists of
IR statements that run one after the other) and returns both, rewritten so that

* no `dup` is left: a copy made by `dup` is the same value as its source, so every
  read of a copy reads the source instead (the dup form did its job: adjoint names
  such as ``x%a%bar`` still say which read each adjoint belongs to);
* an adjoint or temporary defined once as a plain copy of another name
  (``t1%bar = z%bar``) is replaced by that name and the copy dropped;
* a reverse-sweep expression computed twice (``g_a_bar = t6_bar * g`` and
  ``g_b_bar = t6_bar * g``, from ``g * g``) is computed once: names are SSA, so an
  expression over the same names has the same value wherever it dominates;
* a reverse-sweep assignment whose result nothing reads, and which is not in `keep`,
  is dropped (repeatedly), as is a reverse `if` left with nothing but ``pass``;
* with `float_name`, a forward assignment nothing reads whose computation cannot
  raise (``+``, ``-``, ``*``, negation and comparisons of Python numbers) is dropped:
  it cannot change the result or raise, so only its cost would remain (this drops
  the output's own last line from a gradient that does not return it);
* a forward temporary read exactly once, by a later line of the same block, and by
  nothing in the reverse sweep, is nested back into that line when its computation
  is pure and nothing else is evaluated in between (``t1 = x * y; a = t1 + z``
  becomes ``a = x * y + z``): the forward sweep reads like the user's code and
  evaluates the same operations in the same order. A temporary whose adjoint has a
  name in the reverse sweep keeps its line, so every ``t3_bar`` has its ``t3``.

The forward sweep keeps every statement of the user's computation, in order, so it
raises and prints exactly what the user's function would. Comments stay with the
statements they describe; a comment left with no statement after it is dropped.
"""

from __future__ import annotations

import ast
import copy

from . import ir, rules


def simplify(forward: list, reverse: list, keep=(), outputs=(), pure=None,
             float_name=None) -> tuple:
    """``(forward, reverse, outputs)``: `outputs` are expressions read after both
    sweeps (what the derivative returns), renamed along with everything else.
    `pure(value)` says which forward right-hand sides may be nested into the line
    that reads them (see `_nest`); without it nothing is nested. `float_name(n)`
    says which names certainly hold a Python float; with it, a constant adjoint such
    as the seed ``out_bar = 1.0`` is folded into the lines that read it where that
    cannot change a result's type (``out_bar * y`` -> ``y`` when `y` is a float)."""
    keep = set(keep)
    result = ir.Return(ast.Tuple(elts=copy.deepcopy(list(outputs)), ctx=ast.Load()))
    body = copy.deepcopy(forward) + [_MARK] + copy.deepcopy(reverse) + [result]
    body = _elide_dups(body)
    body = _propagate_copies(body, keep)
    result = body.pop()
    i = next(i for i, s in enumerate(body) if s is _MARK)
    forward, reverse = body[:i], body[i + 1:]
    if float_name is not None:
        reverse = _fold_constant_adjoints(reverse + [result], keep, float_name)
        result = reverse.pop()
    _common_subexpressions(forward, reverse)
    body = _propagate_copies(forward + [_MARK] + reverse + [result], keep)
    result = body.pop()
    i = next(i for i, s in enumerate(body) if s is _MARK)
    forward, reverse = body[:i], body[i + 1:]
    reverse = _drop_dead(forward, reverse + [result], keep)
    if float_name is not None:
        forward = _drop_dead_forward(forward, reverse, float_name)
    if pure is not None:
        reads = _reads(forward + reverse)
        adjoints = {t for x in ir.walk(reverse) for t in ir.defined_names(x)}
        forward = _nest(forward, reads, lambda s: pure(s.value) and
                        ir.adjoint(s.targets[0]) not in adjoints)
    reverse.pop()
    return forward, _tidy_comments(reverse), list(result.value.elts)


_MARK = ir.Comment("---")


def _rename_everywhere(body, mapping):
    """Rename reads (the statements are this module's own copies)."""
    for s in ir.walk(body):
        if isinstance(s, (ir.Assign, ir.AugAssign, ir.Expr, ir.Return)):
            ir.rename_in_place(s.value, mapping)
        elif isinstance(s, ir.If):
            ir.rename_in_place(s.test, mapping)
        elif isinstance(s, ir.Dup):
            s.source = mapping.get(s.source, s.source)
        elif isinstance(s, ir.Comment) and "\0" in s.text:
            parts = s.text.split("\0")
            parts[1::2] = [mapping.get(p, p) if isinstance(mapping.get(p, p), str) else p
                           for p in parts[1::2]]
            s.text = "\0".join(parts)


def _elide_dups(body):
    mapping = {}
    for s in ir.walk(body):
        if isinstance(s, ir.Dup):
            src = mapping.get(s.source, s.source)
            for t in s.targets:
                mapping[t] = src
    body = _without(body, lambda s: isinstance(s, ir.Dup))
    if mapping:
        _rename_everywhere(body, mapping)
    return body


def _without(body, drop):
    out = []
    for s in body:
        if drop(s):
            continue
        if isinstance(s, ir.If):
            s.body = _without(s.body, drop)
            s.orelse = _without(s.orelse, drop)
        out.append(s)
    return out


def _definitions(body) -> dict:
    count = {}
    for s in ir.walk(body):
        for t in ir.defined_names(s):
            count[t] = count.get(t, 0) + (2 if isinstance(s, ir.AugAssign) else 1)
    return count


def _propagatable(n: str) -> bool:
    """Adjoints and compiler temporaries may vanish; user names and SSA versions stay."""
    if n.endswith("%bar"):
        return True
    base = n.split("%")
    return n.startswith("%") and len(base) == 2 and (base[1].isdigit() or base[1][:1] == "r")


def _augmented(body) -> set:
    return {s.target for s in ir.walk(body) if isinstance(s, ir.AugAssign)}


def _propagate_copies(body, keep):
    """Remove ``v = w`` copies: read `w` where `v` was read, or, when `v` must stay
    (a gradient the function returns), give `w`'s definitions the name `v`."""
    while True:
        defs, reads, aug = _definitions(body), _reads(body), _augmented(body)
        mapping, renames, dropped = {}, {}, set()
        touched = set()
        for s in ir.walk(body):
            if not (isinstance(s, ir.Assign) and not s.unpack and isinstance(s.value, ast.Name)):
                continue
            v, w = s.targets[0], s.value.id
            if v == w or defs.get(v) != 1 or w in aug or v in aug or v in touched or w in touched:
                continue
            if v in keep:
                if _propagatable(w) and w not in keep and reads.get(w) == 1:
                    renames[w] = v  # w's definitions take the name v
                    touched |= {v, w}
                    dropped.add(id(s))
            elif _propagatable(v) and (w.endswith("%bar") or not v.endswith("%bar")):
                # (an adjoint that equals a primal value, `x_bar = a`, keeps its
                # line: it says which use contributed what)
                mapping[v] = w  # reads of v read w
                touched |= {v, w}
                dropped.add(id(s))
        if not dropped:
            return body
        body = _without(body, lambda x: id(x) in dropped)
        both = {**mapping, **renames}
        _rename_everywhere(body, both)
        _rename_targets(body, renames)


def _rename_targets(body, mapping):
    for s in ir.walk(body):
        if isinstance(s, (ir.Assign, ir.Dup)):
            s.targets = tuple(mapping.get(t, t) for t in s.targets)
        elif isinstance(s, ir.AugAssign):
            s.target = mapping.get(s.target, s.target)


def _reads(body) -> dict:
    count = {}
    for s in ir.walk(body):
        for node in ir.exprs(s):
            for n in ir.names_in(node):
                count[n] = count.get(n, 0) + 1
    return count



def _drop_dead(forward, reverse, keep):
    while True:
        reads = _reads(forward + reverse)
        dead = lambda s: (isinstance(s, ir.Assign)  # noqa: E731
                          and not any(reads.get(t) or t in keep for t in s.targets))
        before = sum(1 for _ in ir.walk(reverse))
        reverse = _without(reverse, dead)
        reverse = _without(reverse, lambda s: isinstance(s, ir.If) and not _has_code(s))
        if sum(1 for _ in ir.walk(reverse)) == before:
            return reverse


def _has_code(s: ir.If) -> bool:
    return any(not isinstance(x, ir.Comment) for x in ir.walk(s.body + s.orelse))


def _tidy_comments(body, last=None):
    """Drop comments with no statement after them, and a comment that repeats the
    comment just before it (such as a branch's first line quoting the `if` again)."""
    out = []
    for i, s in enumerate(body):
        if isinstance(s, ir.Comment):
            following = body[i + 1] if i + 1 < len(body) else None
            if following is None or isinstance(following, ir.Comment) or s.text == last:
                continue
            last = s.text
        if isinstance(s, ir.If):
            s.body = _tidy_comments(s.body, last)
            s.orelse = _tidy_comments(s.orelse, last)
            last = None
        out.append(s)
    return out


def _is_temp(n: str) -> bool:
    parts = n.split("%")
    return len(parts) == 2 and parts[0] == "" and parts[1].isdigit()


def _reads_in_order(node) -> list:
    """Names read by an expression, in Python's evaluation order."""
    out = []

    def visit(n):
        if isinstance(n, ast.Name):
            out.append(n.id)
            return
        for child in ast.iter_child_nodes(n):
            visit(child)

    visit(node)
    return out


def _nest(body, reads, pure) -> list:
    out = []
    pending = []  # (temp, value) waiting for the line that reads them, oldest first

    def flush(upto=None):
        keep = pending if upto is None else pending[:upto]
        for name, value in keep:
            out.append(ir.Assign((name,), value))
        del pending[: len(keep)]

    for s in body:
        node = s.test if isinstance(s, ir.If) else getattr(s, "value", None)
        if node is not None and pending:
            order = [n for n in _reads_in_order(node) if any(n == p for p, _ in pending)]
            k = len(pending)
            while k and [p for p, _ in pending[-k:]] != [n for n in order
                                                         if any(n == p for p, _ in pending[-k:])]:
                k -= 1
            if k and all(any(n == p for n in order) for p, _ in pending[-k:]):
                nested = dict(pending[-k:])
                flush(len(pending) - k)
                pending.clear()
                node = ir.substitute(node, nested)
                if isinstance(s, ir.If):
                    s.test = node
                else:
                    s.value = node
        if isinstance(s, ir.If):
            flush()
            s.body = _nest(s.body, reads, pure)
            s.orelse = _nest(s.orelse, reads, pure)
            out.append(s)
            continue
        if isinstance(s, ir.Assign) and not s.unpack and _is_temp(s.targets[0]) \
                and reads.get(s.targets[0]) == 1 and pure(s) and _read_later(s, body):
            pending.append((s.targets[0], s.value))
            continue
        flush()
        out.append(s)
    flush()
    return out


def _read_later(s, body) -> bool:
    """Is `s`'s target read by a later statement of this same block (not nested)?"""
    target = s.targets[0]
    seen = False
    for other in body:
        if other is s:
            seen = True
            continue
        if not seen:
            continue
        node = other.test if isinstance(other, ir.If) else getattr(other, "value", None)
        if node is not None and target in ir.names_in(node):
            return True
    return False


# ------------------------------------------------------- constants and CSE


def _is_float(node, float_name) -> bool:
    """Does this expression certainly evaluate to a Python float?"""
    if isinstance(node, ast.Name):
        return float_name(node.id)
    if isinstance(node, ast.Constant):
        return type(node.value) is float
    if isinstance(node, ast.BinOp):
        if isinstance(node.op, ast.Div):
            return _is_float(node.left, float_name) or _is_float(node.right, float_name) \
                or _is_numberish(node.left) and _is_numberish(node.right)
        return _is_float(node.left, float_name) or _is_float(node.right, float_name)
    if isinstance(node, ast.UnaryOp) and not isinstance(node.op, ast.Not):
        return _is_float(node.operand, float_name)
    if isinstance(node, ast.Call):
        text = ir.dotted(node.func) or ""
        return text.startswith("math.") and text not in ("math.floor", "math.ceil",
                                                          "math.trunc", "math.isnan",
                                                          "math.isinf", "math.isfinite")
    if isinstance(node, ast.IfExp):
        return _is_float(node.body, float_name) and _is_float(node.orelse, float_name)
    return False


def _is_numberish(node) -> bool:
    return isinstance(node, ast.Constant) and type(node.value) in (int, float)


def _fold_constant_adjoints(body, keep, float_name):
    """Substitute adjoints defined once as a float literal into what reads them."""
    defs = _definitions(body)
    constants = {}
    for s in ir.walk(body):
        if isinstance(s, ir.Assign) and not s.unpack and s.targets[0].endswith("%bar") \
                and isinstance(s.value, ast.Constant) and type(s.value.value) is float \
                and defs.get(s.targets[0]) == 1 and s.targets[0] not in keep:
            constants[s.targets[0]] = s.value.value
    if not constants:
        return body

    class _Fold(ast.NodeTransformer):
        def visit_BinOp(self, n):
            self.generic_visit(n)
            if _is_numberish(n.left) and _is_numberish(n.right):
                folded = rules.fold(n)  # literal arithmetic, Python's own result type
                if isinstance(folded, ast.Constant):
                    return folded
            for const, other in ((n.left, n.right), (n.right, n.left)):
                if isinstance(n.op, ast.Mult) and isinstance(const, ast.Constant) \
                        and const.value == 1.0 and type(const.value) is float \
                        and _is_float(other, float_name):
                    return other
            return n

        def visit_UnaryOp(self, n):
            self.generic_visit(n)
            if isinstance(n.op, ast.USub) and isinstance(n.operand, ast.Constant) \
                    and type(n.operand.value) is float:
                return ast.Constant(-n.operand.value)
            return n

    for s in ir.walk(body):
        if isinstance(s, (ir.Assign, ir.AugAssign, ir.Return)) and \
                any(n in constants for n in ir.names_in(s.value)):
            value = ir.substitute(s.value, {n: ast.Constant(v) for n, v in constants.items()})
            s.value = _Fold().visit(value)
    return body


def _common_subexpressions(forward, reverse):
    """Reuse a value the forward sweep's top level or an enclosing reverse block
    already computed, instead of computing it again."""
    aug = _augmented(forward + reverse)
    defs = _definitions(forward + reverse)
    table = {}
    for s in forward:
        key = _cse_key(s, aug)
        if key is not None and defs.get(s.targets[0]) == 1:
            table.setdefault(key, s.targets[0])
    _cse_block(reverse, table, aug, defs)


def _cse_key(s, aug):
    if not (isinstance(s, ir.Assign) and not s.unpack):
        return None
    value = s.value
    if isinstance(value, (ast.Name, ast.Constant)):
        return None
    for n in ast.walk(value):
        if isinstance(n, ast.Name) and n.id in aug:
            return None
        if isinstance(n, ast.Call) and "%" in (ir.dotted(n.func) or "%"):
            return None  # a derivative function: not a pure expression
    return ast.dump(value)


def _cse_block(body, table, aug, defs):
    table = dict(table)
    for s in body:
        if isinstance(s, ir.If):
            _cse_block(s.body, table, aug, defs)
            _cse_block(s.orelse, table, aug, defs)
            continue
        key = _cse_key(s, aug)
        if key is None:
            continue
        if key in table:
            s.value = ir.name(table[key])
        elif defs.get(s.targets[0]) == 1:
            table[key] = s.targets[0]


_NON_RAISING = (ast.Add, ast.Sub, ast.Mult)


def _numeric(node, float_name) -> bool:
    if isinstance(node, ast.Constant):
        return type(node.value) in (int, float, bool)
    if isinstance(node, ast.Name):
        return float_name(node.id)
    return False


def _cannot_raise(node, float_name) -> bool:
    """Arithmetic on Python floats that never raises (it overflows to inf)."""
    if isinstance(node, ast.BinOp) and isinstance(node.op, _NON_RAISING):
        return all(_cannot_raise(x, float_name) for x in (node.left, node.right))
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, (ast.USub, ast.UAdd)):
        return _cannot_raise(node.operand, float_name)
    return _numeric(node, float_name)


def _drop_dead_forward(forward, reverse, float_name):
    while True:
        reads = _reads(forward + reverse)
        dead = lambda s: ((isinstance(s, ir.Assign) and not s.unpack  # noqa: E731
                           and not reads.get(s.targets[0])
                           and _cannot_raise(s.value, float_name))
                          or (isinstance(s, ir.If) and not _has_code(s)))
        before = sum(1 for _ in ir.walk(forward))
        forward = _without(forward, dead)
        if sum(1 for _ in ir.walk(forward)) == before:
            return forward
