"""structure_calls: a function of the user's called with a container of parameters.

`structures` follows containers where the derivative is built, so a call that passes
one (``h = layer(p, h)``, ``loss = model(params, x)``) cannot hand it to a separately
compiled function: `inline` puts the callee's body in place of the call, its
variables renamed apart (``h%layer1``), its parameters bound to the arguments (a
container stays a container), each `return` an assignment of the result, so the
containers it reads, builds and returns are followed as the caller's own. The lines
it adds carry the line of the call (errors and the derivative's comments point
there). `single_exit` moves the statements after a ``return`` inside an ``if`` into
the branch that goes on, so every return ends the body.

A name the callee reads that means something else where it is called (a factory's
closure variable, ``layers`` of stax's ``serial``; another module's global) is read
by a name of its own (`defaults.capture`). Refused, at the call: a callee that is recursive,
has ``*args``/``**kwargs``, a default that is not a constant, or a ``return`` inside a
loop.

Imports `errors`, `scopes` and `structure_values`.
"""

from __future__ import annotations

import ast
import copy
import inspect
import os
import sys
import sysconfig
import types

from ..errors import NotDifferentiableError
from ..ir import trees
from . import pairs
from .defaults import capture, default_functions, is_function, with_defaults
from .scopes import rename_scoped
from .structure_values import Node, assign, assigned_once, dict_of_pairs, located
from .tree_index import Nodes, has, of

_HINT = ("Pass the arrays themselves (layer(p[\"W\"], p[\"b\"], x)), or keep the function "
         "simple enough to be put in place of the call.")


def inline(rw, callee, call: ast.Call, at: ast.AST, parse) -> str:
    """Rewrite the call `call` of the user function `callee` (in `rw`, a
    `structures._Rewriter`), whose arguments include a container, into `rw.pending`;
    the name its result is bound to (in `rw.env` where it is a container)."""
    name = getattr(callee, "__name__", "f")
    if callee in rw.inlining:
        if any(isinstance(rw.value(a, [], probe=True), Node) for a in call.args) or any(
                isinstance(rw.value(k.value, [], probe=True), Node) for k in call.keywords):
            raise _refuse(rw, at, f"s2sad cannot pass a container of parameters to `{name}`: "
                                  "it calls itself")
        raise rw.loc.error(  # (handed a function: ``asr(f, lo, m, d + 1)``)
            NotDifferentiableError, at,
            f"s2sad puts `{name}` in place of its calls, as it is handed a function, and "
            f"`{name}` calls itself",
            f"Let `{name}` call the function by its name (a module-level `def`), not as "
            "an argument, or differentiate with s2sad.grad(f, mode=\"tape\").")
    names = callee.__code__.co_varnames[:callee.__code__.co_argcount]
    given = {names[i]: rw.classes[a.id][0] for i, a in enumerate(call.args[:len(names)])
             if isinstance(a, ast.Name) and a.id in rw.classes}  # (``Model.forward(self,
    # params, x)``: its `self` is the caller's, whose methods it calls too)
    parsed = parse(callee, given) if given else parse(callee)
    tree = copy.deepcopy(parsed.tree)
    module = _module_named(rw, call)
    qualified, captured = {}, {}
    for free, obj in parsed.refs.items():
        if "." in free:
            continue
        if free in rw.caller_locals or rw.lookup(free) is not obj:
            if module is not None and getattr(module[1], free, None) is obj:
                qualified[free] = module[0]  # (read through its module: mp.l2_norm)
            else:  # (a closure's variable, ``layers`` of stax's ``serial``)
                captured[free] = capture(rw, f"{free}_{name}", obj, callee, free)
    if qualified:
        _qualify(tree, qualified, parsed.locals | {
            a.arg for a in ast.walk(tree.args) if isinstance(a, ast.arg)})
    for s in tree.body if captured else ():
        rename_scoped(s, captured)
    # (what the derivative depends on though no line of it reads the name: `parse`)
    rw.put_in_place.setdefault(ast.unparse(call.func), callee)
    omitted = default_functions(callee, call)
    if omitted:  # (`layer(x, W)` of `def layer(x, W, act=np.tanh)`: the default passed)
        call = with_defaults(rw, call, omitted, parsed.tree.args, module, name, at)
    # (its lines keep their numbers where it is in the caller's file: the derivative's
    # comments and errors show them; from another file, the call's line)
    same_file = callee.__code__.co_filename == getattr(rw.loc.info, "filename", None)
    return _put_in_place(rw, callee, tree, parsed.locals, call, at, name,
                         keep_lines=same_file)


_LIBRARY_DIRS = tuple(os.path.abspath(d) + os.sep for d in {
    sysconfig.get_paths().get(k) for k in ("stdlib", "platstdlib", "purelib", "platlib")}
    if d) + (os.path.dirname(os.path.dirname(os.path.abspath(__file__))) + os.sep,)


