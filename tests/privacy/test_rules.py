"""The secret rules (``privacy/rules.py``) and the placeholders (``privacy/redact.py``): one table row
per case, for what must be found and for the near misses that must stay as written.
"""

from __future__ import annotations

import string

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from planted_secrets import AWS_KEY_ID, AWS_SECRET, GITHUB_TOKEN, JWT, OPENAI_KEY, PEM, PEM_BODY, SLACK_TOKEN

from jupyter_codecomplete.privacy import Redactor, environment_secrets, find_all, secret_name
from jupyter_codecomplete.privacy.rules import plugin_patterns

# (text, the secret in it, the kind it is reported as)
FOUND: list[tuple[str, str, str]] = [
    (f'key_id = "{AWS_KEY_ID}"', AWS_KEY_ID, "aws-access-key"),
    (f'aws_secret_access_key = "{AWS_SECRET}"', AWS_SECRET, "aws-access-key"),
    (f'client = OpenAI(api_key="{OPENAI_KEY}")', OPENAI_KEY, "openai-token"),
    (f"gh = Github('{GITHUB_TOKEN}')", GITHUB_TOKEN, "github-token"),
    (f"slack = WebClient(token={SLACK_TOKEN!r})", SLACK_TOKEN, "slack-token"),
    (f"headers = {{'Authorization': 'Bearer {JWT}'}}", JWT, "json-web-token"),
    (f"KEY = '''{PEM}'''", PEM_BODY, "private-key"),
    (
        'engine = create_engine("postgresql://app:Tr0ub4dor3horse@db:5432/prod")',
        "Tr0ub4dor3horse",
        "basic-auth-credentials",
    ),
    ("sk = 'sk_live_" + "4eC39HqLyjWDarjtT1zdp7dc'", "sk_live_4eC39HqLyjWDarjtT1zdp7dc", "stripe-access-key"),
    ('API_KEY = "a8Kq2Lm7Np4Rs8Tu1Vw6"', "a8Kq2Lm7Np4Rs8Tu1Vw6", "secret"),
    ('db_password = "hunter2"', "hunter2", "password"),
    ("password: 'correct-horse'", "correct-horse", "password"),
    ('{"client_secret": "Zm9vYmFyYmF6cXV4cXV1eA9"}', "Zm9vYmFyYmF6cXV4cXV1eA9", "secret"),
    ("SLACK_BOT_TOKEN=abc123def456ghi789jkl", "abc123def456ghi789jkl", "token"),
    ("export DB_PASSWORD=s3cr3t!x", "s3cr3t!x", "password"),
    ("GET /v1/data?key=9f8e7d6c5b4a39281706&page=2", "9f8e7d6c5b4a39281706", "secret"),
    ('cfg = {"api_key": "0a1b2c3d4e5f6a7b8c9d0e1f"}', "0a1b2c3d4e5f6a7b8c9d0e1f", "secret"),
    ('token: str = "tk_9Zx8Yw7Vu6Ts5Rq4Po3N"', "tk_9Zx8Yw7Vu6Ts5Rq4Po3N", "token"),
    (
        'signature = sign("x", "hB3xK9qLz7TmW2vN5pRcY8sJ4dF6gA1eU0iOoQ")',
        "hB3xK9qLz7TmW2vN5pRcY8sJ4dF6gA1eU0iOoQ",
        "high-entropy-string",
    ),
]

