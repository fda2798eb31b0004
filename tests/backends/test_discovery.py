"""Zero-configuration discovery against scripted local servers on ephemeral ports."""

from __future__ import annotations

from jupyter_codecomplete.backends.discovery import adiscover_local_models, discover_local_models
from jupyter_codecomplete.testing import (
    FIM_TEMPLATE,
    LlamaCppUpstream,
    OllamaUpstream,
    OpenAIUpstream,
    UpstreamConfig,
)


def free_port() -> int:
    import socket

    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def test_nothing_running_gives_none() -> None:
    assert discover_local_models(servers=[("ollama", free_port()), ("lmstudio", free_port())]) is None


def test_ollama_code_model_with_insert_is_preferred() -> None:
    models = {
        "llama3.1:8b": {"capabilities": ["completion", "tools"], "template": "{{ .Prompt }}"},
        "qwen2.5-coder:1.5b": {"capabilities": ["completion", "insert"], "template": FIM_TEMPLATE},
        "nomic-embed-text:latest": {"capabilities": ["embedding"]},
    }
    with OllamaUpstream(models=models) as up:
        cfg = discover_local_models(servers=[("ollama", up.port)])
    assert cfg is not None
    assert (cfg.backend, cfg.model, cfg.base_url) == ("ollama", "qwen2.5-coder:1.5b", up.root_url)


def test_general_model_only_is_not_chosen_unless_allowed() -> None:
    models = {"mistral-nemo:12b": {"capabilities": ["completion"], "template": "{{ .Prompt }}"}}
    with OllamaUpstream(models=models) as up:
        assert discover_local_models(servers=[("ollama", up.port)]) is None
        cfg = discover_local_models(servers=[("ollama", up.port)], require_fim=False)
    assert cfg is not None and cfg.model == "mistral-nemo:12b"


async def test_llamacpp_server_with_infill_and_lmstudio() -> None:
    with (
        LlamaCppUpstream(UpstreamConfig(model="qwen2.5-coder-1.5b-q8_0")) as llama,
        OpenAIUpstream(UpstreamConfig(model="qwen2.5-coder-7b-instruct")) as lms,
    ):
        cfg = await adiscover_local_models(servers=[("lmstudio", lms.port), ("llamacpp", llama.port)])
    assert cfg is not None
    # both have FIM and a code name; llama.cpp's /infill was confirmed, LM Studio's only by name,
    # so the order of the list decides: LM Studio was listed first
    assert cfg.backend == "openai" and cfg.server == "lmstudio" and cfg.base_url == lms.base_url


async def test_llamacpp_without_fim_tokens_is_skipped() -> None:
    with LlamaCppUpstream(UpstreamConfig(model="tinyllama-chat"), fim=False) as llama:
        assert await adiscover_local_models(servers=[("llamacpp", llama.port)]) is None
    with LlamaCppUpstream(UpstreamConfig(model="tinyllama-chat"), fim=True) as llama:
        cfg = await adiscover_local_models(servers=[("llamacpp", llama.port)])
    assert cfg is not None and cfg.backend == "llamacpp" and cfg.model == "tinyllama-chat.gguf"


async def test_openai_only_server_on_8080_is_llama_cpp_python() -> None:
    with OpenAIUpstream(UpstreamConfig(model="qwen2.5-coder-1.5b")) as up:
        cfg = await adiscover_local_models(servers=[("llamacpp", up.port)])
    assert cfg is not None
    assert cfg.backend == "openai" and cfg.server == "llama-cpp-python" and cfg.base_url == up.base_url


def test_report_names_every_server_probed_and_what_answered() -> None:
    models = {"qwen2.5-coder:1.5b": {"capabilities": ["completion", "insert"], "template": FIM_TEMPLATE}}
    silent = free_port()
    report: list[str] = []
    with OllamaUpstream(models=models) as up:
        cfg = discover_local_models(servers=[("ollama", up.port), ("lmstudio", silent)], report=report)
    assert cfg is not None
    assert report == [
        f"ollama on 127.0.0.1:{up.port}: 1 model(s) (qwen2.5-coder:1.5b)",
        f"lmstudio on 127.0.0.1:{silent}: no answer",
    ]


async def test_llamacpp_server_family_from_its_vocabulary() -> None:
    # llama.cpp's /props names only the file; /tokenize (with pieces) says which FIM tokens the
    # model's vocabulary has as single tokens: StarCoder2's, whatever the file is called
    vocabulary = ("<fim_prefix>", "<fim_suffix>", "<fim_middle>", "<fim_pad>", "<|endoftext|>")
    vocabulary += ("<file_sep>", "<repo_name>")
    with LlamaCppUpstream(UpstreamConfig(model="model"), vocabulary=vocabulary) as llama:
        cfg = await adiscover_local_models(servers=[("llamacpp", llama.port)])
    assert cfg is not None and cfg.backend == "llamacpp" and cfg.model == "model.gguf"
    assert cfg.style == "starcoder2"
