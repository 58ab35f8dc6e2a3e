"""Fuzzed Claude Code source lines through the whole pipeline: collect, parse, document, page API.

Each session is three well-formed records (a prompt, an answer, a tool call
and its result: the neighbours a damaged record must not cost) with fuzzed
lines between them. A fuzzed line is a transcript record whose values are
drawn from what breaks readers: integers of 2^64 and beyond, numbers a double
cannot hold (``1e400``), a 5,000-digit integer, times in any four-digit year
and with offsets that leave 0000-9999, strings holding lone surrogate
escapes, and lines that are not JSON objects at all.

:func:`check_root` runs ``asz collect --once`` (in process, Typer's runner)
over a source folder of such sessions, then for every session checks that its
conversation has rounds, that ``build_view`` builds its document holding the
neighbours' text, that every source line became exactly one landed record,
and that the page API (Starlette's TestClient over ``create_app``) answers
200 for the list, the document and every landed record. It returns the
failures as text, never raises for one session.
"""

from __future__ import annotations

import json
import re
import traceback
from dataclasses import dataclass, field
from pathlib import Path

from hypothesis import strategies as st

PROMPT = "isolation neighbour prompt {n}"
ANSWER = "isolation neighbour answer {n}"


class Raw:
    """A JSON value written as this exact text (a number no Python float or JSON encoder would write so)."""

    def __init__(self, text: str):
        self.text = text


def encode(v) -> str:
    """JSON text of ``v``; strings with lone surrogates become ``\\udxxx`` escapes (ensure_ascii), Raw as its text."""
    if isinstance(v, Raw):
        return v.text
    if isinstance(v, dict):
        return "{" + ",".join(f"{json.dumps(str(k))}:{encode(x)}" for k, x in v.items()) + "}"
    if isinstance(v, list):
        return "[" + ",".join(encode(x) for x in v) + "]"
    return json.dumps(v)


# --- value strategies -------------------------------------------------------------------------

wide_ints = st.one_of(
    st.integers(min_value=2**63 - 2, max_value=2**64 + 2),
    st.integers(min_value=-(2**63) - 2, max_value=-(2**63) + 2),
    st.integers(min_value=-(10**40), max_value=10**40),
    st.integers(),
)
raw_numbers = st.sampled_from(["1e400", "-1e400", "1E+999", "1" + "0" * 5000, "-0", "0.1e-400", "123456789012345678901234567890.5"]).map(Raw)
numbers = st.one_of(wide_ints, raw_numbers, st.floats(allow_nan=False, allow_infinity=False))
# Any code point, lone surrogates (category Cs) included: json.dumps writes them as \udxxx escapes.
strings = st.text(alphabet=st.characters(codec=None), max_size=24)


@st.composite
def times(draw):
    """An RFC 3339 time in any four-digit year, with any offset, or a value that is no time at all."""
    kind = draw(st.integers(0, 3))
    if kind == 0:
        y = draw(st.integers(0, 9999))
        mo, d = draw(st.integers(1, 12)), draw(st.integers(1, 28))
        hh, mi, ss = draw(st.integers(0, 23)), draw(st.integers(0, 59)), draw(st.integers(0, 59))
        frac = draw(st.sampled_from(["", ".5", ".123456789", ".000"]))
        off = draw(st.sampled_from(["Z", "+23:59", "-23:59", "+00:00", "+14:00"]))
        return f"{y:04d}-{mo:02d}-{d:02d}T{hh:02d}:{mi:02d}:{ss:02d}{frac}{off}"
    if kind == 1:
        return draw(st.sampled_from(["0000-01-01T00:00:00+01:00", "9999-12-31T23:59:59-01:00", "1677-09-21T00:12:43.145224191Z",
                                     "2262-04-11T23:47:16.854775808Z", "2554-07-21T23:34:33.709551616Z", "0000-02-29T00:00:00Z"]))
    if kind == 2:
        return draw(strings)
    return draw(numbers)


json_values = st.recursive(
    st.none() | st.booleans() | numbers | strings,
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(strings, inner, max_size=4),
    max_leaves=10,
)


