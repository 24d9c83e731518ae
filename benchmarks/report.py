"""The report: Markdown tables, a chart of gradient / primal per case and tool, and
the raw figures as JSON."""

import json
import math
import os

STATUS_TEXT = {
    "missing": "missing",
    "unsupported": "unsupported",
    "wrong": "**wrong**",
    "error": "error",
    "skipped": "skipped",
}


def sig3(x):
    """Three significant digits, no exponent: 1.09, 28.1, 331, 10500."""
    if x is None or (isinstance(x, float) and not math.isfinite(x)):
        return "—"
    if x == 0:
        return "0"
    decimals = max(0, 2 - math.floor(math.log10(abs(x))))
    return f"{x:,.{decimals}f}"


def fmt_time(seconds):
    if seconds is None:
        return "—"
    for unit, scale in (("s", 1.0), ("ms", 1e-3), ("µs", 1e-6), ("ns", 1e-9)):
        if seconds >= scale:
            return f"{sig3(seconds / scale)} {unit}"
    return f"{sig3(seconds / 1e-9)} ns"


def fmt_error(err):
    if err is None:
        return "—"
    if err == 0:
        return "0"
    if not math.isfinite(err):
        return str(err)
    return f"{err:.0e}"


def cell(text):
    return str(text).replace("|", "\\|")


def cell_ratio(res, key="over_primal"):
    if res["status"] == "ok":
        return sig3(res[key])
    return STATUS_TEXT.get(res["status"], res["status"])


def markdown(run):
    out = ["# s2sad against the tools its users would pick instead", ""]
    out.append(f"{run['date']} · {run['mode']} run in {run['seconds']:.0f} s · "
               f"{run['python']} on {run['machine']}")
    out.append("")
    out.append("| tool | version | how it is run |")
    out.append("|---|---|---|")
    for t in run["tools"]:
        if t["status"] == "missing":
            ver = f"missing: {t['reason']}"
        else:
            ver = t["version"] or ""
        out.append(f"| {t['label']} | {cell(ver)} | {cell(t['note'])} |")
    out.append("")
    if any(t["status"] == "missing" for t in run["tools"]):
        out.append("Missing peers are optional: `pip install -e '.[bench]'` in a virtualenv "
                   "of their own installs them (benchmarks/README.md).")
        out.append("")
    labels = [t["label"] for t in run["tools"] if t["key"] != "primal"]
    keys = [t["key"] for t in run["tools"] if t["key"] != "primal"]

    out.append("## Gradient / primal")
    out.append("")
    out.append("Time of one gradient call over one call of the plain Python function, "
               "median of per-round ratios (lower is better; by hand is the floor for "
               "plain Python).")
    out.append("")
    out.append("| case | primal | " + " | ".join(labels) + " |")
    out.append("|---|---:|" + "---:|" * len(labels))
    for section in run["sections"]:
        for case in section["cases"]:
            res = case["results"]
            cells = [cell_ratio(res[k]) for k in keys]
            out.append(f"| {case['name']} | {fmt_time(res['primal']['median'])} | "
                       + " | ".join(cells) + " |")
    out.append("")

    out.append("## Gradient / by hand")
    out.append("")
    out.append("Time of one gradient call over one call of the gradient written by hand "
               "beside the case, median of per-round ratios (1 is the hand-written "
               "gradient's speed; lower is better).")
    out.append("")
    hand_keys = [k for k in keys if k != "by-hand"]
    hand_labels = [lb for k, lb in zip(keys, labels) if k != "by-hand"]
    out.append("| case | by hand | " + " | ".join(hand_labels) + " |")
    out.append("|---|---:|" + "---:|" * len(hand_labels))
    for section in run["sections"]:
        for case in section["cases"]:
            res = case["results"]
            hand = res.get("by-hand", {}).get("median")
            cells = [cell_ratio(res[k], "over_hand") for k in hand_keys]
            out.append(f"| {case['name']} | {fmt_time(hand)} | " + " | ".join(cells) + " |")
    out.append("")

    out.append("## s2sad's first call")
    out.append("")
    out.append("Parse to compiled gradient, plus one call, of a fresh definition (median "
               "over repeats): cold, and with the disk cache on and holding the derivative "
               "(`s2sad.enable_disk_cache()`: a new process that ran the function before).")
    out.append("")
    out.append("| case | cold (ms) | warm disk cache (ms) |")
    out.append("|---|---:|---:|")
    for section in run["sections"]:
        for case in section["cases"]:
            r = case["results"].get("s2sad", {})
            if r.get("status") == "ok":
                out.append(f"| {case['name']} | {sig3(r.get('first_ms'))} | "
                           f"{sig3(r.get('first_warm_ms'))} |")
    out.append("")

    for section in run["sections"]:
        out.append(f"## {section['title']}")
        out.append("")
        for case in section["cases"]:
            out.extend(case_table(case, run["tools"]))
            out.append("")

    out.append("## How this is measured")
    out.append("")
    out.extend(f"* {line}" for line in run["method"])
    out.append("")
    if run.get("tool_output"):
        out.append("Printed or warned by the tools while they ran (silenced):")
        out.append("")
        out.extend(f"    {line[:200]}" for line in run["tool_output"][:20])
        out.append("")
    return "\n".join(out)


