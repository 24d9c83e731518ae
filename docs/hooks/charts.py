"""MkDocs hook: bar charts drawn from the benchmark pages' own tables.

A line ``<!-- chart: TITLE | LABEL COLUMNS | VALUE COLUMNS | linear or log -->``
right before a Markdown table adds, after the table, an inline SVG bar chart: one
group of bars per row, labelled by the label columns (joined with ", "), one bar per
value column (several columns: a legend). Columns are named by their header text,
separated by ``;``. Numbers may have thousands separators and a unit after them
(``1,099.2``, ``0.9 µs``). The chart is built from the numbers the page shows, so it
cannot disagree with the table; a marker whose table or columns cannot be read is a
warning (an error under ``mkdocs build --strict``).
"""

import html
import logging
import math
import re

log = logging.getLogger("mkdocs.hooks.charts")

MARKER = re.compile(r"^<!-- chart: (.*?) -->\n\n?((?:\|.*\|\n)+)", flags=re.M)
COLOURS = ["#3f6ec6", "#e08a2c", "#4c9a5a", "#b8465a"]
WIDTH, LABEL_W, BAR_H, GAP = 760, 300, 14, 8


def cells(line):
    return [c.strip() for c in line.strip().strip("|").split("|")]


def number(text):
    m = re.match(r"^([0-9][0-9,]*(?:\.[0-9]+)?)", text.replace("`", "").strip())
    return float(m.group(1).replace(",", "")) if m else None


def svg(title, labels, series, names, scale):
    values = [v for s in series for v in s if v is not None]
    top = max(values)
    low = min(v for v in values if v > 0)
    if scale == "log":
        lo = math.floor(math.log10(low))
        hi = math.ceil(math.log10(top)) if top > low else lo + 1
        def length(v):
            return (math.log10(max(v, 10 ** lo)) - lo) / (hi - lo)
        ticks = [10.0 ** k for k in range(lo, hi + 1)]
    else:
        step = 10 ** (math.floor(math.log10(top)) - 1)
        for f in (1, 2, 5, 10, 20, 50):
            if top / (f * step) <= 6:
                step *= f
                break
        hi_v = math.ceil(top / step) * step
        def length(v):
            return v / hi_v
        ticks = [k * step for k in range(int(round(hi_v / step)) + 1)]
    plot_w = WIDTH - LABEL_W - 60
    group_h = BAR_H * len(series) + GAP
    legend_h = 22 if len(series) > 1 else 0
    height = 30 + legend_h + group_h * len(labels) + 24
    y0 = 30 + legend_h
    out = [f'<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 {WIDTH} {height}" '
           f'width="100%" role="img" aria-label="{html.escape(title)}" '
           'fill="currentColor" '
           'style="max-width: 760px; font-family: sans-serif; font-size: 12px">',
           f'<text x="{WIDTH / 2}" y="18" text-anchor="middle" font-weight="bold">'
           f'{html.escape(title)}</text>']
    if legend_h:
        x = LABEL_W
        for k, name in enumerate(names):
            out.append(f'<rect x="{x}" y="28" width="12" height="12" fill="{COLOURS[k]}"/>'
                       f'<text x="{x + 16}" y="38">{html.escape(name)}</text>')
            x += 24 + 7 * len(name)
    for t in ticks:
        x = LABEL_W + plot_w * length(t)
        text = f"{t:g}"
        out.append(f'<line x1="{x:.1f}" y1="{y0 - 4}" x2="{x:.1f}" '
                   f'y2="{y0 + group_h * len(labels)}" stroke="#ccc"/>'
                   f'<text x="{x:.1f}" y="{y0 + group_h * len(labels) + 14}" '
                   f'text-anchor="middle" fill-opacity="0.6">{text}</text>')
    for i, label in enumerate(labels):
        y = y0 + i * group_h
        out.append(f'<text x="{LABEL_W - 8}" y="{y + BAR_H * len(series) / 2 + 4:.1f}" '
                   f'text-anchor="end">{html.escape(label)}</text>')
        for k, s in enumerate(series):
            v = s[i]
            if v is None:
                continue
            w = max(plot_w * length(v), 1.0)
            out.append(f'<rect x="{LABEL_W}" y="{y + k * BAR_H}" width="{w:.1f}" '
                       f'height="{BAR_H - 2}" fill="{COLOURS[k]}"><title>'
                       f'{html.escape(label)}: {v:g}</title></rect>'
                       f'<text x="{LABEL_W + w + 4:.1f}" y="{y + k * BAR_H + BAR_H - 4}" '
                       f'fill-opacity="0.8">{v:g}</text>')
    out.append("</svg>")
    return "".join(out)


def chart(spec, table, where):
    parts = [p.strip() for p in spec.split("|")]
    if len(parts) != 4 or parts[3] not in ("linear", "log"):
        log.warning("%s: chart marker %r is not TITLE | LABELS | VALUES | linear or log",
                    where, spec)
        return ""
    title, label_cols, value_cols, scale = parts
    rows = [cells(line) for line in table.strip("\n").split("\n")]
    header, body = rows[0], rows[2:]
    columns = {name.strip("`"): k for k, name in enumerate(header)}
    try:
        li = [columns[c.strip()] for c in label_cols.split(";")]
        vi = [columns[c.strip()] for c in value_cols.split(";")]
    except KeyError as exc:
        log.warning("%s: chart %r names a column the table lacks: %s", where, title, exc)
        return ""
    labels = [", ".join(r[k].replace("`", "") for k in li) for r in body]
    series = [[number(r[k]) for r in body] for k in vi]
    if not any(v is not None for s in series for v in s):
        log.warning("%s: chart %r finds no numbers in its columns", where, title)
        return ""
    names = [header[k].replace("`", "") for k in vi]
    return svg(title, labels, series, names, scale)


def on_page_markdown(markdown, page, config, files):
    def replace(m):
        drawn = chart(m.group(1), m.group(2), page.file.src_uri)
        return m.group(2) + ("\n" + drawn + "\n" if drawn else "")
    return MARKER.sub(replace, markdown)
