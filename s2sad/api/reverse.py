"""The reverse-mode entry points: `grad`, `value_and_grad`, `vjp`, and `source`,
which shows the code s2sad emits.

`mode` selects how `grad` and `value_and_grad` compute: ``"reverse"`` (the default)
is the compiler; ``"forward"`` is the compiler's forward mode, one pass per input
number; ``"tape"`` runs the function itself on the tape engine
(`s2sad.engines.tape_grad`), which needs no source, so it is the fallback for
functions built with `exec`, at a REPL or with `lambda`, and for constructs the
compiler refuses. Nothing falls back silently: the compiler's `SourceNotFoundError`
suggests ``mode="tape"``.

`grad(f)` returns a function with `f`'s signature: the dispatcher `dispatch.State`
generates, which builds, caches and calls the compiled derivative for each set of
argument types (see `dispatch`). ``grad(grad(f))`` is forward mode over the
compiled gradient (`forward.grad_of_gradient`).

Imports `arguments`, `dispatch`, `forward`, `repeats` and `debug` from `api`.
"""

from __future__ import annotations

import functools
import inspect
import os
import types

import numpy as np

from ..backend import compile as compile_mod
from ..backend import emit, native
from ..driver import builder, stages
from ..engines import tape_grad
from ..transform.checkpointing import RANDOM_OWNERS
from ..errors import NotDifferentiableError, S2SADError, WrtError
from ..frontend import parse, source as frontend_source
from ..ir import trees
from ..ir.kinds import array_library, differentiable, kind_of, with_shapes
from . import debug, dispatch, repeats
from . import structured
from .arguments import (argument_kinds, at_def, bind, keywords_by_position, keywords_refusal,
                        rebased_wrt, rebound, split_arguments, unbound, check_function, check_mode, checkpoint_option,
                        complex_refusal, complex_value, fixed_argument, normalize_wrt,
                        mark_made, numeric_kind, public, retyped_list, signature_params, unwrapped,
                        typed_like, with_attributes,
                        typed_gradients)
from .forward import grad_of_gradient, value_and_grad_by_forward_mode


