"""shape_rules: what NumPy's functions do to the shapes of their inputs, as symbols.

A shape is a tuple of symbols, one per axis: two axes with the same symbol have
the same length, the symbol 1 is an axis of length 1, a `Fresh` symbol says nothing
about its length (`fresh(rank)`: a shape of which only the rank is known). A
number's shape is ``()``, a list's or a tuple's `Parts`, and None is the shape of
a value whose rank is unknown. `broadcast` and `reduced` are NumPy's rules on
shapes; the other functions are the `shape` of the rows of `facts.TABLE`: each
takes the call (`Args`) and gives the shape of its result (a list of shapes for a
function of several results).

May import nothing of s2sad.
"""

from __future__ import annotations

from dataclasses import dataclass


class Fresh:
    """An axis of which nothing is known but that it is there: each one its own
    length, equal to no other axis."""

    __slots__ = ()

    def __repr__(self):
        return "?"


def fresh(rank):
    """A shape of `rank` fresh axes (None: an unknown rank)."""
    return None if rank is None else tuple(Fresh() for _ in range(max(rank, 0)))


def rank_only(shape):
    """`shape` with its symbols forgotten (only its rank is known)."""
    return shape if not isinstance(shape, tuple) else fresh(len(shape))


def knows_symbols(shape) -> bool:
    """Is `shape` a shape with no fresh axis?"""
    return isinstance(shape, tuple) and not any(isinstance(a, Fresh) for a in shape)


def broadcast(shapes: list, strict=False):
    """The shape NumPy broadcasts `shapes` to: axes aligned from the right, an axis of
    length 1 (or a missing one) taking the other's length. Axes with different
    symbols, neither 1, have lengths that may or may not be equal: the result's axis
    is a new symbol, or with `strict` the answer is None (they may not broadcast)."""
    rank = max(len(x) for x in shapes)
    out = []
    for i in range(rank):
        axis = {x[len(x) - rank + i] for x in shapes if len(x) - rank + i >= 0} - {1}
        if len(axis) > 1:
            if strict:
                return None
            axis = {_joined(axis)}
        out.append(axis.pop() if axis else 1)
    return tuple(out)


def _joined(symbols) -> str:
    """The symbol of the length `symbols` broadcast to, ``?a|b``: one name per set of
    the symbols it joins, a joined one counting as its parts (broadcasting's length
    does not depend on the order the axes meet in), so chained broadcasts of a few
    symbols keep a short name (nested, the names doubled at every step)."""
    parts = set()
    for s in symbols:
        text = str(s)
        if isinstance(s, str) and text.startswith("?") and len(text) > 1:
            parts.update(text[1:].split("|"))
        else:
            parts.add(text)
    return f"?{'|'.join(sorted(parts))}"


def reduced(shape, axis, keepdims):
    """The shape of a reduction of an array of `shape` over `axis` (None: all)."""
    if axis == "?" or keepdims not in (True, False):
        return None
    axes = range(len(shape)) if axis is None else axis if isinstance(axis, tuple) else (axis,)
    try:
        axes = {a % len(shape) for a in axes}
    except (TypeError, ZeroDivisionError):
        return None
    if keepdims:
        return tuple(1 if i in axes else n for i, n in enumerate(shape))
    return tuple(n for i, n in enumerate(shape) if i not in axes)


@dataclass(frozen=True)
class Parts:
    """The shape of a list or a tuple given where an array may be: `items`, the
    shape of each item where they are known (a tuple), else None and `elem`, the
    shape of any element."""

    items: tuple | None = None
    elem: object = None


@dataclass(frozen=True)
class Args:
    """What a row's `shape` reads of a call: `shapes`, one per input (a tuple of
    symbols for an array, ``()`` for a number, `Parts` for a list or a tuple, None
    where the rank is unknown); `values`, each input's literal value ("?" where it
    is not a literal: ``np.reshape``'s shape); `options`, each option given, by
    name, its literal value ("?" where it is not a literal)."""

    shapes: tuple
    values: tuple = ()
    options: dict | None = None

    def option(self, name, default=None):
        return (self.options or {}).get(name, default)


def _arrays(a: Args) -> bool:
    return bool(a.shapes) and all(isinstance(s, tuple) for s in a.shapes)


