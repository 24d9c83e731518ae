"""Reverse and forward mode pick what to do for an operation from one table each,
keyed by the kinds `classify` gives operations: every kind has an entry in both
(an entry may refuse the operation; it is still written down), and neither table
names a kind `classify` does not give."""

import pytest

from s2sad.analysis.classify import KINDS
from s2sad.transform import adjoints, forward


@pytest.mark.parametrize("table", [adjoints.BY_KIND, forward.BY_KIND],
                         ids=["reverse", "forward"])
def test_every_kind_has_an_entry(table):
    assert [k for k in KINDS if k not in table] == []
    assert [k for k in table if k not in KINDS] == []
    assert all(callable(method) for method in table.values())
