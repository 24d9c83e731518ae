"""graphs: a function's computation graph (its dup stage) as Graphviz dot text.

Contract
--------
* `graph(f, wrt=0, at=None) -> str` draws the dup stage of `f` (what
  ``s2sad show --stage dup`` prints, names rendered the same way): one node per
  parameter and per statement (``t1 = x_a * y``), an edge from the statement that
  defines each variable to every statement that reads it. A ``dup`` is a diamond
  with one out-edge per copy, so a value used twice is one node whose copies fan
  out. An ``if`` is a cluster holding a ``then`` and an ``else`` cluster; a name
  both branches assign meets in a join node (φ) where it is read afterwards. A loop
  is a cluster; its loop-carried values are dashed nodes, fed back by dashed edges
  from the end of each iteration. Parameters in `wrt` are drawn bold.
* With `at` (a tuple of argument values) every node that ran is labelled with its
  value and its adjoint (the derivative of the output with respect to it), computed
  by running the dup stage on the tape engine (`s2sad.engines`), not with the
  compiler's reverse output. Statements in a loop show their last iteration; a
  statement that did not run says so.
* `render(dot_text, path, fmt=None) -> bool` runs Graphviz's ``dot`` to write an
  SVG, PNG or PDF (format from the suffix of `path` unless `fmt` is given). Without
  ``dot`` installed it prints how to install Graphviz to stderr and returns False.

The IR is read, never changed.
"""

from __future__ import annotations

import inspect
import os
import shutil
import subprocess
import sys

import numpy as np

from ..backend import emit
from .. import ir
from ..frontend import program
from ..engines import args as engine_args
from ..engines.irrun import run_ir
from ..engines.primitives import EngineError
from ..engines.shim import Shim
from ..engines.tape import Tape, Var
from ..engines.tape import dup as tape_dup
from ..errors import S2SADError

INSTALL_HINT = (
    "Graphviz's `dot` program is not installed, so the graph was not rendered. Install "
    "Graphviz (`apt install graphviz` on Debian and Ubuntu, `brew install graphviz` on "
    "macOS, or see https://graphviz.org/download/); `pip install graphviz` is not enough, "
    "it needs the program. The dot text can also be pasted into any Graphviz viewer.")


# ------------------------------------------------------------------ values


class _Values:
    """Values and adjoints of one run of the dup stage on the tape engine."""

    def __init__(self, run, adjoints):
        self.run = run
        self.adj = adjoints

    def lines(self, value) -> list:
        """``= value`` and, for a value that depends on `wrt`, ``adj adjoint``."""
        out = [f"= {_show(value)}"]
        adj = self.adjoint(value)
        if adj is not None:
            out.append(f"adj {adj}")
        return out

    def adjoint(self, value):
        if self.adj is None:
            return None
        if isinstance(value, Var):
            got = self.adj[value.index]
            return _show(0.0 if got is None else got)
        if isinstance(value, tuple) and any(isinstance(v, Var) for v in value):
            return "(" + ", ".join(self.adjoint(v) or "-" for v in value) + ")"
        return None


def _show(value) -> str:
    value = value.value if isinstance(value, Var) else value
    if isinstance(value, bool) or value is None:
        return str(value)
    if isinstance(value, (float, np.floating)):
        text = f"{float(value):.6g}"
        return text if any(c in text for c in ".ein") else text + ".0"
    if isinstance(value, np.ndarray):
        return np.array2string(value, precision=4, threshold=6)
    if isinstance(value, (tuple, list)):
        inner = ", ".join(_show(v) for v in value[:4]) + (", ..." if len(value) > 4 else "")
        return f"({inner})" if isinstance(value, tuple) else f"[{inner}]"
    text = repr(value)
    return text if len(text) <= 40 else text[:37] + "..."