def library_code(f) -> bool:
    """Is `f` a function of the standard library, of an installed package (SciPy's
    ``linalg.solve_triangular``, a ``*args`` wrapper with a rule) or of s2sad itself
    (a runtime helper the emitted code calls)? Not the user's: a call of it is never
    put in place of the call."""
    return os.path.abspath(f.__code__.co_filename).startswith(_LIBRARY_DIRS)


def library_module(m) -> bool:
    """Is the module `m` the standard library's (`math`, built in or not), an
    installed package's (NumPy's) or s2sad's, as `library_code` tells functions? A
    module of the user's (a ``config.py``, one made at run time) is not."""
    if m.__name__.partition(".")[0] in sys.stdlib_module_names:
        return True
    path = getattr(m, "__file__", None)
    return path is not None and os.path.abspath(path).startswith(_LIBRARY_DIRS)


def _module_named(rw, call):
    """``(name, module)`` where the call is ``m.f(...)`` with `m` a module the caller
    reaches and `f` defined in it; None otherwise."""
    func = call.func
    if isinstance(func, ast.Attribute) and isinstance(func.value, ast.Name) and \
            func.value.id not in rw.caller_locals:
        owner = rw.lookup(func.value.id)
        if isinstance(owner, types.ModuleType) and getattr(
                getattr(owner, func.attr, None), "__module__", None) == owner.__name__:
            return func.value.id, owner
    return None


def _qualify(tree, names: dict, local: set):
    """Read each free name of `names` in `tree` through its module's name."""
    _Qualify(names, local).visit(tree)


class _Qualify(ast.NodeTransformer):
    """`_qualify`'s rewriting (a class nested in a function is a reference cycle)."""

    def __init__(self, names: dict, local: set):
        self.names, self.local = names, local

    def visit_Name(self, node):
        if node.id in self.names and node.id not in self.local and \
                isinstance(node.ctx, ast.Load):
            return ast.copy_location(ast.Attribute(
                value=ast.Name(id=self.names[node.id], ctx=ast.Load()), attr=node.id,
                ctx=ast.Load()), node)
        return node


def inline_local(rw, tree: ast.FunctionDef, call: ast.Call, at: ast.AST) -> str:
    """`inline` for a function defined inside the function (a nested ``def`` or a
    lambda bound to a name): the names it does not assign are the enclosing
    function's, read where it is called, as Python reads a closure's; its lines keep
    their own numbers."""
    if tree in rw.inlining:
        raise _refuse(rw, at, f"s2sad cannot differentiate `{tree.name}`: it calls itself")
    tree = copy.deepcopy(tree)
    assigned = {n.id for n in ast.walk(ast.Module(body=tree.body, type_ignores=[]))
                if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Store)}
    key = rw.local_functions[tree.name]
    return _put_in_place(rw, key, tree, assigned, call, at, tree.name, keep_lines=True)


def substituted(tree: ast.FunctionDef, call: ast.Call):
    """The expression a call of the one-expression function `tree` (``return e``,
    a lambda) stands for, its parameters replaced by the call's arguments, where that
    evaluates each argument once as the call would (each is a name or a constant, or
    its parameter is read once); None where it cannot."""
    if len(tree.body) != 1 or not isinstance(tree.body[0], ast.Return) or \
            tree.body[0].value is None:
        return None
    a = tree.args
    params = a.posonlyargs + a.args
    if a.vararg or a.kwarg or a.kwonlyargs or call.keywords or \
            len(call.args) != len(params) or any(isinstance(x, ast.Starred) for x in call.args):
        return None
    body = copy.deepcopy(tree.body[0].value)
    if any(isinstance(n, (ast.Lambda, ast.NamedExpr, ast.ListComp, ast.GeneratorExp,
                          ast.SetComp, ast.DictComp)) for n in ast.walk(body)):
        return None
    reads = {}
    for n in ast.walk(body):
        if isinstance(n, ast.Name):
            reads[n.id] = reads.get(n.id, 0) + 1
    args = dict(zip([p.arg for p in params], call.args))
    for p, arg in args.items():
        if reads.get(p, 0) > 1 and not _plain(arg):
            return None
    return _Substitute(args, load_only=False).visit(body)


class _Substitute(ast.NodeTransformer):
    """Each name of `values` (read, with `load_only`) replaced by a copy of its value:
    `substituted`'s parameters, `_functions_passed`'s aliases (a class nested in a
    function is a reference cycle)."""

    def __init__(self, values: dict, load_only: bool):
        self.values, self.load_only = values, load_only

    def visit_Name(self, node):
        if node.id in self.values and (not self.load_only or isinstance(node.ctx, ast.Load)):
            return ast.copy_location(copy.deepcopy(self.values[node.id]), node)
        return node