def elementwise(a: Args):
    """NumPy's broadcasting of all the inputs."""
    return broadcast(list(a.shapes)) if _arrays(a) else None


def elementwise_rank(a: Args):
    """The rank broadcasting gives, its symbols forgotten (a rule that is not a
    ufunc, which may not broadcast)."""
    return rank_only(elementwise(a))


def first(a: Args):
    """The shape of the first input."""
    return a.shapes[0] if a.shapes else None


def second(a: Args):
    """The shape of the second input (``np.polyval(p, x)``: x's)."""
    return a.shapes[1] if len(a.shapes) > 1 else None


def no_axes(a: Args):
    """A number's shape (``x.item()``)."""
    return ()


def reduction(a: Args):
    """``np.sum(x, axis=..., keepdims=...)`` and its kin."""
    x, axis, keepdims = first(a), a.option("axis"), a.option("keepdims", False)
    if keepdims is True:
        if not isinstance(x, tuple):
            return ()  # (only a number's reduction reaches here without its kind)
        return reduced(x, axis, True) or fresh(len(x))
    if axis is None:
        return ()
    if axis == "?" or keepdims == "?" or not isinstance(x, tuple) or not x:
        return None
    rank = len(x) - (len(axis) if isinstance(axis, tuple) else 1)
    out = reduced(x, axis, False)
    return out if out is not None and len(out) == rank else fresh(rank)


def quantile(a: Args):
    """``np.quantile(x, q, axis=..., keepdims=...)``: q's axes, then the reduction's."""
    q = a.shapes[1] if len(a.shapes) > 1 else None
    out = reduction(a)
    return q + out if isinstance(q, tuple) and isinstance(out, tuple) else None


def norm(a: Args):
    # (with ord= its symbols are forgotten: the 2-norm of a matrix is a number)
    return rank_only(reduction(a)) if "ord" in (a.options or {}) else reduction(a)


def matmul(a: Args):
    """``x @ y``: 1-D and 2-D operands. A stack of matrices gets the larger rank of
    the two, a number (which ``@`` refuses) the other's rank."""
    x, y = a.shapes[:2]
    if not isinstance(x, tuple) or not isinstance(y, tuple):
        return None
    if not x or not y or len(x) > 2 or len(y) > 2:
        return fresh(max(len(x), len(y)))
    return x[:-1] + (y[-1:] if len(y) == 2 else ())


def dot(a: Args):
    """``np.dot``: ``@``, but a number multiplies (and broadcasts)."""
    x, y = a.shapes[:2]
    if isinstance(x, tuple) and isinstance(y, tuple) and (not x or not y):
        return broadcast([x, y])
    return matmul(a)


def inner(a: Args):
    # (only the rank, as analysis.shapes has always given: a[:-1] + b[:-1] would be
    # the shape)
    x, y = a.shapes[:2]
    if not isinstance(x, tuple) or not isinstance(y, tuple):
        return None
    return fresh(max(len(x), len(y)) if not x or not y else len(x) + len(y) - 2)


def outer(a: Args):
    x, y = a.shapes[:2]
    if isinstance(x, tuple) and isinstance(y, tuple) and len(x) == len(y) == 1:
        return x + y
    return fresh(2)


def ufunc_outer(a: Args):
    """``np.add.outer(x, y)`` and the other ufuncs' outer: x's axes, then y's."""
    x, y = a.shapes[:2]
    return x + y if isinstance(x, tuple) and isinstance(y, tuple) else None


def meshgrid(a: Args):
    """``np.meshgrid(x, y)`` of vectors: two grids of y's length by x's ('xy'), or of
    x's by y's (``indexing="ij"``)."""
    x, y = a.shapes[:2]
    if not (isinstance(x, tuple) and isinstance(y, tuple) and len(x) == len(y) == 1):
        return None
    grid = x + y if a.option("indexing", "xy") == "ij" else y + x
    return [grid, grid] if a.option("indexing", "xy") in ("xy", "ij") else [fresh(2), fresh(2)]


def per_matrix(a: Args):
    """One number per matrix of a stack: ``np.linalg.det`` takes the last two axes,
    ``np.trace`` the first two; the rest are the stack's."""
    x = first(a)
    return None if not isinstance(x, tuple) else fresh(len(x) - 2)


