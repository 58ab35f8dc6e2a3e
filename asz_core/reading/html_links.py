"""A link the model wrote in its Markdown, as an html copy draws it (render 37; trial 47b F4).

The model writes links to the files of the project it works in (``[README.md](README.md)``, ``[the
config](pyproject.toml)``, ``[step 2](#step-2)``). In a shared html copy such a target is nowhere: the reader's
browser reads it against the copy's own folder, where it names nothing, or names a file of the export itself (a model
link to ``index.html`` opened the folder's index, one to ``#talk-…`` a place in the page asz drew). So from render 37
a link whose target is not absolute ``http:``, ``https:`` or ``mailto:`` is drawn as the text it is, its target shown
after it in parentheses as code (``the config (pyproject.toml)``; not again when the text is the target), never as a
link; an image from such a place is drawn so too (``[image: ALT] (docs/arch.png)``). An absolute web link stays a link,
as claude-code-log's and agentsview's pages keep them. The copy's own links (its talks, the index, the copies of a
folder) are asz's, not the model's, and are not touched. The md copy keeps the model's Markdown as written: a
Markdown viewer shows it as the model wrote it. A copy of render 36 or before is made again with the model's links
live (:func:`~asz_core.reading.export_render.drawn`).
"""

from __future__ import annotations

import html
import re

__all__ = ["LIVE", "unlinked", "unlinked_image"]

#: A target that stays a link in an html copy: an absolute web or mail address.
LIVE = re.compile(r"(?:https?|mailto):", re.I)


def unlinked(md) -> None:
    """Draw ``md``'s (a markdown-it-py parser's) links whose target is not :data:`LIVE` as text with their target shown
    (module docstring): a core rule marking each such link's open and close token, and their render rules."""
    md.core.ruler.push("asz_unlinked", _marked)
    opened, closed = md.renderer.rules.get("link_open"), md.renderer.rules.get("link_close")

    def link_open(self, tokens, idx, options, env) -> str:
        if "unlinked" in tokens[idx].meta:
            return ""
        return opened(tokens, idx, options, env) if opened else self.renderToken(tokens, idx, options, env)

    def link_close(self, tokens, idx, options, env) -> str:
        if "unlinked" in tokens[idx].meta:
            target = tokens[idx].meta["unlinked"]
            return f" (<code>{html.escape(target)}</code>)" if target is not None else ""
        return closed(tokens, idx, options, env) if closed else self.renderToken(tokens, idx, options, env)

    md.add_render_rule("link_open", link_open)
    md.add_render_rule("link_close", link_close)


def _marked(state) -> None:
    """Mark each link of the parsed inline tokens whose target is not :data:`LIVE`: its open token's and its close
    token's ``meta["unlinked"]``, the close's the target as the text shows it (``None`` when the link's own text is
    that), and each such image's ``meta["unlinked"]`` its source so shown. Links do not nest in CommonMark."""
    for tok in state.tokens:
        if tok.type != "inline" or not tok.children:
            continue
        opened, text = None, []
        for child in tok.children:
            if child.type == "image" and not LIVE.match(src := child.attrGet("src") or "") \
                    and not src.lower().startswith("data:"):
                child.meta["unlinked"] = state.md.normalizeLinkText(src)
            elif child.type == "link_open" and not LIVE.match(child.attrGet("href") or ""):
                opened, text = child, []
                child.meta["unlinked"] = None
            elif child.type == "link_close" and opened is not None:
                target = state.md.normalizeLinkText(opened.attrGet("href") or "")
                child.meta["unlinked"] = None if "".join(text) == target else target
                opened = None
            elif opened is not None and child.type in ("text", "code_inline", "text_special"):
                text.append(child.content)


def unlinked_image(src: str, alt: str) -> str:
    """An image whose source is not :data:`LIVE` (a file of the model's project), drawn as text: ``[image: ALT]`` and
    the source as code after it."""
    return f"[image: {html.escape(alt)}] (<code>{html.escape(src)}</code>)"
