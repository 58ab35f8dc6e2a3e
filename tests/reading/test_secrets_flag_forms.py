"""Credentials session 43 left whole (close43, "Not done"), and its false findings in HTML-escaped text: a value after
``--secret``, ``--client-secret``, ``--token``, ``--api-key`` or ``--apikey`` (a space or ``=``), mysql's ``-p`` and a
space before a value of lower case and digits when the command names its database elsewhere (a word after it, or
``-D``), a passphrase of two words, or of words a space joins between quotes, given to a password's name; and text
holding HTML character references read as the characters they stand for (``password=&quot;hunter2x&quot;`` is a
credential, ``printf(&quot;Password is correct.&quot;)`` none). Each is found by ``asz secrets`` and masked in every
reader: each export format (``--audit`` too), ``asz search``'s snippets, ``asz conversation`` and the page.

Planted into a real transcript of the shared corpus (claude-reliability: its first prompt and a tool result, an escaped
page a tool read) beside look-alikes that hold none (a file's flag, a secret's name, a port, ``--password-stdin``,
placeholders, docker's ``--secret id=…``, a database's name, messages given to a password's name). Over the whole
shared corpus none of these forms finds anything (``test_secrets_spaced_forms.test_none_over_the_shared_corpus``)."""

from __future__ import annotations

from html import escape as html_escape
from pathlib import Path

import pytest

from asz_core.view.secret_forms import find, redacted

from cli_helpers import asz_in_process
from reading_helpers import RELIABILITY, plant_in_prompt_and_result, planted_root, readers_masked, secrets_found


#: Each shape (text, form, value, as every reader shows it masked): the prompt's, then the escaped page's.
SHAPES = [
    ("gh-deploy --secret s3cr3tval9 --env prod", "password", "s3cr3tval9", "gh-deploy --secret *** --env prod"),
    ("svc login --client-secret cl13ntsecr3t", "password", "cl13ntsecr3t", "--client-secret ***"),
    ("asz receive --token hunter22x", "token", "hunter22x", "asz receive --token ***"),
    ("asz push --token=blue42sky", "token", "blue42sky", "asz push --token=***"),
    ("llm --api-key zx9wq8rt7 ask", "api-key", "zx9wq8rt7", "llm --api-key *** ask"),
    ("tool --apikey=k3yv4lu3x", "api-key", "k3yv4lu3x", "tool --apikey=***"),
    ("mysql -u root -p hunter22 shop", "mysql-password", "hunter22", "mysql -u root -p *** shop"),
    ("mysql -h db -p green7tea -D shop", "mysql-password", "green7tea", "mysql -h db -p *** -D shop"),
    ("mariadb -phunter23", "mysql-password", "hunter23", "mariadb -p***"),
    ('password: "purple monkey"', "password", "purple monkey", 'password: "***"'),
    ("PASSWORD='open sesame please'", "password", "open sesame please", "PASSWORD='***'"),
    ("<pre>db.connect(password=&quot;hunter2x&quot;)</pre>", "password", "hunter2x",
     "db.connect(password=&quot;***&quot;)"),
    ('<a href="/login?user=bob&amp;password=Tr0ub4dor9">', "password", "Tr0ub4dor9", "&amp;password=***\">"),
]
#: Texts naming a flag, a port, a database or a password that hold none (docs/reading.md, Credentials).
DECOYS = ("--token-file /run/secrets/tok1", "--secret-name my-secret", "--secret-name my-secret-2", "ssh -p 2222 host",
          "nc -l -p 8080", "docker run -p 8080:80 img", "docker login -u me --password-stdin", "--token $TOKEN",
          '--secret "${S}"', "--token <token>", "--api-key YOUR_KEY", "--token string   Token for auth",
          "docker build --secret id=npmrc,src=.npmrc .", "the top-secret plan42", "mysql -u root -p shop2 < dump.sql",
          "mysql -u root -p mydb2 -e 'select * from t'", "mysqldump -u root -p shop2 orders > o.sql",
          'ssh h "mysql -p shop2" backup', 'password: "is required"', 'password: "see below"', "password: opt-in",
          'password: "do not match"', "the password is correct horse", "printf(&quot;Password is correct.&quot;);",
          "keys like &ldquo;secret:1&rdquo;, &ldquo;secret:2&rdquo;", "&lt;password&gt; &amp;&amp; --max-token 1000")
IN_PROMPT = SHAPES[:-2]
IN_RESULT = SHAPES[-2:]
VALUES = tuple(v for _, _, v, _ in SHAPES)


@pytest.mark.parametrize("text,form,value", [*((t, f, v) for t, f, v, _ in SHAPES), *((d, None, None) for d in DECOYS)])
def test_each_shape_is_found_as_its_form_and_no_decoy(text, form, value):
    assert [(k, text[a:b]) for k, a, b in find(text)] == ([(form, value)] if form else [])
    assert shown_in(redacted(text)[0], text, form)


def shown_in(masked: str, text: str, form) -> bool:
    """Whether ``masked`` is ``text`` masked as the docs say (its shown form), or ``text`` itself for a decoy."""
    return masked == text if form is None else next(s for t, _, _, s in SHAPES if t == text) in masked


@pytest.fixture(scope="module")
def planted(tmp_path_factory, corpus_dir) -> Path:
    prompt = " ; ".join(t for t, _, _, _ in IN_PROMPT)
    page = "<html><body>\n" + "\n".join([t for t, _, _, _ in IN_RESULT] + list(DECOYS)) + "\n</body></html>"
    return planted_root(corpus_dir, tmp_path_factory.mktemp("flag-forms"), RELIABILITY,
                        plant_in_prompt_and_result(f"Also {prompt}", page))


def test_asz_secrets_names_each(planted):
    expected = sorted([(f, "prompt", v) for _, f, v, _ in IN_PROMPT] + [(f, "tool_result", v) for _, f, v, _ in IN_RESULT])
    assert secrets_found(planted, VALUES)[1] == expected


@pytest.mark.parametrize("args", [["--format", "md"], ["--format", "html"], ["--format", "json", "--redact"],
                                  ["--format", "prose", "--redact"], ["--format", "text"], ["--audit"]])
def test_every_export_format_writes_none_whole(planted, args):
    p = asz_in_process("export", "de3b8b19", *args, "--root", str(planted))
    assert p.returncode == 0, p.stderr
    out = p.stdout.replace("\\u2026", "…").replace('\\"', '"')  # (json, prose and --audit: JSON lines)
    assert [v for v in VALUES if v in out] == []
    shapes = IN_PROMPT if {"prose", "text", "--audit"} & set(args) else SHAPES  # (no tool result in those)
    html = args[-1] == "html"
    shown = [html_escape(s) if html else s for _, _, _, s in shapes]
    assert [s for s in shown if s not in out] == []


def test_search_conversation_and_the_page_mask_each(planted, tmp_path):
    """``asz search`` prints each text masked and a value finds nothing; ``asz conversation --step`` prints the talk
    masked; the page's document (masked by default) and its search results hold no value whole."""
    readers_masked(planted, tmp_path, VALUES, "gh-deploy --secret *** --env prod",
                   ("hunter22x", "hunter22", "purple monkey", "hunter2x"), [s for _, _, _, s in IN_PROMPT],
                   [t for _, _, _, t in SHAPES], "Also")