@public
def grad(f=None, wrt=0, mode="reverse", debug=None, checkpoint=None, snapshots=None,
         has_aux=False, jit=False):
    """The gradient of `f`'s scalar output with respect to the parameter(s) `wrt`.

    `wrt` is a parameter position, a parameter name, or a tuple of them (then the
    gradient is a tuple); it is what JAX calls ``argnums``. Use as ``grad(f)``,
    ``@grad`` or ``@grad(wrt=("x", "y"))``.
    The returned function takes the same arguments as `f`.

    ``mode="reverse"`` (the default) compiles the derivative from `f`'s source;
    ``mode="tape"`` runs `f` on the tape engine instead: no source needed (functions
    made by `exec`, at a REPL, lambdas; constructs the compiler refuses), same
    results, slower calls.

    ``debug=True`` (default: the ``S2SAD_DEBUG_NANS`` environment variable) raises
    `NonFiniteError` at the first user line whose derivative becomes NaN or
    infinite (see `debug`); calls are much slower.

    ``checkpoint="ctz"`` or ``"binomial"`` (with ``snapshots=s``, default 10)
    checkpoints the outermost loops of `f` as if each were marked with
    `s2sad.checkpointed` (a ``while`` loop, or one with a ``break``, always with
    CTZ), except loops marked already and loops the schedule cannot reverse (a
    ``return`` inside, an in-place change of what the loop carries or reads), which
    keep their tape.
    ``s2sad.source(f, checkpoint=...)`` shows which is which.

    ``has_aux=True``: `f` returns ``(value, aux)``; the gradient is of `value`, and
    the returned function gives ``(gradient, aux)``, `aux` as `f` returned it (any
    Python object: a dict of metrics, say), as in JAX.

    ``jit=True`` compiles the derivative with numba (``pip install 's2sad[jit]'``),
    loops and tapes included, for its first call with each kind of arguments; where
    numba cannot compile it, a `NativeWarning` says why and the Python derivative
    runs (docs/guide/native.md). Only `grad` and `value_and_grad` take it, in the
    default reverse mode.
    """
    check_mode(mode, "grad")
    ckpt = checkpoint_option(checkpoint, snapshots, "grad", mode)
    if jit:
        _jit_option("grad", mode, debug, has_aux, f)
    if f is None:
        return lambda g: grad(g, wrt, mode, debug, checkpoint, snapshots, has_aux, jit)
    if unbound(f)[0] is not f:  # (a bound method, a partial, a callable object)
        return rebound(f, lambda plain, bound, keywords: grad(
            plain, rebased_wrt(plain, bound, keywords, wrt), mode, debug, checkpoint,
            snapshots, has_aux, jit))
    if has_aux:
        return _with_aux(f, wrt, "grad", mode, ckpt)
    if _debugging(debug) and mode == "reverse":
        return _debugged(grad(f, wrt, mode, False, checkpoint, snapshots))
    inner = getattr(f, "__s2sad__", None)
    if isinstance(inner, dispatch.State) and ckpt is not None:
        raise S2SADError("grad(grad(f), checkpoint=...) is not supported: the outer "
                         "derivative is forward mode over the gradient's code, which "
                         "has no reverse sweep to checkpoint",
                         hint="Drop checkpoint= from the outer grad; second derivatives "
                              "reverse the loops of f with their tape.")
    if isinstance(inner, dispatch.State) and inner.entry == "grad" and not inner.as_tuple \
            and mode == "reverse":
        # grad(grad(f)): forward mode over the compiled gradient (which does not
        # checkpoint, even for grad(f, checkpoint=...): see
        # dispatch.gradient_to_differentiate)
        return grad_of_gradient(inner, inner.f, inner.wrt, wrt)
    if mode == "tape":
        return _taped(f, wrt, "grad")
    if mode == "forward":
        return _by_forward_mode(f, wrt, "grad")
    return dispatch.transformed(f, wrt, "grad", ckpt, jit)


@public
def value_and_grad(f=None, wrt=0, mode="reverse", debug=None, checkpoint=None,
                   snapshots=None, has_aux=False, jit=False):
    """Like `grad`, but the returned function gives ``(f(...), gradient)``; with
    ``has_aux=True``, ``((value, aux), gradient)``. ``jit=True`` as for `grad`."""
    check_mode(mode, "value_and_grad")
    ckpt = checkpoint_option(checkpoint, snapshots, "value_and_grad", mode)
    if jit:
        _jit_option("value_and_grad", mode, debug, has_aux, f)
    if f is None:
        return lambda g: value_and_grad(g, wrt, mode, debug, checkpoint, snapshots, has_aux,
                                        jit)
    if unbound(f)[0] is not f:
        return rebound(f, lambda plain, bound, keywords: value_and_grad(
            plain, rebased_wrt(plain, bound, keywords, wrt), mode, debug, checkpoint,
            snapshots, has_aux, jit))
    if has_aux:
        return _with_aux(f, wrt, "value_and_grad", mode, ckpt)
    if _debugging(debug) and mode == "reverse":
        return _debugged(value_and_grad(f, wrt, mode, False, checkpoint, snapshots))
    if mode == "tape":
        return _taped(f, wrt, "value_and_grad")
    if mode == "forward":
        return _by_forward_mode(f, wrt, "value_and_grad")
    return dispatch.transformed(f, wrt, "value_and_grad", ckpt, jit)


def _jit_option(entry, mode, debug, has_aux, f):
    """Refuse what ``jit=True`` does not combine with; numba must be installed."""
    other = ("mode=" + repr(mode) if mode != "reverse" else "has_aux=True" if has_aux
             else "the NaN debugger (debug=True or S2SAD_DEBUG_NANS)" if _debugging(debug)
             else "grad(grad(f))" if isinstance(getattr(f, "__s2sad__", None), dispatch.State)
             else None)
    if other is not None:
        raise S2SADError(f"{entry}(jit=True) compiles the reverse-mode gradient with numba; it "
                         f"does not combine with {other}", hint="Drop jit=True.")
    native.require(entry)


