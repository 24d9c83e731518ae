"""parse: function object (or source text) -> checked, resolved ``ast.FunctionDef``.

Contract
--------
`parse(func)` returns a `Parsed` holding

* `tree`: the function's ``ast.FunctionDef`` with decorators removed and every node's
  ``lineno`` made absolute (the line number in the user's file);
* `info`: an `ir.SourceInfo` (file name, first line, the user's source lines);
* `refs`: the object each free name, and each attribute chain on a free name, refers
  to right now, looked up in the function's closure cells, then its globals, then
  builtins (static resolution: what a call means is decided once, here);
* `locals`: the parameters and every name the function assigns;
* `nodes`: the nodes of `tree` by type (`tree_index.Nodes`, walked once for it all).

It guarantees that every node in `tree` is one the later stages handle: every AST node
type Python has is listed as either supported or refused (`syntax`), and a refused one
raises `UnsupportedSyntaxError` carrying the user's file, line and column, what is
supported instead, and the fix. A function whose source cannot be read raises
`SourceNotFoundError`; a free name with no value raises `UnresolvedNameError`.
`parse_source(text, namespace, filename)` does the same for a function given as text.

For the later stages and the disk cache it also gives `Located` (builds an error that
points at a node of the user's function), `lookup` (the value a free name has now, or
`MISSING`), `code_digest` (`compiled`'s: a function's bytecode as text, the same in
every process) and `user_source` (the function's own text)."""

from __future__ import annotations

import ast
import copy
import builtins
import importlib
import inspect
import linecache
import os
import re
import sys
import textwrap
import types
import weakref
from dataclasses import dataclass, field

from .. import ir
from ..ir import trees as ir_trees
from .compiled import FUTURE_FLAGS, code_digest, code_in_file, code_of_text
from . import (defaults, frozen, function_loops, function_values, grown, higher_order,
               iterators, matching, pairs, scopes, source, structure_calls, structures, syntax)
from .syntax import IGNORED, REFUSED, SUPPORTED  # noqa: F401 (the table of node types)
from .tree_index import Nodes
from ..errors import (S2SADError, SourceNotFoundError, StaleSourceError,
                     UnresolvedNameError, UnsupportedSyntaxError)
from .expand import comprehension_bound

# The attribute of a function object that `api` made to specialise a user's function
# on the structure of its container arguments: {parameter: `ir.trees.Spec`}.
STRUCTURES = "__s2sad_structures__"
ORIGINAL = "__s2sad_original__"  # (and the user's function, whose text it has)

@dataclass(eq=False)
class Parsed:
    tree: ast.FunctionDef
    info: ir.SourceInfo
    refs: dict
    locals: set
    globals: dict
    cells: dict = field(default_factory=dict)  # free variable name -> cell
    # names an ``import`` inside the function binds: static references (in `refs`),
    # which the kept ``import`` binds again when the derivative runs
    imported: set = field(default_factory=set)
    # the structure of what the function returns, where `structures` rewrote it
    # to return the leaves of a container (None: it returns what it computes)
    out_spec: object = None
    leaf_names: dict = field(default_factory=dict)  # container parameter -> its leaves'
    nodes: object = None  # `tree`'s (`tree_index.Nodes`), as `parse` left it, for `expand`
    # the name -> the class, of those whose methods it calls on its parameters, as
    # ``Model.predict(self, x)`` (`function_values`); the derivative's helpers
    classes: dict = field(default_factory=dict)
    put_in_place: dict = field(default_factory=dict)  # call -> the function put there
    decided: dict = field(default_factory=dict)  # (`structure_values.Rewritten.decided`)
    captured: dict = field(default_factory=dict)  # (`structure_values.Rewritten.captured`)


