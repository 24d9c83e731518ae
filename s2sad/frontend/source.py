"""source: the lines of a function's text, as `inspect.getsourcelines` gives them,
without tokenizing the function where its code says where it ends.

Contract
--------
`source_lines(func)` returns exactly what ``inspect.getsourcelines(func)`` returns
(the lines, and the number of the first one), or raises what it raises. For a
decorator's wrapper (``functools.wraps``), those are the wrapped function's lines:
`check_wrapper` first refuses (`NotDifferentiableError`) a wrapper of the user's
that does more than return the wrapped function's call on its own arguments.

`inspect` finds the first line from the code object and the last by tokenizing
from there to the end of the block: a fortieth of the first call of a long
function's gradient. Where the code object's positions end at a line after which
the next line that is neither blank nor a comment is indented no deeper than the
first line (or there is none), that line ends the block as the tokenizer would find
it; anything else (a last ``pass`` the compiler dropped, a lambda, a text the
positions do not reach, Python 3.10's code, which has no positions) is left to
`inspect`. Imports `errors` and `structure_calls` (`library_code`).
"""

from __future__ import annotations

import ast
import inspect
import linecache
import textwrap
import types

from ..errors import NotDifferentiableError
from . import structure_calls


def source_lines(func) -> tuple:
    """``inspect.getsourcelines(func)`` (see the module docstring)."""
    if isinstance(func, types.FunctionType) and hasattr(func, "__wrapped__") and \
            not hasattr(func, "__s2sad__"):
        check_wrapper(func)
    if not isinstance(func, types.FunctionType) or hasattr(func, "__wrapped__") \
            or func.__code__.co_name == "<lambda>":
        return inspect.getsourcelines(func)
    lines, start = inspect.findsource(func)
    end = _block_end(lines, start, func.__code__)
    if end is None:
        return inspect.getblock(lines[start:]), start + 1
    return lines[start:end], start + 1


def check_wrapper(func):
    """Refuse `func`, a wrapper a decorator of the user's made with `functools.wraps`
    (whose text `inspect` reads is the function it wraps, not its own), unless all it
    does with its result is call the wrapped function with its own arguments, as they
    came, and return what that returns (a timer, a logger): anything else it does to
    the result would be missing from the derivative."""
    code, wrapped = func.__code__, func.__wrapped__
    if structure_calls.library_code(func):
        return
    try:
        cells = [c.cell_contents for c in func.__closure__ or ()]
        tree = ast.parse(textwrap.dedent("".join(inspect.getsourcelines(code)[0])))
    except (ValueError, OSError, TypeError, SyntaxError):
        tree = None
    fdef = tree.body[0] if tree is not None and tree.body else None
    # (a default of the wrapper's own, ``def w(x, c=10.0): return fn(x, c)``, is a
    # value the wrapped function's text does not have)
    if isinstance(fdef, (ast.FunctionDef, ast.AsyncFunctionDef)) and _forwards(
            fdef, {n for n, v in zip(code.co_freevars, cells) if v is wrapped}) \
            and not func.__defaults__ and not func.__kwdefaults__:
        return
    raise NotDifferentiableError(
        f"`{func.__qualname__}` is `{getattr(code, 'co_qualname', code.co_name)}`, a "
        "wrapper a decorator made, which does more than call the function it wraps and "
        "return its result (or gives a parameter a default of its own): s2sad reads the "
        "text of the wrapped function, and would miss what the wrapper does", filename=code.co_filename,
        lineno=code.co_firstlineno, source_line=linecache.getline(
            code.co_filename, code.co_firstlineno).rstrip("\n") or None, hint="Do that work in the function itself, or "
        "differentiate the undecorated function (`f.__wrapped__`). A decorator that "
        "returns `f(*args, **kwargs)` as it is (timing or logging around it) is fine.")


