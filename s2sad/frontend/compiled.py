"""compiled: the code a function's text compiles to, for `parse.check_source`.

Contract
--------
* `code_digest(code)`: a function's bytecode (its instructions, names, constants and
  nested functions; not its line numbers) as text that is the same in every process:
  two code objects with the same digest compute the same. The disk cache keys its
  entries by it.
* `code_of_text(code, lines, module=None)`: the code objects named as `code` that the
  function text `lines` compiles to on its own, compiled as Python compiled `code`
  (its `__future__` flags, its free variables as cells of an enclosing function):
  how a statement compiled by itself (a notebook, a REPL, ``exec`` of one
  statement) compiles. Given `module`, ``ast.parse`` of that text (its lines shifted
  by blank lines before it, and not changed since), it compiles that tree instead of
  parsing the text again (the same code objects, with the tree's lines), unless the
  code has free variables (the text is then indented into an enclosing function,
  and with it the continuation lines of its strings).
* `code_in_file(code, func_globals)`: the code objects the whole text of `code`'s
  file (as `linecache` has it) compiles to whose name and first line are `code`'s;
  None where that text does not compile.
* `FUTURE_FLAGS`: every ``__future__`` compiler flag.

Imports nothing of s2sad.
"""

from __future__ import annotations

import __future__
import hashlib
import linecache
import textwrap
import types


def _sha(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8", "surrogatepass")).hexdigest()


def _const_text(value) -> str:
    if isinstance(value, types.CodeType):
        return code_digest(value)
    if isinstance(value, (tuple, frozenset)):
        parts = [_const_text(v) for v in value]
        if isinstance(value, frozenset):  # its order depends on string hashing
            parts.sort()
        return f"{type(value).__name__}({','.join(parts)})"
    return repr(value)


def code_digest(code) -> str:
    """The bytecode of a function as text (see the module docstring); `check_source`
    compares the code a function's text compiles to with the code that runs."""
    return _sha("\n".join([code.co_code.hex(), repr(code.co_names), repr(code.co_varnames),
                           repr(code.co_freevars)] + [_const_text(c) for c in code.co_consts]))


FUTURE_FLAGS = 0
for _feature in __future__.all_feature_names:
    FUTURE_FLAGS |= getattr(__future__, _feature).compiler_flag

_ENCLOSING = "__s2sad_enclosing__"


def code_of_text(code, lines, module=None) -> list:
    """The code objects `lines` (or `module`, its tree) compiles to, named as `code`
    (see the module docstring)."""
    source = module
    if module is None or code.co_freevars:
        source = textwrap.dedent("".join(lines))
    if code.co_freevars:  # (indented as a whole, the text of its strings too)
        source = (f"def {_ENCLOSING}():\n    {' = '.join(code.co_freevars)} = None\n"
                  + textwrap.indent(source, "    "))
    try:
        compiled = compile(source, code.co_filename, "exec",
                           flags=code.co_flags & FUTURE_FLAGS, dont_inherit=True)
    except (SyntaxError, ValueError):
        return []
    scope = compiled
    if code.co_freevars:
        scope = next((c for c in compiled.co_consts if isinstance(c, types.CodeType)
                      and c.co_name == _ENCLOSING), None)
    return [c for c in (scope.co_consts if scope else ()) if isinstance(c, types.CodeType)
            and c.co_name == code.co_name]


_compiled_files: dict = {}  # file name -> (its lines, their code objects by (name, line))


def code_in_file(code, func_globals):
    """The code objects Python compiles the text of `code`'s file to (as
    `inspect.getsourcelines` reads it: `linecache`), whose name and first line are
    `code`'s; None when the text does not compile (how a module imported from the
    file compiles)."""
    filename = code.co_filename
    lines = linecache.getlines(filename, func_globals)
    got = _compiled_files.get(filename)
    if got is None or got[0] is not lines:
        try:
            module = compile("".join(lines), filename, "exec", dont_inherit=True)
        except (SyntaxError, ValueError):
            module = None
        found: dict = {}
        todo = [module] if module is not None else []
        while todo:
            c = todo.pop()
            found.setdefault((c.co_name, c.co_firstlineno), []).append(c)
            todo.extend(k for k in c.co_consts if isinstance(k, types.CodeType))
        got = _compiled_files[filename] = (lines, found if module is not None else None)
    if got[1] is None:
        return None
    return got[1].get((code.co_name, code.co_firstlineno), [])
