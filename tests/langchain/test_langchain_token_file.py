"""``asz ingest langsmith`` takes its token off the command line (trial 27c F8): ``--token-file PATH``, else
``$ASZ_LANGSMITH_TOKEN``; ``--token VALUE`` still works and is warned about. A real receiver subprocess on a free
loopback port answers a recorded LangSmith request 401 without the token and 202 with it."""

from __future__ import annotations

import json

import forked
from cli_helpers import write_secret
from langchain_helpers import ASZ

TOKEN = "fileTOKEN-0123456789abcdef"


def _stderr(r) -> str:
    r.proc.terminate()
    _, err = r.proc.communicate(timeout=20)
    return err.decode()


def _needs(r, captures, token: str) -> None:
    status, answer = r.replay(captures[0])  # the capture carries x-api-key: asz-harness
    assert status == 401 and "x-api-key" in answer["error"]
    meta = json.loads((captures[0] / "meta.json").read_text())
    status, _ = r.send("POST", meta["path"], (captures[0] / "body.bin").read_bytes(), {**meta["headers"], "x-api-key": token})
    assert status == 202


def test_the_token_from_a_file(tmp_path, receiver_factory, captures):
    write_secret(tmp_path / "ls.tok", TOKEN + "\n")
    r = receiver_factory(tmp_path / "root", "--token-file", str(tmp_path / "ls.tok"))
    _needs(r, captures, TOKEN)
    assert TOKEN not in " ".join(r.proc.args)  # what ps shows
    assert "warning" not in _stderr(r)


def test_the_token_from_the_environment(tmp_path, receiver_factory, captures, monkeypatch):
    monkeypatch.setenv("ASZ_LANGSMITH_TOKEN", TOKEN)
    r = receiver_factory(tmp_path / "root")
    _needs(r, captures, TOKEN)


def test_the_token_on_the_command_line_is_warned_about(tmp_path, receiver_factory, captures):
    r = receiver_factory(tmp_path / "root", "--token", TOKEN)
    _needs(r, captures, TOKEN)
    err = _stderr(r)
    assert ("asz ingest langsmith: warning: --token puts the token on the command line, where every user of this "
            "machine reads it (ps); use --token-file PATH or $ASZ_LANGSMITH_TOKEN") in err
    assert TOKEN not in err


def test_a_token_file_that_does_not_read_is_exit_2(tmp_path):
    write_secret(tmp_path / "bad.tok", "two words\n")
    for extra in (["--token-file", str(tmp_path / "bad.tok")], ["--token-file", str(tmp_path / "none.tok")],
                  ["--token-file", str(tmp_path / "bad.tok"), "--token", "x"]):
        p = forked.run([*ASZ, "ingest", "langsmith", "--root", str(tmp_path / "root"), "--listen", "127.0.0.1:0", *extra],
                           cwd=tmp_path, capture_output=True, text=True, timeout=60)
        assert p.returncode == 2, p.stderr
        assert p.stderr.startswith("asz ingest langsmith: ") and "two" not in p.stderr.replace("--token-file", "")
