"""structured: derivatives with respect to containers of parameters.

An argument that is a dict, a namedtuple, a dataclass, a tuple, a list holding
containers, or an instance of a class registered with `register_container` (nested
to any depth) is *structured*. `flat_function(f, specs)` is `f` specialised on the
structures of its structured arguments: a real Python function, compiled from the
text `frontend.structures` rewrites, that takes one parameter per leaf (``params%W``)
and does every container operation where it was built, so the entry points
differentiate it as any function of floats and arrays, and only this module knows
containers: `Flat` flattens a call's arguments to the leaves and builds the results
(gradients, tangents, Jacobian and Hessian blocks, a function's container output)
back in their structures, leaf for leaf, None where a leaf carries no derivative.

A plain list of floats or arrays is not structured: the compiled code takes it as
it is (``for x in xs``, ``xs.append``).

Imports `arguments` and `guards` from `api`, and `frontend` and `ir`.
"""

from __future__ import annotations

import ast
import contextlib
import re
import types
import weakref

import numpy as np

from ..errors import S2SADError, WrtError
from ..frontend import parse, tree_index
from ..ir import trees
from ..ir.kinds import differentiable, kind_of
from . import guards
from .arguments import at_def, complex_refusal, complex_value, split_arguments

_flat: "weakref.WeakKeyDictionary" = weakref.WeakKeyDictionary()  # f -> {specs: (flat, out)}


def static_callable(value) -> bool:
    """Is `value` a function passed as an argument, which the derivative is
    specialised on (`trees.Static`): a Python function, a builtin, a NumPy ufunc?"""
    return isinstance(value, (types.FunctionType, types.BuiltinFunctionType, np.ufunc)) \
        and getattr(value, "__s2sad__", None) is None


def flat_needed(values: dict, names, f=None) -> bool:
    """Does a call with these `values` (every parameter) take the flat function: a
    container among `names`, a function passed as another argument, or a tuple,
    list or dict `f` spreads (`spread_parameters`: `f`'s text is read for that only
    where some argument is a container)?"""
    return any(structured(values.get(n)) for n in names) or any(
        static_callable(v) for n, v in values.items() if n not in names) or (
        f is not None and any(trees.is_container(v) for v in values.values())
        and any(trees.is_container(values.get(n)) for n in spread_parameters(f)))


_SPREAD: dict = {}  # code object -> the parameters the function spreads


def spread_parameters(f) -> frozenset:
    """The parameters `f` hands on item by item, ``h(*t)``, ``[*t]`` or ``h(**d)``:
    where such an argument is a tuple, a list or a dict, its length and keys are
    part of what the derivative is specialised on (a container of `Flat`), whether
    it is differentiated or not, so the items spread are known where the derivative
    is built."""
    code = getattr(f, "__code__", None)
    if code is None:
        return frozenset()
    got = _SPREAD.get(code)
    if got is None:
        got = frozenset()
        params = set(code.co_varnames[:code.co_argcount + code.co_kwonlyargcount])
        tree = _tree_of(f)
        if tree is not None:
            got = frozenset(
                n.value.id for n in ast.walk(tree)
                if isinstance(n, (ast.Starred, ast.keyword)) and isinstance(n.value, ast.Name)
                and n.value.id in params and (isinstance(n, ast.Starred) and
                                              isinstance(n.ctx, ast.Load) or
                                              isinstance(n, ast.keyword) and n.arg is None))
        _SPREAD[code] = got
    return got


def _tree_of(f):
    """``ast.parse`` of `f`'s text, or None where it has none (the compiler says so
    where it needs it)."""
    try:
        return ast.parse(parse.user_source(f))
    except Exception:
        return None


_BUILDS: dict = {}  # code object -> whether it may build and return a container


def may_return_container(f) -> bool:
    """Might `f` build a dict, namedtuple, dataclass or registered container and return
    it (what `vjp` and `jvp` follow with `Flat` where no argument is a container)? Its
    text holds a dict display or comprehension, a call of ``dict`` or of such a class
    (a name of its globals or closure): read once per function."""
    code = getattr(f, "__code__", None)
    if code is None:
        return False
    got = _BUILDS.get(code)
    if got is None:
        tree = _tree_of(f)
        scope = dict(getattr(f, "__globals__", {}))
        for name, cell in zip(code.co_freevars, getattr(f, "__closure__", None) or ()):
            try:
                scope[name] = cell.cell_contents
            except ValueError:  # (an empty cell)
                continue

        def builds(node) -> bool:
            if isinstance(node, (ast.Dict, ast.DictComp)):
                return True
            if not isinstance(node, ast.Call):
                return False
            target = scope.get(node.func.id) if isinstance(node.func, ast.Name) else None
            return target is dict or isinstance(target, type) and trees.is_record_type(target)

        got = tree is not None and any(builds(n) for n in ast.walk(tree))
        _BUILDS[code] = got
    return got


