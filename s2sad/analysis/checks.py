"""checks: the errors activity raises once the kinds and active sets are known.

An active value computed by a call with no rule (`NoRuleError`), or by a rule whose
input without a derivative carries one (`primitives.Rule.no_derivative`: a Bessel
function's order), indexing it cannot
differentiate, a change made in place by a call, a name holding different lists on
different paths (`Activity.conflict`, for reverse mode), the checks on writes
into lists and arrays (`writes`), and those on values Python and the derivative would
not treat alike (`values`: a `*` part, complex numbers), and where values that carry
a derivative go (`escapes`: stored where no derivative follows them).
"""

from __future__ import annotations

import ast

import numpy as np

from .. import ir, primitives as rules
from ..errors import NoRuleError, NotDifferentiableError
from ..ir.kinds import INT, SCALAR, UNKNOWN, ArrayKind, ListKind, a_kind, opaque
from .classify import MADE_BY_S2SAD, changed_in_place, reports_only
from .escapes import Escapes, shown
from .rebuilt import carried_sources
from .results import items_kind
from .values import ValueChecks
from .writes import Writes

# the message and hint of Activity.conflict
_CONFLICT = ("s2sad cannot differentiate a variable that refers to different lists (or "
             "indexed arrays) on different paths in reverse mode",
             "Give each its own name, or copy into one on every path (forward mode, "
             "s2sad.jvp, handles it).")


def _conflict(at, kinds) -> tuple:
    """`_CONFLICT`, its hint for ``xs += [...]`` (a list extended in place as its
    name is rebound) the spellings reverse mode takes."""
    if isinstance(at, ir.Assign) and at.inplace and isinstance(at.value, ast.BinOp) \
            and isinstance(at.value.op, ast.Add) and \
            isinstance(kinds.get(at.targets[0]), ListKind):
        name = at.targets[0].split("%")[0]
        return (_CONFLICT[0], f"Write `{name}.extend(...)` or `{name} = {name} + [...]` "
                              "instead of `+=` (forward mode, s2sad.jvp, handles it).")
    return _CONFLICT


