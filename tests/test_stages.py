"""Every stage up to dup (and the activity text) still runs and returns what the
user's function returns; the dup form reads every name at most once."""

import ast
import math

import pytest

import s2sad
import zoo
import zoo_loops
import zoo_numpy
from s2sad import ir
from s2sad.analysis import activity
from s2sad.frontend import desugar, parse, program
from s2sad.driver import stages
from stagerun import run_stage

CASES = [(f, args, wrt) for f, args, wrt in zoo.ZOO]
IDS = [f"{f.__name__}{args}" for f, args, _ in CASES]


@pytest.mark.parametrize("stage", ["anf", "dup", "activity"])
@pytest.mark.parametrize("f,args,wrt", CASES, ids=IDS)
def test_stage_runs_and_agrees(stage, f, args, wrt):
    got, _ = run_stage(f, stage, args, wrt)
    assert got == f(*args)


def _most(*counts):
    out = {}
    for c in counts:
        for n, k in (c or {}).items():
            out[n] = max(out.get(n, 0), k)
    return out


def _plus(a, b):
    out = dict(a)
    for n, k in b.items():
        out[n] = out.get(n, 0) + k
    return out


class _ReadCounter:
    """The dup form's invariant, checked without dup's own code: along every path,
    every local name is read at most once, and one iteration of a loop (its
    condition, test and body, up to its `Exit`) is a path of its own, in which the
    loop-carried values, the target and the outer names it reads are each read at
    most once. Item writes (``x[i] = v``) read the container, the index and the
    value; an `Exit`'s copies read what they pass on."""

    def __init__(self, is_local):
        self.is_local = is_local
        self.too_many = []  # (where, counts) of each path with a name read twice

    def reads(self, nodes):
        out = {}
        for node in nodes:
            for n in ir.local_reads(node, self.is_local):
                out[n] = out.get(n, 0) + 1
        return out

    def block(self, stmts):
        """(most reads per name on paths that leave the block at its end, or None when
        none does; most reads per name on paths that end inside it)"""
        fall, ended = {}, {}
        for s in stmts:
            if isinstance(s, ir.If):
                fall = _plus(fall, self.reads([s.test]))
                arms = [self.block(s.body), self.block(s.orelse)]
                ended = _most(ended, *(_plus(fall, e) for _, e in arms))
                going = [f for f, _ in arms if f is not None]
                if not going:
                    return None, ended
                fall = _plus(fall, _most(*going))
            elif isinstance(s, ir.Loop):
                fall = _plus(fall, self.reads(ir.exprs(s)))
                test = [ir.Expr(s.test)] if s.test is not None else []
                through, out = self.block(s.cond + test + s.body)
                one = _most(through, out)
                self.check(one, f"an iteration of the loop at line {s.line}")
                inside = ir.all_defined(s.cond + s.body) | set(ir.defined_names(s))
                fall = _plus(fall, {n: 1 for n in one if n not in inside})
            elif isinstance(s, (ir.Exit, ir.Return)):
                own = [c.value for c in s.copies] if isinstance(s, ir.Exit) else [s.value]
                return None, _most(ended, _plus(fall, self.reads(own)))
            else:
                fall = _plus(fall, self.reads(ir.exprs(s)))
        return fall, ended

    def check(self, counts, where):
        if any(k > 1 for k in counts.values()):
            self.too_many.append((where, {n: k for n, k in counts.items() if k > 1}))

    def function(self, fn):
        fall, ended = self.block(fn.body)
        self.check(_most(fall, ended), "the function body")
        return self.too_many


DUP_CASES = CASES + [(f, args, wrt) for f, args, wrt in zoo_loops.ZOO + zoo_numpy.ZOO]


@pytest.mark.parametrize("f,args,wrt", DUP_CASES,
                         ids=[f"{f.__name__}{i}" for i, (f, _, _) in enumerate(DUP_CASES)])
def test_dup_form_reads_each_name_once(f, args, wrt):
    fr = program.front(f)
    locals_ = ir.local_names(fr.dup)
    assert _ReadCounter(lambda n: n in locals_).function(fr.dup) == []


@pytest.mark.parametrize("f,args,wrt", CASES, ids=IDS)
def test_anf_form_has_one_operation_per_line(f, args, wrt):
    fr = program.front(f)
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
    fr = program.front(f)

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
    fr = stages.front(zoo.int_arg)
    act = activity.analyze(fr.dup, ("x",), {"x": "scalar", "n": "int"})
    assert "n" not in act.active
    assert all(not n.startswith("n") for n in act.active)
    fr = stages.front(zoo.branches)
    act = activity.analyze(fr.dup, ("x", "y"))
    tests = [s.test.id for s in ir.walk(fr.dup.body) if isinstance(s, ir.If)]
    assert tests and not set(tests) & act.active


def test_activity_text_names_active_variables():
    text = s2sad.source(zoo.seed_z, stage="activity", wrt="x")
    assert "# active: x, x_a, x_b, t1, t2, z" in text
    assert "y" not in text.split("# active:")[1].splitlines()[0]


