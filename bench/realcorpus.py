"""A real-shaped corpus: copies of a real Claude Code projects folder under new ids, to a given size.

Every copy keeps each file's lines byte for byte in shape and size: only the
identifiers change, each to a new one of the same length and alphabet, the same
way everywhere in one copy (file and directory names included), so sessions,
messages, requests, tool uses and agents stay distinct between copies and join
exactly as they do in the original within one. Identifiers replaced:

* UUIDs (``8-4-4-4-12`` hex): session ids, record uuids, prompt ids;
* ``msg_…``, ``req_…``, ``toolu_…`` (Anthropic message, request and tool-use ids);
* sub-agent ids: every id a source file is named by (``agent-<id>.jsonl``: ``a36efb2a1231c41e2``,
  ``acompact-f46190``), wherever it stands whole (file names, ``agentId`` values, a parent's tool
  result), its ``acompact-`` head kept; other ``agent-<hex>`` mentions as before.

The default source is ``../shared/corpus/claude-code/projects`` (11 sessions,
8.0 MB, 2.6 KB a line on average), found as the tests find the corpus (:func:`corpus_sources`): ``../shared/corpus``
beside the repo, else ``$ASZ_CORPUS`` (a corpus folder, or a projects folder itself), else ``shared/corpus`` beside
any folder above the repo (a clone not under the folder ``shared`` sits beside; trial 32b F13); ``--source DIR`` names
another. Used by ``bench/collect.py``, ``bench/parse.py``
and ``bench/view.py`` (``--corpus real``, the default). Usage::

    python bench/realcorpus.py OUT --size-mb 1000 [--source DIR] [--first-copy N]

Copy 0 keeps the source's own ids, so two runs give the same sessions. ``--first-copy N`` numbers the
copies from N: runs with first copies far enough apart (more than the copies a run writes) share no
session, message or request id, as histories of different hosts do.
"""

from __future__ import annotations

import argparse
import hashlib
import os
import re
import shutil
from pathlib import Path

MB = 1_000_000
REPO = Path(__file__).resolve().parents[1]
PROJECTS = Path("claude-code") / "projects"


def corpus_sources() -> list[Path]:
    """Where the default source is looked for, in order: ``../shared/corpus/claude-code/projects`` beside the repo
    (tests/conftest.py's ``corpus_dir``), then ``$ASZ_CORPUS/claude-code/projects`` and ``$ASZ_CORPUS`` itself, then
    ``shared/corpus/claude-code/projects`` beside each folder above the repo, nearest first."""
    out = [REPO.parent / "shared" / "corpus" / PROJECTS]
    if env := os.environ.get("ASZ_CORPUS"):
        out += [Path(env) / PROJECTS, Path(env)]
    out += [up / "shared" / "corpus" / PROJECTS for up in REPO.parents[1:]]
    return out


def default_source() -> Path:
    """The first of :func:`corpus_sources` that is a folder; the first of them when none is (generate says where it
    looked)."""
    return next((p for p in corpus_sources() if p.is_dir()), corpus_sources()[0])


DEFAULT_SOURCE = default_source()

_ID = re.compile(
    rb"[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}"
    rb"|(?:msg|req|toolu)_[0-9A-Za-z]{8,40}"
    rb"|agent-[0-9a-f]{6,32}"
)
_HEX = b"0123456789abcdef"
_B62 = b"0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"


def _id_pattern(agent_ids: list[bytes]) -> re.Pattern:
    """:data:`_ID` and, first, each of ``agent_ids`` where it stands whole (no letter or digit either side)."""
    if not agent_ids:
        return _ID
    alts = b"|".join(re.escape(a) for a in sorted(agent_ids, key=len, reverse=True))
    return re.compile(rb"(?<![0-9A-Za-z])(?:" + alts + rb")(?![0-9A-Za-z])|" + _ID.pattern)


