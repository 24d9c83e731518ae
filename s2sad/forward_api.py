"""Forward mode for users: `jvp`, `derivative`, and the gradient by forward mode.

`jvp(f, primals, tangents)` runs the forward-mode derivative the compiler emits for
`f` (see `pipeline.forward_unit`): one pass that computes `f`'s output and its
directional derivative along `tangents`. The compiled derivative is specialised, and
cached, on the argument kinds and on which arguments carry a tangent, like `grad`'s.
"""

from __future__ import annotations

import builtins
import inspect
import weakref

import numpy as np

from . import compile as compile_mod
from . import batching, ops, pipeline, rules
from .errors import S2SADError, WrtError

_cache: "weakref.WeakKeyDictionary" = weakref.WeakKeyDictionary()


def _compiled(f, wrt: tuple, kinds: dict):
    return _compiled_unit(f, wrt, kinds)[1]


def _compiled_unit(f, wrt: tuple, kinds: dict, batched=False):
    """``(unit, function)``: the forward derivative of `f`, compiled once per key;
    with `batched`, its tangents carry a leading axis of directions (``(None,
    None)`` when a line cannot, see `batching`)."""
    from .api import _check_function, _lock, _still_valid

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


def _bound(f, primals, what):
    if not isinstance(primals, (tuple, list)):
        raise S2SADError(f"{what} takes the primals as a tuple: {what}(f, (x, y), (x_dot, "
                         f"y_dot)); got {type(primals).__name__}")
    try:
        bound = inspect.signature(f).bind(*primals)
    except TypeError as exc:
        raise S2SADError(f"{what}: the primals do not fit {f.__qualname__}: {exc}",
                         hint="Give one primal per positional parameter.") from None
    bound.apply_defaults()
    return bound


def jvp(f, primals, tangents):
    """``(f(*primals), tangent of the output)``: the directional derivative of `f` at
    `primals` along `tangents` (one per primal, with its shape; ``None`` for an
    argument held fixed, such as an integer), computed in one forward pass.

    The output tangent has the output's structure: a float for a float, an array of
    the output's shape, a tuple for a tuple."""
    bound = _bound(f, primals, "jvp")
    if not isinstance(tangents, (tuple, list)) or len(tangents) != len(primals):
        raise S2SADError(f"jvp needs one tangent per primal: {len(primals)} primals, "
                         f"{len(tangents) if isinstance(tangents, (tuple, list)) else 'no'} "
                         "tangents", hint="Pass None for an argument held fixed.")
    names = list(inspect.signature(f).parameters)
    wrt, dots = [], []
    for name, x, t in zip(names, primals, tangents):
        if t is None:
            continue
        kind = ops.kind_of(x)
        if not ops.differentiable(kind) or isinstance(kind, tuple):
            if isinstance(t, (int, float)) and t == 0:
                continue  # a zero tangent for an integer: held fixed
            what = type(x).__name__
            raise WrtError(f"jvp of {f.__qualname__}: `{name}` is "
                           f"{'an' if what[0] in 'aeiou' else 'a'} {what}, and "
                           "tangents are taken for floats, float arrays and lists of floats",
                           hint="Pass None as its tangent.")
        if np.shape(t) != np.shape(x):
            raise S2SADError(f"jvp of {f.__qualname__}: the tangent of `{name}` has shape "
                             f"{np.shape(t)}, its primal {np.shape(x)}",
                             hint="Give every tangent its primal's shape.")
        wrt.append(name)
        dots.append(t)
    kinds = {n: ops.kind_of(v) for n, v in bound.arguments.items()}
    fn = _compiled(f, tuple(wrt), kinds)
    positional = [bound.arguments[p.name] for p in inspect.signature(f).parameters.values()
                  if p.kind is not p.KEYWORD_ONLY]
    keywords = {p.name: bound.arguments[p.name]
                for p in inspect.signature(f).parameters.values() if p.kind is p.KEYWORD_ONLY}
    try:
        return fn(*positional, *dots, **keywords)
    except Exception as exc:
        compile_mod.explain(exc)
        raise


