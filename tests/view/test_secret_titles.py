"""No reader prints a credential whole in a conversation's title (trial 21): a key typed into the first prompt, or in the
runtime's own title, is masked wherever the title is shown (``asz ls``, ``asz search``, ``asz usage session``,
``asz conversation``, ``asz secrets``, every export format, the page's list and document), by one function
(``asz_core.view.secret_forms.shown_title``); the landed records keep the text as written.

The values are the documented examples of their forms: AWS's example access key id and secret access key (AWS IAM
user guide, "AKIAIOSFODNN7EXAMPLE", "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY")."""

from __future__ import annotations

import json

from starlette.testclient import TestClient

from asz_core.view.secret_forms import shown_title
from asz_core.view.server import ViewState, create_app
from asz_core.view.summary import TITLE_LIMIT, short_title

from claude_lines import assert_titled, collect_claude
from cli_helpers import asz_in_process
from test_view_summary_titles import _agent, _summary, _user

AWS = "AKIAIOSFODNN7EXAMPLE"
SECRET = "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY"
A = "aaaaaaaa-0000-4000-8000-000000000021"
B = "bbbbbbbb-0000-4000-8000-000000000021"
#: A's title is the runtime's (a summary record for its own message); B's is its prompt, the secret past the cut.
PROMPT = f"please deploy the app with {AWS} and aws_secret_access_key = {SECRET} to staging"
SESSIONS = {
    A: [_summary(f"Deploy with key {AWS}", "a-2"),
        _user(A, "a-1", None, "deploy the greeting service", "2026-03-03T10:00:00Z"),
        _agent(A, "a-2", "a-1", "deployed greetings", "2026-03-03T10:00:05Z")],
    B: [_user(B, "b-1", None, PROMPT, "2026-03-04T10:00:00Z"), _agent(B, "b-2", "b-1", "ok, greetings staged", "2026-03-04T10:00:05Z")],
}
WANT = {A: "Deploy with key AKIA…MPLE",
        B: "please deploy the app with AKIA…MPLE and aws_secret_access_key = wJal…EKEY to staging"}


def _whole(text: str) -> list[str]:
    """The credentials' heads (their first 8 characters, a cut title's longest leftover) ``text`` holds."""
    return [v[:8] for v in (AWS, SECRET) if v[:8] in text]


def test_a_prompt_title_is_masked_before_it_is_cut():
    """A title is cut to TITLE_LIMIT characters; a credential it cuts through would leave its head whole, so the
    credentials are masked first."""
    label = "w " * 35 + f"AWS_ACCESS_KEY_ID={AWS} more"  # a word too long to end the cut on: cut inside it
    assert len(label) > TITLE_LIMIT
    assert short_title(label) == "w " * 35 + "AWS_ACCESS_KEY_ID=AKIA…MPLE…"
    long = "w" * (TITLE_LIMIT - 10) + f" {SECRET}"  # the name is not beside it: not a credential form, kept
    assert short_title(long).endswith("…") and shown_title(long) == long


def test_every_reader_masks_a_credential_in_a_title(tmp_path):
    root = collect_claude(tmp_path, SESSIONS)
    assert_titled(root, WANT, "greetings")  # the document, asz ls --json, asz search --json
    assert PROMPT in (next((root / B / "streams" / "main").glob("transcript-*.sd"))).read_text()  # the evidence kept
    wide = {"COLUMNS": "250"}
    printed = {
        "ls": asz_in_process("ls", "--root", str(root), env=wide),
        "search": asz_in_process("search", "greetings", "--root", str(root), env=wide),
        "usage session": asz_in_process("usage", "session", "--root", str(root), env=wide),
        "conversation": asz_in_process("conversation", B[:8], "--root", str(root), env=wide),
        "secrets": asz_in_process("secrets", "--root", str(root), env=wide),
    }
    for args in (("--format", "md"), ("--format", "html"), ("--format", "json"), ("--audit",)):  # prose has no title
        printed[f"export {args[-1]}"] = asz_in_process("export", A[:8], *args, "--root", str(root))
    for name, p in printed.items():
        assert p.returncode == (1 if name == "secrets" else 0), (name, p.stdout, p.stderr)
        assert not _whole(p.stdout), (name, p.stdout)
        assert "AKIA…MPLE" in p.stdout, (name, p.stdout)
    assert WANT[B] in printed["conversation"].stdout and WANT[A] in printed["ls"].stdout
    found = printed["secrets"].stdout.splitlines()
    # B's prompt holds both credentials; A's runtime title (its summary record's label, searched since fix32f) the key id
    assert found[-1] == "3 place(s) of 2 credential(s) in 2 conversation(s)"
    firsts = found[:-1:2]  # each finding's first line names its conversation by its title
    assert [line.split()[0] for line in firsts] == [A[:8], B[:8], B[:8]]
    assert all(line.endswith(WANT[A if line.startswith(A[:8]) else B]) for line in firsts), firsts
    client = TestClient(create_app(ViewState(root)), base_url="http://127.0.0.1")
    rows = client.get("/api/conversations").json()["conversations"]
    assert {r["id"]: r["title"] for r in rows} == WANT
    for sid in (A, B):
        assert client.get(f"/api/c/{sid}/view").json()["summary"]["title"] == WANT[sid]
    assert not _whole(json.dumps(client.get(f"/api/c/{A}/headings").json()))
