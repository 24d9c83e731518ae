"""The simplify stage's algebra: every rewrite it makes to reverse-sweep arithmetic
gives the same values."""

import ast
import copy
import math
import random

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import s2sad
from s2sad import ir
from s2sad.optimize import common, negations
from helpers import both_modes, central_diff, close, tree_numeric_grad

FLOATS = st.floats(allow_nan=False, allow_infinity=False, width=64,
                   min_value=-1e150, max_value=1e150)
OPS = st.sampled_from([ast.Add, ast.Sub, ast.Mult, ast.Div])


@st.composite
def signed_sums(draw, depth=3):
    """Sums, differences, products and quotients of a, b, c, d with negations
    anywhere: what adjoint blocks are made of."""
    if depth == 0 or draw(st.integers(0, 3)) == 0:
        node = ast.Name(id=draw(st.sampled_from("abcd")), ctx=ast.Load())
    else:
        node = ast.BinOp(left=draw(signed_sums(depth - 1)), op=draw(OPS)(),
                         right=draw(signed_sums(depth - 1)))
    if draw(st.booleans()):
        node = ast.UnaryOp(op=ast.USub(), operand=node)
    return node


def _value(node, env):
    code = compile(ast.fix_missing_locations(ast.Expression(node)), "<lift>", "eval")
    try:
        return eval(code, {}, env)
    except ZeroDivisionError:
        return "ZeroDivisionError"


def _same(x, y):
    """Equal values, NaN where NaN; the sign of a zero may differ (``-(a + b)`` is
    -0.0 where ``(-a) - b`` is 0.0), which nothing linear in an adjoint can see."""
    if isinstance(x, str) or isinstance(y, str):
        return x == y
    if isinstance(x, np.ndarray):
        return np.array_equal(x, y, equal_nan=True)
    return x == y or x != x and y != y


@settings(max_examples=400, deadline=None)
@given(signed_sums(), FLOATS, FLOATS, FLOATS, FLOATS)
def test_lifting_negations_changes_no_bit(node, a, b, c, d):
    negated, lifted = negations._lift(node)
    if negated:
        lifted = ast.UnaryOp(op=ast.USub(), operand=lifted)
    assert negations._negations(lifted) <= negations._negations(node)
    env = dict(a=a, b=b, c=c, d=d)
    assert _same(_value(node, env), _value(lifted, env)), ast.unparse(lifted)
    arrays = {k: np.array([v, -v, 0.0, 1.5]) for k, v in env.items()}
    with np.errstate(all="ignore"):
        assert _same(_value(node, arrays), _value(lifted, arrays)), ast.unparse(lifted)


def test_negations_fold_into_sums_and_augmented_updates():
    def f(x, y, k):
        a = x * y
        b = x - y
        return a * b - k * x

    text = s2sad.source(f, wrt=(0, 1, 2))
    assert "y_bar = y_a_bar - b_bar" in text and text.count(" = -") == 1  # k_bar = -x
    x, y, k = 1.5, -0.25, 2.0
    g = s2sad.grad(f, wrt=(0, 1, 2))(x, y, k)
    assert g == (y * (x - y) + x * y - k, x * (x - y) - x * y, -x)

    def g(x, ks):
        total = 0.0
        for k in ks:
            total += k - x * k
        return total

    text = s2sad.source(g, example=(0.5, [1.0, 2.0]))
    assert "x_bar -= " in text and "+= -" not in text
    assert s2sad.grad(g)(0.5, [1.0, 2.0, 4.0]) == -7.0


def test_loop_saves_what_it_cannot_recompute_and_recomputes_the_rest():
    def newton(a):
        x = a
        while abs(x * x - a) > 1e-12 * a:
            x = 0.5 * (x + a / x)
        return x

    text = s2sad.source(newton)
    assert "tape.append(x_1)" in text and "= a / x_1" in text.split("tape.pop()")[1]
    assert math.isclose(s2sad.grad(newton)(2.0), 0.5 / math.sqrt(2.0), rel_tol=1e-12)


def test_a_divisor_keeps_the_sign_of_its_zero():
    """(-a) - b is +0.0 where a + b is an exact zero, -(a + b) is -0.0: in a divisor
    that is the sign of an infinity, so two negated terms there keep their negations."""
    node = ast.parse("g / (-a - b)", mode="eval").body
    negated, lifted = negations._lift(node)
    lifted = ast.UnaryOp(op=ast.USub(), operand=lifted) if negated else lifted
    env = dict(g=1.0, a=-1.0, b=1.0)
    with np.errstate(all="ignore"):
        want = _value(node, {k: np.float64(v) for k, v in env.items()})
        got = _value(lifted, {k: np.float64(v) for k, v in env.items()})
    assert want == got == np.inf


