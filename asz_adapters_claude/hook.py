"""The MCP observer: what ``asz hook`` does with one Claude Code hook event (origin-digest §3.8, §5.2).

Claude Code runs ``asz hook`` after every call to an MCP server (hooks
``PostToolUse`` and ``PostToolUseFailure`` with matcher ``mcp__.*``) and hands
it the event as one JSON object on standard input. For such an event this
module appends one ``execution/1`` record to::

    <data>/output/<session>/<stream>.execution.jsonl

with one ``os.write`` on an ``O_APPEND`` descriptor, then ``fsync``, so a
collector tailing the file never sees half a record. Every other event or
tool writes nothing.

A hook must never block or fail the agent: :func:`main` returns 0 whatever
happens, writes nothing to standard output, and logs each problem as one line
in ``<data>/log/plugin.log``.

This module imports the standard library only and never imports its package
(``python -S path/to/hook.py`` works), because it runs once per MCP call and
its start-up time is the agent's waiting time (``bench/hook.py``).
"""

from __future__ import annotations

import os
import re
import sys
import time

__all__ = [
    "SCHEMA",
    "OBSERVED_BY",
    "BOUNDARY",
    "PROTOCOL",
    "DEFAULT_PLUGIN_ID",
    "DATA_ENV",
    "MCP_EVENTS",
    "Refusal",
    "claude_config_dir",
    "config_dir_entries",
    "default_data_dir",
    "resolve_data_dir",
    "canonical_json",
    "measure",
    "measure_value",
    "FAILURES",
    "UNCLASSIFIED",
    "failure_class",
    "READ",
    "READ_RETURNED",
    "READ_FAILED",
    "KNOWN_LEFT_OUT",
    "NO_KEY",
    "NOT_KNOWN",
    "dropped_of",
    "READ_AS",
    "MISREAD",
    "misread_of",
    "rfc3339_utc",
    "execution_record",
    "encode_record",
    "execution_path",
    "append_line",
    "UNWRITTEN",
    "UNWRITTEN_MARK",
    "mark_unwritten",
    "handle_event",
    "run",
    "main",
]

SCHEMA = "execution/1"
OBSERVED_BY = "asz-plugin"
BOUNDARY = "client_hook"
PROTOCOL = "mcp"
#: The data directory name the original's Claude Code plugin gets (``file-changes@skywalking-ai-sessionizer``).
DEFAULT_PLUGIN_ID = "file-changes-skywalking-ai-sessionizer"
#: Environment variables naming the data directory, first set wins (``--data`` beats both).
DATA_ENV = ("ASZ_HOOK_DATA", "CLAUDE_PLUGIN_DATA")
#: Hook events that produce an execution record, for tools named ``mcp__…``.
MCP_EVENTS = ("PostToolUse", "PostToolUseFailure")

#: The declared rule that names how a ``PostToolUseFailure`` call failed (``failure``; docs/claude-code-hooks.md,
#: "How a call failed"), tried in this order: ``interrupted`` when the event says ``is_interrupt: true``; else the
#: first class one of whose patterns is found in the event's ``error`` text; else :data:`UNCLASSIFIED`: a text no
#: pattern knows, which may be the server's own words (an MCP tool result flagged ``isError``, whose text Claude Code
#: passes on as it is) or a failure the runtime words some other way; the hook cannot tell them apart, so it names
#: neither (session 26: it said ``server_error`` for any such text). An event with no ``error`` text gets no class.
#: Measured on Claude Code 2.1.282 (corpus hooks): a lost connection reads ``Connection closed``, a timeout ``MCP server
#: "probe" tool "slow" timed out after 2s``; the MCP SDK's codes -32000 (connection closed) and -32001 (request
#: timeout) say the same; any other ``MCP error <code>`` is a JSON-RPC error the server answered with (the SDK's
#: ``McpError`` wording), ``server_error``.
FAILURES = (
    ("timeout", re.compile(r"\btimed out\b|\bMCP error -32001\b", re.I)),
    ("transport", re.compile(r"\bconnection closed\b|\bMCP error -32000\b", re.I)),
    ("server_error", re.compile(r"\bMCP error -?[0-9]+\b", re.I)),
)
#: The class of an ``error`` text no pattern of :data:`FAILURES` knows.
UNCLASSIFIED = "unclassified"

