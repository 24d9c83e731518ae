"""The rule registry: the tables of derivative rules and how a call finds its rule.

`REVERSE` and `FORWARD` map a primitive (a callable, or an operator's name from
`OPERATORS`) to its `Rule` objects. The built-in tables fill them as they are imported
(`forward`, `reverse`, `linalg_forward`, `linalg_reverse`, `helpers`); users add rules
with `register_rule`. A rule's ``def`` is in the form `templates` describes.
Keyword-only parameters with defaults before ``out`` are options (``axis=None,
keepdims=False``): static arguments of the call, given by keyword or by position after
the inputs (only the first `Rule.positional` of them, when set). A rule may refuse
some literal options (`Rule.static`, given their values: ``ord=1`` of
``np.linalg.norm``); a call it refuses does not fit it, so an active one is a
`NoRuleError` when the function is transformed, not an error when it runs. A built-in
rule's input may have a default (``def rule(x, loc=0.0, scale=1.0, *, out,
out_bar)``, `Rule.defaults`): a call that leaves it out, or names a later one only
(``norm.logpdf(x, scale=s)``), gives it that constant. An input in `Rule.no_derivative` has no derivative although it
may be a float (a Bessel function's order): a call whose result is used while it carries
a derivative is refused (`analysis.checks`), never differentiated as if it were constant.

A primitive may have several rules for different kinds of inputs (`Rule.when`):
``"array"`` when some input is a NumPy array (``x * y`` on arrays needs `unbroadcast`),
``"list"`` when some input is a Python list or tuple (``np.square(xs)``: arithmetic
on it needs ``np.asarray`` first, which numbers and arrays should not pay for; a
table derives such a variant from the rule itself, `add_rule`'s `lists`), or one
pattern per input (``("2d", "1d")`` for a matrix times a vector; ``"nd"`` for an
array of another or unknown rank, such as a stack of matrices; ``"int"`` for an
integer, ``x ** k``, whose ``k`` is never differentiated). The most specific rule
that matches wins (a pattern, then "list", then "array"); a rule without `when` is
the fallback. Kinds with no matching rule have no derivative: a `NoRuleError` when
the call is active.

A user who registers only a forward rule still gets reverse mode when every term is
linear and elementwise in its input's tangent: `derive_reverse` transposes the
template (`templates.transpose`). Anything else keeps the reason on the forward rule
(`Rule.note`) for reverse mode's error. `stop_gradient` and callables declared with
`nondifferentiable` are constants to the compiler and the engines
(`NONDIFFERENTIABLE`).

Rules for SciPy (`scipy_special`, `scipy_stats` and `scipy_stats_more`, `scipy_linalg`,
`scipy_signal`) are loaded the first time a rule is looked up after the SciPy module
they cover has been imported (`OPTIONAL`); SciPy is never imported here.
"""

from __future__ import annotations

import ast
import importlib
import inspect
import sys
import types
from dataclasses import dataclass, field

import numpy as np

from .. import runtime
from ..errors import S2SADError, user_facing
from . import instances
from .templates import (NOT_LITERAL, Template, as_arrays, literal, read_template,
                        rule_function, split_params, transpose)

REVERSE: dict = {}
FORWARD: dict = {}
NONDIFFERENTIABLE: set = set()  # callables whose result is constant to the compiler
# constant only while the arguments are: np.full(n, x), np.linspace(0, x) move with x,
# so an active argument is an error (no rule yet), never a silently constant result
MOVES_WITH_ARGUMENTS: set = set()
REDUCTIONS: set = set()  # callables outside NumPy that reduce like np.sum (axis=, keepdims=)
ON_CHANGE: list = []  # called after a user registers a rule (caches drop what they hold)
# callables a user gave rules with `register_rule`: nothing says what they return (a
# function of a float may return an array, one of an array a number), so the analysis
# knows their results' kinds only at run time (`analysis.results`)
REGISTERED: set = set()
# rule modules for optional libraries: loaded once the library is imported (`_load_optional`)
OPTIONAL = {"scipy.special": "scipy_special", "scipy.stats": "scipy_stats scipy_stats_more",
            "scipy.linalg": "scipy_linalg", "scipy.signal": "scipy_signal"}