def _scan_reader(out, i, comments=True):
    """`BlockIndex.reader` as one scan from `out[i]` (the definition it indexes)."""
    n = out[i].targets[0]
    needs = set(ir.names_in(out[i].value))
    for x in out[i + 1:]:
        if x is None:
            continue
        if isinstance(x, ir.Comment):
            if comments:
                continue
            return None
        if ir.blocks(x):
            return None
        j = out.index(x)
        if n in common.reads_of(x):
            return j
        if common._changed_by(x) & needs:
            return None
    return None


def test_block_index_finds_the_reader_a_scan_finds():
    """On random blocks of assignments, updates of elements, comments and branches,
    rewritten and thinned out as the passes do, the index answers what a scan
    through the lines answers."""
    rnd = random.Random(7)
    names = [f"v{k}" for k in range(8)]

    def expr():
        ids = rnd.sample(names, rnd.randint(1, 3))
        return ast.parse(" + ".join(ids), mode="eval").body

    def line():
        r = rnd.random()
        if r < 0.1:
            return ir.Comment("c")
        if r < 0.15:
            return ir.If(ir.name(rnd.choice(names)), [ir.Assign(("z",), expr())], [])
        if r < 0.25:
            target = ast.parse(f"{rnd.choice(names)}[{rnd.choice(names)}]", mode="eval").body
            return ir.AugAssign(target, expr())
        return ir.Assign((rnd.choice(names),), expr())

    for _ in range(200):
        out = [line() for _ in range(rnd.randint(1, 30))]
        index = common.BlockIndex(out)
        for _ in range(20):
            i = rnd.randrange(len(out))
            if not isinstance(out[i], ir.Assign):
                continue
            for comments in (True, False):
                assert index.reader(i, comments) == _scan_reader(out, i, comments)
            j = rnd.randrange(len(out))
            if j != i and isinstance(out[j], ir.Assign) and rnd.random() < 0.5:
                index.drop(j)
            elif isinstance(out[i], ir.Assign):
                out[i].value = expr()  # (a rewrite changes what a line reads)
                index.rewritten(i)


def test_array_temporaries_are_not_held_through_the_reverse_sweep():
    def loss(w, X, y):
        t = -y * (X @ w)
        return np.sum(np.maximum(t, 0.0) + np.log1p(np.exp(-np.abs(t))))

    def layer(W, b, X):
        h = np.tanh(X @ W + b)
        return np.sum(h * h)

    rng = np.random.default_rng(0)
    X, y, w = rng.normal(size=(6, 3)), np.sign(rng.normal(size=6)), rng.normal(size=3)
    text = s2sad.source(loss, example=(w, X, y))
    assert "= np.maximum" not in text  # nothing reads it, and it cannot raise
    W, b = rng.normal(size=(3, 4)), rng.normal(size=4)
    text = s2sad.source(layer, wrt=(0, 1), example=(W, b, X))
    assert "h = np.tanh(X @ W + b)" in text  # not bound to a temporary held to the end
    # a spread number combined with arrays of the shape by broadcasting: no array of ones
    assert "unreduce" not in text
    h = np.tanh(X @ W + b)
    gW, gb = s2sad.grad(layer, wrt=(0, 1))(W, b, X)
    G = 2.0 * h * (1.0 - h * h)
    assert np.allclose(gW, X.T @ G) and np.allclose(gb, G.sum(axis=0))
    z = -y * (X @ w)
    assert np.allclose(s2sad.grad(loss)(w, X, y), (-y / (1.0 + np.exp(-z))) @ X)


def test_an_unread_einsum_goes_only_where_shapes_prove_it_cannot_raise():
    def f(A, V, C):
        out = np.einsum("ij,jd->id", A, V)
        return np.sum(out * C)

    rng = np.random.default_rng(1)
    A, V, C = rng.normal(size=(3, 4)), rng.normal(size=(4, 2)), rng.normal(size=(3, 2))
    text = s2sad.source(f, example=(A, V, C))
    assert "\n    out = " not in text  # C is out's adjoint: nothing reads out
    assert np.allclose(s2sad.grad(f)(A, V, C), C @ V.T)
    bad = rng.normal(size=(5, 2))  # j of length 4 and 5: the function raises
    with pytest.raises(ValueError):
        f(A, bad, C)
    with pytest.raises(ValueError):
        s2sad.grad(f)(A, bad, C)