#: The members of a hook event the record is made of (each call's; a returned one's ``tool_response``, a failed one's
#: ``error`` and ``is_interrupt``): every other member is left out and listed under ``dropped`` (:func:`dropped_of`).
READ = ("hook_event_name", "tool_name", "session_id", "tool_use_id", "agent_id", "cwd", "mcp_server", "duration_ms",
        "tool_input")
READ_RETURNED = ("tool_response",)
READ_FAILED = ("error", "is_interrupt")
#: The members Claude Code 2.1.282 sends with an MCP call's event that ``execution/1`` has no key for (origin-digest
#: §3.8; measured on the corpus's payloads): left out, each listed under ``dropped`` with :data:`NO_KEY`.
KNOWN_LEFT_OUT = ("transcript_path", "permission_mode", "prompt_id", "effort", "agent_type")
#: Why a member of :data:`KNOWN_LEFT_OUT` is left out.
NO_KEY = "execution/1 has no key for it"
#: Why any other member is left out: one a later runtime added, or a test's annotation (the corpus's ``probe_case``).
NOT_KNOWN = "a member asz hook does not know"

# A session or stream id becomes a path component: refuse anything that could leave its directory.
_SAFE_ID = re.compile(r"[A-Za-z0-9][A-Za-z0-9._-]{0,199}")


class Refusal(Exception):
    """An event this observer will not record; the message says why, for ``plugin.log``."""


# -- where things go ---------------------------------------------------------------------


def config_dir_entries(env=None) -> list:
    """The folders ``$CLAUDE_CONFIG_DIR`` names, ``[str]``: Claude Code reads the variable as one path; ccusage and asz's
    readers (:func:`asz_adapters_claude.roots.config_dirs`) read a comma-separated list of them. Blanks and the spaces
    around an entry are dropped; [] when unset. The one reading of the variable in asz."""
    env = os.environ if env is None else env
    return [p.strip() for p in (env.get("CLAUDE_CONFIG_DIR") or "").split(",") if p.strip()]


def claude_config_dir(env=None) -> str:
    """The configuration directory Claude Code itself uses, where its settings and a hook's default data directory
    are: ``$CLAUDE_CONFIG_DIR`` (of a comma-separated list, its first entry: :func:`config_dir_entries`), else
    ``~/.claude`` (``$HOME`` from ``env``). Claude Code does not follow ``XDG_CONFIG_HOME``; the readers of its files
    also look in ``~/.config/claude`` (:mod:`asz_adapters_claude.roots`)."""
    env = os.environ if env is None else env
    entries = config_dir_entries(env)
    if entries:
        return entries[0]
    home = env.get("HOME") or env.get("USERPROFILE") or os.path.expanduser("~")
    return os.path.join(home, ".claude")


def default_data_dir(env=None) -> str:
    """``<claude config dir>/plugins/data/<DEFAULT_PLUGIN_ID>``: where Claude Code keeps the original plugin's data (§5.2)."""
    return os.path.join(claude_config_dir(env), "plugins", "data", DEFAULT_PLUGIN_ID)


def resolve_data_dir(flag: str | None = None, env=None) -> str:
    """The data directory: ``--data`` (``flag``), else ``$ASZ_HOOK_DATA``, else ``$CLAUDE_PLUGIN_DATA``
    (Claude Code sets it for a plugin's hooks), else :func:`default_data_dir`. Never raises."""
    if flag:
        return flag
    env = os.environ if env is None else env
    for key in DATA_ENV:
        if env.get(key):
            return env[key]
    return default_data_dir(env)


def execution_path(data_dir: str, session: str, stream: str) -> str:
    """``<data_dir>/output/<session>/<stream>.execution.jsonl`` (§5.2)."""
    return os.path.join(data_dir, "output", session, stream + ".execution.jsonl")


# -- canonical JSON (§3.8) ---------------------------------------------------------------


def _digest_module():
    """asz_core/sessiondata/execution_digest.py, the one definition of canonical JSON and its digest (§3.8): imported
    as a module of asz_core when this file is one of its package, else (``python -S path/to/hook.py``) loaded by its
    path beside this package's folder, so neither asz_core's package nor site-packages is needed."""
    if __package__:
        from asz_core.sessiondata import execution_digest
        return execution_digest
    path = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "asz_core", "sessiondata",
                        "execution_digest.py")
    try:  # the import system's own functions, which importlib.util re-exports (importing it costs 1 ms: trial 33b F2)
        from _frozen_importlib import module_from_spec
        from _frozen_importlib_external import spec_from_file_location
    except ImportError:
        from importlib.util import module_from_spec, spec_from_file_location
    spec = spec_from_file_location("_asz_execution_digest", path)
    mod = module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


