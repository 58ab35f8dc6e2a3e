"""Credentials every reader left whole until session 44 (trial 44c F2): a value given to an environment variable whose
name's last word names a secret (``SENDGRID_KEY=…``, ``DB_PASS=…``, a ``.env`` dump), an API key's header or name
(``X-Api-Key: …``), GitHub's ``Authorization: token …``, a ``Cookie:`` header's values and a ``Set-Cookie:``'s,
``docker login -p``, ``sshpass -p``, ``redis-cli -a``, a ``.netrc`` entry's ``password``, a password's pair
URL-encoded or with its ``=`` an HTML entity, a docker config's ``"auth"``, a kubeconfig's ``client-key-data``, the
base64 of a token of a known prefix and such a token cut by a shell's line continuation. Each is found by ``asz
secrets`` as its form and masked in every reader: each export format, ``asz search``'s snippets, ``asz conversation``
and the page (docs/reading.md, "Credentials"; docs/security.md).

Planted into a real transcript of the shared corpus (claude-reliability: its first prompt and a tool result) beside
the look-alikes trial 44c planted (a hash, a commit id, a variable, a public key id, a token's count); over the whole
shared corpus none of these forms finds anything."""

from __future__ import annotations

import html
import json
import sys
from pathlib import Path

import pytest

from asz_core.reading.export_forms import FORMS
from asz_core.view.secret_forms import KINDS, find, redacted

from cli_helpers import asz_in_process
from reading_helpers import (RELIABILITY, forms_over_corpus, header_forms_as, plant_in_prompt_and_result, planted_root,
                             secrets_found)

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "view_server"))

from view_server_helpers import Served  # noqa: E402