def test_a_users_array_read_once_by_the_next_line_is_not_held():
    def loss(W, X, Y):
        out = X @ W
        d = out - Y
        return np.sum(d * d)

    rng = np.random.default_rng(2)
    W, X, Y = rng.normal(size=(3, 2)), rng.normal(size=(4, 3)), rng.normal(size=(4, 2))
    text = s2sad.source(loss, example=(W, X, Y))
    assert "d = X @ W - Y" in text  # out is not bound through the reverse sweep
    assert "# line" in text and "out = X @ W" in text  # (its line still named)
    assert np.allclose(s2sad.grad(loss)(W, X, Y), 2.0 * X.T @ (X @ W - Y))
    forward = s2sad.source(loss, mode="forward", example=(W, X, Y))
    assert "out = X @ W" in forward.split("#")[0]  # forward mode holds nothing after

    def shifted(W, X):
        Z = X @ W
        Z = Z - np.max(Z, axis=1, keepdims=True)
        Z = np.exp(Z)  # (the second Z, Z_1, read only here)
        return np.sum(Z * Z)

    text = s2sad.source(shifted, example=(W, X))
    assert "Z_2 = np.exp(Z - t1)" in text and "\n    Z_1 = " not in text


def _forward_sweep(text):
    """The gradient's forward sweep: what comes before its first ``# line`` comment."""
    return text.split("    # line")[0]


def test_a_loop_carried_value_nothing_reads_goes():
    """An accumulator the gradient never reads (grad does not return the value) goes
    from the forward sweep with the phi that carries it, although the sum and the
    copy at the iteration's end read each other; value_and_grad, which returns it,
    keeps it."""
    def loop_sum(x, y):
        acc = 0.0
        for i in range(50):
            acc += math.sin(x * i) * y
        return acc

    def rosenbrock(xs):
        total = 0.0
        for i in range(len(xs) - 1):
            total += 100.0 * (xs[i + 1] - xs[i] ** 2) ** 2 + (1.0 - xs[i]) ** 2
        return total

    shown = _forward_sweep(s2sad.source(loop_sum, wrt=(0, 1)))
    assert "acc" not in shown and "math.sin(x * i)" in shown, shown
    shown = _forward_sweep(s2sad.source(rosenbrock, example=([0.5, 1.2, 0.8],)))
    # (the powers stay: a float's ``** 2`` may raise OverflowError, and so the
    # gradient does where the function does)
    assert "total" not in shown and "** 2" in shown, shown
    both_modes(loop_sum, (0.7, 1.3))
    xs = [0.5, 1.2, 0.8, -0.3]
    got = s2sad.grad(rosenbrock)(xs)
    assert close(got, central_diff(rosenbrock, (xs,), 0), 1e-5, 1e-5), got
    assert s2sad.value_and_grad(rosenbrock)(xs) == (rosenbrock(xs), got)
    value, grads = s2sad.value_and_grad(loop_sum, wrt=(0, 1))(0.7, 1.3)
    assert value == loop_sum(0.7, 1.3) and grads == s2sad.grad(loop_sum, wrt=(0, 1))(0.7, 1.3)
    with pytest.raises(OverflowError):
        rosenbrock([1e200, 1.0])
    with pytest.raises(OverflowError):
        s2sad.grad(rosenbrock)([1e200, 1.0])


def test_an_array_read_within_its_length_and_recomputed_by_the_reverse_goes():
    """``x[i]`` with `i` over ``range(len(x))``, `x` an array nothing writes into,
    cannot raise; the reverse sweep recomputes it before reading it, so the forward
    loop that only read it goes. A list's read stays (it may be something else with
    a length, and its items could raise nothing only if it is a list)."""
    def squares(x):
        return sum(x[i] * x[i] for i in range(len(x)))

    shown = _forward_sweep(s2sad.source(squares, example=(np.array([1.0, 2.0]),)))
    assert "for " not in shown and "len(x)" in shown, shown
    shown = _forward_sweep(s2sad.source(squares, example=([1.0, 2.0],)))
    assert "x[i]" in shown, shown
    x = np.array([0.3, -1.2, 2.0])
    assert np.allclose(s2sad.grad(squares)(x), 2 * x)
    assert s2sad.value_and_grad(squares)(x)[0] == squares(x)