_digest = _digest_module()
_Number = _digest.Number
_strict_loads = _digest.strict_loads
_content = _digest.content
canonical_json = _digest.canonical_json
measure_value = _digest.measure_value
measure = _digest.measure


# -- the record --------------------------------------------------------------------------


def rfc3339_utc(ns: int | None = None) -> str:
    """An RFC 3339 UTC time with up to nanoseconds, trailing zeros dropped (Go's RFC3339Nano); ``ns`` defaults to now."""
    if ns is None:
        ns = time.time_ns()
    secs, frac = divmod(ns, 1_000_000_000)
    head = time.strftime("%Y-%m-%dT%H:%M:%S", time.gmtime(secs))
    tail = ("%09d" % frac).rstrip("0")
    return f"{head}.{tail}Z" if tail else f"{head}Z"


def _is_text(v) -> bool:
    """Whether a decoded event value is a JSON string (a number decodes to :class:`_Number`, a ``str`` holding its
    literal text, which is no string: trial 30c F1)."""
    return isinstance(v, str) and not isinstance(v, _Number)


def _text(event: dict, key: str) -> str:
    v = event.get(key)
    return v if _is_text(v) else ""


#: The rule :data:`_SAFE_ID` applies, as a refusal names it.
SAFE_ID_RULE = "a letter or digit first, then up to 199 letters, digits, '.', '_' or '-'"


def _safe_id(value: str, what: str) -> str:
    """``value`` when it is a safe file name by :data:`_SAFE_ID`; else raises :class:`Refusal` naming the part of
    :data:`SAFE_ID_RULE` it breaks (trial 30c F8: ``...`` was refused as if it held a character outside the set)."""
    if _SAFE_ID.fullmatch(value):
        return value
    if not value[:1].isascii() or not value[:1].isalnum():
        broken = f"it begins with {value[:1]!r}"
    elif len(value) > 200:
        broken = f"it is {len(value):,} characters long"
    else:
        bad = next(c for c in value if not (c.isascii() and (c.isalnum() or c in "._-")))
        broken = f"it holds {bad!r}"
    raise Refusal(f"{what} {value!r} is not a safe file name ({SAFE_ID_RULE}): {broken}; nothing recorded")


def failure_class(event: dict) -> str | None:
    """How a ``PostToolUseFailure`` event's call failed, by the rule :data:`FAILURES` declares: ``interrupted``,
    ``timeout``, ``transport``, ``server_error`` or :data:`UNCLASSIFIED`; None when the event is no interrupt and has no
    ``error`` text (the rule reads nothing else). The text itself is never kept (seed 000: sizes and digests only)."""
    if event.get("is_interrupt") is True:
        return "interrupted"
    text = event.get("error")
    if not _is_text(text) or not text:  # absent, empty, or not a string (a number, bool, object, list, null)
        return None
    for name, pattern in FAILURES:
        if pattern.search(text):
            return name
    return UNCLASSIFIED


