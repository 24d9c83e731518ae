"""Forward mode for users: `jvp`, `derivative`, the gradient by forward mode, and
the second derivatives (`hessian`, `hvp`, ``grad(grad(f))``), forward mode over
the compiled reverse-mode gradient.

`jvp(f, primals, tangents)` runs the forward-mode derivative the compiler emits for
`f` (see `builder.forward_unit`): one pass that computes `f`'s output and its
directional derivative along `tangents`. The compiled derivative is specialised, and
cached, on the argument kinds and on which arguments carry a tangent, like `grad`'s
(`dispatch.compiled_forward`).

Every entry point binds its arguments to `f`'s parameters as a call of `f` would
(keywords, keyword-only parameters, defaults) and passes keyword-only ones to the
derivative by keyword. Forward mode leaves the tangent of a value nothing varying
reaches as the number 0.0; the entry points give it the value's shape (a zero
Hessian block, a constant element of a list output). A function s2sad made
(``grad(f)``, ``derivative(f)``, ...) is refused with an error at the user's `def`
that says which second derivatives there are.

Imports `arguments`, `dispatch`, `repeats` and `shapes` from `api`.
"""

from __future__ import annotations

import inspect

import numpy as np

from ..backend import compile as compile_mod
from ..errors import NotDifferentiableError, S2SADError, WrtError
from ..ir.kinds import differentiable, kind_of
from . import dispatch, shapes
from . import repeats, structured
from .arguments import (keywords_by_position, keywords_refusal, rebased_wrt, rebound, unbound, argument_kinds, at_def, bind, call_with, complex_refusal,
                        complex_value, mark_made, normalize_wrt, public, refuse_derived,
                        refuse_mixed_libraries, typed_gradients, typed_like, with_attributes)


@public
def jvp(f, primals, tangents):
    """``(f(*primals), tangent of the output)``: the directional derivative of `f` at
    `primals` along `tangents` (one per primal, with its shape; ``None`` for an
    argument held fixed, such as an integer), computed in one forward pass.

    The output tangent has the output's structure: a float for a float, an array of
    the output's shape, a tuple for a tuple. The primals are passed positionally;
    keyword-only parameters take their defaults."""
    refuse_derived(f, "jvp")
    plain, bound, keywords = unbound(f)
    if plain is not f and isinstance(primals, (tuple, list)) and \
            isinstance(tangents, (tuple, list)):  # (a bound method, a callable object,
        # a partial: its keywords passed by position after the primals, held fixed)
        after = keywords_by_position(plain, len(bound) + len(primals), keywords)
        if after is not None:
            return jvp(plain, tuple(bound) + tuple(primals) + after,
                       (None,) * len(bound) + tuple(tangents) + (None,) * len(after))
        raise keywords_refusal(plain, keywords, "jvp")
    if not isinstance(primals, (tuple, list)):
        raise S2SADError(f"jvp takes the primals as a tuple: jvp(f, (x, y), (x_dot, "
                         f"y_dot)); got {type(primals).__name__}")
    arguments = bind(f, primals, {}, "jvp", hint="jvp passes the primals by position, "
                     "one per positional parameter; keyword-only parameters take "
                     "their defaults (s2sad.jacobian takes keyword arguments).")
    if not isinstance(tangents, (tuple, list)) or len(tangents) != len(primals):
        raise S2SADError(f"jvp needs one tangent per primal: {len(primals)} primals, "
                         f"{len(tangents) if isinstance(tangents, (tuple, list)) else 'no'} "
                         "tangents", hint="Pass None for an argument held fixed.")
    given = tuple(arguments)[:len(primals)]
    if structured.flat_needed(dict(list(arguments.items())[:f.__code__.co_argcount]),
                              [n for n, t in zip(given, tangents) if t is not None], f) or \
            any(structured.structured(x) for x in primals):
        return _structured_jvp(f, arguments, primals, tangents)
    dots = {}
    for name, x, t in zip(arguments, primals, tangents):
        if t is None:
            continue
        if complex_value(x):
            raise complex_refusal(f"jvp of {f.__qualname__} along `{name}`", x, f)
        kind = kind_of(x)
        if not differentiable(kind) or isinstance(kind, tuple):
            if isinstance(t, (int, float)) and t == 0:
                continue  # a zero tangent for an integer: held fixed
            what = type(x).__name__
            if isinstance(x, np.ndarray):
                what = f"array of {x.dtype}"
            raise WrtError(f"jvp of {f.__qualname__}: `{name}` is "
                           f"{'an' if what[0] in 'aeiou' else 'a'} {what}, and "
                           "tangents are taken for floats, float arrays and lists of those",
                           hint="Pass None as its tangent.", **at_def(f))
        if not shapes.fits_tangent(t, x):
            raise S2SADError(f"jvp of {f.__qualname__}: the tangent of `{name}` has shape "
                             f"{shapes.shape_text(t)}, its primal {shapes.shape_text(x)}",
                             hint="Give every tangent its primal's shape (for a list of "
                                  "arrays, a list of arrays of their shapes).")
        dots[name] = t
    try:
        fn = _jvp_built(f, arguments, dots)
    except NotDifferentiableError as refused:
        # (a dict, namedtuple or dataclass the function builds and returns, with no
        # container among the arguments: followed as `jacobian` follows it; where
        # that is refused too, the first refusal says why)
        if not structured.may_return_container(f):
            raise
        try:
            return _structured_jvp(f, arguments, primals, tangents)
        except Exception:  # (whatever stops it, the first refusal says why)
            raise refused from None
    y, y_dot = call_derivative(fn, f, arguments, [dots[n] for n in _wrt(arguments, dots)])
    return y, _output_tangent(y_dot, y, f)