def _evaluate(f, fn: ir.Function, wrt, at) -> _Values:
    at = tuple(at)
    positions, _ = engine_args.wrt_positions(f, wrt, len(at))
    engine_args.check_values(f, at, positions)
    signature = inspect.signature(f)
    bound = signature.bind(*at)
    bound.apply_defaults()
    params = dict(bound.arguments)
    names = list(signature.parameters)
    tape = Tape()
    for pos in positions:
        params[names[pos]] = engine_args.lift(at[pos], tape.leaf)
    try:
        run = run_ir(fn, Shim().namespace_of(f), params, copy=tape_dup)
    except S2SADError:
        raise
    except Exception as exc:
        raise EngineError(f"graph: running {fn.name} at {at} raised "
                          f"{type(exc).__name__}: {exc}") from None
    out = run.output
    adjoints = None
    if isinstance(out, Var) and np.ndim(out.value) == 0:
        adjoints = tape.backward(out.index)
    return _Values(run, adjoints)


# ------------------------------------------------------------------ drawing


def _quote(text: str) -> str:
    return '"' + text.replace("\\", "\\\\").replace('"', '\\"').replace("\n", "\\n") + '"'


def _attributes(**attrs) -> str:
    if not attrs:
        return ""
    return " [" + ", ".join(f"{k}={_quote(str(v))}" for k, v in attrs.items()) + "]"


