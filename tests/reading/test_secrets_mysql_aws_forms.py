"""Credentials session 45 left whole (forms 8, session 46): mysql's ``-p`` value as an argument list's next item
(``["mysql", "-p", "VALUE", "db"]``: a subprocess's or an MCP call's list, the flag and its value two items), and
``aws configure set aws_secret_access_key VALUE`` and ``aws configure set aws_session_token VALUE`` (the value after a
space, not ``=``). Each is found by ``asz secrets`` and masked in every reader (md, html, text and ``json --redact``
exports, ``asz conversation --redact``, ``asz search``).

The list's value is judged as a value after ``-p`` and a space (docs/reading.md, ``mysql-password``): taken when it
holds a sign or mixed case and a digit, or when the list names the database apart (an item after it that is no option
or option's value, or ``-D``); the session token only where ``aws configure set`` gives it. Look-alikes stay whole:
``["mysql", "-p", "shop2"]``, ``["mysql", "-p", "-h", "db", "orders"]``, ``["mysqldump", "-p", "n0tapw4rd",
"orders"]``, other tools' ``["ssh", "-p", "2222"]``, ``aws configure get …``, a variable, a placeholder, a hex
digest, the name in prose, and ``--aws-secret-access-key VALUE`` stays the flag's ``password``.

Planted into a real transcript of the shared corpus (claude-reliability: its first prompt, its Bash call's command,
its Write call made an MCP call whose input is an argument list, and a tool result)."""

from __future__ import annotations

import json

import pytest

from asz_core.view.secret_forms import find, redacted

from cli_helpers import asz_in_process
from reading_helpers import RELIABILITY, export_masks, plant_four_places, planted_root, secrets_found

#: A session token as STS issues one (base64, a run of ``/``, ``=`` padding), not a real one.
SESSION = ("IQoJb3JpZ2luX2VjEJr//////////wEaCXVzLWVhc3QtMSJHMEUCIQDq7Lk2vX9tRzP4mW8nH3cY5bQ1fJ6sK0gT2uV7xA9pLwIgN4hB8c"
           "Z1eR5tY3uI7oP2aS6dF9gH0jK4lM8nB1vC5xQq")
KEY = "Wj8Lr2Xt4Nf6Mq9Kd3Pb7Vz0Hx8Lp2Qz7Wx4Rn9T"
#: Each shape (text, form, value, as every reader shows it masked).
SHAPES = [
    ('subprocess.run(["mysql", "-u", "app", "-p", "h4ppyd4ys", "--batch", "orders"])', "mysql-password", "h4ppyd4ys",
     '"-p", "***", "--batch"'),
    ("['mariadb', '-p', 'Zq8!mWp3', '-h', 'db']", "mysql-password", "Zq8!mWp3", "'-p', '***', '-h'"),
    ('["mysql", "-D", "orders", "-p", "s3cr3tpw9"]', "mysql-password", "s3cr3tpw9", '"-p", "***"'),
    (f"aws configure set aws_secret_access_key {KEY}", "aws-secret-access-key", KEY, "aws_secret_access_key Wj8L…Rn9T"),
    (f"aws configure set aws_session_token {SESSION} --profile dev", "token", SESSION,
     "aws_session_token *** --profile dev"),
]
#: The Bash call's command: aws configure set across a line continuation (JSON-escaped in the tool input's text).
COMMAND = f"aws configure set --profile ci \\\n  aws_session_token {SESSION[:60]}x9"
COMMAND_VALUE = f"{SESSION[:60]}x9"
#: The MCP call's input: an argument list, structured.
ARGV = ["mysql", "--host", "db.internal", "-u", "report", "-p", "r3p0rtpw7", "sales"]
ARGV_VALUE = "r3p0rtpw7"
DECOYS = ('["mysql", "-p", "shop2"]', '["mysql", "-p", "-h", "db", "orders"]', '["mysql", "-p", "n0tapw4rd"]',
          '["mysqldump", "-p", "n0tapw4rd", "orders"]', '["mysql", "-p", "n0tapw4rd", "-e", "select 1"]',
          '["mysql", "-p", "$DB_PASS", "orders"]', '["ssh", "-p", "2222", "host"]', '["mysql", "-P", "3306", "shop"]',
          "aws configure get aws_session_token", "aws configure set aws_session_token $AWS_SESSION_TOKEN",
          "aws configure set aws_session_token <your-session-token>",
          "aws configure set aws_secret_access_key 0123456789abcdef0123456789abcdef01234567",
          "aws configure set default.region us-west-2", f"the aws_session_token {SESSION[:40]} is read from the file")