@st.composite
def fuzzed_record(draw, session: str, n: int) -> bytes:
    """One fuzzed source line (no newline) of ``session``, the ``n``-th fuzzed line of its session."""
    shape = draw(st.sampled_from(["user", "assistant_text", "tool_use", "tool_result", "object", "garbage"]))
    uid = f"fz-{n:06d}"
    base = {"type": "user", "sessionId": session, "uuid": uid, "parentUuid": None, "timestamp": draw(times()),
            "isSidechain": draw(st.sampled_from([False, False, True])), "cwd": "/home/dev/fuzz"}
    if shape == "user":
        base["message"] = {"role": "user", "content": draw(st.one_of(strings, json_values))}
    elif shape == "assistant_text":
        base["type"] = "assistant"
        base["message"] = {"id": f"msg_fz{n}", "role": "assistant", "model": draw(strings),
                           "content": [{"type": "text", "text": draw(strings)}],
                           "usage": {"input_tokens": draw(numbers), "output_tokens": draw(numbers),
                                     "cache_read_input_tokens": draw(numbers)}}
    elif shape == "tool_use":
        base["type"] = "assistant"
        base["message"] = {"id": f"msg_fz{n}", "role": "assistant", "model": "claude-opus-5",
                           "content": [{"type": "tool_use", "id": draw(st.sampled_from([f"toolu_fz{n}", "toolu_0001"])) ,
                                        "name": draw(st.sampled_from(["Bash", "mcp__a__b", "Edit"])) ,
                                        "input": {"command": draw(strings), "n": draw(numbers), "x": draw(json_values)}}]}
    elif shape == "tool_result":
        base["message"] = {"role": "user", "content": [{"type": "tool_result", "tool_use_id": f"toolu_fz{n - 1}",
                                                        "content": draw(st.one_of(strings, json_values)), "is_error": draw(json_values)}]}
        base["toolUseResult"] = draw(json_values)
    elif shape == "object":
        obj = draw(st.dictionaries(strings, json_values, max_size=6))
        obj.update({k: v for k, v in base.items() if draw(st.booleans())})
        return encode(obj).encode("utf-8", "surrogatepass")
    else:
        raw = draw(st.one_of(st.binary(min_size=1, max_size=40), json_values.map(lambda v: encode(v).encode("utf-8", "surrogatepass"))))
        return raw.replace(b"\n", b" ").replace(b"\r", b" ") or b"x"
    return encode(base).encode("utf-8", "surrogatepass")


def good_lines(session: str, n: int) -> list[bytes]:
    """The well-formed neighbours: a prompt, an answer, a Bash call and its result (Claude Code's own shapes)."""
    common = {"isSidechain": False, "userType": "external", "cwd": "/home/dev/fuzz", "sessionId": session, "version": "2.1.114"}
    recs = [
        {**common, "type": "user", "parentUuid": None, "uuid": f"g-{n}-1", "timestamp": "2026-11-20T09:00:00.000Z",
         "message": {"role": "user", "content": PROMPT.format(n=n)}},
        {**common, "type": "assistant", "parentUuid": f"g-{n}-1", "uuid": f"g-{n}-2", "timestamp": "2026-11-20T09:00:01.000Z",
         "requestId": f"req_g{n}", "message": {"id": f"msg_g{n}", "type": "message", "role": "assistant", "model": "claude-opus-5",
                                               "content": [{"type": "text", "text": ANSWER.format(n=n)}], "stop_reason": "end_turn",
                                               "usage": {"input_tokens": 12, "output_tokens": 7}}},
        {**common, "type": "assistant", "parentUuid": f"g-{n}-2", "uuid": f"g-{n}-3", "timestamp": "2026-11-20T09:00:02.000Z",
         "requestId": f"req_h{n}", "message": {"id": f"msg_h{n}", "type": "message", "role": "assistant", "model": "claude-opus-5",
                                               "content": [{"type": "tool_use", "id": f"toolu_g{n}", "name": "Bash", "input": {"command": "ls"}}],
                                               "stop_reason": "tool_use", "usage": {"input_tokens": 12, "output_tokens": 7}}},
        {**common, "type": "user", "parentUuid": f"g-{n}-3", "uuid": f"g-{n}-4", "timestamp": "2026-11-20T09:00:03.000Z",
         "message": {"role": "user", "content": [{"type": "tool_result", "tool_use_id": f"toolu_g{n}", "content": "README.md"}]}},
    ]
    return [encode(r).encode() for r in recs]


def session_id(n: int) -> str:
    return f"00000000-0000-4000-8000-{n:012d}"


