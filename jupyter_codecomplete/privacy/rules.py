"""The rules that find secrets in text: what each matches, and where in the text the secret is.

The secret formats are not a hand list: they are detect-secrets' own regular-expression plugins
(``detect_secrets.plugins``, Yelp's maintained rule set: AWS, Azure, GitHub, GitLab, Slack,
Stripe, OpenAI, SendGrid, Twilio, npm, PyPI, Discord, Telegram, JWT, private keys, passwords in
URLs...), loaded from the installed package as data. Around them, four rules of our own, each for
what those plugins leave to configuration files and notebooks:

- ``private-key``: the whole PEM / OpenSSH / PGP block, from its ``BEGIN`` line to its ``END`` line
  (the plugin finds only the header);
- ``assignment``: a quoted literal (or an unquoted ``.env``-style value) assigned to a name that
  says it holds a secret (``API_KEY``, ``aws_secret_access_key``, ``db_password``, ``"token":``,
  ``SLACK_BOT_TOKEN=``); not ``MAX_TOKENS = 100``, ``os.environ["API_KEY"]`` or ``token = f()``;
- ``high-entropy``: a quoted string that is random enough to be a key, with detect-secrets' own
  entropy measure and limit (base64, 4.5 bits; hex strings are hashes and ids far more often
  than keys: a hex key is found by its name);
- ``known``: every key the server knows (its configured keys, the user's stored keys, the values of
  the server's own environment variables whose names say they hold secrets): found wherever they
  appear, quoted or not.

A :class:`Finding` is a span of the text and the kind of secret; :mod:`.redact` turns findings into
placeholders. Matching is bounded: the text is scanned once per rule (no per-line loop), and a
prefilter skips rules whose keyword does not occur.
"""

from __future__ import annotations

import bisect
import functools
import math
import re
from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

try:  # the regular expression parser (Python 3.11+; sre_parse before)
    from re import _parser as _sre_parse  # type: ignore[attr-defined]
except ImportError:  # pragma: no cover - Python 3.10
    import sre_parse as _sre_parse

# The characters a token is made of: a match is widened over them (a rule's pattern may stop early,
# e.g. the JWT plugin's lazy signature part), so no tail of a secret is left behind.
_TOKEN_CHARS = re.compile(r"[A-Za-z0-9_\-.+/=]*")
# Shortest secret a rule reports (a shorter "match" is a pattern's prefix alternative).
MIN_SECRET = 6


@dataclass(frozen=True)
class Finding:
    """``text[start:end]`` is a secret of ``kind`` (``aws-access-key``, ``password``, ``known``...)."""

    start: int
    end: int
    kind: str


# -- detect-secrets' plugins, as data -------------------------------------------------------------

# Plugins left out: an address is not a credential (IPPublic); the keyword plugin works on lines
# with settings, and four plugins are themselves assignment rules (``<service>_key = "…"``, with a
# scan that costs more than all the others together): the ``assignment`` rule below covers them;
# the private-key plugin finds only a block's header, the ``private-key`` rule the whole block.
_SKIPPED_PLUGINS = frozenset(
    {
        "IPPublicDetector",
        "KeywordDetector",
        "CloudantDetector",
        "IbmCloudIamDetector",
        "IbmCosHmacDetector",
        "SoftlayerDetector",
        "PrivateKeyDetector",
    }
)


def _kind_of(secret_type: str) -> str:
    """``'AWS Access Key'`` → ``aws-access-key``: the placeholder's label."""
    return re.sub(r"[^a-z0-9]+", "-", secret_type.lower()).strip("-")


@dataclass(frozen=True)
class _Pattern:
    kind: str
    regex: re.Pattern[str]
    # a literal that every match contains (lower-cased for a case-insensitive pattern), to skip
    # the regex when it is absent; None: no such literal of two characters or more
    keyword: str | None
    # the plugin's own check of a candidate (the JWT plugin's formal validity), if it has one
    valid: Any = None

    @property
    def ignore_case(self) -> bool:
        return bool(self.regex.flags & re.IGNORECASE)


