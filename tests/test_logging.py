"""What s2sad logs (`logging.getLogger("s2sad")`): derivatives built and how long each
stage took, rebuilds after a called function is rebound, the disk cache's hits,
misses, stores and evictions; nothing on a hit in memory; and ``S2SAD_LOG``."""

import importlib.util
import itertools
import logging
import os
import subprocess
import sys
import textwrap

import numpy as np
import pytest

import s2sad
from s2sad.api import dispatch
from s2sad.backend import diskcache

_numbers = itertools.count()

SOURCE = """\
import numpy as np


def g(a):
    return a * a


def other(a):
    return a * a * a


def f(x, y):
    return g(x) * y + 2.0 * x


def h(w):
    return np.sum(np.sin(w))
"""

STAGES = ["parse", "activity", "transform", "simplify", "emit", "compile"]


def fresh(tmp_path, source=SOURCE):
    """A new module from `source` (new code objects: the in-memory cache misses)."""
    name = f"log_case_{os.getpid()}_{next(_numbers)}"
    path = tmp_path / f"{name}.py"
    path.write_text(textwrap.dedent(source))
    spec = importlib.util.spec_from_file_location(name, path)
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    spec.loader.exec_module(module)
    return module


@pytest.fixture
def records(caplog):
    """The INFO records of the ``s2sad`` loggers."""
    caplog.set_level(logging.INFO, logger="s2sad")

    def get(prefix=""):
        return [r for r in caplog.records
                if r.name.startswith("s2sad") and r.getMessage().startswith(prefix)]

    get.clear = caplog.clear
    return get


def test_the_package_logger_has_a_null_handler_and_no_level():
    logger = logging.getLogger("s2sad")
    assert any(isinstance(h, logging.NullHandler) for h in logger.handlers)
    if not os.environ.get("S2SAD_LOG"):
        assert logger.level == logging.NOTSET
        assert [type(h) for h in logger.handlers] == [logging.NullHandler]


def test_a_derivative_built_is_logged_with_each_stage(tmp_path, records):
    module = fresh(tmp_path)
    assert s2sad.grad(module.f, wrt=(0, 1))(0.5, 3.0) == pytest.approx((2 * 0.5 * 3.0 + 2.0,
                                                                         0.25))
    built, = records("built")
    assert built.name == "s2sad.api.dispatch" and built.levelno == logging.INFO
    info = built.s2sad
    assert info["function"] == "f" and info["entry"] == "grad" and info["mode"] == "reverse"
    assert info["wrt"] == ("x", "y")
    assert {n: str(k) for n, k in info["kinds"].items()} == {"x": "scalar", "y": "scalar"}
    assert list(info["times"]) == STAGES
    assert all(t >= 0 for t in info["times"].values())
    assert info["total"] >= sum(info["times"].values()) > 0
    text = built.getMessage()
    assert text.startswith("built grad of f (reverse mode, wrt x, y; x: scalar, y: scalar) in ")
    for stage in STAGES:
        assert f" {stage} " in text


def test_forward_mode_is_logged_too(tmp_path, records):
    module = fresh(tmp_path)
    s2sad.jvp(module.h, (np.ones(3),), (np.ones(3),))
    built, = records("built")
    assert built.s2sad["mode"] == "forward" and built.s2sad["entry"] == "jvp"
    assert built.getMessage().startswith("built jvp of h (forward mode, wrt w; w: array[1d")


class _Untouchable:
    """Any use of it fails the test."""

    def __getattr__(self, name):
        raise AssertionError(f"the hit path used {name}")


def test_hits_in_memory_log_nothing_and_read_no_clock(tmp_path, records, monkeypatch):
    module = fresh(tmp_path)
    dh = s2sad.grad(module.h)
    dh(np.ones(3))  # the dispatcher's fast path checks for 1-d arrays
    dh(np.ones((2, 2)))  # a second specialisation, found by `State.miss`
    assert len(records("built")) == 2
    records.clear()
    monkeypatch.setattr(dispatch, "log", _Untouchable())
    monkeypatch.setattr(dispatch, "time", _Untouchable())
    for _ in range(3):
        assert np.allclose(dh(np.ones(3)), np.cos(1.0))  # the fast path
        assert np.allclose(dh(np.ones((2, 2))), np.cos(1.0))  # a hit in `State.miss`
        assert np.allclose(dispatch.compiled_grad(module.h, 0, (np.ones(3),))(np.ones(3)),
                           np.cos(1.0))  # a hit in `compiled_reverse`
    assert records() == []


