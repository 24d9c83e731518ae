"""python -m benchmarks [--quick]: s2sad side by side with the tools its users would
pick instead, on every case, in one run; prints a Markdown report and writes it, with
a chart and the raw figures, to benchmarks/results/."""

import argparse
import datetime
import gc
import importlib
import os
import platform
import sys
import time
import tracemalloc

from .threads import DEFAULT_THREADS, PINNED  # noqa: I001  (before NumPy loads)
from .allocator import STEADY  # noqa: I001  (before anything allocates arrays)
from . import harness, report, tools  # after pin_threads: NumPy loads here
from .harness import Skipped, compare, describe, quiet
from .timing import interleaved, median, ratio, spread

HERE = os.path.dirname(os.path.abspath(__file__))

# Case modules, in report order, each with TITLE, CASES and PORTS (see harness.py).
CASE_MODULES = ["scalar_cases", "loop_cases", "numpy_cases"]

FULL = dict(rounds=41, target=0.005, budget=30.0, first_repeats=9, peer_repeats=3,
            first_limit=5.0)
QUICK = dict(rounds=5, target=0.002, budget=None, first_repeats=3, peer_repeats=1,
             first_limit=1.0)


def progress(text):
    print(text, file=sys.__stderr__, flush=True)


def first_call_ms(tool, case, repeats, limit):
    """Build the gradient of a fresh definition of the case and call it once: the
    tool's transform, trace or compile, and one run. Median over repeats (fewer once
    ``limit`` seconds are spent)."""
    out = []
    for _ in range(repeats):
        fresh = case.fresh()
        tool.reset()
        gc.collect(1)
        start = time.perf_counter()
        tool.make(fresh)(*fresh.args)
        out.append(time.perf_counter() - start)
        if sum(out) > limit:
            break
    return median(out) * 1e3


def warm_disk_first_call_ms(tool, case, repeats, limit):
    """s2sad's first call of a fresh definition with the disk cache on and holding the
    case's derivative already: what a new process pays for a function it ran before."""
    import tempfile

    import s2sad

    with tempfile.TemporaryDirectory() as directory:
        s2sad.enable_disk_cache(directory)
        try:
            fresh = case.fresh()
            tool.make(fresh)(*fresh.args)  # fills the cache
            return first_call_ms(tool, case, repeats, limit)
        finally:
            s2sad.disable_disk_cache()


def peak_kib(fn, args):
    """Peak memory traced by tracemalloc during one call, in KiB."""
    gc.collect()
    tracemalloc.start()
    try:
        fn(*args)
        return tracemalloc.get_traced_memory()[1] / 1024
    finally:
        tracemalloc.stop()


def result(status, detail="", **figures):
    base = dict(status=status, detail=detail, median=None, spread=None, over_primal=None,
                over_s2sad=None, over_hand=None, first_ms=None, peak_kib=None, error=None)
    base.update(figures)
    return base


