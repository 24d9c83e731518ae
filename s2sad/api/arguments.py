"""The arguments of the entry points: which parameters `wrt` names, how a call's
arguments bind to `f`'s parameters, their kinds (what a derivative is specialised
on, refusing an argument that carries no derivative as `wrt`), and the types the
derivatives of arguments are given back with (`typed_like`). Also the checks of
the options every entry point shares (`mode=`, ``checkpoint=``), the refusal of a
function s2sad made (``grad(f)``, ...) where a user's function is needed, and
`public`, which every entry point and every function one returns wears: an
`S2SADError` leaves it with the user's frames only (`errors.user_traceback`), and
a keyword it does not take (JAX's ``argnums``, ``has_aux``) is an `OptionError`
that says what to write instead.

Imports `stages` (the gradient types) and the layers below; nothing else in
`api`.
"""

from __future__ import annotations

import functools
import importlib
import inspect
import linecache
import types

import numpy as np

from ..checkpoint import SCHEDULES
from ..analysis.attributes import attribute_names
from ..driver import stages
from ..frontend import source
from ..frontend.defaults import values as default_values
from ..errors import (ComplexArgumentError, IntegerArgumentError, NotDifferentiableError,
                      OptionError, S2SADError, WrtError, user_traceback)
from ..ir.kinds import (INT, ITEMS, NAMESPACES, SCALAR, UNKNOWN, ArrayKind, ListKind,
                        ObjectKind, differentiable, dtype_name, held_attributes, kind_of,
                        libraries_in, opaque, with_shapes)

# -------------------------------------------------------------- parameters


def at_def(f) -> dict:
    """Error location keywords pointing at the `def` line of `f`."""
    code = f.__code__
    line = code.co_firstlineno
    text = linecache.getline(code.co_filename, line)
    while text.lstrip().startswith("@"):
        line += 1
        text = linecache.getline(code.co_filename, line)
    return dict(filename=code.co_filename, lineno=line, source_line=text or None,
                col=(len(text) - len(text.lstrip())) if text else None)


def signature_params(f):
    """``(parameter names, number of positional ones)`` of `f`; a function that takes
    ``*args`` or ``**kwargs`` is refused."""
    code = f.__code__
    n_pos = code.co_argcount
    n_kw = code.co_kwonlyargcount
    names = code.co_varnames[: n_pos + n_kw]
    if code.co_flags & (inspect.CO_VARARGS | inspect.CO_VARKEYWORDS):
        if callable(getattr(f, "__wrapped__", None)):
            source.check_wrapper(f)  # (a decorator's wrapper that does more: its own words)
        raise WrtError(
            f"s2sad cannot differentiate {f.__qualname__}: it takes *args or **kwargs",
            hint="List the parameters one by one.", **at_def(f),
        )
    return list(names), n_pos


def normalize_wrt(f, wrt):
    """(`wrt` as a tuple of parameter names, whether the caller asked for a tuple)."""
    names, n_pos = signature_params(f)
    as_tuple = isinstance(wrt, (tuple, list))
    items = list(wrt) if as_tuple else [wrt]
    if not items:
        raise WrtError(f"wrt=() asks for no gradient of {f.__qualname__}",
                       hint=f"Name a parameter: one of {', '.join(names)}.", **at_def(f))
    out = []
    for item in items:
        if isinstance(item, bool) or not isinstance(item, (int, str)):
            raise WrtError(f"wrt must be a parameter position, a parameter name or a tuple "
                           f"of them; got {item!r}",
                           hint=f"The parameters of {f.__qualname__} are {', '.join(names)}.",
                           **at_def(f))
        if isinstance(item, int):
            if not -n_pos <= item < n_pos:
                raise WrtError(
                    f"wrt={item} is out of range: {f.__qualname__} has {n_pos} positional "
                    f"parameter{'s' if n_pos != 1 else ''} ({', '.join(names[:n_pos])})",
                    hint="Positions count from 0.", **at_def(f))
            name = names[item % n_pos]
        else:
            if item not in names:
                raise WrtError(f"wrt={item!r} is not a parameter of {f.__qualname__}",
                               hint=f"Its parameters are {', '.join(names) or 'none'}.",
                               **at_def(f))
            name = item
        if name in out:
            raise WrtError(f"wrt names the parameter {name!r} twice", **at_def(f))
        out.append(name)
    return tuple(out), as_tuple