VALUES = tuple(v for _, _, v, _ in SHAPES) + (COMMAND_VALUE, ARGV_VALUE)


#: The text export's one-line Bash summary of :data:`COMMAND` (its continuation folded: a backslash before a blank).
FOLDED = COMMAND.replace("\\\n  ", "\\ ")


@pytest.mark.parametrize("text,form,value", [*((t, f, v) for t, f, v, _ in SHAPES), (COMMAND, "token", COMMAND_VALUE),
                                             (FOLDED, "token", COMMAND_VALUE),
                                             (json.dumps(ARGV), "mysql-password", ARGV_VALUE),
                                             *((d, None, None) for d in DECOYS)])
def test_each_shape_is_found_as_its_form_and_no_decoy(text, form, value):
    assert [(k, text[a:b]) for k, a, b in find(text)] == ([(form, value)] if form else [])
    escaped = json.dumps(text)  # as a tool input's JSON text holds it (the search index, the exports' drawn input)
    assert [(k, escaped[a:b]) for k, a, b in find(escaped)] == ([(form, value)] if form else [])


def test_a_list_drawn_indented_is_read_item_by_item_as_the_forms_part_it():
    """The flag's value and the database after it in a list drawn one item a line (as written, and JSON-escaped):
    the forms' gap between items and the items mysql's check reads (secret_guards.ARGV, one rule: fix47d) part it alike;
    with no database after the value it stays whole, as ``["mysql", "-p", "n0tapw4rd"]`` does."""
    for words, found in ((["mysql", "-p", "n0tapw4rd", "orders"], [("mysql-password", "n0tapw4rd")]),
                         (["mysql", "-p", "n0tapw4rd"], [])):
        for text in (json.dumps(words, indent=2), json.dumps(json.dumps(words, indent=2))):
            assert [(k, text[a:b]) for k, a, b in find(text)] == found, text


def test_the_flag_s_value_stays_a_password():
    text = f"s3cmd --aws-secret-access-key {KEY}"
    assert [(k, text[a:b]) for k, a, b in find(text)] == [("password", KEY)]


def test_masked_as_the_docs_say():
    for text, _, _, shown in SHAPES:
        assert shown in redacted(text)[0], text
    assert redacted(COMMAND)[0] == COMMAND.replace(COMMAND_VALUE, "***")
    drawn = json.dumps({"argv": ARGV}, indent=2)  # an MCP call's input drawn indented
    assert redacted(drawn)[0] == drawn.replace(ARGV_VALUE, "***")


@pytest.fixture(scope="module")
def planted(tmp_path_factory, corpus_dir):
    plant = plant_four_places([t for t, _, _, _ in SHAPES[:3]], "mcp__db__run", ARGV, COMMAND,
                              [t for t, _, _, _ in SHAPES[3:]] + list(DECOYS))
    return planted_root(corpus_dir, tmp_path_factory.mktemp("mysql-aws-forms"), RELIABILITY, plant)


def test_asz_secrets_names_each(planted):
    expected = sorted([(f, "prompt", v) for _, f, v, _ in SHAPES[:3]] + [(f, "tool_result", v) for _, f, v, _ in SHAPES[3:]]
                      + [("token", "tool_input", COMMAND_VALUE), ("mysql-password", "tool_input", ARGV_VALUE)])
    assert secrets_found(planted, VALUES)[1] == expected


@pytest.mark.parametrize("args", [["--format", "md"], ["--format", "html"], ["--format", "text"],
                                  ["--format", "json", "--redact"]])
def test_every_export_format_writes_none_whole(planted, args):
    shapes = SHAPES[:3] if "text" in args else SHAPES  # (the text form draws no tool result)
    kept = () if "text" in args else DECOYS[:3]
    export_masks(planted, args, VALUES, [s for _, _, _, s in shapes], kept)


def test_conversation_and_search_mask_each(planted):
    talk = asz_in_process("conversation", "de3b8b19", "--json", "--redact", "--root", str(planted))
    assert talk.returncode == 0, talk.stderr
    assert [v for v in VALUES if v in talk.stdout] == []
    got = asz_in_process("search", "Also", "--root", str(planted), "--json")
    assert got.returncode == 0 and [v for v in VALUES if v in got.stdout] == []
