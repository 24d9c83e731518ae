"""Every stage up to dup (and the activity text) still runs and returns what the
user's function returns; the dup form reads every name at most once."""

import ast

import pytest

import s2sad
import zoo
from s2sad import activity, ir, pipeline
from stagerun import run_stage

CASES = [(f, args, wrt) for f, args, wrt in zoo.ZOO]
IDS = [f"{f.__name__}{args}" for f, args, _ in CASES]


@pytest.mark.parametrize("stage", ["anf", "dup", "activity"])
@pytest.mark.parametrize("f,args,wrt", CASES, ids=IDS)
def test_stage_runs_and_agrees(stage, f, args, wrt):
    got, _ = run_stage(f, stage, args, wrt)
    assert got == f(*args)


def _reads_per_path(body, is_local):
    """Max number of reads of each name along any path."""
    counts = {}

    def add(into, name, k=1):
        into[name] = into.get(name, 0) + k

    def block(stmts):
        c = {}
        for s in stmts:
            if isinstance(s, ir.If):
                for n in ir.local_reads(s.test, is_local):
                    add(c, n)
                a, b = block(s.body), block(s.orelse)
                for n in set(a) | set(b):
                    add(c, n, max(a.get(n, 0), b.get(n, 0)))
            else:
                values = []
                if isinstance(s, (ir.Assign, ir.Expr, ir.Return)):
                    values = [s.value]
                elif isinstance(s, ir.Dup):
                    values = [ir.name(s.source)]
                for v in values:
                    for n in ir.local_reads(v, is_local):
                        add(c, n)
        return c

    counts = block(body)
    return counts


@pytest.mark.parametrize("f,args,wrt", CASES, ids=IDS)
def test_dup_form_reads_each_name_once(f, args, wrt):
    fr = pipeline.front(f)
    locals_ = ir.local_names(fr.dup)
    counts = _reads_per_path(fr.dup.body, lambda n: n in locals_)
    assert all(k == 1 for k in counts.values()), counts


@pytest.mark.parametrize("f,args,wrt", CASES, ids=IDS)
def test_anf_form_has_one_operation_per_line(f, args, wrt):
    fr = pipeline.front(f)
    locals_ = ir.local_names(fr.anf)

    def is_atom(node):
        if isinstance(node, ast.Constant):
            return True
        if isinstance(node, ast.Name):
            return True
        return ir.dotted(node) is not None and ir.dotted(node).split(".")[0] not in locals_

    for s in ir.walk(fr.anf.body):
        if isinstance(s, (ir.Assign, ir.Expr)):
            for child in ast.iter_child_nodes(s.value):
                if isinstance(child, (ast.expr_context, ast.operator, ast.cmpop, ast.unaryop)):
                    continue
                if isinstance(child, ast.keyword):
                    child = child.value
                if isinstance(s.value, ast.Call) and child is s.value.func:
                    continue
                if isinstance(s.value, ast.Attribute):
                    continue
                assert is_atom(child), ast.dump(s.value)
        if isinstance(s, (ir.If, ir.Return)):
            node = s.test if isinstance(s, ir.If) else s.value
            assert is_atom(node)


@pytest.mark.parametrize("f,args,wrt", CASES, ids=IDS)
def test_anf_is_ssa(f, args, wrt):
    """Each name is assigned at most once on any path."""
    fr = pipeline.front(f)

    def block(stmts, seen):
        for s in stmts:
            if isinstance(s, ir.If):
                a, b = set(seen), set(seen)
                block(s.body, a)
                block(s.orelse, b)
                seen |= a | b
                continue
            for t in ir.defined_names(s):
                assert t not in seen, t
                seen.add(t)

    block(fr.anf.body, {p.name for p in fr.anf.params})


def test_activity_excludes_ints_and_conditions():
    fr = pipeline.front(zoo.int_arg)
    act = activity.analyze(fr.dup, ("x",), {"x": "scalar", "n": "int"})
    assert "n" not in act.active
    assert all(not n.startswith("n") for n in act.active)
    fr = pipeline.front(zoo.branches)
    act = activity.analyze(fr.dup, ("x", "y"))
    tests = [s.test.id for s in ir.walk(fr.dup.body) if isinstance(s, ir.If)]
    assert tests and not set(tests) & act.active


def test_activity_text_names_active_variables():
    text = s2sad.source(zoo.seed_z, stage="activity", wrt="x")
    assert "# active: x, x_a, x_b, t1, t2, z" in text
    assert "y" not in text.split("# active:")[1].splitlines()[0]
