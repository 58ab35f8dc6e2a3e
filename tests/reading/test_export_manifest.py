"""A masked export an outside party can check (trial 25b F5): ``asz export --redact --out FILE`` writes
``FILE.manifest.json`` beside the copy, and ``asz verify --export FILE`` checks the copy against it alone, and with
``--root`` against the landed files (docs/verify.md, "A masked export").

A real transcript of the shared corpus (the spotter session) gets documented example credentials planted in its
prompt and in a tool result; the counts below come from the planted values and the unmasked export's bytes."""

from __future__ import annotations

import hashlib
import hmac
import json
from collections import Counter
from pathlib import Path

import pytest

from cli_helpers import asz_in_process
from reading_helpers import planted_root

AWS = "AKIAIOSFODNN7EXAMPLE"  # AWS IAM user guide's examples
SECRET = "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY"
JWT = ("eyJ0eXAiOiJKV1QiLA0KICJhbGciOiJIUzI1NiJ9.eyJpc3MiOiJqb2UiLA0KICJleHAiOjEzMDA4MTkzODAsDQogImh0dHA6Ly9leGFtc"
       "GxlLmNvbS9pc19yb290Ijp0cnVlfQ.dBjftJeZ4CVP-mB92K27uhbUJU1p1r_wW1gFWFOEjXk")  # RFC 7519 §3.1
GITHUB = "ghp_" + "R8vQ2xLm" * 4 + "Zt7K"
PEM_BEGIN, PEM_END = "-----BEGIN RSA PRIVATE KEY-----", "-----END RSA PRIVATE KEY-----"
PEM = f"{PEM_BEGIN}\nMIIEowIBAAKCAQEAu1SU1LfVLPHCozMxH2Mo4lgOEePzNm0tRgeLezV6ffAt0gun\nVTLw7onLRnrq0/IzW7yWR7QkrmBL7jTK\n{PEM_END}"
SPOTTER = "claude-code/projects/-home-user-spotter/55604662-cf2a-4331-851a-ec234028f8ca.jsonl"
CID = "55604662-cf2a-4331-851a-ec234028f8ca"
#: Each planted value and the form asz secrets names it by.
PLANTED = {AWS: "aws-access-key-id", SECRET: "aws-secret-access-key", GITHUB: "github-token", JWT: "jwt",
           PEM_BEGIN: "private-key"}


def _plant(lines: list[dict]) -> None:
    """The AWS key id and secret in the prompt (line 4); the GitHub token, a whole PEM key and the JSON Web Token in
    a tool result (line 11)."""
    lines[3]["message"]["content"] = PROMPT
    lines[10]["message"]["content"][0]["content"] = (
        RESULT)


@pytest.fixture(scope="module")
def leaky(tmp_path_factory, corpus_dir) -> Path:
    return planted_root(corpus_dir, tmp_path_factory.mktemp("manifest"), SPOTTER, _plant)


def _export(root: Path, out: Path, fmt: str, *more: str):
    p = asz_in_process("export", CID, "--format", fmt, "--out", str(out), "--root", str(root), *more)
    assert p.returncode == 0, p.stdout + p.stderr
    return p


def _verify(copy: Path, *more: str):
    return asz_in_process("verify", "--export", str(copy), *more)


#: What stands in each planted value's place (its first and last 4 characters; a PEM key's first line then a note).
SHOWN = {AWS: "AKIA…MPLE", SECRET: "wJal…EKEY", GITHUB: "ghp_…Zt7K", JWT: "eyJ0…EjXk",
         PEM_BEGIN: PEM_BEGIN + "[private key left out]"}
#: The two texts planted, as landed: the prompt and the tool result.
PROMPT = f"mix phx.server doesnt start; AWS_ACCESS_KEY_ID={AWS} AWS_SECRET_ACCESS_KEY={SECRET} set"
RESULT = f"GITHUB_TOKEN={GITHUB}\n{PEM}\ncurl -H 'Authorization: Bearer {JWT}'\nall done"


def _places(unmasked: str) -> Counter:
    """The masks a masked copy holds, by form: each planted value's places in the unmasked export, and the places
    where it stands masked there already (titles and headings, masked in every export)."""
    return Counter({PLANTED[v]: unmasked.count(v) + unmasked.count(SHOWN[v]) for v in PLANTED
                    if unmasked.count(v) + unmasked.count(SHOWN[v])})


