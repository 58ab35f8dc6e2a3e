"""Claude Code's companion files: a large tool result's full output beside the session (issue 18).

When a tool's output is too large, Claude Code writes it whole to
``<session>/tool-results/<name>`` and leaves in the transcript's
``tool_result`` only a preview wrapped in ``<persisted-output>``. Shapes seen
in real files (``../shared/corpus``, session 8463c716-…; public reports)::

    <persisted-output>
    Output too large (141KB). Full output saved to: /home/…/<session>/tool-results/toolu_019Cp….txt

    Preview (first 2KB):
    …

    <persisted-output>Tool result saved to: /Users/…/<session>/tool-results/toolu_019N….txt

    Use Read to view</persisted-output>

The name is ``<tool_use_id>.txt`` in every real file seen; Claude Code's
release notes also describe ``.json`` for JSON output.

Two things follow, both by rule:

* the companion file lands as one record of kind ``tool_output`` (snapshot
  cursor, its own stream ``tool-results_<name>``): ``label`` is the file
  name, ``tool`` the tool-use id its name carries (``toolu_…``), one ``text``
  part holding the output (an ``unknown`` part when it is not UTF-8);
* the result whose text is such a preview lists, in ``dropped``, ``what``
  ``"full output in tool-results/<name>"`` with ``bytes`` 0 (the size is the companion's), so the document
  links the step to the companion record, or says ``missing`` when none landed.
"""

from __future__ import annotations

import re
from pathlib import PurePosixPath, PureWindowsPath

from asz_core import Dropped, Part, Record, Source, unknown_part
from asz_core.sessiondata import COMPANION_WHAT, companion_file_name

__all__ = ["COMPANION_WHY", "PREVIEW_OPEN", "companion_dropped", "companion_name", "companion_record", "note_companion"]

#: How a preview opens in the transcript.
PREVIEW_OPEN = "<persisted-output>"
COMPANION_WHY = "Claude Code kept only a preview in the transcript and saved the whole output in a companion file"
REASON_NOT_TEXT = "a companion file that is not UTF-8 text"

_SAVED_TO = re.compile(r"saved to:\s*(?P<path>[^\n<]+)")
_TOOL_ID = re.compile(r"(?:toolu|srvtoolu|call)_[A-Za-z0-9_-]+")


def companion_name(text: str) -> str:
    """The file name a ``<persisted-output>`` preview points at ('' when ``text`` is no such preview).

    Only a text that opens with ``<persisted-output>`` (after white space) and
    names a path under ``tool-results/`` counts. Never raises.
    """
    if not text.lstrip().startswith(PREVIEW_OPEN):
        return ""
    m = _SAVED_TO.search(text)
    if not m:
        return ""
    path = m.group("path").strip()
    parts = PureWindowsPath(path).parts if "\\" in path else PurePosixPath(path).parts
    if len(parts) < 2 or parts[-2] != "tool-results":
        return ""
    return parts[-1]


def companion_dropped(text: str) -> Dropped | None:
    """The ``dropped`` entry naming the companion file of ``text`` (a result's text) when it is a preview, else None.
    Never raises."""
    name = companion_name(text)
    return Dropped(what=f"{COMPANION_WHAT}tool-results/{name}", bytes=0, why=COMPANION_WHY) if name else None


def note_companion(rec: Record, text: str) -> None:
    """When ``text`` (a result's text) is a preview, list its companion file in ``rec.dropped``."""
    entry = companion_dropped(text)
    if entry is not None:
        rec.dropped.append(entry)


def companion_record(rec: Record, source: Source, raw: bytes) -> None:
    """Fill ``rec`` from the whole companion file ``raw`` (``source.kind == "tool_output"``)."""
    name = companion_file_name(source.src)  # the view finds the record by this name (one rule for both)
    rec.label = name
    m = _TOOL_ID.fullmatch(name.rsplit(".", 1)[0])
    rec.tool = m.group(0) if m else ""
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError:
        rec.parts = [unknown_part(raw, REASON_NOT_TEXT)]
        return
    rec.parts = [Part(k="text", text=text, bytes=len(raw))]
