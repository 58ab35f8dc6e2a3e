"""``asz collect`` refuses a record carrying a flag its dialect declares no rule for (seed 000, Flags: an adapter sets a
flag only by a rule over source fields it declares; docs/adapters.md, Flags; trial 25a F7, where such a flag landed
silently and ``verify --deep`` passed it).

The test adapter (``mini_adapter.py``) declares no flag rule and sets a line's ``set_flag`` as the record's flag. Of
three source lines the second sets ``finished``: the pass says an error naming the source file, the line and the
field, counts it in ``errors=`` (exit 1), lands that line whole as one ``unknown`` part, and lands the other two as
ever: bad input costs no other record.
"""

from __future__ import annotations

from collect_helpers import collect_once, line, append, summary, stream_files, source_lines, landed

from asz_core.sessiondata import SDReader


def test_a_flag_by_no_declared_rule_is_refused_and_the_line_kept_whole(tmp_path):
    src, root = tmp_path / "src", tmp_path / "root"
    lines = [line(1), line(2, set_flag="finished"), line(3)]
    path = src / "s1" / "main.jsonl"
    append(path, *lines)
    p = collect_once(src, root)
    out = p.stdout + p.stderr
    assert p.returncode == 1, out
    assert summary(p.stdout)["errors"] == "1" and summary(p.stdout)["records"] == str(len(lines)), out
    said = (f"{path}: adapter mini-jsonl wrote line 2 with a flag it declares no rule for: flags[0]: record ord 2 "
            f"(id 'u-00000002'): 'finished' has no flag rule in dialect mini/1 (its rules: none)")
    assert said in out, out
    assert landed(root, "s1") == source_lines(path)  # every line landed, at its own ord, offset, size and digest
    (f,) = stream_files(root, "s1")
    recs = [rec for _, rec in SDReader(f)]
    assert [r.flags for r in recs] == [[], [], []]
    assert [[pt.k for pt in r.parts] for r in recs] == [["data"], ["unknown"], ["data"]]
    assert recs[1].parts[0].raw() == lines[1] and recs[1].id == ""  # the line whole, nothing of it read
    assert [r.id for r in recs[::2]] == ["u-00000001", "u-00000003"]


def test_the_warnings_describe_the_line_as_it_landed_not_as_the_adapter_read_it(tmp_path):
    """Trial 49c F8: a refused line landed whole as ``unknown``, yet a warning said its member travels "beside what it
    read". Here line 2 is refused (a flag by no rule) and its time does not read; line 3's time does not read either
    and it lands as read. The warning about times names line 3 alone: line 2 landed with no time at all, its bytes
    whole in one unknown part, and the error says why."""
    src, root = tmp_path / "src", tmp_path / "root"
    lines = [line(1), line(2, set_flag="finished", timestamp="yesterday"), line(3, timestamp="yesterday")]
    path = src / "s1" / "main.jsonl"
    append(path, *lines)
    p = collect_once(src, root)
    warnings = [x for x in p.stderr.splitlines() if x.startswith("warning:")]
    assert p.returncode == 1 and "wrote line 2 with a flag it declares no rule for" in p.stderr, p.stderr
    (said,) = [x for x in warnings if "yesterday" in x]
    assert "line 3" in said and "line 2" not in said and "lines 2" not in said, said
    (f,) = stream_files(root, "s1")
    recs = [rec for _, rec in SDReader(f)]
    assert [r.time for r in recs] == ["2026-09-01T12:00:00.000Z", "", "yesterday"]
