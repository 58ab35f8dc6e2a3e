"""Trial 30b F5: a conversation whose first prompt is a command typed in bash mode (``!`` in Claude Code's prompt box)
is titled ``! COMMAND`` (the adapter's ``prompt_title``, as Claude Code shows it), and in a list that read as asz's own
``!`` mark (``asz usage session`` marks a row held back with `` !`` after its key: ``326189cf ! uv run ty check``).
Every text list now prints such a title in backticks, as the exports draw a bash-mode command: ``asz ls``, ``asz usage
session``, ``asz search``, an export's index (the html one as ``<code>``); ``--json`` keeps the title as it is.

The truth comes from the corpus transcript: Claude Code records bash mode as ``<bash-input>COMMAND</bash-input>`` in a
user line (326189cf, Claude Code 1.0.51), read here without asz."""

from __future__ import annotations

import json
import re
from pathlib import Path

from cli_helpers import asz_in_process

SESSION = "326189cf-5676-4237-8cde-1ce80aae4a9f"


def _typed_command(source: Path) -> str:
    """The command of the first prompt of SESSION's transcript, which is typed in bash mode."""
    f = next(source.rglob(f"{SESSION}.jsonl"))
    for line in f.read_text(encoding="utf-8").splitlines():
        r = json.loads(line)
        m = r.get("message") or {}
        if r.get("type") == "user" and not r.get("isMeta") and isinstance(m.get("content"), str):
            got = re.fullmatch(r"<bash-input>(.*)</bash-input>", m["content"], re.S)
            assert got, m["content"][:80]  # the first typed prompt is a bash-mode command
            return got.group(1)
    raise AssertionError("no typed prompt")


def _run(*args: str) -> str:
    p = asz_in_process(*args)
    assert p.returncode == 0, p.stdout + p.stderr
    return p.stdout


def test_a_bash_mode_title_is_quoted_in_every_text_list(corpus_source, corpus_root, tmp_path):
    command = _typed_command(corpus_source)
    assert command == "uv run ty check"
    title, quoted = f"! {command}", f"`! {command}`"
    rows = {r["id"]: r for r in json.loads(_run("ls", "--json", "--root", str(corpus_root)))}
    assert rows[SESSION]["title"] == title  # the key keeps the title as it is
    ls = [ln for ln in _run("ls", "--root", str(corpus_root)).splitlines() if ln.startswith(SESSION[:8])]
    assert len(ls) == 1 and ls[0].split("  ", 1)[1].lstrip().startswith(quoted), ls
    # no title cell of the list begins with asz's mark
    for ln in _run("ls", "--root", str(corpus_root)).splitlines()[1:len(rows) + 1]:
        assert not ln[10:].startswith("!"), ln
    usage = [ln for ln in _run("usage", "session", "--root", str(corpus_root)).splitlines() if ln.startswith(SESSION[:8])]
    assert len(usage) == 1 and usage[0].startswith(f"{SESSION[:8]} {quoted} "), usage
    hits = [ln for ln in _run("search", "ty check", "--root", str(corpus_root)).splitlines() if ln.startswith(SESSION[:8])]
    assert hits and all(ln.rstrip().endswith(quoted) for ln in hits), hits
    out = tmp_path / "md"
    asz_in_process("export", "--project", "claude-code-log", "--format", "md", "--out", f"{out}/", "--root", str(corpus_root))
    index = (out / "index.md").read_text(encoding="utf-8")
    assert f"| {quoted} |" in index and f"| {title} |" not in index
    out = tmp_path / "html"
    asz_in_process("export", "--project", "claude-code-log", "--format", "html", "--out", f"{out}/", "--root", str(corpus_root))
    assert re.search(rf"<code title=\"[^\"]*bash mode[^\"]*\"><bdi>{re.escape(title)}</bdi></code>", (out / "index.html").read_text(encoding="utf-8"))


def test_a_title_that_begins_otherwise_is_printed_as_it_is(corpus_root):
    rows = json.loads(_run("ls", "--json", "--root", str(corpus_root)))
    listed = _run("ls", "--root", str(corpus_root))
    others = [r for r in rows if not r["title"].startswith("!")]
    assert len(others) == len(rows) - 1
    assert "`" not in "".join(ln[10:44] for ln in listed.splitlines()[1:len(rows) + 1] if not ln.startswith(SESSION[:8]))