class Checks(ValueChecks, Escapes):
    """The errors: a part of activity's analysis (it reads the analysis's `result`,
    `fn`, `dead`, `fresh`, `conflicts`, `conflict_at` and `any_rank`)."""

    def check(self, body):
        r = self.result
        active = r.active
        # (`computes_complex` is False throughout where nothing read a complex value)
        maybe_complex = self.__dict__.get("complex_inputs", True) or \
            bool(self.__dict__.get("complex_values"))
        for s in body:
            if type(s) is ir.Dup:  # (the commonest after assignments: nothing to check)
                continue
            if isinstance(s, ir.Assign):
                op = r.ops[id(s)]
                if "at" in op.options and op.kind in ("pop", "append"):
                    self.check_place(s, op)
                if op.kind == "unknown" and op.text.startswith(_LIST_AND_TUPLE):
                    # (``xs += t`` runs as ``xs = xs + t``, which Python refuses for a
                    # tuple: refused with or without a derivative through it)
                    raise self.error(NoRuleError, s, op)
                if op.kind == "nondiff" and _moves_with_arguments(op.key) and \
                        any(self.is_varied(x) for x in _moving(op)) and \
                        any(self.key(t) in r.useful for t in s.targets):
                    raise self.error(NoRuleError, s, op)
                if op.kind == "rule" and op.rule.no_derivative:
                    self.check_no_derivative(s, op)
                if op.kind == "getitem" and not self.own_code():
                    self.check_object_item(s, op)
                if not any(t in active for t in s.targets):
                    if maybe_complex and self.computes_complex(s, op) and any(
                            self.is_varied(x) for x in op.inputs):
                        self.refuse_complex(s, op)  # (a complex result is not active)
                    self.check_assigned_effect(s, op)  # (``r = GL.append(y)``)
                    continue
                self.check_active(s, op)
                continue
            blocks = ir.blocks(s)
            if blocks:
                for b in blocks:
                    if b is not self.dead.get(id(s)):  # (a branch that never runs)
                        self.check(b)
                continue
            if isinstance(s, ir.Expr) and id(s) in r.ops:
                op = r.ops[id(s)]
                if "at" in op.options and op.kind in ("pop", "append"):  # (an insert)
                    self.check_place(s, op)
                self.check_unknown_effect(s, op)
                self.check_call_effect(s, op)
            if isinstance(s, ir.Kept) and any(self.carries(a) for a in s.args):
                self.check_kept_calls(s)
            if isinstance(s, ir.Kept) and any(t in r.active for t in s.defines):
                name = next(t for t in s.defines if t in r.active).split("%")[0]
                read = next((a.id.split("%")[0] for a in s.args if self.is_varied(a)), "?")
                raise self.error(
                    NotDifferentiableError, s, None,
                    f"s2sad runs this `{type(s.stmt).__name__.lower()}` block as written, "
                    f"with no derivative through it, but `{name}`, which it assigns, may "
                    f"depend on `{read}`, which carries a derivative, and the result "
                    f"depends on `{name}`",
                    f"Compute `{name}` outside the block, or keep `{read}` out of it.")

    def check_active(self, s: ir.Assign, op):
        """The checks of an assignment whose result is active."""
        r = self.result
        if op.kind == "unknown" and (any(map(self.is_varied, op.inputs)) or not op.inputs):
            raise self.error(NoRuleError, s, op)  # (no inputs: a construct it cannot read)
        if op.kind == "unknown":  # (``self.running_mean`` on one path of a join: a
            return  # constant there, whatever the other path carries)
        if self.computes_complex(s, op):
            self.refuse_complex(s, op)
        if op.kind == "inactive":
            carried = [x.id.split("%")[0] for x in op.inputs if self.is_varied(x)]
            what = next((f"`{n}`" for n in carried if n),  # (a temporary has no name)
                        "a value computed on this line")
            raise self.error(
                NotDifferentiableError, s, op,
                f"s2sad runs {op.text} as written, with no derivative through it, "
                f"but {what} carries a derivative into it "
                f"and what is read from it reaches the result",
                "Keep values that carry derivatives in variables, tuples or lists "
                "(a dict or a string only for settings and messages).")
        if op.kind == "getitem" and not isinstance(self.atom_kind(op.inputs[0]),
                                                   (tuple, ListKind, ArrayKind)):
            # (a global's kind is its value's: ``return V[0]`` on one path of a join)
            raise self.error(NotDifferentiableError, s, op)
        if op.kind == "getitem" and isinstance(r.kinds.get(op.inputs[0].id), tuple) \
                and not isinstance(op.inputs[1], ast.Constant) \
                and ir.constant_slice(op.inputs[1]) is None and (
                    self.atom_kind(op.inputs[1]) != INT
                    or not _one_kind(r.kinds[op.inputs[0].id])):
            if self.atom_kind(op.inputs[1]) != INT:
                raise self.error(NotDifferentiableError, s, op,
                                 "s2sad can index a tuple with an int, or slice it with "
                                 "int literals (`t[1:]`), not with another value, where "
                                 "the result carries a derivative",
                                 "Unpack the tuple into names, or make it a list.")
            words = sorted({_kind_word(k) for k in r.kinds[op.inputs[0].id]})
            raise self.error(NotDifferentiableError, s, op,
                             f"the items of this tuple are of different kinds "
                             f"({', '.join(words)}), and which one this reads is known "
                             "only at run time: s2sad compiles the code that uses it "
                             "once, for one kind",
                             "Keep items of one kind in the tuple you loop over or "
                             "index (numbers, or NumPy arrays), or unpack it into "
                             "names and write the code once per item.")
        for t in s.targets if self.conflicts else ():
            if r.is_container(t) and r.root(t) in self.conflicts \
                    and r.conflict is None:
                # one adjoint object per list (or indexed array) cannot follow a
                # name that holds different ones: reverse mode raises this
                at = self.conflict_at.get(r.root(t), s)
                r.conflict = self.error(
                    NotDifferentiableError, at, r.ops[id(at)],
                    *_conflict(at, r.kinds))

    def check_place(self, s, op):
        """``xs.pop(i)`` and ``xs.insert(i, v)``: the place, counted from the start
        (`expand_calls`) with `i` compared with 0, must be an int: an object with
        ``__index__`` Python takes, but not the comparison."""
        kind = self.atom_kind(op.options["at"])
        if kind == INT or isinstance(kind, ArrayKind) and kind.ndim == 0 and \
                kind.dtype in ("i", "b"):
            return
        method = op.text.partition(".")[2] or "pop"
        raise self.error(
            NotDifferentiableError, s, op,
            f"s2sad needs the position given to `.{method}(...)` to be an int, and "
            "it cannot tell that this one is (an object with `__index__` is not one "
            "here: s2sad compares the position with 0 first)",
            f"Pass an int: `xs.{method}(int(i){', v' if method == 'insert' else ''})`.")

    def check_unknown_effect(self, s, op):
        """A call for its effect of a function s2sad knows nothing of may change a
        list or an array it is given in place, which the derivative would not see:
        refused where that list or array carries a derivative, unless the function
        only reports (``print``, `logging`); and one given a value that carries a
        derivative (`escapes.Escapes.check_effect`)."""
        r = self.result
        for x in op.inputs if op.kind == "unknown" and not reports_only(op.key) \
                and not self.own_code() else ():
            if not (isinstance(x, ast.Name)
                    and isinstance(r.kinds.get(x.id), (ListKind, ArrayKind))):
                continue
            root = r.root(x.id)  # (its object: the other names of it may be read later)
            if any(n in r.active for n in r.kinds if r.root(n) == root):
                name = x.id.split("%")[0]
                raise self.error(
                    NotDifferentiableError, s, op,
                    f"s2sad cannot tell whether {op.text} changes `{name}` in place, "
                    f"and `{name}` carries a derivative",
                    f"Pass it a copy (`{name}.copy()`, `list({name})`), or call it "
                    "outside the differentiated function.")
        self.check_effect(s, op)

    def check_conflicts(self):
        """Also a conflict that no active assignment shows: an argument read by
        index whose object a dead name shares with another (`v = x` on one path)."""
        r = self.result
        if r.conflict is not None or not self.conflicts:
            return
        bad = {r.root(n) for n in r.active if r.is_container(n)} & self.conflicts
        if not bad:
            return
        sites = [s for s in ir.walk(self.fn.body) if isinstance(s, ir.Assign)
                 and any(r.root(t) in bad for t in s.targets)]
        at = next((self.conflict_at[b] for b in sorted(bad) if b in self.conflict_at), None) \
            or next((s for s in sites if r.ops[id(s)].kind == "copy"), None) \
            or (sites[0] if sites else None)
        if at is None:
            return
        r.conflict = self.error(
            NotDifferentiableError, at, r.ops[id(at)],
            *_conflict(at, r.kinds))

    def check_mutation(self, s, op):
        """Refuse a call that changes a list or an array in place (``out=``,
        ``y.fill(0.0)``, ``np.copyto(y, x)``, ``xs.sort()``): the derivative would
        take the object's values from before the change."""
        changed = changed_in_place(s.value, op, self.fn, self.is_local, self.atom_kind)
        if changed is None:
            return
        what, atom, instead = changed
        raise self.error(NotDifferentiableError, s, op,
                         f"{what} changes {shown(atom, 'an array')} in place; s2sad cannot "
                         "follow a change to a list or an array made by a call",
                         instead)

    def check_writes(self):
        """Writes go into objects s2sad can follow: see `writes.Writes`."""
        self.fresh_phis()
        Writes(self).check()

    def own_code(self) -> bool:
        """Is this s2sad's own derivative code (a gradient that forward mode
        differentiates for a Hessian)? Its writes restore values popped from its
        tapes and update adjoint arrays in place, and forward mode, whose tangents
        share and view each other exactly as the values they go with do, follows
        them, as it follows its accumulators (``x_bar += g`` on arrays no other name
        refers to): the checks on writes and in-place operators are left out."""
        info = self.fn.source
        return bool(info and info.filename.startswith("<s2sad"))

    def fresh_phis(self):
        """A loop-carried array is a new object when its first value and every value
        the loop gives it are."""
        r = self.result
        sources = carried_sources(ir.walk(self.fn.body))
        changed = True
        while changed:
            changed = False
            for phi, values in sources.items():
                if phi in self.fresh or not isinstance(r.kinds.get(phi), ArrayKind):
                    continue
                if all(isinstance(v, ast.Name) and r.root(v.id) in self.fresh for v in values):
                    self.fresh.add(phi)
                    changed = True

    def check_no_derivative(self, s, op):
        """A rule's input without a derivative (`Rule.no_derivative`) that carries one
        into a result that is used: refused, rather than taken as a constant."""
        if not any(self.key(t) in self.result.useful for t in s.targets):
            return
        for name, x in zip(op.rule.inputs, op.inputs):
            if name in op.rule.no_derivative and isinstance(x, ast.Name) and self.is_varied(x):
                raise self.error(
                    NoRuleError, s, op,
                    f"s2sad has no derivative of {op.text} with respect to its argument "
                    f"`{name}`, and `{x.id.split('%')[0] or name}` carries one into it",
                    f"Differentiate with respect to the other arguments only (hold `{name}` "
                    "fixed: s2sad.stop_gradient), or register a rule that gives one.")

    def error(self, cls, s, op, message=None, hint=None):
        info = self.fn.source
        filename = info.filename if info else None
        text = info.line_text(s.line) if info and s.line else None
        if message is not None:
            pass
        elif cls is NoRuleError:
            what = op.text or "this operation"
            message = f"s2sad has no derivative rule for {what}, and the result depends on " \
                      f"{', '.join(self.result.wrt)}"
            hint = ("Register one with s2sad.register_rule(func, reverse=..., forward=...) "
                    "(see docs/guide/custom-rules.md), or declare it "
                    "non-differentiable with s2sad.nondifferentiable(func).")
            if what.endswith(MADE_BY_S2SAD):
                hint = ("s2sad does not yet differentiate through the derivatives it made "
                        "(it would need a derivative of their code). Write that derivative "
                        "as a function of yours, which s2sad differentiates (`s2sad show` "
                        "prints one to start from); for a Newton step, s2sad.hvp or "
                        "s2sad.hessian of the function itself.")
            if what.startswith("the method ."):
                hint = ("s2sad differentiates the methods of NumPy arrays, and those a "
                        "class of yours defines with def, called on an argument or on "
                        "`self` that no line assigns (not a method the object holds "
                        "itself, `obj.f = ...`, nor one of an object taken from a list or "
                        "a dict); call a function instead, written with def (s2sad "
                        "differentiates it) or given a rule with s2sad.register_rule.")
            if what.startswith("`*` of a list and a value whose kind"):
                hint = ("Say which it is where the value is read: `np.asarray(...)` for "
                        "NumPy's product, `int(...)` for a repetition of the list.")
            if " on an object of class " in what or " on a value that is neither" in what:
                hint = ("s2sad differentiates operators on numbers and arrays; an object's "
                        "own operator (its `__mul__`) runs as written, unseen. Compute with "
                        "the numbers or arrays it holds, or call a function given a rule "
                        "(s2sad.register_rule).")
            if what == "`list` of a tuple or an array":
                hint = ("Write the list as a comprehension, which s2sad follows: "
                        "`[v for v in t]` (and sort that list, for `sorted(t)`).")
            if what.startswith(_LIST_AND_TUPLE):
                hint = ("Extend the list with `xs.extend(t)`, which s2sad follows as one "
                        "append per item, or add a list: `xs += [a, b]`, "
                        "`list(xs) + [t[0]]`.")
            unknown = [x.id for x in op.inputs if isinstance(x, ast.Name)
                       and x.id in getattr(self, "any_rank", ())]
            if unknown:
                name = unknown[0].split("%")[0]
                message += f" (`{name}` is an array of unknown rank)"
                hint = (f"`{name}` is an element of a list whose arrays have different "
                        "ranks, taken at an index known only when the code runs, so its "
                        "rank is not known. Read the elements by constant indices "
                        "(`params[0]`) or unpack the list (`W, b = params`).")
        else:
            message = "s2sad cannot differentiate indexing into a value that is not a " \
                      "tuple or a list yet"
            hint = ("Index into tuples, lists and arrays only, or unpack the tuple into "
                    "names. A name that is a list on one path and an array on another (a "
                    "list `y` that `y = y + h * f(y)` makes an array in a loop) is "
                    "neither: make it an array first, `y = np.asarray(y)`.")
        return cls(message, filename=filename, lineno=s.line or None,
                   col=_col(text), source_line=text, hint=hint)


