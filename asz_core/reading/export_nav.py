"""A folder export's md copy finds its way (render 13; trial 37a F6: the html pages had ``← all conversations`` and
``nav.talks``, the md copies neither, so on GitHub a 287 KB conversation of 8 talks had no way back and no way in):
the line under its title links the folder's ``index.md`` (:data:`INDEX_LINK`) and a list after its head links each
talk's heading (:func:`talk_list`, by the anchor a Markdown viewer gives it: :func:`md_anchor`). Drawn by
:func:`~asz_core.reading.export.to_markdown`; docs/reading.md, ``asz export``."""

from __future__ import annotations

__all__ = ["INDEX_LINK", "md_anchor", "navigated", "slug", "talk_list"]


#: The head line of a conversation's md in a folder export that links back to the folder's index (render 13).
INDEX_LINK = "[← all conversations (the index)]({index})"


def md_anchor(heading: str) -> str:
    """The in-page link a Markdown viewer gives the heading written ``heading`` (its text after ``## ``), as GitHub
    and GitLab make it (github-slugger): the text the heading shows (markdown-it-py: escapes read, code spans' text,
    emphasis marks gone), made a slug by :func:`slug`; ``#`` before it."""
    from markdown_it import MarkdownIt

    shown = "".join(c.content for tok in MarkdownIt("commonmark").parseInline(heading)
                    for c in tok.children or () if c.type in ("text", "code_inline"))
    return "#" + slug(shown)


def slug(shown: str) -> str:
    """github-slugger's slug of a heading's shown text, the one rule of every anchor asz writes (an md copy's talk
    list, ``index.md``'s projects): lower-cased, every character but a letter, mark, digit, connector (``_``), space or
    ``-`` left out, each space a ``-``."""
    import unicodedata

    kept = "".join(c for c in shown.lower() if c in " -_" or unicodedata.category(c)[0] in "LMN" or unicodedata.category(c) == "Pc")
    return kept.replace(" ", "-")


def _as_heading(written: str) -> str:
    """A talk's heading (its text after ``## ``) as the md copy writes it, escaped where a viewer would run it
    (:func:`~.md_active.neutralised` of the heading line, as :func:`~.md_active.warned` escapes the copy's)."""
    from .md_active import neutralised

    return neutralised("## " + written)[0][3:]


def _written(block: str) -> str:
    """``block`` (a heading, or a list line's text) as the md copy writes it: escaped where it holds a place a viewer
    would run or fetch (:func:`~.md_active.neutralised`, then every ``<`` and ``[`` of it: :func:`~.md_active.inert`),
    so the list's own link ``[`` is never escaped with it (render 28)."""
    from .md_active import inert, neutralised

    return block if neutralised(block)[0] == block else inert(block)


def talk_list(headings: list[tuple[str, str, str]]) -> list[str]:
    """The md copy's list of its talks (render 13; trial 37a F6: a folder export's md had none, the html ``nav.talks``):
    ``**Talks**`` then one line per talk, ``- [Talk 2](#talk-2-…): its heading · *when it started*``, each linking its
    ``##`` heading (:func:`md_anchor`); ``headings``: ``(the heading as written after ##, its talk's number or '' for
    the steps under no talk, when)``."""
    from .export_render import ARCHIVE_RENDER, drawn

    out, now = ["", "**Talks**", ""], drawn() >= ARCHIVE_RENDER  # trial 45b F3: the anchor of the heading as written
    for written, n, when in headings:
        anchor = md_anchor(_as_heading(written) if now else written)
        if not n:
            out.append(f"- [{_written(written) if now else written}]({anchor})")
            continue
        rest = written.split(": ", 1)[1] if ": " in written else ""
        out.append(f"- [Talk {n}]({anchor}): {_written(rest) if now else rest}" + (f" · *{when}*" if when else ""))
    return out


def navigated(lines: list[str], index: str, talks: list[dict]) -> list[str]:
    """Each talk's heading as the md copy writes it after ``## `` (``Talk 2: …``; a stream's steps under no talk by
    their label), its ``lines`` (its head) given, in a folder export (``index``: its ``index.md``) and from render
    13, the link back under the title and, for two talks or more, the talk list (:func:`talk_list`)."""
    from .export import literal, talk_start, when_text
    from .export_render import drawn
    from .termtext import md_line

    headings = [(md_line(t["heading"]), "", "") if t["talk"] is None else
                (f"Talk {i}: {literal(md_line(t['heading']))}", str(i), when_text(talk_start(t["talk"])))
                for i, t in enumerate(talks, 1)]
    if index and drawn() >= 13:
        lines[2:2] = [f"- {INDEX_LINK.format(index=index)}"]
        lines += talk_list(headings) if len(talks) > 1 else []
    return [h[0] for h in headings]
