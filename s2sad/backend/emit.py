"""emit: IR -> Python source text.

Contract
--------
`emit_module(module)` and `emit_function(fn)` print IR as Python source that

* is deterministic to the byte: the same IR gives the same text on every run and
  every supported Python version (this printer never calls ``ast.unparse``);
* is already in black's style for everything the compiler produces (spaces,
  hugged simple ``**`` operands, parentheses black would add or drop, double-quoted
  strings, two blank lines between top-level definitions), so black leaves it
  unchanged except for lines longer than 88 characters;
* turns compiler-made names (those containing ``%``, see `ir`) into readable
  identifiers: temporaries ``t1, t2, ...`` in order of first appearance, SSA
  versions ``x_1``, dup copies ``x_a``, adjoints ``x_bar``, tangents ``x_dot``
  (and ``r1, r2, ...`` for the names `reuse` shares between values), none of which
  collides with a name the user's code uses.

`emit_module(module, namer, renames)` prints a function named in `renames` (IR
function name -> `reuse.shared_names`) with each name it maps spelt as the name it
shares, and without the copies ``x = x`` that leaves (`reuse.without_self_copies`): the
IR itself is not changed.

`Printed.line_map` maps each emitted line number (1-based) to the user's line
number the statement came from (0 where there is none).
"""

from __future__ import annotations

import ast
import io
import math
import re
import tokenize
from dataclasses import dataclass, field

from .. import ir
from ..ir.operators import BINOP_SYMBOL
from . import reuse
from .imports import module_imports  # noqa: F401  (re-exported: the driver asks emit)
from .kept import is_release, kept_lines, own_names

# Operator precedence, loosest first.
_IFEXP, _OR, _AND, _NOT, _CMP, _BOR, _BXOR, _BAND, _SHIFT, _ARITH, _TERM, _FACTOR, _POW, _ATOM = range(2, 16)

_BINOP_PRECEDENCE = {
    ast.Add: _ARITH,
    ast.Sub: _ARITH,
    ast.Mult: _TERM,
    ast.Div: _TERM,
    ast.FloorDiv: _TERM,
    ast.Mod: _TERM,
    ast.MatMult: _TERM,
    ast.Pow: _POW,
    ast.LShift: _SHIFT,
    ast.RShift: _SHIFT,
    ast.BitOr: _BOR,
    ast.BitXor: _BXOR,
    ast.BitAnd: _BAND,
}
_BINOP = {op: (BINOP_SYMBOL[op], prec) for op, prec in _BINOP_PRECEDENCE.items()}
_UNARY = {ast.USub: "-", ast.UAdd: "+", ast.Invert: "~", ast.Not: "not "}
_CMPOP = {
    ast.Eq: "==",
    ast.NotEq: "!=",
    ast.Lt: "<",
    ast.LtE: "<=",
    ast.Gt: ">",
    ast.GtE: ">=",
    ast.Is: "is",
    ast.IsNot: "is not",
    ast.In: "in",
    ast.NotIn: "not in",
}

CMPOP_SYMBOL = dict(_CMPOP)


