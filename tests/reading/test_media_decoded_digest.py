"""An image's decoded bytes in every export that names it (trial 31b F8, fix32d): the md and html line and the json
media entry (the asz.view document, ``asz conversation --json`` too) give the size and SHA-256 of the bytes the base64
text decodes to, the image file a researcher holds, beside the digest of the base64 JSON string they gave before.

Input: the corpus's one pasted image (claude-code-log-sample 0d3a8e6f, the line holding ``"type":"base64"``), its
digest taken in the test by ``jq | base64 -d | sha256sum`` from that source line. A copy made before render 3 (one
without the decoded part) still checks against the root; a copy whose decoded digest was changed does not."""

from __future__ import annotations

import hashlib
import json
import re
import subprocess

import pytest

from reading_helpers import asz

CID = "0d3a8e6f-290f-4105-a327-a2496e5e2a83"
SOURCE = f"-Users-alex-workspace-claude-code-log-sample/{CID}.jsonl"


@pytest.fixture(scope="module")
def image(corpus_source):
    """(line number, the base64 text's size, the decoded size and SHA-256 by the shell) of the corpus's image."""
    src = corpus_source / SOURCE
    (n,) = [k for k, line in enumerate(src.read_bytes().splitlines(), 1) if b'"type":"base64"' in line]
    path = ".message.content[0].source.data"
    b64 = subprocess.run(f"sed -n {n}p '{src}' | jq -j '{path}'", shell=True, capture_output=True, check=True).stdout
    size = subprocess.run(f"sed -n {n}p '{src}' | jq -j '{path}' | base64 -d | wc -c", shell=True, capture_output=True,
                          check=True, text=True).stdout.split()[0]
    digest = subprocess.run(f"sed -n {n}p '{src}' | jq -j '{path}' | base64 -d | sha256sum", shell=True,
                            capture_output=True, check=True, text=True).stdout.split()[0]
    return n, len(b64), int(size), digest


def test_md_html_and_json_give_the_decoded_images_digest(corpus_root, image, tmp_path):
    _, b64_size, size, digest = image
    assert size == 784_786 and len(digest) == 64  # a real PNG of 784,786 bytes
    md = asz("export", CID, "--root", str(corpus_root)).stdout
    (line,) = re.findall(r"\[image: image/png, [^\]]*\]", md)
    assert line.endswith(f", {b64_size:,} bytes, sha256 {line.split('sha256 ')[1].split(';')[0]}; decoded: "
                         f"{size:,} bytes, sha256 {digest}]")
    html = asz("export", CID, "--format", "html", "--root", str(corpus_root)).stdout
    assert f"<figcaption class=\"meta\">[image: image/png, {b64_size:,} bytes, sha256 " in html
    assert f"; decoded: {size:,} bytes, sha256 {digest}]</figcaption>" in html
    for doc in (json.loads(asz("export", CID, "--format", "json", "--root", str(corpus_root)).stdout),
                json.loads(asz("conversation", CID, "--json", "--root", str(corpus_root)).stdout)):
        media = [m for m in re.findall(r'"media":\[(\{[^\]]*\})\]', json.dumps(doc, separators=(",", ":")))]
        (entry,) = [json.loads(m) for m in media]
        assert (entry["bytes"], entry["decoded_bytes"], entry["decoded_sha256"]) == (b64_size, size, digest)
        assert entry["digest"] != digest  # the base64 text's, as before (test_media_digest_source.py)
        assert list(entry).index("decoded_sha256") == list(entry).index("digest") + 2


def _relabelled(copy, to, render: int):
    """``copy``'s bytes written as ``to`` with its manifest saying ``render`` (the copy's digests its own)."""
    from asz_core.reading.export_manifest import line_digests, sha256

    data = copy.read_bytes()
    to.write_bytes(data)
    body = json.loads(copy.with_name(copy.name + ".manifest.json").read_bytes())
    body["render"] = render
    body["export"].update(file=to.name, bytes=len(data), sha256=sha256(data), lines=line_digests(data))
    to.with_name(to.name + ".manifest.json").write_text(json.dumps(body, indent=2) + "\n")
    return to


