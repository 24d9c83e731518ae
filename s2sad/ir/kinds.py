"""kinds: the kinds of values the analyses and transforms work with.

`kind_of(value)` sorts runtime values into kinds: "scalar" (`SCALAR`, a real float),
"int" (`INT`: ints and bools), `ArrayKind` (a NumPy array: its rank and dtype kind;
an array of another library `LIBRARIES` or `NAMESPACES` names, `array_library`, with
that library in `ArrayKind.xp`; `namespace_of` the module that stands in for NumPy in
a derivative for JAX arrays),
`ListKind` (a list and the kind of its elements), `DTypeKind` (``x.dtype`` of an
array of known dtype), "other" (`OTHER`), `ObjectKind` (an instance of a class of the
user's Python: opaque as "other" is, and `opaque` says so of both, but its class
resolves the methods called on it), "?" (`UNKNOWN`), "pending" (`PENDING`:
not computed yet, while a recursion's result kind is found), or a tuple of kinds (a
tuple's items). `merged` joins two kinds (a value that is either), `differentiable`
says whether a value of a kind can carry a derivative, and `shape_pattern` and
`with_shapes` label the axes of a call's array arguments (which are 1 and which
are equal), the labels the compiled code is specialised on. `rank_of` and
`array_rank` give ranks, `attribute_kind` and `logical_kind` the kinds of
``x.shape`` and of comparisons, and `isinstance_known` what a kind decides of an
``isinstance`` test.

This module knows NumPy only through the values it is given (it never imports it)
and imports nothing else from s2sad.
"""

from __future__ import annotations

import sys
from dataclasses import dataclass

SCALAR, INT, OTHER, UNKNOWN = "scalar", "int", "other", "?"
# the kind of None: opaque as `OTHER`, and known to be None (``if w is not None:`` of
# a parameter or a global of this kind is decided where the derivative is built)
NONE = "none"
# the kind of a value not computed yet: what a recursive call returns while the kind
# of its function's result is being found (`driver.stages.Kinds`); anything computed
# from it is pending too, and a value that is pending or of kind k is of kind k
PENDING = "pending"
# the attribute marking a constant that stands in a variable until its first real
# value and is never read (a min's accumulator before the first item, `expand`):
# its kind is `PENDING`, so the variable's kind is that of its real values
PLACEHOLDER = "s2sad_placeholder"
# the attribute marking the read of a `for` loop's item by its index (``seq[i]``, the
# loop's lowering): right of a list, a tuple, an array or a string, not of a dict or a
# set, which activity refuses (see `OTHER`)
ITERATED = "s2sad_iterated"
# the attribute marking the slice that gives the `*` part of an unpacking (``first,
# *rest = xs`` is ``rest = xs[1:]``): a list in Python, which the slice of a list is
# and that of a tuple or an array is not, so activity follows what reads it
STARRED = "s2sad_starred"


@dataclass(frozen=True)
class ArrayKind:
    """A NumPy array of rank `ndim` (None: unknown) and dtype kind `dtype` ("f" float,
    "i" integer, "b" bool, "c" complex, "?" unknown). Float arrays carry derivatives.

    `xp` is None for a NumPy array and the library's name for an array of another
    library (``"dask"``, see `LIBRARIES`): part of the kind, so a derivative built
    for NumPy arrays is never run on Dask arrays (or the reverse), and the analyses
    know such an array is no `np.ndarray`. Set only on the kinds of a call's
    arguments, as `dims` is.

    `dims` and `exact` are set only on the kinds of a call's arguments: `dims` (see
    `shape_pattern`) has one label per axis, 1 for an axis of length 1, and for the
    others a label shared by exactly the axes of the call's arrays that have the same
    length; `exact` is the dtype's name ("float32"), which the gradient keeps."""

    ndim: object = None
    dtype: str = "f"
    dims: tuple | None = None
    exact: str | None = None
    xp: str | None = None

    def __repr__(self):
        rank = "?" if self.ndim is None else self.ndim
        dims = "" if self.dims is None else f", dims {self.dims}"
        exact = "" if self.exact is None else f", {self.exact}"
        xp = "" if self.xp is None else f", {self.xp}"
        return f"array[{rank}d, {self.dtype}{dims}{exact}{xp}]"


