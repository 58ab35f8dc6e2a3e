"""A command's password holding a backslash-escaped character, or an escaped quote between quotes, is masked whole in a
JSON text too (forms 11, review49 of ab4d5870 and 957adc23).

A tool input is read as its JSON text (the md and html exports draw the input from it, the search index and ``asz
secrets`` hold it), where the shell's ``\\$`` is written ``\\\\$`` and its ``\\"`` ``\\\\\\"``. At forms 10 the text
form, which reads the command itself, masked each of these whole, while the JSON text kept ``sshpass -p
Ws2\\$Ed4\\&Rf6`` whole (its first run, ``Ws2``, too short for a password), showed ``mysql -p"***"Bb2&Cc3"`` and
``curl -u admin:***\\&Kp2``, and ``asz search Ed4`` and ``asz search Bb2`` found them unmasked: checked on a root of
planted commands (review49). Here the shapes are planted into the Bash call of a real transcript of the shared corpus
(spotter 55604662, line 8) and its first prompt."""

from __future__ import annotations

import html
import json
from pathlib import Path

import pytest

from cli_helpers import asz_in_process
from reading_helpers import SPOTTER, planted_root

from asz_core.view.secret_forms import find

CID = "55604662-cf2a-4331-851a-ec234028f8ca"
#: (command, form, value as the shell reads it, tail that must show nowhere)
SHAPES = [
    (r"sshpass -p Ws2\$Ed4\&Rf6 ssh deploy@host uptime", "sshpass-password", r"Ws2\$Ed4\&Rf6", "Rf6"),
    (r'mysql -p"Aa1\"Bb2&Cc3" shop', "mysql-password", r'Aa1\"Bb2&Cc3', "Bb2&Cc3"),
    (r'mysql -h db --password="Ab1\"Cd2 Ef3" shop', "password", r'Ab1\"Cd2 Ef3', "Cd2 Ef3"),
    (r"curl -u admin:Zq7\&Kp2(Wx)9 https://x.example.com", "curl-password", r"Zq7\&Kp2(Wx)9", "Kp2(Wx)9"),
    (r"sshpass -p Ws2\\Ed4x ssh h", "sshpass-password", r"Ws2\\Ed4x", "Ed4x"),
]


@pytest.mark.parametrize("text,form,value,_tail", SHAPES)
def test_found_whole_as_written_and_as_json_text(text, form, value, _tail):
    assert [(k, text[a:b]) for k, a, b in find(text)] == [(form, value)]
    escaped = json.dumps({"command": text})
    assert [(k, escaped[a:b]) for k, a, b in find(escaped)] == [(form, json.dumps(value)[1:-1])]


@pytest.fixture(scope="module")
def root(tmp_path_factory, corpus_dir) -> Path:
    def plant(lines: list[dict]) -> None:
        lines[3]["message"]["content"] = "deploy: " + " ; ".join(t for t, *_ in SHAPES)
        lines[7]["message"]["content"][0]["input"]["command"] = " && ".join(t for t, *_ in SHAPES)

    return planted_root(corpus_dir, tmp_path_factory.mktemp("jsonesc"), SPOTTER, plant)


@pytest.mark.parametrize("fmt", ["md", "html", "text"])
def test_no_tail_in_an_export(root, fmt):
    p = asz_in_process("export", CID, "--format", fmt, "--root", str(root))
    assert p.returncode == 0, p.stderr
    out = html.unescape(p.stdout) if fmt == "html" else p.stdout
    assert [t for *_, t in SHAPES if t in out] == [], out
    assert out.count("sshpass -p *** ssh deploy@host uptime") >= 2  # the prompt and the Bash call's input


def test_search_finds_no_tail_and_secrets_names_each_in_the_input(root):
    for word in ("Rf6", "Bb2", "Ef3", "Kp2", "Ed4x"):
        s = asz_in_process("search", word, "--root", str(root))
        assert word not in s.stdout, s.stdout
    p = asz_in_process("secrets", "--json", "--root", str(root))
    assert p.returncode == 1, p.stdout + p.stderr
    inputs = sorted(f["secret"] for f in json.loads(p.stdout) if f["kind"] == "tool_input")
    assert inputs == sorted(form for _, form, *_ in SHAPES), inputs  # each found in the Bash call's input, once
