"""Credentials session 42 left whole (close42, "Not done"): a password after a flag and a space (``--password PASS``,
``--passwd PASS``), after mysql's ``-p`` and a space, curl's ``-u USER:PASSWORD`` / ``--user``, an Azure Service Bus
or Event Hubs connection string's ``SharedAccessKey=``, an Azure SAS URL's ``sig=``, and a passphrase of words joined
by ``-`` given to a password's name (``password: correct-horse-battery-staple``). Each is found by ``asz secrets``
and masked in every reader: each export format, ``asz search``'s snippets, ``asz conversation`` and the page.

Planted into a real transcript of the shared corpus (claude-reliability: its first prompt and a tool result) beside
the lines that name them and hold none (a file's path, a variable, a user alone, a database's name, an identifier
given to a secret's name). Over the whole shared corpus none of these forms finds anything. ``asz secrets`` over an
index whose ``secret`` table is damaged builds it again and answers as before."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from asz_core.reading.search import INDEX_PATH
from asz_core.view.secret_forms import KINDS, find, redacted

from cli_helpers import asz_in_process
from reading_helpers import (RELIABILITY, damage_table, forms_over_corpus, plant_in_prompt_and_result, planted_root,
                             readers_masked, secrets_found)


#: A Service Bus key (32 bytes' base64) and a SAS URL's signature (32 bytes' base64, percent-encoded as Azure writes it).
SB_KEY = "0XtnGsHiL6tFhk53rKD9bWJJeNCJ5jgLWGdqrznNkX8="
SIG = "EO9Pn0XpBbPI3vzH2%2BpI0EYP1xjefO2UDI8CAEl6oQs%3D"
PASSPHRASE = "correct-horse-battery-staple"
#: Each shape (text, form, value, as every reader shows it masked).
SHAPES = [
    ("pg_dump --password Zq8k!Lm2vT9 prod", "password", "Zq8k!Lm2vT9", "pg_dump --password *** prod"),
    (f"password: {PASSPHRASE}", "password", PASSPHRASE, "password: ***"),
    ("mysql -h db -u root -p Xy7#kLm2q shop", "mysql-password", "Xy7#kLm2q", "mysql -h db -u root -p *** shop"),
    ("curl -sS -u deploy:Tr0ub4dor3x https://api.example.com/v1", "curl-password", "Tr0ub4dor3x",
     "curl -sS -u deploy:*** https://api.example.com/v1"),
    ("openssl enc -aes256 --passwd Hunt3r#22x -in f", "password", "Hunt3r#22x", "--passwd *** -in f"),
    (f"Endpoint=sb://ns.servicebus.windows.net/;SharedAccessKeyName=RootManageSharedAccessKey;SharedAccessKey={SB_KEY}",
     "azure-shared-access-key", SB_KEY, "SharedAccessKey=0Xtn…kX8="),
    (f"https://acct.blob.core.windows.net/c/b.txt?sv=2021-08-06&se=2026-12-31&sr=b&sp=r&sig={SIG}",
     "azure-sas-signature", SIG, "sig=EO9P…s%3D"),
    ("curl --user admin:Zx9Yw8Vu7 https://x.example.com", "curl-password", "Zx9Yw8Vu7", "curl --user admin:*** https"),
]
#: Texts naming a password, a user, a key or a signature that hold none (docs/reading.md, Credentials: the placeholders).
DECOYS = ("--password-file /run/secrets/db_pw", "--password $DB_PASS", '--password "${X}"', "curl -u root https://x.io",
          'curl -u "$USER:$TOKEN" https://x.io', "curl -u user:password https://x.io", "curl -u admin: https://x.io",
          "mysql -u root -p shop", "mysql -u root -p app_db2", "secret_name: aws-access-key-id", 'MY_SECRET = "my-secret-key"',
          "password: not-set-yet", "SharedAccessKeyName=RootManageSharedAccessKey", "?sv=2021&sig=" + "x" * 43 + "%3D",
          ":type passphrase: :py:data:`bytes`", 'aws = [f for f in found if f["secret"] == "aws-access-key-id"]',
          "--password <password>")
#: The forms sessions 43 and 44 added or widened (test_secrets_flag_forms.py: session 44's).
NEW_FORMS = ("azure-shared-access-key", "azure-sas-signature", "curl-password", "mysql-password", "password", "api-key",
             "token")
IN_PROMPT = SHAPES[:4]
IN_RESULT = SHAPES[4:]
VALUES = tuple(v for _, _, v, _ in SHAPES)


@pytest.mark.parametrize("text,form,value", [*((t, f, v) for t, f, v, _ in SHAPES), *((d, None, None) for d in DECOYS)])
def test_each_shape_is_found_as_its_form_and_no_decoy(text, form, value):
    assert [(k, text[a:b]) for k, a, b in find(text)] == ([(form, value)] if form else [])


def test_masked_as_the_docs_say():
    for text, _, _, shown in SHAPES:
        assert shown in redacted(text)[0], text
    # the order decides which form keeps a value two find: the issuer's own before a name's
    names = [n for n, _, _ in KINDS]
    assert names[names.index("sendgrid-api-key"):names.index("token") + 1] == [
        "sendgrid-api-key", "azure-storage-account-key", "azure-shared-access-key", "azure-sas-signature", "basic-auth",
        "mysql-password", "curl-password", "api-key", "password", "token"]


def test_none_over_the_shared_corpus(corpus_dir):
    texts, found = forms_over_corpus(corpus_dir, NEW_FORMS)
    assert texts > 60_000 and found == 0


@pytest.fixture(scope="module")
def planted(tmp_path_factory, corpus_dir) -> Path:
    prompt = " ".join(t for t, _, _, _ in IN_PROMPT)
    result = "Hello world\n" + "\n".join(t for t, _, _, _ in IN_RESULT) + "\n" + "\n".join(DECOYS)
    return planted_root(corpus_dir, tmp_path_factory.mktemp("spaced-forms"), RELIABILITY,
                        plant_in_prompt_and_result(f"Also {prompt}", result))


def _named(planted: Path) -> list[tuple[str, str, str]]:
    return secrets_found(planted, VALUES)[1]


def test_asz_secrets_names_each_and_builds_a_damaged_index_again(planted, tmp_path):
    expected = sorted([(f, "prompt", v) for _, f, v, _ in IN_PROMPT] + [(f, "tool_result", v) for _, f, v, _ in IN_RESULT])
    root = tmp_path / "root"
    shutil.copytree(planted, root, symlinks=True)
    assert _named(root) == expected  # (the copy's files, new inodes, indexed again)
    index = root / INDEX_PATH
    damage_table(index, "secret")  # what asz secrets reads, and no update of an unchanged root does
    p = asz_in_process("secrets", "--json", "--root", str(root))
    said = [line for line in p.stderr.splitlines() if "warning" in line]
    assert p.returncode == 1 and len(said) == 1, p.stdout + p.stderr  # exit 1: credentials found
    assert said[0].startswith(f"asz secrets: warning: the search index {index} cannot be read: ")
    assert said[0].endswith("it is derived data: deleted and built again now (as --reindex does)")
    assert _named(root) == expected


@pytest.mark.parametrize("args", [["--format", "md"], ["--format", "html"], ["--format", "json", "--redact"],
                                  ["--format", "prose", "--redact"], ["--format", "text"], ["--audit"]])
def test_every_export_format_writes_none_whole(planted, args):
    p = asz_in_process("export", "de3b8b19", *args, "--root", str(planted))
    assert p.returncode == 0, p.stderr
    out = p.stdout.replace("\\u2026", "…")
    assert [v for v in VALUES if v in out] == []
    shown = [s.replace("&", "&amp;") if args[-1] == "html" else s for _, _, _, s in SHAPES]
    if {"prose", "text", "--audit"} & set(args):  # the prompt alone (prose and the audit forms leave tool results out)
        shown = shown[:len(IN_PROMPT)]
    assert [s for s in shown if s not in out] == []


def test_search_conversation_and_the_page_mask_each(planted, tmp_path):
    """``asz search`` prints each text masked and a value finds nothing; ``asz conversation --step`` prints the talk
    masked; the page's document (masked by default) and its search results hold no value whole."""
    shown = [s for _, _, _, s in SHAPES]
    readers_masked(planted, tmp_path, VALUES, "pg_dump --password *** prod", ("Zq8k!Lm2vT9", "Tr0ub4dor3x", PASSPHRASE),
                   shown, shown, "Hello")