_MADE = {"forward": 'grad(f, mode="forward")', "tape": 'grad(f, mode="tape")'}


def refuse_derived(g, what):
    """Raise a clear error if `g` is a function s2sad made (``grad(f)``,
    ``derivative(f)``, ``hessian(f)``, ...) rather than one the user wrote: it names
    the user's function at its `def` and says which second derivatives there are."""
    marker = getattr(g, "__s2sad__", None)
    if marker is None:
        return
    user = getattr(marker, "f", None) or getattr(g, "__wrapped__", None)
    made = getattr(marker, "entry", marker)
    made = _MADE.get(made, made if "(" in str(made) else f"{made}(f)")
    name = getattr(user, "__qualname__", None) or getattr(g, "__qualname__", "f")
    where = at_def(user) if isinstance(user, types.FunctionType) else {}
    raise S2SADError(
        f"{what} of {made} for {name}: s2sad differentiates the functions you write, "
        "not the derivative functions it made from them",
        hint="For second derivatives of f use s2sad.hessian(f), s2sad.hvp(f), or "
             "s2sad.grad(s2sad.grad(f)) when the gradient is one number; third "
             "derivatives are not supported.", **where)


def mark_made(g, f, what):
    """`g`, a function s2sad made from the user's `f`, as users get it: `public`, and
    marked as made (see `refuse_derived`)."""
    g = public(g)
    g.__s2sad__ = what
    g.__wrapped__ = f
    return g


def check_function(f, what):
    """Refuse anything `what` cannot differentiate from its source: a function s2sad
    made, a bound method, a callable that is not a Python function."""
    refuse_derived(f, what)  # (names the user's function, at its def)
    if isinstance(f, types.MethodType):
        raise S2SADError(f"{what} needs a plain function; got the bound method {f!r}",
                         hint="Differentiate a module-level function that takes the object's "
                              "values as arguments.")
    if not isinstance(f, types.FunctionType):
        raise S2SADError(f"{what} needs a Python function written with `def`; got {f!r}",
                         hint="For a built-in or C function, register a derivative rule "
                              "with s2sad.register_rule instead.")


def bind(f, args, kwargs, what, hint=None) -> dict:
    """Every parameter of `f` with its value in this call, in signature order (a
    keyword argument binds as Python binds it, a missing one takes its default)."""
    refuse_derived(f, what)
    check_function(f, what)
    signature_params(f)  # (refuses *args and **kwargs)
    sig = inspect.signature(f)
    try:
        bound = sig.bind(*args, **kwargs)
    except TypeError as exc:
        raise S2SADError(f"{what} of {f.__qualname__}: the arguments do not fit its "
                         f"parameters: {exc}", hint=hint, **at_def(f)) from None
    bound.apply_defaults()
    return {p: bound.arguments[p] for p in sig.parameters}


def split_arguments(f, arguments: dict) -> tuple:
    """``(positional values, keyword-only ones by name)`` of `arguments` (from `bind`,
    in `f`'s order) for a call of `f`."""
    items = list(arguments.items())
    n_pos = f.__code__.co_argcount
    return [v for _, v in items[:n_pos]], dict(items[n_pos:])


def call_with(f, arguments: dict):
    """`f` called with `arguments` (from `bind`), keyword-only ones by keyword."""
    args, keywords = split_arguments(f, arguments)
    return f(*args, **keywords)


# ------------------------------------------------------------------ kinds


