"""A session id two adapters give: the second is refused, the first keeps landing (trial 35a F1).

Session ids are one namespace across the adapters of a root (docs/adapters.md, Session ids). A third-party adapter
(tests/collect/mini_adapter.py, loaded with ``--adapter-file``) whose source names a landed Claude Code session's id
was taken for that transcript moved: its bytes were compared with Claude Code's landed bytes, the shared cursor was set
in conflict ("… is gone and this copy does not hold what landed"), and the Claude Code transcript never landed again.
"""

from __future__ import annotations

import json
from pathlib import Path

from asz_core.sessiondata.reader import landed_header
from asz_core.storage.cursor import read_cursor
from asz_core.storage.layout import landed_files

from collect_helpers import append, asz, collect_once, landed, line, mini_args, source_lines, summary

SID = "7b0c2f4e-1d2a-4c3b-9e8f-0a1b2c3d4e5f"


def _claude(src: Path, root: Path):
    return asz("collect", "--once", "--adapter", "claude-code-local", "--source", str(src), "--root", str(root))


def _adapters_landed(root: Path) -> set[str]:
    return {landed_header(p).adapter.rsplit("/", 1)[0] for _, p in landed_files(root / SID)}


def test_a_second_adapter_with_a_landed_session_id_is_refused_and_the_first_keeps_landing(tmp_path):
    cc, mini, root = tmp_path / "cc", tmp_path / "mini", tmp_path / "root"
    transcript = cc / "-p" / f"{SID}.jsonl"
    append(transcript, line(1), line(2), line(3))
    first = _claude(cc, root)
    assert first.returncode == 0, first.stderr
    assert summary(first.stdout)["landed"] == "1"

    append(mini / SID / "main.jsonl", b'{"n": 1}', b'{"n": 2}')  # the stream Claude Code's cursor follows
    append(mini / SID / "side.jsonl", b'{"n": 3}')  # a stream nothing landed into yet, in the same session
    other = collect_once(mini, root)
    assert summary(other.stdout)["conflicts"] == "2", other.stdout + other.stderr
    assert summary(other.stdout)["landed"] == "0"
    said = [ln for ln in other.stderr.splitlines() if ln.startswith("conflict: ")]
    assert len(said) == 2, other.stderr
    for ln in said:
        assert f"session {SID} already holds transcript landed by adapter claude-code-local (stream main)" in ln
        assert "this source of adapter mini-jsonl names the same session id, so it is refused" in ln
    assert "gone" not in other.stderr
    # asz sources says what the pass says, for both sources: not the other adapter's transcript moved (trial 35a)
    listed = json.loads(asz("sources", *mini_args(mini, root), "--json").stdout)["adapters"][0]["sessions"][0]["sources"]
    for row in listed:
        size = (mini / row["src"]).stat().st_size
        assert (row["state"], row["other_adapter"], row["landed"], row["unread"]) == ("conflict", "claude-code-local", 0, size)
        assert "next" not in row and [f"conflict: {row['path']}: {row['reason']}"] == \
            [ln for ln in said if ln.startswith(f"conflict: {row['path']}:")], (row, said)
    table = asz("sources", *mini_args(mini, root))
    assert sorted(ln for ln in table.stderr.splitlines() if ln.startswith("conflict: ")) == sorted(said), table.stderr
    assert "--reset-conflict" not in table.stdout + table.stderr and "belongs to" not in table.stdout + table.stderr
    cur = read_cursor(root / SID / "streams" / "main" / "transcript.cursor")
    assert (cur.state, cur.adapter, cur.reason, cur.offset) == ("active", "claude-code-local", "", transcript.stat().st_size)

    append(transcript, line(4))  # Claude Code writes on
    again = _claude(cc, root)
    assert again.returncode == 0, again.stderr
    assert (summary(again.stdout)["landed"], summary(again.stdout)["conflicts"]) == ("1", "0"), again.stdout
    assert "gone" not in again.stderr and "conflict" not in again.stderr
    assert landed(root, SID) == source_lines(transcript)  # every line of the transcript, the new one too, once
    assert _adapters_landed(root) == {"claude-code-local"}  # nothing of the other adapter landed into the session


def test_the_first_to_land_keeps_the_id_whichever_adapter_it_is(tmp_path):
    cc, mini, root = tmp_path / "cc", tmp_path / "mini", tmp_path / "root"
    stream = mini / SID / "main.jsonl"
    append(stream, b'{"n": 1}')
    assert collect_once(mini, root).returncode == 0
    transcript = cc / "-p" / f"{SID}.jsonl"
    append(transcript, line(1))
    refused = _claude(cc, root)
    assert summary(refused.stdout)["conflicts"] == "1"
    assert "already holds transcript landed by adapter mini-jsonl (stream main); this source of adapter " \
           "claude-code-local names the same session id" in refused.stderr
    append(stream, b'{"n": 2}')
    grown = collect_once(mini, root)
    assert summary(grown.stdout)["landed"] == "1", grown.stdout + grown.stderr
    assert landed(root, SID) == source_lines(stream)
    assert _adapters_landed(root) == {"mini-jsonl"}
