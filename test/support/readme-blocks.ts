/**
 * The shell blocks of a Markdown file, as a reader would paste them: every ```sh fence, in order, with
 * the line it starts on. A block a reader cannot run against the local platform (it deploys to AWS, or
 * it is `npm start` itself) is preceded by `<!-- readme-blocks: skip: <why> -->`, and the reason is kept
 * so the test can list what it did not run.
 */
export interface ShellBlock {
  /** 1-based line of the opening fence. */
  readonly line: number;
  readonly code: string;
  /** Why the block is not run, from its marker; undefined for a block that runs. */
  readonly skip?: string;
}

const SKIP_MARKER = /^<!--\s*readme-blocks:\s*skip:\s*(.+?)\s*-->$/;
const OPEN_FENCE = /^```(\S*)\s*$/;

export function shellBlocks(markdown: string): ShellBlock[] {
  const lines = markdown.split('\n');
  const blocks: ShellBlock[] = [];
  let skip: string | undefined;
  for (let i = 0; i < lines.length; i++) {
    const text = lines[i] ?? '';
    const marker = SKIP_MARKER.exec(text.trim());
    if (marker) {
      skip = marker[1];
      continue;
    }
    const fence = OPEN_FENCE.exec(text);
    if (!fence) {
      if (text.trim() !== '') skip = undefined;
      continue;
    }
    const start = i;
    const body: string[] = [];
    for (i++; i < lines.length && !/^```\s*$/.test(lines[i] ?? ''); i++) body.push(lines[i] ?? '');
    if (fence[1] === 'sh' || fence[1] === 'bash') {
      blocks.push({ line: start + 1, code: body.join('\n'), ...(skip === undefined ? {} : { skip }) });
    }
    skip = undefined;
  }
  return blocks;
}
