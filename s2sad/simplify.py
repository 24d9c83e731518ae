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
* a reverse-sweep assignment whose result nothing reads, and which is not in `keep`,
  is dropped (repeatedly), as is a reverse `if` left with nothing but ``pass``.

The forward sweep keeps every statement of the user's computation, in order, so it
raises and prints exactly what the user's function would. Comments stay with the
statements they describe; a comment left with no statement after it is dropped.
"""

from __future__ import annotations

import ast
import copy

from . import ir


def simplify(forward: list, reverse: list, keep=(), outputs=()) -> tuple:
    """``(forward, reverse, outputs)``: `outputs` are expressions read after both
    sweeps (what the derivative returns), renamed along with everything else."""
    keep = set(keep)
    result = ir.Return(ast.Tuple(elts=copy.deepcopy(list(outputs)), ctx=ast.Load()))
    body = copy.deepcopy(forward) + [_MARK] + copy.deepcopy(reverse) + [result]
    body = _elide_dups(body)
    body = _propagate_copies(body, keep)
    result = body.pop()
    i = next(i for i, s in enumerate(body) if s is _MARK)
    forward, reverse = body[:i], body[i + 1:]
    reverse = _drop_dead(forward, reverse + [result], keep)
    reverse.pop()
    return forward, _tidy_comments(reverse), list(result.value.elts)


_MARK = ir.Comment("---")


def _rename_everywhere(body, mapping):
    for s in ir.walk(body):
        if isinstance(s, (ir.Assign, ir.AugAssign, ir.Expr, ir.Return)):
            s.value = ir.substitute(s.value, mapping)
        elif isinstance(s, ir.If):
            s.test = ir.substitute(s.test, mapping)
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
        found = None
        for s in ir.walk(body):
            if not (isinstance(s, ir.Assign) and not s.unpack and isinstance(s.value, ast.Name)):
                continue
            v, w = s.targets[0], s.value.id
            if v == w or defs.get(v) != 1 or w in aug or v in aug:
                continue
            if v in keep:
                if _propagatable(w) and w not in keep and reads.get(w) == 1:
                    found = (s, {w: v})
                    break
            elif _propagatable(v):
                found = (s, {v: w})
                break
        if found is None:
            return body
        stmt, mapping = found
        body = _without(body, lambda x: x is stmt)
        _rename_everywhere(body, mapping)
        _rename_targets(body, mapping)


def _rename_targets(body, mapping):
    for s in ir.walk(body):
        if isinstance(s, (ir.Assign, ir.Dup)):
            s.targets = tuple(mapping.get(t, t) for t in s.targets)
        elif isinstance(s, ir.AugAssign):
            s.target = mapping.get(s.target, s.target)


def _reads(body) -> dict:
    count = {}
    for s in ir.walk(body):
        for node in _exprs(s):
            for n in ir.names_in(node):
                count[n] = count.get(n, 0) + 1
    return count


def _exprs(s):
    if isinstance(s, (ir.Assign, ir.AugAssign, ir.Expr, ir.Return)):
        yield s.value
    elif isinstance(s, ir.If):
        yield s.test
    elif isinstance(s, ir.Dup):
        yield ir.name(s.source)


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
