"""Forward mode for users: `jvp`, `derivative`, the gradient by forward mode, and
what is built on forward mode: `jacobian` and the second derivatives (`hessian`,
`hvp`, ``grad(grad(f))``, forward mode over the compiled reverse-mode gradient).

`jvp(f, primals, tangents)` runs the forward-mode derivative the compiler emits for
`f` (see `pipeline.forward_unit`): one pass that computes `f`'s output and its
directional derivative along `tangents`. The compiled derivative is specialised, and
cached, on the argument kinds and on which arguments carry a tangent, like `grad`'s.

Every entry point binds its arguments to `f`'s parameters as a call of `f` would
(keywords, keyword-only parameters, defaults) and passes keyword-only ones to the
derivative by keyword. Forward mode leaves the tangent of a value nothing varying
reaches as the number 0.0; the entry points give it the value's shape (a zero
Hessian block, a constant element of a list output). A function s2sad made
(``grad(f)``, ``derivative(f)``, ...) is refused with an error at the user's `def`
that says which second derivatives there are.
"""

from __future__ import annotations

import builtins
import inspect
import types
import weakref

import numpy as np

from ..backend import compile as compile_mod
from ..transform import batching
from ..ir.kinds import differentiable, kind_of
from .. import driver as pipeline, primitives as rules
from ..errors import S2SADError, WrtError

_cache: "weakref.WeakKeyDictionary" = weakref.WeakKeyDictionary()


def _compiled(f, wrt: tuple, kinds: dict):
    return _compiled_unit(f, wrt, kinds)[1]


def _compiled_unit(f, wrt: tuple, kinds: dict, batched=False):
    """``(unit, function)``: the forward derivative of `f`, compiled once per key;
    with `batched`, its tangents carry a leading axis of directions (``(None,
    None)`` when a line cannot, see `batching`)."""
    from .reverse import _check_function, _lock, _still_valid

    _check_function(f, "jvp")
    key = (wrt, tuple(kinds.items()), batched)
    with _lock:
        per_code = _cache.setdefault(f.__code__, {})
        got = per_code.get(key)
        if got is not None and (got[0] is None or got[0].root is f and _still_valid(got[0])):
            return got
        try:
            unit = pipeline.forward_unit(f, wrt, kinds, batched)
        except batching.NotBatchable:
            per_code[key] = (None, None)
            return None, None
        unit.root = f
        fn = compile_mod.bind(unit, compile_mod.compile_unit(unit))[unit.entry[0]]
        per_code[key] = (unit, fn)
        return unit, fn


def _forget():
    """A rule was registered: forget every derivative built before."""
    _cache.clear()


rules.ON_CHANGE.append(_forget)


# ---------------------------------------------------------------- arguments


_MADE = {"forward": 'grad(f, mode="forward")', "tape": 'grad(f, mode="tape")'}


def refuse_derived(g, what):
    """Raise a clear error if `g` is a function s2sad made (``grad(f)``,
    ``derivative(f)``, ``hessian(f)``, ...) rather than one the user wrote: it names
    the user's function at its `def` and says which second derivatives there are."""
    marker = getattr(g, "__s2sad__", None)
    if marker is None:
        return
    from .reverse import _at_def

    user = getattr(marker, "f", None) or getattr(g, "__wrapped__", None)
    made = getattr(marker, "entry", marker)
    made = _MADE.get(made, made if "(" in str(made) else f"{made}(f)")
    name = getattr(user, "__qualname__", None) or getattr(g, "__qualname__", "f")
    where = _at_def(user) if isinstance(user, types.FunctionType) else {}
    raise S2SADError(
        f"{what} of {made} for {name}: s2sad differentiates the functions you write, "
        "not the derivative functions it made from them",
        hint="For second derivatives of f use s2sad.hessian(f), s2sad.hvp(f), or "
             "s2sad.grad(s2sad.grad(f)) when the gradient is one number; third "
             "derivatives are not supported.", **where)


def _arguments(f, args, kwargs, what, hint=None) -> dict:
    """Every parameter of `f` with its value in this call, in signature order (a
    keyword argument binds as Python binds it, a missing one takes its default)."""
    from .reverse import _at_def, _check_function, _signature_params

    refuse_derived(f, what)
    _check_function(f, what)
    _signature_params(f)  # (refuses *args and **kwargs)
    sig = inspect.signature(f)
    try:
        bound = sig.bind(*args, **kwargs)
    except TypeError as exc:
        raise S2SADError(f"{what} of {f.__qualname__}: the arguments do not fit its "
                         f"parameters: {exc}", hint=hint, **_at_def(f)) from None
    bound.apply_defaults()
    return {p: bound.arguments[p] for p in sig.parameters}