def run_case(case, contenders, missing, settings, log):
    results = {}
    fns, values = {}, {}
    for tool in contenders:
        if tool.key in missing:
            results[tool.key] = result("missing", missing[tool.key])
            continue
        try:
            fn = tool.make(case)
            value = fn(*case.args)
            if tool.kind not in ("primal", "reference"):
                value = harness.as_numpy(value) if case.arrays else harness.tidy(value)
        except Skipped as exc:
            results[tool.key] = result("skipped", str(exc))
            continue
        except Exception as exc:
            status = "error" if not tool.peer else "unsupported"
            results[tool.key] = result(status, describe(exc))
            continue
        fns[tool.key], values[tool.key] = fn, value
        results[tool.key] = result("ok")

    # s2sad against the hand-written gradient; every other tool against s2sad's (or
    # against the hand-written one if s2sad itself is wrong or failed)
    reference = values.get("by-hand")
    if "s2sad" in values:
        ok, err = compare(values["s2sad"], reference, tools.S2SAD.tolerance)
        results["s2sad"]["error"] = err
        if ok:
            reference = values["s2sad"]
        else:
            results["s2sad"] = result(
                "wrong", f"s2sad gives {short(values['s2sad'])}, by hand "
                f"{short(reference)}", error=err)
            del fns["s2sad"]
    against = "s2sad" if reference is values.get("s2sad") else "by hand"
    for tool in contenders:
        if tool.kind in ("primal", "reference") or tool.key == "s2sad":
            continue
        if tool.key not in fns:
            continue
        ok, err = compare(values[tool.key], reference, tool.tolerance)
        if ok:
            results[tool.key]["error"] = err
            if against != "s2sad":
                results[tool.key]["detail"] = "checked against by hand"
        else:
            results[tool.key] = result(
                "wrong", f"gives {short(values[tool.key])}, {against} gives "
                f"{short(reference)} (relative error {err:.1e})", error=err)
            del fns[tool.key]

    if "primal" not in fns:
        return results

    times = interleaved(fns, case.args, rounds=settings["rounds"], target=settings["target"],
                        budget=settings["budget"])
    for key, ts in times.items():
        r = results[key]
        r["median"], r["spread"], r["rounds"] = median(ts), spread(ts), len(ts)
        if key != "primal":
            r["over_primal"] = ratio(times, key, "primal")
            if "s2sad" in times:
                r["over_s2sad"] = ratio(times, key, "s2sad")
            if "by-hand" in times:
                r["over_hand"] = ratio(times, key, "by-hand")

    for tool in contenders:
        if tool.key not in fns:
            continue
        if tool.has_first_call:
            repeats = settings["first_repeats"] if not tool.peer else settings["peer_repeats"]
            try:
                results[tool.key]["first_ms"] = first_call_ms(
                    tool, case, repeats, settings["first_limit"])
                if tool.key == "s2sad":
                    results[tool.key]["first_warm_ms"] = warm_disk_first_call_ms(
                        tool, case, repeats, settings["first_limit"])
            except Exception as exc:
                results[tool.key]["detail"] += f" (first call failed: {describe(exc)})"
        results[tool.key]["peak_kib"] = peak_kib(fns[tool.key], case.args)
    gc.collect()
    return results


def short(value, n=4):
    items = harness.flat(value)
    text = ", ".join(f"{v:.15g}" if isinstance(v, float) else repr(v) for v in items[:n])
    if len(items) > n:
        text += f", … ({len(items)} values)"
    return f"({text})" if len(items) > 1 else text


def machine():
    cpu = platform.processor() or ""
    try:
        with open("/proc/cpuinfo") as fh:
            for line in fh:
                if line.startswith("model name"):
                    cpu = line.split(":", 1)[1].strip()
                    break
    except OSError:
        pass
    return f"{platform.machine()}, {os.cpu_count()} cores" + (f", {cpu}" if cpu else "")


