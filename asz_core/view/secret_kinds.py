"""The credential forms :mod:`asz_core.view.secret_forms` finds and masks: each form's name, its expression, where a
match of it can begin and the check its value passes beyond the expression (:mod:`asz_core.view.secret_guards`).
The forms are those fixed and documented by their issuer (a fixed prefix and alphabet, or a fixed name beside the
value; no entropy guess on a text of its own, so a hit is very likely a real credential and a miss is possible for
any other form); docs/reading.md, "Credentials", lists them for a reader:

==========================  ==========================================================================
``aws-access-key-id``       ``AKIA`` / ``ASIA`` and 16 upper-case letters or digits
``aws-secret-access-key``   40 characters of base64 (letters, digits, ``+``, ``/``) given to a name
                            (``aws_secret_access_key``, ``AWS_SECRET_ACCESS_KEY``, ``aws_secret_key``,
                            ``SecretAccessKey``, ``secretAccessKey``; ``=``, ``:`` or ``=>``, quotes
                            allowed; or a space or an argument list's next item after the name standing alone,
                            ``aws configure set aws_secret_access_key S``), or standing within 40 characters after an access key id (the pair
                            pasted together); only a value holding upper- and lower-case letters with
                            3 or more bits of entropy per character (:func:`looks_random`)
``github-token``            ``ghp_``, ``gho_``, ``ghu_``, ``ghs_``, ``ghr_`` and 36 or more letters or digits;
                            ``github_pat_`` and 22 or more
``gitlab-token``            ``glpat-`` and 20 or more letters, digits, ``_`` or ``-``
``anthropic-api-key``       ``sk-ant-`` then ``api`` or ``admin``, two digits, ``-`` and 20 or more
``openai-api-key``          ``sk-`` … ``T3BlbkFJ`` … (the marker OpenAI writes in the middle of its keys);
                            ``sk-proj-``, ``sk-svcacct-``, ``sk-admin-`` or ``sk-None-`` and 20 or more
                            letters, digits, ``_`` or ``-``; ``sk-`` and exactly 48 letters or digits (the
                            legacy user key); those without the marker only when they hold upper- and
                            lower-case letters and a digit (:func:`looks_openai`: not ``sk-`` and words)
``slack-token``             ``xoxb-``, ``xoxp-``, ``xoxa-``, ``xoxr-``, ``xoxs-`` and 10 or more
``slack-webhook-url``       ``https://hooks.slack.com/services/`` then ``T`` and 8 or more upper-case
                            letters or digits, ``/B`` and 8 or more, ``/`` and 20 or more letters or digits,
                            upper- and lower-case both (:func:`looks_webhook`: not Slack's placeholder)
``google-api-key``          ``AIza`` and 35 letters, digits, ``_`` or ``-``
``google-oauth-client-``    ``GOCSPX-`` and 28 letters, digits, ``_`` or ``-``
``secret``
``stripe-live-key``         ``sk_live_`` / ``rk_live_`` and 20 or more letters or digits
``huggingface-token``       ``hf_`` and 34 or more letters or digits
``npm-token``               ``npm_`` and 36 letters or digits, as npm issues them (30 random and a base62 CRC32
                            checksum of 6, GitHub's format; a longer ``npm_`` word is none: session 45)
``private-key``             a PEM ``-----BEGIN … PRIVATE KEY-----`` line
``jwt``                     three base64url parts, the first two starting ``eyJ`` (a signed JSON Web Token)
``bearer-token``            the token of an ``Authorization: Bearer …`` header (any case; ``:`` or ``=``,
                            quotes allowed), 20 to 512 of RFC 6750's characters holding a letter and a digit,
                            not a JWT (``jwt`` finds it), placeholder or variable (:func:`looks_bearer`)
``url-password``            the password of an address's user information, ``scheme://user:PASSWORD@host``
                            (RFC 3986 §3.2.1: ``postgres://admin:…@db.internal/prod``, ``redis://:…@cache``);
                            the value is the password alone, up to the last ``@`` before the host; not a
                            placeholder (:func:`looks_password`: ``password``, ``${DB_PASSWORD}``, ``***``, a port)
``sendgrid-api-key``        ``SG.``, 22 and ``.`` and 43 letters, digits, ``_`` or ``-``, both cases after ``SG.``
``azure-storage-account-``  ``AccountKey=`` and 86 characters of base64 and ``==`` (a connection string's key)
``key``
``azure-shared-access-``    ``SharedAccessKey=`` and 43 characters of base64 and ``=`` (a Service Bus or Event Hubs
``key``                     connection string's key; 86 and ``==`` too), both cases (:func:`looks_mixed`)
``azure-sas-signature``     ``sig=`` and 43 characters of base64 (``%2B``, ``%2F`` as Azure encodes them) and ``=`` or
                            ``%3D``: an Azure SAS URL's or token's signature (:func:`looks_sas_signature`)
``basic-auth``              an ``Authorization: Basic …`` header's base64 of ``USER:PASSWORD`` (:func:`looks_basic`)
``mysql-password``          the password glued to ``-p`` in a ``mysql`` or ``mariadb`` command (``-pS3cr3t``), or after
                            ``-p`` and a space when no database is likely named so, or when the client's command
                            names its database elsewhere (a word after it, ``-D``) (:func:`looks_mysql_password`);
                            its words parted by blanks, line continuations or an argument list's ``", "``, the
                            value too (``["mysql", "-p", "S", "db"]``, judged as after a space)
``curl-password``           the password of curl's ``-u USER:PASSWORD`` or ``--user USER:PASSWORD`` (``-u USER``
                            alone is none), no placeholder (:func:`looks_password`)
``api-key``                 the value of a command's ``--api-key`` / ``--apikey`` flag (a space, ``=`` or an argument
                            list's next item, :data:`ARGV`), as a flag's password (:func:`looks_flagged`)
``password``                a value given to a name holding ``password``, ``passwd``, ``passphrase``, ``pwd`` or
                            ``secret`` anywhere (any case: ``DB_PASSWORD``, ``SECRET_KEY``, ``secretKey``,
                            ``app.config["SECRET_KEY"]``) by ``=``, ``:``, ``:=``, ``=>`` or ``is``, quotes allowed,
                            or after a space (or as an argument list's next item, :data:`ARGV`) to a command's flag
                            the word ends (``--password PASS``, ``--secret S``, ``--client-secret S``, ``--secret-key
                            S``, ``--aws-secret-access-key S``; not a key's id, ``--secret-key-id=N``); 6 or more characters up to white space, a quote or a code mark,
                            holding a letter and a digit or a sign, never code, a path, an address, a variable or a
                            placeholder (:func:`looks_keyword_password`); a passphrase of two or more words joined by
                            ``-`` (or by a space, between quotes) only where the name is a password's whole
                            (:func:`looks_named_password`)
``token``                   as ``password``, 16 or more characters, the name ending ``token``, ``TOKEN`` or ``Token``;
                            given to a command's ``--token`` flag (a space, ``=`` or an argument
                            list's next item), 6 or more; ``aws configure set aws_session_token T`` (a space or an
                            argument list's next item), 16 or more (:func:`looks_token`)
``api-key-header``          an ``X-Api-Key:`` or ``Api-Key:`` header's value (any case), 16 to 512 characters, as
                            ``bearer-token`` judges it and no name or path of code (session 44, trial 44c F2)
``authorization-token``     GitHub's ``Authorization: token …`` header, as ``bearer-token``
``cookie``                  each value of a ``Cookie:`` header's ``name=value`` pairs, of a ``Set-Cookie:`` header's
                            first pair (:func:`cookie_values`), 8 or more characters holding a letter and a digit
                            (:func:`looks_cookie`); the names kept
``env-secret``              a value given to an environment variable whose name ends in ``_KEY`` or ``_PASS``
                            (``APIKEY``, ``PASS`` alone too): ``SENDGRID_KEY=…``, ``DB_PASS=…``, a ``.env`` dump;
                            not a public key's name, a digest, an identifier or a path (:func:`looks_env_secret`)
``docker-password``         ``docker login``'s (``podman``'s, ``nerdctl``'s) ``-p PASSWORD``
``sshpass-password``        ``sshpass -p PASSWORD`` among sshpass's options
``redis-password``          ``redis-cli``'s ``-a PASSWORD`` / ``--pass PASSWORD``
``netrc-password``          a ``.netrc`` entry's ``password`` (``machine HOST login USER password …``)
``encoded-password``        a password's name and value with ``=`` URL-encoded or an HTML entity
                            (``password%3D…``, ``password&#61;…``), judged percent-decoded
``docker-auth``             a docker config's ``"auth"``: base64 of ``USER:PASSWORD`` (:func:`looks_basic`)
``kubeconfig-client-key``   a kubeconfig's ``client-key-data:``, base64 of a PEM private key (:func:`looks_key_data`)
``base64-token``            base64 of a token of a known prefix (``Z2hwX…`` is ``ghp_…``), in a text that decodes
                            base64 or is a Kubernetes Secret; decoded (300 characters at most) and tested against
                            the forms of :data:`PREFIXED` only (:func:`looks_encoded_token`)
``continued-token``         a token of a known prefix cut by a shell's line continuation (a backslash ending its line),
                            joined and tested as ``base64-token`` (:func:`looks_continued_token`)
==========================  ==========================================================================

A text holding HTML character references (``&quot;``, ``&#39;``, ``&amp;``) is read as the characters they stand for
(:func:`asz_core.view.secret_forms.entities_read`) before any form looks at it (session 44).
"""

