"""scatter: reverse mode of ``np.add.at(a, index, v)``, the scatter-add.

Owns `ScatterAdjoints`, a mixin of `reverse._Transform` (it reads the activity and
calls `set_adj`, `acc`, `array_slot` and `slot_adjoint` of the transform):

* `added_into(s)`: ``(a, index, v)`` when `s` adds into an array `a` that carries a
  derivative, else None;
* `save_added_into(s)`: the forward sweep's ``a%old = a[index]`` before such a call
  (a copy where that is a view; no line before any other statement), as
  `containers.ContainerAdjoints.save_overwritten` saves what a write overwrites;
* `reverse_scatter(s, op, out_bar)` (`adjoints.BY_KIND`'s entry): `a`'s adjoint
  passes through unchanged (each element gained what it was given); `v`'s is the
  adjoint of the elements it went to, ``a_bar[index]`` (an index named twice gives
  its element's adjoint to both of its values), summed where `v` was broadcast; then
  the elements go back, ``a[index] = a%old`` (a restore `simplify` drops, with its
  save, when nothing the reverse sweep runs after it reads `a`). Putting the saved
  elements back, rather than subtracting `v` again, gives exactly the values the
  forward sweep read.

May import `ir`; `reverse` imports it.
"""

from __future__ import annotations

import ast

from .. import ir


class ScatterAdjoints:
    def added_into(self, s):
        op = self.act.ops.get(id(s))
        if not isinstance(s, ir.Expr) or op is None or op.kind != "add_at" \
                or len(op.inputs) != 3 or not isinstance(op.inputs[0], ast.Name) \
                or op.inputs[0].id not in self.act.active:
            return None
        return tuple(op.inputs)

    def save_added_into(self, s) -> list:
        added = self.added_into(s)
        if added is None:
            return []
        a, index, _ = added
        value = ast.Subscript(value=ir.name(a.id), slice=ir.copy_tree(index), ctx=ast.Load())
        if self.array_slot(a.id, index):
            value = ast.Call(func=ast.Attribute(value=value, attr="copy", ctx=ast.Load()),
                             args=[], keywords=[])
        return [ir.Assign((ir.derived(a.id, "old"),), value, s.line)]

    def reverse_scatter(self, s, op, out_bar) -> list:
        """The reverse of ``np.add.at`` (see the module docstring); where what it adds
        into carries no derivative, or the call is not one s2sad follows, as
        `reverse_add_at` says."""
        added = self.added_into(s)
        if added is None:
            return self.reverse_add_at(s, op, out_bar)
        a, index, v = added
        out = []
        if self.act.is_active(v):
            slot = ast.Subscript(value=ir.name(self.acc(a.id)), slice=ir.copy_tree(index),
                                 ctx=ast.Load())
            out.append(self.set_adj(v.id, self.slot_adjoint(slot, a.id, index, v, s.line),
                                    s.line))
        out.append(ir.SetItem(ast.Subscript(value=ir.name(a.id), slice=ir.copy_tree(index),
                                            ctx=ast.Store()),
                              ir.name(ir.derived(a.id, "old")), s.line, restore=True))
        return out
