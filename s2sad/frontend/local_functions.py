"""local_functions: the functions a function defines inside, as `structures` follows them.

A nested ``def`` or a lambda bound to a name (``g = lambda u: ...``) is recorded
where it is defined (`LocalFunctions.stmt_FunctionDef`, `local_lambda`) and put in
place where it is called. Which one a call runs is decided by the path to it, as
Python decides it: a name the branches of an ``if`` give different functions (or one
of them none), or that a loop's body gives a function, is ambiguous after them
(`join_functions`, `enter_loop`, `leave_loop`), and a call of it is refused
(`refuse_ambiguous`); what an inlined function's body defines is its own, dropped
when the body ends (`functions_state`, restored by `structure_calls`).

`LocalFunctions` is a mixin of `structures._Rewriter`: its methods read and change
the rewriter's `local_functions`, `ambiguous_functions`, `env` and `consts`. Imports
`structure_values` only.
"""

from __future__ import annotations

import ast

from .structure_values import assign


class LocalFunctions:
    """The functions defined inside, of `structures._Rewriter` (see the module
    docstring)."""

    def stmt_FunctionDef(self, s) -> list:
        """A function defined inside the function: kept (not run), put in place where
        it is called; defaults that are not constants are computed here, as Python
        computes them when the `def` runs."""
        if s.decorator_list:
            raise self.refuse(s, f"s2sad cannot differentiate the decorated function "
                                 f"`{s.name}` defined inside the function",
                              hint="Define it without the decorator, or at module level.")
        pre = []
        a = s.args
        for group in (a.defaults, a.kw_defaults):
            for i, d in enumerate(group):
                if d is not None and not isinstance(d, ast.Constant):
                    name = self.anonymous()
                    pre.append(assign(name, self.expr(d), s))
                    group[i] = ast.Name(id=name, ctx=ast.Load())
        self.forget_quietly(s.name, s)
        self.local_functions[s.name] = s
        return pre

    def local_lambda(self, s) -> bool:
        """``f = lambda x: ...``: recorded as the function it defines (True)."""
        if not (isinstance(s.value, ast.Lambda) and len(s.targets) == 1 and
                isinstance(s.targets[0], ast.Name)):
            return False
        lam = s.value
        fdef = ast.FunctionDef(name=s.targets[0].id, args=lam.args,
                               body=[ast.copy_location(ast.Return(value=lam.body), lam)],
                               decorator_list=[], returns=None, type_comment=None)
        ast.copy_location(fdef, s)
        self.forget_quietly(fdef.name, s)
        self.local_functions[fdef.name] = fdef
        return True

    def forget(self, name):
        self.local_functions.pop(name, None)
        self.ambiguous_functions.pop(name, None)
        if name in self.env:
            self.no_change_in_loop_name(name)
            del self.env[name]
        self.consts.pop(name, None)

    def forget_quietly(self, name, s):
        self.local_functions.pop(name, None)
        self.ambiguous_functions.pop(name, None)
        if name in self.env:
            self.current = s
            self.no_change_in_loop_name(name)
            del self.env[name]
        self.consts.pop(name, None)

    def functions_state(self) -> tuple:
        """Copies of `local_functions` and `ambiguous_functions`."""
        return dict(self.local_functions), dict(self.ambiguous_functions)

    def join_functions(self, s, one: tuple, other: tuple):
        """The functions defined inside the function after the `if` `s`, whose paths
        left `one` and `other` (`functions_state`): a name given a different function
        (or none) on one path is ambiguous."""
        (fa, aa), (fb, ab) = one, other
        self.local_functions = {n: f for n, f in fa.items() if fb.get(n) is f}
        self.ambiguous_functions = {**aa, **ab}
        for n in [*fa, *fb]:
            if fa.get(n) is not fb.get(n):
                self.ambiguous_functions.setdefault(n, s)

    def enter_loop(self, s) -> set:
        """Before the body of the loop `s`: the names it gives functions, ambiguous
        until it does (the function of the iteration before, or of the lines before
        the loop)."""
        defined = _functions_defined(s.body)
        for name in defined & self.local_functions.keys():
            self.local_functions.pop(name)
            self.ambiguous_functions[name] = s
        return defined

    def leave_loop(self, s, defined: set):
        """After the loop `s`: the names its body gives functions (`defined`) are
        ambiguous (the loop may have run no iteration)."""
        for name in defined:
            self.local_functions.pop(name, None)
            self.ambiguous_functions[name] = s

    def refuse_ambiguous(self, e: ast.Call):
        """Refuse the call `e` of a name given different functions on different paths."""
        if not (isinstance(e.func, ast.Name) and e.func.id in self.ambiguous_functions):
            return
        at = self.ambiguous_functions[e.func.id]
        raise self.refuse(e, f"`{e.func.id}` is given a different function on different "
                             f"paths (the {type(at).__name__.lower()} at line "
                             f"{getattr(at, 'lineno', '?')}): s2sad puts a function defined "
                             "inside the function in place of its call, and cannot tell "
                             "which one runs here",
                          hint="Give each function its own name and choose between the "
                               "calls, or pass the choice as a value to one function.")


def _functions_defined(body) -> set:
    """The names `body` gives a function defined inside the function (a nested
    ``def``, ``name = lambda ...``), not inside the functions it defines."""
    out, todo = set(), list(body)
    while todo:
        n = todo.pop()
        if isinstance(n, ast.FunctionDef):
            out.add(n.name)
            continue
        if isinstance(n, ast.Assign) and isinstance(n.value, ast.Lambda) and \
                len(n.targets) == 1 and isinstance(n.targets[0], ast.Name):
            out.add(n.targets[0].id)
        if not isinstance(n, ast.Lambda):
            todo.extend(ast.iter_child_nodes(n))
    return out