def _fresh(old: bytes, copy: int) -> bytes:
    """The new identifier for ``old`` in copy ``copy``: same length, prefix and alphabet; deterministic."""
    if copy == 0:
        return old
    digest = hashlib.sha512(b"%d:" % copy + old).digest()
    if b"-" not in old and len(old) < 36 and not old.startswith((b"msg_", b"req_", b"toolu_")):
        return old[:1] + bytes(_HEX[digest[i % 64] % 16] for i in range(len(old) - 1))  # a sub-agent id: a + hex
    if old.startswith(b"acompact-"):
        return b"acompact-" + bytes(_HEX[digest[i % 64] % 16] for i in range(len(old) - 9))
    if old[:4] in (b"msg_", b"req_") or old.startswith(b"toolu_"):
        head, _, tail = old.partition(b"_")
        alphabet = _B62
        body = bytes(alphabet[digest[i % 64] % len(alphabet)] for i in range(len(tail)))
        return head + b"_" + body
    if old.startswith(b"agent-"):
        tail = old[6:]
        return b"agent-" + bytes(_HEX[digest[i % 64] % 16] for i in range(len(tail)))
    out = bytearray(old)
    k = 0
    for i, ch in enumerate(old):
        if ch != 0x2D:  # '-'
            out[i] = _HEX[digest[k % 64] % 16]
            k += 1
    out[14] = 0x34  # keep it a version-4 UUID as the originals are
    return bytes(out)


def _rename(data: bytes, copy: int, cache: dict[bytes, bytes], pattern: re.Pattern = _ID,
            agent_ids: frozenset = frozenset()) -> bytes:
    def sub(m: re.Match) -> bytes:
        old = m.group(0)
        new = cache.get(old)
        if new is None:
            if old.startswith(b"agent-") and old[6:] in agent_ids:  # a file name: the id's own new value
                new = cache[old] = b"agent-" + sub_id(old[6:])
            else:
                new = cache[old] = _fresh(old, copy)
        return new

    def sub_id(old: bytes) -> bytes:
        new = cache.get(old)
        if new is None:
            new = cache[old] = _fresh(old, copy)
        return new

    return pattern.sub(sub, data)


def generate(out: Path, size_mb: float, source: Path = DEFAULT_SOURCE, first_copy: int = 0) -> dict:
    """Write copies of ``source`` under ``out`` until about ``size_mb`` MB; returns counts.

    ``out`` is emptied first. Copies are numbered from ``first_copy`` (0 keeps the source's ids). Returns ``{"bytes", "files", "lines", "copies", "largest_line"}``.
    """
    if not source.is_dir():
        looked = "" if source != DEFAULT_SOURCE else f"; looked in {', '.join(map(str, dict.fromkeys(corpus_sources())))}"
        raise SystemExit(f"no corpus at {source}{looked}: pass --source DIR, a Claude Code projects folder "
                         "(or set ASZ_CORPUS to the corpus folder)")
    shutil.rmtree(out, ignore_errors=True)
    out.mkdir(parents=True)
    files = sorted(p for p in source.rglob("*") if p.is_file())
    agent_ids = frozenset(p.name[6:-6].encode() for p in files if p.name.startswith("agent-") and p.name.endswith(".jsonl"))
    pattern = _id_pattern(sorted(agent_ids))
    target = int(size_mb * MB)
    written = nfiles = lines = largest = 0
    copy = first_copy
    while written < target:
        cache: dict[bytes, bytes] = {}
        for f in files:
            rel = f.relative_to(source)
            new_rel = Path(_rename(str(rel).encode(), copy, cache, pattern, agent_ids).decode())
            data = _rename(f.read_bytes(), copy, cache, pattern, agent_ids)
            dest = out / new_rel
            dest.parent.mkdir(parents=True, exist_ok=True)
            dest.write_bytes(data)
            written += len(data)
            nfiles += 1
            if f.suffix == ".jsonl":
                lines += data.count(b"\n")
                largest = max(largest, max((len(x) for x in data.split(b"\n")), default=0))
            if written >= target:
                break
        copy += 1
    return {"bytes": written, "files": nfiles, "lines": lines, "copies": copy - first_copy, "largest_line": largest}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("out", type=Path)
    ap.add_argument("--size-mb", type=float, default=200)
    ap.add_argument("--source", type=Path, default=DEFAULT_SOURCE)
    ap.add_argument("--first-copy", type=int, default=0, help="number the copies from N (0 keeps the source's ids)")
    a = ap.parse_args()
    if a.first_copy < 0:
        ap.error("--first-copy must be 0 or more")
    print(generate(a.out, a.size_mb, a.source, a.first_copy))


if __name__ == "__main__":
    main()
