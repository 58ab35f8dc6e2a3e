"""A masked copy an earlier asz made with other credential forms keeps verifying against the root (session 43;
docs/verify.md, "A masked export", the forms; asz_core/reading/export_forms.py).

The older copy is made as main at fbe44e18 made it: its password form did not take a flag's value after a space
(``--password PASS``, added by 3daf4301), and its manifest had no ``masks_forms``. The current export is run with that
form switched off (``secret_forms.choosing``, the hook the check itself masks through) and the manifest written
without the key, as that asz wrote it. Places are counted from the copy's own text, never from asz's output."""

from __future__ import annotations

import ast
import hashlib
import inspect
import json
import re
import shutil
from pathlib import Path

import pytest

from cli_helpers import asz_in_process
from reading_helpers import header_forms_as, prompted_root

from asz_core.reading.export_forms import FORMS, FORMS_SAID
from asz_core.view.secret_forms import KINDS

CID = "55604662-cf2a-4331-851a-ec234028f8ca"
FLAGGED = "Tr0ub4dor-x9Q"  # after a flag and a space: whole in an fbe44e18 copy, masked today
NAMED = "S3cretVal-42x"  # given to a name: masked by both
STAND_IN = 'MY_SECRET = "my-secret-key"'  # a password's mask at ffe662f8, none since d3011a3a (a form narrowed)
PROMPT = f"run ./deploy.sh --password {FLAGGED} then DB_PASSWORD={NAMED} ./migrate with {STAND_IN}"


@pytest.fixture(scope="module")
def root(tmp_path_factory, corpus_dir) -> Path:
    return prompted_root(corpus_dir, tmp_path_factory.mktemp("forms"), PROMPT)


#: The forms fbe44e18's text and --audit headers list (3daf4301 added three).
FORMS_FBE44E18 = ["aws-access-key-id", "aws-secret-access-key", "github-token", "gitlab-token", "anthropic-api-key",
                  "openai-api-key", "slack-token", "slack-webhook-url", "google-api-key", "google-oauth-client-secret",
                  "stripe-live-key", "huggingface-token", "npm-token", "private-key", "jwt", "bearer-token", "url-password",
                  "sendgrid-api-key", "azure-storage-account-key", "basic-auth", "mysql-password", "password", "token"]
#: The forms the text and --audit headers of forms 3 (fix44g) list (forms 4 added api-key).
FORMS_3 = [name for name, _, _ in KINDS if name != "api-key"]


class _Before3daf4301:
    """Masking as fbe44e18's forms did: no password after a flag and a space."""

    def __call__(self, text: str, cuts: list) -> list:
        return [c for c in cuts if not (c[4] == "password"
                                        and re.search(r"-(?i:password|passwd|passphrase)[ \t]+$", text[:c[0]]))]


class _AtFfe662f8(_Before3daf4301):
    """Masking as ffe662f8's forms did: as fbe44e18's, and a password's mask over a stand-in value too."""

    def __call__(self, text: str, cuts: list) -> list:
        from asz_core.view.secret_forms import fingerprint

        cuts = super().__call__(text, cuts)
        if (at := text.find(STAND_IN)) >= 0:
            a = at + STAND_IN.index('"') + 1
            cuts = sorted(cuts + [(a, a + 13, "***", fingerprint(text[a:a + 13]), "password")])
        return cuts


