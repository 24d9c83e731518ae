"""effects: the lines a derivative runs only for what they report.

A derivative runs what the user's function prints, logs or checks once per call.
Where the API makes several forward passes at one point (`grad(f, mode="forward")`,
`hessian`: one per direction), the passes after the first run a quiet twin of the
derivative (`builder.forward_unit(..., quiet=True)`), built from the same code
without those lines: `ir.Kept` statements that define nothing, and calls of
``print``, `logging` and ``warnings.warn`` (`analysis.classify.reports_only`).
"""

from __future__ import annotations

import ast

from .. import ir
from ..analysis.classify import reports_only


def reports(functions) -> bool:
    """Does one of the unit's `functions` (`builder.UnitFunction`) hold such a line?"""
    return any(_reporting(s, uf.fn.refs) for uf in functions if hasattr(uf, "fn")
               for s in ir.walk(uf.fn.body))


def quiet_functions(functions):
    """Take those lines out of every one of `functions`, in place."""
    for uf in functions:
        uf.fn.body = _quiet(uf.fn.body, uf.fn.refs)


def _quiet(body, refs) -> list:
    out = []
    for s in body:
        if _reporting(s, refs):
            continue
        for block in ir.blocks(s):
            block[:] = _quiet(block, refs)
        out.append(s)
    return out


def _reporting(s, refs) -> bool:
    if isinstance(s, ir.Kept):
        return not s.defines
    if not (isinstance(s, ir.Expr) and isinstance(s.value, ast.Call)):
        return False
    text = ir.dotted(s.value.func)
    return text is not None and reports_only(refs.get(text))
