"""``asz secrets``: credentials a conversation's records hold, found in the landed text and never printed whole.

The values are the documented examples of their forms: AWS's example access key id and secret access key (AWS IAM
user guide, "AKIAIOSFODNN7EXAMPLE", "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY") and RFC 7519's example JSON Web Token (section 3.1); a GitHub token is made of its documented
form (``ghp_`` and 36 letters or digits)."""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

import pytest

from asz_core.view.secret_forms import find, masked, shown_title

from cli_helpers import asz_in_process
from reading_helpers import keyed_print, planted_root

AWS = "AKIAIOSFODNN7EXAMPLE"
SECRET = "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY"
JWT = ("eyJ0eXAiOiJKV1QiLA0KICJhbGciOiJIUzI1NiJ9.eyJpc3MiOiJqb2UiLA0KICJleHAiOjEzMDA4MTkzODAsDQogImh0dHA6Ly9leGFtc"
       "GxlLmNvbS9pc19yb290Ijp0cnVlfQ.dBjftJeZ4CVP-mB92K27uhbUJU1p1r_wW1gFWFOEjXk")
GITHUB = "ghp_" + "R8vQ2xLm" * 4 + "Zt7K"
SPOTTER = "claude-code/projects/-home-user-spotter/55604662-cf2a-4331-851a-ec234028f8ca.jsonl"


@pytest.mark.parametrize("text,kinds", [
    (f"key {AWS} end", ["aws-access-key-id"]),
    (f"x{AWS}", []),  # inside a longer word: not an access key id
    (AWS[:-1], []),
    (f"Authorization: Bearer {JWT}", ["jwt"]),
    (f"GITHUB_TOKEN={GITHUB}\n", ["github-token"]),
    (GITHUB[:-1], []),  # 35 after the prefix
    ("-----BEGIN OPENSSH PRIVATE KEY-----\nb3BlbnNzaC1rZXktdjEAAAAA", ["private-key"]),
    ("-----BEGIN PUBLIC KEY-----", []),
    ("AIza" + "B" * 35, ["google-api-key"]),
    ("AIza" + "B" * 36, []),
    ("the word skeleton, a sk-learn model, high ghosts", []),
    # an AWS secret access key: 40 characters of base64 beside one of its names, or after an access key id (trial 21)
    (f"aws_secret_access_key = {SECRET}\n", ["aws-secret-access-key"]),
    (f"export AWS_SECRET_ACCESS_KEY={SECRET}", ["aws-secret-access-key"]),
    (f'{{"AccessKeyId": "{AWS}", "SecretAccessKey": "{SECRET}"}}', ["aws-access-key-id", "aws-secret-access-key"]),
    (f"secretAccessKey: '{SECRET}'", ["aws-secret-access-key"]),
    (f"my key is {AWS} and secret {SECRET}; also", ["aws-access-key-id", "aws-secret-access-key"]),
    (f"{AWS},{SECRET}\n", ["aws-access-key-id", "aws-secret-access-key"]),  # the access keys' CSV file
    (SECRET, []),  # no name, no key id: 40 characters of base64 alone are no credential of a known form
    (f"commit {SECRET}", []),
    # 41 and 39 characters: no AWS key, nor a password's value (AWS's documented example says EXAMPLE: a stand-in)
    (f"aws_secret_access_key = {SECRET}A", []),
    (f"aws_secret_access_key = {SECRET[:-1]}", []),
    (f"aws_secret_access_key = {SECRET[:-8]}Zq9kLm2vT", ["password"]),  # 41 of no example: a value given to a secret
    # a hex digest (no upper-case letter): no AWS key, but a value given to a name holding "secret" (trial 42a F2: the
    # password form reads the word anywhere in the name)
    ("aws_secret_access_key = " + "x" * 40, []),  # a placeholder: one case, no entropy, no digit
    ("secret_access_key: 3f786850e387550fdab836ed7e6dc881de23001b", ["password"]),
    ("aws_secret_access_key = ${AWS_SECRET_ACCESS_KEY:-unset}", []),
])
def test_the_forms_found(text, kinds):
    assert [k for k, _, _ in find(text)] == kinds


def test_a_value_is_never_shown_whole():
    assert masked(AWS) == "AKIA…MPLE"
    assert masked("-----BEGIN RSA PRIVATE KEY-----") == "-----BEGIN RSA PRIVATE KEY-----"


