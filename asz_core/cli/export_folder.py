"""A folder export (``asz export … --out DIR/``) as one dataset: each conversation's file left as it is when the export
makes it byte for byte again, what changed said per conversation (:class:`Changes`, trial 31b F3: a re-export said
every file was replaced where 3 changed), the index page (:func:`index_page`), and the folder's own manifest
(:func:`folder_manifest`, ``DIR/export.manifest.json``, trial 31b F2: the index had none and ``asz verify --export
DIR`` said "no such file"), which ``asz verify --export DIR`` checks (:mod:`asz_core.cli.verify_folder`).
docs/verify.md, "A folder export"."""

from __future__ import annotations

import os
from pathlib import Path

import orjson
import typer

from .export_made import manifest_body
from .export_resume import JOURNAL, Resume, remove_parts
from .export_write import earlier

__all__ = ["FOLDER_MANIFEST", "FOLDER_SCHEMA", "Changes", "write_one", "index_page", "folder_manifest", "open_folder",
           "close_folder", "interrupted_line", "left_over", "EXT"]

#: The folder manifest's name in the folder, and its format and version (1.x adds keys, never removes or renames one).
FOLDER_MANIFEST = "export.manifest.json"
FOLDER_SCHEMA = "asz.export-folder/1"
#: The suffix each format's copies take (``ID.EXT``; a file of the whole stream, ``FILE.EXT``).
EXT = {"md": "md", "html": "html", "json": "json", "prose": "jsonl", "text": "txt"}


class Changes:
    """What a folder export did to each conversation's file: ``new`` (none there), ``changed`` (``(id, the earlier
    copy's head round, this one's, landed files added)``), ``unchanged`` (the same bytes and manifest: left as it was)."""

    def __init__(self) -> None:
        self.new: list[str] = []
        self.changed: list[tuple[str, object, object, int]] = []
        self.unchanged: list[str] = []

    def line(self, out: Path) -> str:
        """``asz export: in DIR: 1 conversation(s) changed (e0e0e0e0: round 1 → 2, +1 landed file(s)), 274 unchanged
        (left as they were), 0 new``; '' when the folder held none of them before."""
        if not self.changed and not self.unchanged:
            return ""
        said = [(f"{cid[:8]}: round {a} → {b}" if a != b else f"{cid[:8]}: round {b}, the file there not this export's")
                + (f", {n:+,} landed file(s)" if n else "") for cid, a, b, n in self.changed]
        return (f"asz export: in {out}: {len(self.changed):,} conversation(s) changed"
                + (f" ({'; '.join(said[:10])}{f'; and {len(said) - 10:,} more' if len(said) > 10 else ''})" if said else "")
                + f", {len(self.unchanged):,} unchanged (left as they were, byte for byte), {len(self.new):,} new")


def _head(body: dict | None) -> tuple[object, int]:
    """(the head round, how many landed files: not its rounds) of a one-conversation manifest ``body``."""
    conv = ((body or {}).get("conversations") or [{}])[0]
    return (conv.get("head") or {}).get("round"), sum(not str(f.get("file")).startswith("_conversations/")
                                                      for f in conv.get("files") or ())


def write_one(r: Path, cid: str, out: Path, name: str, data: bytes, fmt: str, hide: list[str], thinking: bool, prose,
              replaced: list[str], changes: Changes) -> None:
    """Write conversation ``cid``'s copy ``data`` as ``out/name`` with its manifest, each whole or absent; a copy and a
    manifest the folder already holds byte for byte are left as they are (not written, not said as replaced) and
    counted unchanged; one that differs replaces the earlier (its name added to ``replaced``) and is counted changed
    with the earlier manifest's head round; a copy there byte for byte whose manifest is not (an interrupted export
    wrote the copy, not yet its manifest) keeps its file, and gets its manifest (counted new when there was none).
    The conversation's earlier files of a ``--split`` go (:func:`earlier`)."""
    from ..reading.export_manifest import manifest_bytes, manifest_path, read_manifest, sha256, stop_for_test, write_whole

    path, mpath = out / name, manifest_path(out / name)
    body = manifest_body(r, cid, path, data, fmt, hide, thinking, prose)
    mbytes = manifest_bytes(body)
    was = path.read_bytes() if path.is_file() else None
    gone = earlier(out, cid, fmt, [name])  # its parts of an earlier --split: removed
    replaced += [x for x in gone if x != name]
    if was == data and mpath.is_file() and mpath.read_bytes() == mbytes:
        changes.unchanged.append(cid)
        prose.manifests.append((mpath, sha256(mbytes)))
        return
    try:
        old = read_manifest(mpath) if was is not None and mpath.is_file() else None
    except (ValueError, OSError):
        old = None
    if was is None or (was == data and old is None):  # none there, or the copy alone (a stopped export's): its manifest
        changes.new.append(cid)
    else:
        replaced.append(name if was != data else mpath.name)
        (a, n), (b, m) = _head(old), _head(body)
        changes.changed.append((cid, a if old is not None else "?", b, m - n if old is not None else 0))
    if was != data:
        write_whole(path, data)  # a file is whole or absent
        stop_for_test("copy")
    write_whole(mpath, mbytes)
    prose.manifests.append((mpath, sha256(mbytes)))


