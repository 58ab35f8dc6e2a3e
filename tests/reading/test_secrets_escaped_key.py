"""A PEM private key whose line breaks a text writes escaped, and an address's password holding ``#`` (trial 44c F1,
F3; docs/reading.md, "Credentials").

A GCP service account's JSON holds its key as ``"private_key": "-----BEGIN PRIVATE KEY-----\\nMIIE…\\n-----END PRIVATE
KEY-----\\n"``. Written by a tool (a Write of ``sa.json``, a ``cat`` in a Bash command), the exports draw the tool's
input as JSON, where each ``\\n`` reads ``\\\\n``: the key's first line was masked and its body written whole in md,
html and json while the page and the prose forms masked it. A line break is now read escaped at any depth (real,
``\\r\\n``, ``\\n``, ``\\\\n``), one rule for every text, and a key is one credential however a text breaks it.
``postgres://admin:Xk9#mP2vL7qZ@db…`` kept its password: the value now runs to the last ``@`` a host follows, ``#``
included, and a fragment (``https://x.org/page#a@b``, ``http://localhost:8080#top@x``) is still no password.

Planted into a real transcript of the shared corpus (claude-reliability): the Write's content, the Bash command and
the tool's result."""

from __future__ import annotations

import base64
import hashlib
import json
import sys
from pathlib import Path

import pytest

from asz_core.view.secret_forms import find, redacted

from cli_helpers import asz_in_process
from reading_helpers import RELIABILITY, planted_root, secrets_found

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "view_server"))

from view_server_helpers import Served  # noqa: E402


def _body(seed: str) -> list[str]:
    """Lines of base64 (64 characters, as PEM writes them) no other text holds."""
    raw = b"".join(hashlib.sha256(f"{seed}{i}".encode()).digest() for i in range(6))
    text = base64.b64encode(raw).decode()
    return [text[i:i + 64] for i in range(0, len(text), 64)]


def _key(seed: str, br: str) -> str:
    return br.join(["-----BEGIN PRIVATE KEY-----", *_body(seed), "-----END PRIVATE KEY-----", ""])


#: A service account's JSON as a file holds it (its key's breaks written ``\n``), the same key broken by ``\r\n``, and
#: a transcript line a tool printed that holds another service account's JSON in a string (``\\n``).
ACCOUNT = json.dumps({"type": "service_account", "private_key": _key("sa", "\n"), "client_email": "a@b.iam.gserviceaccount.com"})
CRLF = _key("sa", "\r\n")
NESTED = json.dumps({"type": "user", "message": {"content": json.dumps({"private_key": _key("nested", "\n")})}})
PG = "postgres://admin:Xk9#mP2vL7qZ@db.internal:5432/prod"
PG_PW = "Xk9#mP2vL7qZ"
FRAGMENTS = ("https://x.org/page#a@b", "http://localhost:8080#top@x")
#: What no reader may print: a line of each key's body, and the password.
WHOLE = (_body("sa")[1], _body("sa")[-1], _body("nested")[1], PG_PW, "Pq7#zR2mW9k")
CID = "de3b8b19"


@pytest.mark.parametrize("text", [_key("sa", "\n"), ACCOUNT, json.dumps({"command": f"cat > sa.json <<< '{ACCOUNT}'"},
                                                                         indent=2), CRLF, json.dumps(CRLF), NESTED,
                                  json.dumps(NESTED)])
def test_a_key_is_masked_whole_however_its_breaks_are_written(text):
    shown, marks = redacted(text)
    assert [k for k, _, _ in find(text)] == ["private-key"]
    assert [w for w in WHOLE if w in shown] == [] and "[private key left out]" in shown
    seed = "nested" if "nested" in text or _body("nested")[0] in text else "sa"
    assert marks == [hashlib.sha256("".join(_key(seed, "").split()).encode()).hexdigest()[:12]]  # one credential