#: A kubeconfig's client-key-data (base64 of a PEM key's first lines) and the base64 of a GitHub token.
KEY_DATA = "LS0tLS1CRUdJTiBSU0EgUFJJVkFURSBLRVktLS0tLQpNSUlFb3dJQkFBS0NBUUVBdTdMcTlWeDNLcDJObThSejRXdDZZYjFIYzVKZDBGZzNL"
B64_TOKEN = "Z2hwXzRmVDlrTG0yUXg3Uno4V3YxWWIzTmM2SGQwSnM1UGEyVWU5Rw=="
#: Each shape (text, form, value, as every reader shows it masked); those of one line first, planted in the prompt.
SHAPES = [
    ("X-Api-Key: Vk8Lp2Qz7Wx4Rn9Tb3Yc", "api-key-header", "Vk8Lp2Qz7Wx4Rn9Tb3Yc", "X-Api-Key: ***"),
    ("SENDGRID_KEY=Gh5Tr8Yu2Io4Pw7E", "env-secret", "Gh5Tr8Yu2Io4Pw7E", "SENDGRID_KEY=***"),
    ("DB_PASS=Pd3Lk9Mn2Qw7", "env-secret", "Pd3Lk9Mn2Qw7", "DB_PASS=***"),
    ("Authorization: token Zt7Kq2Lm9Wx4Rv8Nb3Yc5Hd1", "authorization-token", "Zt7Kq2Lm9Wx4Rv8Nb3Yc5Hd1",
     "Authorization: token Zt7K…5Hd1"),
    ("docker login -u bob -p Dk9#Lm2Xq7W registry.io", "docker-password", "Dk9#Lm2Xq7W",
     "docker login -u bob -p *** registry.io"),
    ("sshpass -p Sp4ss!word9 ssh bob@h", "sshpass-password", "Sp4ss!word9", "sshpass -p *** ssh bob@h"),
    ("redis-cli -h cache -a R3d1sP4ss!x9 ping", "redis-password", "R3d1sP4ss!x9", "redis-cli -h cache -a *** ping"),
    ("body=user%3Dbob%26password%3DLk8vT2qW9mZ", "encoded-password", "Lk8vT2qW9mZ", "user%3Dbob%26password%3D***"),
    (f"echo {B64_TOKEN} | base64 -d", "base64-token", B64_TOKEN, "echo Z2hw…Rw== | base64 -d"),
    ("Cookie: sessionid=Ck7Jw2Lp9Xm4Rq8Tz3Vb6Nh1; theme=dark", "cookie", "Ck7Jw2Lp9Xm4Rq8Tz3Vb6Nh1",
     "Cookie: sessionid=***; theme=dark"),
    ("Set-Cookie: session=Sx8Kq2Lm7Wz4Tv9Nb3Yc; Path=/; HttpOnly", "cookie", "Sx8Kq2Lm7Wz4Tv9Nb3Yc",
     "Set-Cookie: session=***; Path=/; HttpOnly"),
    ("machine api.x.io\n  login bob\n  password N3tRc!pw9z", "netrc-password", "N3tRc!pw9z", "  password ***"),
    ('{"auths": {"registry.io": {"auth": "Ym9iOkRrOSNMbTJYcTdX"}}}', "docker-auth", "Ym9iOkRrOSNMbTJYcTdX",
     '"auth": "***"'),
    (f"users:\n- user:\n    client-key-data: {KEY_DATA}", "kubeconfig-client-key", KEY_DATA,
     f"client-key-data: LS0t…{KEY_DATA[-4:]}"),
    ("aws configure set aws_access_key_id AKIAW4R8\\\n  T2K9LM5PQ7ZX", "continued-token", "AKIAW4R8\\\n  T2K9LM5PQ7ZX",
     "aws_access_key_id AKIA…Q7ZX"),
]
#: Look-alikes (trial 44c's and the names' rules): none is a credential.
DECOYS = ("CACHE_KEY=4b825dc642cb6eb9a060e54bf8d69288fbee4904", "GPG_KEY=A035C8C19219BA821ECEA86B64E628F8D684696D",
          "AWS_ACCESS_KEY_ID=$AWS_KEY_ID", "SSH_KEY_PATH=~/.ssh/id_ed25519", "SIGNING_KEY_FILE=certs/release.pem",
          "PRIMARY_KEY=tenant_id2", "MONKEY=abc123xyz9", "KEY=abcdef123456", "PWD=/home/user/app",
          "STRIPE_PUBLISHABLE_KEY=pk_live_51HxYzAbCdEfGhIjKl", "export KUBECONFIG=$HOME/.kube/config",
          "password: ${{ secrets.DB_PASSWORD }}", "API_KEY=${{ secrets.API_KEY }}", "max_tokens=4096",
          "TOKEN_URL=https://auth.example.com/oauth/token", "api_key = settings.ANTHROPIC_API_KEY",
          "x-api-key: $ANTHROPIC_API_KEY", "Cookie: theme=dark; lang=en-US", "Set-Cookie: id=42; Max-Age=3600x9",
          "docker login -u bob --password-stdin", "sshpass -f pw.txt ssh -p 2222 bob@h", "redis-cli -h cache ping",
          "machine learning password policy", "password%3D%24PW", '"auth": "dXNlcjpwYXNzd29yZA=="',
          "client-certificate-data: LS0tLS1CRUdJTiBDRVJUSUZJQ0FURS0tLS0tCk1JSUV",
          "base64 of hello: aGVsbG8gd29ybGQgZnJvbSB0aGUgdGVzdA==", "pip install scikit-learn  # sk-learn",
          "git rev 1a2b3c4d5e6f7a8b9c0d1e2f3a4b5c6d7e8f9a0b \\\n  merged", "uuid 3f2504e0-4f89-41d3-9a0c-0305e82c3301",
          "ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIOMqqnkVzrm0SdG6UOoqKLsabgH5C9okWi0dh2l9GKJl bob@host",
          "PASS: binutils-all/i386/empty", "--- PASS: TestParse_config2 (0.00s)",
          "FAIL: x\nPASS: tests/test_api.py::test_create",  # test results (review44)
          "aws sqs list-queues --next-token abCDeFGhiJKlmnOPqrSTuvwxYZ1aBCdEFghijK7LM51nOpqRST",
          "--client-token 550e8400-e29b-41d4-a716-446655440000", "--client-request-token abc123x9Z",
          "--idempotency-token 91adc45q7Zx", "--lock-token 46851772-db6f-459d-9385-49428812e357")  # AWS CLI's
NEW_FORMS = ("api-key-header", "authorization-token", "cookie", "env-secret", "docker-password", "sshpass-password",
             "redis-password", "netrc-password", "encoded-password", "docker-auth", "kubeconfig-client-key",
             "base64-token", "continued-token")
IN_PROMPT = SHAPES[:9]
IN_RESULT = SHAPES[9:]
#: What no reader may print: each value, and the second line of the continued token.
VALUES = tuple(v for _, _, v, _ in SHAPES) + ("T2K9LM5PQ7ZX",)


@pytest.mark.parametrize("text,form,value", [*((t, f, v) for t, f, v, _ in SHAPES), *((d, None, None) for d in DECOYS)])
def test_each_shape_is_found_as_its_form_and_no_decoy(text, form, value):
    assert [(k, text[a:b]) for k, a, b in find(text)] == ([(form, value)] if form else [])