def derivative(f):
    """``f'``: for a function of one float, the function that returns the derivative
    of `f` at a point (computed in forward mode)."""
    def df(x, *rest):
        if isinstance(x, bool) or not isinstance(x, (float, int)):
            raise WrtError(f"derivative of {f.__qualname__} takes a number for its first "
                           f"argument; got {type(x).__name__}",
                           hint="For arrays use s2sad.jvp or s2sad.grad.")
        x = float(x)
        return jvp(f, (x, *rest), (1.0,) + (None,) * len(rest))[1]

    df.__name__ = f"derivative_of_{getattr(f, '__name__', 'f')}"
    df.__doc__ = f"The derivative of {getattr(f, '__qualname__', f)} (forward mode)."
    return df


def value_and_grad_by_forward_mode(f, wrt_names: tuple, as_tuple: bool, args, kwargs):
    """``(f(...), gradient)`` for `grad(f, wrt, mode="forward")` at one point: one
    forward pass per input number, each with a unit tangent."""
    sig = inspect.signature(f)
    bound = sig.bind(*args, **kwargs)
    bound.apply_defaults()
    names = [p.name for p in sig.parameters.values() if p.kind is not p.KEYWORD_ONLY]
    values = [bound.arguments[n] for n in names]
    base = [None] * len(values)
    grads = []
    value = None
    for name in wrt_names:
        i = names.index(name)
        x = values[i]
        if isinstance(x, np.ndarray):
            g = np.zeros_like(x)
            for k in np.ndindex(x.shape):
                t = np.zeros_like(x)
                t[k] = 1.0
                value, g[k] = _checked(f, jvp(f, values, _with(base, i, t)))
            grads.append(g)
        elif isinstance(x, list):
            g = []
            for k in range(len(x)):
                t = [0.0] * len(x)
                t[k] = 1.0
                value, part = _checked(f, jvp(f, values, _with(base, i, t)))
                g.append(part)
            grads.append(g)
        else:
            value, part = _checked(f, jvp(f, values, _with(base, i, 1.0)))
            grads.append(part)
    if value is None:  # every argument was empty
        value = f(*args, **kwargs)
    return value, (tuple(grads) if as_tuple else grads[0])


def _with(base, i, t):
    out = list(base)
    out[i] = t
    return tuple(out)


def _checked(f, pair):
    value, tangent = pair
    if np.ndim(value) != 0 or isinstance(value, (tuple, list)):
        raise S2SADError(f"grad needs a function that returns one real number; "
                         f"{f.__qualname__} returns {type(value).__name__}",
                         hint="Use s2sad.jvp for a non-scalar output.")
    return value, tangent


# ------------------------------------------------------- second derivatives

_gradients: "weakref.WeakKeyDictionary" = weakref.WeakKeyDictionary()


def _gradient_function(f, names: tuple, values: list, kwargs: dict):
    """The compiled reverse-mode gradient of `f` with respect to `names` (a tuple of
    gradients), specialised on these arguments, as one stable function object, so
    the forward-mode derivative of it is compiled once too.

    Second derivatives do not checkpoint: where the gradient would run loops through
    a checkpointing scheduler (loops marked with `s2sad.checkpointed`, in `f` or in a
    function it calls), whose calls the forward transform cannot see into, it is
    built again with every loop on its tape (`pipeline.TAPED_LOOPS`): the same
    function of the arguments, in memory proportional to the trip count."""
    from .api import _kinds, _lock, _still_valid, _unit, _signature_params
    from . import compile as compile_mod
    from .checkpoint import CTZ, Binomial

    params, _ = _signature_params(f)
    bound = dict(zip(params, values))
    bound.update(kwargs)
    kinds = _kinds(f, bound, names, "hessian")
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


def _along(f, gradient, values, tangents):
    """The derivative of the compiled gradient of `f` along `tangents` (forward mode
    over reverse code). The gradient is s2sad's own code, so an error in transforming
    it is reported against `f`, with what to do."""
    try:
        return jvp(gradient, values, tangents)[1]
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
            hint="Second derivatives of a loop that writes into an array it carries from "
                 "one iteration to the next are not supported yet; build that array without "
                 "writes (np.where, np.concatenate), or use finite differences of "
                 "s2sad.grad.") from None