def _keyword(regex: re.Pattern[str]) -> str | None:
    """The longest run of literal characters at the top level of a pattern (``T3BlbkFJ`` of
    OpenAI's, ``AKC`` of ``(?:\\s|=)AKC[a-zA-Z0-9]{10,}``): every match contains it. Read from
    the pattern's parse, as the regular expression engine itself sees it."""
    best = run = ""
    for op, arg in _sre_parse.parse(regex.pattern, regex.flags):
        if op is _sre_parse.LITERAL:
            run += chr(arg)
            continue
        best, run = max(best, run, key=len), ""
    best = max(best, run, key=len)
    if len(best) < 2:
        return None
    return best.lower() if regex.flags & re.IGNORECASE else best


@functools.lru_cache(maxsize=1)
def plugin_patterns() -> tuple[_Pattern, ...]:
    """The regular expressions of detect-secrets' regex plugins, with the kind each reports."""
    from detect_secrets.core.plugins.util import get_mapping_from_secret_type_to_class
    from detect_secrets.plugins.base import RegexBasedDetector

    out: list[_Pattern] = []
    plugins: dict[str, Any] = dict(get_mapping_from_secret_type_to_class())
    for secret_type, cls in sorted(plugins.items()):
        if cls.__name__ in _SKIPPED_PLUGINS or not issubclass(cls, RegexBasedDetector):
            continue
        denylist: Iterable[re.Pattern[str]] = cls.denylist  # a class attribute on every plugin
        valid = getattr(cls, "is_formally_valid", None)
        for regex in denylist:
            out.append(_Pattern(_kind_of(secret_type), regex, _keyword(regex), valid))
    return tuple(out)


def _secret_span(m: re.Match[str]) -> tuple[int, int]:
    """Where the secret of a plugin's match is: a group that starts after the match's start holds
    the value (``aws...key = "(…)"``, ``://user:(…)@``); a group at the start is one of the
    pattern's prefix alternatives (``(ghp|gho)_…``), and then the whole match is the secret."""
    for i in range(1, (m.re.groups or 0) + 1):
        start, end = m.span(i)
        if start > m.start() and end - start >= 1:
            return start, end
    return m.span()


def _widen(text: str, start: int, end: int) -> int:
    """The end of a token-shaped secret, widened over the token characters that follow it."""
    if end - start and _TOKEN_CHARS.fullmatch(text, start, end):
        more = _TOKEN_CHARS.match(text, end)
        if more is not None:
            return more.end()
    return end


# A token that may be a key: long, and with a digit or both cases (detect-secrets' plugins are line
# rules: only the lines that hold such a token, or a URL's ``://``, are scanned by them).
_CANDIDATE = re.compile(r"[A-Za-z0-9_\-+/=]{10,}")
_DIGIT = re.compile(r"[0-9]")


def _candidate_lines(text: str) -> tuple[str, list[tuple[int, int]]]:
    """The lines of ``text`` that hold a candidate token, joined (each ends in a newline), and for
    each line where it starts in the joined text and in ``text``."""
    parts: list[str] = []
    starts: list[tuple[int, int]] = []
    joined = 0
    last_line = -1
    at: list[int] = []
    for m in _CANDIDATE.finditer(text):
        tok = m.group(0)
        if _DIGIT.search(tok) is not None or (len(tok) >= 20 and not tok.islower() and not tok.isupper()):
            at.append(m.start())
    i = text.find("://")
    while i >= 0:  # a URL may hold a password however short
        at.append(i)
        i = text.find("://", i + 3)
    for position in sorted(at):
        line = text.rfind("\n", 0, position) + 1
        if line == last_line:
            continue
        end = text.find("\n", position)
        end = len(text) if end < 0 else end
        parts.append(text[line:end])
        parts.append("\n")
        starts.append((joined, line))
        joined += end - line + 1
        last_line = line
    return "".join(parts), starts


def find_plugins(text: str) -> list[Finding]:
    lines, starts = _candidate_lines(text)
    if not lines:
        return []
    lowered = lines.lower()
    keys = [s[0] for s in starts]
    out: list[Finding] = []
    for p in plugin_patterns():
        if p.keyword is not None and p.keyword not in (lowered if p.ignore_case else lines):
            continue
        for m in p.regex.finditer(lines):
            start, end = _secret_span(m)
            end = _widen(lines, start, end) if (start, end) == m.span() else end
            if end - start < MIN_SECRET:
                continue
            if p.valid is not None and not p.valid(lines[start:end]):
                continue
            joined, original = starts[bisect.bisect_right(keys, start) - 1]
            out.append(Finding(start - joined + original, end - joined + original, p.kind))
    return out


