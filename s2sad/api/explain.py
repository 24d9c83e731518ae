"""`s2sad.explain`: a function and its derivative side by side, as one HTML page.

`explain(f, ...)` takes the options of `source` and returns an `Explanation`. Shown in
Jupyter (its `_repr_html_`) or saved as a page (`Explanation.save`, or ``s2sad show
--html``), it puts the user's source on the left and the emitted code on the right,
both syntax-highlighted, with one tab per stage (``anf``, ``dup``, ``activity``,
``reverse``, ``forward``; the derivative of `mode` open first). Every emitted line
that comes from a user line (the `emit.Printed.line_map` the compile step keeps, see
`backend.compile.ORIGINS`) is linked to it: hovering a line on either side lights
the lines it is linked to on both, clicking pins them and scrolls the other side to
them. A ``def`` of a derivative function is linked to the ``def`` it derives from.

The page is self-contained (inline CSS and script, no network) and deterministic:
the same function and options give the same bytes. Its styles are scoped to the
``s2x`` classes so that it sits inside a notebook without restyling it.

The emitted code is shown as `source` prints it (black-formatted); the line map of
the emitter's text is carried over to black's lines by matching the two texts.

Imports `arguments` and `reverse` from `api`.
"""

from __future__ import annotations

import difflib
import html
import inspect
import io
import keyword
import os
import textwrap
import tokenize

from ..errors import S2SADError
from .arguments import public
from .reverse import emitted, format_code

TABS = ("anf", "dup", "activity", "reverse", "forward")
CAPTIONS = {  # one line above each tab's code: what the stage is
    "anf": "one operation per line, every reassignment a new name (x, x_1, ...)",
    "dup": "every variable read more than once split with dup(x) into x_a, x_b, ...",
    "activity": "the dup stage, with the variables that carry derivatives listed",
    "reverse": "the gradient: the forward sweep, then each line's adjoint in reverse "
               "order, under a comment naming its line",
    "forward": "forward mode: each line followed by its tangent (x_dot)",
}


@public
def explain(f, wrt=0, mode="reverse", example=None, checkpoint=None, snapshots=None):
    """`f` and its derivative side by side, with their lines linked: an `Explanation`,
    shown as a page in Jupyter, or saved as one with ``.save("f.html")``.

    The options are those of `source`. The derivative of `mode` (``"reverse"``: the
    gradient, ``"forward"``: the tangents) is the tab shown first; the other stages
    are tabs beside it (with `checkpoint` applied to the reverse stage only). A stage
    the compiler refuses for `f` shows why in its tab; if it is the derivative of
    `mode`, `explain` raises the error instead."""
    if mode not in ("reverse", "forward"):
        raise S2SADError(f"mode={mode!r} is not a mode of the compiler; use \"reverse\" or "
                         "\"forward\"")
    users, stages = [f], {}
    for stage in (mode,) + tuple(t for t in TABS if t != mode):  # (the mode's first)
        try:
            printed, owners = emitted(f, "forward" if stage == "forward" else "reverse",
                                      wrt, stage, example,
                                      checkpoint if stage == mode else None,
                                      snapshots if stage == mode else None, "explain")
        except S2SADError as exc:
            if stage == mode:
                raise
            stages[stage] = _Stage(stage, "", [], exc.one_line())
            continue
        users += [fn for fn in dict.fromkeys(owners.values()) if fn not in users]
        stages[stage] = _linked_stage(stage, printed, owners)
    return Explanation(f.__qualname__, mode, [_user_source(fn) for fn in users],
                       {name: stages[name] for name in TABS})


class _Stage:
    """One tab: the code as `source` prints it, and the user line (a ``(file,
    line)`` key, or None) of each of its lines; or why the stage cannot be shown."""

    def __init__(self, name, text, locs, refused=None):
        self.name, self.text, self.locs, self.refused = name, text, locs, refused


class _UserSource:
    """A user function's source: its file, its first line's number, its lines."""

    def __init__(self, qualname, filename, first, lines, def_line):
        self.qualname, self.filename, self.first = qualname, filename, first
        self.lines, self.def_line = lines, def_line


def _user_source(fn) -> _UserSource:
    lines, first = inspect.getsourcelines(fn)
    first = max(first, 1)
    text = textwrap.dedent("".join(lines))
    def_line = first
    for i, line in enumerate(text.splitlines()):
        if line.lstrip().startswith(("def ", "async def ")):
            def_line = first + i
            break
    return _UserSource(fn.__qualname__, fn.__code__.co_filename, first,
                       text.splitlines(), def_line)