ARRAY = ArrayKind()


@dataclass(frozen=True)
class ListKind:
    """A Python list whose elements have kind `elem`. A list is mutable: every name
    that refers to the same list object shares one adjoint (a list of adjoints).

    `items` is set only on the kinds of a call's arguments that hold arrays (and
    have at most `ITEMS` elements): each element's kind, in order, so that
    ``params[0]`` and ``w, b = params`` of ``params = [W, b]`` are a matrix and a
    vector, not the arrays of unknown rank `elem` says they may be. It says the
    list's length too, so a change of the list in place (`append`, `pop`, a write)
    forgets it (`activity`)."""

    elem: object
    items: tuple | None = None

    def __repr__(self):
        if self.items is not None:
            return f"list[{', '.join(map(repr, self.items))}]"
        return f"list[{self.elem}]"


@dataclass(frozen=True)
class ObjectKind:
    """An argument that is an instance of `cls`, a class of the user's Python (not a
    library's, `user_class`): a value the compiler does not look into, as `OTHER`,
    but a call of its method (``self.predict(x)``) is a call of the function its class
    defines, and a derivative built for one class is not used for another.

    `attrs`, on the kind of a call's argument, is the kinds of the attributes the
    derivative may take as known (`held_attributes`: numbers and NumPy arrays the
    object holds itself, which nothing the function runs can rebind): ``self.a`` is
    then a float, not a value of unknown kind. A kind with other attributes' kinds is
    another kind, so the derivative is built again for them."""

    cls: type
    attrs: tuple | None = None

    def __repr__(self):
        held = "".join(f"; {n}: {k!r}" for n, k in self.attrs or ())
        return f"object[{self.cls.__module__}.{self.cls.__qualname__}{held}]"

    def attribute(self, name: str):
        """The kind of ``obj.name``: its kind in `attrs`, else unknown."""
        for n, k in self.attrs or ():
            if n == name:
                return k
        return UNKNOWN


def held_by(kind, attr: str) -> bool:
    """Does an object of `kind` hold `attr` as a number or array of a known kind
    (`ObjectKind.attrs`), bound for the whole call (nothing it runs can rebind it,
    `driver.stages.held_or_not`): a read of it is a value that cannot raise and does
    not change?"""
    return isinstance(kind, ObjectKind) and kind.attribute(attr) != UNKNOWN


def opaque(kind) -> bool:
    """Is `kind` that of a value the compiler does not look into (`OTHER`, or an
    `ObjectKind`)?"""
    return kind == OTHER or kind == NONE or isinstance(kind, ObjectKind)


# the modules (their first part) whose classes are not the user's (`user_class`)
_LIBRARY_MODULES = {"builtins", "numpy", "scipy", "jax", "jaxlib", "torch", "dask", "functools",
                    "collections", "s2sad", "math", "cmath", "operator", "itertools", "types",
                    "typing", "random", "decimal", "fractions", "pandas", "xarray",
                    "array_api_strict", "numba", "enum"}


def library_object(obj) -> bool:
    """Is `obj` (a function, a class, a callable) a library's: defined in a module of
    `_LIBRARY_MODULES` (the builtins, NumPy, `math`, s2sad's own, ...)?"""
    module = getattr(obj, "__module__", None)
    return library_module(module if isinstance(module, str) else type(obj).__module__)


def library_module(name) -> bool:
    """Is the module named `name` (``numpy.linalg``) one of `_LIBRARY_MODULES`'?"""
    return (name or "").partition(".")[0] in _LIBRARY_MODULES


