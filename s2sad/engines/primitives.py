"""The primitives the engines differentiate: finding and calling derivative rules.

Contract
--------
* `find_rule(key, primals, active, mode)` returns the rule (an `s2sad.primitives.Rule`) for
  a primitive `key` ("add", ``math.sin``, ``np.sum``...) on these primal inputs, from
  the compiler's own tables (`mode` "reverse" or "forward"), or raises `EngineError`.
  Two rules are the engines' own: ``x ** c`` with a constant exponent (the table's
  rule would also take ``log(x)``, which fails for a negative base), and indexing an
  array (`getitem`).
* `call_rule(rule, primals, options, out, seeds)` calls a rule function and returns
  one term per input; `seeds` is ``out_bar`` (reverse) or the input tangents
  (forward).
* `bind_options(func, args, kwargs, mode)` splits a NumPy call into the rule's inputs
  and options (``axis=...``), with the function to call on them.
* `EngineError` (an `S2SADError`) is what the engines raise when they cannot follow a
  function; `user_place()` says where in the user's code that happened.

This module imports nothing from the compiler pipeline.
"""

from __future__ import annotations

import ast
import builtins
import inspect
import linecache
import math
import os
import sys

import numpy as np

from .. import primitives as rules
from ..errors import S2SADError
from ..runtime import unbroadcast


class EngineError(S2SADError):
    """An engine cannot follow the function; the message names the operation and the
    user's line it was running."""

    def __init__(self, message, **kwargs):
        if " (at " not in message and kwargs.get("lineno") is None:
            message += user_place()
        super().__init__(message, **kwargs)


_HERE = os.path.dirname(os.path.abspath(__file__))
_PACKAGE = os.path.dirname(_HERE)


def user_place() -> str:
    """`` (at file:line: code)`` for the innermost caller outside s2sad."""
    frame = sys._getframe(1)
    while frame is not None and os.path.abspath(frame.f_code.co_filename).startswith(
            _PACKAGE + os.sep):
        frame = frame.f_back
    if frame is None:
        return ""
    where = f"{frame.f_code.co_filename}:{frame.f_lineno}"
    code = linecache.getline(frame.f_code.co_filename, frame.f_lineno).strip()
    return f" (at {where}: {code})" if code else f" (at {where})"


# ------------------------------------------------------------ the engines' own rules

# Keys whose rule would take the log of the base even when the exponent is a constant
# (math.log fails for a negative base): with a constant exponent the engines use their
# own rule, the table's first term.
POW_KEYS = ("pow", pow, math.pow, np.power)


def _less_one(y):
    """The exponent of the derivative of ``x ** y``: y - 1, and 0 where y == 0 (x ** 0
    is constant, where 0 * 0.0 ** -1 would be NaN or raise at x == 0)."""
    if np.ndim(y):
        return np.where(y == 0, 0, y - 1)
    return y - 1 if y else 0


def _pow_const_reverse(x, y, out, out_bar):
    return out_bar * y * x ** _less_one(y), None


def _pow_const_forward(x, y, out, x_dot, y_dot):
    return y * x ** _less_one(y) * x_dot, None


def _pow_const_reverse_array(x, y, out, out_bar):
    return unbroadcast(out_bar * y * x ** _less_one(y), x), None


def _scatter(x, index, g):
    full = np.zeros(np.shape(x), dtype=np.result_type(g, float))
    np.add.at(full, index, g)
    return full


def _getitem_reverse(x, index, out, out_bar):
    return _scatter(x, index, out_bar), None


def _getitem_forward(x, index, out, x_dot, index_dot):
    return x_dot[index], None


def getitem(x, index):
    return x[index]


def _own(key, func, mode, inputs):
    return rules.Rule(key, mode, func, inputs)


_OWN = {
    ("pow-const", "reverse"): _own("pow", _pow_const_reverse, "reverse", ("x", "y")),
    ("pow-const", "forward"): _own("pow", _pow_const_forward, "forward", ("x", "y")),
    ("pow-const-array", "reverse"): _own("pow", _pow_const_reverse_array, "reverse", ("x", "y")),
    ("pow-const-array", "forward"): _own("pow", _pow_const_forward, "forward", ("x", "y")),
    (getitem, "reverse"): _own(getitem, _getitem_reverse, "reverse", ("x", "index")),
    (getitem, "forward"): _own(getitem, _getitem_forward, "forward", ("x", "index")),
}