from __future__ import annotations

import base64
import re

from .secret_shell import SHELL_CHAR as _SHELL_CHAR  # an unquoted shell word's characters (forms 9)
from .secret_guards import (ARGV, CONTINUATION, ENV_SECRET_WORDS, ESCAPED_BREAK, cookie_values, looks_api_key, looks_basic, looks_bearer,
                            looks_continued_token, looks_cookie, looks_encoded_password, looks_encoded_token,
                            looks_env_secret, looks_flagged, looks_key_data, looks_keyword_password, looks_mixed,
                            looks_mysql_password, looks_named_password, looks_openai, looks_password, looks_random,
                            looks_sas_signature, looks_sendgrid, looks_token, looks_url_password, looks_webhook)

__all__ = ["ESCAPED_BREAK", "KINDS", "STARTS", "GUARDS", "BY_MATCH", "GLUED", "HIDDEN", "SPLIT", "PREFIXED"]

#: Where an AWS secret access key's value may stand: after one of the names AWS's tools and SDKs give it, in any case
#: (``aws_secret_access_key`` in ``~/.aws/credentials`` and boto3, ``AWS_SECRET_ACCESS_KEY`` in the environment,
#: ``SecretAccessKey`` in ``aws iam create-access-key``'s JSON, ``secretAccessKey`` in the JavaScript SDK), its quotes
#: as written, JSON-escaped or HTML-escaped (an export's text), and ``=``, ``:`` or ``=>``; or a space or an argument
#: list's ``", "`` after the name standing alone (:data:`_FLAG_GAP`: ``aws configure set aws_secret_access_key VALUE``,
#: session 46; ``--aws-secret-access-key VALUE`` is a flag's password, as before); or after an
#: access key id and up to 40 characters (the pair pasted together: trufflehog and gitleaks look for the secret beside
#: the id).
_AWS_NAME = r"(?i:(?:aws[_-]?)?secret[_-]?access[_-]?key|aws[_-]?secret[_-]?key)"
_QUOTE = r"(?:\\?[\"']|&quot;|&#0?34;|&#x27;|&#0?39;)?"
#: :data:`_QUOTE` before a value, kept (group ``q``) for the value's shell reading (:mod:`asz_core.view.secret_shell`).
_QUOTE_Q = r"(?P<q>\\?[\"']|&quot;|&#0?34;|&#x27;|&#0?39;)?"
_SPACE = r"(?:\s|" + ESCAPED_BREAK + r")*"
#: What gives a value to a name: its closing quote and a subscript's ``]`` (``app.config["SECRET_KEY"] = …``), then
#: ``=``, ``==``, ``:=``, ``=>`` or ``:``; or `` is `` (``the db password is …``).
_SEP = _QUOTE + r"\]?" + _SPACE + r"(?:=>|==?|:=|:)" + _SPACE
_IS = _QUOTE + r"[ \t]+(?i:is)[ \t]+"
#: The white space between a command's words: blanks, a shell's line continuation (a backslash ending its line: as
#: written, JSON-escaped or as the search index holds it, :data:`~asz_core.view.secret_guards.CONTINUATION`; session
#: 45: ``mysql -u root \\`` and ``-pS3cret`` on the next line in a tool input's JSON), or an argument vector's
#: ``", "`` (:data:`ARGV`).
_GAP_ONE = r"(?:[ \t]|\\\r?\n|" + CONTINUATION + r"|" + ARGV + r")"
_GAP = _GAP_ONE + "+"
#: What stands between a command's flag and its value (``--token VALUE``): blanks, a line continuation, or an argument
#: vector's ``", "`` (:data:`ARGV`; session 45).
_FLAG_GAP = r"(?:(?:[ \t]|" + CONTINUATION + r")+|" + ARGV + r")"
#: What stands before ``aws_session_token`` where ``aws configure set`` gives its value (the ``token`` form's group
#: ``set``, :func:`~asz_core.view.secret_guards.looks_token`): ``configure set``, a ``--profile NAME`` between, and a
#: ``profile.NAME.`` head (session 46); a line continuation folded to one line (``\\`` before a blank: the text form's
#: one-line command; ``\\\\`` in its JSON text) parts them too.
_SET_GAP = r"(?:" + _FLAG_GAP + r"|\\{1,2}(?=[ \t]))+"
AWS_SET_BEFORE = re.compile(r"(?<![A-Za-z0-9_-])configure" + _SET_GAP + r"set" + _SET_GAP + r"(?:--profile"
                            + _SET_GAP + r"[A-Za-z0-9_.-]+" + _SET_GAP + r")?(?:[A-Za-z0-9_-]+\.)*aws_session_\Z")