def write_session(src: Path, n: int, fuzzed: list[bytes]) -> int:
    """Write session ``n``: the good lines with the fuzzed ones spread between them. Returns the line count."""
    good = good_lines(session_id(n), n)
    lines: list[bytes] = []
    per = max(1, -(-len(fuzzed) // len(good)))
    for i, g in enumerate(good):
        lines.append(g)
        lines.extend(fuzzed[i * per:(i + 1) * per])
    proj = src / "-home-dev-fuzz"
    proj.mkdir(parents=True, exist_ok=True)
    (proj / f"{session_id(n)}.jsonl").write_bytes(b"".join(x + b"\n" for x in lines))
    return len(lines)


@dataclass
class Outcome:
    """What :func:`check_root` found: sessions and lines checked, requests made, and every failure."""

    sessions: int = 0
    lines: int = 0
    requests: int = 0
    failures: list[str] = field(default_factory=list)


_LAST = re.compile(r"errors=(\d+)")


def check_root(src: Path, root: Path, expected: dict[int, int]) -> Outcome:
    """Collect ``src`` into ``root`` and check every session ``n`` of ``expected`` (n -> lines written)."""
    from starlette.testclient import TestClient
    from typer.testing import CliRunner

    from asz_core.cli.main import build_app
    from asz_core.view.server import ViewState, create_app

    out = Outcome()
    # the application the console script builds for ``asz collect`` (its module's commands only; asz_core.cli.main)
    res = CliRunner().invoke(build_app(("collect_cmd",)), ["collect", "--once", "--jobs", "1", "--source", str(src), "--root", str(root)])
    if res.exit_code != 0 or res.exception is not None:
        tail = "".join(traceback.format_exception(res.exception)) if res.exception else res.output[-2000:]
        out.failures.append(f"collect exited {res.exit_code}: {tail}")
    # Each client is entered once: its requests share one event loop thread (a client used outside ``with`` starts a
    # thread and a loop for every request, most of a request's CPU here).
    with TestClient(create_app(ViewState(root)), base_url="http://127.0.0.1") as plain, \
            TestClient(create_app(ViewState(root, hide=("system_prompt", "tool_schemas"))), base_url="http://127.0.0.1") as hiding:
        _check_sessions(root, expected, plain, hiding, out)  # the server answers loopback hosts only
    return out


def _check_sessions(root: Path, expected: dict[int, int], plain, hiding, out: Outcome) -> None:
    """The list and every session of ``expected`` read through ``plain``; odd sessions through ``hiding``, which
    withholds what a reader may withhold (a line that does not read is named for both)."""
    from asz_core.sessiondata import SDReader
    from asz_core.storage.layout import landed_files
    from asz_core.view.document import build_view

    client = plain
    r = client.get("/api/conversations")
    out.requests += 1
    if r.status_code != 200:
        out.failures.append(f"/api/conversations answered {r.status_code}: {r.text[:300]}")
    for n, count in expected.items():
        sid = session_id(n)
        out.sessions += 1
        out.lines += count
        client = hiding if n % 2 else plain
        try:
            _check_session(root, sid, n, count, client, out, build_view, landed_files, SDReader)
        except Exception:
            out.failures.append(f"session {n}: {traceback.format_exc()}")


def _check_session(root, sid, n, count, client, out, build_view, landed_files, SDReader) -> None:
    rounds = root / "_conversations" / sid / "rounds"
    if not rounds.is_dir() or not any(rounds.iterdir()):
        out.failures.append(f"session {n}: no rounds")
        return
    from asz_core.view.render import to_json

    doc = build_view(root, sid, hide=("system_prompt", "tool_schemas") if n % 2 else ())
    to_json(doc, indent=True)  # what asz conversation --json writes
    text = json.dumps(doc)
    for want in (PROMPT.format(n=n), ANSWER.format(n=n)):
        if want not in text:
            out.failures.append(f"session {n}: document lacks {want!r}")
    landed = 0
    for ln, path in landed_files(root / sid):
        rows = 0
        for row, _rec in SDReader(path, decode=False):
            rows = row
        if ln.kind == "transcript":
            landed += rows
        for row in range(1, rows + 1):
            r = client.get(f"/api/c/{sid}/record/{ln.seq}/{row}")
            out.requests += 1
            if r.status_code != 200:
                out.failures.append(f"session {n}: record {ln.seq}/{row} answered {r.status_code}: {r.text[:200]}")
    if landed != count:
        out.failures.append(f"session {n}: {count} source lines, {landed} landed records")
    r = client.get(f"/api/c/{sid}/view")
    out.requests += 1
    if r.status_code != 200:
        out.failures.append(f"session {n}: view answered {r.status_code}: {r.text[:300]}")