def _plain(e) -> bool:
    """Is `e` read again at no cost and with no effect: a name, a constant, an item
    or attribute of one by such an index, a negation of one?"""
    if isinstance(e, (ast.Name, ast.Constant)):
        return True
    if isinstance(e, ast.Subscript):
        return _plain(e.value) and _plain(e.slice)
    if isinstance(e, ast.Attribute):
        return _plain(e.value)
    if isinstance(e, ast.UnaryOp):
        return _plain(e.operand)
    return False


def _functions_passed(rw, bound, body):
    """A parameter given a function (``logsumexp``, ``special.logsumexp``, a function
    defined inside the caller) is that function where the body calls it: the name is
    replaced by the argument, so the call is one the compiler resolves."""
    aliases = {}
    kept = []
    for s in bound:
        if isinstance(s, ast.Assign) and len(s.targets) == 1 and isinstance(
                s.targets[0], ast.Name) and _names_function(rw, s.value):
            aliases[s.targets[0].id] = s.value
        else:
            kept.append(s)
    if not aliases:
        return bound, body
    assigned = {n.id for n in ast.walk(ast.Module(body=body, type_ignores=[]))
                if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Store)}
    aliases = {k: v for k, v in aliases.items() if k not in assigned}
    return kept + [s for s in bound if isinstance(s, ast.Assign) and isinstance(
        s.targets[0], ast.Name) and s.targets[0].id in assigned and s not in kept], \
        [_Substitute(aliases, load_only=True).visit(s) for s in body]


def _names_function(rw, e) -> bool:
    """Does `e` (a name or a chain of attributes) name a function: one of the
    caller's local functions, or a function, builtin or ufunc it resolves to?"""
    if isinstance(e, ast.Name) and e.id in rw.local_functions:
        return True
    return names_function(e, rw.lookup, lambda n: n in rw.caller_locals or n in rw.env)


def branched(rw, e) -> ast.Name:
    """``a if test else b``, or ``a and b`` / ``a or b``, whose parts put a
    function's lines in place (`CallRewrites.puts_lines_in`), as the ``if``
    statements before the line that a person writes instead (each part's lines run
    where Python evaluates it, the test once): the name they assign."""
    name = rw.anonymous()
    if isinstance(e, ast.IfExp):
        lines = [ast.If(test=e.test, body=[assign(name, e.body, e)],
                        orelse=[assign(name, e.orelse, e)])]
    else:  # (the first value, then each next where the last does not decide it)
        lines = [assign(name, e.values[0], e)]
        for value in e.values[1:]:
            test = ast.Name(id=name, ctx=ast.Load())
            if isinstance(e.op, ast.Or):
                test = ast.UnaryOp(op=ast.Not(), operand=test)
            lines.append(ast.If(test=test, body=[assign(name, value, e)], orelse=[]))
    rw.pending.extend(rw.block(located(lines, e)))
    return ast.copy_location(ast.Name(id=name, ctx=ast.Load()), e)


def names_function(e, lookup, local=lambda n: False) -> bool:
    """Does `e`, a name or a chain of attributes whose first name is not `local` (or
    a keyword argument's value), name a function, builtin or ufunc (``sq``,
    ``math.sin``) ``lookup(name)`` resolves it to?"""
    e = e.value if isinstance(e, ast.keyword) else e
    chain = []
    while isinstance(e, ast.Attribute):
        chain.append(e.attr)
        e = e.value
    if not isinstance(e, ast.Name) or local(e.id):
        return False
    value = lookup(e.id)
    for attr in reversed(chain):
        value = getattr(value, attr, None)
    return is_function(value)


def _put_in_place(rw, key, tree, assigned, call, at, name, keep_lines) -> str:
    """The body of `tree` in place of `call`: its parameters and the names in
    `assigned` renamed apart, bound to the arguments, its returns assigning the
    result; the lines go to `rw.pending`. `key` marks it as being put in place (a
    call of itself inside is refused)."""
    a = tree.args
    line = getattr(at, "lineno", None)
    rw.fresh += 1
    suffix = f"{name}{rw.fresh}"
    local = {p.arg for p in a.posonlyargs + a.args + a.kwonlyargs} | set(assigned) | {
        p.arg for p in (a.vararg, a.kwarg) if p is not None}
    renamed = {n: f"{n}%{suffix}" for n in local}
    rw.once |= {renamed[n] for n in assigned_once(tree) if n in renamed}
    result = f"%{suffix}"
    for s in tree.body:
        rename_scoped(s, renamed)
    body = single_exit(tree.body, result, rw, at, name)
    bound = _bind(rw, a, call, renamed, at, name)
    bound, body = _functions_passed(rw, bound, body)
    for node in ast.walk(ast.Module(body=bound + body, type_ignores=[])):
        if isinstance(node, (ast.stmt, ast.expr)) and (
                not keep_lines or getattr(node, "lineno", None) is None):
            node.lineno = node.end_lineno = line
            node.col_offset = getattr(at, "col_offset", 0)
            node.end_col_offset = getattr(at, "end_col_offset", None)
    rw.pending.extend(rw.block(bound))  # (the arguments: computed before the call)
    rw.inlining.append(key)
    functions = rw.functions_state()  # (what its body defines is its own)
    try:
        rw.pending.extend(rw.block(body))
    finally:
        rw.inlining.pop()
        rw.local_functions, rw.ambiguous_functions = functions
    return result


