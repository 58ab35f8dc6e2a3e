"""``secret_forms.find`` tries each form's expression only where a match can begin (``_STARTS``: perf36, the page's
cold open: ``re`` tried a case-insensitive name or a lookbehind at every place of a 570 KB document, 200 ms), and
finds exactly what it found when each expression ran over the whole text (``rx.finditer``, gated by the form's
hints): compared here with that search, written out as it was, over every line and every whole file of the shared
corpus and over texts made of every form's credentials in any case, touching, overlapping and beside the characters
``re`` reads as an ASCII letter in any case (İ, ı, ſ, the Kelvin sign). The page's cut heads
(``page_secrets._cut_head``, looked for from the text's last run of token characters) are compared the same way.
"""

from __future__ import annotations

import random
import re

import orjson
import pytest

from asz_core.view import page_secrets, secret_forms
from asz_core.view.secret_forms import KINDS, find

#: Each form's credentials, written as their issuers do (each begins a match of the form; checked below).
SAMPLES = {
    "aws-access-key-id": ["AKIAIOSFODNN7EXAMPLE", "ASIAY34FZKBOKMUTVV7A"],
    "aws-secret-access-key": ["aws_secret_access_key = wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY",
                              "SecretAccessKey: 'wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEZ'",
                              "AWS-SECRET-KEY=>\\\"Zm9vYmFyYmF6cXV4MTIzNDU2Nzg5MGFiY2RlZmdo\\\"",
                              "AKIAIOSFODNN7EXAMPLE wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY"],
    "github-token": [p + "a1B2c3D4e5F6g7H8i9J0k1L2m3N4o5P6q7R8" for p in ("ghp_", "gho_", "ghu_", "ghs_", "ghr_")]
                    + ["github_pat_11ABCDEFG0123456789_abcdefghijklmnopqrstuvwxyzABCD"],
    "gitlab-token": ["glpat-xYz12345678901234567"],
    "anthropic-api-key": ["sk-ant-api03-" + "A1b2" * 24, "sk-ant-admin01-abcdefghijklmnopqrstuvw"],
    "openai-api-key": ["sk-proj-Ab1cD2eF3gH4iJ5kL6mN7oP8", "sk-" + "aB3" * 16, "sk-xyzT3BlbkFJabc"],
    "slack-token": ["xoxb-1234567890-abcdefABCDEF"],
    "slack-webhook-url": ["https://hooks.slack.com/services/T00000000/B00000000/XXXXxxxxXXXXxxxxXXXXxxxx"],
    "google-api-key": ["AIzaSyA1234567890abcdefghijklmnopqrstuv"],
    "google-oauth-client-secret": ["GOCSPX-abcdefghijklmnopqrstuvwxyz12"],
    "stripe-live-key": ["sk_live_4eC39HqLyjWDarjtT1zdp7dc", "rk_live_4eC39HqLyjWDarjtT1zdp7dc"],
    "huggingface-token": ["hf_" + "aBcD1234" * 5],
    "npm-token": ["npm_" + "aB3456" * 6],
    "private-key": ["-----BEGIN RSA PRIVATE KEY-----\\nMIIEowIBAAKCAQEA\\n-----END RSA PRIVATE KEY-----",
                    "-----BEGIN OPENSSH PRIVATE KEY-----\nb3BlbnNzaC1rZXktdjEAAAAA"],
    "jwt": ["eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0.dozjgNryP4J3jVmNHl0w5N_XgL0n3I9PlFUP0THsR8U"],
    "bearer-token": ["Authorization: Bearer abcdef1234567890abcdef12", "AUTHORIZATION=\"bearer Zx9Yw8Vu7Ts6Rq5Po4Nm\""],
    "url-password": ["postgres://admin:s3cr3tPass@db.internal/prod", "redis://:hunter2x@cache:6379"],
    "sendgrid-api-key": ["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"],
    "azure-storage-account-key": ["AccountKey=" + "Eby8vdM02xNOcqFlqUwJPLlmEtlCDXJ1OUzFT50uSRZ6IFsuFq2UVErCz4I6tq/K1SZFPT"
                                  "Otr/KBHBeksoGMGw=="],
    "basic-auth": ["Authorization: Basic YWRtaW46U3VwM3JTM2NyM3Q=", "authorization=\"basic dXNlcjpTM2NyM3QhOQ==\""],
    "azure-shared-access-key": ["SharedAccessKey=0XtnGsHiL6tFhk53rKD9bWJJeNCJ5jgLWGdqrznNkX8="],
    "azure-sas-signature": ["sig=EO9Pn0XpBbPI3vzH2%2BpI0EYP1xjefO2UDI8CAEl6oQs%3D", "sig=u8IX3HtXI1LPEg8rsRStQZjDHxGzf7WY3XhgNx0Ws6U="],
    "mysql-password": ["mysql -u root -pS3cr3tPw9", "mysqldump -uroot -p'S3cr3t!x' db", "mariadb -u root -p Zx9!kLm2q"],
    "curl-password": ["curl -u admin:S3cr3t!x", "curl -sS \\\n --user=bob:Tr0ub4dor3 https://x"],
    "api-key": ["--api-key hunter22x", "-apikey=Zx9Yw8Vu7", "--openai-API_KEY 'S3cr3t!x9'"],
    "password": ["PGPASSWORD=s3cr3t!x9", "the db password is Tr0ub4dor&3-horse-battery", "Pwd: hunter22x!",
                 "SECRET=abc123xyz", "passwd => 'b4dP@ss1'", "SECRET_KEY=Dj4ngoInsecure9f8e7d6c5b",
                 'app.config["SecretKey"] := "Fl4skS3cretK3y2!x"', "--db-password S3cr3t!x9",
                 "passphrase: correct-horse-battery-staple", "--client-secret hunter22x", 'passwd: "open sesame please"',
                 "password=&quot;hunter22&quot;"],
    "token": ["AWS_SESSION_TOKEN=FwoGZXIvYXdzEJr//////////wEaDFake", "access_token: 'Zx9Yw8Vu7Ts6Rq5Po4'",
              'accessToken = "Zx9Yw8Vu7Ts6Rq5Po4Nm"', "--token hunter22x", "-Token=s3cr3t!x9"],
    "api-key-header": ["X-Api-Key: Vk8Lp2Qz7Wx4Rn9Tb3Yc", "\"x-api-key\": \"Vk8Lp2Qz7Wx4Rn9Tb3Yc\"", "API-KEY:Vk8Lp2Qz7Wx4Rn9Tb3Yc"],
    "authorization-token": ["Authorization: token Zt7Kq2Lm9Wx4Rv8Nb3Yc5Hd1"],
    "cookie": ["Cookie: sid=Ck7Jw2Lp9Xm4Rq8Tz3V; csrf=Fz2Kq8Wm4Tx7", "set-cookie: s=Sx8Kq2Lm7Wz4Tv9; Path=/x1x2x3x4"],
    "env-secret": ["SENDGRID_KEY=Gh5Tr8Yu2Io4Pw7E", "DB_PASS='Pd3Lk9Mn2Qw7'", "NPM_AUTH_TOKEN=Zq8kLm2vT9x",
                   "APP_CREDENTIALS=Zq8k!Lm2vT9x"],
    "docker-password": ["docker login -u bob -p Dk9#Lm2Xq7W registry.io", "podman login -pDk9xLm2Xq7W r.io"],
    "sshpass-password": ["sshpass -p 'Sp4ss!word9' ssh bob@h", "sshpass -e -pSp4ss!word9 ssh h"],
    "redis-password": ["redis-cli -h r -a R3d1sP4ss!x9 ping", "redis-cli --pass R3d1sP4ss!x9"],
    "netrc-password": ["machine api.x.io login bob password N3tRc!pw9z", "machine h\\n  password N3tRc!pw9z"],
    "encoded-password": ["password%3DLk8vT2qW9mZ%26u%3Db", "passwd%3DQb7zR2mW9kY"],
    "docker-auth": ['"auth": "Ym9iOkRrOSNMbTJYcTdX"', '\\"auth\\": \\"Ym9iOkRrOSNMbTJYcTdX\\"'],
    "kubeconfig-client-key": ["client-key-data: LS0tLS1CRUdJTiBSU0EgUFJJVkFURSBLRVktLS0tLQpNSUlF"],
    "base64-token": ["Z2hwXzRmVDlrTG0yUXg3Uno4V3YxWWIzTmM2SGQwSnM1UGEyVWU5Rw==", "QUtJQVo3UTNYSzlMTTJQVzRSVDg="],
    "continued-token": ["AKIAW4R8\\\n  T2K9LM5PQ7ZX", "ghp_4fT9kLm2Qx7Rz8Wv1Yb3\\\nNc6Hd0Js5Pa2Ue9G"],
}
#: Pieces put between and around them: separators, the start strings alone, names with no value, JSON escapes.
FILLERS = [" ", "\n", "\\n", "\"", "'", ":", "=", "@", "/", "_", "-", ".", "task-", "ask-", "x", "Ab9", "the ",
           "sk-", "AKIA", "gh", "://", "secret", "password", "pwd", "aws", "authorization", "Bearer ", "eyJ", "\u00e9",
           "token", "Token", "tokens", "SG.", "mysql -p", " -pX", " -p ", "curl -u ", "--user ", "sig=", "SharedAccessKey=", "--password ", "AccountKey=", "Basic ", "(", "]", "_KEY",
           "KEY=", "_PASS=", "Cookie: ", "; ", "api-key: ", "token ", "docker login ", "%3D", "&#61;", "machine h ",
           "\\\n", "Z2hwX", "QUtJQ",
           "&quot;", "&amp;", "&#39;", "&lt;", " shop", " -D db", "--token ", "--api-key ", "--secret ", '"',
           "\U0001f600", *secret_forms._FOLDS]
