"""The opt-in disk cache of emitted derivative source (s2sad/diskcache.py).

Each test loads its functions from a new file as a new module, so the in-memory cache
(kept per code object) misses and the disk cache is what is exercised; the same text
in another file gives the same key, as the same function in another process would."""

import hashlib
import importlib.util
import inspect
import itertools
import math
import multiprocessing
import os
import re
import sys
import textwrap
import threading
import warnings

import numpy as np
import pytest

import s2sad
from s2sad.api import dispatch
from s2sad.backend import cachefiles, diskcache
from s2sad.frontend import parse
from s2sad.driver import builder as pipeline

_numbers = itertools.count()

BASE = """\
import math
import numpy as np

K = 2.0


def helper(a, b):
    return a * math.sin(b)


def other_helper(a, b):
    return a * math.cos(b)


def f(x, y):
    z = helper(x, y) + K * x * y
    return z * z


def h(w):
    return np.sum(np.tanh(w) * K)
"""


def dfdx(x, y, power=2, sin=math.sin):
    """d/dx of f = z ** power, z = x sin(y) + K x y (K = 2), the functions in BASE."""
    z = x * sin(y) + 2.0 * x * y
    return power * z ** (power - 1) * (sin(y) + 2.0 * y)


def fresh(tmp_path, source=BASE):
    """A new module (new code objects) with `source` as its text."""
    n = f"{os.getpid()}_{threading.get_ident()}_{next(_numbers)}"
    folder = tmp_path / "modules"
    folder.mkdir(exist_ok=True)
    path = folder / f"dc_case_{n}.py"
    path.write_text(textwrap.dedent(source))
    name = f"dc_case_{n}"
    spec = importlib.util.spec_from_file_location(name, path)
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    spec.loader.exec_module(module)
    return module


@pytest.fixture
def cache(tmp_path, monkeypatch):
    """The disk cache on, in a directory of its own; off again afterwards."""
    monkeypatch.delenv("S2SAD_DISK_CACHE", raising=False)
    monkeypatch.delenv("S2SAD_CACHE_DIR", raising=False)
    monkeypatch.delenv("S2SAD_CACHE_MAX_MB", raising=False)
    monkeypatch.setattr(diskcache, "_setting", None)  # put back when the test ends
    monkeypatch.setattr(diskcache, "_max_mb", None)
    folder = tmp_path / "cache"
    assert s2sad.enable_disk_cache(folder) == folder
    return folder


@pytest.fixture
def runs(monkeypatch):
    """How many times the pipeline ran."""
    count = [0]
    real = pipeline.reverse_unit

    def counting(*args, **kwargs):
        count[0] += 1
        return real(*args, **kwargs)

    monkeypatch.setattr(pipeline, "reverse_unit", counting)
    return count


def entries(folder):
    return sorted(p for p in folder.iterdir() if p.suffix == ".json") if folder.exists() else []


def unit_of(f):
    """The unit the in-memory cache holds for `f` (one specialisation). Equal code
    objects share the per-code dict, so pick the unit built for this `f`."""
    unit, = [unit for unit, _ in dispatch._units[f.__code__].values() if unit.root is f]
    return unit


def no_pipeline(monkeypatch):
    """Make any stage, or reading a source with the tokenizer, fail."""
    def boom(*args, **kwargs):
        raise AssertionError("the pipeline ran on a disk cache hit")

    monkeypatch.setattr(pipeline, "reverse_unit", boom)
    monkeypatch.setattr(parse, "parse", boom)
    monkeypatch.setattr(inspect, "getsourcelines", boom)


# ------------------------------------------------------------------ hits


