"""The documentation: every backend recipe's configuration really configures the server, and the
generated references cover every option.

Each ``docs/backends/*.md`` page gives ``jupyter_server_config.py`` lines in ```` ```python ````
blocks. They are executed here against a traitlets ``Config`` (as jupyter_server does with the
file), loaded into a ``CodeCompleteApp``, and every model dict is validated with
``ModelConfig.model_validate`` and built with ``make_backend`` (which does no network I/O).
"""

from __future__ import annotations

import importlib.util
import json
import re
import sys
from pathlib import Path
from typing import Any

import pytest
from traitlets.config import Config

from jupyter_codecomplete.backends import BackendError, ModelConfig, make_backend
from jupyter_codecomplete.extension import CodeCompleteApp

DOCS = Path(__file__).resolve().parents[1] / "docs"
RECIPES = sorted((DOCS / "backends").glob("*.md"))
BLOCK = re.compile(r"^```python[^\n]*\n(.*?)^```", re.S | re.M)


def config_blocks(page: Path) -> list[str]:
    """The python code blocks of a page that configure CodeCompleteApp."""
    blocks = [b for b in BLOCK.findall(page.read_text(encoding="utf-8")) if "c.CodeCompleteApp" in b]
    # The field overview on the index page elides one model dict as `{...}`.
    return [b.replace("= {...}", '= {"model": "elided-in-the-docs"}') for b in blocks]


def load(code: str) -> Config:
    c = Config()
    exec(compile(code, "<jupyter_server_config.py>", "exec"), {"c": c, "get_config": lambda: c})
    return c


def test_every_recipe_page_has_config() -> None:
    names = {p.stem for p in RECIPES}
    assert {
        "ollama",
        "llamacpp",
        "vllm",
        "tgi",
        "lmstudio",
        "litellm",
        "openai",
        "mistral",
        "langchain",
    } <= names
    for page in RECIPES:
        assert config_blocks(page), f"{page.name} has no jupyter_server_config.py block"


def _missing_module(exc: BaseException) -> str | None:
    m = re.search(r"No module named '([\w.]+)'|cannot import[^']*'([\w.]+)'", str(exc))
    if m:
        return m.group(1) or m.group(2)
    return None


