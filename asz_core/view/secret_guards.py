"""The checks a credential form's value passes beyond its expression (:mod:`asz_core.view.secret_kinds`' guards): each
tells a real credential from a placeholder, a variable, a name in code or a word that the form's expression also
matches. Each takes the value (a ``str``) and returns a ``bool``; :func:`looks_named_password` and
:func:`looks_mysql_password` take the form's match (an ``re.Match``) too, whose name or flag decides; none raises."""

from __future__ import annotations

import base64
import binascii
import math
import re
from collections import Counter

__all__ = ["ARGV", "CONTINUATION", "ESCAPED_BREAK", "continued_joined", "looks_url_password", "looks_random", "looks_openai", "looks_webhook", "looks_password", "looks_keyword_password", "looks_bearer",
           "looks_basic", "looks_mixed", "looks_sendgrid", "looks_named_password", "looks_passphrase", "looks_mysql_password",
           "looks_sas_signature", "looks_api_key", "looks_env_secret", "cookie_values", "looks_cookie", "looks_encoded_password",
           "looks_encoded_token", "looks_continued_token", "looks_key_data", "ENV_SECRET_WORDS",
           "looks_flagged", "looks_token"]


def looks_random(value: str) -> bool:
    """Whether a 40-character value beside an AWS secret access key's name can be one (the false-positive guard): it
    holds upper- and lower-case letters (a hex digest, a word in one case or a run of ``x`` does not) and its Shannon
    entropy is 3 bits per character or more (gitleaks' threshold for this rule; a random key's is about 4.8)."""
    if not (any(c.isupper() for c in value) and any(c.islower() for c in value)):
        return False
    n = len(value)
    return -sum(k / n * math.log2(k / n) for k in Counter(value).values()) >= 3.0


def looks_openai(value: str) -> bool:
    """Whether an ``sk-`` value can be an OpenAI key (the false-positive guard): it holds the ``T3BlbkFJ`` marker, or
    its part after the prefix holds upper- and lower-case letters and a digit (a random key of 48 or more characters
    does; ``sk-`` and hyphenated words, a placeholder such as ``sk-proj-xxxxxxxxxxxxxxxxxxxxxxxx``, do not)."""
    if "T3BlbkFJ" in value:
        return True
    body = _OPENAI_PREFIX.sub("", value, count=1)
    return any(c.isupper() for c in body) and any(c.islower() for c in body) and any(c.isdigit() for c in body)


_OPENAI_PREFIX = re.compile(r"sk-(?:(?:proj|svcacct|admin|None)-)?")


def looks_webhook(value: str) -> bool:
    """Whether a Slack webhook address can be a real one (the false-positive guard): its secret (the part after the
    last ``/``) holds upper- and lower-case letters (Slack's own placeholder, ``XXXXXXXXXXXXXXXXXXXXXXXX``, does not)."""
    secret = value.rpartition("/")[2]
    return any(c.isupper() for c in secret) and any(c.islower() for c in secret)


#: Passwords a document or a template writes where the real one goes (compared in lower case).
_PLACEHOLDER_PASSWORDS = frozenset({"pass", "pwd", "pw", "secret", "changeme", "pass123", "mysecretpassword"})


def looks_password(value: str) -> bool:
    """Whether an address's password can be a real one (the false-positive guard): not a placeholder such as
    ``password``, ``your_password``, ``PASSWD``, ``pass``, ``secret`` (any case), not a variable or template
    (``$DB_PASSWORD``, ``${PW}``, ``{{ pw }}``, ``%(pw)s``, ``<pw>``), not one character repeated or masked already
    (``***``, ``xxxx``), not a port (5 digits or fewer: ``http://host:8080@…`` is a host and port)."""
    low = value.lower()
    if "password" in low or "passwd" in low or low in _PLACEHOLDER_PASSWORDS:
        return False
    if value[0] in "$%" or any(c in value for c in "{}<>") or len(set(value)) == 1 or set(value) <= set("*xX."):
        return False
    return not (value.isdigit() and len(value) <= 5)


def looks_url_password(value: str) -> bool:
    """The ``url-password`` form's check: :func:`looks_password`, and, for a value holding ``#``, what stands before
    its first ``#`` no port either (``http://host:8080#top@x`` is a host, its port and a fragment; the ``#`` of
    ``postgres://admin:Xk9#mP2vL7qZ@db`` is the password's, left unencoded: trial 44c F3)."""
    head = value.partition("#")[0]
    return looks_password(value) and not (head.isdigit() and len(head) <= 5)


