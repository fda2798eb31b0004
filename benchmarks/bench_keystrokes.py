"""Prompt tokens ``llama_cpp.server`` evaluates per keystroke while a person types (issue 29), in
each fill order, with and without the warm-up: the demo GGUF at a 4,096-token context, through
the engine (prepare, prompt, model, cleaning) as the websocket uses it.

A person types a small method (three lines, 43 characters in 35 keystrokes; a newline and its
indentation are one keystroke, as an editor indents) on a new, indented line in the middle of
CPython's ``fractions.py`` (~750 lines, text after the cursor), one request per keystroke, each
read to its end (``max_tokens`` 8, greedy). For each request the number read is what the server
evaluated, from its own log (``verbose``, the default): ``Llama.generate: P prefix-match hit,
remaining N prompt tokens to eval`` (N), ``full prompt already cached`` (0), or neither (the whole
prompt: the server's ``/extras/tokenize/count`` of it, rebuilt with the same builder). Styles,
forced with the model config's ``"style"``: ``qwen2.5-coder`` (prefix-suffix-middle, the demo
model's own), the same tokens in suffix-prefix-middle order (a user style ``extends`` it with
``order: spm``), ``seed-coder`` (a built-in SPM style; its FIM markers are plain text to the demo
model), and ``raw`` (the prefix alone). *cold*: another file was the server's last prompt;
*warmed*: the engine's warm-up (``handler.warm``, what a ``warm`` message does) for the cursor when
the file is focused, and again after each typed line (the user's pause at a line end).

    python benchmarks/bench_keystrokes.py [--n-ctx 4096] [--json PATH]
"""

from __future__ import annotations

import argparse
import asyncio
import fractions
import json
import re
import statistics
import tempfile
import time
from pathlib import Path
from typing import Any

import httpx

from jupyter_codecomplete.backends import ModelConfig
from jupyter_codecomplete.backends.embedded import default_model_path
from jupyter_codecomplete.completion.engine import make_default_engine
from jupyter_codecomplete.completion.settings import EngineSettings
from jupyter_codecomplete.prompting import StyleRegistry
from jupyter_codecomplete.protocol import InlineCompletionRequest
from jupyter_codecomplete.testing.processes import llama_cpp_server

INDENT = "    "  # the cursor on a new line the editor has indented
TYPED = [
    "def halved(self):\n",
    "        return self / 2\n",
    "\n",
]
HIT = re.compile(r"Llama\.generate: \d+ prefix-match hit, remaining (\d+) prompt tokens to eval")
CACHED = "Llama.generate: full prompt already cached"
QWEN_SPM = {
    "extends": "qwen2.5-coder",
    "description": "qwen2.5-coder's tokens in suffix-prefix-middle order (benchmark only).",
    "fim": {
        "prefix": "<|fim_prefix|>",
        "suffix": "<|fim_suffix|>",
        "middle": "<|fim_middle|>",
        "order": "spm",
    },
}
STYLES = [
    ("qwen2.5-coder", "PSM"),
    ("qwen2.5-coder-spm", "SPM"),
    ("seed-coder", "SPM"),
    ("raw", "prefix only"),
]


def keystrokes(lines: list[str]) -> list[str]:
    """The typed text cut into keystrokes: one character, or a newline with the next indentation."""
    text = "".join(lines)
    out: list[str] = []
    i = 0
    while i < len(text):
        j = i + 1
        if text[i] == "\n":
            while j < len(text) and text[j] == " ":
                j += 1
        out.append(text[i:j])
        i = j
    return out


