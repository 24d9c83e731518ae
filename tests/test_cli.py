"""The command line, run as a user runs it (in a subprocess, or through `cli.main`)."""

import os
import shutil
import subprocess
import sys

import pytest

from s2sad import cli

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
    assert "`global`" in lines[0]
    verbose = s2sad("show", "examples/seeds.py:broken", "-v")
    assert "^" in verbose.stderr and "global CALLS" in verbose.stderr


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


# ---------------------------------------------------------------- s2sad check

WRONG_RULE = '''\
import s2sad


class _Cube:
    def __call__(self, x):
        return x * x * x


cube = _Cube()


def cube_reverse(x, out, out_bar):
    return out_bar * 2.0 * x * x  # wrong on purpose: 3 x^2


s2sad.register_rule(cube, reverse=cube_reverse)


def uses_cube(x, y):
    return cube(x) * y + y
'''


def run_main(capsys, monkeypatch, *args):
    monkeypatch.chdir(ROOT)
    status = cli.main(list(args))
    out, err = capsys.readouterr()
    return status, out, err


def test_check_agrees_exit_0():
    done = s2sad("check", "examples/seeds.py:z", "--at", "x=0.5,y=4.2", "--wrt", "x,y")
    assert done.returncode == 0, done.stderr
    lines = done.stdout.splitlines()
    assert lines[0] == "s2sad.check: z(x=0.5, y=4.2), gradient with respect to x, y: ok"
    assert any(line.startswith("reverse ") and "agrees" in line for line in lines)
    assert any(line.startswith("forward ") and "agrees" in line for line in lines)


def test_check_disagreement_exit_1(tmp_path):
    target = tmp_path / "wrong_rule.py"
    target.write_text(WRONG_RULE)
    done = s2sad("check", f"{target}:uses_cube", "--at", "x=1.5,y=2.0", "--wrt", "x,y")
    assert done.returncode == 1, done.stderr
    assert "NOT OK" in done.stdout.splitlines()[0]
    text = " ".join(done.stdout.split())
    assert "reverse disagrees at x: 9.0 where central differences gives 13.5" in text
    assert done.stderr == ""


def test_check_usage_errors_exit_2(capsys, monkeypatch):
    for args, text in [
        (["--at", "x=0.5"], "missing a required argument: 'y'"),
        (["--at", "x=0.5,,"], "not a list of arguments"),
        (["--at", "x=open('f')"], "not a list of arguments"),
        (["--at", "x=0.5,y=4.2", "--wrt", "q"], "not a parameter"),
        (["--at", "x=1,y=4.2"], "integer"),
    ]:
        status, out, err = run_main(capsys, monkeypatch, "check", "examples/seeds.py:z", *args)
        assert status == 2 and text in err and out == "", (args, err)
        assert err.startswith("s2sad: error: ") and len(err.strip().splitlines()) == 1
    status, _, err = run_main(capsys, monkeypatch, "check", "examples/seeds.py:program",
                              "--at", "x=1.0,y=0.0")
    assert status == 2 and "ZeroDivisionError" in err
    status, _, err = run_main(capsys, monkeypatch, "check", "examples/nope.py:f", "--at", "1.0")
    assert status == 2 and "no such file" in err
    with pytest.raises(SystemExit) as info:  # --at is required
        run_main(capsys, monkeypatch, "check", "examples/seeds.py:z")
    assert info.value.code == 2


def test_check_lists_arrays_and_order_2(capsys, monkeypatch):
    status, out, _ = run_main(capsys, monkeypatch, "check", "examples/loops.py:rosenbrock",
                              "--at", "xs=[0.5, 1.2, 0.8]", "--order", "2")
    assert status == 0
    assert "second derivatives with respect to xs: ok" in out
    assert "dual over reverse      agrees" in out
    status, out, _ = run_main(capsys, monkeypatch, "check", "tests/zoo_numpy.py:broadcast_mul",
                              "--at", "array([[0.5], [0.2]]), array([[0.1, 0.3, 0.7]])",
                              "--wrt", "0,1")
    assert status == 0 and "x=array([[0.5], [0.2]])" in out
    assert positional_and_keywords("0.5, y=array([1, 2])") == \
        ([0.5, [1.0, 2.0]], {})


