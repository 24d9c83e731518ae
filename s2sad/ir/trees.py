"""trees: containers of values, and the static structure a derivative is specialised on.

A *tree* is a value built of containers (dicts, lists, tuples, namedtuples,
dataclasses, and classes registered with `register_container`) whose *leaves* are
everything else (floats, arrays, ints, strings, None, other objects). `spec_of(tree)`
gives its `Spec`: the containers' types, keys and nesting, without the leaves; a
derivative with respect to a container argument is specialised on its spec (the
spec is part of the cache key). `leaves(tree)` lists the leaves in a fixed order
(a dict's in its keys' order, a dataclass's in its fields' order), `build(spec,
leaves)` makes a tree of that structure back, and `paths(spec)` names each leaf's
place (``("layers", 2, "b")``), which `path_text` writes as the user would
(``params["layers"][2].b``).

Imports nothing from s2sad.
"""

from __future__ import annotations

import dataclasses
from typing import Callable

from ..errors import S2SADError


class Spec:
    """The structure of a container: its `type`, the `keys` its items are reached by
    (a dict's keys, a namedtuple's or dataclass's field names, or a registered class's
    keys; () for a list or a tuple, whose items are reached by position), and one
    child per item: a `Spec`, or None for a leaf. `form` says how the items are
    reached: "dict" (``d[k]``), "sequence" (``t[i]``, also a namedtuple's),
    "fields" (``p.name``: a dataclass), "registered". Immutable and hashable (a cache
    key); equal specs have equal types, keys and children."""

    __slots__ = ("type", "keys", "children", "form", "_hash")

    def __init__(self, type, keys, children, form):
        self.type, self.keys, self.children, self.form = type, keys, children, form
        self._hash = None

    def __eq__(self, other):
        return self is other or isinstance(other, Spec) and self.type is other.type and \
            self.form == other.form and self.keys == other.keys and \
            self.children == other.children

    def __hash__(self):
        if self._hash is None:
            self._hash = hash((self.type, self.keys, self.children, self.form))
        return self._hash

    def __repr__(self):
        name = f"{self.type.__module__}.{self.type.__qualname__}"
        items = [repr(c) if c is not None else "*" for c in self.children]
        if self.keys:
            items = [f"{k!r}: {c}" for k, c in zip(self.keys, items)]
        return f"{name}({', '.join(items)})"

    def __len__(self):
        return len(self.children)

    def index(self, key):
        """The position of the item reached by `key` (`item_index`), or None."""
        return item_index(self.form, self.keys, len(self.children), key)

    def n_leaves(self) -> int:
        return sum(1 if c is None else c.n_leaves() for c in self.children)


def item_index(form: str, keys, n: int, key):
    """The position of the item of a container (of `form`, `keys`, `n` items) that
    `key` reaches: a key or a field name, or for a sequence an int position (from
    the end where negative); None for none."""
    if form == "sequence" and isinstance(key, int) and not isinstance(key, bool):
        return key + n if -n <= key < 0 else (key if 0 <= key < n else None)
    try:
        return list(keys).index(key) if key in keys else None
    except TypeError:
        return None


class Static:
    """A function passed as an argument (``act=np.tanh``): the derivative is
    specialised on it, as on a structure (the same object, by identity)."""

    __slots__ = ("value",)

    def __init__(self, value):
        self.value = value

    def __eq__(self, other):
        return isinstance(other, Static) and other.value is self.value

    def __hash__(self):
        return hash(id(self.value))

    def __repr__(self):
        name = getattr(self.value, "__qualname__", None) or repr(self.value)
        return f"static({getattr(self.value, '__module__', '') or ''}.{name})"


_REGISTERED: dict = {}  # class -> (flatten, unflatten)
_LEAF_TYPES = {float, int, bool, str, type(None), complex}  # and each leaf type met


