"""Recent completions: a bounded LRU of finished suggestions, by prompt, per model.

When the same prompt comes back (Backspace and retyping, coming back to a position, a second
browser tab), the suggestion is answered from here without a model call. The key is everything
that decides the model's answer: the model (name, and a fingerprint of its settings, so a changed
configuration never answers from an old entry), the rendered prompt (or chat messages), the
suffix sent natively, the token limit, stop sequences and extra request fields. Only a suggestion
that ran to its end with some text is stored: a cancelled, failed or empty one never is (an empty
answer of a sampled model is one draw, not the answer: asked again, it may write a line).
"""

from __future__ import annotations

import hashlib
import json
from collections import OrderedDict
from typing import Any


def fingerprint(value: Any) -> str:
    """A short stable digest of a JSON-able value (model settings: secrets are never kept)."""
    text = json.dumps(value, sort_keys=True, default=str)
    return hashlib.blake2b(text.encode("utf-8", "surrogatepass"), digest_size=12).hexdigest()


class RecentCompletions:
    """A bounded least-recently-used map from a request key to its finished suggestion.

    ``size`` 0 turns it off. Keys are digests, so a large prompt costs only its hashing.
    """

    def __init__(self, size: int = 256) -> None:
        self.size = max(0, int(size))
        self._items: OrderedDict[tuple[str, str], str] = OrderedDict()
        self.hits = 0
        self.misses = 0

    def __len__(self) -> int:
        return len(self._items)

    @staticmethod
    def key(model: str, settings: str, *parts: Any) -> tuple[str, str]:
        """The key of a request: the model, its settings' fingerprint, and what it sends."""
        h = hashlib.blake2b(digest_size=16)
        h.update(settings.encode())
        for part in parts:
            data = part if isinstance(part, str) else json.dumps(part, sort_keys=True, default=str)
            h.update(b"\x00")
            h.update(data.encode("utf-8", "surrogatepass"))
        return model, h.hexdigest()

    def get(self, key: tuple[str, str]) -> str | None:
        if not self.size:
            return None
        text = self._items.get(key)
        if text is None:
            self.misses += 1
            return None
        self._items.move_to_end(key)
        self.hits += 1
        return text

    def put(self, key: tuple[str, str], text: str) -> None:
        if not self.size:
            return
        self._items[key] = text
        self._items.move_to_end(key)
        while len(self._items) > self.size:
            self._items.popitem(last=False)

    def forget(self, model: str | None = None) -> None:
        """Drop every entry, or those of one model (its configuration changed)."""
        if model is None:
            self._items.clear()
            return
        for key in [k for k in self._items if k[0] == model]:
            del self._items[key]