OPERATORS = {
    ast.Add: "add", ast.Sub: "sub", ast.Mult: "mul", ast.Div: "truediv",
    ast.FloorDiv: "floordiv", ast.Mod: "mod", ast.Pow: "pow", ast.MatMult: "matmul",
    ast.USub: "neg", ast.UAdd: "pos",
}


def key_name(key) -> str:
    """How error messages and comments name a rule key."""
    if isinstance(key, str):
        return key
    owner = getattr(key, "__self__", None)
    if isinstance(owner, np.ufunc):  # (a ufunc's method: np.add.outer)
        return f"numpy.{owner.__name__}.{key.__name__}"
    module = getattr(key, "__module__", None) or ""
    qual = getattr(key, "__qualname__", None) or getattr(key, "__name__", repr(key))
    if module in ("builtins", ""):
        return qual
    return f"{module}.{qual}"


# keyword-only names a library gives some inputs besides their positional parameters
# (`Rule.keyword_names`)
_KEYWORD_ONLY_NAMES = {np.clip: {"min": "lo", "max": "hi"}}


@dataclass(eq=False)
class Rule:
    key: object
    mode: str  # "reverse" or "forward"
    func: types.FunctionType
    inputs: tuple
    options: dict = field(default_factory=dict)  # name -> default value
    when: object = None  # None, "array", "list", or a pattern per input
    _template: Template | None = field(default=None, repr=False)
    positional: int | None = None  # how many options a call may give by position (None: all)
    derived: bool = False  # a reverse rule transposed from the user's forward rule
    note: str = ""  # a forward rule's: why no reverse rule could be derived from it
    # options -> None, or why the rule refuses them (see `Rule.refusal`)
    static: object = field(default=None, repr=False)
    # input -> the value a call that leaves it out gives it (``loc=0.0`` of
    # ``scipy.stats.norm.logpdf(x, loc=0.0, scale=1.0)``, a built-in rule's default)
    defaults: dict = field(default_factory=dict)
    # inputs that may be floats but have no derivative (the order of a Bessel function,
    # ``df`` of ``scipy.stats.t.cdf``): their terms are None, and activity refuses a
    # call whose result is used where one of them carries a derivative
    no_derivative: tuple = ()
    _aliases: dict | None = field(default=None, repr=False)

    def keyword_names(self) -> dict:
        """The rule's input names for the keywords a call may give them under the
        function's own parameter names (``a_min=`` of ``np.clip``, whose rule calls it
        `lo`): its positional parameters matched by position, and the keyword-only
        names NumPy adds for some (``np.clip(x, min=0.0)``)."""
        if self._aliases is None:
            try:
                params = list(inspect.signature(self.key).parameters.values())
            except (TypeError, ValueError):  # (a ufunc, a builtin)
                params = []
            theirs = [p.name for p in params if p.kind in (p.POSITIONAL_ONLY,
                                                            p.POSITIONAL_OR_KEYWORD)]
            # (only a name of the rule's own: `dx` of np.trapezoid's rule for
            # ``trapezoid(y, dx=h)`` is NumPy's `dx`, not its second parameter `x`)
            everyone = {p.name for p in params}
            self._aliases = {t: ours for t, ours in zip(theirs, self.inputs)
                             if t != ours and t not in self.options and t not in self.inputs
                             and ours not in everyone}
            self._aliases.update(_KEYWORD_ONLY_NAMES.get(self.key, {}))
        return self._aliases

    def matches(self, kinds) -> bool:
        if self.when is None:
            return True
        if kinds is None:
            return False
        if self.when == "array":
            # (a value whose kind is not known may be an array: the rule that sums a
            # broadcast operand's adjoint back, which a number passes through, not the
            # rule for numbers, which would give a number's adjoint an array's shape)
            return any(kind_class(k) in ("1d", "2d", "array") or k == "?" for k in kinds)
        if self.when == "list":
            return any(kind_class(k) == "list" or isinstance(k, tuple) for k in kinds)
        # (the engines pass values for kinds: a number or an array is no kind name)
        return len(kinds) >= len(self.when) and all(
            _pattern_ok(p, kind_class(k)) if p not in ("scalar", "int")
            else isinstance(k, str) and (k == "int" or p == "scalar" and k == "scalar")
            for p, k in zip(self.when, kinds))

    def bind(self, args, keywords):
        """Inputs (atoms in rule order) and options (name -> atom) of a call, or None
        when the call does not fit this rule (or the rule refuses its options)."""
        bound = self._bind(args, keywords)
        if bound is None or self.static is not None and self._refuses(bound[1]):
            return None
        return bound

    def _bind(self, args, keywords):
        if keywords and self.keyword_names():
            names = self.keyword_names()
            keywords = [ast.keyword(arg=names.get(k.arg, k.arg), value=k.value)
                        for k in keywords]
        n = len(self.inputs)
        if len(args) < n:
            named = {k.arg: k.value for k in keywords}
            missing = self.inputs[len(args):]
            if not all(m in named or m in self.defaults for m in missing):
                return None
            args = list(args) + [named.pop(m) if m in named else ast.Constant(self.defaults[m])
                                 for m in missing]
            keywords = [k for k in keywords if k.arg in named]
        inputs, extra = list(args[:n]), list(args[n:])
        names = list(self.options)[:self.positional]
        if len(extra) > len(names):
            return None
        options = dict(zip(names, extra))
        for k in keywords:
            if k.arg not in self.options or k.arg in options:
                return None
            options[k.arg] = k.value
        return inputs, options

    def _refuses(self, options):
        values = dict(self.options)
        values.update({name: literal(atom) for name, atom in options.items()})
        return self.static(**values)

    def refusal(self, args, keywords) -> str | None:
        """Why this rule refuses the literal options of a call (``ord=1`` of a norm
        whose derivative it does not give), or None. `Rule.static` decides, from the
        options' values where they are literals (`NOT_LITERAL` where they are not:
        the runtime checks those); `bind` does not fit a refused call, so an active
        one is a `NoRuleError` at transform time."""
        bound = None if self.static is None else self._bind(args, keywords)
        return None if bound is None else self._refuses(bound[1])

    @property
    def arity(self) -> int:
        return len(self.inputs)

    @property
    def template(self) -> Template:
        if self._template is None:
            self._template = read_template(self.func, self.mode, self.arity, key_name(self.key))
        return self._template

    @property
    def differentiable(self) -> tuple:
        """Per input: does the rule give it a derivative (a term that is not None)?"""
        return tuple(t is not None for t in self.template.terms)

    def instantiate(self, inputs, out, seeds, wanted, fresh, options=None):
        """Inline the rule.

        `inputs` are the statement's atoms, `out` the result's atom, `seeds` the
        expressions for ``out_bar`` (one) or the input tangents (one per input, None
        for inactive inputs), `wanted` the input positions whose terms are needed,
        `fresh()` a source of new temporary names. Returns ``(assigns, terms)``: the
        template's own lines that the wanted terms need, and the wanted terms (a dict
        position -> expression).
        """
        mapping = {name: ast.Constant(default) for name, default in self.options.items()}
        mapping.update(options or {})
        mapping.update(zip(self.inputs, inputs))
        mapping["out"] = out
        if self.mode == "reverse":
            mapping["out_bar"] = seeds[0]
        else:
            for name, seed in zip(self.inputs, seeds):
                mapping[name + "_dot"] = seed if seed is not None else ast.Constant(0.0)
        return instances.instantiate(self.template, mapping, wanted, fresh)