#: A name or a dotted path in code (``self.password``, ``os.environ``, ``base64.b16encode``, ``user_pw``), or words
#: joined by ``-`` with no digit (``aws-access-key-id`` of ``f["secret"] == "aws-access-key-id"``, ``my-secret-key``): no
#: password's value (``hunter2``, a name with a digit and no dot, may be one).
_CODE_NAME = re.compile(r"[A-Za-z_]+(?:-[A-Za-z_]+)*|[A-Za-z_][A-Za-z0-9_]*(?:\.[A-Za-z_][A-Za-z0-9_]*)+")
#: A file's path (``/run/secrets/db``, ``~/.pgpass``, ``./certs/key.pem``, ``../x``): a leading ``/``, ``~/``, ``./`` or
#: ``../``, then letters, digits, ``/``, ``.``, ``_`` and ``-`` only. What a name ending ``_FILE``, ``PWD`` or ``_PATH``
#: is given; no password (one holding another sign, ``/Xy9!q``, is still found).
_PATH = re.compile(r"(?:/|~/|\.{1,2}/)[A-Za-z0-9/._-]*")
#: Words a value holds that say it stands in for a secret, compared in lower case (gitleaks' generic rule drops a value
#: holding one of its stop words alike): ``dev-only-secret-not-for-production-use-…-placeholder``, the Phoenix
#: ``secret_key_base`` of the shared corpus's config files; ``example-key``, ``changeme123``, ``dummy-token-1``.
_STAND_IN = ("placeholder", "example", "changeme", "dummy", "dev-only", "test-only", "not-for-production")
#: The signs a password's value may hold beside its letters (a dot or ``_`` alone makes a name, not a password).
_SIGNS = frozenset("!#$%&*+-/=?@^|~:")


def looks_keyword_password(value: str) -> bool:
    """Whether a value given to a password's name (the ``password`` form) can be a real password (the false-positive
    guard): :func:`looks_password` (not a placeholder, variable, template, one repeated or masked character), a
    letter in it and a digit or a sign of :data:`_SIGNS` too (``hunter2``, ``Tr0ub4dor&3-horse-battery``), never a
    name or dotted path of code (``self.password``, ``os.environ``, ``base64.b16encode``: :data:`_CODE_NAME`), nor one ending in
    ``:`` or ``=`` (a further name: ``password: str`` is a type, ``pwd=`` a flag awaiting its value), nor an address
    (``PASSWORD_RESET_URL=https://…``: a password in one is ``url-password``'s) or a file's path
    (``PWD=/home/user/app`` in an environment dump, ``DB_PASSWORD_FILE=/run/secrets/db``: :data:`_PATH`), nor one
    starting ``-``, ``+``, ``?`` or ``:`` (a shell's ``${SECRET:-unset}``, a flag, a reST role: ``:type password:
    :py:data:`bytes```), nor one saying it stands in for a secret
    (:data:`_STAND_IN`)."""
    if not looks_password(value) or value[-1] in ":=." or _CODE_NAME.fullmatch(value):
        return False
    if "://" in value or _PATH.fullmatch(value) or value[0] in "-+?:":
        return False
    low = value.lower()
    if any(word in low for word in _STAND_IN):
        return False
    return any(c.isalpha() for c in value) and any(c.isdigit() or c in _SIGNS for c in value)


def looks_bearer(value: str) -> bool:
    """Whether a bearer token's value (the ``bearer-token`` form) can be a real one: a letter and a digit in it, not a
    JWT (its own form, ``jwt``, finds it), not a placeholder or variable (:func:`looks_password`) nor a name in capitals
    and ``_`` (``YOUR_ACCESS_TOKEN_HERE``)."""
    if value.startswith("eyJ") or not looks_password(value) or re.fullmatch(r"[A-Z_]+", value):
        return False
    return any(c.isalpha() for c in value) and any(c.isdigit() for c in value)


def looks_mixed(value: str) -> bool:
    """Whether a key of a fixed shape (``sendgrid-api-key``, ``azure-storage-account-key``) can be a real one: it holds
    upper- and lower-case letters (a placeholder of one letter repeated, ``SG.xxxx…``, or of capitals does not)."""
    return any(c.isupper() for c in value) and any(c.islower() for c in value)


def looks_sendgrid(value: str) -> bool:
    """Whether an ``SG.`` value can be a SendGrid key: its two parts after ``SG.`` hold upper- and lower-case letters
    (:func:`looks_mixed`; SendGrid's documentation placeholder ``SG.xxxx….xxxx…`` does not)."""
    return looks_mixed(value[3:])


