"""OpenAI keys without the ``T3BlbkFJ`` marker and Slack webhook addresses (session 22): found by ``asz secrets``,
masked by ``asz export --redact`` and in titles, and never found in ``sk-`` and words.

The values are fakes of the documented shapes, spelled to be read as fakes: ``sk-proj-``, ``sk-svcacct-`` and
``sk-admin-`` and their random part, the legacy ``sk-`` and 48 letters or digits, and Slack's incoming webhook
address (``https://hooks.slack.com/services/T…/B…/…``, its secret 24 letters and digits). They are planted into a
real transcript of the shared corpus (claude-reliability, 9 lines: its prompt and a tool result)."""

from __future__ import annotations

import hashlib
from pathlib import Path

import pytest

from asz_core.view.secret_forms import find, redacted, shown_title

from cli_helpers import asz_in_process
from reading_helpers import planted_root, secrets_found

PROJ = "sk-proj-Fake0Key1For2Asz3Tests4Only5Not6Real7Abc8Def9Ghi0Jkl1Mno2Pqr3"
SVCACCT = "sk-svcacct-Fake0Service1Account2Key3For4Asz5Tests6Only7Xyz8"
ADMIN = "sk-admin-Fake0Admin1Key2For3Asz4Tests5Only6Uvw7Rst8"
LEGACY = "sk-" + "Fake0Legacy1Key2For3Asz4Tests5Only6Ab7Cd8Ef9Gh0I"  # 48 after sk-
WEBHOOK = "https://hooks.slack.com/services/T0FAKE0001/B0FAKE0002/Fake0Webhook1For2Asz3Abc"
#: The conversation's title: its prompt, the key masked before the title is cut to 100 characters.
TITLE = 'Write a shell script called hello.sh that prints "Hello world" and run it. Use OPENAI_API_KEY=sk-p……'
RELIABILITY = "claude-code/projects/-home-user-claude-reliability/de3b8b19-5bc0-4a2a-934a-1b6806567e25.jsonl"


def test_the_planted_shapes_are_what_they_claim():
    assert len(LEGACY) == 51 and len(WEBHOOK.rpartition("/")[2]) == 24


@pytest.mark.parametrize("text,kinds", [
    (f"OPENAI_API_KEY={PROJ}\n", ["openai-api-key"]),
    (f'"api_key": "{SVCACCT}"', ["openai-api-key"]),
    (f"export OPENAI_ADMIN_KEY={ADMIN}", ["openai-api-key"]),
    (f"openai.api_key = '{LEGACY}'", ["openai-api-key"]),
    (LEGACY + "J", []),  # 49 after sk-: not the legacy form
    (LEGACY[:-1], []),  # 47
    ("x" + LEGACY, []),  # inside a longer word
    ("sk-proj-abc", []),  # too short: a name, not a key
    ("sk-proj-xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx", []),  # a placeholder: no upper-case letter, no digit
    ("sk-proj-your-openai-api-key-goes-here-please", []),
    ("the sk-learn model, sk-this-is-only-words-and-nothing-else-at-all-here, a risk-free task-list", []),
    ("sk-" + "a" * 48, []),  # one case, no digit
    (f"SLACK_WEBHOOK_URL={WEBHOOK}", ["slack-webhook-url"]),
    (f"curl -X POST -d '{{\"text\":\"hi\"}}' {WEBHOOK}\n", ["slack-webhook-url"]),
    ("https://hooks.slack.com/services/T00000000/B00000000/XXXXXXXXXXXXXXXXXXXXXXXX", []),  # Slack's placeholder
    ("https://hooks.slack.com/services/T0FAKE0001/B0FAKE0002/short", []),
    ("xoxb-" + "1234567890-" + "Fake0Bot1Token2", ["slack-token"]),  # found before this session too
])
def test_the_forms_found(text, kinds):
    assert [k for k, _, _ in find(text)] == kinds


def test_a_key_with_the_marker_is_one_finding_not_two():
    """A current project key holds the marker too: one finding, masked once."""
    key = "sk-proj-Fake0Key1For2Asz3Tests4T3BlbkFJOnly5Not6Real7Abc8"
    assert [(k, a, b) for k, a, b in find(f"key={key};")] == [("openai-api-key", 4, 4 + len(key))]
    assert redacted(f"key={key};") == (f"key={key[:4]}…{key[-4:]};", [hashlib.sha256(key.encode()).hexdigest()[:12]])


def test_a_title_holding_one_is_masked():
    assert shown_title(f"use {PROJ} for the bot") == "use sk-p…Pqr3 for the bot"


def _plant(lines: list[dict]) -> None:
    """The claude-reliability transcript with an OpenAI project key in its prompt (line 2) and the other keys, the
    webhook and the decoys in the script's output (line 6)."""
    lines[1]["message"]["content"] = f"{lines[1]['message']['content']} Use OPENAI_API_KEY={PROJ}."
    lines[5]["message"]["content"][0]["content"] = (
        f"Hello world\nOPENAI_API_KEY={LEGACY}\nSERVICE={SVCACCT}\nADMIN={ADMIN}\nSLACK_WEBHOOK_URL={WEBHOOK}\n"
        "pip install sk-learn; see https://hooks.slack.com/services/T00000000/B00000000/XXXXXXXXXXXXXXXXXXXXXXXX")


@pytest.fixture(scope="module")
def planted(tmp_path_factory, corpus_dir) -> Path:
    return planted_root(corpus_dir, tmp_path_factory.mktemp("planted"), RELIABILITY, _plant)


def test_asz_secrets_names_each_planted_key_and_nothing_else(planted):
    found, named = secrets_found(planted, (PROJ, SVCACCT, ADMIN, LEGACY, WEBHOOK))
    assert named == sorted([
        ("openai-api-key", "prompt", PROJ), ("openai-api-key", "tool_result", LEGACY),
        ("openai-api-key", "tool_result", SVCACCT), ("openai-api-key", "tool_result", ADMIN),
        ("slack-webhook-url", "tool_result", WEBHOOK)])
    assert {f["masked"] for f in found} == {"sk-p…Pqr3", "sk-F…Gh0I", "sk-s…Xyz8", "sk-a…Rst8", "http…3Abc"}
    assert {f["title"] for f in found} == {TITLE}  # the prompt titles it, its key masked
    text = asz_in_process("secrets", "--root", str(planted), "--tz", "UTC").stdout
    assert not [v for v in (PROJ, SVCACCT, ADMIN, LEGACY, WEBHOOK) if v in text]


@pytest.mark.parametrize("fmt", ["md", "html", "json"])
def test_an_export_with_redact_holds_none_of_them(planted, fmt):
    plain = asz_in_process("export", "de3b8b19", "--format", fmt, "--no-redact", "--root", str(planted))
    assert plain.returncode == 0, plain.stderr
    assert [v for v in (PROJ, SVCACCT, ADMIN, LEGACY, WEBHOOK) if v in plain.stdout] == [PROJ, SVCACCT, ADMIN, LEGACY, WEBHOOK]
    p = asz_in_process("export", "de3b8b19", "--format", fmt, "--redact", "--root", str(planted))
    assert p.returncode == 0, p.stderr
    assert not [v for v in (PROJ, SVCACCT, ADMIN, LEGACY, WEBHOOK) if v in p.stdout]
    assert "sk-learn" in p.stdout and "XXXXXXXXXXXXXXXXXXXXXXXX" in p.stdout  # the decoys are left as they are
