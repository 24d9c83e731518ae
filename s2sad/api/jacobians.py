"""`jacobian`: the Jacobian of a function of floats, float arrays and lists of
them, built with forward mode (vector mode, batched tangents, or one pass per input
number) or row by row from the pullback, whichever needs fewer passes (see
`jacobian`'s docstring).

Imports `arguments`, `dispatch`, `repeats`, `shapes`, `forward` (`call_derivative`) and
`reverse` (`vjp_of`) from `api`.
"""

from __future__ import annotations

import builtins
import copy
import weakref

import numpy as np

from ..errors import S2SADError
from ..ir.kinds import array_library, kind_of
from ..transform import batching
from . import dispatch, shapes
from ..ir import trees
from . import repeats, structured
from .arguments import (rebased_wrt, rebound, unbound, argument_kinds, bind, call_with, mark_made, normalize_wrt, public,
                        split_arguments,
                        refuse_derived, with_attributes)
from .forward import call_derivative
from .reverse import vjp_of


@public
def jacobian(f, wrt=0, mode="auto"):
    """The Jacobian of `f` with respect to `wrt`: for an output of shape ``o`` and an
    input of shape ``s`` (a list of n floats counts as shape ``(n,)``, a float as
    ``()``), an array of shape ``o + s``; a tuple `wrt` gives a tuple of these, and a
    tuple output a tuple over its parts; an output that is another container (a dict,
    a namedtuple), or containers among the inputs, nest as `_structured` says.

    ``mode="forward"`` pushes tangents forward: for a function of numbers (floats and
    lists of floats) whose tangent lines work entry by entry (`batching.check_vectors`)
    one pass carries every direction at once as a vector of tangents; for a function
    of floats and float arrays one pass carries them as a leading axis of every
    tangent, when `batching` proves its tangent code correct that way; otherwise one
    pass per input number.
    ``mode="reverse"`` builds the Jacobian row by row from the pullback (one backward
    sweep per output number). ``mode="auto"`` takes forward mode when the inputs have
    no more numbers than the output, reverse mode otherwise. A function with a
    keyword-only parameter in `wrt` takes forward mode (the pullback gives adjoints of
    positional parameters only)."""
    if mode not in ("auto", "forward", "reverse"):
        raise S2SADError(f"jacobian: mode={mode!r} is not one of \"auto\", \"forward\", "
                         "\"reverse\"")
    refuse_derived(f, "jacobian")
    if unbound(f)[0] is not f:  # (a bound method, a partial, a callable object)
        return rebound(f, lambda plain, bound, keywords: jacobian(
            plain, rebased_wrt(plain, bound, keywords, wrt), mode))
    names, as_tuple = normalize_wrt(f, wrt)
    container_out, seen = [], []  # (a container output seen: to _structured straight)

    def jac(*args, **kwargs):
        arguments = bind(f, args, kwargs, "jacobian")
        if container_out or structured.flat_needed(arguments, names, f):
            return _structured(f, arguments, names, as_tuple, mode)
        try:
            return unstructured(arguments)
        except _ContainerOutput:
            container_out.append(True)
            return _structured(f, arguments, names, as_tuple, mode)

    def unstructured(arguments):
        argument_kinds(f, {n: arguments[n] for n in names}, names, "jacobian")  # (as grad refuses)
        runs = repeats.Repeats(f, arguments, "jacobian")
        keyword_only = [n for n in _keyword_only(f, arguments) if n in names]
        chosen = mode
        if chosen == "reverse" and keyword_only:
            raise S2SADError(f"jacobian(mode=\"reverse\") of {f.__qualname__}: the pullback "
                             "gives adjoints of positional parameters, and "
                             f"`{keyword_only[0]}` is keyword-only",
                             hint="Use mode=\"forward\" (or \"auto\"), or make it positional.")
        if mode != "auto" and not seen and not any(
                array_library(v) for v in arguments.values()):
            # (the first call looks at the output's type, running the function on NumPy
            # arrays: another library's, a jax.jit tracer's, would not run in it)
            runs.rewind()
            _output_parts(call_with(f, _copied(arguments)), f)
            seen.append(True)
        pulled = None
        if mode == "auto":
            runs.rewind()
            if any(array_library(v) for v in arguments.values()):
                # (the output's size from the derivative's forward sweep: the function
                # itself runs NumPy on the arrays, which another library's may refuse)
                pulled = _pulled(f, arguments, names)
                y = pulled[0]
            else:
                y = call_with(f, _copied(arguments))
            m = sum(shapes.size(p) for p in _output_parts(y, f)[0])
            inputs = sum(shapes.size(arguments[n]) for n in names)
            chosen = "forward" if inputs <= m or keyword_only else "reverse"
        if chosen == "forward":
            y, blocks = _jacobian_forward(f, arguments, names, runs)
        else:
            if pulled is None:
                runs.rewind()
            y, blocks = _jacobian_reverse(f, arguments, names, pulled)
        parts, many = _output_parts(y, f)
        out = []
        for e, part in enumerate(parts):
            row = [shapes.split(blocks[e][k], None, arguments[n], shapes.shape(part))
                   for k, n in enumerate(names)]
            out.append(tuple(row) if as_tuple else row[0])
        return tuple(out) if many else out[0]

    jac.__name__ = f"jacobian_of_{getattr(f, '__name__', 'f')}"
    return mark_made(jac, f, "jacobian")