def test_a_warm_hit_gives_the_same_gradient_and_source_and_skips_the_pipeline(
        cache, monkeypatch):
    cold_module = fresh(cache.parent)
    cold_grad = s2sad.grad(cold_module.f, wrt=(0, 1))
    cold = cold_grad(0.5, 1.2)
    cold_unit = unit_of(cold_module.f)
    assert not getattr(cold_unit, "from_disk", False)
    assert len(entries(cache)) == 1

    no_pipeline(monkeypatch)
    warm_module = fresh(cache.parent)
    warm_grad = s2sad.grad(warm_module.f, wrt=(0, 1))
    warm = warm_grad(0.5, 1.2)
    warm_unit = unit_of(warm_module.f)
    assert warm_unit.from_disk
    assert warm == cold
    assert warm_unit.text == cold_unit.text
    assert [uf.fn.name for uf in warm_unit.functions] == [uf.fn.name for uf in cold_unit.functions]
    for uf in cold_unit.functions:
        assert warm_unit.texts[uf.fn.name] == cold_unit.texts[uf.fn.name]
    # each derivative runs in the globals of the function it derives from
    assert {uf.user for uf in warm_unit.functions} == {warm_module.f, warm_module.helper}
    # and the dispatcher guards the same names, in the new module
    assert [(kind, name) for kind, _, name, _ in warm_grad.__s2sad__.guards] == \
        [(kind, name) for kind, _, name, _ in cold_grad.__s2sad__.guards] == \
        [("global", "helper"), ("global_value", "K"), ("function", ""), ("function", "")]
    # (K's type: `value_guards`; f's and helper's code: `function_guards`)
    assert warm_grad.__s2sad__.guards[0][1] is vars(warm_module)


def test_value_and_grad_vjp_and_arrays_hit_too(cache, monkeypatch):
    w = np.array([0.3, -1.2, 2.0])
    first = fresh(cache.parent)
    expected = (s2sad.value_and_grad(first.h)(w), s2sad.vjp(first.f, 0.5, 1.2)[1](1.0))
    assert len(entries(cache)) == 2
    no_pipeline(monkeypatch)
    second = fresh(cache.parent)
    value, g = s2sad.value_and_grad(second.h)(w)
    assert value == expected[0][0] and np.array_equal(g, expected[0][1])
    assert s2sad.vjp(second.f, 0.5, 1.2)[1](1.0) == expected[1]


DECORATED = """\
import math
import s2sad


@s2sad.grad
def dec(x):
    return math.sin(x) * x
"""


def test_a_decorated_function_hits_without_reading_its_source_again(cache, monkeypatch):
    cold = fresh(cache.parent, DECORATED).dec(0.7)
    no_pipeline(monkeypatch)  # inspect.getsourcelines too: its tokenizer is slow at first
    assert fresh(cache.parent, DECORATED).dec(0.7) == cold
    assert cold == pytest.approx(math.cos(0.7) * 0.7 + math.sin(0.7))


def test_default_off_writes_nothing(tmp_path, monkeypatch):
    monkeypatch.delenv("S2SAD_DISK_CACHE", raising=False)
    monkeypatch.setenv("S2SAD_CACHE_DIR", str(tmp_path / "cache"))
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "xdg"))
    monkeypatch.setattr(diskcache, "_setting", None)
    assert s2sad.disk_cache_dir() is None
    module = fresh(tmp_path)
    s2sad.grad(module.f)(0.5, 1.2)
    assert not (tmp_path / "cache").exists() and not (tmp_path / "xdg").exists()


def test_the_environment_turns_it_on_and_disable_wins(tmp_path, monkeypatch, runs):
    monkeypatch.setattr(diskcache, "_setting", None)
    monkeypatch.setenv("S2SAD_DISK_CACHE", "1")
    monkeypatch.setenv("S2SAD_CACHE_DIR", str(tmp_path / "cache"))
    assert s2sad.disk_cache_dir() == tmp_path / "cache"
    s2sad.grad(fresh(tmp_path).f)(0.5, 1.2)
    assert len(entries(tmp_path / "cache")) == 1
    s2sad.grad(fresh(tmp_path).f)(0.5, 1.2)
    assert runs[0] == 1
    s2sad.disable_disk_cache()
    assert s2sad.disk_cache_dir() is None
    s2sad.grad(fresh(tmp_path).f)(0.5, 1.2)
    assert runs[0] == 2


def test_default_directory_follows_the_platform_conventions(tmp_path, monkeypatch):
    monkeypatch.delenv("S2SAD_CACHE_DIR", raising=False)
    if sys.platform.startswith("linux"):
        monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
        assert diskcache.default_dir() == tmp_path / "s2sad"
        monkeypatch.setenv("XDG_CACHE_HOME", "relative/is/ignored")
        home = os.path.expanduser("~")
        assert diskcache.default_dir() == diskcache.Path(home) / ".cache" / "s2sad"
    monkeypatch.setenv("S2SAD_CACHE_DIR", str(tmp_path / "mine"))
    assert diskcache.default_dir() == tmp_path / "mine"