def positional_and_keywords(text):
    def f(x, y):
        return x

    args, kwargs = cli.parse_at(text, f)
    return [a.tolist() if hasattr(a, "tolist") else a for a in args], kwargs


def test_check_refused_syntax_is_could_not_run(capsys, monkeypatch):
    status, out, _ = run_main(capsys, monkeypatch, "check", "examples/seeds.py:broken",
                              "--at", "x=2.0")
    assert status == 0  # tape, dual and the differences ran and agree
    assert "could not run: examples/seeds.py:55:5: s2sad cannot differentiate `global`" \
        in out


# ---------------------------------------------------------------- s2sad graph


def test_graph_prints_dot(capsys, monkeypatch):
    status, out, _ = run_main(capsys, monkeypatch, "graph", "examples/seeds.py:z",
                              "--wrt", "x,y")
    assert status == 0
    assert out.startswith('digraph "z" {') and out.rstrip().endswith("}")
    assert 'label="dup", shape="diamond"' in out and 'label="x (wrt)"' in out
    status, out, _ = run_main(capsys, monkeypatch, "graph", "examples/seeds.py:z",
                              "--wrt", "x,y", "--at", "x=0.5,y=4.2")
    assert status == 0 and "adj 5.07758" in out and "= 2.57943" in out


def test_graph_output_files(capsys, monkeypatch, tmp_path):
    path = tmp_path / "z.dot"
    status, out, _ = run_main(capsys, monkeypatch, "graph", "examples/seeds.py:z",
                              "-o", str(path))
    assert status == 0 and out == f"wrote {path}\n"
    assert path.read_text().startswith('digraph "z" {')
    monkeypatch.setattr(shutil, "which", lambda name: None)
    svg = tmp_path / "z.svg"
    status, out, err = run_main(capsys, monkeypatch, "graph", "examples/seeds.py:z",
                                "-o", str(svg))
    assert status == 1 and not svg.exists() and out == ""
    assert "apt install graphviz" in err and "without -o" in err


def test_graph_errors(capsys, monkeypatch):
    status, _, err = run_main(capsys, monkeypatch, "graph", "examples/seeds.py:broken")
    assert status == 1 and "`global`" in err
    status, _, err = run_main(capsys, monkeypatch, "graph", "examples/seeds.py:z",
                              "--at", "x=0.5")
    assert status == 2 and "missing a required argument" in err


def help_text(capsys, *args):
    with pytest.raises(SystemExit) as info:
        cli.main([*args, "--help"])
    assert info.value.code == 0
    return capsys.readouterr().out


def test_check_and_graph_help(capsys):
    text = help_text(capsys, "check")
    for word in ("TARGET", "--at", "--wrt", "--order", "array([1.0, 2.0])", "exit status:",
                 "examples:", "central differences"):
        assert word in text, word
    text = help_text(capsys, "graph")
    for word in ("TARGET", "--at", "-o FILE", "Graphviz", "apt install graphviz", "examples:"):
        assert word in text, word
    top = help_text(capsys)
    assert "show" in top and "check" in top and "graph" in top


# ---------------------------------------------------------------- as a newcomer meets it

