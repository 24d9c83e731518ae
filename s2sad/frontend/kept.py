"""kept: the user's code that carries no derivative, lowered to run as written.

Contract
--------
`KeptLowering` is a part of `anf`'s lowerer (a mixin: its methods read the
lowerer's state, the current SSA name of each variable and the statements being
written). It lowers

* ``assert``, ``raise`` and ``import`` to one `ir.Kept` statement each: the statement
  as the user wrote it, its reads of locals made atoms (`ir.Kept.args`, renamed with
  the rest of the function), the names it assigns itself renamed to names of their
  own. A condition or a message gets no derivative; a value that carries one is read
  as a plain value. An imported name is a static reference (`parse` imported it);
  the kept ``import`` binds it again where the derivative runs.
* ``try`` and ``with`` to one `ir.Kept` when they do not leave the function or the
  loop around them and change no list or array of the function in place; what they
  assign that is read after them (`liveness`) is the statement's `defines`, which
  activity refuses where it would carry a derivative. A ``with`` whose managers only
  change how NumPy and Python report floating point errors and warnings (`NEUTRAL`:
  ``np.errstate``, ``warnings.catch_warnings``, ``contextlib.nullcontext``) and whose
  code assigns what is read later is lowered as its body, differentiated as if the
  ``with`` line were not there. Any other ``try`` or ``with`` is refused at its line,
  saying what leaves or what changes.
* f-strings, dict and set displays to one operation over atoms each (`classify`'s
  kind ``inactive``: activity refuses one whose result carries a derivative, naming
  the value), and ``name := value`` to an assignment whose value is the name.
"""

from __future__ import annotations

import ast
import contextlib
import warnings

from .. import ir
from .expand import comprehension_bound
from .liveness import assigned_by

# managers that change how errors and warnings are reported, never a value
NEUTRAL = (warnings.catch_warnings, contextlib.nullcontext)

# methods that change a list, an array, a dict or a set in place
_MUTATORS = {"append", "extend", "insert", "pop", "remove", "clear", "sort", "reverse",
             "fill", "put", "itemset", "resize", "update", "add", "discard", "setdefault",
             "popitem"}