def _spread(rw, call, at, name):
    """The call's positional arguments and keywords with ``*t`` and ``**d`` spread
    out, where `t` is a display or a container whose length is known here (a tuple
    argument, a ``*args``) and `d` a dict display or container of constant keys."""
    args, keywords = [], []
    for x in call.args:
        if not isinstance(x, ast.Starred):
            args.append(x)
            continue
        v = x.value
        if isinstance(v, (ast.Tuple, ast.List)) and not any(
                isinstance(e, ast.Starred) for e in v.elts):
            args.extend(v.elts)
            continue
        node = rw.value(v, [], probe=True)
        if isinstance(node, Node) and node.form == "sequence":
            n = len(node.children)
        elif isinstance(v, ast.Name) and v.id in rw.displays:
            n = rw.displays[v.id]  # (a name given one display: ``pair = (x, y)``)
        else:
            raise _refuse(rw, at, f"s2sad cannot pass `*` of a value whose length it does "
                                  f"not know here to `{name}`")
        args.extend(ast.Subscript(value=copy.deepcopy(v), slice=ast.Constant(i),
                                  ctx=ast.Load()) for i in range(n))
    for k in call.keywords:
        if k.arg is not None:
            keywords.append(k)
            continue
        v = k.value
        if isinstance(v, ast.Dict) and all(isinstance(key, ast.Constant) and
                                           isinstance(key.value, str) for key in v.keys):
            keywords.extend(ast.keyword(arg=key.value, value=item)
                            for key, item in zip(v.keys, v.values))
            continue
        node = rw.value(v, [], probe=True)
        if not (isinstance(node, Node) and node.form == "dict" and
                all(isinstance(key, str) for key in node.keys)):
            raise _refuse(rw, at, f"s2sad cannot pass `**` of a value whose keys it does "
                                  f"not know here to `{name}`")
        keywords.extend(ast.keyword(arg=key, value=ast.Subscript(
            value=copy.deepcopy(v), slice=ast.Constant(key), ctx=ast.Load()))
            for key in node.keys)
    return args, keywords


def _bind(rw, a, call, renamed, at, name) -> list:
    """Assignments of the call's arguments to the callee's renamed parameters: the
    positional arguments past the named ones to ``*args`` as a tuple, the keywords
    no parameter takes to ``**kwargs`` as a dict (containers whose lengths and keys
    are known here)."""
    params = a.posonlyargs + a.args
    args, keywords = _spread(rw, call, at, name)
    values: dict = {}
    for p, arg in zip(params, args):
        values[p.arg] = arg
    if len(args) > len(params) and a.vararg is None:
        raise _refuse(rw, at, f"`{name}` takes {len(params)} positional arguments, and "
                              f"this call gives {len(args)}")
    named = {p.arg for p in params + a.kwonlyargs}
    extra: dict = {}
    for k in keywords:
        if k.arg in values and k.arg in named or k.arg in extra:
            raise _refuse(rw, at, f"`{name}` is given `{k.arg}` twice")
        if k.arg in named:
            values[k.arg] = k.value
        elif a.kwarg is not None:
            extra[k.arg] = k.value
        else:
            raise _refuse(rw, at, f"`{name}` has no parameter `{k.arg}`")
    defaults = dict(zip([p.arg for p in params][len(params) - len(a.defaults):], a.defaults))
    defaults.update({p.arg: d for p, d in zip(a.kwonlyargs, a.kw_defaults) if d is not None})
    out = []
    for p in params + a.kwonlyargs:
        value = values.get(p.arg, defaults.get(p.arg))
        if value is None:
            raise _refuse(rw, at, f"`{name}` is called without its parameter `{p.arg}`")
        if p.arg not in values and not isinstance(value, ast.Constant) and not (
                isinstance(value, ast.Name) and value.id.startswith("%")):
            # (a local function's defaults were computed where its `def` ran)
            raise _refuse(rw, at, f"s2sad puts `{name}` in place of the call, and its default "
                                  f"for `{p.arg}` is not a constant")
        bind = ast.Assign(targets=[ast.Name(id=renamed[p.arg], ctx=ast.Store())], value=value)
        bind.static_argument = True  # (a constant argument stays one: `structures`)
        out.append(bind)
    if a.vararg is not None:
        rest = ast.Tuple(elts=list(args[len(params):]), ctx=ast.Load())
        rest.container = True  # (a tuple of known length, even of plain numbers)
        out.append(ast.Assign(targets=[ast.Name(id=renamed[a.vararg.arg], ctx=ast.Store())],
                              value=rest))
    if a.kwarg is not None:
        out.append(ast.Assign(targets=[ast.Name(id=renamed[a.kwarg.arg], ctx=ast.Store())],
                              value=ast.Dict(keys=[ast.Constant(k) for k in extra],
                                             values=list(extra.values()))))
    return out


