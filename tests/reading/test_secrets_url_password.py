"""A password inside an address (``scheme://user:PASSWORD@host``, RFC 3986 §3.2.1) is a credential form (trial 24b
F6: ``postgres://admin:hunter2secret@db.internal/prod`` was neither masked by ``--redact`` nor found by ``asz
secrets``), masked as ``***``; and an export that writes credentials whole says how many (F7: ``asz export --format
html`` wrote 7 and said nothing).

The addresses are planted into a real transcript of the shared corpus (claude-reliability, 9 lines: its prompt and
a tool result), beside placeholders that are no password (``password``, ``${DB_PASSWORD}``, a port)."""

from __future__ import annotations

import hashlib
from pathlib import Path

import pytest

from asz_core.view.secret_forms import find, redacted, shown_title

from cli_helpers import asz_in_process
from reading_helpers import planted_root, secrets_found

DB = "postgres://admin:hunter2secret@db.internal/prod"
PW = "hunter2secret"
REDIS = "redis://:Zq8kLm2vT9@cache.internal:6379/0"
REDIS_PW = "Zq8kLm2vT9"
GITHUB = "ghp_" + "R8vQ2xLm" * 4 + "Zt7K"
#: Placeholders and addresses holding no password: none is a finding.
DECOYS = ("postgres://user:password@localhost/db", "mysql://root:${DB_PASSWORD}@db/app", "http://host:8080@example.com",
          "postgresql://scott:***@localhost/test", "git@github.com:org/repo.git", "https://example.com/a?b=c:d@e")
RELIABILITY = "claude-code/projects/-home-user-claude-reliability/de3b8b19-5bc0-4a2a-934a-1b6806567e25.jsonl"


@pytest.mark.parametrize("text,values", [
    (f"the DB is {DB}.", [PW]),
    (f'DATABASE_URL="{DB}"', [PW]),
    (REDIS, [REDIS_PW]),  # no user, as Redis writes it
    ("postgres://app:p@ss@db/x", ["p@ss"]),  # an '@' left unencoded stays in the password
    ("mongodb+srv://app:Zq8!kLm2@cluster0.abc.mongodb.net/?retry=true", ["Zq8!kLm2"]),
    *((d, []) for d in DECOYS),
])
def test_the_forms_found(text, values):
    assert [(k, text[a:b]) for k, a, b in find(text)] == [("url-password", v) for v in values]


def test_the_password_alone_is_masked_nothing_of_it_kept():
    assert redacted(f"the DB is {DB}.") == ("the DB is postgres://admin:***@db.internal/prod.",
                                           [hashlib.sha256(PW.encode()).hexdigest()[:12]])
    assert shown_title(f"connect to {DB} and list tables") == "connect to postgres://admin:***@db.internal/prod and list tables"


def _plant(lines: list[dict]) -> None:
    """The claude-reliability transcript with the Postgres address starting its prompt (line 2: the title) and, in the script's output
    (line 6), the Redis address, the Postgres one again, a GitHub token and the decoys."""
    lines[1]["message"]["content"] = f"The DB is {DB}. {lines[1]['message']['content']}"
    lines[5]["message"]["content"][0]["content"] = (
        f"Hello world\nREDIS_URL={REDIS}\nDATABASE_URL={DB}\nGITHUB_TOKEN={GITHUB}\n" + "\n".join(DECOYS))


@pytest.fixture(scope="module")
def planted(tmp_path_factory, corpus_dir) -> Path:
    return planted_root(corpus_dir, tmp_path_factory.mktemp("url-password"), RELIABILITY, _plant)


def test_asz_secrets_names_each_address_password(planted):
    found, named = secrets_found(planted, (PW, REDIS_PW, GITHUB))
    assert named == sorted([
        ("url-password", "prompt", PW), ("url-password", "tool_result", PW), ("url-password", "tool_result", REDIS_PW),
        ("github-token", "tool_result", GITHUB)])
    assert {f["masked"] for f in found if f["secret"] == "url-password"} == {"***"}
    assert all(PW not in f["title"] and "admin:***@db.internal" in f["title"] for f in found)  # the prompt titles it
    text = asz_in_process("secrets", "--root", str(planted), "--tz", "UTC").stdout
    assert PW not in text and REDIS_PW not in text


@pytest.mark.parametrize("fmt", ["md", "html", "json", "prose"])
def test_an_export_counts_what_it_writes_whole_and_redact_masks_it(planted, fmt):
    whole = ("--no-redact",) if fmt in ("md", "html") else ()  # md and html mask by default (trial 34c F8)
    plain = asz_in_process("export", "de3b8b19", "--format", fmt, *whole, "--root", str(planted))
    assert plain.returncode == 0, plain.stderr
    values = [v for v in (PW, REDIS_PW, GITHUB) if v in plain.stdout]
    # json's talk label holds the prompt again: one place of the conversation, counted as md counts it (small26)
    places = sum((plain if fmt != "json" else asz_in_process("export", "de3b8b19", "--format", "md", "--no-redact",
                                                               "--root", str(planted))).stdout.count(v) for v in values)
    assert PW in values and places >= 1  # the prompt's address in every format (prose carries no tool result)
    assert (f"asz export: --no-redact: {places} place(s) of {len(values)} credential(s) of a known form written whole "
            "(asz secrets lists them)" if whole else f"asz export: note: {places} place(s) of {len(values)} "
            "credential(s) of a known form written whole (asz secrets lists them); --redact masks them") in plain.stderr
    p = asz_in_process("export", "de3b8b19", "--format", fmt, "--redact", "--root", str(planted))
    assert p.returncode == 0, p.stderr
    assert not [v for v in (PW, REDIS_PW, GITHUB) if v in p.stdout]
    assert "postgres://admin:***@db.internal/prod" in p.stdout
    assert f"asz export: --redact masked {places} place(s) of {len(values)} credential(s)" in p.stderr
    assert "written whole" not in p.stderr
    for decoy in DECOYS if fmt != "prose" else ():  # left as they are
        assert decoy.split("@")[0] in p.stdout.replace("&#x27;", "'").replace("\\/", "/"), decoy


def test_an_export_with_none_says_nothing_of_credentials(corpus_copy):
    """The corpus's conversations hold no credential of a known form (tests/reading/test_secrets.py): no note."""
    root = corpus_copy()
    p = asz_in_process("export", "de3b8b19", "--format", "html", "--root", str(root))
    assert p.returncode == 0 and "credential" not in p.stderr, p.stderr
