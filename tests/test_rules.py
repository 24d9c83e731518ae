"""The rule tables, row by row: each rule against central differences, forward and
reverse paired by the dot-product test, and the inlined template against the rule."""

import ast
import math
import operator
import random

import pytest

from s2sad import rules
from s2sad.rules import forward as forward_table
from s2sad.rules import reverse as reverse_table

OPERATOR_FUNCS = {
    "add": operator.add, "sub": operator.sub, "mul": operator.mul,
    "truediv": operator.truediv, "floordiv": operator.floordiv, "mod": operator.mod,
    "pow": operator.pow, "neg": operator.neg, "pos": operator.pos,
}

# Where each primitive is differentiable: a function giving a random valid point.
DOMAINS = {
    math.acosh: lambda r: [r.uniform(1.5, 3.0)],
    math.log: lambda r, n=1: [r.uniform(0.5, 3.0), r.uniform(1.5, 4.0)][:n],
    "mod": lambda r: [r.uniform(2.1, 2.4), r.uniform(0.9, 1.0)],
    math.fmod: lambda r: [r.uniform(2.1, 2.4), r.uniform(0.9, 1.0)],
    abs: lambda r: [r.choice([-1, 1]) * r.uniform(0.3, 2.0)],
    math.fabs: lambda r: [r.choice([-1, 1]) * r.uniform(0.3, 2.0)],
    math.copysign: lambda r: [r.choice([-1, 1]) * r.uniform(0.3, 2.0),
                              r.choice([-1, 1]) * r.uniform(0.3, 2.0)],
    "sub": lambda r: [r.uniform(-2, 2), r.uniform(-2, 2)],
    "add": lambda r: [r.uniform(-2, 2), r.uniform(-2, 2)],
    "mul": lambda r: [r.uniform(-2, 2), r.uniform(-2, 2)],
    "neg": lambda r: [r.uniform(-2, 2)],
}


def primitive(key):
    return OPERATOR_FUNCS.get(key, key)


def all_rules(table):
    return [(key, r) for key, rs in table.items() for r in rs]


def point(key, arity, rng):
    dom = DOMAINS.get(key)
    if key is round:
        return [rng.uniform(0.2, 0.9), 2][:arity]
    if key is math.log:
        return dom(rng, arity)
    if dom is not None:
        return dom(rng)
    return [rng.uniform(0.2, 0.9) for _ in range(arity)]


def ids(pairs):
    return [f"{rules.key_name(k)}/{r.arity}" for k, r in pairs]


REV = all_rules(rules.REVERSE)
FWD = all_rules(rules.FORWARD)


def test_tables_pair_up():
    """Same keys, same order, same arities, same differentiable inputs."""
    rev = [(rules.key_name(k), r.arity, r.differentiable) for k, r in REV]
    fwd = [(rules.key_name(k), r.arity, r.differentiable) for k, r in FWD]
    assert rev == fwd


def test_tables_have_the_same_banners():
    def banners(module):
        return [line for line in open(module.__file__) if line.startswith("# ---")]

    assert banners(reverse_table) == banners(forward_table)


@pytest.mark.parametrize("key,rule", REV, ids=ids(REV))
def test_reverse_rule_matches_central_differences(key, rule):
    rng = random.Random(1)
    f = primitive(key)
    for _ in range(5):
        xs = point(key, rule.arity, rng)
        out = f(*xs)
        terms = rule.func(*xs, out, 1.0)
        terms = terms if rule.arity > 1 else (terms,)
        for i, term in enumerate(terms):
            if term is None:
                continue
            h = 1e-6
            up, down = list(xs), list(xs)
            up[i] += h
            down[i] -= h
            numeric = (f(*up) - f(*down)) / (2 * h)
            assert term == pytest.approx(numeric, rel=1e-5, abs=1e-7), (xs, i)


