"""A filter given empty is refused naming it, on the command line (exit 2) and by the server (400), never taken as not
given (trial 42b F7: ``asz search zqthink --project ''`` and ``--kind ''`` answered as if absent, exit 0).

Real input: the four sessions of tests/search_convs_data.py collected and parsed by the real commands
(``word_sessions_root``), the real ``asz`` commands and a real ``asz view`` on loopback. What an empty value is
compared with: the same request without it, which must keep answering (exit 0, 200).
"""

from __future__ import annotations

import pytest
from cli_helpers import asz_in_process

from asz_core.view.row_filters import EMPTY_FILTER

CLI = [("search", ["hypothesis"], ["--project", "--model", "--dialect", "--since", "--until", "--kind", "--tool", "--instance"]),
       ("ls", [], ["--project", "--model", "--dialect", "--since", "--until", "--instance"]),
       ("secrets", [], ["--project", "--model", "--dialect", "--since", "--until"])]


@pytest.mark.parametrize("cmd, args, flags", CLI)
def test_the_commands_refuse_a_filter_given_empty_naming_it(word_sessions_root, cmd, args, flags):
    root = ["--root", str(word_sessions_root)]
    assert asz_in_process(cmd, *args, *root).returncode == 0
    for flag in flags:
        for given in ([flag, ""], [f"{flag}="]):
            p = asz_in_process(cmd, *args, *given, *root)
            assert (p.returncode, p.stdout) == (2, ""), (cmd, given, p.stderr)
            assert p.stderr.strip() == f"asz {cmd}: Invalid value for '{flag}': {EMPTY_FILTER}; see 'asz {cmd} --help'"


def test_the_server_refuses_a_parameter_given_empty_naming_it(word_sessions_root, serve):
    s = serve(word_sessions_root)
    asks = {"/api/search?q=hypothesis": ["kind", "project", "model", "dialect", "since", "until", "instance"],
            "/api/conversations?limit=5": ["project", "model", "dialect", "since", "until", "tz", "instance", "runtime"],
            "/api/usage?exact=0": ["project", "model", "dialect", "since", "until", "tz", "instance"]}
    for path, names in asks.items():
        assert s.get(path).status == 200, path
        for name in names:
            r = s.get(f"{path}&{name}=")
            assert r.status == 400, (path, name)
            assert r.json() == {"error": f"{name}: {EMPTY_FILTER}", "code": "empty_filter"}, (path, name)
