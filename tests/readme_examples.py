"""Runs the ```python blocks of one Markdown page (README.md, or a page of docs/) as a
user would paste them, in one process.

Blocks run in order and share one namespace, as a reader's session would. A block is
written to a file first, so `grad` reads its functions' source as it reads a user's.
A block right after the line ``<!-- fragment -->`` on the page is an outline with
`...` in it, and is only compiled. Checks come from the blocks' own comments:

- ``expr  # 13.0`` (or the literal on the comment line right below the statement): the
  statement's value equals the literal, number for number;
- ``expr  # a == b`` where the comment is a comparison: it holds after the statement;
- ``expr  # SomeError: ...`` or ``# raises SomeError``: the statement raises it.

Other comments are prose. Run as ``python tests/readme_examples.py README.md`` (or a
page: ``docs/guide/numpy.md``): it prints how many blocks ran and statements were
checked, and exits non-zero on the first mismatch, naming the page and line.
"""

import ast
import os
import re
import runpy
import sys
import tempfile

import numpy as np

# what every page takes a reader to have imported; everything else a block uses is
# defined in a block of the same page, as a reader pasting the page's blocks would
PRELUDE = '''
import math

import numpy as np

import s2sad
'''

FRAGMENT = "<!-- fragment -->"
ERROR = re.compile(r"^(?:raises\s+)?([A-Z]\w*(?:Error|Exception))\b")


def blocks(readme):
    """(first line number, source, is a fragment) of each ```python block."""
    lines = open(readme).read().split("\n")
    found, i = [], 0
    while i < len(lines):
        if lines[i].strip() == "```python":
            j = i + 1
            while lines[j].strip() != "```":
                j += 1
            before = next((s for s in reversed(lines[:i]) if s.strip()), "")
            found.append((i + 2, "\n".join(lines[i + 1:j]) + "\n", before.strip() == FRAGMENT))
            i = j
        i += 1
    return found


def comment_of(line):
    """The text after a statement's `#`, found with the tokenizer's rules (not in strings)."""
    import io
    import tokenize
    try:
        for tok in tokenize.generate_tokens(io.StringIO(line).readline):
            if tok.type == tokenize.COMMENT:
                return tok.string[1:].strip()
    except (tokenize.TokenError, SyntaxError):
        pass
    return None


def expectation(text, namespace):
    """('value', v), ('holds', expr source), ('raises', name) or None for prose."""
    if text is None:
        return None
    m = ERROR.match(text)
    if m:
        return ("raises", m.group(1))
    try:
        node = ast.parse(text, mode="eval").body
    except SyntaxError:
        return None
    if isinstance(node, ast.Compare):
        return ("holds", text)
    try:
        return ("value", ast.literal_eval(node))
    except ValueError:
        return None


def same(got, want):
    if isinstance(want, tuple):
        return isinstance(got, tuple) and len(got) == len(want) and all(
            same(g, w) for g, w in zip(got, want))
    return np.allclose(np.asarray(got, dtype=float), np.asarray(want, dtype=float),
                       rtol=1e-12, atol=1e-14)


def run_block(start, source, namespace, folder, index, page="README.md"):
    lines = source.split("\n")
    tree = ast.parse(source)
    path = os.path.join(folder, f"readme_block_{index}.py")
    checks = []
    for stmt in tree.body:
        last = stmt.end_lineno
        text = comment_of(lines[last - 1])
        if text is None and last < len(lines) and lines[last].lstrip().startswith("#"):
            text = lines[last].lstrip()[1:].strip()
        checks.append((stmt, expectation(text, namespace)))
    # each statement runs on its own, in the namespace; the block's file holds the
    # whole text so the source of every function defined in it can be read
    with open(path, "w") as fh:
        fh.write(source)
    code_of = {}
    for stmt, _ in checks:
        mod = ast.Module(body=[stmt], type_ignores=[])
        code_of[id(stmt)] = compile(mod, path, "exec")
    done = 0
    for stmt, want in checks:
        where = f"{page}:{start + stmt.lineno - 1}"
        if want and want[0] == "raises":
            try:
                exec(code_of[id(stmt)], namespace)
            except Exception as exc:
                if type(exc).__name__ != want[1]:
                    raise AssertionError(f"{where}: raised {type(exc).__name__}, "
                                         f"the page says {want[1]}") from exc
            else:
                raise AssertionError(f"{where}: raised nothing, the page says {want[1]}")
            done += 1
            continue
        if want and want[0] == "value" and isinstance(stmt, ast.Expr):
            got = eval(compile(ast.Expression(stmt.value), path, "eval"), namespace)
            if not same(got, want[1]):
                raise AssertionError(f"{where}: got {got!r}, the page says {want[1]!r}")
            done += 1
            continue
        exec(code_of[id(stmt)], namespace)
        if want and want[0] == "holds":
            if not eval(want[1], namespace):
                raise AssertionError(f"{where}: {want[1]} does not hold")
            done += 1
    return done


def main(readme):
    folder = tempfile.mkdtemp(prefix="s2sad-readme-")
    sys.path.insert(0, folder)
    prelude = os.path.join(folder, "readme_prelude.py")
    with open(prelude, "w") as fh:
        fh.write(PRELUDE)
    namespace = runpy.run_path(prelude, run_name="readme_prelude")
    ran = checked = 0
    for index, (start, source, fragment) in enumerate(blocks(readme)):
        if fragment:
            compile(source, f"{readme}:{start}", "exec")
            continue
        checked += run_block(start, source, namespace, folder, index, readme)
        ran += 1
    print(f"{ran} blocks ran, {checked} statements checked")


if __name__ == "__main__":
    main(sys.argv[1])
