/**
 * Server-sent events as model servers stream them (`data: {…}\n\n`), parsed as chunks arrive, and the
 * generated text of OpenAI-style completion events (`choices[0].text` or `choices[0].delta.content`).
 */
export class SseParser {
  private buffer = '';
  private data: string[] = [];

  /** Feeds a chunk; returns the data of every event it completed. */
  push(chunk: string): string[] {
    this.buffer += chunk;
    const events: string[] = [];
    let end: number;
    while ((end = this.buffer.search(/\r?\n/)) !== -1) {
      const line = this.buffer.slice(0, end);
      this.buffer = this.buffer.slice(end + (this.buffer[end] === '\r' ? 2 : 1));
      if (line === '') {
        if (this.data.length > 0) events.push(this.data.join('\n'));
        this.data = [];
      } else if (line.startsWith('data:')) {
        this.data.push(line.slice(line[5] === ' ' ? 6 : 5));
      }
      // Comments (`:`), `event:`, `id:` and `retry:` carry no generated text.
    }
    return events;
  }
}

/** The text an OpenAI-style completion (event or whole answer) carries, if any. */
export function completionText(data: string): string | undefined {
  if (data === '[DONE]') return undefined;
  let value: unknown;
  try {
    value = JSON.parse(data);
  } catch {
    return undefined;
  }
  const choice = (value as { choices?: unknown[] } | null)?.choices?.[0] as
    { text?: unknown; delta?: { content?: unknown }; message?: { content?: unknown } } | undefined;
  const text = choice?.text ?? choice?.delta?.content ?? choice?.message?.content;
  return typeof text === 'string' ? text : undefined;
}