def norm_orders(matrix: bool):
    """The `Rule.static` check of ``np.linalg.norm``'s rules (`matrix`: the rule for
    arrays not known to be vectors; both refuse the same, since NumPy itself refuses
    ``ord=0`` of a matrix). Every order NumPy takes has a derivative
    (`runtime.norm_bar`) but a literal ``ord=0`` of vectors, the count of the nonzero
    elements: a step function. An `ord` that is not a literal the runtime checks
    (`runtime.check_norm`)."""

    def refusal(ord=None, axis=None, keepdims=False):
        if ord is NOT_LITERAL or type(ord) not in (int, float) or ord != 0:
            return None
        return ("with ord=0 (it counts the nonzero elements: a step function, with no "
                "derivative)")

    return refusal


def kind_class(kind) -> str:
    """How rule patterns see a kind: "1d", "2d", "array" (other or unknown rank),
    "list", or "scalar" (anything else)."""
    ndim = getattr(kind, "ndim", "no")
    if ndim == "no":
        return "list" if type(kind).__name__ == "ListKind" else "scalar"
    return {1: "1d", 2: "2d"}.get(ndim, "array")


def _pattern_ok(pattern, cls) -> bool:
    """Does a kind of class `cls` fit `pattern`: a class, "any", "array" (any array) or
    "nd" (an array of another or unknown rank: a stack of matrices)? (The pattern
    "scalar" takes a number only, a float or an int, and "int" an int only:
    `Rule.matches` decides them on the kind, since a value of unknown kind or a tuple
    is of class "scalar" too.)"""
    return pattern == "any" or pattern == cls or (pattern == "array" and cls in ("1d", "2d")) \
        or (pattern == "nd" and cls == "array")


