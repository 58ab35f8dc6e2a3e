"""One credential is one count in every reader (small26; docs/reading.md, "Credentials").

- ``asz secrets`` gave every PEM private key of one type one fingerprint, that of its ``-----BEGIN`` line, so two RSA
  keys read as one credential, while the exports told them apart (a key's fingerprint is that of its lines);
- the export manifest gave each mask the fingerprint of the first credential with the same masked form, so its two
  RSA keys were one credential there too;
- ``--audit --no-redact`` cut a tool call's line at 200 characters as it is and counted what was left: a key the cut
  went through counted as another credential (the fingerprint of a piece of it);
- ``--format json`` counted a credential twice where the document holds its text twice (a talk's label is its first
  prompt's text again), where md and html count that place once.

Real input: the spotter transcript of the shared corpus with two RSA keys planted, made here from fixed seeds: key A
in the prompt and in a Bash call's heredoc, whose 200-character audit line cuts through A's base64; key B in a tool
result. Every expected count and fingerprint is made from what is planted."""

from __future__ import annotations

import base64
import hashlib
import json

from pathlib import Path

import pytest

from asz_core.reading.prose_audit import coverage

from cli_helpers import asz_in_process
from reading_helpers import keyed_print, planted_root

SPOTTER = "claude-code/projects/-home-user-spotter/55604662-cf2a-4331-851a-ec234028f8ca.jsonl"
SID = "55604662"


def pem(seed: str) -> str:
    """A PEM RSA private key of 8 base64 lines of 64 characters made from ``seed``."""
    body = base64.b64encode(b"".join(hashlib.sha512(f"{seed}{i}".encode()).digest() for i in range(6))).decode()
    return "-----BEGIN RSA PRIVATE KEY-----\n" + "\n".join(body[i:i + 64] for i in range(0, 512, 64)) + \
        "\n-----END RSA PRIVATE KEY-----"


KEY_A, KEY_B = pem("small26-a"), pem("small26-b")


def fingerprint(key: str) -> str:
    """What a PEM key is told apart by: the first 12 hex digits of the SHA-256 of its lines without line breaks."""
    return hashlib.sha256("".join(key.split()).encode()).hexdigest()[:12]


A, B = fingerprint(KEY_A), fingerprint(KEY_B)
COMMAND = f"cat > /tmp/k.pem <<'EOF'\n{KEY_A}\nEOF\nchmod 600 /tmp/k.pem"


def _plant(lines: list[dict]) -> None:
    lines[3]["message"]["content"] = f"Deploy with this key:\n{KEY_A}\nthanks"
    lines[7]["message"]["content"][0]["input"]["command"] = COMMAND
    lines[10]["message"]["content"][0]["content"] = f"the old key was\n{KEY_B}\nend"
    # a result the audit leaves out: the corpus's two results here are refusals (is_error), whose planted text is no
    # refusal, and a failed call's error text is written (render 11, tests/reading/test_text_failures.py)
    lines[10]["message"]["content"][0]["is_error"] = False


@pytest.fixture(scope="module")
def planted(tmp_path_factory, corpus_dir) -> Path:
    return planted_root(corpus_dir, tmp_path_factory.mktemp("credential-counts"), SPOTTER, _plant)


def _export(root: Path, *args: str):
    p = asz_in_process("export", SID, *args, "--root", str(root))
    assert p.returncode == 0, p.stdout + p.stderr
    return p


def test_the_premise():
    assert A != B and KEY_A.splitlines()[0] == KEY_B.splitlines()[0]  # two keys, one first line
    line = "Bash: " + " ".join(COMMAND.split())
    start = line.index("-----BEGIN")
    assert start + len(KEY_A.splitlines()[0]) < 199 < start + len(" ".join(KEY_A.split()))  # the cut is in A's body


def test_secrets_tells_two_keys_of_one_type_apart(planted):
    p = asz_in_process("secrets", "--json", "--root", str(planted))
    assert p.returncode == 1, p.stdout + p.stderr
    found = json.loads(p.stdout)
    a, b = keyed_print(planted, A), keyed_print(planted, B)  # keyed by the root's key (trial 37a F1)
    assert sorted((f["kind"], f["fingerprint"]) for f in found) == sorted(
        [("prompt", a), ("tool_input", a), ("tool_result", b)])
    assert {f["masked"] for f in found} == {"-----BEGIN RSA PRIVATE KEY-----"}  # no key material
    text = asz_in_process("secrets", "--root", str(planted)).stdout
    assert text.splitlines()[-1] == "3 place(s) of 2 credential(s) in 1 conversation(s)"  # was: of 1 credential(s)


