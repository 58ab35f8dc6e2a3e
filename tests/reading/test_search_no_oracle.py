"""Search answers nothing about a masked credential's value (trial 38c F2, HIGH): ``/api/search``'s hit count was an
oracle over the unmasked text (``scripts/oracle.py`` extended ``akia`` one character at a time and recovered the AWS
key id in 340 queries; ``"Hunter2-Trial38c-Pw"`` got 1 hit, ``…-Px`` 0). The index now holds each text masked as
every reader shows it (``asz_core.reading.search_hits.masked_index``), so no answer depends on a credential's value
beyond its masked form (``AKIA…AL38``, a password ``***``): every prefix of each key (the oracle's queries), its whole
value and the exact password get the very same answer from this root and from a decoy root whose credentials differ
in every character their masks do not show, on a real loopback ``asz view`` (list, ``held_back=1`` and
``conversations=1`` answers) and from ``asz search --json``; a whole value, a prefix of one word past the mask and the
exact password get no hit at all, as a random string. Words beside the credentials still hit, and ``asz secrets``
still finds the trial's 5 credentials (their values kept apart from the indexed text).

Real input: the spotter transcript of ../shared/corpus with the trial's credentials planted (its ``scripts/mk.py``):
an ``sk-ant-`` key and an AWS key pair in the prompt (line 4), a ``--password='…'`` and the AWS secret in its Bash
command (line 8), a ``ghp_`` token in a tool result (line 11)."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from urllib.parse import urlencode

import pytest

from cli_helpers import asz_in_process
from reading_helpers import planted_root

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "view_server"))

from view_server_helpers import Served  # noqa: E402

ANT = "sk-ant-api03-" + "Zq9xW3vB7nM2kL5pR8tY1uI4oP6aS0dF3gH7jK9lQ2wE5rT8yU1iO4pA6sD9fG2hJ5kL8zX1cV4bN7mQ0wE3rT6yAA"
AKID = "AKIAQ3EGVNXZ7TRIAL38"
ASEC = "wJalrXUtnFEMI/K7MDENG/bPxRfiCYTRIAL38KEY"
GHT = "ghp_" + "Tr1al38cSecretT0kenAbCdEfGhIjKlMnOpQ"
PW = "Hunter2-Trial38c-Pw!"
SPOTTER = "claude-code/projects/-home-user-spotter/55604662-cf2a-4331-851a-ec234028f8ca.jsonl"
KEYS = (ANT, AKID, ASEC, GHT)
#: Each masked form's visible part is 4 characters: a prefix of 5 or more is the credential's own text.
SHOWN = 4


def _decoy(key: str, keep: int = SHOWN) -> str:
    """``key`` with every character its mask does not show (all but its first and last 4) changed, keeping its kind
    (upper/lower case letter, digit, other), and its form's fixed beginning (``keep`` characters: ``sk-ant-api03-``
    is no secret, and without it the decoy is no key)."""
    def other(c: str) -> str:
        for abc in ("ABCDEFGHIJKLMNOPQRSTUVWXYZ", "abcdefghijklmnopqrstuvwxyz", "0123456789"):
            if c in abc:
                return abc[(abc.index(c) + 7) % len(abc)]
        return c
    return key[:keep] + "".join(map(other, key[keep:-SHOWN])) + key[-SHOWN:]


def _plant_with(ant: str, akid: str, asec: str, ght: str, pw: str):
    def plant(lines: list[dict]) -> None:
        lines[3]["message"]["content"] = (f"mix phx.server doesnt seem to start. Please configure the deploy. "
                                          f"Use ANTHROPIC_API_KEY={ant} and aws key {akid} secret {asec}")
        call = lines[7]["message"]["content"][0]
        assert call["name"] == "Bash"
        call["input"]["command"] = f"mysql -u root --password='{pw}' -e 'select 1'; export AWS_SECRET_ACCESS_KEY={asec}"
        result = lines[10]["message"]["content"][0]
        assert result["type"] == "tool_result"
        result["content"] = f"github.com:\n    oauth_token: {ght}\n    user: dev\n"
    return plant


#: The trial's credentials planted (their decoys: :func:`_decoy`).
_plant = _plant_with(ANT, AKID, ASEC, GHT, PW)


@pytest.fixture(scope="module")
def root(tmp_path_factory, corpus_dir) -> Path:
    return planted_root(corpus_dir, tmp_path_factory.mktemp("search-oracle"), SPOTTER, _plant_with(*KEYS, PW))


@pytest.fixture(scope="module")
def decoy(tmp_path_factory, corpus_dir) -> Path:
    return planted_root(corpus_dir, tmp_path_factory.mktemp("search-decoy"), SPOTTER,
                        _plant_with(_decoy(ANT, len("sk-ant-api03-")), *map(_decoy, KEYS[1:]), _decoy(PW)))


def _prefixes(key: str) -> list[str]:
    """The oracle's queries of one credential: its prefixes longer than its mask shows, as ``word*``, every other
    length from the first past the mask (an answer that tells a prefix from a decoy's tells it at every length past
    the mask, so half the lengths prove it at half the requests), and the whole value."""
    return [key[:k] + "*" for k in sorted({*range(SHOWN + 1, len(key) + 1, 2), len(key)})]


#: Strings of the credentials' shapes that no text holds.
RANDOM = ("AKIAZZ9QQ8XX7WW6VV5U*", "ghp_Qx7*", "sk-ant-api03-Yy8*", '"Hunter2-Trial38c-Px"', "wJalrQQ*")
#: Queries that touch a credential's own text past its mask in one word: no hit, as a random string.
NONE = (AKID, ASEC, GHT, ANT, f'"{PW}"', PW, "Hunter2*", "Hunter2-Trial38c*", "AKIAQ*", "AKIAQ3EG*", "ghp_Tr*",
        "wJalrX*", "sk-ant-api03-Zq*", *(k + "*" for k in KEYS))


def _cli(root: Path, query: str) -> list:
    got = asz_in_process("search", query, "--root", str(root), "--json")
    assert got.returncode == 0, got.stdout + got.stderr
    return json.loads(got.stdout)


def _seen(hits: list) -> list:
    """What a hit list tells a reader, less where the files landed (a decoy root's names differ)."""
    return [(h["kind"], h["step"], h["snippet_text"], h["snippet_marks"]) for h in hits]


def test_the_cli_answers_nothing_about_a_credential(root, decoy):
    assert [q for q in (*RANDOM, *NONE) if _cli(root, q) != []] == []
    asked = [k[:n] + "*" for k in KEYS for n in (5, 6, 8, 12, 16, 24)]
    assert [q for q in asked if _seen(_cli(root, q)) != _seen(_cli(decoy, q))] == []
    near = _cli(root, "deploy configure")
    assert [h["kind"] for h in near] == ["prompt"] and "AKIA…AL38" in near[0]["snippet_text"], near
    assert [h["kind"] for h in _cli(root, "mysql select")] == ["tool_input"]
    assert [h["kind"] for h in _cli(root, "oauth_token")] == ["tool_result"]


def test_secrets_still_finds_every_credential(root):
    """``asz secrets`` reads what the index kept of each credential before masking it: the trial's 5 credentials, in
    6 texts (the AWS secret in the prompt and the command)."""
    got = asz_in_process("secrets", "--root", str(root), "--json")
    assert got.returncode == 1, got.stdout + got.stderr
    found = [f for f in json.loads(got.stdout) if f["field"] == "text"]
    assert sorted((f["secret"], f["kind"]) for f in found) == sorted([
        ("anthropic-api-key", "prompt"), ("aws-access-key-id", "prompt"), ("aws-secret-access-key", "prompt"),
        ("aws-secret-access-key", "tool_input"), ("password", "tool_input"), ("github-token", "tool_result")]), found
    assert len({f["fingerprint"] for f in found}) == 5
    assert not any(k in got.stdout for k in (*KEYS, PW))


@pytest.mark.slow
def test_the_page_answers_nothing_about_a_credential(root, decoy, tmp_path):
    """The oracle itself on real ``asz view`` servers: a prefix of every other length from 5 characters up to the whole
    value of each key (the trial's ``scripts/oracle.py`` asks these one at a time) gets the same answer from the root and from the
    decoy; the whole values and the password get what a random string gets; with ``--no-redact`` too (the page shows
    the owner the conversation whole, the index holds no credential)."""
    served = [Served(["view", "--root", str(root)], tmp_path, timeout=60),
              Served(["view", "--root", str(decoy)], tmp_path, timeout=60),
              Served(["view", "--root", str(root), "--no-redact"], tmp_path, timeout=60)]
    try:
        def answers(s: Served, q: str) -> tuple:
            got = [s.get("/api/search?" + urlencode({"q": q, **extra}))
                   for extra in ({}, {"held_back": "1"}, {"conversations": "1"})]
            assert all(r.status == 200 for r in got), got
            hits, held, convs = (r.json() for r in got)
            return _seen(hits), _seen(held["hits"]), held["held_back"], [(c["texts"], c["relevance"], c["groups"], _seen(c["hits"])) for c in convs], len(convs)

        nothing = answers(served[0], RANDOM[0])
        assert nothing[0] == [] and nothing[4] == 0, nothing
        for s in (served[0], served[2]):
            assert [q for q in (*RANDOM, *NONE) if answers(s, q) != nothing] == []
        asked = [q for k in KEYS for q in _prefixes(k)]
        assert [q for q in asked if answers(served[0], q) != answers(served[1], q)] == []
        near = served[0].get("/api/search?" + urlencode({"q": "oauth_token"})).json()
        assert [h["kind"] for h in near] == ["tool_result"] and "ghp_…nOpQ" in near[0]["snippet_text"], near
        near = served[2].get("/api/search?" + urlencode({"q": "mysql"})).json()
        assert [h["kind"] for h in near] == ["tool_input"] and "--password='***'" in near[0]["snippet_text"], near
    finally:
        for s in served:
            s.stop()