def _as_render_2(copy, fmt: str) -> None:
    """Rewrite ``copy`` and its manifest as an asz of render 2 wrote them: no decoded part, ``render`` 2."""
    from asz_core.reading.export_manifest import line_digests, sha256

    data = copy.read_bytes()
    old = (re.sub(rb',"decoded_bytes":[0-9]+,"decoded_sha256":"[0-9a-f]{64}"', b"", data) if fmt == "json" else
           re.sub(rb"; decoded: [0-9,]+ bytes, sha256 [0-9a-f]{64}\]", b"]", data))
    assert old != data
    copy.write_bytes(old)
    m = copy.with_name(copy.name + ".manifest.json")
    body = json.loads(m.read_bytes())
    body["render"] = 2
    body["export"].update(bytes=len(old), sha256=sha256(old), lines=line_digests(old))
    m.write_text(json.dumps(body, indent=2) + "\n")


@pytest.mark.parametrize("fmt", ["md", "json", "html"])
def test_a_copy_made_before_render_3_still_checks_and_a_changed_digest_does_not(corpus_root, image, tmp_path, fmt):
    from asz_core.reading.export_render import drawing

    copy, seven = tmp_path / f"c.{fmt}", tmp_path / f"seven.{fmt}"
    asz("export", CID, "--format", fmt, "--out", str(copy), "--root", str(corpus_root))
    assert json.loads(copy.with_name(copy.name + ".manifest.json").read_bytes())["render"] >= 3  # render 4 (session 34) quotes the text form's lines; md/json/html as render 3
    ok = asz("verify", "--export", str(copy), "--root", str(corpus_root))
    assert ok.returncode == 0
    # a render-3 copy (made before session 34: render 4 changed only the text form, an md warning line and JSON escapes,
    # none in this conversation, so the same bytes) still checks, its decoded digests kept (fafc0586's render 4 took
    # them off every md, html and json copy of render 3 until 9b9f328a)
    # render 8 drew a person's words in html as written: a render-3 copy drew them as Markdown; and every render-2
    # copy, and a render-3 one made before f7840f1b, drew its costs so (input $0.00 where this asz writes <$0.01)
    with drawing(7, cents_before=True):
        asz("export", CID, "--format", fmt, "--out", str(seven), "--root", str(corpus_root))
    three = _relabelled(seven, tmp_path / f"r3.{fmt}", 3)
    ok = asz("verify", "--export", str(three), "--root", str(corpus_root), check=False)
    assert ok.returncode == 0 and "the copy checks against the root" in ok.stdout, ok.stdout
    tampered = tmp_path / f"t.{fmt}"
    digest = image[3]
    other = ("0" if digest[0] != "0" else "1") + digest[1:]
    assert copy.read_bytes().count(digest.encode()) == (2 if fmt == "html" else 1)  # html: the img's alt too
    tampered.write_bytes(copy.read_bytes().replace(digest.encode(), other.encode()))
    assert tampered.read_bytes() != copy.read_bytes()
    body = json.loads(copy.with_name(copy.name + ".manifest.json").read_bytes())
    from asz_core.reading.export_manifest import line_digests, sha256

    data = tampered.read_bytes()
    body["export"].update(file=tampered.name, sha256=sha256(data), lines=line_digests(data))
    tampered.with_name(tampered.name + ".manifest.json").write_text(json.dumps(body, indent=2) + "\n")
    bad = asz("verify", "--export", str(tampered), "--root", str(corpus_root), check=False)
    assert bad.returncode == 1, bad.stdout
    _as_render_2(seven, fmt)  # drawn as render 7 (and so render 2) drew a person's words
    old = asz("verify", "--export", str(seven), "--root", str(corpus_root), check=False)
    assert old.returncode == 0, old.stdout
    assert "every text outside the masks is the landed one" in old.stdout