def index_page(out: Path, fmt: str, rows: list[dict], files: dict, flagged: set[str], skipped: dict[str, str],
               redact: bool, elsewhere: dict[str, dict] | None = None) -> Path:
    """Write the index page of several exported into ``out`` (html, json or md), whole or not at all, and return its
    path; with ``redact`` its credentials masked (a title is a first prompt, which may hold one; counted where the
    conversation is). One the folder holds byte for byte is left as it is; another is replaced and said so.
    ``elsewhere``: the calls of each row another row's conversation is counted under
    (:func:`~asz_core.reading.export_index.counted_elsewhere`), which an md or html total counts once."""
    from ..reading.export_index import index_html, index_markdown
    from ..reading.export_manifest import write_whole

    if redact:  # each text masked in its place, before the page is made (trial 25b F1: never over the page's markup)
        import copy

        from ..view.secret_forms import Masker

        rows = Masker(True).tree(copy.deepcopy(rows))
    if fmt == "html":
        page = index_html(rows, files, flagged, skipped, elsewhere or {}).encode("utf-8")
    elif fmt == "json":
        page = orjson.dumps([{**row, "file": None, "not_exported": skipped[row["id"]]}
                             if row["id"] in skipped else {**row, "file": files[row["id"]]}
                             for row in rows], option=orjson.OPT_INDENT_2)
    else:
        page = index_markdown(rows, files, flagged, skipped, elsewhere or {}).encode("utf-8")
    index = out / f"index.{fmt if fmt in ('html', 'json') else 'md'}"
    before = index.read_bytes() if index.is_file() else None
    if before == page:
        return index
    write_whole(index, page)  # whole or absent, as each conversation's file
    if before is not None:  # an earlier export's index page replaced is said, as a single file's is (trial 12)
        typer.echo(f"asz export: replaced the index page {index} (the {len(before):,} bytes it held)", err=True)
    return index


def folder_manifest(out: Path, index: Path, files: dict, skipped: dict[str, str], made: dict,
                    before: list[str] = ()) -> tuple[Path, str]:
    """Write ``out/export.manifest.json`` (:data:`FOLDER_SCHEMA`): the index page's and every conversation file's
    name, size and SHA-256 with its manifest's name and SHA-256 (``files``: conversation -> its file, or its parts'
    files), the conversations not exported and why, ``made``, and, when some, ``beside``: the names of the files in
    the folder when the export began (``before``) that are there still and not the export's (a README, notes: not part
    of it, so asz verify --export says they were there before, never "added since": trial 39d F2); whole or not at
    all. Returns its path and own SHA-256 (the one digest to give the receiver of the folder on another channel)."""
    from .. import __version__
    from ..reading.export_manifest import manifest_bytes, manifest_path, sha256, write_whole

    def entry(name: str) -> dict:
        data = (out / name).read_bytes()
        return {"file": name, "bytes": len(data), "sha256": sha256(data)}

    listed = []
    for cid, names in files.items():
        if cid in skipped:
            continue
        for name in [names] if isinstance(names, str) else names:
            if (out / name).is_file():
                m = manifest_path(out / name)
                listed.append({**entry(name), "conversation": cid,
                               "manifest": {"file": m.name, "sha256": sha256(m.read_bytes()) if m.is_file() else None}})
    body = {"schema": FOLDER_SCHEMA, "asz": __version__, "made": made, "index": entry(index.name), "files": listed,
            "not_exported": dict(sorted(skipped.items()))}
    ours = {index.name, *(e["file"] for e in listed), *(e["manifest"]["file"] for e in listed)}
    if beside := [n for n in before if n not in ours and (out / n).is_file()]:
        body["beside"] = beside
    data = manifest_bytes(body)
    path = out / FOLDER_MANIFEST
    write_whole(path, data)
    return path, sha256(data)


def _ours(name: str, cid: str, files: dict, ext: str) -> bool:
    """Whether ``name``, conversation ``cid``'s copy in an earlier export, is one this export writes again: its
    ``ID.EXT`` or one of its ``ID.partN.EXT`` (``--split``: :func:`~asz_core.cli.export_write.earlier` handles them)."""
    if cid not in files:
        return False
    return name == files[cid] or (name.startswith(f"{cid}.part") and name.endswith(f".{ext}"))