def _structured(f, arguments, names, as_tuple, mode):
    """`jacobian` where containers are among the inputs (`structured.Flat`): the
    output's structure outside, each input's inside (as JAX nests them), None for a
    leaf without a derivative."""
    flat = structured.Flat(f, arguments, names, "jacobian")
    leaves = flat.wrt()
    at = {n: i for i, n in enumerate(leaves)}
    runs = repeats.Repeats(f, arguments, "jacobian")
    runs.rewind()
    with flat.naming():
        args, keywords = flat.split_args()
        J = jacobian(flat.flat, wrt=leaves, mode=mode)(*args, **keywords)
    runs.rewind()  # (the generators end where one call leaves them)
    y = call_with(flat.flat, flat.values)
    rows = list(J) if flat.out_spec is not None or isinstance(y, tuple) else [J]

    def block(row, n):
        if n not in flat.specs:
            return row[at[n]]
        return trees.build(flat.specs[n], iter([row[at[m]] if m in at else None
                                                for m in flat.leaves[n]]))

    parts = [tuple(block(r, n) for n in names) if as_tuple else block(r, names[0])
             for r in rows]
    if flat.out_spec is not None:
        return trees.build(flat.out_spec, iter(parts))
    return tuple(parts) if isinstance(y, tuple) else parts[0]


def _copied(arguments: dict) -> dict:
    """The arguments with copies of their lists, dicts and NumPy arrays, for a call
    that only looks at the output's type and size: a function that changes what it
    is given (refused when its derivative is built, after this call) leaves the
    caller's values as they were."""
    return {n: copy.deepcopy(v) if isinstance(v, (list, dict, np.ndarray)) else v
            for n, v in arguments.items()}


class _ContainerOutput(Exception):
    """The output is a container other than a tuple or a list (`_output_parts`)."""


def _output_parts(y, f):
    """``(parts, whether the output is a tuple)``: the parts of the output `y` that
    get a row of blocks each."""
    if type(y) is not tuple and trees.spec_of(y) is not None and not isinstance(y, list):
        raise _ContainerOutput()  # (a dict, a namedtuple...: `_structured` nests it)
    if isinstance(y, tuple):
        if any(isinstance(p, tuple) or type(p) is not list and trees.spec_of(p) is not None
               for p in y):
            raise _ContainerOutput()  # (a tuple in the tuple: nested as a container is)
        return list(y), True
    if isinstance(y, (float, int, np.ndarray, np.floating, list)) and not isinstance(y, bool) \
            or shapes.namespace(y) is not None:
        return [y], False
    raise S2SADError(f"jacobian of {f.__qualname__}: its output is a {type(y).__name__}; "
                     "jacobian takes floats, arrays, lists of floats and tuples of those")


def _keyword_only(f, arguments: dict) -> list:
    """The keyword-only parameters of `f`, among the bound `arguments`."""
    return list(arguments)[f.__code__.co_argcount:]


