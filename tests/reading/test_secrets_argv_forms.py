"""Credentials session 44 left whole (close44, "Not done"): a flag's value in an argument vector (an MCP call's or a
subprocess's list, ``["--token", "VALUE"]``, ``["--password","VALUE"]``, as a structured tool input or written in a
text), ``--secret-key``, ``--secret-access-key`` and ``--aws-secret-access-key`` values after a space, mysql's ``-p``
value when a long switch stands after it (``mysql -p VALUE --ssl shop``: ``shop`` was read as ``--ssl``'s value) or
before it, and a mysql or psql command cut by shell line continuations (``mysql -u root \\`` and ``-p VALUE`` on the next
line, JSON-escaped in a tool's input). Each is found by ``asz secrets`` and masked in every reader: md, html, text and
``json --redact`` exports, ``asz conversation --redact``, ``asz show --redact``, ``asz search`` and the page (docs/reading.md, Credentials).

An ``npm_`` word is an npm token only as npm issues them: 36 letters and digits after ``npm_``, 30 random and a
6-character base62 CRC32 checksum (GitHub's 2021 format, which npm's granular tokens keep); a 37-character word is
none, nor are ``npm_config_…`` names. Look-alikes stay whole: ``--token-file PATH``, ``--next-token``, a
``--secret-key-id`` name, ``["--password-file","/x"]``, other tools' ``-p PORT``, mysql's ``-P PORT``.

Planted into a real transcript of the shared corpus (claude-reliability: its first prompt, its Bash call's command, its
Write call made an MCP call whose input is an argument list, and a tool result)."""

from __future__ import annotations

import json
import sys
import zlib
from pathlib import Path

import pytest

from asz_core.view.secret_forms import find, redacted

from cli_helpers import asz_in_process
from reading_helpers import RELIABILITY, export_masks, plant_four_places, planted_root, secrets_found

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "view_server"))

from view_server_helpers import Served  # noqa: E402

_BASE62 = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"


def npm_token(body: str) -> str:
    """An npm token as npm issues one: ``npm_``, the 30 characters ``body`` and their CRC32 in base62, 6 characters."""
    n, check = zlib.crc32(body.encode()), ""
    while n:
        n, r = divmod(n, 62)
        check = _BASE62[r] + check
    return f"npm_{body}{check.rjust(6, '0')}"


NPM = npm_token("Qm7Lx2Vb9Kp4Wz8Rt3Yc6Hn1Jd5Fs0")
#: Each shape (text, form, value, as every reader shows it masked).
SHAPES = [
    ('run(["deploy", "--token", "Tk7qW2xZ9pLm"])', "token", "Tk7qW2xZ9pLm", '"--token", "***"'),
    ('["psql", "--password","Pw9!zXq2Lk"]', "password", "Pw9!zXq2Lk", '"--password","***"'),
    ("subprocess.run(['gh', 'api', '--api-key', 'Ak5Vn8Qe3Rz1'])", "api-key", "Ak5Vn8Qe3Rz1", "'--api-key', '***'"),
    ("mc alias set s3 https://x --secret-key Sk3Fq9Lz2Wx7Vb", "password", "Sk3Fq9Lz2Wx7Vb", "--secret-key ***"),
    ("tool --secret-access-key Wj8Lr2Xt4Nf6Mq9Kd3Pb7Vz", "password", "Wj8Lr2Xt4Nf6Mq9Kd3Pb7Vz", "--secret-access-key ***"),
    ("s3cmd --aws-secret-access-key Hx8Lp2Qz7Wx4Rn9Tb3Yc5Vd1Mk6Jf0Gs2Ae9Uo3", "password",
     "Hx8Lp2Qz7Wx4Rn9Tb3Yc5Vd1Mk6Jf0Gs2Ae9Uo3", "--aws-secret-access-key ***"),
    ("mysql --ssl -pMy5qlPw9x shop", "mysql-password", "My5qlPw9x", "mysql --ssl -p*** shop"),
    ("mysql -p hunter22x --ssl shop", "mysql-password", "hunter22x", "mysql -p *** --ssl shop"),
    ('psql \\\n  "host=db user=app password=Pg5qlPw9x"', "password", "Pg5qlPw9x", '"host=db user=app password=***"'),
    (f"npm config set //registry.npmjs.org/:_authToken {NPM}", "npm-token", NPM, f"npm_…{NPM[-4:]}"),
]
#: The Bash call's command: a mysql command over three lines (JSON-escaped in the tool input's text), its password of
#: lower case and digits taken since its database is named on the third line.
COMMAND = "mysql -u root \\\n  -p cnt1nued9x \\\n  shop < dump.sql"
COMMAND_VALUE = "cnt1nued9x"
#: The MCP call's input: an argument list, structured.
ARGV = ["deploy", "--region", "eu", "--token", "Mc9pTk4Lq7Wz", "--password-file", "/run/pw", "--secret-key",
        "Mc3Sk8Lv2Qx5"]