#: A command's words before the one a form looks for (``mysql -h db -u root -p…``, ``curl -sS -X POST -u …``): up to
#: 24, in the same command (no ``;``, ``|`` or ``&`` between), as few as reach it.
#: A word's characters are none a gap can begin with (a quote that opens an argument vector's ``", "``, a backslash
#: that begins a continuation), so a text splits into words and gaps one way only: a word of ``[^\s;|&]+`` could end
#: inside the ``", "`` a gap holds, and 24 such words tried every split of a long text holding no flag (a list of 300
#: short texts read as its JSON text: 31 s of ``curl`` and ``mysql`` forms, review of session 45).
_WORD = r"(?:(?!" + _GAP_ONE + r")[^\s;|&])+"
_WORDS = r"(?:" + _GAP + _WORD + r"){0,24}?" + _GAP
#: A password's or a token's characters (up to white space, a quote or a code mark), its last one (a sentence's last
#: ``.``, a further name's ``:`` or ``=`` not in it), and what follows it: ``.``, ``:`` or ``=`` then white space, a
#: quote, a code mark other than ``(`` or the text's end; never a value character (a shorter value the search backed
#: into: ``base64`` of ``base64.b16encode(raw)``) nor ``(`` (``token = b64encode(userpass)`` calls a function).
_VALUE = r"[^\s\"'`,;<>(){}\[\]\\]"
_VALUE_END = r"[^\s\"'`,;<>(){}\[\]\\.:=]"
_NO_CALL = r"(?=[.:=]*(?:[\s\"'`,;<>){}\[\]\\]|\Z))"
#: A passphrase of lower-case words joined by a space, up to 8 words, its closing quote next (looks_named_password
#: takes it only between two of the same quote, given to a password's whole name: ``password: "purple monkey"``).
_PHRASE = r"[a-z]{2,}(?: [a-z]{2,}){1,7}(?=\\?[\"'])"
_AWS_SECRET = (r"(?:" + _AWS_NAME + _QUOTE + _SPACE + r"(?:=>|[=:])" + _SPACE + _QUOTE
               + r"|(?<![-A-Za-z0-9_])" + _AWS_NAME + _FLAG_GAP + _QUOTE
               + r"|A(?:KIA|SIA)[0-9A-Z]{16}(?![0-9A-Za-z_])[\s\S]{1,40}?)"
               + r"(?:(?<![A-Za-z0-9/+])|(?<=\\[nrt]))(?P<value>[A-Za-z0-9/+]{40})(?![A-Za-z0-9/+=])")

