"""Load the post-processing golden cases (tests/golden/postprocess/*.toml, one ``[[case]]`` each)."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

from pydantic import BaseModel, ConfigDict, Field

from jupyter_codecomplete.postprocess import PostprocessContext

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover
    import tomli as tomllib

GOLDEN_DIR = Path(__file__).resolve().parent.parent / "golden" / "postprocess"


class GoldenCase(BaseModel):
    model_config = ConfigDict(extra="forbid")
    name: str
    language: str | None = None
    prefix: str = ""
    suffix: str = ""
    chunks: list[str]
    expected: str
    stop: list[str] = Field(default_factory=list)
    leftovers: list[str] = Field(default_factory=list)
    heal: str = ""
    multiline: bool | None = None
    line_ending: str | None = None
    max_lines: int | None = None
    # the model stopped at its token limit (finish reason "length")
    truncated: bool = False
    note: str = ""

    def context(self) -> PostprocessContext:
        return PostprocessContext(
            language=self.language,
            prefix=self.prefix,
            suffix=self.suffix,
            stop=self.stop,
            leftovers=self.leftovers,
            heal=self.heal,
            multiline=self.multiline,
            line_ending=self.line_ending,
            max_lines=self.max_lines,
        )


def load_cases() -> list[tuple[str, GoldenCase]]:
    cases: list[tuple[str, GoldenCase]] = []
    for path in sorted(GOLDEN_DIR.glob("*.toml")):
        data: dict[str, Any] = tomllib.loads(path.read_text(encoding="utf-8"))
        for raw in data.get("case", []):
            case = GoldenCase.model_validate(raw)
            cases.append((f"{path.stem}:{case.name}", case))
    return cases