def test_an_address_password_holding_a_hash_sign_and_no_fragment():
    text = f"psql {PG} -c 'select 1'"
    assert [(k, text[a:b]) for k, a, b in find(text)] == [("url-password", PG_PW)]
    assert redacted(PG)[0] == "postgres://admin:***@db.internal:5432/prod"
    for text in FRAGMENTS:
        assert find(text) == [], text


#: A JSON password as an HTML-escaped page holds it (trial 44c F6: masked as ``&quot;***;``, the mask taking the
#: entity's ``&quot`` with it): the value ends before ``&quot;``, read as the quote it stands for.
ESCAPED = "&quot;password&quot;: &quot;Pq7#zR2mW9k&quot;"
ESCAPED_SHOWN = "&quot;password&quot;: &quot;***&quot;"


def test_a_mask_ends_before_an_html_character_reference():
    assert redacted(ESCAPED)[0] == ESCAPED_SHOWN
    assert redacted("{" + ESCAPED.replace(": ", ":") + "}")[0] == "{" + ESCAPED_SHOWN.replace(": ", ":") + "}"


def _plant(lines: list[dict]) -> None:
    lines[2]["message"]["content"][0]["input"]["file_path"] = "/tmp/sa.json"
    lines[2]["message"]["content"][0]["input"]["content"] = ACCOUNT
    lines[4]["message"]["content"][0]["input"]["command"] = f"echo '{ACCOUNT}' > sa.json && psql {PG}"
    lines[5]["message"]["content"][0]["content"] = "\n".join(["Hello world", CRLF, NESTED, *FRAGMENTS, ESCAPED])


@pytest.fixture(scope="module")
def planted(tmp_path_factory, corpus_dir):
    return planted_root(corpus_dir, tmp_path_factory.mktemp("escaped-key"), RELIABILITY, _plant)


@pytest.mark.parametrize("args", [["--format", "md"], ["--format", "html"], ["--format", "json", "--redact"],
                                  ["--format", "json", "--whole", "--redact"], ["--format", "prose", "--redact"],
                                  ["--audit"]])
def test_every_export_masks_each_key_whole(planted, args):
    p = asz_in_process("export", CID, *args, "--root", str(planted))
    assert p.returncode == 0, p.stderr
    assert [w for w in WHOLE if w in p.stdout] == []
    if "prose" not in args and "--audit" not in args:  # the forms drawing tool inputs and results
        assert "[private key left out]" in p.stdout and "admin:***@db.internal" in p.stdout
        assert [f for f in (*FRAGMENTS, ESCAPED_SHOWN) if f not in p.stdout.replace("&amp;", "&")] == []


def test_secrets_search_the_conversation_and_the_page_mask_each_and_count_a_key_once(planted, tmp_path):
    keys = {seed: "".join(_key(seed, "").split()) for seed in ("sa", "nested")}  # what a key is fingerprinted by
    found, named = secrets_found(planted, (PG_PW, "Pq7#zR2mW9k", *keys.values()))
    assert sorted(set(named)) == sorted([("private-key", "tool_input", keys["sa"]), ("private-key", "tool_result", keys["sa"]),
                                         ("private-key", "tool_result", keys["nested"]), ("url-password", "tool_input", PG_PW),
                                         ("password", "tool_result", "Pq7#zR2mW9k")])
    hits = json.loads(asz_in_process("search", "Hello", "--root", str(planted), "--json").stdout)
    assert hits and [w for w in WHOLE if w in json.dumps(hits)] == []
    for step in {h["step"] for h in hits}:  # the talk of the tool result, its tool input and result drawn
        talk = asz_in_process("conversation", CID, "--step", step, "--root", str(planted))
        assert talk.returncode == 0, talk.stderr
        assert [w for w in WHOLE if w in talk.stdout] == [] and "admin:***@db.internal" in talk.stdout
    s = Served(["view", "--root", str(planted)], tmp_path, timeout=60)
    try:
        view = s.get(f"/api/c/{hits[0]['conversation']}/view")
        assert view.status == 200 and [w for w in WHOLE if w.encode() in view.body] == []
    finally:
        s.stop()
