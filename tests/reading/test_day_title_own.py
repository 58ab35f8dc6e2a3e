"""A day's ``--in-range-only`` head is titled by that day's own first prompt (render 47; trial 49a F2, MED).

Before, the 12-04 file of a conversation begun on 12-03 opened ``title: PLANTP1 Set up the deploy with AWS key
AKIA…4KPB …``: the 12-03 prompt, masked fragments of credentials the 12-04 body does not hold, which the head's
``credentials`` line did not count. Real input: the corpus transcript claude-reliability (one prompt, 2026-01-21), its
first prompt given a password, and a second day's prompt and reply and a third day's reply appended (records shaped as
its own, new ids); collected by the real ``asz collect --once``; each day exported as the trial did (``--format text
--in-range-only``) and checked by ``asz verify --export`` (docs/reading.md, the audit form's header)."""

from __future__ import annotations

import copy

import pytest

from asz_core.reading.audit_window import NO_PROMPT_IN_WINDOW, window_title
from asz_core.reading.export_render import drawing

from cli_helpers import asz_in_process
from reading_helpers import RELIABILITY, planted_root

FIRST_TAIL = "then run mysql -u root -pTr0ub4dor&3xK9 shop"
SECOND = "DAYTWO rotate the database password and check the backups"


def _plant(lines: list[dict]) -> None:
    lines[1]["message"]["content"] = f"{lines[1]['message']['content']} {FIRST_TAIL}"
    reply = lines[8]  # the last assistant text reply, its shape copied
    prompt = copy.deepcopy(lines[1])
    prompt.update(uuid="7e57da70-0000-4000-8000-000000000001", parentUuid=reply["uuid"],
                  timestamp="2026-01-22T09:00:00.000Z")
    prompt["message"]["content"] = SECOND
    second = copy.deepcopy(reply)
    second.update(uuid="7e57da70-0000-4000-8000-000000000002", parentUuid=prompt["uuid"],
                  timestamp="2026-01-22T09:00:05.000Z", requestId="req_7e57da70day2")
    second["message"].update(id="msg_7e57da70day2", content=[{"type": "text", "text": "Rotated; backups checked."}])
    third = copy.deepcopy(reply)
    third.update(uuid="7e57da70-0000-4000-8000-000000000003", parentUuid=second["uuid"],
                 timestamp="2026-01-23T10:00:00.000Z", requestId="req_7e57da70day3")
    third["message"].update(id="msg_7e57da70day3", content=[{"type": "text", "text": "A note on the third day."}])
    lines += [prompt, second, third]


@pytest.fixture(scope="module")
def days(tmp_path_factory, corpus_dir) -> dict:
    root = planted_root(corpus_dir, tmp_path_factory.mktemp("day-title"), RELIABILITY, _plant)
    out = {}
    for day in ("2026-01-21", "2026-01-22", "2026-01-23"):
        copy_path = root.parent / f"{day}.txt"
        p = asz_in_process("export", "--root", str(root), "--since", day, "--until", day, "--tz", "UTC", "--format",
                           "text", "--in-range-only", "--out", str(copy_path))
        assert p.returncode == 0, p.stderr
        checked = asz_in_process("verify", "--export", str(copy_path), "--root", str(root))
        assert checked.returncode == 0, checked.stdout + checked.stderr
        text = copy_path.read_text()
        out[day] = (text.split("\n\n", 1)[0], text, p.stderr)
    return out


def test_stderr_names_what_it_counts(days, corpus_dir):
    """The size line counts the written lines and names the tool calls among them, not 'turns' (trial 49a F5:
    'prose 1,949 turns' of which 1,211 were tool_call lines); the tool calls counted from the source transcript."""
    import json

    source = [json.loads(x) for x in (corpus_dir / RELIABILITY).read_text().splitlines()]
    calls = sum(part.get("type") == "tool_use" for o in source if o.get("type") == "assistant"
                for part in o["message"]["content"])
    _, text, stderr = days["2026-01-21"]
    written = sum(x.startswith("[2026-01-21T") for x in text.splitlines())
    (said,) = [x for x in stderr.splitlines() if x.startswith("prose ")]
    assert said.startswith(f"prose {written} lines ({calls} tool calls, {written - calls} other), "), said


def _said(head: str, key: str) -> str:
    (line,) = [x for x in head.splitlines() if x.startswith(f"{key}: ")]
    return line[len(key) + 2:]


def test_each_day_is_titled_by_its_own_prompt(days):
    first = days["2026-01-21"][0]
    assert _said(first, "title").startswith("Write a shell script called hello.sh")
    assert "3xK9" not in days["2026-01-21"][1]  # masked whole (forms 9)
    second = days["2026-01-22"][0]
    assert _said(second, "title") == SECOND
    assert "hello.sh" not in second and "root -p" not in second  # nothing of the first day in the head
    third = days["2026-01-23"][0]
    assert _said(third, "title") == NO_PROMPT_IN_WINDOW


def test_a_copy_of_render_46_is_titled_as_it_was():
    """The rule before render 47, kept for a copy made with it (its manifest's render): the prompts up to the window's
    end, another day's first."""
    lines = [{"kind": "prompt", "text": "first day's prompt", "ts": "2026-01-21T06:00:00Z", "in_range": False,
              "stream": "main"},
             {"kind": "prompt", "text": "second day's prompt", "ts": "2026-01-22T09:00:00Z", "in_range": True,
              "stream": "main"}]
    window = (1769040000000, 1769126399999)  # 2026-01-22 in UTC, unix ms
    assert window_title(lines, "first day's prompt", window, "claude-code") == "second day's prompt"
    with drawing(46):
        assert window_title(lines, "first day's prompt", window, "claude-code") == "first day's prompt"
    assert window_title(lines[:1], "first day's prompt", window, "claude-code") == NO_PROMPT_IN_WINDOW


def test_the_head_is_short(days):
    """Render 48 (trial 49a F4): the forms said by their number and where they are listed, once, not 40 names and a
    sentence in every file; status_read in one clause. The number of forms counted from secret_kinds' table."""
    from asz_core.reading.export_forms import FORMS
    from asz_core.reading.prose_text import STATUS_READ_SHORT
    from asz_core.view.secret_kinds import KINDS

    for day, (head, _, _) in days.items():
        said = _said(head, "credentials")
        assert said.endswith(f', forms {FORMS} ({len(KINDS)}, docs/reading.md "Credentials"; no other form is masked '
                             "or counted)"), said
        assert "aws-access-key-id" not in head and "not_covered" not in head
        assert _said(head, "status_read") == STATUS_READ_SHORT
        assert len(said) < 200 and len(STATUS_READ_SHORT) < 150
