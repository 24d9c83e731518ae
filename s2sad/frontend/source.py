"""source: the lines of a function's text, as `inspect.getsourcelines` gives them,
without tokenizing the function where its code says where it ends.

Contract
--------
`source_lines(func)` returns exactly what ``inspect.getsourcelines(func)`` returns
(the lines, and the number of the first one), or raises what it raises.

`inspect` finds the first line from the code object and the last by tokenizing
from there to the end of the block: a fortieth of the first call of a long
function's gradient. Where the code object's positions end at a line after which
the next line that is neither blank nor a comment is indented no deeper than the
first line (or there is none), that line ends the block as the tokenizer would find
it; anything else (a last ``pass`` the compiler dropped, a lambda, a text the
positions do not reach, Python 3.10's code, which has no positions) is left to
`inspect`.
"""

from __future__ import annotations

import inspect
import types


def source_lines(func) -> tuple:
    """``inspect.getsourcelines(func)`` (see the module docstring)."""
    if not isinstance(func, types.FunctionType) or hasattr(func, "__wrapped__") \
            or func.__code__.co_name == "<lambda>":
        return inspect.getsourcelines(func)
    lines, start = inspect.findsource(func)
    end = _block_end(lines, start, func.__code__)
    if end is None:
        return inspect.getblock(lines[start:]), start + 1
    return lines[start:end], start + 1


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
