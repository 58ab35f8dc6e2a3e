"""``/api/c/{id}/export?format=md|html|json``: one conversation as ``asz export ID --format F`` writes it to stdout,
for the page's Download control (trial 44b F5: the page had no export; agentsview exports from its session view).

The bytes are :func:`~asz_core.cli.export_made.render`'s, the function ``asz export`` writes to stdout, with the server's
``view.hide`` and the request's ``hide`` withheld and credentials masked as the page shows them (``asz view``'s default
masks, as ``asz export --format md|html`` does; ``--no-redact`` serves them whole, as ``asz export --no-redact`` writes
them): the same bytes as ``asz export ID --format F --redact`` (or ``--no-redact``) with the same ``--config``. Nothing
is written: no file in the root or elsewhere, no manifest (one goes beside a file ``asz export --out`` writes, not
with stdout). Errors: 400 ``bad_parameter`` (a format other than md, html or json), ``unknown_parameter``,
``ambiguous_id``; 404 ``unknown_id``; 409 ``does_not_verify`` (no usable round to render). docs/view.md, API.
"""

from __future__ import annotations

from pathlib import Path
from typing import Callable, Optional

__all__ = ["EXPORT_TYPES", "export_handler"]

#: The formats the route gives and their media types (``format``; md the default, as ``asz export``'s).
EXPORT_TYPES = {"md": "text/markdown; charset=utf-8", "html": "text/html; charset=utf-8", "json": "application/json"}


def export_handler(config: Optional[Path], bound=None) -> Callable:
    """The route's handler ``(request, pairs, hide) -> Response`` (:func:`asz_core.view.app.api` wraps it); ``config``:
    the server's asz.yaml (its prices price the export's costs, as ``asz export --config`` does), None for the default;
    ``bound``: the :class:`~asz_core.view.at_once.AtOnce` whose slots it takes one of while it draws (a whole
    conversation drawn in the request, as a search reads: review44), one more a 503 ``busy``; None: unbounded."""
    from contextlib import nullcontext

    def handler(request, pairs, hide):
        from starlette.responses import Response

        from ..view.document import ViewError
        from ..view.page_secrets import WHOLE
        from ..view.query import ApiError, known_params
        from .export_cmd import Prose
        from .export_folder import EXT
        from .export_made import render

        known_params(pairs, ("format",))
        fmt = dict(pairs).get("format", "md")
        if fmt not in EXPORT_TYPES:
            raise ApiError(400, f"format={fmt}: give md, html or json", code="bad_parameter")
        state = request.app.state.view
        cid = state.check_conversation(request.path_params["id"])  # 404 unknown_id, 400 ambiguous_id, as every /api/c/ route
        redact = state.credentials != WHOLE  # masked as the page is (page_secrets)
        prose = Prose([], config, redact=redact, shared=fmt in ("md", "html"))
        try:
            with bound.slot(ApiError) if bound is not None else nullcontext():
                data, _bad = render(state.root, cid, fmt, list(hide), False, prose)
        except (ViewError, LookupError) as exc:
            raise ApiError(409, str(exc), code="does_not_verify") from None
        name = f"{cid}.{EXT[fmt]}"
        return Response(data, media_type=EXPORT_TYPES[fmt], headers={
            "Content-Disposition": f'attachment; filename="{name}"', "asz-credentials": "masked" if redact else "whole"})

    return handler