def looks_basic(value: str) -> bool:
    """Whether an ``Authorization: Basic`` value (the ``basic-auth`` form) is a user's credentials (RFC 7617 §2): its
    base64 decodes to UTF-8 text ``USER:PASSWORD`` holding no control character, whose password is no placeholder
    (:func:`looks_password`: ``user:password``, ``admin:${PW}``) and not empty. A word or a variable of base64's letters
    (``Basic realm``, ``$AUTH``) decodes to no such text."""
    try:
        text = base64.b64decode(value + "=" * (-len(value) % 4), validate=True).decode("utf-8")
    except (binascii.Error, UnicodeDecodeError, ValueError):
        return False
    user, colon, password = text.partition(":")
    if not colon or not password or any(ord(c) < 32 or ord(c) == 127 for c in text):
        return False
    return looks_password(password)


#: The words of a name that make it a password's whole (the ``password`` form's ``word`` or ``flag`` ending the name):
#: a passphrase given to it is taken (:func:`looks_named_password`). ``secret`` and ``pwd`` are not among them: a
#: secret's name often names another thing (``secret_name: aws-access-key-id``, ``MY_SECRET = "my-secret-key"``), and
#: ``PWD`` is a folder.
PASSWORD_NAMES = frozenset({"password", "passwd", "passphrase"})
#: A passphrase: two or more words of lower-case letters joined by ``-`` (``correct-horse-battery-staple``,
#: ``purple-monkey``; session 44: two words), or, quoted, by a space (``"purple monkey"``, ``'open sesame please'``).
_PASSPHRASE = re.compile(r"[a-z]{2,}(?:-[a-z]{2,})+|[a-z]{2,}(?: [a-z]{2,})+")
#: Words that make a phrase a description, a message or a stand-in, not a passphrase (``not-set-yet``,
#: ``your-db-pass``, ``read-from-env``, ``use-the-vault``; session 44, two words and spaced phrases: ``"is required"``,
#: ``"see below"``, ``"same as above"``, ``"too short"``, ``"mot de passe"``).
_NOT_PASSPHRASE = frozenset({
    "your", "my", "use", "here", "enter", "insert", "replace", "put", "some", "value", "secret", "pass", "passphrase",
    "phrase", "key", "not", "set", "none", "null", "empty", "default", "required", "optional", "auto", "generated",
    "random", "env", "vault", "file", "read", "only", "write", "sample", "test", "fake", "hidden", "redacted", "masked",
    "xxx", "is", "are", "be", "must", "should", "will", "can", "cannot", "does", "do", "see", "ask", "same", "as",
    "above", "below", "tbd", "todo", "unknown", "blank", "leave", "later", "change", "this", "that", "user", "admin",
    "login", "account", "new", "old", "current", "confirm", "reset", "forgot", "invalid", "wrong", "incorrect", "too",
    "short", "long", "weak", "strong", "field", "string", "text", "type", "input", "provided", "missing", "needed",
    "stored", "saved", "encrypted", "hashed", "plain", "plaintext", "least", "characters", "chars", "length", "min",
    "max", "minimum", "maximum", "match", "matches", "mot", "passe", "word", "no", "yes", "true", "false"})
#: Short words a passphrase may hold beside its own (``the-quick-brown-fox``, ``"over the moon"``): not counted among
#: the two words of its own it needs (``opt-in``, ``built-in`` and ``on-demand`` are no passphrase).
_FILLER = frozenset({"the", "of", "to", "for", "from", "with", "and", "or", "in", "on", "at", "by", "an", "our", "off",
                     "out", "up", "it"})


def looks_passphrase(value: str) -> bool:
    """Whether lower-case words joined by ``-`` (or, quoted, by a space) can be a passphrase a person chose
    (``correct-horse-battery-staple``, ``purple monkey``): two or more words of two or more letters
    (:data:`_PASSPHRASE`), 8 characters or more, two of them no filler (:data:`_FILLER`), none of
    :data:`_NOT_PASSPHRASE`, no stand-in for a secret (:func:`looks_password`, :data:`_STAND_IN`)."""
    if len(value) < 8 or not _PASSPHRASE.fullmatch(value) or not looks_password(value) \
            or any(w in value for w in _STAND_IN):
        return False
    words = value.replace("-", " ").split(" ")
    return not any(w in _NOT_PASSPHRASE for w in words) and sum(w not in _FILLER for w in words) >= 2


