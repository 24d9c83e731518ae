"""Golden files: the emitted source of each construct, pinned byte for byte.

Each function in golden/inputs/<topic>.py listed in its CASES has one file per stage
in golden/<topic>/<function>.<stage>.py. The test fails on any difference (rewrite
them with `pytest tests/test_golden.py --update-golden` and read the diff), and it
also runs each golden file: the anf and dup stages must return what the function
returns, the reverse stage the gradient s2sad computes.
"""

import importlib
import importlib.util
import os
import sys

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

    ran = load(path, f"golden_{topic}_{name}_{stage}")
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


def test_no_stray_golden_files():
    expected = {os.path.join(GOLDEN, p.values[0], f"{p.values[2]}.{p.values[5]}.py")
                for p in cases()}
    found = set()
    for topic in os.listdir(GOLDEN):
        folder = os.path.join(GOLDEN, topic)
        if os.path.isdir(folder) and topic not in ("inputs", "__pycache__"):
            found |= {os.path.join(folder, f) for f in os.listdir(folder) if f.endswith(".py")}
    assert found <= expected, sorted(found - expected)