def execution_record(event: dict, now: str) -> dict | None:
    """The ``execution/1`` record of one hook event, keys in §3.8 order, or None when the event is not one to record.

    ``event`` is the decoded hook payload; ``now`` the observation time
    (RFC 3339). Returns None for events other than ``PostToolUse`` /
    ``PostToolUseFailure`` and for tools not named ``mcp__…``. Raises
    :class:`Refusal` for an MCP event that cannot make a valid record: no
    ``session_id``, no ``tool_use_id`` (payloads older than Claude Code 1.0.x
    have none, so the record could join no call), or an id that is not a safe
    file name.
    """
    hook_event = _text(event, "hook_event_name")
    tool_name = _text(event, "tool_name")
    if hook_event not in MCP_EVENTS or not tool_name.startswith("mcp__"):
        return None
    session = _text(event, "session_id")
    if not session:
        raise Refusal(f"{hook_event} {tool_name}: the event has no session_id; nothing recorded")
    tool = _text(event, "tool_use_id")
    if not tool:
        raise Refusal(
            f"{hook_event} {tool_name} in session {session}: the event has no tool_use_id (older Claude Code versions "
            "sent none), so an execution record could join no call; nothing recorded"
        )
    session = _safe_id(session, "session_id")
    stream = _safe_id(_text(event, "agent_id") or "main", "agent_id")
    rec: dict = {
        "schema": SCHEMA,
        "id": f"{tool}/{BOUNDARY}",
        "observed_by": OBSERVED_BY,
        "boundary": BOUNDARY,
        "session": session,
        "stream": stream,
        "tool": tool,
        "tool_name": tool_name,
    }
    cwd = _text(event, "cwd")
    if cwd:
        rec["cwd"] = cwd
    rec["protocol"] = PROTOCOL
    server = event.get("mcp_server")
    if isinstance(server, dict) and _is_text(server.get("name")) and server["name"]:
        rec["server"] = {"name": server["name"]}
        if _is_text(server.get("source")) and server["source"]:
            rec["server"]["source"] = server["source"]
    rec["time"] = now
    duration = event.get("duration_ms")
    if isinstance(duration, _Number):
        try:
            rec["duration_ms"] = int(duration) if duration.lstrip("-").isdigit() else int(round(float(duration)))
        except (ValueError, OverflowError):
            pass
    if hook_event == "PostToolUse":
        rec["outcome"] = "returned"
    elif event.get("is_interrupt") is True:
        rec["outcome"] = "interrupted"
    else:
        rec["outcome"] = "failed"
    failed = hook_event == "PostToolUseFailure"
    if failed and (kind := failure_class(event)):
        rec["failure"] = kind
    if "tool_input" in event:
        rec["arguments"] = measure_value(event["tool_input"])
    if not failed and "tool_response" in event:
        rec["result"] = measure_value(event["tool_response"])
    if failed and "error" in event:
        rec["error"] = measure_value(event["error"])
    if dropped := misread_of(event, rec, failed) + dropped_of(event, failed):
        rec["dropped"] = dropped
    return rec


#: What each member of :data:`READ` whose value can have another type is read as (trial 33b F4: one of another type
#: was left out with no word of it). A member given with another type is listed under ``dropped`` (:func:`misread_of`).
READ_AS = {"agent_id": "a JSON string (the stream; main when absent)", "cwd": "a JSON string",
           "mcp_server": "an object with a non-empty string name (and a string source)",
           "duration_ms": "a JSON number", "is_interrupt": "true or false"}
#: Why such a member is listed under ``dropped``; ``{what}`` is :data:`READ_AS`'s words.
MISREAD = "execution/1 reads it as {what}, and this value is not: left out of the record"


def _json_type(v) -> str:
    """The JSON type of a decoded value, as a reader names it."""
    if isinstance(v, _Number):
        return "number"
    if isinstance(v, str):
        return "string"
    if v is None:
        return "null"
    return {bool: "boolean", dict: "object", list: "array"}.get(type(v), type(v).__name__)


def misread_of(event: dict, rec: dict, failed: bool) -> list:
    """``[{what, bytes, why}]`` of each member of :data:`READ_AS` that ``event`` gives and the record ``rec`` could
    not take, its value of another type or shape (``"duration_ms": "fast"``, ``"mcp_server": "notanobject"``; trial
    33b F4: seed 000, Dropped: a loss is stated rather than silent): ``what`` the member's name (``mcp_server.source``
    for a server whose name was kept and whose source was not), ``bytes`` its value's size as canonical JSON, ``why``
    :data:`MISREAD` naming what it is read as and the value's JSON type. An empty string is read as absent, as
    before."""
    out = []

    def wrong(name: str, value, taken: bool) -> None:
        if taken or value == "" and _is_text(value):
            return
        try:
            size = measure_value(value)["bytes"]
        except (TypeError, ValueError, RecursionError):
            size = 0
        out.append({"what": name, "bytes": size,
                    "why": MISREAD.format(what=READ_AS[name.split(".")[0]]) + f" (it is a JSON {_json_type(value)})"})

    for name in READ_AS:
        if name not in event or name == "is_interrupt" and not failed:
            continue
        v = event[name]
        if name == "agent_id":
            wrong(name, v, _is_text(v))
        elif name == "cwd":
            wrong(name, v, "cwd" in rec)
        elif name == "duration_ms":
            wrong(name, v, "duration_ms" in rec)
        elif name == "is_interrupt":
            wrong(name, v, isinstance(v, bool))
        elif "server" not in rec:
            wrong(name, v, False)
        elif isinstance(v, dict) and "source" in v and "source" not in rec["server"]:
            wrong("mcp_server.source", v["source"], False)
    return out