def _call_derivative(fn, f, arguments: dict, dots: list):
    """Call the compiled forward derivative `fn` of `f`: ``fn(positional...,
    tangents..., *, keyword-only...)``; an error in it gets a note naming the user's
    line."""
    n_pos = f.__code__.co_argcount
    values = list(arguments.values())
    keywords = dict(zip(list(arguments)[n_pos:], values[n_pos:]))
    try:
        return fn(*values[:n_pos], *dots, **keywords)
    except Exception as exc:
        compile_mod.explain(exc)
        raise


def _jvp_at(f, arguments: dict, dots: dict):
    """``(output, output tangent)`` of `f` at `arguments` along `dots` (parameter
    name -> tangent, for the parameters that vary)."""
    wrt = tuple(n for n in arguments if n in dots)
    kinds = {n: kind_of(v) for n, v in arguments.items()}
    fn = _compiled(f, wrt, kinds)
    return _call_derivative(fn, f, arguments, [dots[n] for n in wrt])


def _call(f, arguments: dict):
    n_pos = f.__code__.co_argcount
    values = list(arguments.values())
    return f(*values[:n_pos], **dict(zip(list(arguments)[n_pos:], values[n_pos:])))


def jvp(f, primals, tangents):
    """``(f(*primals), tangent of the output)``: the directional derivative of `f` at
    `primals` along `tangents` (one per primal, with its shape; ``None`` for an
    argument held fixed, such as an integer), computed in one forward pass.

    The output tangent has the output's structure: a float for a float, an array of
    the output's shape, a tuple for a tuple. The primals are passed positionally;
    keyword-only parameters take their defaults."""
    refuse_derived(f, "jvp")
    if not isinstance(primals, (tuple, list)):
        raise S2SADError(f"jvp takes the primals as a tuple: jvp(f, (x, y), (x_dot, "
                         f"y_dot)); got {type(primals).__name__}")
    arguments = _arguments(f, primals, {}, "jvp", hint="jvp passes the primals by position, "
                           "one per positional parameter; keyword-only parameters take "
                           "their defaults (s2sad.jacobian takes keyword arguments).")
    if not isinstance(tangents, (tuple, list)) or len(tangents) != len(primals):
        raise S2SADError(f"jvp needs one tangent per primal: {len(primals)} primals, "
                         f"{len(tangents) if isinstance(tangents, (tuple, list)) else 'no'} "
                         "tangents", hint="Pass None for an argument held fixed.")
    dots = {}
    for name, x, t in zip(arguments, primals, tangents):
        if t is None:
            continue
        kind = kind_of(x)
        if not differentiable(kind) or isinstance(kind, tuple):
            if isinstance(t, (int, float)) and t == 0:
                continue  # a zero tangent for an integer: held fixed
            from .reverse import _at_def

            what = type(x).__name__
            if isinstance(x, np.ndarray):
                what = f"array of {x.dtype}"
            raise WrtError(f"jvp of {f.__qualname__}: `{name}` is "
                           f"{'an' if what[0] in 'aeiou' else 'a'} {what}, and "
                           "tangents are taken for floats, float arrays and lists of those",
                           hint="Pass None as its tangent.", **_at_def(f))
        if not _fits_tangent(t, x):
            raise S2SADError(f"jvp of {f.__qualname__}: the tangent of `{name}` has shape "
                             f"{_shape_text(t)}, its primal {_shape_text(x)}",
                             hint="Give every tangent its primal's shape (for a list of "
                                  "arrays, a list of arrays of their shapes).")
        dots[name] = t
    y, y_dot = _jvp_at(f, arguments, dots)
    return y, _output_tangent(y_dot, y, f)


def _output_tangent(d, y, f):
    """The tangent `d` of the output `y` with `y`'s type, as JAX gives a tangent its
    primal's dtype and shape: an array's is an array of its shape and dtype (float32
    stays float32 where a float64 zero or constant met it, a 0-d array's is 0-d), a
    NumPy scalar's a NumPy scalar of its type, a float's a float (not the 0-d array
    ``np.where`` gives); a tuple's or list's, element by element."""
    if isinstance(y, np.ndarray):
        from .reverse import typed_like

        return typed_like(_tangent_like(d, y, f), y)
    if isinstance(y, (tuple, list)) and isinstance(d, (tuple, list)) and len(d) == len(y):
        return type(d)(_output_tangent(e, v, f) for e, v in zip(d, y))
    if isinstance(y, (float, np.floating)) and not isinstance(y, bool) and (
            d is None or np.ndim(d) == 0 and not np.iscomplexobj(d)) and type(d) is not type(y):
        return type(y)(0.0 if d is None else d)
    return d


