"""A search hit's matches are told apart from the text's own « and » (trial 3, finding 1): ``snippet_text`` and
``snippet_marks`` in the JSON, styling on a terminal, an escape in plain output, and the page from the spans.

The root is the corpus's hello session with ``Le mot «bonjour» se dit «hello» ; `` put before its first prompt
(:func:`view_server_helpers.corpus_with_guillemets`), collected and parsed by the real commands.
"""

from __future__ import annotations

import os
import pty
import select
import subprocess
import sys
import time
from pathlib import Path

import pytest
from reading_helpers import REPO, asz, asz_json
from view_server_helpers import GUILLEMET_PREFIX, HELLO_SESSION, collect_and_parse, corpus_with_guillemets

from asz_core.reading.search_text import escaped, unescaped


@pytest.fixture(scope="module")
def guillemet_root(corpus_source, tmp_path_factory) -> Path:
    base = tmp_path_factory.mktemp("guillemets")
    corpus_with_guillemets(corpus_source, base / "projects")
    collect_and_parse(base / "projects", base / "root")
    return base / "root"


def _prompt_hit(root: Path, query: str) -> dict:
    hits = [h for h in asz_json("search", query, "--json", "--root", str(root)) if h["kind"] == "prompt"]
    assert len(hits) == 1 and hits[0]["conversation"] == HELLO_SESSION, hits
    return hits[0]


def test_the_json_carries_the_text_as_written_and_the_spans_of_the_matches(guillemet_root):
    h = _prompt_hit(guillemet_root, "bonjour")
    text, marks = h["snippet_text"], h["snippet_marks"]
    assert text.startswith(GUILLEMET_PREFIX + "Write a shell script called hello")  # the text's own guillemets, as typed
    assert marks == [[len("Le mot «"), len("Le mot «bonjour")]]
    assert [text[a:b] for a, b in marks] == ["bonjour"]
    # the older key stays as it was: matches between « and », which the text's own guillemets look like
    assert h["snippet"].startswith("Le mot ««bonjour»» se dit «hello»")
    # two matched words: each span names its word, the guillemets around "hello" stay outside the span
    h2 = _prompt_hit(guillemet_root, "hello bonjour")
    assert sorted({h2["snippet_text"][a:b].lower() for a, b in h2["snippet_marks"]}) == ["bonjour", "hello"]
    assert all(h2["snippet_text"][a - 1] == "«" for a, b in h2["snippet_marks"][:2])


def test_offsets_count_code_points_past_wide_and_astral_characters(corpus_source, tmp_path):
    """An emoji (two UTF-16 units, four UTF-8 bytes) before the match moves its span by one."""
    src = tmp_path / "projects"
    corpus_with_guillemets(corpus_source, src)
    f = src / "-home-user-claude-reliability" / f"{HELLO_SESSION}.jsonl"
    f.write_text(f.read_text(encoding="utf-8").replace("Le mot", "\U0001f600 Le mot"), encoding="utf-8")
    collect_and_parse(src, tmp_path / "root")
    h = _prompt_hit(tmp_path / "root", "bonjour")
    a, b = h["snippet_marks"][0]
    assert (a, b) == (len("\U0001f600 Le mot «"), len("\U0001f600 Le mot «bonjour")) == (10, 17)
    assert h["snippet_text"][a:b] == "bonjour"


def test_plain_output_escapes_the_text_s_guillemets_and_reads_back(guillemet_root):
    out = asz("search", "bonjour", "--kind", "prompt", "--root", str(guillemet_root)).stdout
    line = out.splitlines()[2].strip()
    assert line.startswith("Le mot \\««bonjour»\\» se dit \\«hello\\» ; Write a shell script called hello"), line
    text, spans = unescaped(line)
    assert text.startswith(GUILLEMET_PREFIX.strip() + " Write") and [text[a:b] for a, b in spans] == ["bonjour"]


