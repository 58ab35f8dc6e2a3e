"""An interrupted folder export resumed (trial 31b F13, fix32d): ``asz export … --out DIR/`` keeps, while it works, a
partial manifest ``DIR/export.partial.jsonl`` (:data:`JOURNAL`), one line per conversation whose copy and manifest are
whole in the folder; the same export run again after Ctrl-C, SIGTERM or a kill -9 makes again only what is not there
yet or changed, and says ``N written, M already there``. docs/reading.md, "An interrupted folder export".

A line (:meth:`Resume.wrote`): ``{"conversation", "file", "sha256", "manifest_sha256", "key", "clips", "redacted"}``:
the copy's name and SHA-256 and its manifest's, the :meth:`Resume.key` it was made under, and what its making said
to stderr's closing lines (json's clipped texts, the credential fingerprints counted). The fingerprints are keyed as
the copy's manifest keys them (HMAC-SHA256 under ``_export/mask.key``: :func:`~asz_core.storage.mask_key.keyed_mark`),
the key named in ``mask_key`` (:func:`~asz_core.storage.mask_key.key_id`), so a stopped export's folder is no offline
oracle either (close37; trial 37a F1); a root no key can be made in gives ``redacted`` null and ``redacted_places``,
and such a copy is made again. A line an older asz wrote (unkeyed, no ``mask_key``) is keyed when the partial
manifest is next read. Each line is appended once its
copy and manifest are in the folder (each written whole or not at all:
:func:`~asz_core.reading.export_manifest.write_whole`), so a line names only whole files; a line a kill -9 cut short
is dropped when the partial manifest is next read.

A copy is **already there** (not made again) only when its line's key is the key now, and the copy and its manifest
in the folder have the line's SHA-256. The key is the SHA-256 of everything its bytes are made from: the build mark
(asz's version and every file of its code and adapters: :func:`~asz_core.view.found_store.build_mark`), the price
table, how it is made (the manifest's ``made``: format, form, withheld names, zone, window), the conversation's list row
(its figures, state, senders, links and sources gone as ``asz ls --json`` gives them), the name and stat key of every
file the document is built from (:func:`~asz_core.view.depends.files_key`: the rounds, the session's landed files and
torn tails; the page's caches' rule), the session's cursors (a source gone or in conflict) and the receiving root's
``_received/`` files (who sent it). Any of them changed: the copy is made again and compared byte for byte, as a
re-export does. Only md, html and json copies without ``--thinking`` and that verify are kept so; the others (prose
and text read source files outside the root; a warning is said each time) are always made again and compared.

The partial manifest is removed once every copy and the index page are written, before the folder manifest
(``export.manifest.json``) is: a folder holding a partial manifest has no folder manifest, so it never passes as whole
(``asz verify --export DIR`` exits 2 and says to run the export again)."""

from __future__ import annotations

import hashlib
import os
from pathlib import Path
from typing import Optional

import orjson

from ..reading.export_manifest import stop_for_test

__all__ = ["JOURNAL", "Resume", "remove_parts"]

#: The partial manifest's name in the folder.
JOURNAL = "export.partial.jsonl"
#: The formats whose copies an interrupted export keeps (made from the root alone, see the module).
KEPT_FORMATS = ("md", "html", "json")
#: The suffixes of what a folder export writes whole (``NAME.part`` first): a leftover ``.part`` of one is removed.
OURS = (".md", ".html", ".json", ".jsonl", ".txt")
def remove_parts(out: Path) -> list[str]:
    """Remove the ``NAME.part`` files a killed export left in the folder ``out`` (only those of a name a folder export
    writes, :data:`OURS`), and return their names: a ``.part`` is never a whole file."""
    gone = []
    for p in sorted(out.glob("*.part")):
        if p.name[:-len(".part")].endswith(OURS) and p.is_file():
            p.unlink(missing_ok=True)
            gone.append(p.name)
    return gone


def _stat_keys(paths) -> list:
    """``(path, size, mtime_ns, ctime_ns, inode)`` of each path that exists, sorted."""
    from ..storage.filekey import stat_key

    out = []
    for p in paths:
        try:
            out.append((str(p), *stat_key(os.stat(p))))
        except OSError:
            continue
    return sorted(out)


