"""A command's password is read to the end of its shell word (forms 9, session 49; trial 49a F1, HIGH).

Before, a password holding ``&``, ``(`` or, between quotes, a space was masked only up to that character in every
reader while the head said ``masked yes``: ``curl -u admin:Tr0ub4dor&3xK9`` was written ``admin:***&3xK9``, ``mysql -u
root -pTr0ub4dor&3xK9`` ``-p***&3xK9``, ``curl -u "admin:Tr0ub4dor&3xK9"`` and ``sshpass -p Tr0ub4dor&3xK9`` likewise,
``curl -u 'deploy:Xk9 mQ2;pL7'`` ``'deploy:*** mQ2;pL7'``, and ``mysql … --password=Ab1&Cd2(Ef3) shop`` not masked at
all. The values are the trial's (its tools/plant.py, plant2.py and plant3.py), planted into a real transcript of the
shared corpus (claude-reliability: its first prompt, its Bash call's command and a tool result), each checked in
``find`` (as written and as a JSON text holds it), ``asz secrets``, the md, html, text and prose ``--redact`` exports
and the search index (docs/reading.md, "A command's password is read as the shell reads its word")."""

from __future__ import annotations

import html
import json

import pytest

from asz_core.view.secret_forms import find, redacted

from cli_helpers import asz_in_process
from reading_helpers import RELIABILITY, export_masks, plant_four_places, planted_root, secrets_found

PW = "Tr0ub4dor&3xK9"
#: Each shape (text, form, value, as every reader shows it masked): the trial's planted commands.
SHAPES = [
    (f"curl -u admin:{PW} https://deploy.internal.example.com/api", "curl-password", PW, "curl -u admin:*** https://"),
    (f"mysql -u root -p{PW} shop", "mysql-password", PW, "mysql -u root -p*** shop"),
    (f'curl -u "admin:{PW}" https://x.example.com', "curl-password", PW, 'curl -u "admin:***" https://'),
    (f"sshpass -p {PW} ssh deploy@host", "sshpass-password", PW, "sshpass -p *** ssh deploy@host"),
    ("mysql -h db -u app --password=Ab1&Cd2(Ef3) shop", "password", "Ab1&Cd2(Ef3)", "--password=*** shop"),
    ("curl -u 'deploy:Xk9 mQ2;pL7' https://api.example.com/v1", "curl-password", "Xk9 mQ2;pL7",
     "curl -u 'deploy:***' https://"),
    ('docker login -u ci -p "Ab1 Cd2&x" registry.example.com', "docker-password", "Ab1 Cd2&x", '-p "***" registry'),    # forms 10: a flag's quoted password holding a space (--password was cut at the space, so taken nowhere)
    ("mysql -h db --password='Xk9 mQ2;pL7' shop", "password", "Xk9 mQ2;pL7", "--password='***' shop"),
]
#: What none of the readers may show: each value, and each tail the cut left (as html writes it too).
TAILS = ("&3xK9", "3xK9", "Cd2(Ef3)", "(Ef3)", "mQ2;pL7", "Cd2&x")
GONE = tuple({v for _, _, v, _ in SHAPES}) + TAILS + tuple(html.escape(t) for t in TAILS)
#: Look-alikes left whole: a backgrounded command after a space, a variable, a prompt for the password.
DECOYS = ("mysql -u root -p shop & wait", "curl -u admin https://x.example.com &", "sshpass -f pwfile ssh host & wait",
          'mysql -p"${DB_PASS}" shop', "run --password=$(cat pw) x", 'run --password "your password here"',
          'run --secret "my secret"')
#: The Bash call's command: the quoted curl shape.
COMMAND = SHAPES[2][0]


@pytest.mark.parametrize("text,form,value", [*((t, f, v) for t, f, v, _ in SHAPES), *((d, None, None) for d in DECOYS)])
def test_each_shape_is_found_whole_and_no_decoy(text, form, value):
    assert [(k, text[a:b]) for k, a, b in find(text)] == ([(form, value)] if form else [])
    escaped = json.dumps(text)  # as a tool input's JSON text holds it (the search index, the exports' drawn input)
    expected = json.dumps(value)[1:-1] if form else None
    assert [(k, escaped[a:b]) for k, a, b in find(escaped)] == ([(form, expected)] if form else [])


def test_masked_whole_as_the_docs_say():
    for text, _, _, shown in SHAPES:
        assert shown in redacted(text)[0], text
    assert redacted("mysql -u root -pS3cret&&ls")[0] == "mysql -u root -p***"  # over-masked, never a tail
    assert redacted(r"mysql -pAb1\&Cd2 shop")[0] == "mysql -p*** shop"  # a backslash-escaped & is the word's


@pytest.fixture(scope="module")
def planted(tmp_path_factory, corpus_dir):
    plant = plant_four_places([t for t, _, _, _ in SHAPES[:6]], "mcp__db__run", ["true"], COMMAND,
                              [SHAPES[6][0], SHAPES[7][0], *DECOYS])
    return planted_root(corpus_dir, tmp_path_factory.mktemp("shell-word"), RELIABILITY, plant)


def test_asz_secrets_names_each_whole(planted):
    """One finding a credential a text (the prompt's four places of PW are one, its first form's), each fingerprinted
    as the whole value; the count line counts every place (6 in the prompt, the Bash call's, 2 in the tool result)
    and each value once (Xk9 mQ2;pL7 is curl's in the prompt and a flag's in the result: one credential)."""
    expected = sorted([("curl-password", "prompt", PW), ("password", "prompt", "Ab1&Cd2(Ef3)"),
                       ("curl-password", "prompt", "Xk9 mQ2;pL7"), ("curl-password", "tool_input", PW),
                       ("docker-password", "tool_result", SHAPES[6][2]), ("password", "tool_result", SHAPES[7][2])])
    assert secrets_found(planted, tuple({v for _, _, v, _ in SHAPES}))[1] == expected
    said = asz_in_process("secrets", "--root", str(planted))
    assert said.stdout.splitlines()[-1] == "9 place(s) of 4 credential(s) in 1 conversation(s)"