def _jacobian_forward(f, arguments, names, runs):
    """``(output, blocks)``: ``blocks[e][k]`` is the (output part e numbers) x (input
    names[k] numbers) matrix; each run of `f` is one of `runs` (`repeats`)."""
    kinds = with_attributes(f, {p: kind_of(v) for p, v in arguments.items()}, arguments)
    wrt = tuple(names)
    unit, fn = dispatch.compiled_forward(f, wrt, kinds)
    sizes = [shapes.size(arguments[n]) for n in names]
    n = sum(sizes)
    # (with a Dask or JAX array: one pass per number, unit tangents of its library)
    vectors = not any(shapes.namespace(v) is not None for v in arguments.values())
    if vectors and n and _carries_vectors(unit) and \
            all(not isinstance(arguments[k], np.ndarray) for k in names):
        # vector mode: each tangent is a vector with one entry per direction
        runs.rewind()
        y, parts, dparts = _forward_pass(f, fn, arguments,
                                         _directions(f, arguments, names, n, batched=False))
        columns = [_matrix(d, part, n, f) for part, d in zip(parts, dparts)]
    elif vectors and n and (batched := _jacobian_batched(f, arguments, names, wrt, kinds, sizes,
                                                         runs)):
        y, columns = batched
    else:
        # one pass of the compiled derivative per input number (a unit tangent on
        # that number, zero tangents on the other `wrt` inputs)
        columns = None
        y = None
        zeros = [shapes.zero_like(arguments[k]) for k in names]
        for k, name in enumerate(names):
            for _, t in shapes.units_of(arguments[name]):
                dots = list(zeros)
                dots[k] = t
                runs.rewind()
                y, parts, dparts = _forward_pass(f, fn, arguments, dots)
                runs.again(lambda: _forward_pass(f, fn, arguments, dots)[::2], (y, dparts))
                runs.same(y)
                if columns is None:
                    columns = [[] for _ in parts]
                for e, (part, d) in enumerate(zip(parts, dparts)):
                    columns[e].append(shapes.flat(d, part, f))
        if y is None:  # no input numbers at all
            runs.rewind()
            y = call_with(f, arguments)
            columns = [np.zeros((shapes.size(p), 0)) for p in _output_parts(y, f)[0]]
        else:
            columns = [shapes.stack(c, axis=-1) for c in columns]
    blocks = []
    for full in columns:
        row, at = [], 0
        for size in sizes:
            row.append(full[:, at:at + size])
            at += size
        blocks.append(row)
    return y, blocks


def _jacobian_batched(f, arguments, names, wrt, kinds, sizes, runs):
    """``(output, columns)`` from one pass of the batched forward derivative (every
    tangent with a leading axis of directions, see `batching`), or None when the
    function has a line that cannot carry directions."""
    if any(isinstance(arguments[n], list) for n in names):
        return None
    unit, fn = dispatch.compiled_forward(f, wrt, kinds, batched=True)
    if fn is None:
        return None
    n = sum(sizes)
    runs.rewind()
    y, parts, dparts = _forward_pass(f, fn, arguments,
                                     _directions(f, arguments, names, n, batched=True))
    return y, [_matrix(d, part, n, f) for part, d in zip(parts, dparts)]


def _pulled(f, arguments, names):
    """``(output, pullback)`` of `f` at `arguments`, the arguments not in `names`
    held fixed."""
    positional, keywords = split_arguments(f, arguments)  # (keyword-only ones held fixed)
    return vjp_of(f, positional, held=[n for n in list(arguments)[:len(positional)]
                                       if n not in names], keywords=keywords)