class Located:
    """Builds errors that point at a node of the user's function: its file, the line
    in that file, the column in the source as written (`col_shift`: the indentation
    that dedenting the source removed) and the text of the line."""

    def __init__(self, info: ir.SourceInfo, col_shift: int):
        self.info = info
        self.col_shift = col_shift

    def error(self, cls, node, message, hint=None):
        line = getattr(node, "lineno", None)
        col = getattr(node, "col_offset", None)
        if col is not None:
            col += self.col_shift
        text = self.info.line_text(line) if line else None
        return cls(message, filename=self.info.filename, lineno=line, col=col,
                   source_line=text, hint=hint)


def parse(func, containers=True, classes=None) -> Parsed:
    """Parse a Python function object. See the module docstring. Without
    `containers`, the tree is the function as written (`structures` does not
    rewrite it: for a function put in place of a call, whose caller's rewrite
    follows its containers). `classes`: {parameter: its argument's class}, `program`'s."""
    if isinstance(func, (classmethod, staticmethod)):
        func = func.__func__
    if not isinstance(func, types.FunctionType):
        raise SourceNotFoundError(
            f"s2sad can only transform Python functions written with `def`; got {func!r}",
            hint="Register a derivative rule for it with s2sad.register_rule instead.",
        )
    name = func.__name__
    code = func.__code__
    cells = cells_of(func)
    if name == "<lambda>":
        return _parse_lambda(func, containers, cells)
    try:
        lines, first = _source_lines(func)
    except (OSError, TypeError) as exc:
        raise SourceNotFoundError(
            f"s2sad cannot read the source of {func.__qualname__} "
            f"(defined in {code.co_filename}): {exc}",
            filename=code.co_filename, lineno=code.co_firstlineno,
            hint="Define the function in a file, or register a derivative rule for it.",
        ) from None
    filename = code.co_filename
    try:
        parsed = _parse_lines(lines, max(first, 1), filename, func.__qualname__,
                              func.__globals__, cells, getattr(func, "__builtins__", None),
                              func, name, containers, classes)
    except UnsupportedSyntaxError:
        # (first: a construct s2sad refuses in any case, such as the `assert` that
        # pytest's rewriting compiles differently from its text)
        raise
    except S2SADError:
        check_source(func, lines, max(first, 1))  # (a stale text explains it better)
        raise
    check_source(func, lines, max(first, 1))
    return parsed


_SOURCES = weakref.WeakKeyDictionary()  # function -> (its code, linecache's entry, lines)


def _source_lines(func) -> tuple:
    """``inspect.getsourcelines(func)`` (which tokenizes the text: a build reads it
    twice), kept while the code and `linecache`'s entry for its file are the same. A
    function made of the user's (`ORIGINAL`) has the user's text: its code's lines
    may reach the lines of a function put in place, further down the file."""
    func = getattr(func, ORIGINAL, func)
    if not isinstance(func, types.FunctionType) or hasattr(func, "__wrapped__"):
        return source.source_lines(func)  # (a decorator's wrapper: `check_wrapper`)
    file, got = func.__code__.co_filename, _SOURCES.get(func)
    if got is not None:
        linecache.checkcache(file)
        if got[0] is func.__code__ and linecache.cache.get(file) is got[1]:
            return list(got[2][0]), got[2][1]
    found = source.source_lines(func)  # (inspect's, without tokenizing it all)
    if file in linecache.cache and inspect.getsourcefile(func) == file:  # (the file read)
        _SOURCES[func] = (func.__code__, linecache.cache[file], found)
    return found


def user_source(func) -> str:
    """The function's own source text, dedented, as `s2sad show --stage source` prints it."""
    try:
        lines, first = _source_lines(func)
    except (OSError, TypeError) as exc:
        raise SourceNotFoundError(f"s2sad cannot read the source of {func.__qualname__}: "
                                  f"{exc}") from None
    check_source(func, lines, max(first, 1))
    return textwrap.dedent("".join(lines))


# ------------------------------------------------------------ stale source