def _fits_tangent(t, x) -> bool:
    """Has the tangent `t` the structure and shapes of its primal `x`?"""
    if _nested(x):
        return isinstance(t, (list, tuple)) and len(t) == len(x) and \
            all(_fits_tangent(a, b) for a, b in zip(t, x))
    try:
        return np.shape(t) == np.shape(x)
    except ValueError:  # (a list of arrays of different shapes)
        return False


def _shape_text(x) -> str:
    if isinstance(x, (list, tuple)) and any(isinstance(e, (np.ndarray, list, tuple))
                                            for e in x):
        return "[" + ", ".join(_shape_text(e) for e in x) + "]"
    try:
        return str(np.shape(x))
    except ValueError:
        return "?"


def derivative(f):
    """``f'``: for a function of one float, the function that returns the derivative
    of `f` at a point (computed in forward mode) with respect to its first
    parameter; other arguments, positional or keyword, are passed through."""
    refuse_derived(f, "derivative")

    def df(x, *rest, **kwargs):
        if isinstance(x, bool) or not isinstance(x, (float, int)):
            raise WrtError(f"derivative of {f.__qualname__} takes a number for its first "
                           f"argument; got {type(x).__name__}",
                           hint="For arrays use s2sad.jvp or s2sad.grad.")
        arguments = _arguments(f, (float(x),) + rest, kwargs, "derivative")
        first = next(iter(arguments))
        y, y_dot = _jvp_at(f, arguments, {first: 1.0})
        return _output_tangent(y_dot, y, f)

    df.__name__ = f"derivative_of_{getattr(f, '__name__', 'f')}"
    df.__doc__ = f"The derivative of {getattr(f, '__qualname__', f)} (forward mode)."
    return _made(df, f, "derivative")


def _made(g, f, what):
    """Mark `g` as a function s2sad made from the user's `f` (see `refuse_derived`)."""
    g.__s2sad__ = what
    g.__wrapped__ = f
    return g


def value_and_grad_by_forward_mode(f, wrt_names: tuple, as_tuple: bool, args, kwargs):
    """``(f(...), gradient)`` for `grad(f, wrt, mode="forward")` at one point: one
    forward pass per input number, each with a unit tangent. Keyword and keyword-only
    arguments are passed as given; `wrt` may name a keyword-only parameter."""
    from .reverse import _kinds

    from .reverse import typed_gradients

    arguments = _arguments(f, args, kwargs, "grad")
    _kinds(f, arguments, wrt_names, "grad")  # (a clear error for an integer `wrt`)
    grads = []
    value = None
    for name in wrt_names:
        x = arguments[name]
        parts = []
        for _, t in _units_of(x):
            value, part = _checked(f, _jvp_at(f, arguments, {name: t}))
            parts.append(part)
        grads.append(_shaped_like(x, parts))
    if value is None:  # every argument was empty
        value = _call(f, arguments)
    grads = typed_gradients(arguments, wrt_names, grads)
    return value, (tuple(grads) if as_tuple else grads[0])


def _checked(f, pair):
    value, tangent = pair
    if np.ndim(value) != 0 or isinstance(value, (tuple, list)):
        raise S2SADError(f"grad needs a function that returns one real number; "
                         f"{f.__qualname__} returns {type(value).__name__}",
                         hint="Use s2sad.jvp for a non-scalar output.")
    return value, tangent


def _zero_like(x):
    """Zeros with the structure of `x` (a float, an array, a list of those)."""
    if isinstance(x, np.ndarray):
        return np.zeros(x.shape, dtype=x.dtype if x.dtype.kind in "fc" else float)
    if _nested(x):
        return [_zero_like(e) for e in x]
    if isinstance(x, list):
        return [0.0] * len(x)
    return 0.0


def _nested(x) -> bool:
    """Is `x` a list that holds arrays (or lists): its gradient is a list of its
    elements' gradients, its Jacobian and Hessian blocks one per element (a list of
    numbers counts as one vector)."""
    return isinstance(x, list) and any(isinstance(e, (np.ndarray, list, tuple)) for e in x)