#: What stands before a flag's word (the ``password``, ``token`` and ``api-key`` forms' group ``flag``): one or two
#: ``-`` at a word's start (after white space, a quote, ``=``, a bracket, the text's start or a JSON escape's ``\n``),
#: then the flag's other words (``--client-secret``, ``--db-password``, ``-token``); not a word joined by ``-`` in
#: prose (``top-secret``).
_FLAG_HEAD = re.compile(r"(?:(?<![A-Za-z0-9_\-\\])|(?<=\\[nrt]))--?(?:[A-Za-z0-9]+[-_])*\Z")
#: A flag's value that is a specification or a reference, not a secret: a name then ``=`` or ``:`` (docker's
#: ``--secret id=npmrc,src=…``, ``--secret env:API_KEY``).
_SPEC = re.compile(r"[A-Za-z_][A-Za-z0-9_.-]*[=:]")


def _flag_head(m: re.Match) -> bool:
    """Whether the word match ``m`` begins at (a flag's last word) ends a command's flag (:data:`_FLAG_HEAD`)."""
    return bool(_FLAG_HEAD.search(m.string, max(m.start() - 64, 0), m.start()))


def looks_flagged(value: str, m: re.Match) -> bool:
    """Whether a value given to a flag (a match beginning at the flag's last word, group ``flag`` set: ``--secret
    VALUE``, ``--api-key=VALUE``) can be a secret: the flag a command's word (:func:`_flag_head`), the value
    :func:`looks_keyword_password` and no specification or reference (:data:`_SPEC`)."""
    return _flag_head(m) and looks_keyword_password(value) and not _SPEC.match(value)


#: The rest of a name after ``secret`` that makes it a key's identifier (``-key-id``, ``_KEY_ID``, ``KeyId``), whose value
#: is public as an access key's id is.
_KEY_ID = re.compile(r"(?i:[_-]?key[_-]?id)")


def looks_named_password(value: str, m: re.Match) -> bool:
    """The ``password`` form's check: given to a flag (group ``flag``: ``--password``, ``--client-secret``), only a
    command's flag (:func:`looks_flagged`); then :func:`looks_keyword_password`; or, where the name is a password's
    whole, a passphrase (:func:`looks_passphrase`): a flag ending in one of :data:`PASSWORD_NAMES` (``--password``),
    or a name ending in one (group ``word``, no ``rest``: ``password``, ``DB_PASSWORD``, ``passphrase``) given its
    value by ``=``, ``:``, ``:=``, ``=>`` or ``is``, never compared (``==``); words joined by a space only between
    quotes (``password: "purple monkey"``). So ``password: correct-horse-battery-staple`` is taken and
    ``secret_name: aws-access-key-id`` or ``f["secret"] == "aws-access-key-id"`` are not (sessions 43, 44). A name whose
    words after ``secret`` are a key's id (``--secret-key-id=…``, ``SECRET_KEY_ID``, ``secretKeyId``: :data:`_KEY_ID`)
    names a key, not its secret (session 45)."""
    flag, word = m.group("flag"), m.group("word")
    if (flag and not _flag_head(m)) or (word and _KEY_ID.fullmatch(m.group("rest") or "")):
        return False
    if (flag or m.group("dash") is not None) and " " in value and _quoted(m.string, *m.span("value")) \
            and looks_keyword_password(value.replace(" ", "")):  # a flag's quoted password holding a space (forms 10)
        return True
    if " " not in value and looks_keyword_password(value) and not (flag and _SPEC.match(value)):
        return True
    named = (flag or "").lower() in PASSWORD_NAMES or (
        (word or "").lower() in PASSWORD_NAMES and not m.group("rest")
        and "==" not in m.string[m.end("word"):m.start("value")])
    return named and looks_passphrase(value) and (" " not in value or _quoted(m.string, *m.span("value")))


def _quoted(text: str, a: int, b: int) -> bool:
    """Whether ``text[a:b]`` stands between two of the same quote (``"…"``, ``'…'``, JSON's ``\\"…\\"``)."""
    for q in ('\\"', "\\'", '"', "'"):
        if text.startswith(q, b) and text[max(a - len(q), 0):a] == q:
            return True
    return False


def looks_token(value: str, m: re.Match) -> bool:
    """The ``token`` form's check: given to a flag (group ``flag``, the space or ``=`` after ``--token``),
    :func:`looks_flagged`, and none of the flag's words one of :data:`_TOKEN_NOT_SECRET` (``--next-token``,
    ``--client-request-token``: a page's or a request's token); after ``aws_session_token`` and a space or an argument
    list's ``", "`` (group ``set``), :func:`looks_keyword_password` where ``aws configure set`` gives it
    (:data:`~asz_core.view.secret_kinds.AWS_SET_BEFORE`; session 46); else :func:`looks_keyword_password`."""
    if m.groupdict().get("set") is not None:  # aws_session_token VALUE: only where aws configure set gives it
        from .secret_kinds import AWS_SET_BEFORE

        before = AWS_SET_BEFORE.search(m.string, max(m.start() - 160, 0), m.start())
        return before is not None and looks_keyword_password(value)
    if m.group("flag") is None:
        return looks_keyword_password(value)
    head = _FLAG_HEAD.search(m.string, max(m.start() - 64, 0), m.start())
    words = re.split(r"[-_]", head.group().lstrip("-").lower()) if head else []
    return looks_flagged(value, m) and not any(w in _TOKEN_NOT_SECRET for w in words)