def _older_copy(root: Path, out: Path, fmt: str, forms=_Before3daf4301, redact: str = "--redact", header=None,
                number=None, cid: str = CID) -> dict:
    """``out`` exported as the fbe44e18 asz did (``forms``; a text copy's header listing ``header``, fbe44e18's
    forms by default), its manifest without ``masks_forms`` (or with ``number``); its manifest."""
    from asz_core.reading.export_render import RENDER, SHORT_HEAD_RENDER, drawing
    from asz_core.view.secret_forms import choosing

    # a text copy of earlier forms is of a render before the short header (48), which lists the forms it declares
    listed = SHORT_HEAD_RENDER - 1
    with choosing(forms()), drawing(listed if fmt == "text" else RENDER):
        p = asz_in_process("export", cid, "--format", fmt, redact, "--out", str(out), "--root", str(root))
    assert p.returncode == 0, p.stdout + p.stderr
    where = out.with_name(out.name + ".manifest.json")
    body = json.loads(where.read_bytes())
    assert body.pop("masks_forms") == FORMS
    if fmt == "text":
        body["render"] = listed
    if number is not None:
        body["masks_forms"] = number
    if fmt == "text":  # its header's forms as fbe44e18 listed them, the masks after it moved by as many bytes
        header_forms_as(out, body, header or FORMS_FBE44E18)
    where.write_bytes(json.dumps(body, indent=2).encode() + b"\n")
    return body


def _verify(copy: Path, *more: str):
    return asz_in_process("verify", "--export", str(copy), *more)


def _places(text: str, value: str) -> list[tuple[int, int]]:
    """(line, column) from 1 of each place ``value`` stands in ``text``, columns in characters."""
    return [(text.count("\n", 0, m.start()) + 1, m.start() - text.rfind("\n", 0, m.start()))
            for m in re.finditer(re.escape(value), text)]


@pytest.mark.parametrize("fmt", ["md", "json", "text"])
def test_a_copy_of_earlier_forms_verifies_and_names_what_it_holds_whole(root, tmp_path, fmt):
    now = tmp_path / f"now.{fmt}"
    p = asz_in_process("export", CID, "--format", fmt, "--redact", "--out", str(now), "--root", str(root))
    assert p.returncode == 0, p.stderr
    assert FLAGGED not in now.read_text() and NAMED not in now.read_text()
    assert json.loads(now.with_name(now.name + ".manifest.json").read_bytes())["masks_forms"] == FORMS
    held = _verify(now, "--root", str(root))
    assert held.returncode == 0 and "note:" not in held.stdout, held.stdout

    old = tmp_path / f"old.{fmt}"
    body = _older_copy(root, old, fmt)
    text = old.read_text()
    whole = _places(text, FLAGGED)
    assert whole and NAMED not in text  # the flag's value whole, the named one masked, as fbe44e18 wrote them
    assert fmt != "text" or ", forms aws-access-key-id," in text and "curl-password" not in text
    assert len(body["masks"]) < len(json.loads(now.with_name(now.name + ".manifest.json").read_bytes())["masks"])
    held = _verify(old, "--root", str(root))
    assert held.returncode == 0, held.stdout + held.stderr
    assert held.stdout.splitlines()[-1] == "the copy checks against the root"
    places = ", ".join(f"line {line} column {col} (password)" for line, col in whole)
    assert (f"note: {old.name}: 1 credential(s) asz masks today are whole in this copy (made with earlier forms): "
            f"{places}; asz export again makes a copy masked with today's forms") in held.stdout.splitlines()
    got = json.loads(_verify(old, "--root", str(root), "--json").stdout)
    assert got["ok"] is True and len(got["notes"]) == 1 and not any("note:" in x for x in got["checked"])
    listed = asz_in_process("ls", "--root", str(root), "--json")  # nothing masked as the copy was is kept for a reader
    assert listed.returncode == 0 and CID in listed.stdout and FLAGGED not in listed.stdout
    if fmt == "md":  # a root without the manifest's key (asz receive's): the masks told by the credential's value
        keyless = tmp_path / "keyless"
        shutil.copytree(root, keyless)
        (keyless / "_export" / "mask.key").unlink()
        held = _verify(old, "--root", str(keyless))
        assert held.returncode == 0 and "the masks' fingerprint and texts_sha256 are not compared" in held.stdout
        assert f"note: {old.name}: 1 credential(s) asz masks today are whole in this copy" in held.stdout
        plain = tmp_path / "plain.md"  # unmasked: only its title and headings were masked, with those forms
        _older_copy(root, plain, "md", redact="--no-redact")
        assert 'DB_PASSWORD=***' in plain.read_text() and NAMED in plain.read_text()
        for where in (root, keyless):
            held = _verify(plain, "--root", str(where))
            assert held.returncode == 0 and "note:" not in held.stdout, held.stdout

    # the same bytes said to be of today's forms: each place only one masking masks is a problem, as before
    said = json.loads(old.with_name(old.name + ".manifest.json").read_bytes())
    old.with_name(old.name + ".manifest.json").write_bytes(json.dumps({**said, "masks_forms": FORMS}).encode())
    strict = _verify(old, "--root", str(root))
    assert strict.returncode == 1 and "is not the masking of the landed credential" in strict.stdout