def _linked_stage(name, printed, owners) -> _Stage:
    """The stage's black-formatted text and the user line of each of its lines."""
    raw = printed.text.splitlines()
    locs = [None] * len(raw)
    for ir_name, (first, end) in printed.spans.items():
        user = owners.get(ir_name)
        if user is None:
            continue
        filename = user.__code__.co_filename
        for i in range(first, min(end, len(printed.line_map))):
            if printed.line_map[i]:
                locs[i] = (filename, printed.line_map[i])
        if first < len(raw) and locs[first] is None:  # the def: linked to the user's def
            locs[first] = (filename, _user_source(user).def_line)
    text = format_code(printed.text)
    return _Stage(name, text, _carry_over(raw, locs, text.splitlines()))


def _carry_over(raw: list, locs: list, formatted: list) -> list:
    """The user line of each formatted line: a line black left alone keeps its own;
    the lines black made of some emitter lines take the first user line among those."""
    out = [None] * len(formatted)
    matcher = difflib.SequenceMatcher(None, raw, formatted, autojunk=False)
    for tag, i1, i2, j1, j2 in matcher.get_opcodes():
        if tag == "equal":
            out[j1:j2] = locs[i1:i2]
        elif tag == "replace":
            found = next((loc for loc in locs[i1:i2] if loc is not None), None)
            out[j1:j2] = [found] * (j2 - j1)
    return out


# ------------------------------------------------------------------ the page


class Explanation:
    """A function and its derivative side by side (see `explain`). In Jupyter it
    shows as a page; `html()` is that page as a standalone document and `save(path)`
    writes it. `texts` holds each stage's code as `source` prints it."""

    def __init__(self, qualname, mode, users, stages):
        self.qualname, self.mode, self.users, self.stages = qualname, mode, users, stages
        self.texts = {name: st.text for name, st in stages.items() if st.refused is None}

    def __repr__(self) -> str:
        tabs, name = ", ".join(self.stages), self.qualname.rsplit(".", 1)[-1]
        return (f"<s2sad.explain of {self.qualname} ({self.mode} mode; tabs {tabs}): shown "
                f"as a page in Jupyter; elsewhere call .save(\"{name}.html\") and open that "
                f"file in a browser (or run `s2sad show --html {name}.html FILE.py:{name}`)>")

    __str__ = __repr__

    def _repr_html_(self) -> str:
        return self.fragment()

    def save(self, path) -> str:
        """Write the page (`html`) to `path`; returns `path`."""
        with open(path, "w", encoding="utf-8") as fh:
            fh.write(self.html())
        return os.fspath(path)

    def html(self) -> str:
        """The page: one HTML document, styles and script inline, nothing fetched."""
        title = html.escape(f"s2sad.explain: {self.qualname}")
        return ("<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
                f"<title>{title}</title>\n</head>\n<body style=\"margin:1em\">\n"
                f"{self.fragment()}</body>\n</html>\n")

    def fragment(self) -> str:
        """The page's body: what Jupyter shows."""
        ids = {}  # (file, line) -> link number, in the order the user lines are shown
        for user in self.users:
            for i in range(len(user.lines)):
                ids.setdefault((user.filename, user.first + i), len(ids))
        out = ["<div class=\"s2x\" data-s2x>\n", f"<style>{_CSS}</style>\n",
               f"<div class=\"s2x-title\">{html.escape(self.qualname)} and its derivative "
               f"<span class=\"s2x-note\">({self.mode} mode; hover or click a line to see "
               "what it is linked to)</span></div>\n<div class=\"s2x-tabs\" role=\"tablist\">"]
        for name, st in self.stages.items():
            selected = "true" if name == self.mode else "false"
            out.append(f"<button type=\"button\" class=\"s2x-tab\" role=\"tab\" "
                       f"data-tab=\"{name}\" aria-selected=\"{selected}\">{name}</button>")
        out.append("</div>\n<div class=\"s2x-panes\">\n<div class=\"s2x-pane s2x-user\">\n")
        for user in self.users:
            out.append(f"<div class=\"s2x-file\">{html.escape(user.qualname)} "
                       f"<span class=\"s2x-note\">{html.escape(user.filename)}</span></div>\n")
            locs = [ids.get((user.filename, user.first + i)) for i in range(len(user.lines))]
            numbers = [user.first + i for i in range(len(user.lines))]
            out.append(_code(user.lines, locs, numbers))
        out.append("</div>\n<div class=\"s2x-pane s2x-out\">\n")
        for name, st in self.stages.items():
            hidden = "" if name == self.mode else " hidden"
            out.append(f"<div class=\"s2x-stage\" data-stage=\"{name}\"{hidden}>\n"
                       f"<div class=\"s2x-file\">{name} <span class=\"s2x-note\">"
                       f"{html.escape(CAPTIONS[name])}</span></div>\n")
            if st.refused is not None:
                out.append(f"<p class=\"s2x-refused\">s2sad cannot show this stage for "
                           f"{html.escape(self.qualname)}: {html.escape(st.refused)}</p>\n")
            else:
                lines = st.text.splitlines()
                locs = [ids.get(loc) if loc is not None else None for loc in st.locs]
                out.append(_code(lines, locs, list(range(1, len(lines) + 1))))
            out.append("</div>\n")
        out.append(f"</div>\n</div>\n<script>{_JS}</script>\n</div>\n")
        return "".join(out)


