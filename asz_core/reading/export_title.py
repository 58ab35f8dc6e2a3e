"""Where an export's title came from, kept in its manifest, and the title held to it (trial 43a F3).

A conversation's title may be a label another session's landed file wrote for one of its messages (Claude Code's
``summary`` on resuming: :mod:`asz_core.view.named_titles`; docs/reading.md, titles). Such a label landing after the
export (the conversation resumed later) titles the conversation anew, though none of its own landed files or rounds
changed; a copy made before it then no longer was the copy made again from the root ("outside the masks … copy
'title: …', landed (masked) 'title: …'"), and each mask after the title stood at another offset. So each entry of a
manifest's ``conversations`` says where its title came from (:func:`title_entry`, key ``title``):

- ``{"from": "own"}``: no other session's label titled it: the title is what its own landed records give as of its
  round (a label or a title a person gave in them, else a prompt, …), which the round's files fix;
- ``{"from": "named", "file": F, "digest": D, "row": N, "leaf": ID}``: the label of record ``N`` (its row, from 1,
  after the header line) of another session's landed file ``F`` (path under the root, SHA-256 ``D`` of its whole
  bytes), written for the message ``ID`` of the conversation.

``asz verify --export --root`` makes the copy again with that title (:func:`title_pins`,
:func:`~asz_core.view.chain.named_as_of`): ``own``, with no other session's label; ``named``, with that record's
label, read from the file, which must still be landed with the manifest's digest and verify (its closing line binding
its bytes), or be a skeleton keeping that digest (retention keeps every record's label in it). A manifest written
before (no ``title``) is checked against the title the root gives now, as before.
"""

from __future__ import annotations

from contextlib import nullcontext
from pathlib import Path
from typing import Any, Callable, ContextManager, Optional

__all__ = ["built_evidence", "check_titled", "title_entry", "title_pins", "pinned"]


def title_entry(root: Path, used: dict) -> dict:
    """A manifest conversation's ``title`` (module docstring) from what
    :func:`~asz_core.view.named_titles.recording_named` gathered while its document was built (``used``)."""
    from ..view.landed_bytes import read_sealed

    got = [(n, path) for n, path, _ in used.values() if n is not None and path]
    if not got:
        return {"from": "own"}
    n, path = got[-1]
    try:
        digest = read_sealed(Path(path))[1]
    except OSError:
        digest = ""
    try:
        rel = Path(path).relative_to(root).as_posix()
    except ValueError:
        rel = str(path)
    return {"from": "named", "file": rel, "digest": digest, "row": n.row, "leaf": n.leaf}


def built_evidence(root: Path, cid: str, hide, prices=None) -> tuple[dict, dict]:
    """``(document, manifest entry)`` of conversation ``cid``: its asz.view document built now
    (:func:`~asz_core.reading.export.build`) and its ``conversations`` entry of a manifest
    (:func:`~asz_core.reading.export_manifest.evidence`) with where its title came from (``title``)."""
    from ..view.named_titles import recording_named
    from .export import build
    from .export_manifest import evidence

    with recording_named() as used:
        doc = build(root, cid, hide, prices)
    return doc, {**evidence(doc), "title": title_entry(Path(root), used)}


