"""The size of a prose or text export against its raw records, said on stderr (:meth:`Estimate.line`): moved out of
:mod:`asz_core.reading.prose` (at the 600-line limit) when the audit form's count was named (trial 49a F5)."""

from __future__ import annotations

from typing import NamedTuple, Optional, Sequence

__all__ = ["Estimate", "estimate"]


class Estimate(NamedTuple):
    """Prose against raw: turns, prose words and bytes, raw (source record) bytes, and token estimates."""

    turns: int
    prose_words: int
    prose_bytes: int
    raw_bytes: int
    calls: Optional[int] = None  # the audit form's lines (each with a kind): how many are tool calls (trial 49a F5)

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
        """One line for a person: ``prose N turns, W words ≈ T tokens; bytes/4: P of raw R (X%)``; the audit form's
        ``N lines (C tool calls, O other)``: its lines are no turns, one a tool call (trial 49a F5)."""
        share = f"{100 * self.prose_bytes / self.raw_bytes:.1f}%" if self.raw_bytes else "-"
        what = f"{self.turns:,} turns" if self.calls is None else \
            f"{self.turns:,} lines ({self.calls:,} tool calls, {self.turns - self.calls:,} other)"
        return (f"prose {what}, {self.prose_words:,} words ≈ {self.prose_tokens_words:,} tokens (words × 1.3); "
                f"bytes ÷ 4: prose ≈ {self.prose_tokens_bytes:,} of raw ≈ {self.raw_tokens_bytes:,} tokens ({share})")


def estimate(turns: Sequence[dict], raw_bytes: int) -> Estimate:
    """The :class:`Estimate` of ``turns`` against ``raw_bytes`` source bytes."""
    turns = [t for t in turns if "text" in t]  # the audit form's header lines carry none
    words = sum(len(t["text"].split()) for t in turns)
    size = sum(len(t["text"].encode("utf-8")) for t in turns)
    return Estimate(len(turns), words, size, raw_bytes,
                    sum(t.get("kind") == "tool_call" for t in turns) if any("kind" in t for t in turns) else None)
