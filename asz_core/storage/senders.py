"""The sender record of a receiving root: who sent each landed file (trial 19, F3 and F17; docs/push.md).

``asz receive`` lands the bytes ``asz push`` sends, write-once, and nothing
in those bytes says which instance sent them. Beside them, never inside,
it appends one JSON line per file it lands to ``<root>/_received/<session
directory>.senders``::

    {"file":"<session>/streams/main/transcript-…-000001.sd","sha256":"9f2c…","received_at":"2026-12-04T00:20:01.5Z",
     "instance":"dev@hostA","service":"Claude Code","credential":"alice","prev":"<sha256 of the line before>",
     "digest":"<sha256 of this line's JSON without digest>"}

``file`` and ``sha256`` name the landed file (its whole bytes' SHA-256, what
``asz.file.digest`` said and the receiver checked); ``received_at`` when it
landed (the receiver's clock); ``instance`` and ``service`` the
``service.instance.id`` and ``service.name`` of the request's resource
(``null`` when absent); ``credential`` the name the receiver's token file
gives the token the request carried (``null``: no token, or one unnamed
token; a token itself is never written). ``prev`` is the SHA-256 of the line
before (``""`` for the first) and ``digest`` the SHA-256 of the line's own
JSON without it, so the file is evidence of its own with its own digests:
a line edited, dropped or put back in another order breaks them
(:func:`read_senders` says where). Like every digest in asz this is
integrity, not authenticity: whoever can write the root can write a
consistent record. It cannot be derived from the
landed files (they are byte for byte what the pusher landed), so it is not
under ``_index/`` (derived, deletable); it is not Session Data either, and
``asz verify`` checks it apart: every line reads, the chain holds, and each
file it names is in the root with that digest (or a skeleton of it).

Lines are appended under the receiver's landing lock, written whole and
fsynced after each request's files landed; a crash can leave a last line
cut short, which readers skip and say.
"""

from __future__ import annotations

import errno
import hashlib
import os
import re
from pathlib import Path
from typing import Any, Callable, Collection, Optional

import orjson

from ..sessiondata.spelling import folded, nfc
from .senders_more import ALSO_HELD, UNWRITTEN, UNWRITTEN_SAID, UNWRITTEN_SENDER, held_entries, unwritten_entry

__all__ = ["RECEIVED", "BEFORE", "BEFORE_NONE", "BEFORE_EARLIER", "NOT_RECEIVED", "THIS_HOST", "unsent_label", "append_chained", "list_landed_before", "SendersRead", "append_senders", "before_entry", "instance_label", "listed_before", "RECEIVED_BEFORE", "read_senders", "sender_matches",
           "senders_path", "senders_summary", "sender_label", "session_senders", "settled_senders", "senders_line", "credentials_of", "mixed_credentials", "mixed_problem", "NO_CREDENTIAL", "UNVERIFIED", "UNVERIFIED_SENDER", "file_senders", "instance_word", "label_parts", "named_senders",
           "UNWRITTEN", "UNWRITTEN_SENDER", "unwritten_entry", "ALSO_HELD", "held_entries",
           "read_while_unchanged"]

#: The directory of the sender records in a receiving root.
RECEIVED = "_received"


def senders_path(root: str | os.PathLike, session_dir: str) -> Path:
    """``<root>/_received/<session_dir>.senders``."""
    return Path(root) / RECEIVED / f"{session_dir}.senders"


def _last_line(path: Path) -> bytes:
    try:
        with open(path, "rb") as f:
            f.seek(0, os.SEEK_END)
            size = f.tell()
            f.seek(max(0, size - 65536))
            tail = f.read()
    except FileNotFoundError:
        return b""
    lines = tail.split(b"\n")
    return lines[-2] + b"\n" if len(lines) >= 2 else b""


def append_senders(root: str | os.PathLike, session_dir: str, entries: list[dict]) -> None:
    """Append ``entries`` (each: ``file``, ``sha256``, ``received_at``, ``instance``, ``service``, ``credential``) to
    the session's sender record, each line chained to the one before (``prev``), then fsync. Raises OSError."""
    append_chained(senders_path(root, session_dir), entries)