def argument_kinds(f, values: dict, wrt, what):
    """The kinds of the arguments `values` (with their shapes' labels,
    `with_shapes`), the derivative is specialised on; an argument in `wrt` that
    carries no derivative (an integer, an integer array, a string) is refused, and
    so is an array of a library s2sad does not differentiate yet (`LIBRARIES`), and a
    Dask array whose shape is not known."""
    kinds = {}
    for name, value in values.items():
        kind = kind_of(value)
        if isinstance(kind, ArrayKind) and kind.xp is not None and \
                any(n != n for n in value.shape):
            raise WrtError(
                f"{what} of {f.__qualname__}: the {kind.xp} array `{name}` has axes of "
                f"unknown length (shape {value.shape}), and s2sad specialises derivatives "
                "on which axes have length 1 and which are equal",
                hint=f"Call {name}.compute_chunk_sizes() first.", **at_def(f))
        if isinstance(kind, ArrayKind) and kind.xp == "torch" and value.device.type != "cpu":
            raise WrtError(
                f"{what} of {f.__qualname__}: the tensor `{name}` is on {value.device}, and "
                "s2sad differentiates PyTorch tensors on the CPU only, for now (the arrays "
                "a derivative makes, and the NumPy constants it reads, are on the CPU)",
                hint=f"Pass {name}.cpu(), or NumPy arrays (docs/guide/arrays.md).",
                **at_def(f))
        if name in wrt and complex_value(value):
            raise complex_refusal(f"{what} of {f.__qualname__} with respect to `{name}`",
                                  value, f)
        if name in wrt and opaque(kind) and _foreign_array(value):
            library = type(value).__module__.partition(".")[0]
            raise WrtError(
                f"{what} of {f.__qualname__} with respect to `{name}`: it is an array of "
                f"{library}, and s2sad differentiates NumPy, Dask, JAX, PyTorch and "
                "array-api-strict arrays only, for now",
                hint="Pass a NumPy array (docs/guide/arrays.md says which array libraries "
                     "work and which do not yet).", **at_def(f))
        if name in wrt:
            if isinstance(kind, ArrayKind) and kind.dtype in ("i", "b"):
                raise IntegerArgumentError(
                    f"{what} of {f.__qualname__} with respect to `{name}`: it is an array of "
                    f"{value.dtype}, and gradients are taken with respect to real numbers",
                    hint=f"Pass a float array: {name}.astype(float).", **at_def(f))
            if kind == INT:
                raise IntegerArgumentError(
                    f"{what} of {f.__qualname__} with respect to `{name}`: its value "
                    f"{value!r} is an integer, and gradients are taken with respect to "
                    "real numbers",
                    hint=f"Pass a float (for example {float(value)!r} instead of {value!r}), "
                         "or take the gradient with respect to another parameter.",
                    **at_def(f))
            if (type(value).__module__ or "").startswith("s2sad.engines"):
                raise NotDifferentiableError(
                    f"{what} of {f.__qualname__} is called with the tape or dual engine's "
                    f"traced value for `{name}`: s2sad does not yet differentiate through "
                    "the derivatives it made", hint="Write that derivative as a function of "
                    "yours, or use s2sad.hvp or s2sad.hessian of the function itself.",
                    **at_def(f))
            if not differentiable(kind) or isinstance(kind, tuple):
                raise WrtError(
                    f"{what} of {f.__qualname__} with respect to `{name}`: its value is a "
                    f"{type(value).__name__}, and s2sad differentiates with respect to "
                    "floats",
                    hint="Pass a float, a float array, or a container of them (a dict, list, "
                         "tuple, namedtuple or dataclass; another class after "
                         "s2sad.register_container).", **at_def(f))
        kinds[name] = kind
    refuse_mixed_libraries(f, kinds, what)
    return with_attributes(f, with_shapes(kinds, values), values)