#: What gives a value to an environment variable's name (``env-secret``): ``=`` as a shell writes it, with no space
#: (``NAME = /^x/`` is code), or with spaces before a quoted value (``NAME = "…"``, ``os.environ["NAME"] = '…'``);
#: ``:`` with spaces or none (YAML, JSON: ``"NAME": "…"``); never ``==``.
_ENV_SEP = (r"(?:" + _QUOTE + r"\]?[ \t]*:[ \t]*" + _QUOTE + r"|=(?!=)" + _QUOTE + r"|" + _QUOTE
            + r"\]?[ \t]*=(?!=)[ \t]*(?=\\?[\"'])" + _QUOTE + r")")


def _shell_value(least: int) -> str:
    """A command's option value of ``least`` or more characters, as the shell reads its word: between the quotes
    before and after it (a JSON text's ``\\"``, a double quote's, a single quote's: spaces, ``;`` and ``&`` in it), or
    unquoted (:data:`_SHELL_CHAR`: ``&``, ``(`` and ``)`` in it; forms 9, trial 49a F1)."""
    return r"(?:%s|%s{%d,})" % (_shell_quoted(least), _SHELL_CHAR, least)


def _shell_quoted(least: int) -> str:
    """A value of ``least`` or more characters between quotes, as :func:`_shell_value` reads one (forms 10: a flag's
    quoted password holding a space, ``--password='Xk9 mQ2;pL7'``)."""
    return (r"(?<=\\\")(?:[^\"\\\r\n]|\\\\\\\"|\\\\){%d,256}(?=\\\")|(?<=[^\\]\")(?:[^\"\\\r\n]|\\.){%d,256}(?=\")"
            r"|(?<=')[^'\r\n]{%d,256}(?=')" % (least, least, least))


#: A command's option value (a password given to ``-p``, ``-a``): its shell word (:func:`_shell_value`).
_COMMAND_VALUE = _shell_value(4)
#: A command's flag's password between quotes (``--password 'Xk9 mQ2;pL7'``, ``--password="…"``): the ``password``
#: form's value where its name is a flag (forms 10), judged as quoted (``looks_named_password``).
_FLAG_QUOTED = "(?:" + _shell_quoted(5) + ")"
#: The prefixes of the forms :data:`PREFIXED` (a token of one of them begins so): what ``base64-token`` and
#: ``continued-token`` look for, base64-encoded (the characters the prefix alone decides) or as written.
_PREFIXES = ("AKIA", "ASIA", "ghp_", "gho_", "ghu_", "ghs_", "ghr_", "github_pat_", "glpat-", "sk-", "xox", "AIza",
             "GOCSPX-", "sk_live_", "rk_live_", "hf_", "npm_", "SG.")
