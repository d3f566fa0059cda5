/**
 * Error bodies stay small whatever was sent (docs/api-limits.md, "Error answers"): a 422 echoes an
 * offending value whole up to 2,048 characters (every string bound of the APIs fits) and an excerpt
 * beyond, and stops adding items at about 8 KB; a `{"detail"}` text is cut at 1 KB. FastAPI echoes inputs
 * in full; a 1 MiB string must not come back as a 1 MiB error.
 */
import type { LocSegment, ValidationErrorItem } from './errors.js';

/** Longest input string echoed whole. */
const MAX_INPUT_TEXT = 2048;
/** Longest serialised `input` object or list echoed; a larger one is left out (`input` is optional). */
const MAX_INPUT_JSON = 2048;
/** Longest `loc` key, message or `ctx` text kept. */
const MAX_TEXT = 512;
/** The items of one answer stop once their serialised size passes this (the first is always kept). */
const MAX_ITEMS_JSON = 8 * 1024;
const MAX_DETAIL = 1024;

const clipText = (text: string, max: number): string => (text.length > max ? `${text.slice(0, max)}…` : text);

/** The input as echoed: short strings and small values as they are, non-finite numbers as text. */
function clipInput(input: unknown): { input?: unknown } {
  if (input === undefined) return {};
  if (typeof input === 'string') return { input: clipText(input, MAX_INPUT_TEXT) };
  if (typeof input === 'number' && !Number.isFinite(input)) return { input: String(input) };
  if (typeof input !== 'object' || input === null) return { input };
  const json = JSON.stringify(input);
  return json !== undefined && json.length <= MAX_INPUT_JSON ? { input } : {};
}

function clipCtx(ctx: Record<string, unknown>): Record<string, unknown> {
  return Object.fromEntries(
    Object.entries(ctx).map(([key, value]) => [
      key,
      typeof value === 'string' ? clipText(value, MAX_TEXT) : value,
    ]),
  );
}

function boundItem(item: ValidationErrorItem): ValidationErrorItem {
  const loc: LocSegment[] = item.loc.map((s) => (typeof s === 'string' ? clipText(s, MAX_TEXT) : s));
  return {
    loc,
    msg: clipText(item.msg, MAX_TEXT),
    type: item.type,
    ...clipInput(item.input),
    ...(item.ctx ? { ctx: clipCtx(item.ctx) } : {}),
  };
}

export function boundItems(items: readonly ValidationErrorItem[]): ValidationErrorItem[] {
  const out: ValidationErrorItem[] = [];
  let size = 0;
  for (const item of items) {
    const bounded = boundItem(item);
    size += JSON.stringify(bounded).length;
    if (out.length > 0 && size > MAX_ITEMS_JSON) break;
    out.push(bounded);
  }
  return out;
}

/** A `{"detail"}` value as answered: text cut at 1 KB; structured details (reports) as they are. */
export function boundDetail(detail: unknown): unknown {
  return typeof detail === 'string' ? clipText(detail, MAX_DETAIL) : detail;
}
