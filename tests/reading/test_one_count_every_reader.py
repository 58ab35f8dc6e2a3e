"""One credential, one count, in every reader (fix44k; trial 44c: on its planted conversation ``asz export --format
md`` masked 250 places of 49 credentials where ``asz secrets`` counted 249 of 48; docs/reading.md, "Credentials").

Found there: a token split by a shell's line continuation in a tool's input was missed by ``asz secrets`` (the search
index reads the input as JSON, its backslash escaped and its line break read) and fingerprinted apart by md (which
read the JSON-escaped continuation); md's manifest left out a PEM key's mask written escaped beside active content
(``\\[private key left out]``); the json export counted only what its 2,000-byte clip held, fewer when it only
counted than when it masked; the page and ``--whole`` counted a talk's label, a copy of its prompt, again. The page
counted the texts it serves, clipped at 2,000 bytes (close44: 146 places where the exports counted 250); it counts
their whole texts now, read from the lines its build read (``page_secrets._masked``, ``placing.whole_of``).

Planted into a real transcript of the shared corpus (claude-reliability): an AWS key id twice in the first prompt and
once in a tool result past the json document's 2,000-byte clip, a split token in the prompt and in the Bash call's
command, a PEM key without its END line ending the prompt, and an HTML tag that makes md escape the prompt's block.
Every count is made here from the planted text."""

from __future__ import annotations

import json
import sys
from pathlib import Path

from cli_helpers import asz_in_process
from reading_helpers import RELIABILITY, planted_root

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "view_server"))

from view_server_helpers import Served  # noqa: E402

AKIA = "AKIAZ7Q3XK9LM2PW4RT8"
SPLIT = "AKIAW4R8\\\n  T2K9LM5PQ7ZX"  # a backslash ending its line, the rest on the next
PEM = "-----BEGIN RSA PRIVATE KEY-----\nMIIEowIBAAKCAQEAu7Lq9Vx3Kp2Nm8Rz4Wt6Yb1Hc5Jd0Fg3Ks7Lp9Qm2Xn4Vr6T"
PROMPT = f"ids {AKIA} and {AKIA}; <img src=x onerror=alert(1)> split {SPLIT} then the key:\n{PEM}"
COMMAND = f"deploy --region eu \\\n  --key {SPLIT}"
RESULT = "Hello world\n" + "x" * 2500 + f"\nkey {AKIA}"
CID = "de3b8b19"
#: Counted from the planted texts: each occurrence of a credential in a text is one place.
BY_KIND = {"aws-access-key-id": PROMPT.count(AKIA) + RESULT.count(AKIA),
           "continued-token": PROMPT.count(SPLIT) + COMMAND.count(SPLIT),
           "private-key": PROMPT.count("-----BEGIN ")}
PLACES, CREDENTIALS = sum(BY_KIND.values()), len(BY_KIND)
#: What the result's 2,000 bytes the page is served hold: the page counted these until close44 (5, not 6).
CLIPPED = PLACES - RESULT.count(AKIA) + RESULT.encode()[:2000].decode("utf-8", "ignore").count(AKIA)


def _plant(lines: list[dict]) -> None:
    lines[1]["message"]["content"] = f"{lines[1]['message']['content']} {PROMPT}"
    lines[4]["message"]["content"][0]["input"]["command"] = COMMAND
    lines[5]["message"]["content"][0]["content"] = RESULT


def test_every_reader_counts_each_place_once(corpus_dir, tmp_path):
    root = str(planted_root(corpus_dir, tmp_path, RELIABILITY, _plant))
    assert PLACES == 6 and CLIPPED == 5  # the planting as meant: 3 AKIA, 2 split, 1 key; one AKIA past the clip
    said = asz_in_process("secrets", "--root", root)
    assert said.stdout.splitlines()[-1] == f"{PLACES} place(s) of {CREDENTIALS} credential(s) in 1 conversation(s)"
    found = json.loads(asz_in_process("secrets", "--json", "--root", root).stdout)
    by_kind = {k: sum(f["places"] for f in found if f["secret"] == k) for k in BY_KIND}
    assert by_kind == BY_KIND and len({f["fingerprint"] for f in found}) == CREDENTIALS
    md = tmp_path / "c.md"
    for fmt, extra in (("md", ("--out", str(md))), ("html", ()), ("json", ("--redact",)),
                       ("json", ("--whole", "--redact"))):
        p = asz_in_process("export", CID, "--format", fmt, *extra, "--root", root)
        assert f"masked {PLACES} place(s) of {CREDENTIALS} credential(s)" in p.stderr, (fmt, extra, p.stderr)
    note = f"note: {PLACES} place(s) of {CREDENTIALS} credential(s) of a known form written whole"
    for extra in ((), ("--whole",)):  # counted over the whole texts, not what the clip shows
        p = asz_in_process("export", CID, "--format", "json", *extra, "--root", root)
        assert f"asz export: {note}" in p.stderr, (extra, p.stderr)
    p = asz_in_process("conversation", CID, "--json", "--root", root)
    assert f"asz conversation: {note}" in p.stderr, p.stderr
    masks = json.loads(md.with_name("c.md.manifest.json").read_text())["masks"]
    assert "\\[private key left out]" in md.read_text()  # escaped beside the tag, and listed as a mask still
    assert [m["fingerprint"] for m in masks if m["kind"] == "private-key"] == [
        f["fingerprint"] for f in found if f["secret"] == "private-key"]
    assert {m["fingerprint"] for m in masks} == {f["fingerprint"] for f in found}
    s = Served(["view", "--root", root], tmp_path, timeout=60)
    try:
        got = s.get("/api/c/de3b8b19-5bc0-4a2a-934a-1b6806567e25/view")
        heads = json.loads(s.get("/api/c/de3b8b19-5bc0-4a2a-934a-1b6806567e25/headings").body)
    finally:
        s.stop()
    assert got.status == 200 and got.headers["asz-credentials-masked"] == str(PLACES)  # the whole texts' (was CLIPPED)
    assert heads["secrets"] == {"shown": "masked", "places": PLACES} and AKIA.encode() not in got.body
