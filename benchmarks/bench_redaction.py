"""The privacy gate's cost on the event loop (issue 34): redaction per 10 KB of context, and the
whole gate per keystroke for a notebook's request.

Run: ``python benchmarks/bench_redaction.py`` (a table; no assertions; ratios are within one run).

- *scan*: :func:`find_all` on 10 KB of each kind of text, the cache not involved (best of runs);
- *gate, cold*: :meth:`Gate.prompt_request` for a request of 40 cells (code with outputs, about
  200 KB), nothing seen before;
- *gate, typing*: the same request again with one more character before the cursor, as each
  keystroke sends it (the other cells' findings come from the redactor's cache).

The target: at most 1 ms per 10 KB on the event loop.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from collections.abc import Callable
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tests"))

from planted_secrets import CODE, ENVIRON_OUTPUT, TRACEBACK  # noqa: E402

from jupyter_codecomplete.privacy import ChannelPolicy, Exclusions, Gate, find_all  # noqa: E402
from jupyter_codecomplete.prompting import PromptRequest  # noqa: E402
from jupyter_codecomplete.protocol import CellOutput, ContextCell  # noqa: E402

TEN_KB = 10_000


def sources() -> str:
    text = "".join(p.read_text() for p in sorted((ROOT / "jupyter_codecomplete").rglob("*.py")))
    return text


def dataframe_output(rows: int = 60) -> str:
    lines = ["      region  year     price  quantity      total"]
    for i in range(rows):
        lines.append(f"{i:4d}  north   {2020 + i % 5}  {i * 1.25:8.2f}  {i % 7:8d}  {i * 8.75:9.2f}")
    return "\n".join(lines)


def texts() -> dict[str, str]:
    code = sources()
    prose = (ROOT / "docs" / "user-guide.md").read_text() * 4
    outputs = (dataframe_output() + "\n") * 10
    dense = ((CODE + ENVIRON_OUTPUT + TRACEBACK) * 20)[:TEN_KB]
    return {
        "Python source (this package)": code[20_000 : 20_000 + TEN_KB],
        "Python source, another slice": code[200_000 : 200_000 + TEN_KB],
        "Markdown (user guide)": prose[:TEN_KB],
        "cell outputs (DataFrame prints)": outputs[:TEN_KB],
        "secret-dense (every planted kind)": dense,
    }


def best_ms(fn: Callable[[], object], runs: int) -> tuple[float, float]:
    times = []
    for _ in range(runs):
        t0 = time.perf_counter()
        fn()
        times.append((time.perf_counter() - t0) * 1000)
    return min(times), statistics.median(times)


def notebook_request(cells: int, extra: str = "") -> PromptRequest:
    code = sources()
    above = [
        ContextCell(
            source=code[i * 4_000 : i * 4_000 + 4_000],
            outputs=[CellOutput(output_type="execute_result", text=dataframe_output(12))],
        )
        for i in range(cells)
    ]
    return PromptRequest(prefix=CODE + "\nresult = df" + extra, suffix="\n", cells_above=above)


def main() -> None:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--runs", type=int, default=30)
    args = parser.parse_args()
    find_all("warm up the plugin table")

    print("| text (10 KB) | findings | best ms | median ms |")
    print("|---|---:|---:|---:|")
    for name, text in texts().items():
        found = len(find_all(text))
        best, median = best_ms(lambda t=text: find_all(t), args.runs)  # type: ignore[misc]
        print(f"| {name} | {found} | {best:.3f} | {median:.3f} |")

    policy = ChannelPolicy()
    request = notebook_request(40)
    size = len(request.prefix) + sum(len(c.source) + len(c.outputs[0].text) for c in request.cells_above)
    colds, typing = [], []
    for _ in range(max(5, args.runs // 3)):
        gate = Gate(Exclusions(str(ROOT)))
        t0 = time.perf_counter()
        gate.prompt_request(request, policy)
        colds.append((time.perf_counter() - t0) * 1000)
        for k in range(5):
            keyed = request.model_copy(update={"prefix": request.prefix + "x" * (k + 1)})
            t0 = time.perf_counter()
            gate.prompt_request(keyed, policy)
            typing.append((time.perf_counter() - t0) * 1000)
    print()
    print(f"gate on a request of 40 cells with outputs, {size / 1000:.0f} KB:")
    print("| gate | best ms | median ms | median ms per 10 KB |")
    print("|---|---:|---:|---:|")
    for name, values in (("cold (nothing seen before)", colds), ("typing (one more character)", typing)):
        median = statistics.median(values)
        print(f"| {name} | {min(values):.2f} | {median:.2f} | {median / (size / TEN_KB):.3f} |")


if __name__ == "__main__":
    main()