def user_class(tp) -> bool:
    """Is `tp` a class of the user's Python (a ``class`` statement outside the
    libraries, whose methods s2sad may read), not a builtin type, a library's class
    (a function's, a module's, a ``functools.partial``'s among them), a class of
    classes or of exceptions, or one whose ``__getattribute__`` decides what a name
    of its instances means?"""
    return isinstance(getattr(tp, "__dict__", None), type(type.__dict__)) and \
        (getattr(tp, "__module__", None) or "").partition(".")[0] not in _LIBRARY_MODULES \
        and not issubclass(tp, (type, BaseException)) and \
        getattr(tp, "__getattribute__", None) is object.__getattribute__


def shadows(value) -> bool:
    """Does `value`, an object of the user's, hold in its own ``__dict__`` a name its
    class defines a method for (``obj.predict = ...``)? Python then calls what the
    object holds, not the method: such an object is "other", whose methods are not
    resolved (and the dispatcher and the caches check it again, `api.dispatch`)."""
    own = getattr(value, "__dict__", None)
    return isinstance(own, dict) and not method_names(type(value)).isdisjoint(own)


_METHODS = (type(shadows), staticmethod, classmethod)


def held_attributes(value, names) -> tuple:
    """``((name, kind), ...)``, by name, for each of `names` that `value` holds in its
    own ``__dict__`` as a number (`SCALAR`, `INT`: a float, an int, a bool or NumPy's
    scalar, not a subclass of one, whose operators may be the user's) or a NumPy
    array of numbers (its rank and dtype kind), and that no class of it defines as a
    descriptor (a property or a slot decides what the name means, not the
    ``__dict__``); empty for an object without a ``__dict__``, or holding more than
    `ITEMS` such values. The dispatcher checks each of them on every call
    (`attribute_signature`)."""
    own = getattr(value, "__dict__", None)
    if type(own) is not dict or not names:  # (not a subclass of dict, whose `get` lies)
        return ()
    np = _numpy()
    out = []
    for name in sorted(names & own.keys()):
        v = own[name]
        tp = type(v)  # (the type itself: a subclass of float may have its own `*`)
        if tp is bool or tp is int:
            kind = INT
        elif tp is float:
            kind = SCALAR
        elif tp is complex or np is not None and tp.__module__ == "numpy" and issubclass(
                tp, np.complexfloating):  # (as `kind_of`'s: complex arithmetic is seen)
            kind = ArrayKind(0, "c")
        elif np is not None and tp is np.ndarray and v.dtype.kind in _DTYPES:
            kind = ArrayKind(v.ndim, _DTYPES[v.dtype.kind])
        elif np is not None and tp.__module__ == "numpy" and issubclass(
                tp, (np.floating, np.integer, np.bool_)):
            kind = SCALAR if issubclass(tp, np.floating) else INT
        elif (library := array_library(v)) is not None:  # (a tensor: `np.dot(x, self.b)`)
            kind = ArrayKind(v.ndim, _DTYPES.get(dtype_kind(v.dtype), "?"), xp=library)
        else:
            continue
        if any(name in c.__dict__ and _data_descriptor(c.__dict__[name])
               for c in type(value).__mro__):
            continue
        out.append((name, kind))
    return tuple(out) if len(out) <= ITEMS else ()  # (each is checked on every call)


_NUMBERS = (float, int, bool)


def attribute_signature(value, attrs) -> tuple:
    """What the dispatcher compares of the attributes `attrs` (an `ObjectKind`'s) of
    `value` on a call: each one's type, and an array's rank and dtype (None where
    `value` no longer holds it)."""
    own = value.__dict__
    out = []
    for name, _ in attrs:
        v = own.get(name)
        tp = type(v)
        out.append((tp, v.ndim, v.dtype) if tp.__name__ == "ndarray" and
                   tp.__module__ == "numpy" or tp not in _NUMBERS and array_library(v)
                   else tp)
    return tuple(out)