NAMES = re.compile(r"(?i:password|passwd|passphrase|pwd|secret|aws|access|authorization|bearer|basic|key|is)")


def reference_find(text: str) -> list[tuple[str, int, int]]:
    """``find`` as it was before ``_STARTS``: each form's expression over the whole text, when one of its hints is in it
    (a form of no hints always; a text holding HTML character references read as the characters they stand for, as
    ``find`` reads it)."""
    if (read := secret_forms.entities_read(text)) is not None:
        plain, source = read
        return [(kind, source(a)[0], source(b - 1)[1]) for kind, a, b in reference_find(plain)]
    out = []
    for order, (name, rx, hints) in enumerate((n, re.compile(r), h) for n, r, h in KINDS):
        if not hints or any(h in text for h in hints):
            for m in rx.finditer(text):
                out += [(order, name, *span) for span in secret_forms._held(name, m)]
    if len(out) > 1:
        kept: list = []
        for f in sorted(out):
            if not any(f[2] < k[3] and k[2] < f[3] for k in kept):
                kept.append(f)
        out = kept
    return sorted(((name, a, b) for _, name, a, b in out), key=lambda f: f[1])


def _recase(rng: random.Random, text: str) -> str:
    """``text`` with its names (password, secret, authorization, …) in random case, now and then a letter ſ or K."""
    def one(m: re.Match) -> str:
        w = "".join(c.upper() if rng.random() < 0.5 else c.lower() for c in m.group())
        return w.replace("s", "\u017f", 1) if rng.random() < 0.05 else w
    return NAMES.sub(one, text)