def add_rule(table: dict, mode: str, key, func, when=None, static=None, lists=()) -> Rule:
    """Add the built-in rule `func` for `key` to `table` and return it; with `lists`
    (names of its parameters), its variant for Python lists and tuples too
    (`for_lists`)."""
    inputs, options = split_params(func, mode)
    rule = Rule(key, mode, func, inputs, options, when)
    rule.static = static
    rule.defaults = {p.name: p.default for p in inspect.signature(func).parameters.values()
                     if p.name in inputs and p.default is not p.empty}
    _insert(table, rule)
    if lists:
        _insert(table, for_lists(rule, lists))
    return rule


def for_lists(rule: Rule, names) -> Rule:
    """`rule`'s variant for Python lists and tuples (``when="list"``): the same body,
    with the parameters `names` (inputs or tangents) converted by ``np.asarray``
    first (`templates.as_arrays`), as a function ``<rule>_of_list`` beside it."""
    seeds = ["out_bar"] if rule.mode == "reverse" else [n + "_dot" for n in rule.inputs]
    template = as_arrays(rule.template, list(rule.inputs) + ["out"] + seeds, names)
    qualname = getattr(rule.func, "__qualname__", "rule")
    func = rule_function(rule.func, rule.mode, rule.inputs, rule.options, template,
                         f"{_identifier(rule.func)}_of_list", f"{rule.mode} rule {qualname} for lists")
    return Rule(rule.key, rule.mode, func, rule.inputs, dict(rule.options), "list", template,
                rule.positional, static=rule.static, defaults=rule.defaults,
                no_derivative=rule.no_derivative)


def _insert(table: dict, rule: Rule) -> Rule:
    """Add `rule`, replacing the rule for the same key, arity and kinds."""
    existing = table.setdefault(rule.key, [])
    existing[:] = [r for r in existing if (r.arity, r.when) != (rule.arity, rule.when)]
    existing.append(rule)
    return rule


def lookup(key, nargs: int | None = None, mode: str = "reverse", kinds=None) -> Rule | None:
    """The rule for `key` with `nargs` inputs (any number when None) that matches the
    input `kinds` best: a pattern per input, then "list", then "array", then the
    fallback."""
    for rule in candidates(key, mode):
        if (nargs is None or rule.arity == nargs) and rule.matches(kinds):
            return rule
    return None


