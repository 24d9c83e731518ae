"""docs/guide/functions.md is what tests/functions_page.py makes of the rule tables and
the engines now: a rule added, removed or made to work in another mode changes the
page, and this test fails until it is regenerated."""

import difflib

import pytest

pytest.importorskip("scipy.special")  # (the page lists SciPy's functions; CI has SciPy)

import functions_page  # noqa: E402


def test_the_functions_page_is_up_to_date():
    with open(functions_page.PAGE) as file:
        committed = file.read()
    fresh = functions_page.render()
    if fresh != committed:
        diff = "".join(difflib.unified_diff(committed.splitlines(True), fresh.splitlines(True),
                                            "docs/guide/functions.md (committed)",
                                            "docs/guide/functions.md (from the tables)", n=0))
        pytest.fail("docs/guide/functions.md is stale; regenerate it with\n\n    "
                    f"{functions_page.COMMAND}\n\nand commit it. The differences:\n{diff}",
                    pytrace=False)


def test_every_function_with_a_rule_has_a_row():
    text = open(functions_page.PAGE).read()
    functions_page.load_optional()
    for key in functions_page.keys():
        assert f"| {functions_page.public_name(key)[1]}" in text, key
