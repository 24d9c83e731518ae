"""program: a function and the user functions it calls, each lowered once.

Contract
--------
`front(func)` runs parse -> anf -> dup on a Python function and returns its `Front`:
the `Parsed` (with the source info, `Front.info`), the ANF and the dup IR.

A `Program` holds the root function and the functions it calls, as `Front` records
keyed by the called object itself (two functions with the same text are two entries):

* `program.function(func)` lowers `func` the first time it is asked for and gives the
  same `Front` every time after, so a callee reached from several calls, or from
  itself, is parsed once; a function that fails to lower raises, each time it is
  asked for, and is not kept;
* `program.root` is the root's `Front`, lowered when first read;
* `program.callees(func)` lists the Python functions `func`'s IR calls by a static
  reference (``g(x)``, ``mod.g(x)``), each once, in the order of the calls. Which of
  them are user functions to differentiate, rather than functions with a rule, is
  for `analysis` to say; nothing here lowers them before they are asked for.

Later stages can ask the program for a callee's IR (`Front.dup`) and its source
(`Front.info`) instead of parsing the live function again.
"""

from __future__ import annotations

import ast
import types
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
    """The root function and the functions it calls, as IR. See the module docstring."""

    def __init__(self, root=None):
        self.root_func = root
        self.fronts: dict = {}  # the function object -> its Front, in the order lowered

    @property
    def root(self) -> Front:
        if self.root_func is None:
            raise ValueError("this program has no root function")
        return self.function(self.root_func)

    def function(self, func) -> Front:
        got = self.fronts.get(func)
        if got is None:
            got = self.fronts[func] = front(func)
        return got

    def callees(self, func) -> list:
        fn = self.function(func).dup
        out = []
        for stmt in ir.walk(fn.body):
            for expr in ir.exprs(stmt):
                for node in ast.walk(expr):
                    if not isinstance(node, ast.Call):
                        continue
                    obj = fn.refs.get(ir.dotted(node.func))
                    if isinstance(obj, types.FunctionType) and \
                            not any(obj is o for o in out):
                        out.append(obj)
        return out

    def __contains__(self, func) -> bool:
        return func in self.fronts

    def __iter__(self):
        """The `Front`s lowered so far, in the order they were lowered."""
        return iter(list(self.fronts.values()))

    def __len__(self) -> int:
        return len(self.fronts)