def candidates(key, mode="reverse") -> list:
    """Every rule for `key`, most specific first."""
    if OPTIONAL:
        _load_optional()
    table = REVERSE if mode == "reverse" else FORWARD
    try:
        rules = table.get(key) or []
    except TypeError:  # unhashable callable
        return []
    order = {None: 3, "array": 2, "list": 1}
    return sorted(rules, key=lambda r: order.get(r.when, 0) if isinstance(r.when, (str, type(None)))
                  else 0)


def arities(key, mode="reverse") -> list:
    """The numbers of inputs `key`'s rules take, each once."""
    if OPTIONAL:
        _load_optional()
    table = REVERSE if mode == "reverse" else FORWARD
    try:
        return sorted({r.arity for r in table.get(key, ())})
    except TypeError:
        return []


def has_rule(key) -> bool:
    if OPTIONAL:
        _load_optional()
    try:
        return key in REVERSE or key in FORWARD or key in NONDIFFERENTIABLE
    except TypeError:
        return False


# --------------------------------------------------------------- public API


def _identifier(func) -> str:
    """A name for a function made from the rule `func` (a lambda's is ``<lambda>``)."""
    name = getattr(func, "__name__", "")
    return name if name.isidentifier() else "rule"


def _check_input_order(func, rule):
    """Refuse a rule whose inputs name `func`'s parameters in another order (``lambda
    b, a, ...`` for ``def t2(a, b)``): a call by position and one by keyword would
    pass them differently."""
    try:
        params = [p.name for p in inspect.signature(func).parameters.values()
                  if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD)]
    except (TypeError, ValueError):
        return
    for i, name in enumerate(rule.inputs):
        if name in params and params.index(name) != i:
            who = key_name(func)
            raise S2SADError(
                f"register_rule({who}, {rule.mode}=...): the rule's input `{name}` is "
                f"{who}'s parameter {params.index(name) + 1}, given to the rule as input "
                f"{i + 1}; a call by position and a call by keyword would pass it differently",
                hint=f"Name the rule's inputs in {who}'s order: "
                     f"{', '.join(params[:len(rule.inputs)])}.")


@user_facing
def register_rule(func, *, reverse=None, forward=None, nondifferentiable=False):
    """Register derivative rules for a callable the compiler should not look into.

    `reverse` and `forward` are plain functions in the template form `templates`
    describes; give one or both. With only `forward`, the reverse rule is
    derived when the forward one is linear and elementwise in each tangent (see
    `derive_reverse`); otherwise reverse mode says which rule to add. With
    ``nondifferentiable=True`` the callable's result is treated as a constant (no rule
    needed). The latest registration for a callable wins. Returns `func`, so this
    works as a decorator's body too.
    """
    if nondifferentiable:
        NONDIFFERENTIABLE.add(func)
        _changed()
        return func
    if reverse is None and forward is None:
        raise S2SADError("register_rule needs reverse=..., forward=... or nondifferentiable=True")
    for mode, rule in (("reverse", reverse), ("forward", forward)):
        if rule is not None and not callable(rule):
            raise S2SADError(f"register_rule({key_name(func)}, {mode}=...) needs a function; "
                             f"got {rule!r}")
    checked = []
    if reverse is not None:
        checked.append((REVERSE, Rule(func, "reverse", reverse, *split_params(reverse, "reverse"))))
    if forward is not None:
        checked.append((FORWARD, Rule(func, "forward", forward, *split_params(forward, "forward"))))
    for _, rule in checked:
        rule.template  # read now: a malformed rule fails before anything is registered
        _check_input_order(func, rule)
    derived = []
    if reverse is None:
        fwd = checked[0][1]
        mine = [r for r in REVERSE.get(func, ()) if r.arity == fwd.arity and not r.derived]
        if not mine:  # (a reverse rule the user registered stays)
            derived = derive_reverse(fwd)
            if isinstance(derived, str):
                fwd.note, derived = derived, []
    try:
        NONDIFFERENTIABLE.discard(func)
    except TypeError:  # an unhashable callable cannot be registered below either
        pass
    for table, rule in checked:
        _drop_derived(func, rule.arity)
        _insert(table, rule)
    for rule in derived:
        _insert(REVERSE, rule)
    REGISTERED.add(func)
    _changed()
    return func