class _Drawing:
    def __init__(self, fn: ir.Function, namer, values: _Values | None, wrt_names):
        self.fn = fn
        self.namer = namer
        self.expr = emit.ExprPrinter(namer)
        self.values = values
        self.wrt = set(wrt_names)
        self.locals = ir.local_names(fn)
        self.lines: list[str] = []  # nodes, in their clusters
        self.edges: list[str] = []  # drawn at the top level: an edge named in a cluster
        self.depth = 1              # would pull both its nodes into that cluster
        self.count = 0
        self.defs: dict = {}  # IR name -> node id, or a list of node ids to join
        self.clusters = 0
        self.phis: dict = {}  # loop-carried IR name -> its node

    # output
    def put(self, text):
        self.lines.append("  " * self.depth + text)

    def node(self, label_lines, **attrs) -> str:
        self.count += 1
        nid = f"n{self.count}"
        self.put(f"{nid}{_attributes(label=chr(10).join(label_lines), **attrs)};")
        return nid

    def edge(self, a, b, **attrs):
        self.edges.append(f"  {a} -> {b}{_attributes(**attrs)};")

    def open_cluster(self, label, **attrs):
        self.clusters += 1
        self.put(f"subgraph cluster_{self.clusters} {{")
        self.depth += 1
        self.put(f"label={_quote(label)};")
        for k, v in attrs.items():
            self.put(f"{k}={_quote(v)};")

    def close_cluster(self):
        self.depth -= 1
        self.put("}")

    # names
    def show(self, name: str) -> str:
        return self.namer(name)

    def source(self, name: str):
        """The node that defines `name` here (making a join node when branches meet)."""
        got = self.defs.get(name)
        if isinstance(got, list):
            label = [f"φ {self.show(name)}"] + self.final_lines(name)
            join = self.node(label, shape="circle", style="dashed")
            for alt in got:
                self.edge(alt, join, style="dashed")
            self.defs[name] = got = join
        return got

    def reads(self, expr) -> list:
        out = []
        for n in ir.local_reads(expr, lambda n: n in self.locals):
            if n not in out:
                out.append(n)
        return out

    def connect(self, expr, target):
        for n in self.reads(expr):
            src = self.source(n)
            if src is not None:
                self.edge(src, target)

    # labels with values
    def stmt_lines(self, stmt, names) -> tuple:
        if self.values is None:
            return [], {}
        runs = self.values.run.runs.get(id(stmt), 0)
        if runs == 0:
            return ["(not run)"], {"color": "gray60", "fontcolor": "gray50"}
        got = self.values.run.values.get(id(stmt), {})
        lines = []
        for n in names:
            if n in got:
                prefix = f"{self.show(n)} " if len(names) > 1 else ""
                lines += [prefix + text for text in self.values.lines(got[n])]
        if runs > 1:
            lines.append(f"(last of {runs} runs)")
        return lines, {}

    def final_lines(self, name) -> list:
        if self.values is None or name not in self.values.run.final:
            return []
        return self.values.lines(self.values.run.final[name])

    # statements
    def params(self):
        for p in self.fn.params:
            lines = [self.show(p.name)]
            attrs = {"shape": "ellipse"}
            if p.name in self.wrt:
                attrs.update(penwidth="2.5", style="bold")
                lines[0] += " (wrt)"
            if self.values is not None and p.name in self.values.run.params:
                lines += self.values.lines(self.values.run.params[p.name])
            self.defs[p.name] = self.node(lines, **attrs)

    def block(self, body):
        for s in body:
            self.stmt(s)

    def stmt(self, s):
        if isinstance(s, ir.Assign):
            names = list(s.targets)
            lhs = ", ".join(self.show(t) for t in names)
            extra, attrs = self.stmt_lines(s, names)
            nid = self.node([f"{lhs} = {self.expr(s.value)}"] + extra, shape="box", **attrs)
            self.connect(s.value, nid)
            for t in names:
                self.defs[t] = nid
        elif isinstance(s, ir.Dup):
            extra, attrs = self.stmt_lines(s, [])
            nid = self.node(["dup"] + extra, shape="diamond", style="filled",
                            fillcolor="#fff2b3", **attrs)
            src = self.source(s.source)
            if src is not None:
                self.edge(src, nid)
            got = self.values.run.values.get(id(s), {}) if self.values else {}
            for t in s.targets:
                lines = [self.show(t)]
                if t in got:
                    lines += self.values.lines(got[t])
                copy = self.node(lines, shape="ellipse", style="filled", fillcolor="#fffbe6",
                                 **attrs)
                self.edge(nid, copy)
                self.defs[t] = copy
        elif isinstance(s, (ir.Expr, ir.Return)):
            text = self.expr(s.value)
            extra, attrs = self.stmt_lines(s, [])
            if isinstance(s, ir.Return):
                if self.values is not None and self.values.run.runs.get(id(s)):
                    extra = self.values.lines(self.values.run.output)
                nid = self.node([f"return {text}"] + extra, shape="box", peripheries="2",
                                **attrs)
            else:
                nid = self.node([text] + extra, shape="box", style="rounded", **attrs)
            self.connect(s.value, nid)
        elif isinstance(s, ir.If):
            self.branch(s)
        elif isinstance(s, ir.Loop):
            self.loop(s)
        elif isinstance(s, ir.Exit):
            self.exit(s)
        elif isinstance(s, ir.AugAssign) and isinstance(s.target, str):
            extra, attrs = self.stmt_lines(s, [s.target])
            nid = self.node([f"{self.show(s.target)} += {self.expr(s.value)}"] + extra,
                            shape="box", **attrs)
            self.connect(s.value, nid)
            src = self.source(s.target)
            if src is not None:
                self.edge(src, nid)
            self.defs[s.target] = nid
        # comments and anything else print nothing

    def branch(self, s: ir.If):
        test = self.expr(s.test)
        self.open_cluster(f"if {test}", style="rounded", color="gray50")
        extra, attrs = self.stmt_lines(s, [])
        nid = self.node([f"if {test}"] + extra, shape="diamond", **attrs)
        self.connect(s.test, nid)
        before = dict(self.defs)
        outcomes = []
        for label, body in (("then", s.body), ("else", s.orelse)):
            self.defs = dict(before)
            if any(not isinstance(x, ir.Comment) for x in body):
                self.open_cluster(label, style="dashed", color="gray70")
                self.block(body)
                self.close_cluster()
            outcomes.append(self.defs)
        self.close_cluster()
        merged = {}
        for name in set(outcomes[0]) | set(outcomes[1]):
            alts = []
            for defs in outcomes:
                got = defs.get(name)
                for g in got if isinstance(got, list) else [got]:
                    if g is not None and g not in alts:
                        alts.append(g)
            merged[name] = alts[0] if len(alts) == 1 else alts
        self.defs = merged

    def loop(self, s: ir.Loop):
        if s.iter is not None:
            title = f"for {self.show(s.target)} in {self.expr(s.iter)}"
        else:
            title = "while loop"
        self.open_cluster(title, style="rounded", color="steelblue")
        for phi in s.phis:
            lines = [f"{self.show(phi.name)} (loop-carried)"]
            if phi.init is not None and not self.reads(phi.init):
                lines.append(f"starts as {self.expr(phi.init)}")
            lines += self.final_lines(phi.name)
            nid = self.node(lines, shape="ellipse", style="dashed")
            if phi.init is not None:
                self.connect(phi.init, nid)
            self.defs[phi.name] = nid
            self.phis[phi.name] = nid
        if s.iter is not None:
            extra, attrs = self.stmt_lines(s, [])
            lines = [f"{self.show(s.target)} in {self.expr(s.iter)}"]
            if self.values is not None and s.target in self.values.run.final:
                lines += [f"last {self.show(s.target)} = "
                          f"{_show(self.values.run.final[s.target])}"]
            nid = self.node(lines, shape="hexagon", **attrs)
            self.connect(s.iter, nid)
            self.defs[s.target] = nid
        else:
            self.block(s.cond)
            nid = self.node([f"while {self.expr(s.test)}"], shape="hexagon")
            self.connect(s.test, nid)
        self.block(s.body)
        self.close_cluster()
        for phi in s.phis:
            self.defs[phi.name] = self.phis[phi.name]

    def exit(self, s: ir.Exit):
        if s.brk:
            self.node(["break"], shape="plaintext")
        for copy in s.copies:
            target = self.phis.get(copy.targets[0])
            if target is None:
                self.stmt(copy)
                continue
            for n in self.reads(copy.value):
                src = self.source(n)
                if src is not None:
                    self.edge(src, target, style="dashed", constraint="false",
                              label="break" if s.brk else "next")

    def draw(self, title: str, notes: list) -> str:
        self.params()
        self.block(self.fn.body)
        head = [f"digraph {_quote(self.fn.name)} {{",
                f"  label={_quote(chr(10).join([title] + notes))};",
                '  labelloc="t";',
                '  node [fontname="Helvetica", fontsize="11"];',
                '  edge [fontname="Helvetica", fontsize="9"];']
        return "\n".join(head + self.lines + self.edges + ["}"]) + "\n"