# Ordinary code that must stay exactly as written (regex-only redactors have broken each kind).
NEAR_MISSES: list[str] = [
    "MAX_TOKENS = 100",
    'key = os.environ["API_KEY"]',
    "token: ${{ secrets.TOKEN }}",
    "token = get_token()",
    "password = getpass.getpass()",
    'api_key = os.getenv("OPENAI_API_KEY")',
    "PASSWORD_MIN_LENGTH = 8",
    'tok = AutoTokenizer.from_pretrained("gpt2")',
    'sort_key = "name"',
    'primary_key = "user_id"',
    'API_KEY_ENV = "MY_API_KEY"',
    'secret_name = "prod/db"',
    'df["price"].sum()',
    'url = "https://example.com/a/b"',
    'uid = "123e4567-e89b-12d3-a456-426614174000"',
    'api_key = "YOUR_API_KEY"',
    'password = "<your password>"',
    'token = "${TOKEN}"',
    "def f(password: str) -> None:",
    "class Config:\n    password: SecretStr",
    'x = "abcdefghijklmnopqrstuvwxyz_snake_case"',
    'headers = {"Authorization": f"Bearer {token}"}',
    "model.generate(max_tokens=256, api_key=key)",
    'git_sha = "3f786850e387550fdab836ed7e6dc881de23001b"',
    'name = "DefaultInlineCompletionHandler"',
    "for key, value in sorted(data.items()):",
    "keys = [k for k in d if k.startswith('tok')]",
    "url = 'postgresql://localhost:5432/prod'",
    "https://user@example.com/path",
    "print(f'{passed}/{total} tests passed')",
    'cache_key = f"{model}:{prompt_hash}"',
    "auth = requests.auth.HTTPBasicAuth(user, password)",
]


@pytest.mark.parametrize(
    ("text", "secret", "kind"), FOUND, ids=[k + str(i) for i, (_, _, k) in enumerate(FOUND)]
)
def test_a_secret_is_found_whole_with_its_kind(text: str, secret: str, kind: str) -> None:
    found = find_all(text)
    spans = [(text[f.start : f.end], f.kind) for f in found]
    assert (secret, kind) in spans, spans


@pytest.mark.parametrize("text", NEAR_MISSES)
def test_ordinary_code_is_left_as_written(text: str) -> None:
    assert find_all(text) == []
    redaction = Redactor().request()
    assert redaction.redact(text) == text


def test_the_rules_are_detect_secrets_plugins_loaded_as_data() -> None:
    kinds = {p.kind for p in plugin_patterns()}
    assert {"aws-access-key", "github-token", "slack-token", "openai-token", "json-web-token"} <= kinds
    assert "public-ip-v4-address" not in kinds  # an address is not a credential


def test_one_placeholder_per_value_within_a_request_and_a_number_for_another() -> None:
    other = "sk-proj-Zz9yXx8wWv7uUt6sSr5q" + "T3BlbkFJ" + "Pp4oOn3mMl2kKj1iIh0gGf9e"
    text = f'a = "{OPENAI_KEY}"\nb = "{other}"\nc = "{OPENAI_KEY}"'
    redaction = Redactor().request()
    out = redaction.redact(text)
    assert out == (
        'a = "<redacted: openai-token>"\nb = "<redacted: openai-token 2>"\nc = "<redacted: openai-token>"'
    )
    # a second text of the same request: the same value keeps its placeholder
    assert redaction.redact(f"print('{other}')") == "print('<redacted: openai-token 2>')"
    assert redaction.counts["openai-token"] == 4
    assert redaction.restore('x = "<redacted: openai-token 2>"') == f'x = "{other}"'
    assert redaction.restore('x = "<redacted: openai-token 3>"') is None  # never made


def test_the_servers_own_keys_are_found_anywhere_and_never_given_back() -> None:
    key = "plain-looking-server-key-0001"
    redaction = Redactor([key]).request()
    text = f"the key is {key}, again: {key}"
    out = redaction.redact(text)
    assert out == "the key is <redacted: server-key>, again: <redacted: server-key>"
    assert redaction.restore("<redacted: server-key>") is None