def slogdet(a: Args):
    return [per_matrix(a)] * 2  # (the sign and the logarithm)


def solve(a: Args):
    """``np.linalg.solve(a, b)``: b is one vector only when it is 1-D (NumPy 2), else
    a matrix or a stack of them; the stacks of a and b broadcast."""
    x, y = a.shapes[:2]
    if not isinstance(x, tuple) or not isinstance(y, tuple):
        return None
    return fresh(len(x) - 1 if len(y) == 1 else max(len(x), len(y)))


def transpose(a: Args):
    x = first(a)
    if not isinstance(x, tuple):
        return None
    return x[::-1] if "axes" not in (a.options or {}) else fresh(len(x))


def same_rank(a: Args):
    return rank_only(first(a))


def cumulative(a: Args):
    """``np.cumsum(x, axis)``: x's shape along an axis, one axis without one."""
    x, axis = first(a), a.option("axis")
    if axis is None:
        return fresh(1)
    return x if isinstance(axis, int) and isinstance(x, tuple) else None


def flat(a: Args):
    return fresh(1)


def reshape(a: Args):
    shape = a.values[1] if len(a.values) > 1 else "?"
    given = a.shapes[1] if len(a.shapes) > 1 else None
    if isinstance(shape, int):
        return fresh(1)
    if isinstance(shape, tuple):
        return fresh(len(shape))
    if isinstance(given, Parts) and given.items is not None:
        return fresh(len(given.items))
    return fresh(1) if given == () else None


def expand_dims(a: Args):
    x = first(a)
    axis = a.values[1] if len(a.values) > 1 else "?"
    given = a.shapes[1] if len(a.shapes) > 1 else None
    added = len(axis) if isinstance(axis, tuple) else len(given.items) \
        if isinstance(given, Parts) and given.items is not None \
        else 1 if isinstance(axis, int) or given == () else None
    return None if not isinstance(x, tuple) or added is None else fresh(len(x) + added)


def squeeze(a: Args):
    x = first(a)
    if isinstance(a.option("axis"), int) and isinstance(x, tuple):
        return fresh(len(x) - 1)
    return None


def _part(a: Args):
    """The shape of the first part of a list or a tuple of arrays."""
    parts = first(a)
    if not isinstance(parts, Parts):
        return None
    if parts.items is not None:
        return parts.items[0] if parts.items else None
    return parts.elem


def _part_rank(a: Args):
    part = _part(a)
    return len(part) if isinstance(part, tuple) else None


def concatenate(a: Args):
    axis, rank = a.option("axis", 0), _part_rank(a)
    if axis is None:  # (the parts flattened first)
        return fresh(1)
    return None if axis == "?" and rank != 1 else fresh(rank)


def stack(a: Args):
    rank = _part_rank(a)
    return fresh(None if rank is None else rank + 1)


def hstack(a: Args):
    return fresh(_part_rank(a))


def vstack(a: Args):
    return fresh(2)


def _array_rank(shape):
    """The rank of ``np.asarray(value)`` for a value of `shape`."""
    if isinstance(shape, tuple):
        return len(shape)
    if not isinstance(shape, Parts):
        return None
    if shape.items is None:
        inner = _array_rank(shape.elem)
        return None if inner is None else inner + 1
    ranks = {_array_rank(s) for s in shape.items}
    if not shape.items:
        return 1
    return None if len(ranks) != 1 or None in ranks else ranks.pop() + 1


def as_array(a: Args):
    """``np.array(value)``: a number gives a 0-d array, nested lists one axis per
    level, an array (``np.copy(x)``, ``x.copy()``) its own shape unless ``ndmin=``
    may add axes."""
    x = first(a)
    if isinstance(x, tuple) and a.option("ndmin") is None:
        return x
    return fresh(_array_rank(x))


# ------------------------------------------ reordering, padding, contracting (shaping_*)
# (their first input may be a list or a tuple of numbers or arrays: an array of the
# rank `as_array` gives)


def _array_first(a: Args):
    """The shape of ``np.asarray(x)`` for the first input x."""
    x = first(a)
    return fresh(_array_rank(x)) if isinstance(x, Parts) else x


