"""The user's choice on disk: user-only permissions, applied at the next start, dropped when locked."""

from __future__ import annotations

import json
import os
import stat
from pathlib import Path

from traitlets.config import Config

from jupyter_codecomplete.extension import CodeCompleteApp
from jupyter_codecomplete.models_service import UserChoiceStore


def app_with(tmp_path: Path, **service: object) -> CodeCompleteApp:
    c = Config()
    c.CodeCompleteApp.completion_model = {
        "backend": "openai",
        "base_url": "http://admin:8000/v1",
        "model": "a",
    }
    c.CodeCompleteApp.discover_local_servers = False
    c.ModelService.store_dir = str(tmp_path / "store")
    c.ModelService.models_dir = str(tmp_path / "models")
    for key, value in service.items():
        setattr(c.ModelService, key, value)
    return CodeCompleteApp(config=c)


def test_store_is_user_only_and_atomic(tmp_path: Path) -> None:
    store = UserChoiceStore(tmp_path / "s")
    store.update(custom={"base_url": "http://h/v1", "api_key": "k" * 20})
    store.update(choice={"id": "custom", "config": {"backend": "openai", "base_url": "http://h/v1"}})
    assert stat.S_IMODE(os.stat(store.path).st_mode) == 0o600
    assert set(store.load()) == {"custom", "choice"}
    assert [p.name for p in store.directory.iterdir()] == ["user-model.json"]  # no temporary left
    store.path.write_text("{broken")
    assert store.load() == {}


def test_the_choice_applies_at_the_next_start(tmp_path: Path) -> None:
    cfg = {"backend": "ollama", "base_url": "http://127.0.0.1:11434", "model": "qwen2.5-coder:1.5b"}
    UserChoiceStore(tmp_path / "store").update(choice={"id": "detected:x", "config": cfg})
    models = app_with(tmp_path).model_configs()
    assert models["completion"].model == "qwen2.5-coder:1.5b" and models["completion"].backend == "ollama"
    # the administrator's own list does not change
    assert app_with(tmp_path).explicit_model_configs()["completion"].model == "a"


def test_a_locked_choice_is_not_applied(tmp_path: Path) -> None:
    cfg = {"backend": "ollama", "base_url": "http://127.0.0.1:11434", "model": "qwen2.5-coder:1.5b"}
    UserChoiceStore(tmp_path / "store").update(choice={"id": "detected:x", "config": cfg})
    assert app_with(tmp_path, allow_user_choice=False).model_configs()["completion"].model == "a"
    assert app_with(tmp_path, allowed_hosts=["llm.internal"]).model_configs()["completion"].model == "a"
    # a file that does not validate is ignored too
    (tmp_path / "store" / "user-model.json").write_text(json.dumps({"choice": {"config": {"nope": 1}}}))
    assert app_with(tmp_path).model_configs()["completion"].model == "a"


def test_a_store_nested_deeply_does_not_stop_the_start(tmp_path: Path) -> None:
    store = tmp_path / "store" / "user-model.json"
    store.parent.mkdir(parents=True)
    store.write_text('{"choice": ' + "[" * 5000 + "]" * 5000 + "}")
    assert app_with(tmp_path).model_configs()["completion"].model == "a"
    loaded = UserChoiceStore(tmp_path / "store")
    assert loaded.load() == {} and loaded.problem and "nested" in loaded.problem


def test_an_administrators_model_is_kept_as_a_reference(tmp_path: Path) -> None:
    # an old store that copied the administrator's settings: only the reference counts
    copied = {
        "backend": "openai",
        "base_url": "http://elsewhere:1/v1",
        "model": "copied",
        "api_key": "x" * 20,
    }
    UserChoiceStore(tmp_path / "store").update(choice={"id": "configured:completion", "config": copied})
    models = app_with(tmp_path).model_configs()
    assert models["completion"].model == "a" and models["completion"].base_url == "http://admin:8000/v1"


def test_edits_are_serialised(tmp_path: Path) -> None:
    import threading

    store = UserChoiceStore(tmp_path / "s")

    def add(n: int) -> None:
        for i in range(20):
            with store.edit() as data:
                data[f"k{n}-{i}"] = i

    threads = [threading.Thread(target=add, args=(n,)) for n in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert len(store.load()) == 80  # no write lost another's keys