def test_a_branch_whose_branches_all_went_goes_with_its_test():
    """A branch holding only branches whose lines went is dead as a whole: it goes,
    and so does the comparison its test read (numbers compare without raising). Kept,
    it read a test the dead lines took with them: the checkpointed step of a
    ``while`` whose test holds a conditional expression raised a NameError."""
    def nested(x, y):
        t = x * 2.0
        if y > 0.5 * x:
            if x > 1.0:
                z = x * 3.0
            else:
                z = x - 1.0
        return t * y

    shown = _forward_sweep(s2sad.source(nested))
    assert "if" not in shown and ">" not in shown, shown
    assert s2sad.grad(nested)(3.0, 0.7) == pytest.approx(1.4)

    def guarded(x, y):
        acc = x
        n = 0
        while n < 4 and (0.5 * acc if y > 0.2 else y) < 2.5:
            n += 1
            acc += x * y
        return acc

    for args in [(0.5, 0.7), (0.5, 0.1), (2.0, 0.3)]:
        expected = s2sad.grad(guarded, wrt=(0, 1))(*args)
        assert np.allclose(s2sad.grad(guarded, wrt=(0, 1), checkpoint="ctz")(*args),
                           expected), args
        assert np.allclose(expected, [tree_numeric_grad(guarded, args, k) for k in (0, 1)],
                           rtol=1e-6), args


def test_dead_accumulators_go_in_nested_and_while_loops_and_with_their_readers():
    """Nested loops, a ``while`` loop, several accumulators, one read only by a
    line that goes itself, a tuple of them: the forward sweep keeps what may raise
    (``math.sin``) and what the reverse sweep reads (the while loop's counter), and
    nothing else; a loop left with nothing to do goes too."""
    def nested(x, y):
        acc = 0.0
        for i in range(3):
            for j in range(4):
                acc = acc + math.sin(x * i + y * j)
        return acc

    def counted(x):
        acc = 0.0
        k = 0
        while k < 5:
            acc = acc + x * k
            k += 1
        return acc

    def several(x, y):
        a = 0.0
        b = 1.0
        pair = (0.0, 0.0)
        for i in range(5):
            for j in range(i):
                a = a + x * j
                b = b * y + a
                pair = (a, b)
        last = b * 2.0 + pair[0]  # noqa: F841  (read by nothing)
        return x * y + a

    def carried_pair(x, y):
        pair = (0.0, 1.0)
        for i in range(5):
            u, v = pair
            pair = (u + x * i, v * y)
        last = pair[1] * 2.0  # noqa: F841
        return x * y

    shown = _forward_sweep(s2sad.source(nested, wrt=(0, 1)))
    assert "acc" not in shown and "math.sin" in shown, shown
    shown = _forward_sweep(s2sad.source(counted))
    assert "acc" not in shown and "while k" in shown, shown
    shown = _forward_sweep(s2sad.source(several, wrt=(0, 1), example=(0.5, 1.5)))
    assert shown.strip().endswith("def several_grad(x, y):"), shown
    shown = _forward_sweep(s2sad.source(carried_pair, wrt=(0, 1)))
    assert shown.strip().endswith("def carried_pair_grad(x, y):"), shown
    cases = ((nested, (0.7, 1.3)), (counted, (0.7,)), (several, (0.7, 1.3)),
             (carried_pair, (0.7, 1.3)))
    for f, args in cases:
        both_modes(f, args)
    for f, args in cases:
        wrt = tuple(range(len(args)))
        value, grads = s2sad.value_and_grad(f, wrt=wrt)(*args)
        assert value == f(*args) and grads == s2sad.grad(f, wrt=wrt)(*args)


def test_a_dead_cycle_with_a_line_that_may_raise_stays():
    """A loop-carried value nothing reads stays when a line of its cycle, or a line
    reading it, may raise: the gradient raises where the function does."""
    def power(x, n):
        p = 1.0 + x
        for i in range(n):
            p = p ** 2
        return 2.0 * x

    def root(x):
        acc = 0.0
        for i in range(4):
            acc = acc + x
            r = math.sqrt(acc)  # noqa: F841  (may raise: it stays)
        return 3.0 * x

    assert "p_1**2" in _forward_sweep(s2sad.source(power, example=(1.0, 3)))
    assert "math.sqrt(acc" in _forward_sweep(s2sad.source(root))
    assert s2sad.grad(power)(1.0, 3) == 2.0 and s2sad.grad(root)(1.0) == 3.0
    for f, args, error in ((power, (1.0, 12), OverflowError), (root, (-1.0,), ValueError)):
        with pytest.raises(error):
            f(*args)
        with pytest.raises(error):
            s2sad.grad(f)(*args)