def test_read_counter_fails_on_a_second_read_in_a_loop_or_an_item_write():
    """The checker itself: the ANF form (before dup) of a function that reads a name
    twice inside a loop body, and of one whose item write reads a name twice, fails
    it, and says where."""
    for f, where in ((_twice_in_loop, "loop"), (_twice_in_item_write, "function"),
                     (_twice_in_exit, "loop"), (_twice_after_branch, "function")):
        fr = program.front(f)
        locals_ = ir.local_names(fr.anf)
        problems = _ReadCounter(lambda n: n in locals_).function(fr.anf)
        assert any(where in w for w, _ in problems), (f.__name__, problems)
        dupped = program.front(f).dup
        locals_ = ir.local_names(dupped)
        assert _ReadCounter(lambda n: n in locals_).function(dupped) == [], f.__name__


def _twice_in_loop(x, n):
    acc = 0.0
    for i in range(n):
        acc = acc + x * x
    return acc


def _twice_in_item_write(x, n):
    y = [x] * n
    y[n - 1] = n
    return y[0]


def _twice_in_exit(x, n):
    acc = x
    for i in range(n):
        if acc > 3.0:
            acc = acc * acc
            break
        acc = acc + 1.0
    return acc


def _twice_after_branch(x):
    if x > 0.0:
        y = x * 2.0
    else:
        y = x
    return y * y


# ------------------------------------------------------------ desugar and program


def _returns_early(x, n):
    """A docstring, which desugar drops."""
    if x < 0.0:
        return -x
    for i in range(n):
        if x > 10.0:
            return x
        x = x * 2.0
    y = x + 1.0
    return y


def _returns_in_two_loops(x, n):
    for i in range(n):
        if x > 1.0:
            return x
    for i in range(n):
        x = x + 1.0
    return x


def _returns_in_nested_loop(x, n):
    for i in range(n):
        for j in range(n):
            if x * i * j > 1.0:
                return x * j
        x = x + 0.5
    return x


def _ends_on_every_path(stmts, kinds):
    last = stmts[-1]
    if isinstance(last, ast.If):
        return _ends_on_every_path(last.body, kinds) and _ends_on_every_path(last.orelse, kinds)
    return isinstance(last, kinds)


def test_desugar_leaves_returns_last_and_none_in_loops():
    for f in (_returns_early, _returns_in_two_loops, _returns_in_nested_loop):
        parsed = parse.parse(f)
        before = ast.dump(parsed.tree, include_attributes=True)
        tree = desugar.desugar(parsed)
        assert ast.dump(parsed.tree, include_attributes=True) == before  # (left as it was)
        assert tree.name == f.__name__ and tree.args is parsed.tree.args
        assert not (isinstance(tree.body[0], ast.Expr) and isinstance(tree.body[0].value, ast.Constant))
        assert _ends_on_every_path(tree.body, ast.Return)
        for node in ast.walk(tree):
            if isinstance(node, (ast.For, ast.While)):
                assert not any(isinstance(n, ast.Return) for n in ast.walk(node))
            if isinstance(node, (ast.stmt, ast.expr)):
                assert node.lineno >= f.__code__.co_firstlineno
        module = ast.Module(body=[tree], type_ignores=[])
        ns = dict(f.__globals__)
        exec(compile(ast.fix_missing_locations(
            _plain_names(module)), "<desugared>", "exec"), ns)
        for args in ((-2.0, 3), (0.5, 3), (0.5, 0), (3.0, 4)):
            assert ns[f.__name__](*args) == f(*args), (f.__name__, args)


def _plain_names(tree):
    """`%retval` and `%returned` spelled as Python names, to run a desugared tree."""
    for node in ast.walk(tree):
        if isinstance(node, ast.Name):
            node.id = node.id.replace("%", "_s2sad_")
    return tree


def _callee(x):
    return x * x


def _caller(x):
    y = _callee(x) + math.sin(x)
    return _callee(y)


def test_program_lowers_each_function_once():
    prog = program.Program()
    root = prog.function(_caller)
    assert root is prog.function(_caller) and root.func is _caller
    assert root.info.qualname == "_caller" and root.info.filename == __file__
    assert root.dup.name == root.anf.name == "_caller"
    assert list(prog.fronts) == [_caller]  # (a callee is lowered only when asked for)
    first = prog.function(_callee)
    assert prog.function(_callee) is first and list(prog.fronts) == [_caller, _callee]
    assert [p.name for p in first.dup.params] == ["x"]


def _deletes(x):
    y = x * 2.0
    del y
    return x


def test_program_keeps_no_function_that_fails_to_lower():
    prog = program.Program()
    for _ in range(2):
        with pytest.raises(s2sad.UnsupportedSyntaxError):
            prog.function(_deletes)
    assert prog.fronts == {}


def test_the_copies_of_a_value_read_many_times_take_no_derived_name():
    """The dup stage names the copies of a value read n times ``x%a``, ``x%b``... and
    its 1,396th ``x%bar``, the name reverse mode gives the value's adjoint: the
    gradient of a parameter read 2,000 times was the parameter itself (0.7 where
    0.144 is right). Copies skip the suffixes later stages derive names with."""
    from s2sad.frontend.dup import _RESERVED, _Splitter

    names = _Splitter(["k"]).copies("k", 20_000)
    assert len(set(names)) == 20_000
    assert not {n.partition("%")[2] for n in names} & _RESERVED
    assert "k%bar" not in names and "k%dot" not in names and "k%part" not in names
