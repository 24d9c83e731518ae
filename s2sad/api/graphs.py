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
  from the end of each iteration. Parameters in `wrt` are drawn bold. A ``dup`` of
  an integer or a bool (a loop index, a count: never differentiated) is not drawn:
  its readers take the value from the node that defines it, by an edge labelled
  with the copy's name. Activity analysis finds the ints, given the kinds of the
  arguments `at` (without `at`, the kinds ``s2sad show`` assumes: floats).
* With `at` (a tuple of argument values) every node that ran is labelled with its
  value and its adjoint (the derivative of the output with respect to it), computed
  by running the dup stage on the tape engine (`s2sad.engines`), not with the
  compiler's reverse output. A list's adjoint is the list of its elements'
  adjoints (the gradient, for a list argument); the copies of a list are one
  object on the tape, so a copy's label points to the list's node for it.
* Every node inside a loop shows the loop's last iteration, and says so ("last of N
  iterations"); inside nested loops, the inner loop's last iteration within the
  outer loop's last. A loop-carried node shows the value that iteration starts
  with, and the value after the loop. A node that did not run in that iteration
  (a branch not taken, a statement after a ``break``) says so; so does every node
  of a loop that ran no iteration.
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
import types

import numpy as np

from ..analysis import activity
from ..backend import emit
from ..driver import stages
from .. import ir
from ..ir.kinds import INT
from ..frontend import program
from ..engines import args as engine_args
from ..engines.irrun import run_ir
from ..engines.primitives import EngineError
from ..engines.shim import Shim
from ..engines.tape import Tape, Var
from ..engines.tape import dup as tape_dup
from ..errors import S2SADError
from . import dispatch, structured
from .arguments import normalize_wrt, public, signature_params

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
        if isinstance(value, (tuple, list)) and _traced(value):
            inner = ", ".join(self.adjoint(v) or "-" for v in value[:4])
            inner += ", ..." if len(value) > 4 else ""
            return f"({inner})" if isinstance(value, tuple) else f"[{inner}]"
        return None


def _traced(value) -> bool:
    """Whether `value` is traced or a tuple or list holding a traced value."""
    if isinstance(value, (tuple, list)):
        return any(_traced(v) for v in value)
    return isinstance(value, Var)


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


class _Dot:
    """Dot text being written: nodes in nested clusters, edges at the top level."""

    def __init__(self):
        self.lines: list[str] = []  # nodes, in their clusters
        self.edges: list[str] = []  # drawn at the top level: an edge named in a cluster
        self.depth = 1              # would pull both its nodes into that cluster
        self.count = 0
        self.clusters = 0

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

    def text(self, name: str, title: str, notes: list) -> str:
        head = [f"digraph {_quote(name)} {{",
                f"  label={_quote(chr(10).join([title] + notes))};",
                '  labelloc="t";',
                '  node [fontname="Helvetica", fontsize="11"];',
                '  edge [fontname="Helvetica", fontsize="9"];']
        return "\n".join(head + self.lines + self.edges + ["}"]) + "\n"