def decides_attributes(tp, attrs) -> tuple:
    """What of the class `tp` decides what its objects' attributes `attrs` (an
    `ObjectKind`'s) are, which the dispatcher compares on a call as it does their
    types: whether it has its own ``__getattribute__``, and per attribute whether it
    has a descriptor of that name that comes before the object's ``__dict__`` (a
    property added to the class after the derivative was built)."""
    return (getattr(tp, "__getattribute__", None) is object.__getattribute__,) + tuple(
        _data_descriptor(getattr(tp, name, None)) for name, _ in attrs)


def _data_descriptor(value) -> bool:
    return hasattr(type(value), "__set__") or hasattr(type(value), "__delete__")


def method_names(tp) -> frozenset:
    """The names an instance of the user's class `tp` must not hold in its own
    ``__dict__`` for its kind to be `ObjectKind` (`shadows`): its class's methods;
    empty where its instances have no ``__dict__`` (``__slots__``) or it is no class
    of the user's. The dispatcher checks them on every call."""
    if not user_class(tp) or not getattr(tp, "__dictoffset__", 0):
        return frozenset()
    return frozenset(k for c in tp.__mro__ for k, v in c.__dict__.items()
                     if isinstance(v, _METHODS))


ITEMS = 32  # the longest list of arrays whose elements' kinds an argument's kind lists

# The arrays of other libraries that are differentiated (by their type's module and
# name), with the library's name `ArrayKind.xp` records. Each implements NumPy's
# ``__array_function__`` and ``__array_ufunc__`` (NEP 13 and 18), so the NumPy calls of
# the user's code and of its derivative return arrays of the same library.
LIBRARIES = {"dask.array.core.Array": "dask"}

# The libraries whose arrays implement neither protocol (a JAX array, and the tracer
# `jax.jit` passes in its place: any instance of ``jax.Array``; a PyTorch tensor), with
# the module that stands in for NumPy in the derivative's code: its text is the NumPy
# one, and the names that mean NumPy there mean this module when it runs (`compile`).
NAMESPACES = {"jax": "jax.numpy", "array_api_strict": "s2sad.backend.strict_numpy",
              "torch": "s2sad.backend.torch_numpy"}


def array_library(value):
    """The name of the library (a value of `LIBRARIES`, or a key of `NAMESPACES`)
    whose array `value` is; None for a NumPy array and anything else."""
    tp = type(value)
    got = LIBRARIES.get(f"{tp.__module__}.{tp.__qualname__}")
    if got is None and tp.__module__ == "array_api_strict._array_object":
        return "array_api_strict"
    if got is None and tp.__module__.startswith("jax"):
        jax = sys.modules.get("jax")
        if jax is not None and isinstance(value, jax.Array):
            return "jax"
    if got is None and tp.__module__.startswith("torch"):
        torch = sys.modules.get("torch")
        if torch is not None and isinstance(value, torch.Tensor):
            return "torch"
    return got


def libraries_in(kind) -> set:
    """The libraries (`ArrayKind.xp`, not None) of the arrays `kind` holds."""
    if isinstance(kind, ArrayKind):
        return {kind.xp} if kind.xp is not None else set()
    if isinstance(kind, ListKind):
        return set().union(libraries_in(kind.elem), *map(libraries_in, kind.items or ()))
    if isinstance(kind, tuple):
        return set().union(*map(libraries_in, kind))
    return set()


def namespace_of(kinds: dict):
    """The module (its name, a value of `NAMESPACES`) that stands in for NumPy in a
    derivative specialised on the argument `kinds`; None where NumPy stays NumPy."""
    found = set().union(*map(libraries_in, kinds.values())) & set(NAMESPACES)
    return NAMESPACES[found.pop()] if found else None


