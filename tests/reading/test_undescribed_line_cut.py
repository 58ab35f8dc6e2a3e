"""The ``! undescribed`` line under ``asz usage``'s table names up to three conversations; past that it counts them and
says how to list them (trial 35a F8: one 2.5 KB line named all 44 of a root's conversations holding undescribed
records; then ten and a count, a 1 KB line still)."""

from __future__ import annotations

from asz_core.cli.usage_lines import undescribed_line


def test_past_three_the_line_counts_and_says_how_to_list_them():
    many = {f"c{i:02d}aaaaaa": i + 1 for i in range(44)}
    line = undescribed_line(many, "date")
    assert line == ("! undescribed, in no day's row and no total above: 990 transcript record(s) the dialect could not "
                    "read (each may have been a model call; asz conversation ID lists them under "
                    "undescribed): 44 conversation(s) hold them; asz usage session marks each one's row ! and asz usage "
                    "--json lists each on the rows its calls fall in (undescribed)")
    assert "c00aaaaaa" not in line and len(line) < 400
    session = undescribed_line(many, "conversation")
    assert session.endswith("undescribed): 990 record(s) in 44 conversation(s), each one's row marked ! (--json: the "
                            "row's undescribed)")


def test_up_to_three_are_named():
    few = undescribed_line({"aaaaaaaa": 1}, "conversation")
    assert few.endswith("undescribed): aaaaaaaa (1 record(s))")
    three = undescribed_line({"aaaaaaaa": 1, "bbbbbbbb": 2, "cccccccc": 3}, "month")
    assert three.endswith("undescribed): aaaaaaaa (1 record(s)), bbbbbbbb (2 record(s)), cccccccc (3 record(s))")
