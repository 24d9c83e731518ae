"""The README's command examples print what the README says they print."""

import os
import re
import shlex
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def blocks():
    text = open(os.path.join(ROOT, "README.md")).read()
    for block in re.findall(r"```\n(\$ s2sad .*?)```", text, flags=re.S):
        command, _, expected = block.partition("\n")
        yield shlex.split(command[2:])[1:], expected


# a rounding error's size (below 1e-10: `s2sad check`'s error columns) depends on the
# platform's libm and NumPy build, not on s2sad; every other character is compared
ROUNDING = re.compile(r"±?\b\d\.\de-(?:1\d|[2-9]\d)\b")


def without_rounding(text):
    return ROUNDING.sub("<tiny>", text)


def test_readme_cli_examples():
    found = list(blocks())
    assert len(found) >= 3
    for args, expected in found:
        done = subprocess.run([sys.executable, "-m", "s2sad", *args], capture_output=True,
                              text=True, cwd=ROOT)
        assert without_rounding(done.stdout + done.stderr) == without_rounding(expected), args


def test_rounding_mask_keeps_what_matters():
    assert without_rounding("±7.8e-13   volume  0.1302654403") == "<tiny>   volume  0.1302654403"
    # tolerances, derivatives and errors above 1e-10 are still compared
    assert without_rounding("allowed 6.4e-07, got 3.1e-09") == "allowed 6.4e-07, got 3.1e-09"


def error_blocks():
    text = open(os.path.join(ROOT, "README.md")).read()
    for block in re.findall(r"```\n(>>> .*?)```", text, flags=re.S):
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
    found = list(error_blocks())
    assert len(found) >= 10
    for command, expected in found:
        ns = {"s2sad": s2sad, "np": np, "math": math, "errors": errors}
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            try:
                eval(command, ns)
            except Exception as exc:
                got = f"{type(exc).__name__}: {exc}".replace(ROOT + os.sep, "")
            else:
                got = "(no error)"
        assert got == expected.rstrip("\n"), command


def test_the_demo_runs():
    """The README's first command ends by running the demo."""
    done = subprocess.run([sys.executable, os.path.join("examples", "demo.py")],
                          capture_output=True, text=True, cwd=ROOT)
    assert done.returncode == 0, done.stderr
    assert "Hessian of z" in done.stdout and "gradients:" in done.stdout


def test_readme_python_examples():
    """Every ```python block runs as pasted, and the values its comments show are what
    the calls return (tests/readme_examples.py says how the comments are read)."""
    done = subprocess.run([sys.executable, os.path.join(ROOT, "tests", "readme_examples.py"),
                           os.path.join(ROOT, "README.md")],
                          capture_output=True, text=True, cwd=ROOT)
    assert done.returncode == 0, done.stdout + done.stderr
    ran, checked = map(int, re.match(r"(\d+) blocks ran, (\d+) statements checked",
                                     done.stdout).groups())
    assert ran >= 10 and checked >= 12, done.stdout