def _leaves(x) -> list:
    """The parts of the argument `x` that get a Jacobian or Hessian block each: `x`
    itself, or for a list of arrays its elements (in order, nested lists flattened)."""
    return [leaf for e in x for leaf in _leaves(e)] if _nested(x) else [x]


def _shape(x) -> tuple:
    """The shape of a block's axes for `x` (a list of n numbers counts as ``(n,)``, an
    output that is a list of arrays of one shape as their stack)."""
    if isinstance(x, list) and not _nested(x):
        return (len(x),)
    try:
        return np.shape(x)
    except ValueError:
        raise S2SADError("jacobian: an output that is a list of arrays of different "
                         "shapes has no Jacobian of one shape",
                         hint="Return a tuple of the arrays instead.") from None


def _shaped_like(x, numbers):
    """The numbers of a derivative of `x` (one per number of `x`, in `_units_of`
    order) with `x`'s structure: a float, an array of its shape, a list of floats, or
    a list of those per element for a list of arrays."""
    if _nested(x):
        out, at = [], 0
        for e in x:
            n = _size(e)
            out.append(_shaped_like(e, numbers[at:at + n]))
            at += n
        return out
    if isinstance(x, np.ndarray):
        return np.array([float(v) for v in numbers], dtype=float).reshape(x.shape)
    if isinstance(x, list):
        return [float(v) for v in numbers]
    return numbers[0]


def _tangent_like(d, x, f):
    """The tangent `d` of a value `x`, with `x`'s structure: forward mode leaves the
    tangent of a value nothing varying reaches as the number 0.0 (or None)."""
    if _nested(x):  # (a list of arrays: element by element)
        if isinstance(d, (list, tuple)) and len(d) == len(x):
            return [_tangent_like(e, v, f) for e, v in zip(d, x)]
        _zero(d, f)
        return _zero_like(x)
    if d is None or np.ndim(d) == 0 and np.ndim(x) != 0 and not isinstance(d, (list, tuple)):
        _zero(d, f)
        return _zero_like(x)
    return d


def _zero(d, f) -> float:
    """0.0 for `d`, the tangent forward mode left as a number (0.0 or None) for a
    value with structure (an array, a list, a tuple): nothing varying reaches it."""
    if d is not None and d != 0:
        raise S2SADError(f"internal: the tangent {d!r} of a structured value of "
                         f"{f.__qualname__} is a nonzero number")
    return 0.0


# ------------------------------------------------------- second derivatives

_gradients: "weakref.WeakKeyDictionary" = weakref.WeakKeyDictionary()


def _gradient_function(f, names: tuple, values: list, kwargs: dict):
    """The compiled reverse-mode gradient of `f` with respect to `names` (a tuple of
    gradients), specialised on these arguments (`values` positional, `kwargs` by
    keyword), as one stable function object, so the forward-mode derivative of it is
    compiled once too.

    Second derivatives do not checkpoint: where the gradient would run loops through
    a checkpointing scheduler (loops marked with `s2sad.checkpointed`, in `f` or in a
    function it calls), whose calls the forward transform cannot see into, it is
    built again with every loop on its tape (`pipeline.TAPED_LOOPS`): the same
    function of the arguments, in memory proportional to the trip count."""
    from .reverse import _signature_params

    params, _ = _signature_params(f)
    bound = dict(zip(params, values))
    bound.update(kwargs)
    return _gradient_of(f, names, bound)


def _gradient_of(f, names: tuple, arguments: dict, what="hessian"):
    from .reverse import _kinds, _lock, _still_valid, _unit
    from ..checkpoint import CTZ, Binomial

    kinds = _kinds(f, arguments, names, what)
    key = (names, tuple(kinds.items()))
    with _lock:
        per_f = _gradients.setdefault(f, {})
        got = per_f.get(key)
        if got is not None and _still_valid(got[0]):
            return got[1]
        unit, compiled = _unit(f, names, "grad", kinds, True, copy_views=True)
        if any(unit.helpers.get(c.__name__) is c for c in (CTZ, Binomial)):
            unit, compiled = _unit(f, names, "grad", kinds, True, pipeline.TAPED_LOOPS,
                                   copy_views=True)
        fn = compile_mod.bind(unit, compiled)[unit.entry[0]]
        per_f[key] = (unit, fn)
        return fn