def _structured_jvp(f, arguments, primals, tangents):
    """`jvp` where containers are among the primals (`structured.Flat`): each
    tangent has its primal's structure; the output and its tangent have the
    output's."""
    given = tuple(arguments)[:len(primals)]
    names = tuple(n for n in given if not structured.static_callable(arguments[n]))
    positional = dict(list(arguments.items())[:f.__code__.co_argcount])
    flat = structured.Flat(f, positional, names, "jvp")  # (defaults too: held fixed)
    dots = []
    for n, t in zip(positional, tuple(tangents) + (None,) * (len(positional) - len(given))):
        if n in flat.statics:
            continue
        if n not in flat.specs:
            dots.append(t)
        elif t is None:
            dots.extend([None] * len(flat.leaves[n]))
        else:
            parts = structured.flatten_like(t, flat.specs[n], f"the tangent of `{n}`", f)
            dots.extend(d if structured._carries(flat.values[m]) else None
                        for m, d in zip(flat.leaves[n], parts))
    with flat.naming():
        y, y_dot = jvp(flat.flat, tuple(flat.args()), tuple(dots))
    return flat.output(y), flat.output(y_dot)


def _jvp_at(f, arguments: dict, dots: dict, quiet=False):
    """``(output, output tangent)`` of `f` at `arguments` along `dots` (parameter
    name -> tangent, for the parameters that vary). `quiet`: a pass after the first
    at this point, which leaves out what `f` prints, logs or checks."""
    fn = _jvp_built(f, arguments, dots, quiet)
    return call_derivative(fn, f, arguments, [dots[n] for n in _wrt(arguments, dots)])


def _wrt(arguments: dict, dots: dict) -> tuple:
    """The parameters that vary, in the order the derivative takes their tangents."""
    return tuple(n for n in arguments if n in dots)


def _jvp_built(f, arguments: dict, dots: dict, quiet=False):
    """The compiled forward derivative `_jvp_at` calls (built, not run)."""
    wrt = _wrt(arguments, dots)
    kinds = with_attributes(f, {n: kind_of(v) for n, v in arguments.items()}, arguments)
    refuse_mixed_libraries(f, kinds, "jvp")
    return dispatch.compiled_forward(f, wrt, kinds, quiet=quiet)[1]


