"""A shell command pasted into ``asz search`` finds its call, or says why not (trial 30a F4: ``-rf``, ``--noinput`` and
``-c`` were read as exclusions, so the one text holding the command was left out: ``0 hit(s)``, exit 0, nothing said).

- a thing starting with ``--`` is searched for: ``migrate --noinput 2>&1 | tee /tmp/migrate.log`` finds the call;
- a short flag is a plain ``-word`` and still leaves out, but a query whose things left out took every text its other
  words match says so on stderr, in ``--json --held-back`` and in ``/api/search`` (``note``, ``X-Asz-Note``);
- a phrase holding ``\\"`` (a command's escaped quotes) is one phrase.

Real input: trial 30a's incident sessions (tests/reading/incident_sessions.py) collected by the real ``asz collect
--once``; the expected counts are the tool_use inputs of the source lines holding each command (S2 repeats S1's).
"""

from __future__ import annotations

import json
from urllib.parse import quote

import pytest

from incident_sessions import PSQL, RM, S1, S2, tool_inputs, write_incident
from reading_helpers import asz


@pytest.fixture(scope="module")
def incident(tmp_path_factory):
    base = tmp_path_factory.mktemp("pasted")
    lines = write_incident(base / "projects")
    root = base / "root"
    asz("collect", "--once", "--source", str(base / "projects"), "--root", str(root))
    calls = [b["input"]["command"] for sid in (S1, S2) for b in tool_inputs(lines[sid]) if "command" in b["input"]]
    return root, calls


def _search(root, query: str, *more: str):
    p = asz("search", "--root", str(root), "--kind", "tool_input", "--json", *more, "--", query, check=False)
    return p.returncode, json.loads(p.stdout), p.stderr


def test_a_double_dash_flag_is_searched_for(incident):
    root, calls = incident
    rc, hits, err = _search(root, "migrate --noinput 2>&1 | tee /tmp/migrate.log")
    assert rc == 0, err
    assert len(hits) == calls.count(PSQL) == 2 and {h["conversation"] for h in hits} == {S1, S2}
    assert "left out by" not in err


def test_a_flag_that_left_out_every_text_is_said(incident):
    root, calls = incident
    rc, hits, err = _search(root, RM)
    assert rc == 0 and hits == []
    n = calls.count(RM)
    assert n == 1
    assert f"asz search: note: {n} text(s) matched the other words and were left out by -rf ({n}):" in err, err
    rc, hits, err = _search(root, "psql \"$DATABASE_URL\" -c 'ALTER TABLE users'")
    assert rc == 0 and hits == []
    assert f"{calls.count(PSQL)} text(s) matched the other words and were left out by -c ({calls.count(PSQL)}):" in err, err
    said = f"{n} text(s) matched the other words and were left out by -rf ({n}):"
    by = ("search", "--root", str(root), "--kind", "tool_input", "--conversations")  # said too (trial 46d F2: silent)
    table = asz(*by, "--", RM, check=False)
    assert table.returncode == 0 and table.stdout.startswith("0 conversation(s)") and f"\n! {said}" in table.stdout, table.stdout
    js = asz(*by, "--json", "--", RM, check=False)
    assert js.returncode == 0 and json.loads(js.stdout) == [] and f"asz search: note: {said}" in js.stderr, js.stderr
    got = json.loads(asz("search", "--root", str(root), "--json", "--held-back", "--", RM).stdout)
    assert got["hits"] == [] and got["note"].startswith("1 text(s) matched the other words and were left out by -rf (1)")
    # quoted whole, the command is found; a word left out that no matching text holds says nothing
    rc, hits, err = _search(root, '"rm -rf /srv/staging/app/My Cache"')
    assert rc == 0 and [h["conversation"] for h in hits] == [S2]
    rc, hits, err = _search(root, "psql -nosuchword")
    assert rc == 0 and len(hits) == 2 and "left out by" not in err


def test_a_phrase_holding_escaped_quotes(incident):
    root, calls = incident
    rc, hits, err = _search(root, '"psql \\"$DATABASE_URL\\" -c"')
    assert rc == 0, err
    assert len(hits) == calls.count(PSQL) and {h["conversation"] for h in hits} == {S1, S2}


def test_the_api_says_it_too(incident, tmp_path):
    from view_server_helpers import Served

    root, _ = incident
    served = Served(["view", "--root", str(root)], tmp_path)
    try:
        r = served.get("/api/search?q=" + quote(RM))
        assert r.status == 200 and json.loads(r.body) == []
        assert r.headers.get("x-asz-note", "").startswith("1 text(s) matched the other words and were left out by -rf (1)")
        r = served.get("/api/search?held_back=1&q=" + quote(RM))
        assert json.loads(r.body)["note"].startswith("1 text(s) matched the other words and were left out by -rf (1)")
        r = served.get("/api/search?conversations=1&held_back=1&q=" + quote(RM))  # the same keys by conversation (46d F2)
        assert json.loads(r.body)["note"].startswith("1 text(s) matched the other words and were left out by -rf (1)")
        r = served.get("/api/search?q=" + quote("migrate --noinput"))
        assert len(json.loads(r.body)) == 2
    finally:
        served.stop()