def left_over(out: Path, fmt: str, files: dict) -> list[str]:
    """The files an earlier export wrote into ``out`` that this one (``files``: conversation -> the name it writes,
    every conversation it lists) does not write again, sorted: each copy (and its ``.manifest.json``) and index page
    the folder manifest (:data:`FOLDER_MANIFEST`) or the partial manifest of a stopped export
    (:data:`~asz_core.cli.export_resume.JOURNAL`) names, that is in the folder now. Only what those list, never
    another file (a README beside them). A copy of a conversation this export lists again under the same name is not
    one (the same export again, or the next one of a growing window: made again and compared, as before). Trial 37a
    F3: a second week's export into the first's folder left 13 stale conversations beside the new index, and
    ``asz verify --export DIR`` then failed."""
    ext = EXT.get(fmt, fmt)
    listed: list[tuple[str, str | None, str | None]] = []  # (copy, its conversation, its manifest)
    try:
        body = orjson.loads((out / FOLDER_MANIFEST).read_bytes())
        index = str(((body.get("index") or {}).get("file")) or "")
        if index:
            listed.append((index, None, None))
        for f in body.get("files") or ():
            listed.append((str(f.get("file")), str(f.get("conversation")), str((f.get("manifest") or {}).get("file") or "")))
    except (OSError, ValueError, AttributeError, TypeError):
        pass
    try:
        for line in (out / JOURNAL).read_bytes().splitlines():
            try:
                e = orjson.loads(line)
                listed.append((str(e["file"]), str(e["conversation"]), str(e["file"]) + ".manifest.json"))
            except (ValueError, KeyError, TypeError):
                continue  # a line a kill -9 cut short
    except OSError:
        pass
    here = f"index.{fmt if fmt in ('html', 'json') else 'md'}"
    stale: set[str] = set()
    for name, cid, manifest in listed:
        if "/" in name or "\\" in name or name in ("", ".", "..", FOLDER_MANIFEST, JOURNAL):
            continue  # only a name in the folder itself
        if cid is None and name == here or cid is not None and _ours(name, cid, files, ext):
            continue
        for n in (name, manifest or ""):
            if n and "/" not in n and (out / n).is_file():
                stale.add(n)
    return sorted(stale)


def _refuse_left_over(out: Path, stale: list[str], replace: bool, lock) -> None:
    """Say the files an earlier export left in ``out`` (:func:`left_over`) and remove them with ``replace``; without
    it refuse (exit 1, nothing written, the folder's lock released) naming the first five."""
    if not stale:
        return
    copies = [n for n in stale if not n.endswith(".manifest.json")]
    first = ", ".join(copies[:5] or stale[:5]) + (f" and {len(copies) - 5} more" if len(copies) > 5 else "")
    if replace:
        for n in stale:
            (out / n).unlink(missing_ok=True)
        typer.echo(f"asz export: removed {len(stale):,} file(s) an earlier export left in {out} that this one does "
                   f"not make ({len(copies):,} cop(ies) and index page(s) with their manifests: {first}) (--replace)",
                   err=True)
        return
    if lock is not None:
        os.close(lock)
    typer.echo(f"asz export: {out} holds another export: {len(copies):,} file(s) its manifest lists that this export "
               f"does not make ({first}), with their manifests; left beside this export's index they would be "
               f"stale copies and asz verify --export would fail. Give --replace to remove exactly those "
               f"{len(stale):,} file(s) (nothing else in the folder), or export into another folder; nothing was "
               "written", err=True)
    raise typer.Exit(1)


def open_folder(r: Path, out: Path, fmt: str, prose, made, thinking: bool, files: dict | None = None,
                replace: bool = False) -> Resume:
    """Make the folder ``out`` ready for a folder export of ``r`` in ``fmt`` and return its partial manifest
    (:class:`~asz_core.cli.export_resume.Resume`; ``made()``: the copies' ``made``, once ``prose.index`` is set): the
    folder made (never its parents), the files an earlier, other export left there that this one does not make
    (:func:`left_over`, ``files``: conversation -> name) refused (typer.Exit 1, nothing written) or, with
    ``replace``, removed, its folder manifest removed (written again once the index is: an interrupted
    export leaves none), each ``.part`` a killed export left removed, json's clipped texts and md's and html's thinking
    left out gathered for one note each; the
    files then in the folder kept as ``before`` (those not this export's go in its manifest's ``beside``: trial 39d
    F2)."""
    prose.clips = []  # json's clipped texts: one note for the folder (trial 31b F6)
    prose.thinking_left = []  # md's and html's thinking left out: one note for the folder (trial 43c F8)
    out.mkdir(exist_ok=True)  # the folder itself, never its parents (checked by the caller: refuse_missing_parent)
    lock = folder_lock(out)  # one export into a folder at a time (trial 35b F5)
    if files is not None:  # read under the lock: a concurrent export's manifest is whole (trial 37a F3)
        _refuse_left_over(out, left_over(out, fmt, files), replace, lock)
    (out / FOLDER_MANIFEST).unlink(missing_ok=True)
    remove_parts(out)  # a kill -9 left it: never a whole file
    prose.index = {"html": "index.html", "md": "index.md"}.get(fmt, "")  # each page links back to it (md: render 13)
    before = sorted(p.name for p in out.iterdir() if p.is_file() and p.name != JOURNAL)
    resume = Resume(out, r, fmt, made(), prose.table, thinking)
    resume.lock, resume.before = lock, before
    return resume


