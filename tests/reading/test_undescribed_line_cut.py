"""The ``! undescribed`` line under ``asz usage``'s table names ten conversations and counts the rest (trial 35a F8:
one 2.5 KB line named all 44 of a root's conversations holding undescribed records)."""

from __future__ import annotations

from asz_core.cli.usage_lines import undescribed_line


def test_the_line_names_ten_and_counts_the_rest():
    many = {f"c{i:02d}aaaaaa": i + 1 for i in range(44)}
    line = undescribed_line(many, "date")
    assert line.startswith("! undescribed, in no day's row and no total above: 990 transcript record(s) the dialect "
                           "could not read, whose day is not known (")
    named = [f"c{i:02d}aaaaaa ({i + 1} record(s))" for i in range(10)]
    assert line.endswith(": " + ", ".join(named) + ", and 34 more conversation(s) holding "
                         f"{sum(range(11, 45)):,} record(s) (--json lists every one: undescribed)")
    assert "c10aaaaaa" not in line
    few = undescribed_line({"aaaaaaaa": 1}, "conversation")
    assert few.endswith("undescribed): aaaaaaaa (1 record(s))")
