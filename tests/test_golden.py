"""Golden files: the emitted source of each construct, pinned byte for byte.

Each function in golden/inputs/<topic>.py listed in its CASES has one file per stage
in golden/<topic>/<function>.<stage>.py. The test fails on any difference (rewrite
them with `pytest tests/test_golden.py --update-golden` and read the diff), and it
also runs each golden file: the anf and dup stages must return what the function
returns, the reverse stage the gradient s2sad computes. What `source` prints runs
the same way as a module of its own, without the golden files' header.
"""

import importlib
import importlib.util
import math
import os
import sys
import types

import pytest

import s2sad
import s2sad.runtime
from helpers import close, numeric_grad, positions, same

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
GOLDEN = os.path.join(ROOT, "golden")
STAGES = ("anf", "dup", "reverse", "forward")
TOPICS = sorted(f[:-3] for f in os.listdir(os.path.join(GOLDEN, "inputs"))
                if f.endswith(".py") and f != "__init__.py")


def cases():
    out = []
    for topic in TOPICS:
        module = importlib.import_module(f"golden.inputs.{topic}")
        for name, args, wrt in module.CASES:
            for stage in STAGES:
                out.append(pytest.param(topic, module, name, args, wrt, stage,
                                        id=f"{topic}.{name}.{stage}"))
    return out


def header(topic, name, stage, wrt):
    wrt_text = ", ".join(wrt) if isinstance(wrt, tuple) else str(wrt)
    return (f"# s2sad golden file: golden/inputs/{topic}.py:{name}, stage {stage}, wrt {wrt_text}.\n"
            "# Regenerate with `pytest tests/test_golden.py --update-golden` and review the diff.\n"
            f"from golden.inputs.{topic} import *  # noqa: F401,F403\n\n")


def _ones_like(x):
    import numpy as np

    if isinstance(x, np.ndarray):
        return np.ones_like(x)
    if isinstance(x, list):
        return [1.0] * len(x)
    return 1.0


def load(path, modname):
    spec = importlib.util.spec_from_file_location(modname, path)
    module = importlib.util.module_from_spec(spec)
    if ROOT not in sys.path:
        sys.path.insert(0, ROOT)
    spec.loader.exec_module(module)
    return module


@pytest.mark.parametrize("topic,module,name,args,wrt,stage", cases())
def test_golden(topic, module, name, args, wrt, stage, update_golden):
    func = getattr(module, name)
    emitted = s2sad.source(func, wrt=wrt, stage=stage, example=args)
    text = header(topic, name, stage, wrt) + ("" if emitted.startswith(("import", "from")) else "\n") + emitted
    path = os.path.join(GOLDEN, topic, f"{name}.{stage}.py")
    if update_golden:
        os.makedirs(os.path.dirname(path), exist_ok=True)
        with open(path, "w") as fh:
            fh.write(text)
    assert os.path.exists(path), f"missing golden file {path}; run with --update-golden"
    with open(path) as fh:
        expected = fh.read()
    assert text == expected, f"{path} differs from what s2sad emits now"

    check_runs(load(path, f"golden_{topic}_{name}_{stage}"), func, name, args, wrt, stage)


def check_runs(ran, func, name, args, wrt, stage):
    """`ran`'s functions (the module of one golden file, or of what `source` prints)
    compute what s2sad computes for `func` at `stage`."""
    if stage == "forward":
        where = positions(func, wrt)
        tangents = [_ones_like(a) if i in where else None for i, a in enumerate(args)]
        got = getattr(ran, f"{name}_jvp")(*args, *[t for t in tangents if t is not None])
        assert same(got, s2sad.jvp(func, tuple(args), tuple(tangents)))
    elif stage == "reverse":
        got = getattr(ran, f"{name}_grad")(*args)
        assert same(got, s2sad.grad(func, wrt=wrt)(*args))
        assert close(got, numeric_grad(func, args, wrt))
    else:
        if stage == "dup":
            assert ran.dup is s2sad.runtime.dup
        assert same(getattr(ran, name)(*args), func(*args))


@pytest.mark.parametrize("topic,module,name,args,wrt,stage", cases())
def test_shown_code_runs_alone(topic, module, name, args, wrt, stage):
    """What `source` prints (and `s2sad show`) runs as a module of its own, with no
    header: every name it reads is imported or defined, and it computes what s2sad
    computes."""
    text = s2sad.source(getattr(module, name), wrt=wrt, stage=stage, example=args)
    namespace = {"__name__": f"shown_{topic}_{name}_{stage}"}
    if ROOT not in sys.path:
        sys.path.insert(0, ROOT)
    exec(compile(text, f"<shown {topic}.{name}.{stage}>", "exec"), namespace)
    check_runs(types.SimpleNamespace(**namespace), getattr(module, name), name, args, wrt,
               stage)


