"""The page of ``asz view``: one HTML shell, one script and one style sheet (seed 004, Reading it).

The shell holds no conversation data: the script reads its own address
(``/`` or ``/c/{id}``, with ``hide`` in the query and talk, step and tab in the
``#`` part), fetches the API and draws the document. Structure and facts go
into the page as DOM text nodes; prompts and replies are rendered as Markdown
by the vendored ``marked`` and then sanitised by the vendored ``DOMPurify``
(no raw HTML passes: no script, no event handler, no style, no frame, no
form). Nothing is loaded from another host. The assets live in
``asz_core/view/static/`` (``vendor/`` holds the two libraries with their
licenses) and are read once at import.
"""

from __future__ import annotations

import html
import json
from pathlib import Path
from typing import Sequence
from urllib.parse import quote

from .placing import page_rules

__all__ = ["PAGE_HTML", "APP_JS", "APP_CSS", "ASSETS", "MARKED", "page_html", "uri_component"]

_STATIC = Path(__file__).with_name("static")

#: The page's script (bytes, UTF-8), served at ``/static/app.js``: ``static/app.js`` with the field view's rules
#: written in (``RULES``: :func:`asz_core.view.placing.page_rules`, their one source).
APP_JS: bytes = (_STATIC / "app.js").read_bytes().replace(
    b"RULES = {/* placing.page_rules() */};", b"RULES = " + json.dumps(page_rules(), separators=(",", ":")).encode() + b";", 1)
#: The page's style sheet (bytes, UTF-8), served at ``/static/app.css``.
APP_CSS: bytes = (_STATIC / "app.css").read_bytes()
_JS = "text/javascript; charset=utf-8"
#: Every asset served under ``/static/``: name -> (media type, bytes). Nothing else is served there.
ASSETS: dict[str, tuple[str, bytes]] = {
    "app.js": (_JS, APP_JS),
    "app.css": ("text/css; charset=utf-8", APP_CSS),
    "vendor/marked.umd.js": (_JS, (_STATIC / "vendor" / "marked.umd.js").read_bytes()),
    "vendor/purify.min.js": (_JS, (_STATIC / "vendor" / "purify.min.js").read_bytes()),
}

#: The vendored Markdown renderer's address: not in the shell's scripts (no closed talk needs it); app.js runs it once
#: a conversation's first screen is drawn (``loadMarked``), preloaded by a conversation's shell (:func:`page_html`).
MARKED = "/static/vendor/marked.umd.js"

_SHELL = b"""<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>asz view</title>
<link rel="icon" href="data:,">
<link rel="stylesheet" href="/static/app.css">
<!--preload-->
</head>
<body>
<header class="top"><a id="home" href="/">asz view</a><span class="where" id="where"></span></header>
<main id="app"><noscript>This page needs JavaScript; the same data is at /api/conversations and /api/c/{id}/view.</noscript></main>
<aside id="drawer" aria-label="Evidence"><div class="dhead"><strong class="dtitle">Evidence</strong>
<button type="button" class="btn dclose">Close</button></div><div class="dbody"></div></aside>
<script src="/static/vendor/purify.min.js"></script>
<script src="/static/app.js"></script>
</body>
</html>
"""


def page_html(preload: Sequence[str] = ()) -> bytes:
    """The shell (:data:`PAGE_HTML`) asking the browser for each API path of ``preload`` (already percent-encoded, as
    the script writes them) as soon as it reads the head: ``<link rel="preload" as="fetch" crossorigin>``, which the
    script's own ``fetch`` of the same address, with no header of its own, then takes instead of asking again (issue
    22: a conversation's document and headings are built while the browser loads and runs the scripts); with any, the
    Markdown renderer too (:data:`MARKED`, ``as="script"``: fetched now, run by app.js after the first screen)."""
    links = "".join(f'<link rel="preload" href="{html.escape(p)}" as="fetch" crossorigin>' for p in preload)
    if preload:  # a conversation's page: marked arrives with them, and the script runs it once its first screen is drawn
        links += f'<link rel="preload" href="{MARKED}" as="script">'
    return _SHELL.replace(b"<!--preload-->\n", links.encode("ascii") + (b"\n" if links else b""), 1)


#: The HTML shell served for ``/`` and ``/c/{id}`` (bytes, UTF-8), asking for nothing ahead (:func:`page_html`).
PAGE_HTML: bytes = page_html()


def uri_component(text: str) -> str:
    """``text`` as JavaScript's ``encodeURIComponent`` writes it (UTF-8, every byte but letters, digits and
    ``-_.!~*'()`` percent-encoded): the page's script writes an id into an API address so, and a preloaded address
    must be the same string for the browser to match them."""
    return quote(text, safe="!*'()")