class Namer:
    """Turns IR names into Python identifiers (see the module docstring).

    Names derived from user names and function names are rendered once per module;
    temporaries are numbered afresh for each user function (`begin_function`), and
    the functions derived from one user function (``g_fwd``, ``g_bwd``) share that
    numbering, because they share the values they pass each other."""

    def __init__(self, taken=()):
        self.taken = set(taken)
        self.map: dict[str, str] = {}
        self.used = set(self.taken)
        self.scopes: dict = {}
        self.aliases: dict = {}  # IR name -> the name it is printed as (`reuse`)
        self.begin_function(None)

    @property
    def aliases(self) -> dict:
        return self._aliases

    @aliases.setter
    def aliases(self, mapping: dict):
        self._aliases = mapping
        self.known = {}  # IR name -> its text, with these aliases in this scope

    def begin_function(self, scope):
        """Switch to the temporaries of `scope` (the user function being printed)."""
        state = self.scopes.get(scope)
        if state is None:
            state = self.scopes[scope] = {"local_map": {}, "local_used": set(), "temps": {},
                                          "next": [1]}
        self.local_map = state["local_map"]
        self.local_used = state["local_used"]
        self.temps = state["temps"]
        self._next = state["next"]
        self.known = {}

    def __call__(self, n: str) -> str:
        got = self.known.get(n)  # (a name's text never changes once given)
        if got is None:
            got = self.known[n] = self._text(self._aliases.get(n, n) if self._aliases else n)
        return got

    def _text(self, n: str) -> str:
        got = self.map.get(n) or self.local_map.get(n)
        if got is not None:
            return got
        if "%" not in n:
            self.map[n] = n
            self.used.add(n)
            return n
        base, *suffixes = n.split("%")
        local = base == ""
        if local:
            number, *suffixes = suffixes
            base = self._temp(number)
        else:
            base = self._text(base) if "%" in base else base
        text = "_".join([base, *suffixes]) if suffixes else base
        if not text.isidentifier():  # (a part no name can hold: its words, joined)
            text = "_".join(re.findall(r"\w+", text)) or "v"
            text = text if text.isidentifier() else "v_" + text
        while text in self.used or (text in self.local_used and text != base):
            text += "_"
        if local:
            self.local_map[n] = text
            self.local_used.add(text)
        else:
            self.map[n] = text
            self.used.add(text)
        return text

    def _temp(self, number: str) -> str:
        """``t1, t2, ...`` for ``%3, %7, ...``; a word such as ``%result`` keeps it."""
        got = self.temps.get(number)
        if got is None:
            if number.isdigit():
                # (clear of a word's text too: ``%t12``, the user's `t1` renamed apart)
                while f"t{self._next[0]}" in self.used or f"t{self._next[0]}" in self.local_used:
                    self._next[0] += 1
                got = f"t{self._next[0]}"
                self._next[0] += 1
            else:
                got = number
                while got in self.used or got in self.local_used:
                    got += "_"
            self.temps[number] = got
            self.local_used.add(got)
        return got


# ---------------------------------------------------------------- expressions


def _constant(value) -> str:
    if isinstance(value, bool) or value is None or value is Ellipsis:
        return "..." if value is Ellipsis else repr(value)
    if isinstance(value, float):
        if math.isinf(value):
            return 'float("inf")' if value > 0 else '-float("inf")'
        if math.isnan(value):
            return 'float("nan")'
        return repr(value).replace("e+", "e")
    if isinstance(value, str):
        text = repr(value)
        if text.startswith("'") and '"' not in value:
            text = '"' + text[1:-1].replace("\\'", "'") + '"'
        return text
    return repr(value)


def _quoted(text: str) -> str:
    """`text` between double quotes, as black writes a string."""
    out = _constant(text)
    if not out.startswith('"'):
        raise TypeError("emit: a string with double quotes")
    return out


