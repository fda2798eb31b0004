"""``jupyter codecomplete models``, ``models pull ID``, ``models use ID`` in a subprocess, against the fake
hub and a scripted Ollama."""

from __future__ import annotations

import json
import os
import stat
import subprocess
import sys
from pathlib import Path

from jupyter_codecomplete.testing import FakeHub, OllamaUpstream, demo_entry

ROOT = Path(__file__).resolve().parents[2]


def run(tmp_path: Path, hub: FakeHub, ollama: OllamaUpstream, *args: str) -> subprocess.CompletedProcess[str]:
    conf_dir = tmp_path / "config"
    conf_dir.mkdir(exist_ok=True)
    (conf_dir / "jupyter_server_config.py").write_text(
        f"c.ModelService.extra_catalogue = [{demo_entry()!r}]\n"
        "c.ModelService.scan_default_dirs = False\n"
        f"c.ModelService.detect_servers = [['ollama', {ollama.port}]]\n"
        f"c.ModelService.models_dir = {str(tmp_path / 'models')!r}\n"
        f"c.ModelService.store_dir = {str(tmp_path / 'store')!r}\n"
    )
    environ = {k: v for k, v in os.environ.items() if not k.startswith(("CODECOMPLETE_", "HF_"))}
    environ.update(
        {
            "HF_ENDPOINT": hub.endpoint,
            "JUPYTER_CONFIG_DIR": str(conf_dir),
            "JUPYTER_CONFIG_PATH": "",
            "JUPYTER_DATA_DIR": str(tmp_path / "data"),
            "JUPYTER_RUNTIME_DIR": str(tmp_path / "runtime"),
            "JUPYTER_PLATFORM_DIRS": "1",
        }
    )
    cmd = [sys.executable, "-m", "jupyter_codecomplete.cli", "models", "--config-dir", str(conf_dir), *args]
    return subprocess.run(cmd, capture_output=True, text=True, env=environ, cwd=ROOT, timeout=180)


def test_models_lists_every_source(tmp_path: Path, hub: FakeHub, ollama: OllamaUpstream) -> None:
    out = run(tmp_path, hub, ollama)
    assert out.returncode == 0, out.stderr
    lines = out.stdout.splitlines()
    assert lines[0].split()[:7] == ["ID", "ACTIVE", "SOURCE", "STATUS", "SIZE", "STYLE", "FIM"]
    text = out.stdout
    assert "qwen2.5-coder:1.5b" in text and "detected" in text
    assert "demo " in text and "disk" in text
    assert "qwen2.5-coder-1.5b" in text and "not downloaded" in text and "1.6 GB" in text
    as_json = json.loads(run(tmp_path, hub, ollama, "--json").stdout)
    assert {e["source"] for e in as_json["entries"]} >= {"detected", "disk", "catalogue"}


def test_pull_with_progress_then_use(tmp_path: Path, hub: FakeHub, ollama: OllamaUpstream) -> None:
    out = run(tmp_path, hub, ollama, "pull", "test-demo")
    assert out.returncode == 0, out.stderr
    assert "100.0%" in out.stderr and "[####" in out.stderr
    assert (tmp_path / "models" / "codecomplete-demo.Q8_0.gguf").stat().st_size == 8144384
    listing = run(tmp_path, hub, ollama, "--no-detect")
    assert any(line.startswith("test-demo") and "downloaded" in line for line in listing.stdout.splitlines())
    used = run(tmp_path, hub, ollama, "use", "test-demo")
    assert used.returncode == 0, used.stderr
    assert "result:" in used.stdout and "OK" in used.stdout
    store = tmp_path / "store" / "user-model.json"
    assert json.loads(store.read_text())["choice"]["id"] == "test-demo"
    assert stat.S_IMODE(store.stat().st_mode) == 0o600


def test_bad_ids_and_failures_exit_non_zero(tmp_path: Path, hub: FakeHub, ollama: OllamaUpstream) -> None:
    out = run(tmp_path, hub, ollama, "pull", "nope")
    assert out.returncode == 1 and "unknown_model" in out.stderr
    out = run(tmp_path, hub, ollama, "use", "nope")
    assert out.returncode == 1 and "unknown_model" in out.stderr
    hub.demo().corrupt = True
    out = run(tmp_path, hub, ollama, "pull", "test-demo", "--quiet")
    assert out.returncode == 1 and "corrupt" in out.stderr
    assert not (tmp_path / "models" / "codecomplete-demo.Q8_0.gguf").exists()


def test_use_for_edits_from_the_terminal(tmp_path: Path, hub: FakeHub, ollama: OllamaUpstream) -> None:
    listing = json.loads(run(tmp_path, hub, ollama, "--json").stdout)
    qwen = next(e for e in listing["entries"] if e["model"] == "qwen2.5-coder:1.5b")
    used = run(tmp_path, hub, ollama, "use", "--role", "edit", qwen["id"])
    assert used.returncode == 0, used.stderr
    assert "Chosen for edits" in used.stdout and "edit-chat format" in used.stdout
    data = json.loads((tmp_path / "store" / "user-model.json").read_text())
    assert data["edit_choice"]["id"] == qwen["id"] and "choice" not in data
    rows = run(tmp_path, hub, ollama).stdout.splitlines()
    assert any(line.startswith(qwen["id"]) and "edits" in line for line in rows)
    out = run(tmp_path, hub, ollama, "use", "--role", "chat", qwen["id"])
    assert out.returncode == 2 and "invalid choice" in out.stderr
