"""shifts: a row maximum subtracted only to keep exponentials finite, whose
derivative is zero.

Contract
--------
`unused_shifts(body)` takes a function body in dup form and returns
``{id(statement): name}``: for each ``Z_1 = Z_b - m`` where
``m = np.max(Z_a, axis=k, keepdims=True)`` (``Z_a``, ``Z_b`` copies of one ``Z``)
and the function's result does not depend on ``m`` at all in real arithmetic, the
statement and ``m``. Such a shift cancels in a softmax or a log-softmax along the
same axis: ``exp(Z - m) / sum(exp(Z - m))`` and ``(Z - m) - log(sum(exp(Z - m)))``
are the same for every ``m`` constant along axis ``k``. So the result's derivative
through ``m`` is zero, and activity does not mark ``m`` useful through that line: no
adjoint or tangent of the maximum is computed (in floating point it would be the
rounding error of a sum that cancels exactly in real arithmetic).

Found by following every value computed from ``Z_1`` through the straight-line top
level, each tagged with how it depends on the shift ``c`` along axis ``k``: shifted
by ``c`` (``Z_1``, a logarithm of a scaled value), scaled by ``exp(c)`` (an
exponential of a shifted value, its sum along ``k`` kept, a product or quotient with
a value that does not depend on ``c``), or not at all (the difference of two shifted
values, the quotient of two scaled ones). Anything else that reads a tagged value,
the return of one, or a read inside a loop or branch, and no shift is reported.
"""

from __future__ import annotations

import ast

from .. import ir

SHIFTED, SCALED = "shifted", "scaled"


def unused_shifts(body) -> dict:
    maxima = [i for i, s in enumerate(body) if type(s) is ir.Assign  # (`_row_max`'s
              and type(s.value) is ast.Call and _row_max(s) is not None]  # first test)
    if not maxima:  # (no row maximum at the top level: nothing to follow)
        return {}
    out = {}
    top = {id(s) for s in body}
    sources = {}  # dup copy -> the name it copies
    for s in body:
        if isinstance(s, ir.Dup):
            for t in s.targets:
                sources[t] = sources.get(s.source, s.source)
    for i in maxima:
        s = body[i]
        axis = _row_max(s)
        m, z = s.targets[0], s.value.args[0].id
        readers = [x for x in ir.walk(body) if m in _reads(x)]
        if len(readers) != 1 or id(readers[0]) not in top:
            continue
        sub = readers[0]
        v = sub.value if isinstance(sub, ir.Assign) and not sub.unpack else None
        if not (isinstance(v, ast.BinOp) and isinstance(v.op, ast.Sub)
                and isinstance(v.left, ast.Name) and isinstance(v.right, ast.Name)
                and v.right.id == m and v.left.id != m
                and sources.get(v.left.id, v.left.id) == sources.get(z, z)):
            continue
        if _cancels(body, body.index(sub), sub.targets[0], axis, top):
            out[id(sub)] = m
    return out


def _reads(s) -> set:
    names = set()
    for e in ir.exprs(s):
        names.update(ir.names_in(e))
    if isinstance(s, ir.Dup):
        names.add(s.source)
    return names


def _row_max(s):
    """The axis of ``m = np.max(z, axis=k, keepdims=True)`` (or np.amax), else None."""
    if not (isinstance(s, ir.Assign) and not s.unpack and isinstance(s.value, ast.Call)):
        return None
    call = s.value
    if not (isinstance(call.func, ast.Attribute) and call.func.attr in ("max", "amax")):
        return None  # (not np.max, without the dotted name)
    if ir.dotted(call.func) not in ("np.max", "np.amax") or len(call.args) != 1 \
            or not isinstance(call.args[0], ast.Name):
        return None
    options = {k.arg: k.value for k in call.keywords}
    axis, keep = options.get("axis"), options.get("keepdims")
    if set(options) != {"axis", "keepdims"} or not isinstance(axis, ast.Constant) \
            or type(axis.value) is not int or not isinstance(keep, ast.Constant) \
            or keep.value is not True:
        return None
    return axis.value


def _cancels(body, start, name, axis, top) -> bool:
    """Does nothing after `body[start]` depend on the shift of `name` (shifted along
    `axis`)?"""
    tags = {name: SHIFTED}
    for s in body[start + 1:]:
        read = set().union(*(_reads(x) for x in ir.walk([s]))) & set(tags)
        if not read:
            continue
        if id(s) not in top or ir.blocks(s):
            return False  # (read in a branch or a loop)
        if isinstance(s, ir.Dup):
            for t in s.targets:
                tags[t] = tags[s.source]
            continue
        if not (isinstance(s, ir.Assign) and not s.unpack):
            return False  # (a return, a write, a call for its effect)
        tag = _tag(s.value, tags, axis)
        if tag is False:
            return False
        if tag is not None:
            tags[s.targets[0]] = tag
    return True


def _tag(v, tags, axis):
    """How `v` depends on the shift: SHIFTED, SCALED, None (not at all), or False
    (some other way)."""
    def of(n):
        return tags.get(n.id) if isinstance(n, ast.Name) else False

    if isinstance(v, ast.Call) and len(v.args) == 1 and isinstance(v.args[0], ast.Name):
        text, arg = ir.dotted(v.func), of(v.args[0])
        options = {k.arg: k.value for k in v.keywords}
        if text == "np.exp" and not options and arg == SHIFTED:
            return SCALED
        if text == "np.log" and not options and arg == SCALED:
            return SHIFTED
        if text == "np.sum" and arg == SCALED and set(options) == {"axis", "keepdims"} \
                and isinstance(options["axis"], ast.Constant) \
                and options["axis"].value == axis and type(options["axis"].value) is int \
                and isinstance(options["keepdims"], ast.Constant) \
                and options["keepdims"].value is True:
            return SCALED
        return False
    if isinstance(v, ast.BinOp) and isinstance(v.left, ast.Name) \
            and isinstance(v.right, ast.Name):
        a, b = of(v.left), of(v.right)
        if isinstance(v.op, ast.Sub) and a == b == SHIFTED \
                or isinstance(v.op, ast.Div) and a == b == SCALED:
            return None  # the shift cancels
        if isinstance(v.op, (ast.Mult, ast.Div)) and a == SCALED and b is None \
                or isinstance(v.op, ast.Mult) and a is None and b == SCALED:
            return SCALED
    return False
