"""The language table end to end: the prompt preview (``POST api/codecomplete/prompt``) of a
running server shows each language's comment markers and name, whichever of its names the
client sends (Objective-C, TypeScript, IPython: the three the old tables disagreed on)."""

from __future__ import annotations

import json
from typing import Any

import pytest

from jupyter_codecomplete.testing import OpenAIUpstream


@pytest.fixture
def codecomplete_config(model_config: dict[str, Any], upstream: OpenAIUpstream) -> dict[str, Any]:
    return {
        "completion_model": model_config,  # style "raw"
        "models": {
            "glm": {"backend": "openai", "base_url": upstream.base_url, "model": "glm", "style": "codegeex4"}
        },
    }


async def preview(jp_fetch: Any, body: dict[str, Any]) -> dict[str, Any]:
    r = await jp_fetch(
        "api", "codecomplete", "prompt", method="POST", body=json.dumps(body), raise_error=False
    )
    assert r.code == 200, r.body
    out: dict[str, Any] = json.loads(r.body)
    return out


NOTEBOOK_CELLS = [
    {"cell_type": "markdown", "language": "markdown", "source": "# Load the data\nfrom disk"},
    {"cell_type": "code", "language": None, "source": "x = 1"},
]

# (language as sent, the markdown cell as the prompt shows it, the language's name)
CASES = [
    ("objective-c", "// # Load the data\n// from disk", "Objective-C"),
    ("objectivec", "// # Load the data\n// from disk", "Objective-C"),  # what clients sent before
    ("typescript", "// # Load the data\n// from disk", "TypeScript"),
    ("ts", "// # Load the data\n// from disk", "TypeScript"),
    ("tsx", "// # Load the data\n// from disk", "TypeScript"),
    ("ipython", "# # Load the data\n# from disk", "Python"),
    ("IPython3", "# # Load the data\n# from disk", "Python"),
    ("sql", "-- # Load the data\n-- from disk", "SQL"),
    ("haskell", "-- # Load the data\n-- from disk", "Haskell"),
    ("octave", "% # Load the data\n% from disk", "Matlab"),
]


@pytest.mark.parametrize(("language", "comment", "name"), CASES, ids=[c[0] for c in CASES])
async def test_markdown_cell_comments(jp_fetch: Any, language: str, comment: str, name: str) -> None:
    body = {"mode": "completion", "language": language, "prompt": "y = ", "cells_above": NOTEBOOK_CELLS}
    out = await preview(jp_fetch, body)
    assert out["style"] == "raw"
    assert out["prompt"] == comment + "\n\nx = 1\n\ny = "


@pytest.mark.parametrize(("language", "comment", "name"), CASES, ids=[c[0] for c in CASES])
async def test_language_name_in_prompt(jp_fetch: Any, language: str, comment: str, name: str) -> None:
    body = {"model": "glm", "mode": "infill", "language": language, "prompt": "y = ", "suffix": "\nz = y"}
    out = await preview(jp_fetch, body)
    assert out["style"] == "codegeex4"
    assert f"###LANGUAGE:{name}\n" in out["prompt"]


async def test_notebook_is_named_as_a_script_of_its_language(jp_fetch: Any) -> None:
    body = {
        "model": "glm",
        "mode": "infill",
        "file_path": "work/a.ipynb",
        "prompt": "y = ",
        "suffix": "\nz = y",
    }
    for language, shown in (("ipython", "a.py"), ("typescript", "a.ts"), ("ir", "a.R")):
        out = await preview(jp_fetch, {**body, "language": language})
        assert "###PATH:work/" + shown + "\n" in out["prompt"], out["prompt"]


async def test_language_from_the_file_name(jp_fetch: Any) -> None:
    body = {
        "model": "glm",
        "mode": "infill",
        "file_path": "src/app.tsx",
        "prompt": "let a = ",
        "suffix": "\nlet b = a",
    }
    out = await preview(jp_fetch, body)
    assert "###LANGUAGE:TypeScript\n" in out["prompt"]
