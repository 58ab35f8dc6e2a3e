"""A value given to a name holding a password's word anywhere in it (trial 42a F2: ``SECRET_KEY=…``,
``app.config["SECRET_KEY"] = "…"``, ``SECRETKEY=…`` were written whole while ``API_SECRET=…`` was masked: the word had
to end the name), a name ending in ``token`` (``AWS_SESSION_TOKEN``), and the forms an ``.env`` dump mailed to a
vendor holds that no form covered: SendGrid's ``SG.`` key, an Azure storage connection string's ``AccountKey=``,
``Authorization: Basic`` and ``mysql -pPASS``. Each is found by ``asz secrets`` and masked in every export format,
the page's document and search.

Planted into a real transcript of the shared corpus (claude-reliability: its prompt and a tool result) beside
texts that name a password or a token and hold none. Over the whole shared corpus the new forms, and the password
form read anywhere in a name, find nothing."""

from __future__ import annotations

import json
import re
import sys
from pathlib import Path
from urllib.parse import quote

import pytest

from asz_core.view.secret_forms import find, redacted

from cli_helpers import asz_in_process
from reading_helpers import RELIABILITY, corpus_texts, plant_in_prompt_and_result, planted_root, secrets_found

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "view_server"))

from view_server_helpers import Served  # noqa: E402

SG = "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"
AZ = "Eby8vdM02xNOcqFlqUwJPLlmEtlCDXJ1OUzFT50uSRZ6IFsuFq2UVErCz4I6tq/K1SZFPTOtr/KBHBeksoGMGw=="
BASIC = "YWRtaW46U3VwM3JTM2NyM3Q="  # admin:Sup3rS3cr3t
SESSION_TOKEN = "FwoGZXIvYXdzEJr//////////wEaDFakeSessionTokenValue1234567890abcdef"
#: Each shape (text, form, value): the assignment shapes of a name holding the word, and the forms of their own.
SHAPES = [
    ("SECRET_KEY=Dj4ngoInsecure9f8e7d6c5b", "password", "Dj4ngoInsecure9f8e7d6c5b"),
    ('app.config["SECRET_KEY"] = "Fl4skS3cretK3y2!x"', "password", "Fl4skS3cretK3y2!x"),
    ("SECRETKEY=Tr1alS3cretK3y", "password", "Tr1alS3cretK3y"),
    ("SECRET_KEY_BASE=9f8e7d6c5b4a39f8e7d6c5b4a3abcdef0123", "password", "9f8e7d6c5b4a39f8e7d6c5b4a3abcdef0123"),
    ("secret_key: Yx7Lm2Qp9Zr4", "password", "Yx7Lm2Qp9Zr4"),  # YAML
    ('{"secretKey": "aB3dE5fG7hI9"}', "password", "aB3dE5fG7hI9"),  # JSON
    ("--db-password=Tr0ub4dor3x", "password", "Tr0ub4dor3x"),  # a CLI flag
    ('jwtSecret := "Go5ecretK3y"', "password", "Go5ecretK3y"),
    (f"AWS_SESSION_TOKEN={SESSION_TOKEN}", "token", SESSION_TOKEN),
    (f"export SENDGRID_API_KEY={SG}", "sendgrid-api-key", SG),
    (f"DefaultEndpointsProtocol=https;AccountName=acct;AccountKey={AZ};EndpointSuffix=core.windows.net",
     "azure-storage-account-key", AZ),
    (f"curl -H 'Authorization: Basic {BASIC}' https://api.example.com", "basic-auth", BASIC),
    ("mysql -h db -u root -pS3cr3tPw9 shop", "mysql-password", "S3cr3tPw9"),
]
#: Texts naming a password, a secret or a token that hold none: code, paths, addresses, counts, placeholders.
DECOYS = ("PWD=/home/user/app", "OLDPWD=/srv/www", "DB_PASSWORD_FILE=/run/secrets/db9", "SECRET_KEY = os.environ['SECRET_KEY']",
          "PASSWORD_RESET_URL=https://example.com/reset1", '"input_tokens": 1234', "max_tokens=4096",
          'tokenizer = "bert-base-uncased"', "TOKEN_URL=https://oauth2.googleapis.com/token", "token = b64encode(userpass)",
          "password = base64.b16encode(raw)", "token: ${{ secrets.GITHUB_TOKEN }}", "the secretary is Jane99",
          "mysql -u root -p shop", "Authorization: Basic realm", "Authorization: Basic dXNlcjpwYXNzd29yZA==",
          "SG.xxxxxxxxxxxxxxxxxxxxxx.xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx", "access_token = get_token()",
          "aws_secret_access_key = ${AWS_SECRET_ACCESS_KEY:-unset}", "SECRET_KEY=changeme-example-123",
          'aws = [f for f in found if f["secret"] == "aws-access-key-id"]')
NEW_FORMS = ("token", "sendgrid-api-key", "azure-storage-account-key", "basic-auth", "mysql-password")
IN_PROMPT = SHAPES[:5]
IN_RESULT = SHAPES[5:]


