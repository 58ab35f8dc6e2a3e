"""What a web page could send ``asz ingest langsmith`` (trial 34c F2): a request of a browser-simple content type
without a header only a LangSmith client sends. docs/adapters/langchain.md, No web page can send it runs.
"""

from __future__ import annotations

from starlette.requests import Request

from asz_core.netguard import browser_simple

__all__ = ["FROM_A_PAGE", "page_could_send"]


#: Why a browser-simple request (:func:`asz_core.netguard.browser_simple`) without a client's header is refused 403.
FROM_A_PAGE = ("a request a web page can send (content type {ctype}) without x-api-key, Authorization or a LangSmith "
               "client's User-Agent (langsmith-py/…, langsmith-js/…): refused, so that no page a browser shows can "
               "forge runs here")


def page_could_send(request: Request) -> str:
    """'' when ``request`` came from a client a web page cannot pose as, else why it is refused (:data:`FROM_A_PAGE`).

    A request of a browser-simple content type (none, ``text/plain``, ``application/x-www-form-urlencoded``,
    ``multipart/form-data``: what a cross-site form or ``fetch`` sends with no CORS preflight, and this receiver
    grants none) must carry a header such a request cannot: ``x-api-key`` or ``Authorization`` (the official clients
    send the key when one is set) or a ``User-Agent`` starting ``langsmith-`` (the Python and JS clients always send
    ``langsmith-py/VERSION`` or ``langsmith-js/VERSION``; a page cannot set it: trial 34c F2)."""
    ctype = request.headers.get("content-type")
    if not browser_simple(ctype):
        return ""
    h = request.headers
    if h.get("x-api-key") is not None or h.get("authorization") is not None:
        return ""
    if (h.get("user-agent") or "").lower().startswith("langsmith-"):
        return ""
    return FROM_A_PAGE.format(ctype=(ctype or "none").split(";", 1)[0].strip() or "none")
