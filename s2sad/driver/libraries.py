"""libraries: what a derivative for another library's arrays cannot do.

A derivative specialised on arrays of a library that stands in for NumPy in its code
(`kinds.namespace_of`: JAX, whose arrays cannot be changed) is the NumPy text run
with that library's functions (`backend.compile`). What that text changes in place
cannot run there: a write into an array (``y[i] = v`` of the user's code, the
reverse sweep's ``x_bar[i] += g`` for a read ``x[i]``) and ``np.add.at`` (a read
with an index array). `refuse_writes` refuses them at the user's line while the
derivative is built, rather than let JAX's own error come from the generated line.
A write into a list (a list of arrays' adjoints) changes the list, not an array,
and runs.

May import ir and errors.
"""

from __future__ import annotations

import ast

from .. import ir
from ..errors import S2SADError
from ..ir.kinds import ListKind, libraries_in, namespace_of


def refuse_writes(functions: list, acts: list, param_kinds: dict):
    """Refuse, at the user's line, the first write into an array among `functions`
    (`builder.UnitFunction`s) when `param_kinds` name a library whose arrays cannot
    be changed; `acts` (``(user function, activity)`` pairs) say which containers
    are lists."""
    if namespace_of(param_kinds) is None:
        return
    library = next(iter(set().union(*map(libraries_in, param_kinds.values()))))
    for uf in functions:
        kinds = [act.kinds for func, act in acts if func is uf.user]
        for s in ir.walk(uf.fn.body):
            container = _written(s)
            if container is not None and not _a_list(container, kinds):
                _refuse(uf.fn.source, s, library)


def _written(s):
    """The container `s` writes into in place (a name; "" where it is not a name), or
    None for a statement that writes into none."""
    if isinstance(s, ir.SetItem) or isinstance(s, ir.AugAssign) and \
            isinstance(s.target, ast.Subscript):
        value = s.target.value
        return value.id if isinstance(value, ast.Name) else ""
    if isinstance(s, ir.Expr) and isinstance(s.value, ast.Call):
        name = ir.dotted(s.value.func) or ""
        if name.endswith(".at") and s.value.args:  # np.add.at(a, i, v)
            target = s.value.args[0]
            return target.id if isinstance(target, ast.Name) else ""
    return None


def _a_list(name: str, kinds: list) -> bool:
    """Is `name` (an IR name of the user's function: ``xs``, ``xs%1``, ``xs%bar``)
    a list, by what the activity analyses of that function say of it or of the
    name it is derived from?"""
    candidates = [name, name.removesuffix("%bar"), name.split("%")[0]]
    for k in kinds:
        for n in candidates:
            if n in k:
                return isinstance(k[n], ListKind)
    return False


def _refuse(info, s, library: str):
    line = s.line or None
    text = info.line_text(line) if info is not None and line else None
    raise S2SADError(
        f"{info.qualname if info else 'the function'}: with {_NAMES.get(library, library)} "
        "arrays, the derivative would write into an array in place here "
        "(an assignment to an element or a slice, or the gradient of reading one), and "
        f"{_NAMES.get(library, library)} arrays cannot be changed: not supported yet",
        filename=info.filename if info else None, lineno=line,
        col=(len(text) - len(text.lstrip())) if text else None, source_line=text,
        hint="Build the array without writes into it (np.where, np.concatenate, "
             "np.stack), compute with whole arrays rather than elements, or pass NumPy "
             "arrays (docs/guide/arrays.md).")


_NAMES = {"jax": "JAX"}