def test_a_credential_unmasked_by_hand_where_the_manifest_masks_it_still_fails(root, tmp_path):
    old = tmp_path / "old.md"
    body = _older_copy(root, old, "md")
    mask = next(m for m in body["masks"] if m["kind"] == "password" and m["shown"] == "***")
    data = old.read_bytes()
    assert data[mask["offset"]:mask["offset"] + mask["length"]] == b"***"
    bare = data[:mask["offset"]] + NAMED.encode() + data[mask["offset"] + mask["length"]:]
    old.write_bytes(bare)  # and the manifest's digests written again over it, its mask still listed
    body["export"].update(bytes=len(bare), sha256=hashlib.sha256(bare).hexdigest(),
                          lines=[hashlib.sha256(x).hexdigest()[:16] for x in bare.split(b"\n")])
    old.with_name("old.md.manifest.json").write_bytes(json.dumps(body).encode())
    held = _verify(old, "--root", str(root))
    assert held.returncode == 1, held.stdout
    [(line, col)] = _places(bare.decode(), NAMED)
    assert f"old.md: line {line} column {col}: " in held.stdout
    assert f"line {line} column {mask['column']}: inside mask {mask['mask']} (password, '***'" in held.stdout


def test_a_mask_a_narrowed_form_no_longer_makes_is_held_to_its_fingerprint(root, tmp_path):
    old = tmp_path / "old.md"
    body = _older_copy(root, old, "md", _AtFfe662f8)
    text = old.read_text()
    assert "my-secret-key" not in text and 'MY_SECRET = "***"' in text
    assert any(m["kind"] == "password" for m in body["masks"])
    held = _verify(old, "--root", str(root))
    assert held.returncode == 0, held.stdout + held.stderr
    places = ", ".join(f"line {line} column {col} (password)" for line, col in _places(text, FLAGGED))
    assert f"note: old.md: 1 credential(s) asz masks today are whole in this copy (made with earlier forms): {places};" \
        in held.stdout
    # its manifest's fingerprint not the stand-in's: no form's value there has it, the copy made again holds it whole
    data = old.read_bytes()
    stand = {m["fingerprint"] for m in body["masks"]} - {m["fingerprint"] for m in body["masks"]
                                                          if data[:m["offset"]].endswith(b"DB_PASSWORD=")}
    assert len(stand) == 1
    body["masks"] = [{**m, "fingerprint": "0" * 12} if m["fingerprint"] in stand else m for m in body["masks"]]
    old.with_name("old.md.manifest.json").write_bytes(json.dumps(body).encode())
    held = _verify(old, "--root", str(root))
    [(line, col)] = [(n, c) for n, c in _places(text, 'MY_SECRET = "***"') if n > 1][:1] or [(0, 0)]
    assert held.returncode == 1 and f"old.md: line {line} column " in held.stdout, held.stdout


#: Session 44's fix44b forms in a prompt: a token after a flag and a space, a quoted two-word passphrase (forms 4 mask
#: both, forms 1 to 3 left both whole), a password all mask, and HTML-escaped text forms 1 to 3 took for a password
#: (forms 4 none).
WHOLE_44 = ("hunter22x", "purple monkey")
ESCAPED = "printf(&quot;Password is correct.&quot;);"
PROMPT_44 = f'deploy --token {WHOLE_44[0]} with password: "{WHOLE_44[1]}" and DB_PASSWORD={NAMED} then {ESCAPED}'