def _hug_powers(line: str) -> str:
    """Remove the spaces around ``**`` where black does: both operands "simple" (a
    name, a number or a dotted name, possibly after a unary operator), judged on the
    tokens of the line exactly as black judges them."""
    if "**" not in line:
        return line
    indent = line[: len(line) - len(line.lstrip())]
    body = line[len(indent):]
    try:
        toks = [t for t in tokenize.generate_tokens(io.StringIO(body + "\n").readline)
                if t.type not in (tokenize.NEWLINE, tokenize.NL, tokenize.ENDMARKER,
                                  tokenize.COMMENT, tokenize.INDENT, tokenize.DEDENT)]
    except (tokenize.TokenError, IndentationError, SyntaxError):
        return line
    kinds = [_leaf_kind(t) for t in toks]
    n = len(toks)

    def chained(chain):
        if len(chain) < 2:
            return True
        cur, past = chain[-1], chain[-2]
        if past == "NAME":
            return cur == "."
        if past in (")", "]"):
            return cur in (")", "]")
        if past in ("(", "["):
            return cur in ("NAME", "(", "[")
        return False

    def lookup_back(i):
        bad = False
        chain = []
        while 0 <= i < n:
            chain.append(kinds[i])
            bad = bad or kinds[i] in (")", "]")
            if not chained(chain):
                return not bad
            i -= 1
        return True

    def nested_ternary_after(i):
        """Black wraps a conditional expression that is the `else` part of another in
        invisible parentheses; for its scan they are an opening bracket."""
        depth = 0
        for j in range(i + 1, n):
            if kinds[j] in ("(", "[", "{"):
                depth += 1
            elif kinds[j] in (")", "]", "}"):
                if depth == 0:
                    return False
                depth -= 1
            elif depth == 0 and kinds[j] in (",", ":", "="):
                return False
            elif depth == 0 and toks[j].string == "if":
                return True
        return False

    def lookup_forward(i):
        while 0 <= i < n:
            if kinds[i] in ("(", "["):
                return False
            if kinds[i] not in ("NAME", ".") or toks[i].string == "for":
                return True
            if toks[i].string == "else" and nested_ternary_after(i):
                return False
            i += 1
        return True

    def simple(i, direction):
        if kinds[i] in ("NAME", "NUMBER"):
            return lookup_back(i) if direction < 0 else lookup_forward(i)
        if kinds[i] in ("+", "-", "~") and i + 1 < n and kinds[i + 1] in ("NAME", "NUMBER"):
            return lookup_forward(i + 1)
        return False

    hug = set()
    for i, t in enumerate(toks):
        if t.string == "**" and 0 < i < n - 1 and simple(i - 1, -1) and simple(i + 1, 1) \
                and toks[i - 1].string != "lambda":
            hug.add(i)
    if not hug:
        return line
    out = []
    for i, t in enumerate(toks):
        if i:
            gap = body[toks[i - 1].end[1]: t.start[1]]
            out.append("" if (i in hug or i - 1 in hug) else gap)
        out.append(t.string)
    return indent + "".join(out)


def _leaf_kind(tok) -> str:
    if tok.type == tokenize.NAME:
        return "NAME"
    if tok.type == tokenize.NUMBER:
        return "NUMBER"
    return tok.string if tok.type == tokenize.OP else "OTHER"


def _is_simple_slice_part(node) -> bool:
    if node is None:
        return True
    if isinstance(node, ast.UnaryOp) and not isinstance(node.op, ast.Not):
        node = node.operand
    return isinstance(node, (ast.Name, ast.Constant))