def _plant(lines: list[dict]) -> None:
    """The 15-line spotter transcript with the AWS access key id and secret access key in its prompt (line 4) and the
    GitHub token, a PEM header, the JSON Web Token and the AWS keys again in a tool result (line 11)."""
    lines[3]["message"]["content"] = f"mix phx.server doesnt start; AWS_ACCESS_KEY_ID={AWS} AWS_SECRET_ACCESS_KEY={SECRET} set"
    lines[10]["message"]["content"][0]["content"] = (
        f"GITHUB_TOKEN={GITHUB}\n-----BEGIN RSA PRIVATE KEY-----\nMIIEow\ncurl -H 'Authorization: Bearer {JWT}'\n"
        f"aws configure: {AWS}\n"
        f'aws iam create-access-key: {{"AccessKeyId": "{AWS}", "SecretAccessKey": "{SECRET}"}}')
    # a result the audit leaves out: the corpus's two results here are refusals (is_error), whose planted text is no
    # refusal, and a failed call's error text is written (render 11, tests/reading/test_text_failures.py)
    lines[10]["message"]["content"][0]["is_error"] = False


@pytest.fixture(scope="module")
def leaky(tmp_path_factory, corpus_dir) -> Path:
    """A root collected from the spotter transcript as :func:`_plant` leaves it."""
    return planted_root(corpus_dir, tmp_path_factory.mktemp("leaky"), SPOTTER, _plant)


def test_every_place_is_named_with_the_landed_record_that_holds_it(leaky):
    root = leaky
    p = asz_in_process("secrets", "--json", "--root", str(root))
    assert p.returncode == 1, p.stdout + p.stderr  # something found
    found = json.loads(p.stdout)
    assert sorted((f["secret"], f["kind"]) for f in found) == [
        ("aws-access-key-id", "prompt"), ("aws-access-key-id", "tool_result"), ("aws-secret-access-key", "prompt"),
        ("aws-secret-access-key", "tool_result"), ("github-token", "tool_result"), ("jwt", "tool_result"),
        ("private-key", "tool_result")]
    aws = [f for f in found if f["secret"] == "aws-access-key-id"]
    assert {f["fingerprint"] for f in aws} == {keyed_print(root, hashlib.sha256(AWS.encode()).hexdigest()[:12])}
    assert {f["masked"] for f in aws} == {"AKIA…MPLE"}
    secret = [f for f in found if f["secret"] == "aws-secret-access-key"]
    assert {(f["masked"], f["fingerprint"]) for f in secret} == {("wJal…EKEY", keyed_print(root, hashlib.sha256(SECRET.encode()).hexdigest()[:12]))}
    for f in found:  # the file and row name the landed record the credential is in (line 0 is the header)
        record = (root / f["file"]).read_bytes().split(b"\n")[f["row"]]
        assert f["conversation"] == "55604662-cf2a-4331-851a-ec234028f8ca"
        value = {"aws-access-key-id": AWS, "aws-secret-access-key": SECRET, "github-token": GITHUB, "jwt": JWT,
                 "private-key": "PRIVATE KEY"}[f["secret"]]
        assert value.encode() in record
    text = asz_in_process("secrets", "--root", str(root), "--tz", "UTC")
    assert text.returncode == 1
    assert not [v for v in (AWS, SECRET, GITHUB, JWT) if v in text.stdout]  # the title (the prompt) masked too
    # the prompt holds 2, the result 6: its access key id twice, two places as the exports mask it (trial 44c F8)
    assert [f["places"] for f in aws if f["kind"] == "tool_result"] == [2]
    assert text.stdout.splitlines()[-1] == "8 place(s) of 5 credential(s) in 1 conversation(s)"
    kept = asz_in_process("secrets", "--root", str(root), "--project", "SPOTTER")  # its project, any case: found
    assert kept.returncode == 1 and kept.stdout.splitlines()[-1] == "8 place(s) of 5 credential(s) in 1 conversation(s)"
    none = asz_in_process("secrets", "--root", str(root), "--project", "elsewhere")  # scanned nothing: never clean
    assert none.returncode == 1 and none.stdout == "" and "no conversation matched --project elsewhere" in none.stderr


def test_the_corpus_holds_none(corpus_copy):
    """The shared corpus's real transcripts (8 MB of prompts, code, shell output) give no finding: no false alarm."""
    root = corpus_copy()
    p = asz_in_process("secrets", "--root", str(root))
    assert p.returncode == 0, p.stdout + p.stderr
    assert p.stdout.strip().splitlines()[-1] == "no credential of a known form found"


@pytest.mark.parametrize("args", [("--format", "md"), ("--format", "html"), ("--format", "json"),
                                  ("--format", "prose"), ("--audit",)])