def call_derivative(fn, f, arguments: dict, dots: list):
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


def _output_tangent(d, y, f):
    """The tangent `d` of the output `y` with `y`'s type, as JAX gives a tangent its
    primal's dtype and shape: an array's is an array of its shape and dtype (float32
    stays float32 where a float64 zero or constant met it, a 0-d array's is 0-d), a
    NumPy scalar's a NumPy scalar of its type, a float's a float (not the 0-d array
    ``np.where`` gives); a tuple's or list's, element by element."""
    if isinstance(y, np.ndarray):
        return typed_like(shapes.tangent_like(d, y, f), y)
    if isinstance(y, (tuple, list)) and isinstance(d, (tuple, list)) and len(d) == len(y):
        return type(d)(_output_tangent(e, v, f) for e, v in zip(d, y))
    if isinstance(y, (float, np.floating)) and not isinstance(y, bool) and (
            d is None or np.ndim(d) == 0 and not np.iscomplexobj(d)) and type(d) is not type(y):
        return type(y)(0.0 if d is None else d)
    return d


@public
def derivative(f):
    """``f'``: for a function of one float, the function that returns the derivative
    of `f` at a point (computed in forward mode) with respect to its first
    parameter; other arguments, positional or keyword, are passed through."""
    refuse_derived(f, "derivative")

    def df(x, *rest, **kwargs):
        if complex_value(x):
            raise complex_refusal(f"derivative of {f.__qualname__}", x, f)
        if isinstance(x, bool) or not isinstance(x, (float, int)):
            raise WrtError(f"derivative of {f.__qualname__} takes a number for its first "
                           f"argument; got {type(x).__name__}",
                           hint="For arrays use s2sad.jvp or s2sad.grad.")
        arguments = bind(f, (float(x),) + rest, kwargs, "derivative")
        first = next(iter(arguments))
        y, y_dot = _jvp_at(f, arguments, {first: 1.0})
        return _output_tangent(y_dot, y, f)

    df.__name__ = f"derivative_of_{getattr(f, '__name__', 'f')}"
    df.__doc__ = f"The derivative of {getattr(f, '__qualname__', f)} (forward mode)."
    return mark_made(df, f, "derivative")


def value_and_grad_by_forward_mode(f, wrt_names: tuple, as_tuple: bool, args, kwargs):
    """``(f(...), gradient)`` for `grad(f, wrt, mode="forward")` at one point: one
    forward pass per input number, each with a unit tangent. Keyword and keyword-only
    arguments are passed as given; `wrt` may name a keyword-only parameter."""
    arguments = bind(f, args, kwargs, "grad")
    argument_kinds(f, arguments, wrt_names, "grad")  # (a clear error for an integer `wrt`)
    grads = []
    value = None
    runs = repeats.Repeats(f, arguments, "grad(mode=\"forward\")")
    for name in wrt_names:
        x = arguments[name]
        parts = []
        for _, t in shapes.units_of(x):
            runs.rewind()
            value, part = _checked(f, _jvp_at(f, arguments, {name: t}, value is not None))
            runs.again(lambda: _jvp_at(f, arguments, {name: t}, True), (value, part))
            runs.same(value)
            parts.append(part)
        grads.append(shapes.shaped_like(x, parts))
    if value is None:  # every argument was empty
        runs.rewind()
        value = call_with(f, arguments)
    grads = typed_gradients(arguments, wrt_names, grads)
    return value, (tuple(grads) if as_tuple else grads[0])


def _checked(f, pair):
    """`pair`, ``(value, tangent)``, of a function `grad` needs one number from."""
    value, tangent = pair
    if np.ndim(value) != 0 or isinstance(value, (tuple, list)):
        raise S2SADError(f"grad needs a function that returns one real number; "
                         f"{f.__qualname__} returns {type(value).__name__}",
                         hint="Use s2sad.jvp for a non-scalar output.")
    return value, tangent


