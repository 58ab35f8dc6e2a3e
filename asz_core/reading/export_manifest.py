"""The manifest ``asz export --redact`` writes beside a masked copy, and its check (``asz verify --export``).

A masked copy cannot be checked against the landed files' digests: its texts are not theirs. So beside each file a
masked export writes (``--out FILE``, or each conversation's file of ``--out DIR``) lies ``FILE.manifest.json``
(:data:`SCHEMA`), which says:

- ``export``: the copy's name, size in bytes, SHA-256, and the first 16 hex digits of the SHA-256 of each of its lines
  (the copy cut at each ``\\n``, the piece after the last one included), so a changed line is found without the root;
- ``made``: how it was made (format, form, ``view.hide``, the window in unix ms), so the root's holder makes it again;
- ``conversations``: per conversation its state, head round (number and digest) and every landed file's digest, as
  the asz.view document lists them (seed 004, Top level);
- ``masks``: per mask its place in the copy (``line`` and ``column`` from 1, ``column`` in characters; ``offset``
  and ``length`` in bytes), the credential's form (``kind``), what stands in its place (``shown``), the credential's
  fingerprint (as ``asz secrets`` prints it) and ``texts_sha256``: the SHA-256 of each unmasked text (a prompt, a
  reply, a tool's input or result, a title) the credential was masked in.

What the receiver checks alone (:func:`check_copy`): the copy is the one the manifest describes, byte for byte, and
each mask stands where the manifest says; the manifest is the one whose digest the sender gave them on another
channel. What needs the root (:func:`check_against_root`): the holder makes the copy again from the landed files,
masked text by text as the export masks, so every text outside a mask equals the landed one, every mask stands over
a credential of its form, and each ``texts_sha256`` is that of landed texts. Exit codes and lines: docs/verify.md, "A masked export".
"""

from __future__ import annotations

import hashlib
import os
from pathlib import Path
from typing import Callable, Optional

import orjson

from ..storage.out_path import put_in_place, temp_write
from ..storage.root import gone_if_raised
from ..view.chain import as_of
from .export_keyed import MASK_DIGESTS, compared, keyed
from .export_later import as_earlier, key_differences
from .export_problems import problems_then
from .export_render import ESCAPED_MASKS_RENDER, RENDER, as_forms, as_render
from .export_typed import AROUND, classed, origin, origins, plain
from .export_calls import thinking_gone
from .export_docs import entry_checked
from .export_forms import FORMS, as_left_out
from .export_refusals import refusals_gone
from .line_diff import differing
from .export_retention import (html_lines, in_copy, json_removed, lines_said, removed_blocks, removed_lines, retention_spans, span_lines, text_removed)

#: The manifest's format and version (1.x adds keys, never removes or renames one).
SCHEMA = "asz.export-manifest/1"
#: Hex digits kept of each line's SHA-256: enough to tell a changed line, short enough for a long copy.
LINE_DIGITS = 16
#: At most this many differing places are named (then how many more).
NAMED = 10


def manifest_path(copy: Path) -> Path:
    """``FILE.manifest.json`` beside the copy ``FILE`` (``c.html`` -> ``c.html.manifest.json``)."""
    return copy.with_name(copy.name + ".manifest.json")


def sha256(data: bytes) -> str:
    """The SHA-256 of ``data`` in hex."""
    return hashlib.sha256(data).hexdigest()


def _forms(shown: str, kind: str, render: int) -> list[tuple[str, int]]:
    """How a mask's ``shown`` text can stand in a written copy: as it is (md), escaped in a JSON string (json, prose),
    in HTML, from render 22 as md escapes it beside active content (``\\[private key left out]``: ``md_active``); each
    with the characters before the mask the form holds (a ``***`` looked for as ``:***@``: no Markdown ``***``)."""
    import html

    out, md = [], (shown.replace("[", "\\[").replace("<", "\\<"),) if render >= ESCAPED_MASKS_RENDER else ()
    for form in dict.fromkeys((shown, orjson.dumps(shown).decode()[1:-1], html.escape(shown), *md)):
        out.append((f":{form}@", 1) if kind == "url-password" else (form, 0))
    return out