def register_container(cls, flatten: Callable, unflatten: Callable):
    """Make instances of `cls` containers: ``flatten(obj)`` returns ``(keys,
    children)`` (a tuple of hashable keys, one per child, and the children), and
    ``unflatten(keys, children)`` builds an instance back. Its children are reached
    in differentiated code as attributes named by the keys (``obj.key``)."""
    if not isinstance(cls, type):
        raise TypeError(f"register_container needs a class; got {cls!r}")
    _REGISTERED[cls] = (flatten, unflatten)
    _LEAF_TYPES.discard(cls)


def is_namedtuple(tp) -> bool:
    return isinstance(tp, type) and issubclass(tp, tuple) and hasattr(tp, "_fields")


def is_record_type(tp) -> bool:
    """Is `tp` a class whose instances are containers with named fields (a
    namedtuple, a dataclass, a registered class)?"""
    return isinstance(tp, type) and (is_namedtuple(tp) or dataclasses.is_dataclass(tp)
                                     or tp in _REGISTERED)


def is_container(value) -> bool:
    tp = type(value)
    return tp in (dict, list, tuple) or tp in _REGISTERED or is_namedtuple(tp) or \
        dataclasses.is_dataclass(value) and not isinstance(value, type)


def _flattened(tp, value) -> tuple:
    """``(keys, children)`` of a registered class's instance, as its `flatten`
    gives them, checked: a flatten written for JAX (``(children, aux)``) is told
    apart here rather than failing inside the compiler."""
    got = _REGISTERED[tp][0](value)
    try:
        keys, children = got
        keys, children = tuple(keys), tuple(children)
        ok = len(keys) == len(children) and hash(keys) is not None
    except (TypeError, ValueError):
        ok = False
    if not ok:
        raise S2SADError(
            f"register_container({tp.__qualname__}, flatten, unflatten): flatten "
            f"returned {_shown(got)}, not (keys, children): a tuple of attribute names, "
            f"one per child, and the children",
            hint="Return the field names first, as in lambda obj: (('W', 'b'), (obj.W, "
                 "obj.b)); JAX's flatten returns (children, aux) instead.")
    return keys, children


def _shown(got, depth=0) -> str:
    """`got` in short: its tuples and lists by their items, arrays by their shapes."""
    if type(got) in (tuple, list) and depth < 2:
        inner = ", ".join(_shown(x, depth + 1) for x in got[:4])
        more = ", ..." if len(got) > 4 else ""
        return f"({inner}{more})" if type(got) is tuple else f"[{inner}{more}]"
    if hasattr(got, "shape") and hasattr(got, "dtype"):
        return f"an array of shape {tuple(got.shape)}"
    text = repr(got)
    return text if len(text) <= 40 else type(got).__name__


def _items(value):
    """``(type, keys, children, form)`` of a container, or None for a leaf."""
    tp = type(value)
    if tp is dict:
        return tp, tuple(value), tuple(value.values()), "dict"
    if tp is list or tp is tuple:
        return tp, (), tuple(value), "sequence"
    if tp in _REGISTERED:
        keys, children = _flattened(tp, value)
        return tp, keys, children, "registered"
    if is_namedtuple(tp):
        return tp, tuple(tp._fields), tuple(value), "sequence"
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        names = tuple(f.name for f in dataclasses.fields(value))
        return tp, names, tuple(getattr(value, n) for n in names), "fields"
    return None


def spec_of(value) -> Spec | None:
    """The `Spec` of `value`, or None when it is a leaf."""
    return flatten(value, [])


def flatten(value, out: list) -> Spec | None:
    """The `Spec` of `value` (None for a leaf), its leaves appended to `out` in order:
    one walk for both."""
    tp = type(value)
    if tp is dict:
        children = tuple(flatten(v, out) for v in value.values())
        return Spec(tp, tuple(value), children, "dict")
    if tp is list or tp is tuple:
        return Spec(tp, (), tuple(flatten(v, out) for v in value), "sequence")
    if tp in _LEAF_TYPES:
        out.append(value)
        return None
    got = _items(value)
    if got is None:
        _LEAF_TYPES.add(tp)  # (whether a type is a container depends on it alone)
        out.append(value)
        return None
    tp, keys, children, form = got
    return Spec(tp, keys, tuple(flatten(c, out) for c in children), form)