def test_a_bad_directory_argument_is_an_s2sad_error():
    with pytest.raises(s2sad.S2SADError, match="directory"):
        s2sad.enable_disk_cache(42)
    assert diskcache._setting is None  # nothing changed


# ---------------------------------------------------------------- misses


def test_a_changed_function_misses(cache, runs):
    assert s2sad.grad(fresh(cache.parent).f)(0.5, 1.2) == pytest.approx(dfdx(0.5, 1.2))
    changed = fresh(cache.parent, BASE.replace("return z * z", "return z * z * z"))
    assert s2sad.grad(changed.f)(0.5, 1.2) == pytest.approx(dfdx(0.5, 1.2, power=3))
    assert runs[0] == 2


def test_a_changed_callee_misses(cache, runs):
    s2sad.grad(fresh(cache.parent).f)(0.5, 1.2)
    changed = fresh(cache.parent, BASE.replace("return a * math.sin(b)",
                                               "return a * math.sin(b) * b"))
    got = s2sad.grad(changed.f)(0.5, 1.2)
    assert runs[0] == 2
    assert got == pytest.approx(dfdx(0.5, 1.2, sin=lambda y: math.sin(y) * y))
    # and the new entry replaced the old one under the same key
    s2sad.grad(fresh(cache.parent, BASE.replace("return a * math.sin(b)",
                                                "return a * math.sin(b) * b")).f)(0.5, 1.2)
    assert runs[0] == 2


def test_a_callee_rebound_to_another_function_misses(cache, runs):
    s2sad.grad(fresh(cache.parent).f)(0.5, 1.2)
    module = fresh(cache.parent)
    module.helper = module.other_helper
    got = s2sad.grad(module.f)(0.5, 1.2)
    assert runs[0] == 2
    assert got == pytest.approx(dfdx(0.5, 1.2, sin=math.cos))


def test_the_source_text_decides_not_the_bytecode(cache, runs):
    s2sad.grad(fresh(cache.parent).f)(0.5, 1.2)
    # the code after the function changed: its own text did not, so it still hits
    module = fresh(cache.parent)
    path = module.__file__
    with open(path) as fh:
        text = fh.read()
    with open(path, "w") as fh:
        fh.write(text.replace("def h(w):", "def h(w, unused=None):"))
    assert s2sad.grad(module.f)(0.5, 1.2) == pytest.approx(dfdx(0.5, 1.2))
    assert runs[0] == 1
    # a comment in the function changed after it was imported: same bytecode, but
    # the derivative quotes the new line, as a fresh transform would
    module = fresh(cache.parent)
    line = "    z = helper(x, y) + K * x * y"
    with open(module.__file__, "w") as fh:
        fh.write(BASE.replace(line, line + "  # the sum"))
    s2sad.grad(module.f)(0.5, 1.2)
    assert runs[0] == 2
    assert "# the sum" in unit_of(module.f).text


def test_wrt_and_argument_kinds_are_in_the_key(cache, runs):
    s2sad.grad(fresh(cache.parent).f, wrt=0)(0.5, 1.2)
    s2sad.grad(fresh(cache.parent).f, wrt=1)(0.5, 1.2)
    s2sad.grad(fresh(cache.parent).f, wrt=(0, 1))(0.5, 1.2)
    s2sad.grad(fresh(cache.parent).f, wrt=0)(0.5, 2)  # an int y
    assert runs[0] == 4
    s2sad.grad(fresh(cache.parent).h)(np.ones(3))
    s2sad.grad(fresh(cache.parent).h)(np.ones((2, 3)))  # another rank
    # float32: its gradient is cast back to float32 (its own code); the same shape
    # pattern with other lengths is the same code
    s2sad.grad(fresh(cache.parent).h)(np.ones(3, dtype=np.float32))
    s2sad.grad(fresh(cache.parent).h)(np.ones(5))
    assert runs[0] == 7
    assert len(entries(cache)) == 7