def _forwards(fdef, names) -> bool:
    """Does the function `fdef` return only the call of one of `names` with its own
    parameters, unchanged (``return f(*args, **kwargs)``, or ``r = f(*args,
    **kwargs)`` and ``return r``)?"""
    a = fdef.args
    own = [p.arg for p in a.posonlyargs + a.args] + \
        ([f"*{a.vararg.arg}"] if a.vararg else []) + \
        [f"{p.arg}={p.arg}" for p in a.kwonlyargs] + ([f"**{a.kwarg.arg}"] if a.kwarg else [])
    params = {p.arg for p in ast.walk(a) if isinstance(p, ast.arg)}
    nodes = [n for stmt in fdef.body for n in ast.walk(stmt)]
    if any(isinstance(n, ast.Name) and isinstance(n.ctx, ast.Store) and n.id in params
           for n in nodes):
        return False

    def forwarded(e) -> bool:
        return isinstance(e, ast.Call) and isinstance(e.func, ast.Name) and \
            e.func.id in names and ast.unparse(e) == f"{e.func.id}({', '.join(own)})"

    # (its parameters read only where it forwards them, or to report them: a wrapper
    # that hands them to anything else may change them, `setattr(args[0], ...)`)
    kept = {id(m) for n in nodes if forwarded(n) or _reports(n) for m in ast.walk(n)}
    if any(isinstance(n, ast.Name) and n.id in params and id(n) not in kept for n in nodes):
        return False
    results = {}
    for n in nodes:
        if isinstance(n, (ast.Assign, ast.AnnAssign, ast.AugAssign, ast.NamedExpr)):
            for t in ([n.target] if not isinstance(n, ast.Assign) else n.targets):
                if isinstance(t, ast.Name):
                    ok = isinstance(n, ast.Assign) and forwarded(n.value) and len(n.targets) == 1
                    results[t.id] = results.get(t.id, True) and ok
    returns = [n for n in nodes if isinstance(n, ast.Return)]
    return bool(returns) and all(
        forwarded(r.value) or isinstance(r.value, ast.Name) and results.get(r.value.id)
        for r in returns)


_REPORTS = {"print", "debug", "info", "warning", "error", "critical", "exception", "log",
            "warn"}


def _reports(node) -> bool:
    """Is `node` text made of what it reads (an f-string) or a call that only reports
    (``print(...)``, ``log.info(...)``, ``warnings.warn(...)``)?"""
    if isinstance(node, ast.JoinedStr):
        return True
    if not isinstance(node, ast.Call):
        return False
    func = node.func
    name = func.id if isinstance(func, ast.Name) else \
        func.attr if isinstance(func, ast.Attribute) else None
    return name in _REPORTS


def _block_end(lines, start, code) -> int | None:
    """The index after the block's last line, where the code's positions show it
    (see the module docstring); None where they may not."""
    last = _last_line(code)
    if last is None or last <= max(start, code.co_firstlineno) or last > len(lines) \
            or "\t" in _lead(lines[start]):
        return None  # (a body the compiler left no line of: a docstring, a `pass`)
    indent = len(_lead(lines[start]))
    for line in lines[last:]:
        text = line.strip()
        if not text:
            continue
        if text.startswith("#"):
            return None  # (`inspect` keeps a comment indented as the body)
        lead = _lead(line)
        return last if len(lead) <= indent and "\t" not in lead else None
    return last


def _last_line(code) -> int | None:
    """The last line any instruction of `code` or of the code nested in it spans; None
    before Python 3.11, whose code objects have no positions (`inspect` then)."""
    if not hasattr(code, "co_positions"):
        return None
    last = max((p[1] for p in code.co_positions() if p[1] is not None), default=None)
    for c in code.co_consts:
        if isinstance(c, types.CodeType):
            inner = _last_line(c)
            if inner is not None and (last is None or inner > last):
                last = inner
    return last


def _lead(line: str) -> str:
    return line[:len(line) - len(line.lstrip(" \t"))]
