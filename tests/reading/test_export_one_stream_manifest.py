"""Recheck 25, N2: a masked export of several conversations into one stream (``--out FILE.jsonl`` or stdout) gets no
manifest (docs/verify.md, "A masked export"), and stderr says so, where it said nothing; a folder export still writes
one manifest per conversation and gets no such note. Real input: the corpus collected by the real collect."""

from __future__ import annotations

from cli_helpers import asz_in_process as asz

NOTE = "no manifest for"


def test_several_conversations_in_one_masked_stream_say_they_have_no_manifest(corpus_copy, tmp_path):
    root = corpus_copy()
    one = tmp_path / "day.jsonl"
    got = asz("export", "--root", str(root), "--since", "2020-01-01", "--audit", "--out", str(one))
    assert got.returncode in (0, 1) and one.is_file()
    assert f"{NOTE} {one}" in got.stderr and not list(tmp_path.glob("*.manifest.json"))
    folder = tmp_path / "each"
    folder.mkdir()
    each = asz("export", "--root", str(root), "--since", "2020-01-01", "--audit", "--out", str(folder) + "/")
    written = [p for p in folder.iterdir() if p.suffix == ".jsonl"]
    assert written and len(list(folder.glob("*.manifest.json"))) == len(written)
    assert NOTE not in each.stderr
    plain = asz("export", "--root", str(root), "--since", "2020-01-01", "--audit", "--no-redact", "--out", str(tmp_path / "plain.jsonl"))
    assert NOTE not in plain.stderr  # nothing masked: no manifest is promised