def mask_places(copy: bytes, seen: list, render: int = RENDER) -> list[dict]:
    """Each mask in the written ``copy`` (UTF-8), in its order: where it stands (``line`` and ``column`` from 1, the
    column in characters; ``offset`` and ``length`` in bytes), its ``kind``, ``shown``, ``fingerprint`` and
    ``texts_sha256``: the SHA-256 of each unmasked text the credential was masked in. ``seen`` is what
    :class:`~asz_core.view.secret_forms.recording` gathered while the copy was made (texts and their masks, and the
    texts holding a ``***`` no mask put there); a mask is each place the copy holds one of their shown texts (as
    written in md, JSON or HTML) that the masker put there. A shown text a cut took part of (a title cut to its
    length) is text, not a mask.

    From render 12 (review37), where a shown text also stands in the texts as they were typed (a password's ``***``
    beside Markdown's ``***bold***`` or ``***`` rule) or stands for credentials of more than one form (a named
    password's and a URL's ``***``), each place in the copy is the occurrence, a mask or a typed one, whose text around
    it (:func:`~asz_core.reading.export_typed.plain`) is most like the copy's, so only the masker's masks are listed, each with its own form; a
    manifest of render 11 or before listed every such place as a mask of the first form seen, and is checked so
    (``render``)."""
    by_shown: dict[str, dict] = {}
    for text, cuts in seen:
        digest = sha256(text.encode("utf-8", "surrogateescape"))
        for mark, kind, shown, around in _around(text, cuts):
            e = by_shown.setdefault(shown, {"kind": kind, "fingerprint": mark, "texts_sha256": [], "marks": {},
                                            "kinds": set(), "origins": []})
            e["kinds"].add(kind)
            got = e["marks"].setdefault(mark, {"texts_sha256": [], "around": [], "kind": kind})
            got["around"].append(around)
            for held in (e, got):
                if digest not in held["texts_sha256"]:
                    held["texts_sha256"].append(digest)
    if render >= 12:
        origins(seen, by_shown)
    text = copy.decode("utf-8", "surrogateescape")
    found: list[tuple[int, int, str, str]] = []  # (start, end, shown, kind) in characters of text
    for shown, e in by_shown.items():
        for kind in sorted(e["kinds"]) if classed(e) else (e["kind"],):
            for form, lead in _forms(shown, kind, render):
                at = text.find(form)
                while at >= 0:
                    found.append((at + lead, at + len(form) - (1 if lead else 0), shown, kind))
                    at = text.find(form, at + 1)
    found.sort(key=lambda f: (f[0], -(f[1] - f[0]), f[3] != "url-password"))
    out, end = [], 0
    line, line_start, at, offset = 1, 0, 0, 0
    for k, (a, b, shown, kind) in enumerate(found):
        if a < end or (k and found[k - 1][:2] == (a, b)):
            continue  # inside a longer one, or the same place found for another form
        e = by_shown[shown]
        if classed(e):
            forms = {f[3] for f in found[k:k + len(e["kinds"])] if f[:2] == (a, b)}
            took = origin(e["origins"], forms, plain(text[max(a - 400, 0):a])[-AROUND:], plain(text[b:b + 400])[:AROUND])
            if took is None:
                continue  # a *** typed in a text (Markdown), no mask
            kind, mark, texts = took
        else:
            kind = e["kind"]
            mark = _which(e["marks"], text[max(a - 300, 0):a], text[b:b + 300]) if len(e["marks"]) > 1 else e["fingerprint"]
            texts = e["marks"][mark]["texts_sha256"] if len(e["marks"]) > 1 else e["texts_sha256"]
        piece = text[at:a]
        line += piece.count("\n")
        if "\n" in piece:
            line_start = at + piece.rfind("\n") + 1
        offset += len(piece.encode("utf-8", "surrogateescape"))
        written = text[a:b].encode("utf-8", "surrogateescape")
        out.append({"mask": len(out) + 1, "line": line, "column": a - line_start + 1, "offset": offset,
                    "length": len(written), "kind": kind, "shown": text[a:b], "fingerprint": mark,
                    "texts_sha256": texts})
        offset += len(written)
        line += text[a:b].count("\n")
        at = end = b
    return out


