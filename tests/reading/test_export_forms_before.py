"""A text or ``--audit`` copy an earlier asz made still checks though this asz declares more credential forms
(review43): the audit header lists the forms its asz masks (``credentials.forms``), sessions 42 and 43 added some, and
a copy made at fbe44e18 of a conversation holding no credential at all failed ``asz verify --export --root`` at that
header line (``copy '…basic-auth, mysql-password, pa', landed (masked) '…azure-shared-access-key, azure'``).

Real input: the corpus conversation de3b8b19 (the smallest) exported by this asz; the older copy is that one with the
forms list fbe44e18 wrote, written out here as that asz printed it, its manifest the export's own (as_copy). A list no
asz declared (a form taken out of it) is still a changed line."""

from __future__ import annotations

import json

import pytest

from asz_core.reading.export_render import RENDER, SHORT_HEAD_RENDER, drawing

from cli_helpers import asz_in_process
from reading_helpers import as_copy

SID = "de3b8b19-5bc0-4a2a-934a-1b6806567e25"
#: ``asz export --audit``'s credentials.forms at fbe44e18 (session 42's end), as that asz printed it.
FORMS_42 = ("aws-access-key-id, aws-secret-access-key, github-token, gitlab-token, anthropic-api-key, openai-api-key, "
            "slack-token, slack-webhook-url, google-api-key, google-oauth-client-secret, stripe-live-key, "
            "huggingface-token, npm-token, private-key, jwt, bearer-token, url-password, sendgrid-api-key, "
            "azure-storage-account-key, basic-auth, mysql-password, password, token").split(", ")


@pytest.mark.parametrize("form", ["text", "audit"])
def test_a_copy_listing_an_earlier_asz_forms_checks_and_one_no_asz_listed_does_not(corpus_root, tmp_path, form):
    ext = "text" if form == "text" else "jsonl"  # (prose's --out is FILE.jsonl: asz export refuses c.audit)
    copy = tmp_path / f"c.{ext}"
    args = ("--format", "text") if form == "text" else ("--audit",)
    # a text copy listing the forms is of a render before the short header (48, trial 49a F4), as such copies are
    listed = SHORT_HEAD_RENDER - 1 if form == "text" else RENDER
    with drawing(listed):
        made = asz_in_process("export", SID, *args, "--out", str(copy), "--root", str(corpus_root))
    assert made.returncode == 0, made.stderr
    body, data = json.loads((tmp_path / f"c.{ext}.manifest.json").read_bytes()), copy.read_bytes()
    body["render"] = listed
    said = {"text": lambda forms: ("forms " + ", ".join(forms) + ", not_covered ").encode(),
            "audit": lambda forms: b'"forms":' + json.dumps(forms, separators=(",", ":")).encode() + b',"not_covered":'}[form]
    now = [f for f in data.split(b"forms", 1)[1].split(b"not_covered")[0].decode().replace('"', " ").replace(",", " ")
           .replace(":", " ").replace("[", " ").replace("]", " ").split()]
    assert set(FORMS_42) < set(now) and data.count(said(now)) == 1  # this asz lists more, once, in the header
    older = data.replace(said(now), said(FORMS_42))
    ok = asz_in_process("verify", "--export", as_copy(tmp_path, f"old.{ext}", older, body), "--root", str(corpus_root))
    assert ok.returncode == 0 and ok.stdout.splitlines()[-1] == "the copy checks against the root", ok.stdout
    forged = data.replace(said(now), said(FORMS_42[:-1]))  # 'token' taken out: a list no asz declared
    bad = asz_in_process("verify", "--export", as_copy(tmp_path, f"x.{ext}", forged, body), "--root", str(corpus_root))
    assert bad.returncode == 1 and f"x.{ext}: line " in bad.stdout and "outside the masks" in bad.stdout, bad.stdout