def _code(lines, locs, numbers) -> str:
    """Lines as a highlighted block; a line with a link number has it as ``data-loc``."""
    out = ["<pre class=\"s2x-code\">"]
    for text, loc, number in zip(highlight(lines), locs, numbers):
        attr = f" data-loc=\"{loc}\"" if loc is not None else ""
        out.append(f"<span class=\"s2x-line\"{attr}><span class=\"s2x-no\">{number}</span>"
                   f"{text}\n</span>")
    out.append("</pre>\n")
    return "".join(out)


# ------------------------------------------------------------- highlighting

_CONSTANTS = {"True", "False", "None"}


def highlight(lines: list) -> list:
    """Each line of Python source as HTML: escaped, keywords, names being defined,
    strings, numbers and comments in ``s2x-*`` spans (Python's `tokenize`; text it
    cannot read stays plain)."""
    spans = [[] for _ in lines]  # per line: (start column, end column, class)
    try:
        tokens = list(tokenize.generate_tokens(io.StringIO("\n".join(lines) + "\n").readline))
    except (tokenize.TokenError, SyntaxError):
        tokens = []
    previous = None
    for tok in tokens:
        kind = None
        if tok.type == tokenize.COMMENT:
            kind = "com"
        elif tok.type == tokenize.STRING or tok.type in _FSTRING_PARTS:
            kind = "str"
        elif tok.type == tokenize.NUMBER:
            kind = "num"
        elif tok.type == tokenize.NAME:
            if tok.string in _CONSTANTS:
                kind = "const"
            elif keyword.iskeyword(tok.string):
                kind = "kw"
            elif previous is not None and previous.string in ("def", "class"):
                kind = "def"
        if tok.type not in (tokenize.NL, tokenize.NEWLINE, tokenize.INDENT,
                            tokenize.DEDENT, tokenize.COMMENT):
            previous = tok
        if kind is None:
            continue
        (srow, scol), (erow, ecol) = tok.start, tok.end
        for row in range(srow, erow + 1):
            if row - 1 < len(lines):
                line = lines[row - 1]
                spans[row - 1].append((scol if row == srow else 0,
                                       ecol if row == erow else len(line), kind))
    out = []
    for line, marks in zip(lines, spans):
        parts, at = [], 0
        for start, end, kind in sorted(marks):
            if start < at:
                continue
            parts.append(html.escape(line[at:start]))
            parts.append(f"<span class=\"s2x-{kind}\">{html.escape(line[start:end])}</span>")
            at = end
        parts.append(html.escape(line[at:]))
        out.append("".join(parts))
    return out


_FSTRING_PARTS = {getattr(tokenize, n) for n in ("FSTRING_START", "FSTRING_MIDDLE",
                                                 "FSTRING_END") if hasattr(tokenize, n)}


# ------------------------------------------------------------ style, script

