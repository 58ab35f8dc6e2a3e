"""Control characters in transcript text, per reader (trial 3, F4/F19 follow-up): ``asz show`` prints each record
line with ESC, DEL, C1 and bidi overrides/isolates as JSON escapes (the same value, nothing that steers a terminal),
and an HTML export shows them as visible escapes in the body, and so does a Markdown export, to a file or a pipe as to a
terminal (trial 27c, F3: an OSC written raw into a ``.md`` retitled the terminal that ``cat`` it); terminal formatting (a
whole CSI sequence) is removed where a person reads, and JSON keeps every byte."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from asz_core.reading.termtext import UNSAFE

from reading_helpers import asz
from view_server_helpers import CANARY_SESSION, ODD, ODD_SHOWN, control_root


def _unsafe(text: str) -> list[str]:
    return [hex(ord(c)) for c in text if ord(c) in UNSAFE]


@pytest.fixture(scope="module")
def odd_root(tmp_path_factory) -> Path:
    """One talk: a prompt of ``ODD`` and a reply ``"reply " + ODD``, collected and parsed."""
    return control_root(tmp_path_factory.mktemp("control"))


def test_show_writes_controls_and_bidi_as_json_escapes(odd_root: Path):
    out = asz("show", CANARY_SESSION[:8], "u-1", "--root", str(odd_root)).stdout
    assert _unsafe(out) == []
    where, line = out.splitlines()
    assert where.startswith(f"{CANARY_SESSION}/streams/main/transcript-") and where.endswith(".sd:1")
    assert ("esc \\u001b[31mred\\u001b[0m del \\u007f nel \\u0085 csi \\u009b2J osc \\u009d0;t\\u009c rlo \\u202eevil\\u202c"
            " iso \\u2066x\\u2069 end") in line
    rec = json.loads(line)  # still a JSON line with the very same text
    assert rec["id"] == "u-1" and rec["parts"][0]["text"] == ODD


def _nodes(doc: dict) -> dict[str, dict]:
    out: dict[str, dict] = {}
    stack = list(doc["talks"])
    while stack:
        n = stack.pop()
        out[n["id"]] = n
        stack.extend(n.get("children") or [])
    return out


def test_html_and_md_exports_show_controls_as_escapes_and_json_keeps_them(odd_root: Path, tmp_path: Path):
    for fmt in ("html", "md", "json"):
        asz("export", CANARY_SESSION[:8], "--format", fmt, "--root", str(odd_root), "--out", str(tmp_path / f"odd.{fmt}"))
    page = (tmp_path / "odd.html").read_text(encoding="utf-8")
    assert _unsafe(page) == []  # nothing raw anywhere in the page: no ESC, DEL, C1 or bidi override/isolate
    body = page.split("<body>", 1)[1]
    assert f"<span class=\"id\">input/1/1</span></div><div class=\"said\">{ODD_SHOWN}</div>" in body  # the prompt, as written
    assert f"<span class=\"id\">msg/1/2:0</span></div><p>reply {ODD_SHOWN}</p>" in body  # the reply
    label = ODD_SHOWN.replace("nel \\x85 csi", "nel csi")  # a label's white space is squeezed, and NEL is white space
    assert f"Talk 1: <bdi>{label}</bdi></h2>" in body  # the talk's label
    md = (tmp_path / "odd.md").read_text(encoding="utf-8")
    # Markdown drops terminal formatting (CSI) and writes every other control as the terminal commands do
    assert _unsafe(md) == [] and f"\n{ODD_SHOWN}\n" in md and f"\nreply {ODD_SHOWN}\n" in md
    raw = (tmp_path / "odd.json").read_bytes()
    # JSON escapes C0, and asz DEL, C1 and the bidi overrides too (trial 34c F9): the same values, none raw
    assert b"reply esc \\u001b[31mred\\u001b[0m del \\u007f nel \\u0085 csi \\u009b2J" in raw
    assert _unsafe(raw.decode("utf-8")) == []
    doc = json.loads(raw)
    texts = {n["id"]: n.get("text") for n in _nodes(doc).values()}
    assert texts["input/1/1"] == ODD and texts["msg/1/2:0"] == "reply " + ODD


def test_an_export_to_a_terminal_writes_controls_as_escapes(odd_root: Path):
    """``asz export`` to stdout on a terminal (a real pseudo-terminal) writes every control and bidi character as its
    escape, as ``asz ls`` and ``asz search`` do (trial 18, F-a: an OSC in a prompt retitled the reader's terminal);
    Markdown to a pipe is written the same way (trial 27c, F3), JSON with its escapes."""
    import sys

    if not sys.platform.startswith("linux"):
        pytest.skip("opens a pseudo-terminal (Linux)")
    from cli_helpers import asz_on_a_terminal

    lines, _ = asz_on_a_terminal("export", CANARY_SESSION[:8], "--format", "md", "--root", str(odd_root), columns=120)
    shown = "\n".join(lines)
    assert _unsafe(shown) == [] and ODD_SHOWN in shown and f"reply {ODD_SHOWN}" in shown
    lines, _ = asz_on_a_terminal("export", CANARY_SESSION[:8], "--format", "json", "--root", str(odd_root), columns=120)
    doc = json.loads("\n".join(lines))  # still JSON, the very same text, nothing raw
    assert _unsafe("\n".join(lines)) == [] and _nodes(doc)["input/1/1"]["text"] == ODD
    piped = asz("export", CANARY_SESSION[:8], "--format", "md", "--root", str(odd_root)).stdout
    assert _unsafe(piped) == [] and ODD_SHOWN in piped
