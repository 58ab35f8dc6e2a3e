"""A masked export of several conversations into one stream file (``--out FILE.md`` / ``FILE.jsonl``) gets one manifest
for the whole file (trial 26b F5: it had none, the README promised one beside every masked copy written to a file, and
``asz verify --export FILE`` exited 2); ``asz verify --export FILE`` checks it alone and with ``--root`` against the
landed files. A masked stream on stdout still has none, and stderr says so (recheck 25 N2).

Real input: two transcripts of the shared corpus (the spotter and claude-reliability sessions) with documented example
credentials planted in their first prompts (one GitHub token in both), collected by the real ``asz collect``; the
counts below come from the planted values and the unmasked stream's bytes."""

from __future__ import annotations

import hashlib
import json
import os
import stat
from pathlib import Path

import pytest

from cli_helpers import asz_in_process as asz
from reading_helpers import planted_root

AWS = "AKIAIOSFODNN7EXAMPLE"  # AWS IAM user guide's example
GITHUB = "ghp_" + "R8vQ2xLm" * 4 + "Zt7K"
JWT = ("eyJ0eXAiOiJKV1QiLA0KICJhbGciOiJIUzI1NiJ9.eyJpc3MiOiJqb2UiLA0KICJleHAiOjEzMDA4MTkzODAsDQogImh0dHA6Ly9leGFtc"
       "GxlLmNvbS9pc19yb290Ijp0cnVlfQ.dBjftJeZ4CVP-mB92K27uhbUJU1p1r_wW1gFWFOEjXk")  # RFC 7519 §3.1
#: transcript (relative to the corpus) -> what is added to its first prompt
PLANTED = {
    "claude-code/projects/-home-user-spotter/55604662-cf2a-4331-851a-ec234028f8ca.jsonl":
        f" (AWS_ACCESS_KEY_ID={AWS} GITHUB_TOKEN={GITHUB})",
    "claude-code/projects/-home-user-claude-reliability/de3b8b19-5bc0-4a2a-934a-1b6806567e25.jsonl":
        f" (GITHUB_TOKEN={GITHUB}; curl -H 'Authorization: Bearer {JWT}')",
}
IDS = {Path(t).stem for t in PLANTED}
#: What stands in each planted value's place in a masked copy (its first and last 4 characters).
SHOWN = {AWS: "AKIA…MPLE", GITHUB: "ghp_…Zt7K", JWT: "eyJ0…EjXk"}


def _planting(added: str):
    """What adds ``added`` to a transcript's first prompt (its first user line whose content is a string)."""
    def plant(lines: list[dict]) -> None:
        first = next(o for o in lines if o.get("type") == "user" and isinstance(o["message"]["content"], str))
        first["message"]["content"] += added
    return plant


@pytest.fixture(scope="module")
def two(tmp_path_factory, corpus_dir) -> Path:
    """A root holding the two planted conversations, collected and parsed by the real ``asz collect --once``."""
    return planted_root(corpus_dir, tmp_path_factory.mktemp("stream-manifest"),
                        {t: _planting(added) for t, added in PLANTED.items()})


def _places(unmasked: str) -> int:
    """The masks a masked copy of ``unmasked`` (the same stream written whole) holds: each planted value's places,
    and the places where it stands masked already (a title is masked in every export)."""
    return sum(unmasked.count(v) + unmasked.count(SHOWN[v]) for v in SHOWN)


