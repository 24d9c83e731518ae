"""The emitted derivative, and every refusal's message, is the same in every run:
nothing the compiler prints may depend on the order Python iterates a set of names,
which changes with the string hashes (``PYTHONHASHSEED``). Programs of the fuzzers
(scalar, arrays, lists of arrays; their refusals included) are compiled in two
processes with different hash seeds and the texts compared."""

import json
import os
import subprocess
import sys

from hypothesis import HealthCheck, given, settings

import fuzz_programs as fp

HERE = os.path.dirname(os.path.abspath(__file__))

# one process: compile each program in both modes, print what came out (the text or
# the refusal), with the process's own file names made the same
SCRIPT = r"""
import inspect, json, re, sys, warnings
warnings.simplefilter("ignore")
sys.path[:0] = [sys.argv[2], sys.argv[3]]
import fuzz_programs as fp
from s2sad.api.reverse import emitted
out = []
for text in json.load(open(sys.argv[1])):
    f = fp.load(text)
    n = len(inspect.signature(f).parameters)
    wrt, example = tuple(range(min(n, 2))), None
    if inspect.ismethod(f):  # (a method of an object: the function, at that object,
        # the other parameters' kinds assumed as a function's are)
        f, wrt, example = f.__func__, (1, 2), (f.__self__,)
    for mode in ("reverse", "forward"):
        try:
            got = emitted(f, mode, wrt, "reverse", example)[0].text
        except Exception as e:
            got = f"{type(e).__name__}: {e}"
        out.append(re.sub(r"fuzz\d+", "fuzz", got.replace(fp._dir, "DIR")))
print(json.dumps(out))
"""


# a refusal that names one of two other names of the changed element (`a4`, `c4`): it
# named either, by the hash seed
TWO_HOLDERS = """import numpy as np


def f(x, w, s):
    v1 = x * 2.0
    a4 = np.array(v1)
    c4 = (w @ x)[1:4] * 0.5
    lst4 = []
    lst4.append(a4)
    lst4.append(c4)
    for j4 in range(len(lst4)):
        lst4[j4] += np.sum(w, axis=0)
    out4 = lst4[0] + a4 * c4
    return np.sum(out4) * s
"""


def _programs(strategy, n) -> list:
    found = []

    @settings(max_examples=n, derandomize=True, database=None, deadline=None,
              suppress_health_check=list(HealthCheck))
    @given(strategy)
    def collect(text):
        found.append(text)

    collect()
    return found


def _compiled(path, seeds) -> list:
    """What the script prints under each hash seed of `seeds`, the processes run at
    once (each spends most of its time alone, importing and compiling)."""
    root = os.path.dirname(HERE)
    runs = [subprocess.Popen([sys.executable, "-c", SCRIPT, path, HERE, root],
                             env=dict(os.environ, PYTHONHASHSEED=str(seed)),
                             stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
            for seed in seeds]
    out = []
    for run in runs:
        stdout, stderr = run.communicate(timeout=600)
        assert run.returncode == 0, stderr
        out.append(json.loads(stdout))
    return out


def _same(texts, path, seeds):
    path.write_text(json.dumps(texts))
    first, *others = _compiled(str(path), seeds)
    assert len(first) == 2 * len(texts)
    for seed, other in zip(seeds[1:], others):
        for i, (a, b) in enumerate(zip(first, other)):
            assert a == b, (f"{texts[i // 2]}\n--- hash seed {seeds[0]}:\n{a}\n"
                            f"--- hash seed {seed}:\n{b}")


def test_a_refusal_names_the_same_value_under_every_hash_seed(tmp_path):
    """Programs where a set of names once decided what a message said, under
    enough seeds that each order of two names turns up."""
    _same([TWO_HOLDERS], tmp_path / "fixed.json", seeds=tuple(range(8)))


def test_the_same_text_and_refusals_under_two_hash_seeds(tmp_path):
    texts = (_programs(fp.scalar_program(), 30) + _programs(fp.array_program(), 30)
             + _programs(fp.array_program(params=True), 20))
    _same(texts, tmp_path / "programs.json", seeds=(1, 2))