USER_MODULE = """\
import math
import numpy as np

SCALE = 3.0
W = np.array([1.0, 2.0])


def helper(n):
    return 2.0 * n


def f(x):
    return SCALE * math.sin(x) + helper(1.0) * x + np.sum(W) * x


def make(k):
    def g(x):
        return k * x * SCALE
    return g
"""


@pytest.fixture
def user_module(tmp_path, monkeypatch):
    (tmp_path / "shown_user_mod.py").write_text(USER_MODULE)
    monkeypatch.syspath_prepend(str(tmp_path))
    monkeypatch.delitem(sys.modules, "shown_user_mod", raising=False)
    return importlib.import_module("shown_user_mod")


def test_shown_imports_the_user_modules_names(user_module):
    text = s2sad.source(user_module.f)
    assert text.startswith("import math\n"
                           "import numpy as np\n"
                           "from s2sad.runtime import scalar_seed, unbroadcast\n"
                           "from shown_user_mod import SCALE, W, helper\n"
                           "\n\n"
                           "def f_grad(x):\n"), text
    namespace = {}
    exec(text, namespace)
    assert same(namespace["f_grad"](0.3), s2sad.grad(user_module.f)(0.3))


def test_shown_names_what_no_import_brings_back(user_module, tmp_path):
    text = s2sad.source(user_module.make(2.0))
    assert text.startswith("from shown_user_mod import SCALE\n"
                           "\n"
                           "# from the closure of make.<locals>.g: k\n"
                           "\n\n"
                           "def g_grad(x):\n"), text
    path = tmp_path / "loose.py"  # (a module with no import name, as `s2sad show
    path.write_text(USER_MODULE)  # file.py:f` loads one)
    loose = types.ModuleType("loose")
    loose.__file__ = str(path)
    exec(compile(USER_MODULE, str(path), "exec"), loose.__dict__)
    text = s2sad.source(loose.f)
    assert "from shown_user_mod" not in text
    assert f"\n\n# from {path} (not importable by name): SCALE, W, helper\n\n\n" in text


def test_shown_names_a_global_another_function_reads_as_another_object(user_module,
                                                                        tmp_path):
    (tmp_path / "shown_user_caller.py").write_text(
        "from shown_user_mod import make\n\nSCALE = 5.0\ng = make(2.0)\n\n\n"
        "def h(x):\n    return SCALE * g(x)\n")
    caller = importlib.import_module("shown_user_caller")
    text = s2sad.source(caller.h)
    assert text.startswith("from shown_user_caller import SCALE\n"
                           "\n"
                           "# SCALE in the code of make.<locals>.g: "
                           "from shown_user_mod import SCALE\n"
                           "# from the closure of make.<locals>.g: k\n"
                           "\n\n"
                           "def h_grad(x):\n"), text


def _forward_lines(text):
    return text.split("    # line")[0]


def test_unused_lines_that_cannot_raise_go():
    """A forward line nothing reads goes when no float makes it raise (math.atan,
    math.erf, abs), and stays when one may (math.sin raises on an infinity, math.exp
    overflows, math.log has a domain): the gradient raises where the function does."""
    def f(x, y):
        return math.atan(y) * 0.0 + math.erf(y) * 0.0 + abs(y) * 0.0 + 2.0 * x

    def g(x, y):
        return math.sin(y) * 0.0 + math.exp(y) * 0.0 + math.log(y) * 0.0 + 2.0 * x

    shown = _forward_lines(s2sad.source(f, wrt="x", example=(1.0, 2.0)))
    assert "atan" not in shown and "erf" not in shown and "abs" not in shown, shown
    shown = _forward_lines(s2sad.source(g, wrt="x", example=(1.0, 2.0)))
    assert all(call in shown for call in ("math.sin(y)", "math.exp(y)", "math.log(y)")), shown
    assert s2sad.grad(f, wrt="x")(1.0, math.inf) == 2.0
    for y, error in ((math.inf, ValueError), (1000.0, OverflowError), (-1.0, ValueError)):
        with pytest.raises(error):
            g(1.0, y)
        with pytest.raises(error):
            s2sad.grad(g, wrt="x")(1.0, y)


def test_no_stray_golden_files():
    expected = {os.path.join(GOLDEN, p.values[0], f"{p.values[2]}.{p.values[5]}.py")
                for p in cases()}
    found = set()
    for topic in os.listdir(GOLDEN):
        folder = os.path.join(GOLDEN, topic)
        if os.path.isdir(folder) and topic not in ("inputs", "__pycache__"):
            found |= {os.path.join(folder, f) for f in os.listdir(folder) if f.endswith(".py")}
    assert found <= expected, sorted(found - expected)