def kind_of(value, items=True):
    """The kind of `value` (a list's `items` only with `items`, for the list itself,
    not for the lists it holds: those may change through another name)."""
    if value is None:
        return NONE
    tp = type(value)
    if isinstance(value, int):  # (bool too; a subclass with an operator of its own
        return INT if tp is int or tp is bool or _plain(tp) else OTHER  # is not a number)
    if isinstance(value, float):
        return SCALAR if tp is float or _plain(tp) else OTHER
    if isinstance(value, complex):  # (a complex number: a 0-d complex array's kind, so the
        # analysis sees complex arithmetic where a derivative goes through it)
        return ArrayKind(0, "c")
    if isinstance(value, tuple):
        return tuple(kind_of(v, False) for v in value)
    if isinstance(value, list):
        elem = None
        kinds = [kind_of(v, False) for v in value]
        for k in kinds:
            elem = k if elem is None else merged(elem, k)
        if items and len(kinds) <= ITEMS and any(isinstance(k, ArrayKind) for k in kinds):
            # (an int among arrays is a number, as in `elem`)
            return ListKind(elem, tuple(SCALAR if k == INT else k for k in kinds))
        return ListKind(UNKNOWN if elem is None else elem)
    np = _numpy()
    if np is not None:
        if isinstance(value, np.ndarray):
            if tp is not np.ndarray and not _plain(tp, np.ndarray):
                return OTHER  # (np.matrix's `*`, a masked array's: not NumPy's arithmetic)
            if value.dtype.kind == "O":  # (its items are Python objects, and so are what
                return OTHER  # its sums and products give: not an array of numbers)
            return ArrayKind(value.ndim, _DTYPES.get(value.dtype.kind, "?"))
        if isinstance(value, np.integer) or isinstance(value, np.bool_):
            return INT
        if isinstance(value, np.floating):
            return SCALAR
        if isinstance(value, np.complexfloating):
            return ArrayKind(0, "c")
    library = array_library(value)
    if library is not None:
        dtype = _DTYPES.get(dtype_kind(value.dtype), "?")
        # (a float32 tensor's kind says so wherever it is taken, not only a call's
        # arguments': the user's float64 NumPy data is made float32 tensors beside it,
        # which PyTorch's matmul needs, `driver.libraries`)
        name = dtype_name(value.dtype) if dtype == "f" and library in STANDARD else None
        return ArrayKind(value.ndim, dtype, exact=None if name == "float64" else name,
                         xp=library)
    if user_class(type(value)) and not shadows(value):
        return ObjectKind(type(value))
    return OTHER


# the methods that make a subclass of a number or an array compute otherwise
_ARITHMETIC = frozenset(
    f"__{r}{name}__" for name in ("add", "sub", "mul", "truediv", "floordiv", "mod", "pow",
                                  "matmul", "divmod") for r in ("", "r", "i")) | {
    "__neg__", "__pos__", "__abs__", "__array_ufunc__", "__array_function__"}


def _plain(tp, base=None) -> bool:
    """Does the subclass `tp` (of a number, or of `base`) compute as what it subclasses:
    no class of it but `base`, the builtins' and NumPy's own scalar types defines an
    operator or takes over NumPy's functions (``np.matrix``, a masked array, a float
    whose ``__radd__`` is the user's are not plain)?"""
    for c in tp.__mro__:
        if c is base or c is object or c.__module__ == "builtins" or \
                base is None and c.__module__ == "numpy":
            continue
        if not _ARITHMETIC.isdisjoint(vars(c)):
            return False
    return True


def a_kind(kind) -> str:
    """`kind` in words, for a message: "a float", "an object of class `Index`"."""
    if isinstance(kind, ObjectKind):
        return f"an object of class `{kind.cls.__name__}`"
    words = {SCALAR: "a float", INT: "an int"}
    if kind in words:
        return words[kind]
    for tp, word in ((ArrayKind, "an array"), (ListKind, "a list"), (tuple, "a tuple")):
        if isinstance(kind, tp):
            return word
    if kind == NONE:
        return "None"
    if kind == OTHER:
        return "a value that is neither a number nor an array"
    return "a value of a kind s2sad cannot tell"