def append_chained(path: Path, entries: list[dict]) -> None:
    """Append ``entries`` to ``path`` (its directory made), one JSON line each with ``prev`` (the SHA-256 of the line
    before, ``""`` for the first) and ``digest`` (of the line's JSON without it), then fsync: the shape of a sender
    record and of :data:`BEFORE`, which :func:`read_senders` reads. Raises OSError."""
    path.parent.mkdir(parents=True, exist_ok=True)
    prev = _last_line(path)
    out = bytearray()
    for e in entries:
        d = {**e, "prev": hashlib.sha256(prev).hexdigest() if prev else ""}
        line = orjson.dumps({**d, "digest": hashlib.sha256(orjson.dumps(d)).hexdigest()}) + b"\n"
        out += line
        prev = line
    fd = os.open(path, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o644)
    try:
        size = os.fstat(fd).st_size
        try:
            if os.write(fd, bytes(out)) != len(out):
                raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))
            os.fsync(fd)
        except OSError:
            os.ftruncate(fd, size)  # no torn line: the record stays as it was (a full disk, trial 41a F1)
            raise
    finally:
        os.close(fd)


#: The list, beside the sender records, of the files a receiving root held before it kept sender records
#: (``_received/before.list``): one chained line per such landed file, written once by ``asz receive``.
BEFORE = "before.list"
#: ``how`` of a :data:`BEFORE` line: the root had no sender record at all when the receiver listed it.
BEFORE_NONE = "no sender record kept yet"
#: ``how`` of a :data:`BEFORE` line: the root had sender records, none naming this file, whose first line is later
#: than the file's landing (its modification time): records begun by an asz that kept no such list.
BEFORE_EARLIER = "landed before the root's first sender line"


def _unrecorded_files(root: Path, named: set[str], before_ns: int | None) -> list[tuple[str, Path, int]]:
    """``(root-relative path, path, mtime ns)`` of each whole landed file (``*.sd``) of the sessions ``asz receive``
    landed (no ``session.state``) that ``named`` does not hold, landed before ``before_ns`` (None: any time). The
    files are :func:`~asz_core.storage.layout.landed_files`' (those verify checks), in path order."""
    from .layout import landed_files, session_dirs

    out = []
    for sdir in session_dirs(root):
        if (sdir / "session.state").exists():
            continue  # collected into this root: no sender record is kept of it
        for p in sorted(p for _, p in landed_files(sdir)):
            rel = p.relative_to(root).as_posix()
            if rel in named:
                continue
            ns = p.stat().st_mtime_ns
            if before_ns is None or ns < before_ns:
                out.append((rel, p, ns))
    return out


def list_landed_before(root: str | os.PathLike, now_ns: int) -> int:
    """Write ``<root>/_received/before.list`` (:data:`BEFORE`) once, when it is not there: the whole landed files of
    sessions ``asz receive`` landed (no ``session.state``) that no sender record names, each ``file``, ``sha256``,
    ``listed_at`` (``now_ns``, RFC 3339) and ``how``. A root with no ``_received/`` (an asz before sender records
    landed them): every such file (:data:`BEFORE_NONE`), and nothing written when there is none. A root with records
    but no list (records begun by an asz that kept none): the files landed before the first ``received_at`` of any
    record (:data:`BEFORE_EARLIER`), the list written even when empty, so a record removed later is never taken for
    one that was never kept. Returns the number of files listed; raises OSError."""
    from ..sessiondata.times import format_rfc3339, parse_instant

    root = Path(root)
    base = root / RECEIVED
    if (base / BEFORE).exists():
        return 0
    named: set[str] = set()
    first: int | None = None
    for rec in sorted(base.glob("*.senders")) if base.is_dir() else ():
        for e in read_senders(rec).entries:
            named.add(str(e.get("file")))
            at = parse_instant(e.get("received_at"))
            first = at if first is None or (at is not None and at < first) else first
    had = base.is_dir()
    files = _unrecorded_files(root, named, (first or 0) if had else None)  # records with no line: nothing before
    if not files and not had:
        return 0
    at = format_rfc3339(now_ns)
    how = BEFORE_EARLIER + f" ({format_rfc3339(first)})" if had and first is not None else BEFORE_NONE
    append_chained(base / BEFORE, [{"file": rel, "sha256": hashlib.sha256(p.read_bytes()).hexdigest(), "listed_at": at,
                                    "how": how} for rel, p, _ in files])
    return len(files)