def single_exit(body: list, result: str, rw, at, name) -> list:
    """`body` with each ``return e`` an assignment ``result = e`` that ends its
    path: statements after an ``if`` one of whose branches returns move into the
    other branch."""
    out = []
    for i, s in enumerate(body):
        if isinstance(s, ast.Return):
            value = s.value if s.value is not None else ast.Constant(value=None)
            out.append(ast.Assign(targets=[ast.Name(id=result, ctx=ast.Store())],
                                  value=value))
            return out
        if isinstance(s, (ast.For, ast.While)) and any(
                isinstance(n, ast.Return) for n in ast.walk(s)):
            raise _refuse(rw, at, f"s2sad puts `{name}` in place of the call, and it returns "
                                  "from inside a loop")
        if isinstance(s, ast.If) and any(isinstance(n, ast.Return) for n in ast.walk(s)):
            rest = body[i + 1:]
            s.body = single_exit(s.body + ([] if _ends(s.body) else rest), result, rw, at,
                                 name)
            s.orelse = single_exit(s.orelse + ([] if _ends(s.orelse) else rest), result, rw,
                                   at, name)
            out.append(s)
            return out
        out.append(s)
    # (a path that falls off the end returns None)
    out.append(ast.Assign(targets=[ast.Name(id=result, ctx=ast.Store())],
                          value=ast.Constant(value=None)))
    return out


def _ends(body) -> bool:
    """Does every path through `body` end in a ``return``?"""
    if not body:
        return False
    last = body[-1]
    if isinstance(last, ast.Return):
        return True
    if isinstance(last, ast.If):
        return _ends(last.body) and _ends(last.orelse)
    return False


def _refuse(rw, at, message):
    return rw.loc.error(NotDifferentiableError, at, message, _HINT)


_RETURNS: dict = {}  # code object -> does the function return a dict it builds?


def returns_containers(func, parse) -> bool:
    """Does the user function `func` build a dict of computed values (see
    `builds_containers`)? A call of it is put in place in a rewritten caller, so the
    dict it returns is followed; one that cannot be parsed is not. A namedtuple or
    dataclass class `func` builds one."""
    if trees.is_record_type(func):
        return True
    code = func.__code__
    if code.co_flags & (inspect.CO_VARARGS | inspect.CO_VARKEYWORDS):
        return True  # (its ``*args`` and ``**kwargs`` are bound where it is put in place)
    if code not in _RETURNS:
        try:
            parsed = parse(func)
            _RETURNS[code] = builds_containers(parsed.tree) or any(
                trees.is_record_type(v) for v in parsed.refs.values())
        except Exception:  # (an error of its own shows where it is compiled)
            _RETURNS[code] = False
    return _RETURNS[code]