def _has_control_flow(fn) -> tuple:
    stmts = list(ir.walk(fn.body))
    return (any(isinstance(s, ir.If) for s in stmts), any(isinstance(s, ir.Loop) for s in stmts))


def graph(f, wrt=0, at=None) -> str:
    """The dot text of `f`'s dup-stage computation graph (see the module docstring)."""
    fn = program.front(f).dup
    namer = emit.make_namer([fn])
    emit.emit_function(fn, namer)  # number temporaries as `s2sad show --stage dup` does
    nparams = len(fn.params) if at is None else len(tuple(at))
    positions, _ = engine_args.wrt_positions(f, wrt, nparams)
    names = list(inspect.signature(f).parameters)
    wrt_names = [names[p] for p in positions if p < len(names)]
    values = None if at is None else _evaluate(f, fn, wrt, at)
    notes = []
    branches, loops = _has_control_flow(fn)
    if branches:
        notes.append("if: a cluster per branch; φ joins a name both branches assign")
    if loops:
        notes.append("loops: clusters; dashed nodes carry values between iterations")
    if values is not None:
        shown = ", ".join(_show(a) for a in at)
        notes.append(f"values at ({shown}); adj = d output / d node")
        if loops:
            notes.append("inside loops: the last iteration")
        if values.adj is None:
            notes.append("no adjoints: the output is not one number that depends on wrt")
    title = f"{fn.name}({', '.join(namer(p.name) for p in fn.params)}): dup stage"
    return _Drawing(fn, namer, values, wrt_names).draw(title, notes)


def render(dot_text: str, path, fmt: str | None = None) -> bool:
    """Write `dot_text` as an image with Graphviz (see the module docstring)."""
    exe = shutil.which("dot")
    if exe is None:
        print(f"s2sad: {INSTALL_HINT}", file=sys.stderr)
        return False
    fmt = fmt or os.path.splitext(str(path))[1].lstrip(".") or "svg"
    try:
        done = subprocess.run([exe, f"-T{fmt}", "-o", str(path)], input=dot_text, text=True,
                              capture_output=True, timeout=120)
    except (OSError, subprocess.SubprocessError) as exc:
        print(f"s2sad: running dot failed: {exc}", file=sys.stderr)
        return False
    if done.returncode != 0:
        print(f"s2sad: dot failed: {done.stderr.strip()}", file=sys.stderr)
        return False
    return True


__all__ = ["graph", "render", "INSTALL_HINT"]