def _around(text: str, cuts: list) -> list[tuple[str, str, str, tuple[str, str]]]:
    """``(fingerprint, kind, shown, (before, after))`` of each mask of ``text`` (``cuts``, as
    :class:`~asz_core.view.secret_forms.recording` gives them): up to 60 characters of the masked text each side of it."""
    out, masked, at = [], [], 0
    for a, b, shown, mark, kind in cuts:
        masked.append(text[at:a])
        out.append([mark, kind, shown, sum(map(len, masked))])
        masked.append(shown)
        at = b
    whole = "".join(masked) + text[at:]
    return [(mark, kind, shown, (whole[max(x - 60, 0):x], whole[x + len(shown):x + len(shown) + 60]))
            for mark, kind, shown, x in out]


def _bare(text: str) -> str:
    """``text``'s letters and digits alone, an escape (JSON's ``\\n``, an HTML entity) taken out first: what two forms
    of one text (md, JSON, HTML) share."""
    import re

    return re.sub(r"[^0-9A-Za-z]", "", re.sub(r"\\[nrtu\\\"/]|&#?\w+;", " ", text))


def _which(marks: dict, before: str, after: str) -> str:
    """Of several credentials one ``shown`` text stands for (PEM private keys of one type: each shows its first line
    alone), the fingerprint of the one whose masked text around it is most like the copy's ``before`` and ``after`` it
    (the first of equals), so each mask names its own credential (small26: every key of a type took the first's)."""
    def alike(x: str, y: str) -> int:
        n = 0
        while n < min(len(x), len(y)) and x[n] == y[n]:
            n += 1
        return n

    b, f = _bare(before)[::-1], _bare(after)
    return max(marks, key=lambda m: max(alike(_bare(x)[::-1], b) + alike(_bare(y), f) for x, y in marks[m]["around"]))


def line_digests(data: bytes) -> list[str]:
    """The first :data:`LINE_DIGITS` hex digits of each line's SHA-256 (``data`` cut at each ``\\n``)."""
    return [sha256(x)[:LINE_DIGITS] for x in data.split(b"\n")]


def evidence(doc: dict) -> dict:
    """A conversation's entry of ``conversations``: its id, state, head round and landed files' digests, from its
    asz.view document (seed 004, Top level: ``head``, ``summary.state``, ``files``)."""
    head = doc.get("head") or {}
    return {"conversation": doc.get("conversation"), "state": (doc.get("summary") or {}).get("state"),
            "head": {"round": head.get("round"), "digest": head.get("digest")},
            "files": [{"file": f.get("file"), "digest": f.get("digest")} for f in doc.get("files") or ()]}


def manifest(name: str, copy: bytes, made: dict, conversations: list[dict], entries: list[dict],
             root: Optional[Path] = None) -> dict:
    """The manifest of the copy ``copy`` written as ``name`` (see the module). A masked copy's (``made["redact"]``)
    masks keyed by ``root``'s mask key (:func:`keyed`; made when the root has none, trial 37a F1), named in
    ``mask_digests``; a root the key can be neither read from nor made in: its masks carry neither ``fingerprint``
    nor ``texts_sha256`` (``mask_digests.mac`` ``none``, with why), never an unkeyed digest."""
    from .. import __version__

    digests = {}
    if root is not None and made.get("redact") is not False:
        from ..storage.mask_key import key_id, mask_key, say_unkeyed

        credentials = len({e["fingerprint"] for e in entries})
        try:
            key = mask_key(root)
            entries, digests = keyed(entries, key), {"mac": "hmac-sha256", "key": key_id(key)}
        except OSError as exc:
            entries = [{k: v for k, v in e.items() if k not in MASK_DIGESTS} for e in entries]
            digests = say_unkeyed(exc)
    else:
        credentials = len({e["fingerprint"] for e in entries})
    return {"schema": SCHEMA, "asz": __version__, "render": RENDER, "masks_forms": FORMS,
            "export": {"file": name, "bytes": len(copy), "sha256": sha256(copy), "lines": line_digests(copy)},
            "made": made, "conversations": conversations,
            "masked": {"places": len(entries), "credentials": credentials},
            **({"mask_digests": digests} if digests else {}), "masks": entries}


def manifest_bytes(body: dict) -> bytes:
    """A manifest's bytes as written (indented JSON and a newline)."""
    return orjson.dumps(body, option=orjson.OPT_INDENT_2) + b"\n"