def mark_list_tuples(tree, returned_lists=None, nodes=None) -> None:
    """Mark (``container = True``) each tuple display of `tree` that holds a list (a
    list display or comprehension, or a name the function makes a list: assigned one
    or another such name, grown by ``append``, ``extend`` or ``insert``, or unpacked
    from a call whose function returns lists there: ``returned_lists(call)`` gives,
    per position, whether it is a list, or None), so that `structures` follows the
    tuple: reverse mode keeps no adjoint of a list inside a tuple, and a tuple of
    known length is its items (``xs, vs = simulate(x)``, ``for seq in (xs, vs)``).
    The names found are kept on the tree (`LIST_NAMES`). `nodes`:
    ``list(ast.walk(tree))``, where the caller has it (nothing here moves a node)."""
    lists = set()
    assigns = []
    if nodes is None:
        nodes = Nodes(tree)
    if not has(nodes, ast.Tuple):
        setattr(tree, LIST_NAMES, lists)
        return  # (no tuple display to mark: the names are not needed)
    for node in nodes:
        if isinstance(node, ast.Assign) and _makes_list(node.value):
            lists |= {t.id for t in node.targets if isinstance(t, ast.Name)}
        elif isinstance(node, ast.Assign):
            assigns.append(node)
        elif isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and \
                node.func.attr in ("append", "extend", "insert") and \
                isinstance(node.func.value, ast.Name):
            lists.add(node.func.value.id)
    for node in assigns:  # (``xs, vs = simulate(x)``)
        t = node.targets[0]
        if len(node.targets) == 1 and isinstance(t, ast.Tuple) and \
                isinstance(node.value, ast.Call) and returned_lists is not None:
            got = returned_lists(node.value)
            if got is not None and len(got) == len(t.elts):
                lists |= {e.id for e, is_list in zip(t.elts, got)
                          if is_list and isinstance(e, ast.Name)}
    while True:  # (``ys = xs``)
        more = {t.id for a in assigns if isinstance(a.value, ast.Name) and a.value.id in lists
                for t in a.targets if isinstance(t, ast.Name)} - lists
        if not more:
            break
        lists |= more
    setattr(tree, LIST_NAMES, lists)
    parallel = {id(n.value) for n in nodes if isinstance(n, ast.Assign) and
                isinstance(n.value, ast.Tuple) and len(n.targets) == 1 and
                isinstance(n.targets[0], ast.Tuple)}  # (``xs, vs = [], []``)
    for node in nodes:
        if isinstance(node, ast.Tuple) and isinstance(node.ctx, ast.Load) and \
                id(node) not in parallel and any(
                _makes_list(e) or isinstance(e, ast.Name) and e.id in lists
                for e in node.elts):
            node.container = True


LIST_NAMES = "s2sad_list_names"  # (the attribute `mark_list_tuples` leaves on a tree)


def returned_lists(tree):
    """Per position, whether what the function `tree` returns there is a list, where
    every ``return`` gives a tuple display (`mark_list_tuples` having marked it);
    None otherwise."""
    returns = [n.value for n in ast.walk(tree) if isinstance(n, ast.Return)]
    lists = getattr(tree, LIST_NAMES, set())
    if not returns or not all(isinstance(v, ast.Tuple) for v in returns) or \
            len({len(v.elts) for v in returns}) != 1:
        return None
    return [all(_makes_list(v.elts[i]) or isinstance(v.elts[i], ast.Name) and
                v.elts[i].id in lists for v in returns) for i in range(len(returns[0].elts))]


def _makes_list(e) -> bool:
    return isinstance(e, (ast.List, ast.ListComp)) or isinstance(e, ast.Call) and \
        isinstance(e.func, ast.Name) and e.func.id == "list"


def builds_containers(tree, callees=(), generated=False, nodes=None) -> bool:
    """Does the function build a dict that holds a computed value (``{"h": h}``,
    ``dict(h=h)``), or
    call a function that does (`callees`: a bool per function it calls)? Such dicts
    are followed (`rewrite` with no container parameters) wherever they are; a
    function whose dicts hold constants only (settings) keeps them as written. So
    are tuples holding lists (`mark_list_tuples`), and lists of tuples handed to
    other functions (`hands_over_tuple_lists`), unless the function is gradient
    code s2sad `generated` (its tapes are lists of tuples forward mode reads).
    `nodes`: ``list(ast.walk(tree))``, where the caller has it."""
    if any(callees):
        return True
    if nodes is None:
        nodes = Nodes(tree)
    if any(node is not tree for node in of(nodes, ast.FunctionDef)) or has(
            nodes, ast.Lambda) and any(isinstance(node.value, ast.Lambda)
                                       for node in of(nodes, ast.Assign)):
        return True  # (a function defined inside: put in place where called)
    if any(not all(isinstance(v, ast.Constant) for v in node.values)
           for node in of(nodes, ast.Dict)):
        return True
    if any(dict_of_pairs(node) for node in of(nodes, ast.DictComp)):
        return True  # (``{k: v for k, v in zip(names, arrays)}``)
    if any(isinstance(node.func, ast.Name) and node.func.id == "dict" and (not all(
            isinstance(k.value, ast.Constant) for k in node.keywords) or dict_of_pairs(node))
           for node in of(nodes, ast.Call)):
        return True  # (``dict(a=x, b=y)``: a display by another name; ``dict(zip(...))``)
    if any(getattr(node, "container", False) for node in of(nodes, ast.Tuple)):
        return True  # (a tuple holding a list: `mark_list_tuples`)
    tuples = has(nodes, ast.Tuple)
    return not generated and (tuples and hands_over_tuple_lists(tree) or
                              written_dicts(tree, nodes))