#: The key :func:`read_senders` adds to an entry whose line does not verify (its own digest fails, or the chain breaks
#: at it or at the line after it: ``line N``): who it names is not a fact, so no reader shows it as the sender
#: (:func:`senders_summary` counts its files under :data:`UNVERIFIED_SENDER`; trial 25b F6).
UNVERIFIED = "unverified"


class SendersRead:
    """One record read: ``entries`` (the lines that read, in order; one that does not verify carries
    :data:`UNVERIFIED`) and ``problems`` (``line N: why``)."""

    def __init__(self) -> None:
        self.entries: list[dict] = []
        self.problems: list[str] = []


def read_senders(path: str | os.PathLike) -> SendersRead:
    """The lines of a sender record and what is wrong with it: a line that is no JSON object with a ``file``, a
    ``prev`` that is not the SHA-256 of the line before (edited, dropped or moved), a last line cut short. An entry
    that does not verify carries :data:`UNVERIFIED` (``line N``, its own line): its digest fails, its ``prev`` breaks,
    or it is the sender line before one whose ``prev`` breaks. A missing file reads empty. Never raises."""
    got = SendersRead()
    try:
        data = Path(path).read_bytes()
    except OSError:
        return got
    prev = b""
    last = 0  # the line number of the last entry
    lines = data.split(b"\n")
    for n, raw in enumerate(lines[:-1], 1):
        line = raw + b"\n"
        try:
            d = orjson.loads(raw)
        except orjson.JSONDecodeError:
            d = None
        if not isinstance(d, dict) or not isinstance(d.get("file"), str):
            got.problems.append(f"line {n}: not a sender line (a JSON object naming a file)")
        elif d.get("digest") != hashlib.sha256(orjson.dumps({k: v for k, v in d.items() if k != "digest"})).hexdigest():
            got.problems.append(f"line {n}: its digest is not the SHA-256 of the rest of the line: the line was changed")
            got.entries.append({**d, UNVERIFIED: f"line {n}"})
        elif d.get("prev") != (hashlib.sha256(prev).hexdigest() if prev else ""):
            got.problems.append(f"line {n}: prev is not the SHA-256 of the line before it: a line was changed, "
                                "left out or moved")
            if got.entries:  # the sender line before may be the one changed (a line between reads as none: no witness)
                got.entries[-1] = {**got.entries[-1], UNVERIFIED: got.entries[-1].get(UNVERIFIED) or f"line {last}"}
            got.entries.append({**d, UNVERIFIED: f"line {n}"})
        else:
            got.entries.append(d)
        if isinstance(d, dict) and isinstance(d.get("file"), str):  # an entry was added for it
            last = n
        prev = line
    if lines[-1]:
        got.problems.append(f"line {len(lines)}: cut short (no newline): the receiver stopped while writing it")
    return got


def file_senders(root: str | os.PathLike, session_dir: str) -> dict[str, str | None]:
    """Root-relative landed file -> the ``instance`` its line in the session's sender record names; None for a line
    that does not verify (:data:`UNVERIFIED`: it names no one) or names none. A file with no line is no key."""
    return {e["file"]: None if e.get(UNVERIFIED) else e.get("instance")
            for e in read_senders(senders_path(root, session_dir)).entries}


def senders_summary(entries: list[dict]) -> list[dict]:
    """One dict per sender (``instance``, ``credential``) in order of first file: ``instance``, ``credential``,
    ``files`` (landed files it sent), ``first_received`` and ``last_received`` (RFC 3339). The lines that do not
    verify (:data:`UNVERIFIED`) name no sender and no time: their files are one more entry, ``instance``,
    ``credential``, ``first_received`` and ``last_received`` None and ``unverified`` true, whoever and whenever those
    lines claim (a changed line's ``received_at`` is no more a fact than its ``instance``; ``asz verify`` names each
    line)."""
    out: dict[tuple, dict] = {}
    for e in entries:
        key = (e.get("instance"), e.get("credential")) if not e.get(UNVERIFIED) else (UNVERIFIED, None)
        s = out.setdefault(key, {"instance": key[0], "credential": key[1], "files": 0,
                                 "first_received": e.get("received_at"), "last_received": e.get("received_at")})
        s["files"] += 1
        s["last_received"] = e.get("received_at") or s["last_received"]
    if (UNVERIFIED, None) in out:
        out[(UNVERIFIED, None)].update(instance=None, credential=None, first_received=None, last_received=None,
                                       unverified=True)
    return list(out.values())


