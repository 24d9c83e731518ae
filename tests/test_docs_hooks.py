"""The documentation site's build hooks (docs/hooks/): the API reference's names and
the benchmark pages' charts. `mkdocs build --strict` (in .ci/run) runs them on the
real pages; these tests pin what they do without MkDocs installed."""

import importlib.util
import os
import types

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def hook(name):
    spec = importlib.util.spec_from_file_location(
        name, os.path.join(ROOT, "docs", "hooks", f"{name}.py"))
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def page(uri):
    return types.SimpleNamespace(file=types.SimpleNamespace(src_uri=uri))


TABLE = """<!-- chart: time | case | cold (ms); warm (ms) | linear -->
| case | cold (ms) | warm (ms) |
|---|---:|---:|
| straight-line | 9.02 | 0.653 |
| Black-Scholes | 1,010.5 µs | 0.727 |
"""


def test_a_chart_follows_its_table_with_the_tables_numbers():
    charts = hook("charts")
    out = charts.on_page_markdown("Intro.\n\n" + TABLE + "\nAfter.\n", page("b.md"), None, None)
    table = TABLE.split("\n", 1)[1]
    assert out.startswith("Intro.\n\n" + table)
    svg = out[out.index("<svg"):out.index("</svg>")]
    assert "straight-line: 9.02" in svg and "Black-Scholes: 1010.5" in svg
    assert "Black-Scholes: 0.727" in svg and "cold (ms)" in svg  # two series, a legend
    assert out.endswith("</svg>\n\nAfter.\n")


def test_a_chart_naming_a_missing_column_is_a_warning(caplog):
    charts = hook("charts")
    bad = TABLE.replace("warm (ms) | linear", "hot (ms) | linear", 1)
    out = charts.on_page_markdown(bad, page("b.md"), None, None)
    assert "<svg" not in out and "hot" in caplog.text


def test_the_api_reference_gets_every_public_name():
    import s2sad

    api = hook("api_names")
    assert api.public_names() == list(s2sad.__all__)
    text = open(os.path.join(ROOT, "docs", "api.md")).read()
    out = api.on_page_markdown(text, page("api.md"), None, None)
    for name in s2sad.__all__:
        assert f"::: s2sad.{name}\n" in out
    assert api.on_page_markdown("::: s2sad.grad\n", page("x.md"), None, None) == \
        "::: s2sad.grad\n"