def with_attributes(f, kinds: dict, values: dict) -> dict:
    """`kinds`, where an argument is an object of the user's (`ObjectKind`), with the
    kinds of the numbers and arrays it holds that a call of `f` may read
    (`attributes.attribute_names`, `held_attributes`): the derivative is specialised
    on them as on its arguments' kinds, where nothing the call runs can rebind them
    (`stages.held_or_not`)."""
    held = held_kinds(f, {n: values[n] for n, k in kinds.items() if isinstance(k, ObjectKind)})
    return {n: ObjectKind(k.cls, held[n]) if n in held else k for n, k in kinds.items()}


def held_kinds(f, objects: dict) -> dict:
    """Of the objects of the user's among a call's arguments (`objects`: name ->
    value), the kinds of what each holds that a call of `f` may read
    (`attributes.attribute_names`, `held_attributes`), by name, for those that hold
    any: what `with_attributes` and the dispatcher's signature take."""
    if not objects:
        return {}
    names = attribute_names(f, tuple(dict.fromkeys(map(type, objects.values()))))
    return {n: held for n, v in objects.items() if (held := held_attributes(v, names))}


def refuse_mixed_libraries(f, kinds: dict, what):
    """Refuse arguments that are arrays of two libraries other than NumPy (a JAX and a
    Dask array), which cannot be mixed in one computation (NumPy arrays mix with
    those), and NumPy arrays beside PyTorch tensors (which do not mix), naming them
    (`WrtError`)."""
    libraries = set().union(*map(libraries_in, kinds.values())) if kinds else set()
    if len(libraries) > 1:
        named = ", ".join(f"`{n}` ({'/'.join(sorted(libraries_in(k)))})"
                          for n, k in kinds.items() if libraries_in(k))
        raise WrtError(
            f"{what} of {f.__qualname__}: its arguments are arrays of different libraries "
            f"({named}), which cannot be mixed in one computation",
            hint="Convert them to one library (NumPy arrays mix with any).", **at_def(f))
    if "torch" in libraries and any(map(_numpy_array, kinds.values())):
        named = [f"`{n}`" for n, k in kinds.items() if _numpy_array(k)]
        raise WrtError(
            f"{what} of {f.__qualname__}: {', '.join(named)} "
            f"{'hold' if len(named) > 1 else 'holds'} NumPy arrays and other arguments are "
            "PyTorch tensors, which do not mix with NumPy arrays (an array @ a tensor "
            "raises)",
            hint="Convert the NumPy arrays with torch.as_tensor(...) (no copy), or pass "
                 "NumPy arrays throughout.", **at_def(f))


def _numpy_array(kind) -> bool:
    """Does `kind` (an argument's) hold a NumPy array?"""
    if isinstance(kind, ArrayKind):
        return kind.xp is None
    if isinstance(kind, ListKind):
        return _numpy_array(kind.elem) or any(map(_numpy_array, kind.items or ()))
    return isinstance(kind, tuple) and any(map(_numpy_array, kind))


def _foreign_array(value) -> bool:
    """Does `value` look like another library's array (a shape and a dtype)?"""
    return hasattr(value, "shape") and hasattr(value, "dtype") and hasattr(value, "ndim")


def complex_value(value) -> bool:
    """Does `value` hold a complex number (`ComplexArgumentError.holds`)?"""
    return ComplexArgumentError.holds(value)


def complex_refusal(what: str, value, f) -> ComplexArgumentError:
    """The error for a complex `value` where a derivative is asked for (`what` says
    where: "grad of f with respect to `z`"), at `f`'s `def`."""
    where = at_def(f) if isinstance(f, types.FunctionType) else {}
    return ComplexArgumentError.of(what, value, **where)


def fixed_argument(value) -> bool:
    """Is `value` an argument that has no derivative and needs none: an integer, a
    bool, None, or a list, tuple or array of integers or bools? (Its adjoint is None,
    and grad refuses it as `wrt`.)"""
    if value is None:
        return True
    kind = kind_of(value)
    return not differentiable(kind) and numeric_kind(kind)


