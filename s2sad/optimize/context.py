"""context: what the optimizer's passes know about the code they rewrite, beyond its
statements.

`NameKinds` says what the analysis knows of names' values (which hold Python floats,
ints, float arrays, of what rank and shape), and `name_kinds` asks an activity
analysis for it; `Context` gathers it with the names the caller fixes (the results
to keep, the parameters, the objects written in place) and the predicates it gives.
Both are frozen: `simplify` builds one `Context` per call
and every pass that needs any of it is handed it; no pass keeps state between calls.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from types import MappingProxyType
from typing import Callable, Mapping

import numpy as np

from .. import ir
from ..ir.kinds import INT, SCALAR, ArrayKind, held_by
from ..primitives import facts


@dataclass(frozen=True)
class NameKinds:
    """What the activity analysis knows of the names of one function (and of their
    adjoints and tangents, ``x%bar`` and ``x%dot``)."""

    is_float: Callable[[str], bool]  # certainly holds a Python float
    is_int: Callable[[str], bool]  # certainly holds a Python int
    array: Callable[[str], bool]  # certainly holds a float array
    rank: Callable[[str], int | None]  # its number of dimensions (0: a number), or None
    same_shape: Callable[[str, str], bool]  # two arrays of certainly the same shape
    broadcastable: Callable[[str, str], bool]  # two arrays that certainly broadcast
    unary_ufunc: Callable[[str], bool]  # a dotted name that is a NumPy unary ufunc
    total: Callable[[str], bool]  # a dotted name of a function no float makes raise
    # an array's shape, one symbol per axis (equal symbols: equal lengths; 1: length
    # 1), or None where it is not known
    shape: Callable[[str], tuple | None] = lambda n: None
    # a name `is_float` accepts that may hold an int or a bool on some path (``1 if c
    # else 2.0``): a number, but ``1.0 * v`` is not `v` (its type would be the int's)
    mixed: Callable[[str], bool] = lambda n: False
    # ``obj.attr`` of an object whose held attribute it is (`kinds.held_by`): read, it
    # cannot raise, and it is the same value wherever the call reads it
    held: Callable[[str, str], bool] = lambda n, attr: False

    def remembered(self) -> "NameKinds":
        """The same questions, each answer about a name, a pair of names or a
        function kept once given (the passes ask of the same names again and again;
        what the analysis knows does not change while they run)."""
        one = {f: _Remembered(getattr(self, f)).__getitem__ for f in (
            "is_float", "is_int", "array", "rank", "unary_ufunc", "total", "shape", "mixed")}
        same = _Remembered(lambda pair: self.same_shape(*pair))
        broadcast = _Remembered(lambda pair: self.broadcastable(*pair))
        return replace(self, **one, same_shape=lambda a, b: same[a, b],
                       broadcastable=lambda a, b: broadcast[a, b])


def name_kinds(act, refs) -> NameKinds:
    """What `act` knows of the names' values, as the optimizer takes it (`NameKinds`):
    which certainly hold Python floats (scalars, and their adjoints and tangents: a
    tangent the caller passes is a number of the primal's shape, for which the
    operations this is used for cannot raise either), which Python ints, which float
    arrays (and NumPy calls on them), and of what rank and shape; which functions
    (by the text `refs` resolves) are total on floats (`facts.Facts.total`)."""
    def float_name(n: str) -> bool:
        base = n[: -len("%bar")] if n.endswith("%bar") else n
        base = base[: -len("%dot")] if base.endswith("%dot") else base
        return act.kinds.get(base) == SCALAR and (n != base or n in act.kinds)

    def array(n: str) -> bool:
        kind = act.kinds.get(n)
        return isinstance(kind, ArrayKind) and kind.dtype == "f"

    def unary_ufunc(text: str) -> bool:
        if not text.startswith("np."):
            return False
        obj = getattr(np, text[3:], None)
        return isinstance(obj, np.ufunc) and obj.nin == 1 and obj.nout == 1

    def rank(n: str):
        kind = act.kinds.get(n)
        return kind.ndim if isinstance(kind, ArrayKind) else 0 if kind in (SCALAR, INT) else None

    return NameKinds(is_float=float_name, is_int=lambda n: act.kinds.get(n) == INT,
                     array=array, rank=rank, same_shape=act.same_shape,
                     broadcastable=act.broadcastable, unary_ufunc=unary_ufunc,
                     total=lambda text: text in refs and facts.facts_of(refs[text]).total,
                     shape=act.shapes.get, mixed=act.maybe_int.__contains__,
                     held=lambda n, attr: held_by(act.kinds.get(n), attr))


class _Remembered(dict):
    """A one-argument function's answers, each asked of it once (a dict's lookup,
    done in C, when the answer is known)."""

    def __init__(self, ask):
        super().__init__()
        self.ask = ask

    def __missing__(self, key):
        answer = self[key] = self.ask(key)
        return answer


@dataclass(frozen=True)
class Context:
    """What one `simplify` call's passes read besides the statements.

    `keep`: names that must stay assigned (the results). `inputs`: names that hold a
    value before the forward sweep starts (the parameters). `mutable`: every name of
    a list or array the code writes into (and of a view of one) -> the name of that
    object. `pure(value)`: may a forward right-hand side be shared or nested into the
    line that reads it (None: nothing is). `kinds`: see `NameKinds` (None: nothing is
    known, and the passes that need types do nothing). `replayed`: the forward lines
    replay an iteration that already ran once."""

    keep: frozenset = frozenset()
    inputs: frozenset = frozenset()
    mutable: Mapping[str, str] = field(default_factory=lambda: MappingProxyType({}))
    pure: Callable | None = None
    kinds: NameKinds | None = None
    replayed: bool = False

    def reads_mutable(self, node) -> bool:
        """Does `node` read a list or array the code writes into?"""
        return bool(self.mutable) and any(n in self.mutable for n in ir.names_in(node))
