"""instances: a rule's template inlined from its plan.

`instantiate(template, mapping, wanted, fresh)` returns what `templates.instantiate`
returns, the template's lines the wanted terms need and those terms, with the
placeholders replaced by `mapping`'s atoms and the constants folded, without
substituting and folding the template's trees again for each statement: where
every placeholder is given a name or a literal (the statements a straight-line
function is made of), the template is inlined and folded once per wanted terms and
literals with a stand-in name for each placeholder given a name and for each new
line (the plan, kept in `Template.plans`), and each statement's instance is built
from the plan by code written for it, the stand-ins replaced by the statement's
names. Folding looks at names only to see whether two are the same, so the plan
gives the same trees as `templates.instantiate` where the names given are different
from one another and from the names the template reads itself; elsewhere (a
placeholder given another expression, names that meet) `templates.instantiate`
inlines the rule.

It knows nothing of the registry (`registry.Rule.instantiate` calls it).
"""

from __future__ import annotations

import ast
from operator import attrgetter

from . import templates
from .templates import Template, copy_expr

_ID = attrgetter("id")
_STAND_IN = "\0"  # (the start of a stand-in name: no name in Python code has it)
_PLANS = 256  # (most plans one template keeps: one per literal it is given, at most)
_PLAIN = frozenset({int, float, str, bool, type(None)})  # (what `subst` keeps as it is)
_LEAVES = (ast.expr_context, ast.operator, ast.unaryop, ast.cmpop)
# (the types of a name's fields as the parser and `ir.name` make them: each plain or a leaf)
_FLAT = _PLAIN | {ast.Load, ast.Store, ast.Del}
_Name = ast.Name
_NAMES = frozenset({_Name})


def _copy_name(name: ast.Name):
    """`copy_expr` of a name, whose fields and positions are copied as they are."""
    fields = name.__dict__
    if not _FLAT.issuperset(map(type, fields.values())):  # (the commonest first)
        for v in fields.values():
            if type(v) not in _PLAIN and not isinstance(v, _LEAVES):
                return copy_expr(name)
    new = ast.Name.__new__(ast.Name)
    new.__dict__ = fields.copy()
    return new


def instantiate(template: Template, mapping: dict, wanted, fresh):
    """`templates.instantiate`, from a plan where one fits (see the module docstring)."""
    numbers = template.numbers  # (numbers are inlined)
    if numbers is None:
        numbers = template.numbers = {n: v for n, v in template.helpers.items()
                                      if type(v) in (int, float)}
    full = mapping  # (nothing below changes it)
    if numbers:
        full = {n: ast.Constant(v) for n, v in numbers.items()}
        full.update(mapping)
    made = _planned(template, full, wanted, fresh)
    if made is not None:
        return made
    return templates.instantiate(template, mapping, wanted, fresh)


def _planned(t: Template, mapping: dict, wanted, fresh):
    """The instance of `t` for `mapping` (number helpers included) built from its
    plan, or None where a placeholder is given an expression other than a name or a
    literal, where the names given meet one another or the template's own, or where
    the template keeps as many plans as it may."""
    wanted = tuple(wanted)
    values = list(mapping.values())
    if set(map(type, values)) == _NAMES:  # (the commonest: every placeholder a name)
        key, names = (wanted, *mapping), values
    else:
        key, names = [wanted], []
        for n, v in mapping.items():
            kind = type(v)
            if kind is _Name:
                names.append(v)
                key.append(n)
            elif kind is ast.Constant:
                key.append((n, type(v.value), repr(v.value)))
            else:
                return None
        key = tuple(key)
    plan = t.plans.get(key)
    if plan is None:
        if len(t.plans) >= _PLANS:
            return None
        stand_in = dict(mapping)
        placeholders = [n for n, v in mapping.items() if type(v) is _Name]
        for n in placeholders:
            stand_in[n] = ast.Name(id=_STAND_IN + n, ctx=ast.Load())
        count = iter(range(len(t.assigns)))
        assigns, terms = templates.instantiate(t, stand_in, wanted,
                                               lambda: f"{_STAND_IN}#{next(count)}")
        kept = set()
        for e in [e for _, e in assigns] + list(terms.values()):
            kept |= {n.id for n in ast.walk(e) if isinstance(n, ast.Name)
                     and not n.id.startswith(_STAND_IN)}
        # (and the names folding reads a call's function by)
        plan = t.plans[key] = (_builder(assigns, terms, placeholders),
                               frozenset(kept | {"np", "numpy", "len"}))
    build, kept = plan
    given = set(map(_ID, names))
    if len(given) != len(names) or not given.isdisjoint(kept):
        return None
    return build(fresh, *names)


def _builder(assigns, terms, names):
    """A function ``build(fresh, *values)`` that makes what `templates.subst` of the
    planned `assigns` and `terms` would, with the stand-in of each placeholder in
    `names` replaced by a copy of its value and each line's stand-in by a new name
    from `fresh`: the trees written out as code, each node made straight from its
    fields (no walk looks at the planned trees again)."""
    values = {}  # id(object) -> its name in the code (operators, contexts, literals)
    scope = {"copy_expr": copy_expr, "_copy_name": _copy_name, "Name": ast.Name,
             "Load": ast.Load}
    lines = [f"def build(fresh, {''.join(f'v{i}, ' for i in range(len(names)))}):",
             "    load = Load()"]
    slots = {_STAND_IN + n: f"_copy_name(v{i})" for i, n in enumerate(names)}
    count = iter(range(10**9))

    def const(v):
        name = values.get(id(v))
        if name is None:
            name = values[id(v)] = f"k{len(values)}"
            scope[name] = v
        return name

    def code(node) -> str:
        t = type(node)
        if t is list:
            return "[" + "".join(code(x) + ", " for x in node) + "]"
        if not isinstance(node, ast.AST) or isinstance(node, _LEAVES):
            return const(node)  # (shared, as `subst` shares them)
        if t is ast.Name and node.id in slots:
            return slots[node.id]
        parts = []
        for k, v in node.__dict__.items():
            if type(v) in _PLAIN:
                parts.append(f"{k!r}: {const(v)}")
            elif k in node._fields:
                parts.append(f"{k!r}: {code(v)}")
            else:
                parts.append(f"{k!r}: copy_expr({const(v)})")
        o = f"o{next(count)}"
        lines.append(f"    {o} = {const(t)}.__new__({const(t)})")
        lines.append(f"    {o}.__dict__ = {{{', '.join(parts)}}}")
        return o

    out = []
    for i, (_, expr) in enumerate(assigns):
        lines.append(f"    a{i} = fresh()")
        out.append(f"(a{i}, {code(expr)})")
        slots[f"{_STAND_IN}#{i}"] = f"Name(id=a{i}, ctx=load)"
    made = {i: code(e) for i, e in terms.items()}
    del code  # (it calls itself: a reference cycle holding the planned trees otherwise)
    lines.append(f"    return [{', '.join(out)}], "
                 f"{{{', '.join(f'{i}: {e}' for i, e in made.items())}}}")
    exec(compile("\n".join(lines), "<s2sad rule instance>", "exec"), scope)
    return scope["build"]
