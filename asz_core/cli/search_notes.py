"""What ``asz search`` says under its hits of the parts too large to land (:func:`too_large`; seed 000, trial 42b F3),
split from :mod:`asz_core.cli.search_cmd`."""

from __future__ import annotations

from pathlib import Path

__all__ = ["TOO_LARGE_GAP", "too_large"]

#: How the problem of a part too large to land begins (:data:`~asz_core.reading.search_gaps.TOO_LARGE`).
TOO_LARGE_GAP = "too large to land: "


def too_large(r: Path, large: list[dict], found: set[str]) -> str:
    """What a query says of the parts too large to land in the conversations its filters keep (``large``: those gaps of
    :func:`~asz_core.reading.search_gaps.gaps`, ``{"conversation", "file", "problem"}``): their text is not in the
    root, so no query could match it (seed 000). Said where it can matter: with no hit, of them all (the words may have
    stood only there); with hits, of those in the conversations of the hits shown (``found``), and not at all when no
    hit is in one (trial 42b F3: one part cut at collect was said under every search, whatever it found). One line,
    however many: ``N part(s) too large to land in M conversation(s)[ of these hits] (ID, …) were not searched[, so a
    further hit they may hold is not shown (the hits above are all found)]: their
    text is not in the root; asz search WORDS --json --held-back lists each (file, row, size, sha256)`` (trial 37b F6:
    three lines of one conversation were printed on every query, on stdout and again on stderr; trial 40c F5: one part
    was said as its file's line, ``! FILE: too large to land …``, which read as a problem of the query's hits); ``--json
    --held-back`` lists every one whatever was found. '' when there is none to say."""
    large = [g for g in large if not found or g["conversation"] in found]
    if not large:
        return ""
    from ..reading.ids import conversation_names
    from ..reading.termtext import visible

    shown = conversation_names(r)
    convs = list(dict.fromkeys(g["conversation"] for g in large))
    named = ", ".join(visible(shown(c)) for c in convs[:5]) + (f", {len(convs) - 5:,} more" if len(convs) > 5 else "")
    return (f"{len(large):,} part(s) too large to land in {len(convs):,} conversation(s){' of these hits' if found else ''} "
            f"({named}) were not searched{HITS_KEPT if found else ''}: "
            "their text is not in the root; asz search WORDS --json --held-back lists each (file, row, size, sha256)")


#: What the line adds when the query has hits, so it is not read as a miss of the hits shown (trial 48d F8: the one
#: hit of ``walrusword`` printed above ``… of these hits were not searched``).
HITS_KEPT = ", so a further hit they may hold is not shown (the hits above are all found)"
