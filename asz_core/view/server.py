"""``asz view`` / ``asz server``: the HTTP API and the page over a storage root.

Spec: seed 004 (sections Withholding, Rendering the whole conversation,
Reading it), origin-digest §8.3, issues 20, 22 and 23. Built on Starlette
(ASGI) and served by uvicorn. The code lives in:

- :mod:`asz_core.view.app`: the application, its routes and security headers;
- :mod:`asz_core.view.state`: :class:`ViewState` (rows, documents, the background checker, status);
- :mod:`asz_core.view.list_answer`: ``/api/conversations``, built once for the requests that wait for it;
- :mod:`asz_core.view.landed`: records, provider bodies and files read without following links;
- :mod:`asz_core.view.query`: the strict query parser and the withheld names of a request;
- :mod:`asz_core.view.guard`: the Host check, header and idle timeouts, the connection cap, quiet errors;
- :mod:`asz_core.view.page`: the HTML shell and the packaged assets.

Routes (all ``GET``):

========================================  ==============================================================
``/``                                      the conversation list page (with the usage view)
``/c/{id}``                                a conversation page (talk, step and tab live in the ``#`` part)
``/static/{name}``                         the page's script, style and vendored renderer (no other asset, no network)
``/api/status``                            mode, root, source, refresh times (unix ms), last pass counts, what is still read
``/api/keys``                              the JSON keys of each answer (:mod:`asz_core.view.api_keys`)
``/api/conversations``                     one row per conversation, read from its head round's header
``/api/c/{id}/view``                       the asz.view document, built once per fold and withheld-name set
``/api/c/{id}/headings``                   talk headings and command blocks as the page draws them (view.titles.talk_headings, step_blocks)
``/api/c/{id}/record/{seq}/{row}``         one landed record as stored (withheld per seed 004)
``/api/c/{id}/files?session=&seq=``        provider_body files, base64 in a JSON array (≤ 32 seqs)
``/api/c/{id}/body/{seq}/{row}``           one provider body rebuilt (403 while anything is withheld)
``/api/glossary[?dialect=]``               dialect, dialects, terms, fields
``/api/search?q=…``                        full-text hits, as ``asz search --json`` (:mod:`asz_core.reading.search_api`)
``/api/c/{id}/export?format=``             ``asz export``'s bytes of one conversation (:mod:`asz_core.cli.export_route`)
========================================  ==============================================================

Nothing is written to disk but derived data under ``<root>/_index/``: the search
index, which ``/api/search`` brings up to date, the list's summaries and what
each document's build found (:mod:`asz_core.view.found_store`; never a document, seed 004). No request names a path: a conversation id must be
one listed under ``_conversations``, a session must be the conversation's own,
and seq and row are decimal numbers looked up in the session's landed files;
no symbolic link inside the root is followed (403). Errors are JSON
``{"error": "<why>"}`` with status 400, 403, 404 or 409; a request whose Host
is not a loopback name or the listen address gets 421.
"""

from __future__ import annotations

from .app import FIELDS, create_app
from .landed import MAX_FILES_PER_REQUEST, withhold_record
from .query import ApiError, QueryError, hide_from_query, parse_query
from .state import ROW_KEYS, ViewState

__all__ = [
    "QueryError",
    "ApiError",
    "ViewState",
    "create_app",
    "parse_query",
    "hide_from_query",
    "withhold_record",
    "MAX_FILES_PER_REQUEST",
    "FIELDS",
    "ROW_KEYS",
]