def structured(value) -> bool:
    """Is `value` an argument `Flat` takes apart (see the module docstring)?"""
    if type(value) is list:
        return any(trees.is_container(v) for v in value)
    return trees.is_container(value)


def flat_function(f, specs: dict):
    """``(flat, out_spec, leaf_names)``: `f` specialised on `specs` ({parameter:
    `trees.Spec`}), the structure of its output where it returns a container (None
    where not), and each structured parameter's leaves' parameters."""
    # (by `f`'s code too: an edit put into the same function object, as IPython's
    # autoreload does, is another function)
    key = (f.__code__,) + tuple(specs.items())
    per_f = _flat.setdefault(f, {})
    got = per_f.get(key)
    if got is not None and _still_decided(f, *got[3:]):
        return got[:3]
    carrier = types.FunctionType(f.__code__, f.__globals__, f.__name__, f.__defaults__,
                                 f.__closure__)  # (its defaults: `parse` may read them)
    carrier.__kwdefaults__ = f.__kwdefaults__
    carrier.__qualname__ = f.__qualname__
    setattr(carrier, parse.STRUCTURES, specs)
    parsed = parse.parse(carrier)
    statics = {n: s.value for n, s in specs.items() if isinstance(s, trees.Static)}
    # (and the names it reads a function's variable by, put in place: `defaults.capture`)
    statics.update((n, v) for n, (_, _, v) in parsed.captured.items())
    free = f.__code__.co_freevars + tuple(statics)
    tree = parsed.tree
    tree.args.defaults = []
    tree.args.kw_defaults = [None] * len(tree.args.kwonlyargs)
    outer = ast.FunctionDef(
        name="%outer", args=ast.arguments(posonlyargs=[], args=[], vararg=None, kwonlyargs=[],
                                          kw_defaults=[], kwarg=None, defaults=[]),
        body=[ast.Assign(targets=[ast.Name(id=n, ctx=ast.Store())],
                         value=ast.Constant(value=None)) for n in free] +
        [tree, ast.Return(value=ast.Name(id=tree.name, ctx=ast.Load()))],
        decorator_list=[], returns=None, type_comment=None)
    module = ast.Module(body=[outer], type_ignores=[])
    tree_index.fix_locations(module)  # (no recursive closure per call: ast's has one)
    code = compile(module, f.__code__.co_filename, "exec")
    outer_code = next(c for c in code.co_consts if isinstance(c, types.CodeType))
    inner = next(c for c in outer_code.co_consts if isinstance(c, types.CodeType))
    inner = inner.replace(co_firstlineno=f.__code__.co_firstlineno)
    cells = dict(zip(f.__code__.co_freevars, f.__closure__ or ()))
    cells.update({n: types.CellType(v) for n, v in statics.items()})
    closure = tuple(cells[n] for n in inner.co_freevars) or None
    defaults = f.__defaults__ or ()
    names = f.__code__.co_varnames[:f.__code__.co_argcount]
    if any(n in specs for n in names[len(names) - len(defaults):]):
        defaults = ()  # (the caller passes every argument)
    if any(n in specs for n in f.__code__.co_varnames[
            f.__code__.co_argcount:f.__code__.co_argcount + f.__code__.co_kwonlyargcount]):
        raise WrtError(f"s2sad takes containers of parameters as positional parameters; "
                       f"{f.__qualname__} takes one as a keyword-only parameter",
                       hint="Make it a positional parameter.", **at_def(f))
    flat = types.FunctionType(inner, f.__globals__, f.__name__, defaults or None, closure)
    flat.__kwdefaults__ = f.__kwdefaults__
    flat.__qualname__ = f.__qualname__
    flat.__module__ = f.__module__
    setattr(flat, parse.ORIGINAL, f)  # (its source is f's: `parse.check_source` checks f)
    setattr(flat, parse.STRUCTURES, specs)
    per_f[key] = got = (flat, parsed.out_spec, parsed.leaf_names, parsed.decided,
                        parsed.put_in_place, parsed.captured)
    return got[:3]


