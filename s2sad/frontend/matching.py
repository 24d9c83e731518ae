"""matching: a ``match`` statement as the ``if`` statements it stands for.

Contract
--------
`as_ifs(tree, loc)` rewrites, in place, every ``match`` statement of the function
`tree` whose patterns compare the subject with values into ``if`` statements that
test the cases in order, each in the ``else`` part of the one before, as Python
tries them:

* a literal or a dotted name (``case 0.5:``, ``case "relu":``, ``case Mode.FAST:``)
  tests ``subject == value``; ``None``, ``True`` and ``False`` test ``subject is
  value``; ``p | q`` tests either; ``(p)`` and ``p as name`` test ``p`` (``name =
  subject`` then starts the case's body);
* a capture (``case other:``) binds ``other = subject`` before its guard, and with the
  wildcard (``case _:``) matches anything: the last case;
* a guard (``case "a" if x > 0:``) is tested after its pattern matched (its
  captures bound);
* the subject is evaluated once: a name is read as it is, anything else assigned to a
  fresh name first.

A pattern that reads the subject's structure (a sequence, a mapping, a class, ``*``)
or binds inside an alternative is refused at its line (`loc`: `parse.Located`), with
what is supported. Returns whether it rewrote anything. The tests and bodies are the
user's own nodes, so errors in them point at the user's lines; later stages
differentiate the bodies, the tests carrying no derivative.
"""

from __future__ import annotations

import ast

from ..errors import UnsupportedSyntaxError

_HINT = ("Match against literals, constants (`Mode.FAST`), `None`, `True` and `False`, "
         "`|` of those, a name or `_`, with a guard if you like; or write it with `if`/`elif`.")


def as_ifs(tree: ast.FunctionDef, loc) -> bool:
    """See the module docstring."""
    taken = {n.id for n in ast.walk(tree) if isinstance(n, ast.Name)} | {
        a.arg for a in ast.walk(tree.args) if isinstance(a, ast.arg)}
    return _block_rewritten(tree, loc, taken)


def _block_rewritten(node, loc, taken) -> bool:
    """Rewrite the statement lists of `node` (and of the statements in them)."""
    changed = False
    for field in ("body", "orelse", "finalbody", "handlers"):
        stmts = getattr(node, field, None)
        if not isinstance(stmts, list):
            continue
        out = []
        for s in stmts:
            if isinstance(s, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
                out.append(s)  # (a nested function is parsed on its own)
                continue
            changed |= _block_rewritten(s, loc, taken)
            if isinstance(s, ast.Match):
                out.extend(_as_ifs(s, loc, taken))
                changed = True
            else:
                out.append(s)
        stmts[:] = out
    for case in getattr(node, "cases", ()):
        changed |= _block_rewritten(case, loc, taken)
    return changed


def _as_ifs(s: ast.Match, loc, taken) -> list:
    """The statements standing for the ``match`` statement `s`."""
    out = []
    subject = s.subject
    if not isinstance(subject, ast.Name):
        fresh = _fresh("match_subject", taken)
        out.append(ast.copy_location(ast.Assign(
            targets=[ast.Name(id=fresh, ctx=ast.Store())], value=subject), s))
        subject = ast.copy_location(ast.Name(id=fresh, ctx=ast.Load()), s)
    rest = out  # (where the next case's statements go: the `else` of the one before)
    for case in s.cases:
        pattern, binds = case.pattern, []
        while isinstance(pattern, ast.MatchAs) and pattern.pattern is not None:
            binds.append(pattern.name)  # (``p as name``: bound once `p` matched)
            pattern = pattern.pattern
        test = _test(pattern, subject, loc)
        if isinstance(pattern, ast.MatchAs) and pattern.name is not None:
            rest.append(_bind(pattern.name, subject, case.pattern))  # (before the guard)
        body = [_bind(n, subject, case.pattern) for n in binds if n] + case.body
        if binds and case.guard is not None:
            raise loc.error(UnsupportedSyntaxError, case.guard,
                            "s2sad cannot differentiate a `match` case with both `as` and "
                            "a guard yet", _HINT)
        if case.guard is not None:
            test = case.guard if test is None else ast.copy_location(
                ast.BoolOp(op=ast.And(), values=[test, case.guard]), case.guard)
        if test is None:  # (it matches whatever is left: the last case)
            rest.extend(body)
            return out
        branch = ast.copy_location(ast.If(test=test, body=body, orelse=[]), case.pattern)
        rest.append(branch)
        rest = branch.orelse
    return out


def _test(p, subject, loc):
    """The test of the pattern `p` on `subject`, or None where `p` matches anything."""
    if isinstance(p, ast.MatchAs) and p.pattern is None:
        return None  # (``_``, or a capture, bound by the caller)
    if isinstance(p, ast.MatchValue):
        return ast.copy_location(ast.Compare(left=_copy(subject, p), ops=[ast.Eq()],
                                             comparators=[p.value]), p)
    if isinstance(p, ast.MatchSingleton):
        return ast.copy_location(ast.Compare(left=_copy(subject, p), ops=[ast.Is()],
                                             comparators=[ast.Constant(value=p.value)]), p)
    if isinstance(p, ast.MatchOr):
        tests = []
        for option in p.patterns:
            if isinstance(option, ast.MatchAs) and (option.name is not None or
                                                    option.pattern is not None):
                raise loc.error(UnsupportedSyntaxError, option,
                                "s2sad cannot differentiate a `match` alternative that "
                                "binds a name yet", _HINT)
            tests.append(_test(option, subject, loc))
        if any(t is None for t in tests):
            return None
        return ast.copy_location(ast.BoolOp(op=ast.Or(), values=tests), p)
    raise loc.error(UnsupportedSyntaxError, p,
                    f"s2sad cannot differentiate a `match` {_PATTERN_WORDS.get(type(p), 'pattern')}"
                    " yet", _HINT)


_PATTERN_WORDS = {ast.MatchSequence: "sequence pattern", ast.MatchMapping: "mapping pattern",
                  ast.MatchClass: "class pattern", ast.MatchStar: "`*` pattern"}


def _bind(name, subject, at):
    return ast.copy_location(ast.Assign(targets=[ast.Name(id=name, ctx=ast.Store())],
                                        value=_copy(subject, at)), at)


def _copy(subject, at):
    return ast.copy_location(ast.Name(id=subject.id, ctx=ast.Load()), at)


def _fresh(stem, taken) -> str:
    i = 1
    while f"{stem}_{i}" in taken:
        i += 1
    taken.add(f"{stem}_{i}")
    return f"{stem}_{i}"