def session_senders(root: str | os.PathLike, session: str, files: Optional[Collection[str]] = None) -> list[dict]:
    """:func:`senders_summary` of session ``session``'s record (its id; the directory name is its
    :func:`~asz_core.storage.layout.dir_name`), of the lines naming one of ``files`` only when given (landed paths
    relative to the root, as a line's ``file``; a skeleton's path, ``….sk``, names the landed ``….sd`` it stands for
    after ``asz prune``, so that a window's copy made before retention names the same senders after); then, when ``_received/before.list`` (:data:`BEFORE`) names landed
    files of the session that the record does not, one more entry for them, :func:`before_entry`: they were received
    before the root kept sender records, by whom cannot be told. [] when the root holds neither (not a receiving root,
    or a session collected here). Never raises."""
    from .layout import dir_name

    try:
        name = dir_name(session)
    except ValueError:
        return []
    entries = read_senders(senders_path(root, name)).entries
    if files is not None:  # a skeleton (….sk) stands for the landed file (….sd) it replaced (trial 35b F1)
        files = set(files) | {f[:-3] + ".sd" for f in files if f.endswith(".sk")}
        entries = [e for e in entries if e["file"] in files]
    named = {e["file"] for e in entries}
    before = [f for f in listed_before(root).get(name, ()) if f not in named and (files is None or f in files)]
    out = senders_summary(entries) + ([before_entry(before)] if before else [])
    from .landing import left_intents  # a receiver killed between a file and its line (trial 45c F1)

    meant = {f: e for f, e in left_intents(root).items() if f.startswith(name + "/") and f not in named
             and f not in before and (files is None or f in files)}
    if meant:
        journal = os.path.relpath(next(iter(meant.values()))["journal"], root).replace(os.sep, "/")
        out.append(unwritten_entry(sorted(meant), journal))
    return out + held_entries(root, name, out)


def settled_senders(root: str | os.PathLike, sessions: Collection[str],
                    read: Callable[[str | os.PathLike, str], Any] = session_senders) -> dict[str, Any]:
    """``{session: its sender record}`` (``read``: :func:`session_senders` of a session id, or :func:`file_senders`
    of a session directory, the per-file senders ``asz search`` names for each hit) for each of ``sessions``, read once
    the requests ``asz receive`` is landing into ``root`` have ended (:func:`~asz_core.storage.landing.settle`, at
    most 30 s): a request lands its files first and writes their sender lines last, so a reader that looked in
    between called a received conversation ``(not received)`` (trial 31a F1). What ``asz ls`` (SENT BY,
    ``senders``), ``/api/conversations`` (``sent_by``), ``asz usage --instance``/``instance``, ``asz search
    --instance`` and each hit's ``sender`` of ``asz search``/``/api/search`` read; ``asz verify`` and ``asz usage``
    wait the same way before they read the records beside other files. No wait and {} for no session. Never raises."""
    from .landing import settle

    if not sessions:
        return {}
    settle(root)
    return {s: read(root, s) for s in sessions}


def before_entry(files: list[str]) -> dict:
    """The :func:`session_senders` entry of ``files`` (root-relative landed paths) that ``_received/before.list``
    lists: ``instance``, ``credential``, ``first_received`` and ``last_received`` null (not known), ``files`` their
    count and ``before_records`` true."""
    return {"instance": None, "credential": None, "files": len(files), "first_received": None, "last_received": None,
            "before_records": True}


#: (path, size, mtime_ns) -> session directory -> files of :data:`BEFORE`: read once while it is unchanged (``asz ls``
#: asks it per conversation).
_BEFORE_READ: dict[tuple, dict[str, list[str]]] = {}


