"""A runtime's notice is found by its words, never by its record's JSON (trial 50b F2), on the real Claude Code corpus.

Claude Code's ``system`` lines land whole as one data part; indexed as JSON, ``asz search external`` gave 18 notice
hits of 20, each by ``"userType":"external"``, and ``isSidechain`` found every notice by the field's name. The index
holds what the adapter says such a record says (``Adapter.record_words``: its ``content``, its short form, a stop hook
summary's commands). Expected values are counted from the source ``.jsonl`` lines, never from asz's output.
"""

from __future__ import annotations

import json
import re

import pytest
from reading_helpers import asz
from test_search_kind_by_record import CORPUS_SOURCE, _hits, _lines

from asz_core.reading.search_notice import data_values, notice_words

ANSI = re.compile(r"\x1b\[[0-9;]*m")


def _system(d: dict) -> bool:
    return d.get("type") == "system"


def _words(d: dict) -> str:
    """What a person reads of a ``system`` line: its content (terminal colours out) and its hooks' commands."""
    commands = [i.get("command", "") for i in d.get("hookInfos") or () if isinstance(i, dict)]
    return ANSI.sub("", " ".join([d.get("content") or "", *commands]))


def _notices(root, query: str) -> list[tuple[str, int]]:
    return sorted((h["conversation"], h["row"]) for h in _hits(root, query, "--kind", "notice"))


def test_a_notice_is_not_found_by_a_metadata_value(corpus_root):
    lines = _lines(_system, main=True)
    meta_only = [(s, n) for s, n, d in lines if d.get("userType") == "external" and "external" not in _words(d).lower()]
    assert len(meta_only) >= 20  # each holds the word only as "userType":"external"
    said = [(s, n) for s, n, d in lines if "external" in _words(d).lower()]
    assert said == []  # no system line of the corpus says it
    assert _notices(corpus_root, "external") == []
    # a tool's output printing transcript lines (grep, cat) still holds it: what was said, found as tool_result
    assert "notice" not in {h["kind"] for h in _hits(corpus_root, "external")}


def test_no_notice_is_found_by_a_field_name(corpus_root):
    lines = _lines(_system, main=True)
    assert sum(1 for _, _, d in lines if "isSidechain" in d and "parentUuid" in d) >= 30
    for name in ("isSidechain", "parentUuid", "userType", "toolUseID", "hookInfos"):
        assert _notices(corpus_root, name) == [], name


def test_a_hook_line_and_a_stop_hook_summary_are_found_by_their_words(corpus_root):
    lines = _lines(_system, main=True)
    ruff = sorted((s, n) for s, n, d in lines if "ruff" in _words(d))
    assert len(ruff) >= 2  # 1.0.43's "PostToolUse:MultiEdit [uv run ruff format] completed successfully: …"
    assert _notices(corpus_root, "ruff") == ruff
    clmail = sorted((s, n) for s, n, d in lines if d.get("subtype") == "stop_hook_summary" and "clmail" in _words(d))
    assert len(clmail) == 2  # ef958aa1: the hook's command, "${CLAUDE_PLUGIN_ROOT}/scripts/clmail.cmd" actor idle
    got = _hits(corpus_root, "clmail", "--kind", "notice")
    assert sorted((h["conversation"], h["row"]) for h in got) == clmail
    for h in got:  # the snippet shows the words: the short form and the command, no JSON
        assert h["snippet_text"] == 'stop hooks: 1 ran, 0 errors\n"${CLAUDE_PLUGIN_ROOT}/scripts/clmail.cmd" actor idle'


def test_a_recap_is_found_by_its_words_and_its_snippet_is_words(corpus_root):
    recaps = _lines(lambda d: d.get("subtype") == "away_summary")
    assert len(recaps) == 2
    got = _hits(corpus_root, "recaps", "--kind", "notice")
    assert sorted(h["row"] for h in got) == sorted(n for _, n, _ in recaps)
    for h in got:
        assert "disable recaps in /config" in h["snippet_text"] and '"' + "subtype" not in h["snippet_text"]


