"""The printer: valid Python, black's style, stable names, every AST node classified."""

import ast

import black
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from s2sad import ir
from s2sad.backend import emit
from s2sad.frontend import parse

NAMES = st.sampled_from(["x", "y", "out_bar", "t1", "a.b", "math.pi"])
NUMBERS = st.one_of(st.integers(-5, 5), st.floats(-10, 10, allow_nan=False).map(lambda v: round(v, 3)),
                    st.sampled_from([1e-05, 2.5e20]))
BINOPS = st.sampled_from([ast.Add, ast.Sub, ast.Mult, ast.Div, ast.FloorDiv, ast.Mod, ast.Pow])
UNARY = st.sampled_from([ast.USub, ast.UAdd, ast.Not])
CMPOPS = st.sampled_from([ast.Lt, ast.GtE, ast.Eq, ast.IsNot])


def _leaf(draw_name):
    return draw_name


@st.composite
def expressions(draw, depth=3):
    if depth == 0 or draw(st.integers(0, 3)) == 0:
        if draw(st.booleans()):
            text = draw(NAMES)
            return ast.parse(text, mode="eval").body
        return ast.Constant(draw(NUMBERS))
    kind = draw(st.integers(0, 6))
    sub = lambda: draw(expressions(depth=depth - 1))  # noqa: E731
    if kind <= 2:
        return ast.BinOp(left=sub(), op=draw(BINOPS)(), right=sub())
    if kind == 3:
        return ast.UnaryOp(op=draw(UNARY)(), operand=sub())
    if kind == 4:
        return ast.Call(func=ast.parse("math.sin", mode="eval").body, args=[sub(), sub()],
                        keywords=[ast.keyword(arg="axis", value=sub())])
    if kind == 5:
        return ast.IfExp(test=sub(), body=sub(), orelse=sub())
    return ast.Compare(left=sub(), ops=[draw(CMPOPS)()], comparators=[sub()])


def normalized(node):
    """The tree Python parses from the printed text: negative literals are unary minus."""
    import copy
    import math

    class _N(ast.NodeTransformer):
        def visit_Constant(self, n):
            v = n.value
            if isinstance(v, (int, float)) and not isinstance(v, bool) and math.copysign(1, v) < 0:
                return ast.UnaryOp(op=ast.USub(), operand=ast.Constant(-v))
            return n

    return _N().visit(copy.deepcopy(node))


def printed(node):
    return emit._hug_powers(emit.ExprPrinter(emit.Namer())(node))


@settings(max_examples=400, deadline=None)
@given(expressions())
def test_printed_expression_parses_back_to_the_same_tree(node):
    text = printed(node)
    back = ast.parse(text, mode="eval").body
    assert ast.dump(back) == ast.dump(normalized(node))


@settings(max_examples=400, deadline=None)
@given(expressions())
def test_printed_expression_is_in_black_style(node):
    line = f"v = {printed(node)}\n"
    if len(line) > 88:
        return
    assert black.format_str(line, mode=black.Mode()) == line


@pytest.mark.parametrize("text", [
    "x[1:2]", "x[::-1]", "x[a + 1 : b]", "x[:, 0]", "x[i, j]", "x[-n:]", "x[a.b : c]",
    "x[1:]", "x[: a + 1]", "(a,)", "()", "f(a, *b)", "-(x**2)", "(-3.0) ** x", "2**-x",
    "a**b**c", "(a**b) ** c", "x.y**-1", "not a", "a if b else c", "(1).real",
])
def test_selected_expressions_match_black(text):
    node = ast.parse(text, mode="eval").body
    line = f"v = {printed(node)}\n"
    assert black.format_str(line, mode=black.Mode()) == line
    assert ast.dump(ast.parse(printed(node), mode="eval").body) == ast.dump(node)


def test_namer_renders_compiler_names_and_avoids_user_names():
    namer = emit.Namer({"t1", "x_bar"})
    assert namer("%7") == "t2"
    assert namer("%3") == "t3"
    assert namer("%7%bar") == "t2_bar"
    assert namer("x%bar") == "x_bar_"
    assert namer("x%1") == "x_1"
    assert namer("x%1%a%bar") == "x_1_a_bar"
    assert namer("%result") == "result"
    assert namer("x") == "x"


def test_constants():
    assert printed(ast.Constant(float("inf"))) == 'float("inf")'
    assert printed(ast.Constant(float("nan"))) == 'float("nan")'
    assert printed(ast.Constant("it's")) == '"it\'s"'
    assert printed(ast.Constant('say "hi"')) == "'say \"hi\"'"
    assert printed(ast.Constant(-2.5)) == "-2.5"
    assert printed(ast.BinOp(left=ast.Constant(-2.5), op=ast.Pow(), right=ast.Name("x"))) == "(-2.5) ** x"


def test_every_ast_node_type_is_classified():
    deprecated = {"Num", "Str", "Bytes", "NameConstant", "Ellipsis"}
    for name in dir(ast):
        obj = getattr(ast, name)
        if isinstance(obj, type) and issubclass(obj, ast.AST) and name not in deprecated \
                and not name.startswith("_"):
            assert obj in parse.SUPPORTED or obj in parse.REFUSED or obj in parse.IGNORED, name


def test_statements_print_in_black_style():
    fn = ir.Function("f%grad", [ir.Param("x"), ir.Param("k", ast.Constant(2.0), kwonly=True)], [
        ir.Assign(("%1",), ast.BinOp(left=ir.name("x"), op=ast.Mult(), right=ir.name("x"))),
        ir.Dup(("x%a", "x%b", "x%c"), "x"),
        ir.If(ir.name("%1"), [ir.Comment("line 3: y = x")], [ir.AugAssign("x%bar", ir.const(1.0))]),
        ir.Assign(("a", "b"), ir.name("%1"), unpack=True),
        ir.Assign(("a",), ir.name("%1"), unpack=True),
        ir.Return(ast.Tuple(elts=[ir.name("a"), ir.name("b")], ctx=ast.Load())),
    ])
    text = emit.emit_function(fn).text
    assert black.format_str(text, mode=black.Mode()) == text
    assert "x_a, x_b, x_c = dup(x, 3)" in text
    assert "def f_grad(x, *, k=2.0):" in text
    assert "a, = t1" in text or "(a,) = t1" in text