def numeric_kind(kind) -> bool:
    """Is `kind` a number's, or a list's, tuple's or array's of numbers (not a
    complex array, a string, an object)?"""
    if isinstance(kind, tuple):
        return all(numeric_kind(k) for k in kind)
    if isinstance(kind, ListKind):  # (its elements one by one where it lists them)
        return numeric_kind(kind.elem) if kind.items is None else \
            all(numeric_kind(k) for k in kind.items)
    if isinstance(kind, ArrayKind):
        return kind.dtype != "c" and kind.dtype != "?"
    return kind in (SCALAR, INT, UNKNOWN)


def retyped_list(x) -> bool:
    """Is `x` a list whose elements' gradients need their types put back (a 0-d
    array's gradient may come out a NumPy scalar, a float32 array's float64)? The
    compiled gradient types each argument by its kind, and a list's kind does not
    tell its elements' dtypes; the dispatcher (which sees the values) does it. The
    kind tells the elements' shapes only for a list of at most `ITEMS` elements
    (`ListKind.items`): in a longer one, an array nothing reads gets 0.0, which
    `typed_like` makes zeros of its shape."""
    if type(x) is not list:
        return False
    if len(x) > ITEMS and any(getattr(e, "ndim", 0) for e in x):
        return True
    for e in x:
        if type(e) is list and retyped_list(e) or getattr(e, "ndim", None) == 0 or \
                getattr(e, "dtype", None) is not None and getattr(e, "ndim", 0) and \
                dtype_name(e.dtype) != "float64":
            return True
    return False


def typed_like(g, x, narrow=False):
    """`g`, a derivative computed for the argument `x` (its gradient, a tangent of its
    shape, a Jacobian or Hessian block), with `x`'s type, by the rule the compiled
    gradient follows (`stages.gradient_cast`): a float32 array's is float32, a 0-d
    array's a 0-d array, a float's a float when some argument is a narrower array
    (`narrow`, `stages.narrow_arrays`). A list's, element by element; None stays
    None."""
    if g is None:
        return None
    if isinstance(x, list) and isinstance(g, list) and len(g) == len(x):
        return [typed_like(e, v, narrow) for e, v in zip(g, x)]
    if isinstance(x, tuple) and isinstance(g, tuple) and len(g) == len(x):
        return tuple(typed_like(e, v, narrow) for e, v in zip(g, x))
    kind = kind_of(x)
    if isinstance(kind, ArrayKind) and kind.xp in NAMESPACES and type(g) in (float, int) \
            and (kind.ndim == 0 or g == 0):
        # (a number where the argument is a JAX, PyTorch or array-api-strict array: the
        # seed of `return s`, the zero of an array nothing read)
        return importlib.import_module(NAMESPACES[kind.xp]).full(x.shape, g, dtype=x.dtype)
    if isinstance(kind, ArrayKind):
        kind = with_shapes({"x": kind}, {"x": x})["x"]
        if kind.ndim and type(g) in (float, int) and g == 0:
            # (an element of a long list that nothing read: see retyped_list)
            g = np.zeros_like(x, float)
    cast = stages.gradient_cast(kind, narrow)
    if cast == "float" or kind == SCALAR and not isinstance(g, float) \
            and _one_number(g):
        # (forward mode carries a number's tangent through NumPy calls that return 0-d
        # arrays, ``np.where(c, s_dot, 0.0)``, or NumPy scalars of a narrower dtype;
        # the compiled gradient's own code avoids both: `gradient_cast` is None there)
        return float(g)
    if cast is not None and isinstance(kind, ArrayKind) and kind.xp in NAMESPACES:
        xp = importlib.import_module(NAMESPACES[kind.xp])  # (a tensor's: not NumPy's)
        return xp.asarray(g, dtype=getattr(xp, cast))
    if cast is not None:
        return np.asarray(g, getattr(np, cast))
    return g