def _texts(seed: int, n: int):
    rng = random.Random(seed)
    samples = [s for group in SAMPLES.values() for s in group]
    for _ in range(n):
        parts = [rng.choice(samples) if rng.random() < 0.4 else rng.choice(FILLERS) for _ in range(rng.randint(1, 12))]
        text = "".join(parts)
        yield _recase(rng, text) if rng.random() < 0.5 else text


def test_every_sample_is_found_as_its_form_at_its_start():
    """The samples mean what the comparison needs: each is found by the reference as its own form (a start string
    missing from _STARTS would miss it), in the case written and in another case of its names."""
    assert set(SAMPLES) == {name for name, _, _ in KINDS} == set(secret_forms._STARTS)
    for name, group in SAMPLES.items():
        for s in group:
            hints = next(h for n, _, h in KINDS if n == name)
            for text in (s, NAMES.sub(lambda m: m.group().swapcase(), s)):
                got = reference_find(text)
                if not hints or any(h in text for h in hints):  # (a name in another case holding no hint is not read: as before)
                    assert name in [f[0] for f in got], (name, text, got)
                assert find(text) == got, (name, text)


@pytest.mark.parametrize("seed", range(4))
def test_find_equals_the_whole_text_search_on_made_texts(seed):
    made = list(_texts(seed, 1500))
    differ = [t for t in made if find(t) != reference_find(t)]
    assert differ == []
    # joined past _SHORT: every hint and start string looked for at once (secret_forms._looked_once), places in code
    # points past the é among the fillers
    long = ["".join(made[i:i + 80]) for i in range(0, len(made), 80)]
    assert min(map(len, long)) > secret_forms._SHORT and all("\u00e9" in t for t in long)
    found = [reference_find(t) for t in long]
    assert [find(t) for t in long] == found and min(map(len, found)) > 20


