"""``asz export`` of several conversations with ``--out FILE.md`` / ``FILE.jsonl``: the one stream stdout gets, as a
file (a new user's trial: ``--out ex/all.jsonl`` made a folder named ``all.jsonl``); html and json with such an
``--out`` are a usage error, since they go into a folder (docs/reading.md)."""

from __future__ import annotations

import pytest
from reading_helpers import asz, asz_json

SINCE = "2026-02-01T00:00:00Z"


def _ids(root) -> list[str]:
    return [x["id"] for x in asz_json("conversations", "--json", "--since", SINCE, "--root", str(root))]


@pytest.mark.parametrize("fmt,name", [("prose", "all.jsonl"), ("md", "all.md")])
def test_several_into_one_file_are_the_stdout_stream(corpus_root, tmp_path, fmt, name):
    ids = _ids(corpus_root)
    assert len(ids) == 3
    (tmp_path / "ex").mkdir()
    out = tmp_path / "ex" / name
    p = asz("export", "--since", SINCE, "--format", fmt, "--out", str(out), "--root", str(corpus_root))
    assert out.is_file() and sorted(x.name for x in (tmp_path / "ex").iterdir()) == [name, f"{name}.manifest.json"]  # no .part, no index
    # (every file export has its manifest, masked or not: docs/verify.md)
    streamed = asz("export", "--since", SINCE, "--format", fmt, "--root", str(corpus_root)).stdout.encode("utf-8")
    assert out.read_bytes() == streamed
    assert f"wrote {out} ({len(streamed):,} bytes)" in p.stderr and f"exported 3 conversation(s) to {out}" in p.stderr
    if fmt == "prose":
        import json

        assert {json.loads(x)["conversation"] for x in streamed.splitlines()} == set(ids)
    else:
        singles = [asz("export", i, "--root", str(corpus_root)).stdout.encode("utf-8") for i in ids]  # newest first
        assert streamed == b"".join(x + b"\n---\n\n" for x in singles)
    again = asz("export", "--since", SINCE, "--format", fmt, "--out", str(out), "--root", str(corpus_root))
    assert f"asz export: replaced {out} (the {len(streamed):,} bytes it held)" in again.stderr
    assert out.read_bytes() == streamed


@pytest.mark.parametrize("fmt,name", [("html", "all.html"), ("json", "all.json"), ("html", "all.md")])
def test_html_or_json_of_several_into_a_file_name_is_a_usage_error(corpus_root, tmp_path, fmt, name):
    out = tmp_path / name
    p = asz("export", "--since", SINCE, "--format", fmt, "--out", str(out), "--root", str(corpus_root), check=False)
    assert p.returncode == 2 and not out.exists() and list(tmp_path.iterdir()) == []
    assert p.stderr == (f"asz export: --out {out}: several conversations as {fmt} go into a folder (one file each and "
                        f"an index page), not one {out.suffix} file; give --out DIR\n")


def test_a_folder_named_like_a_file_stays_a_folder(corpus_root, tmp_path):
    out = tmp_path / "all.jsonl"
    out.mkdir()
    asz("export", "--since", SINCE, "--format", "prose", "--out", str(out), "--root", str(corpus_root))
    assert sorted(x.name for x in out.iterdir()) == sorted(
        [f"{i}.jsonl{m}" for i in _ids(corpus_root) for m in ("", ".manifest.json")] + ["index.md", "export.manifest.json"])
    # another suffix than the format's is a folder, as before
    other = tmp_path / "all.md"
    asz("export", "--since", SINCE, "--format", "prose", "--out", str(other), "--root", str(corpus_root))
    assert other.is_dir() and (other / "index.md").is_file()