def dropped_of(event: dict, failed: bool) -> list:
    """``[{what, bytes, why}]``, in the event's order, of each member of hook ``event`` the record is not made of
    (seed 000, Dropped: a loss is stated rather than silent; trial 27a F8): ``what`` the member's name, ``bytes`` its
    value's size as canonical JSON (:func:`measure_value`, as ``arguments`` is measured; the value itself is never
    kept), ``why`` :data:`NO_KEY` for a member of :data:`KNOWN_LEFT_OUT`, else :data:`NOT_KNOWN`. ``failed``: the
    event is a ``PostToolUseFailure`` (its ``error`` and ``is_interrupt`` are read, its ``tool_response`` is not)."""
    read = set(READ) | set(READ_FAILED if failed else READ_RETURNED)
    out = []
    for name, value in event.items():
        if name in read:
            continue
        try:
            size = measure_value(value)["bytes"]
        except (TypeError, ValueError, RecursionError):
            size = 0
        out.append({"what": name, "bytes": size, "why": NO_KEY if name in KNOWN_LEFT_OUT else NOT_KNOWN})
    return out


def encode_record(rec: dict) -> bytes:
    """One record as one compact JSON line (keys in the dict's order, no newline), UTF-8."""
    return _digest.encode_json(rec, False)


def append_line(path: str, line: bytes) -> None:
    """Append ``line`` plus ``\\n`` to ``path`` with one ``os.write`` on an O_APPEND descriptor, then fsync.

    Creates missing directories (and fsyncs the directory of a new file).
    Raises OSError on failure, including a short write.
    """
    directory = os.path.dirname(path)
    os.makedirs(directory, exist_ok=True)
    created = not os.path.exists(path)
    data = line + b"\n"
    fd = os.open(path, os.O_WRONLY | os.O_APPEND | os.O_CREAT | getattr(os, "O_BINARY", 0), 0o644)
    try:
        n = os.write(fd, data)
        if n != len(data):
            raise OSError(f"short write: {n} of {len(data)} bytes reached {path}")
        os.fsync(fd)
    finally:
        os.close(fd)
    if created and hasattr(os, "O_DIRECTORY"):
        try:
            dfd = os.open(directory, os.O_RDONLY | os.O_DIRECTORY)
            try:
                os.fsync(dfd)
            finally:
                os.close(dfd)
        except OSError:
            pass


# -- one invocation ----------------------------------------------------------------------


def handle_event(raw: bytes, data_dir: str, now: str | None = None) -> str | None:
    """Record one hook event given as the bytes Claude Code wrote to standard input.

    Returns the path written, or None when the event is not one to record.
    Raises :class:`Refusal` (bytes that are not one JSON object, or an MCP
    event that cannot make a valid record) and OSError (the write failed).
    """
    try:
        text, replaced = raw.decode("utf-8"), False
    except UnicodeDecodeError:  # read as Go's decoder reads it, each byte that is not UTF-8 as U+FFFD (trial 33b F3)
        text, replaced = raw.decode("utf-8", "replace"), True
    try:
        event, twice = _digest.strict_loads_twice(text)
    except (ValueError, RecursionError) as exc:
        raise Refusal(f"standard input is not one JSON object ({len(raw)} bytes): {exc}; nothing recorded") from None
    if not isinstance(event, dict):
        raise Refusal(f"standard input is JSON but not an object ({type(event).__name__}); nothing recorded")
    rec = execution_record(event, now or rfc3339_utc())
    if rec is None:
        return None
    if twice:  # a key given twice: the last value is read, each earlier one named (trial 30c F6, as a transcript's)
        rec["dropped"] = _digest.twice_entries(twice) + rec.get("dropped", [])
    if replaced and (changed := _digest.not_utf8_entries(raw)):  # said, not silent (trial 33b F3)
        rec["dropped"] = changed + rec.get("dropped", [])
    path = execution_path(data_dir, rec["session"], rec["stream"])
    try:
        append_line(path, encode_record(rec))
    except OSError as exc:
        exc.asz_tool = rec["tool"]  # the call the lost record was of, for a trace (:func:`run`)
        raise
    return path


#: How a line of ``plugin.log`` saying an execution record could not be written begins after ``asz hook: ``.
UNWRITTEN = "could not write the execution record: "
#: How the name of the empty file :func:`mark_unwritten` leaves begins: ``unwritten.<unix ns>.<tool_use_id>``.
UNWRITTEN_MARK = "unwritten."