_CSS = """
.s2x{font-family:system-ui,-apple-system,"Segoe UI",Roboto,sans-serif;color:#1f2328;
background:#fff;border:1px solid #d0d7de;border-radius:6px;padding:8px;text-align:left}
.s2x-title{font-weight:600;margin:0 0 6px 2px}
.s2x-note{font-weight:400;color:#656d76;font-size:90%}
.s2x-tabs{display:flex;gap:4px;margin:0 0 6px 0;flex-wrap:wrap}
.s2x-tab{font:inherit;font-size:90%;border:1px solid #d0d7de;background:#f6f8fa;color:inherit;
border-radius:6px;padding:2px 12px;cursor:pointer}
.s2x-tab[aria-selected=true]{background:#ddf4ff;border-color:#54aeff;font-weight:600}
.s2x-panes{display:grid;grid-template-columns:minmax(0,1fr) minmax(0,1.4fr);gap:8px}
.s2x-pane{position:relative;max-height:75vh;overflow:auto;border:1px solid #d0d7de;
border-radius:6px;background:#fff}
.s2x-file{position:sticky;top:0;z-index:1;background:#f6f8fa;padding:2px 8px;font-size:90%;
border-bottom:1px solid #d0d7de;border-top:1px solid #d0d7de}
.s2x-code{margin:0;padding:4px 0;background:transparent;color:#1f2328;border:0;
font:12.5px/1.45 ui-monospace,SFMono-Regular,Menlo,Consolas,monospace}
.s2x-line{display:block;white-space:pre;padding-right:8px}
.s2x-no{display:inline-block;width:3em;padding-right:1em;text-align:right;color:#8c959f;
-webkit-user-select:none;user-select:none}
.s2x-line.s2x-linked{cursor:pointer;box-shadow:inset 3px 0 #d0d7de}
.s2x-line.s2x-hot{background:#fff8c5;box-shadow:inset 3px 0 #d4a72c}
.s2x-line.s2x-pin{background:#ffe58f;box-shadow:inset 3px 0 #9a6700}
.s2x-kw{color:#cf222e}.s2x-const,.s2x-num{color:#0550ae}.s2x-str{color:#0a3069}
.s2x-def{color:#8250df;font-weight:600}.s2x-com{color:#6e7781;font-style:italic}
.s2x-refused{margin:8px;color:#cf222e}
@media (max-width:800px){.s2x-panes{grid-template-columns:minmax(0,1fr)}}
"""

# Hover: every line linked to the line under the pointer (the same data-loc, in the
# source and in the open tab) gets s2x-hot; a click pins them (s2x-pin) and scrolls
# the other side to the first of them, a second click (or a click on a line linked
# to nothing) unpins; a tab shows its stage, what is pinned stays pinned. Every page on the
# document is set up once (a notebook may show several).
_JS = """
(function () {
  function each(list, fn) { Array.prototype.forEach.call(list, fn); }
  each(document.querySelectorAll("[data-s2x]:not([data-s2x-ready])"), function (root) {
    root.setAttribute("data-s2x-ready", "");
    var user = root.querySelector(".s2x-user"), out = root.querySelector(".s2x-out");
    var pinned = null;
    function stage() { return out.querySelector(".s2x-stage:not([hidden])"); }
    function linked(loc) {
      var sel = '[data-loc="' + loc + '"]', st = stage(), found = [];
      each(user.querySelectorAll(sel), function (e) { found.push(e); });
      if (st) each(st.querySelectorAll(sel), function (e) { found.push(e); });
      return found;
    }
    function mark(cls, loc) {
      each(root.querySelectorAll("." + cls), function (e) { e.classList.remove(cls); });
      if (loc !== null) each(linked(loc), function (e) { e.classList.add(cls); });
    }
    function reveal(pane, loc) {
      var scope = pane === out ? stage() : user;
      var first = scope && scope.querySelector('[data-loc="' + loc + '"]');
      if (!first) return;
      var top = first.getBoundingClientRect().top - pane.getBoundingClientRect().top;
      if (top < 24 || top > pane.clientHeight - 24)
        pane.scrollTop += top - pane.clientHeight / 3;
    }
    function refresh() {
      var st = stage(), have = {};
      if (st) each(st.querySelectorAll("[data-loc]"), function (e) {
        have[e.getAttribute("data-loc")] = true; e.classList.add("s2x-linked"); });
      each(user.querySelectorAll("[data-loc]"), function (e) {
        e.classList.toggle("s2x-linked", have[e.getAttribute("data-loc")] === true); });
    }
    function select(name) {
      each(root.querySelectorAll(".s2x-tab"), function (t) {
        t.setAttribute("aria-selected", t.getAttribute("data-tab") === name ? "true" : "false"); });
      each(out.querySelectorAll(".s2x-stage"), function (s) {
        s.hidden = s.getAttribute("data-stage") !== name; });
      refresh();
      mark("s2x-hot", null);
      mark("s2x-pin", pinned);
      if (pinned !== null) reveal(out, pinned);
    }
    root.addEventListener("mouseover", function (ev) {
      var line = ev.target.closest ? ev.target.closest(".s2x-linked") : null;
      mark("s2x-hot", line ? line.getAttribute("data-loc") : null);
    });
    root.addEventListener("mouseleave", function () { mark("s2x-hot", null); });
    root.addEventListener("click", function (ev) {
      var tab = ev.target.closest(".s2x-tab");
      if (tab) { select(tab.getAttribute("data-tab")); return; }
      var line = ev.target.closest("[data-loc]");
      if (!line) return;
      var loc = line.getAttribute("data-loc");
      pinned = pinned === loc || !line.classList.contains("s2x-linked") ? null : loc;
      mark("s2x-pin", pinned);
      if (pinned !== null) reveal(user.contains(line) ? out : user, pinned);
    });
    refresh();
  });
})();
"""