def _still_decided(f, decided: dict, put_in_place: dict, captured: dict) -> bool:
    """Do the globals and closure variables the rewrite decided something by (a
    loop's count, `parse.Parsed.decided`) hold the values they held, each call put
    in place name the function it did, and each variable of a function put in place
    that the code reads by a name of its own (`captured`) hold what it did? (The
    flat function's own code, which `jacobian` runs for the value, has them written
    in.)"""
    if not all(guards.holds(g) for g in (guards.decided_guard(f, n, v)
                                         for n, v in decided.items()) if g is not None):
        return False
    cells = parse.cells_of(f)
    for text, callee in put_in_place.items():
        root, *chain = text.split(".")
        value = parse.lookup(root, f.__globals__, cells)
        if value is parse.MISSING:
            continue  # (a method of an argument's: ``self.forward``, by its class)
        for attr in chain:
            value = getattr(value, attr, None)
        if value is not callee:
            return False
    return all(parse.lookup(name, callee.__globals__, parse.cells_of(callee)) is obj
               for callee, name, obj in captured.values() if callee is not None)


class Flat:
    """One call of `f` whose arguments `values` (every parameter, in order) include
    structured ones among `names` (the parameters whose derivatives are asked for):
    the flat function, its arguments, and the way back."""

    def __init__(self, f, values: dict, names, what: str):
        self.f = f
        self.specs = {n: trees.spec_of(values[n]) for n in names if structured(values[n])}
        self.specs.update({n: trees.spec_of(values[n]) for n in spread_parameters(f)
                           if trees.is_container(values.get(n))})
        self.statics = {n: v for n, v in values.items()
                        if n not in names and static_callable(v)}
        self.flat, self.out_spec, self.leaves = flat_function(
            f, {**self.specs, **{n: trees.Static(v) for n, v in self.statics.items()}})
        self.values = {}
        for n, v in values.items():
            if n in self.statics:
                continue
            if n in self.specs:
                self.values.update(zip(self.leaves[n], trees.leaves(v, self.specs[n])))
            else:
                self.values[n] = v
        self.what = what
        self.names = tuple(names)

    def args(self) -> list:
        return list(self.values.values())

    def split_args(self) -> tuple:
        """``(positional values, keyword-only ones by name)`` to call `flat` with."""
        return split_arguments(self.flat, self.values)

    @contextlib.contextmanager
    def naming(self):
        """Errors raised inside name each leaf as the user reaches it
        (``params['init hiddens']``), not as the flat function's parameter."""
        try:
            yield
        except S2SADError as exc:
            texts = {m: trees.path_text(n, path) for n, spec in self.specs.items()
                     for m, path in zip(self.leaves[n], trees.paths(spec))}
            if texts:
                pattern = re.compile(r"\b(" + "|".join(map(re.escape, sorted(
                    texts, key=len, reverse=True))) + r")\b")
                for field in ("message", "hint"):
                    text = getattr(exc, field, None)
                    if text:
                        setattr(exc, field, pattern.sub(lambda m: texts[m.group(1)], text))
            raise

    def differentiable_leaves(self, n) -> list:
        """The leaves of the structured parameter `n` a derivative is taken for: the
        floats and float arrays (and lists of them)."""
        return [m for m in self.leaves[n] if _carries(self.values[m])]

    def wrt(self) -> tuple:
        """The flat function's parameters for `names`; a structured one without a
        float leaf is refused, naming it."""
        out = []
        for n in self.names:
            if n not in self.specs:
                out.append(n)
                continue
            for m, path in zip(self.leaves[n], trees.paths(self.specs[n])):
                if complex_value(self.values[m]):
                    raise complex_refusal(f"{self.what} of {self.f.__qualname__} with respect "
                                          f"to {trees.path_text(n, path)}", self.values[m],
                                          self.f)
            leaves = self.differentiable_leaves(n)
            if not leaves:
                raise WrtError(
                    f"{self.what} of {self.f.__qualname__} with respect to `{n}`: this "
                    f"{type_name(self.specs[n])} holds no float or float array",
                    hint="Pass the parameters as floats or float arrays; ints, strings and "
                         "None are carried along without a derivative.", **at_def(self.f))
            out.extend(leaves)
        return tuple(out)

    def regroup(self, grads, wrt: tuple) -> list:
        """The derivatives `grads` of the flat parameters `wrt`, as one per name of
        `names`: a structured one's in its structure (None at leaves without one)."""
        by_leaf = dict(zip(wrt, grads))
        out = []
        for n in self.names:
            if n not in self.specs:
                out.append(by_leaf[n])
                continue
            out.append(trees.build(self.specs[n],
                                   iter([by_leaf.get(m) for m in self.leaves[n]])))
        return out

    def output(self, y):
        """The function's value `y` as the user's function returns it."""
        if self.out_spec is None:
            return y
        return trees.build(self.out_spec, iter(y))

    def output_leaves(self, seed, label="the seed"):
        """A value of the output's structure (a seed, a tangent) as the flat
        function's output: the tuple of its leaves."""
        if self.out_spec is None:
            return seed
        spec = trees.spec_of(seed)
        if spec != self.out_spec and not trees.fits(seed, self.out_spec):
            raise S2SADError(
                f"{label} has the structure {describe(spec)}, and the output of "
                f"{self.f.__qualname__} has the structure {describe(self.out_spec)}",
                hint="Give it the output's structure, leaf for leaf.", **at_def(self.f))
        return tuple(trees.leaves(seed, self.out_spec))


