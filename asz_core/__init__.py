"""asz: Session Data (sd/1) and the tools around it. This module is the public API.

Adapters (built-in and third-party) import only what is listed in ``__all__``.
"""

from __future__ import annotations

import sys as _sys

import _signal  # the C module: ``signal`` imports enum, a window of its own


def interrupted_line(when: str = "", by: str = "Ctrl-C") -> str:
    """``asz <command>: interrupted (Ctrl-C)[ <when>]`` and a newline: what a Ctrl-C no command said anything about
    writes to stderr (:func:`asz_core.cli.entry.say_interrupted`, and :func:`starting_interrupt` below); ``by`` names
    the stop (``SIGTERM``)."""
    argv = _sys.argv
    name = argv[1] if argv[1:2] and not argv[1].startswith("-") else ""
    return f"asz{' ' + name if name else ''}: interrupted ({by}){' ' + when if when else ''}\n"


def starting_interrupt(signum, frame):  # noqa: ARG001  (a signal handler's shape)
    """SIGINT while the ``asz`` console script imports asz (before :func:`asz_core.cli.entry.main` takes it over):
    one line on stderr and exit 130, never a traceback (session 13; docs/cli.md, exit codes). ``os._exit``: nothing
    was written yet, and a SystemExit raised inside an import could be caught by the code being imported."""
    import os

    os.write(2, interrupted_line("while it was starting").encode("utf-8", "replace"))
    os._exit(130)


def _console_script() -> bool:
    """Whether this process is the ``asz`` console script (its ``__main__`` is the script pip wrote, named asz)."""
    main = _sys.modules.get("__main__")
    name = (getattr(main, "__file__", None) or "").replace("\\", "/").rsplit("/", 1)[-1]
    return name in ("asz", "asz.exe", "asz-script.py")


# The first code of asz a console-script run meets: from here on a Ctrl-C says one line and exits 130 (Python's
# own start-up before it, site and the interpreter, is out of reach). Only when SIGINT has Python's default handler:
# a background job started with SIGINT ignored keeps it ignored.
if _console_script() and _signal.getsignal(_signal.SIGINT) is _signal.default_int_handler:
    _signal.signal(_signal.SIGINT, starting_interrupt)

# orjson loads with SIGINT and SIGTERM held back: a Ctrl-C inside its initialisation's own imports crashed the process
# (SIGSEGV, session 13; asz_core/importguard.py).
from . import importguard as _importguard  # noqa: E402

_importguard.install()

import importlib  # noqa: E402
from typing import Any  # noqa: E402

__version__ = "0.2.0"