def _named(root: Path, t: dict) -> tuple[Any, str]:
    """The :class:`~asz_core.view.named_titles.Named` a manifest's ``named`` title (``t``) names, read from the root,
    and what proves it (an ``ok`` line's words); ``(None, why not)`` when the root does not hold it so."""
    from ..flow.round import landed_file_digest
    from ..storage.layout import parse_landed_name
    from ..view.landed_bytes import read_sealed
    from ..view.named_titles import Named, scan_file
    from .export_retention import skeleton_of

    rel, digest, row, leaf = t.get("file"), t.get("digest"), t.get("row"), t.get("leaf")
    if not isinstance(rel, str) or not rel.endswith(".sd") or ".." in rel.split("/") or rel.startswith("/") \
            or not isinstance(row, int) or not isinstance(leaf, str) or not isinstance(digest, str):
        return None, "the manifest's title does not read (file, digest, row, leaf)"
    session, path = rel.split("/", 1)[0], root / rel
    seq = getattr(parse_landed_name(path.name), "seq", 0)
    if not path.is_file() and (root / skeleton_of(rel)).is_file():  # retention: the skeleton keeps every label
        sk = root / skeleton_of(rel)
        try:
            kept, label = landed_file_digest(sk), _skeleton_label(sk, row)
        except (OSError, EOFError, ValueError):
            return None, f"its skeleton {sk.name} does not read"
        if kept != digest:
            return None, f"removed by retention; its skeleton {sk.name} keeps the digest {kept}, not the manifest's"
        if not label:
            return None, f"removed by retention; its skeleton {sk.name} keeps no label at row {row}"
        return Named(session, seq, row, leaf, label), f"removed by retention; its skeleton {sk.name} keeps the manifest's digest and the label"
    try:
        now, sealed = read_sealed(path)[1:3]
    except OSError as exc:
        return None, f"not in the root ({exc.strerror or exc})"
    if now != digest:
        return None, f"its SHA-256 is {now}, not the manifest's {digest}"
    if sealed is None:
        return None, "it does not verify (its closing line does not bind its bytes)"
    found = {r: (lf, label) for r, lf, label in scan_file(path)}
    if found.get(row, ("",))[0] != leaf:
        return None, f"its row {row} holds no label written for the message {leaf}"
    return Named(session, seq, row, leaf, found[row][1]), "landed with the manifest's digest, and verifies"


def _skeleton_label(sk: Path, row: int) -> str:
    """The label a skeleton keeps of its record ``row`` (from 1); '' for none. Raises OSError, EOFError, ValueError."""
    from ..sessiondata import read_file

    try:
        records = read_file(sk)[1]
    except Exception as exc:  # SDError and what gzip raises: a skeleton that does not read
        raise ValueError(str(exc)) from None
    rec = records[row - 1] if 0 < row <= len(records) else None
    return rec.label if rec is not None and isinstance(rec.label, str) else ""


def title_pins(root: Path, body: dict) -> tuple[dict[str, tuple], list[str], list[str]]:
    """Of each conversation of the manifest ``body``: ``{id: (Named or None,)}``, the title to make its copy again with
    (:func:`~asz_core.view.chain.named_as_of`; none for a manifest without ``title``: the root's title now), and
    ``(said, problems)`` about the records named (a problem when the root no longer holds one so: the copy is then
    made with the root's title now, and its title line is named too where it differs)."""
    pins: dict[str, tuple] = {}
    said, problems = [], []
    for entry in body.get("conversations") or ():
        cid, t = entry.get("conversation"), entry.get("title")
        if not isinstance(cid, str) or not isinstance(t, dict):
            continue
        if t.get("from") == "own":
            pins[cid] = (None,)
            continue
        named, why = _named(Path(root), t)
        where = f"row {t.get('row')} of landed file {t.get('file')}"
        if named is None:
            problems.append(f"{cid}: its title came from the label of {where} (another session's record naming one "
                            f"of its messages, the manifest's title), which the root does not hold so: {why}")
            continue
        pins[cid] = (named,)
        said.append(f"{cid}: its title is the label of {where} (another session's record naming its message "
                    f"{named.leaf}, as at the export): {why}{_not_taken_now(Path(root), cid, entry, t)}")
    return pins, said, problems


def _not_taken_now(root: Path, cid: str, entry: dict, t: dict) -> str:
    """What to add to a ``named`` title's ``ok`` line when today's rule would not take that label as the
    conversation's title (on a receiving root, a label titles another session's conversation only when one sender sent
    both: :class:`~asz_core.view.label_senders.Senders`; session 43, faf0348a): ``; the label's file was sent by A and
    the conversation by B: under today's rule … not taken …``; '' when it is taken (or on a root no receiver landed).
    A copy made before that rule (or copied from a root that had no sender records) keeps verifying: it is made again
    with the title its manifest names (close43, "Not done")."""
    from ..storage.layout import dir_name
    from ..view.label_senders import Senders

    senders = Senders(root)
    rel = t.get("file")
    if not senders.receiving or not isinstance(rel, str):
        return ""
    label_dir = rel.split("/", 1)[0]
    dirs = {f["file"].split("/", 1)[0] for f in entry.get("files") or ()
            if isinstance(f, dict) and isinstance(f.get("file"), str)} - {label_dir}
    try:
        own = dir_name(cid)
    except ValueError:
        own = ""
    dirs = {own} if own in dirs else dirs
    who = senders.file_sender(label_dir, rel)
    theirs = frozenset().union(*(senders.session_senders(d) for d in sorted(dirs))) if dirs else frozenset()
    if who is not None and theirs == frozenset((who,)):
        return ""
    named = ", ".join(sorted(w or "(no known sender)" for w in theirs)) or "(no known sender)"
    return (f"; that label's file was sent by {who or '(no known sender)'}, the conversation by {named}: under today's "
            "rule (a label titles another session's conversation only when one sender sent both; docs/security.md, "
            "Who sent it) this root does not take it as the title, so a copy made now is titled otherwise; this copy, "
            "made before that rule, still verifies as made")