def test_data_values_are_the_strings_alone_one_a_line(corpus_source):
    line = next(d for _, _, d in _lines(lambda d: d.get("subtype") == "stop_hook_summary"))
    got = data_values(line).split("\n")
    strings = [v for v in line.values() if isinstance(v, str) and v.strip()]
    assert set(strings) <= set(got) and line["hookInfos"][0]["command"] in got
    assert not set(line) & set(got)  # no key
    assert not any(x in "\n".join(got) for x in ('":', '{"', "true", "false"))  # no JSON, no boolean
    rec = {"parts": [{"k": "data", "data": line}]}
    assert notice_words(rec, rec["parts"][0], "") == data_values(line)  # no adapter asked: the values
    words = notice_words(rec, rec["parts"][0], "claude-code/1")
    assert words.split("\n")[1] == line["hookInfos"][0]["command"] and "userType" not in words and "external" not in words
    second = {"k": "data", "data": line}
    assert notice_words({"parts": [rec["parts"][0], second]}, second, "claude-code/1") == ""  # held once, by the first
    assert json.loads(json.dumps(line)) == line


def test_a_credential_its_json_shows_by_its_key_is_never_held_bare():
    """With its key gone a password's value reads as any word: it is masked first, as the JSON is (the index never
    holds a credential's value, trial 38c F2), and ``asz secrets`` still lists each credential the record holds."""
    from asz_core.reading.search_hits import part_index

    data = {"type": "hook", "password": "Hunter2Secret99", "env": {"DB_PASS": "Zq8vLm3Kp0"}, "said": "done\nok"}
    got = data_values(data)
    assert got.split("\n") == ["hook", "***", "***", "done", "ok"]
    rec = {"parts": [{"k": "data", "data": data}]}
    kind, text, indexed, found = part_index(rec, rec["parts"][0], "control.notice", "")
    assert (kind, text) == ("notice", got) and "Hunter2" not in indexed and "Zq8vLm3Kp0" not in indexed
    assert [(k, shown) for k, shown, _ in found] == [("password", "***"), ("env-secret", "***")]


CORPUS_KIRO = CORPUS_SOURCE.parents[1] / "kiro" / "home" / ".kiro"


def test_a_kiro_notice_is_found_once_by_its_text_and_an_event_by_its_values(tmp_path):
    """Kiro CLI 3.x's approval asked lands as a notice's text and its payload: found once, by the text (its adapter says
    the payload adds no words), where its JSON was found too; a ``session_event`` with no text by its values."""
    if not CORPUS_KIRO.is_dir():
        pytest.skip(f"the Kiro corpus is absent ({CORPUS_KIRO})")
    path = next(p for p in sorted(CORPUS_KIRO.glob("sessions/*/*/messages.jsonl")) if b"pending_interaction" in p.read_bytes())
    lines = [(n, json.loads(x)) for n, x in enumerate(path.read_text(encoding="utf-8").split("\n"), 1) if x.strip()]
    asked = [n for n, d in lines if d.get("payload", {}).get("type") == "pending_interaction"
             and "fs_write" in json.dumps(d["payload"])]
    paused = [n for n, d in lines if d.get("payload", {}).get("type") == "session_event"
              and "session_pause" in json.dumps(d["payload"])]
    assert (len(asked), len(paused)) == (1, 1)
    root = tmp_path / "root"
    asz("collect", "--once", "--adapter", "kiro", "--source", str(CORPUS_KIRO), "--root", str(root))
    asz("parse", "--root", str(root))
    got = _hits(root, "fs_write", "--kind", "notice")
    assert [h["row"] for h in got] == asked and got[0]["snippet_text"].startswith("tool_approval asked: fs_write")
    got = _hits(root, "session_pause", "--kind", "notice")
    assert [h["row"] for h in got] == paused and "{" not in got[0]["snippet_text"]