def listed_before(root: str | os.PathLike) -> dict[str, list[str]]:
    """The landed files ``<root>/_received/before.list`` (:data:`BEFORE`) names, by session directory, in line order
    ({} when there is no such list or it does not read). Its lines are read as :func:`read_senders` reads them: one
    that breaks the chain still names its file here (``asz verify`` names the break)."""

    def read(path: Path) -> dict[str, list[str]]:
        got: dict[str, list[str]] = {}
        for e in read_senders(path).entries:
            rel = str(e.get("file"))
            if "/" in rel:
                got.setdefault(rel.split("/", 1)[0], []).append(rel)
        return got

    return read_while_unchanged(Path(root) / RECEIVED / BEFORE, _BEFORE_READ, read)


def read_while_unchanged(path: Path, cache: dict, read: Callable[[Path], Any]) -> Any:
    """``read(path)``, kept in ``cache`` while ``path``'s size and modification time are unchanged (one file at a time:
    a reader reads one root; ``asz ls`` asks per conversation); {} when ``path`` is not there."""
    try:
        st = path.stat()
    except OSError:
        return {}
    key = (str(path), st.st_size, st.st_mtime_ns)
    if key not in cache:
        got = read(path)
        cache.clear()
        cache[key] = got
    return cache[key]


#: The characters a sender label's own words are made of: no bare instance id holds one (:func:`instance_word`).
_LABEL_CHARS = frozenset('()",\\')


def instance_word(word: str) -> str:
    """An instance id (or a credential name) as every reader writes it in a sender's label (``asz ls`` SENT BY, ``asz
    usage instance``, ``asz senders``, ``asz conversation``'s ``sent by``, ``asz receive``'s log, the page): in its NFC
    spelling, bare when it holds nothing a label's own words are made of (a parenthesis, a quote, a backslash, a
    comma, white space other than a space inside it) and nothing :func:`~asz_core.termsafe.line_value` escapes;
    otherwise as a JSON string, ``"alice@hostA (credential alice)"``, with every control, line break, bidi and
    zero-width character as its JSON escape (``\\n``, ``\\u001b``, ``\\u202e``, ``\\u200b``), so the word decodes to
    the id exactly. The id is the pusher's own word: an id written ``alice@hostA (credential alice)`` read as a
    credential the receiver checked, and an id ``a, b`` as two senders (review34, after trial 34c F7); an id
    ``this host`` is quoted too, so no sender reads as this host (:data:`THIS_HOST`; review43b). str in, str out."""
    from ..termsafe import line_value

    w = nfc(word)
    if (w and w == w.strip() and w != THIS_HOST and not any(c in _LABEL_CHARS or (c.isspace() and c != " ") or _lookalike(c) for c in w)
            and line_value(w) == w):
        return w
    # JSON escapes for what a JSON encoder leaves as it is: DEL, C1, bidi, zero-width, U+2028, a space of another kind
    return "".join(_json_escape(ord(c)) if ord(c) > 0x7E and (line_value(c) != c or c.isspace()) else c
                   for c in orjson.dumps(w).decode())


def _lookalike(c: str) -> bool:
    """Whether a character outside ASCII reads as a label's own words: a bracket or quote of another script or width
    (``（`` U+FF08, ``❨`` U+2768, ``⁽`` U+207D, ``“`` U+201C: Unicode's open, close and quote punctuation) or one whose
    compatibility form holds one (review35: ``alice@hostA （credential alice）`` read as a checked credential)."""
    import unicodedata

    return ord(c) > 0x7E and (unicodedata.category(c) in ("Ps", "Pe", "Pi", "Pf")
                              or any(x in _LABEL_CHARS for x in unicodedata.normalize("NFKC", c)))


def _json_escape(c: int) -> str:
    """Code point ``c`` as JSON escapes it: ``\\u200b``, above U+FFFF its surrogate pair (``\\udb40\\udc41``)."""
    if c <= 0xFFFF:
        return f"\\u{c:04x}"
    c -= 0x10000
    return f"\\u{0xD800 + (c >> 10):04x}\\u{0xDC00 + (c & 0x3FF):04x}"


