"""A hit of ``asz search`` read in its talk from the terminal (trial 42b F6): each hit a step cites prints the command
that opens it, ``asz conversation ID --step STEP --root R``, which prints the talk holding that step as the md export
draws a talk, the step's head line beginning with ``▶``.

Real input: the corpus's fe869ecb (a GitHub Action added, then run on every push, then /clear: three talks a person
started) collected
by the real ``asz collect``. What the talk must hold is read from the source transcript: the prompt a person typed
before the tool call the hit names, never the one of the other talk.
"""

from __future__ import annotations

import json
import shlex

from cli_helpers import asz_in_process as asz

SOURCE = "claude-code/projects/-Users-alex-workspace-claude-code-log-sample/fe869ecb-c176-478f-9734-7e4b8ef12cff.jsonl"


def _talks_from_source(path) -> list[tuple[str, list[tuple[str, str]]]]:
    """Each prompt a person typed (a user line whose content is a string, a command typed included, not its output),
    in order, with the tool calls the agent made after it: ``[(prompt, [(tool_use id, input JSON)…])…]``."""
    out: list[tuple[str, list[tuple[str, str]]]] = []
    for line in path.read_text().splitlines():
        d = json.loads(line)
        content = (d.get("message") or {}).get("content")
        if d.get("type") == "user" and isinstance(content, str) and not d.get("isMeta") \
                and not content.startswith("<local-command-stdout>"):
            out.append((content, []))
        elif d.get("type") == "assistant" and out:
            out[-1][1].extend((b["id"], json.dumps(b["input"])) for b in content if b.get("type") == "tool_use")
    return out


def test_each_hit_opens_in_the_talk_that_holds_it(corpus_dir, corpus_root):
    talks = _talks_from_source(corpus_dir / SOURCE)
    assert len(talks) == 3 and all(calls for _, calls in talks[:2]) and talks[2][0].startswith("<command-name>clear")
    for word, k in (("mkdir", 0), ("isinstance", 1)):  # a word of one talk's tool inputs alone, in the source
        ids = {i for t, (_, calls) in enumerate(talks) for i, given in calls if word in given.lower() and t == k}
        assert ids and not any(word in given.lower() for t, (_, calls) in enumerate(talks) if t != k for _, given in calls)
        found = asz("search", word, "--kind", "tool_input", "--project", "claude-code-log", "--root", str(corpus_root))
        assert found.returncode == 0, found.stderr
        lines = found.stdout.splitlines()
        opens = [ln[len("  open: "):] for ln in lines if ln.startswith("  open: ")]
        steps = [lines[j - 2].split()[0] for j, ln in enumerate(lines) if ln.startswith("  open: ")]  # a hit's step line
        assert sorted(s.removeprefix("tool/") for s in steps) == sorted(ids)  # every call of the source, each once
        assert opens == [f"asz conversation fe869ecb --step {s} --root {corpus_root}" for s in steps]
        shown = asz(*shlex.split(opens[0])[1:])
        assert shown.returncode == 0, shown.stderr
        marked = [ln for ln in shown.stdout.splitlines() if ln.startswith("▶ ")]
        assert len(marked) == 1 and marked[0].startswith("▶ **Tool ") and marked[0].endswith(f"`{steps[0]}`")
        assert f"- step `{steps[0]}`, in talk {k + 1} of 3: its head line begins with ▶" in shown.stdout
        body = shown.stdout[shown.stdout.index("\n## Talk "):]  # under the head, which names the conversation's title
        assert talks[k][0].strip().splitlines()[0] in body  # the talk's own prompt, as typed
        assert talks[1 - k][0].strip().splitlines()[0] not in body  # and not the other talk's
        assert all(f"`tool/{i}`" in body for i, _ in talks[k][1])  # every call of that talk, none of the other
        assert not any(f"`tool/{i}`" in body for i, _ in talks[1 - k][1])
    gone = asz("conversation", "fe869ecb", "--step", "tool/toolu_nope", "--root", str(corpus_root))
    assert (gone.returncode, gone.stdout) == (1, "") and "no step 'tool/toolu_nope' in conversation fe869ecb-" in gone.stderr
    both = asz("conversation", "fe869ecb", "--step", steps[0], "--json", "--root", str(corpus_root))
    assert (both.returncode, both.stdout) == (2, "")