_COMPILES_TO: dict = {}  # code object -> a text that compiles to it on its own
_OF_TREE: dict = {}  # code object -> (its text, what that text's tree compiles to)


def _checked(func):
    """The function whose code `check_source` compares `func`'s text with (its
    original, unwrapped), or None where it checks nothing."""
    target = getattr(func, ORIGINAL, func)
    try:
        target = inspect.unwrap(target)
    except ValueError:  # a cycle of __wrapped__
        pass
    if not isinstance(target, types.FunctionType) or \
            ir.generated_file(target.__code__.co_filename):
        return None
    return target


def check_source(func, lines, first):
    """Refuse the source text `lines` of `func` (read from its file, as
    `inspect.getsourcelines` does, at line `first`) when it does not compile to the
    code `func` runs: the file was edited after the function was defined, and a
    derivative built from the new text would be the derivative of another function.
    Code s2sad wrote itself is not checked."""
    target = _checked(func)
    if target is None:
        return
    code = target.__code__
    # the text compiled on its own, then in its file: Python compiles a function in
    # the context of the module or statement it was given (a name bound by ``import``
    # in the same compilation loads its attributes without the method call path)
    text = "".join(lines)
    if _COMPILES_TO.get(code) == text:
        return  # (a build reads the text twice: to parse it, and for the structures)
    digest = code_digest(code)
    got = _OF_TREE.pop(code, None)  # (`_parse_lines` compiled the tree it parsed)
    own = got[1] if got is not None and got[0] == text else code_of_text(code, lines)
    if any(code_digest(c) == digest for c in own):
        if len(_COMPILES_TO) >= 256:
            _COMPILES_TO.clear()
        _COMPILES_TO[code] = text
        return
    compiled = code_in_file(code, target.__globals__)
    if compiled is None and not os.path.isfile(code.co_filename):
        return  # (text that is not Python as it stands: a notebook cell with magics)
    if any(code_digest(c) == digest for c in compiled or ()):
        return
    if any(n.startswith("@py") for n in code.co_varnames + code.co_names):
        return  # pytest compiled the file's `assert`s its own way (they run as written)
    text = lines[0] if lines else None
    raise StaleSourceError(
        f"{func.__qualname__} has changed in its file since it was defined: the text "
        "there no longer compiles to the code that runs, and a derivative built from it "
        "would be the derivative of another function",
        filename=code.co_filename, lineno=first, source_line=text,
        hint="The file was edited after the module was imported: reload the module "
             "(importlib.reload(module)) or restart Python, then take the derivative "
             "again. (An import hook that rewrites the module's code has the same "
             "effect: s2sad differentiates the text.)")


def parse_source(text: str, namespace: dict, filename: str = "<s2sad-input>",
                 name: str | None = None) -> Parsed:
    """Parse the first (or the named) function defined in `text`."""
    lines = text.splitlines(keepends=True)
    linecache.cache[filename] = (len(text), None, lines, filename)
    tree = ast.parse(textwrap.dedent(text))
    defs = [n for n in tree.body if isinstance(n, ast.FunctionDef)]
    if name is not None:
        defs = [n for n in defs if n.name == name]
    if not defs:
        raise SourceNotFoundError(f"no function {name or ''} defined in {filename}")
    node = defs[0]
    start = (node.decorator_list[0].lineno if node.decorator_list else node.lineno)
    end = node.end_lineno
    return _parse_lines(lines[start - 1:end], start, filename, node.name, namespace, {},
                        None, None, node.name)


