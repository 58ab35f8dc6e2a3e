"""No offline oracle in a shared export (trial 37a F1; docs/verify.md, "A masked export"; docs/security.md).

A masked copy's manifest gave each mask the first 12 hex digits of the credential's own SHA-256 (``fingerprint``)
and the SHA-256 of each unmasked text it sat in (``texts_sha256``): the trial's crack.py found the password a person
chose behind ``***`` with 75 guesses. Both are now HMAC-SHA256 under the root's ``_export/mask.key``, which no export
holds.

Real input: the spotter transcript of the shared corpus with a named password (and a GitHub token) planted in its
prompt and in a tool result. The crack below is the trial's: its 75 guesses include the password; each guess's
SHA-256, and the SHA-256 of each planted text with the guess in the password's place, are looked for in every file of
an md folder, an html folder and an ``--audit`` export."""

from __future__ import annotations

import hashlib
import hmac
import itertools
import json
import re
import shutil
from pathlib import Path

import pytest

from cli_helpers import asz_in_process
from reading_helpers import planted_root

SPOTTER = "claude-code/projects/-home-user-spotter/55604662-cf2a-4331-851a-ec234028f8ca.jsonl"
CID = "55604662-cf2a-4331-851a-ec234028f8ca"
PW = "hunter2-Trial37a-Pa55"  # trial 37a's planted password
GITHUB = "ghp_" + "Tr1al37aFakeGitHubTokenAbCdEfGhIjKlMn"[:36]
PROMPT = f"mix phx.server doesnt start; db password: {PW} and GITHUB_TOKEN={GITHUB}"
RESULT = f"connected with password: {PW}\nall done"
#: trial 37a's crack.py guesses: 75, the password among them
GUESSES = [w + a + s for w, a, s in itertools.product(['hunter', 'hunter2', 'Hunter2', 'letmein', 'Summer'],
                                                       ['', '-Trial37a', 'Trial37a'], ['', '-Pa55', '!', '123', 'Pa55'])]


def _plant(lines: list[dict]) -> None:
    lines[3]["message"]["content"] = PROMPT
    lines[10]["message"]["content"][0]["content"] = RESULT


@pytest.fixture(scope="module")
def leaky(tmp_path_factory, corpus_dir) -> Path:
    return planted_root(corpus_dir, tmp_path_factory.mktemp("keyed"), SPOTTER, _plant)


@pytest.fixture(scope="module")
def exported(leaky, tmp_path_factory) -> dict[str, Path]:
    """An md folder, an html folder (each with its index and folder manifest) and an --audit file, with manifests."""
    base = tmp_path_factory.mktemp("shared")
    out = {"md": base / "md", "html": base / "html", "audit": base / "a.audit.jsonl"}
    for fmt in ("md", "html"):
        p = asz_in_process("export", "--project", "spotter", "--format", fmt, "--out", f"{out[fmt]}/", "--root", str(leaky))
        assert p.returncode == 0, p.stdout + p.stderr
    p = asz_in_process("export", CID, "--audit", "--out", str(out["audit"]), "--root", str(leaky))
    assert p.returncode == 0, p.stdout + p.stderr
    return out


def _files(where: Path) -> list[Path]:
    return sorted(where.rglob("*") if where.is_dir() else where.parent.glob(where.name + "*"))


def _oracles(guess: str) -> set[str]:
    """What an unkeyed digest of ``guess`` would show: its SHA-256, and that of each planted text holding it."""
    return {hashlib.sha256(t.encode()).hexdigest() for t in (guess, PROMPT.replace(PW, guess), RESULT.replace(PW, guess))}


def test_the_crack_finds_nothing_in_any_file_of_the_exports(exported):
    hexes = set()
    files = [f for where in exported.values() for f in _files(where) if f.is_file()]
    assert {f.name for f in files} >= {f"{CID}.md", f"{CID}.md.manifest.json", f"{CID}.html.manifest.json",
                                       "index.md", "index.html", "export.manifest.json", "a.audit.jsonl.manifest.json"}
    for f in files:
        text = f.read_text(encoding="utf-8")
        assert PW not in text and GITHUB not in text, f  # masked everywhere
        hexes |= set(re.findall(r"[0-9a-f]{12,}", text))
    assert PW in GUESSES and len(GUESSES) == 75
    found = [g for g in GUESSES for o in _oracles(g) for h in hexes if h.startswith(o[:12]) or o.startswith(h)]
    assert found == []
    manifest = json.loads((exported["md"] / f"{CID}.md.manifest.json").read_text())
    assert {m["kind"] for m in manifest["masks"]} >= {"password", "github-token"}