class _Forms1:
    """Masking as forms 1 to 3 (3daf4301 to fix44g) did for :data:`PROMPT_44`: neither value of :data:`WHOLE_44`, and
    ``correct.&quot`` of :data:`ESCAPED` as a password."""

    def __call__(self, text: str, cuts: list) -> list:
        from asz_core.view.secret_forms import fingerprint

        cuts = [c for c in cuts if text[c[0]:c[1]] not in WHOLE_44]
        if (at := text.find(ESCAPED)) >= 0:
            a = at + ESCAPED.index("correct")
            cuts = sorted(cuts + [(a, a + 13, "***", fingerprint(text[a:a + 13]), "password")])
        return cuts


@pytest.mark.parametrize("fmt,number", [("md", 1), ("text", 3)])
def test_a_copy_of_forms_1_or_3_verifies_and_names_what_forms_4_mask(tmp_path, corpus_dir, fmt, number):
    root = prompted_root(corpus_dir, tmp_path / "r", PROMPT_44)
    old = tmp_path / f"old.{fmt}"
    _older_copy(root, old, fmt, _Forms1, header=FORMS_3, number=number)
    text = old.read_text()
    assert NAMED not in text and all(v in text for v in WHOLE_44) and "Password is ***;);" in text
    assert fmt != "text" or (", ".join(FORMS_3) + ", not_covered") in text
    _verifies_naming_whole(old, root, text, dict(zip(WHOLE_44, ("token", "password"))), number)


def _verifies_naming_whole(old: Path, root: Path, text: str, whole: dict[str, str], number: int) -> None:
    """``asz verify --export old --root root`` exits 0 and its note names each place of ``whole`` (value -> form)
    in ``text`` (the copy's), said to be made with forms ``number``."""
    held = _verify(old, "--root", str(root))
    assert held.returncode == 0, held.stdout + held.stderr
    places = sorted((line, col, kind) for v, kind in whole.items() for line, col in _places(text, v))
    listed = ", ".join(f"line {line} column {col} ({kind})" for line, col, kind in places)
    assert (f"note: {old.name}: {len(whole)} credential(s) asz masks today are whole in this copy (made with "
            f"{FORMS_SAID[number]}): {listed}; asz export again makes a copy masked with today's forms"
            ) in held.stdout.splitlines(), held.stdout


#: Session 45's forms in a prompt: an argument list's token and ``--secret-key``'s value after a space (forms 7 mask
#: both, forms 6 left both whole), and a password all mask.
WHOLE_45 = ("Tk7qW2xZ9pLm", "Sk3Fq9Lz2Wx7Vb")
PROMPT_45 = f'run(["deploy", "--token", "{WHOLE_45[0]}"]) then mc alias set s3 --secret-key {WHOLE_45[1]} DB_PASSWORD={NAMED}'


class _Forms6:
    """Masking as forms 6 (fix44k) did for :data:`PROMPT_45`: neither value of :data:`WHOLE_45`."""

    def __call__(self, text: str, cuts: list) -> list:
        return [c for c in cuts if text[c[0]:c[1]] not in WHOLE_45]


#: Session 46's forms in a prompt: mysql's -p value as an argument list's next item and aws configure set's secret key
#: after a space (forms 8 mask both, forms 7 left both whole), and a password all mask.
WHOLE_46 = ("s3cr3tpw9", "Wj8Lr2Xt4Nf6Mq9Kd3Pb7Vz0Hx8Lp2Qz7Wx4Rn9T")
PROMPT_46 = (f'run(["mysql", "-D", "orders", "-p", "{WHOLE_46[0]}"]) then aws configure set aws_secret_access_key '
             f'{WHOLE_46[1]} DB_PASSWORD={NAMED}')


class _Forms7:
    """Masking as forms 7 (fix45e) did for :data:`PROMPT_46`: neither value of :data:`WHOLE_46`."""

    def __call__(self, text: str, cuts: list) -> list:
        return [c for c in cuts if text[c[0]:c[1]] not in WHOLE_46]