def _parse_lines(lines, first, filename, qualname, globals_, cells, builtins_, func, name,
                 containers=True, classes=None):
    text = "".join(lines)
    # (a function at module level has no margin: `textwrap.dedent` only empties its
    # lines of blanks, after looking at every line's indentation for one)
    dedented = textwrap.dedent(text) if text[:1] in " \t\n" else _BLANKS.sub("", text)
    col_shift = _indent(text) - _indent(dedented)
    info = ir.SourceInfo(filename=filename, qualname=qualname, first_line=first,
                         lines=list(lines), func=func)
    loc = Located(info, col_shift)
    try:
        # blank lines first, so every node has its line number in the user's file
        # (ast.increment_lineno afterwards walks the whole tree in Python)
        module = ast.parse("\n" * (first - 1) + dedented)
    except SyntaxError as exc:  # e.g. source of a nested function that needs context
        raise SourceNotFoundError(
            f"s2sad could not parse the source of {qualname}: {exc.msg}",
            filename=filename, lineno=first,
        ) from None
    defs = [n for n in module.body if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef))]
    if not defs or defs[0].name != name:
        raise SourceNotFoundError(
            f"s2sad could not find the `def {name}` of {qualname} in {filename}",
            filename=filename, lineno=first,
            hint="Define the function with `def` in a file (not with exec or a lambda).",
        )
    tree = defs[0]
    if isinstance(tree, ast.AsyncFunctionDef):
        raise loc.error(UnsupportedSyntaxError, tree, "s2sad cannot differentiate an `async def`",
                        "Differentiate a plain `def` function.")
    target = _checked(func) if func is not None else None
    if target is not None and not target.__code__.co_freevars and \
            _COMPILES_TO.get(target.__code__) != text:
        # (for `check_source`: this tree compiled, before the passes below change it,
        # instead of its text parsed again)
        if len(_OF_TREE) >= 16:
            _OF_TREE.clear()
        _OF_TREE[target.__code__] = (text, code_of_text(target.__code__, lines, module))
    return _parsed_tree(tree, info, loc, globals_, cells, builtins_, func, containers, classes)


_BLANKS = re.compile(r"^[ \t]+$", re.MULTILINE)  # (a line of spaces and tabs only)


def _parse_lambda(func, containers, cells) -> Parsed:
    """`parse` of a lambda: the one ``lambda`` in the lines `inspect` gives for it whose
    code is the function's (its `ORIGINAL`'s), as a ``def`` named `LAMBDA` returning its body."""
    code = func.__code__
    where = f"{code.co_filename}:{code.co_firstlineno}"
    try:
        lines, first = inspect.getsourcelines(func)
    except (OSError, TypeError):
        raise SourceNotFoundError(
            f"s2sad cannot read the source of the lambda at {where}",
            filename=code.co_filename, lineno=code.co_firstlineno,
            hint="Define it with `def` in a file so its source can be read.") from None
    first = max(first, 1)
    text = "".join(lines)
    dedented = textwrap.dedent(text)
    shared = False  # (a tree kept for other lambdas: the passes get a copy of the lambda)
    try:
        module = ast.parse("\n" * (first - 1) + dedented)
    except SyntaxError:  # (a line of a display or a call: its file's tree holds it)
        module = _file_tree(code.co_filename, func.__globals__)
        if module is not None:
            text = dedented = "".join(lines)
            shared = True
    found = []
    for node in ast.walk(module) if module is not None else ():
        if isinstance(node, ast.Lambda) and node.lineno == code.co_firstlineno:
            try:
                made = compile(ast.Expression(body=node), code.co_filename, "eval",
                               flags=code.co_flags & FUTURE_FLAGS, dont_inherit=True)
            except (SyntaxError, ValueError):
                continue
            inner = next((c for c in made.co_consts if isinstance(c, types.CodeType)), None)
            if inner is not None and _same_names(inner, getattr(func, ORIGINAL, func).__code__):
                found.append(node)
    if len({ir.expr_key(n) for n in found}) > 1:
        found = []  # (two lambdas on the line read the same names: which is it?)
        ambiguous = True
    else:
        ambiguous = False
    found = found[:1]
    if len(found) != 1:
        raise SourceNotFoundError(
            f"s2sad cannot tell which lambda at {where} is this one" if ambiguous else
            f"s2sad cannot read the lambda at {where} from its source",
            filename=code.co_filename, lineno=code.co_firstlineno,
            hint="Define it with `def`, or put the lambda on a line of its own.")
    node = copy.deepcopy(found[0]) if shared else found[0]
    tree = ast.FunctionDef(name=LAMBDA, args=node.args, body=[
        ast.copy_location(ast.Return(value=node.body), node.body)], decorator_list=[],
        returns=None, type_comment=None)
    ast.copy_location(tree, node)
    info = ir.SourceInfo(filename=code.co_filename, qualname=func.__qualname__,
                         first_line=first, lines=list(lines), func=func)
    loc = Located(info, _indent(text) - _indent(dedented))
    parsed = _parsed_tree(tree, info, loc, func.__globals__, cells,
                          getattr(func, "__builtins__", None), func, containers)
    check_source(func, lines, first)
    return parsed


