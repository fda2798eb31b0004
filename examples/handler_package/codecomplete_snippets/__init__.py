"""An example completion handler: suggestions from a table of snippets, no model at all.

It shows the whole interface a completion handler implements:

* ``suggest(request, notes)``: an async iterator of *deltas* of the suggestion; the server joins
  them (or streams them as ghost text while they come), cancels the iterator when a newer request
  supersedes this one, and turns any exception into an error reply;
* ``model_info(request)``: what the status item and the replies show as the serving "model".

The snippets come from ``c.CodeCompleteApp``'s settings when the handler is built by the server
(``settings["snippets"]`` if present), else from :data:`DEFAULT_SNIPPETS`.
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator

from jupyter_codecomplete.completion import BaseInlineCompletionHandler
from jupyter_codecomplete.protocol import InlineCompletionRequest, ServingModel

__version__ = "0.1.0"

# The text before the cursor on its line (its end) -> the suggestion.
DEFAULT_SNIPPETS: dict[str, str] = {
    "import num": "py as np",
    "import pan": "das as pd",
    "import matplotlib.py": "plot as plt",
    'if __name__ == "__main__":': "\n    main()",
    "def main(": "):\n    pass",
}


class SnippetCompletionHandler(BaseInlineCompletionHandler):
    """Completes the current line from a table of snippets (the longest matching key wins)."""

    @property
    def snippets(self) -> dict[str, str]:
        return dict(self.settings.get("snippets") or DEFAULT_SNIPPETS)

    def lookup(self, prefix: str) -> str:
        line = prefix.rsplit("\n", 1)[-1]
        matches = [key for key in self.snippets if line.endswith(key)]
        return self.snippets[max(matches, key=len)] if matches else ""

    async def suggest(self, request: InlineCompletionRequest, notes: list[str]) -> AsyncIterator[str]:
        text = self.lookup(request.prefix)
        if not text:
            notes.append("no snippet matches the text before the cursor")
            return
        # Stream word by word, as a model would; the pause gives cancellation a chance to land.
        for i, word in enumerate(text.split(" ")):
            yield word if i == 0 else " " + word
            await asyncio.sleep(0)

    def model_info(self, request: InlineCompletionRequest | None = None) -> ServingModel | None:
        return ServingModel(name="snippets", backend="codecomplete-snippets")