#: The words of a flag ending in ``-token`` whose value is no credential (review44, over the AWS CLI's examples: a
#: page's ``--next-token``, ``--starting-token``, ``--next-page-token``; a request's ``--client-token``,
#: ``--client-request-token``, ``--idempotency-token``; ``--change-token``, ``--lock-token``,
#: ``--lifecycle-action-token``, ``--copy-product-token``, ``--work-unit-token``, ``--confirmation-token``).
_TOKEN_NOT_SECRET = frozenset({"next", "starting", "page", "pagination", "continuation", "client", "request",
                               "idempotency", "change", "lock", "lifecycle", "action", "copy", "product", "work", "unit",
                               "confirmation", "sync", "cancel", "resume"})


def looks_mysql_password(value: str, m: re.Match) -> bool:
    """The ``mysql-password`` form's check: glued to ``-p`` (``-pS3cr3t``), :func:`looks_keyword_password`; after
    ``-p`` and a space (group ``gap``), where the client reads a database's name, only a value a database is not
    named: :func:`looks_keyword_password` and a sign of :data:`_SIGNS` in it, or upper- and lower-case letters and a
    digit (``-p S3cr3tPw9``, ``-p 'hunter2!'``; not ``-p shop``, ``-p app_db2``); or, for the client itself
    (``mysql``, ``mariadb``), any such value when the command names its database elsewhere
    (:func:`_database_apart`: ``mysql -u root -p hunter22 shop``, ``mysql -p hunter22 -D shop``; session 44)."""
    if not looks_keyword_password(value):
        return False
    if m.group("gap") is None:
        return True
    return any(c in _SIGNS for c in value) or (any(c.isupper() for c in value) and any(c.islower() for c in value)
                                              and any(c.isdigit() for c in value)) or _database_apart(m)


#: A shell command's word (quotes kept: ``-e "select 1"`` is one word, JSON's ``\"…\"`` too), a redirection's
#: operator (``<``, ``2>``, ``>>``) or what ends the command: anything else (``;``, ``|``, ``&``, a line's end, a
#: bracket, a lone quote). Words are parted by blanks and line continuations, in any of
#: :data:`CONTINUATION`'s spellings or folded to one line (a backslash before a blank: a call's one-line summary; session
#: 45).
_SHELL_WORD = re.compile(r"(?:[ \t]|\\{1,2}\n|\\{3}n|\\(?=[ \t]))*(?:(?P<redirect>[0-9]*[<>]+&?)|(?P<word>(?:\\\"(?:(?!\\\").)*\\\"|\"[^\"\n]*\"|'[^'\n]*'"
                         r"|[^\s;|&\"'`()<>\\])+))")
#: The mysql client's short options that take a value as the next word (``-u root``; ``-uroot`` holds its own).
_MYSQL_VALUED = frozenset("uhPDeS")
#: The mysql (and mariadb) client's long options that take a value as the next word when written without ``=``
#: (``--user root``, ``--ssl-mode REQUIRED``; its ``--help``): any other long option is a switch (``--ssl``,
#: ``--skip-column-names``, ``--batch``) and the word after it is the database's name (session 45: ``mysql -p hunter22
#: --ssl shop`` read ``shop`` as ``--ssl``'s value and kept the password whole).
_MYSQL_LONG_VALUED = frozenset({
    "user", "host", "port", "socket", "database", "execute", "protocol", "default-character-set", "character-sets-dir",
    "defaults-file", "defaults-extra-file", "defaults-group-suffix", "login-path", "init-command", "connect-timeout",
    "max-allowed-packet", "net-buffer-length", "select-limit", "max-join-size", "prompt", "tee", "delimiter",
    "plugin-dir", "default-auth", "bind-address", "ssl-ca", "ssl-capath", "ssl-cert", "ssl-cipher", "ssl-crl",
    "ssl-crlpath", "ssl-key", "ssl-mode", "ssl-fips-mode", "tls-version", "tls-ciphersuites", "tls-sni-servername",
    "server-public-key-path", "compression-algorithms", "zstd-compression-level", "load-data-local-dir", "histignore",
    "dns-srv-name", "network-namespace", "shared-memory-base-name", "oci-config-file", "register-factor",
    "authentication-oci-client-config-profile", "plugin-authentication-kerberos-client-mode", "fido-register-factor",
    "read-timeout", "write-timeout", "max-statement-time"})