LAMBDA = "lambda_"  # (the name a lambda's derivative is emitted under: lambda__grad)

_file_trees: dict = {}  # file name -> (its lines, their tree, or None)


def _file_tree(filename, func_globals):
    """The tree of the whole text of `filename` (as `linecache` reads it), or None
    where it does not parse: where a lambda's lines do not parse alone (``"sq":
    lambda x: x * x,`` in a dict display over several lines)."""
    lines = linecache.getlines(filename, func_globals)
    got = _file_trees.get(filename)
    if got is None or got[0] is not lines:
        try:
            tree = ast.parse("".join(lines)) if lines else None
        except (SyntaxError, ValueError):
            tree = None
        if len(_file_trees) >= 16:
            _file_trees.clear()
        got = _file_trees[filename] = (lines, tree)
    return got[1]


def _same_names(a, b) -> bool:
    """Do `a` (a lambda's text compiled alone) and `b` (its code) read the same names
    and constants (a name `b` reads from the function around it is a global of `a`)?
    The bytecode itself depends on what was compiled with it."""
    def consts(c):
        return tuple(k for k in c.co_consts if not isinstance(k, types.CodeType))
    return (a.co_argcount, a.co_kwonlyargcount, a.co_varnames, set(a.co_names), consts(a)) == (
        b.co_argcount, b.co_kwonlyargcount, b.co_varnames,
        set(b.co_names) | set(b.co_freevars), consts(b))