def test_a_rebuild_after_a_callee_is_rebound_says_which_name(tmp_path, records):
    module = fresh(tmp_path)
    df = s2sad.grad(module.f)
    assert df(0.5, 3.0) == pytest.approx(2 * 0.5 * 3.0 + 2.0)
    records.clear()
    module.g = module.other
    assert df(0.5, 3.0) == pytest.approx(3 * 0.25 * 3.0 + 2.0)
    again, built = records()
    assert again.getMessage() == ("building the derivative of f again: `g` in f now means "
                                  "another object")
    assert again.s2sad == {"function": "f", "name": "g"}
    assert built.getMessage().startswith("built grad of f")


def test_the_disk_cache_logs_miss_store_hit_and_eviction(tmp_path, records, monkeypatch):
    monkeypatch.setattr(diskcache, "_setting", None)  # put back when the test ends
    monkeypatch.setattr(diskcache, "_max_mb", None)
    monkeypatch.delenv("S2SAD_CACHE_MAX_MB", raising=False)
    folder = tmp_path / "cache"
    s2sad.enable_disk_cache(folder)
    s2sad.grad(fresh(tmp_path).f)(0.5, 3.0)
    miss, built, stored = records()
    assert miss.name == stored.name == "s2sad.backend.diskcache"
    assert miss.getMessage() == "disk cache miss: grad of f (no entry)"
    entry, = folder.iterdir()
    assert stored.getMessage() == (f"disk cache: stored grad of f in {entry} "
                                   f"({entry.stat().st_size} bytes)")
    records.clear()
    s2sad.grad(fresh(tmp_path).f)(0.5, 3.0)
    hit, = records()
    assert hit.getMessage().startswith(f"disk cache hit: grad of f, from {entry} in ")

    records.clear()
    s2sad.enable_disk_cache(folder, max_mb=entry.stat().st_size * 1.5 / 1e6)
    s2sad.grad(fresh(tmp_path).h)(np.ones(3))
    evicted, = records("disk cache: removed")
    assert evicted.getMessage().startswith(
        f"disk cache: removed the 1 least recently used entries of {folder} ")
    assert not entry.exists()


def test_an_entry_that_cannot_be_stored_says_why(tmp_path, records, monkeypatch):
    monkeypatch.setattr(diskcache, "_setting", None)  # put back when the test ends
    monkeypatch.setattr(diskcache, "_max_mb", None)
    s2sad.enable_disk_cache(tmp_path / "cache")

    scale = type("Scale", (), {"__call__": lambda self, v: 2.0 * v})()  # no import path

    def reverse(x, out, out_bar):
        return scale(out_bar) * x

    class Square:
        def __call__(self, x):
            return x * x

    square = Square()
    s2sad.register_rule(square, reverse=reverse)
    module = fresh(tmp_path, "def uses(x):\n    return square(x)\n")
    module.square = square
    s2sad.grad(module.uses)(3.0)
    refused, = records("disk cache: grad of uses not stored")
    assert "no importable name" in refused.getMessage()


def _run(folder, **env):
    environ = {k: v for k, v in os.environ.items()
               if k not in ("S2SAD_LOG", "S2SAD_DISK_CACHE")}
    environ.update(env)
    return subprocess.run([sys.executable, "-c", PROGRAM], capture_output=True, text=True,
                          env=environ, cwd=folder)


PROGRAM = """\
import logging
import s2sad
import case
print(logging.getLogger("s2sad").getEffectiveLevel())
print(s2sad.grad(case.f)(0.5, 3.0))
"""


def test_s2sad_log_in_the_environment_prints_on_stderr(tmp_path):
    (tmp_path / "case.py").write_text(SOURCE)
    quiet = _run(tmp_path)
    assert quiet.returncode == 0, quiet.stderr
    assert quiet.stderr == ""
    assert quiet.stdout.split() == [str(logging.WARNING), "5.0"]

    loud = _run(tmp_path, S2SAD_LOG="1")
    assert loud.returncode == 0, loud.stderr
    assert loud.stdout.split() == [str(logging.INFO), "5.0"]
    line, = loud.stderr.splitlines()
    assert line.startswith("s2sad.api.dispatch: built grad of f (reverse mode, wrt x; "
                           "x: scalar, y: scalar) in ")

    assert _run(tmp_path, S2SAD_LOG="debug").stdout.split()[0] == str(logging.DEBUG)
    assert _run(tmp_path, S2SAD_LOG="0").stderr == ""

    bad = _run(tmp_path, S2SAD_LOG="loud")
    assert bad.returncode == 0
    assert "S2SAD_LOG='loud' is not a logging level" in bad.stderr
    assert "s2sad.api.dispatch: built grad of f" in bad.stderr  # at INFO