class _Labels:
    """The value lines of `_Drawing`'s nodes, for the iteration shown (the state
    `_Drawing.__init__` sets up: `values`, `path`, `note`, `missing`, `shown`,
    `copied`)."""

    def ran(self, stmt, path=None):
        """The names `stmt` assigned in the iteration shown ({} when it assigned none),
        or None when it did not run there."""
        path = self.path if path is None else path
        if self.values is None or path is None:
            return None
        return self.values.run.at.get((id(stmt), path))

    def value_lines(self, value, name) -> list:
        """``= value`` and the adjoint; a copy of a list points to the list instead."""
        lines = self.values.lines(value)
        if name in self.copied and isinstance(value, list):
            lines = [lines[0], f"adj: see {self.show(self.copied[name])} (one list)"]
        return lines

    def stmt_lines(self, stmt, names) -> tuple:
        """The lines under a statement's first line, and its attributes: each name's
        value and adjoint in the iteration shown, and the iteration; or that it did
        not run there."""
        if self.values is None:
            return [], {}, None
        got = self.ran(stmt)
        if got is None:
            return [self.missing], {"color": "gray60", "fontcolor": "gray50"}, None
        lines = []
        for n in names:
            if n in got:
                prefix = f"{self.show(n)} " if len(names) > 1 else ""
                lines += [prefix + text for text in self.value_lines(got[n], n)]
        if self.note:
            lines.append(self.note)
        return lines, {}, got

    def remember(self, nid, got, names):
        """What node `nid` shows for `names`, from `got` (None: nothing)."""
        for n in names if got is not None else ():
            if n in got:
                self.shown[(nid, n)] = got[n]

    def carried_lines(self, s: ir.Loop, name, nid, count, entry, start) -> list:
        """A loop-carried name's value as the iteration shown starts, and after the
        loop (what an `Exit` of the last iteration assigned)."""
        if count is None:
            return [self.missing]
        if count == 0:
            if name not in entry:
                return ["(0 iterations)"]
            self.shown[(nid, name)] = entry[name]
            return self.values.lines(entry[name]) + ["(0 iterations)"]
        lines = self.values.lines(start[name]) if name in start else ["(unbound)"]
        lines.append(self.note)
        after = _MISSING
        for ex in _own_exits(s.body):
            for copy in ex.copies:
                got = self.ran(copy, self.path + (count,))
                if got and name in got:
                    after = got[name]
        if after is not _MISSING:
            lines.append(f"after the loop = {_show(after)}")
            self.shown[(nid, name)] = after
        return lines


