"""``asz search`` finds the words of records kept verbatim as ``unknown`` parts (trial 47c F2: a word standing in 50
such records found 0 hits, and nothing said they were not searched, so 0 read as "never said").

Real input: the corpus's spotter transcript (Claude Code) with three lines planted among its own, landed by the real
collect: a line that is not JSON, one that is not JSON and holds bytes that are not valid UTF-8, and a record of a type
the dialect does not describe. Each lands as one ``unknown`` part keeping its bytes (seed 000). A fourth, a typed
prompt holding one byte that is not valid UTF-8, is described with U+FFFD and keeps its line's bytes in an unknown
part beside: one hit, the prompt's. Each planted word's count is the number of source lines holding it, counted from
the source file's bytes.
"""

from __future__ import annotations

import base64
import json

import pytest

from cli_helpers import asz_in_process as asz
from cli_helpers import pasted
from reading_helpers import SPOTTER

NOT_JSON = b'{"type": "user", "message": torn zorblaxqueen here'
UNDESCRIBED = json.dumps({"type": "kestrel-memo", "note": "quillfeather remembered\nmarshwind"}).encode()
INVALID = b'torn caf\xe9 vexmoorlatin bytes \xff\xfe here'
DESCRIBED = (b'{"type": "user", "message": {"role": "user", "content": "caf\xe9 quintarelle bytes"}, '
             b'"uuid": "00000000-0000-4000-8000-00000000beef", "timestamp": "2026-05-20T10:00:00.000Z"}')


def _root(corpus_dir, tmp_path):
    lines = (corpus_dir / SPOTTER).read_bytes().splitlines(keepends=True)
    planted = lines[:6] + [NOT_JSON + b"\n", UNDESCRIBED + b"\n", INVALID + b"\n", DESCRIBED + b"\n"] + lines[6:]
    folder = tmp_path / "projects" / "-home-user-spotter"
    folder.mkdir(parents=True)
    (folder / (SPOTTER.rsplit("/", 1)[1])).write_bytes(b"".join(planted))
    made = asz("collect", "--once", "--source", str(tmp_path / "projects"), "--root", str(tmp_path / "root"),
               env={"CLAUDE_CONFIG_DIR": str(tmp_path / "claude-home")})
    assert made.returncode == 0, made.stdout + made.stderr
    return tmp_path / "root", b"".join(planted)


def _record(root, hit) -> dict:
    return json.loads((root / hit["file"]).read_bytes().split(b"\n")[hit["row"]])


def test_the_words_of_undescribed_records_are_found_and_marked(corpus_dir, tmp_path):
    root, source = _root(corpus_dir, tmp_path)
    for word, line in (("zorblaxqueen", NOT_JSON), ("quillfeather", UNDESCRIBED), ("marshwind", UNDESCRIBED),
                       ("vexmoorlatin", INVALID)):
        assert sum(word.encode() in x for x in source.splitlines()) == 1
        p = asz("search", word, "--json", "--root", str(root))
        assert p.returncode == 0, p.stderr
        (hit,) = json.loads(p.stdout)
        assert hit["kind"] == "undescribed" and hit["conversation"].startswith("55604662"), hit
        (part,) = [x for x in _record(root, hit)["parts"] if x["k"] == "unknown"]
        kept = base64.b64decode(part["data"]) if part.get("encoding") == "base64" else part["data"].encode()
        assert kept == line  # the hit cites the record keeping the source line's bytes
        assert hit["undescribed"].startswith(part["text"])
        assert ("not valid UTF-8" in hit["undescribed"]) == (line is INVALID)
        assert "\ufffd" in hit["snippet_text"] if line is INVALID else "\ufffd" not in hit["snippet_text"]
    # "marshwind" stood after a JSON \n in the line: read as a break, a word of its own (as data is indexed)
    assert sum(b"quintarelle" in x for x in source.splitlines()) == 1
    (hit,) = json.loads(asz("search", "quintarelle", "--json", "--root", str(root)).stdout)
    assert hit["kind"] == "prompt" and hit["undescribed"] == "" and "caf\ufffd quintarelle" in hit["snippet_text"]
    assert any(x["k"] == "unknown" for x in _record(root, hit)["parts"])  # its line's bytes kept beside, not searched twice
    text = asz("search", "vexmoorlatin", "--root", str(root))
    assert "undescribed record, searched as its kept bytes: " in text.stdout and "not valid UTF-8" in text.stdout
    only = json.loads(asz("search", "quillfeather OR zorblaxqueen OR vexmoorlatin", "--kind", "undescribed", "--json",
                          "--root", str(root)).stdout)
    assert len(only) == 3 and {h["undescribed"] != "" for h in only} == {True}
    prompts = json.loads(asz("search", "spotter", "--json", "--limit", "5", "--root", str(root)).stdout)
    assert prompts and all(h["undescribed"] == "" for h in prompts if h["kind"] != "undescribed")



@pytest.mark.slow
def test_an_undescribed_hit_says_the_command_that_shows_its_bytes(corpus_dir, tmp_path):
    """An ``undescribed`` hit cites no step, so it had no ``open:`` line though ``asz show SESSION FILE:ROW`` prints
    its record and bytes (74f7f048): its open line (and JSON ``open``) is that command, and run as pasted it prints
    the source line's bytes (asz show's rule: each byte that is not UTF-8 as \\xNN)."""
    from test_show_record_places import _decoded

    root, _ = _root(corpus_dir, tmp_path)
    for word, line in (("zorblaxqueen", NOT_JSON), ("quillfeather", UNDESCRIBED), ("vexmoorlatin", INVALID)):
        text = asz("search", word, "--root", str(root)).stdout.splitlines()
        (opens,) = [x.strip()[len("open: "):] for x in text if x.strip().startswith("open: ")]
        (hit,) = json.loads(asz("search", word, "--json", "--root", str(root)).stdout)
        assert hit["open"] == opens and opens.startswith("asz show "), (opens, text)
        shown = pasted(opens, tmp_path, tmp_path / "claude-home")
        assert shown.returncode == 0, shown.stdout + shown.stderr
        out = shown.stdout.splitlines()
        at = next(i for i, x in enumerate(out) if x.startswith("unknown part "))
        assert _decoded(out[at + 1][2:]) == line  # the printed command shows the source line's bytes
    (hit,) = json.loads(asz("search", "quintarelle", "--json", "--root", str(root)).stdout)
    assert hit["open"].startswith("asz conversation 55604662") and f"--step {hit['step']} " in hit["open"]