ARGV_VALUES = ("Mc9pTk4Lq7Wz", "Mc3Sk8Lv2Qx5")
#: Look-alikes: none is a credential.
NPM_37 = "npm_" + "Qm7Lx2Vb9Kp4Wz8Rt3Yc6Hn1Jd5Fs0Ab3Cd5E"
DECOYS = ('["--token-file", "/run/secrets/tok1"]', '["aws", "sqs", "--next-token", "NxT0k3nPage99"]',
          "--secret-key-id my-key-2", "--secret-key-id=prodkey2", 'SECRET_KEY_ID="sk2id9x"', '["--password-file","/x"]',
          "iperf3 -c host -p 3306", "ssh -p 3306 db", "mysql -P 3306 -h db -p shop2", "mysql -p shop2 --ssl",
          "mysql -u root \\\n  -p shop2", "psql -h db \\\n  -p 5432 -U app", '["-p", "3306"]', NPM_37, "npm_config_registry=https://r.example/x",
          '["--token", "$TOKEN"]', "args = ['--password', password]")
VALUES = tuple(v for _, _, v, _ in SHAPES) + (COMMAND_VALUE, *ARGV_VALUES)


@pytest.mark.parametrize("text,form,value", [*((t, f, v) for t, f, v, _ in SHAPES), (COMMAND, "mysql-password",
                                             COMMAND_VALUE), *((d, None, None) for d in DECOYS)])
def test_each_shape_is_found_as_its_form_and_no_decoy(text, form, value):
    assert [(k, text[a:b]) for k, a, b in find(text)] == ([(form, value)] if form else [])
    escaped = json.dumps(text)  # as a tool input's JSON text holds it (the search index, the exports' drawn input)
    assert [(k, escaped[a:b]) for k, a, b in find(escaped)] == ([(form, value)] if form else [])


def test_masked_as_the_docs_say():
    for text, _, _, shown in SHAPES:
        assert shown in redacted(text)[0], text
    assert redacted(COMMAND)[0] == COMMAND.replace(COMMAND_VALUE, "***")
    drawn = json.dumps({"argv": ARGV}, indent=2)  # an MCP call's input drawn indented
    assert redacted(drawn)[0] == drawn.replace(ARGV_VALUES[0], "***").replace(ARGV_VALUES[1], "***")


@pytest.fixture(scope="module")
def planted(tmp_path_factory, corpus_dir) -> Path:
    plant = plant_four_places([t for t, _, _, _ in SHAPES[:6]], "mcp__deploy__run", ARGV, COMMAND,
                              [t for t, _, _, _ in SHAPES[6:]] + list(DECOYS))
    return planted_root(corpus_dir, tmp_path_factory.mktemp("argv-forms"), RELIABILITY, plant)


def test_asz_secrets_names_each(planted):
    expected = sorted([(f, "prompt", v) for _, f, v, _ in SHAPES[:6]] + [(f, "tool_result", v) for _, f, v, _ in SHAPES[6:]]
                      + [("mysql-password", "tool_input", COMMAND_VALUE), ("token", "tool_input", ARGV_VALUES[0]),
                         ("password", "tool_input", ARGV_VALUES[1])])
    assert secrets_found(planted, VALUES)[1] == expected


@pytest.mark.parametrize("args", [["--format", "md"], ["--format", "html"], ["--format", "text"],
                                  ["--format", "json", "--redact"], ["--format", "json", "--whole", "--redact"]])
def test_every_export_format_writes_none_whole(planted, args):
    shapes = SHAPES[:6] if "text" in args else SHAPES  # (the text form draws no tool result)
    kept = ("/run/pw",) if "text" in args else ("/run/pw", *DECOYS[:3])  # (one in the MCP call's list)
    export_masks(planted, args, VALUES, [s for _, _, _, s in shapes], kept)


def test_conversation_search_and_the_page_mask_each(planted, tmp_path):
    talk = asz_in_process("conversation", "de3b8b19", "--json", "--redact", "--root", str(planted))
    assert talk.returncode == 0, talk.stderr
    assert [v for v in VALUES if v in talk.stdout] == []
    shown = asz_in_process("show", "de3b8b19", "toolu_01R3SZZYuAq6mou5RqHE4rzF", "--redact", "--root", str(planted))
    assert shown.returncode == 0 and [v for v in ARGV_VALUES if v in shown.stdout] == []  # the MCP call's record
    assert '"--token","***","--password-file","/run/pw","--secret-key","***"' in shown.stdout
    got = asz_in_process("search", "Also", "--root", str(planted), "--json")
    assert got.returncode == 0 and [v for v in VALUES if v in got.stdout] == []
    s = Served(["view", "--root", str(planted)], tmp_path, timeout=60)
    try:
        view = s.get("/api/c/de3b8b19-5bc0-4a2a-934a-1b6806567e25/view")
    finally:
        s.stop()
    assert view.status == 200
    body = view.body.replace(b"\\u0026", b"&").replace(b'\\"', b'"')
    assert [v for v in VALUES if v.encode() in body] == []
    assert int(view.headers["asz-credentials-masked"]) >= len(VALUES)