def test_masked_as_the_docs_say_after_the_forms_before():
    for text, _, _, shown in SHAPES:
        assert shown in redacted(text)[0], text
    # trial 44c's .env dump: each secret-named variable masked, the one a form before finds keeps its kind
    dump = "$ cat .env\nDB_PASS=Pd3Lk9Mn2Qw7\nSTRIPE_SECRET_KEY=Sx4Kc8Vb2Nm6Lz0\nSENDGRID_KEY=Gh5Tr8Yu2Io4Pw7E\nDEBUG=1\n"
    assert redacted(dump)[0] == "$ cat .env\nDB_PASS=***\nSTRIPE_SECRET_KEY=***\nSENDGRID_KEY=***\nDEBUG=1\n"
    assert [k for k, _, _ in find(dump)] == ["env-secret", "password", "env-secret"]
    names = [n for n, _, _ in KINDS]
    assert names[names.index("token") + 1:] == list(NEW_FORMS)  # after every form before: what they found stays theirs


def test_a_kubeconfig_user_s_token_and_key_data_are_masked_its_certificate_not():
    """A kubeconfig's user: its ``token:`` is ``token``'s (a bootstrap token, 23 characters) and its
    ``client-key-data`` this session's form; the certificate's data, public, stays."""
    cert = "LS0tLS1CRUdJTiBDRVJUSUZJQ0FURS0tLS0tCk1JSUV"
    text = (f"users:\n- name: admin\n  user:\n    client-certificate-data: {cert}\n    client-key-data: {KEY_DATA}\n"
            "    token: abcdef.0123456789abcdef\n")
    assert [(k, text[a:b]) for k, a, b in find(text)] == [("kubeconfig-client-key", KEY_DATA),
                                                         ("token", "abcdef.0123456789abcdef")]
    assert redacted(text)[0].endswith(f"client-certificate-data: {cert}\n    client-key-data: LS0t…{KEY_DATA[-4:]}\n"
                                      "    token: ***\n")


def test_none_over_the_shared_corpus(corpus_dir):
    texts, found = forms_over_corpus(corpus_dir, NEW_FORMS)
    assert texts > 60_000 and found == 0


@pytest.fixture(scope="module")
def planted(tmp_path_factory, corpus_dir) -> Path:
    prompt = " ".join(t for t, _, _, _ in IN_PROMPT)
    result = "Hello world\n" + "\n".join(t for t, _, _, _ in IN_RESULT) + "\n" + "\n".join(DECOYS)
    return planted_root(corpus_dir, tmp_path_factory.mktemp("env-header-forms"), RELIABILITY,
                        plant_in_prompt_and_result(f"Also {prompt}", result))


#: The continued token as one string: its fingerprint, however a text writes the continuation (fix44k).
JOINED = "AKIAW4R8T2K9LM5PQ7ZX"


def test_asz_secrets_names_each(planted):
    def value(f: str, v: str) -> str:
        return JOINED if f == "continued-token" else v

    expected = sorted([(f, "prompt", value(f, v)) for _, f, v, _ in IN_PROMPT]
                      + [(f, "tool_result", value(f, v)) for _, f, v, _ in IN_RESULT])
    assert secrets_found(planted, VALUES + (JOINED,))[1] == expected


def _shown(out: str, shapes: list, fmt: str) -> list[str]:
    """The masked shapes ``out`` does not hold: as written, JSON-escaped or, in an html copy, HTML-escaped."""
    def held(s: str) -> bool:
        return any(v in out for v in (s, json.dumps(s, ensure_ascii=False)[1:-1], json.dumps(s)[1:-1])) or (
            fmt == "html" and (html.escape(s) in out or html.escape(s, quote=False) in out))
    return [s for _, _, _, s in shapes if not held(s)]


@pytest.mark.parametrize("args", [["--format", "md"], ["--format", "html"], ["--format", "json", "--redact"],
                                  ["--format", "prose", "--redact"], ["--format", "text"], ["--audit"]])
def test_every_export_format_writes_none_whole(planted, args):
    p = asz_in_process("export", "de3b8b19", *args, "--root", str(planted))
    assert p.returncode == 0, p.stderr
    out = p.stdout.replace("\\u2026", "…")
    assert [v for v in VALUES if v in out or json.dumps(v)[1:-1] in out] == []
    # the prompt alone in prose and the audit forms (they leave tool results out)
    shapes = IN_PROMPT if {"prose", "text", "--audit"} & set(args) else SHAPES
    assert _shown(out, shapes, args[-1]) == []