class _Drawing(_Dot, _Labels):
    """One function's dup stage as dot text: a node per parameter and statement, an
    edge from each definition to its readers, clusters for branches and loops."""

    def __init__(self, fn: ir.Function, namer, values: _Values | None, wrt_names,
                 ints=frozenset()):
        super().__init__()
        self.fn = fn
        self.namer = namer
        self.expr = emit.ExprPrinter(namer)
        self.values = values
        self.wrt = set(wrt_names)
        self.ints = set(ints)   # IR names holding ints or bools: their dups are not drawn
        self.locals = ir.local_names(fn)
        self.defs: dict = {}  # IR name -> node id, or a list of node ids to join
        self.phis: dict = {}  # loop-carried IR name -> its node
        self.aliases: set = set()  # copies of an undrawn dup: edges from them are labelled
        self.copied: dict = {}  # copy of a list -> the name the list is shown under
        self.shown: dict = {}  # (node id, IR name) -> the value the node shows for it
        # The iteration shown: `path` numbers the iterations of the loops around the
        # statements being drawn (None: they did not run there), `note` says which
        # iteration it is, `missing` what a statement that did not run says.
        self.path = ()
        self.note = None
        self.missing = "(not run)"

    # names
    def show(self, name: str) -> str:
        return self.namer(name)

    def source(self, name: str):
        """The node that defines `name` here (making a join node when branches meet)."""
        got = self.defs.get(name)
        if isinstance(got, list):
            label = [f"φ {self.show(name)}"]
            # the branch that ran defines the name last: the alternative drawn last
            ran = [alt for alt in got if (alt, name) in self.shown]
            ran.sort(key=lambda nid: int(nid[1:]))
            if ran:
                label += self.value_lines(self.shown[(ran[-1], name)], name)
                if self.note:
                    label.append(self.note)
            join = self.node(label, shape="circle", style="dashed")
            if ran:
                self.shown[(join, name)] = self.shown[(ran[-1], name)]
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
                if n in self.aliases:
                    self.edge(src, target, label=self.show(n))
                else:
                    self.edge(src, target)

    # statements
    def params(self):
        for p in self.fn.params:
            lines = [self.show(p.name)]
            attrs = {"shape": "ellipse"}
            if p.name in self.wrt:
                attrs.update(penwidth="2.5", style="bold")
                lines[0] += " (wrt)"
            nid = self.count + 1
            if self.values is not None and p.name in self.values.run.params:
                value = self.values.run.params[p.name]
                lines += self.values.lines(value)
                self.shown[(f"n{nid}", p.name)] = value
            self.defs[p.name] = self.node(lines, **attrs)

    def block(self, body):
        for s in body:
            self.stmt(s)

    def stmt(self, s):
        if isinstance(s, ir.Assign):
            names = list(s.targets)
            lhs = ", ".join(self.show(t) for t in names)
            extra, attrs, got = self.stmt_lines(s, names)
            nid = self.node([f"{lhs} = {self.expr(s.value)}"] + extra, shape="box", **attrs)
            self.remember(nid, got, names)
            self.connect(s.value, nid)
            for t in names:
                self.defs[t] = nid
        elif isinstance(s, ir.Dup):
            self.dup(s)
        elif isinstance(s, (ir.Expr, ir.Return)):
            text = self.expr(s.value)
            extra, attrs, got = self.stmt_lines(s, [])
            if isinstance(s, ir.Return):
                if got is not None:
                    extra = self.values.lines(self.values.run.output) + extra
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
            extra, attrs, got = self.stmt_lines(s, [s.target])
            nid = self.node([f"{self.show(s.target)} += {self.expr(s.value)}"] + extra,
                            shape="box", **attrs)
            self.remember(nid, got, [s.target])
            self.connect(s.value, nid)
            src = self.source(s.target)
            if src is not None:
                self.edge(src, nid)
            self.defs[s.target] = nid
        # comments and anything else print nothing

    def dup(self, s: ir.Dup):
        src = self.source(s.source)
        if s.source in self.ints:
            # an int is never differentiated: its copies are the node that defines it
            for t in s.targets:
                self.defs[t] = src
                self.aliases.add(t)
                if (src, s.source) in self.shown:
                    self.shown[(src, t)] = self.shown[(src, s.source)]
            return
        extra, attrs, got = self.stmt_lines(s, [])
        nid = self.node(["dup"] + extra, shape="diamond", style="filled",
                        fillcolor="#fff2b3", **attrs)
        if src is not None:
            self.edge(src, nid)
        for t in s.targets:
            self.copied[t] = self.copied.get(s.source, s.source)
            lines = [self.show(t)]
            if got and t in got:
                lines += self.value_lines(got[t], t)
            copy = self.node(lines, shape="ellipse", style="filled", fillcolor="#fffbe6",
                             **attrs)
            self.remember(copy, got, [t])
            self.edge(nid, copy)
            self.defs[t] = copy

    def branch(self, s: ir.If):
        test = self.expr(s.test)
        self.open_cluster(f"if {test}", style="rounded", color="gray50")
        extra, attrs, _ = self.stmt_lines(s, [])
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
        outer = (self.path, self.note, self.missing)
        count = None
        if self.values is not None and self.path is not None:
            count = self.values.run.iterations.get((id(s), self.path))
        entry = self.ran(s) or {}
        if count is None:  # the loop did not run in the iteration shown
            inner = None
        elif count == 0:
            inner, self.note, self.missing = None, None, "(not run: 0 iterations)"
        else:
            inner = self.path + (count,)
            self.note = f"(last of {count} iteration{'s' if count > 1 else ''})"
            self.missing = f"(not run in the last of {count} iterations)" if count > 1 \
                else "(not run in its 1 iteration)"
        if s.iter is not None:
            title = f"for {self.show(s.target)} in {self.expr(s.iter)}"
        else:
            title = "while loop"
        self.open_cluster(title, style="rounded", color="steelblue")
        start = (self.ran(s, inner) or {}) if inner is not None else {}
        for phi in s.phis:
            lines = [f"{self.show(phi.name)} (loop-carried)"]
            if phi.init is not None and not self.reads(phi.init):
                lines.append(f"starts as {self.expr(phi.init)}")
            nid = f"n{self.count + 1}"
            if self.values is not None:
                lines += self.carried_lines(s, phi.name, nid, count, entry, start)
            self.node(lines, shape="ellipse", style="dashed")
            if phi.init is not None:
                self.connect(phi.init, nid)
            self.defs[phi.name] = nid
            self.phis[phi.name] = nid
        self.path = inner
        if s.iter is not None:
            lines = [f"{self.show(s.target)} in {self.expr(s.iter)}"]
            attrs = {}
            if self.values is not None:
                if s.target in start:
                    value = start[s.target]
                    lines.append(f"{self.show(s.target)} = {_show(value)}")
                    adj = self.values.adjoint(value)
                    if adj is not None:
                        lines.append(f"adj {adj}")
                    lines.append(self.note)
                else:
                    lines.append(self.missing)
                    attrs = {"color": "gray60", "fontcolor": "gray50"}
            nid = self.node(lines, shape="hexagon", **attrs)
            if s.target in start:
                self.shown[(nid, s.target)] = start[s.target]
            self.connect(s.iter, nid)
            self.defs[s.target] = nid
        else:
            # the test that began the last iteration (or, after none, ended the loop)
            self.path = outer[0] + (max(count, 1),) if count is not None else None
            if count == 0:
                self.note = "(0 iterations)"
            self.block(s.cond)
            self.path = inner
            lines = [f"while {self.expr(s.test)}"]
            if count is not None:
                lines.append(f"({count} iteration{'' if count == 1 else 's'})")
            elif self.values is not None:
                lines.append(self.missing)
            nid = self.node(lines, shape="hexagon")
            self.connect(s.test, nid)
        self.block(s.body)
        self.close_cluster()
        self.path, self.note, self.missing = outer
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
        return self.text(self.fn.name, title, notes)