def _with_aux(f, wrt, entry, mode, ckpt):
    """`grad` or `value_and_grad` with ``has_aux=True``: the function returns
    ``(value, aux)``; the pullback of its output is run with the seed 1.0 for
    `value` and zeros for `aux`'s numbers (`vjp`), which gives the gradient of
    `value` alone."""
    if mode != "reverse":
        raise S2SADError(f"{entry}(has_aux=True) runs the compiled reverse mode, not "
                         f"mode={mode!r}")
    check_function(f, entry)
    wrt_names, as_tuple = normalize_wrt(f, wrt)
    names, n_pos = signature_params(f)
    for n in wrt_names:
        if n in names[n_pos:]:
            raise WrtError(f"{entry}(has_aux=True) differentiates with respect to positional "
                           f"parameters; `{n}` is keyword-only",
                           hint="Make it a positional parameter.", **at_def(f))

    def with_aux(*args, **kwargs):
        primals, keywords = split_arguments(f, bind(f, args, kwargs, entry))
        held = tuple(n for n in names[:n_pos] if n not in wrt_names)
        out, pullback = vjp_of(f, primals, *(ckpt or (None, None)), held=held,
                               structures=True, keywords=keywords)
        if not isinstance(out, tuple) or len(out) != 2:
            raise S2SADError(f"{entry}(has_aux=True) of {f.__qualname__}: the function must "
                             f"return a pair (value, aux); it returned {_short(out)}",
                             **at_def(f))
        value, aux = out
        if not isinstance(value, float) and np.ndim(value) != 0:
            raise S2SADError(f"{entry}(has_aux=True) of {f.__qualname__}: the value "
                             f"differentiated (the first of the pair) must be one number; "
                             f"it is {_short(value)}", **at_def(f))
        adjoints = pullback((1.0, _zeros_like(aux)))
        grads = tuple(adjoints[names.index(n)] for n in wrt_names)
        grads = grads if as_tuple else grads[0]
        return (out, grads) if entry == "value_and_grad" else (grads, aux)

    with_aux.__name__ = f"{entry}_of_{f.__name__}"
    return mark_made(with_aux, f, entry)


def _zeros_like(aux):
    """A seed for `aux`: zeros of its numbers' types and shapes, in its structure."""
    if trees.is_container(aux):
        return trees.build(trees.spec_of(aux), iter([_zeros_like(a) for a in trees.leaves(aux)]))
    if isinstance(aux, (float, np.floating)):
        return 0.0
    if isinstance(aux, np.ndarray):
        return np.zeros(aux.shape)
    if array_library(aux) is not None:  # (a Dask array's: lazy, in its chunks)
        return np.zeros_like(aux, dtype=float)
    return None


def _short(value) -> str:
    text = repr(value)
    return text if len(text) < 60 else text[:57] + "..."


def _debugging(debug) -> bool:
    """Is the NaN debugger on (`debug`, or else ``S2SAD_DEBUG_NANS``)?"""
    if debug is None:
        return os.environ.get("S2SAD_DEBUG_NANS", "") not in ("", "0")
    return bool(debug)


def _debugged(g):
    """`g`, run under the NaN debugger (`debug.run`)."""
    @functools.wraps(g)
    @public
    def checked(*args, **kwargs):
        return debug.run(g, args, kwargs)

    return checked


