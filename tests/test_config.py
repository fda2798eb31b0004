"""The configuration module (``config.py``): the commands read ``c.CodeCompleteApp.*`` without the
server extension, and every path builds its engine from the same settings.

- a command runs without importing ``extension.py`` or jupyter_server's extension application;
- ``CodeCompleteConfig`` outside a server reads what ``CodeCompleteApp`` reads in one (same traits,
  same ``c.CodeCompleteApp`` section), and the server's engine is built from those settings;
- the model dialog's Test (``ModelService.probe``, also ``jupyter codecomplete models use``) tests a
  model on the configuration's engine settings: a prompt style the administrator defined is known
  there with no server running (a real scripted OpenAI-format server answers the sample).
"""

from __future__ import annotations

import dataclasses
import json
import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest
from traitlets.config import Config

from jupyter_codecomplete.backends import ModelConfig
from jupyter_codecomplete.config import CodeCompleteConfig
from jupyter_codecomplete.extension import CodeCompleteApp
from jupyter_codecomplete.testing import OpenAIUpstream, UpstreamConfig

ROOT = Path(__file__).resolve().parents[1]

# a user prompt style with its own fill-in-the-middle tokens (docs/prompt-styles.md)
MY_STYLE = {
    "description": "MyCoder 7B base",
    "patterns": ["*mycoder*"],
    "fim": {"prefix": "<PRE>", "suffix": "<SUF>", "middle": "<MID>", "order": "psm"},
    "stop": ["<EOT>"],
}


def settings_config(tmp_path: Path, **app: object) -> Config:
    c = Config()
    for name, value in app.items():
        c.CodeCompleteApp[name] = value
    c.ModelService.store_dir = str(tmp_path / "store")
    c.ModelService.models_dir = str(tmp_path / "models")
    c.ModelService.scan_default_dirs = False
    return c


def test_a_command_runs_without_the_server_extension(tmp_path: Path) -> None:
    conf = tmp_path / "config"
    conf.mkdir()
    (conf / "jupyter_server_config.py").write_text(
        f"c.CodeCompleteApp.usage_path = {str(tmp_path / 'usage.sqlite3')!r}\n"
        "c.CodeCompleteApp.record_usage = False\n"
    )
    code = (
        "import contextlib, io, json, sys\n"
        "from jupyter_codecomplete.cli import main\n"
        "out = io.StringIO()\n"
        "with contextlib.redirect_stdout(out):\n"
        f"    rc = main(['stats', '--json', '--config-dir', {str(conf)!r}])\n"
        "loaded = [m for m in ('jupyter_codecomplete.extension', 'jupyter_server.extension.application')"
        " if m in sys.modules]\n"
        "print(json.dumps({'rc': rc, 'path': json.loads(out.getvalue())['path'], 'loaded': loaded}))\n"
    )
    env = os.environ | {"JUPYTER_CONFIG_DIR": str(conf), "JUPYTER_CONFIG_PATH": ""}
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, env=env, cwd=ROOT, timeout=120
    )
    assert out.returncode == 0, out.stderr
    # the configured store was read (c.CodeCompleteApp.usage_path), and the server was never imported
    assert json.loads(out.stdout) == {"rc": 0, "path": str(tmp_path / "usage.sqlite3"), "loaded": []}


def test_outside_a_server_the_same_section_and_traits_are_read(tmp_path: Path) -> None:
    c = settings_config(
        tmp_path,
        completion_model={"backend": "openai", "base_url": "http://127.0.0.1:9/v1", "model": "m"},
        routes={"markdown": "completion"},
        max_suggestion_chars=123,
        max_suggestion_lines=4,
        recent_completions=0,
        repo_name="proj",
    )
    alone, app = CodeCompleteConfig(config=c), CodeCompleteApp(config=c)
    names = sorted(CodeCompleteConfig.class_own_traits(config=True))
    assert names == sorted(CodeCompleteApp.class_own_traits(config=True))  # the server's own options
    assert {n: getattr(alone, n) for n in names} == {n: getattr(app, n) for n in names}
    settings = alone.engine_settings()
    served = app.engine_settings()
    assert dataclasses.replace(settings, styles=served.styles) == served
    assert settings.styles.all() == served.styles.all()
    assert (settings.max_suggestion_chars, settings.max_suggestion_lines) == (123, 4)
    assert (settings.recent_completions, settings.repo_name) == (0, "proj")
    engine = app.make_completion_handler()  # what the server serves with
    assert engine.max_suggestion_chars == 123 and engine.max_suggestion_lines == 4


@pytest.fixture
def upstream() -> Iterator[OpenAIUpstream]:
    up = OpenAIUpstream(UpstreamConfig(default="return n\n"))
    up.start()
    yield up
    up.stop()


async def test_the_dialogs_test_uses_the_configurations_prompt_styles(
    tmp_path: Path, upstream: OpenAIUpstream
) -> None:
    model = ModelConfig(backend="openai", base_url=upstream.base_url, model="m", style="mycoder")
    config = CodeCompleteConfig(config=settings_config(tmp_path, prompt_styles={"mycoder": MY_STYLE}))
    service = config.model_service
    try:
        report = await service.probe(model)
    finally:
        await service.close()
    assert report["ok"], report
    assert report["style"] == "mycoder" and report["fim_supported"] is True
    assert report["sample"] == "return n\n"
    prompt = upstream.last().body["prompt"]
    assert prompt.startswith("<PRE>") and "<SUF>" in prompt and prompt.endswith("<MID>")
    # without the administrator's style the same model is refused: it names an unknown style
    bare = CodeCompleteConfig(config=settings_config(tmp_path / "bare"))
    try:
        refused = await bare.model_service.probe(model)
    finally:
        await bare.model_service.close()
    assert refused["ok"] is False and "mycoder" in refused["error"]