def test_a_checkpointed_loops_dead_accumulator_keeps_its_value():
    """A checkpointed loop's state is what its step returns: an accumulator in it
    stays, and value_and_grad returns it."""
    def ck(x):
        acc = 0.0
        s = x
        for i in s2sad.checkpointed(range(6), snapshots=2):
            s = math.sin(s) * 1.1
            acc = acc + s
        return acc

    got = both_modes(ck, (0.7,))
    value, grad = s2sad.value_and_grad(ck)(0.7)
    assert value == ck(0.7) and close(grad, got[0], 1e-12, 1e-12)


def test_adjoints_that_only_each_other_read_go():
    """The reverse sweep's `drop_dead` drops a cycle of assignments inside a loop
    that nothing outside it reads (a count of reads never frees either line)."""
    from s2sad.optimize import dead
    from s2sad.optimize.context import Context

    def line(text):
        target, value = text.split(" = ")
        return ir.Assign((target,), ast.parse(value, mode="eval").body)

    loop = ir.ForEach("i", ast.parse("range(3)", mode="eval").body,
                      [line("a_bar = b_bar * 2.0"), line("b_bar = a_bar + g"),
                       ir.AugAssign("x_bar", ast.parse("g * i", mode="eval").body)])
    reverse = [line("b_bar = 1.0"), line("x_bar = 0.0"), loop]
    out = dead.drop_dead([], reverse, Context(keep=frozenset({"x_bar"})))
    kept = [s.targets[0] if isinstance(s, ir.Assign) else s.target for s in ir.walk(out)
            if isinstance(s, (ir.Assign, ir.AugAssign))]
    assert kept == ["x_bar", "x_bar"], kept


def _name(draw, names="abcd"):
    node = ast.Name(id=draw(st.sampled_from(names)), ctx=ast.Load())
    if draw(st.booleans()):  # (a name the parser made carries its position)
        node.lineno, node.col_offset, node.end_lineno, node.end_col_offset = 1, 0, 1, 1
    return node


@st.composite
def expressions(draw, depth=3, names="abcd"):
    """The IR's expressions: names, literals, operators, negations, calls of a
    dotted function (one with a keyword), subscripts and comparisons, nested."""
    if depth == 0 or draw(st.integers(0, 4)) == 0:
        if draw(st.integers(0, 3)) == 0:
            return ast.Constant(draw(st.sampled_from([1, 1.0, True, "s"])))
        return _name(draw, names)
    kind = draw(st.integers(0, 5))
    inner = expressions(depth - 1, names)
    if kind == 0:
        return ast.UnaryOp(op=ast.USub(), operand=draw(inner))
    if kind == 1:
        func = ast.Attribute(value=ast.Name(id="math", ctx=ast.Load()),
                             attr=draw(st.sampled_from(["sin", "exp"])), ctx=ast.Load())
        keywords = [ast.keyword(arg="k", value=draw(inner))] if draw(st.booleans()) else []
        return ast.Call(func=func, args=[draw(inner)], keywords=keywords)
    if kind == 2:
        return ast.Subscript(value=_name(draw, names), slice=draw(inner), ctx=ast.Load())
    if kind == 3:
        return ast.Compare(left=draw(inner), ops=[ast.Lt()], comparators=[draw(inner)])
    return ast.BinOp(left=draw(inner), op=draw(st.sampled_from([ast.Add, ast.Mult]))(),
                     right=draw(inner))


@st.composite
def alike_pairs(draw):
    """Two expressions of two names, often of one shape, sometimes the same."""
    a = draw(expressions(depth=2, names="ab"))
    if draw(st.booleans()):
        return a, draw(expressions(depth=2, names="ab"))
    b = copy.deepcopy(a)  # (the same tree, one operator, name or literal changed)
    nodes = [n for n in ast.walk(b) if isinstance(n, (ast.BinOp, ast.Name, ast.Constant))]
    n = nodes[draw(st.integers(0, len(nodes) - 1))]
    if isinstance(n, ast.BinOp):
        n.op = ast.Mult() if isinstance(n.op, ast.Add) else ast.Add()
    elif isinstance(n, ast.Name):
        n.id = "b" if n.id == "a" else "a"
    else:
        n.value = draw(st.sampled_from([1, 1.0, True, "s"]))
    return a, b