def _shell_words(text: str, at: int) -> list[tuple[str, str]]:
    """``(kind, word)`` of each word of the command in ``text`` from ``at`` to its end (:data:`_SHELL_WORD`)."""
    out = []
    while (w := _SHELL_WORD.match(text, at)) is not None and w.end() > at:
        out.append(("redirect", w.group("redirect")) if w.group("redirect") else ("word", w.group("word")))
        at = w.end()
    return out


#: A line break or tab escaped in a text: ``\n``, ``\r``, ``\t`` after one or more backslashes. A JSON string writes
#: a line break ``\n``; JSON written inside a JSON string (a tool input holding a service account's JSON, drawn as JSON
#: by the exports; a transcript line a tool printed) ``\\n``, and so on a level deeper (trial 44c F1: a PEM key's
#: lines after ``\\n`` were written whole in md, html and json while the page masked them). The one rule every form
#: and a PEM key's body read such a break by (:mod:`asz_core.view.secret_forms`).
ESCAPED_BREAK = r"\\+[nrt]"
#: A quote of an argument list's string, as written or JSON-escaped (:data:`ARGV`).
_ARGV_QUOTE = r"\\?[\"']"
#: The ``,`` between two strings of an argument list and the white space (real or a JSON escape's) around it.
_ARGV_COMMA = r"(?:\s|" + ESCAPED_BREAK + r")*,(?:\s|" + ESCAPED_BREAK + r")*"
#: Between two strings of a list, as an argument vector writes a command's words (an MCP call's or a subprocess's
#: ``["--token", "VALUE"]``, Python's ``['gh', '--token', 'VALUE']``, JSON inside a JSON string ``[\\"-p\\", …]``, a
#: list drawn indented): the one's closing quote, ``,`` and the other's opening quote, white space (real or a JSON
#: escape's) around the ``,`` (session 45). The forms' rule (:mod:`asz_core.view.secret_kinds`).
ARGV = _ARGV_QUOTE + _ARGV_COMMA + _ARGV_QUOTE
#: An argument list's item after the one before it, as :data:`ARGV` parts them: its closing quote, ``,`` and white
#: space, the item between two of the same quote; the first item's opening quote alone at the list's start.
_ITEM = re.compile("(?:" + _ARGV_QUOTE + ")?" + _ARGV_COMMA + "(?P<q>" + _ARGV_QUOTE + r")(?P<word>(?:(?!(?P=q)).)*)(?P=q)")


def _items(text: str, at: int) -> list[tuple[str, str]]:
    """``("word", item)`` of each item of the argument list in ``text`` from ``at`` (just after an item's text, before
    its closing quote) to the list's end or the first thing no item is (session 46: ``["mysql", "-p", "…", "shop"]``)."""
    out = []
    while (w := _ITEM.match(text, at)) is not None:
        out.append(("word", w.group("word")))
        at = w.end() - len(w.group("q"))
    return out


def _database_apart(m: re.Match) -> bool:
    """Whether the mysql client's command of ``m`` (group ``prog`` exactly ``mysql`` or ``mariadb``) names its
    database other than by the word after ``-p``: ``-D``/``--database`` anywhere in it, or a word after the value
    that is neither an option, an option's value (``-h host``, ``--user root``), nor a redirection and its file
    (``< dump.sql``); the client reads one database, so the word after ``-p`` is then the password."""
    if m.group("prog") not in ("mysql", "mariadb"):
        return False
    text, a, b = m.string, m.start("value"), m.end("value")
    if m.groupdict().get("item") is not None:  # an argument list: its items are the command's words
        before, after = _items(text[:a], m.end("prog")), _items(text, b)
    else:
        if a and text[a - 1] in "'\"" and text.startswith(text[a - 1], b):  # the value's own quotes
            b += 1
        before = _shell_words(text[:a], m.end("prog"))
        after = _shell_words(text, b)  # (a quote closing a command the value ends, bash -c "… -p db2", ends it here)
    if any(w.startswith(("-D", "--database")) for _, w in before + after):
        return True
    skip = False
    for kind, w in after:
        if skip or kind == "redirect":
            skip = kind == "redirect"
            continue
        if w.startswith("--"):
            skip = "=" not in w and w[2:].replace("_", "-") in _MYSQL_LONG_VALUED
        elif w.startswith("-"):
            skip = len(w) == 2 and w[1] in _MYSQL_VALUED
        else:
            return True
    return False


