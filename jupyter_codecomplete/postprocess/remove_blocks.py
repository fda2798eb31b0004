"""Remove leftover blocks (``<think>...</think>`` always, and the blocks a prompt style names), with
the newlines right after them."""

from __future__ import annotations

from collections.abc import Iterator

from .base import Filter, partial_tail
from .context import Setup
from .tokens import THINK_BLOCKS


class LeftoverBlocks(Filter):
    """Remove ``open ... close`` blocks (``<think>...</think>``); an unclosed block is dropped to the
    end. Newlines right after a removed block are dropped too."""

    stage = "text"

    def __init__(self, blocks: list[tuple[str, str]]) -> None:
        super().__init__()
        self.blocks = [(o, c) for o, c in blocks if o and c]
        self._buf = ""
        self._close: str | None = None  # inside a block: its closing marker
        self._after = False  # just after a block: drop newlines

    def feed(self, text: str) -> str:
        buf = self._buf + text
        out: list[str] = []
        while True:
            if self._close is not None:
                i = buf.find(self._close)
                if i < 0:
                    k = partial_tail(buf, self._close)
                    buf = buf[len(buf) - k :] if k else ""
                    break
                buf = buf[i + len(self._close) :]
                self._close = None
                self._after = True
            if self._after:
                stripped = buf.lstrip("\n")
                if not stripped:
                    buf = ""
                    break
                buf = stripped
                self._after = False
            best = -1
            for o, c in self.blocks:
                i = buf.find(o)
                if i >= 0 and (best < 0 or i < best):
                    best, self._close = i, c
                    opener = o
            if best < 0:
                hold = max((partial_tail(buf, o) for o, _ in self.blocks), default=0)
                out.append(buf[: len(buf) - hold])
                buf = buf[len(buf) - hold :] if hold else ""
                break
            out.append(buf[:best])
            buf = buf[best + len(opener) :]
        self._buf = buf
        return "".join(out)

    def finish(self) -> str:
        self.done = True
        out = "" if self._close is not None else self._buf
        self._buf = ""
        return out


def build(setup: Setup) -> Iterator[Filter]:
    yield LeftoverBlocks(list(dict.fromkeys([*setup.blocks, *THINK_BLOCKS])))