def registered(key) -> bool:
    """Did a user give `key` rules with `register_rule` (`REGISTERED`)?"""
    try:
        return key in REGISTERED
    except TypeError:  # (an unhashable key has no rule)
        return False


def nondifferentiable(func):
    """Declare `func` non-differentiable: its result is a constant to the compiler and
    the engines (``@s2sad.nondifferentiable`` on a def works too). Returns `func`."""
    return register_rule(func, nondifferentiable=True)


def stop_gradient(x):
    """`x` itself; the compiler and the engines treat the result as a constant, so no
    derivative flows through it (as ``jax.lax.stop_gradient``)."""
    stop = getattr(type(x), "__stop_gradient__", None)
    if stop is not None:  # a value one of s2sad's engines traces: its plain value
        return stop(x)
    if isinstance(x, (list, tuple)) and any(
            getattr(type(v), "__stop_gradient__", None) for v in x):
        return type(x)(stop_gradient(v) for v in x)
    return x


def _drop_derived(func, arity):
    rules = REVERSE.get(func)
    if rules:
        rules[:] = [r for r in rules if not (r.derived and r.arity == arity)]


# ------------------------------------------------------- derived transposes


def derive_reverse(rule: Rule):
    """The reverse rule transposed from the forward rule `rule`
    (`templates.transpose`), in a list, or the reason there is none (a message)."""
    template = transpose(rule.template, rule.inputs, rule.options)
    if isinstance(template, str):
        return template
    qualname = getattr(rule.func, "__qualname__", "rule")
    func = rule_function(rule.func, "reverse", rule.inputs, rule.options, template,
                         f"{_identifier(rule.func)}_transposed",
                         f"reverse rule transposed from {qualname}")
    return [Rule(rule.key, "reverse", func, rule.inputs, dict(rule.options), None,
                 template, rule.positional, derived=True)]


def _changed():
    for callback in ON_CHANGE:
        callback()


def _load_optional():
    """Load the rules of optional libraries the process has imported by now."""
    for module, ours in list(OPTIONAL.items()):
        if module in sys.modules:
            del OPTIONAL[module]
            for name in ours.split():  # (one module of rules or more, by name)
                try:
                    importlib.import_module(f"{__package__}.{name}")
                except (ImportError, AttributeError):  # a version without what they read:
                    pass  # its functions have no rules, and say so when differentiated


# the built-in constants (the tables' modules add the rules)
NONDIFFERENTIABLE.update({len, range, print, isinstance, type, callable})
# (zero_tangent: the zeros of a gradient's adjoint of a kind known only at run time;
# iterated: an item of a sequence of unknown kind that carries no derivative)
NONDIFFERENTIABLE.update({runtime.check_norm, runtime.scalar_seed, runtime.zero_tangent,
                          runtime.iterated, stop_gradient})
# an array's methods without a derivative, the NumPy functions of their names
NONDIFF_METHODS = ("argmax", "argmin", "argsort", "nonzero", "round", "any", "all")
MOVES_WITH_ARGUMENTS.update({np.full, np.full_like, np.linspace, np.arange})
NONDIFFERENTIABLE.update(MOVES_WITH_ARGUMENTS)
NONDIFFERENTIABLE.update({
    np.zeros, np.ones, np.empty, np.zeros_like, np.ones_like, np.empty_like,
    np.eye, np.identity, np.tri, np.shape, np.ndim,
    np.size, np.argmax, np.argmin, np.argsort, np.argpartition, np.isnan, np.isinf, np.isfinite,
    np.floor, np.ceil, np.round, np.rint, np.trunc, np.equal, np.not_equal, np.less,
    np.less_equal, np.greater, np.greater_equal, np.logical_and, np.logical_or,
    np.logical_not, np.any, np.all, np.count_nonzero, np.nonzero, np.argwhere})