def _one_number(g) -> bool:
    """Is `g` one real number of any type (a 0-d array, a NumPy scalar, an int)?"""
    return isinstance(g, (int, np.ndarray, np.number)) and np.ndim(g) == 0 \
        and not np.iscomplexobj(g)


def typed_gradients(arguments: dict, names, grads) -> list:
    """The gradients `grads` of the arguments `names` (of `arguments`, every argument
    of the call) with their arguments' types (`typed_like`)."""
    values = {n: v for n, v in arguments.items()}
    kinds = with_shapes({n: kind_of(v) for n, v in values.items()}, values)
    narrow = stages.narrow_arrays(kinds)
    return [typed_like(g, arguments[n], narrow) for n, g in zip(names, grads)]


# ---------------------------------------------------------------- options


def public(fn):
    """`fn`, an entry point (``grad``, ``jacobian``, ...) or a function one returns,
    as users call it: an `S2SADError` that leaves it has s2sad's own frames taken
    out of its traceback (`user_traceback`), so the user's call is the last frame
    shown; other exceptions pass untouched. An entry point (a function without
    ``**kwargs``) refuses a keyword it does not take with an `OptionError`
    (`refuse_options`). Not for the dispatcher ``grad`` generates, which does the
    same in its own error path and adds no call."""
    signature = inspect.signature(fn)
    params = signature.parameters
    checks = not any(p.kind is p.VAR_KEYWORD for p in params.values())

    @functools.wraps(fn)
    def entry(*args, **kwargs):
        try:
            if checks and kwargs and not params.keys() >= kwargs.keys():
                refuse_options(fn.__name__, signature, kwargs)
            return fn(*args, **kwargs)
        except S2SADError as exc:
            user_traceback(exc)
            raise  # (a bare raise adds no frame: the traceback stays as trimmed)

    return entry


def refuse_options(name, signature, kwargs):
    """Raise an `OptionError` for the first keyword in `kwargs` that the entry point
    `name` (with `signature`) does not take, saying what s2sad calls JAX's keywords
    or that it does not support them yet."""
    key = next(k for k in kwargs if k not in signature.parameters)
    value = kwargs[key]
    where = f"{name}({key}={value!r})"
    takes_wrt = "wrt" in signature.parameters
    if key == "argnums" and takes_wrt:
        valid = isinstance(value, int) and not isinstance(value, bool) or \
            isinstance(value, (tuple, list)) and value and \
            all(isinstance(v, int) and not isinstance(v, bool) for v in value)
        example = f"wrt={tuple(value) if isinstance(value, list) else value!r}" \
            if valid else 'wrt=0, wrt="x" or wrt=(0, "y")'
        raise OptionError(
            f"{where}: argnums is JAX's name for it; s2sad calls it `wrt`",
            hint=f"Write {example}: wrt takes a parameter's position, its name, or a "
                 "tuple of them (then the derivative is a tuple).")
    if key == "argnums":
        raise OptionError(
            f"{where}: {name} takes no argnums; it differentiates with respect to "
            "every positional argument that is a float, a float array or a list of them",
            hint="To hold an argument fixed, pass it as an integer, or take it from "
                 "outside (a closure or a default value).")
    if key == "has_aux":
        raise OptionError(
            f"{where}: {name} takes no has_aux; grad and value_and_grad do "
            "(the function returns (value, aux))",
            hint="Use s2sad.grad(f, has_aux=True) or s2sad.value_and_grad(f, has_aux=True), "
                 "or differentiate a function that returns the value only.")
    if key == "holomorphic":
        raise OptionError(
            f"{where}: complex numbers are not supported yet, so there is no "
            "holomorphic mode", hint=ComplexArgumentError.HINT)
    if key == "allow_int":
        raise OptionError(
            f"{where}: s2sad takes derivatives with respect to floats only; an "
            "integer argument it does not differentiate with respect to is held fixed",
            hint="Leave integer parameters out of wrt, or pass them as floats.")
    params = [p for p in signature.parameters.values()
              if p.kind not in (p.VAR_POSITIONAL, p.VAR_KEYWORD)]
    raise OptionError(f"{name}() got an unexpected keyword argument {key!r}",
                      hint=f"Its parameters: {name}({', '.join(p.name for p in params)}).")