def _full_arguments(f, args, kwargs, what):
    from .api import _check_function

    _check_function(f, what)
    sig = inspect.signature(f)
    if any(p.kind is p.KEYWORD_ONLY for p in sig.parameters.values()):
        raise S2SADError(f"{what} of {f.__qualname__}: keyword-only parameters are not "
                         "supported here yet", hint="Make them positional.")
    bound = sig.bind(*args, **kwargs)
    bound.apply_defaults()
    return [bound.arguments[p] for p in sig.parameters]


def _units_of(x):
    """Unit tangents for every number of `x` (a float, a list of floats or an array),
    with the index each stands for."""
    if isinstance(x, np.ndarray):
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


def _as_array(x):
    return np.asarray(x, dtype=float) if isinstance(x, list) else x


def hessian(f, wrt=0):
    """The Hessian of `f`'s scalar output with respect to `wrt`, by forward mode over
    the compiled reverse-mode gradient (one forward pass of the gradient code per
    input number). For one parameter of shape ``s`` the result has shape ``s + s``
    (a float for a float); for a tuple `wrt`, a tuple of tuples of blocks
    ``H[i][j]`` = derivative of the gradient for ``wrt[i]`` along ``wrt[j]``. Lists of
    floats count as 1-D arrays."""
    from .api import normalize_wrt

    names, as_tuple = normalize_wrt(f, wrt)

    def h(*args, **kwargs):
        values = _full_arguments(f, args, kwargs, "hessian")
        params = list(inspect.signature(f).parameters)
        gradient = _gradient_function(f, names, values, kwargs={})
        blocks = [[None] * len(names) for _ in names]
        for j, name in enumerate(names):
            pos = params.index(name)
            columns = [[] for _ in names]
            for _, t in _units_of(values[pos]):
                tangents = [None] * len(values)
                tangents[pos] = t
                g_dot = _along(f, gradient, values, tangents)
                for i in range(len(names)):
                    columns[i].append(_as_array(g_dot[i]))
            for i, name_i in enumerate(names):
                shape_i = np.shape(_as_array(values[params.index(name_i)]))
                shape_j = np.shape(_as_array(values[pos]))
                stacked = np.stack([np.asarray(c, dtype=float) for c in columns[i]], axis=-1)
                block = stacked.reshape(shape_i + shape_j)
                blocks[i][j] = float(block) if block.ndim == 0 else block
        if as_tuple:
            return tuple(tuple(row) for row in blocks)
        return blocks[0][0]

    h.__name__ = f"hessian_of_{getattr(f, '__name__', 'f')}"
    return h


def hvp(f, wrt=0):
    """``hvp(f)(*args, v)``: the Hessian of `f` (with respect to the one parameter
    `wrt`) times `v`, in one forward pass over the compiled gradient, without building
    the Hessian."""
    from .api import normalize_wrt

    names, as_tuple = normalize_wrt(f, wrt)
    if as_tuple:
        raise S2SADError("hvp takes one parameter in wrt", hint="Use hessian for several.")

    def product(*args):
        if not args:
            raise S2SADError("hvp(f)(*args, v) needs the arguments of f and then v")
        *rest, v = args
        values = _full_arguments(f, rest, {}, "hvp")
        pos = list(inspect.signature(f).parameters).index(names[0])
        gradient = _gradient_function(f, names, values, kwargs={})
        tangents = [None] * len(values)
        tangents[pos] = v
        return _along(f, gradient, values, tangents)[0]

    product.__name__ = f"hvp_of_{getattr(f, '__name__', 'f')}"
    return product