class ExprPrinter:
    def __init__(self, namer: Namer):
        self.namer = namer
        self.methods = {}  # node type -> its printing method

    def __call__(self, node: ast.expr, prec: int = 0) -> str:
        if type(node) is ast.Name:  # (the commonest; an atom, never in parentheses)
            return self.namer(node.id)
        text, own = self.expr(node)
        return f"({text})" if own < prec else text

    def expr(self, node):
        """(text, precedence of the text as printed)."""
        meth = self.methods.get(type(node))
        if meth is None:
            meth = getattr(type(self), "p_" + type(node).__name__, None)
            if meth is None:
                raise TypeError(f"emit: cannot print {type(node).__name__}")
            self.methods[type(node)] = meth  # (the function: a bound method, a cycle)
        return meth(self, node)

    def p_Name(self, node):
        return self.namer(node.id), _ATOM

    def p_Constant(self, node):
        text = _constant(node.value)
        if isinstance(node.value, (int, float)) and not isinstance(node.value, bool):
            if text.startswith("-"):
                return text, _FACTOR
        return text, _ATOM

    def p_Attribute(self, node):
        base = self(node.value, _ATOM)
        if isinstance(node.value, ast.Constant) and isinstance(node.value.value, int):
            base = f"({base})"
        return f"{base}.{node.attr}", _ATOM

    def p_Call(self, node):
        args = [self(a, _IFEXP) if not isinstance(a, ast.Starred) else "*" + self(a.value, _ATOM) for a in node.args]
        for kw in node.keywords:
            if kw.arg is None:
                args.append("**" + self(kw.value, _ATOM))
            else:
                args.append(f"{kw.arg}={self(kw.value, _IFEXP)}")
        return f"{self(node.func, _ATOM)}({', '.join(args)})", _ATOM

    def p_BinOp(self, node):
        sym, prec = _BINOP[type(node.op)]
        if isinstance(node.op, ast.Pow):
            left = self(node.left, _POW + 1)
            right = self(node.right, _FACTOR)
            return f"{left} ** {right}", prec  # `_hug_powers` hugs it where black does
        left, right = node.left, node.right  # (a name's text inline: most operands)
        left = self.namer(left.id) if type(left) is ast.Name else self(left, prec)
        right = self.namer(right.id) if type(right) is ast.Name else self(right, prec + 1)
        return f"{left} {sym} {right}", prec

    def p_UnaryOp(self, node):
        sym = _UNARY[type(node.op)]
        if isinstance(node.op, ast.Not):
            return sym + self(node.operand, _NOT), _NOT
        operand = node.operand
        if isinstance(operand, ast.BinOp) and isinstance(operand.op, ast.Pow):
            return f"{sym}({self(operand)})", _FACTOR  # black's parentheses
        return sym + self(operand, _FACTOR), _FACTOR

    def p_Compare(self, node):
        parts = [self(node.left, _CMP + 1)]
        for op, right in zip(node.ops, node.comparators):
            parts.append(_CMPOP[type(op)])
            parts.append(self(right, _CMP + 1))
        return " ".join(parts), _CMP

    def p_BoolOp(self, node):
        prec = _OR if isinstance(node.op, ast.Or) else _AND
        sym = " or " if isinstance(node.op, ast.Or) else " and "
        return sym.join(self(v, prec + 1) for v in node.values), prec

    def p_IfExp(self, node):
        body = self(node.body, _IFEXP + 1)
        test = self(node.test, _IFEXP + 1)
        orelse = self(node.orelse, _IFEXP)
        return f"{body} if {test} else {orelse}", _IFEXP

    def p_Tuple(self, node):
        return "(" + self.elements(node.elts, trailing=len(node.elts) == 1) + ")", _ATOM

    def p_List(self, node):
        return "[" + self.elements(node.elts) + "]", _ATOM

    def elements(self, elts, trailing=False) -> str:
        text = ", ".join(self(e, _IFEXP) for e in elts)
        return text + "," if trailing else text

    def p_Subscript(self, node):
        index = node.slice
        if isinstance(index, ast.Index):  # Python < 3.9 shape; kept for safety
            index = index.value
        if isinstance(index, ast.Tuple) and index.elts:
            complex_ = any(self._complex_slice(e) for e in index.elts)
            inner = ", ".join(self.slice_part(e, complex_) for e in index.elts)
            if len(index.elts) == 1:
                inner += ","
        else:
            inner = self.slice_part(index, self._complex_slice(index))
        return f"{self(node.value, _ATOM)}[{inner}]", _ATOM

    @staticmethod
    def _complex_slice(node) -> bool:
        if not isinstance(node, ast.Slice):
            return False
        return not all(_is_simple_slice_part(p) for p in (node.lower, node.upper, node.step))

    def slice_part(self, node, complex_) -> str:
        if not isinstance(node, ast.Slice):
            return self(node, _IFEXP)
        lower = "" if node.lower is None else self(node.lower, _IFEXP)
        upper = "" if node.upper is None else self(node.upper, _IFEXP)
        if not complex_:
            text = f"{lower}:{upper}"
            if node.step is not None:
                text += ":" + self(node.step, _IFEXP)
            return text
        text = (f"{lower} :" if lower else ":") + (f" {upper}" if upper else "")
        if node.step is not None:
            text += (" : " if upper else ": ") + self(node.step, _IFEXP)
        return text

    def p_Starred(self, node):
        return "*" + self(node.value, _ATOM), _ATOM

    def p_Dict(self, node):
        return "{" + ", ".join(f"{self(k, _IFEXP)}: {self(v, _IFEXP)}"
                               for k, v in zip(node.keys, node.values)) + "}", _ATOM

    def p_Set(self, node):
        return "{" + self.elements(node.elts) + "}", _ATOM

    def p_JoinedStr(self, node):
        """``f"..."``; ``ast.unparse``'s text where a part holds a quote or a backslash
        (which an f-string's braces could not hold before Python 3.12)."""
        try:
            return "f" + _quoted(self.fstring_body(node)), _ATOM
        except TypeError:
            named = ir.copy_tree(node)
            for n in ast.walk(named):
                if isinstance(n, ast.Name):
                    n.id = self.namer(n.id)
            return ast.unparse(named), _ATOM

    def fstring_body(self, node) -> str:
        parts = []
        for v in node.values:
            if isinstance(v, ast.Constant):
                parts.append(v.value.replace("{", "{{").replace("}", "}}"))
                continue
            inner = self(v.value, _IFEXP)
            if inner.startswith("{") or any(c in inner for c in "\\'\"\n"):
                raise TypeError("emit: an f-string part with quotes")
            conversion = "" if v.conversion == -1 else "!" + chr(v.conversion)
            spec = "" if v.format_spec is None else ":" + self.fstring_body(v.format_spec)
            parts.append("{" + inner + conversion + spec + "}")
        return "".join(parts)


