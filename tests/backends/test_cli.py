"""``jupyter codecomplete check`` in a subprocess, against running scripted servers."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

from jupyter_codecomplete.testing import OllamaUpstream, OpenAIUpstream, UpstreamConfig

ROOT = Path(__file__).resolve().parents[2]


def run_check(
    tmp_path: Path, config: str, *args: str, env: dict[str, str] | None = None
) -> subprocess.CompletedProcess[str]:
    conf_dir = tmp_path / "config"
    conf_dir.mkdir(exist_ok=True)
    (conf_dir / "jupyter_server_config.py").write_text(config)
    environ = {k: v for k, v in os.environ.items() if not k.startswith("CODECOMPLETE_")}
    environ.update(
        {
            "JUPYTER_CONFIG_DIR": str(conf_dir),
            "JUPYTER_CONFIG_PATH": "",
            "JUPYTER_DATA_DIR": str(tmp_path),
            "JUPYTER_RUNTIME_DIR": str(tmp_path / "runtime"),
            **(env or {}),
        }
    )
    environ["JUPYTER_PLATFORM_DIRS"] = "1"
    cmd = [sys.executable, "-m", "jupyter_codecomplete.cli", "check", "--config-dir", str(conf_dir), *args]
    return subprocess.run(cmd, capture_output=True, text=True, env=environ, cwd=ROOT, timeout=120)


def test_check_reports_each_model(
    tmp_path: Path, ollama_up: OllamaUpstream, openai_up: OpenAIUpstream
) -> None:
    config = f"""
c.CodeCompleteApp.completion_model = {{"backend": "ollama", "base_url": "{ollama_up.root_url}",
                                      "model": "qwen2.5-coder:1.5b"}}
c.CodeCompleteApp.chat_model = {{"base_url": "{openai_up.base_url}", "model": "test-coder",
                                "api_key": "sk-cli-secret-77"}}
"""
    proc = run_check(tmp_path, config, "--json")
    assert proc.returncode == 0, proc.stderr + proc.stdout
    report: dict[str, Any] = json.loads(proc.stdout)
    assert report["ok"] is True
    comp, chat = report["models"]
    assert comp["name"] == "completion" and comp["reachable"] is True
    assert comp["serves"] == "qwen2.5-coder:1.5b"
    assert comp["style"] == "qwen2.5-coder" and comp["fim_supported"] is True
    assert comp["fim"]["native_suffix"] is True  # learned from /api/show
    assert comp["tokens"] >= 1 and comp["first_token_s"] is not None
    assert chat["backend"] == "openai-chat" and chat["style"] == "chat" and chat["serves"] == "test-coder"
    assert "sk-cli-secret-77" not in proc.stdout
    # what each model is sent (docs/privacy.md): where it runs, its channels, redaction, warm-ups
    assert comp["locality"] == "machine" and comp["warm"] is True
    assert (
        comp["privacy"] == "context sent: outputs, tracebacks, kernel, edit_history, files; secrets redacted"
    )
    # the sample completion went through /api/generate and carried the text after the cursor
    gen = [r for r in ollama_up.records if r.path == "/api/generate"]
    assert gen and "print(fibonacci(10))" in gen[-1].body["prompt"] + gen[-1].body.get("suffix", "")


def test_check_text_output_and_failure_exit_code(tmp_path: Path, openai_up: OpenAIUpstream) -> None:
    config = f"""
c.CodeCompleteApp.completion_model = {{"base_url": "{openai_up.base_url}", "model": "test-coder",
                                      "style": "raw"}}
c.CodeCompleteApp.models = {{"down": {{"backend": "llamacpp", "base_url": "http://127.0.0.1:9",
                                      "model": "x"}}}}
"""
    proc = run_check(tmp_path, config, "--timeout", "10")
    assert proc.returncode == 1, proc.stdout + proc.stderr
    out = proc.stdout
    assert "completion: openai" in out and "reachable:      yes" in out and "prompt style:   raw" in out
    assert "tokens/s" in out or "tokens)" in out
    assert "down: llamacpp" in out and "reachable:      no (Cannot reach" in out
    assert out.count("result:         OK") == 1 and "result:         FAILED" in out
    assert "runs:           on this machine" in out and "privacy:        context sent:" in out


def test_check_with_nothing_configured_uses_a_default(tmp_path: Path) -> None:
    proc = run_check(tmp_path, "", env={"CODECOMPLETE_BASE_URL": ""})
    # no local server is expected on the default ports in the test environment: the embedded demo
    # model serves (if a local server is there, discovery reports it instead; without
    # llama-cpp-python, nothing is configured and check fails)
    if proc.returncode == 1:
        assert "No model is configured" in proc.stdout
    elif "discovered" not in proc.stdout:
        assert "embedded" in proc.stdout and "codecomplete-demo" in proc.stdout


def test_check_warns_when_the_model_writes_nothing(tmp_path: Path) -> None:
    with OpenAIUpstream(UpstreamConfig(model="test-coder", default="")) as up:
        config = f"""
c.CodeCompleteApp.completion_model = {{"base_url": "{up.base_url}", "model": "test-coder", "style": "raw"}}
"""
        text = run_check(tmp_path, config, "--timeout", "10")
        proc = run_check(tmp_path, config, "--timeout", "10", "--json")
        tried = [r for r in up.records if r.path == "/v1/completions"]
    assert "result:         OK" not in text.stdout, text.stdout
    assert "result:         WARNING: the model wrote nothing for the sample" in text.stdout
    comp = json.loads(proc.stdout)["models"][0]
    assert comp["sample"] == "" and comp["tokens"] == 0
    assert "wrote nothing" in comp["warning"]
    assert len(tried) == 4  # two tries per run: a sampling model may end at once by chance