def grad_of_gradient(inner, f, inner_names, wrt):
    """``grad(grad(f))`` for a scalar gradient: the derivative of ``grad(f)`` (with
    respect to one parameter) along `wrt`, by forward mode over the compiled
    gradient."""
    from .api import normalize_wrt

    names, as_tuple = normalize_wrt(f, wrt)

    def second(*args, **kwargs):
        values = _full_arguments(f, args, kwargs, "grad")
        params = list(inspect.signature(f).parameters)
        gradient = _gradient_function(f, inner_names, values, kwargs={})
        out = []
        for name in names:
            pos = params.index(name)
            x = values[pos]
            parts = []
            for k, t in _units_of(x):
                tangents = [None] * len(values)
                tangents[pos] = t
                g_dot = _along(f, gradient, values, tangents)
                if np.ndim(g_dot[0]) != 0:
                    raise S2SADError("grad of a gradient needs the gradient to be one number",
                                     hint="Use s2sad.hessian for array arguments.")
                parts.append((k, g_dot[0]))
            if isinstance(x, np.ndarray):
                g = np.zeros_like(x)
                for k, v in parts:
                    g[k] = v
                out.append(g)
            elif isinstance(x, list):
                out.append([v for _, v in parts])
            else:
                out.append(parts[0][1])
        return tuple(out) if as_tuple else out[0]

    return second


# ----------------------------------------------------------------- Jacobians


def _size(x) -> int:
    return len(x) if isinstance(x, list) else int(np.size(x))


def _flat(y) -> np.ndarray:
    """The numbers of an output part (a float, an array, a list of floats) as a vector."""
    return np.ravel(np.asarray(y, dtype=float))


