/**
 * Typing simulation: a user types a file character by character (slow enough that every
 * keystroke reaches the provider), accepting the suggestion by typing it; the scripted model
 * suggests the real next text up to the end of the next line, and every third suggestion goes
 * wrong after a few characters (divergence). Counts model calls per 100 typed characters with
 * typing-through (the provider as it is) and without it (forgetting every suggestion: what the
 * provider did before). Numbers go to docs/performance.md.
 */
import { InlineCompletionTriggerKind } from '@jupyterlab/completer';

import { CodeCompleteProvider, ICompletionClient } from '../completion/provider';
import { IInlineCompletionReply, IRequestBody } from '../connection/protocol';
import { DEFAULT_SETTINGS, normalizeSettings } from '../settings';

const FILE = `import json
from dataclasses import dataclass


@dataclass
class Point:
    x: float
    y: float

    def distance(self, other: "Point") -> float:
        return ((self.x - other.x) ** 2 + (self.y - other.y) ** 2) ** 0.5


def load_points(path: str, limit: int = 100) -> list[Point]:
    with open(path, encoding="utf-8") as f:
        rows = json.load(f)
    return [Point(float(r["x"]), float(r["y"])) for r in rows[:limit]]


def nearest(points: list[Point], target: Point) -> Point:
    best = points[0]
    for point in points[1:]:
        if point.distance(target) < best.distance(target):
            best = point
    return best
`;

/**
 * A model that knows the file: it suggests the rest of the current line and the next one;
 * every third answer diverges after 6 characters.
 */
class ScriptedModel implements ICompletionClient {
  calls = 0;
  hello = { max_message_bytes: 1000000 };
  request(body: IRequestBody) {
    const number = this.calls++;
    const at = body.prefix.length;
    const end = FILE.indexOf('\n', FILE.indexOf('\n', at) + 1);
    let text = FILE.slice(at, end < 0 ? FILE.length : end);
    if (number % 3 === 2 && text.length > 6) {
      text = text.slice(0, 6) + '#?!';
    }
    const reply: IInlineCompletionReply = {
      type: 'inline_completion',
      reply_to: number,
      list: { items: [{ insertText: text }] },
      error: null
    };
    return { number, reply: Promise.resolve(reply), chunks: null };
  }
  cancel(): void {
    /* nothing streams */
  }
}

async function simulate(typingThrough: boolean): Promise<number> {
  const model = new ScriptedModel();
  const settings = normalizeSettings({
    ...DEFAULT_SETTINGS,
    streaming: 'never',
    maxPrefixChars: 100000
  });
  const provider = new CodeCompleteProvider({ client: model, settings: () => settings });
  const context = {
    widget: { context: { path: 'points.py' } } as any,
    triggerKind: InlineCompletionTriggerKind.Automatic
  };
  for (let offset = 1; offset <= FILE.length; offset++) {
    if (!typingThrough) {
      provider.forget();
    }
    await provider.fetch(
      { text: FILE.slice(0, offset), offset, mimeType: 'text/x-python' },
      context
    );
  }
  return (model.calls / FILE.length) * 100;
}

describe('typing simulation', () => {
  it('makes far fewer model calls per 100 typed characters with typing through', async () => {
    const before = await simulate(false);
    const after = await simulate(true);
    console.log(
      `typing simulation: ${FILE.length} characters; model calls per 100 characters: ` +
        `${before.toFixed(1)} without typing through, ${after.toFixed(1)} with it`
    );
    expect(before).toBeCloseTo(100, 0);
    expect(after).toBeLessThan(before / 3);
  });
});