# ------------------------------------------------------- second derivatives


@public
def hessian(f, wrt=0):
    """The Hessian of `f`'s scalar output with respect to `wrt`, by forward mode over
    the compiled reverse-mode gradient (one forward pass of the gradient code per
    input number). For one parameter of shape ``s`` the result has shape ``s + s``
    (a float for a float); for a tuple `wrt`, a tuple of tuples of blocks
    ``H[i][j]`` = derivative of the gradient for ``wrt[i]`` along ``wrt[j]``. Lists of
    floats count as 1-D arrays. The returned function takes `f`'s arguments,
    keyword and keyword-only ones too."""
    refuse_derived(f, "hessian")
    if unbound(f)[0] is not f:  # (a bound method, a partial, a callable object)
        return rebound(f, lambda plain, bound, keywords: hessian(
            plain, rebased_wrt(plain, bound, keywords, wrt)))
    names, as_tuple = normalize_wrt(f, wrt)

    def h(*args, **kwargs):
        arguments = bind(f, args, kwargs, "hessian")
        if structured.flat_needed(arguments, names, f):
            flat = structured.Flat(f, arguments, names, "hessian")
            leaves = flat.wrt()
            with flat.naming():
                args, keywords = flat.split_args()
                blocks = hessian(flat.flat, wrt=leaves)(*args, **keywords)
            rows = structured.nested_blocks(flat, blocks, leaves)
            return tuple(tuple(r) for r in rows) if as_tuple else rows[0][0]
        gradient = dispatch.gradient_to_differentiate(f, names, arguments)
        blocks = [[None] * len(names) for _ in names]
        passes = 0
        runs = repeats.Repeats(f, arguments, "hessian")
        for j, name in enumerate(names):
            columns = [[] for _ in names]
            for _, t in shapes.units_of(arguments[name]):
                runs.rewind()
                g, g_dot = _along(f, gradient, arguments, {name: t}, passes > 0)
                runs.again(lambda: _along(f, gradient, arguments, {name: t}, True), (g, g_dot))
                runs.same(g)
                passes += 1
                for i, name_i in enumerate(names):
                    columns[i].append(shapes.flat(g_dot[i], arguments[name_i], f))
            x_j = arguments[name]
            for i, name_i in enumerate(names):
                x_i = arguments[name_i]
                if columns[i]:  # (a Dask or JAX array's: of its library, lazily)
                    matrix = shapes.stack(columns[i], axis=-1)
                else:  # (an empty argument)
                    matrix = np.zeros((shapes.size(x_i), 0))
                # (a list of arrays: a block per element, its rows' list outside)
                blocks[i][j] = shapes.split(matrix, x_i, x_j, ())
        if as_tuple:
            return tuple(tuple(row) for row in blocks)
        return blocks[0][0]

    h.__name__ = f"hessian_of_{getattr(f, '__name__', 'f')}"
    return mark_made(h, f, "hessian")