_DTYPES = {"f": "f", "i": "i", "u": "i", "b": "b", "c": "c"}


# The libraries whose derivatives run NumPy's names over the array API standard
# (`backend.standard`): their gradients are cast to the arguments' dtypes, their
# float32 kinds say so (`kind_of`), and the user's code runs with their functions
# as a whole (`driver.libraries`)
STANDARD = ("torch", "array_api_strict")


def dtype_name(dtype) -> str:
    """``float64`` for NumPy's dtype and for an array API library's dtype object
    without NumPy's attributes (array-api-strict's prints as
    ``array_api_strict.float64``)."""
    return getattr(dtype, "name", None) or str(dtype).rpartition(".")[2]


def dtype_kind(dtype) -> str:
    """NumPy's one-letter kind of `dtype` ("f", "i", "u", "b", "c"), from its name
    where it has no ``kind``."""
    kind = getattr(dtype, "kind", None)
    if isinstance(kind, str):
        return kind
    name = dtype_name(dtype)
    return next((k for prefix, k in (("float", "f"), ("complex", "c"), ("uint", "u"),
                                     ("int", "i"), ("bool", "b")) if name.startswith(prefix)),
                "?")


def merged(a, b):
    """The kind of a value that is either of kind `a` or of kind `b` (an element of
    a list holding both): an int and a float are a float; arrays of different ranks
    an array of unknown rank (of unknown dtype where theirs differ), and arrays with
    numbers too; lists of such elements a list of their merged kind; anything else
    unknown."""
    if a == b or b == PENDING:
        return a
    if a == PENDING:
        return b
    if isinstance(a, ObjectKind) and isinstance(b, ObjectKind) and a.cls is b.cls:
        return ObjectKind(a.cls)  # (the same class: its methods, not its attributes)
    if opaque(a) and opaque(b):
        return OTHER
    if {a, b} <= {SCALAR, INT}:
        return SCALAR
    if isinstance(a, ListKind) and isinstance(b, ListKind):
        return ListKind(merged(a.elem, b.elem))
    if isinstance(a, tuple) and isinstance(b, tuple) and len(a) == len(b):
        return tuple(merged(x, y) for x, y in zip(a, b))
    if isinstance(a, ArrayKind) or isinstance(b, ArrayKind):
        arrays = [k for k in (a, b) if isinstance(k, ArrayKind)]
        others = [k for k in (a, b) if not isinstance(k, ArrayKind)]
        libraries = {k.xp for k in arrays}
        if all(k in (SCALAR, INT) for k in others) and len(libraries) == 1:
            ndims = {k.ndim for k in arrays}
            dtypes = {k.dtype for k in arrays}
            # (a number is what a 0-d array is to NumPy: a 0-d array or a number is of
            # rank 0; with arrays of other ranks, of a rank not known)
            rank = ndims.pop() if len(ndims) == 1 and (not others or 0 in {k.ndim for k in arrays}) \
                else None
            return ArrayKind(rank, dtypes.pop() if len(dtypes) == 1 else "?", xp=libraries.pop())
    return UNKNOWN


def shape_pattern(shapes: list) -> list:
    """The `dims` labels of arrays with these shapes: an axis of length 1 is 1; any
    other axis gets 2 plus the position (counting every axis of every array in order)
    of the first axis of its length. So the labels say which axes are 1 and which are
    equal, and nothing about the lengths themselves: (64, 256) and (256,) give
    ``[(2, 3), (3,)]``, as (5, 7) and (7,) do."""
    first: dict = {}
    out = []
    at = 0
    for shape in shapes:
        dims = []
        for n in shape:
            dims.append(1 if n == 1 else first.setdefault(n, 2 + at))
            at += 1
        out.append(tuple(dims))
    return out