MODES = ("reverse", "forward", "tape")


def check_mode(mode, what):
    """Refuse a `mode` that is not one of `MODES`."""
    if mode in MODES:
        return
    raise S2SADError(f"{what} has no mode {mode!r}; the modes are \"reverse\" (the "
                     "compiler, the default), \"forward\" (the compiler's forward mode: "
                     "one pass per input number) and \"tape\" (the tape engine: runs the "
                     "function on traced values, no source needed)")


def checkpoint_option(checkpoint, snapshots, what, mode="reverse"):
    """``checkpoint=`` and ``snapshots=`` of `grad` and friends as the driver takes
    them: None, or ``(schedule, snapshots)``."""
    if checkpoint is None:
        if snapshots is not None:
            raise S2SADError(f"{what}(snapshots={snapshots!r}) needs a schedule",
                             hint='Add checkpoint="binomial" (or "ctz").')
        return None
    if checkpoint not in SCHEDULES:
        raise S2SADError(f"{what} has no checkpoint schedule {checkpoint!r}; the schedules "
                         f"are {', '.join(map(repr, SCHEDULES))}, or None (a tape)")
    if snapshots is not None and (isinstance(snapshots, bool) or not isinstance(
            snapshots, int) or snapshots < 1):
        raise S2SADError(f"{what}(snapshots={snapshots!r}): the number of snapshots is an "
                         "integer of at least 1")
    if mode != "reverse":
        raise S2SADError(f"{what}(checkpoint=...) checkpoints the loops of the compiled "
                         f"reverse mode, not mode={mode!r}")
    return (checkpoint, snapshots)


# ------------------------------------------------------- functions as values


def unbound(f):
    """``(function, leading arguments, keyword arguments)``: a bound method
    (``model.loss``), a `functools.partial` or a callable object (its ``__call__``)
    as the plain function it calls and the arguments bound to it; ``(f, (), {})``
    for anything else."""
    args, kwargs = (), {}
    for _ in range(16):
        if isinstance(f, types.MethodType) and isinstance(f.__func__, types.FunctionType):
            f, args = f.__func__, (f.__self__,) + args
        elif isinstance(f, functools.partial):
            args, kwargs = tuple(f.args) + args, {**f.keywords, **kwargs}
            f = f.func
        elif not isinstance(f, (types.FunctionType, type)) and callable(f) and isinstance(
                getattr(type(f), "__call__", None), types.FunctionType) and \
                getattr(f, "__s2sad__", None) is None:
            f, args = type(f).__call__, (f,) + args
        elif _passes_through(f):
            f = f.__wrapped__
        else:
            return f, args, kwargs
    return f, args, kwargs


def _passes_through(f) -> bool:
    """Is `f` a wrapper a decorator made with `functools.wraps` that only calls the
    function it wraps with its own arguments and returns the result (a timer, a
    logger: `source.check_wrapper`)? It is differentiated as that function, as a call
    of it inside a function is."""
    if not isinstance(f, types.FunctionType) or getattr(f, "__s2sad__", None) is not None \
            or not callable(getattr(f, "__wrapped__", None)):
        return False
    try:
        source.check_wrapper(f)
    except S2SADError:
        return False
    return True


def unwrapped(f):
    """`f`, or the function a decorator's pass-through wrapper of it wraps
    (`_passes_through`), through every such wrapper."""
    for _ in range(16):
        if not _passes_through(f):
            break
        f = f.__wrapped__
    return f