@public
def hvp(f, wrt=0):
    """``hvp(f)(*args, v)``: the Hessian of `f` (with respect to the one parameter
    `wrt`) times `v`, in one forward pass over the compiled gradient, without building
    the Hessian. Keyword arguments of `f` follow as keywords:
    ``hvp(f)(x, v, scale=2.0)``."""
    refuse_derived(f, "hvp")
    if unbound(f)[0] is not f:  # (a bound method, a partial, a callable object)
        return rebound(f, lambda plain, bound, keywords: hvp(
            plain, rebased_wrt(plain, bound, keywords, wrt)))
    names, as_tuple = normalize_wrt(f, wrt)
    if as_tuple:
        raise S2SADError("hvp takes one parameter in wrt", hint="Use hessian for several.")

    def product(*args, **kwargs):
        if not args:
            raise S2SADError("hvp(f)(*args, v) needs the arguments of f and then v")
        *rest, v = args
        arguments = bind(f, rest, kwargs, "hvp")
        x = arguments[names[0]]
        if structured.flat_needed(arguments, names, f):
            return _structured_hvp(f, arguments, names, v)
        if not shapes.fits_tangent(v, x):
            raise S2SADError(f"hvp of {f.__qualname__}: v has shape {shapes.shape_text(v)}, "
                             f"`{names[0]}` {shapes.shape_text(x)}",
                             hint=f"Pass v last, with the shape of `{names[0]}`.")
        gradient = dispatch.gradient_to_differentiate(f, names, arguments, "hvp")
        return typed_gradients(arguments, names,
                               [_along(f, gradient, arguments, {names[0]: v})[1][0]])[0]

    product.__name__ = f"hvp_of_{getattr(f, '__name__', 'f')}"
    return mark_made(product, f, "hvp")


def _structured_hvp(f, arguments, names, v):
    """`hvp` with respect to a container: `v` has its structure, and so has the
    product (None at leaves without a derivative)."""
    flat = structured.Flat(f, arguments, names, "hvp")
    leaves = flat.wrt()
    parts = structured.flatten_like(v, flat.specs[names[0]], "v", f)
    dots = {m: d for m, d in zip(flat.leaves[names[0]], parts) if m in leaves}
    gradient = dispatch.gradient_to_differentiate(flat.flat, leaves, flat.values, "hvp")
    with flat.naming():
        out = _along(flat.flat, gradient, flat.values, dots)[1]
    typed = typed_gradients(flat.values, leaves, list(out))
    return flat.regroup(typed, leaves)[0]


def grad_of_gradient(inner, f, inner_names, wrt):
    """``grad(grad(f))`` for a scalar gradient: the derivative of ``grad(f)`` (with
    respect to one parameter) along `wrt`, by forward mode over the compiled
    gradient."""
    names, as_tuple = normalize_wrt(f, wrt)

    def second(*args, **kwargs):
        arguments = bind(f, args, kwargs, "grad")
        gradient = dispatch.gradient_to_differentiate(f, inner_names, arguments, "grad")
        out = []
        passes = 0
        runs = repeats.Repeats(f, arguments, "grad(grad(f))")
        for name in names:
            x = arguments[name]
            parts = []
            for _, t in shapes.units_of(x):
                runs.rewind()
                g, g_dot = _along(f, gradient, arguments, {name: t}, passes > 0)
                runs.again(lambda: _along(f, gradient, arguments, {name: t}, True), (g, g_dot))
                runs.same(g)
                passes += 1
                if np.ndim(g[0]) != 0:
                    raise S2SADError(
                        f"grad of grad({f.__qualname__}) needs the gradient to be one "
                        f"number; the gradient for `{inner_names[0]}` has shape "
                        f"{np.shape(g[0])}", hint="Use s2sad.hessian for array arguments.")
                parts.append(g_dot[0])
            out.append(shapes.shaped_like(x, parts))
        out = typed_gradients(arguments, names, out)
        return tuple(out) if as_tuple else out[0]

    second.__name__ = f"grad_of_grad_of_{getattr(f, '__name__', 'f')}"
    return mark_made(second, f, "grad(grad(f))")


def _along(f, gradient, arguments: dict, dots: dict, quiet=False):
    """``(gradients, their tangents)``: the compiled gradient of `f` (a tuple of
    gradients) and its derivative along `dots` (forward mode over reverse code), a
    tangent with its gradient's structure for every gradient, zeros where nothing
    varying reaches it. The gradient is s2sad's own code, so an error in transforming
    it is reported against `f`, with what to do."""
    try:
        value, tangent = _jvp_at(gradient, arguments, dots, quiet)
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
        tangent = (shapes.zero(tangent, f),) * len(value)  # (all of it zero)
    return value, tuple(shapes.tangent_like(d, g, f) for d, g in zip(tangent, value))