def folder_lock(out: Path) -> int | None:
    """An exclusive ``flock`` on the folder ``out`` itself (its descriptor, returned; None where the system has no
    flock), held until :meth:`~asz_core.cli.export_resume.Resume.release` or the process ends: a second export into
    the same folder waits for the first to end, said on stderr, then finds its copies there and makes again only what
    changed (trial 35b F5: two at once, the second said it "resumed an interrupted export" of the first's partial
    manifest, and each removed the other's ``.part`` files). No file is added to the folder."""
    try:
        import fcntl
    except ImportError:  # no flock (Windows): as before
        return None
    fd = os.open(out, os.O_RDONLY)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except BlockingIOError:
        typer.echo(f"asz export: another asz export is writing into {out}: waiting for it to end (then this one makes "
                   "again only what changed)", err=True)
        fcntl.flock(fd, fcntl.LOCK_EX)
    return fd


def interrupted_line(out: Path | None, done: int, total: int, resume: Resume | None) -> str:
    """``asz export: interrupted after 360 of 1309 conversations (written to DIR: …)``: with a folder, what it holds
    and that the same export again resumes it (trial 31b F13), its ``.part`` files removed first."""
    line = f"asz export: interrupted after {done} of {total} conversations"
    if out is not None and out.is_dir():
        remove_parts(out)  # the file being written when it stopped: never a whole one
    if out is None or resume is None:
        return line + (f" (written to {out}; no index page)" if out is not None else "")
    if not resume.path.is_file():  # stopped after its partial manifest went: the copies and the index are whole
        return line + f" (written to {out}; no folder manifest yet: the same asz export again writes it)"
    return (line + f" (written to {out}; no index page and no folder manifest yet: the same asz export again resumes "
            f"it, keeping the {len(resume.entries):,} cop(ies) its partial manifest {resume.path.name} lists whole)")


def close_folder(out: Path, fmt: str, rows: list[dict], files: dict, flagged: set[str], skipped: dict[str, str], prose,
                 replaced: list[str], changes: Changes, resume: Resume, made: dict, read: tuple = ()) -> None:
    """End a folder export whose every conversation is written: say the files replaced and what changed (or, resuming
    an interrupted one, what was written and what was already there), write the index page (its md or html totals
    counting each provider call once, read from ``read``, ``(storage root, withheld names)``:
    :func:`~asz_core.reading.export_index.counted_elsewhere`), remove the partial manifest, then write the folder
    manifest over it all (``prose.manifests``: the one said on stderr)."""
    if replaced:
        typer.echo(f"asz export: replaced {len(replaced)} file(s) already in {out}: {', '.join(replaced[:5])}"
                   + (f" and {len(replaced) - 5} more" if len(replaced) > 5 else ""), err=True)
    said = resume.line(len(changes.new) + len(changes.changed), len(changes.unchanged))
    if said:
        typer.echo(said, err=True)
    if changes.line(out) and (not said or changes.changed):
        typer.echo(changes.line(out), err=True)
    from ..reading.export_manifest import stop_for_test

    stop_for_test("index")
    from ..reading.export_index import counted_elsewhere

    twice = counted_elsewhere(read[0], [r["id"] for r in rows if not r.get("held_back")], read[1], prose.table) \
        if read and fmt != "json" else {}  # a call two rows hold: once in the totals (trial 35a F5, review36 item 2)
    from ..reading.export_later import rows_as_drawn
    from ..reading.export_render import drawn

    if read and fmt != "json":  # a copy whose calls are counted where it continues: 0 and $0.00 (trial 46a F5)
        rows = rows_as_drawn(read[0], rows, drawn())
    index = index_page(out, fmt, rows, files, flagged, skipped, prose.redact, twice)
    resume.done()
    prose.manifests = [folder_manifest(out, index, files, skipped, made, resume.before)]