def written_dicts(tree, nodes=None) -> bool:
    """Does the function write into a dict display it makes, or into a parameter, by
    constant keys only (``d = {"a": 0.0}``, then ``d["a"] += x * i``; or the variable
    of a loop over a display of them, which `structure_loops` unrolls)? Such a dict is
    followed, one variable per key, as a person would write it, and so is one handed
    to such a function (put in place of the call); one also written by a key known
    only at run time is kept as written."""
    displays, keys = {a.arg for a in ast.walk(tree.args) if isinstance(a, ast.arg)} \
        if isinstance(tree, ast.FunctionDef) else set(), {}
    nodes = Nodes(tree) if nodes is None else nodes
    if not has(nodes, ast.Subscript):
        return False  # (no write into an item)
    unrolled = {n.id for s in of(nodes, ast.For) if _over_display(s.iter)
                for n in ast.walk(s.target) if isinstance(n, ast.Name)}
    for node in of(nodes, ast.Assign, ast.AugAssign):
        if isinstance(node, ast.Assign) and isinstance(node.value, ast.Dict):
            displays.update(t.id for t in node.targets if isinstance(t, ast.Name))
        targets = node.targets if isinstance(node, ast.Assign) else [node.target]
        for t in targets:
            if isinstance(t, ast.Subscript) and isinstance(t.value, ast.Name):
                keys.setdefault(t.value.id, []).append(isinstance(t.slice, ast.Constant) or (
                    isinstance(t.slice, ast.Name) and t.slice.id in unrolled))
    return any(n in displays and all(constant) for n, constant in keys.items())


def _over_display(e) -> bool:
    """Is `e` a display (``("a", "b")``), or `enumerate` of one, that a loop writing
    into a dict by its variable is unrolled over (`structure_loops`)?"""
    if isinstance(e, ast.Call) and isinstance(e.func, ast.Name) and \
            e.func.id == "enumerate" and len(e.args) == 1 and not e.keywords:
        e = e.args[0]
    return isinstance(e, (ast.Tuple, ast.List))


# (the calls that read a list of tuples where it is: not a function it is handed to)
_READERS = {"len", "list", "reversed", "enumerate", "zip", "sum", "min", "max", "sorted"}


def hands_over_tuple_lists(tree) -> bool:
    """Does the function return a list of tuples it makes (`pairs.tuple_lists`), or
    pass one to a function? Such a call is put in place, so `pairs` splits the list
    where the caller and the callee read it, as one function."""
    made = pairs.tuple_lists(tree)
    if not made:
        return False
    for node in ast.walk(tree):
        if isinstance(node, ast.Return) and isinstance(node.value, ast.Name) and \
                node.value.id in made:
            return True
        if isinstance(node, ast.Call) and not (
                isinstance(node.func, ast.Name) and node.func.id in _READERS or
                isinstance(node.func, ast.Attribute)) and any(
                    _list_named(a) in made for a in node.args):
            return True
    return False


def _list_named(e):
    """The name ``L`` of an argument ``L``, ``L[a:b]`` or ``list(L)``, or None."""
    if isinstance(e, ast.Subscript) and isinstance(e.slice, ast.Slice):
        e = e.value
    elif isinstance(e, ast.Call) and isinstance(e.func, ast.Name) and e.func.id == "list" \
            and len(e.args) == 1 and not e.keywords:
        e = e.args[0]
    return e.id if isinstance(e, ast.Name) else None