def _parsed_tree(tree, info, loc, globals_, cells, builtins_, func, containers, classes=None):
    """The checks, rewrites and name resolution of `parse` on the function's tree."""
    tree.decorator_list = []
    if containers:  # (a function put in place of its call binds *args where it is called)
        syntax.check_signature(tree, loc)
    cells = defaults.by_value(tree, func, cells, globals_, builtins_, lookup, MISSING)
    specs = getattr(func, STRUCTURES, None) if func is not None else None
    nodes = Nodes(tree)  # (for the passes below; again after one rewrote it)
    if nodes.has(ast.AnnAssign) and syntax.drop_bare_annotations(nodes):
        nodes = Nodes(tree)
    syntax.check_keys(nodes, loc)
    scopes.mangle_private(nodes, info.qualname)  # (self.__scale: self._Model__scale)
    if nodes.has(ast.Match) and matching.as_ifs(tree, loc):  # (the ifs it stands for)
        nodes = Nodes(tree)
    if nodes.has(ast.Global) and scopes.drop_read_only_globals(tree):  # (``global G``
        nodes = Nodes(tree)  # of a name only read: a statement that changes nothing)
    # (a local name given a function: the function, where it is called; a method of a
    # parameter's class, ``Model.predict(self, x)``)
    meaning = lambda n: _value_or_none(n, globals_, cells, builtins_)  # noqa: E731
    classes = function_values.receivers(tree, nodes, classes, meaning) if classes else None
    if function_values.resolve(tree, meaning, nodes, classes):
        nodes = Nodes(tree)
    if grown.as_lists(tree, meaning, nodes):
        nodes = Nodes(tree)  # (a tuple it grows: a list it appends to)
    if function_loops.unlisted(meaning, nodes):  # (``list(zip(LAYERS, ps))``)
        nodes = Nodes(tree)
    if higher_order.listed_pairs(tree, meaning, nodes):  # (``list(zip(xs, ys))``)
        nodes = Nodes(tree)
    if pairs.split_lists(tree, nodes):  # (a list of tuples it builds: one per position)
        nodes = Nodes(tree)
    if frozen.unfreeze(tree, meaning, nodes):
        nodes = Nodes(tree)
    # (a tuple holding a list is followed, except in s2sad's gradients: their tapes)
    generated = info.generated
    if not generated:
        structure_calls.mark_list_tuples(
            tree, lambda call: _returned_lists(call, globals_, cells, builtins_), nodes)
    if higher_order.lower(tree, meaning, [n for n, v in (specs or {}).items()
                                          if isinstance(v, ir_trees.Static)], nodes):
        nodes = Nodes(tree)
    nodes = iterators.single_pass(tree, meaning, nodes, loc, not generated)
    if not containers:
        specs = None
    elif specs is None and func is not None and (structure_calls.builds_containers(
            tree, _called_functions(nodes, globals_, cells, builtins_), generated, nodes)
            or function_loops.loops_over_functions(nodes, meaning)):
        specs = {}  # (dicts of computed values it builds are followed all the same)
    out_spec, leaves, put_in_place, decided, captured = None, {}, {}, {}, {}
    if specs:  # (functions passed as arguments are read where the name is: a cell)
        cells = dict(cells, **{n: types.CellType(v.value) for n, v in specs.items()
                               if isinstance(v, ir_trees.Static)})
    if specs is not None:  # (the function as specialised on its container arguments)
        named = {name: cls for cls, name in (classes or {}).values()}  # (``Model`` of
        value_of = lambda n: named.get(n) or meaning(n)  # noqa: E731 ``Model.f(self)``)
        rewritten = structures.rewrite(
            tree, specs, loc, value_of, lambda fn, given=None: parse(
                fn, containers=False, classes=given), leaves_out=hasattr(func, STRUCTURES),
            classes=classes)
        tree, out_spec, leaves = rewritten.tree, rewritten.out_spec, rewritten.leaf_names
        put_in_place = rewritten.put_in_place  # (guarded as it was: `builder.note_user`)
        decided = rewritten.decided  # (guarded by value: `guards.decided_guards`)
        captured = rewritten.captured  # (read as the callee's: `builder.note_user`)
        cells = dict(cells, **{n: types.CellType(v) for n, (_, _, v) in captured.items()})
        nodes = Nodes(tree)
        if pairs.split_lists(tree, nodes):  # (a list of tuples a function put in place reads)
            nodes = Nodes(tree)
    if containers:  # (a function put in place is checked as part of its caller)
        syntax.check_nodes(tree, loc, nodes)
    stored, loaded = _name_uses(nodes)
    local_set = _local_names(tree, nodes, stored)
    imported = _imported(nodes, local_set, globals_)
    names = dict(globals_, **imported) if imported else globals_
    classes = {name: cls for cls, name in (classes or {}).values() if name in loaded}
    refs = _resolve(local_set, dict(names, **classes) if classes else names, cells,
                    builtins_, loc, nodes, loaded)
    return Parsed(tree=tree, info=info, refs=refs, locals=local_set, globals=globals_,
                  imported=set(imported), cells=cells, out_spec=out_spec, leaf_names=leaves,
                  nodes=nodes, classes=classes, put_in_place=put_in_place, decided=decided,
                  captured=captured)


def _value_or_none(name, globals_, cells, builtins_):
    got = lookup(name, globals_, cells, builtins_)
    return None if got is MISSING else got