def tree_map(f, tree, *rest):
    """`tree` with each leaf ``x`` replaced by ``f(x, *others)``, the leaves at the
    same place of the trees `rest`, which have `tree`'s structure: an optimizer step
    is ``tree_map(lambda p, g: p - lr * g, params, grads)``. (A gradient has None
    where a leaf carries no derivative: ``lambda p, g: p if g is None else p - lr *
    g`` keeps those.) `s2sad.tree_map`; in a function differentiated, of containers
    of parameters, the container of the calls (`structure_values.tree_call`)."""
    leaves_: list = []
    spec = flatten(tree, leaves_)
    others = []
    for other in rest:
        parts: list = []
        got = flatten(other, parts)
        if got != spec:
            shapes = (repr(x).replace("builtins.", "") if x else "a leaf" for x in (spec, got))
            raise ValueError("tree_map needs trees of one structure: {} and {}".format(*shapes))
        others.append(parts)
    return build(spec, iter([f(x, *parts) for x, *parts in zip(leaves_, *others)]))


def tree_leaves(tree) -> list:
    """The leaves of `tree`, in order (`s2sad.tree_leaves`; in a function
    differentiated, of a container of parameters, the list of its leaves)."""
    return leaves(tree)


def leaves(value, spec: Spec | None = None) -> list:
    """The leaves of `value`, in order (of the structure `spec` if given: a leaf of
    `spec` is a leaf even where the value there is a container)."""
    out: list = []
    if spec is None:
        flatten(value, out)
    else:
        _collect(value, spec, out)
    return out


def _collect(value, spec, out):
    if spec is None:
        out.append(value)
        return
    got = _items(value)
    for child, sub in zip(got[2], spec.children):
        _collect(child, sub, out)


def build(spec: Spec | None, values) -> object:
    """A tree of structure `spec` whose leaves are the next items of the iterator
    `values` (a leaf of `spec` takes one item)."""
    if spec is None:
        return next(values)
    children = [build(c, values) for c in spec.children]
    tp = spec.type
    if spec.form == "dict":
        return dict(zip(spec.keys, children)) if tp is dict else tp(zip(spec.keys, children))
    if tp is list:
        return children
    if tp is tuple:
        return tuple(children)
    if tp in _REGISTERED:
        return _REGISTERED[tp][1](spec.keys, children)
    if is_namedtuple(tp):
        return tp(*children)
    if spec.form == "fields":
        obj = object.__new__(tp)  # (a dataclass's __init__ may take other arguments)
        for name, v in zip(spec.keys, children):
            object.__setattr__(obj, name, v)
        return obj
    return tp(children)


def paths(spec: Spec | None, prefix=()) -> list:
    """The place of each leaf of `spec`, in order: a tuple of keys and positions."""
    if spec is None:
        return [prefix]
    out = []
    for i, child in enumerate(spec.children):
        key = spec.keys[i] if spec.keys else i
        form = "fields" if spec.keys and spec.form != "dict" else spec.form
        out.extend(paths(child, prefix + ((form, key),)))
    return out


def path_text(name: str, path) -> str:
    """The expression reaching a leaf at `path` (from `paths`) of the value `name`:
    ``params["layers"][2].b``."""
    text = name
    for form, key in path:
        text += f".{key}" if form in ("fields", "registered") else f"[{key!r}]"
    return text


def fits(value, spec: Spec | None) -> bool:
    """Has `value` the structure `spec`, where a leaf of `spec` may be a container
    too (a list the function built as one value)?"""
    if spec is None:
        return True
    got = _items(value)
    return got is not None and got[0] is spec.type and got[3] == spec.form and \
        got[1] == spec.keys and len(got[2]) == len(spec.children) and \
        all(fits(v, c) for v, c in zip(got[2], spec.children))


def same_structure(a, b) -> bool:
    return spec_of(a) == spec_of(b)