def test_search_conversation_and_the_page_mask_each(planted, tmp_path):
    """``asz search`` prints each text masked and a value finds nothing; ``asz conversation --step`` prints the talk
    masked; the page's document (masked by default) and its search results hold no value whole."""
    got = asz_in_process("search", "Also", "--root", str(planted), "--json")
    assert got.returncode == 0, got.stderr
    hits = json.loads(got.stdout)
    assert [v for v in VALUES if v in got.stdout] == [] and "X-Api-Key: ***" in hits[0]["snippet"]
    for value in ("Vk8Lp2Qz7Wx4Rn9Tb3Yc", "Gh5Tr8Yu2Io4Pw7E", "N3tRc!pw9z", "T2K9LM5PQ7ZX"):
        assert json.loads(asz_in_process("search", f'"{value}"', "--root", str(planted), "--json").stdout) == []
    talk = asz_in_process("conversation", "de3b8b19", "--step", hits[0]["step"], "--root", str(planted))
    assert talk.returncode == 0, talk.stderr
    assert [v for v in VALUES if v in talk.stdout] == []
    assert _shown(talk.stdout, SHAPES, "text") == []
    s = Served(["view", "--root", str(planted)], tmp_path, timeout=60)
    try:
        found = s.get("/api/search?q=Hello&limit=50&held_back=1")
        assert found.status == 200 and [v for v in VALUES if v.encode() in found.body] == []
        view = s.get(f"/api/c/{hits[0]['conversation']}/view")
        assert view.status == 200
        body = json.dumps(json.loads(view.body), ensure_ascii=False)  # one escaping, whatever the server's
        assert [v for v in VALUES if json.dumps(v)[1:-1] in body] == []
        assert [t for _, _, _, t in SHAPES if json.dumps(t, ensure_ascii=False)[1:-1] not in body] == []
    finally:
        s.stop()


class _Forms2:
    """Masking as forms 2 did (session 44, before fix44g): none of these forms."""

    def __call__(self, text: str, cuts: list) -> list:
        return [c for c in cuts if c[4] not in NEW_FORMS]


@pytest.mark.parametrize("fmt", ["md", "text"])
def test_a_copy_of_forms_2_verifies_and_says_what_it_holds_whole(planted, tmp_path, fmt):
    """A copy masked by forms 2 (its manifest's ``masks_forms`` 2, a text copy's header listing forms 2's names) checks
    against the root, with a note of each credential today's forms mask that it holds whole (docs/verify.md)."""
    from asz_core.reading.export_render import _FORMS_BEFORE, RENDER, SHORT_HEAD_RENDER, drawing
    from asz_core.view.secret_forms import choosing

    old = tmp_path / f"old.{fmt}"
    listed = SHORT_HEAD_RENDER - 1 if fmt == "text" else RENDER  # a text copy of forms 2 lists them (render 50 and before)
    with choosing(_Forms2()), drawing(listed):
        p = asz_in_process("export", "de3b8b19", "--format", fmt, "--redact", "--out", str(old), "--root", str(planted))
    assert p.returncode == 0, p.stderr
    where = old.with_name(old.name + ".manifest.json")
    body = json.loads(where.read_bytes())
    body["masks_forms"], body["render"] = 2, listed
    # a text copy's header lists forms 2's names (forms 1's), the masks after it moved by as many bytes
    data = header_forms_as(old, body, _FORMS_BEFORE[-1]) if fmt == "text" else old.read_bytes()
    where.write_bytes(json.dumps(body).encode())
    text = data.decode()
    whole = [v for v in VALUES[:-1] if "\n" not in v and v in text] + ["T2K9LM5PQ7ZX"] * ("T2K9LM5PQ7ZX" in text)
    assert len(whole) == (len(IN_PROMPT) if fmt == "text" else len(SHAPES))  # each whole, as forms 2 left it
    held = asz_in_process("verify", "--export", str(old), "--root", str(planted))
    assert held.returncode == 0, held.stdout + held.stderr
    assert held.stdout.splitlines()[-1] == "the copy checks against the root"
    n = sum(text.count(v) for v in whole)
    note = [line for line in held.stdout.splitlines() if line.startswith("note:")]
    # a text copy's header counts what forms 2 left out, below today's (review45: export_forms.as_left_out says so first)
    counts = [x for x in note if x.startswith(f"note: old.{fmt}: its header's left_out counts are those of forms 2 ")]
    assert len(counts) == (fmt == "text") and all("not today's (places " in x for x in counts), note
    note = [x for x in note if x not in counts]
    assert len(note) == 1 and note[0].startswith(f"note: old.{fmt}: {n} credential(s) asz masks today are whole in this "
                                                 "copy (made with forms 2 (session 44"), note
    # the same bytes said to be of today's forms: a credential left whole is a problem, as before
    where.write_bytes(json.dumps({**body, "masks_forms": FORMS}).encode())
    assert asz_in_process("verify", "--export", str(old), "--root", str(planted)).returncode == 1
