"""``asz export --format prose``: a conversation as the prose an audit model is fed (seed 003, §4; issue 20).

One JSON object per transcript record that carries prose, in file order,
stream by stream (the main stream first, then the others by their first
record's time):

- ``role: "user"``: a record from ``external`` whose parts are all ``text``
  (or media): the person's prompt as typed, and what the runtime put in the
  person's turn (its notices, command output), as seed 003's rule keeps
  every user line whose content is text;
- ``role: "assistant"``: the ``text`` parts of a record from ``agent``, and
  with ``thinking`` its ``reasoning`` parts too, in block order;

never a tool call or result. Keys: ``conversation``, ``stream``, ``role``,
``ts`` (the record's time as written), ``text`` (the parts joined with a
newline), ``file`` and ``row`` (the landed record). A record landed twice
(an interrupted pass) counts once, by its ``ord``; a record carrying a flag
``hide`` names is left out.

:func:`estimate` gives the token estimate of seed 003 (words x 1.3) for the
prose and a like-for-like byte estimate (bytes / 4) of prose against the
source records the conversation landed (``bytes`` of each record: the size of
the source line).
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Iterator, NamedTuple, Sequence

from ..flow.chain import Chain, ChainError
from ..flow.fold import FoldError, fold_rounds
from ..flow.round import RoundError
from ..sessiondata import SDError, SDReader
from ..sessiondata.times import parse_instant
from ..storage.layout import landed_files

__all__ = ["Estimate", "prose_turns", "estimate", "session_of"]

_PROSE_USER_PARTS = frozenset(("text", "media"))


class Estimate(NamedTuple):
    """Prose against raw: turns, prose words and bytes, raw (source record) bytes, and token estimates."""

    turns: int
    prose_words: int
    prose_bytes: int
    raw_bytes: int

    @property
    def prose_tokens_words(self) -> int:
        """Seed 003's estimate: words x 1.3."""
        return round(self.prose_words * 1.3)

    @property
    def prose_tokens_bytes(self) -> int:
        """Prose bytes / 4 (to compare with :attr:`raw_tokens_bytes`)."""
        return self.prose_bytes // 4

    @property
    def raw_tokens_bytes(self) -> int:
        """Source record bytes / 4."""
        return self.raw_bytes // 4

    def line(self) -> str:
        """One line for a person: ``prose N turns, W words ≈ T tokens; bytes/4: P of raw R (X%)``."""
        share = f"{100 * self.prose_bytes / self.raw_bytes:.1f}%" if self.raw_bytes else "-"
        return (f"prose {self.turns:,} turns, {self.prose_words:,} words ≈ {self.prose_tokens_words:,} tokens (words × 1.3); "
                f"bytes ÷ 4: prose ≈ {self.prose_tokens_bytes:,} of raw ≈ {self.raw_tokens_bytes:,} tokens ({share})")


def session_of(root: str | os.PathLike, conversation: str) -> tuple[str, int]:
    """``(session, through_seq)`` of a conversation's head round. Raises LookupError when its chain does not fold."""
    try:
        head = fold_rounds(Chain(root, conversation).iter_rounds()).head
    except (ChainError, FoldError, RoundError, OSError) as exc:
        raise LookupError(f"conversation {conversation!r} has no usable round: {exc}") from None
    if head is None:
        raise LookupError(f"conversation {conversation!r} has no round")
    return head.session, head.through_seq


def _turn(rec: dict, thinking: bool) -> tuple[str, str] | None:
    parts = rec.get("parts", ())
    who = rec.get("from", "")
    if who == "external":
        if not parts or any(p.get("k") not in _PROSE_USER_PARTS for p in parts):
            return None
        texts = [p.get("text", "") for p in parts if p.get("k") == "text"]
        role = "user"
    elif who == "agent":
        keep = ("text", "reasoning") if thinking else ("text",)
        texts = [p.get("text", "") for p in parts if p.get("k") in keep]
        role = "assistant"
    else:
        return None
    text = "\n".join(texts)  # as seed 003's filter joins a line's text blocks, empty ones too
    return (role, text) if text else None


def _records(root: Path, session: str, through: int) -> Iterator[tuple[str, str, int, dict]]:
    """``(stream, file, row, record)`` of the session's transcript files through seq ``through``, in seq/row order."""
    for ln, path in landed_files(root / session) if (root / session).is_dir() else []:
        if ln.seq > through or ln.kind != "transcript":
            continue
        reader = SDReader(path, decode="dict")
        rel = path.relative_to(root).as_posix()
        try:
            for row, rec in reader:
                yield (reader.header.stream if reader.header else "") or "main", rel, row, rec
        except (SDError, OSError):
            continue  # a file that does not read gives nothing more; asz verify names it


def prose_turns(root: str | os.PathLike, conversation: str, *, hide: Sequence[str] = (), thinking: bool = False,
                raw: list[int] | None = None) -> list[dict]:
    """The prose turns of ``conversation`` (module docstring). ``raw``, when given, gets ``[source bytes of every transcript record]`` added."""
    root = Path(root)
    session, through = session_of(root, conversation)
    hidden = set(hide)
    seen: set[tuple[str, int]] = set()
    by_stream: dict[str, list[dict]] = {}
    first: dict[str, int] = {}
    raw_bytes = 0
    for stream, rel, row, rec in _records(root, session, through):
        key = (stream, rec.get("ord", 0))
        if key in seen:
            continue
        seen.add(key)
        raw_bytes += rec.get("bytes", 0) or 0
        ns = parse_instant(rec.get("time"))
        if ns is not None and stream not in first:
            first[stream] = ns
        if hidden.intersection(rec.get("flags", ())):
            continue
        t = _turn(rec, thinking)
        if t is None:
            continue
        by_stream.setdefault(stream, []).append({"conversation": conversation, "stream": stream, "role": t[0],
                                                 "ts": rec.get("time", ""), "text": t[1], "file": rel, "row": row})
    if raw is not None:
        raw.append(raw_bytes)
    order = sorted(by_stream, key=lambda s: (s != "main", first.get(s, 1 << 62), s))
    return [turn for s in order for turn in by_stream[s]]


def estimate(turns: Sequence[dict], raw_bytes: int) -> Estimate:
    """The :class:`Estimate` of ``turns`` against ``raw_bytes`` source bytes."""
    words = sum(len(t["text"].split()) for t in turns)
    size = sum(len(t["text"].encode("utf-8")) for t in turns)
    return Estimate(len(turns), words, size, raw_bytes)
