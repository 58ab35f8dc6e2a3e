"""What the readers that print a conversation's texts as landed say of its credentials, and how every reader counts
them (trial 44c F4, F8, F7; docs/reading.md, "Credentials").

``asz conversation ID --json`` / ``--yaml`` and ``asz show`` printed credentials whole and said nothing, while ``asz
export --format json`` says it in a note: they print the texts as landed still (the evidence, issue 20's and 7's
shapes kept) and say it in the export's words on stderr; ``--redact`` masks them as the json export and the page
do. A place is one occurrence of a credential in a text (what one mask covers): ``asz secrets`` counted a value twice
in one text once (180 places where the export masked 185); now every reader counts places alike
(``secret_forms.counted``). ``asz view --host 0.0.0.0 --token`` said anyone reaching it reads every conversation;
with a token the risk is the token in plain HTTP, and that is said.

Planted into a real transcript of the shared corpus (claude-reliability): a GitHub token twice in the first prompt
and a password in a tool result: 3 places of 2 credentials, counted from what was planted."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

from cli_helpers import asz_in_process
from reading_helpers import RELIABILITY, plant_in_prompt_and_result, planted_root

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "view_server"))

from view_server_helpers import Served  # noqa: E402

TOKEN = "ghp_" + "Tr1al44cFakeGitHubTokenAbCdEfGhIjKlMnOp"[:36]
PW = "Pq7#zR2mW9k"
PROMPT = f"GITHUB_TOKEN={TOKEN} and again: {TOKEN}"
RESULT = f"Hello world\npassword: {PW}"
CID = "de3b8b19"
SESSION = "de3b8b19-5bc0-4a2a-934a-1b6806567e25"
PROMPT_RECORD = "10dcdc4f-bc3e-4b4f-a336-cc788f8ffbe1"  # the uuid of the prompt's line
#: Counted from what was planted: the token twice in one text, the password once in another.
PLACES, CREDENTIALS = 3, 2
WHOLE = (f"asz conversation: note: {PLACES} place(s) of {CREDENTIALS} credential(s) of a known form written whole "
         "(asz secrets lists them); --redact masks them")


@pytest.fixture(scope="module")
def planted(tmp_path_factory, corpus_dir) -> Path:
    return planted_root(corpus_dir, tmp_path_factory.mktemp("said"), RELIABILITY, plant_in_prompt_and_result(PROMPT, RESULT))


@pytest.mark.parametrize("form", ["--json", "--yaml"])
def test_the_document_is_printed_as_landed_with_one_note_and_masked_with_redact(planted, form):
    whole = asz_in_process("conversation", CID, form, "--root", str(planted))
    assert whole.returncode == 0, whole.stderr
    assert TOKEN in whole.stdout and PW in whole.stdout  # the evidence as it landed (issue 20, 7: shapes kept)
    assert [ln for ln in whole.stderr.splitlines() if "credential" in ln] == [WHOLE]
    masked = asz_in_process("conversation", CID, form, "--redact", "--root", str(planted))
    assert masked.returncode == 0, masked.stderr
    assert TOKEN not in masked.stdout and PW not in masked.stdout and "ghp_…" in masked.stdout
    assert [ln for ln in masked.stderr.splitlines() if "credential" in ln] == [
        f"asz conversation: --redact masked {PLACES} place(s) of {CREDENTIALS} credential(s)"]
    if form == "--json":
        assert json.loads(masked.stdout).keys() == json.loads(whole.stdout).keys()


def test_every_reader_counts_the_same_places(planted):
    said = asz_in_process("secrets", "--root", str(planted))
    assert said.stdout.splitlines()[-1] == f"{PLACES} place(s) of {CREDENTIALS} credential(s) in 1 conversation(s)"
    found = json.loads(asz_in_process("secrets", "--json", "--root", str(planted)).stdout)
    assert sorted((f["secret"], f["places"]) for f in found) == [("github-token", 2), ("password", 1)]
    for fmt in ("md", "html"):
        p = asz_in_process("export", CID, "--format", fmt, "--root", str(planted))
        assert f"masked {PLACES} place(s) of {CREDENTIALS} credential(s)" in p.stderr, p.stderr
    p = asz_in_process("export", CID, "--format", "json", "--root", str(planted))
    assert WHOLE.replace("asz conversation:", "asz export:") in p.stderr.splitlines()


def test_show_prints_a_record_as_stored_says_so_and_masks_with_redact(planted):
    whole = asz_in_process("show", SESSION, PROMPT_RECORD, "--root", str(planted))
    assert whole.returncode == 0, whole.stderr
    held = whole.stdout.count(TOKEN)
    assert held >= 2 and held % 2 == 0  # the prompt's text, as many times as the record holds it
    assert whole.stderr.splitlines() == [
        f"asz show: note: {held} place(s) of 1 credential(s) of a known form written whole (asz secrets lists them); "
        "--redact masks them"]
    masked = asz_in_process("show", SESSION, PROMPT_RECORD, "--redact", "--root", str(planted))
    assert masked.returncode == 0 and TOKEN not in masked.stdout and masked.stdout.count("ghp_…") == held
    assert masked.stderr.splitlines() == [f"asz show: --redact masked {held} place(s) of 1 credential(s)"]


def test_a_token_beyond_loopback_is_said_to_travel_in_plain_http(planted, tmp_path):
    s = Served(["view", "--root", str(planted), "--host", "0.0.0.0", "--token"], tmp_path, timeout=60, token=True)
    try:
        assert s.get("/api/status").status == 200
    finally:
        s.stop()
    err = s.err.read_text()
    assert "warning: 0.0.0.0 is not a loopback address: the token travels in plain HTTP (no TLS) on the network" in err
    assert "anyone who reaches it" not in err
