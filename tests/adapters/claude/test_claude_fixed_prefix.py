"""What of Claude Code's answer to a refused call a skeleton keeps (``Adapter.fixed_prefix``; docs/adapters.md, trial
47a F1's other half): the runtime's lead before the person's reason, never the reason.

The wordings are Claude Code's own: the corpus's (Claude Code 2.0.37, ``… The user provided the following reason for
the rejection:  Let's keep …``, read from the transcript when the corpus is there) and later versions' (``… To tell
you how to proceed, the user said:`` and a new line, as Claude Code writes it in transcripts published with their
exports). The skeleton's writer is run on a real landed file of the corpus."""

from __future__ import annotations

import json
import shutil

import orjson

from cli_helpers import asz_in_process
from asz_adapters_claude.blocks import fixed_prefix, fixed_wording
from asz_core.sessiondata.skeleton import skeleton_bytes

REFUSED = "The user doesn't want to proceed with this tool use."
REJECTED = REFUSED + " The tool use was rejected (eg. if it was a file edit, the new_string was NOT written to the file)."
LEAD_20 = REJECTED + " The user provided the following reason for the rejection: "
LEAD_21 = REJECTED + " To tell you how to proceed, the user said:\n"
WHOLE = REJECTED + " STOP what you are doing and wait for the user to tell you how to proceed."


def test_the_lead_before_the_persons_reason_is_kept_never_the_reason():
    for lead in (LEAD_20, LEAD_21):
        for before in ("", "Error: "):  # the toolUseResult copy says it after `Error: `
            text = before + lead + " keep the file name, otherwise gtg"
            assert fixed_prefix(text) == before + lead and not fixed_wording(text)
    # an answer in a wording asz does not know keeps the sentence it is read refused by, nothing after it
    assert fixed_prefix(REFUSED + " The user said: not now") == REFUSED
    assert fixed_wording(WHOLE) and fixed_prefix(WHOLE) == REFUSED  # whole: fixed_wording decides first (prune)
    assert fixed_prefix("The user said: " + REFUSED) is None and fixed_prefix("ok") is None


def test_a_skeleton_keeps_a_lead_of_a_result_alone_with_the_rests_size_and_digest(corpus_dir, tmp_path):
    src = corpus_dir / "claude-code" / "projects" / "-Users-alex-workspace-coderabbit-review-helper"
    shutil.copytree(src, tmp_path / "projects" / src.name)
    p = asz_in_process("collect", "--once", "--source", str(tmp_path / "projects"), "--root", str(tmp_path / "root"),
                       cwd=tmp_path, env={"CLAUDE_CONFIG_DIR": str(tmp_path / "claude-home")})
    assert p.returncode == 0, p.stderr
    landed = [orjson.loads(x) for f in sorted((tmp_path / "root").rglob("*.sd")) for x in f.read_bytes().splitlines()]
    texts = [(q["k"], q["text"]) for r in landed for q in r.get("parts") or () if q.get("text") and q["k"] in ("text", "result")]
    assert sum(k == "result" for k, _ in texts) and sum(k == "text" for k, _ in texts)
    first = lambda dialect, text: text[:5]  # noqa: E731  an adapter that called the first 5 characters of any text fixed
    sk = b"".join(skeleton_bytes(f.read_bytes(), at="2026-12-07T17:00:00Z", generation=1, receiver="unconfirmed",
                                 owner="o", fixed=first) for f in sorted((tmp_path / "root").rglob("*.sd")))
    parts = [q for x in sk.splitlines() for q in json.loads(x).get("parts") or ()]
    kept = [(q["k"], q["text"], q["removed_bytes"], q.get("sha256")) for q in parts if "text" in q]
    assert kept == [(k, t[:5], len(t[5:].encode()), None)
                    for k, t in texts if k == "result" and len(t) > 5]  # a turn someone wrote keeps no lead
    assert all(q["state"] in ("removed", "too_large") for q in parts)