_MISSING = object()


def _own_exits(body):
    """The `Exit` statements of a loop body, not those of the loops inside it."""
    for s in body:
        if isinstance(s, ir.Exit):
            yield s
        elif isinstance(s, ir.If):
            yield from _own_exits(s.body)
            yield from _own_exits(s.orelse)


def _has_control_flow(fn) -> tuple:
    stmts = list(ir.walk(fn.body))
    return (any(isinstance(s, ir.If) for s in stmts), any(isinstance(s, ir.Loop) for s in stmts))


@public
def graph(f, wrt=0, at=None) -> str:
    """The dot text of `f`'s dup-stage computation graph (see the module docstring)."""
    with stages.building():  # (as a build: many nodes alive, deep trees)
        return _graph(f, wrt, at)


def _graph(f, wrt, at) -> str:
    if at is not None and isinstance(f, types.FunctionType) and \
            any(structured.structured(a) for a in tuple(at)):
        # (containers among the values: the graph of the function specialised on
        # them, whose parameters are their leaves)
        wrt_names, _ = normalize_wrt(f, wrt)
        values = dict(zip(signature_params(f)[0], tuple(at)))
        if any(structured.structured(values[n]) for n in wrt_names):
            flat = structured.Flat(f, values, wrt_names, "graph")
            f, wrt, at = flat.flat, flat.wrt(), tuple(flat.args())
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
            notes.append("inside a loop: its last iteration (within the last of any "
                         "loop around it)")
        if values.adj is None:
            notes.append("no adjoints: the output is not one number that depends on wrt")
    title = f"{fn.name}({', '.join(namer(p.name) for p in fn.params)}): dup stage"
    ints = _int_names(f, fn, wrt_names, at)
    return _Drawing(fn, namer, values, wrt_names, ints).draw(title, notes)


def _int_names(f, fn: ir.Function, wrt_names, at) -> set:
    """The locals of `fn` that activity analysis finds hold ints or bools, given the
    kinds of the arguments `at` (or the kinds `s2sad show` assumes); none when the
    analysis fails (it has no rule for a call the function makes, say)."""
    try:
        with dispatch.lock:
            kinds = stages.assumed_kinds(f, fn) if at is None else \
                stages.kinds_of_example(f, tuple(at), fn)
            found = activity.analyze(fn, wrt_names, kinds, stages.Kinds())
    except S2SADError:
        return set()
    return {name for name, kind in found.kinds.items() if kind == INT}


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