def opened(text: str) -> tuple[str, int]:
    """The file with a new, indented line between two methods near its middle; the cursor there."""
    at = text.find("\n\n    def ", len(text) // 2) + 2
    return text[:at] + INDENT + "\n" + text[at:], at + len(INDENT)


def pct(values: list[int] | list[float], q: float) -> float:
    ordered = sorted(values)
    return float(ordered[min(len(ordered) - 1, int(q * len(ordered)))])


class Log:
    """What the server's log says it evaluated since the last read."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self.offset = 0

    def skip(self) -> None:
        self.offset = self.path.stat().st_size

    def evaluated(self) -> int | None:
        with self.path.open("rb") as f:
            f.seek(self.offset)
            new = f.read().decode("utf-8", errors="replace")
        self.offset += len(new.encode("utf-8", errors="replace"))
        if CACHED in new:
            return 0
        found = HIT.findall(new)
        return int(found[-1]) if found else None


def request(text: str, cursor: int, number: int) -> InlineCompletionRequest:
    return InlineCompletionRequest(
        number=number, prefix=text[:cursor], suffix=text[cursor:], language="python", path="fractions.py",
        stream=True,
    )  # fmt: skip


async def first_piece(handler: Any, req: InlineCompletionRequest) -> float:
    """Read the answer to its end; the time to its first piece (ms)."""
    start = time.perf_counter()
    first = float("nan")
    async for chunk in handler.handle_stream_request(req, delta=True):
        if first != first and (chunk.response.insertText or chunk.done):
            first = (time.perf_counter() - start) * 1000
    return first


async def prompt_length(
    handler: Any, client: httpx.AsyncClient, base: str, req: InlineCompletionRequest
) -> int:
    prepared, _ = await handler.prepare_async(req)
    r = await client.post(
        f"{base.removesuffix('/v1')}/extras/tokenize/count", json={"input": prepared.built.prompt}
    )
    r.raise_for_status()
    return int(r.json()["count"])


async def replay(
    server: Any, log: Log, style: str, warm: bool, args: argparse.Namespace, base: str, other: str
) -> dict[str, Any]:
    config = {
        "backend": "openai", "base_url": server.base_url, "model": "codecomplete-demo", "style": style,
        "context_window": args.n_ctx, "max_tokens": 8, "temperature": 0.0,
    }  # fmt: skip
    if args.same_budget:  # the prompt's budget then no longer depends on the kind of line
        config["max_tokens_single_line"] = 8
    settings = EngineSettings(
        models={"completion": ModelConfig.model_validate(config)},
        styles=StyleRegistry({"qwen2.5-coder-spm": QWEN_SPM}),
        recent_completions=0,
    )
    handler = make_default_engine(settings)
    text, cursor = opened(base)
    evaluated: list[int] = []
    ttft: list[float] = []
    warm_ups: list[int] = []
    number = 0
    try:
        async with httpx.AsyncClient(timeout=120) as client:
            # another file was the server's last prompt: nothing of this one is cached
            await first_piece(handler, request(other, len(other) // 2, number))
            log.skip()

            async def warm_up(text: str, at: int) -> None:
                nonlocal number
                number += 1
                req = request(text, at, number)
                await handler.warm(req)
                got = log.evaluated()
                warm_ups.append(
                    got if got is not None else await prompt_length(handler, client, server.base_url, req)
                )

            if warm:
                await warm_up(text, cursor)
            for key in keystrokes(TYPED):
                text = text[:cursor] + key + text[cursor:]
                cursor += len(key)
                number += 1
                req = request(text, cursor, number)
                ttft.append(await first_piece(handler, req))
                got = log.evaluated()
                if got is None:
                    got = await prompt_length(handler, client, server.base_url, req)
                evaluated.append(got)
                if warm and key.startswith("\n"):
                    await warm_up(text, cursor)
            prompt_tokens = await prompt_length(handler, client, server.base_url, req)
    finally:
        await handler.close()
    return {
        "style": style, "warm": warm, "evaluated": evaluated, "ttft_ms": ttft, "warm_ups": warm_ups,
        "prompt_tokens": prompt_tokens,
    }  # fmt: skip


async def run(args: argparse.Namespace, base: str, other: str) -> dict[str, Any]:
    model = default_model_path()
    out: dict[str, Any] = {"date": time.strftime("%Y-%m-%d %H:%M %Z"), "n_ctx": args.n_ctx, "rows": []}
    out["same_budget"] = args.same_budget
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "server.log"
        with llama_cpp_server(model, path, n_ctx=args.n_ctx, n_threads=2) as server:
            log = Log(path)
            for style in args.styles.split(","):
                for warm in (False, True):
                    out["rows"].append(await replay(server, log, style, warm, args, base, other))
    return out


def table(res: dict[str, Any]) -> None:
    orders = dict(STYLES)
    n = len(keystrokes(TYPED))
    print(f"\nprompt tokens llama_cpp.server evaluated per keystroke, {n} keystrokes into fractions.py, "
          f"{res['date']}, context {res['n_ctx']} tokens"
          f"{', the same budget on every line' if res.get('same_budget') else ''}")  # fmt: skip
    print("| style (order) | warm-up | prompt tokens | evaluated per keystroke p50 / p90 "
          "| first keystroke: evaluated, first piece | first piece p50 / p90 (ms) "
          "| warm-up at focus; at line ends p50 |")  # fmt: skip
    print("|---|---|---|---|---|---|---|")
    for row in res["rows"]:
        e, t, w = row["evaluated"], row["ttft_ms"], row["warm_ups"]
        warm = f"{w[0]}; {statistics.median(w[1:]):.0f} (×{len(w) - 1})" if len(w) > 1 else "-"
        print(
            f"| {row['style']} ({orders.get(row['style'], '?')}) | {'yes' if row['warm'] else 'no'} "
            f"| {row['prompt_tokens']} "
            f"| {statistics.median(e):.0f} / {pct(e, 0.9):.0f} | {e[0]}, {t[0]:.0f} ms "
            f"| {statistics.median(t):.0f} / {pct(t, 0.9):.0f} | {warm} |"
        )


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    ap.add_argument("--n-ctx", type=int, default=4096)
    ap.add_argument("--styles", default=",".join(name for name, _ in STYLES), help="comma-separated")
    ap.add_argument(
        "--same-budget",
        action="store_true",
        help="max_tokens_single_line = max_tokens (8): the prompt's budget is the same on every line",
    )
    ap.add_argument("--json", help="write the numbers here")
    args = ap.parse_args(argv)
    base = Path(fractions.__file__).read_text()
    other = Path(statistics.__file__).read_text()  # the file open before this one
    res = asyncio.run(run(args, base, other))
    table(res)
    if args.json:
        Path(args.json).write_text(json.dumps(res, indent=1))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