def keywords_by_position(f, given: int, kwargs: dict):
    """The values of the positional parameters of `f` after its first `given`, up to
    the last that `kwargs` names, as a call by position passes them (a parameter
    `kwargs` does not name takes its default): ``functools.partial(g, k=3.0)`` of
    ``def g(x, k=2.0)`` given one argument passes ``(3.0,)``. None where that cannot
    be: a keyword for a parameter before them, or a keyword-only one, or a gap without
    a default."""
    names, n_pos = signature_params(f)
    rest = names[given:n_pos]
    if not set(kwargs) <= set(rest):
        return None
    upto = max(rest.index(k) for k in kwargs) + 1 if kwargs else 0
    defaults = default_values(f)  # (the positional ones among them: `rest`)
    out = []
    for name in rest[:upto]:
        if name in kwargs:
            out.append(kwargs[name])
        elif name in defaults:
            out.append(defaults[name])
        else:
            return None
    return tuple(out)


def keywords_refusal(f, kwargs, what: str) -> S2SADError:
    """The error for a partial whose keywords `keywords_by_position` cannot pass."""
    return S2SADError(
        f"{what} passes the arguments of {f.__qualname__} by position, and cannot pass the "
        f"keyword argument(s) {', '.join(map(repr, kwargs))} the partial holds that way (a "
        "keyword-only parameter, or one before the arguments given)",
        hint="Take the derivative of a function that gets it from outside (a closure: "
             "`lambda x: f(x, k=3.0)` written as a def), or use s2sad.grad or "
             "s2sad.jacobian, which take keyword arguments.")


def rebased_wrt(f, args, kwargs, wrt):
    """`wrt` of the callable whose function `f` has `args` and `kwargs` bound (see
    `unbound`), as names of `f`'s parameters: a position counts from the first
    parameter left free."""
    names, n_pos = signature_params(f)
    free = [n for n in names[len(args):n_pos] if n not in kwargs]
    items = list(wrt) if isinstance(wrt, (tuple, list)) else [wrt]
    out = []
    for item in items:
        if isinstance(item, int) and not isinstance(item, bool):
            if not -len(free) <= item < len(free):
                raise WrtError(f"wrt={item} is out of range: {f.__qualname__} bound to "
                               f"{len(args)} argument{'s' if len(args) != 1 else ''} has "
                               f"{len(free)} positional parameters left ({', '.join(free)})",
                               **at_def(f))
            item = free[item]
        out.append(item)
    return tuple(out) if isinstance(wrt, (tuple, list)) else out[0]


def rebound(f, make):
    """``make(function, bound arguments, keywords)`` for the plain function `f` calls
    (`unbound`), called with those arguments first (`with_bound`). For a callable
    object, whose class's ``__call__`` may be assigned anew (``Model.__call__ = ...``)
    as a method may, the result looks it up on each call, as ``f(x)`` does, and makes
    the derivative again for a new one."""
    plain, bound, keywords = unbound(f)
    g = with_bound(make(plain, bound, keywords), bound, keywords)
    if isinstance(f, (types.MethodType, functools.partial, types.FunctionType)) or \
            not bound or bound[0] is not f:
        return g
    state = [type(f).__call__, g]

    @functools.wraps(g)
    def following(*args, **kwargs):
        now = type(f).__call__
        if now is not state[0]:
            p, b, k = unbound(f)
            state[:] = [now, with_bound(make(p, b, k), b, k)]
        return state[1](*args, **kwargs)

    return following


def with_bound(g, args, kwargs):
    """`g` (made for the plain function) called with the bound `args` and `kwargs`
    first, as the user's callable takes its arguments: a `functools.partial` of it,
    with its name and docstring, a call of which costs 60 ns where a Python wrapper's
    cost 300; what is differentiated again unbinds it (`unbound`), so
    ``grad(grad(model.loss))`` is the second derivative of ``loss`` at ``model``."""
    if not args and not kwargs:
        return g
    call = functools.partial(g, *args, **kwargs)
    functools.update_wrapper(call, g)  # (its `__s2sad__` too: `refuse_derived`)
    return call