@pytest.mark.parametrize("fmt", ["md", "html", "json"])
def test_every_format_counts_three_places_of_two_keys(planted, fmt):
    """The prompt, the Bash input and the tool result: 3 places; keys A and B: 2 credentials. json counted the talk's
    label, the prompt's text again, as a fourth place."""
    masked = _export(planted, "--format", fmt, "--redact")
    assert "asz export: --redact masked 3 place(s) of 2 credential(s)" in masked.stderr.splitlines()
    given = _export(planted, "--format", fmt)  # md and html mask by default (trial 34c F8), json writes them whole
    assert ("asz export: note: 3 place(s) of 2 credential(s) of a known form written whole (asz secrets lists them); "
            "--redact masks them" if fmt == "json" else "asz export: md and html mask credentials by default: masked 3 "
            "place(s) of 2 credential(s) (--no-redact keeps them whole)") in given.stderr.splitlines()
    whole = _export(planted, "--format", fmt, "--no-redact")
    assert ("asz export: --no-redact: 3 place(s) of 2 credential(s) of a known form written whole (asz secrets lists "
            "them)") in whole.stderr.splitlines()


def test_the_manifest_names_each_key_by_its_own_fingerprint(planted, tmp_path):
    """Each mask of the copy (the title and the talk heading hold the prompt's, masked as every title is) names the
    key it stands for: A in the title, the heading, the prompt and the Bash call, B in the result (all were A's)."""
    out = tmp_path / "c.md"
    _export(planted, "--format", "md", "--redact", "--out", str(out))
    body = json.loads((tmp_path / "c.md.manifest.json").read_text())
    copy = out.read_text()
    assert body["masked"] == {"places": copy.count("[private key left out]"), "credentials": 2}  # was: of 1
    text = copy.splitlines()
    placed = [(m["fingerprint"], text[m["line"] - 1]) for m in body["masks"]]
    a, b = keyed_print(planted, A), keyed_print(planted, B)  # keyed by the root's (trial 37a F1)
    assert [f for f, _ in placed] == [a] * 4 + [b]  # in the copy's order; B last, the result's
    assert placed[0][1].startswith("# Deploy with this key:") and text[body["masks"][4]["line"] - 2] == "the old key was"
    checked = asz_in_process("verify", "--export", str(out), "--root", str(planted))
    assert checked.returncode == 0, checked.stdout + checked.stderr


def test_the_audit_counts_a_key_its_cut_goes_through_once(planted):
    """Written: the prompt's A and the Bash line's A (masked whole then cut, or cut as it is through A's base64):
    2 places of 1 credential, masked or not; left out: B in the tool result. --no-redact counted 2 credentials (A
    and a piece of A)."""
    want = {"written": {"places": 2, "credentials": 1}, "left_out": {"places": 1, "credentials": 1, "not_written": 1}}
    for args, masked in ((("--audit",), True), (("--audit", "--no-redact"), False)):
        p = _export(planted, *args)
        head = json.loads(p.stdout.splitlines()[0])
        assert head["credentials"] == {"masked": masked, **want, **coverage()}, args
        bash = next(json.loads(ln) for ln in p.stdout.splitlines() if '"tool":"Bash"' in ln)
        assert (bash["text"].endswith("…"), "[private key left out]" in bash["text"]) == (not masked, masked)
    assert ("asz export: --no-redact: 2 place(s) of 1 credential(s) of a known form written whole (asz secrets lists "
            "them); 1 more credential(s) stood only in parts the audit leaves out") in p.stderr


def test_the_brief_form_counts_a_key_its_gist_cut_goes_through_once(planted):
    """--brief writes the prompt (A) and the Bash call's one-line gist, cut at 120 characters through A's base64 when
    written whole: 2 places of 1 credential either way (written whole it counted a piece of A as a second)."""
    assert 25 + 31 < 119 < 25 + len(" ".join(KEY_A.split()))  # "cat > /tmp/k.pem <<'EOF' " then A: cut in its body
    whole = _export(planted, "--brief", "--no-redact")  # md masks by default (trial 34c F8)
    assert ("asz export: --no-redact: 2 place(s) of 1 credential(s) of a known form written whole (asz secrets lists "
            "them)") in whole.stderr.splitlines()
    assert "asz export: --redact masked 2 place(s) of 1 credential(s)" in _export(planted, "--brief", "--redact").stderr
