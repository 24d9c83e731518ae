"""program: a function and the user functions it calls, each lowered once.

Contract
--------
`front(func)` runs parse -> anf -> dup on a Python function and returns its `Front`:
the `Parsed` (with the source info, `Front.info`), the ANF and the dup IR.

A `Program` holds the root function of a derivative and the functions it calls, as
`Front` records keyed by the called object itself (two functions with the same text
are two entries) and the classes of its parameters that are objects of the user's
(`classes`: a method called on one is resolved through its class, so the front of
``loss(self, ...)`` for one class is not that for another): `program.function(func,
kinds)` lowers `func` the first time it is asked for with those classes and gives the
same `Front` every time after, so a callee reached from several calls, or from
itself, is parsed once; a function that fails to lower raises, each time it is asked
for, and is not kept.

Later stages can ask the program for a callee's IR (`Front.dup`) and its source
(`Front.info`) instead of parsing the live function again.
"""

from __future__ import annotations

from dataclasses import dataclass

from .. import ir
from ..ir.kinds import ObjectKind
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


def front(func, classes=()) -> Front:
    """Run parse -> anf -> dup on the Python function `func` (`classes`: `classes`'s)."""
    parsed = parse.parse(func, classes=dict(classes))
    a = anf.to_anf(parsed)
    return Front(func, parsed, a, dup.insert_dups(a))


class Program:
    """The functions of one derivative, as IR. See the module docstring."""

    def __init__(self):
        self.fronts: dict = {}  # the function (with `classes`) -> its Front, in order lowered

    def function(self, func, kinds=None) -> Front:
        """The front of `func` whose parameters have these `kinds` (only the classes
        of objects among them matter, `classes`)."""
        objects = classes(kinds) if kinds else ()
        key = (func, objects) if objects else func
        got = self.fronts.get(key)
        if got is None:
            got = self.fronts[key] = front(func, objects)
        return got


    def bound_names(self) -> dict:
        """{id of a function: the names its fronts bind that no derivative function
        of it may bind itself}: those an ``import`` inside binds and the classes it
        reads by name to call their methods (`parse.Parsed.classes`)."""
        out: dict = {}
        for fr in self.fronts.values():
            out.setdefault(id(fr.func), set()).update(fr.parsed.imported, fr.parsed.classes)
        return out


def classes(kinds: dict) -> tuple:
    """``((parameter, class), ...)``: the parameters of these `kinds` that are objects
    of the user's (`ObjectKind`), with their classes, in the order of `kinds`."""
    return tuple((p, k.cls) for p, k in kinds.items() if isinstance(k, ObjectKind))