# Public names and the module each lives in. They are imported on first use
# (PEP 562), so ``import asz_core`` stays cheap for the hook fast path.
_LAZY = {
    **dict.fromkeys(("VOCABULARY", "Adapter", "AddedCredits", "BodyInfo", "Capabilities", "Discovery", "FlagRule", "Setting", "Source", "Term",
                      "build_glossary", "link_outside", "os_error_text"),
                     "asz_core.plugins.adapter"),
    **dict.fromkeys(("SourceEntry", "source_entries"), "asz_core.plugins.sourcedir"),
    **dict.fromkeys(
        (
            "DEFAULT_MAX_DELTA_BYTES", "FILE_KINDS", "FLAGS", "PART_KINDS", "STATES", "WITHHOLDABLE", "Closing", "Dropped",
            "FieldError", "Header", "Part", "RawJSON", "Record", "SDError", "SDReader", "SDWriter", "Usage", "array_elements",
            "check_file", "compact", "mcp_split", "member_source", "object_members", "parse_instant", "time_as_written", "read_file", "source_sha", "unknown_part", "member_part", "is_member_part", "value_span",
            "FROM_VALUES", "TRIGGERS", "VocabularyError", "check_vocabulary",
        ),
        "asz_core.sessiondata",
    ),
    "JSONSpanError": "asz_core.sessiondata.jsonbytes",
    "json_loads": ("asz_core.sessiondata.jsonbytes", "loads"),
    "nesting_depth": "asz_core.sessiondata.jsonbytes",
    "canonical_json": "asz_core.sessiondata.canonical",
    **dict.fromkeys(("keys_twice", "twice_dropped"), "asz_core.sessiondata.keystwice"),
    "load_compiled": "asz_core.sessiondata.compiled",
    # an adapter's discovery that materialises what it reads says how far it is (trial 37b F7)
    "discovery_progress": ("asz_core.collect.meter", "discovering"),
    **dict.fromkeys(("loads_source", "settle_surrogates"), "asz_core.sessiondata.surrogates"),
    # a UTF-8 byte order mark before a line's JSON, read past and listed under dropped (trial 49c F5)
    **dict.fromkeys(("BOM", "BOM_WHAT", "BOM_WHY", "BOM_WHY_LINE", "past_bom"), "asz_core.sessiondata.bom"),
    # a line that is not valid UTF-8: where, and described from its bad bytes as escapes (trial 50c F8)
    **dict.fromkeys(("NOT_UTF8_KEPT", "not_utf8_reason", "escape_not_utf8", "described_escaped"), "asz_core.sessiondata.not_utf8"),
    # issue 10: provider bodies (seed 000, Provider bodies)
    **dict.fromkeys(("BodyError", "BodyMeta", "MissingReference", "TooLarge"), "asz_core.sessiondata.providerbody"),
    "ProviderSession": ("asz_core.sessiondata.providerbody", "Session"),
    # a changes/1 record's file changes, for every adapter that derives one (origin-digest §3.6)
    **dict.fromkeys(("MAX_DIFF_LINES", "changes_record", "compute_hunks", "count_lines", "endpoint", "file_change",
                     "relative_path", "split_lines"), "asz_core.sessiondata.filechange"),
}


def __getattr__(name: str) -> Any:
    if name == "hookimpl":
        import pluggy

        value = pluggy.HookimplMarker("asz")
    elif name in _LAZY:
        target = _LAZY[name]
        module, attr = target if isinstance(target, tuple) else (target, name)
        value = getattr(importlib.import_module(module), attr)
    else:
        raise AttributeError(f"module 'asz_core' has no attribute {name!r}")
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(__all__))


__all__ = [
    "__version__",
    "hookimpl",
    "Adapter",
    "AddedCredits",
    "BodyInfo",
    "Setting",
    "Capabilities",
    "Discovery",
    "os_error_text",
    "link_outside",
    "SourceEntry",
    "source_entries",
    "FlagRule",
    "Source",
    "Term",
    "VOCABULARY",
    "build_glossary",
    "DEFAULT_MAX_DELTA_BYTES",
    "FILE_KINDS",
    "FLAGS",
    "PART_KINDS",
    "STATES",
    "FROM_VALUES",
    "TRIGGERS",
    "VocabularyError",
    "check_vocabulary",
    "WITHHOLDABLE",
    "Closing",
    "Dropped",
    "FieldError",
    "Header",
    "Part",
    "RawJSON",
    "Record",
    "SDError",
    "SDReader",
    "SDWriter",
    "Usage",
    "array_elements",
    "check_file",
    "compact",
    "member_source",
    "object_members",
    "parse_instant",
    "time_as_written",
    "read_file",
    "source_sha",
    "unknown_part",
    "member_part",
    "is_member_part",
    "value_span",
    "JSONSpanError",
    "json_loads",
    "canonical_json",
    "keys_twice",
    "twice_dropped",
    "load_compiled",
    "discovery_progress",
    "loads_source",
    "settle_surrogates",
    "BOM",
    "BOM_WHAT",
    "BOM_WHY",
    "BOM_WHY_LINE",
    "past_bom",
    "NOT_UTF8_KEPT",
    "not_utf8_reason",
    "escape_not_utf8",
    "described_escaped",
    "BodyError",
    "BodyMeta",
    "MissingReference",
    "TooLarge",
    "ProviderSession",
    "MAX_DIFF_LINES",
    "changes_record",
    "compute_hunks",
    "count_lines",
    "endpoint",
    "file_change",
    "relative_path",
    "split_lines",
]