@pytest.mark.parametrize("key,rule", FWD, ids=ids(FWD))
def test_forward_rule_matches_central_differences(key, rule):
    rng = random.Random(2)
    f = primitive(key)
    for _ in range(5):
        xs = point(key, rule.arity, rng)
        out = f(*xs)
        for i in range(rule.arity):
            dots = [0.0] * rule.arity
            dots[i] = 1.0
            terms = rule.func(*xs, out, *dots)
            terms = terms if rule.arity > 1 else (terms,)
            if terms[i] is None:
                continue
            h = 1e-6
            up, down = list(xs), list(xs)
            up[i] += h
            down[i] -= h
            numeric = (f(*up) - f(*down)) / (2 * h)
            assert terms[i] == pytest.approx(numeric, rel=1e-5, abs=1e-7), (xs, i)


@pytest.mark.parametrize("key,rule", REV, ids=ids(REV))
def test_dot_product(key, rule):
    """<J u, v> == <u, J^T v> for random points, directions u and adjoints v."""
    fwd = rules.lookup(key, rule.arity, "forward")
    rng = random.Random(3)
    f = primitive(key)
    for _ in range(5):
        xs = point(key, rule.arity, rng)
        out = f(*xs)
        u = [rng.uniform(-1, 1) for _ in xs]
        v = rng.uniform(-1, 1)
        jvp = fwd.func(*xs, out, *u)
        jvp = jvp if rule.arity > 1 else (jvp,)
        vjp = rule.func(*xs, out, v)
        vjp = vjp if rule.arity > 1 else (vjp,)
        left = sum(t for t in jvp if t is not None) * v
        right = sum(ui * t for ui, t in zip(u, vjp) if t is not None)
        assert left == pytest.approx(right, rel=1e-9, abs=1e-12)
        assert [t is None for t in jvp] == [t is None for t in vjp]


def _eval_template(rule, xs, out, seeds):
    names = [f"in{i}" for i in range(rule.arity)]
    counter = iter(range(1000))
    assigns, terms = rule.instantiate(
        [ast.Name(id=n, ctx=ast.Load()) for n in names], ast.Name(id="out", ctx=ast.Load()),
        [ast.Name(id=f"seed{i}", ctx=ast.Load()) for i in range(len(seeds))],
        list(range(rule.arity)), lambda: f"tmp{next(counter)}")
    env = dict(zip(names, xs), out=out, **{f"seed{i}": s for i, s in enumerate(seeds)})
    env.update(rules.helper_objects(rule.template))
    for name, expr in assigns:
        env[name] = eval(compile(ast.Expression(ast.fix_missing_locations(expr)), "<t>", "eval"), env)
    return {i: eval(compile(ast.Expression(ast.fix_missing_locations(e)), "<t>", "eval"), env)
            for i, e in terms.items()}


@pytest.mark.parametrize("key,rule", REV + FWD, ids=ids(REV) + ids(FWD))
def test_inlined_template_equals_rule(key, rule):
    rng = random.Random(4)
    xs = point(key, rule.arity, rng)
    out = primitive(key)(*xs)
    seeds = [0.7] if rule.mode == "reverse" else [0.3 + i for i in range(rule.arity)]
    direct = rule.func(*xs, out, *seeds)
    direct = direct if rule.arity > 1 else (direct,)
    inlined = _eval_template(rule, xs, out, seeds)
    for i, term in enumerate(direct):
        if term is None:
            assert i not in inlined
        else:
            assert inlined[i] == pytest.approx(term, rel=1e-12)


def test_conventions_at_kinks():
    assert reverse_table.abs_(0.0, 0.0, 1.0) == 0.0
    assert reverse_table.min_(1.0, 1.0, 1.0, 1.0) == (1.0, 0.0)  # Python returns the first
    assert reverse_table.max_(1.0, 1.0, 1.0, 1.0) == (1.0, 0.0)
    assert reverse_table.pow_(0.0, 2.0, 0.0, 1.0) == (0.0, 0.0)


def test_fold():
    e = ast.parse("out_bar * 2 * x ** (2 - 1)", mode="eval").body
    assert ast.dump(rules.fold(e)) == ast.dump(ast.parse("out_bar * 2 * x", mode="eval").body)
    e = ast.parse("out_bar * 1", mode="eval").body
    assert ast.dump(rules.fold(e)) == ast.dump(ast.parse("out_bar", mode="eval").body)
    e = ast.parse("-(-x) + 1.0 / 3.0", mode="eval").body
    assert ast.dump(rules.fold(e)) == ast.dump(ast.parse("x + 1.0 / 3.0", mode="eval").body)