def method(settings, quick):
    lines = [
        ("Every tool is measured in the same process, in interleaved rounds (each round "
         "calls every tool, starting one further along each time); a round repeats a "
         f"call until it lasts {settings['target'] * 1e3:.0f} ms, or calls a slower tool "
         "once. Rounds per case: "
         + (f"{settings['rounds']}." if settings["budget"] is None else
            f"up to {settings['rounds']}, fewer for slow cases (at least 5, about "
            f"{settings['budget']:.0f} s per case).")),
        ("Time per call is the median over rounds; spread is half the interquartile "
         "range over the median. Ratios (grad / primal, × by hand, × s2sad) are medians of "
         "per-round ratios, so they hold when the machine's speed drifts; absolute "
         "times on a shared machine vary by up to a factor of two between runs."),
        ("Every gradient takes and returns Python floats (lists for a list argument), "
         "or for a NumPy case NumPy arrays: a peer's conversions to and from its "
         "tensors are part of its time. The arrays a NumPy case does not differentiate "
         "(a data set, targets) are data a JAX user keeps as JAX arrays: they are "
         "converted once, on the first call, and reused; PyTorch's ports wrap them with "
         "torch.from_numpy (no copy) on every call."),
        ("Threads: " + ("the libraries' own thread pools (--threads 0, or NumPy was "
                        "loaded before the runner could set them)." if not PINNED else
                        f"OpenBLAS (NumPy), PyTorch and XLA each limited to {PINNED} "
                        f"thread{'s' if PINNED > 1 else ''} (--threads), so every figure, "
                        "the primal's included, is a figure for that many threads and "
                        "thread pools do not contend for the cores between tools.")),
        ("Memory: " + ("glibc keeps freed memory in the process (mallopt at start-up, "
                       "--malloc steady), so no tool pays page faults to refill memory "
                       "the allocator gave back after its last call; see "
                       "benchmarks/allocator.py." if STEADY else
                       "the allocator's own behaviour (--malloc default, or not glibc): "
                       "a tool whose arrays are all freed when it returns may pay page "
                       "faults on its next call, depending on what the process freed "
                       "before.")),
        ("Before any time counts, s2sad's gradient is checked against the hand-written "
         "one and every peer's against s2sad's: each component within 1e-9·(1+|g|) "
         "(1e-4 for central differences). A tool that disagrees is shown as wrong, "
         "with its values, and is not timed; the error column is max |g − g_s2sad| / "
         "max |g_s2sad|."),
        ("First call: a fresh definition of the case (its module's source executed "
         "anew, so no cache knows the function), the gradient built and called once: "
         "s2sad's parse-to-compiled time, tangent's transform (its caches cleared), "
         "jit's trace and compile, autograd's, JAX's and PyTorch's first trace, one "
         "call of s2sad's runtime engines. Library-wide caches (JAX's per-operation "
         "kernels) stay warm."),
        ("Peak memory: tracemalloc's peak during one gradient call, after "
         "gc.collect() (which also empties the interpreter's free lists, so every "
         "float and tuple on a tape counts). It sees Python objects and NumPy "
         "buffers, not what PyTorch's and XLA's own allocators hold."),
        ("Ports: peers run each case's own source with `math` bound to their "
         "operations (autograd.numpy, jax.numpy, torch, numpy for tangent); JAX + jit "
         "runs the explicit ports beside the loop cases in loop_cases.py "
         "(lax.fori_loop for the 1000-step loops, lax.while_loop for Newton); NumPy "
         "cases run as they are with `np` bound to autograd.numpy, jax.numpy or numpy, "
         "and PyTorch runs the torch ports in numpy_cases.py."),
        ("s2sad tape and s2sad dual are s2sad's own runtime engines "
         "(s2sad.engines.tape_grad, dual_grad), not peers: the case function run on "
         "traced values each call, reverse mode on a Wengert list and forward mode "
         "with one tangent per input float. They show what the compiler saves."),
        ("Skipped: a tool that would run but is not run on a case, with the reason "
         "(central differences above 2,000 inputs; dual numbers above 1,000 inputs on "
         "a NumPy case, where every intermediate array carries one tangent per "
         "input)."),
    ]
    if quick:
        lines.insert(0, "Quick run (--quick): primal, by hand and s2sad only, few "
                        "rounds; a smoke test, not figures to quote.")
    return lines