def sender_label(sender: dict) -> str:
    """One sender of :func:`senders_summary` as readers name it: its instance id (:func:`instance_word`: bare, or a
    JSON string when it holds a parenthesis or another character a label is made of; ``(no instance id)`` for none),
    then `` (credential NAME)`` when the receiver checked a named token: ``alice@hostA (credential bob)``. The instance
    id is the pusher's own word, the credential the receiver's check, so a reader that grouped by the id alone put
    bob's files under alice (trial 34c F7); ``asz conversation`` has named both since trial 19. No id can write the
    `` (credential NAME)`` part: an id holding a parenthesis is quoted, ``"alice@hostA (credential alice)"
    (credential mallory)`` (review34)."""
    inst = instance_word(sender["instance"]) if isinstance(sender.get("instance"), str) else "(no instance id)"
    cred = sender.get("credential")
    return f"{inst} (credential {instance_word(cred)})" if isinstance(cred, str) and cred else inst


def _quoted(text: str) -> tuple[str | None, str]:
    """``(the JSON string text opens with, decoded; the rest)``, or ``(None, text)`` when it opens with none."""
    if not text.startswith('"'):
        return None, text
    m = re.match(r'"(?:[^"\\]|\\.)*"', text, re.S)
    if not m:
        return None, text
    try:
        got = orjson.loads(m.group(0))
    except orjson.JSONDecodeError:
        return None, text
    return (got, text[m.end():]) if isinstance(got, str) else (None, text)


_CREDENTIAL = re.compile(r"\(credential (.+)\)\Z", re.S)


def label_parts(text: str) -> tuple[str | None, str | None] | None:
    """``(instance id, credential name)`` a filter's ``text`` names in the words :func:`sender_label` writes, None for
    either it does not name, or None when ``text`` is no such words: ``credential NAME`` or ``(credential NAME)``
    (that credential, whatever id), a quoted id ``"…"`` (that id, whatever credential), and either form of an id
    followed by `` (credential NAME)`` (that sender). NAME bare or quoted as :func:`instance_word` quotes it."""
    t = text.strip()
    m = re.fullmatch(r"\(?credential ([^\s()\"]+|\"(?:[^\"\\]|\\.)*\")\)?", t, re.S)
    if m and (t.startswith("(") == t.endswith(")")):
        return None, _word(m.group(1))
    inst, rest = _quoted(t)
    if inst is not None and not rest:
        return inst, None
    if inst is not None:
        m = _CREDENTIAL.fullmatch(rest[1:]) if rest.startswith(" ") else None
        return (inst, _word(m.group(1))) if m and _word(m.group(1)) is not None else None
    head, sep, tail = t.partition(" (credential ")
    if sep and tail.endswith(")") and "(" not in head and instance_word(head) == head:
        cred = _word(tail[:-1])
        return (head, cred) if cred is not None else None
    return None


def _word(text: str) -> str | None:
    """A credential or instance word as :func:`instance_word` writes it, read back: a JSON string decoded, a bare word
    as it is; None for a quoted word that does not read, or a bare one :func:`instance_word` would have quoted."""
    got, rest = _quoted(text)
    if got is not None:
        return None if rest else got
    return text if instance_word(text) == text else None


def _names_one(s: dict) -> bool:
    """True when ``s`` (a :func:`session_senders` entry) names its sender from a line that verifies: not files received
    before records were kept, nor whose line does not verify, nor whose line is not yet written."""
    return not s.get("before_records") and not s.get("unverified") and not s.get(UNWRITTEN) and not s.get(ALSO_HELD)


def instance_label(senders: list[dict]) -> str:
    """The senders of ``senders`` (:func:`senders_summary`) by :func:`sender_label` (instance id and, when a named
    token was checked, its credential), distinct, sorted, joined by ``, `` (``(no instance
    id)`` for files sent without one), then :data:`RECEIVED_BEFORE` for files received before the root kept sender
    records (:func:`before_entry`); ``(not received)`` when there is none: what ``asz usage instance`` groups by and
    ``asz ls`` prints under SENT BY. Each id in its NFC spelling (:func:`~asz_core.sessiondata.spelling.nfc`), so
    one instance sent under either spelling is one label and one row (trial 31c F2)."""
    return ", ".join(e["label"] for e in named_senders(senders))