def shaped_arguments(values: dict) -> list:
    """The arrays among the arguments `values` that the shape pattern labels, in
    order, as ``(name, index, shape)``: an array argument (index None), and each array
    element of a list whose kind lists its elements (`ListKind.items`). An array of
    another library (`array_library`) counts as a NumPy array does."""
    np = _numpy()
    out = []
    if np is None:
        return out
    for n, v in values.items():
        if isinstance(v, np.ndarray):
            out.append((n, None, v.shape))
        elif isinstance(v, list) and len(v) <= ITEMS and \
                any(isinstance(e, np.ndarray) or array_library(e) for e in v):
            out.extend((n, i, e.shape) for i, e in enumerate(v)
                       if isinstance(e, np.ndarray) or array_library(e))
        elif array_library(v) is not None:
            out.append((n, None, v.shape))
    return out


def with_shapes(kinds: dict, values: dict) -> dict:
    """`kinds` with the `dims` and `exact` dtype of every array argument among
    `values` filled in, and the `dims` of the array elements a list argument's kind
    lists (`shaped_arguments`: the dispatcher keys on the same labels)."""
    shaped = [(n, i, shape) for n, i, shape in shaped_arguments(values)
              if n in kinds and (isinstance(kinds[n], ArrayKind) if i is None else
                                 isinstance(kinds[n], ListKind) and kinds[n].items is not None
                                 and len(kinds[n].items) == len(values[n]))]
    if not shaped:
        return kinds
    out = dict(kinds)
    items = {}
    for (n, i, _), dims in zip(shaped, shape_pattern([shape for _, _, shape in shaped])):
        if i is None:
            out[n] = ArrayKind(kinds[n].ndim, kinds[n].dtype, dims, dtype_name(values[n].dtype),
                               kinds[n].xp)
        else:
            k = items.setdefault(n, list(kinds[n].items))[i]
            items[n][i] = ArrayKind(k.ndim, k.dtype, dims, xp=k.xp)
    for n, listed in items.items():
        out[n] = ListKind(kinds[n].elem, tuple(listed))
    return out


def kind_of_type(tp):
    """The kind of any value of type `tp` (None when it depends on the value)."""
    if tp is bool or tp is int:
        return INT
    if tp is float:
        return SCALAR
    np = _numpy()
    if np is not None:
        if issubclass(tp, np.floating):
            return SCALAR
        if issubclass(tp, (np.integer, np.bool_)):
            return INT
    if issubclass(tp, float):
        return SCALAR
    if issubclass(tp, int):
        return INT
    return None


def differentiable(kind) -> bool:
    if isinstance(kind, tuple):
        return any(differentiable(k) for k in kind)
    if isinstance(kind, ListKind):
        return differentiable(kind.elem)
    if isinstance(kind, ArrayKind):
        return kind.dtype in ("f", "?")
    return kind in (SCALAR, UNKNOWN, PENDING)  # (pending: what it may be, a number)


def _numpy():
    return sys.modules.get("numpy")


def rank_of(kind):
    return kind.ndim if isinstance(kind, ArrayKind) else (0 if kind in (SCALAR, INT) else None)


def array_rank(kind):
    """The rank of ``np.asarray(value)`` for a value of `kind` (None: unknown): a
    number is 0-d, a list or tuple adds one axis to its elements' common rank."""
    if isinstance(kind, ListKind):
        inner = array_rank(kind.elem)
        return None if inner is None else inner + 1
    if isinstance(kind, tuple):
        ranks = {array_rank(k) for k in kind}
        if not kind:
            return 1
        return None if len(ranks) != 1 or None in ranks else ranks.pop() + 1
    return rank_of(kind)