_LIST_AND_TUPLE = "`+` of a list (or of `tuple(xs)`"  # (`classify._binop`'s text)


def _one_kind(kinds: tuple) -> bool:
    """Can one compiled piece of code use any item of a tuple with these item kinds?
    Numbers (ints count as floats) and arrays of any ranks can: the rules for arrays of
    unknown rank take numbers too. Lists, tuples and other values must all be alike."""
    merged = items_kind(kinds)
    if merged in (SCALAR, INT) or isinstance(merged, ArrayKind):
        return True
    return merged != UNKNOWN and not opaque(merged) and all(k == merged for k in kinds)


def _kind_word(kind) -> str:
    if kind in (SCALAR, INT):
        return "numbers"
    if isinstance(kind, ArrayKind):
        return "arrays"
    if isinstance(kind, ListKind):
        return "lists"
    if isinstance(kind, tuple):
        return "tuples"
    return "other values"


def _col(text):
    if not text:
        return None
    return len(text) - len(text.lstrip())


def _moving(op) -> list:
    """The inputs of a call in `MOVES_WITH_ARGUMENTS` its result moves with: all but
    ``np.full_like``'s array, whose shape and dtype alone it takes."""
    return op.inputs[1:] if op.key is np.full_like else op.inputs


def _moves_with_arguments(key) -> bool:
    try:
        return key in rules.MOVES_WITH_ARGUMENTS
    except TypeError:
        return False