def _taped(f, wrt, entry):
    """`grad(f, wrt, mode="tape")` (or `value_and_grad`): a function with `f`'s
    parameters that runs `f` on the tape engine."""
    if getattr(f, "__s2sad__", None) is not None:
        raise S2SADError(f"{entry} of a function s2sad already transformed is not supported "
                         "yet", hint="Differentiate the original function.")
    if not callable(f):
        raise S2SADError(f"{entry} needs a function; got {f!r}")
    if isinstance(f, types.FunctionType) and callable(getattr(f, "__wrapped__", None)):
        # (a decorator's wrapper that does more than call it, which `unbound` keeps:
        # `inspect.signature` would read the wrapped function's defaults into the call)
        frontend_source.check_wrapper(f)
    try:
        signature = inspect.signature(f)
    except (TypeError, ValueError):
        raise S2SADError(f"{entry}(mode=\"tape\") cannot read the parameters of {f!r}",
                         hint="Wrap it in a Python function.") from None
    params = list(signature.parameters.values())
    names = None  # (the parameters `wrt` names, when they are plain parameters)
    if isinstance(f, types.FunctionType) and not f.__code__.co_flags & (
            inspect.CO_VARARGS | inspect.CO_VARKEYWORDS):
        names, as_tuple = normalize_wrt(f, wrt)  # refuses a bad wrt now, as mode="reverse"
        wrt = names if as_tuple else names[0]
    elif isinstance(wrt, list):
        wrt = tuple(wrt)
    keyword_only = {p.name for p in params if p.kind is p.KEYWORD_ONLY}
    for name in (wrt if isinstance(wrt, tuple) else (wrt,)):
        if name in keyword_only:
            raise WrtError(f"{entry}(mode=\"tape\") differentiates with respect to "
                           f"positional parameters; `{name}` is keyword-only",
                           hint="Make it a positional parameter.")
    with_value = entry == "value_and_grad"

    @functools.wraps(f)
    @public
    def taped(*args, **kwargs):
        try:  # (defaults as `f` holds them now: they may be assigned after `grad`)
            live = inspect.signature(f) if getattr(f, "__defaults__", None) or \
                getattr(f, "__kwdefaults__", None) else signature
            bound = live.bind(*args, **kwargs)
        except TypeError as exc:
            raise TypeError(f"{getattr(f, '__qualname__', f)}(): {exc}") from None
        bound.apply_defaults()
        if names is not None and any(structured.structured(bound.arguments[n])
                                     for n in names):
            return _flat_entry(f, dict(bound.arguments), names, isinstance(wrt, tuple),
                               entry, lambda g, leaves: _taped(g, leaves, entry))
        value, gradient = tape_grad(f, bound.args, wrt, bound.kwargs)
        if names is not None:  # (each gradient with its argument's type, as grad's)
            grads = typed_gradients(bound.arguments, names,
                                    gradient if isinstance(wrt, tuple) else (gradient,))
            gradient = tuple(grads) if isinstance(wrt, tuple) else grads[0]
        return (value, gradient) if with_value else gradient

    taped.__s2sad__ = "tape"
    return taped


def _flat_entry(f, arguments, names, as_tuple, entry, make):
    """`grad` or `value_and_grad` (by ``make(function, wrt)``, another mode's) of `f`
    at `arguments`, where containers are among `names`: the same entry of the
    function specialised on them, its gradients built back in their structures."""
    flat = structured.Flat(f, arguments, names, entry)
    leaves = flat.wrt()
    with flat.naming():
        args, keywords = flat.split_args()
        result = make(flat.flat, leaves)(*args, **keywords)
    value, grads = result if entry == "value_and_grad" else (None, result)
    grads = flat.regroup(grads, leaves)
    grads = tuple(grads) if as_tuple else grads[0]
    return (value, grads) if entry == "value_and_grad" else grads


def _by_forward_mode(f, wrt, entry):
    """`grad(f, wrt, mode="forward")`: the gradient from one forward pass per input
    number (the compiler's forward mode, see `forward`)."""
    check_function(f, entry)
    names, as_tuple = normalize_wrt(f, wrt)

    @functools.wraps(f)
    @public
    def by_forward_mode(*args, **kwargs):
        arguments = bind(f, args, kwargs, entry)
        if structured.flat_needed(arguments, names, f):
            return _flat_entry(f, arguments, names, as_tuple, entry,
                               lambda g, leaves: _by_forward_mode(g, leaves, entry))
        value, gradient = value_and_grad_by_forward_mode(f, names, as_tuple, args, kwargs)
        return (value, gradient) if entry == "value_and_grad" else gradient

    by_forward_mode.__s2sad__ = "forward"
    return by_forward_mode