def test_console_script_finds_a_module_in_the_working_directory(tmp_path):
    """`s2sad show mymod:func` from mymod's folder works as `python -m s2sad` does."""
    (tmp_path / "mymod_for_cli.py").write_text("import math\n\n\ndef f(x):\n"
                                               "    return math.sin(x) * x\n")
    exe = os.path.join(os.path.dirname(sys.executable), "s2sad")
    done = subprocess.run([exe, "show", "mymod_for_cli:f"], capture_output=True, text=True,
                          cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    assert "def f_grad(x):" in done.stdout


def test_version():
    import s2sad as package
    done = s2sad("--version")
    assert done.returncode == 0 and done.stdout.strip() == f"s2sad {package.__version__}"


def test_output_into_a_closed_pipe_is_no_traceback():
    """`s2sad check ... | head -1`: the reader leaves early; no BrokenPipeError shows."""
    proc = subprocess.Popen([sys.executable, "-m", "s2sad", "show", "examples/seeds.py:z",
                             "--wrt", "x,y"], cwd=ROOT, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE)
    proc.stdout.close()  # nobody reads: the first write meets a closed pipe
    err = proc.stderr.read().decode()
    proc.wait()
    assert "Traceback" not in err and "BrokenPipeError" not in err, err
    assert proc.returncode == 1


def test_example_must_fit_the_signature(capsys, monkeypatch):
    status, out, err = run_main(capsys, monkeypatch, "show", "examples/seeds.py:z",
                                "--example", "0.5")
    assert status == 2 and out == ""
    assert "--example gives 1 value, which does not fit z(x, y)" in err
    status, out, err = run_main(capsys, monkeypatch, "show", "examples/seeds.py:z",
                                "--example", "0.5, 1.0, 2.0")
    assert status == 2 and "--example gives 3 values" in err


def test_show_help_lists_the_forward_stage(capsys):
    with pytest.raises(SystemExit):
        cli.main(["show", "--help"])
    out = capsys.readouterr().out
    for stage in ("source", "anf", "dup", "activity", "reverse", "forward"):
        assert f"\n  {stage} " in out, stage


def test_integer_argument_hint_names_the_value(capsys, monkeypatch):
    status, out, err = run_main(capsys, monkeypatch, "check", "examples/seeds.py:z",
                                "--at", "x=3,y=4.2")
    assert status == 2
    assert "(3.0 instead of 3)" in err and "5.0" not in err


def test_cache_info_and_clear(tmp_path, capsys, monkeypatch):
    monkeypatch.delenv("S2SAD_DISK_CACHE", raising=False)
    monkeypatch.delenv("S2SAD_CACHE_MAX_MB", raising=False)
    folder = tmp_path / "cache"
    monkeypatch.setenv("S2SAD_CACHE_DIR", str(folder))
    for n, size in ((1, 1500), (2, 2500)):
        folder.mkdir(exist_ok=True)
        (folder / f"{n:064x}.json").write_bytes(b"x" * size)
    (folder / "notes.txt").write_text("not an entry")
    assert cli.main(["cache", "info"]) == 0
    assert capsys.readouterr().out == (
        f"directory  {folder}\n"
        "enabled    no (S2SAD_DISK_CACHE=1 or s2sad.enable_disk_cache() turns it on)\n"
        "entries    2\n"
        "size       4 kB\n"
        "cap        256 MB (S2SAD_CACHE_MAX_MB, or s2sad.enable_disk_cache(max_mb=...))\n")
    monkeypatch.setenv("S2SAD_DISK_CACHE", "1")
    monkeypatch.setenv("S2SAD_CACHE_MAX_MB", "0.5")
    assert cli.main(["cache", "info"]) == 0
    out = capsys.readouterr().out
    assert "enabled    yes\n" in out and "cap        500 kB (" in out
    assert cli.main(["cache", "clear"]) == 0
    assert capsys.readouterr().out == f"removed 2 files from {folder}\n"
    assert sorted(p.name for p in folder.iterdir()) == ["notes.txt"]
    other = tmp_path / "other"
    assert cli.main(["cache", "info", "--dir", str(other)]) == 0
    out = capsys.readouterr().out
    assert out.startswith(f"directory  {other}\nenabled    no (") and "entries    0\n" in out
    assert cli.main(["cache", "clear", "--dir", str(other)]) == 0
    assert capsys.readouterr().out == f"removed 0 files from {other}\n"


def test_cache_help_and_usage():
    done = s2sad("cache", "--help")
    assert done.returncode == 0
    assert "usage: s2sad cache" in done.stdout
    for word in ("info", "clear", "S2SAD_CACHE_DIR", "S2SAD_CACHE_MAX_MB"):
        assert word in done.stdout
    assert "cache     show or empty the disk cache" in s2sad("--help").stdout
    bare = s2sad("cache")
    assert bare.returncode == 2 and "usage: s2sad cache" in bare.stdout
    wrong = s2sad("cache", "purge")
    assert wrong.returncode == 2 and "invalid choice: 'purge'" in wrong.stderr
    assert "--dir DIR" in s2sad("cache", "clear", "--help").stdout
