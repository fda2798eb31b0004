"""The server's own CPU time from a completion request to the model request leaving, per backend kind.

In one process: the scripted OpenAI-format upstream on a thread, the default handler on the main
event loop. For each request the *CPU time of the event-loop thread* (``time.thread_time``) is taken
from ``handle_stream_request`` starting to the HTTP request's first bytes being written to the
socket (the asyncio transport's ``write``, whatever HTTP library is used): prompt, pipeline set-up,
LangChain and the HTTP client. CPU time of one thread, not wall time, so a busy machine (other
processes, the upstream's thread) does not count.

    python benchmarks/bench_backend_request.py [--kind openai] [--requests 200] [--profile 25]

Not a test. ``bench_frame.py`` measures the same path end to end (websocket frame in, wall time).
"""

from __future__ import annotations

import argparse
import asyncio
import asyncio.selector_events as selector_events
import cProfile
import io
import platform
import pstats
import statistics
import sys
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).parent))

from bench_frame import prefix_800

from jupyter_codecomplete.completion.default import DefaultInlineCompletionHandler
from jupyter_codecomplete.protocol import InlineCompletionRequest
from jupyter_codecomplete.testing.openai_upstream import OpenAIUpstream, UpstreamConfig

_sent: list[float] = []
_profile: cProfile.Profile | None = None
_write = selector_events._SelectorSocketTransport.write


def _hooked_write(self: Any, data: Any) -> None:
    head = bytes(data[:200])
    if head.startswith(b"POST ") and b"completions" in head:
        _sent.append(time.thread_time())
        if _profile is not None:
            _profile.disable()
    _write(self, data)


async def _one(handler: DefaultInlineCompletionHandler, i: int) -> float:
    request = InlineCompletionRequest(
        number=i, path="bench.py", language="python", prefix=prefix_800(f"p{i}"), suffix=""
    )
    _sent.clear()
    start = time.thread_time()
    async for chunk in handler.handle_stream_request(request, delta=True):
        if chunk.error is not None:
            raise RuntimeError(chunk.error.message)
    return (_sent[0] - start) * 1000


async def run(args: argparse.Namespace) -> None:
    global _profile
    selector_events._SelectorSocketTransport.write = _hooked_write  # type: ignore[method-assign]  # the hook
    up = OpenAIUpstream(UpstreamConfig(model="bench"))
    up.set_rules([], default="x = 1\n")
    up.start()
    model = {"backend": args.kind, "base_url": up.base_url, "model": "bench", "style": "raw"}
    handler = DefaultInlineCompletionHandler(settings={"models": {"completion": model}})
    try:
        for i in range(5):
            await _one(handler, i)
        ms = [await _one(handler, i) for i in range(5, 5 + args.requests)]
        print(
            f"# bench_backend_request: {platform.machine()}, Python {platform.python_version()}, "
            f"{time.strftime('%Y-%m-%d')}\n"
            f"{args.kind}: loop-thread CPU, request → model request written: "
            f"p50 {statistics.median(ms):.2f} ms, p90 {sorted(ms)[int(len(ms) * 0.9)]:.2f} ms (n={len(ms)})"
        )
        if args.profile:
            prof = cProfile.Profile()
            _profile = prof
            for i in range(10_000, 10_100):
                prof.enable()
                await _one(handler, i)
            prof.disable()
            out = io.StringIO()
            pstats.Stats(prof, stream=out).sort_stats("cumulative").print_stats(args.profile)
            print(out.getvalue())
    finally:
        await handler.close()
        up.stop()


def main() -> None:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--kind", default="openai")
    parser.add_argument("--requests", type=int, default=200)
    parser.add_argument("--profile", type=int, default=0, help="print the top N of a cProfile (cumulative)")
    asyncio.run(run(parser.parse_args()))


if __name__ == "__main__":
    main()
