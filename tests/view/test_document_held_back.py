"""The asz.view document counts no token or cost figure read from evidence that does not verify, and says so.

Real input: the Claude Code corpus collected by the real ``asz collect --once`` (tests/conftest.py), then one
number of a landed transcript changed in place (``"out":4658`` -> ``"out":9999``, closing digest left as it
was), or the same change with the closing line recomputed (re-sealed), or a landed file removed. The document's
``summary.usage``, ``usage_by_model``, ``usage_by_lane`` and ``cost`` are null and ``summary.held_back`` names
the state and the calls left out (counted here from the source transcripts), as ``asz ls`` and ``asz usage``
hold the conversation back; every other conversation's document counts what its source transcripts say.
"""

from __future__ import annotations

import json
import os
import stat
import sys
from pathlib import Path

import pytest

from asz_core.view import build_view, list_conversations
from cli_helpers import asz_in_process
from test_view_usage import ANCHOR, sessions_of, transcript_truth

SID = "8463c716-a2ea-4c14-9efa-87158ebd9f20"
HELD = ["usage", "usage_by_model", "usage_by_lane", "cost"]


def _main_file(root: Path) -> Path:
    [path] = [p for p in sorted((root / SID / "streams" / "main").glob("transcript-*.sd")) if b'"out":4658' in p.read_bytes()]
    return path


def _changed_in_place(root: Path) -> None:
    path = _main_file(root)
    data = path.read_bytes()
    assert data.count(b'"out":4658') == 1
    os.chmod(path, stat.S_IRUSR | stat.S_IWUSR)
    path.write_bytes(data.replace(b'"out":4658', b'"out":9999'))
    os.chmod(path, stat.S_IRUSR)


def _resealed(root: Path) -> None:
    sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "verify"))
    from verify_landing import edit_records

    edit_records(_main_file(root), lambda recs: [r.replace(b'"out":4658', b'"out":9999') for r in recs], fix_closing=True)


@pytest.fixture(scope="module")
def tampered(corpus_dir, corpus_copy):
    root = corpus_copy()
    _changed_in_place(root)
    truth = sessions_of(corpus_dir / "claude-code" / "projects")
    return root, truth


def test_the_document_holds_back_the_figures_and_counts_every_other_conversation(tampered):
    root, truth = tampered
    usage, calls = transcript_truth(truth[SID])
    s = build_view(root, SID)["summary"]
    assert s["state"] == "mismatch"
    assert all(s[k] is None for k in HELD)
    assert s["held_back"] == {"state": "mismatch", "keys": HELD, "calls": calls}
    assert s["models"] and s["talks"] > 0  # names and structure stay, as the list's do
    grand = dict.fromkeys(ANCHOR, 0)
    for conv in list_conversations(root):
        if conv == SID:
            continue
        o = build_view(root, conv)["summary"]
        expected, _ = transcript_truth(truth[conv])
        assert o["state"] == "verified" and "held_back" not in o and o["usage"] == expected, conv
        for k in ANCHOR:
            grand[k] += o["usage"][k]
    assert grand == {k: ANCHOR[k] - usage[k] for k in ANCHOR}  # the corpus's totals without the held-back one


def test_asz_conversation_says_the_figures_are_held_back(tampered):
    root, truth = tampered
    _, calls = transcript_truth(truth[SID])
    p = asz_in_process("conversation", SID[:8], "--root", str(root))
    assert p.returncode == 1
    assert (f"tokens held back: the conversation does not verify (mismatch), so its {calls} call(s) with usage are in "
            "no figure (asz verify names the problems)") in p.stdout.splitlines()
    assert "cost held back" in p.stdout.splitlines()
    assert "9,999" not in p.stdout and "$" not in p.stdout
    p = asz_in_process("conversation", SID, "--json", "--root", str(root))
    assert p.returncode == 1  # the document all the same, and exit 1 as the summary (fix29c)
    s = json.loads(p.stdout)["summary"]
    assert s["usage"] is None and s["cost"] is None and s["held_back"]["calls"] == calls
    p = asz_in_process("export", SID, "--root", str(root))
    md = p.stdout.splitlines()  # the lines asz conversation prints, as the export's header carries them
    assert "- cost held back" in md and "9,999" not in p.stdout.split("## Talk 1")[0]
    assert any(x.startswith("- tokens held back: the conversation does not verify (mismatch), so its ") for x in md)


def test_a_resealed_file_and_a_missing_file_are_held_back_too(corpus_dir, corpus_copy):
    truth = sessions_of(corpus_dir / "claude-code" / "projects")
    root = corpus_copy()
    _resealed(root)
    s = build_view(root, SID)["summary"]
    assert s["state"] == "mismatch" and s["usage"] is None
    assert s["held_back"] == {"state": "mismatch", "keys": HELD, "calls": transcript_truth(truth[SID])[1]}
    cut = "cb2e607c-c758-415a-8b45-c49e4631906a"
    (gone,) = sorted((root / cut / "streams" / "main").glob("transcript-*-000001.sd"))
    gone.unlink()
    s = build_view(root, cut)["summary"]
    assert s["state"] == "incomplete" and all(s[k] is None for k in HELD)
    assert s["held_back"]["state"] == "incomplete" and s["held_back"]["keys"] == HELD
    # what is left is fewer calls than the session made: none of it is counted as if it were all
    assert 0 <= s["held_back"]["calls"] < transcript_truth(truth[cut])[1]


def test_a_call_read_from_a_file_that_does_not_verify_carries_no_usage(tampered):
    """The call whose usage the changed file now says 9,999 output tokens for (4,658 in the source) shows no usage, and
    no other call of that file does either: ``usage_state`` says ``unavailable``, as its text's ``state`` does."""
    from claude_lines import walk_nodes

    root, truth = tampered
    doc = build_view(root, SID)
    (bad,) = [f["seq"] for f in doc["files"] if "problem" in f]
    calls = [n for n in walk_nodes(doc) if n["kind"] == "llm.call"]
    cites = {id(n): {r["seq"] for r in (n.get("refs") or [n["ref"]]) if r} for n in calls}
    held = [n for n in calls if bad in cites[id(n)]]
    shown = [n for n in calls if bad not in cites[id(n)]]
    assert held and shown
    assert all("usage" not in n and n.get("usage_state") == "unavailable" for n in held)
    assert all("usage" not in r for n in held for r in n.get("requests", ()))
    assert all(n["usage_state"] in ("final", "last_seen") and isinstance(n["usage"]["out"], int) for n in shown if "usage_state" in n)
    assert not [n for n in calls if (n.get("usage") or {}).get("out") == 9999]
    # the calls shown count what the source says for them: every call of the file that verifies is there
    _, with_usage = transcript_truth(truth[SID])
    assert sum(1 for n in calls if "usage_state" in n) == with_usage