class CallRewrites:
    """The calls `structures._Rewriter` puts in place, and the functions defined
    inside the function it records: a mixin reading the rewriter's state (`env`,
    `local_functions`, `inlining`, `lazy`, `pending`)."""

    def puts_lines_in(self, e) -> bool:
        """Does a call in the expression `e` put lines in place (`puts_lines`)?"""
        return any(isinstance(n, ast.Call) and self.puts_lines(n) for n in ast.walk(e))

    def puts_lines(self, e: ast.Call) -> bool:
        """Does the call `e` put its function's lines in place (a container passed to
        it, and more than one expression it stands for: `substituted`)?"""
        callee = self.passes_container(e)
        return callee is not None and not (isinstance(callee, ast.FunctionDef) and
                                           substituted(callee, e) is not None)

    def passes_container(self, e: ast.Call):
        """The user function `e` calls with a container among its arguments (or
        returning one, or defined inside the function: its `ast.FunctionDef`), or
        None."""
        self.refuse_ambiguous(e)
        if isinstance(e.func, ast.Name) and e.func.id in self.local_functions:
            return self.local_functions[e.func.id]
        if self.bound_method(e) is not None:
            return self.bound_method(e)[0]
        callee = self.loc_refs(e.func)
        if not isinstance(callee, types.FunctionType) or hasattr(callee, "__s2sad__") or \
                library_code(callee):
            return None
        args = list(e.args) + [k.value for k in e.keywords]
        if any(isinstance(self.value(a, [], probe=True), Node) or _names_function(self, a)
               for a in args) or default_functions(callee, e):
            return callee  # (a container or a function passed: its body put in place)
        if any(_list_named(a) in self.tuple_lists for a in args):
            return callee  # (a list of tuples: `pairs` splits it in both, put together)
        if self.parse is not None and returns_containers(callee, self.parse):
            return callee  # (what it returns is followed: its body is put in place)
        return None

    def bound_method(self, e: ast.Call):
        """``(function, the container's expression)`` where `e` calls a container
        (its class's ``__call__``: ``self(x)``) or one of its class's methods
        (``self.loss(x)``) written in Python; else None."""
        if isinstance(e.func, ast.Attribute):
            owner, name = e.func.value, e.func.attr
        else:
            owner, name = e.func, "__call__"
        node = self.value(owner, [], probe=True)
        if not isinstance(node, Node) or name in node.keys:
            return None
        method = node.type.__dict__.get(name) if isinstance(node.type, type) else None
        method = getattr(node.type, name, None) if method is None else method
        if isinstance(method, property) and getattr(e, "reads_property", False):
            method = method.fget  # (`property_read`'s call of the getter)
        if isinstance(method, types.FunctionType) and not library_code(method):
            return method, owner
        return None

    def property_read(self, e: ast.Attribute):
        """The call of its getter where `e` reads a property of a container's class
        written in Python (``self.area``, with ``@property def area(self)``), made once
        per read so that `inlined` puts it in place once; else None."""
        node = self.value(e.value, [], probe=True)
        if not isinstance(node, Node) or not isinstance(node.type, type) or \
                not isinstance(e.ctx, ast.Load) or e.attr in (node.keys or ()):
            return None
        prop = getattr(node.type, e.attr, None)
        if not isinstance(prop, property) or not isinstance(prop.fget, types.FunctionType) \
                or library_code(prop.fget):
            return None
        if getattr(e, "getter_call", None) is None:
            e.getter_call = ast.copy_location(ast.Call(func=e, args=[], keywords=[]), e)
            e.getter_call.reads_property = True
        return e.getter_call

    def inlined(self, e: ast.Call):
        """The value of the call `e` of a user function with a container among its
        arguments, its body put in place (`inline`), once: asked again for the same
        call (`value`, then `expr`), the same value."""
        memo = self.__dict__.setdefault("_inlined_calls", {})
        got = memo.get(id(e))
        if got is not None and got[0] is e:
            return got[1]
        result = self._inlined(e)
        if not isinstance(result, ast.expr):  # (a name, a container: its lines are out)
            memo[id(e)] = (e, result)
        return result

    def _inlined(self, e: ast.Call):
        callee = self.passes_container(e)
        if isinstance(callee, ast.FunctionDef):
            if callee in self.inlining and id(callee) not in getattr(e, "argument_of", ()):
                raise self.refuse(e, f"s2sad cannot differentiate `{callee.name}`, defined "
                                     "inside the function: it calls itself",
                                  hint="Define it at module level (s2sad differentiates a "
                                       "module-level function that calls itself), or write "
                                       "the recursion as a loop.")
            for n in (n for arg in e.args + [k.value for k in e.keywords] for n in ast.walk(arg)):
                # (a call in an argument runs before this one, not inside it: `f(f(x))`)
                if isinstance(n, ast.Call):
                    n.argument_of = getattr(n, "argument_of", ()) + (id(callee),)
            expr = substituted(callee, e)
            if expr is not None:  # (one expression: in place of the call)
                self.inlining.append(callee)
                try:
                    return self.expr(expr)
                finally:
                    self.inlining.pop()
            if self.lazy:
                raise self.refuse(e, f"s2sad cannot call `{callee.name}` here (in a "
                                     "comprehension, `map`, a `key=`, a lambda, a "
                                     "conditional expression or "
                                     "`and`/`or`): it puts a function defined inside the "
                                     "function in place of its call, and this one is more "
                                     "than one `return` expression of its arguments",
                                  hint="Call it on a line of its own (a loop instead of the "
                                       "comprehension).")
            name = inline_local(self, callee, e, e)
            return self.env.get(name, name)
        if self.lazy or self.parse is None:
            raise self.refuse(e, "s2sad cannot pass a container of parameters or a function "
                                 "to a function inside a comprehension, `map`, a `key=`, a "
                                 "lambda, a conditional expression or `and`/`or` yet",
                              hint="Call it on a line of its own (a loop instead of the "
                                   "comprehension).")
        method = self.bound_method(e)
        if method is not None:  # (a container's method: itself the first argument)
            e = ast.copy_location(ast.Call(func=e.func, args=[method[1]] + list(e.args),
                                           keywords=e.keywords), e)
        name = inline(self, callee, e, e, self.parse)
        return self.env.get(name, name)