def write_whole(path: Path, data: bytes) -> None:
    """``data`` into ``path``, whole or not at all: written as ``PATH.part`` (removed whatever stops the write, session
    41; a killed export's by the next folder export), which then replaces ``path``. Raises OSError (NotRegular)."""
    part = path.with_name(path.name + ".part")
    with gone_if_raised(part):
        temp_write(part, data)  # never through a link planted at PATH.part (fix47j; out_path.temp_open)
        stop_for_test("part")
        put_in_place(part, path)  # never over a FIFO, a device or a link: the .part removed (trial 47b F1)


#: A test hook (tests/reading/test_export_resume.py, asz_core/cli/export_resume.py): ``POINT:N`` stops the process (SIGSTOP) at the Nth time it
#: reaches ``POINT`` (:func:`stop_for_test`), so a test sends its signal at a known point, no sleep deciding it.
STOP_ENV = "ASZ_TEST_EXPORT_STOP"
_reached: dict[str, int] = {}


def stop_for_test(point: str) -> None:
    """:data:`STOP_ENV`'s stop: SIGSTOP to this process the Nth time ``point`` is reached; nothing without the variable.
    Points: ``part`` (a ``FILE.part`` written, not yet renamed), ``copy`` (a copy in place, its manifest not yet),
    ``wrote`` (a copy and its manifest in place, its partial manifest line not yet), ``index`` (every copy written,
    the index page not yet), ``folder`` (the index written and the partial manifest removed, the folder manifest not yet)."""
    name, _, n = os.environ.get(STOP_ENV, "").partition(":")
    if not name or name != point:
        return
    _reached[point] = _reached.get(point, 0) + 1
    if str(_reached[point]) == (n or "1"):
        import signal

        os.kill(os.getpid(), signal.SIGSTOP)


def write_manifest(copy: Path, body: dict) -> tuple[Path, str]:
    """Write ``copy``'s manifest ``body``, whole or not at all: its path and own SHA-256 (sent on a second channel)."""
    path = manifest_path(copy)
    data = manifest_bytes(body)
    write_whole(path, data)
    return path, sha256(data)


def read_manifest(path: Path) -> dict:
    """The manifest at ``path``; raises ValueError naming what is wrong (not JSON, not this schema)."""
    try:
        body = orjson.loads(path.read_bytes())
    except orjson.JSONDecodeError as exc:
        raise ValueError(f"{path}: not a manifest: not JSON ({exc})") from None
    if not isinstance(body, dict) or not str(body.get("schema", "")).startswith(SCHEMA.rsplit("/", 1)[0] + "/1"):
        raise ValueError(f"{path}: not a manifest of asz export (schema {SCHEMA})")
    return body


def _excerpt(line: bytes, col: int) -> str:
    """A short piece of a line of a masked copy around character ``col`` (0-based), for a problem line."""
    text = line.decode("utf-8", "replace")
    a = max(0, col - 20)
    return repr(text[a:a + 50])


def _mask_at(entries: list[dict], line: int, col: int) -> Optional[dict]:
    """The mask of ``entries`` whose shown text covers character ``col`` (1-based) of ``line``, if any."""
    for e in entries:
        shown = e["shown"]
        if "\n" in shown:  # a mask over several lines: its first line's part, then whole lines
            end_line = e["line"] + shown.count("\n")
            if (line == e["line"] and col >= e["column"]) or e["line"] < line < end_line \
                    or (line == end_line and col <= len(shown.rpartition("\n")[2])):
                return e
        elif line == e["line"] and e["column"] <= col < e["column"] + max(len(shown), 1):
            return e
    return None


def _mask_said(e: dict) -> str:
    return f"mask {e['mask']} ({e['kind']}, {e['shown']!r} at line {e['line']} column {e['column']})"