def main(argv=None):
    parser = argparse.ArgumentParser(prog="python -m benchmarks", description=__doc__)
    parser.add_argument("--quick", action="store_true",
                        help="a short smoke run: primal, by hand and s2sad only")
    parser.add_argument("--peers", default="all",
                        help="comma-separated peers to run ("
                        + ",".join(t.key for t in tools.PEERS) + "), 'all' or 'none'")
    parser.add_argument("--case", action="append", default=[],
                        help="run only cases whose name contains this (repeatable)")
    parser.add_argument("--budget", type=float, default=None,
                        help="seconds of timing rounds per case (full run: 30)")
    parser.add_argument("--threads", type=int, default=DEFAULT_THREADS,
                        help="threads for OpenBLAS, PyTorch and XLA (default 1; 0: their "
                        "own defaults); takes effect when run as python -m benchmarks")
    parser.add_argument("--malloc", choices=["steady", "default"], default="steady",
                        help="steady (default): glibc keeps freed memory, so no tool pays "
                        "page faults for memory given back after its last call; default: "
                        "glibc's own thresholds (see benchmarks/allocator.py)")
    parser.add_argument("--out", default=os.path.join(HERE, "results"),
                        help="directory for the report (default benchmarks/results)")
    args = parser.parse_args(argv)
    settings = dict(QUICK if args.quick else FULL)
    if args.budget is not None:
        settings["budget"] = args.budget

    if args.quick or args.peers == "none":
        chosen = []
    elif args.peers == "all":
        chosen = list(tools.PEERS)
    else:
        wanted = [p.strip() for p in args.peers.split(",") if p.strip()]
        known = {t.key: t for t in tools.PEERS}
        unknown = [w for w in wanted if w not in known]
        if unknown:
            parser.error(f"unknown peer(s) {', '.join(unknown)}; known: {', '.join(known)}")
        chosen = [known[w] for w in wanted]
    contenders = list(tools.CORE) + chosen

    started = time.perf_counter()
    missing, tool_info = {}, []
    for tool in contenders:
        try:
            with quiet():
                tool.load()
        except Exception as exc:
            if not tool.peer:
                raise
            missing[tool.key] = describe(exc)
        versions = [f"{d} {tools.version(d)}" for d in tool.dists if tools.version(d)]
        extra = ""
        if tool.key not in missing:
            try:
                extra = tool.details()
            except Exception:
                extra = ""
        tool_info.append(dict(key=tool.key, label=tool.label,
                              status="missing" if tool.key in missing else "ok",
                              reason=missing.get(tool.key, ""),
                              version=", ".join(versions) + (f" ({extra})" if extra else ""),
                              note=tool.note))

    sections, log, failed = [], [], []
    for module_name in CASE_MODULES:
        module = importlib.import_module(f".{module_name}", __package__)
        cases = harness.load(module)
        if args.case:
            cases = [c for c in cases if any(s.lower() in c.name.lower() for s in args.case)]
        if not cases:
            continue
        section = dict(title=getattr(module, "TITLE", module_name), cases=[])
        for case in cases:
            progress(f"benchmarks: {case.name} ...")
            t0 = time.perf_counter()
            with quiet(log):
                results = run_case(case, contenders, missing, settings, log)
            progress(f"benchmarks: {case.name} done in {time.perf_counter() - t0:.1f} s")
            section["cases"].append(dict(name=case.name, results=results))
            if results.get("s2sad", {}).get("status") != "ok":
                failed.append(case.name)
        sections.append(section)

    now = datetime.datetime.now()
    libs = ", ".join(f"{d} {tools.version(d)}" for d in ("numpy", "matplotlib")
                     if tools.version(d))
    run = dict(
        date=now.strftime("%Y-%m-%d %H:%M"),
        mode="quick" if args.quick else "full",
        seconds=time.perf_counter() - started,
        python=f"Python {platform.python_version()} ({platform.python_implementation()})",
        machine=machine() + (f"; {libs}" if libs else ""),
        tools=tool_info, sections=sections, method=method(settings, args.quick),
        tool_output=log,
    )
    text = report.markdown(run)
    if args.quick:
        written, note = report.save(run, text, args.out, "quick", ())
    else:
        written, note = report.save(run, text, args.out,
                                    "bench-" + now.strftime("%Y%m%d-%H%M%S"), ("latest",))
    print(text)
    print("Written: " + ", ".join(os.path.relpath(p) for p in written))
    if note:
        print(note)
    if failed:
        print(f"s2sad failed or disagreed with the hand-written gradient on: "
              f"{', '.join(failed)}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