def test_the_digests_are_keyed_by_the_root_key(leaky, exported):
    """Each mask's fingerprint is HMAC-SHA256(key, 'credential\\0' + the credential's unkeyed fingerprint), each text
    digest HMAC-SHA256(key, 'text\\0' + the text's SHA-256), the key the root's own file; the manifest names it."""
    key = bytes.fromhex((leaky / "_export" / "mask.key").read_text().strip())
    assert len(key) == 32 and (leaky / "_export" / "mask.key").stat().st_mode & 0o077 == 0
    body = json.loads((exported["md"] / f"{CID}.md.manifest.json").read_text())
    assert body["mask_digests"] == {"mac": "hmac-sha256", "key": hashlib.sha256(b"asz mask key\0" + key).hexdigest()[:16]}

    def mark(value: str) -> str:
        fp = hashlib.sha256(value.encode()).hexdigest()[:12]
        return hmac.new(key, b"credential\0" + fp.encode(), hashlib.sha256).hexdigest()[:12]

    want = {"password": mark(PW), "github-token": mark(GITHUB)}
    assert {m["kind"]: m["fingerprint"] for m in body["masks"]} == want
    texts = {hmac.new(key, b"text\0" + hashlib.sha256(t.encode()).hexdigest().encode(), hashlib.sha256).hexdigest()
             for t in (PROMPT, RESULT)}
    assert all(texts & set(m["texts_sha256"]) for m in body["masks"] if m["kind"] == "password")


def _verify(copy: Path, *more: str):
    return asz_in_process("verify", "--export", str(copy), *more)


@pytest.mark.parametrize("form", ["md", "html", "audit"])
def test_a_byte_changed_is_caught_with_and_without_the_root(leaky, exported, tmp_path, form):
    src = exported[form] / f"{CID}.{form}" if form != "audit" else exported[form]
    copy = tmp_path / src.name
    shutil.copy(src, copy)
    shutil.copy(src.with_name(src.name + ".manifest.json"), copy.with_name(copy.name + ".manifest.json"))
    held = _verify(copy, "--root", str(leaky))
    assert held.returncode == 0, held.stdout + held.stderr
    assert "with the HMAC under this root's mask key of the landed text it sat in" in held.stdout
    data = bytearray(copy.read_bytes())
    at = data.index(b"phx.server") + 3
    data[at:at + 1] = b"X"
    copy.write_bytes(bytes(data))
    alone, held = _verify(copy), _verify(copy, "--root", str(leaky))
    assert alone.returncode == 1 and "the copy was changed" in alone.stdout, alone.stdout
    assert held.returncode == 1 and "outside the masks: the copy's text is not the landed text" in held.stdout, held.stdout


def test_another_root_compares_all_but_the_keyed_digests(leaky, exported, tmp_path):
    """A copy checked against a root holding other keys (a copy of the root whose key file was made again): the
    masks' places and forms and the copy byte for byte are checked, the keyed digests said as not compared."""
    other = tmp_path / "other"
    shutil.copytree(leaky, other)
    (other / "_export" / "mask.key").chmod(0o600)
    (other / "_export" / "mask.key").write_text("ab" * 32 + "\n")
    copy = exported["md"] / f"{CID}.md"
    got = _verify(copy, "--root", str(other))
    assert got.returncode == 0, got.stdout + got.stderr
    assert "the masks' fingerprint and texts_sha256 are not compared: they were keyed by the mask key" in got.stdout


