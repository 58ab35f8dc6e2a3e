"""The page of ``asz view``: one HTML shell, one script and one style sheet (seed 004, Reading it).

The shell holds no conversation data: the script reads its own address
(``/`` or ``/c/{id}``, with ``hide`` in the query and talk, step and tab in the
``#`` part), fetches the API and draws the document. Structure and facts go
into the page as DOM text nodes; prompts and replies are rendered as Markdown
by the vendored ``marked`` and then sanitised by the vendored ``DOMPurify``
(no raw HTML passes: no script, no event handler, no style, no frame, no
form). Nothing is loaded from another host. The assets live in
``asz_core/view/static/`` (``vendor/`` holds the two libraries with their
licenses) and are read once at import. The style sheet is written into the shell
(issue 22: a brand-new browser's first page waited for it as its last request),
allowed by its SHA-256 in the shell's Content-Security-Policy (:data:`PAGE_POLICY`).
"""

from __future__ import annotations

import base64
import hashlib
import html
import json
from pathlib import Path
from typing import Sequence
from urllib.parse import quote

from .rate_words import FAILURE_WORDS, page_words
from .placing import page_rules

__all__ = ["PAGE_HTML", "API_POLICY", "PAGE_POLICY", "APP_JS", "APP_CSS", "ASSETS", "MARKED", "PURIFY", "page_html", "uri_component"]

_STATIC = Path(__file__).with_name("static")

#: The page's script (bytes, UTF-8), served at ``/static/app.js``: ``static/app.js`` with the field view's rules
#: written in (``RULES``: :func:`asz_core.view.placing.page_rules`, their one source) and the words of the ``?`` line
#: (``WORDS``: :func:`asz_core.view.rate_words.page_words`, the CLI's too) and of a failed MCP call
#: (``FAILURE_WORDS``: :data:`asz_core.view.rate_words.FAILURE_WORDS`, the exports' too).
APP_JS: bytes = (_STATIC / "app.js").read_bytes().replace(
    b"RULES = {/* placing.page_rules() */};", b"RULES = " + json.dumps(page_rules(), separators=(",", ":")).encode() + b";", 1
).replace(b"WORDS = {/* rate_words.page_words() */};", b"WORDS = " + json.dumps(page_words(), separators=(",", ":")).encode() + b";", 1
).replace(b"FAILURE_WORDS = {/* rate_words.FAILURE_WORDS */};",
          b"FAILURE_WORDS = " + json.dumps(FAILURE_WORDS, separators=(",", ":")).encode() + b";", 1)
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
#: The vendored sanitiser's address, run with :data:`MARKED` (only Markdown's output is sanitised; issue 22: no longer
#: run before app.js, 3-6 ms of a new browser's first page), preloaded with it.
PURIFY = "/static/vendor/purify.min.js"

_SHELL = b"""<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>asz view</title>
<link rel="icon" href="data:,">
<style>/*app.css*/</style>
<!--preload-->
</head>
<body>
<a id="skip" class="skip" href="#app">Skip to the content</a>
<header class="top"><a id="home" href="/">asz view</a><span class="where" id="where"></span></header>
<main id="app"><noscript>This page needs JavaScript; the same data is at /api/conversations and /api/c/{id}/view.</noscript></main>
<div id="say" class="visually-hidden" role="status" aria-live="polite"></div><div id="alarm" class="visually-hidden" role="alert"></div>
<aside id="drawer" aria-label="Evidence"><div class="dhead"><strong class="dtitle">Evidence</strong>
<button type="button" class="btn dclose">Close</button></div><div class="dbody"></div></aside>
<script src="/static/app.js"></script>
</body>
</html>
""".replace(b"/*app.css*/", APP_CSS, 1)
#: The Content-Security-Policy of every answer but the shell: nothing from another host, no inline script or style, no
#: frame, no form.
API_POLICY: str = ("default-src 'none'; script-src 'self'; style-src 'self'; connect-src 'self'; img-src 'self' data:; "
                   "base-uri 'none'; form-action 'none'; frame-ancestors 'none'")
#: The shell's Content-Security-Policy: :data:`API_POLICY` with the one inline style the shell holds, named by its
#: SHA-256 (CSP level 2 hash source).
PAGE_POLICY: str = API_POLICY.replace(
    "style-src 'self'", "style-src 'self' 'sha256-" + base64.b64encode(hashlib.sha256(APP_CSS).digest()).decode() + "'", 1)


def page_html(preload: Sequence[str] = ()) -> bytes:
    """The shell (:data:`PAGE_HTML`) asking the browser for each API path of ``preload`` (already percent-encoded, as
    the script writes them) as soon as it reads the head: ``<link rel="preload" as="fetch" crossorigin>``, which the
    script's own ``fetch`` of the same address, with no header of its own, then takes instead of asking again (issue
    22: a conversation's document and headings are built while the browser loads and runs the scripts); with any, the
    Markdown renderer and its sanitiser too (:data:`MARKED`, :data:`PURIFY`, ``as="script"``: fetched now, run by
    app.js after the first screen), at low priority (``fetchpriority="low"``: Chromium sends them after the script
    and the two answers; at high priority a brand-new browser's first talk came 25-35 ms later, session 22)."""
    links = "".join(f'<link rel="preload" href="{html.escape(p)}" as="fetch" crossorigin>' for p in preload)
    if preload:  # a conversation's page: marked arrives with them, and the script runs it once its first screen is drawn
        links += "".join(f'<link rel="preload" href="{src}" as="script" fetchpriority="low">' for src in (PURIFY, MARKED))
    return _SHELL.replace(b"<!--preload-->\n", links.encode("ascii") + (b"\n" if links else b""), 1)


#: The HTML shell served for ``/`` and ``/c/{id}`` (bytes, UTF-8), asking for nothing ahead (:func:`page_html`).
PAGE_HTML: bytes = page_html()


def uri_component(text: str) -> str:
    """``text`` as JavaScript's ``encodeURIComponent`` writes it (UTF-8, every byte but letters, digits and
    ``-_.!~*'()`` percent-encoded): the page's script writes an id into an API address so, and a preloaded address
    must be the same string for the browser to match them."""
    return quote(text, safe="!*'()")