def same_as_array(a: Args):
    """The shape of ``np.asarray(x)`` (a flip, a roll, a triangle of x)."""
    return _array_first(a)


def triangle(a: Args):
    """``np.tril(x, k)`` and ``np.triu``: x's shape; of a vector, the square it makes
    (the vector every row)."""
    x = _array_first(a)
    return (x[0], x[0]) if isinstance(x, tuple) and len(x) == 1 else x


def sort(a: Args):
    """``np.sort(x, axis=-1)``: x's shape; axis=None: flattened."""
    x = _array_first(a)
    return fresh(1) if a.option("axis", -1) is None else x if isinstance(x, tuple) else None


def difference(a: Args):
    """``np.diff(x, n, axis=-1)``: x's shape, shorter (a new length) along the axis."""
    x, axis = _array_first(a), a.option("axis", -1)
    if not isinstance(x, tuple) or not x or not isinstance(axis, int):
        return rank_only(x)
    i = axis % len(x)
    return x[:i] + (Fresh(),) + x[i + 1:]


def _index_shape(shape):
    """The shape of ``np.asarray(indices)`` for indices of `shape`."""
    return shape if isinstance(shape, tuple) else fresh(_array_rank(shape))


def take(a: Args):
    """``np.take(x, indices, axis)``: the indices' axes in place of the axis (of x
    flattened for axis=None)."""
    x, axis = _array_first(a), a.option("axis")
    index = _index_shape(a.shapes[1]) if len(a.shapes) > 1 else None
    if axis is None or index is None:
        return index
    if not isinstance(x, tuple) or not x or not isinstance(axis, int):
        return None
    i = axis % len(x)
    return x[:i] + index + x[i + 1:]


def take_along_axis(a: Args):
    """``np.take_along_axis(x, indices, axis=-1)``: the indices' length along the
    axis, x's and the indices' broadcast along the others (axis=None: the indices'
    shape, of x flattened)."""
    x, axis = _array_first(a), a.option("axis", -1)
    index = _index_shape(a.shapes[1]) if len(a.shapes) > 1 else None
    if axis is None or index is None:
        return index
    if not isinstance(x, tuple) or not x or not isinstance(axis, int) or len(index) != len(x):
        return None
    i = axis % len(x)
    return broadcast([x[:i] + index[i:i + 1] + x[i + 1:], index])


def convolved(a: Args):
    """``np.convolve(a, v)`` and ``np.correlate``: one axis, its length the inputs'
    sum or difference, or the longer one's."""
    return fresh(1)


def integrated(a: Args):
    """``np.trapezoid(y, x, axis=-1)``: y's shape without the axis."""
    y = _array_first(a)
    if not isinstance(y, tuple) or not y:
        return rank_only(y)
    return reduced(y, a.option("axis", -1), False)


def counted(a: Args):
    """``np.bincount(x, weights)``: one axis, as long as the largest bin needs."""
    return fresh(1)


def tile(a: Args):
    """``np.tile(x, reps)``: as many axes as x or reps has, whichever is more."""
    x = first(a)
    reps = a.values[1] if len(a.values) > 1 else "?"
    given = a.shapes[1] if len(a.shapes) > 1 else None
    n = 1 if isinstance(reps, int) or given == () else len(reps) if isinstance(reps, tuple) \
        else len(given.items) if isinstance(given, Parts) and given.items is not None else None
    return None if not isinstance(x, tuple) or n is None else fresh(max(len(x), n))


def repeat(a: Args):
    """``np.repeat(x, repeats, axis)``: x's rank (one axis for axis=None)."""
    return fresh(1) if a.option("axis") is None else rank_only(_array_first(a))


def kron(a: Args):
    x, y = a.shapes[:2]
    if not isinstance(x, tuple) or not isinstance(y, tuple):
        return None
    return fresh(max(len(x), len(y)))


def tensordot(a: Args):
    """``np.tensordot(x, y, axes)``: the axes of x and of y not summed over."""
    x, y = a.shapes[:2]
    axes = a.option("axes", 2)
    if isinstance(axes, int):
        n = axes
    elif isinstance(axes, tuple) and len(axes) == 2:
        n = len(axes[0]) if isinstance(axes[0], tuple) else 1
    else:
        return None
    if not isinstance(x, tuple) or not isinstance(y, tuple):
        return None
    return fresh(len(x) + len(y) - 2 * n)


