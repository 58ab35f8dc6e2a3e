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

from pathlib import Path

__all__ = ["PAGE_HTML", "APP_JS", "APP_CSS", "ASSETS"]

_STATIC = Path(__file__).with_name("static")

#: The page's script (bytes, UTF-8), served at ``/static/app.js``.
APP_JS: bytes = (_STATIC / "app.js").read_bytes()
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

#: The HTML shell served for ``/`` and ``/c/{id}`` (bytes, UTF-8).
PAGE_HTML: bytes = b"""<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>asz view</title>
<link rel="icon" href="data:,">
<link rel="stylesheet" href="/static/app.css">
</head>
<body>
<header class="top"><a id="home" href="/">asz view</a><span class="where" id="where"></span></header>
<main id="app"><noscript>This page needs JavaScript; the same data is at /api/conversations and /api/c/{id}/view.</noscript></main>
<aside id="drawer" aria-label="Evidence"><div class="dhead"><strong class="dtitle">Evidence</strong>
<button type="button" class="btn dclose">Close</button></div><div class="dbody"></div></aside>
<script src="/static/vendor/purify.min.js"></script>
<script src="/static/vendor/marked.umd.js"></script>
<script src="/static/app.js"></script>
</body>
</html>
"""
