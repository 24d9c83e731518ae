"""A rule inlined from its plan (`instances._planned`: the instance folded once with
stand-in names, then built with the statement's names) is the instance `subst` and
folding make for those names, for every rule of the tables, and a plan is not used
where the names would fold otherwise."""

import ast

import pytest

from s2sad.primitives import instances, registry


def _rules():
    registry._load_optional() if registry.OPTIONAL else None
    seen = []
    for table in (registry.REVERSE, registry.FORWARD):
        for rules in table.values():
            for rule in rules:
                try:
                    rule.template
                except Exception:  # (a rule whose template cannot be read is not inlined)
                    continue
                seen.append(rule)
    return seen


def _instances(rule, inputs, wanted):
    """(planned, made by `subst` and folding) for `rule` with the atoms `inputs`."""
    out = ast.Name(id="r%0", ctx=ast.Load())
    if rule.mode == "reverse":
        seeds = [ast.Name(id="r%bar", ctx=ast.Load())]
    else:
        seeds = [ast.Name(id=f"{x.id}%dot", ctx=ast.Load()) if isinstance(x, ast.Name)
                 else None for x in inputs]
    made = []
    for path in ("plan", "instance"):
        count = iter(range(100))
        fresh = lambda: f"%t{next(count)}"
        if path == "plan":
            got = rule.instantiate(inputs, out, seeds, wanted, fresh)
        else:
            planned = instances._planned
            instances._planned = lambda *a: None
            try:
                got = rule.instantiate(inputs, out, seeds, wanted, fresh)
            finally:
                instances._planned = planned
        assigns, terms = got
        made.append(([(n, ast.dump(e)) for n, e in assigns],
                     {i: ast.dump(e) for i, e in terms.items()}))
    return made


def test_every_rule_planned_as_made():
    rules = _rules()
    assert len(rules) > 300
    checked = 0
    for rule in rules:
        wanted = [i for i, t in enumerate(rule.template.terms) if t is not None]
        for constant in (False, True):
            inputs = [ast.Name(id=f"a{i}%1", ctx=ast.Load()) for i in range(rule.arity)]
            if constant:
                if not inputs:
                    continue
                inputs[-1] = ast.Constant(2.0)
            plan, made = _instances(rule, inputs, wanted)
            assert plan == made, (rule.key, rule.when, constant)
            checked += 1
    assert checked > 500
    assert sum(bool(r.template.plans) for r in rules) > 300  # (the plans were used)


def test_plan_not_used_where_names_meet():
    """Two placeholders given one name, or a name the template keeps for itself (a
    helper's), could fold otherwise than the stand-ins did: no plan is used."""
    rule = registry.lookup(registry.OPERATORS[ast.Mult], 2, kinds=["scalar", "scalar"])
    t = rule.template
    names = rule.inputs
    fresh = lambda: "%t"
    mapping = {names[0]: ast.Name(id="v", ctx=ast.Load()),
               names[1]: ast.Name(id="w", ctx=ast.Load()),
               "out": ast.Name(id="o", ctx=ast.Load()),
               "out_bar": ast.Name(id="g", ctx=ast.Load())}
    assert instances._planned(t, mapping, [0, 1], fresh) is not None
    same = dict(mapping, **{names[1]: ast.Name(id="v", ctx=ast.Load())})
    assert instances._planned(t, same, [0, 1], fresh) is None
    clash = dict(mapping, **{names[1]: ast.Name(id="np", ctx=ast.Load())})
    assert instances._planned(t, clash, [0, 1], fresh) is None
    other = dict(mapping, **{names[1]: ast.BinOp(left=ast.Name(id="a", ctx=ast.Load()),
                                                 op=ast.Add(),
                                                 right=ast.Name(id="b", ctx=ast.Load()))})
    assert instances._planned(t, other, [0, 1], fresh) is None
