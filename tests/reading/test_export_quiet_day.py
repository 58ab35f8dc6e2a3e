"""A quiet day of the daily job: ``asz export --since D --until D … --out DIR/`` of a day no conversation has a record
in writes an empty, verifiable set and exits 0 (trial 35b F4: it exited 1, "no conversation matched …; nothing
written", the code of damage, and the archive held no proof that the day was empty). Filters that match nothing
otherwise keep their exit 1 (docs/reading.md, "Filters that match nothing"): to stdout, one stream file, and with
``--project``/``--instance``/an ID.

Real input: the Claude Code corpus collected; the quiet day is checked against the source files' own times."""

from __future__ import annotations

import json
from datetime import datetime, timezone

from reading_helpers import asz

DAY = "2025-08-15"


def _quiet(corpus_source) -> None:
    """DAY holds no source record and lies inside no transcript's first-to-last range (read from the corpus)."""
    start = datetime.fromisoformat(DAY).replace(tzinfo=timezone.utc).timestamp()
    for f in corpus_source.rglob("*.jsonl"):
        times = []
        for line in f.read_text().splitlines():
            ts = json.loads(line).get("timestamp") if line.strip() else None
            if isinstance(ts, str):
                times.append(datetime.fromisoformat(ts.replace("Z", "+00:00")).timestamp())
        assert not times or max(times) < start or min(times) >= start + 86400, f


def test_a_quiet_day_into_a_folder_is_an_empty_verifiable_set(corpus_root, corpus_source, tmp_path):
    _quiet(corpus_source)
    window = ("--since", DAY, "--until", DAY, "--tz", "UTC", "--format", "text", "--in-range-only", "--root", str(corpus_root))
    out = tmp_path / "day"
    p = asz("export", *window, "--out", f"{out}/")
    assert p.returncode == 0, p.stderr
    assert f"asz export: quiet: no conversation has a record in --since {DAY} --until {DAY} " in p.stderr
    assert sorted(x.name for x in out.iterdir()) == ["export.manifest.json", "index.md"]
    body = json.loads((out / "export.manifest.json").read_text())
    assert body["made"]["in_range_only"] is True and body["made"]["tz"] == "UTC"
    v = asz("verify", "--export", f"{out}/", "--root", str(corpus_root), check=False)
    assert v.returncode == 0 and "ok: 0 of 0 copies check against the root" in v.stdout, v.stdout
    again = asz("export", *window, "--out", f"{out}/")  # the job run again: the same bytes
    assert again.returncode == 0 and json.loads((out / "export.manifest.json").read_text()) == body
    (out / "forged.txt").write_text("a copy nobody made\n")
    bad = asz("verify", "--export", f"{out}/", "--root", str(corpus_root), check=False)
    assert bad.returncode == 1 and "forged.txt" in bad.stdout, bad.stdout


def test_filters_that_match_nothing_still_exit_1(corpus_root, tmp_path):
    window = ("--since", DAY, "--until", DAY, "--tz", "UTC", "--format", "text", "--in-range-only", "--root", str(corpus_root))
    for extra in ((), ("--out", str(tmp_path / "one.txt")), ("--project", "site", "--out", f"{tmp_path / 'p'}/")):
        p = asz("export", *window, *extra, check=False)
        assert p.returncode == 1 and "no conversation matched" in p.stderr and "nothing written" in p.stderr, (extra, p.stderr)
    assert not (tmp_path / "one.txt").exists() and not (tmp_path / "p").exists()