def test_a_global_that_changes_kind_misses(cache, runs):
    s2sad.grad(fresh(cache.parent).h)(np.ones(3))
    module = fresh(cache.parent)
    module.K = 5.0  # another float: same derivative code, which reads K live
    assert np.allclose(s2sad.grad(module.h)(np.ones(3)), (1 - np.tanh(1.0) ** 2) * 5.0)
    assert runs[0] == 1
    module = fresh(cache.parent)
    module.K = np.array([1.0, 2.0, 3.0])  # a float became an array
    got = s2sad.grad(module.h)(np.ones(3))
    assert runs[0] == 2
    assert np.allclose(got, (1 - np.tanh(1.0) ** 2) * module.K)


def _unrelated(x):
    return x * x


class _Opaque:
    """A callable s2sad cannot read: it needs a rule."""

    def __call__(self, x):
        return x * x


opaque = _Opaque()


def rule_a(x, out, out_bar):
    return out_bar * 2.0 * x


def rule_b(x, out, out_bar):
    return out_bar * 3.0 * x


def uses_opaque(tmp_path):
    module = fresh(tmp_path, "def uses(x):\n    return opaque(x) + x\n")
    module.opaque = opaque
    return module.uses


def test_registering_a_rule_changes_the_key(cache, runs):
    s2sad.register_rule(opaque, reverse=rule_a)
    assert s2sad.grad(uses_opaque(cache.parent))(3.0) == 7.0
    assert s2sad.grad(uses_opaque(cache.parent))(3.0) == 7.0
    assert runs[0] == 1
    token = diskcache.rules_token()
    s2sad.register_rule(opaque, reverse=rule_b)  # another derivative
    assert diskcache.rules_token() != token
    assert s2sad.grad(uses_opaque(cache.parent))(3.0) == 10.0
    assert runs[0] == 2
    s2sad.register_rule(_unrelated, nondifferentiable=True)  # any registration counts
    s2sad.grad(uses_opaque(cache.parent))(3.0)
    assert runs[0] == 3


def test_a_rule_helper_that_cannot_be_found_again_is_never_stored(cache, runs):
    scale = type("Scale", (), {"__call__": lambda self, v: 2.0 * v})()  # no import path

    def reverse(x, out, out_bar):
        return scale(out_bar) * x

    class Square:
        def __call__(self, x):
            return x * x

    square = Square()
    s2sad.register_rule(square, reverse=reverse)
    module = fresh(cache.parent, "def uses(x):\n    return square(x)\n")
    module.square = square
    assert s2sad.grad(module.uses)(3.0) == 6.0
    assert entries(cache) == []


# ------------------------------------------------------- damaged entries


