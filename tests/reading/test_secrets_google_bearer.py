"""Two credential forms a security review found missing (trial 27c, F10): Google's OAuth client secret
(``GOCSPX-`` and 28 base64url characters, as the Google Cloud console issues it) and the token of an HTTP
``Authorization: Bearer …`` header (RFC 6750 §2.1). Both were left whole by ``asz export --redact``. Where two forms
find one value (``client_secret: GOCSPX-…`` is also a ``password`` given to its name) it is one credential, of the
issuer's form, counted and masked once.

Planted into a real transcript of the shared corpus (claude-reliability: its prompt and a tool result); over the
whole shared corpus neither form finds anything."""

from __future__ import annotations

from pathlib import Path

import pytest

from asz_core.view.secret_forms import find, redacted

from cli_helpers import asz_in_process
from reading_helpers import forms_over_corpus, plant_in_prompt_and_result, planted_root, secrets_found

GOOGLE = "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"
BEARER = "a8F3kLq9Zx2mN7pR4tV6wY1bC5dE0gH3jK8"
CURL = f'curl -H "Authorization: Bearer {BEARER}" https://api.example.com/v1/items'
#: Texts that name a bearer header and hold no token: no finding.
DECOYS = ('Authorization: Bearer $TOKEN', "Authorization: Bearer <token>", "Authorization: Bearer YOUR_ACCESS_TOKEN_HERE",
          'headers = {"Authorization": f"Bearer {token}"}', "Authorization: Bearer ${{ secrets.API_TOKEN }}",
          "GOCSPX-short")
RELIABILITY = "claude-code/projects/-home-user-claude-reliability/de3b8b19-5bc0-4a2a-934a-1b6806567e25.jsonl"


@pytest.mark.parametrize("text,found", [
    (f"client id 123.apps.googleusercontent.com, secret {GOOGLE}", [("google-oauth-client-secret", GOOGLE)]),
    (f'client_secret: "{GOOGLE}"', [("google-oauth-client-secret", GOOGLE)]),  # not also a password: once
    (CURL, [("bearer-token", BEARER)]),
    (f"authorization=bearer {BEARER}", [("bearer-token", BEARER)]),
    ("Authorization: Bearer eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0.dozjgNryP4J3jVmNHl0w5N_XgL0n3I9PlFUP0THsR8U",
     [("jwt", "eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0.dozjgNryP4J3jVmNHl0w5N_XgL0n3I9PlFUP0THsR8U")]),
    *((d, []) for d in DECOYS),
])
def test_the_forms_found(text, found):
    assert [(k, text[a:b]) for k, a, b in find(text)] == found


def test_both_are_masked_first_and_last_four_kept():
    assert redacted(CURL)[0] == 'curl -H "Authorization: Bearer a8F3…jK8" https://api.example.com/v1/items'.replace(
        "a8F3…jK8", f"{BEARER[:4]}…{BEARER[-4:]}")
    assert redacted(f"secret {GOOGLE}")[0] == f"secret {GOOGLE[:4]}…{GOOGLE[-4:]}"


def test_no_finding_over_the_whole_shared_corpus(corpus_dir):
    strings, found = forms_over_corpus(corpus_dir, ("google-oauth-client-secret", "bearer-token"))
    assert strings > 60_000 and found == 0


@pytest.fixture(scope="module")
def planted(tmp_path_factory, corpus_dir) -> Path:
    return planted_root(corpus_dir, tmp_path_factory.mktemp("google-bearer"), RELIABILITY,
                        plant_in_prompt_and_result(f"The OAuth client secret is {GOOGLE}.", "Hello world\n" + CURL + "\n" + "\n".join(DECOYS)))


def test_asz_secrets_names_each_and_the_export_masks_them(planted):
    found, named = secrets_found(planted, (GOOGLE, BEARER))
    assert named == sorted([("google-oauth-client-secret", "prompt", GOOGLE), ("bearer-token", "tool_result", BEARER)])
    p = asz_in_process("export", "de3b8b19", "--redact", "--format", "md", "--root", str(planted))
    assert p.returncode == 0, p.stderr
    assert GOOGLE not in p.stdout and BEARER not in p.stdout
    assert f"{GOOGLE[:4]}…{GOOGLE[-4:]}" in p.stdout and f"{BEARER[:4]}…{BEARER[-4:]}" in p.stdout