# ------------------------------------------------------------------ rule access


def object_array_error(engine: str, what="the output"):
    """The error for `what` (an output, an operand) that went through a NumPy object
    array: NumPy made one from traced values (``np.asarray`` or ``np.array`` of a
    traced value), and its elements' derivatives would be lost without a word."""
    return EngineError(f"{what} is a NumPy array of Python objects: a NumPy call "
                       f"turned traced values into an object array (np.asarray or np.array "
                       f"of a traced value?), which the {engine} engine cannot follow",
                       hint="Write np.stack([a, b]) for np.array([a, b]) of computed "
                       "values, and leave out np.array(x) of one; or differentiate "
                       "without mode=, which reads the source.")


def describe(key) -> str:
    name = rules.key_name(key)
    if isinstance(key, np.ufunc):
        # (SciPy's special functions are ufuncs too, with no module of their own)
        special = sys.modules.get("scipy.special")
        if getattr(np, key.__name__, None) is not key and \
                getattr(special, key.__name__, None) is key:
            return f"scipy.special.{key.__name__}"
        return f"numpy.{key.__name__}"
    return {"add": "+", "sub": "-", "mul": "*", "truediv": "/", "floordiv": "//",
            "mod": "%", "pow": "**", "neg": "unary -", "pos": "unary +",
            "matmul": "@"}.get(name, name)


def is_nondifferentiable(key) -> bool:
    try:
        return key in rules.NONDIFFERENTIABLE and key not in rules.MOVES_WITH_ARGUMENTS
    except TypeError:
        return False


def find_rule(key, primals, active, mode, options=None):
    """The rule for `key` on these primal inputs (`active`: which are traced) and
    `options` (a rule whose `static` check refuses them is passed over, as the
    compiler's `bind` does: ``np.linalg.svd``'s compute_uv)."""
    if key in POW_KEYS and len(primals) == 2 and not active[1]:
        # a constant exponent: the table's rule would also take the log of the base
        arrays = any(isinstance(p, np.ndarray) for p in primals)
        return _OWN["pow-const-array" if arrays else "pow-const", mode]
    if key is getitem:
        return _OWN[getitem, mode]
    fitting = [r for r in rules.candidates(key, mode)
               if r.arity == len(primals) and r.matches(primals)]
    reasons = [r.static(**{**dict(r.options), **(options or {})}) if r.static else None
               for r in fitting]
    rule = next((r for r, why in zip(fitting, reasons) if why is None), None)
    if rule is None and fitting:
        raise EngineError(f"{describe(key)} {reasons[0]} has no {mode} derivative rule, so it "
                          "cannot be applied to a traced value" + user_place())
    if rule is None:
        arities = rules.arities(key, mode)
        detail = f" with {len(primals)} arguments" if arities else ""
        raise EngineError(f"{describe(key)}{detail} has no {mode} derivative rule, so it "
                          "cannot be applied to a traced value" + user_place())
    held = [n for n, a in zip(rule.inputs, active) if a and n in rule.no_derivative]
    if held:  # (an order of a Bessel function: no derivative, and never taken as 0)
        raise EngineError(f"{describe(key)} has no derivative with respect to its argument "
                          f"`{held[0]}`, so it cannot be a traced value" + user_place())
    return rule


def call_rule(rule, primals, options, out, seeds, wanted=None):
    """Call a rule function: `seeds` is ``out_bar`` (reverse) or the list of input
    tangents (forward). Returns one term per input, as a tuple. With `wanted` (the
    positions of the inputs whose terms are needed), a reverse rule computes those
    alone (`_partial`: ``X @ w`` of a plain `X` does not compute ``np.outer(g, w)``);
    the others are None."""
    kw = dict(options or {})
    kw["out"] = out
    if rule.mode == "reverse":
        kw["out_bar"] = seeds
    else:
        for name, dot in zip(rule.inputs, seeds):
            kw[name + "_dot"] = dot
    func = rule.func
    if wanted is not None and rule.mode == "reverse" and len(wanted) < rule.arity:
        func = _partial(rule, frozenset(wanted)) or func
    terms = func(*primals, **kw)
    return terms if rule.arity > 1 else (terms,)


