"""A password given to its name (``the db password is Tr0ub4dor&3-horse-battery``, ``PGPASSWORD=…``) is a credential
form, ``password`` (trial 27b F9: the phrase went whole into the ``--audit`` text while its header said ``"masked":
true``), masked as ``***``; and the audit header says what its masking covers (the declared forms), so it never
reads as "clean".

The phrase is planted into a real transcript of the shared corpus (claude-reliability: its prompt and a tool
result), beside code and text that name a password and hold none. Over the whole shared corpus the form finds
nothing: every JSON string of every file (and every file's raw text) is read and no ``password`` finding is made
(the corpus holds 80 mentions of password/passwd/pwd/secret, none with a value)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from asz_core.view.secret_forms import KINDS, find, redacted

from cli_helpers import asz_in_process
from reading_helpers import forms_over_corpus, plant_in_prompt_and_result, planted_root, secrets_found

PHRASE = "the db password is Tr0ub4dor&3-horse-battery"
PW = "Tr0ub4dor&3-horse-battery"
ENV = "PGPASSWORD=s3cr3t!x9"
ENV_PW = "s3cr3t!x9"
#: Texts naming a password that hold none (code, types, variables, placeholders, prose): no finding.
DECOYS = ("password = self.password", "password: str", "DB_PASSWORD=${DB_PASSWORD}", "secret: ${{ secrets.GH }}",
          "password = base64.b16encode(raw)", "pwd = os.getcwd()", "the password is correct horse",
          "password=getpass.getpass()", '"password": "********"', "passwd: <your password>", "my secret = 42",
          "password_hash = hash(pw)", "run pwd then ls")
RELIABILITY = "claude-code/projects/-home-user-claude-reliability/de3b8b19-5bc0-4a2a-934a-1b6806567e25.jsonl"


@pytest.mark.parametrize("text,values", [
    (PHRASE, [PW]),
    (ENV, [ENV_PW]),
    ('{"password": "hunter22"}', ["hunter22"]),
    ("MYSQL_PWD=abc123xyz rest", ["abc123xyz"]),
    ("Secret => 'Zq8kLm2vT9'", ["Zq8kLm2vT9"]),
    ("passwd: abc123", ["abc123"]),
    *((d, []) for d in DECOYS),
])
def test_the_forms_found(text, values):
    assert [(k, text[a:b]) for k, a, b in find(text)] == [("password", v) for v in values]


def test_the_password_is_masked_nothing_of_it_kept():
    assert redacted(PHRASE)[0] == "the db password is ***"
    assert redacted(ENV)[0] == "PGPASSWORD=***"


def test_no_finding_over_the_whole_shared_corpus(corpus_dir):
    """The false positives over the corpus: 0 (every string of every JSON line or file, and every file's text)."""
    strings, found = forms_over_corpus(corpus_dir, ("password",))
    assert strings > 60_000 and found == 0


@pytest.fixture(scope="module")
def planted(tmp_path_factory, corpus_dir) -> Path:
    return planted_root(corpus_dir, tmp_path_factory.mktemp("keyword-password"), RELIABILITY,
                        plant_in_prompt_and_result(f"Also {PHRASE}.", "Hello world\n" + ENV + "\n" + "\n".join(DECOYS)))


def test_asz_secrets_names_each_password(planted):
    found, named = secrets_found(planted, (PW, ENV_PW))
    assert named == sorted([("password", "prompt", PW), ("password", "tool_result", ENV_PW)])
    assert {f["masked"] for f in found} == {"***"}


def test_the_audit_masks_the_phrase_and_its_header_names_what_it_covers(planted):
    p = asz_in_process("export", "de3b8b19", "--audit", "--root", str(planted))
    assert p.returncode == 0, p.stderr
    assert PW not in p.stdout and "the db password is ***" in p.stdout
    head = json.loads(p.stdout.splitlines()[0])
    creds = head["credentials"]
    assert creds["masked"] is True and creds["written"] == {"places": 1, "credentials": 1}
    assert creds["left_out"] == {"places": 1, "credentials": 1, "not_written": 1}  # the tool result's PGPASSWORD
    assert creds["forms"] == [name for name, _, _ in KINDS] and "password" in creds["forms"]
    assert "not found" in creds["not_covered"] and "password" in creds["not_covered"]


def test_a_long_value_is_masked_whole():
    """A value over 128 characters (a generated secret) is one finding, masked whole: its first 128 characters were
    the value and the rest stood unmasked after ***."""
    value = "Zq8k!" * 40  # 200 characters
    text = f"secret={value} rest"
    assert [(k, text[a:b]) for k, a, b in find(text)] == [("password", value)]
    assert redacted(text)[0] == "secret=*** rest"