#: Each earlier forms' copy: its number, the prompt, how it masked, and the values it left whole (value -> form).
EARLIER = {6: (PROMPT_45, _Forms6, dict(zip(WHOLE_45, ("token", "password")))),
           7: (PROMPT_46, _Forms7, dict(zip(WHOLE_46, ("mysql-password", "aws-secret-access-key"))))}


@pytest.mark.parametrize("fmt", ["md", "text"])
@pytest.mark.parametrize("number", sorted(EARLIER))
def test_a_copy_of_earlier_forms_verifies_and_names_what_the_next_mask(tmp_path, corpus_dir, fmt, number):
    """A copy of forms 6 (7 masks two more) and of forms 7 (8 masks two more; session 46): exit 0, the note names them."""
    prompt, masking, whole = EARLIER[number]
    root = prompted_root(corpus_dir, tmp_path / "r", prompt)
    old = tmp_path / f"old.{fmt}"
    _older_copy(root, old, fmt, masking, header=[name for name, _, _ in KINDS], number=number)  # (7 and 8 added no name)
    text = old.read_text()
    assert NAMED not in text and all(v in text for v in whole)
    _verifies_naming_whole(old, root, text, whole, number)


def test_a_text_copy_of_forms_6_keeps_its_header_s_left_out_counts(tmp_path, corpus_dir):
    """review45: a text copy asz made at 22891816 (forms 6) of a conversation holding forms-7 credentials only in a
    part the form leaves out (a Bash call's argument list: a token and a password) failed verify (exit 1 at its
    header, ``left_out (places 0, …`` where today's forms count 2): the copy's counts, at most today's, are its
    forms', said in a note; a count above today's still fails. The copy is made with forms 6's masking
    (:class:`_Forms6`, which counts the parts left out too)."""
    from reading_helpers import RELIABILITY, planted_root

    def plant(lines: list[dict]) -> None:
        lines[4]["message"]["content"][0]["input"] = {"command": ["deploy", "--token", WHOLE_45[0], "--password",
                                                                  WHOLE_45[1]], "description": "deploy"}

    root = planted_root(corpus_dir, tmp_path / "r", RELIABILITY, plant)
    old = tmp_path / "old.text"
    body = _older_copy(root, old, "text", _Forms6, header=[name for name, _, _ in KINDS], number=6, cid="de3b8b19")
    was = b"left_out (places 0, credentials 0, not_written 0)"  # the two found by no form of forms 6
    assert old.read_bytes().count(was) == 1 and not any(v in old.read_text() for v in WHOLE_45)

    def header_says(counts: bytes) -> None:
        data = old.read_bytes().replace(was, counts)
        old.write_bytes(data)
        body["export"].update(bytes=len(data), sha256=hashlib.sha256(data).hexdigest(),
                              lines=[hashlib.sha256(x).hexdigest()[:16] for x in data.split(b"\n")])
        old.with_name("old.text.manifest.json").write_bytes(json.dumps(body, indent=2).encode() + b"\n")

    held = _verify(old, "--root", str(root))
    assert held.returncode == 0, held.stdout + held.stderr
    assert (f"note: old.text: its header's left_out counts are those of {FORMS_SAID[6]}, not today's "
            "(places 2, credentials 2, not_written 2)") in held.stdout.splitlines(), held.stdout
    header_says(b"left_out (places 3, credentials 0, not_written 0)")  # more than today's forms find: a change
    assert _verify(old, "--root", str(root)).returncode == 1


#: An AWS key id the json document's 2,000-byte clip cuts: both forms mask it whole, then clip the mask, so the copy
#: holds ``AKIA…`` and a part of its end, and the manifest lists no mask of it (no text holds its mask whole).
CUT_KEY = "AKIAZ7Q3XK9LM2PW4RT1"


