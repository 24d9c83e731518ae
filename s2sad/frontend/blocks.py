"""blocks: the edits `anf` makes to blocks of IR it has lowered.

Contract
--------
* `close_open_paths(body, exit_)` puts the statement `exit_` (an iteration's
  `ir.Exit`, or the copy a join needs) at the end of every path through `body` that
  does not already leave it: after an ``if`` one of whose branches breaks or
  continues, in the branches that go on, not after the ``if``.
* `rename_block(stmts, mapping)` renames the definitions and the reads in a block
  (a branch's version of a variable, renamed to the joined name).
* `coalesce_copies(body)` drops each copy ``v = %t`` of a temporary read nowhere
  else by naming the temporary's definition `v`; the copies an `ir.Exit` makes stay.

They change the blocks in place and assume the forms `anf` writes: exits and
returns last on their paths.
"""

from __future__ import annotations

import ast

from .. import ir


def close_open_paths(body, exit_):
    """Put `exit_` (the end-of-iteration `ir.Exit`, or a join's copy) at the end of
    every path that has not left the iteration: after an ``if`` one of whose branches
    breaks or continues, the path that goes on is the other branch."""
    last = body[-1] if body else None
    if isinstance(last, ir.If) and (_exits_on_a_path(last.body) or
                                    _exits_on_a_path(last.orelse)):
        # a break or continue ends some path in there (perhaps in a nested `if`):
        # close each path that does not end with one, not the `if` as a whole
        for block in (last.body, last.orelse):
            if not (ir.terminates(block) or _ends_with_exit(block)):
                close_open_paths(block, ir.copy_tree(exit_))
        return
    body.append(exit_)


def _exits_on_a_path(body) -> bool:
    """Does some path through `body` end with an exit (`desugar` leaves them last)?"""
    last = body[-1] if body else None
    if isinstance(last, ir.Exit):
        return True
    if isinstance(last, ir.If):
        return _exits_on_a_path(last.body) or _exits_on_a_path(last.orelse)
    return False


def _ends_with_exit(body) -> bool:
    if not body:
        return False
    last = body[-1]
    if isinstance(last, ir.Exit):
        return True
    if isinstance(last, ir.If):
        return _ends_with_exit(last.body) and _ends_with_exit(last.orelse)
    return False


def rename_block(stmts, mapping):
    """Rename definitions and uses in a block (used when joining branches)."""
    ir.rename_defs(stmts, mapping)
    ir.rename_reads(stmts, mapping)


def coalesce_copies(body):
    """Drop copies ``v = %t`` of a temporary read nowhere else, by naming the
    temporary's definitions `v` directly (``%t = a * b; v = %t`` -> ``v = a * b``).
    The copies an `ir.Exit` makes into loop-carried variables stay: a phi must keep
    its start-of-iteration value until the iteration ends. So does a copy in a
    branch of a temporary defined before it where the branches' join assigns `v`
    on another path too (``%t = c * c; if e: v = %t else: v = w``, the default of
    ``max(xs, default=c * c)``): named `v`, the temporary would be a second
    definition of `v` on the other path, and the form no longer SSA."""
    if not _copies_a_temporary(body):
        return  # (no copy of a temporary: most straight-line code)
    phis = {p.name for s in ir.walk(body) if isinstance(s, ir.Loop) for p in s.phis}
    while True:
        reads = ir.reads_in(body)
        defs = None  # (counted once a copy in a branch asks)
        found = None
        for s, block in _walk_no_exit(body, body):
            if isinstance(s, ir.Assign) and not s.unpack and isinstance(s.value, ast.Name):
                src, dst = s.value.id, s.targets[0]
                if not (src.startswith("%") and src != dst and reads.get(src) == 1
                        and src not in phis):
                    continue
                if block is not body and src not in ir.all_defined(block):
                    if defs is None:
                        defs = _definitions(body)
                    if defs.get(dst, 0) > 1:
                        continue
                found = s
                break
        if found is None:
            return
        _remove(body, found)
        rename_block(body, {found.value.id: found.targets[0]})


def _definitions(body) -> dict:
    """{name: how many statements assign it} (a loop's exit copies counted)."""
    out: dict = {}
    for s in ir.walk(body):
        for n in ir.defined_names(s):
            out[n] = out.get(n, 0) + 1
    return out


def _copies_a_temporary(body) -> bool:
    """Is there a copy ``v = %t`` in `body` (not counting an exit's)?"""
    for s in body:  # (a loop, not `_walk_no_exit`'s generators: asked of every line)
        if isinstance(s, ir.Assign):
            if isinstance(s.value, ast.Name) and s.value.id.startswith("%"):
                return True
        elif not isinstance(s, ir.Exit) and any(_copies_a_temporary(b) for b in ir.blocks(s)):
            return True
    return False


def _walk_no_exit(body, outer):
    """``(statement, the block holding it)`` for each statement of `body` (`outer`
    holds it), not looking into an exit's copies."""
    for s in body:
        yield s, outer
        if not isinstance(s, ir.Exit):
            for block in ir.blocks(s):
                yield from _walk_no_exit(block, block)


def _remove(body, target):
    for i, s in enumerate(body):
        if s is target:
            del body[i]
            return True
        if any(_remove(block, target) for block in ir.blocks(s)):
            return True
    return False