# -- private key blocks ---------------------------------------------------------------------------

_KEY_BLOCK = re.compile(
    r"-----BEGIN ((?:[A-Z0-9]+ )*PRIVATE KEY(?: BLOCK)?)-----"
    r"(?P<body>.*?)"
    r"(?:-----END \1-----|\Z)",
    re.DOTALL,
)
_PUTTY = re.compile(r"PuTTY-User-Key-File-\d+:.*?(?:Private-MAC: *\S+|\Z)", re.DOTALL)


def find_key_blocks(text: str) -> list[Finding]:
    """A private key's body, from the line after its ``BEGIN`` line to its ``END`` line (the whole
    rest of the text when the block is cut off)."""
    out: list[Finding] = []
    if "PRIVATE KEY" in text:
        for m in _KEY_BLOCK.finditer(text):
            start, end = m.span("body")
            body = m.group("body")
            start += len(body) - len(body.lstrip())  # the lines around it stay as they were
            end -= len(body) - len(body.rstrip())
            if end > start:
                out.append(Finding(start, end, "private-key"))
    if "PuTTY-User-Key-File" in text:
        out.extend(Finding(m.start(), m.end(), "private-key") for m in _PUTTY.finditer(text))
    return out


# -- assignments to names that say they hold a secret ---------------------------------------------

# The last word of a name (split at ``_``, ``-``, ``.`` and camel case) that makes it a secret's,
# and words that make it one wherever they are.
_SECRET_LAST = frozenset(
    {"key", "apikey", "token", "secret", "password", "passwd", "pwd", "pass", "passphrase",
     "credential", "credentials", "auth", "bearer", "pat", "dsn"}
)  # fmt: skip
_SECRET_ANY = frozenset({"password", "passwd", "secret", "apikey", "passphrase"})
# A last word that makes it something else: a secret's name, place, size or kind is not a secret.
_NOT_SECRET_LAST = frozenset(
    {"name", "names", "path", "file", "dir", "env", "var", "id", "ids", "url", "uri", "len",
     "length", "size", "type", "types", "count", "field", "prefix", "suffix", "header", "hash",
     "policy", "format", "pattern", "regex", "label", "version", "provider", "manager", "store",
     "column", "col", "index", "mode", "kind", "required", "enabled", "min", "max", "tokens"}
)  # fmt: skip
# First words that make a ``…_key`` an ordinary key (of a dict, a table, a sort).
_ORDINARY_KEY_FIRST = frozenset(
    {"sort", "primary", "foreign", "dict", "cache", "partition", "group", "join", "lookup", "map",
     "hash", "row", "col", "column", "index", "item", "keyboard", "hot", "shortcut", "composite",
     "unique", "natural", "object", "s3", "bucket", "redis", "config", "setting", "settings",
     "max", "min", "num", "n"}
)  # fmt: skip