def looks_sas_signature(value: str) -> bool:
    """Whether an Azure shared access signature's ``sig=`` value is one: percent-decoded, the base64 of 32 bytes
    (HMAC-SHA256) holding upper- and lower-case letters (:func:`looks_mixed`; ``sig=xxxx…`` is none)."""
    text = re.sub(r"%(2[BbFf]|3[Dd])", lambda h: chr(int(h.group(1), 16)), value)
    try:
        raw = base64.b64decode(text + "=" * (-len(text) % 4), validate=True)
    except (binascii.Error, ValueError):
        return False
    return len(raw) == 32 and looks_mixed(text)


#: The last words of an environment variable's name that name a secret the forms before ``env-secret`` do not read
#: (``TOKEN`` is ``token``'s, ``SECRET``, ``PWD`` and ``PASSWORD`` are ``password``'s), and that which names the secret
#: alone, without a word before it (``PASS=…``; never ``KEY=…``).
ENV_SECRET_WORDS = ("KEY", "PASS")
_ENV_ALONE = frozenset({"PASS"})
#: Words of a name that say its value is public (a key's id, a public or publishable key, a GPG key's fingerprint).
_ENV_PUBLIC = ("PUBLIC", "PUBLISHABLE", "GPG", "PGP", "_ID_")
#: Values a secret's name is often given that are none: a hex digest of 40 or 64 digits (a commit id, a SHA-256: a
#: cache's key), an identifier, a version or a slug of lower-case words (``tenant_id2``, ``v1.2.3``, ``orders-v2``), a
#: file's relative path with an extension (``certs/server.key``).
_ENV_NOT_SECRET = re.compile(r"[0-9a-fA-F]{40}|[0-9a-fA-F]{64}|[a-z0-9]+(?:[._-][a-z0-9]+)+"
                             r"|(?:[A-Za-z0-9_.-]+/)+[A-Za-z0-9_-]+\.[A-Za-z0-9]{1,5}")


def looks_api_key(value: str) -> bool:
    """The ``api-key-header`` form's check (``X-Api-Key: …``): a token as :func:`looks_bearer` judges one, and no name
    or path of code, variable or stand-in as :func:`looks_keyword_password` judges a password."""
    return looks_bearer(value) and looks_keyword_password(value)


def looks_env_secret(value: str, m: re.Match) -> bool:
    """The ``env-secret`` form's check (``API_KEY=…``, ``SENDGRID_KEY=…``, ``DB_PASS=…``; the match begins at the
    name's last word): the whole name, read back from the match's start, is of upper-case letters, digits and ``_`` (an
    environment variable's: ``myKEY=`` is not one), not after a letter or digit (but a JSON escape's ``n``, ``r`` or
    ``t``), its last word a word of :data:`ENV_SECRET_WORDS` after ``_`` (or ``API`` for ``APIKEY``), or that word
    alone for those of :data:`_ENV_ALONE`, given with ``=`` (``PASS: addr2line``, Go's ``--- PASS: Test_x``, is a test's
    result: review44, 98,292 such lines of binutils' test summary found); no word of :data:`_ENV_PUBLIC` in it; the value as
    :func:`looks_keyword_password` judges it, 8 characters or more, and after ``KEY`` (not a password's name) none of
    :data:`_ENV_NOT_SECRET`."""
    text, at = m.string, m.start()
    a = at
    while a > 0 and at - a < 64 and (text[a - 1].isupper() or text[a - 1].isdigit() or text[a - 1] == "_"):
        a -= 1
    before = text[a - 1] if a else ""
    if before.isalnum() and not (before in "nrt" and a >= 2 and text[a - 2] == "\\"):
        return False
    name, word = text[a:m.end("word")], m.group("word")
    prefix = name[:-len(word)]
    if not (prefix.endswith("_") or (word == "KEY" and prefix.endswith("API")) or (not prefix and word in _ENV_ALONE)):
        return False
    if not prefix and "=" not in text[m.end("word"):m.start("value")]:  # PASS: NAME is a test's result (review44)
        return False
    if any(w in f"_{name}_" for w in _ENV_PUBLIC) or len(value) < 8 or not looks_keyword_password(value):
        return False
    return word == "PASS" or not _ENV_NOT_SECRET.fullmatch(value)