@pytest.mark.parametrize("damage", ["garbage", "truncated", "flipped", "empty", "foreign"])
def test_damaged_entries_are_ignored_and_replaced(cache, runs, damage):
    expected = s2sad.grad(fresh(cache.parent).f)(0.5, 1.2)
    path_f, = entries(cache)
    s2sad.grad(fresh(cache.parent).f, wrt=1)(0.5, 1.2)  # same function, another key
    path_other, = set(entries(cache)) - {path_f}
    data = path_f.read_bytes()
    if damage == "garbage":
        path_f.write_bytes(b"\x00\xffnot an entry at all")
    elif damage == "truncated":
        path_f.write_bytes(data[: len(data) // 2])
    elif damage == "flipped":  # same length, one byte of the derivative changed
        assert data.count(b"z_a_bar + z_b_bar") == 2  # in "units" and in "text"
        path_f.write_bytes(data.replace(b"z_a_bar + z_b_bar", b"z_a_bar - z_b_bar"))
    elif damage == "empty":
        path_f.write_bytes(b"")
    else:  # a valid entry for another key, under this key's name
        path_f.write_bytes(path_other.read_bytes())
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # not even a warning
        assert s2sad.grad(fresh(cache.parent).f)(0.5, 1.2) == expected
    assert runs[0] == 3  # recomputed
    assert _same_entry(path_f.read_bytes(), data)  # and rewritten
    s2sad.grad(fresh(cache.parent).f)(0.5, 1.2)
    assert runs[0] == 3  # which hits again


def _same_entry(one: bytes, other: bytes) -> bool:
    """Are two entries the same but for the name of the module each test case was
    loaded as (which the emitted text imports the module's constants from)?"""
    def body(data):
        return re.sub(rb"dc_case_\w+", b"dc_case", data.partition(b"\n")[2])

    return body(one) == body(other)


def _write_many(folder, n, failures):
    """Store the same key `n` times, as a process or a thread of its own would."""
    try:
        module = fresh(folder.parent)
        kinds = {"x": "scalar", "y": "scalar"}
        ticket = diskcache.ticket_for(folder, module.f, "grad", ("x",), False, kinds)
        unit = pipeline.reverse_unit(module.f, ("x",), "grad", kinds, False)
        stored = [diskcache.save(ticket, unit) for _ in range(n)]
    except BaseException as exc:  # a thread's exception would be lost
        failures.append(exc)
        raise
    if not all(stored):
        failures.append("not stored")
        sys.exit(1)  # a process's exit code says so


def _concurrently(target, cache, times, threads):
    """Run `target(cache, times, failures)` in three forked processes (where fork
    exists) and `threads` threads at once; the failures the threads record, and the
    number of processes. A process's exit code says whether it failed."""
    failures = []
    processes = []
    if "fork" in multiprocessing.get_all_start_methods():
        ctx = multiprocessing.get_context("fork")
        processes = [ctx.Process(target=target, args=(cache, times, [])) for _ in range(3)]
    for p in processes:  # forked before any thread starts
        p.start()
    workers = [threading.Thread(target=target, args=(cache, times, failures))
               for _ in range(threads)]
    for t in workers:
        t.start()
    for worker in workers + processes:
        worker.join()
    assert [p.exitcode for p in processes] == [0] * len(processes)
    return failures, len(processes)


def test_concurrent_writers_leave_one_valid_entry(cache, runs):
    failures, _ = _concurrently(_write_many, cache, 20, threads=4)
    assert failures == []
    assert len(entries(cache)) == 1
    assert [p for p in cache.iterdir() if p.suffix == ".tmp"] == []
    before = runs[0]
    module = fresh(cache.parent)
    assert s2sad.grad(module.f)(0.5, 1.2) == pytest.approx(dfdx(0.5, 1.2))
    assert runs[0] == before  # a hit
    assert unit_of(module.f).from_disk


# ------------------------------------------------------------- the rest


def test_guards_still_catch_a_rebound_callee_after_a_hit(cache, monkeypatch):
    s2sad.grad(fresh(cache.parent).f)(0.5, 1.2)
    module = fresh(cache.parent)
    df = s2sad.grad(module.f)
    before = df(0.5, 1.2)
    assert unit_of(module.f).from_disk
    assert df.__s2sad__.guards  # the dispatcher checks `helper` on every call
    module.helper = module.other_helper
    after = df(0.5, 1.2)
    assert before == pytest.approx(dfdx(0.5, 1.2))
    assert after == pytest.approx(dfdx(0.5, 1.2, sin=math.cos))


def test_clear_removes_entries_only(cache):
    s2sad.grad(fresh(cache.parent).f)(0.5, 1.2)
    s2sad.grad(fresh(cache.parent).h)(np.ones(3))
    (cache / "notes.txt").write_text("mine")
    assert s2sad.clear_disk_cache() == 2
    assert sorted(p.name for p in cache.iterdir()) == ["notes.txt"]
    assert s2sad.clear_disk_cache(cache.parent / "does-not-exist") == 0


def test_a_directory_that_cannot_be_written_warns_once_and_works(tmp_path, monkeypatch):
    monkeypatch.setattr(diskcache, "_setting", None)  # put back when the test ends
    blocker = tmp_path / "a-file"
    blocker.write_text("not a directory")
    s2sad.enable_disk_cache(blocker / "cache")
    with pytest.warns(s2sad.DiskCacheWarning, match="s2sad disk cache"):
        assert s2sad.grad(fresh(tmp_path).f)(0.5, 1.2) == pytest.approx(dfdx(0.5, 1.2))
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # once is enough
        s2sad.grad(fresh(tmp_path).h)(np.ones(3))


@pytest.mark.skipif(os.name != "posix", reason="POSIX permissions")
def test_a_directory_others_can_write_is_not_used(tmp_path, monkeypatch, runs):
    monkeypatch.setattr(diskcache, "_setting", None)  # put back when the test ends
    shared = tmp_path / "shared"
    shared.mkdir()
    os.chmod(shared, 0o777)
    s2sad.enable_disk_cache(shared)
    with pytest.warns(s2sad.DiskCacheWarning, match="other users"):
        s2sad.grad(fresh(tmp_path).f)(0.5, 1.2)
    assert list(shared.iterdir()) == []


def test_a_file_edited_after_import_is_refused_not_served(cache, runs):
    """The entry for the old text would be right for the running code, but the file
    no longer says so: a miss, and the transform refuses the stale text."""
    s2sad.grad(fresh(cache.parent).f)(0.5, 1.2)
    module = fresh(cache.parent)
    with open(module.__file__, "w") as fh:
        fh.write(BASE.replace("return a * math.sin(b)", "return a * math.sin(b) * b"))
    with pytest.raises(s2sad.StaleSourceError, match="helper"):
        s2sad.grad(module.f)(0.5, 1.2)
    assert len(entries(cache)) == 1
    # the bytecode comparison is the disk cache's key digest
    assert diskcache._code_digest is parse.code_digest


# ------------------------------------------------------ size and eviction


def _entry(folder, n, size, used):
    """A fake entry `n` of `size` bytes last used at `used` (seconds)."""
    folder.mkdir(exist_ok=True)
    path = folder / f"{n:064x}.json"
    path.write_bytes(b"x" * size)
    os.utime(path, ns=(int(used * 1e9), int(used * 1e9)))
    return path


def _names(folder):
    return sorted(int(p.stem, 16) for p in entries(folder))


def test_eviction_removes_the_least_recently_used_down_to_the_low_water_mark(tmp_path):
    folder = tmp_path / "cache"
    for n, used in [(1, 500), (2, 100), (3, 300), (4, 200), (5, 400)]:
        _entry(folder, n, 100, used)
    (folder / "notes.txt").write_text("x" * 10_000)  # not an entry: not counted or removed
    assert [int(e.path.stem, 16) for e in cachefiles.entries(folder)] == [2, 4, 3, 5, 1]
    assert cachefiles.evict(folder, cap=500) == (500, [])  # at the cap: nothing to do
    total, removed = cachefiles.evict(folder, cap=450, keep=folder / f"{2:064x}.json")
    # over 450: down to at most 0.9 * 450 = 405, oldest first, never `keep`
    assert [int(e.path.stem, 16) for e in removed] == [4]
    assert total == 400 and _names(folder) == [1, 2, 3, 5]
    total, removed = cachefiles.evict(folder, cap=250)
    assert [int(e.path.stem, 16) for e in removed] == [2, 3]
    assert total == 200 and _names(folder) == [1, 5]
    assert (folder / "notes.txt").exists()


def test_eviction_tolerates_entries_that_vanish(tmp_path, monkeypatch):
    folder = tmp_path / "cache"
    for n in range(4):
        _entry(folder, n, 100, 100 + n)
    listed = cachefiles.entries(folder)
    (folder / f"{0:064x}.json").unlink()  # another process evicted it after our listing
    monkeypatch.setattr(cachefiles, "entries", lambda _: listed)
    total, removed = cachefiles.evict(folder, cap=250)
    assert total == 200 and [int(e.path.stem, 16) for e in removed] == [1]
    assert _names(folder) == [2, 3]
    monkeypatch.undo()
    real_stat = os.stat

    def stat_after_unlink(path, *args, **kwargs):  # removed between listdir and stat
        if str(path).endswith(f"{2:064x}.json"):
            os.unlink(path)
        return real_stat(path, *args, **kwargs)

    monkeypatch.setattr(cachefiles.os, "stat", stat_after_unlink)
    assert [int(e.path.stem, 16) for e in cachefiles.entries(folder)] == [3]


def test_the_running_total_lists_the_directory_once_then_adds(tmp_path, monkeypatch):
    folder = tmp_path / "cache"
    sizes = cachefiles.Sizes()
    listings = []
    real = cachefiles.entries
    monkeypatch.setattr(cachefiles, "entries", lambda f: listings.append(f) or real(f))
    _entry(folder, 1, 300, 100)
    assert sizes.stored(folder, folder / f"{1:064x}.json", 300, cap=1000) == []
    assert len(listings) == 1 and sizes.totals[folder] == 300
    _entry(folder, 2, 300, 200)
    _entry(folder, 3, 300, 300)
    assert sizes.stored(folder, folder / f"{2:064x}.json", 300, cap=1000) == []
    assert sizes.stored(folder, folder / f"{3:064x}.json", 300, cap=1000) == []
    assert len(listings) == 1 and sizes.totals[folder] == 900  # no listing: added
    path = _entry(folder, 4, 300, 400)
    removed = sizes.stored(folder, path, 300, cap=1000)  # 1200 > 1000: list and evict
    assert [int(e.path.stem, 16) for e in removed] == [1]  # down to 0.9 * 1000
    assert len(listings) == 2 and sizes.totals[folder] == 900 and _names(folder) == [2, 3, 4]
    sizes.forget(folder)
    sizes.stored(folder, path, 300, cap=1000)
    assert len(listings) == 3


def test_the_cap_comes_from_the_argument_the_environment_or_the_default(cache, monkeypatch):
    monkeypatch.delenv("S2SAD_CACHE_MAX_MB", raising=False)
    assert diskcache.max_bytes() == 256 * 10**6
    monkeypatch.setenv("S2SAD_CACHE_MAX_MB", "1.5")
    assert diskcache.max_bytes() == 1_500_000
    s2sad.enable_disk_cache(cache, max_mb=2)
    assert diskcache.max_bytes() == 2_000_000
    info = s2sad.disk_cache_info()
    assert (info.directory, info.enabled, info.max_size) == (cache, True, 2_000_000)
    s2sad.enable_disk_cache(cache)  # no max_mb: the environment again
    assert diskcache.max_bytes() == 1_500_000
    for bad in (0, -1, "big", True, float("nan")):
        with pytest.raises(s2sad.S2SADError, match="max_mb is a size in megabytes"):
            s2sad.enable_disk_cache(cache, max_mb=bad)
    monkeypatch.setenv("S2SAD_CACHE_MAX_MB", "lots")
    with pytest.warns(s2sad.DiskCacheWarning, match="S2SAD_CACHE_MAX_MB='lots'"):
        assert diskcache.max_bytes() == 256 * 10**6
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # once is enough
        assert diskcache.max_bytes() == 256 * 10**6


def test_a_store_over_the_cap_evicts_the_entry_used_longest_ago(cache, runs, monkeypatch):
    monkeypatch.setattr(diskcache, "_sizes", cachefiles.Sizes())
    w = np.ones(3)
    s2sad.grad(fresh(cache.parent).f)(0.5, 1.2)  # entry A
    a, = entries(cache)
    s2sad.grad(fresh(cache.parent).f, wrt=1)(0.5, 1.2)  # entry B
    b, = set(entries(cache)) - {a}
    for age, path in ((200, a), (100, b)):  # B used longest ago ...
        os.utime(path, ns=(int((1e9 - age) * 1e9),) * 2)
    s2sad.grad(fresh(cache.parent).f, wrt=1)(0.5, 1.2)  # ... and then B is hit again
    assert runs[0] == 2
    assert b.stat().st_mtime > a.stat().st_mtime  # a hit marks the entry used
    info = s2sad.disk_cache_info()
    assert (info.entries, info.size) == (2, a.stat().st_size + b.stat().st_size)
    # a cap that the next entry takes the directory over: A goes
    s2sad.enable_disk_cache(cache, max_mb=(info.size + 1000) / 1e6)
    s2sad.grad(fresh(cache.parent).h)(w)
    assert runs[0] == 3
    assert not a.exists() and b.exists() and len(entries(cache)) == 2
    assert s2sad.disk_cache_info().size <= (info.size + 1000) * cachefiles.LOW_WATER
    s2sad.grad(fresh(cache.parent).f, wrt=1)(0.5, 1.2)  # B still hits
    assert runs[0] == 3


def _store_many(folder, k, failures):
    """Store `k` entries under their own keys with a cap of about three entries."""
    try:
        module = fresh(folder.parent)
        kinds = {"x": "scalar", "y": "scalar"}
        unit = pipeline.reverse_unit(module.f, ("x",), "grad", kinds, False)
        for i in range(k):
            ticket = diskcache.ticket_for(folder, module.f, "grad", ("x",), False,
                                          {"x": "scalar", "y": f"scalar{i}"})
            assert diskcache.save(ticket, unit)
    except BaseException as exc:  # a thread's exception would be lost
        failures.append(exc)
        raise


def test_concurrent_writers_over_the_cap_evict_without_errors(cache, monkeypatch):
    s2sad.grad(fresh(cache.parent).f)(0.5, 1.2)
    size, = [p.stat().st_size for p in entries(cache)]
    s2sad.enable_disk_cache(cache, max_mb=3.5 * size / 1e6)
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # no DiskCacheWarning either
        failures, processes = _concurrently(_store_many, cache, 15, threads=3)
    assert failures == []
    assert [p for p in cache.iterdir() if p.suffix == ".tmp"] == []
    # every process's last store evicted down to its view of the cap; what is left
    # is a few entries, each complete
    left = entries(cache)
    assert 1 <= len(left) <= 3 * (1 + processes)
    for path in left:
        head, _, body = path.read_bytes().partition(b"\n")
        assert head.split(b" ")[2] == hashlib.sha256(body).hexdigest().encode()


def test_the_entry_just_written_stays_even_over_the_cap(tmp_path, monkeypatch, runs):
    monkeypatch.setattr(diskcache, "_setting", None)  # put back when the test ends
    monkeypatch.setattr(diskcache, "_max_mb", None)
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("S2SAD_DISK_CACHE", "1")
    monkeypatch.setenv("S2SAD_CACHE_DIR", "relative")  # keep is compared by name
    monkeypatch.setenv("S2SAD_CACHE_MAX_MB", "0.000001")  # one byte
    s2sad.grad(fresh(tmp_path).f)(0.5, 1.2)
    first, = entries(tmp_path / "relative")
    s2sad.grad(fresh(tmp_path).h)(np.ones(3))
    second, = entries(tmp_path / "relative")
    assert second != first and runs[0] == 2
    s2sad.grad(fresh(tmp_path).h)(np.ones(3))
    assert runs[0] == 2  # a hit


def test_built_in_rules_are_named_not_read_and_the_version_is_in_the_key(monkeypatch):
    from s2sad import primitives

    rule, *_ = primitives.candidates(math.sin, "reverse")
    assert diskcache._builtin_rule(rule)
    assert diskcache._rule_digest(rule).startswith("s2sad.primitives.")
    assert diskcache._environment()[1] == s2sad.__version__
    read = []
    monkeypatch.setattr(diskcache, "_rules_token", [])
    monkeypatch.setattr(type(rule), "template", property(lambda r: read.append(r)))
    diskcache.rules_token()  # (a user's rule would be read; no built-in one is)
    assert read == []


def test_the_tests_leave_the_cache_as_they_found_it():
    # every test that turns the cache on or off puts the setting back (this module's
    # tests run in file order: this one is last)
    assert diskcache._setting is None
    assert diskcache._max_mb is None


CONTAINERS = """
import numpy as np

def loss(p, x):
    return np.sum(np.tanh(p["W"] @ x + p["b"]) ** 2)

def first(p):
    return p[0] * 2.0
"""


def test_containers_of_parameters_on_disk(tmp_path, cache, runs):
    """A gradient with respect to a dict is stored and found again by a fresh
    definition (another process's), and the structure is part of the key: a dict
    {0: x} and a list [x], read alike, get each their own structure back."""
    p = {"W": np.arange(6.0).reshape(2, 3) / 10, "b": np.ones(2) * 0.1}
    x = np.array([0.3, -0.2, 0.5])
    want = s2sad.grad(fresh(tmp_path, CONTAINERS).loss)(p, x)
    built = runs[0]
    got = s2sad.grad(fresh(tmp_path, CONTAINERS).loss)(p, x)
    assert runs[0] == built  # (found on disk)
    assert set(got) == {"W", "b"}
    np.testing.assert_allclose(got["W"], want["W"])
    m = fresh(tmp_path, CONTAINERS)
    assert s2sad.grad(m.first)({0: 1.5}) == {0: 2.0}
    assert s2sad.grad(m.first)([1.5]) == [2.0]
    assert s2sad.grad(fresh(tmp_path, CONTAINERS).first)((1.5,)) == (2.0,)