# ----------------------------------------------------------------- statements


@dataclass
class Printed:
    text: str
    line_map: list = field(default_factory=list)  # index i -> user line of line i+1
    spans: dict = field(default_factory=dict)  # IR function name -> (first, end) line index

    def function_text(self, name: str) -> str:
        return self.function_texts([name])[name]

    def function_texts(self, names) -> dict:
        """name -> `function_text`, for each of `names`, splitting the text once."""
        lines = self.text.splitlines()
        return {n: "\n".join(lines[self.spans[n][0]:self.spans[n][1]]) + "\n" for n in names}


class _Writer:
    def __init__(self, namer: Namer):
        self.namer = namer
        self.expr = ExprPrinter(namer)
        self.lines: list[str] = []
        self.origin: list[int] = []

    def put(self, depth: int, text: str, line: int = 0):
        if "**" in text and not text.startswith("#"):
            text = _hug_powers(text)
        self.lines.append("    " * depth + text if text else "")
        self.origin.append(line)

    def targets(self, stmt) -> str:
        names = [self.namer(t) for t in stmt.targets]
        if len(names) == 1 and getattr(stmt, "unpack", False):
            return f"({names[0]},)"
        return ", ".join(names)

    def body(self, stmts, depth, mapping=None):
        """`stmts`, or with `mapping` (`reuse`'s names) those of
        `reuse.without_self_copies`, taken as they come."""
        indent, namer, expr = "    " * depth, self.namer, self.expr
        for s in reuse.dropping_self_copies(stmts, mapping) if mapping else stmts:
            if type(s) is ir.Assign and len(s.targets) == 1 and not s.unpack:
                value = expr(s.value)  # (most lines: `stmt` and `put` inline, value first)
                text = f"{namer(s.targets[0])} = {value}"
                self.lines.append(indent + (_hug_powers(text) if "**" in text else text))
                self.origin.append(s.line)
            else:
                self.stmt(s, depth)
        if _only_comments(reuse.dropping_self_copies(stmts, mapping) if mapping else stmts):
            self.put(depth, "pass")

    def stmt(self, s, depth):
        t = type(s)
        if t is ir.Comment:  # (comments and `release`'s ``del``: a third of the lines)
            parts = s.text.split("\0")
            parts[1::2] = [self.namer(p) for p in parts[1::2]]
            self.put(depth, f"# {''.join(parts)}".rstrip(), s.line)
        elif t is ir.Kept:
            for inner, text in kept_lines(s, self.expr):
                self.put(depth + inner, text, s.line)
        elif isinstance(s, ir.Assign):
            value = s.value
            if s.unpack and isinstance(value, ast.Tuple) and len(s.targets) > 1:
                text = self.expr.elements(value.elts)  # a, b = c, d
            else:
                text = self.expr(value)
            targets = s.targets
            self.put(depth, f"{self.namer(targets[0])} = {text}" if len(targets) == 1
                     and not s.unpack else f"{self.targets(s)} = {text}", s.line)
        elif isinstance(s, ir.AugAssign):
            target = self.namer(s.target) if isinstance(s.target, str) else self.expr(s.target)
            if isinstance(s.value, ast.UnaryOp) and isinstance(s.value.op, ast.USub):
                self.put(depth, f"{target} -= {self.expr(s.value.operand)}", s.line)
            else:
                self.put(depth, f"{target} += {self.expr(s.value)}", s.line)
        elif isinstance(s, ir.SetItem):
            self.put(depth, f"{self.expr(s.target)} = {self.expr(s.value)}", s.line)
        elif isinstance(s, ir.Loop):
            self.loop(s, depth)
        elif isinstance(s, ir.ForEach):
            self.put(depth, f"for {self.namer(s.target)} in {self.expr(s.iter)}:", s.line)
            self.body(s.body, depth + 1)
        elif isinstance(s, ir.Exit):
            for c in s.copies:
                self.stmt(c, depth)
            if s.brk:
                self.put(depth, "break", s.line)
        elif isinstance(s, ir.Push):
            # one entry per value, as a person keeps a list per value: no tuple per
            # iteration (56 bytes more each), and the pops take them back in reverse
            for v in s.values:
                self.put(depth, f"{self.namer(s.tape)}.append({self.namer(v)})", s.line)
        elif isinstance(s, ir.Pop):
            for t in reversed(s.targets):
                self.put(depth, f"{self.namer(t)} = {self.namer(s.tape)}.pop()", s.line)
        elif isinstance(s, ir.Dup):
            count = "" if len(s.targets) == 2 else f", {len(s.targets)}"
            self.put(depth, f"{self.targets(s)} = dup({self.namer(s.source)}{count})", s.line)
        elif isinstance(s, ir.Expr):
            self.put(depth, self.expr(s.value), s.line)
        elif isinstance(s, ir.Return):
            value = s.value
            if isinstance(value, ast.Tuple) and len(value.elts) > 1:
                text = self.expr.elements(value.elts)
            else:
                text = self.expr(value)
            self.put(depth, f"return {text}", s.line)
        elif isinstance(s, ir.If):
            if _only_comments(s.body) and not _only_comments(s.orelse):
                # nothing to do when the test holds: say it the way a person would
                self.put(depth, f"if {self.expr(ast.UnaryOp(op=ast.Not(), operand=s.test))}:",
                         s.line)
                self.body(s.orelse, depth + 1)
                return
            self.put(depth, f"if {self.expr(s.test)}:", s.line)
            self.body(s.body, depth + 1)
            if not _only_comments(s.orelse):
                self.put(depth, "else:", s.line)
                self.body(s.orelse, depth + 1)
        else:
            raise TypeError(f"emit: cannot print statement {type(s).__name__}")

    def loop(self, s: ir.Loop, depth):
        for phi in s.phis:
            if phi.init is not None and not (isinstance(phi.init, ast.Name)
                                             and self.namer(phi.init.id) == self.namer(phi.name)):
                self.put(depth, f"{self.namer(phi.name)} = {self.expr(phi.init)}", s.line)
        if s.iter is not None:
            self.put(depth, f"for {self.namer(s.target)} in {self.expr(s.iter)}:", s.line)
            self.body(s.body, depth + 1)
            return
        if not [c for c in s.cond if not isinstance(c, ir.Comment)]:
            self.put(depth, f"while {self.expr(s.test)}:", s.line)
            self.body(s.body, depth + 1)
            return
        self.put(depth, "while True:", s.line)
        self.body(s.cond, depth + 1)
        self.put(depth + 1, f"if {self.expr(ast.UnaryOp(op=ast.Not(), operand=s.test))}:", s.line)
        self.put(depth + 2, "break", s.line)
        self.body(s.body, depth + 1)

    def function(self, fn: ir.Function, renames=None):
        self.namer.begin_function(id(fn.source) if fn.source is not None else fn.name)
        self.namer.aliases = renames or {}
        params = []
        star_done = False
        for p in fn.params:
            if p.kwonly and not star_done:
                params.append("*")
                star_done = True
            text = self.namer(p.name)
            if p.default is not None:
                text += "=" + self.expr(p.default, _IFEXP)
            params.append(text)
        self.put(0, f"def {self.namer(fn.name)}({', '.join(params)}):")
        if fn.doc:
            self.put(1, '"""' + fn.doc + '"""')
        self.body(fn.body, 1, renames)
        self.namer.aliases = {}