class Resume:
    """The partial manifest of the folder export into ``out`` (module docstring): read when the export starts, kept
    line by line while it writes, removed when it ends. ``resuming``: the folder held one when the export started (an
    earlier run of it was stopped); ``there``: the conversations left as the earlier run wrote them."""

    def __init__(self, out: Path, root: Path, fmt: str, made: dict, prices, thinking: bool):
        self.out, self.root, self.path = out, root, out / JOURNAL
        self.keep = fmt in KEPT_FORMATS and not thinking
        self.entries: dict[str, dict] = {}
        self.resuming = self.path.is_file()
        lines = self.path.read_bytes().split(b"\n") if self.resuming else []
        for line in lines:
            try:
                e = orjson.loads(line)
            except orjson.JSONDecodeError:
                continue  # the end of a line a kill -9 cut short: its copy is made again
            if isinstance(e, dict) and isinstance(e.get("conversation"), str):
                self.entries[e["conversation"]] = e
        for e in self.entries.values():  # a line an older asz wrote: its fingerprints unkeyed, keyed now
            if e.get("redacted") and "mask_key" not in e:
                marks, kid = self._keyed(e["redacted"])
                e.update({"redacted": marks, "mask_key": kid} if marks is not None else
                         {"redacted": None, "redacted_places": len(e["redacted"])})
        from ..reading.export_manifest import write_whole

        write_whole(self.path, b"".join(orjson.dumps(e) + b"\n" for e in self.entries.values()))  # no torn tail
        self.there: list[str] = []
        #: the folder's lock (:func:`~asz_core.cli.export_folder.folder_lock`), released by :meth:`release`
        self.lock: Optional[int] = None
        #: the files in the folder when the export began (:func:`~asz_core.cli.export_folder.open_folder`)
        self.before: list[str] = []
        self._key: dict[str, str] = {}
        self._base = self._base_key(made, prices) if self.keep else b""

    def _keyed(self, marks: list[str]) -> tuple[Optional[list[str]], Optional[str]]:
        """``marks`` (credential fingerprints, unkeyed) keyed by the root's mask key, made when it has none, as the
        copies' manifests key them, and the key's name; ``(None, None)`` when no key can be read or made (a root
        read without a write)."""
        from ..storage.mask_key import key_id, keyed_mark, mask_key

        try:
            key = mask_key(self.root)
        except OSError:
            return None, None
        return [keyed_mark(key, m) for m in marks], key_id(key)

    def _base_key(self, made: dict, prices) -> bytes:
        """What every copy's key shares: the build mark, the price table, how the copies are made, ``_received/``."""
        from ..view.found_store import build_mark

        received = self.root / "_received"
        files = [os.path.join(d, n) for d, _, names in os.walk(received) for n in names] if received.is_dir() else []
        return orjson.dumps([build_mark(), repr(prices), made, _stat_keys(files)], option=orjson.OPT_SORT_KEYS)

    def key(self, row: dict) -> Optional[str]:
        """The key conversation ``row``'s copy is made under now (module docstring); None when none is kept (a form
        that is always made again, or a symbolic link under its files)."""
        if not self.keep:
            return None
        from ..reading.tool_use import files_now
        from ..storage.layout import cursor_paths
        from ..view.rows import read_head

        cid = row["id"]
        keys, links = files_now(self.root, cid)
        if links:
            return None
        head = read_head(self.root, cid)
        session = (head.header or {}).get("session") if head else None
        cursors = cursor_paths(self.root / session) if isinstance(session, str) and session and "/" not in session else []
        h = hashlib.sha256(self._base)
        h.update(orjson.dumps([row, list(keys), _stat_keys(cursors)], option=orjson.OPT_SORT_KEYS, default=str))
        self._key[cid] = h.hexdigest()
        return self._key[cid]

    def already(self, row: dict, name: str, prose, fmt: str) -> bool:
        """True when conversation ``row``'s copy ``name`` and its manifest are in the folder as the partial manifest
        says and made under today's key (module docstring): then what its making said is said again (clipped texts,
        credentials counted, a copy over ``--max-tokens``, its manifest listed) and it is counted in ``there``; False:
        it is to be made."""
        e = self.entries.get(row["id"])
        if e is None or e.get("file") != name or not self.keep:
            return False
        from ..reading.export_manifest import manifest_path, sha256

        path = self.out / name
        mpath = manifest_path(path)
        try:
            if sha256(path.read_bytes()) != e.get("sha256") or sha256(mpath.read_bytes()) != e.get("manifest_sha256"):
                return False
        except OSError:
            return False
        if self.key(row) != e.get("key"):
            return False
        marks = e.get("redacted") or []
        if e.get("redacted") is None and e.get("redacted_places"):
            return False  # its fingerprints could not be kept keyed: made again, counted anew
        if marks:
            from ..storage.mask_key import key_id, mask_key

            try:
                key = mask_key(self.root)
            except OSError:
                return False
            if key_id(key) != e.get("mask_key"):
                return False  # keyed by a key the root no longer holds: made again
            prose.__dict__["kept_key"] = key
        if prose.clips is not None and isinstance(e.get("clips"), list):
            prose.clips.append(tuple(e["clips"]))
        # keyed, beside this run's (``redacted_kept``, ``kept_key``): export_said.credentials_counted counts them once
        prose.__dict__.setdefault("redacted_kept", []).extend(marks)
        prose.manifests.append((mpath, e["manifest_sha256"]))
        from .export_said import over_budget

        over_budget(prose, path, path.stat().st_size, fmt)
        self.there.append(row["id"])
        return True

    def mark(self, prose) -> tuple[int, int]:
        """Where ``prose``'s clipped texts and credentials stand before a conversation is made (:meth:`wrote`)."""
        return len(prose.clips or ()), len(prose.redacted)

    def wrote(self, row: dict, name: str, data: bytes, prose, mark: tuple[int, int]) -> None:
        """Append conversation ``row``'s line: its copy ``data``, written as ``name`` with its manifest, is whole in the
        folder; ``mark`` (:meth:`mark`) says what its making added to ``prose``. Nothing for a form not kept."""
        cid = row["id"]
        key = self._key.pop(cid, None) or self.key(row)
        if key is None:
            return
        from ..reading.export_manifest import manifest_path, sha256

        clips = (prose.clips or [])[mark[0]:]
        marks, kid = self._keyed(prose.redacted[mark[1]:]) if prose.redacted[mark[1]:] else ([], None)
        e = {"conversation": cid, "file": name, "sha256": sha256(data),
             "manifest_sha256": sha256(manifest_path(self.out / name).read_bytes()), "key": key,
             "clips": list(clips[0]) if clips else None, "redacted": marks,
             **({"mask_key": kid} if kid else {}),
             **({"redacted_places": len(prose.redacted) - mark[1]} if marks is None else {})}
        stop_for_test("wrote")
        with open(self.path, "ab") as f:
            f.write(orjson.dumps(e) + b"\n")
        self.entries[cid] = e

    def release(self) -> None:
        """Let the next export into the folder go on (:attr:`lock` closed; also when the process ends)."""
        if self.lock is not None:
            os.close(self.lock)
            self.lock = None

    def done(self) -> None:
        """Every copy and the index page are written: the partial manifest goes (before the folder manifest is
        written, so a folder never holds both)."""
        self.path.unlink(missing_ok=True)
        stop_for_test("folder")

    def line(self, written: int, unchanged: int) -> str:
        """``asz export: in DIR: resumed an interrupted export: 640 written, 360 already there (…)``: ``written`` copies
        made and written (new or changed), those kept and ``unchanged`` ones (made again, the same bytes) already
        there; '' when the export did not resume one."""
        if not self.resuming:
            return ""
        return (f"asz export: in {self.out}: resumed an interrupted export: {written:,} written, "
                f"{len(self.there) + unchanged:,} already there ({len(self.there):,} kept as written: each copy and "
                "manifest with the SHA-256 its partial manifest recorded, made from what is unchanged since; "
                f"{unchanged:,} made again byte for byte)")