def _output_parts(y, f):
    if isinstance(y, tuple):
        return list(y), True
    if isinstance(y, (float, int, np.ndarray, np.floating, list)) and not isinstance(y, bool):
        return [y], False
    raise S2SADError(f"jacobian of {f.__qualname__}: its output is a {type(y).__name__}; "
                     "jacobian takes floats, arrays, lists of floats and tuples of those")


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
    no more numbers than the output, reverse mode otherwise."""
    from .api import normalize_wrt

    if mode not in ("auto", "forward", "reverse"):
        raise S2SADError(f"jacobian: mode={mode!r} is not one of \"auto\", \"forward\", "
                         "\"reverse\"")
    names, as_tuple = normalize_wrt(f, wrt)

    def jac(*args, **kwargs):
        values = _full_arguments(f, args, kwargs, "jacobian")
        params = list(inspect.signature(f).parameters)
        where = [params.index(n) for n in names]
        for n, i in zip(names, where):
            kind = ops.kind_of(values[i])
            if not ops.differentiable(kind) or isinstance(kind, tuple):
                raise WrtError(f"jacobian of {f.__qualname__}: `{n}` is a "
                               f"{type(values[i]).__name__}; the Jacobian is taken with "
                               "respect to floats, float arrays and lists of floats")
        chosen = mode
        y = None
        if mode == "auto":
            y = f(*values)
            m = sum(_size(p) for p in _output_parts(y, f)[0])
            chosen = "forward" if sum(_size(values[i]) for i in where) <= m else "reverse"
        if chosen == "forward":
            y, blocks = _jacobian_forward(f, values, where)
        else:
            y, blocks = _jacobian_reverse(f, values, where)
        parts, many = _output_parts(y, f)
        out = []
        for e, part in enumerate(parts):
            row = []
            for k, i in enumerate(where):
                block = blocks[e][k].reshape(np.shape(part) + (_size(values[i]),)
                                             if isinstance(values[i], list)
                                             else np.shape(part) + np.shape(values[i]))
                row.append(float(block) if block.ndim == 0 else block)
            out.append(tuple(row) if as_tuple else row[0])
        return tuple(out) if many else out[0]

    jac.__name__ = f"jacobian_of_{getattr(f, '__name__', 'f')}"
    return jac


def _forward_pass(f, fn, values, dots):
    """``(output, output parts, their tangents)`` of one call of the compiled forward
    derivative `fn` (an error in it gets a note naming the user's line)."""
    try:
        y, y_dot = fn(*values, *dots)
    except Exception as exc:
        compile_mod.explain(exc)
        raise
    parts, _ = _output_parts(y, f)
    return y, parts, list(y_dot) if isinstance(y, tuple) else [y_dot]


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


def _jacobian_batched(f, values, where, wrt, kinds, sizes):
    """``(output, columns)`` from one pass of the batched forward derivative (every
    tangent with a leading axis of directions, see `batching`), or None when the
    function has a line that cannot carry directions."""
    if any(isinstance(values[i], list) for i in where):
        return None
    unit, fn = _compiled_unit(f, wrt, kinds, batched=True)
    if fn is None:
        return None
    n = sum(sizes)
    eye = np.eye(n)
    dots, at = [], 0
    for i, size in zip(where, sizes):
        x = values[i]
        block = eye[:, at:at + size]
        dots.append(block.reshape((n,) + np.shape(x)) if isinstance(x, np.ndarray)
                    else block[:, 0].copy())
        at += size
    y, parts, dparts = _forward_pass(f, fn, values, dots)
    columns = []
    for part, d in zip(parts, dparts):
        d = np.asarray(d, dtype=float)
        size = _size(part)
        if d.shape == (n,) + np.shape(part):
            columns.append(d.reshape(n, size).T.copy())
        elif d.shape == np.shape(part) and not d.any():  # independent of the inputs
            columns.append(np.zeros((size, n)))
        else:
            raise S2SADError(f"jacobian of {f.__qualname__}: internal: a tangent of shape "
                             f"{d.shape} for an output of shape {np.shape(part)} and {n} "
                             "directions")
    return y, columns


def _jacobian_forward(f, values, where):
    """``(output, blocks)``: ``blocks[e][k]`` is the (output part e numbers) x (input
    where[k] numbers) matrix."""
    params = list(inspect.signature(f).parameters)
    kinds = {p: ops.kind_of(v) for p, v in zip(params, values)}
    wrt = tuple(params[i] for i in where)
    unit, fn = _compiled_unit(f, wrt, kinds)
    sizes = [_size(values[i]) for i in where]
    n = sum(sizes)
    if n and _carries_vectors(unit) and \
            all(not isinstance(values[i], np.ndarray) for i in where):
        # vector mode: each tangent is a vector with one entry per direction
        eye = np.eye(n)
        dots, at = [], 0
        for i, size in zip(where, sizes):
            if isinstance(values[i], list):
                dots.append([eye[at + k] for k in range(size)])
            else:
                dots.append(eye[at])
            at += size
        y, parts, dparts = _forward_pass(f, fn, values, dots)
        columns = []
        for part, d in zip(parts, dparts):
            full = np.zeros((_size(part), n))
            full[...] = np.reshape(np.asarray(d, dtype=float), (_size(part), n)) \
                if np.size(d) == _size(part) * n else np.asarray(d, dtype=float)
            columns.append(full)
    elif n and (batched := _jacobian_batched(f, values, where, wrt, kinds, sizes)):
        y, columns = batched
    else:
        # one pass of the compiled derivative per input number (a unit tangent on
        # that number, zero tangents on the other `wrt` inputs)
        columns = None
        y = None
        zeros = [np.zeros_like(values[i]) if isinstance(values[i], np.ndarray)
                 else [0.0] * len(values[i]) if isinstance(values[i], list) else 0.0
                 for i in where]
        for k, i in enumerate(where):
            for _, t in _units_of(values[i]):
                dots = list(zeros)
                dots[k] = t
                y, parts, dparts = _forward_pass(f, fn, values, dots)
                if columns is None:
                    columns = [[] for _ in parts]
                for e, d in enumerate(dparts):
                    columns[e].append(_flat(d))
        if y is None:  # no input numbers at all
            y = f(*values)
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


def _jacobian_reverse(f, values, where):
    from .api import vjp

    y, pullback = vjp(f, *values)
    parts, many = _output_parts(y, f)
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
                g = adjoints[i]
                rows[k].append(_flat(g) if g is not None else np.zeros(_size(values[i])))
        blocks.append([np.stack(r) if r else np.zeros((0, _size(values[i])))
                       for r, i in zip(rows, where)])
    return y, blocks


def _as_float(x):
    if isinstance(x, np.ndarray):
        return x.astype(float) if x.dtype.kind != "f" else x
    if isinstance(x, list):
        return [float(v) for v in x]
    return float(x)


def _zero_of(x):
    if isinstance(x, np.ndarray):
        return np.zeros_like(x, dtype=float)
    if isinstance(x, list):
        return [0.0] * len(x)
    return 0.0