@pytest.mark.parametrize("form", [("--format", "md"), ("--audit",)])
def test_a_masked_stream_file_gets_one_manifest_that_checks(two, tmp_path, form):
    suffix = "md" if "md" in form else "jsonl"
    whole = tmp_path / f"whole.{suffix}"
    p = asz("export", "--since", "2000-01-01", *form, "--no-redact", "--out", whole, "--root", two)
    assert p.returncode == 0, p.stderr
    unmasked = whole.read_text(encoding="utf-8")
    assert all(unmasked.count(v) for v in SHOWN)  # every planted credential is in the stream, written whole
    copy = tmp_path / f"day.{suffix}"
    p = asz("export", "--since", "2000-01-01", *form, "--redact", "--out", copy, "--root", two)
    assert p.returncode == 0, p.stderr
    manifest = copy.with_name(copy.name + ".manifest.json")
    assert manifest.is_file() and "no manifest" not in p.stderr
    raw = manifest.read_bytes()
    assert f"asz export: manifest {manifest} SHA-256 {hashlib.sha256(raw).hexdigest()}" in p.stderr
    body = json.loads(raw)
    data = copy.read_bytes()
    assert body["export"]["sha256"] == hashlib.sha256(data).hexdigest() and body["export"]["bytes"] == len(data)
    assert {c["conversation"] for c in body["conversations"]} == IDS and len(body["conversations"]) == 2
    text = data.decode("utf-8")
    firsts = sorted(body["conversations"], key=lambda c: text.index(c["conversation"]))
    assert firsts == body["conversations"]  # listed in the stream's order
    assert body["made"]["stream"] is True and body["masked"]["places"] == len(body["masks"]) == _places(unmasked)
    assert {m["kind"] for m in body["masks"]} == {"aws-access-key-id", "github-token", "jwt"}
    assert len({m["fingerprint"] for m in body["masks"] if m["kind"] == "github-token"}) == 1  # one token, both conversations
    assert not any(v in text for v in SHOWN) and body["masked"]["credentials"] == 3
    lines = data.split(b"\n")
    for m in body["masks"]:  # each mask stands where the manifest says
        assert lines[m["line"] - 1].decode("utf-8")[m["column"] - 1:].startswith(m["shown"])
        assert data[m["offset"]:m["offset"] + m["length"]].decode("utf-8") == m["shown"]
    alone = asz("verify", "--export", copy, "--sha256", hashlib.sha256(raw).hexdigest())
    assert alone.returncode == 0 and alone.stdout.splitlines()[-1] == "the copy checks against its manifest", alone.stdout
    rooted = asz("verify", "--export", copy, "--root", two)
    assert rooted.returncode == 0, rooted.stdout + rooted.stderr
    assert rooted.stdout.splitlines()[-1] == "the copy checks against the root"
    assert sum(ln.startswith("ok: ") and "landed file(s) are the manifest's, and verify" in ln
               for ln in rooted.stdout.splitlines()) == 2


def test_a_change_in_the_second_conversation_of_a_stream_is_named(two, tmp_path):
    copy = tmp_path / "day.md"
    assert asz("export", "--since", "2000-01-01", "--redact", "--out", copy, "--root", two).returncode == 0
    body = json.loads(copy.with_name("day.md.manifest.json").read_bytes())
    last = max(body["masks"], key=lambda m: m["offset"])  # in the stream's second conversation
    second = body["conversations"][1]["conversation"]
    assert copy.read_text(encoding="utf-8").index(second) < last["offset"]
    data = bytearray(copy.read_bytes())
    data[last["offset"] + last["length"] - 1] ^= 1  # the mask's last character
    os.chmod(copy, stat.S_IRUSR | stat.S_IWUSR)
    copy.write_bytes(bytes(data))
    for more in ((), ("--root", two)):
        p = asz("verify", "--export", copy, *more)
        assert p.returncode == 1, p.stdout
        assert f"day.md: line {last['line']} column {last['column']}: inside mask {last['mask']} ({last['kind']}" in p.stdout


def test_a_masked_stream_on_stdout_says_it_has_no_manifest(two, tmp_path):
    p = asz("export", "--since", "2000-01-01", "--audit", "--root", two, cwd=tmp_path)
    assert p.returncode == 0 and not list(tmp_path.glob("*.manifest.json"))
    assert "asz export: note: no manifest for stdout: a masked copy written to stdout has none" in p.stderr
    folder = tmp_path / "each"
    each = asz("export", "--since", "2000-01-01", "--audit", "--out", str(folder) + "/", "--root", two)
    written = sorted(p.name for p in folder.iterdir() if p.suffix == ".jsonl")
    assert written == sorted(f"{c}.jsonl" for c in IDS)
    assert sorted(p.name for p in folder.glob("*.manifest.json")) == sorted(
        [f"{w}.manifest.json" for w in written] + ["export.manifest.json"])  # the folder's own too (trial 31b F2)
    assert "no manifest" not in each.stderr
    plain = asz("export", "--since", "2000-01-01", "--audit", "--no-redact", "--out", tmp_path / "plain.jsonl", "--root", two)
    assert "no manifest" not in plain.stderr  # unmasked, its manifest too (trial 29a F6), with no mask
    assert json.loads((tmp_path / "plain.jsonl.manifest.json").read_bytes())["masks"] == []