# The words a secret's name holds (where the assignment rule looks; elsewhere it never runs).
_SECRET_WORDS = ("key", "token", "secret", "pass", "pwd", "auth", "cred", "bearer", "dsn")
# The name around such a word, and what follows it: ``name = "v"``, ``name: str = "v"``,
# ``"name": "v"``, ``name := "v"``, ``name => "v"``, ``--name "v"``; ``.env`` and shell:
# ``NAME=value`` (``export NAME=value``) at the start of a line.
_NAME_CHARS = frozenset("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_.-")
_ASSIGNED = re.compile(
    # the name, matched atomically (a lookahead and a backreference: no backtracking into it)
    r"(?=(?P<name>[A-Za-z_][A-Za-z0-9_.\-]{0,160}))(?P=name)"
    r"(?:"
    r"[\"']?\]?[ \t]*(?::[ \t]*[A-Za-z_][\w\[\], .|]{0,40}?[ \t]*)?(?:=|:=|=>|:|[ \t])[ \t]*[rRbBuU]{0,2}"
    r"(?P<q>[\"'])(?P<value>[^\"'\n\\]{1,512})(?P=q)"
    r"|=(?P<bare>[^\s\"'`$({\[#;][^\s\"'`]{0,511})"
    r")"
)
# A URL query parameter holds a secret under a shorter name than a variable does (``?key=``)
_QUERY_SECRETS = frozenset({"key", "token", "sig", "signature", "auth", "code", "secret", "apikey"})
_LINE_START = re.compile(r"[ \t]*(?:export[ \t]+)?\Z")
_WORDS = re.compile(r"[A-Z]+(?![a-z])|[A-Z]?[a-z0-9]+")
_ENV_NAME = re.compile(r"[A-Z][A-Z0-9_]*")
_LOWER_IDENT = re.compile(r"[a-z_][a-z0-9_]*")
# What people write instead of a secret (the docs' and templates' placeholders)
_STAND_IN = re.compile(
    r"(?i)^(?:<[^>]*>|\{[^}]*\}|\$\{?.*|%\(?.*|\*+|x+|\.+|-+|"
    r"(?:your|my|the|example|sample|dummy|fake|test|placeholder|changeme|redacted|none|null|"
    r"true|false|todo|xxx)[\w\-. ]*)$"
)


def secret_name(name: str) -> bool:
    """Does a variable, key or option name say it holds a secret? ``API_KEY``,
    ``aws_secret_access_key``, ``dbPassword``, ``SLACK_BOT_TOKEN``: yes. ``MAX_TOKENS``,
    ``API_KEY_ENV``, ``sort_key``, ``tokenizer``, ``secret_name``: no."""
    words = [w.lower() for w in _WORDS.findall(name.rsplit(".", 1)[-1])]
    if not words:
        return False
    last, first = words[-1], words[0]
    if last in _NOT_SECRET_LAST:
        return False
    if last == "key" and (len(words) == 1 or first in _ORDINARY_KEY_FIRST):
        return False
    return last in _SECRET_LAST or any(w in _SECRET_ANY for w in words[:-1])


def _secret_value(value: str, name: str) -> bool:
    """Is the value assigned to a secret's name a secret (and not an environment variable's name,
    a placeholder, a word, an identifier)?"""
    v = value.strip()
    if len(v) < 4 or " " in v or _STAND_IN.match(v) or _ENV_NAME.fullmatch(v):
        return False
    lowered = name.lower()
    if any(w in lowered for w in ("pass", "pwd")):
        return True  # a password may be a plain word
    if v.isdigit() or len(v) < 8:
        return False
    # a lower-case identifier is a name (``"user_id"``), unless digits run through it
    return not _LOWER_IDENT.fullmatch(v) or (len(v) >= 12 and sum(c.isdigit() for c in v) >= 3)


def _word_ends(lowered: str) -> list[tuple[int, int]]:
    """Where the secret words occur (start, end), in order (``str.find``: ten times a regex's speed)."""
    out: list[tuple[int, int]] = []
    for word in _SECRET_WORDS:
        i = lowered.find(word)
        while i >= 0:
            out.append((i, i + len(word)))
            i = lowered.find(word, i + 1)
    out.sort()
    return out


def find_assignments(text: str, lowered: str) -> list[Finding]:
    out: list[Finding] = []
    seen = -1
    for word_start, word_end in _word_ends(lowered):
        if word_start < seen:
            continue
        start, lowest = word_start, max(0, word_start - 80)
        while start > lowest and text[start - 1] in _NAME_CHARS:
            start -= 1
        m = _ASSIGNED.match(text, start)
        if m is None or m.end("name") < word_end:
            continue
        seen = m.end()
        name = m.group("name")
        query = start > 0 and text[start - 1] in "?&"
        if m.group("bare") is not None:
            # unquoted: a URL's query (``?key=…&token=…``), or a ``.env`` / shell line
            # (``NAME=value`` first on its line)
            line = text.rfind("\n", 0, start) + 1
            if not query and not _LINE_START.match(text, line, start):
                continue
            span = m.span("bare")
            if query:  # the value ends where the next parameter starts
                amp = text.find("&", span[0], span[1])
                span = (span[0], amp) if amp >= 0 else span
        else:
            span = m.span("value")
        value = text[span[0] : span[1]]
        named = secret_name(name) or (query and name.lower() in _QUERY_SECRETS)
        if named and _secret_value(value, name):
            out.append(Finding(span[0], span[1], _assignment_kind(name)))
    return out


