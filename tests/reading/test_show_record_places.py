"""``asz show`` opens every record place a reader prints, and shows an unknown part's bytes (trial 47c F3: ``asz ls``
printed ``1/4`` and ``asz conversation`` ``seq 1 row 4 block 0`` for an undescribed record, and ``asz show ID 1/4``
said no landed record has that id, exit 1; its bytes were kept, as base64, reachable only by opening the .sd file).

Real input: the corpus transcript de3b8b19 with three lines planted as a runtime may write them, landed by the real
``asz collect --once`` (Claude Code's adapter): after its line 4, a prompt whose ``é`` is the Latin-1 byte 0xE9 (not
UTF-8: the adapter reads its text and keeps the line's bytes as an unknown part, base64) and a line cut short (not
JSON: one unknown part, its string); its Bash call's id changed (its result's call never lands); and a last prompt
whose time reads ``yesterday`` (the exports name its landed file and line). Each place is
taken from the readers' own output (``asz ls``, ``asz conversation``, md, html, ``asz show``'s own ``FILE:ROW``),
and the bytes shown are decoded here by the rule ``asz show --help`` states and compared with the source line's.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from reading_helpers import asz

SRC = "claude-code/projects/-home-user-claude-reliability/de3b8b19-5bc0-4a2a-934a-1b6806567e25.jsonl"
SID = "de3b8b19-5bc0-4a2a-934a-1b6806567e25"
LATIN = b"caf\xe9 au lait"  # a prompt saved in Latin-1
CUT = b'{"type":"user","message":{"role":"user","content":"half a line'
UNTIMED = "99999999-2222-4333-8444-555555555555"  # a prompt whose time does not read


@pytest.fixture(scope="module")
def landed(corpus_dir: Path, tmp_path_factory) -> tuple[Path, dict[int, bytes], str]:
    base = tmp_path_factory.mktemp("places")
    lines = (corpus_dir / SRC).read_bytes().splitlines()
    prompt = json.loads(lines[3])
    latin = json.dumps({**prompt, "uuid": "11111111-2222-4333-8444-555555555555",
                        "message": {"role": "user", "content": "@@"}}).encode().replace(b"@@", LATIN)
    call = json.loads(lines[4])
    (use,) = [b for b in call["message"]["content"] if b.get("type") == "tool_use"]
    use["id"] = "toolu_renamed_never_answered"
    last = json.loads(lines[-1])
    untimed = {**prompt, "uuid": UNTIMED, "parentUuid": last["uuid"], "timestamp": "yesterday",
               "message": {"role": "user", "content": "one more question"}}
    out = [*lines[:4], latin, CUT, json.dumps(call).encode(), *lines[5:], json.dumps(untimed).encode()]
    (base / "projects" / "p").mkdir(parents=True)
    (base / "projects" / "p" / Path(SRC).name).write_bytes(b"".join(x + b"\n" for x in out))
    asz("collect", "--once", "--source", str(base / "projects"), "--root", str(base / "root"))
    result = json.loads(lines[5])["uuid"]  # the result whose call no longer lands
    return base / "root", {5: latin, 6: CUT}, result


_ESCAPE = re.compile(rb"\\(x[0-9a-f]{2}|u[0-9a-f]{4}|U[0-9a-f]{8}|n|t|\\)")


def _decoded(shown: str) -> bytes:
    """The bytes ``asz show`` printed as ``shown`` (its help's rule: ``\\xNN`` the byte NN, ``\\uNNNN`` the UTF-8 of
    that character, ``\\n``, ``\\t``, ``\\\\``; anything else its UTF-8)."""
    def one(m: re.Match) -> bytes:
        e = m.group(1)
        if e[:1] == b"x":
            return bytes([int(e[1:], 16)])
        if e[:1] in (b"u", b"U"):
            return chr(int(e[1:], 16)).encode("utf-8")
        return {b"n": b"\n", b"t": b"\t", b"\\": b"\\"}[e]

    return _ESCAPE.sub(one, shown.encode("utf-8"))


def _shown(root: Path, place: str) -> tuple[str, dict[int, bytes]]:
    """``asz show SID place``: the FILE:ROW line of its one record, and each unknown part's bytes by block."""
    out = asz("show", SID[:8], place, "--root", str(root)).stdout.splitlines()
    assert len([x for x in out if x.endswith(".sd:" + x.rsplit(":", 1)[-1]) and not x.startswith("{")]) == 1, out
    parts = {}
    for i, line in enumerate(out):
        m = re.match(r"unknown part (\d+) \(", line)
        if m:
            assert "each byte that is not UTF-8 shown \\xNN, a backslash \\\\" in line
            parts[int(m.group(1))] = _decoded(out[i + 1].removeprefix("  "))
    return out[0], parts