@pytest.mark.parametrize("args", [["--format", "md"], ["--format", "html"], ["--format", "text"],
                                  ["--format", "prose", "--redact"], ["--format", "json", "--redact"]])
def test_every_export_format_writes_no_value_nor_tail(planted, args):
    shapes = SHAPES[:6] if args[1] in ("text", "prose") else SHAPES  # (text and prose draw no tool result)
    kept = () if args[1] in ("text", "prose") else DECOYS[:3]
    export_masks(planted, args, GONE, [s for _, _, _, s in shapes], kept)


def test_the_search_index_holds_no_tail(planted):
    for word in ("3xK9", "mQ2", "Ef3"):
        got = asz_in_process("search", word, "--root", str(planted), "--json")
        assert got.returncode == 0, got.stderr
        assert json.loads(got.stdout) == [], word
    got = asz_in_process("search", "Also", "--root", str(planted), "--json")
    assert got.returncode == 0 and [v for v in GONE if v in got.stdout] == []


class _Forms8:
    """Masking as forms 8 did: a command's value ended at its first ``&`` (``-p***&3xK9``, ``admin:***&3xK9``)."""

    def __call__(self, text: str, cuts: list) -> list:
        from asz_core.view.secret_forms import fingerprint
        from asz_core.view.secret_shell import SHELL_READ

        out = []
        for a, b, shown, mark, kind in cuts:
            cut = text.find("&", a, b)
            out.append((a, cut, shown, fingerprint(text[a:cut]), kind) if kind in SHELL_READ and cut > a
                       else (a, b, shown, mark, kind))
        return out


def test_a_copy_of_forms_8_holding_a_cut_password_checks_and_names_the_tail(planted, tmp_path):
    """A copy forms 8 masked (its manifest's masks_forms 8) shows the password's tail (the trial's day-2026-12-04 file,
    'mysql -u root -p***&3xK9'): asz verify --export makes it again as its manifest says, the mask where forms 8 cut
    it, so the copy checks (exit 0), and the note names where each tail stands. The prompt holds the password under
    curl's, mysql's and sshpass's forms, which the manifest lists under the first (export_forms.AsMasked._shorter:
    before, 'its texts_sha256 in the manifest is not the masking's')."""
    import json as _json

    from asz_core.view.secret_forms import choosing

    old = tmp_path / "old.md"
    with choosing(_Forms8()):
        p = asz_in_process("export", "de3b8b19", "--format", "md", "--out", str(old), "--root", str(planted))
    assert p.returncode == 0, p.stderr
    where = old.with_name("old.md.manifest.json")
    body = _json.loads(where.read_bytes())
    body["masks_forms"] = 8
    where.write_bytes(_json.dumps(body).encode())
    text = old.read_text()
    assert "-p***&3xK9 shop" in text and "sshpass -p ***&3xK9 ssh" in text  # as forms 8 wrote them
    held = asz_in_process("verify", "--export", str(old), "--root", str(planted))
    assert held.returncode == 0, held.stdout + held.stderr
    notes = [x for x in held.stdout.splitlines() if x.startswith("note: old.md: ")]
    tails = [i for i in range(len(text)) if text.startswith("***&3xK9", i)]
    places = [f"line {text.count(chr(10), 0, i) + 1} column {i - text.rfind(chr(10), 0, i)} (" for i in tails]
    assert len(notes) == 1 and "masked only in part" in notes[0] and all(p in notes[0] for p in places), held.stdout


def test_a_day_copy_of_forms_8_whose_password_two_forms_cut_checks(tmp_path, corpus_dir):
    """The trial's day-2026-12-04 folder (made at ccc9ef79, forms 8) failed asz verify --export at forms 9 with 'mask 3
    (mysql-password …): its texts_sha256 in the manifest is not the masking's': the password stood as mysql's -p on
    one day and curl's USER:… on the next, one mask listed under one form for both texts. Here: the corpus transcript
    with a second day (test_day_title_own's), its first prompt's mysql -p and the second day's reply's curl -u holding PW, the
    second day exported as the trial did, masked as forms 8 did."""
    import json as _json

    from asz_core.view.secret_forms import choosing
    from test_day_title_own import _plant

    def plant(lines: list[dict]) -> None:
        _plant(lines)
        lines[-2]["message"]["content"][0]["text"] += f" I ran curl -u admin:{PW} https://x.example.com"

    root = planted_root(corpus_dir, tmp_path / "two-days", RELIABILITY, plant)
    old = tmp_path / "old.txt"
    with choosing(_Forms8()):
        p = asz_in_process("export", "--root", str(root), "--since", "2026-01-22", "--until", "2026-01-22", "--tz", "UTC",
                           "--format", "text", "--in-range-only", "--out", str(old))
    assert p.returncode == 0, p.stderr
    where = old.with_name("old.txt.manifest.json")
    body = _json.loads(where.read_bytes())
    body["masks_forms"] = 8
    where.write_bytes(_json.dumps(body).encode())
    assert "admin:***&3xK9" in old.read_text()
    held = asz_in_process("verify", "--export", str(old), "--root", str(root))
    assert held.returncode == 0, held.stdout + held.stderr