def check_copy(copy: bytes, body: dict, manifest_bytes: bytes, given_sha: str = "") -> tuple[list[str], list[str]]:
    """What the receiver checks alone: ``(said, problems)``. ``given_sha``: the manifest's SHA-256 as the sender gave
    it on a second channel ('' when not given: then said as not checked). Each problem names the place: a line of the
    copy not the one the manifest digested, and whether one of its masks was changed or the text beside them."""
    said, problems = [], []
    own = sha256(manifest_bytes)
    if given_sha:
        if given_sha.strip().lower() != own:
            problems.append(f"manifest: its SHA-256 is {own}, not the {given_sha.strip()} given: it is not the manifest "
                            "the sender vouched for")
        else:
            said.append(f"the manifest is the one vouched for (SHA-256 {own})")
    else:
        said.append(f"the manifest's own SHA-256 is {own}: compare it with the digest the sender gave on another "
                    "channel (--sha256 HEX compares it)")
    exp = body.get("export") or {}
    entries = body.get("masks") or []
    if sha256(copy) == exp.get("sha256") and len(copy) == exp.get("bytes"):
        said.append(f"the copy is the one its manifest describes: {len(copy):,} bytes, SHA-256 {exp.get('sha256')}, "
                    f"{len(entries)} mask(s) of {(body.get('masked') or {}).get('credentials', 0)} credential(s)")
    else:
        problems.append(f"copy: its SHA-256 is {sha256(copy)} ({len(copy):,} bytes), not the manifest's "
                        f"{exp.get('sha256')} ({exp.get('bytes', 0):,} bytes): the copy was changed")
        problems += _changed_lines(copy, exp.get("lines") or [], entries)
    lines = copy.split(b"\n")
    for e in entries:  # each mask where the manifest says, as it says (by its line: a change elsewhere moves no mask)
        got = _at_mask(lines, e)
        if got != e["shown"]:
            problems.append(f"line {e['line']} column {e['column']}: inside {_mask_said(e)}: the copy holds "
                            f"{got!r} there")
    return said, problems


def _at_mask(lines: list[bytes], e: dict) -> str:
    """What the copy (cut in ``lines``) holds where mask ``e`` stands: as many characters as its ``shown`` from its
    line and column ('' past the copy's end)."""
    line = lines[e["line"] - 1].decode("utf-8", "surrogateescape") if 0 < e["line"] <= len(lines) else ""
    n = e["shown"].count("\n")
    if n:  # a mask over several lines
        line = "\n".join(x.decode("utf-8", "surrogateescape") for x in lines[e["line"] - 1:e["line"] + n])
    return line[e["column"] - 1:e["column"] - 1 + len(e["shown"])]


def _line_changes(was: list, now: list):
    """Where list ``now`` (a copy's lines or their digests) differs from ``was``: ``(j, i, gone)`` for each line ``j``
    of ``now`` that is not ``was``'s (``i`` the line of ``was`` it replaces, None for one added, ``gone`` 0), and
    ``(j, None, n)`` where ``n`` lines of ``was`` are missing before line ``j``. Laid as :class:`difflib.SequenceMatcher`
    lays them, without its cost on lines that repeat (:mod:`~asz_core.reading.line_diff`)."""
    for op, i1, i2, j1, j2 in differing(was, now):
        if j1 == j2:
            yield j1, None, i2 - i1
            continue
        for j in range(j1, j2):
            i = i1 + (j - j1)
            yield j, (i if op == "replace" and i < i2 else None), 0


def _changed_lines(copy: bytes, digests: list[str], entries: list[dict]) -> list[str]:
    """The lines of ``copy`` whose digest is not the manifest's (``digests``), each said with the masks on it: a
    changed mask is named by :func:`check_copy`; a line whose masks stand whole was changed beside them."""
    lines = copy.split(b"\n")
    out = []
    for j, i, gone in _line_changes(digests, line_digests(copy)):
        if gone:
            out.append(f"line {j + 1}: {gone} line(s) of the manifest's copy are gone here")
        else:
            on = [e for e in entries if e["line"] == j + 1]
            whole = [e for e in on if _at_mask(lines, e) == e["shown"]]
            where = (f"outside its mask(s) ({', '.join(_mask_said(e) for e in whole)} stand whole)" if on and len(whole) == len(on)
                     else "at one of its masks (below; text beside it may have changed too)" if on else "outside any mask")
            what = "changed" if i is not None else "added"
            out.append(f"line {j + 1}: {what} since the manifest was written, {where}: {_excerpt(lines[j], 0)}")
    return out[:NAMED] + ([f"… and {len(out) - NAMED} more line(s)"] if len(out) > NAMED else [])