def _returned_lists(call, globals_, cells, builtins_):
    """Per position, whether the user function `call` calls returns a list there
    (`structure_calls.returned_lists`), or None."""
    if not isinstance(call.func, ast.Name):
        return None
    value = lookup(call.func.id, globals_, cells, builtins_)
    if not isinstance(value, types.FunctionType) or hasattr(value, "__s2sad__") or \
            structure_calls.library_code(value):
        return None
    code = value.__code__
    if code not in _RETURNED_LISTS:
        try:
            _RETURNED_LISTS[code] = structure_calls.returned_lists(
                parse(value, containers=False).tree)
        except Exception:  # (an error of its own shows where it is compiled)
            _RETURNED_LISTS[code] = None
    return _RETURNED_LISTS[code]


_RETURNED_LISTS: dict = {}  # code object -> `_returned_lists` of its function


def _called_functions(nodes, globals_, cells, builtins_) -> list:
    """The user's functions (and namedtuple and dataclass classes) the tree of `nodes`
    calls by a free name, each with whether it builds a dict of computed values or a
    record (`structure_calls.returns_containers`) or is handed a function (``g(f, x)``)."""
    out, handed, named = [], [], {}  # (a name -> its value: looked up once)
    for node in nodes.of(ast.Call):
        if isinstance(node.func, ast.Name):
            value = lookup(node.func.id, globals_, cells, builtins_)
        elif isinstance(node.func, ast.Attribute) and \
                isinstance(node.func.value, ast.Name):  # (``module.f(...)``)
            name = node.func.value.id
            if name not in named:
                named[name] = lookup(name, globals_, cells, builtins_)
            value = getattr(named[name], node.func.attr, None) if isinstance(
                named[name], types.ModuleType) else None
        else:
            continue
        if ir_trees.is_record_type(value) or isinstance(value, types.FunctionType) and not \
                hasattr(value, "__s2sad__") and not structure_calls.library_code(value):
            out.append(value)
            handed.append(any(structure_calls.names_function(a, lambda n: lookup(
                n, globals_, cells, builtins_)) for a in node.args + node.keywords) or bool(
                structure_calls.default_functions(value, node)))  # (or a default one)
    return [h or structure_calls.returns_containers(f, lambda fn: parse(fn, containers=False))
            for f, h in zip(out, handed)]


def _indent(text: str) -> int:
    for line in text.splitlines():
        if line.strip():
            return len(line) - len(line.lstrip())
    return 0


def _name_uses(nodes) -> tuple:
    """``(stored, loaded)``: the ids the names among `nodes` store (a dict, in order)
    and, for each id they load, the first name that loads it; a comprehension's own
    variables left out (they are its own), from `Nodes.names` (read once for all the
    passes: on a long function, a pass over its nodes reads them all from memory)."""
    own = comprehension_bound(nodes)
    stored, loaded = {}, {}
    Store, Load = ast.Store, ast.Load
    for node, name, ctx in nodes.names():
        if own and id(node) in own:
            continue
        if ctx is Load:
            if name not in loaded:
                loaded[name] = node
        elif ctx is Store:
            stored[name] = None
    return stored, loaded


def _local_names(tree: ast.FunctionDef, nodes: list, stored: dict) -> set:
    a = tree.args
    out = {p.arg for p in a.posonlyargs + a.args + a.kwonlyargs} | {
        p.arg for p in (a.vararg, a.kwarg) if p is not None}
    out.update(stored)
    out.update(node.name for node in nodes.of(ast.ExceptHandler)
               if node.name)  # (`except E as e`: the kept `try`'s own)
    out.update(node.name for node in nodes.of(ast.FunctionDef)
               if node is not tree)  # (a function defined inside: a local name)
    return out


