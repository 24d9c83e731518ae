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