# --------------------------------------------------------------------- vjp


@public
def vjp(f, *primals, checkpoint=None, snapshots=None):
    """``(out, pullback)``: `f` evaluated at `primals`, and a function that maps an
    adjoint of `out` (same structure as `out`) to one adjoint per positional argument,
    with its argument's type (``None`` for an argument that is held fixed: an integer,
    a bool, an array of integers, None, a random generator). An argument that is none
    of those nor a float, a float array, or a container of them (a string, a complex
    number, another library's array) is refused. `checkpoint` and `snapshots` as for
    `grad`."""
    plain, bound, keywords = unbound(f)
    # (a bound method, a callable object, a partial: its keywords passed by position
    # after the primals, held fixed as its bound arguments are)
    after = keywords_by_position(plain, len(bound) + len(primals), keywords) \
        if plain is not f else None
    if after is not None:
        names = signature_params(plain)[0]
        n = len(bound) + len(primals)
        out, pullback = vjp_of(plain, bound + primals + after, checkpoint, snapshots,
                               held=tuple(names[:len(bound)]) + tuple(names[n:n + len(after)]))
        return out, public(lambda out_bar: pullback(out_bar)[len(bound):n])
    if plain is not f and keywords:
        raise keywords_refusal(plain, keywords, "vjp")
    return vjp_of(f, primals, checkpoint, snapshots)


