"""The examples of README.md and of every page of docs/ do what the pages say: each
`$ s2sad ...` block prints what follows it, each `>>> ...` block raises the error
shown, and each ```python block runs with the values its comments show."""

import glob
import os
import re
import shlex
import subprocess
import sys

import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

# README.md and every page of the documentation site, as paths from the root
PAGES = ["README.md"] + sorted(
    os.path.relpath(p, ROOT) for p in glob.glob(os.path.join(ROOT, "docs", "**", "*.md"),
                                                recursive=True))

sys.path.insert(0, os.path.join(ROOT, "tests"))
try:
    import readme_examples
finally:
    sys.path.pop(0)


def page_text(page):
    return open(os.path.join(ROOT, page)).read()


def blocks(page):
    for block in re.findall(r"```\n(\$ s2sad .*?)```", page_text(page), flags=re.S):
        command, _, expected = block.partition("\n")
        yield shlex.split(command[2:])[1:], expected


# a rounding error's size (below 1e-10: `s2sad check`'s error columns) depends on the
# platform's libm and NumPy build, not on s2sad; every other character is compared
ROUNDING = re.compile(r"±?\b\d\.\de-(?:1\d|[2-9]\d)\b")


def without_rounding(text):
    return ROUNDING.sub("<tiny>", text)


def test_pages_are_found():
    assert "docs/guide/numpy.md" in PAGES and "docs/errors.md" in PAGES, PAGES
    assert sum(len(list(blocks(page))) for page in PAGES) >= 20
    assert sum(len(list(error_blocks(page))) for page in PAGES) >= 12
    assert sum(len(readme_examples.blocks(os.path.join(ROOT, page))) for page in PAGES) >= 20


@pytest.mark.parametrize("page", [p for p in PAGES if list(blocks(p))])
def test_readme_cli_examples(page):
    # (each command in a process of its own, as a user runs it; the processes at once)
    found = list(blocks(page))
    runs = [subprocess.Popen([sys.executable, "-m", "s2sad", *args], stdout=subprocess.PIPE,
                             stderr=subprocess.PIPE, text=True, cwd=ROOT)
            for args, _ in found]
    for run, (args, expected) in zip(runs, found):
        stdout, stderr = run.communicate(timeout=600)
        assert without_rounding(stdout + stderr) == without_rounding(expected), (page, args)


def test_rounding_mask_keeps_what_matters():
    assert without_rounding("±7.8e-13   volume  0.1302654403") == "<tiny>   volume  0.1302654403"
    # tolerances, derivatives and errors above 1e-10 are still compared
    assert without_rounding("allowed 6.4e-07, got 3.1e-09") == "allowed 6.4e-07, got 3.1e-09"


def error_blocks(page):
    for block in re.findall(r"```\n(>>> .*?)```", page_text(page), flags=re.S):
        command, _, expected = block.partition("\n")
        yield command[4:], expected


def test_readme_error_examples():
    """The error catalogue shows what s2sad raises for each call, word for word."""
    import math
    import warnings

    import numpy as np

    import s2sad

    sys.path.insert(0, os.path.join(ROOT, "examples"))
    try:
        import errors
    finally:
        sys.path.pop(0)
    found = [(page, block) for page in PAGES for block in error_blocks(page)]
    assert len(found) >= 12
    for page, (command, expected) in found:
        ns = {"s2sad": s2sad, "np": np, "math": math, "errors": errors}
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            try:
                eval(command, ns)
            except Exception as exc:
                got = f"{type(exc).__name__}: {exc}".replace(ROOT + os.sep, "")
            else:
                got = "(no error)"
        assert got == expected.rstrip("\n"), (page, command)


def test_every_error_has_an_entry():
    """The error catalogue (docs/errors.md) has a row and an entry with an example for
    every public error class."""
    import s2sad

    text = page_text(os.path.join("docs", "errors.md"))
    names = [n for n in s2sad.__all__
             if isinstance(getattr(s2sad, n), type) and issubclass(getattr(s2sad, n), Exception)
             and not issubclass(getattr(s2sad, n), Warning) and n != "S2SADError"]
    assert "GradientCheckError" in names and "EngineError" in names
    for name in names:
        entry = re.search(rf"^## {name}\n(.*?)(?=^## |\Z)", text, flags=re.M | re.S)
        assert entry and f"| [`{name}`](#{name.lower()})" in text, \
            f"docs/errors.md needs a table row and a '## {name}' entry for s2sad.{name}"
        assert "```" in entry.group(1), f"the '## {name}' entry of docs/errors.md needs an example"


def test_the_demo_runs():
    """The README's first command ends by running the demo."""
    done = subprocess.run([sys.executable, os.path.join("examples", "demo.py")],
                          capture_output=True, text=True, cwd=ROOT)
    assert done.returncode == 0, done.stderr
    assert "Hessian of z" in done.stdout and "gradients:" in done.stdout


@pytest.mark.parametrize(
    "page", [p for p in PAGES if readme_examples.blocks(os.path.join(ROOT, p))])
def test_readme_python_examples(page):
    """Every ```python block of the page runs as pasted, in a process of its own, and
    the values its comments show are what the calls return (tests/readme_examples.py
    says how the comments are read)."""
    done = subprocess.run([sys.executable, os.path.join(ROOT, "tests", "readme_examples.py"),
                           page],
                          capture_output=True, text=True, cwd=ROOT)
    assert done.returncode == 0, done.stdout + done.stderr
    ran, checked = map(int, re.match(r"(\d+) blocks ran, (\d+) statements checked",
                                     done.stdout).groups())
    runnable = [b for b in readme_examples.blocks(os.path.join(ROOT, page)) if not b[2]]
    assert ran == len(runnable), done.stdout


# the front page's two set-up commands; .ci/run runs the second one
DEMO_COMMAND = ("python3 -m venv .venv && .venv/bin/pip install . && "
                ".venv/bin/python examples/demo.py")
TEST_COMMAND = ("python3 -m venv .venv && .venv/bin/pip install -e '.[test]' && "
                ".venv/bin/python -m pytest")


def test_front_page():
    """README.md is a front page: short, with the two set-up commands (the tests'
    one is what CI runs), and every link it has points at a file (and a heading) that
    exists."""
    text = page_text("README.md")
    assert len(text.split("\n")) < 250
    assert f"```sh\n{DEMO_COMMAND}\n```" in text
    assert f"```sh\n{TEST_COMMAND}\n```" in text
    # CI runs it quietly
    assert TEST_COMMAND.replace("pip install", "pip install -q") in \
        open(os.path.join(ROOT, ".ci", "run")).read()
    links = re.findall(r"\]\(([^)\s]+)\)", text)
    assert len(links) >= 10
    for link in links:
        if re.match(r"[a-z]+://", link):
            continue
        path, _, anchor = link.partition("#")
        assert os.path.exists(os.path.join(ROOT, path)), link
        if anchor:
            headings = re.findall(r"^#+ (.*)$", page_text(path), flags=re.M)
            slugs = {re.sub(r"[^\w\- ]", "", h).strip().lower().replace(" ", "-")
                     for h in headings}
            assert anchor in slugs, link
