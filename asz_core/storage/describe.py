"""The root describes itself: ``<root>/_README.txt`` (trial 29a F10: a reader in ten years found session folders,
``_conversations``, ``_index`` and ``_sessions.list``, and no word of what they are, which formats, which asz).

A plain UTF-8 text naming the formats (``sd/1``, ``sf/1``), where their specifications are published, the asz
version and commit that wrote the file, and how to verify the root, with or without asz. Its name starts with
``_``: the original's readers skip such names when they list sessions (origin-digest §2.1), as asz does
(``_sessions.list``, ``_index``, ``_conversations``), so no reader takes it for a session, and ``asz verify`` counts it
as nothing (neither a session, nor damage). Written once, read-only (``0444``), by the writers
(:func:`~asz_core.storage.session_list.record_sessions`: ``asz collect``, ``asz server``, ``asz receive``, ``asz
repack``, the provider-body pass) when the root has none: at the root's first pass, and again after it was
deleted; never into a read-only root (:func:`~asz_core.storage.frozen.frozen`), never over one that is there (an
edited copy stays as it is). Derived from nothing: a description, no evidence, never checked.
"""

from __future__ import annotations

import os
from pathlib import Path

from ..sessiondata.filemode import read_only_mode

__all__ = ["README_NAME", "describe_root", "readme_text"]

#: The file's name, relative to the root (a ``_`` name: never a session).
README_NAME = "_README.txt"


def readme_text(version: str, commit: str) -> str:
    """The file's text: ``version`` (asz's), ``commit`` ('' when not known). No time in it: two roots one build wrote
    hold the same file (a root compared with another, file by file, differs by nothing it did not land)."""
    build = f"asz {version}" + (f", source {commit}" if commit else "")
    return f"""This folder is an asz storage root: AI agent sessions (Claude Code, Kiro, LangChain) recorded as
write-once evidence.
This file was written by {build}, when the root had none; asz never changes it
afterwards (and writes it again only when it is missing).

What is here
  <session>/streams/<stream>/<kind>-<stamp>-<seq>.sd, <session>/runs/..., <session>/provider_body/...
      Session Data, schema sd/1: UTF-8 JSON lines, a header line, one line per source record, and a
      closing line {{"t":"end","records":N,"digest":"<sha256 hex>"}} whose SHA-256 covers every byte
      before it. Written once, read-only; a file is never appended to or rewritten. <seq> orders a
      session's files; <stamp> is when the pass that landed it started (UTC).
      A .sk file beside them is a skeleton retention left in place of a removed .sd file (gzip, sd/1:
      read it with zcat or zgrep; a plain grep of the folder does not see inside it).
  _conversations/<conversation>/rounds/r<round>-<first 12 hex of its digest>.sf
      Session Flow, schema sf/1: each conversation's structure (talks, runs, steps, relations), in rounds
      chained by digest, built by asz parse from the .sd files; a round ends with a commit line whose
      SHA-256 covers every byte before it.
  _sessions.list      every session landed here, append-only.
  _erased.list        the sessions erased from this root on request (asz erase): their ids, when, by whom,
                      why; never their content; append-only. An erased session keeps its _sessions.list
                      line and nothing else: no folder, no chain, no derived row.
  _removed/           an erasure under way (asz erase moves a session here, then deletes it); left by a
                      stopped erasure, which the same asz erase finishes.
  _index/, <session>/index/
      derived data (indexes, cached figures): asz builds them again from the files above.
  *.state, *.cursor, .lock and other files
      the writers' bookkeeping (where each source was read to, locks): not evidence.

Specifications
  docs/session-data.md (sd/1), docs/session-flow.md (sf/1), docs/storage-root.md (this layout) and
  docs/verify.md (what is checked) in the asz source, version {version}. The formats are those of
  Apache SkyWalking AI Sessionizer (github.com/apache/skywalking-ai-sessionizer), whose published design
  asz follows.

How to verify
  asz verify --root <this folder>        every landed byte against its digests, and the round chains
  Without asz: for each .sd and .sf file, the SHA-256 of all bytes before its last line must equal
  the "digest" that last line carries.
"""


def describe_root(root: str | os.PathLike) -> Path | None:
    """Write ``root``'s :data:`README_NAME` when it has none (module docstring); the path written, None when one was
    there, the root is read-only or the write failed (a description: never a reason to fail a writer). Writes to a
    temporary name, then links it into place, so a reader never sees half of it and one already there is kept."""
    from .. import __version__
    from .frozen import frozen

    root = Path(root)
    path = root / README_NAME
    if os.path.lexists(path) or not root.is_dir() or frozen(root):
        return None
    tmp = root / f".{README_NAME}.{os.getpid()}.tmp"
    try:
        text = readme_text(__version__, _commit(Path(__file__).resolve().parents[2]))
        with open(tmp, "w", encoding="utf-8") as f:
            f.write(text)
        os.chmod(tmp, read_only_mode())  # 0444 less the umask (trial 34c F5)
        os.link(tmp, path)  # never over a file another writer put there meanwhile
    except OSError:
        return None
    finally:
        try:
            os.unlink(tmp)
        except OSError:
            pass
    return path


def _commit(top: Path) -> str:
    """The commit the copy of asz in ``top`` was built from, without running git (a writer's first pass must not wait
    for ``git status``): a git checkout's HEAD read from its files (12 hex digits; a worktree's ``.git`` file and
    packed refs followed), else the commit a build recorded (:func:`asz_core._commit.recorded_commit`); '' when
    neither reads. Never raises."""
    from .._commit import recorded_commit

    try:
        git = top / ".git"
        if git.is_file():  # a worktree: "gitdir: <its folder under the main .git/worktrees>"
            git = Path(git.read_text(encoding="utf-8").split(":", 1)[1].strip())
        if not git.is_dir():
            return recorded_commit(top)
        head = (git / "HEAD").read_text(encoding="utf-8").strip()
        if not head.startswith("ref: "):
            return head[:12]
        ref = head[5:]
        common = git / "commondir"  # a worktree's refs live in the main .git
        base = (git / common.read_text(encoding="utf-8").strip()).resolve() if common.is_file() else git
        for d in (git, base):
            if (d / ref).is_file():
                return (d / ref).read_text(encoding="utf-8").strip()[:12]
        for line in (base / "packed-refs").read_text(encoding="utf-8").splitlines():
            if line.endswith(" " + ref):
                return line.split(" ", 1)[0][:12]
    except (OSError, IndexError, ValueError):
        pass
    return ""
