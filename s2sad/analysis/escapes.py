"""escapes: values that carry a derivative put where no derivative follows them, a
part of activity's analysis (`checks.Checks` takes them in).

A value that carries a derivative, stored where the function later reads it back
from but no name of the function follows it, would be read back with no derivative:
the derivative through it silently lost. `Escapes` refuses the store at its line:
an append to a list from outside the function (`outside`: a global's, an item of
one, a list holding one, what a call given one returns) or of a kind it cannot see
(an attribute's); a call for its effect of a function with no rule given such a
value (``GL.update(k=y)``, ``np.copyto(self.buf, y)``, ``setattr(obj, "v", y)``), as
a statement, with a result nothing reads (`for_effect`), or inside a block run as
written (``try``, ``with``, ``assert``: `check_kept_calls`); an append whose result
(None) is read. A function of the user's called for its effect with such a value is
analysed with those parameters varied (`stages.Kinds.effects`), so its own checks
see what it does with them (an attribute assigned is refused by `parse`). ``print``
and logging only report (`classify.reports_only`), and text made of a value
(`classify.makes_text`: ``str(y)``, an f-string) carries no derivative.
"""

from __future__ import annotations

import ast
import types

from .. import ir
from ..errors import NotDifferentiableError
from ..ir.kinds import UNKNOWN, ArrayKind, ListKind, differentiable
from .classify import makes_text, reports_only, user_function