def check_against_root(copy: bytes, body: dict, docs: Callable[[str], dict],
                       again_of: Callable[[str], tuple[bytes, list]], key: Optional[bytes] = None) -> tuple[list[str], list[str]]:
    """What the root's holder checks: ``(said, problems)``. ``docs(cid)`` is a conversation's asz.view document now,
    ``again_of(cid)`` the copy made again from the root, masked (as ``made`` says), with what
    :class:`~asz_core.view.secret_forms.recording` gathered while it was made. Each landed file and the
    head round must be the manifest's; the copy must be the masking of what the root gives, byte for byte: a place
    where it is not is named by line and column, inside a mask (the mask is not the masking of the landed
    credential) or outside (a text that is not the landed one, or a mask over a text that holds no credential);
    and each mask of the manifest must be one the masking makes, with the landed texts' ``texts_sha256`` (keyed by
    ``key``, the root's mask key, when the manifest's were: :func:`~asz_core.reading.export_keyed.compared`)."""
    said, problems = [], []
    again, seen = b"", []
    pruned: set[str] = set()  # the conversations a landed file of which retention removed (a skeleton stands for it)
    for entry in body.get("conversations") or ():  # each made again, then held to the manifest (export_docs)
        made, got = entry_checked(entry.get("conversation"), entry, body, docs, again_of, said, problems, pruned)
        again, seen = again + made, seen + got
    again = as_left_out(copy, as_forms(copy, as_render(_keys_then(copy, again, body, said), int(body.get("render") or 1), (body.get("made") or {}).get("format"))), body, said)
    entries, listed, uncompared, sat_in = compared(body, key, mask_places(again, seen, int(body.get("render") or 1)))  # keyed as the manifest's
    spans = None
    if again == copy:
        said.append(f"every text outside the masks is the landed one (made again from the root, byte for byte), "
                    f"and each of the {len(entries)} mask(s) stands over a credential of its form")
    else:
        made = body.get("made") or {}
        gone_lines, spans, wrong = _retention_differences(copy, again, entries, pruned, made.get("format"), bool(made.get("brief")),
                                                          int(body.get("render") or 1))
        problems += wrong
        if gone_lines:
            said.append(f"not checkable: removed by retention: {len(gone_lines):,} line(s) of the copy ({lines_said(gone_lines)}) "
                        "differ from the root only where asz prune took the landed text (a skeleton keeps its size, "
                        "not the text), so what they say cannot be held to the root; the rest of the copy is the "
                        "root's (docs/verify.md)")
    said += [uncompared] * bool(uncompared)
    mine, keys, free = _root_masks(entries, spans, pruned)
    for e in listed:
        m = mine.get(e.get("offset")) if spans else mine.get(e.get("mask")) if not free else next(
            (free.pop(k) for k, x in enumerate(free) if (x.get("fingerprint"), x["kind"]) == (e.get("fingerprint"), e.get("kind"))), None)
        if m is None and pruned and (e.get("line") in gone_lines or any(
                c0 <= (e.get("offset") or 0) < c1 for _, _, c0, c1 in spans or ())):
            said.append(f"{_mask_said(e)}: not checkable: removed by retention (the landed text it sat in went)")
            continue
        if m is None:
            problems.append(f"{_mask_said(e)}: the masking of the root's text makes no such mask")
            continue
        for key in keys:
            if m.get(key) != e.get(key):
                problems.append(f"{_mask_said(e)}: its {key} in the manifest is not the masking's ({m.get(key)})")
    if len(entries) > len(listed):
        problems.append(f"the masking of the root's text makes {len(entries)} mask(s), the manifest lists {len(listed)}")
    elif not problems:
        said.append(f"each of the manifest's {len(listed)} mask(s) is the masking's{sat_in}")
    return said, problems


def _keys_then(copy: bytes, again: bytes, body: dict, said: list[str]) -> bytes:
    """``again`` as the copy's asz wrote it (json: :func:`~.export_later.as_earlier`), problems the copy's (:func:`problems_then`)."""
    again, later = problems_then(copy, again, fmt := (body.get("made") or {}).get("format"))
    again, earlier = as_earlier(copy, again) if fmt == "json" else (again, [])
    said += earlier + later
    return again