def test_a_json_copy_of_forms_6_keeps_the_mask_its_clip_cut(tmp_path, corpus_dir):
    """review45: a json copy asz made at 22891816 (forms 6) of a text holding a forms-7 credential whole and a key id
    across the 2,000-byte clip failed verify (exit 1, 'outside the masks': the copy made again left the cut key whole,
    its mask in no manifest entry, where the copy holds it masked and cut)."""
    from asz_core.view.secret_forms import Masker, choosing

    with choosing(_Forms6()):  # the key from the masked text's byte 1,990: its mask's first 7 bytes before the clip
        shown = Masker(True).text(PROMPT_45 + " ")
    prompt = PROMPT_45 + " " + "x" * (1989 - len(shown.encode())) + " " + CUT_KEY + " done"
    root = prompted_root(corpus_dir, tmp_path / "r", prompt)
    old = tmp_path / "old.json"
    body = _older_copy(root, old, "json", _Forms6, number=6)
    text = old.read_text()
    assert "x AKIA…" in text and CUT_KEY[:5] not in text and all(v in text for v in WHOLE_45)
    assert not any(m.get("kind") == "aws-access-key-id" for m in body.get("masks") or ())
    _verifies_naming_whole(old, root, text, dict(zip(WHOLE_45, ("token", "password"))), 6)


def _normal(source: str) -> str:
    """``source`` without its docstrings and comments (what the forms do, not what they say)."""
    tree = ast.parse(source)
    for node in ast.walk(tree):
        body = getattr(node, "body", None)
        if isinstance(body, list) and body and isinstance(body[0], ast.Expr) and isinstance(body[0].value, ast.Constant) \
                and isinstance(body[0].value.value, str):
            node.body = body[1:] or [ast.Pass()]
    return ast.unparse(tree)


#: The digest of the forms' code (:func:`_forms_digest`) at each :data:`~asz_core.reading.export_forms.FORMS`. 7's
#: was dd9bfb10326eb687 until fix45b put ``_may_hold``'s two searches behind the automata's gate
#: (asz_core/view/automaton.py: what it finds is unchanged, tests/reading/test_secret_starts.py), no new form; then
#: cd248fa657285525 until a command's words could no longer end inside an argument vector's gap (secret_kinds._WORD:
#: one way to split a text, where 24 words tried every split of a long one; the same places found), no new form. 8's
#: was ced83eb166a858d3 until 1775581f defined ARGV once in secret_guards beside _ITEM (every pattern string the
#: same before and after, so the same places found), no new form. 11's was 7838c442f1656a6c until 45e3110a spelled an
#: unquoted shell word's characters once (secret_shell.SHELL_CHAR, which secret_kinds imports: every pattern string the
#: same before and after), no new form.
FORMS_DIGESTS = {1: "a970e2f3169684d2", 2: "300e2e6fd085f5d6", 3: "e1f7bb276b026bef", 4: "842015c6c181213f", 5: "ccbb56297d5c15f8", 6: "105a877fe0d23972", 7: "33d46d1a7ab247c9", 8: "c6ca6d007402bfa7", 9: "ffdfab99f310ee11", 10: "cd1c8260f4a97e5d", 11: "4af111a921b3fffc"}


def _forms_digest() -> str:
    from asz_core.view import secret_argv, secret_entities, secret_forms, secret_guards, secret_kinds, secret_shell

    finding = [inspect.getsource(getattr(secret_forms, f)) for f in
               ("_starts", "_held", "find", "_find_written", "_may_hold", "_matches", "masked", "_replacements",
                "fingerprint")]
    modules = (secret_kinds, secret_guards, secret_entities, secret_argv, secret_shell)  # (argv since forms 7, shell 9)
    parts = [inspect.getsource(m) for m in modules] \
        + [inspect.cleandoc("\n" + f) for f in finding]
    return hashlib.sha256("\0".join(_normal(p) for p in parts).encode()).hexdigest()[:16]


def test_the_forms_number_is_bumped_with_each_change_of_the_forms():
    from asz_core.reading.export_forms import FORMS, FORMS_SAID

    assert FORMS in FORMS_SAID
    assert FORMS_DIGESTS.get(FORMS) == _forms_digest(), (
        "the credential forms changed: bump asz_core.reading.export_forms.FORMS (and FORMS_SAID, docs/verify.md) and "
        f"record {_forms_digest()} for it here; a copy of the earlier forms then verifies with a note")
