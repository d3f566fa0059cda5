/**
 * Game events to send, from a JSON array or NDJSON (one event per line). Each event keeps where it came
 * from (`line 12`, `item 3`) so a failure can be reported against the input; a line that is not JSON is
 * a failure of its own and is not sent.
 */
import { UsageError } from './errors.js';

export interface SourcedEvent {
  /** `line N` (NDJSON) or `item N` (JSON array), 1-based. */
  readonly position: string;
  readonly event: unknown;
}

export interface UnreadableEvent {
  readonly position: string;
  readonly message: string;
}

export interface EventFile {
  readonly events: SourcedEvent[];
  readonly unreadable: UnreadableEvent[];
}

export function parseEventFile(text: string, source: string): EventFile {
  const trimmed = text.trimStart();
  if (trimmed.startsWith('[')) {
    let value: unknown;
    try {
      value = JSON.parse(text);
    } catch (error) {
      throw new UsageError(
        `${source}: not a valid JSON array (${(error as Error).message}); NDJSON needs one event per line`,
      );
    }
    if (!Array.isArray(value)) throw new UsageError(`${source}: expected a JSON array of events`);
    const items: unknown[] = value;
    return { events: items.map((event, i) => ({ position: `item ${i + 1}`, event })), unreadable: [] };
  }
  const events: SourcedEvent[] = [];
  const unreadable: UnreadableEvent[] = [];
  text.split('\n').forEach((raw, i) => {
    const line = raw.trim();
    if (line === '') return;
    const position = `line ${i + 1}`;
    try {
      events.push({ position, event: JSON.parse(line) as unknown });
    } catch {
      unreadable.push({ position, message: 'not valid JSON' });
    }
  });
  return { events, unreadable };
}