def isinstance_known(kind, classes: tuple):
    """``isinstance(p, classes)`` for a parameter `p` of `kind`, where the kind decides
    it for every value the compiled code is called with (it is specialised on the
    arguments' types): True, False, or None when it does not."""
    np = _numpy()
    if isinstance(kind, ArrayKind) and kind.xp is not None:
        return None  # (another library's array: what it is an instance of is its own)
    if isinstance(kind, ArrayKind) and kind.ndim not in (None, 0):
        # (a value of rank 0 may be a NumPy scalar: a ufunc of 0-d arrays gives one)
        types = (np.ndarray,)
    elif isinstance(kind, ListKind):
        types = (list,)
    elif isinstance(kind, tuple):
        types = (tuple,)
    elif kind == SCALAR:
        types = (float,) + ((np.floating,) if np is not None else ())
    elif kind == INT:
        types = (int,) + ((np.integer, np.bool_) if np is not None else ())
    else:
        return None
    # classes no value of another of these types can be an instance of
    fixed = {float, int, bool, complex, str, bytes, list, tuple, dict, set, type(None)}
    if np is not None:
        fixed |= {np.ndarray, np.generic, np.number, np.floating, np.integer, np.bool_,
                  np.complexfloating, np.float64, np.float32, np.int64, np.int32}
    answers = set()
    for cls in classes:
        if not isinstance(cls, type):
            return None
        if all(issubclass(t, cls) for t in types):
            return True
        if cls in fixed and not any(issubclass(t, cls) or issubclass(cls, t) for t in types):
            answers.add(False)
        else:
            answers.add(None)
    return False if answers == {False} else None


def leaves_dtype(kind) -> str:
    """The dtype kind of ``np.asarray`` of a value of `kind`: "i" for ints only, "f"
    for floats (and ints), else "?"."""
    found = set()
    _leaf_dtypes(kind, found)
    if found == {"i"}:
        return "i"
    return "f" if found and found <= {"i", "f"} else "?"


def _leaf_dtypes(k, found: set) -> None:
    """Add the dtype kind of each leaf of `k` to `found` (a function of the module, not
    a closure calling itself: that would be a reference cycle per call)."""
    if isinstance(k, ListKind):
        _leaf_dtypes(k.elem, found)
    elif isinstance(k, tuple):
        for e in k:
            _leaf_dtypes(e, found)
    elif isinstance(k, ArrayKind):
        found.add(k.dtype)
    else:
        found.add({INT: "i", SCALAR: "f"}.get(k, "?"))


def all_floats(kind) -> bool:
    if isinstance(kind, ListKind):
        return all_floats(kind.elem)
    if isinstance(kind, tuple):
        return bool(kind) and all(all_floats(k) for k in kind)
    return kind == SCALAR


def attribute_kind(attr: str, kind):
    """The kind of ``x.shape``, ``x.ndim`` or ``x.size`` for an `x` of `kind` (a
    number's, for NumPy scalars, too)."""
    if attr in ("ndim", "size"):
        return INT if isinstance(kind, ArrayKind) or kind in (SCALAR, INT) else UNKNOWN
    if attr == "shape":
        rank = rank_of(kind)
        return (INT,) * rank if rank is not None else UNKNOWN
    if attr == "dtype" and isinstance(kind, ArrayKind) and kind.dtype != "?":
        return DTypeKind(kind.dtype)  # (so `np.zeros(n, dtype=x.dtype)` has a known dtype)
    return UNKNOWN


@dataclass(frozen=True)
class DTypeKind:
    """The kind of ``x.dtype`` for an array whose dtype kind `code` is known."""

    code: str

    def __repr__(self):
        return f"dtype[{self.code}]"


def logical_kind(inputs: list):
    """The kind of a comparison, bitwise operation or `not`/`~` of `inputs`: a
    boolean array when an input is an array, else an int; unknown when an input is
    (``w > 0`` of an array read from a dict of settings is an array, and the rules for
    numbers' ``np.where`` would test its truth)."""
    arrays = [k for k in inputs if isinstance(k, ArrayKind)]
    if not arrays:
        return UNKNOWN if UNKNOWN in inputs else INT
    ranks = [rank_of(k) for k in inputs]
    return ArrayKind(max(ranks) if None not in ranks else None, "b")
