"""A copy masked with forms 8 or before checks at forms 9 (review49): forms 9 reads a command's password to its shell
word's end (asz_core/view/secret_shell.py), so a copy an earlier asz made holds ``admin:***&Kp2(Wx)9`` (the start
masked, the tail after ``&`` as the copy left it) and a quoted ``-p'Lm4 $Hy8\\Rt6'`` whole. Made at ccc9ef79, such
md, html, text, --brief and --audit copies of a conversation holding them failed asz verify --export --root at
ab4d5870 (exit 1, 'its offset in the manifest is not the masking's'): the copy made again masked today's whole value,
whose fingerprint no manifest mask has. Now the start the manifest lists is masked (AsMasked._shorter) and said in a
note; a value read out of a tool input's JSON text is looked for in the copy as the characters it stands for."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from cli_helpers import asz_in_process
from reading_helpers import SPOTTER, planted_root

from asz_core.reading.export_forms import FORMS_SAID

CID = "55604662-cf2a-4331-851a-ec234028f8ca"
PARTED = "Zq7&Kp2(Wx)9"  # curl -u admin:PARTED: forms 8 masked Zq7, the tail &Kp2(Wx)9 left as it was
QUOTED = "Lm4 $Hy8\\Rt6"  # mysql -p'QUOTED' in a tool input: forms 8 left it whole
PROMPT = f"deploy with curl -u admin:{PARTED} https://api.example.com please"
COMMAND = f"mysql -u root -p'{QUOTED}' shop"


class _Forms8:
    """Masking as forms 8 did for these shapes: a command's password cut at its first ``&``, ``(`` or ``)``, one
    holding a space or a backslash left whole."""

    def __call__(self, text: str, cuts: list) -> list:
        from asz_core.view.secret_forms import fingerprint, masked
        from asz_core.view.secret_shell import SHELL_READ

        out = []
        for a, b, shown, fp, kind in cuts:
            value = text[a:b]
            if kind not in SHELL_READ:
                out.append((a, b, shown, fp, kind))
            elif not re.search(r"[\s\\]", value):
                end = a + (re.search(r"[&()]", value) or re.search(r"$", value)).start()
                out.append((a, end, masked(text[a:end], kind), fingerprint(text[a:end]), kind))
        return out


@pytest.fixture(scope="module")
def root(tmp_path_factory, corpus_dir) -> Path:
    def plant(lines: list[dict]) -> None:
        lines[3]["message"]["content"] = PROMPT
        lines[7]["message"]["content"][0]["input"]["command"] = COMMAND  # the corpus file's Bash call

    return planted_root(corpus_dir, tmp_path_factory.mktemp("forms9"), SPOTTER, plant)


def _copy_of_forms_8(root: Path, out: Path, args: tuple[str, ...]) -> dict:
    from asz_core.view.secret_forms import choosing

    with choosing(_Forms8()):
        p = asz_in_process("export", CID, *args, "--out", str(out), "--root", str(root))
    assert p.returncode == 0, p.stdout + p.stderr
    where = out.with_name(out.name + ".manifest.json")
    body = json.loads(where.read_bytes())
    body["masks_forms"] = 8
    where.write_bytes(json.dumps(body, indent=2).encode() + b"\n")
    return body


@pytest.mark.parametrize("name,args", [("c.md", ("--format", "md")), ("c.html", ("--format", "html")),
                                       ("b.md", ("--brief",))])
def test_a_copy_of_forms_8_holding_a_tail_checks_and_says_it(root, tmp_path, name, args):
    old = tmp_path / name
    body = _copy_of_forms_8(root, old, args)
    text = old.read_text()
    tail = "***" + PARTED[3:]
    assert tail in text or tail.replace("&", "&amp;") in text
    assert PARTED not in text and PARTED.replace("&", "&amp;") not in text
    assert QUOTED in text or QUOTED.replace("$", "&#36;") in text or "Lm4 $Hy8" in text
    assert any(m["kind"] == "curl-password" for m in body["masks"])
    held = asz_in_process("verify", "--export", str(old), "--root", str(root))
    assert held.returncode == 0 and held.stdout.splitlines()[-1] == "the copy checks against the root", held.stdout
    part = [ln for ln in held.stdout.splitlines() if "masked only in part" in ln]
    assert len(part) == 1 and part[0].startswith(f"note: {name}: 1 credential(s) asz masks today are masked only in "
                                                 f"part in this copy (made with {FORMS_SAID[8]}): line "), held.stdout
    assert "(curl-password)" in part[0] and "(mysql-password)" not in part[0]
    whole = [ln for ln in held.stdout.splitlines() if "are whole in this copy" in ln]
    assert len(whole) == 1 and "(mysql-password)" in whole[0], held.stdout


def test_a_tail_changed_by_hand_still_fails(root, tmp_path):
    old = tmp_path / "c.md"
    body = _copy_of_forms_8(root, old, ("--format", "md"))
    import hashlib

    data = old.read_bytes().replace(("***" + PARTED[3:]).encode(), ("***" + PARTED[3:-1] + "8").encode())
    old.write_bytes(data)
    body["export"].update(bytes=len(data), sha256=hashlib.sha256(data).hexdigest(),
                          lines=[hashlib.sha256(x).hexdigest()[:16] for x in data.split(b"\n")])
    old.with_name("c.md.manifest.json").write_bytes(json.dumps(body, indent=2).encode() + b"\n")
    bad = asz_in_process("verify", "--export", str(old), "--root", str(root))
    assert bad.returncode == 1 and "outside the masks" in bad.stdout, bad.stdout


@pytest.mark.parametrize("number,code", [(9, 0), (10, 0), (12, 1)])
def test_a_text_copy_naming_earlier_forms_in_its_short_header_checks(root, tmp_path, number, code):
    """A text copy of render 51 says its forms by number (``forms 10 (40, docs/reading.md "Credentials"; …``): forms 11
    changed only the number, and such a copy made at forms 10 failed at its header (review49). A number no asz
    declared still fails."""
    import hashlib

    from asz_core.reading.export_forms import FORMS

    old = tmp_path / "c.text"
    p = asz_in_process("export", CID, "--format", "text", "--out", str(old), "--root", str(root))
    assert p.returncode == 0, p.stderr
    now = f"forms {FORMS} (".encode()
    data = old.read_bytes()
    assert data.count(now) == 1
    at, moved = data.index(now), len(str(number)) - len(str(FORMS))  # forms 9: the masks after it one byte sooner
    data = data.replace(now, f"forms {number} (".encode())
    old.write_bytes(data)
    where = old.with_name("c.text.manifest.json")
    body = json.loads(where.read_bytes())
    body["masks_forms"] = number
    for m in body.get("masks") or ():
        if m["offset"] > at:
            m["offset"] += moved
            m["column"] += moved if m["line"] == data[:at].count(b"\n") + 1 else 0
    body["export"].update(bytes=len(data), sha256=hashlib.sha256(data).hexdigest(),
                          lines=[hashlib.sha256(x).hexdigest()[:16] for x in data.split(b"\n")])
    where.write_bytes(json.dumps(body, indent=2).encode() + b"\n")
    v = asz_in_process("verify", "--export", str(old), "--root", str(root))
    assert v.returncode == code, v.stdout
    assert (v.stdout.splitlines()[-1] == "the copy checks against the root") == (code == 0), v.stdout