def _along(f, gradient, arguments: dict, dots: dict):
    """``(gradients, their tangents)``: the compiled gradient of `f` (a tuple of
    gradients) and its derivative along `dots` (forward mode over reverse code), a
    tangent with its gradient's structure for every gradient, zeros where nothing
    varying reaches it. The gradient is s2sad's own code, so an error in transforming
    it is reported against `f`, with what to do."""
    try:
        value, tangent = _jvp_at(gradient, arguments, dots)
    except S2SADError as e:
        if not (e.filename or "").startswith("<s2sad"):
            raise
        try:
            filename, line = inspect.getsourcefile(f), inspect.getsourcelines(f)[1]
        except (OSError, TypeError):
            filename, line = None, None
        raise type(e)(
            f"s2sad cannot yet take second derivatives of {f.__qualname__}: forward mode "
            f"over its gradient code stops at `{(e.source_line or '').strip()}` "
            f"({e.message})",
            filename=filename, lineno=line,
            hint="The line is in the gradient s2sad wrote for your function, which forward "
                 "mode should follow and cannot here: a gap in s2sad, worth reporting. "
                 "Meanwhile, finite differences of s2sad.grad give the second "
                 "derivatives.") from None
    if not isinstance(tangent, (tuple, list)):
        tangent = (_zero(tangent, f),) * len(value)  # (all of it zero)
    return value, tuple(_tangent_like(d, g, f) for d, g in zip(tangent, value))


def _units_of(x):
    """Unit tangents for every number of `x` (a float, an array, a list of floats,
    or a list of arrays: the element's unit tangent among zeros of the others), with
    the index each stands for."""
    if _nested(x):
        for k, e in enumerate(x):
            for i, t in _units_of(e):
                dot = [_zero_like(o) for o in x]
                dot[k] = t
                yield (k, i), dot
    elif isinstance(x, np.ndarray):
        for k in np.ndindex(x.shape):
            t = np.zeros_like(x)
            t[k] = 1.0
            yield k, t
    elif isinstance(x, list):
        for k in range(len(x)):
            t = [0.0] * len(x)
            t[k] = 1.0
            yield k, t
    else:
        yield (), 1.0


def _split(matrix, x_rows, x_columns, shape_out):
    """The (numbers of `x_rows` x numbers of `x_columns`) matrix `matrix` as blocks of
    shape ``shape_out + rows' shape + columns' shape``, one per part of each (a list
    of arrays has a part per element: a list of blocks, as JAX nests them, the
    rows' list outside), each with the type of its row argument (`_block_like`);
    `x_rows` None: no row argument (a Jacobian: `shape_out` is the output's)."""
    rows = [None] if x_rows is None else _leaves(x_rows)
    columns = _leaves(x_columns)
    out, r0 = [], 0
    for a in rows:
        na = matrix.shape[0] if a is None else _size(a)
        row, c0 = [], 0
        for b in columns:
            nb = _size(b)
            block = matrix[r0:r0 + na, c0:c0 + nb].reshape(
                shape_out + (() if a is None else _shape(a)) + _shape(b))
            row.append(_block_like(block, b if a is None else a))
            c0 += nb
        out.append(row if _nested(x_columns) else row[0])
        r0 += na
    return out if x_rows is not None and _nested(x_rows) else out[0]


def _block_like(block, x):
    """A Jacobian or Hessian block with the type its argument `x` gives it (see
    `api.typed_like`): for an array argument its dtype (a 0-d block of a 0-d array
    is a 0-d array), for a number a float where the block is one number."""
    if isinstance(x, np.ndarray):
        from .reverse import typed_like

        return typed_like(block, x)
    return float(block) if block.ndim == 0 else block


def hessian(f, wrt=0):
    """The Hessian of `f`'s scalar output with respect to `wrt`, by forward mode over
    the compiled reverse-mode gradient (one forward pass of the gradient code per
    input number). For one parameter of shape ``s`` the result has shape ``s + s``
    (a float for a float); for a tuple `wrt`, a tuple of tuples of blocks
    ``H[i][j]`` = derivative of the gradient for ``wrt[i]`` along ``wrt[j]``. Lists of
    floats count as 1-D arrays. The returned function takes `f`'s arguments,
    keyword and keyword-only ones too."""
    from .reverse import normalize_wrt

    refuse_derived(f, "hessian")
    names, as_tuple = normalize_wrt(f, wrt)

    def h(*args, **kwargs):
        arguments = _arguments(f, args, kwargs, "hessian")
        gradient = _gradient_of(f, names, arguments)
        blocks = [[None] * len(names) for _ in names]
        for j, name in enumerate(names):
            columns = [[] for _ in names]
            for _, t in _units_of(arguments[name]):
                _, g_dot = _along(f, gradient, arguments, {name: t})
                for i, name_i in enumerate(names):
                    columns[i].append(_flat(g_dot[i], arguments[name_i], f))
            x_j = arguments[name]
            for i, name_i in enumerate(names):
                x_i = arguments[name_i]
                if columns[i]:
                    matrix = np.stack(columns[i], axis=-1)
                else:  # (an empty argument)
                    matrix = np.zeros((_size(x_i), 0))
                # (a list of arrays: a block per element, its rows' list outside)
                blocks[i][j] = _split(matrix, x_i, x_j, ())
        if as_tuple:
            return tuple(tuple(row) for row in blocks)
        return blocks[0][0]

    h.__name__ = f"hessian_of_{getattr(f, '__name__', 'f')}"
    return _made(h, f, "hessian")