def test_the_escape_reads_back_whatever_the_backslashes():
    """A backslash stands for itself, beside a match too (trial 36c F7: ``dev\\\\«zebra»`` for the text's ``dev\\zebra``);
    every placing of backslashes and guillemets around whole-word spans reads back."""
    cases = [("C:\\dir\\x\\y", [[7, 8]], "C:\\dir\\«x»\\y"), ("a\\", [[0, 1]], "«a»\\"), ("\\«a", [[2, 3]], "\\\\««a»"),
             ("«\\a»", [[2, 3]], "\\«\\«a»\\»"), ("\\\\a\\\\", [[2, 3]], "\\\\«a»\\\\"), ("««a»»", [[2, 3]], "\\«\\««a»\\»\\»"),
             ("\\«a b\\»", [[4, 5]], "\\\\«a «b»\\\\»"), ("\\«a", [], "\\\\«a")]
    for text, spans, shown in cases:
        assert escaped(text, spans) == shown, (text, spans)
        assert unescaped(shown) == (text, spans), (text, spans, shown)


def test_plain_output_shows_the_text_s_backslashes_beside_a_match(corpus_source, tmp_path):
    """``asz search`` piped: the prompt's Windows paths as typed, ``«`` and ``»`` only around the matches (trial 36c
    F7). The expected line is made from the source transcript's own prompt, read with ``json``."""
    import json

    src = tmp_path / "projects"
    corpus_with_guillemets(corpus_source, src)
    f = src / "-home-user-claude-reliability" / f"{HELLO_SESSION}.jsonl"
    typed = r"C:\Users\dev\bonjour\x.txt, \\srv\bonjour\ ; "
    f.write_text(f.read_text(encoding="utf-8").replace("Le mot", json.dumps(typed)[1:-1] + "Le mot"), encoding="utf-8")
    collect_and_parse(src, tmp_path / "root")
    prompt = next(json.loads(line)["message"]["content"] for line in f.read_text(encoding="utf-8").splitlines()
                  if '"content":"C:' in line)
    assert prompt.startswith(typed + GUILLEMET_PREFIX)
    line = asz("search", "bonjour", "--kind", "prompt", "--root", str(tmp_path / "root")).stdout.splitlines()[2].strip()
    line = line.removesuffix("…")  # the snippet's window ends inside the prompt
    shown = prompt.replace("«", "\\«").replace("»", "\\»").replace("bonjour", "«bonjour»")
    assert line == shown[:len(line)] and len(line) > len(typed + GUILLEMET_PREFIX), (line, shown)
    assert line.startswith(r"C:\Users\dev\«bonjour»\x.txt, \\srv\«bonjour»\ ; Le mot \««bonjour»\»")
    assert unescaped(line)[0] == prompt[:len(unescaped(line)[0])]


def test_a_terminal_shows_matches_styled_and_the_text_s_guillemets_as_they_are(guillemet_root):
    master, slave = pty.openpty()
    p = subprocess.Popen([sys.executable, "-m", "asz_core.cli.main", "search", "bonjour", "--kind", "prompt", "--root",
                          str(guillemet_root)], stdout=slave, stderr=subprocess.PIPE, cwd=REPO)
    os.close(slave)
    chunks = []
    deadline = time.monotonic() + 300  # a generous bound: a hung child fails the test instead of hanging the run
    while time.monotonic() < deadline:
        if not select.select([master], [], [], 1.0)[0]:
            if p.poll() is not None and not select.select([master], [], [], 0)[0]:
                break
            continue
        try:
            got = os.read(master, 65536)
        except OSError:  # the child closed the terminal
            break
        if not got:
            break
        chunks.append(got)
    os.close(master)
    if p.poll() is None:
        p.kill()
    assert p.wait(timeout=120) == 0, p.stderr.read()
    out = b"".join(chunks).decode("utf-8")
    assert "Le mot «\x1b[1;33mbonjour\x1b[0m» se dit «hello» ; Write a shell script" in out, out
