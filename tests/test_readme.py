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


def test_readme_cli_examples():
    found = list(blocks())
    assert len(found) >= 3
    for args, expected in found:
        done = subprocess.run([sys.executable, "-m", "s2sad", *args], capture_output=True,
                              text=True, cwd=ROOT)
        assert done.stdout + done.stderr == expected, args


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
