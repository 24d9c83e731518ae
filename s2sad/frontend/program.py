"""program: a function and the user functions it calls, each lowered once.

Contract
--------
`front(func)` runs parse -> anf -> dup on a Python function and returns its `Front`:
the `Parsed` (with the source info, `Front.info`), the ANF and the dup IR.

A `Program` holds the root function of a derivative and the functions it calls, as
`Front` records keyed by the called object itself (two functions with the same text
are two entries): `program.function(func)` lowers `func` the first time it is asked
for and gives the same `Front` every time after, so a callee reached from several
calls, or from itself, is parsed once; a function that fails to lower raises, each
time it is asked for, and is not kept.

Later stages can ask the program for a callee's IR (`Front.dup`) and its source
(`Front.info`) instead of parsing the live function again.
"""

from __future__ import annotations

from dataclasses import dataclass

from .. import ir
from . import anf, dup, parse


@dataclass(eq=False)
class Front:
    """A function's front: its parse, ANF and dup stages."""

    func: object
    parsed: parse.Parsed
    anf: ir.Function
    dup: ir.Function

    @property
    def info(self) -> ir.SourceInfo:
        """Where the function's source is: file, lines, qualified name."""
        return self.parsed.info


def front(func) -> Front:
    """Run parse -> anf -> dup on the Python function `func`."""
    parsed = parse.parse(func)
    a = anf.to_anf(parsed)
    return Front(func, parsed, a, dup.insert_dups(a))


class Program:
    """The functions of one derivative, as IR. See the module docstring."""

    def __init__(self):
        self.fronts: dict = {}  # the function object -> its Front, in the order lowered

    def function(self, func) -> Front:
        got = self.fronts.get(func)
        if got is None:
            got = self.fronts[func] = front(func)
        return got