def mark_unwritten(data_dir: str, tool: str) -> None:
    """Leave an empty file ``<data>/log/unwritten.<unix ns>.<tool>`` (``tool`` the call's ``tool_use_id`` when it is
    a safe file name, else ``event``) when neither the execution record nor the log line could be written (trial 33b
    F5: a full disk, ``ulimit -f 0``): its name is the trace, no byte of data is needed, so a later ``asz collect
    --adapter changes`` or ``asz sources`` says a call was lost (``observer_adapter.unwritten_said``). A file system
    that cannot make even an empty file leaves nothing (docs/claude-code-hooks.md, Never in the agent's way). Never
    raises."""
    name = f"{UNWRITTEN_MARK}{time.time_ns()}.{tool if _SAFE_ID.fullmatch(tool or '') else 'event'}"
    try:
        log_dir = os.path.join(data_dir, "log")
        os.makedirs(log_dir, exist_ok=True)
        os.close(os.open(os.path.join(log_dir, name), os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o644))
    except OSError:
        pass


def _log(data_dir: str, message: str, lost: str | None = None) -> None:
    """Append one line to ``<data>/log/plugin.log``; if even that fails, say it on standard error and, when ``lost``
    names the call whose record could not be written, leave :func:`mark_unwritten`'s empty file."""
    line = f"{rfc3339_utc()} asz hook: {message}\n".encode("utf-8", "replace")
    try:
        log_dir = os.path.join(data_dir, "log")
        os.makedirs(log_dir, exist_ok=True)
        fd = os.open(os.path.join(log_dir, "plugin.log"), os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o644)
        try:
            n = os.write(fd, line)
            if n != len(line):
                raise OSError(f"short write: {n} of {len(line)} bytes")
        finally:
            os.close(fd)
    except OSError as exc:
        if lost is not None:
            mark_unwritten(data_dir, lost)
        try:
            sys.stderr.write(f"asz hook: cannot write the log under {data_dir}: {exc}; {message}\n")
        except Exception:
            pass


def run(stdin: bytes, data_dir: str) -> int:
    """Handle one event and return the exit status, which is always 0.

    A :class:`Refusal`, an OSError or any unexpected exception becomes one
    line in ``<data_dir>/log/plugin.log``; nothing is written to stdout.
    """
    try:
        handle_event(stdin, data_dir)
    except Refusal as exc:
        _log(data_dir, f"refused: {exc}")
    except OSError as exc:
        _log(data_dir, f"{UNWRITTEN}{exc}", lost=getattr(exc, "asz_tool", None) or "event")
    except BaseException as exc:  # a hook never fails the agent
        _log(data_dir, f"unexpected {type(exc).__name__}: {exc}")
    return 0


_USAGE = "usage: asz hook [--data DIR]  (reads one Claude Code hook event as JSON on standard input)\n"


def main(argv: list[str] | None = None) -> int:
    """``asz hook [--data DIR]``: read one event from standard input, record it, return 0.

    ``argv`` are the arguments after ``hook``. An argument it does not know
    is logged and ignored, never an error: Claude Code treats a hook's exit
    status 2 as a block. ``--help``, or a terminal on standard input (so the
    hook never sits waiting), prints usage to stderr.
    """
    argv = list(sys.argv[1:] if argv is None else argv)
    flag = None
    unknown = []
    i = 0
    while i < len(argv):
        a = argv[i]
        if a == "--data" and i + 1 < len(argv):
            flag = argv[i + 1]
            i += 2
            continue
        if a.startswith("--data="):
            flag = a[len("--data="):]
        elif a in ("-h", "--help"):
            sys.stderr.write(_USAGE)
            return 0
        else:
            unknown.append(a)
        i += 1
    data_dir = resolve_data_dir(flag)
    if unknown:
        _log(data_dir, f"ignored arguments {unknown!r}")
    try:
        if sys.stdin is None or sys.stdin.isatty():  # a person at a terminal, not Claude Code: never wait for input
            sys.stderr.write(_USAGE)
            return 0
        raw = sys.stdin.buffer.read()
    except BaseException as exc:
        _log(data_dir, f"could not read standard input: {type(exc).__name__}: {exc}")
        return 0
    return run(raw, data_dir)


if __name__ == "__main__":  # python path/to/hook.py [--data DIR]
    sys.exit(main())