def _only_comments(stmts) -> bool:
    """Would these statements print nothing but comments?"""
    return all(isinstance(s, ir.Comment) or (isinstance(s, ir.Push) and not s.values)
               or (isinstance(s, ir.Pop) and not s.targets)
               or (isinstance(s, ir.Exit) and not s.copies and not s.brk) for s in stmts)


def user_names(fn: ir.Function) -> set:
    """Every plain (user) name a function mentions: its locals and static refs."""
    out = {p.name for p in fn.params if "%" not in p.name}
    for stmt in ir.walk(fn.body):
        t = type(stmt)
        if t is ir.Assign:  # (the commonest, and a `release` ``del``: their names only)
            out.update([n for n in (*stmt.targets, *ir.names_in(stmt.value)) if "%" not in n])
            continue
        if t is ir.Kept and is_release(stmt):
            out.update([a.id for a in stmt.args if "%" not in a.id])
            continue
        for t in ir.defined_names(stmt):
            if "%" not in t:
                out.add(t)
        for node in ir.exprs(stmt):
            for n in ir.names_in(node):
                if "%" not in n:
                    out.add(n)
        if isinstance(stmt, ir.Kept):
            out |= {n for n in own_names(stmt) if "%" not in n}
    if "%" not in fn.name:
        out.add(fn.name)
    return out