def vjp_of(f, primals, checkpoint=None, snapshots=None, held=(), structures=False,
           keywords=None):
    """`vjp`; the parameters named in `held` are held fixed whatever they are (with
    None as their adjoints), as `jacobian(mode="reverse")` holds its options, and so
    are the keyword-only ones `keywords` gives values (passed by keyword; the
    pullback gives adjoints for `primals` only). With `structures`, containers the
    function builds and returns are followed even where no argument is one
    (`structured.Flat`)."""
    ckpt = checkpoint_option(checkpoint, snapshots, "vjp")
    check_function(f, "vjp")
    names, n_pos = signature_params(f)
    if len(primals) > n_pos:
        raise WrtError(f"vjp got {len(primals)} arguments; {f.__qualname__} takes at most {n_pos}")
    keywords = keywords or {}
    held = tuple(held) + tuple(keywords)
    values = {**dict(zip(names, primals)), **keywords}
    if len(primals) < n_pos and any(structured.static_callable(v) for v in (
            *primals, *(f.__defaults__ or ()))):  # (def f(x, act=np.tanh), or f(x, np.sin))
        omitted = dict(list(bind(f, primals, {}, "vjp").items())[len(primals):n_pos])
        out, pullback = _structured_vjp(f, {**dict(zip(names, primals)), **omitted, **keywords},
                                        checkpoint, snapshots, tuple(held) + tuple(omitted))
        return out, public(lambda out_bar: pullback(out_bar)[:len(primals)])
    if structures or any(structured.structured(v) for v in values.values()) or any(
            structured.static_callable(v) for v in values.values()):
        out, pullback = _structured_vjp(f, values, checkpoint, snapshots, held)
        return (out, pullback) if not keywords else \
            (out, public(lambda out_bar: pullback(out_bar)[:len(primals)]))
    kinds = with_attributes(f, with_shapes({n: kind_of(v) for n, v in values.items()}, values),
                            values)
    for name, value in values.items():
        if name in held or fixed_argument(value) or isinstance(value, RANDOM_OWNERS) or \
                differentiable(kinds[name]) and \
                numeric_kind(kinds[name]) and not complex_value(value):
            continue
        if complex_value(value):
            raise complex_refusal(f"vjp of {f.__qualname__} at `{name}`", value, f)
        what = type(value).__name__
        if type(value).__module__ == "numpy" and what == "ndarray":
            what = f"array of {value.dtype}"
        raise WrtError(
            f"vjp of {f.__qualname__}: `{name}` is {'an' if what[0] in 'aeiou' else 'a'} "
            f"{what}; vjp gives an adjoint for every positional argument that is a float, "
            "a float array, or a list or tuple of those, and None for one held fixed (an "
            "integer, a bool, an array of integers, None)",
            hint=f"Leave `{name}` out of the arguments: take the vjp of a function that "
                 f"gets it from outside (a closure or a default value).", **at_def(f))
    wrt = tuple(n for n in names[: len(primals)]
                if n not in held and differentiable(kinds[n]))
    try:
        with dispatch.lock:
            unit, compiled = dispatch.compiled_reverse(f, wrt, "vjp", kinds, True, ckpt)
            made = compile_mod.bind(unit, compiled)
    except NotDifferentiableError as refused:
        # (a dict, namedtuple or dataclass the function builds and returns, with no
        # container among the arguments: followed as `has_aux` and `jacobian` follow
        # it; where that is refused too, the first refusal says why)
        if not structured.may_return_container(f):
            raise
        try:
            out, pullback = _structured_vjp(f, values, checkpoint, snapshots, held)
            return (out, pullback) if not keywords else \
                (out, public(lambda out_bar: pullback(out_bar)[:len(primals)]))
        except Exception:  # (whatever stops it, the first refusal says why)
            raise refused from None
    fwd, bwd = (made[n] for n in unit.entry)
    runs = repeats.Repeats(f, values, "vjp")  # (a pullback called again runs f again)
    runs.rewind()
    try:
        out, saved = fwd(*primals, **keywords)
    except Exception as exc:
        compile_mod.explain(exc)
        raise
    if unit.restores:  # (the backward sweep may put back what a callee wrote into its
        out = _copy_arrays(out)  # result: the caller's output must not change with it)
    runs.same(out)
    # (what it saved, the same on a second run: else a pullback called again refuses)
    repeatable = []
    if runs.draws:
        try:
            runs.again(lambda: fwd(*primals, **keywords), (out, saved))
            repeatable.append(True)
        except S2SADError:
            pass
    positions = [names.index(n) for n in wrt]
    retyped = [i for i in positions if retyped_list(primals[i])]
    state = [saved]

    @public
    def pullback(out_bar):
        out_bar = _zero_dim_seed(out, out_bar)
        if not _fits(out, out_bar):
            raise S2SADError(f"the pullback of {f.__qualname__} takes an adjoint with the "
                             f"structure of its output {out!r}; got {out_bar!r}",
                             hint="Pass a tuple for a tuple, a list of the same length for "
                                  "a list, a number for a number.")
        # the backward sweep consumes what the forward sweep saved (its tapes, the
        # slots it restores into arrays): a second call runs the forward sweep again
        try:
            if state:
                saved = state.pop()
            else:
                if runs.draws and not repeatable:
                    raise runs.mixed()
                with runs.apart():  # (the draws of the first run, if it draws)
                    again, saved = fwd(*primals, **keywords)
                runs.same(again)
            grads = bwd(saved, out_bar)
        except Exception as exc:
            compile_mod.explain(exc)
            raise
        result = [None] * len(primals)
        for i, g in zip(positions, grads):
            # (a float's adjoint is a float, also where the seed was a 0-d array and
            # the output's adjoint went through NumPy, as in np.where(c, s + 2.0, 0.5))
            result[i] = g if type(primals[i]) is not float or type(g) is float else \
                typed_like(g, primals[i])
        if retyped:  # (list elements: see retyped_list)
            for i, g in zip(retyped, typed_gradients(values, [names[i] for i in retyped],
                                                     [result[i] for i in retyped])):
                result[i] = g
        # (an adjoint that is the seed itself, `x + y`'s: a copy of it)
        if type(out_bar) is np.ndarray:
            if any(g is out_bar or type(g) is list for g in result):
                result = _copy_arrays(result, {id(out_bar)})
        elif isinstance(out_bar, (list, tuple, dict)):
            result = _copy_arrays(result, {id(v) for v in trees.tree_leaves(out_bar)
                                           if isinstance(v, np.ndarray)})
        return tuple(result)

    return out, pullback