def einsum(a: Args):
    """``np.einsum(subscripts, *operands)``: one axis per label of the output (the
    labels that appear once, without ``->``), and the broadcast axes of ``...``."""
    text = a.values[0] if a.values else "?"
    ranks = [len(s) if isinstance(s, tuple) else None for s in a.shapes[1:]]
    if not isinstance(text, str):
        return None
    text = text.replace(" ", "")
    inputs, arrow, output = text.partition("->")
    parts = inputs.split(",")
    if "..." in text:
        if None in ranks or len(ranks) != len(parts):
            return None
        dots = max([n - len(p.replace("...", "")) for p, n in zip(parts, ranks) if "..." in p],
                   default=0)
    else:
        dots = 0
    labels = [c for c in inputs.replace("...", "") if c.isalpha()]
    if not arrow:
        output = "".join(sorted(c for c in set(labels) if labels.count(c) == 1))
    count = len(output.replace("...", "")) + (dots if "..." in output or not arrow else 0)
    shapes = a.shapes[1:]
    if "..." in text or len(shapes) != len(parts) or not all(
            isinstance(s, tuple) and len(s) == len(p) for s, p in zip(shapes, parts)):
        return fresh(count)
    # each output axis has the length of an input axis of its label (one not of
    # length 1, where a label's axes broadcast)
    symbol = {}
    for p, s in zip(parts, shapes):
        for c, x in zip(p, s):
            if symbol.get(c, 1) == 1:
                symbol[c] = x
    return tuple(symbol[c] for c in output)


def diag(a: Args):
    """``np.diag(v, k)``: a matrix of a vector, the diagonal of a matrix."""
    x = _array_first(a)
    return fresh(2 if x == () or isinstance(x, tuple) and len(x) == 1 else 1) \
        if isinstance(x, tuple) else None


def split(axis=None):
    """``np.split(x, sections, axis=0)`` and its kin (`axis` the one ``np.vsplit``,
    ``hsplit`` and ``dsplit`` split along; ``hsplit`` of a vector splits its only
    axis): a list of pieces, x's shape with a new length along the axis, as many as
    a literal int says or one more than a literal tuple's cuts (else a list of
    them, `Parts`)."""

    def shape(a: Args):
        x, sections = _array_first(a), a.option("indices_or_sections")
        along = a.option("axis", 0) if axis is None else axis
        count = sections if type(sections) is int else \
            len(sections) + 1 if isinstance(sections, tuple) else None
        if not isinstance(x, tuple) or not x or not isinstance(along, int):
            piece = rank_only(x)
        else:
            i = (along if len(x) > 1 else 0) % len(x)
            piece = x[:i] + (Fresh(),) + x[i + 1:]
        # (a count not known here: a list of such pieces)
        return Parts(elem=piece) if count is None else [piece] * count

    shape.__name__ = "split"
    return shape


def diagonal(a: Args):
    """``np.diagonal(x, offset, axis1=0, axis2=1)``: x's other axes, then the diagonal
    (a new length)."""
    x = _array_first(a)
    pair = (a.option("axis1", 0), a.option("axis2", 1))
    if not isinstance(x, tuple):
        return None
    if len(x) < 2 or not all(isinstance(i, int) for i in pair):
        return fresh(len(x) - 1)
    pair = {i % len(x) for i in pair}
    return tuple(n for i, n in enumerate(x) if i not in pair) + (Fresh(),)


def two_like_first(a: Args):
    """``np.modf(x)``: two arrays of x's shape (the fractional and the integral parts)."""
    x = elementwise(a)
    return [x, x]


def stacked_up(rank: int):
    """``np.column_stack`` (`rank` 2) and ``np.dstack`` (3): the parts' rank, at
    least `rank`."""

    def shape(a: Args):
        part = _part_rank(a)
        return fresh(None if part is None else max(part, rank))

    shape.__name__ = "stacked_up"
    return shape


