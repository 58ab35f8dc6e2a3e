"""A manifest lists only the masks the masker put in the copy (review37 ``stars.py``; render 12).

A password given to a name (``password``) and a URL's password (``url-password``) are both shown ``***``. Before
render 12 the manifest took every ``***`` of the copy for a mask when a conversation held a named password, a
Markdown rule and ``***bold italic***`` alike (review37: 12 places where 3 were masks), and each took the first form
seen, so a URL password's mask said ``password`` where ``asz secrets`` says ``url-password``.

Real input: the spotter transcript of the shared corpus, its prompt (line 4) holding a named password, a URL with a
password, a Markdown rule and bold italics; a tool result (line 11) more bold italics and a rule. The masks wanted are
counted from the copy's bytes by the places the planted values stood: each ``password: ***`` and each ``:***@``."""

from __future__ import annotations

from asz_core.reading.export_render import RENDER  # the render this asz writes (pinned by rule)

import hashlib
import json
import re

import pytest

from cli_helpers import asz_in_process
from reading_helpers import planted_root

SPOTTER = "claude-code/projects/-home-user-spotter/55604662-cf2a-4331-851a-ec234028f8ca.jsonl"
CID = "55604662-cf2a-4331-851a-ec234028f8ca"
PW, URL_PW = "hunter2-Stars38a-Pa55", "s3cret-Url38a"
PROMPT = (f"the db password: {PW} fails\n\n***\n\nsee ***the bold italic part*** and "
          f"postgres://app:{URL_PW}@db.internal:5432/prod please")
RESULT = "checked\n\n***\n\n***nothing else*** ran"


def _plant(lines: list[dict]) -> None:
    lines[3]["message"]["content"] = PROMPT
    lines[10]["message"]["content"][0]["content"] = RESULT


@pytest.fixture(scope="module")
def root(tmp_path_factory, corpus_dir):
    return planted_root(corpus_dir, tmp_path_factory.mktemp("stars"), SPOTTER, _plant)


@pytest.fixture(scope="module")
def copies(root, tmp_path_factory):
    base = tmp_path_factory.mktemp("stars-out")
    out = {}
    for fmt in ("md", "html", "json"):
        out[fmt] = base / f"c.{fmt}"
        p = asz_in_process("export", CID, "--redact", "--format", fmt, "--out", str(out[fmt]), "--root", str(root))
        assert p.returncode == 0, p.stdout + p.stderr
    return out


def _wanted(data: bytes) -> dict[int, str]:
    """Byte offset of each real mask in a copy -> its form, read from the bytes: the ``***`` after ``password: `` and
    the one between ``app:`` and ``@``."""
    got = {m.start(1): "password" for m in re.finditer(rb"password: (\*\*\*)", data)}
    got.update({m.start(1): "url-password" for m in re.finditer(rb"//app:(\*\*\*)@", data)})
    return got


@pytest.mark.parametrize("fmt", ["md", "html", "json"])
def test_only_the_masks_are_listed_each_with_its_form(copies, fmt):
    data = copies[fmt].read_bytes()
    assert PW.encode() not in data and URL_PW.encode() not in data
    body = json.loads(copies[fmt].with_name(copies[fmt].name + ".manifest.json").read_bytes())
    wanted = _wanted(data)
    stars = data.count(b"***")
    assert len(wanted) >= 2 and stars > len(wanted)  # typed *** in the copy beside the masks
    assert body["render"] == RENDER
    assert {m["offset"]: m["kind"] for m in body["masks"]} == wanted
    assert body["masked"]["places"] == len(wanted) and body["masked"]["credentials"] == 2
    assert all(data[m["offset"]:m["offset"] + m["length"]] == b"***" for m in body["masks"])


def test_asz_secrets_names_the_same_forms(root, copies):
    p = asz_in_process("secrets", "--json", "--root", str(root))
    found = {(f["secret"], f["fingerprint"]) for f in json.loads(p.stdout)}
    assert {k for k, _ in found} == {"password", "url-password"}
    body = json.loads(copies["md"].with_name("c.md.manifest.json").read_bytes())
    assert {(m["kind"], m["fingerprint"]) for m in body["masks"]} == found


@pytest.mark.parametrize("fmt", ["md", "html"])
def test_the_copy_checks_and_a_manifest_of_render_11_still_does(root, copies, tmp_path, fmt):
    """The new manifest checks against the root; a render-11 manifest of the same copy, its masks as render 11 listed
    them (every ``***``, each of the first form seen), checks too; the render-12 list said to be render 11 does not."""
    from asz_core.cli.export_made import made_again
    from asz_core.reading.export_keyed import keyed
    from asz_core.reading.export_manifest import line_digests, manifest_bytes, mask_places
    from asz_core.reading.export_render import drawing
    from asz_core.storage.mask_key import mask_key

    src = copies[fmt]
    ok = asz_in_process("verify", "--export", str(src), "--root", str(root))
    assert ok.returncode == 0, ok.stdout + ok.stderr
    body = json.loads(src.with_name(src.name + ".manifest.json").read_bytes())
    data = src.read_bytes()
    again, seen = made_again(root, CID, body["made"])
    assert again == data
    with drawing(11):  # the copy as render 11 drew it (render 14 says refused where it said failed)
        data, seen = made_again(root, CID, body["made"])
    old_masks = keyed(mask_places(data, seen, 11), mask_key(root))
    new_masks = keyed(mask_places(data, seen, 12), mask_key(root))  # the render-12 list of the same bytes
    assert len(old_masks) == data.count(b"***") - data.count(b"****") and len({m["kind"] for m in old_masks}) == 1
    assert len(new_masks) == len(body["masks"]) < len(old_masks)
    for name, render, masks, rc in (("old", 11, old_masks, 0), ("mixed", 11, new_masks, 1)):
        copy = tmp_path / f"{name}.{fmt}"
        copy.write_bytes(data)
        said = {**body, "render": render, "masks": masks, "masked": {**body["masked"], "places": len(masks)},
                "export": {**body["export"], "bytes": len(data), "sha256": hashlib.sha256(data).hexdigest(),
                           "lines": line_digests(data)}}
        copy.with_name(copy.name + ".manifest.json").write_bytes(manifest_bytes(said))
        p = asz_in_process("verify", "--export", str(copy), "--root", str(root))
        assert p.returncode == rc, (name, p.stdout + p.stderr)