def test_offsets_move_with_the_redacted_text() -> None:
    text = f'x = 1\nk = "{GITHUB_TOKEN}"\ny = 2\n'
    out, omap = Redactor().request().redact_with_map(text)
    assert out == 'x = 1\nk = "<redacted: github-token>"\ny = 2\n'
    at = text.index("y = 2")
    assert omap.to_redacted(at) == out.index("y = 2")
    assert omap.to_original(out.index("y = 2")) == at
    inside = text.index(GITHUB_TOKEN) + 5
    assert omap.to_redacted(inside) == out.index("<redacted")
    assert omap.to_redacted(inside, after=True) == out.index(">") + 1
    assert omap.to_original(out.index("<redacted") + 3) is None
    [span] = omap.touched(out.index("k = "), out.index("y = 2"))
    assert span.placeholder == "<redacted: github-token>"
    assert omap.touched(out.index("y"), len(out)) == []


def test_the_environment_secrets_are_the_secret_named_ones() -> None:
    env = {
        "OPENAI_API_KEY": OPENAI_KEY,
        "JUPYTER_TOKEN": "8d3a4b1c9e7f6a5b4c3d2e1f",
        "PATH": "/usr/bin:/bin",
        "SSH_AUTH_SOCK": "/tmp/ssh-XXXX/agent.123",
        "PASSWORD_STORE_DIR": "/home/ada/.password-store",
        "MAX_TOKENS": "256",
    }
    assert sorted(environment_secrets(env)) == sorted([OPENAI_KEY, "8d3a4b1c9e7f6a5b4c3d2e1f"])


@pytest.mark.parametrize(
    ("name", "is_secret"),
    [
        ("API_KEY", True),
        ("aws_secret_access_key", True),
        ("dbPassword", True),
        ("SLACK_BOT_TOKEN", True),
        ("client_secret", True),
        ("MAX_TOKENS", False),
        ("API_KEY_ENV", False),
        ("sort_key", False),
        ("tokenizer", False),
        ("secret_name", False),
        ("key", False),
        ("password_min_length", False),
    ],
)
def test_what_a_name_says(name: str, is_secret: bool) -> None:
    assert secret_name(name) is is_secret


identifiers = st.text(string.ascii_lowercase + "_", min_size=1, max_size=24).filter(str.isidentifier)


@settings(deadline=None)  # a loaded machine must not fail it (each example is timed otherwise)
@given(
    name=identifiers,
    number=st.integers(min_value=0, max_value=10**9),
    word=st.sampled_from(["name", "path", "id", "model", "price", "qty", "items"]),
)
def test_a_fuzz_of_ordinary_lines_is_left_as_written(name: str, number: int, word: str) -> None:
    """Assignments of numbers, words, calls, environment lookups and f-strings, to any name."""
    lines = [
        f"{name} = {number}",
        f'{name} = "{word}"',
        f"{name} = get_{word}({number})",
        f'{name} = os.environ["{name.upper()}"]',
        f'{name} = f"{{{word}}}-{number}"',
        f"{name}[{word!r}] = {number}",
        f"MAX_{name.upper()}_TOKENS = {number}",
    ]
    text = "\n".join(lines)
    assert find_all(text) == [], text


@settings(deadline=None)
@given(st.text(string.ascii_letters + string.digits + "+/=_-", min_size=1, max_size=80))
def test_the_entropy_is_detect_secrets_own_measure(token: str) -> None:
    from detect_secrets.plugins.high_entropy_strings import Base64HighEntropyString

    from jupyter_codecomplete.privacy.rules import entropy_limit, shannon_entropy

    plugin = Base64HighEntropyString()
    assert abs(shannon_entropy(token) - plugin.calculate_shannon_entropy(token)) < 1e-9
    assert entropy_limit() == plugin.entropy_limit


def test_a_plugin_is_skipped_where_its_literal_is_absent() -> None:
    by_kind = {p.kind: p for p in plugin_patterns() if p.keyword}
    assert by_kind["openai-token"].keyword == "T3BlbkFJ"
    assert by_kind["stripe-access-key"].keyword == "k_live_"
    # every plugin's own literal is in each of its matches (the prefilter never hides one)
    for text, _, _ in FOUND:
        for p in plugin_patterns():
            for m in p.regex.finditer(text):
                haystack = m.group(0).lower() if p.ignore_case else m.group(0)
                assert p.keyword is None or p.keyword in haystack