def _structured_vjp(f, values, checkpoint, snapshots, held):
    """`vjp_of` where containers are among the primals (`structured.Flat`): the
    output, the seed and the adjoints in their structures."""
    names = tuple(n for n in values if not structured.static_callable(values[n]))
    flat = structured.Flat(f, values, names, "vjp")
    leaves = tuple(flat.values)
    fixed = tuple(m for n in flat.specs for m in flat.leaves[n]
                  if m not in flat.differentiable_leaves(n))  # (ints, strings: None)
    with flat.naming():
        args, keywords = flat.split_args()
        n_pos = len(args)
        out, pullback_flat = vjp_of(flat.flat, args, checkpoint, snapshots,
                                    tuple(held) + fixed, keywords=keywords)

    @public
    def pullback(out_bar):
        seed = flat.output_leaves(out_bar, f"the adjoint passed to the pullback of "
                                           f"{f.__qualname__}")
        adjoints = iter(flat.regroup(tuple(pullback_flat(seed)) + (None,) * (
            len(leaves) - n_pos), leaves))  # (None for the keyword-only ones)
        return tuple(None if n in flat.statics else next(adjoints) for n in values)

    return flat.output(out), pullback


def _copy_arrays(tree, which=None):
    """`tree` (a value, or lists, tuples, dicts of them) rebuilt with a copy of each of
    its arrays (with `which`, of those whose id is in it)."""
    return trees.tree_map(lambda v: v.copy() if isinstance(v, np.ndarray) and (
        which is None or id(v) in which) else v, tree)


def _zero_dim_seed(out, out_bar):
    """A number given as the adjoint of a 0-d NumPy array output (``np.tensordot``
    of all axes, ``x @ y`` of vectors as an array), as such an array of its dtype;
    `out_bar` itself otherwise."""
    if type(out) is np.ndarray and out.shape == () and \
            isinstance(out_bar, (int, float, np.number)) and not isinstance(out_bar, bool):
        return np.asarray(out_bar, dtype=out.dtype)
    return out_bar


def _fits(out, out_bar) -> bool:
    """Has the seed `out_bar` the structure of the output `out` (tuples and lists
    of the same length, all the way down)?"""
    if isinstance(out, (tuple, list)):
        return isinstance(out_bar, (tuple, list)) and len(out_bar) == len(out) and \
            all(_fits(o, b) for o, b in zip(out, out_bar))
    if type(out).__module__ == "numpy" and type(out).__name__ == "ndarray":
        return getattr(out_bar, "shape", None) == out.shape
    return not isinstance(out_bar, (tuple, list))


# ------------------------------------------------------------------ source


@public
def source(f, mode="reverse", wrt=0, stage="reverse", example=None, checkpoint=None,
           snapshots=None) -> str:
    """The text s2sad emits for `f` at `stage` (``source``, ``anf``, ``dup``,
    ``activity``, ``reverse`` or ``forward``), formatted with black. With
    ``mode="forward"`` the derivative shown is the forward-mode one (``f_jvp``).

    The derivative depends on the kinds of the arguments (float, int, list). Give
    `example`, a tuple of example arguments, to see the code a call with such
    arguments runs; without it every parameter is taken to be a float, except those
    the function indexes, measures with len(), sums or appends to, which are taken
    to be lists of floats. `checkpoint` and `snapshots` as for `grad`: the code
    shows which loops a scheduler (`ckpt.forward`) runs and which keep a tape."""
    f = unwrapped(f)
    flat = _flat_example(f, wrt, example, stage, "source")
    if flat is not None and stage == "reverse" and mode == "reverse":
        # (the gradient of the function specialised on the containers, shown taking
        # them: what the dispatcher runs around it)
        leaves = flat.wrt()
        text = emitted(f, mode, wrt, stage, example, checkpoint, snapshots)[0].text
        return format_code(structured.structured_text(text, flat, leaves,
                                                      f"{f.__name__}_grad"))
    text = emitted(f, mode, wrt, stage, example, checkpoint, snapshots)[0].text
    return text if stage == "source" else format_code(text)