def make_namer(functions, reserved=(), mentioned=None) -> Namer:
    """A `Namer` that keeps clear of `reserved` and the `user_names` of `functions`
    (where `mentioned`, IR function name -> `reuse.renames`'s names, has a function,
    its plain names and the function's own)."""
    taken = set(reserved)
    for fn in functions:
        got = (mentioned or {}).get(fn.name)
        if got is None:
            taken |= user_names(fn)
        else:
            taken.update([n for n in got if "%" not in n])
            if "%" not in fn.name:
                taken.add(fn.name)
    return Namer(taken)


def emit_function(fn: ir.Function, namer: Namer | None = None) -> Printed:
    namer = namer or make_namer([fn])
    w = _Writer(namer)
    w.function(fn)
    return Printed("\n".join(w.lines) + "\n", w.origin)


def emit_module(module: ir.Module, namer: Namer | None = None, renames=None) -> Printed:
    """`renames`: IR function name -> `reuse.shared_names` of that function (see the
    module docstring)."""
    namer = namer or make_namer(module.functions, _import_names(module.imports))
    renames = renames or {}
    w = _Writer(namer)
    for text in module.header:
        w.put(0, f"# {text}".rstrip())
    for text in module.imports:
        w.put(0, text)
    spans = {}
    for i, fn in enumerate(module.functions):
        if i or module.imports or module.header:
            w.put(0, "")
            w.put(0, "")
        first = len(w.lines)
        w.function(fn, renames.get(fn.name))
        spans[fn.name] = (first, len(w.lines))
    return Printed("\n".join(w.lines) + "\n", w.origin, spans)


def _import_names(imports) -> set:
    out = set()
    for line in imports:
        tree = ast.parse(line)
        for node in ast.walk(tree):
            if isinstance(node, ast.alias):
                out.add(node.asname or node.name.split(".")[0])
    return out