@settings(max_examples=400, deadline=None)
@given(alike_pairs())
def test_expr_key_tells_trees_apart_as_ast_dump_does(pair):
    """`ir.expr_key` (its common nodes taken inline) gives two trees one key exactly
    when `ast.dump` prints them the same."""
    a, b = pair
    assert (ir.expr_key(a) == ir.expr_key(b)) == (ast.dump(a) == ast.dump(b))
    assert ir.expr_key(a) == ir.expr_key(copy.deepcopy(a))


class _Substituted(ast.NodeTransformer):
    """What `ir.substitute` gives, by its definition: a copy of the tree with each
    name in the mapping renamed (a string) or replaced by a copy of an expression."""

    def __init__(self, mapping):
        self.mapping = mapping

    def visit_Name(self, n):
        new = self.mapping.get(n.id)
        if new is None:
            return n
        return ast.Name(id=new, ctx=n.ctx) if isinstance(new, str) else copy.deepcopy(new)


@settings(max_examples=400, deadline=None)
@given(expressions(), st.dictionaries(st.sampled_from("abcd"), st.one_of(
    st.sampled_from(["p", "q"]), expressions(depth=1))))
def test_substitute_gives_the_tree_its_definition_gives(node, mapping):
    """`ir.substitute` (its common nodes copied inline) gives the transformer's tree,
    positions included, and leaves the tree it was given as it was."""
    before = ast.dump(node, include_attributes=True)
    expected = _Substituted(mapping).visit(copy.deepcopy(node))
    got = ir.substitute(node, mapping)
    assert ast.dump(got, include_attributes=True) == \
        ast.dump(expected, include_attributes=True)
    assert ast.dump(node, include_attributes=True) == before
    if any(n in mapping for n in ir.names_in(node)):  # (else the tree itself)
        shared = (ast.expr_context, ast.operator, ast.unaryop, ast.cmpop)
        assert not {id(x) for x in ast.walk(got)} & {
            id(x) for x in ast.walk(node) if not isinstance(x, shared)}


def test_a_product_by_a_unit_adjoint_is_the_array_only_where_every_reader_copies_it():
    """`unit_products` reads ``y_bar = one_bar * C`` as ``C`` where every expression
    reading `y_bar` makes a new array of it; a copy, a return or an `unbroadcast` to
    an operand of its own rank keeps the product. Candidates are decided in order:
    one rewritten into a plain copy of another makes that one a copy's source."""
    from s2sad.optimize import arithmetic
    from s2sad.optimize.context import Context, NameKinds

    arrays = {"C", "D", "w", "x", "y", "z", "y%bar", "z%bar", "w%bar", "v%bar", "u%bar"}
    kinds = NameKinds(is_float=lambda n: n == "s", is_int=lambda n: False,
                      array=lambda n: n in arrays, rank=lambda n: 2 if n in arrays else None,
                      same_shape=lambda a, b: False, broadcastable=lambda a, b: False,
                      unary_ufunc=lambda n: False, total=lambda n: False)

    def line(text):  # (an IR name's % written __ for the parser)
        target, value = text.split(" = ")
        value = ast.parse(value.replace("%", "__"), mode="eval").body
        ir.rename_in_place(value, {n: n.replace("__", "%") for n in ir.names_in(value)})
        return ir.Assign((target,), value)

    reverse = [line("one%bar = 1.0"),
               line("y%bar = one%bar * C"),  # read by arithmetic only: becomes C
               line("z%bar = C * one%bar"),  # copied: stays
               line("w%bar = one%bar * D"),  # summed to its own rank: stays
               line("v%bar = one%bar * u%bar"),  # decided before u%bar
               line("u%bar = one%bar * C"),
               line("a = y%bar * s - (-y%bar)"),
               line("b = z%bar"),
               line("c = unbroadcast(w%bar, x)"),
               line("d = v%bar * 2.0")]
    out = arithmetic.unit_products(reverse, Context(kinds=kinds))
    got = {s.targets[0]: ast.unparse(s.value) for s in out}
    assert got["a"] == "y%bar * s - -y%bar"  # (the names as they are)
    assert got["y%bar"] == "C"
    assert got["z%bar"] == "C * one%bar"
    assert got["w%bar"] == "one%bar * D"
    # v%bar: read by arithmetic only, so it is u%bar; then u%bar is copied by v%bar's
    # new line, so it stays a product
    assert got["v%bar"] == "u%bar"
    assert got["u%bar"] == "one%bar * C"
