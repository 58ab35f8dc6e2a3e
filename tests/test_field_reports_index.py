"""Every row of ../shared/field-reports.md is a test (issue 18, Checks).

A test cites the rows it answers in its name (``test_20_21_…``, ``test_row_15_…``,
``test_rows_1_2_…``) or in a comment or docstring (``field report 9``,
``field reports 20-23``). This test reads the table's row numbers and every
test file, and fails naming each row no test cites.
"""

from __future__ import annotations

import re
from pathlib import Path

TESTS = Path(__file__).resolve().parent
_NAME = re.compile(r"def test_(?:rows?_)?((?:\d+_)+)")
_TEXT = re.compile(r"field[ -]reports? ((?:\d+(?:\s*(?:-|–|,|and)\s*)?)+)")


def _numbers(spec: str) -> set[int]:
    out: set[int] = set()
    for a, b in re.findall(r"(\d+)(?:\s*[-–]\s*(\d+))?", spec):
        out.update(range(int(a), int(b or a) + 1))
    return out


def cited_rows() -> dict[int, set[str]]:
    """Row number → the test files citing it."""
    cited: dict[int, set[str]] = {}
    for path in TESTS.rglob("*.py"):
        if path.resolve() == Path(__file__).resolve():
            continue  # its own docstring names examples, not rows
        text = path.read_text(encoding="utf-8")
        for m in _NAME.finditer(text):
            for n in _numbers(m.group(1).replace("_", ",")):
                cited.setdefault(n, set()).add(path.relative_to(TESTS).as_posix())
        for m in _TEXT.finditer(text):
            for n in _numbers(m.group(1)):
                cited.setdefault(n, set()).add(path.relative_to(TESTS).as_posix())
    return cited


def test_every_field_report_row_is_a_test(shared_dir: Path) -> None:
    table = (shared_dir / "field-reports.md").read_text(encoding="utf-8")
    rows = [int(m) for m in re.findall(r"^\| (\d+) \|", table, flags=re.M)]
    assert len(rows) == 25  # the rows the file holds today (1, 2, 4, 5, 6, 8, 9, 10, 12, 13, 15, 17, 18, 20, 21, 23, 24, 26, 28-32, 34, 35)
    cited = cited_rows()
    missing = [r for r in rows if r not in cited]
    assert missing == [], f"field-report rows no test cites: {missing}"
