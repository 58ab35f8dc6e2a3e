"""A long tool result cut in a shared md or html copy, its size said (``asz export --result-limit``; trial 49b F2).

A 1,820,022-byte ``Bash`` result (20,000 lines) was drawn whole: the md copy was 1.8 MB (GitHub renders none over
512 KB) and the html, folded but saying no size, printed to 934 pages. A person sharing a conversation shares what was
said and done; claude-code-log folds a long output in its pages behind a few lines of preview, the brief form leaves
every result out and says its size. So from render 52 (:data:`CUT_RENDER`) md and html draw a result over
``--result-limit`` bytes (:data:`DEFAULT_LIMIT`, 30,000: Claude Code's own cut of a shell's output, so nearly every
result is drawn whole) as its first lines and its last, whole lines of about three quarters and a quarter of the
limit, and between them one line saying what is cut: its size in bytes and lines, what is drawn, what is left out, and
that the whole is in the root (``asz show``) and in ``asz export --format json --whole``. ``--result-limit 0`` draws
every result whole, as render 51 and before did. The limit is the manifest's ``made.result_limit``, so ``asz verify
--export`` makes the copy again cut as it was; a manifest without it (before render 52) is made again whole."""

from __future__ import annotations

from contextlib import contextmanager
from contextvars import ContextVar
from typing import Callable, Iterator, NamedTuple, Optional

__all__ = ["CUT_RENDER", "DEFAULT_LIMIT", "RESULT_LIMIT", "Cut", "cut_at", "cut_of", "cut_html", "cut_markdown", "cut_summary", "results_cut"]

#: The render from which md and html cut a result over the limit (module docstring).
CUT_RENDER = 52
#: ``--result-limit``'s default, in bytes of UTF-8.
DEFAULT_LIMIT = 30_000
#: The limit the copy being drawn cuts results at (0: none), set by :func:`results_cut`.
RESULT_LIMIT: ContextVar[int] = ContextVar("asz_result_limit", default=0)


def cut_at(fmt: str, brief: bool, limit: Optional[int]) -> int:
    """The limit an export cuts results at: ``--result-limit`` (``limit``; None: not given, :data:`DEFAULT_LIMIT`) for
    md and html, 0 (none) for the brief form, which draws no result, and every other format."""
    return (DEFAULT_LIMIT if limit is None else limit) if fmt in ("md", "html") and not brief else 0


@contextmanager
def results_cut(limit: int) -> Iterator[None]:
    """Draw md and html copies cutting each tool result over ``limit`` bytes (0: none) while inside."""
    token = RESULT_LIMIT.set(max(int(limit or 0), 0))
    try:
        yield
    finally:
        RESULT_LIMIT.reset(token)


class Cut(NamedTuple):
    """A result cut: its ``head`` and ``tail`` as drawn, and the words of the line between them (:func:`said`)."""

    head: str
    tail: str
    said: str


def _lines(b: bytes) -> int:
    return b.count(b"\n") + (1 if b and not b.endswith(b"\n") else 0)


def _head(b: bytes, budget: int) -> bytes:
    """The first whole lines of ``b`` within ``budget`` bytes (a line longer than that: cut at a character's end)."""
    part = b[:budget]
    at = part.rfind(b"\n")
    return part[:at + 1] if at >= 0 else part.decode("utf-8", "ignore").encode("utf-8")


def _tail(b: bytes, budget: int) -> bytes:
    """The last whole lines of ``b`` within ``budget`` bytes (a line longer than that: cut at a character's start)."""
    part = b[len(b) - budget:] if budget < len(b) else b
    at = part.find(b"\n")
    return part[at + 1:] if 0 <= at < len(part) - 1 else part.decode("utf-8", "ignore").encode("utf-8")


def _over(text: str) -> Optional[bytes]:
    """``text``'s UTF-8 bytes when the copy being drawn cuts it (over :data:`RESULT_LIMIT`, from render 52); None when
    it is drawn whole (no limit, or within it): :func:`cut_of` and :func:`cut_summary`'s one test."""
    from .export_render import drawn

    limit = RESULT_LIMIT.get()
    if not limit or drawn() < CUT_RENDER or len(text) <= limit // 4:
        return None
    b = text.encode("utf-8")
    return b if len(b) > limit else None


def cut_of(text: str) -> Optional[Cut]:
    """``text`` (a tool result) cut at the limit of the copy being drawn (:data:`RESULT_LIMIT`, from render 52), or
    None when it is drawn whole (no limit, or within it)."""
    b = _over(text)
    if b is None:
        return None
    limit = RESULT_LIMIT.get()
    head = _head(b, limit * 3 // 4)
    tail = _tail(b[len(head):], limit - len(head))
    gone = len(b) - len(head) - len(tail)
    said = (f"result cut for sharing: {len(b):,} bytes in {_lines(b):,} lines; drawn here its first {len(head):,} bytes "
            f"({_lines(head):,} lines) and its last {len(tail):,} ({_lines(tail):,} lines), the {gone:,} bytes between left "
            f"out (--result-limit {limit:,}; --result-limit 0 draws it whole). The whole result is in the root (asz show "
            "ID STEP) and in asz export ID --format json --whole")
    return Cut(head.decode("utf-8").rstrip("\n"), tail.decode("utf-8").rstrip("\n"), said)


def cut_markdown(text: str, fence: Callable[[str], str], visible: Callable[[str], str]) -> list[str]:
    """Markdown lines of a tool result: fenced whole, or cut (:func:`cut_of`) as its head fenced, the line saying the
    cut in italics, its tail fenced."""
    cut = cut_of(text)
    if cut is None:
        return ["", fence(visible(text))]
    return ["", fence(visible(cut.head)), "", f"*[{cut.said}]*", "", fence(visible(cut.tail))]


def cut_html(text: str, e: Callable[[str], str]) -> str:
    """HTML of a tool result: one ``<pre>`` whole, or cut (:func:`cut_of`) as its head, the line saying the cut
    (``<p class="cut">``), its tail."""
    cut = cut_of(text)
    if cut is None:
        return f"<pre>{e(text)}</pre>"
    return f"<pre>{e(cut.head)}</pre><p class=\"cut\"><i>[{e(cut.said)}]</i></p><pre>{e(cut.tail)}</pre>"


def cut_summary(st: dict) -> str:
    """What an html tool line (its ``<summary>``, seen while the call is folded) adds for a result it cuts: `` <span
    class="cut">result 1,820,022 bytes, cut</span>``; '' otherwise. A result ``asz prune`` took is said by the size
    its skeleton keeps when that is over the limit, so a copy made before the prune is made again with the same line
    (the marker in its place stands for the cut result: :func:`~asz_core.reading.export_retention.retention_spans`)."""
    text, n = st.get("result"), st.get("result_bytes")
    if not text or st.get("report"):
        return ""
    if st.get("result_state") == "removed" and isinstance(n, int) and not isinstance(n, bool):  # by its kept size
        from .export_render import drawn

        cut = n > RESULT_LIMIT.get() > 0 and drawn() >= CUT_RENDER  # as the copy made before asz prune said it
    else:  # whether it is cut, not the cut itself (cut_html draws it)
        b = _over(text)
        n, cut = len(b or b""), b is not None
    return f" <span class=\"cut\">result {n:,} bytes, cut</span>" if cut else ""
