"""Run a function's dup-stage IR (`s2sad.ir`) statement by statement.

Contract
--------
`run_ir(fn, namespace, args, copy)` executes the `ir.Function` `fn` (the dup stage,
or any stage before `reverse`) on the parameter values `args` (a dict name ->
value, traced or not), evaluating each statement's `ast.expr` with Python in
`namespace` (the names the function sees as globals: pass a shimmed namespace to
run on traced values). A `Dup` statement gives each copy ``copy(value)``; pass the
tape engine's `dup` to give every copy its own node and adjoint.

It returns an `IRRun`: the returned value, the parameters' values, and every run of
every statement, kept apart: `at` maps ``(id(stmt), path)`` to the values of the
names the statement assigned in that run ({} for a statement that assigns none),
where `path` numbers the iterations of the loops around the statement, outermost
first, from 1 (``()`` outside loops); a statement runs at most once per path, and
one that has no entry did not run there. A loop's entry at its own path holds the
initial values of its loop-carried names; its entry at each iteration's path, its
target and the carried values the iteration starts with. A ``while`` loop's `cond`
runs at ``path + (k,)`` before iteration k and once more, at ``k = iterations + 1``,
when its test ends the loop. `iterations` maps ``(id(loop), path)`` to how many
iterations the loop began there.

Loops are `ir.Loop` (``for`` over `iter`, or ``while`` with `cond` and `test`);
every path through a body ends with an `ir.Exit`, whose copies assign the
loop-carried names in order. This module reads the IR's data classes only; it
imports nothing from the compiler pipeline.
"""

from __future__ import annotations

import ast
from dataclasses import dataclass, field

from .. import ir
from .primitives import EngineError


@dataclass
class IRRun:
    output: object = None
    params: dict = field(default_factory=dict)
    at: dict = field(default_factory=dict)  # (id(stmt), path) -> {name: value}
    iterations: dict = field(default_factory=dict)  # (id(loop), path) -> iterations begun


class _Break(Exception):
    pass


class _Continue(Exception):
    pass


class _Return(Exception):
    def __init__(self, value):
        self.value = value


class _Runner:
    def __init__(self, fn: ir.Function, namespace: dict, copy):
        self.fn = fn
        self.globals = namespace
        self.copy = copy
        self.safe = {}  # IR local name -> Python identifier
        for n in sorted(ir.local_names(fn)):
            self.safe[n] = f"_l{len(self.safe)}_" + "".join(c if c.isalnum() else "_" for c in n)
        self.env = {}  # Python identifier -> value
        self.codes = {}  # id(expr) -> (code, expr): holding expr keeps its id unique
        self.result = IRRun()
        self.path = ()  # the iteration numbers of the loops around the running statement

    # values
    def set(self, name, value, stmt):
        self.env[self.safe[name]] = value
        self.result.at.setdefault((id(stmt), self.path), {})[name] = value

    def get(self, name):
        try:
            return self.env[self.safe[name]]
        except KeyError:
            raise UnboundLocalError(f"local variable {name.split('%')[0]!r} referenced "
                                    "before assignment") from None

    def eval(self, expr: ast.expr):
        code = self.codes.get(id(expr))
        if code is None:
            tree = ir.copy_tree(ir.substitute(expr, self.safe))
            tree = ast.fix_missing_locations(ast.Expression(body=tree))
            code = self.codes[id(expr)] = (compile(tree, f"<{self.fn.name} dup stage>", "eval"),
                                           expr)
        return eval(code[0], self.globals, self.env)

    # statements
    def block(self, body):
        for stmt in body:
            self.stmt(stmt)

    def stmt(self, s):
        if isinstance(s, ir.Comment):
            return
        self.result.at.setdefault((id(s), self.path), {})
        if isinstance(s, ir.Assign):
            value = self.eval(s.value)
            if s.unpack:
                items = tuple(value)
                if len(items) != len(s.targets):
                    raise ValueError(f"cannot unpack {len(items)} values into "
                                     f"{len(s.targets)} names")
                for t, v in zip(s.targets, items):
                    self.set(t, v, s)
            else:
                self.set(s.targets[0], value, s)
        elif isinstance(s, ir.Dup):
            value = self.get(s.source)
            for t in s.targets:
                self.set(t, self.copy(value), s)
        elif isinstance(s, ir.AugAssign) and isinstance(s.target, str):
            self.set(s.target, self.get(s.target) + self.eval(s.value), s)
        elif isinstance(s, ir.Expr):
            self.eval(s.value)
        elif isinstance(s, ir.Kept):
            # (its own names are renamed as the IR's; each of its reads is an argument)
            scope = dict(self.env)
            scope.update({f"_kept{i}": self.eval(a) for i, a in enumerate(s.args)})
            tree = ir.copy_tree(s.stmt)
            for n in ast.walk(tree):
                if isinstance(n, ast.Name):
                    n.id = n.id.replace(ir.KEPT_ARG, "_kept") if n.id.startswith(
                        ir.KEPT_ARG) else self.safe.get(n.id, n.id)
            module = ast.fix_missing_locations(ast.Module(body=[tree], type_ignores=[]))
            exec(compile(module, f"<{self.fn.name} dup stage>", "exec"), self.globals, scope)
            for t in s.defines:
                if self.safe[t] in scope:
                    self.set(t, scope[self.safe[t]], s)
        elif isinstance(s, ir.If):
            self.block(s.body if self.eval(s.test) else s.orelse)
        elif isinstance(s, ir.Loop):
            self.loop(s)
        elif isinstance(s, ir.Exit):
            self.block(s.copies)
            if s.brk:
                raise _Break
            raise _Continue
        elif isinstance(s, ir.Return):
            raise _Return(self.eval(s.value))
        else:
            raise EngineError(f"the IR runner does not know the statement "
                              f"{type(s).__name__}")

    def loop(self, s: ir.Loop):
        for phi in s.phis:
            if phi.init is not None:
                self.set(phi.name, self.eval(phi.init), s)
        outer, count = self.path, 0
        try:
            if s.iter is not None:
                for value in self.eval(s.iter):
                    count = self.begin(s, outer, count)
                    if s.target:
                        self.set(s.target, value, s)
                    self.iteration(s.body)
            else:
                while True:
                    self.path = outer + (count + 1,)
                    self.block(s.cond)
                    if not self.eval(s.test):
                        break
                    count = self.begin(s, outer, count)
                    self.iteration(s.body)
        except _Break:
            pass
        finally:
            self.path = outer
            self.result.iterations[(id(s), outer)] = count

    def begin(self, s: ir.Loop, outer: tuple, count: int) -> int:
        """Start iteration ``count + 1`` of `s`, recording the carried values it reads."""
        count += 1
        self.path = outer + (count,)
        got = self.result.at.setdefault((id(s), self.path), {})
        for phi in s.phis:
            if self.safe[phi.name] in self.env:
                got[phi.name] = self.env[self.safe[phi.name]]
        return count

    def iteration(self, body):
        try:
            self.block(body)
        except _Continue:
            pass


def run_ir(fn: ir.Function, namespace: dict, args: dict, copy=lambda v: v) -> IRRun:
    """Execute `fn` (see the module docstring)."""
    runner = _Runner(fn, namespace, copy)
    for p in fn.params:
        if p.name not in args:
            raise EngineError(f"no value for parameter {p.name!r} of {fn.name}")
        runner.env[runner.safe[p.name]] = args[p.name]
        runner.result.params[p.name] = args[p.name]
    try:
        runner.block(fn.body)
    except _Return as r:
        runner.result.output = r.value
    return runner.result