def environment_secrets(environ: Mapping[str, str]) -> list[str]:
    """The values of the environment variables whose names say they hold secrets (``*_API_KEY``,
    ``*_TOKEN``, ``*PASSWORD*``...): a notebook that prints ``os.environ`` prints the server's."""
    return [v for k, v in environ.items() if secret_name(k) and len(v) >= MIN_SECRET and _secret_value(v, k)]


def _assignment_kind(name: str) -> str:
    lowered = name.lower()
    if "pass" in lowered or "pwd" in lowered:
        return "password"
    if "token" in lowered:
        return "token"
    return "secret"


# -- quoted high-entropy strings ------------------------------------------------------------------

_QUOTED_TOKEN = re.compile(r"([\"'`])([A-Za-z0-9+/=_\-]{20,512})\1")
_HEX = re.compile(r"[0-9a-fA-F]+")


@functools.lru_cache(maxsize=1)
def entropy_limit() -> float:
    """detect-secrets' default limit for base64 strings (bits per character)."""
    from detect_secrets.plugins.high_entropy_strings import Base64HighEntropyString

    return float(Base64HighEntropyString().entropy_limit)


def shannon_entropy(token: str) -> float:
    """Bits per character over the characters the token uses: detect-secrets' measure (the
    plugin sums over its whole alphabet in Python; the characters that occur give the same sum)."""
    n = len(token)
    return -sum(k / n * math.log2(k / n) for k in Counter(token).values()) if n else 0.0


def _looks_random(token: str) -> bool:
    if _HEX.fullmatch(token):
        return False  # a hash or an id: hex keys are found by their name (``SECRET_KEY = "…"``)
    if _DIGIT.search(token) is None or token.islower():
        return False  # words and snake_case names: never random enough to be a key
    return shannon_entropy(token) > entropy_limit()


def find_high_entropy(text: str, taken: Sequence[Finding] = ()) -> list[Finding]:
    """Quoted random-looking tokens, less those another rule found already (``taken``, sorted)."""
    starts = [f.start for f in taken]
    out: list[Finding] = []
    for m in _QUOTED_TOKEN.finditer(text):
        start, end = m.span(2)
        i = bisect.bisect_right(starts, start) - 1
        if i >= 0 and taken[i].end > start:
            continue
        if i + 1 < len(taken) and taken[i + 1].start < end:
            continue
        if _looks_random(m.group(2)):
            out.append(Finding(start, end, "high-entropy-string"))
    return out


# -- the keys the server knows --------------------------------------------------------------------


def find_known(text: str, known: Sequence[str]) -> list[Finding]:
    """Every occurrence of each known secret (longest first; at least :data:`MIN_SECRET` long)."""
    out: list[Finding] = []
    for secret in known:
        if len(secret) < MIN_SECRET:
            continue
        i = text.find(secret)
        while i >= 0:
            out.append(Finding(i, i + len(secret), "server-key"))
            i = text.find(secret, i + len(secret))
    return out


def find_all(text: str, known: Sequence[str] = ()) -> list[Finding]:
    """Every secret in ``text``, as spans that do not overlap (an earlier, longer one wins), sorted.

    ``known``: the server's own secrets (always found, whatever their format)."""
    if not text:
        return []
    lowered = text.lower()
    found = [
        *find_known(text, known),
        *find_key_blocks(text),
        *find_plugins(text),
        *find_assignments(text, lowered),
    ]
    found.sort(key=lambda f: f.start)
    found.extend(find_high_entropy(text, found))
    if not found:
        return []
    # the server's keys first (the label says whose), then the longest span
    found.sort(key=lambda f: (f.start, f.kind != "server-key", -(f.end - f.start)))
    out: list[Finding] = []
    for f in found:
        if out and f.start < out[-1].end:
            last = out[-1]
            if f.end > last.end and last.kind != "server-key":
                out[-1] = Finding(last.start, f.end, last.kind)  # overlapping: one span over both
            continue
        out.append(f)
    return out