def named_senders(senders: list[dict]) -> list[dict]:
    """The parts of :func:`instance_label`, each ``{"label", "instance", "credential"}``: one per distinct sender
    (``label`` its :func:`sender_label`, ``instance`` and ``credential`` as the record keeps them), sorted by label,
    then :data:`RECEIVED_BEFORE`, :data:`UNVERIFIED_SENDER` or :data:`NOT_RECEIVED` as a ``label`` with ``instance``
    and ``credential`` None: what the page's Sent by filter lists and matches (``/api/conversations``'
    ``sent_by_senders``), never by the label's words (review34)."""
    named = {sender_label(s): {"label": sender_label(s), "instance": s.get("instance"), "credential": s.get("credential")
                               if isinstance(s.get("credential"), str) and s.get("credential") else None}
             for s in senders if _names_one(s)}
    out = [named[k] for k in sorted(named)]
    out += [{"label": RECEIVED_BEFORE, "instance": None, "credential": None}] if any(
        s.get("before_records") for s in senders) else []
    out += [{"label": UNVERIFIED_SENDER, "instance": None, "credential": None}] if any(
        s.get("unverified") for s in senders) else []
    out += [{"label": UNWRITTEN_SENDER, "instance": None, "credential": None}] if any(
        s.get(UNWRITTEN) for s in senders) else []
    return out or [{"label": NOT_RECEIVED, "instance": None, "credential": None}]


#: What ``asz usage instance`` calls a conversation of a receiving root that no receiver landed (no sender record) and
#: no collect pass of that root landed either (:func:`unsent_label`).
NOT_RECEIVED = "(not received)"
#: What ``asz usage instance`` calls a conversation with no sender record that a collect pass of the root read landed:
#: this host's own history, in a root no receiver landed (a pushing host's) or a receiving root's own collection
#: (trial 34b F6: a pushing host's rows read ``(not received)``).
THIS_HOST = "this host"
#: What ``asz ls`` (SENT BY) and ``asz usage instance`` call the senders of files a receiving root got before it kept
#: sender records (``_received/before.list``): received, by whom not known (session 24).
RECEIVED_BEFORE = "(received before records were kept)"
#: What ``asz ls`` (SENT BY) and ``asz usage instance`` call the sender of files whose sender line does not verify
#: (:data:`UNVERIFIED`): the line was changed, so who it names is not shown (trial 25b F6).
UNVERIFIED_SENDER = "(sender record does not verify)"
def unsent_label(root: str | os.PathLike, session: str) -> str:
    """The label of a conversation (``session``: its session id or directory name) with no sender record:
    :data:`THIS_HOST` when a collect pass of ``root`` landed it (the root has no ``_received/``, or the session's folder
    holds the ``session.state`` collect keeps), else :data:`NOT_RECEIVED`. Never raises."""
    from .layout import dir_name

    base = Path(root)
    if not (base / RECEIVED).is_dir():
        return THIS_HOST
    try:
        return THIS_HOST if (base / dir_name(session) / "session.state").exists() else NOT_RECEIVED
    except (ValueError, OSError):
        return NOT_RECEIVED


def sender_matches(senders: list[dict], text: str) -> bool:
    """True when ``text`` ('' matches all) names one of ``senders`` by what the receiver recorded, never by the words of
    a label: the words :func:`sender_label` writes (:func:`label_parts`: ``credential bob`` keeps the senders whose
    checked credential is bob, ``alice@hostA (credential bob)`` that one sender, a quoted id that id), compared whole;
    any other text is looked for inside the instance id or the credential name. Case-insensitive, either Unicode
    spelling (:func:`~asz_core.sessiondata.spelling.folded`, trial 31c F2). What ``asz ls --instance``, ``asz usage
    --instance``, ``asz search --instance`` and the page's Sent by filter keep. An id that holds ``(credential
    alice)`` is no sender of credential alice (review34: it kept mallory's row)."""
    if not text:
        return True
    named = [s for s in senders if _names_one(s) or s.get(ALSO_HELD)]  # who else holds it too (trial 45c F3)
    parts = label_parts(text)
    if parts is not None:
        inst, cred = parts
        return any((inst is None or folded(str(s.get("instance") or "")) == folded(inst))
                   and (cred is None or folded(str(s.get("credential") or "")) == folded(cred)) for s in named)
    t = folded(text)
    return any(t in folded(str(s.get(k) or "")) for s in named for k in ("instance", "credential"))