def case_table(case, tools):
    out = [f"### {case['name']}", ""]
    out.append("| tool | time per call | spread | grad / primal | × by hand | × s2sad | "
               "first call (ms) | peak memory (KiB) | error vs s2sad |")
    out.append("|---|---:|---:|---:|---:|---:|---:|---:|---:|")
    notes = []
    for t in tools:
        r = case["results"][t["key"]]
        if r["status"] != "ok":
            err = fmt_error(r.get("error")) if r["status"] == "wrong" else "—"
            out.append(f"| {t['label']} | {STATUS_TEXT.get(r['status'], r['status'])} "
                       f"| — | — | — | — | — | — | {err} |")
            if r["status"] != "missing":
                notes.append(f"{t['label']}: {r['status']}: {r['detail']}")
            continue
        primal = t["key"] == "primal"
        cells = [
            fmt_time(r["median"]),
            f"±{r['spread']:.0%}",
            "—" if primal else sig3(r["over_primal"]),
            "—" if primal or t["key"] == "by-hand" else sig3(r.get("over_hand")),
            "—" if primal else sig3(r["over_s2sad"]),
            "—" if r["first_ms"] is None else sig3(r["first_ms"]),
            "—" if r["peak_kib"] is None else f"{r['peak_kib']:,.1f}",
            fmt_error(r.get("error")),
        ]
        out.append(f"| {t['label']} | " + " | ".join(cells) + " |")
        if r.get("detail"):
            notes.append(f"{t['label']}: {r['detail']}")
    if notes:
        out.append("")
        out.extend(f"* {n}" for n in notes)
    return out


def chart(run, path):
    """A grouped bar chart, log scale: gradient / primal per case and tool. Returns
    None, or why no chart was drawn."""
    try:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except Exception as exc:  # matplotlib is optional (the bench extra has it)
        return f"no chart: matplotlib is not importable ({type(exc).__name__})"
    tools = [t for t in run["tools"] if t["key"] != "primal"]
    cases = [c for s in run["sections"] for c in s["cases"]]
    width = 0.8 / max(1, len(tools))
    fig, ax = plt.subplots(figsize=(max(8, 1.6 * len(cases) + 4), 5.5))
    cmap = plt.get_cmap("tab10")
    for j, t in enumerate(tools):
        xs, ys, marks = [], [], []
        for i, c in enumerate(cases):
            r = c["results"][t["key"]]
            x = i + (j - (len(tools) - 1) / 2) * width
            if r["status"] == "ok":
                xs.append(x)
                ys.append(r["over_primal"])
            else:
                marks.append((x, r["status"]))
        ax.bar(xs, ys, width, label=t["label"], color=cmap(j % 10))
        for x, status in marks:
            ax.text(x, 1.05, {"missing": "–", "wrong": "✗", "skipped": "s"}.get(status, "×"),
                    ha="center", va="bottom", fontsize=8, color=cmap(j % 10))
    ax.set_yscale("log")
    ax.axhline(1.0, color="grey", linewidth=0.8)
    ax.set_xticks(range(len(cases)))
    ax.set_xticklabels([c["name"] for c in cases], rotation=15, ha="right", fontsize=9)
    ax.set_ylabel("gradient time / primal time (log)")
    ax.set_title("Gradient over primal, per case and tool (lower is better; "
                 "× unsupported, ✗ wrong, – missing, s skipped)", fontsize=10)
    ax.legend(fontsize=8, loc="upper left", bbox_to_anchor=(1.01, 1.0))
    ax.grid(axis="y", which="both", alpha=0.3)
    fig.tight_layout()
    fig.savefig(path, dpi=120)
    plt.close(fig)
    return None


def save(run, text, directory, stem, also):
    """Write stem.md, stem.json and stem.png into ``directory``, and the same under
    each name in ``also``. Returns the paths written and a note on the chart."""
    os.makedirs(directory, exist_ok=True)
    written = []
    note = None
    for name in (stem, *also):
        md = os.path.join(directory, name + ".md")
        with open(md, "w") as fh:
            fh.write(text)
        js = os.path.join(directory, name + ".json")
        with open(js, "w") as fh:
            json.dump(run, fh, indent=1, default=str)
        png = os.path.join(directory, name + ".png")
        note = chart(run, png)
        written += [md, js] + ([] if note else [png])
    return written, note