def emitted(f, mode="reverse", wrt=0, stage="reverse", example=None, checkpoint=None,
            snapshots=None, entry="source"):
    """What `source` shows, before black: ``(printed, users)``, the `emit.Printed`
    (the text and the user line of each of its lines) and the user function each of
    its functions comes from (IR name -> function; empty for ``stage="source"``).
    Errors name the caller as `entry`."""
    if mode not in ("reverse", "forward"):
        raise S2SADError(f"mode={mode!r} is not a mode of the compiler; use \"reverse\" or "
                         "\"forward\"")
    if mode == "forward" and stage == "reverse":
        stage = "forward"
    ckpt = checkpoint_option(checkpoint, snapshots, entry, mode)
    f = unwrapped(f)
    if ckpt is not None and stage != "reverse":
        raise S2SADError(f"{entry}(checkpoint=...) changes the reverse stage only, not "
                         f"stage={stage!r}")
    check_function(f, entry)
    if stage == "source":
        return emit.Printed(parse.user_source(f)), {}
    flat = _flat_example(f, wrt, example, stage, entry)
    if flat is not None:  # (containers among the example's `wrt`: the flat function's)
        f, wrt, example = flat.flat, flat.wrt(), tuple(flat.args())
    wrt_names, as_tuple = normalize_wrt(f, wrt)
    with dispatch.lock:  # (the pipeline runs under the lock, as on a cache miss)
        if example is not None:
            names, _ = signature_params(f)
            kinds = with_attributes(f, stages.kinds_of_example(f, example),
                                    dict(zip(names, example)))
            argument_kinds(f, {n: v for n, v in zip(names, example)}, wrt_names, entry)
        else:
            kinds = stages.assumed_kinds(f)
        if stage in ("reverse", "forward"):
            unit = builder.reverse_unit(f, wrt_names, "grad", kinds, as_tuple, ckpt) \
                if stage == "reverse" else builder.forward_unit(f, wrt_names, kinds)
            return unit.printed, {uf.fn.name: uf.user for uf in unit.functions}
        if stage not in stages.STAGES:
            raise S2SADError(f"unknown stage {stage!r}; choose one of "
                             f"{', '.join(stages.STAGES)}")
        module = stages.stage_module(f, stage, wrt_names, kinds)
        module.imports = emit.module_imports(module, {}, {fn.name: f for fn in module.functions})
        return emit.emit_module(module), {fn.name: f for fn in module.functions}


def _flat_example(f, wrt, example, stage, entry):
    """`structured.Flat` of `f` at `example` where it holds containers among `wrt`,
    else None."""
    if example is None or stage == "source" or not isinstance(example, (tuple, list)):
        return None
    check_function(f, entry)
    wrt_names, _ = normalize_wrt(f, wrt)
    names, _ = signature_params(f)
    values = dict(zip(names, example))
    if not structured.flat_needed(values, wrt_names, f):
        return None
    return structured.Flat(f, values, wrt_names, entry)


def format_code(text: str) -> str:
    """`text` as black formats it (our emitter already writes black's style, so this
    only changes lines longer than 88 characters)."""
    try:
        import black  # (only here: it is slow to import, and only `source` uses it)
    except ImportError:  # pragma: no cover - black is a dependency
        return text
    try:
        return black.format_str(text, mode=black.Mode())
    except Exception:  # pragma: no cover - never hide the code because of the formatter
        return text