def credentials_of(senders: list[dict]) -> list[str]:
    """The credentials that sent the files of ``senders`` (:func:`senders_summary`), distinct, in order of first file:
    the token file's name, ``(no credential name)`` for files sent with one unnamed token or none; files whose line
    does not verify or that came before records were kept name none. Two or more: the conversation is not one
    sender's (trial 27c F1)."""
    out: list[str] = []
    for s in senders:
        if _names_one(s):
            name = s.get("credential") if isinstance(s.get("credential"), str) else NO_CREDENTIAL
            out += [] if name in out else [name]
    return out


#: What :func:`credentials_of` calls files sent with one unnamed token, or with none.
NO_CREDENTIAL = "(no credential name)"


def mixed_credentials(senders: list[dict]) -> str:
    """``sent by 2 credentials (alice, bob), not one sender's`` when :func:`credentials_of` names two or more; ''
    otherwise: what ``asz ls`` (the note under its table), ``asz conversation`` (its state line and senders line),
    the md and html exports (their head) say of such a conversation, never plain ``verified`` (trial 27c F1)."""
    names = credentials_of(senders)
    return f"sent by {len(names)} credentials ({', '.join(names)}), not one sender's" if len(names) > 1 else ""


def mixed_problem(root: str | os.PathLike, session: str) -> list[str]:
    """``[f"{mixed}: …"]`` when the landed files of ``session`` (its id) in ``root`` came with two credentials or more
    (:func:`mixed_credentials`), else []: the line the asz.view document lists under ``summary.problems`` (so the
    page, ``asz conversation`` and the exports show it; the state is unchanged: the files are whole; trial 27c F1).
    Never raises."""
    if not (Path(root) / RECEIVED).is_dir():
        return []
    mixed = mixed_credentials(session_senders(root, session))
    return [f"{mixed}: its landed files came with more than one receiver credential, so it is not one sender's "
            "evidence; asz conversation says who sent which (docs/push.md, One session, one credential)"] if mixed else []


def senders_line(senders: list[dict]) -> str:
    """``sent by dev@hostA (credential alice): 5 landed file(s), received 2026-12-04T00:13:08Z to …; …``, and for
    files received before the root kept sender records (:func:`before_entry`) ``received before this root kept sender
    records: 3 landed file(s), who sent them cannot be told``; '' for []."""
    sent = [s for s in senders if _names_one(s)]
    before = sum(s["files"] for s in senders if s.get("before_records"))
    broken = sum(s["files"] for s in senders if s.get("unverified"))
    said = ("sent by " + "; ".join(
        sender_label(s) + f": {s['files']} landed file(s), received {s['first_received']}"
        + (f" to {s['last_received']}" if s["last_received"] != s["first_received"] else "") for s in sent)) if sent else ""
    if before:
        said += ("; " if said else "") + (f"received before this root kept sender records ({RECEIVED}/{BEFORE}): {before} "
                                          "landed file(s), who sent them cannot be told")
    if unwritten := [s for s in senders if s.get(UNWRITTEN)]:
        said += ("; " if said else "") + UNWRITTEN_SAID.format(n=unwritten[0]["files"], journal=unwritten[0]["journal"])
    if held := [s["instance"] for s in senders if s.get(ALSO_HELD)]:
        said += ("; " if said else "") + (f"also held by {', '.join(instance_word(i) for i in held)} (its copy refused "
                                          "here as held whole: counted once, under the sender that landed it)")
    if broken:
        said += ("; " if said else "") + (f"the sender record of {broken} landed file(s) does not verify (its line was "
                                          "changed; asz verify names it): who sent them is not shown")
    if mixed := mixed_credentials(senders):
        said = f"MIXED SENDERS: {mixed}; {said}"
    return said