def hvp(f, wrt=0):
    """``hvp(f)(*args, v)``: the Hessian of `f` (with respect to the one parameter
    `wrt`) times `v`, in one forward pass over the compiled gradient, without building
    the Hessian. Keyword arguments of `f` follow as keywords:
    ``hvp(f)(x, v, scale=2.0)``."""
    from .reverse import normalize_wrt

    refuse_derived(f, "hvp")
    names, as_tuple = normalize_wrt(f, wrt)
    if as_tuple:
        raise S2SADError("hvp takes one parameter in wrt", hint="Use hessian for several.")

    def product(*args, **kwargs):
        if not args:
            raise S2SADError("hvp(f)(*args, v) needs the arguments of f and then v")
        *rest, v = args
        arguments = _arguments(f, rest, kwargs, "hvp")
        x = arguments[names[0]]
        if not _fits_tangent(v, x):
            raise S2SADError(f"hvp of {f.__qualname__}: v has shape {_shape_text(v)}, "
                             f"`{names[0]}` {_shape_text(x)}",
                             hint=f"Pass v last, with the shape of `{names[0]}`.")
        gradient = _gradient_of(f, names, arguments, "hvp")
        from .reverse import typed_gradients

        return typed_gradients(arguments, names,
                               [_along(f, gradient, arguments, {names[0]: v})[1][0]])[0]

    product.__name__ = f"hvp_of_{getattr(f, '__name__', 'f')}"
    return _made(product, f, "hvp")


def grad_of_gradient(inner, f, inner_names, wrt):
    """``grad(grad(f))`` for a scalar gradient: the derivative of ``grad(f)`` (with
    respect to one parameter) along `wrt`, by forward mode over the compiled
    gradient."""
    from .reverse import normalize_wrt

    names, as_tuple = normalize_wrt(f, wrt)

    def second(*args, **kwargs):
        from .reverse import typed_gradients

        arguments = _arguments(f, args, kwargs, "grad")
        gradient = _gradient_of(f, inner_names, arguments, "grad")
        out = []
        for name in names:
            x = arguments[name]
            parts = []
            for _, t in _units_of(x):
                g, g_dot = _along(f, gradient, arguments, {name: t})
                if np.ndim(g[0]) != 0:
                    raise S2SADError(
                        f"grad of grad({f.__qualname__}) needs the gradient to be one "
                        f"number; the gradient for `{inner_names[0]}` has shape "
                        f"{np.shape(g[0])}", hint="Use s2sad.hessian for array arguments.")
                parts.append(g_dot[0])
            out.append(_shaped_like(x, parts))
        out = typed_gradients(arguments, names, out)
        return tuple(out) if as_tuple else out[0]

    second.__name__ = f"grad_of_grad_of_{getattr(f, '__name__', 'f')}"
    return _made(second, f, "grad(grad(f))")


# ----------------------------------------------------------------- Jacobians


def _size(x) -> int:
    if _nested(x):
        return sum(_size(e) for e in x)
    return len(x) if isinstance(x, list) else int(np.size(x))


def _output_parts(y, f):
    if isinstance(y, tuple):
        return list(y), True
    if isinstance(y, (float, int, np.ndarray, np.floating, list)) and not isinstance(y, bool):
        return [y], False
    raise S2SADError(f"jacobian of {f.__qualname__}: its output is a {type(y).__name__}; "
                     "jacobian takes floats, arrays, lists of floats and tuples of those")


def _keyword_only(f, arguments: dict) -> list:
    return list(arguments)[f.__code__.co_argcount:]


