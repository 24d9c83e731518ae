"""saved: what a forward function returns for its backward function is bound on
every path.

Contract
--------
`fill_unset(body, saved, params)` changes the forward sweep `body` (a split
derivative's ``g_fwd``, whose return statement names the `saved` values) so that each
saved name is bound whichever way the function ran: a value computed in one branch
only is set to None in the other (the backward sweep reads it on that branch's path
only), and a value first computed inside a loop (its target, a name its body binds)
is set to None before the loop, for a loop that runs no iteration. Names bound before
(parameters, a loop's carried names) are left as they are.
"""

from __future__ import annotations

from .. import ir


def fill_unset(body: list, saved: set, params) -> None:
    _fill_loops(body, saved, _bound_outside(body) | set(params))
    _fill_branches(body, saved)


def _bound_outside(body) -> set:
    """Names some statement outside every loop of `body` binds."""
    out = set()
    for s in body:
        if isinstance(s, ir.If):
            out |= _bound_outside(s.body) | _bound_outside(s.orelse)
        elif not isinstance(s, ir.Loop):
            out |= set(ir.defined_names(s))
    return out


def _fill_loops(body: list, saved: set, outside: set) -> None:
    at = 0
    while at < len(body):
        s = body[at]
        if isinstance(s, ir.If):
            _fill_loops(s.body, saved, outside)
            _fill_loops(s.orelse, saved, outside)
        elif isinstance(s, ir.Loop):
            inside = {n for sub in ir.walk(s.cond + s.body) for n in ir.defined_names(sub)}
            if s.target is not None:
                inside.add(s.target)
            carried = {p.name for p in s.phis if p.init is not None and not p.unborn}
            unset = sorted(n for n in saved & inside if n not in outside and n not in carried)
            if unset:
                body[at:at] = [ir.Comment("not computed if the loop runs no iteration")] + [
                    ir.Assign((n,), ir.const(None), s.line) for n in unset]
                at += 1 + len(unset)
                outside |= set(unset)
        at += 1


def _fill_branches(body: list, saved: set) -> None:
    """A saved value computed in one branch only is set to None in the other, so the
    forward function can return it whichever branch ran."""
    for s in body:
        if not isinstance(s, ir.If):
            continue
        _fill_branches(s.body, saved)
        _fill_branches(s.orelse, saved)
        then_defs = ir.definitely_assigned(s.body)
        else_defs = ir.definitely_assigned(s.orelse)
        for mine, other in ((then_defs, s.orelse), (else_defs, s.body)):
            missing = [n for n in sorted(saved & mine, key=_def_order(s)) if n not in
                       (then_defs if other is s.body else else_defs)]
            if missing:
                other.append(ir.Comment("not computed on this path"))
                other.extend(ir.Assign((n,), ir.const(None), s.line) for n in missing)


def _def_order(s: ir.If):
    order = {}
    for sub in ir.walk(s.body + s.orelse):
        for n in ir.defined_names(sub):
            order.setdefault(n, len(order))
    return lambda n: order.get(n, 0)