def test_an_export_with_redact_holds_no_credential(leaky, args):
    """Without --redact the export holds the values it shows (every format shows the prompt's AWS keys; md, html and
    json the tool result's too, the secret access key inside JSON that html and json escape); with it none, in every
    format. The title is masked with or without --redact (it is the prompt): only the texts' places are counted."""
    whole = "--audit" in args or args[-1] in ("md", "html")  # masked by default: trial 22a F3, trial 34c F8
    plain = asz_in_process("export", "55604662", *args, *(("--no-redact",) if whole else ()), "--root", str(leaky))
    assert plain.returncode == 0, plain.stderr
    shown = [v for v in (AWS, SECRET, GITHUB, JWT, "MIIEow") if v in plain.stdout]
    assert shown == ([AWS, SECRET] if args[-1] in ("prose", "--audit") else [AWS, SECRET, GITHUB, JWT, "MIIEow"])
    p = asz_in_process("export", "55604662", *args, "--redact", "--root", str(leaky))
    assert p.returncode == 0, p.stderr
    for value in (AWS, SECRET, GITHUB, JWT, "MIIEow"):
        assert value not in p.stdout, value
    assert "AKIA…MPLE" in p.stdout and "wJal…EKEY" in p.stdout
    assert "[private key left out]" in p.stdout or "MIIEow" not in plain.stdout
    if args[-1] == "json":  # its talk's label holds the prompt again: one place, counted as md counts it (small26)
        plain = asz_in_process("export", "55604662", "--format", "md", "--no-redact", "--root", str(leaky))
    places = sum(plain.stdout.count(v) for v in (AWS, SECRET, GITHUB, JWT, "-----BEGIN RSA PRIVATE KEY-----"))
    assert f"asz export: --redact masked {places} place(s) of {len(shown)} credential(s)" in p.stderr


@pytest.mark.parametrize("fmt", ["html", "md", "json"])
def test_the_index_page_of_several_is_redacted_too(leaky, tmp_path, fmt):
    """A folder export of several (docs/reading.md: "on the index page of several"): no page holds a value whole,
    the AWS secret access key of the tool result's JSON (escaped in html and json) included."""
    out = tmp_path / "out"
    p = asz_in_process("export", "--project", "spotter", "--format", fmt, "--redact", "--out", str(out),
                       "--root", str(leaky))
    assert p.returncode == 0, p.stderr
    pages = {f.name: f.read_text() for f in out.iterdir()}
    assert sorted(pages) == [f"55604662-cf2a-4331-851a-ec234028f8ca.{fmt}",  # and its manifest (docs/verify.md)
                             f"55604662-cf2a-4331-851a-ec234028f8ca.{fmt}.manifest.json",
                             "export.manifest.json", f"index.{fmt}"]  # and the folder's (trial 31b F2), held to the same test
    assert not [v for v in (AWS, SECRET, GITHUB, JWT) for text in pages.values() if v in text]
    assert "AKIA…MPLE" in pages[f"index.{fmt}"]
    assert "wJal…EKEY" in pages[f"55604662-cf2a-4331-851a-ec234028f8ca.{fmt}"]


def test_the_audit_form_masks_credentials_by_default(leaky):
    """Trial 22a, F3: ``--audit`` is a file for a model: masked without ``--redact``, stderr counts them and names
    ``--no-redact``, which keeps them whole and counts those written whole; plain prose writes them whole and counts
    them in a note naming --redact (trial 24b F7)."""
    whole = asz_in_process("export", "55604662", "--audit", "--no-redact", "--root", str(leaky))
    places = sum(whole.stdout.count(v) for v in (AWS, SECRET))
    assert places == 2 and not [v for v in (GITHUB, JWT) if v in whole.stdout]  # the prompt's pair; results not carried
    assert f"asz export: --no-redact: {places} place(s) of 2 credential(s) of a known form written whole" in whole.stderr
    p = asz_in_process("export", "55604662", "--audit", "--root", str(leaky))
    assert p.returncode == 0, p.stderr
    assert AWS not in p.stdout and SECRET not in p.stdout and "AKIA…MPLE" in p.stdout and "wJal…EKEY" in p.stdout
    assert (f"asz export: --audit masked {places} place(s) of 2 credential(s) (the audit form masks them by default; "
            "--no-redact keeps them whole)") in p.stderr
    assert p.stdout == asz_in_process("export", "55604662", "--audit", "--redact", "--root", str(leaky)).stdout
    plain = asz_in_process("export", "55604662", "--format", "prose", "--root", str(leaky))
    assert AWS in plain.stdout and "masked" not in plain.stderr  # plain prose is not masked: counted (trial 24b F7)
    assert ("asz export: note: 2 place(s) of 2 credential(s) of a known form written whole (asz secrets lists them); "
            "--redact masks them") in plain.stderr