_PARTIALS: dict = {}  # (id of a rule, wanted) -> (rule, its `_partial`, or None)


def _partial(rule, wanted: frozenset):
    """`rule.func` computing only the terms of the inputs at `wanted` (the others
    None), from its template: the lines those terms read, and the terms; None where
    the rule has no template (a rule derived from a forward one) or takes ``*args``."""
    key = (id(rule), wanted)
    got = _PARTIALS.get(key)
    if got is None or got[0] is not rule:
        got = _PARTIALS[key] = (rule, _make_partial(rule, wanted))
    return got[1]


def _make_partial(rule, wanted):
    try:
        template = rule.template
        sig = inspect.signature(rule.func)
    except (S2SADError, TypeError, ValueError):
        return None
    if any(p.kind in (p.VAR_POSITIONAL, p.VAR_KEYWORD) for p in sig.parameters.values()):
        return None
    terms = [t if i in wanted else None for i, t in enumerate(template.terms)]
    needed = set().union(*(template.names(t) for t in terms if t is not None))
    kept = []
    for name, expr in reversed(template.assigns):
        if name in needed:
            kept.append((name, expr))
            needed |= template.names(expr)
    # (written as text and compiled: the template's trees stay as they are)
    lines = [f"def partial({', '.join(sig.parameters)}):"]
    lines += [f"    {n} = {ast.unparse(e)}" for n, e in reversed(kept)]
    result = ", ".join("None" if t is None else f"({ast.unparse(t)})" for t in terms)
    lines.append(f"    return {result}")  # (two terms or more: `call_rule` asks so)
    scope = {**template.helpers, "__builtins__": builtins}
    exec(compile("\n".join(lines) + "\n", f"<partial rule {describe(rule.key)}>", "exec"),
         scope)
    inner = scope["partial"]

    def partial(*args, **kw):
        bound = sig.bind(*args, **kw)
        bound.apply_defaults()
        return inner(**bound.arguments)

    return partial


def undefined(key, primals, exc) -> EngineError:
    shown = ", ".join(_short(p) for p in primals)
    return EngineError(f"the derivative of {describe(key)} is undefined at ({shown}): "
                       f"{type(exc).__name__}: {exc}")


def _short(v) -> str:
    if isinstance(v, np.ndarray):
        return f"array of shape {v.shape}"
    return repr(v)


def _named_after(func, names):
    """`func`, or `func` given its last inputs, `names`, by name."""
    if not names:
        return func
    names = list(names)

    def call(*inputs, **options):
        k = len(inputs) - len(names)
        return func(*inputs[:k], **dict(zip(names, inputs[k:])), **options)

    return call


def bind_options(func, args, kwargs, mode):
    """Split a NumPy call's arguments into (inputs, options) the way its rule reads
    them, or raise `EngineError`; and the function to call with them (`func`, or one
    that gives `func` by name the inputs the call gave by name: the weights of
    ``np.average(x, weights=w)``, whose second positional parameter is the axis)."""
    name = rules.key_name(func)
    candidates = rules.candidates(func, mode)
    if not candidates:
        raise EngineError(f"{name} has no {mode} derivative rule, so it cannot be applied "
                          "to a traced array" + user_place())
    for rule in candidates:
        n = rule.arity
        aliases = rule.keyword_names()  # (``a_min=`` of np.clip: its rule's `lo`)
        inputs, extra = list(args[:n]), list(args[n:])
        named = {aliases.get(k, k): v for k, v in kwargs.items()}
        if len(inputs) < n:
            missing = rule.inputs[len(inputs):]
            if not all(m in named or m in rule.defaults for m in missing):
                continue
            inputs += [named.pop(m) if m in named else rule.defaults[m] for m in missing]
        positional = list(rule.options)[:rule.positional]
        if len(extra) > len(positional):
            continue
        options = dict(zip(positional, extra))
        if any(k not in rule.options or k in options for k in named):
            continue
        options.update(named)
        later = rule.inputs[len(args):]
        # (inputs named by the function's own positional parameters go by position)
        return inputs, options, _named_after(
            func, [] if set(later) <= set(aliases.values()) else later)
    raise EngineError(f"{name} is called with arguments its derivative rule does not "
                      f"describe ({', '.join(kwargs) or len(args)})" + user_place())