def test_a_fold_character_makes_the_search_read_in_any_case_the_plain_way():
    """``re`` reads ſ as s in any case: in a text holding a password's name (a hint), ``PAſſWORD=…`` is a password
    whose name ``str.lower`` does not make ``password``. Found as before (the plain search)."""
    text = "password: no. PA\u017f\u017fWORD=s3cr3t!x9 and the Kelvin sign \u212a"
    assert find(text) == reference_find(text) == [("password", 23, 32)]
    text = "secret: no. \u017fECRET=abc123xyz"
    assert find(text) == reference_find(text) == [("password", 19, 28)]


def test_find_equals_the_whole_text_search_over_the_corpus(corpus_dir):
    """Every line of every transcript and hook payload of the shared corpus, and every file whole."""
    files = sorted(p for p in corpus_dir.rglob("*") if p.is_file() and p.suffix in (".jsonl", ".json"))
    assert files
    lines = 0
    for path in files:
        whole = path.read_text(encoding="utf-8", errors="replace")
        assert find(whole) == reference_find(whole), path
        for line in whole.splitlines():
            lines += 1
            assert find(line) == reference_find(line), (path, line[:200])
    assert lines > 3000


#: page_secrets._cut_head as it was: the head looked for in the text's last 1,024 characters.
def _cut_head_before(text: str) -> tuple[str, int]:
    m = page_secrets._HEADS.search(text, max(0, len(text) - page_secrets._TAIL))
    if m is None or m.end() - m.start() <= 4:
        return text, 0
    return text[:m.start() + 4] + "…", 1


def test_a_clipped_texts_cut_head_is_found_as_before():
    rng = random.Random(7)
    heads = ["AKIA", "ASIA", "ghp_", "github_pat_", "glpat-", "sk-", "xoxb-", "AIza", "GOCSPX-", "sk_live_", "hf_",
             "npm_", "eyJ", "task-", "xsk-", "_sk-"]
    tails = ["", "A", "abc123", "a.b/c+d=e-f_g", "x" * 1100, "Zz9" * 20]
    made = []
    for _ in range(3000):
        made.append("".join(rng.choice([*heads, *tails, " ", "\n", "é", "\"", "…"]) for _ in range(rng.randint(1, 8))))
    cut = [t for t in made if _cut_head_before(t)[1]]
    assert len(cut) > 500  # the texts do hold heads the clip cut
    assert [t for t in made if page_secrets._cut_head(t) != _cut_head_before(t)] == []


def _tree_found(value) -> list[str]:
    """``found_in`` as it was before session 43: every string of the tree through ``Masker(False).tree``."""
    counted = secret_forms.Masker(False)
    counted.tree(value)
    return counted.gone


def test_found_in_equals_each_text_looked_at_alone(corpus_dir):
    """``found_in`` looks at a tree's short texts together first (``_shorts_clear``): it gives what each text looked at
    alone gave, in order, over trees of made texts (each credential in one short text among clean ones, the start
    strings alone, a string split across two texts, a shared dict, texts past ``_SHORT``) and over every line of the
    corpus read as JSON; each made credential is counted once a place, as ``find`` finds it in its text."""
    rng = random.Random(43)
    made = list(_texts(43, 600))
    clean = [f"word {i} of a record" for i in range(200)]
    shared = {"k": "Authorization: Bearer abcdef1234567890abcdef12"}
    long_text = "x " * secret_forms._SHORT + "AKIAIOSFODNN7EXAMPLE"
    trees = [{"parts": [*clean[:50], t, *clean[50:]], "n": 3} for t in made]
    trees += [[*clean, "ses", "sion Bearer", "pass", "word"], {"a": shared, "b": [shared, shared]}, [clean, long_text],
              ("***", clean), [rng.choice(FILLERS) for _ in range(300)], {"only": clean}]
    counted = 0
    for tree in trees:
        want = _tree_found(tree)
        assert secret_forms.found_in(tree) == want, tree
        counted += len(want)
    assert counted >= sum(len(find(t)) for t in made) > 300
    assert len(secret_forms.found_in(trees[-5])) == 1  # the shared dict once
    assert secret_forms.found_in(trees[-1]) == []
    lines = 0
    for path in sorted(corpus_dir.rglob("*.jsonl")):
        for line in path.read_bytes().splitlines():
            value = orjson.loads(line) if line.strip() else None
            lines += 1
            assert secret_forms.found_in(value) == _tree_found(value), (path, line[:200])
    assert lines > 3000