_B64_STARTS = tuple(sorted({base64.b64encode(p.encode()).decode()[:len(p) * 8 // 6] for p in _PREFIXES}))
#: The forms of a fixed prefix and alphabet: a base64 text or a text joined across line continuations is tested against
#: these only (:func:`~asz_core.view.secret_guards.looks_encoded_token`).
PREFIXED = frozenset({"aws-access-key-id", "github-token", "gitlab-token", "anthropic-api-key", "openai-api-key",
                      "slack-token", "google-api-key", "google-oauth-client-secret", "stripe-live-key",
                      "huggingface-token", "npm-token", "sendgrid-api-key"})

#: Each credential form: its name, the expression that finds it (on text, ASCII only; a match must not follow a letter,
#: digit or ``_``; where it has a group ``value``, that group is the credential and the rest the context it needs) and
#: the strings one of which any match holds (looked for first: most texts hold none).
KINDS: tuple[tuple[str, str, tuple[str, ...]], ...] = (
    ("aws-access-key-id", r"A(?:KIA|SIA)[0-9A-Z]{16}(?![0-9A-Za-z_])", ("AKIA", "ASIA")),
    ("aws-secret-access-key", _AWS_SECRET, ("ecret", "ECRET", "AKIA", "ASIA")),
    ("github-token", r"gh[pousr]_[A-Za-z0-9]{36,255}(?![0-9A-Za-z_])|github_pat_[A-Za-z0-9_]{22,255}(?![0-9A-Za-z_])",
     ("ghp_", "gho_", "ghu_", "ghs_", "ghr_", "github_pat_")),
    ("gitlab-token", r"glpat-[A-Za-z0-9_-]{20,}", ("glpat-",)),
    ("anthropic-api-key", r"sk-ant-(?:api|admin)\d\d-[A-Za-z0-9_-]{20,}", ("sk-ant-",)),
    ("openai-api-key", r"sk-(?:(?:proj|svcacct|admin|None)-[A-Za-z0-9_-]{20,}|[A-Za-z0-9_-]*T3BlbkFJ[A-Za-z0-9_-]+"
     r"|[A-Za-z0-9]{48}(?![A-Za-z0-9_-]))", ("sk-",)),
    ("slack-token", r"xox[bpars]-[A-Za-z0-9-]{10,}", ("xox",)),
    ("slack-webhook-url", r"https://hooks\.slack\.com/services/T[A-Z0-9]{8,}/B[A-Z0-9]{8,}/[A-Za-z0-9]{20,}(?![A-Za-z0-9])",
     ("hooks.slack.com",)),
    ("google-api-key", r"AIza[0-9A-Za-z_-]{35}(?![0-9A-Za-z_-])", ("AIza",)),
    # Google's OAuth client secret (trial 27c F10): GOCSPX- and 28 of base64url's letters
    ("google-oauth-client-secret", r"GOCSPX-[0-9A-Za-z_-]{28}(?![0-9A-Za-z_-])", ("GOCSPX-",)),
    ("stripe-live-key", r"[sr]k_live_[0-9A-Za-z]{20,}(?![0-9A-Za-z_])", ("k_live_",)),
    ("huggingface-token", r"hf_[A-Za-z0-9]{34,}(?![0-9A-Za-z_])", ("hf_",)),
    ("npm-token", r"npm_[A-Za-z0-9]{36}(?![0-9A-Za-z_])", ("npm_",)),
    ("private-key", r"-----BEGIN (?:[A-Z0-9]+ )*PRIVATE KEY(?: BLOCK)?-----", ("PRIVATE KEY",)),
    ("jwt", r"eyJ[A-Za-z0-9_-]{8,}\.eyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{16,}", ("eyJ",)),
    # an HTTP Authorization header's bearer token (RFC 6750 §2.1: b64token), 20 to 512 of its characters after
    # "Authorization: Bearer " in any case (trial 27c F10); a placeholder or variable is no token (looks_bearer)
    ("bearer-token", r"(?i:authorization)[\"']?[ \t]*[:=][ \t]*[\"']?(?i:bearer)[ \t]+(?P<value>[A-Za-z0-9._~+/-]{20,512}=*)"
     r"(?![A-Za-z0-9._~+/=-])", ("uthorization", "UTHORIZATION")),
    # after a scheme's last character; the user (maybe empty) holds no ':', the password runs to the last '@' that a
    # host follows (an '@' or '#' left unencoded in a password stays in it: trial 44c F3, Xk9#mP2vL7qZ); no space,
    # quote, '/', '?', '<', '>' or '\' (a host's port before a fragment, host:8080#a@b, is none: looks_url_password)
    ("url-password", r"(?<=[A-Za-z0-9+.-])://[^\s:/?#@\"'<>\\]{0,256}:(?P<value>[^\s/?\"'<>\\]{1,256})@(?=[A-Za-z0-9\[])",
     ("://",)),
    # SendGrid's API key (detect-secrets' SendGridDetector, gitleaks' sendgrid-api-token): SG., 22 and 43 of base64url
    ("sendgrid-api-key", r"SG\.[A-Za-z0-9_-]{22}\.[A-Za-z0-9_-]{43}(?![A-Za-z0-9_-])", ("SG.",)),
    # an Azure storage account's key in its connection string (detect-secrets' AzureStorageKeyDetector): 64 bytes'
    # base64, 86 characters and ==
    ("azure-storage-account-key", r"AccountKey[ \t]*=[ \t]*(?P<value>[A-Za-z0-9+/]{86}==)(?![A-Za-z0-9+/=])",
     ("AccountKey",)),
    # the key of an Azure Service Bus, Event Hubs, Relay or IoT Hub connection string (Endpoint=sb://…;
    # SharedAccessKeyName=…;SharedAccessKey=…): 32 bytes' base64, 43 characters and = (64 bytes' too: 86 and ==)
    ("azure-shared-access-key", r"SharedAccessKey[ \t]*=[ \t]*(?P<value>[A-Za-z0-9+/]{43}=|[A-Za-z0-9+/]{86}==)"
     r"(?![A-Za-z0-9+/=])", ("SharedAccessKey",)),
    # the signature of an Azure shared access signature (a SAS URL's or token's sig=, a connection string's
    # SharedAccessSignature=…&sig=…): HMAC-SHA256, 32 bytes' base64, percent-encoded or not
    ("azure-sas-signature", r"(?<![A-Za-z0-9_])sig=(?P<value>(?:[A-Za-z0-9+/]|%2[BbFf]){43}(?:=|%3[Dd])?)"
     r"(?![A-Za-z0-9+/=%])", ("sig=",)),
    # an HTTP Authorization header's Basic credentials (RFC 7617: base64 of USER:PASSWORD; Nosey Parker's np.http.1)
    ("basic-auth", r"(?i:authorization)[\"']?[ \t]*[:=][ \t]*[\"']?(?i:basic)[ \t]+(?P<value>[A-Za-z0-9+/]{6,}={0,2})"
     r"(?![A-Za-z0-9+/=])", ("uthorization", "UTHORIZATION")),
    # a MySQL or MariaDB client's -pPASSWORD (the password glued to -p; -p alone asks for it), in the same command
    # (session 43: or after it and a space, as a person types it though the client reads there a database's name:
    # judged harder, looks_mysql_password; session 46: or as an argument list's next item, ["mysql", "-p", "…"],
    # group item, judged as after a space)
    ("mysql-password", r"(?<![A-Za-z0-9_])(?P<prog>(?:mysql|mariadb)[A-Za-z_-]*)" + _WORDS + r"-p(?P<gap>[ \t]+|(?P<item>"
     + ARGV + r"))?(?P<q>\\?[\"'])?"
     r"(?P<value>" + _COMMAND_VALUE + r")", ("mysql", "mariadb")),
    # the password of curl's -u/--user USER:PASSWORD (curl asks for it when none follows the ':'; -u USER alone
    # is no credential), in the same command
    ("curl-password", r"(?<![A-Za-z0-9_])curl" + _WORDS + r"(?:-u[ \t]*|--user(?:[ \t]+|=))(?P<q>\\?[\"'])?"
     r"[^\s\"'`:;|&<>\\]{0,256}:(?P<value>" + _SHELL_CHAR + r"{1,256})", ("curl",)),
    # the value of a command's --api-key or --apikey flag (--api-key VALUE, --api-key=VALUE, --openai-api-key …;
    # session 44), as a flag's password is judged (looks_flagged); its hints the flag's dash and first word (a text
    # holding none is not read for it: three looks, not one for each way of writing the name)
    ("api-key", r"(?<=-)(?i:(?P<flag>api[_-]?key))(?:" + _FLAG_GAP + r"|=)" + _QUOTE + r"(?P<value>" + _VALUE + r"{5,}" + _VALUE_END
     + r")" + _NO_CALL, ("-api", "-API", "-Api")),
    # a value given to a name holding a password's word anywhere (trial 27b F9; trial 42a F2: SECRET_KEY, secretKey,
    # app.config["SECRET_KEY"]): the word, the rest of the name (up to 20 letters, digits, '_' or '-': gitleaks'
    # generic-api-key), its quote and a subscript's ']', then ':', '=', ':=', '=>' or (the word ending the name)
    # ' is ', a quote; the value up to white space, a quote or a code mark, a sentence's last '.' not in it, never a
    # call's name (followed by '(')
    # (session 43: or a flag's value after a space, --password PASS, --db-passwd PASS, the word ending the flag;
    # a passphrase of words joined by '-' taken where the name is a password's whole: looks_named_password)
    ("password", r"(?:(?<=-)(?i:(?P<flag>password|passwd|passphrase|secret(?:[_-]access)?[_-]key|secret))"
     + _FLAG_GAP + r"|(?:(?<=-)(?P<dash>))?(?i:(?P<word>password|passwd"
     r"|passphrase|pwd|secret))(?:(?P<rest>[A-Za-z0-9_-]{0,20})" + _SEP + r"|" + _IS + r"))" + _QUOTE_Q
     + r"(?P<value>(?(dash)" + _FLAG_QUOTED + r"|(?(flag)" + _FLAG_QUOTED + r"|(?!)))|" + _PHRASE + r"|" + _VALUE
     + r"{5,}" + _VALUE_END + r")(?(dash)|(?(flag)|" + _NO_CALL + r"))",
     ("assword", "ASSWORD", "asswd", "ASSWD", "assphrase", "ASSPHRASE", "pwd", "PWD", "Pwd", "ecret", "ECRET")),
    # a value of 16 or more characters given to a name ending in token (trial 42a F2: AWS_SESSION_TOKEN, GITHUB_TOKEN,
    # access_token, accessToken; the word as code writes it: token, TOKEN or Token): as a password's, the word ending the
    # name (TOKEN_URL, max_tokens, tokenizer are no token's); session 46: aws_session_token's value after a space or as
    # an argument list's next item where aws configure set gives it (group set, looks_token)
    ("token", r"(?:token|TOKEN|Token)(?:(?:" + _SEP + r"|" + _IS + r")" + _QUOTE + r"(?=" + _VALUE + r"{15,}" + _VALUE_END
     + r")|(?<=-token|-TOKEN|-Token)(?P<flag>" + _FLAG_GAP + r"|=)" + _QUOTE + r"|(?<=aws_session_token)(?P<set>" + _FLAG_GAP
     + r")" + _QUOTE + r"(?=" + _VALUE + r"{15,}" + _VALUE_END + r"))(?P<value>" + _VALUE + r"{5,}" + _VALUE_END
     + r")" + _NO_CALL, ("token", "TOKEN", "Token")),
    # session 44 (trial 44c F2), each after the forms above, which keep what they found before:
    # an API key's header, X-Api-Key: or Api-Key: (any case; an environment's API_KEY= is env-secret's)
    ("api-key-header", r"(?i:api-key)[\"']?[ \t]*:[ \t]*[\"']?(?P<value>[A-Za-z0-9._~+/-]{16,512}=*)"
     r"(?![A-Za-z0-9._~+/=-])", ("pi-K", "pi-k", "PI-K")),
    # GitHub's Authorization: token … header (its own scheme beside Bearer)
    ("authorization-token", r"(?i:authorization)[\"']?[ \t]*[:=][ \t]*[\"']?(?i:token)[ \t]+"
     r"(?P<value>[A-Za-z0-9._~+/-]{20,512}=*)(?![A-Za-z0-9._~+/=-])", ("uthorization", "UTHORIZATION")),
    # the values of a Cookie: header's pairs, of a Set-Cookie: header's first pair (split: cookie_values, which reads
    # the set- before the match)
    ("cookie", r"(?i:cookie)[\"']?[ \t]*:[ \t]*[\"']?(?P<value>[^\r\n\"'\\]{3,4096})", ("ookie", "OOKIE")),
    # a value given to an environment variable whose name's last word is KEY or PASS (SENDGRID_KEY=, DB_PASS=; also
    # YAML's or JSON's NAME: value, and code's NAME = "…"; a name ending in TOKEN is token's, one holding SECRET, PWD
    # or PASSWORD password's): the match begins at that word, the guard reads the whole name back (looks_env_secret)
    ("env-secret", r"(?P<word>KEY|PASS)" + _ENV_SEP + r"(?P<value>" + _VALUE + r"{5,}" + _VALUE_END + r")" + _NO_CALL,
     ENV_SECRET_WORDS),
    # docker login's (podman's, nerdctl's) -p PASSWORD (--password is password's), in the same command
    ("docker-password", r"(?<![A-Za-z0-9_])(?:docker|podman|nerdctl)" + _GAP + r"login" + _WORDS
     + r"-p(?:[ \t]+|=)?(?P<q>\\?[\"'])?(?P<value>" + _COMMAND_VALUE + r")", ("login",)),
    # sshpass -p PASSWORD (or -pPASSWORD), among sshpass's own options, before the command it runs
    ("sshpass-password", r"(?<![A-Za-z0-9_])sshpass(?:" + _GAP + r"-[A-Za-oq-z][^\s;|&]*?)*?" + _GAP
     + r"-p[ \t]*(?P<q>\\?[\"'])?(?P<value>" + _COMMAND_VALUE + r")", ("sshpass",)),
    # redis-cli -a PASSWORD / --pass PASSWORD, in the same command
    ("redis-password", r"(?<![A-Za-z0-9_])redis-cli" + _WORDS + r"(?:-a|--pass)(?:[ \t]+|=)(?P<q>\\?[\"'])?"
     r"(?P<value>" + _COMMAND_VALUE + r")", ("redis-cli",)),
    # a .netrc entry's password: machine HOST [login USER] [account A] password PASSWORD
    ("netrc-password", r"(?<![A-Za-z0-9_])machine[ \t]+[^\s\\]+(?:(?:\s|\\n)+(?i:login|account|port)[ \t]+[^\s\\]+)*?"
     r"(?:\s|\\n)+(?:password|PASSWORD|Password)[ \t]+(?P<value>[^\s\\\"'`]{4,})", ("assword", "ASSWORD")),
    # a password's name and its value URL-encoded (password%3D…) or with its = as an HTML entity (password&#61;…)
    ("encoded-password", r"(?i:password|passwd|passphrase|pwd|secret)[A-Za-z0-9_-]{0,20}"
     r"(?:%3[Dd]|&#0*61;|&#[xX]0*3[Dd];|&equals;)"
     r"(?P<value>(?:[A-Za-z0-9._~!*+@$^-]|%(?!26|3[Dd])[0-9A-Fa-f]{2}){6,256})"
     r"(?![A-Za-z0-9._~!*+@$^-])", ("assword", "ASSWORD", "asswd", "ASSWD", "assphrase", "ASSPHRASE", "pwd", "PWD",
                                       "Pwd", "ecret", "ECRET")),
    # a docker config's "auth": base64 of USER:PASSWORD (~/.docker/config.json, in its "auths")
    ("docker-auth", r"\\?\"auth\\?\"[ \t]*:[ \t]*\\?\"(?P<value>[A-Za-z0-9+/]{8,}={0,2})\\?\"",
     ("auths",)),
    # a kubeconfig user's client-key-data: base64 of a PEM private key (client-certificate-data is public)
    ("kubeconfig-client-key",
     r"(?<![A-Za-z0-9_-])client-key-data[ \t]*:[ \t]*[\"']?(?P<value>[A-Za-z0-9+/]{20,}={0,2})",
     ("client-key-data",)),
    # base64 of a token of a known prefix (Z2hwX… is ghp_…), short: decoded and tested against the known forms only
    # in a text that decodes base64 (base64 -d, base64 --decode, b64decode) or holds a Kubernetes Secret
    ("base64-token",
     r"(?<![A-Za-z0-9+/])(?:" + "|".join(_B64_STARTS) + r")[A-Za-z0-9+/]{4,420}={0,2}(?![A-Za-z0-9+/=])",
     ("base64 -", "b64decode", "kind: Secret")),
    # a token of a known prefix cut by a shell's line continuations (AKIA…\ and the rest on the next line)
    ("continued-token", r"(?:" + "|".join(re.escape(p) for p in _PREFIXES) + r")[A-Za-z0-9_.-]*"
     r"(?:" + CONTINUATION + r"[ \t]*[A-Za-z0-9_.-]+)+(?![A-Za-z0-9_.-])", ("\\\n", "\\\\\\n")),
)
#: Where a match of each form can begin: the strings one of which stands at its first character, as written, and
#: those read in any case (the form's expression starts with a name in ``(?i:…)``). :func:`find` tries an expression
#: only at these places (``rx.match(text, at)``, after the last match's end), which finds exactly what
#: ``rx.finditer(text)`` finds, since no match begins anywhere else (tests/reading/test_secret_starts.py compares the
#: two), at a fraction of the cost on a long text: ``re`` tries a case-insensitive name, or a lookbehind, at every
#: position (the 570 KB asz.view document of the corpus's largest conversation: 200 ms, session 36).
STARTS: dict[str, tuple[tuple[str, ...], tuple[str, ...]]] = {
    "aws-access-key-id": (("AKIA", "ASIA"), ()),
    "aws-secret-access-key": (("AKIA", "ASIA"), ("aws", "secret")),
    "github-token": (("ghp_", "gho_", "ghu_", "ghs_", "ghr_", "github_pat_"), ()),
    "gitlab-token": (("glpat-",), ()),
    "anthropic-api-key": (("sk-ant-",), ()),
    "openai-api-key": (("sk-",), ()),
    "slack-token": (("xox",), ()),
    "slack-webhook-url": (("https://hooks.slack.com/services/",), ()),
    "google-api-key": (("AIza",), ()),
    "google-oauth-client-secret": (("GOCSPX-",), ()),
    "stripe-live-key": (("sk_live_", "rk_live_"), ()),
    "huggingface-token": (("hf_",), ()),
    "npm-token": (("npm_",), ()),
    "private-key": (("-----BEGIN ",), ()),
    "jwt": (("eyJ",), ()),
    "bearer-token": ((), ("authorization",)),
    "url-password": (("://",), ()),
    "sendgrid-api-key": (("SG.",), ()),
    "azure-storage-account-key": (("AccountKey",), ()),
    "azure-shared-access-key": (("SharedAccessKey",), ()),
    "azure-sas-signature": (("sig=",), ()),
    "basic-auth": ((), ("authorization",)),
    "mysql-password": (("mysql", "mariadb"), ()),
    "curl-password": (("curl",), ()),
    "api-key": ((), ("api-key", "api_key", "apikey")),
    "password": ((), ("password", "passwd", "passphrase", "pwd", "secret")),
    "token": (("token", "TOKEN", "Token"), ()),
    "api-key-header": ((), ("api-key",)),
    "authorization-token": ((), ("authorization",)),
    "cookie": ((), ("cookie",)),
    "env-secret": (ENV_SECRET_WORDS, ()),
    "docker-password": (("docker", "podman", "nerdctl"), ()),
    "sshpass-password": (("sshpass",), ()),
    "redis-password": (("redis-cli",), ()),
    "netrc-password": (("machine",), ()),
    "encoded-password": ((), ("password", "passwd", "passphrase", "pwd", "secret")),
    "docker-auth": (("\"auth", "\\\"auth"), ()),
    "kubeconfig-client-key": (("client-key-data",), ()),
    "base64-token": (_B64_STARTS, ()),
    "continued-token": (_PREFIXES, ()),
}


#: The forms whose match needs a check beyond the expression: name -> the check of the value; of the forms in
#: :data:`BY_MATCH`, of the value and the match (a name's or a flag's shape decides too).
GUARDS = {"aws-secret-access-key": looks_random, "openai-api-key": looks_openai, "slack-webhook-url": looks_webhook,
          "url-password": looks_url_password, "password": looks_named_password, "token": looks_token,
          "bearer-token": looks_bearer, "sendgrid-api-key": looks_sendgrid, "azure-storage-account-key": looks_mixed,
          "azure-shared-access-key": looks_mixed, "azure-sas-signature": looks_sas_signature, "basic-auth": looks_basic,
          "mysql-password": looks_mysql_password, "curl-password": looks_password, "api-key": looks_flagged,
          "api-key-header": looks_api_key,
          "authorization-token": looks_bearer,
          "cookie": looks_cookie, "env-secret": looks_env_secret, "docker-password": looks_keyword_password,
          "sshpass-password": looks_keyword_password, "redis-password": looks_keyword_password,
          "netrc-password": looks_keyword_password, "encoded-password": looks_encoded_password,
          "docker-auth": looks_basic,
          "kubeconfig-client-key": looks_key_data, "base64-token": looks_encoded_token,
          "continued-token": looks_continued_token}
#: The forms whose guard is given the match as well as the value.
BY_MATCH = frozenset({"password", "mysql-password", "env-secret", "token", "api-key"})
#: The forms whose match holds several values (a Cookie header's pairs): name -> ``(start, end)`` of each in the match,
#: each then judged by the form's guard.
SPLIT = {"cookie": cookie_values}
#: The forms whose value (or match) may follow a letter or digit: a PEM line, a password glued to ``-p``, one after
#: an encoded ``=`` (``%3D``).
GLUED = frozenset({"private-key", "mysql-password", "docker-password", "sshpass-password", "encoded-password"})
#: The forms whose value is a password (or a user's name and password), masked as ``***``, nothing of it kept.
HIDDEN = frozenset({"url-password", "password", "token", "basic-auth", "mysql-password", "curl-password", "api-key-header",
                    "cookie", "env-secret", "docker-password", "sshpass-password", "redis-password", "netrc-password",
                    "encoded-password", "docker-auth", "api-key"})