def _carries(value) -> bool:
    return not isinstance(value, bool) and differentiable(kind_of(value)) and \
        not isinstance(value, (str, type(None)))


def type_name(spec) -> str:
    return spec.type.__name__ if spec is not None else "value"


def describe(spec) -> str:
    """A structure as the user would write its shape: ``dict(W, b)``, ``[(*, *), (*, *)]``."""
    if spec is None:
        return "a leaf"
    return repr(spec).replace("builtins.", "")


def flatten_like(value, spec, label: str, f):
    """The leaves of `value` (tangents, say) where it must have the structure
    `spec`; a mismatch names both structures."""
    got = trees.spec_of(value)
    if got != spec:
        raise S2SADError(f"{label} has the structure {describe(got)}, and it must match "
                         f"{describe(spec)}", hint="Give it the same structure, leaf for "
                                                  "leaf.", **at_def(f))
    return trees.leaves(value, spec)


def nested_blocks(flat: Flat, blocks, wrt: tuple) -> list:
    """Second-derivative blocks ``blocks[a][b]`` over the flat parameters `wrt`, as
    one block per pair of `flat.names`, nested as the structures are (the rows'
    structure outside, the columns' inside), None where a leaf has no derivative."""
    at = {n: i for i, n in enumerate(wrt)}

    def leaves_of(n):
        return flat.leaves[n] if n in flat.specs else [n]

    def build(n, items):
        return trees.build(flat.specs[n], iter(items)) if n in flat.specs else items[0]

    rows = []
    for n in flat.names:
        row = []
        for m in flat.names:
            row.append(build(n, [build(m, [blocks[at[a]][at[b]] if a in at and b in at
                                           else None for b in leaves_of(m)])
                                 for a in leaves_of(n)]))
        rows.append(row)
    return rows


# ------------------------------------------------------------- the tree API


def tree_flatten(tree) -> tuple:
    """``(leaves, spec)``: the leaves of `tree` in order (a dict's in its keys' order,
    a dataclass's in its fields' order) and its structure, which `tree_unflatten`
    takes back. Containers are dicts, lists, tuples, namedtuples, dataclasses and
    classes registered with `register_container`; everything else (None included) is
    a leaf."""
    out: list = []
    spec = trees.flatten(tree, out)
    return out, spec


def tree_unflatten(spec, leaves):
    """The tree of structure `spec` (from `tree_flatten`) with these `leaves`."""
    leaves = list(leaves)
    expected = 1 if spec is None else spec.n_leaves()
    if len(leaves) != expected:
        raise ValueError(f"the structure {describe(spec)} has {expected} leaves; got "
                         f"{len(leaves)}")
    return trees.build(spec, iter(leaves))


tree_leaves = trees.tree_leaves  # (in `ir`, so a function differentiated may call it)


tree_map = trees.tree_map


register_container = trees.register_container


# ------------------------------------------------------- the dispatcher's fast path


