"""Edit predictions across cells: the server's own work per request for notebooks of 10, 100 and
1,000 cells (validating the request, building the notebook document and the prompt, cleaning a
rename answer and mapping it back by cell id), and for an error fix (finding the line in a
20,000-character traceback, the prompt), beside a one-cell edit prediction, in one run.

    python benchmarks/bench_cells.py [--repeat 20]

Times are medians in milliseconds: "prompt" is validating the request, the notebook document and
the prompt (on the event loop; the document is bounded, 16,000 characters around the cursor's
cell, so what grows with the cells is validating the request itself, which any request of that
size pays); "answer" is cleaning a rename of three cells and mapping it back by cell id (off the
event loop); "CPU ms" is the process's CPU time for both (``time.process_time``, medians; the
server's own CPU per edit prediction, without the websocket and the model's answer); the last
column is both over the one-cell prediction's server work.
"""

from __future__ import annotations

import argparse
import statistics
import time
from collections.abc import Callable
from typing import Any

from jupyter_codecomplete.completion.notebook_edits import notebook_prompt_request
from jupyter_codecomplete.postprocess.cells import map_to_cells
from jupyter_codecomplete.postprocess.edits import clean_edits
from jupyter_codecomplete.prompting import BUILTIN_STYLES, EditPromptRequest, build_edit_prompt
from jupyter_codecomplete.prompting.tracebacks import error_line
from jupyter_codecomplete.protocol import EditPredictionRequest

DEFINE = 'sales = pd.DataFrame({"price": [1.0], "qty": [2]})\n'


def wire(cells: int) -> dict[str, Any]:
    above = [
        {
            "cell_type": "code",
            "source": f"value_{i} = compute({i})\n",
            "cell_id": f"a{i}",
            "execution_count": i + 1,
        }
        for i in range(cells // 2)
    ]
    below = [
        {"cell_type": "code", "source": f"report_{i} = df['price'] * {i}\n", "cell_id": f"b{i}"}
        for i in range(cells - cells // 2 - 1)
    ]
    return {
        "type": "edit_prediction",
        "number": 1,
        "path": "sales.ipynb",
        "language": "python",
        "text": DEFINE,
        "cursor": 5,
        "cell_id": "own",
        "scope": "notebook",
        "recent_edits": [{"diff": "@@ -1 +1 @@\n-df = pd.DataFrame()\n+sales = pd.DataFrame()\n"}],
        "cells_above": above,
        "cells_below": below,
    }


def notebook_prompt(data: dict[str, Any]) -> tuple[Any, Any]:
    """The request's validation, the notebook document and the prompt (on the event loop)."""
    style = BUILTIN_STYLES["edit-chat"]
    request = EditPredictionRequest.model_validate(data)
    doc, prompt_request = notebook_prompt_request(request, style, None, [])
    return doc, build_edit_prompt(prompt_request, style)


def notebook_answer(doc: Any, built: Any) -> int:
    """Cleaning a rename of three cells below and mapping it back (off the event loop)."""
    region = doc.text[built.region_start : built.region_end]
    for i in range(3):
        region = region.replace(f"report_{i} = df[", f"report_{i} = sales[")
    cleaned = clean_edits(doc.text, built.region_start, built.region_end, region, language="python")
    mapped = map_to_cells(cleaned.edits, doc.segments, doc.separator_mark).edits
    assert len(mapped) == 3, (cleaned.notes, mapped)
    return len(mapped)


def error_request(data: dict[str, Any]) -> int:
    style = BUILTIN_STYLES["edit-chat"]
    request = EditPredictionRequest.model_validate(data)
    assert request.error is not None
    line = error_line(request.error, request.text)
    _, prompt_request = notebook_prompt_request(request, style, line, [])
    return len(build_edit_prompt(prompt_request, style).prompt)


def one_cell(text: str) -> int:
    style = BUILTIN_STYLES["edit-chat"]
    built = build_edit_prompt(EditPromptRequest(text=text, cursor=5, region=(0, len(text))), style)
    cleaned = clean_edits(
        text, built.region_start, built.region_end, text.replace("df", "sales"), language="python"
    )
    return len(cleaned.edits)


def timed(repeat: int, fn: Callable[..., object], *args: Any) -> tuple[float, float]:
    """Medians of ``fn(*args)``: wall-clock and CPU (this process) milliseconds."""
    times, cpu = [], []
    for _ in range(repeat):
        t0, c0 = time.perf_counter(), time.process_time()
        fn(*args)
        times.append((time.perf_counter() - t0) * 1000)
        cpu.append((time.process_time() - c0) * 1000)
    return statistics.median(times), statistics.median(cpu)


def main() -> None:
    ap = argparse.ArgumentParser(description=(__doc__ or "").split("\n\n")[0])
    ap.add_argument("--repeat", type=int, default=20)
    args = ap.parse_args()
    base, base_cpu = timed(args.repeat, one_cell, DEFINE + "df['price'].sum()\n" * 10)
    rows = [
        ["request", "prompt ms", "answer ms", "CPU ms", "× one cell"],
        ["one cell (11 lines)", "-", "-", f"{base_cpu:.2f}", f"{base:.2f} ms"],
    ]
    for n in (10, 100, 1000):
        prompt, prompt_cpu = timed(args.repeat, notebook_prompt, wire(n))
        answer, answer_cpu = timed(args.repeat, notebook_answer, *notebook_prompt(wire(n)))
        rows.append(
            [
                f"notebook, {n} cells",
                f"{prompt:.2f}",
                f"{answer:.2f}",
                f"{prompt_cpu + answer_cpu:.2f}",
                f"{(prompt + answer) / base:.1f}",
            ]
        )
    frames = "".join(f"Cell In[{i}], line 1\n----> 1 other_{i}()\n" for i in range(1000))
    tb = (frames + "Cell In[7], line 1\n----> 1 df[\"prcie\"].sum()\n\nKeyError: 'prcie'")[-20_000:]
    data = {
        **wire(100),
        "text": 'df["prcie"].sum()\n',
        "cursor": 0,
        "trigger": "error",
        "error": {"ename": "KeyError", "evalue": "'prcie'", "traceback": tb, "execution_count": 7},
    }
    ms, cpu = timed(args.repeat, error_request, data)
    rows.append(
        ["error fix, 20,000-char traceback, 100 cells", f"{ms:.2f}", "-", f"{cpu:.2f}", f"{ms / base:.1f}"]
    )
    widths = [max(len(r[i]) for r in rows) for i in range(len(rows[0]))]
    for k, r in enumerate(rows):
        print(
            "| "
            + " | ".join(
                c.ljust(w) if i == 0 else c.rjust(w) for i, (c, w) in enumerate(zip(r, widths, strict=True))
            )
            + " |"
        )
        if k == 0:
            print("|" + "|".join("-" * (w + 2) for w in widths) + "|")


if __name__ == "__main__":
    main()