def jacobian(f, wrt=0, mode="auto"):
    """The Jacobian of `f` with respect to `wrt`: for an output of shape ``o`` and an
    input of shape ``s`` (a list of n floats counts as shape ``(n,)``, a float as
    ``()``), an array of shape ``o + s``; a tuple `wrt` gives a tuple of these, and a
    tuple output a tuple over its parts.

    ``mode="forward"`` pushes tangents forward: for a function of numbers (floats and
    lists of floats) whose tangent lines work entry by entry (`batching.check_vectors`)
    one pass carries every direction at once as a vector of tangents; for a function
    of floats and float arrays one pass carries them as a leading axis of every
    tangent, when `batching` proves its tangent code correct that way; otherwise one
    pass per input number.
    ``mode="reverse"`` builds the Jacobian row by row from the pullback (one backward
    sweep per output number). ``mode="auto"`` takes forward mode when the inputs have
    no more numbers than the output, reverse mode otherwise. A function with
    keyword-only parameters takes forward mode (the pullback takes positional
    arguments only)."""
    from .reverse import normalize_wrt

    if mode not in ("auto", "forward", "reverse"):
        raise S2SADError(f"jacobian: mode={mode!r} is not one of \"auto\", \"forward\", "
                         "\"reverse\"")
    refuse_derived(f, "jacobian")
    names, as_tuple = normalize_wrt(f, wrt)

    def jac(*args, **kwargs):
        from .reverse import _kinds

        arguments = _arguments(f, args, kwargs, "jacobian")
        _kinds(f, {n: arguments[n] for n in names}, names, "jacobian")  # (as grad refuses)
        keyword_only = _keyword_only(f, arguments)
        chosen = mode
        if chosen == "reverse" and keyword_only:
            raise S2SADError(f"jacobian(mode=\"reverse\") of {f.__qualname__}: the pullback "
                             "passes arguments by position, and "
                             f"`{keyword_only[0]}` is keyword-only",
                             hint="Use mode=\"forward\" (or \"auto\"), or make it positional.")
        if mode == "auto":
            y = _call(f, arguments)
            m = sum(_size(p) for p in _output_parts(y, f)[0])
            inputs = sum(_size(arguments[n]) for n in names)
            chosen = "forward" if inputs <= m or keyword_only else "reverse"
        if chosen == "forward":
            y, blocks = _jacobian_forward(f, arguments, names)
        else:
            y, blocks = _jacobian_reverse(f, arguments, names)
        parts, many = _output_parts(y, f)
        out = []
        for e, part in enumerate(parts):
            row = [_split(blocks[e][k], None, arguments[n], _shape(part))
                   for k, n in enumerate(names)]
            out.append(tuple(row) if as_tuple else row[0])
        return tuple(out) if many else out[0]

    jac.__name__ = f"jacobian_of_{getattr(f, '__name__', 'f')}"
    return _made(jac, f, "jacobian")


def _forward_pass(f, fn, arguments, dots):
    """``(output, output parts, their tangents)`` of one call of the compiled forward
    derivative `fn`."""
    y, y_dot = _call_derivative(fn, f, arguments, dots)
    parts, many = _output_parts(y, f)
    if not many:
        return y, parts, [y_dot]
    if not isinstance(y_dot, (tuple, list)):  # (a constant output: all of it zero)
        y_dot = [_zero(y_dot, f)] * len(parts)
    return y, parts, list(y_dot)


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
    size, shape = _size(part), np.shape(part)
    if d.shape == (n,) + shape:
        return d.reshape(n, size).T.copy()
    if d.shape in ((), shape) and not d.any():
        return np.zeros((size, n))
    raise S2SADError(f"jacobian of {f.__qualname__}: internal: a tangent of shape "
                     f"{d.shape} for an output of shape {shape} and {n} directions")


def _flat(d, part, f):
    """The tangent `d` of the output part `part` from a pass along one direction, as
    a vector of `part`'s numbers (a tangent left as the number 0.0 is zeros; a list
    of arrays gives its elements' numbers one after the other)."""
    if _nested(part):
        if isinstance(d, (list, tuple)) and len(d) == len(part):
            return np.concatenate([_flat(e, p, f) for e, p in zip(d, part)])
        _zero(d, f)
        return np.zeros(_size(part))
    if isinstance(part, list) and isinstance(d, (list, tuple)):
        d = [0.0 if e is None else e for e in d]
    return np.ravel(np.asarray(_tangent_like(d, _as_float(part), f), dtype=float))