def cookie_values(m: re.Match) -> list[tuple[int, int]]:
    """``(start, end)`` of each cookie's value in a ``Cookie:`` header's pairs (the ``cookie`` form's group ``value``:
    ``name=value; name=value``), of the first pair alone after ``Set-Cookie:`` (what follows it are the cookie's
    attributes, ``Path=/``, ``Max-Age=3600``); a value's quotes left out. Each is then judged by
    :func:`looks_cookie`."""
    a, b = m.span("value")
    text = m.string
    single = text[max(m.start() - 4, 0):m.start()].lower() == "set-"
    out = []
    for pair in re.finditer(r"[ \t]*([^=;\s]+)=\"?([^;\s\"]*)\"?[ \t]*(?:;|$)", text[a:b]):
        out.append((a + pair.start(2), a + pair.end(2)))
        if single:
            break
    return out


def looks_cookie(value: str) -> bool:
    """Whether a cookie's value can be a session's secret: 8 or more characters holding a letter and a digit, no
    placeholder or variable (:func:`looks_password`); ``theme=dark``, ``lang=en-US``, ``id=42`` are none."""
    return len(value) >= 8 and looks_password(value) and any(c.isalpha() for c in value) and \
        any(c.isdigit() for c in value)


def looks_encoded_password(value: str) -> bool:
    """The ``encoded-password`` form's check (``password%3D…`` URL-encoded, ``password&#61;…`` an HTML entity): the
    value percent-decoded, as :func:`looks_keyword_password` judges a value given to a password's name."""
    from urllib.parse import unquote

    return looks_keyword_password(unquote(value))


#: How long a base64 text (:func:`looks_encoded_token`) or a text joined across line continuations
#: (:func:`looks_continued_token`) may be decoded to: a token's length, not a file's.
_SHORT_DECODED = 300
#: A shell's line continuation, a backslash ending its line, as a text holds it: written, JSON-escaped (three backslashes
#: and ``n``), or as the search index holds a JSON text (two backslashes and a line break,
#: :func:`~asz_core.reading.search_hits.json_text`; trial 44c: ``asz secrets`` missed the token in a tool's input).
CONTINUATION = r"(?:\\\\\\n|\\\\\n|\\\n)"
#: A continuation and the next line's indent.
_CONTINUATION = re.compile(CONTINUATION + r"[ \t]*")


def continued_joined(value: str) -> str:
    """``value`` (a ``continued-token`` match) without its continuations: the token as one string, whatever form
    the text wrote them in, so one token has one fingerprint in every reader's texts (trial 44c)."""
    return _CONTINUATION.sub("", value)


def _known_token(text: str) -> bool:
    """Whether ``text`` is, whole, a credential of a form with a fixed prefix (:data:`secret_kinds.PREFIXED`) that
    passes that form's check: the decoded or joined text :func:`looks_encoded_token` and
    :func:`looks_continued_token` test against the known forms only."""
    from .secret_kinds import GUARDS, KINDS, PREFIXED

    for name, rx, _ in KINDS:
        if name in PREFIXED and (got := re.fullmatch(rx, text)) is not None:
            guard = GUARDS.get(name)
            return guard is None or guard(got.group())
    return False


def looks_encoded_token(value: str) -> bool:
    """The ``base64-token`` form's check: ``value`` (base64 beginning as a known prefix encodes, ``Z2hwX`` for
    ``ghp_``) decodes to ASCII text of at most :data:`_SHORT_DECODED` characters that is, but for a line break at its
    end (``echo … | base64``), a credential of a known form (:func:`_known_token`). No other base64 is guessed at."""
    if len(value) > _SHORT_DECODED * 4 // 3 + 4:
        return False
    try:
        raw = base64.b64decode(value + "=" * (-len(value) % 4), validate=True)
    except (binascii.Error, ValueError):
        return False
    return raw.isascii() and _known_token(raw.decode().rstrip("\r\n"))


def looks_continued_token(value: str) -> bool:
    """The ``continued-token`` form's check: ``value`` (a known prefix's token cut by one or more shell line
    continuations, ``AKIAW4R8\\`` and ``T2K9…`` on the next line) joined without them is a credential of a known form
    (:func:`_known_token`)."""
    joined = continued_joined(value)
    return len(joined) <= _SHORT_DECODED and _known_token(joined)


def looks_key_data(value: str) -> bool:
    """The ``kubeconfig-client-key`` form's check: the base64 of ``client-key-data:`` decodes (its first 400
    characters) to a PEM private key's first line (a certificate's data is public and none)."""
    head = value[:400]
    head = head[:len(head) // 4 * 4]
    try:
        raw = base64.b64decode(head, validate=True)
    except (binascii.Error, ValueError):
        return False
    return raw.startswith(b"-----BEGIN") and b"PRIVATE KEY" in raw[:80]