@pytest.mark.parametrize("page", RECIPES, ids=[p.stem for p in RECIPES])
def test_recipe_config_loads_and_builds(page: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test-not-a-key")
    monkeypatch.setenv("MISTRAL_API_KEY", "test-not-a-key")
    for n, code in enumerate(config_blocks(page)):
        config = load(code)
        assert "CodeCompleteApp" in config
        app = CodeCompleteApp(config=config)  # traitlets validates types here
        traits = config["CodeCompleteApp"]
        assert set(traits) <= set(CodeCompleteApp.class_own_traits(config=True)), traits.keys()
        dicts: dict[str, Any] = {}
        if app.completion_model:
            dicts["completion"] = app.completion_model
        if app.chat_model:
            dicts["chat"] = {"backend": "openai-chat", **app.chat_model}
        dicts.update(app.models)
        assert dicts, f"{page.name} block {n} configures no model"
        for key in app.routes.values():
            assert key in dicts, f"{page.name}: route to unknown model {key!r}"
        for key, raw in dicts.items():
            cfg = ModelConfig.model_validate(raw)
            try:
                backend = make_backend(cfg)
            except (BackendError, ImportError) as exc:
                missing = _missing_module(exc)
                if missing and importlib.util.find_spec(missing.split(".")[0]) is None:
                    pytest.skip(f"{page.name}: {missing} is not installed here")
                raise
            assert backend.config is cfg
            assert backend.llm is not None, f"{page.name} {key}"
        # and the server's own path: every model configured
        assert set(app.model_configs()) >= set(dicts)


def test_recipes_name_known_prompt_styles() -> None:
    from jupyter_codecomplete.prompting import StyleRegistry

    styles = StyleRegistry()
    for page in RECIPES:
        for code in config_blocks(page):
            app = CodeCompleteApp(config=load(code))
            for raw in (app.completion_model, app.chat_model, *app.models.values()):
                if raw.get("style"):
                    styles.get(raw["style"])  # raises for an unknown style


# ------------------------------------------------------------------------------- generated references


@pytest.fixture(scope="module")
def ext() -> Any:
    sys.path.insert(0, str(DOCS / "_ext"))
    try:
        import codecomplete_docs

        yield codecomplete_docs
    finally:
        sys.path.remove(str(DOCS / "_ext"))


def test_configuration_reference_covers_every_option(ext: Any) -> None:
    text = ext.traits_markdown()
    for name, trait in CodeCompleteApp.class_own_traits(config=True).items():
        assert f"`c.CodeCompleteApp.{name}`" in text
        assert trait.help and trait.help.split(".")[0][:40] in text
    rows = ext.model_fields()
    assert [r["name"] for r in rows] == list(ModelConfig.model_fields)
    missing = [r["name"] for r in rows if not r["help"]]
    assert not missing, f"ModelConfig fields without help (add it in docs/_ext FIELD_HELP): {missing}"


def test_rest_reference_covers_every_endpoint(ext: Any) -> None:
    from jupyter_codecomplete.web.openapi import openapi_document

    doc = openapi_document()
    text = ext.openapi_markdown(doc)
    for path, methods in doc["paths"].items():
        for method in methods:
            assert f"### {method.upper()} `{path}`" in text
    for name in doc["components"]["schemas"]:
        assert f"### {name}" in text
    json.dumps(doc)  # the downloadable document is JSON


def test_language_reference_covers_every_language(ext: Any) -> None:
    from jupyter_codecomplete.languages import ALL

    text = ext.languages_markdown()
    assert len(text.strip().split("\n")) == len(ALL) + 2
    for language in ALL:
        assert f"| {language.title} | `{language.name}`" in text


def test_generate_writes_the_pages(ext: Any, tmp_path: Path) -> None:
    out = ext.generate(str(tmp_path))
    assert {p.name for p in out.iterdir()} >= {
        "configuration-traits.md", "model-config.md", "rest-api.md", "openapi.json", ".gitignore",
        "languages.md",
    }  # fmt: skip
    for page in ("configuration.md", "rest-api.md", "languages.md"):
        assert "_generated/" in (DOCS / page).read_text()


def test_every_page_is_in_the_toctree() -> None:
    index = (DOCS / "index.md").read_text()
    pages = [p.relative_to(DOCS).with_suffix("").as_posix() for p in DOCS.rglob("*.md")]
    pages = [p for p in pages if not p.startswith(("_build", "_generated")) and p != "index"]
    missing = [p for p in pages if f"\n{p}\n" not in index]
    assert not missing, missing


def test_the_privacy_page_names_what_the_code_does() -> None:
    """docs/privacy.md lists the default exclusions, the channels and the secret formats in force."""
    from jupyter_codecomplete.privacy import CHANNELS, DEFAULT_EXCLUDE
    from jupyter_codecomplete.privacy.rules import plugin_patterns

    text = (DOCS / "privacy.md").read_text()
    for pattern in DEFAULT_EXCLUDE:
        assert f"`{pattern}`" in text, pattern
    for channel in CHANNELS:
        assert f"`{channel}`" in text, channel
    named = {
        "aws": "AWS", "azure": "Azure", "github": "GitHub", "gitlab": "GitLab", "slack": "Slack",
        "stripe": "Stripe", "openai": "OpenAI", "sendgrid": "SendGrid", "twilio": "Twilio",
        "mailchimp": "Mailchimp", "npm": "npm", "pypi": "PyPI", "discord": "Discord",
        "telegram": "Telegram", "square": "Square", "artifactory": "Artifactory",
        "json-web-token": "JSON web tokens", "basic-auth": "passwords in URLs",
    }  # fmt: skip
    for pattern in plugin_patterns():
        word = next((w for k, w in named.items() if pattern.kind.startswith(k)), None)
        assert word is not None and word in text, pattern.kind


# -- menu paths ------------------------------------------------------------------------------------

MENU_PATH = re.compile(r"[*]{1,2}Settings\s*→\s*([^*]+?)[*]{1,2}")
ROOT = DOCS.parent


def _our_submenu() -> tuple[str, set[str]]:
    """Our submenu of JupyterLab's Settings menu (the schema) and the labels of its commands."""
    schema = json.loads((ROOT / "schema" / "plugin.json").read_text(encoding="utf-8"))
    [entry] = [
        item
        for menu in schema["jupyter.lab.menus"]["main"]
        if menu["id"] == "jp-mainmenu-settings"
        for item in menu["items"]
        if item.get("type") == "submenu"
    ]
    ids = {i["command"] for i in entry["submenu"]["items"] if "command" in i}
    labels: set[str] = set()
    for source in (ROOT / "src" / "plugins").glob("*.ts"):
        text = source.read_text(encoding="utf-8")
        for m in re.finditer(r"addCommand\(\s*CommandIDs\.(\w+),\s*\{\s*label: trans\.__\('([^']+)'\)", text):
            labels.add(m.group(2))
    assert ids and labels, "the submenu or its labels were not found"
    return entry["submenu"]["label"], labels


def test_every_settings_menu_path_in_the_docs_is_one_a_user_finds() -> None:
    """*Settings → X → Y* names what the Settings menu holds: our submenu and its commands, or the
    Settings Editor (whose sections are the settings' titles). The README once said *Settings →
    Inline Code Suggestions → Edit predictions*, which no menu has."""
    ours, labels = _our_submenu()
    pages = [ROOT / "README.md", *sorted(DOCS.glob("*.md"))]
    found = 0
    for page in pages:
        text = " ".join(page.read_text(encoding="utf-8").split())
        for m in MENU_PATH.finditer(text):
            found += 1
            steps = [s.strip() for s in m.group(1).split("→")]
            where = f"{page.name}: *Settings → {m.group(1)}*"
            assert steps[0] in (ours, "Settings Editor", "Advanced Settings Editor"), where
            if steps[0] == ours and len(steps) > 1:
                assert steps[1] in labels, where
    assert found >= 5