class KeptLowering:
    """The lowering of code kept as written (see the module docstring)."""

    def s_Assert(self, s):
        self.keep_simple(s, "assert")

    def s_Raise(self, s):
        self.keep_simple(s, "raise")

    def keep_simple(self, s, word):
        if _stored(s):
            raise self.error(s, f"s2sad runs `{word}` as written and cannot take an "
                                f"assignment expression (`:=`) out of it",
                             "Assign the value on a line of its own before.")
        self.keep(s)

    def s_Import(self, s):
        self.keep(s)

    def s_ImportFrom(self, s):
        self.keep(s)

    def s_Try(self, s):
        reason = self.not_keepable(s)
        if reason is not None:
            raise self.error(s, f"s2sad runs a `try` statement as written, with no "
                                f"derivative through it, but {reason}",
                             "Compute the values the result depends on outside the "
                             "`try`, and keep in it only what checks, reports or "
                             "configures.")
        self.keep(s)

    def s_With(self, s):
        if self.neutral(s) and _exit_in(s.body) is None and self.assigns_live(s):
            self.block(s.body)  # (its code may carry derivatives)
            return
        reason = self.not_keepable(s)
        if reason is None:
            self.keep(s)
            return
        raise self.error(s, f"s2sad runs this `with` block as written, with no derivative "
                            f"through it, but {reason}",
                         "Compute the values the result depends on outside the `with` "
                         "block; s2sad differentiates the code inside "
                         "`with np.errstate(...)` and `with warnings.catch_warnings()`.")

    def neutral(self, s) -> bool:
        """Do `s`'s managers only change how errors and warnings are reported (and
        does its code not change the warnings filters they would put back)?"""
        import numpy as np

        for item in s.items:
            call = item.context_expr
            func = call.func if isinstance(call, ast.Call) else None
            obj = self.parsed.refs.get(ir.dotted(func)) if func is not None \
                and self.is_static(func) else None
            if item.optional_vars is not None or not (obj is np.errstate or obj in NEUTRAL):
                return False
        return not any(isinstance(n, ast.Call) and (ir.dotted(n.func) or "").startswith(
            "warnings.") for st in s.body for n in ast.walk(st))

    def live_names(self, s) -> list:
        """The names `s` assigns that are read after it."""
        live = self.live_after.get(id(s))
        return [n for n in _stored(s) if n in self.locals and (live is None or n in live)]

    def assigns_live(self, s) -> bool:
        return bool(self.live_names(s))

    def not_keepable(self, s) -> str | None:
        """Why `s` cannot run as written in the derivative (it leaves the function or
        the loop around it, or changes a list or an array in place), or None. What it
        assigns that is read after it is activity's to judge (`ir.Kept.defines`)."""
        exit_ = _exit_in([s])
        if exit_ is not None:
            where = "the function" if exit_ == "return" else "the loop around it"
            return f"it has a `{exit_}` that leaves {where}"
        for node in ast.walk(s):
            target = None
            if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) \
                    and node.func.attr in _MUTATORS:
                target = node.func.value
            elif isinstance(node, (ast.Subscript, ast.Attribute)) \
                    and isinstance(node.ctx, ast.Store):
                target = node.value
            while isinstance(target, (ast.Subscript, ast.Attribute)):
                target = target.value
            if isinstance(target, ast.Name) and target.id in self.locals \
                    and target.id not in _stored(s):
                return f"it changes `{target.id}` in place"
        return None

    def keep(self, s):
        """Emit `s` as an `ir.Kept`: reads of the function's locals become its
        arguments, the names it assigns itself get names of their own, and those read
        after it are its `defines`. A `try` or `with` block starts by taking the
        value such a name has before it (``n%1 = n``), which it keeps where it does
        not assign it (an ``except`` that passes)."""
        stmt = ir.copy_tree(s)
        live = self.live_names(s) if isinstance(s, (ast.Try, ast.With)) else []
        inner_loads = {n.id for n in ast.walk(s) if isinstance(n, ast.Name)
                       and isinstance(n.ctx, ast.Load)}
        sure = assigned_by(s) if isinstance(s, ast.Try) else set()
        carried = [n for n in _stored(s) if n in self.env and n in self.locals
                   and (n in live and n not in sure or n in inner_loads)]
        own = {n: self.new_version(n) for n in _stored(s) if n in self.locals}
        before = f"{ir.KEPT_ARG}before"  # (the value a name has before the block)
        if carried:
            stmt.body[:0] = [ast.Assign(targets=[ast.Name(id=n, ctx=ast.Store())],
                                        value=ast.Name(id=before, ctx=ast.Load()),
                                        lineno=s.lineno, col_offset=s.col_offset)
                             for n in carried]
        args = []
        scoped = comprehension_bound(list(ast.walk(stmt)))  # (a comprehension's own)
        for node in ast.walk(stmt):
            if id(node) in scoped:
                continue
            if isinstance(node, ast.ExceptHandler) and node.name in own:
                node.name = own[node.name]
            if not isinstance(node, ast.Name):
                continue
            if node.id == before:
                # (a loop-carried name may have no value before the loop: None)
                args.append(self.copied(self.env[carried.pop(0)]))
                node.id = f"{ir.KEPT_ARG}{len(args) - 1}"
            elif node.id in own:
                node.id = own[node.id]
            elif node.id in self.locals and isinstance(node.ctx, ast.Load):
                args.append(self.read(node))
                node.id = f"{ir.KEPT_ARG}{len(args) - 1}"
        self.emit(ir.Kept(stmt, args, s.lineno, tuple(own[n] for n in live)))
        for n in live:
            self.env[n] = own[n]

    # ----------------------------------------------------------- expressions

    def e_JoinedStr(self, node):
        return ast.JoinedStr(values=[self.formatted(v) for v in node.values])

    def formatted(self, part):
        if not isinstance(part, ast.FormattedValue):
            return part
        value = self.atom(part.value)
        spec = None if part.format_spec is None else self.e_JoinedStr(part.format_spec)
        return ast.FormattedValue(value=value, conversion=part.conversion, format_spec=spec)

    def e_Dict(self, node):
        if any(k is None for k in node.keys):
            raise self.error(node, "s2sad cannot differentiate `**` unpacking in a dict",
                             "Write the keys one by one.")
        keys, values = [], []
        for k, v in zip(node.keys, node.values):  # (Python's order: a key, its value)
            keys.append(self.atom(k))
            values.append(self.atom(v))
        return ast.Dict(keys=keys, values=values)

    def e_Set(self, node):
        if any(isinstance(e, ast.Starred) for e in node.elts):
            raise self.error(node, "s2sad cannot differentiate `*` unpacking in a set",
                             "Write the elements one by one.")
        return ast.Set(elts=[self.atom(e) for e in node.elts])

    def e_NamedExpr(self, node):
        self.assign_var(node.target.id, self.value(node.value))
        return ir.name(self.env[node.target.id])


def _stored(s) -> list:
    """The names `s` assigns anywhere in it, in order (targets, ``as`` names; not a
    comprehension's own variables)."""
    out = []
    nodes = list(ast.walk(s))
    scoped = comprehension_bound(nodes)
    for node in nodes:
        name = None
        if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Store) \
                and id(node) not in scoped:
            name = node.id
        elif isinstance(node, ast.ExceptHandler):
            name = node.name
        if name and name not in out:
            out.append(name)
    return out


def _exit_in(stmts) -> str | None:
    """``return``, ``break`` or ``continue`` in `stmts` that leaves them (a ``break``
    or ``continue`` of a loop inside them does not)."""
    for s in stmts:
        if isinstance(s, ast.Return):
            return "return"
        if isinstance(s, (ast.Break, ast.Continue)):
            return "break" if isinstance(s, ast.Break) else "continue"
        if isinstance(s, (ast.For, ast.While)):
            found = _exit_in(s.body + s.orelse)
            if found == "return":
                return found
            continue
        for block in ("body", "orelse", "finalbody", "handlers"):
            found = _exit_in(getattr(s, block, None) or [])
            if found is not None:
                return found
    return None