def _directions(f, arguments, names, n, batched):
    """The tangents of the `names` for one pass carrying all `n` input numbers as
    directions: a vector per number (a list of them for a list), or with `batched`
    an array with a leading axis of directions."""
    eye = np.eye(n)
    dots, at = [], 0
    for name in names:
        x = arguments[name]
        size = _size(x)
        if isinstance(x, list):
            dots.append([eye[at + k] for k in range(size)])
        elif batched and isinstance(x, np.ndarray):
            dots.append(eye[:, at:at + size].reshape((n,) + np.shape(x)))
        else:
            dots.append(eye[at].copy())
        at += size
    return dots


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


def _jacobian_batched(f, arguments, names, wrt, kinds, sizes):
    """``(output, columns)`` from one pass of the batched forward derivative (every
    tangent with a leading axis of directions, see `batching`), or None when the
    function has a line that cannot carry directions."""
    if any(isinstance(arguments[n], list) for n in names):
        return None
    unit, fn = _compiled_unit(f, wrt, kinds, batched=True)
    if fn is None:
        return None
    n = sum(sizes)
    y, parts, dparts = _forward_pass(f, fn, arguments,
                                     _directions(f, arguments, names, n, batched=True))
    return y, [_matrix(d, part, n, f) for part, d in zip(parts, dparts)]


def _jacobian_forward(f, arguments, names):
    """``(output, blocks)``: ``blocks[e][k]`` is the (output part e numbers) x (input
    names[k] numbers) matrix."""
    kinds = {p: kind_of(v) for p, v in arguments.items()}
    wrt = tuple(names)
    unit, fn = _compiled_unit(f, wrt, kinds)
    sizes = [_size(arguments[n]) for n in names]
    n = sum(sizes)
    if n and _carries_vectors(unit) and \
            all(not isinstance(arguments[k], np.ndarray) for k in names):
        # vector mode: each tangent is a vector with one entry per direction
        y, parts, dparts = _forward_pass(f, fn, arguments,
                                         _directions(f, arguments, names, n, batched=False))
        columns = [_matrix(d, part, n, f) for part, d in zip(parts, dparts)]
    elif n and (batched := _jacobian_batched(f, arguments, names, wrt, kinds, sizes)):
        y, columns = batched
    else:
        # one pass of the compiled derivative per input number (a unit tangent on
        # that number, zero tangents on the other `wrt` inputs)
        columns = None
        y = None
        zeros = [_zero_like(arguments[k]) for k in names]
        for k, name in enumerate(names):
            for _, t in _units_of(arguments[name]):
                dots = list(zeros)
                dots[k] = t
                y, parts, dparts = _forward_pass(f, fn, arguments, dots)
                if columns is None:
                    columns = [[] for _ in parts]
                for e, (part, d) in enumerate(zip(parts, dparts)):
                    columns[e].append(_flat(d, part, f))
        if y is None:  # no input numbers at all
            y = _call(f, arguments)
            columns = [np.zeros((_size(p), 0)) for p in _output_parts(y, f)[0]]
        else:
            columns = [np.stack(c, axis=-1) for c in columns]
    blocks = []
    for full in columns:
        row, at = [], 0
        for size in sizes:
            row.append(full[:, at:at + size])
            at += size
        blocks.append(row)
    return y, blocks
def _jacobian_reverse(f, arguments, names):
    from .reverse import _vjp

    positional = list(arguments.values())  # (no keyword-only parameters: see jacobian)
    y, pullback = _vjp(f, positional, held=[n for n in arguments if n not in names])
    parts, many = _output_parts(y, f)
    where = [list(arguments).index(n) for n in names]
    blocks = []
    for e, part in enumerate(parts):
        rows = [[] for _ in where]
        for _, seed in _units_of(_as_float(part)):
            if many:
                bar = tuple(seed if j == e else _zero_of(p) for j, p in enumerate(parts))
            else:
                bar = seed
            adjoints = pullback(bar)
            for k, i in enumerate(where):
                rows[k].append(_flat(adjoints[i], positional[i], f))
        blocks.append([np.stack(r) if r else np.zeros((0, _size(positional[i])))
                       for r, i in zip(rows, where)])
    return y, blocks


def _as_float(x):
    if isinstance(x, np.ndarray):
        return x.astype(float) if x.dtype.kind != "f" else x
    if _nested(x):
        return [_as_float(e) for e in x]
    if isinstance(x, list):
        return [float(v) for v in x]
    return float(x)


def _zero_of(x):
    if isinstance(x, np.ndarray):
        return np.zeros_like(x, dtype=float)
    if isinstance(x, list):
        return [0.0] * len(x)
    return 0.0