def test_every_place_a_reader_prints_opens_the_record_and_its_bytes_are_the_source_line(landed):
    root, planted, _ = landed
    ls = asz("ls", "--root", str(root)).stdout
    (listed,) = re.findall(r"could hold calls: .*?: ([0-9/, ]+);", ls)
    said = asz("conversation", SID[:8], "--root", str(root)).stdout
    parts = re.findall(r"^  (seq \d+ row \d+ block \d+):", said, re.M)
    md = asz("export", SID, "--format", "md", "--root", str(root)).stdout
    md_parts = re.findall(r"^- (seq \d+ row \d+ block \d+ \(main\)):", md, re.M)
    page = asz("export", SID, "--format", "html", "--root", str(root)).stdout
    html_parts = re.findall(r"<li>(seq \d+ row \d+ block \d+ \(main\)):", page)
    places = [*listed.split(", "), *parts, *md_parts, *html_parts]
    assert listed == "1/6" and len(parts) == len(md_parts) == len(html_parts) == 2
    for place in places:
        row = int(re.search(r"(?:/| row )(\d+)", place).group(1))
        where, got = _shown(root, place)
        assert where.endswith(f".sd:{row}")
        block = re.search(r"block (\d+)", place)
        assert len(got) == 1 and list(got.values()) == [planted[row]], (place, got)
        if block:
            assert list(got) == [int(block.group(1))]
        # the FILE:ROW asz show printed opens the same record
        assert _shown(root, where) == (where, got) or block is not None


def test_the_unresolved_sections_place_and_a_files_name_open_the_record(landed):
    root, _, result = landed
    md = asz("export", SID, "--format", "md", "--root", str(root)).stdout
    (whole,) = re.findall(r"which no step draws: (record \S+ \(seq \d+, row \d+\)):", md)
    assert whole.startswith(f"record {result} ")
    for place in (whole, whole.split(" ", 2)[2], whole.split(" ", 2)[1]):  # whole, (seq S, row R), and the id alone
        out = asz("show", SID[:8], place, "--root", str(root)).stdout.splitlines()
        assert len(out) == 2 and json.loads(out[1])["id"] == result, (place, out)
    seq, row = re.search(r"seq (\d+), row (\d+)", whole).groups()
    out = asz("show", SID[:8], f"{seq}/{row}", "--root", str(root)).stdout.splitlines()
    name = out[0].rsplit("/", 1)[1]  # the landed file's name alone, and from the session's folder
    assert asz("show", SID[:8], name, "--root", str(root)).stdout.splitlines() == out
    assert asz("show", SID[:8], out[0].split("/", 1)[1], "--root", str(root)).stdout.splitlines() == out
    miss = asz("show", SID[:8], "1/999", "--root", str(root), check=False)
    assert miss.returncode == 1 and "'1/999'" in miss.stderr


def test_the_file_and_line_an_untimed_step_names_opens_its_record(landed):
    root, _, _ = landed
    md = asz("export", SID, "--format", "md", "--root", str(root)).stdout
    (place,) = re.findall(r"time does not read \('yesterday', (\S+\.sd line \d+)\)", md)
    out = asz("show", SID[:8], place, "--root", str(root)).stdout.splitlines()
    assert len(out) == 2 and json.loads(out[1])["id"] == UNTIMED
    assert out[0].endswith(f".sd:{int(place.rsplit(' ', 1)[1]) - 1}")  # line 1 of a landed file is its header