#: At most this many labels of other sessions are tried as the title of a copy whose manifest does not say it.
OLDER_TRIED = 16


def check_titled(root: Path, body: dict, run: Callable[[dict], tuple[list[str], list[str]]]) -> tuple[list[str], list[str]]:
    """``run(pins)`` (the copy checked against the root, each conversation's title made as ``pins`` says:
    :func:`pinned`) with the titles the manifest ``body`` names (:func:`title_pins`): ``(said, problems)``.

    A manifest of one conversation written before its ``title`` (an asz before session 43) whose copy does not check
    with the title the root gives now is checked again with the title its own landed records give as of its round,
    then with each label of another session's landed file naming one of its messages (the newest first, at most
    :data:`OLDER_TRIED`): one that makes the copy again byte for byte checks it, said in an ``ok`` line that names it and
    says what that cannot prove (which of them titled it at the export); none: the first check's problems."""
    pins, titled, untitled = title_pins(root, body)
    said, problems = run(pins)
    convs = list(body.get("conversations") or ())
    if not problems or len(convs) != 1 or isinstance(convs[0].get("title"), dict):
        return titled + said, untitled + problems
    got = _older(root, str(convs[0].get("conversation")), run)
    return got if got is not None else (said, problems)


def _older(root: Path, cid: str, run: Callable) -> Optional[tuple[list[str], list[str]]]:
    """:func:`check_titled`'s second look at a manifest without ``title``: ``(said, [])`` when a title the root can
    give makes the copy again byte for byte, else None."""
    from ..view.named_titles import named_in, recording_named

    unsaid = ("its manifest (an asz before session 43) does not say where its title came from, and the root titles it "
              "now otherwise (a label another session's landed file wrote for one of its messages: a summary on "
              "resuming, landed since the export): the copy is made again byte for byte with ")
    cannot = ("; so its title is one the landed records give it, not proved to be the one it had at the export (a "
              "manifest of session 43 on names its title's record)")
    with recording_named() as used:  # with the titles each copy made again recorded (built_evidence, export_docs)
        said, problems = run({cid: (None,)})
    if not problems:
        return [f"{cid}: {unsaid}the title its own landed records give as of its round{cannot}"] + said, []
    asked = [(s, ids) for s, (_, _, ids) in used.items() if ids]
    found = named_in(root)
    tried = sorted({n for s, ids in asked for n in found.named if n.session != s and n.leaf in ids},
                   key=lambda n: (n.session, n.seq, n.row), reverse=True)
    for n in tried[:OLDER_TRIED]:
        said, problems = run({cid: (n,)})
        if not problems:
            where = found.held.get((n.session, n.seq), ("",))[0]
            rel = Path(where).relative_to(root).as_posix() if where else f"session {n.session} seq {n.seq}"
            return [f"{cid}: {unsaid}the label of row {n.row} of landed file {rel} (another session's record naming "
                    f"its message {n.leaf}){cannot}"] + said, []
    return None


def pinned(pins: dict[str, tuple], cid: str, make: Callable[[], Any]) -> Any:
    """``make()`` with conversation ``cid``'s title as its manifest says (:func:`title_pins`'s ``pins``)."""
    return _within(pins.get(cid), make)


def _within(pin: Optional[tuple], make: Callable[[], Any]) -> Any:
    from ..view.chain import named_as_of

    ctx: ContextManager = named_as_of(pin[0]) if pin else nullcontext()
    with ctx:
        return make()