def moved_on(cid: str, doc: dict, was: dict, docs: Callable[[str], dict]) -> tuple[Optional[int], str]:
    """A conversation whose head round is not the manifest's (``was``; ``doc`` its document now): ``(the manifest's
    round, the line saying the root moved on and what the rounds after it add)`` when the root still holds that round
    with the manifest's digest (rounds are write-once: a grown conversation keeps every round before its head; trial
    31b F1), else ``(None, the problem)``: the round is not in the root, or with another digest (another root, or a
    chain made again)."""
    head = doc.get("head") or {}
    n, digest = was.get("round"), was.get("digest")
    there = None
    if isinstance(n, int) and 0 < n < (head.get("round") or 0):
        try:
            with as_of(cid, n):
                there = docs(cid)
        except (LookupError, ValueError, RuntimeError):  # ViewError: no usable round through n
            there = None
    if there is None or (there.get("head") or {}).get("digest") != digest:
        held = "" if there is None else f"; the root's round {n} is {(there.get('head') or {}).get('digest')}"
        return None, (f"{cid}: its head round is now {head.get('round')} ({head.get('digest')}), not the manifest's "
                      f"{n} ({digest}), and the root does not hold the manifest's round{held}: another root, or its "
                      "chain was made again; the check makes the copy from this head")
    a, b = there.get("summary") or {}, doc.get("summary") or {}
    files = [f for f in doc.get("files") or () if f.get("format") == "sd"
             and f.get("file") not in {x.get("file") for x in there.get("files") or ()}]
    seqs = sorted(f.get("seq") for f in files if isinstance(f.get("seq"), int))
    added = [f"{len(files)} landed file(s)" + (f" (seq {seqs[0]}{'–' + str(seqs[-1]) if len(seqs) > 1 else ''})" if seqs else "")]
    for key, word in (("talks", "talk(s)"), ("steps", "step(s)"), ("llm_calls", "call(s)")):
        if isinstance(a.get(key), int) and isinstance(b.get(key), int):
            added.append(f"{b[key] - a[key]:+,} {word}")
    return n, (f"{cid}: the root moved on since the export: round {n} → {head.get('round')} ({head.get('digest')}), "
               f"the rounds after the manifest's adding {', '.join(added)}; round {n} is still in the root with the "
               f"manifest's digest (rounds are write-once), so the copy is made again as of round {n}")


def _root_masks(entries: list[dict], spans, pruned: set) -> tuple[dict, tuple, list]:
    """How the manifest's masks are matched to the root's (``entries``): by their place in the copy (after a marker,
    moved by what it stands for: ``spans`` of :func:`~asz_core.reading.export_retention.retention_spans`), by number
    (nothing pruned), or, the copy laid over a pruned root line by line, in order by credential and form (``free``:
    a mask before it may have gone with its text); ``(by place or number, keys compared, free)``."""
    if spans:
        return {in_copy(m["offset"], spans): m for m in entries}, ("kind", "texts_sha256"), []
    if pruned and spans is not None:
        return {}, ("kind", "texts_sha256"), list(entries)
    return {e["mask"]: e for e in entries}, ("kind", "offset", "texts_sha256"), []


def _retention_differences(copy: bytes, again: bytes, entries: list[dict], pruned: set,
                           fmt: Optional[str], brief: bool = False, render: int = 1) -> tuple[set[int], Optional[list], list[str]]:
    """The copy against the copy made again from a root (``again``) that differs from it: ``(not checkable lines
    (from 1), spans, problems)``. Of a conversation retention pruned, a line whose landed text retention took is
    not checkable (:mod:`~asz_core.reading.export_retention`): ``--audit``'s lines key by key, the text form's blocks
    so, a json document key by key, an md or html copy laid over the root's markers (``spans``: where each stands,
    [] when laid line by line or key by key, None when nothing was laid so); every other difference is a problem
    (trial 29a F1). ``render``: the copy's; a brief copy of render 48 on holds its results' sizes to the root's."""
    gone, spans, skip_gone, laid = removed_lines(copy, again, pruned), None, set(), again
    if pruned and fmt == "text":  # the text form: block by block, as --audit's lines
        missing: set[int] = set()
        gone |= text_removed(copy, again, pruned, missing)
        skip_gone = {n for line in gone for n in (line - 1, line)} | missing
    elif pruned and fmt == "json" and (keyed := json_removed(copy, again)) is not None:  # the document key by key
        wrong = keyed[1]
        gone |= set(range(1, copy.rstrip(b"\n").count(b"\n") + 2)) if keyed[0] and not wrong else set()
        return gone, [], wrong[:NAMED] + ([f"… and {len(wrong) - NAMED} more place(s)"] if len(wrong) > NAMED else [])
    elif pruned and fmt in ("md", "html"):  # the copy is the root's but where a marker stands
        again, refusals = refusals_gone(copy, again)  # a refusal read from its result's text, which went
        again, thought = thinking_gone(copy, again)  # which thinking blocks held a text, which went (render 16)
        gone |= refusals | thought
        spans = retention_spans(copy, again)
        if spans is not None:
            return gone | span_lines(copy, again, spans), spans, []
        if fmt == "md":
            from .export_brief_laid import brief_laid

            more, laid = removed_blocks(copy, again, brief_laid(render) if brief else None)  # the brief form's lines too (fix48l)
            gone |= more
        else:  # html: element by element, each said at its line of the copy
            (cut, at), (again_cut, _) = html_lines(copy), html_lines(again)
            more, laid = removed_blocks(cut, again_cut)
            wrong = _differences(cut, laid, [], more)
            bad = {at[int(w.split()[1].rstrip(":")) - 1] for w in wrong if w.split()[1].rstrip(":").isdigit()}
            return gone | ({at[n - 1] for n in more} - bad), [], [_html_at(w, at) for w in wrong]
        spans = []
    elif fmt == "json" and not pruned and (keys := key_differences(copy, again)):  # a key, not a text (39c F2)
        return gone, spans, keys
    return gone, spans, _differences(copy, laid, entries, gone, skip_gone)