@pytest.mark.parametrize("fmt", ["md", "html", "json"])
def test_the_manifest_lists_every_mask_and_the_copy_checks(leaky, tmp_path, fmt):
    whole = tmp_path / f"whole.{fmt}"
    _export(leaky, whole, fmt, "--no-redact")
    unmasked = whole.read_text(encoding="utf-8")
    places = _places(unmasked)
    assert sum(places.values()) >= 5 and set(places) == set(PLANTED.values())  # every planted form is written
    copy = tmp_path / f"c.{fmt}"
    p = _export(leaky, copy, fmt, "--redact")
    plain = json.loads((tmp_path / f"whole.{fmt}.manifest.json").read_bytes())  # unmasked: its manifest too (29a F6)
    assert plain["made"]["redact"] is False and plain["masks"] == [] and plain["export"]["sha256"] == \
        hashlib.sha256(whole.read_bytes()).hexdigest()
    assert _verify(whole, "--root", str(leaky)).returncode == 0
    path = tmp_path / f"c.{fmt}.manifest.json"
    raw = path.read_bytes()
    own = hashlib.sha256(raw).hexdigest()
    assert f"asz export: manifest {path} SHA-256 {own}\n" in p.stderr
    body = json.loads(raw)
    data = copy.read_bytes()
    assert body["schema"] == "asz.export-manifest/1"
    assert body["export"] == {"file": copy.name, "bytes": len(data), "sha256": hashlib.sha256(data).hexdigest(),
                              "lines": [hashlib.sha256(x).hexdigest()[:16] for x in data.split(b"\n")]}
    assert Counter(m["kind"] for m in body["masks"]) == places
    assert body["masked"] == {"places": sum(places.values()), "credentials": len(places)}
    key = bytes.fromhex((leaky / "_export" / "mask.key").read_text().strip())  # keyed by the root's key (trial 37a F1)
    texts = {hmac.new(key, b"text\0" + hashlib.sha256(t.encode()).hexdigest().encode(), hashlib.sha256).hexdigest()
             for t in (PROMPT, RESULT)}
    for m in body["masks"]:  # each credential was masked in a planted text (the prompt for the AWS pair)
        assert texts & set(m["texts_sha256"]), m
    lines = data.decode("utf-8").split("\n")
    for m in body["masks"]:  # each mask stands where the manifest says, and no planted value is left whole
        assert lines[m["line"] - 1][m["column"] - 1:].startswith(m["shown"])
        assert data[m["offset"]:m["offset"] + m["length"]] == m["shown"].encode()
    assert not [v for v in (AWS, SECRET, GITHUB, JWT, "MIIEow") if v in data.decode()]
    # the landed evidence: the head round and every landed file's digest, as the root's own files give them
    [conv] = body["conversations"]
    assert conv["conversation"] == CID and conv["state"] == "verified"
    for f in conv["files"]:
        assert f["digest"] == hashlib.sha256((leaky / f["file"]).read_bytes()).hexdigest()
    rounds = sorted((leaky / "_conversations" / CID / "rounds").glob("r*.sf"))
    assert conv["head"]["round"] == len(rounds) and rounds[-1].name.split("-")[1].startswith(conv["head"]["digest"][:12])

    alone = _verify(copy)
    assert alone.returncode == 0, alone.stdout + alone.stderr
    assert alone.stdout.splitlines()[-1] == "the copy checks against its manifest"
    assert f"the manifest's own SHA-256 is {own}" in alone.stdout
    assert _verify(copy, "--sha256", own).returncode == 0
    wrong = _verify(copy, "--sha256", "0" * 64)
    assert wrong.returncode == 1 and f"manifest: its SHA-256 is {own}, not the {'0' * 64} given" in wrong.stdout
    held = _verify(copy, "--root", str(leaky))
    assert held.returncode == 0, held.stdout + held.stderr
    assert held.stdout.splitlines()[-1] == "the copy checks against the root"
    assert f"each of the {sum(places.values())} mask(s) stands over a credential of its form" in held.stdout


def _changed(copy: Path, at: int, to: str) -> None:
    data = bytearray(copy.read_bytes())
    assert data[at:at + 1] != to.encode()
    data[at:at + 1] = to.encode()
    copy.write_bytes(bytes(data))