@pytest.mark.parametrize("text,form,value", [*SHAPES, *((d, None, None) for d in DECOYS)])
def test_each_shape_is_found_as_its_form_and_no_decoy(text, form, value):
    assert [(k, text[a:b]) for k, a, b in find(text)] == ([(form, value)] if form else [])


def test_masked_as_the_docs_say():
    """A password, a token given to a name, Basic credentials and mysql's -p as ``***``; a key its first and last 4."""
    assert redacted('app.config["SECRET_KEY"] = "Fl4skS3cretK3y2!x"')[0] == 'app.config["SECRET_KEY"] = "***"'
    assert redacted(f"AWS_SESSION_TOKEN={SESSION_TOKEN}")[0] == "AWS_SESSION_TOKEN=***"
    assert redacted(f"Authorization: Basic {BASIC}")[0] == "Authorization: Basic ***"
    assert redacted("mysql -u root -pS3cr3tPw9 shop")[0] == "mysql -u root -p*** shop"
    assert redacted(f"key {SG} ok")[0] == "key SG.n…s5cr ok"
    assert redacted(f"AccountKey={AZ};")[0] == "AccountKey=Eby8…Gw==;"


def test_nothing_new_over_the_shared_corpus(corpus_dir):
    """Over the corpus's 60,000 texts the new forms find nothing, nor the password form: the values the corpus gives
    to Phoenix's ``secret_key_base`` (a plain search of the files finds 2) say they stand in for one
    (``dev-only-…-placeholder``, ``test-only-…``), as gitleaks' stop words say."""
    expected = set()
    for path in corpus_dir.rglob("*"):
        if path.is_file():
            expected |= set(re.findall(r'secret_key_base:(?:\\n|\s)*\\"([^\\"]+)\\"', path.read_text(errors="replace")))
    assert len(expected) == 2 and all("-only-" in v for v in expected)
    texts, found = 0, []
    for s in corpus_texts(corpus_dir):
        texts += 1
        found += [(k, s[a:b]) for k, a, b in find(s) if k in NEW_FORMS or k == "password"]
    assert texts > 60_000 and found == []
    for value in expected:
        assert find(f'secret_key_base: "{value}"') == []


@pytest.fixture(scope="module")
def planted(tmp_path_factory, corpus_dir) -> Path:
    prompt = " ".join(t for t, _, _ in IN_PROMPT)
    result = "Hello world\n" + "\n".join(t for t, _, _ in IN_RESULT) + "\n" + "\n".join(DECOYS)
    return planted_root(corpus_dir, tmp_path_factory.mktemp("named-forms"), RELIABILITY,
                        plant_in_prompt_and_result(f"Also {prompt}", result))


def test_asz_secrets_names_each(planted):
    found, named = secrets_found(planted, tuple(v for _, _, v in SHAPES))
    assert named == sorted([(f, "prompt", v) for _, f, v in IN_PROMPT] + [(f, "tool_result", v) for _, f, v in IN_RESULT])


@pytest.mark.parametrize("args", [["--format", "md"], ["--format", "html"], ["--format", "json", "--redact"],
                                  ["--format", "prose", "--redact"], ["--format", "text"], ["--audit"]])
def test_every_export_format_writes_none_whole(planted, args):
    p = asz_in_process("export", "de3b8b19", *args, "--root", str(planted))
    assert p.returncode == 0, p.stderr
    whole = [v for _, _, v in SHAPES if v in p.stdout]
    assert whole == [] and "Fl4skS3cretK3y2" not in p.stdout
    assert "SECRET_KEY=***" in p.stdout.replace("\\u2026", "…") or args[-1] in ("--audit", "text"), p.stdout[:2000]


def test_search_and_the_page_mask_each(planted, tmp_path):
    """``asz search`` prints the prompt masked and a value finds nothing; the page's document (masked by default)
    and its search results hold no value whole."""
    got = asz_in_process("search", "Also", "--root", str(planted), "--json")
    assert got.returncode == 0, got.stderr
    assert [v for _, _, v in SHAPES if v in got.stdout] == [] and "SECRET_KEY=***" in got.stdout
    for value in ("Dj4ngoInsecure9f8e7d6c5b", "S3cr3tPw9"):
        hits = asz_in_process("search", value, "--root", str(planted), "--json")
        assert hits.returncode == 0 and json.loads(hits.stdout) == [], hits.stdout
    s = Served(["view", "--root", str(planted)], tmp_path, timeout=60)
    try:
        found = s.get(f"/api/search?q={quote('Also')}&limit=50&held_back=1")
        assert found.status == 200 and [v for _, _, v in SHAPES if v.encode() in found.body] == []
        view = s.get(f"/api/c/{found.json()['hits'][0]['conversation']}/view")
        assert view.status == 200
        assert [v for _, _, v in SHAPES if v.encode() in view.body] == [] and b"SECRET_KEY=***" in view.body
    finally:
        s.stop()