def _html_at(problem: str, at: list[int]) -> str:
    """A problem :func:`_differences` named on an html copy cut between its tags
    (:func:`~asz_core.reading.export_retention.html_lines`), said at its line of the copy."""
    head, sep, rest = problem.partition(": ")
    words = head.split()
    if len(words) >= 2 and words[0] == "line" and words[1].isdigit() and 0 < int(words[1]) <= len(at):
        return f"line {at[int(words[1]) - 1]} (element {words[1]}{' ' + ' '.join(words[2:]) if words[2:] else ''}){sep}{rest}"
    return problem


def _spots(a: str, b: str) -> list[int]:
    """Where line ``a`` (the copy's) differs from ``b`` (the landed one, masked): the first column (0-based) of each
    run of differing characters when both are as long (characters replaced), else the first column that differs."""
    if len(a) == len(b):
        return [k for k in range(len(a)) if a[k] != b[k] and (k == 0 or a[k - 1] == b[k - 1])]
    return [next((k for k, (x, y) in enumerate(zip(a, b)) if x != y), min(len(a), len(b)))]


def _differences(copy: bytes, again: bytes, entries: list[dict], removed: set[int] = frozenset(),
                 removed_before: set[int] = frozenset()) -> list[str]:
    """Each place the copy differs from ``again`` (the copy made again from the root and masked; ``entries`` its
    masks), by line and column (characters, from 1), said inside or outside a mask; the lines of ``removed``
    (:func:`~asz_core.reading.export_retention.removed_lines`, :func:`~asz_core.reading.export_retention.removed_blocks`: not checkable, retention took their text) and the root's
    lines missing before a line of ``removed_before`` (0-based) not."""
    mine, theirs = copy.split(b"\n"), again.split(b"\n")
    out = []
    for j, i, gone in _line_changes(theirs, mine):
        if (not gone and j + 1 in removed) or (gone and j in removed_before):
            continue
        if gone:
            out.append(f"line {j + 1}: {gone} line(s) of the landed text are missing from the copy here")
        elif i is None:
            out.append(f"line {j + 1}: not in the landed text (added): {_excerpt(mine[j], 0)}")
        else:
            a, b = mine[j].decode("utf-8", "surrogateescape"), theirs[i].decode("utf-8", "surrogateescape")
            for col in _spots(a, b):
                e = _mask_at(entries, i + 1, col + 1)
                if e is not None:
                    out.append(f"line {j + 1} column {col + 1}: inside {_mask_said(e)}: the copy's "
                               f"{_excerpt(mine[j], col)} is not the masking of the landed credential")
                else:
                    out.append(f"line {j + 1} column {col + 1}: outside the masks: the copy's text is not the landed "
                               f"text (a text changed, or a mask where the landed text holds no credential): copy "
                               f"{_excerpt(mine[j], col)}, landed (masked) {_excerpt(theirs[i], col)}")
    return out[:NAMED] + ([f"… and {len(out) - NAMED} more place(s)"] if len(out) > NAMED else [])
