"""``/api/usage`` says, as ``asz usage`` does, when a summed conversation holds records whose time does not read (trial
30a F8; fix32c and fix33c left it out): its ``untimed`` key lists each such conversation with the very note the CLI
prints on stderr (``asz usage: note: NAME: NOTE``), and the calls are in the totals all the same.

Real input: the corpus's smallest Claude Code session (de3b8b19) with a typed prompt's timestamp made "yesterday" and
the next reply's a number, collected by the real ``asz collect --once``, served by a real ``asz view``; the tokens are
counted here from the source lines (one call per message id, its usage that line's). The corpus root as it is holds
no such record: its ``untimed`` is empty."""

from __future__ import annotations

import json

from cli_helpers import asz_in_process
from view_server_helpers import whole_usage

SESSION = "de3b8b19-5bc0-4a2a-934a-1b6806567e25"


def test_api_usage_names_the_untimed_records_as_asz_usage_does(corpus_dir, tmp_path, serve):
    src = next((corpus_dir / "claude-code" / "projects").rglob(f"{SESSION}.jsonl"))
    projects = tmp_path / "projects" / src.parent.name
    projects.mkdir(parents=True)
    objs = [json.loads(x) for x in src.read_text(encoding="utf-8").splitlines()]
    user = next(i for i, o in enumerate(objs) if o.get("type") == "user" and isinstance(o.get("message", {}).get("content"), str))
    reply = next(i for i, o in enumerate(objs) if o.get("type") == "assistant" and i > user)
    objs[user]["timestamp"], objs[reply]["timestamp"] = "yesterday", 1767261700000
    (projects / src.name).write_text("".join(json.dumps(o) + "\n" for o in objs), encoding="utf-8")
    root = tmp_path / "root"
    assert asz_in_process("collect", "--once", "--source", str(tmp_path / "projects"), "--root", str(root)).returncode == 0
    cli = asz_in_process("usage", "--json", "--root", str(root))
    assert cli.returncode == 0, cli.stderr
    said = [ln for ln in cli.stderr.splitlines() if "time does not read" in ln]
    assert len(said) == 1 and said[0].startswith("asz usage: note: "), cli.stderr
    name, note = said[0][len("asz usage: note: "):].split(": ", 1)

    u = whole_usage(serve(root))
    assert u["untimed"] == [{"conversation": SESSION, "name": name, "note": note}]
    assert "asz usage counts their calls in every total" in note and f"line {user + 2}: 'yesterday'" in note
    calls = {o["message"]["id"]: o["message"]["usage"] for o in objs
             if o.get("type") == "assistant" and isinstance((o.get("message") or {}).get("usage"), dict)}
    assert u["total"]["calls"] == len(calls)
    assert u["total"]["out"] == sum(c.get("output_tokens", 0) for c in calls.values())


def test_a_root_without_such_records_says_none(corpus_root, serve):
    assert whole_usage(serve(corpus_root))["untimed"] == []