def _check_parts(expr, spec, names, ns, checks, access) -> bool:
    """`fast_caller`'s checks of the container `expr` of structure `spec` (appended to
    `checks`, its constants put in `ns`) and the text of each leaf (`access`, by the
    leaf names `names` yields); False where it cannot be checked so. (A function of
    the module, not a closure calling itself: that is a reference cycle per call.)"""
    tp = spec.type
    if spec.form == "dict":
        if tp is not dict or not all(_literal(k) for k in spec.keys):
            return False
        # (in order: the gradient is built with the keys in the argument's order)
        ns[f"_K{len(ns)}"] = tuple(spec.keys)
        checks.append(f"type({expr}) is dict and tuple({expr}) == _K{len(ns) - 1}")
        parts = [f"{expr}[{k!r}]" for k in spec.keys]
    elif tp is list or tp is tuple:
        checks.append(f"type({expr}) is {tp.__name__} and len({expr}) == {len(spec)}")
        parts = [f"{expr}[{i}]" for i in range(len(spec))]
    elif spec.form in ("sequence", "fields"):
        ns[f"_T{len(ns)}"] = tp
        checks.append(f"type({expr}) is _T{len(ns) - 1}")
        parts = [f"{expr}[{i}]" if spec.form == "sequence" else f"{expr}.{k}"
                 for i, k in enumerate(spec.keys)]
    else:
        return False
    for part, child in zip(parts, spec.children):
        if child is None:
            access[next(names)] = part
        elif not _check_parts(part, child, names, ns, checks, access):
            return False
    return True


def fast_caller(flat: Flat, wrt: tuple, inner, fallback, entry: str, single: bool,
                params_text: str, call_text: str):
    """Generated Python, with `f`'s parameter list (`params_text`), that checks the
    containers of a call have the structure and leaf types of `flat`'s call, calls
    `inner` (the gradient of the flat function for `wrt`) on their leaves and builds
    the gradients in their structures; any other call goes to `fallback`. None where
    a container cannot be checked this way (a registered class, keys that are not
    literals). `single`: one gradient, not a tuple of them."""
    ns = {"_inner": inner, "_slow": fallback, "_made": _made_fields}
    checks, access = [], {}

    for n, spec in flat.specs.items():
        if not _check_parts(n, spec, iter(flat.leaves[n]), ns, checks, access):
            return None
    for n, value in flat.statics.items():  # (the same function: by identity)
        ns[f"_C{len(ns)}"] = value
        checks.append(f"{n} is _C{len(ns) - 1}")
    for i, (m, expr) in enumerate(access.items()):
        ns[f"_L{i}"] = type(flat.values[m])
        checks.append(f"type({expr}) is _L{i}")
    args = ", ".join(access.get(m, m) for m in flat.values)
    position = {m: i for i, m in enumerate(wrt)}

    def record(spec, items):
        ns[f"_T{len(ns)}"] = spec.type
        if spec.form == "sequence":
            return f"_T{len(ns) - 1}({', '.join(items)})"
        return f"_made(_T{len(ns) - 1}, {spec.keys!r}, ({''.join(p + ', ' for p in items)}))"

    def built(spec, names):
        return literal(spec, iter([f"_r[{position[m]}]" if m in position else "None"
                                   for m in names]), record)

    grads = [built(flat.specs[n], flat.leaves[n]) if n in flat.specs else
             f"_r[{position[n]}]" for n in flat.names]
    result = grads[0] if single else "(" + "".join(g + ", " for g in grads) + ")"
    call = f"_v, _r = _inner({args})" if entry == "value_and_grad" else f"_r = _inner({args})"
    value = "(_v, _g)" if entry == "value_and_grad" else "_g"
    text = (f"def _fast({params_text}):\n"
            f"    if {' and '.join(checks) or 'True'}:\n"
            f"        {call}\n"
            f"        _g = {result}\n"
            f"        return {value}\n"
            f"    return _slow({call_text})\n")
    exec(compile(text, f"<s2sad containers {flat.f.__qualname__}>", "exec"), ns)
    fast = ns["_fast"]
    fast.__defaults__ = flat.f.__defaults__
    fast.__kwdefaults__ = flat.f.__kwdefaults__
    return fast


def _literal(key) -> bool:
    return type(key) in (str, int, bool, float) or key is None


def _made_fields(tp, names, values):
    """An instance of the dataclass `tp` with these field values (as `trees.build`)."""
    obj = object.__new__(tp)
    for name, v in zip(names, values):
        object.__setattr__(obj, name, v)
    return obj