def test_a_manifest_from_before_keeps_checking(leaky, exported, tmp_path):
    """A manifest written before trial 37a F1 (no mask_digests; the unkeyed SHA-256 digests) checks against the root
    as it did, and one of its fingerprints changed is named."""
    from asz_core.cli.export_made import made_again
    from asz_core.reading.export_manifest import mask_places

    copy = tmp_path / "old.md"
    shutil.copy(exported["md"] / f"{CID}.md", copy)
    body = json.loads((exported["md"] / f"{CID}.md.manifest.json").read_text())
    data, seen = made_again(leaky, CID, body["made"])
    assert data == copy.read_bytes()
    old = {k: v for k, v in body.items() if k != "mask_digests"}
    old["masks"] = mask_places(data, seen)  # what the manifest said before the keys
    assert {m["kind"]: m["fingerprint"] for m in old["masks"]}["password"] == hashlib.sha256(PW.encode()).hexdigest()[:12]
    manifest = copy.with_name("old.md.manifest.json")
    old["export"]["file"] = copy.name
    manifest.write_text(json.dumps(old))
    got = _verify(copy, "--root", str(leaky))
    assert got.returncode == 0, got.stdout + got.stderr
    assert "with the SHA-256 of the landed text it sat in" in got.stdout
    old["masks"][0]["texts_sha256"] = ["0" * 64]
    manifest.write_text(json.dumps(old))
    got = _verify(copy, "--root", str(leaky))
    assert got.returncode == 1 and "its texts_sha256 in the manifest is not the masking's" in got.stdout, got.stdout


def test_what_asz_secrets_prints_is_no_oracle_and_names_the_manifests_fingerprint(leaky, exported):
    """``asz secrets`` (text and --json), which a lead may paste into a ticket before sharing, gives each credential
    the keyed fingerprint its masks have in the manifest, never one a guess can be tested against."""
    out = asz_in_process("secrets", "--root", str(leaky))
    found = json.loads(asz_in_process("secrets", "--json", "--root", str(leaky)).stdout)
    hexes = set(re.findall(r"[0-9a-f]{12,}", out.stdout + json.dumps(found)))
    assert [g for g in GUESSES for o in _oracles(g) for h in hexes if h.startswith(o[:12]) or o.startswith(h)] == []
    body = json.loads((exported["md"] / f"{CID}.md.manifest.json").read_text())
    assert {f["secret"]: f["fingerprint"] for f in found} == {m["kind"]: m["fingerprint"] for m in body["masks"]}


def test_a_link_in_the_mask_keys_place_is_refused_and_named(leaky, tmp_path):
    """A symbolic link at ``_export/mask.key`` (trial 44c F5: the key an attacker chose keyed every digest, silently)
    is never read: the export says why its manifest carries no keyed digest, ``asz verify`` names the link a problem
    (exit 1), and ``asz verify --export --root`` compares no digest."""
    root = tmp_path / "root"
    shutil.copytree(leaky, root, symlinks=True)
    chosen = tmp_path / "chosen.key"
    chosen.write_text("00" * 32 + "\n")
    key = root / "_export" / "mask.key"
    key.parent.mkdir(exist_ok=True)
    key.unlink(missing_ok=True)
    key.symlink_to(chosen)
    copy = tmp_path / "c.md"
    made = asz_in_process("export", CID, "--format", "md", "--out", str(copy), "--root", str(root))
    assert made.returncode == 0, made.stderr
    said = f"{key} is a symbolic link to {chosen}, not the mask key asz made: asz follows no symbolic link inside a storage root"
    assert f"asz export: warning: no mask key: {said}; the manifest's masks carry no fingerprint" in made.stderr
    body = json.loads(copy.with_name("c.md.manifest.json").read_text())
    assert body["mask_digests"] == {"mac": "none", "why": f"no mask key: {said}"}
    assert [m for m in body["masks"] if "fingerprint" in m or "texts_sha256" in m] == [] and body["masks"]
    checked = asz_in_process("verify", "--root", str(root))
    assert checked.returncode == 1
    assert f"{key}: symbolic link: the mask key is a link to {chosen}, which was not read" in checked.stdout
    assert key.is_symlink() and chosen.read_text() == "00" * 32 + "\n"  # neither replaced nor written through
    got = _verify(copy, "--root", str(root))
    assert got.returncode == 0 and "the masks' fingerprint and texts_sha256 are not compared" in got.stdout, got.stdout