def _jacobian_reverse(f, arguments, names, pulled=None):
    """``(output, blocks)`` as `_jacobian_forward` gives them, from the pullback:
    one backward sweep per output number, the other arguments held fixed (`pulled`:
    `_pulled`'s, where the caller has it)."""
    positional, _ = split_arguments(f, arguments)
    y, pullback = pulled or _pulled(f, arguments, names)
    parts, many = _output_parts(y, f)
    where = [list(arguments).index(n) for n in names]
    blocks = []
    for e, part in enumerate(parts):
        rows = [[] for _ in where]
        for _, seed in shapes.units_of(shapes.as_float(part)):
            if many:
                bar = tuple(seed if j == e else shapes.zero_of(p) for j, p in enumerate(parts))
            else:
                bar = seed
            adjoints = pullback(bar)
            for k, i in enumerate(where):
                rows[k].append(shapes.flat(adjoints[i], positional[i], f))
        blocks.append([shapes.stack(r) if r else np.zeros((0, shapes.size(positional[i])))
                       for r, i in zip(rows, where)])
    return y, blocks


def _forward_pass(f, fn, arguments, dots):
    """``(output, output parts, their tangents)`` of one call of the compiled forward
    derivative `fn`."""
    y, y_dot = call_derivative(fn, f, arguments, dots)
    parts, many = _output_parts(y, f)
    if not many:
        return y, parts, [y_dot]
    if not isinstance(y_dot, (tuple, list)):  # (a constant output: all of it zero)
        y_dot = [shapes.zero(y_dot, f)] * len(parts)
    return y, parts, list(y_dot)


def _directions(f, arguments, names, n, batched):
    """The tangents of the `names` for one pass carrying all `n` input numbers as
    directions: a vector per number (a list of them for a list), or with `batched`
    an array with a leading axis of directions."""
    eye = np.eye(n)
    dots, at = [], 0
    for name in names:
        x = arguments[name]
        size = shapes.size(x)
        if isinstance(x, list):
            dots.append([eye[at + k] for k in range(size)])
        elif batched and isinstance(x, np.ndarray):
            dots.append(eye[:, at:at + size].reshape((n,) + np.shape(x)))
        else:
            dots.append(eye[at].copy())
        at += size
    return dots


def _matrix(d, part, n, f):
    """The tangent `d` of the output part `part` from a pass carrying `n` directions
    (each number's tangent a vector of n entries, or an array's tangent with a
    leading axis of n) as a (numbers of `part`) x n matrix. A tangent left as the
    number 0.0, for a value or an element of a list nothing varying reaches, is a
    zero block."""
    if isinstance(part, list):
        if isinstance(d, (list, tuple)) and len(d) == len(part):
            if all(type(e) is np.ndarray and e.shape == (n,) for e in d):
                return np.array(d, dtype=float)  # (every entry's directions: the rows)
            rows = [_matrix(e, p, n, f)[0] for e, p in zip(d, part)]
            return np.stack(rows) if rows else np.zeros((0, n))
    d = np.asarray(0.0 if d is None else d, dtype=float)
    size, shape = shapes.size(part), np.shape(part)
    if d.shape == (n,) + shape:
        return d.reshape(n, size).T.copy()
    if d.shape in ((), shape) and not d.any():
        return np.zeros((size, n))
    raise S2SADError(f"jacobian of {f.__qualname__}: internal: a tangent of shape "
                     f"{d.shape} for an output of shape {shape} and {n} directions")


def _resolver(unit, fn):
    """What a dotted name in the emitted code of `fn` (an IR function of `unit`)
    stands for: the user's names as the transform resolved them, then the runtime
    helpers and modules the rules use, then builtins."""
    refs = fn.refs

    def resolve(text):
        if text in refs:
            return refs[text]
        head, *rest = text.split(".")
        obj = refs.get(head, unit.helpers.get(head, getattr(builtins, head, None)))
        for part in rest:
            obj = getattr(obj, part, None)
        return obj

    return resolve


_vector_units: "weakref.WeakKeyDictionary" = weakref.WeakKeyDictionary()


def _carries_vectors(unit) -> bool:
    """Can every tangent of the forward unit be a vector of directions (its tangents
    are numbers, and every line that reads one works entry by entry)?"""
    if not unit.scalar_tangents:
        return False
    got = _vector_units.get(unit)
    if got is None:
        try:
            for uf in unit.functions:
                batching.check_vectors(uf.fn, _resolver(unit, uf.fn))
            got = True
        except batching.NotBatchable:
            got = False
        _vector_units[unit] = got
    return got
