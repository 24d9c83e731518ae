"""The command line, run as a user runs it."""

import os
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def s2sad(*args):
    return subprocess.run([sys.executable, "-m", "s2sad", *args], capture_output=True,
                          text=True, cwd=ROOT)


def test_show_reverse_by_file():
    done = s2sad("show", "examples/seeds.py:z", "--wrt", "x,y")
    assert done.returncode == 0, done.stderr
    assert "def z_grad(x, y):" in done.stdout
    assert "# line 11: z = x * y + math.sin(x)" in done.stdout
    assert done.stdout.rstrip().endswith("return x_bar, y_bar")


def test_show_by_module_and_every_stage():
    for stage in ("source", "anf", "dup", "activity", "reverse"):
        done = s2sad("show", "golden.inputs.seeds:program", "--wrt", "0,1", "--stage", stage)
        assert done.returncode == 0, done.stderr
        compile(done.stdout, "<out>", "exec")
    assert "dup(" in s2sad("show", "golden.inputs.seeds:program", "--stage", "dup").stdout


def test_output_matches_the_api():
    import s2sad as api
    from golden.inputs import seeds

    done = s2sad("show", "golden.inputs.seeds:program", "--wrt", "x,y")
    assert done.stdout == api.source(seeds.program, wrt=("x", "y"))


def test_errors_are_one_line_and_exit_nonzero():
    done = s2sad("show", "examples/seeds.py:broken")
    assert done.returncode == 1
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1
    assert lines[0].startswith("s2sad: error: examples/seeds.py:")
    assert "generator expression" in lines[0]
    verbose = s2sad("show", "examples/seeds.py:broken", "-v")
    assert "^" in verbose.stderr and "return sum(x**k for k in range(3))" in verbose.stderr


def test_bad_targets():
    for target, text in [("examples/seeds.py", "does not name a function"),
                         ("examples/nope.py:f", "no such file"),
                         ("examples/seeds.py:nope", "has no function"),
                         ("no_such_module:f", "cannot import")]:
        done = s2sad("show", target)
        assert done.returncode == 1 and text in done.stderr, (target, done.stderr)
    done = s2sad("show", "examples/seeds.py:z", "--wrt", "q")
    assert done.returncode == 1 and "not a parameter" in done.stderr


def test_help():
    done = s2sad("show", "--help")
    assert done.returncode == 0
    for word in ("TARGET", "--wrt", "--stage", "anf", "dup", "activity", "examples:"):
        assert word in done.stdout
    assert s2sad().returncode == 2


def test_console_script_is_installed():
    exe = os.path.join(os.path.dirname(sys.executable), "s2sad")
    assert os.path.exists(exe)
    done = subprocess.run([exe, "show", "examples/seeds.py:quadratic"], capture_output=True,
                          text=True, cwd=ROOT)
    assert done.returncode == 0 and "def quadratic_grad(x):" in done.stdout