# ----------------------------------------------------------- the derivative's text


def leaf_expressions(expr: str, spec) -> list:
    """The expressions reaching each leaf of `spec` from `expr`, in order."""
    if spec is None:
        return [expr]
    out = []
    for i, child in enumerate(spec.children):
        key = spec.keys[i] if spec.keys else i
        part = f"[{key!r}]" if spec.form == "dict" else \
            f".{key}" if spec.form in ("fields", "registered") else f"[{i}]"
        out.extend(leaf_expressions(expr + part, child))
    return out


def literal(spec, parts, record=None) -> str:
    """Python text building a container of structure `spec` from the texts `parts`
    (an iterator, one per leaf); ``record(spec, items)`` writes a namedtuple's or
    dataclass's (by default its constructor, by name)."""
    if spec is None:
        return next(parts)
    items = [literal(c, parts, record) for c in spec.children]
    tp = spec.type
    if tp is dict:
        return "{" + ", ".join(f"{k!r}: {p}" for k, p in zip(spec.keys, items)) + "}"
    if tp is list:
        return "[" + ", ".join(items) + "]"
    if tp is tuple:
        return "(" + ", ".join(items) + ("," if len(items) == 1 else "") + ")"
    if record is not None:
        return record(spec, items)
    if spec.form == "sequence":
        return f"{tp.__name__}({', '.join(items)})"
    return f"{tp.__name__}(" + ", ".join(f"{k}={p}" for k, p in zip(spec.keys, items)) + ")"


def _target(spec, names):
    """An unpacking target for a tree of sequences (``(a, b), (c, d)``), or None where
    a dict, a dataclass or a registered class is in it."""
    if spec is None:
        return next(names)
    if spec.form != "sequence":
        return None
    items = [_target(c, names) for c in spec.children]
    if any(i is None for i in items):
        return None
    return "(" + ", ".join(items) + ("," if len(items) == 1 else "") + ")"


def structured_text(text: str, flat: Flat, wrt: tuple, name: str) -> str:
    """The emitted gradient `text` of the flat function, its entry `name` shown as
    it runs for the user's call: taking the user's parameters, reading the leaves
    out of the containers in its first lines, and giving each container's gradient
    built in its structure (what the dispatcher does around the flat gradient)."""
    lines = text.split("\n")
    start = next((i for i, line in enumerate(lines) if line.startswith(f"def {name}(")), None)
    if start is None:
        return text
    end = next((i for i in range(start + 1, len(lines)) if lines[i].startswith("def ")),
               len(lines))
    ret = max((i for i in range(start, end) if lines[i].startswith("    return ")),
              default=None)
    if ret is None:
        return text
    import ast

    names, n_pos = flat.f.__code__.co_varnames, flat.f.__code__.co_argcount
    params = list(names[:n_pos])
    kw = list(names[n_pos:n_pos + flat.f.__code__.co_kwonlyargcount])
    head = f"def {name}({', '.join(params + (['*'] + kw if kw else []))}):"
    unpack = []
    for n, spec in flat.specs.items():
        target = _target(spec, iter(flat.leaves[n]))
        unpack.append(f"    {target[1:-1] if target.startswith('(') else target} = {n}"
                      if target is not None else
                      f"    {', '.join(flat.leaves[n])} = "
                      f"{', '.join(leaf_expressions(n, spec))}")
    value = ast.parse(lines[ret].strip()[len("return "):], mode="eval").body
    # (one gradient per leaf: a tuple of them, of one where the tree has one leaf)
    parts = [ast.unparse(e) for e in value.elts] if isinstance(value, ast.Tuple) and \
        len(value.elts) == len(wrt) else [ast.unparse(value)]
    by_leaf = dict(zip(wrt, parts))
    tail, out = [], []
    for n in flat.names:
        if n in flat.specs:
            built = literal(flat.specs[n], iter([by_leaf.get(m, "None")
                                                 for m in flat.leaves[n]]))
            tail.append(f"    {n}_bar = {built}")
            out.append(f"{n}_bar")
        else:
            out.append(by_leaf[n])
    tail.append(f"    return {', '.join(out)}")
    return "\n".join(lines[:start] + [head] + unpack + lines[start + 1:ret] + tail +
                     lines[ret + 1:])