def test_a_character_changed_is_named_outside_or_inside_a_mask(leaky, tmp_path):
    copy = tmp_path / "c.md"
    _export(leaky, copy, "md", "--redact")
    body = json.loads((tmp_path / "c.md.manifest.json").read_bytes())
    data = copy.read_bytes()
    pristine = data
    # outside a mask: a letter of a line that holds none (the text the reply says)
    masked_lines = {m["line"] for m in body["masks"]}
    lines = data.split(b"\n")
    n = next(i for i, x in enumerate(lines) if i + 1 not in masked_lines and x.startswith(b"Let me check"))
    at = sum(len(x) + 1 for x in lines[:n]) + 10
    char = lines[n][10:11].decode()
    _changed(copy, at, "Q" if char != "Q" else "R")
    alone = _verify(copy)
    assert alone.returncode == 1
    assert f"c.md: line {n + 1}: changed since the manifest was written, outside any mask" in alone.stdout
    held = _verify(copy, "--root", str(leaky))
    assert held.returncode == 1
    assert f"c.md: line {n + 1} column 11: outside the masks: the copy's text is not the landed text" in held.stdout
    # inside a mask: the last character of the AWS key id's masked form
    copy.write_bytes(pristine)
    m = next(m for m in body["masks"] if m["kind"] == "aws-access-key-id")
    assert m["shown"] == "AKIA…MPLE"
    _changed(copy, m["offset"] + m["length"] - 1, "F")
    alone = _verify(copy)
    assert alone.returncode == 1
    said = f"mask {m['mask']} (aws-access-key-id, 'AKIA…MPLE' at line {m['line']} column {m['column']})"
    assert f"c.md: line {m['line']} column {m['column']}: inside {said}: the copy holds 'AKIA…MPLF' there" in alone.stdout
    held = _verify(copy, "--root", str(leaky))
    assert held.returncode == 1
    assert f"c.md: line {m['line']} column {m['column'] + 8}: inside {said}:" in held.stdout
    assert "is not the masking of the landed credential" in held.stdout
    # a mask set where the landed text holds no credential: the root's holder sees it is no credential's
    copy.write_bytes(pristine.replace(b"phx.server", b"AKIA\xe2\x80\xa6MPLE", 1))
    held = _verify(copy, "--root", str(leaky))
    assert held.returncode == 1 and "outside the masks" in held.stdout


def test_several_into_a_folder_get_one_manifest_each_and_the_audit_too(leaky, tmp_path):
    out = tmp_path / "dir"
    p = asz_in_process("export", "--project", "spotter", "--format", "html", "--redact", "--out", str(out),
                       "--root", str(leaky), "--tz", "Asia/Tokyo")  # times in Tokyo: the check writes them there too
    assert p.returncode == 0, p.stderr
    assert "2026-02-11 06:11:52" in (out / f"{CID}.html").read_text()  # 21:11:52 UTC, the transcript's first time
    assert json.loads((out / f"{CID}.html.manifest.json").read_bytes())["made"]["tz"] == "Asia/Tokyo"
    assert sorted(x.name for x in out.iterdir()) == sorted([f"{CID}.html", f"{CID}.html.manifest.json", "index.html",
                                                            "export.manifest.json"])
    held = _verify(out / f"{CID}.html", "--root", str(leaky))
    assert held.returncode == 0, held.stdout + held.stderr
    audit = tmp_path / "a.jsonl"
    p = asz_in_process("export", CID, "--audit", "--out", str(audit), "--root", str(leaky))
    assert p.returncode == 0, p.stderr
    body = json.loads((tmp_path / "a.jsonl.manifest.json").read_bytes())
    assert body["made"]["audit"] is True and {m["kind"] for m in body["masks"]} >= {"aws-access-key-id", "aws-secret-access-key"}
    held = _verify(audit, "--root", str(leaky))
    assert held.returncode == 0, held.stdout + held.stderr


def test_usage(leaky, tmp_path):
    p = asz_in_process("verify", "--sha256", "ab")
    assert p.returncode == 2 and "go with --export FILE" in p.stderr
    copy = tmp_path / "c.md"
    _export(leaky, copy, "md", "--no-redact")
    (tmp_path / "c.md.manifest.json").unlink()  # every file export has one (trial 29a F6): moved away here
    p = _verify(copy)
    assert p.returncode == 2 and f"no manifest at {tmp_path / 'c.md.manifest.json'}" in p.stderr