class Escapes:
    """The checks on where values that carry a derivative go (it reads the analysis's
    `result`, `fn`, `callee_kind`, `texts`, `is_varied`, `is_local`, `atom_kind`,
    `key`, `own_code`)."""

    def check_effect(self, s, op):
        """A call for its effect (`s`, classified as `op`) given a value that carries
        a derivative: see the module docstring."""
        if op.kind == "append" and not self.own_code():
            xs, v = op.inputs
            if self.carries(v) and (not isinstance(self.result.kinds.get(xs.id), ListKind)
                                    or self.outside(xs.id)):
                raise self.error(
                    NotDifferentiableError, s, op,
                    f"this appends {shown(v, 'a value')}, which carries a derivative, to "
                    f"{shown(xs, 'a list')} that s2sad cannot follow (a list from outside "
                    "the function, such as a global's or an attribute's, or one made by a "
                    "call it has no rule for): a later read of it would have no derivative",
                    "Build the list in the function and return it, or append "
                    "s2sad.stop_gradient(...) of the value where only the value is kept.")
        if op.kind != "unknown" or reports_only(op.key) or self.own_code():
            return
        given = next((x for x in op.inputs if self.carries(x)), None)
        if given is not None:
            raise self.error(
                NotDifferentiableError, s, op,
                f"{op.text} is called for its effect with {shown(given, 'a value')}, which "
                "carries a derivative; s2sad cannot follow where it puts the value (a list "
                "or an object from outside the function, an attribute), so a later read "
                "of it would have no derivative",
                "Pass s2sad.stop_gradient(...) of the value where only the value is kept "
                "(a log, a history), or compute with the value in the function.")

    def check_object_item(self, s: ir.Assign, op):
        """An item read of an object that is not an array, a list or a tuple, by an
        index that carries a derivative (``np.r_[0.0, u, 1.0]``, ``np.c_``,
        ``np.mgrid[0:L:5j]``, a table's ``__getitem__``): such an object computes its
        item from the index, so the item, read as the object's constant, would carry
        no derivative. Refused where the result depends on it."""
        varied = any(self.is_varied(n) and self.atom_kind(n) != UNKNOWN and differentiable(
            self.atom_kind(n)) for n in ast.walk(op.inputs[-1]) if isinstance(n, ast.Name))
        if varied and not isinstance(self.atom_kind(op.inputs[0]), (
                tuple, ListKind, ArrayKind)) and any(
                self.key(t) in self.result.useful for t in s.targets):
            raise self.error(
                NotDifferentiableError, s, op,
                "s2sad reads this item of an object that is not an array, a list or a "
                "tuple (np.r_, np.c_, np.mgrid, a class's __getitem__) with no derivative "
                "through it, but its index carries a derivative",
                "Write the array it builds (np.concatenate(([0.0], u, [1.0])), np.stack), "
                "or differentiate with s2sad.grad(f, mode=\"tape\").")

    def check_assigned_effect(self, s: ir.Assign, op):
        """An assignment whose result carries no derivative, of a call made for its
        effect: an append (its result None), a call with no rule (`for_effect`), a
        function of the user's given a value that carries a derivative."""
        if op.kind == "append" and self.carries(op.inputs[1]):
            raise self.error(
                NotDifferentiableError, s, op,
                "s2sad follows an append of a value that carries a derivative "
                "on a line of its own, not one whose result (None) is used",
                "Write `xs.append(v)` as a statement.")
        if op.kind == "unknown" and self.for_effect(s):
            self.check_effect(s, op)
        self.check_call_effect(s, op)  # (``r = push(y)``, its result unread)

    def check_call_effect(self, s, op):
        """A call of a function of the user's whose result carries no derivative,
        given values that carry one: the function analysed with those parameters
        varied (`stages.Kinds.effects`), for what it does with them."""
        varied = tuple(i for i, x in enumerate(op.inputs) if self.is_varied(x))
        if op.kind == "call" and varied and hasattr(self.callee_kind, "effects"):
            self.callee_kind.effects(op.key, s, [self.atom_kind(x) for x in op.inputs],
                                     varied)

    def for_effect(self, s) -> bool:
        """Is the assignment `s` of a call s2sad has no rule for made for the call's
        effect: a method of an object (not a module's function), or a result that
        nothing reads?"""
        if type(s.value) is not ast.Call:
            return False
        func = s.value.func
        if isinstance(func, ast.Attribute) and not isinstance(
                self.fn.refs.get(ir.dotted(func.value)), types.ModuleType):
            return True
        if "reads" not in self.__dict__:
            self.reads = set(ir.reads_in(self.fn.body))
        return not any(t in self.reads for t in s.targets)

    def outside(self, name, depth=0, item=False) -> bool:
        """May `name` be an object from outside the function (a global's or a
        closure's list, ``L = HISTORY``; an item of one, or of a list holding one,
        ``box = [HISTORY]`` then ``box[0]``; what a call given one returns), which no
        derivative follows? With `item`: or hold one among its items. A list or
        tuple made here is not one (``parts = [G]`` of a global array, then
        ``parts.append(y)``), though its items may be."""
        if not self.is_local(name):
            return True
        r = self.result
        made = r.ops.get(r.created.get(r.root(name)))
        if made is None or depth > 8:
            return False
        if made.kind == "const":
            return True
        if made.kind in ("listpack", "pack") and not item:
            return False
        held = made.inputs[:1] if made.kind in ("getitem", "copy") else made.inputs \
            if made.kind in ("listpack", "pack", "call") else ()
        inner = item or made.kind != "copy"  # (an alias is the object; else its items)
        return any(isinstance(x, ast.Name) and self.outside(x.id, depth + 1, inner)
                   for x in held)

    def check_kept_calls(self, s: ir.Kept):
        """A call inside a block run as written (``try``, ``with``, ``assert``) given
        a value that carries a derivative: a method of an object (``L.append(y)``)
        is refused, as a call for its effect is (`check_effect`); a function of
        the user's is checked for what it does with the value (`stages.Kinds.effects`).
        Text made of the value (an f-string, ``str(y)``) carries none."""
        inner = {n.id for n in ast.walk(s.stmt) if isinstance(n, ast.Name) and
                 isinstance(n.ctx, ast.Store)}  # (names the block computes: from what
        # it reads, which carries a derivative, so they may carry one too)

        def carried(n):
            if not isinstance(n, ast.Name):
                return False
            index = n.id[len(ir.KEPT_ARG):]
            return n.id in inner or n.id.startswith(ir.KEPT_ARG) and index.isdigit() and \
                self.carries(s.args[int(index)])

        for call in (n for n in ast.walk(s.stmt) if isinstance(n, ast.Call)):
            values = list(call.args) + [k.value for k in call.keywords]
            given = [any(map(carried, _outside_text(v, self.fn))) for v in values]
            if not any(given):
                continue
            func, obj = call.func, self.fn.refs.get(ir.dotted(call.func) or "")
            if user_function(obj) and hasattr(self.callee_kind, "effects"):
                self.callee_kind.effects(obj, ir.Expr(call, s.line), [UNKNOWN] * len(values),
                                         tuple(i for i, g in enumerate(given) if g))
            elif isinstance(func, ast.Attribute) and not reports_only(obj) and not \
                    isinstance(self.fn.refs.get(ir.dotted(func.value) or ""), types.ModuleType):
                raise self.error(
                    NotDifferentiableError, s, None,
                    f"s2sad runs this `{type(s.stmt).__name__.lower()}` as written, and "
                    f"`.{func.attr}()` in it is given a value that carries a derivative; "
                    "s2sad cannot follow where it puts the value, so a later read of it "
                    "would have no derivative",
                    "Call it outside the block, or pass s2sad.stop_gradient(...) of the "
                    "value where only the value is kept.")

    def carries(self, atom) -> bool:
        """Does `atom` carry a derivative somewhere a derivative cannot follow it
        (varied, and not text made of a value, ``str(y)``, which carries none)?"""
        return self.is_varied(atom) and not (isinstance(atom, ast.Name) and
                                             atom.id in getattr(self, "texts", ()))


def shown(atom, otherwise: str) -> str:
    """```y``` for an atom of the user's name ``y`` (``y%a``, ``y.data``), else
    `otherwise` (a value the compiler named, ``%3``)."""
    name = (ir.dotted(atom) or "").split("%")[0]
    return f"`{name}`" if name and not name.startswith(".") else otherwise


def _outside_text(node, fn: ir.Function) -> list:
    """The nodes of `node` outside the text it makes (`classify.makes_text`: an
    f-string, ``str(y)``)."""
    out, stack = [], [node]
    while stack:
        n = stack.pop()
        if makes_text(n, fn):
            continue
        out.append(n)
        stack.extend(ast.iter_child_nodes(n))
    return out
