"""Realistic fake secrets (formats as the providers issue them; none is a real credential), the
code that holds them, and the check that none of them reached a model server."""

from __future__ import annotations

import json
from collections.abc import Iterable
from typing import Any

# One of each kind the issue names, in the shape a notebook holds it.
AWS_KEY_ID = "AKIAQYLPMN5HHHFPZAM2"
AWS_SECRET = "wJalrXUtnFEMI/K7MDENG/bPxRfiCYzEXAMPLE3Y"
OPENAI_KEY = "sk-proj-Ab3dEf6hIj9kLm2nOp5qRs8t" + "T3BlbkFJ" + "Uv1wXy4zAb7cDe0fGh3iJk6l"
GITHUB_TOKEN = "ghp_" + "Zq8Wm2Kx7Lp4Nv1Bc6Rt9Yh3Fd5Gs0Aj8Ek2"
SLACK_TOKEN = "xoxb-20481024-40961536-AbCdEfGhIjKlMnOpQrStUvWx"
JWT = (
    "eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9"
    ".eyJzdWIiOiIxMjM0NTY3ODkwIiwibmFtZSI6IkpvaG4gRG9lIiwiaWF0IjoxNTE2MjM5MDIyfQ"
    ".SflKxwRJSMeKKF2QT4fwpMeJf36POk6yJV_adQssw5c"
)
PEM_BODY = (
    "MIIEowIBAAKCAQEAn1pMVSEDO4EPzQxKgAakFxRgMGiewWZFAktenWo5aMt/OIso\n"
    "Y2VNnfQ7/1x3bqDtW7AzL8sZ9qK3vP5mR2tX4yU6oE1iW0aQ8cF7gH2jB9nD3kLp\n"
    "q5rS7tU9vW1xY3zA5bC7dE9fG1hI3jK5lM7nO9pQ1rS3tU5vW7xY9zA1bC3dE5fG"
)
PEM = f"-----BEGIN RSA PRIVATE KEY-----\n{PEM_BODY}\n-----END RSA PRIVATE KEY-----"
DB_PASSWORD = "Tr0ub4dor3horse"
DB_URL = f"postgresql://app:{DB_PASSWORD}@db.internal:5432/prod"
ENV_API_KEY = "9f8e7d6c5b4a39281706"
# a random key in a string, under no telling name (found by its entropy)
RANDOM_KEY = "hB3xK9qLz7TmW2vN5pRcY8sJ4dF6gA1eU0iOoQ"
# the server's own configured key (c.CodeCompleteApp.completion_model api_key)
SERVER_KEY = "srv-3a9Kq2Lm7Np4Rs8Tu1Vw6Xy0Zb5Cd"

# Every value that must never reach a model (the PEM by its body's lines).
VALUES: dict[str, str] = {
    "aws key id": AWS_KEY_ID,
    "aws secret": AWS_SECRET,
    "openai key": OPENAI_KEY,
    "github token": GITHUB_TOKEN,
    "slack token": SLACK_TOKEN,
    "jwt": JWT,
    "pem line 1": PEM_BODY.split("\n")[0],
    "pem line 2": PEM_BODY.split("\n")[1],
    "db password": DB_PASSWORD,
    "env api key": ENV_API_KEY,
    "random key": RANDOM_KEY,
    "server key": SERVER_KEY,
}

# A notebook cell that holds each of them the way code does.
CODE = f'''import boto3
from openai import OpenAI

session = boto3.Session(aws_access_key_id="{AWS_KEY_ID}", aws_secret_access_key="{AWS_SECRET}")
client = OpenAI(api_key="{OPENAI_KEY}")
gh = Github("{GITHUB_TOKEN}")
slack = WebClient(token="{SLACK_TOKEN}")
engine = create_engine("{DB_URL}")
TOKEN = "{JWT}"
PRIVATE_KEY = """{PEM}"""
signature = hmac_sign(payload, "{RANDOM_KEY}")
'''
# What `print(os.environ)` shows in a cell's output: the server's own key among the user's.
ENVIRON_OUTPUT = (
    f"environ({{'HOME': '/home/ada', 'OPENAI_API_KEY': '{OPENAI_KEY}', "
    f"'CODECOMPLETE_API_KEY': '{SERVER_KEY}', 'API_KEY': '{ENV_API_KEY}'}})"
)
# A `.env` file's text (only its name keeps it out by default; its values are redacted anywhere)
ENV_FILE = f"API_KEY={ENV_API_KEY}\nDATABASE_URL={DB_URL}\nGITHUB_TOKEN={GITHUB_TOKEN}\n"
TRACEBACK = (
    "Traceback (most recent call last):\n"
    '  Cell In[3], line 1\n    r = requests.get(url, headers={"Authorization": "Bearer ' + JWT + '"})\n'
    f"HTTPError: 401 Client Error for url https://api.example.com/?key={ENV_API_KEY}&token={GITHUB_TOKEN}"
)
DIFF = (
    "@@ -1,2 +1,2 @@\n"
    f'-client = OpenAI(api_key="{OPENAI_KEY}")\n'
    f'+client = OpenAI(api_key="{OPENAI_KEY}", timeout=30)\n'
)


def leaks(records: Iterable[Any]) -> dict[str, list[int]]:
    """Which secret values (or their first 12 characters) appear in which recorded model
    requests (by index): {} when none."""
    found: dict[str, list[int]] = {}
    for i, record in enumerate(records):
        body = record.body if isinstance(record.body, str) else json.dumps(record.body)
        # JSON escapes "/" nowhere but a newline as \\n: compare with both spellings
        text = body + "\n" + body.replace("\\n", "\n").replace('\\"', '"')
        for name, value in VALUES.items():
            # the whole value, or its start (a line cut to fit a prompt must not keep half a key)
            if value in text or (len(value) >= 16 and value[:12] in text):
                found.setdefault(name, []).append(i)
    return found