def _imported(nodes: list, local_set: set, globals_: dict) -> dict:
    """The modules and objects the ``import`` statements of the function bind, imported
    now (a name the function also assigns is a local; an import that fails now is
    left to fail, or be caught, when the derivative runs it)."""
    out = {}
    for node in nodes.of(ast.Import, ast.ImportFrom):
        for a in node.names:
            bound = a.asname or a.name.split(".")[0]
            if bound in local_set or a.name == "*":
                continue
            try:
                if isinstance(node, ast.Import):
                    module = importlib.import_module(a.name)
                    out[bound] = module if a.asname else sys.modules[bound]
                    continue
                base = importlib.import_module(
                    "." * node.level + (node.module or ""),
                    globals_.get("__package__") if node.level else None)
                value = getattr(base, a.name, MISSING)
                if value is MISSING:
                    value = importlib.import_module(f"{base.__name__}.{a.name}")
                out[bound] = value
            except (ImportError, TypeError, ValueError):
                continue
    return out


MISSING = object()  # what `lookup` gives for a name with no value (None is a value)


def cells_of(func) -> dict:
    """`func`'s closure cells by name; for a function s2sad made of the user's (a
    flat function, `api.structured`: its text is the user's), the user's function's
    too, whose closure variables the text reads though the code made of it may not
    (a function put in place of a call: guarded all the same)."""
    original = getattr(func, ORIGINAL, func)
    cells = dict(zip(original.__code__.co_freevars, original.__closure__ or ()))
    if original is not func:
        cells.update(zip(func.__code__.co_freevars, func.__closure__ or ()))
    return cells


def lookup(name, globals_, cells, builtins_=None):
    """The value of a free name: closure cell, then globals, then builtins."""
    if name in cells:
        try:
            return cells[name].cell_contents
        except ValueError:
            return MISSING
    if name in globals_:
        return globals_[name]
    b = builtins_ if builtins_ is not None else globals_.get("__builtins__", builtins)
    if isinstance(b, types.ModuleType):
        b = b.__dict__
    return b.get(name, MISSING)


# builtins that evaluate text or reach names by a string at run time
_DYNAMIC = ("eval", "exec", "compile", "locals", "vars", "globals", "__import__")


def _resolve(local_set, globals_, cells, builtins_, loc, nodes: list, loaded) -> dict:
    """The free names' values (`loaded`: `_name_uses`'), then the attribute chains'."""
    refs = {}
    for name, node in loaded.items():  # (the node read only where it is refused)
        if name not in local_set:
            value = lookup(name, globals_, cells, builtins_)
            if value is MISSING:
                raise loc.error(
                    UnresolvedNameError, node,
                    f"the name `{node.id}` has no value here (not a local, global, closure "
                    "variable or builtin)",
                    "Define it before the gradient is first called, or pass it as an argument.",
                )
            if any(value is getattr(builtins, b) for b in _DYNAMIC):
                # what they read or run is decided at run time: a value could flow
                # through them unseen, and its derivative be silently lost
                raise loc.error(
                    UnsupportedSyntaxError, node,
                    f"s2sad cannot differentiate code that uses `{node.id}`: it reads or runs "
                    "names chosen at run time, which s2sad cannot follow",
                    "Write the expression or the name itself.",
                )
            refs[name] = value
    seen = set()  # (a name's attribute met before: ``math.sin`` on every line calling it)
    for node in nodes.of(ast.Attribute):
        if type(node.value) is ast.Name:
            key = (node.value.id, node.attr)
            if key in seen:
                continue
            seen.add(key)
        text = ir.dotted(node)
        if text is None or text.split(".")[0] in local_set or text in refs:
            continue
        _resolve_chain(text, refs)
    return refs


def _resolve_chain(text, refs):
    parts = text.split(".")
    for i in range(2, len(parts) + 1):
        prefix = ".".join(parts[:i])
        if prefix in refs:
            continue
        owner = refs.get(".".join(parts[: i - 1]), MISSING)
        if owner is MISSING:
            return
        value = getattr(owner, parts[i - 1], MISSING)
        if value is MISSING:
            return
        refs[prefix] = value