def edited(a: Args):
    """``np.append``, ``np.insert`` and ``np.delete`` (x, ..., axis=None): of x
    flattened, one axis; along an axis, x's rank."""
    return fresh(1) if a.option("axis") is None else rank_only(_array_first(a))


def compressed(a: Args):
    """``np.compress(condition, x, axis=None)``: of x flattened, one axis; along an
    axis, x's rank."""
    x = a.shapes[1] if len(a.shapes) > 1 else None
    return fresh(1) if a.option("axis") is None else \
        fresh(_array_rank(x)) if x is not None else None


def selected(a: Args):
    """``np.select(condlist, choicelist, default)``: the rank the conditions, the
    choices and the default broadcast to."""
    ranks = [_array_rank(s) for s in a.shapes[:2]]
    ranks = [r - 1 for r in ranks if r is not None] + [
        _array_rank(s) for s in a.shapes[2:3]]
    return None if None in ranks or len(ranks) < min(len(a.shapes), 3) else fresh(max(ranks, default=0))


def covariance(a: Args):
    """``np.cov(m)`` and ``np.corrcoef(m)``: a 0-d array of one variable's values;
    of a matrix, a matrix, or a 0-d array where it holds one variable (which its
    symbols may not tell)."""
    x = _array_first(a)
    return () if isinstance(x, tuple) and len(x) == 1 else None


def multi_dot(a: Args):
    """``np.linalg.multi_dot(arrays)``: a 1-D first or last array takes an axis away."""
    parts = first(a)
    if not isinstance(parts, Parts) or not parts.items or not all(
            isinstance(s, tuple) for s in parts.items):
        return None
    ends = (parts.items[0], parts.items[-1])
    return fresh(sum(len(s) == 2 for s in ends))


def at_least(rank: int):
    """``np.atleast_1d``, ``_2d``, ``_3d``: axes of length 1 added (in front, but the
    third axis of ``np.atleast_3d``, added last)."""

    def shape(a: Args):
        x = _array_first(a)
        if not isinstance(x, tuple) or len(x) >= rank:
            return x
        if rank == 3 and x:
            return ((1,) if len(x) == 1 else ()) + x + (1,)
        return (1,) * (rank - len(x)) + x

    shape.__name__ = f"atleast_{rank}d"
    return shape


# ---------------------------------------------------- np.linalg's decompositions


def _matrices(a: Args):
    """The first input's shape where it is a matrix or a stack of them, else None."""
    x = first(a)
    return x if isinstance(x, tuple) and len(x) >= 2 else None


def _thin(x):
    """The length min(m, n) of a (m, n) matrix: m's symbol where the matrix is square."""
    return x[-2] if x[-2] == x[-1] else Fresh()


def eigh(a: Args):
    """``np.linalg.eigh``: the eigenvalues (the last axis dropped) and the vectors."""
    x = _matrices(a)
    return [None, None] if x is None else [x[:-1], x]  # (a pair, of ranks not known)


def eigvalsh(a: Args):
    x = _matrices(a)
    return None if x is None else x[:-1]


def svd(a: Args):
    """``np.linalg.svd``: (u, s, vh) of the thin decomposition (full_matrices=False),
    or s alone (compute_uv=False)."""
    x = _matrices(a)
    if a.option("compute_uv", True) == "?":
        return None
    if x is None:  # (three arrays, or s alone, of ranks not known)
        return None if a.option("compute_uv", True) is False else [None] * 3
    k = _thin(x)
    s = x[:-2] + (k,)
    if a.option("compute_uv", True) is False:
        return s
    return [x[:-1] + (k,), s, x[:-2] + (k, x[-1])]


def svdvals(a: Args):
    x = _matrices(a)
    return None if x is None else x[:-2] + (_thin(x),)


def qr(a: Args):
    """``np.linalg.qr`` (mode='reduced'): q of shape (m, k) and r of shape (k, n)."""
    x = _matrices(a)
    if x is None:
        return [None, None]  # (a pair, of ranks not known)
    k = _thin(x)
    return [x[:-1] + (k,), x[:-2] + (k, x[-1])]


def pinv(a: Args):
    """``np.linalg.pinv``: the last two axes swapped."""
    x = _matrices(a)
    return None if x is None else x[:-2] + (x[-1], x[-2])
