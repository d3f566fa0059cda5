/**
 * `gco inference invoke`: a request to an inference endpoint's serving path through the edge
 * (docs/inference-proxy.md), its answer written to stdout as it arrives — chunk by chunk, never
 * buffered — so a streamed completion shows each token when the model produces it.
 * `-o json` writes the body's bytes unchanged (SSE included); the human view writes the generated text.
 * A request with a body (`--prompt` or `-d`) goes to the OpenAI-style completions path unless `--path`
 * names another; one without a body to the endpoint's root.
 */
import { StringDecoder } from 'node:string_decoder';
import { Command, Option } from '@commander-js/extra-typings';
import { apiErrorOf } from '../../api-errors.js';
import { examples, type CommandKit } from '../../command-kit.js';
import type { CommandContext } from '../../context.js';
import { ApiError, UsageError } from '../../errors.js';
import { parseJson, pathOf, type HttpMethod, type StreamingReply } from '../../http.js';
import { literalOrFile, readStream } from '../../input-files.js';
import type { CliIo } from '../../io.js';
import { integerIn } from '../../options.js';
import { toYaml, type Printer } from '../../output.js';
import { SseParser, completionText } from '../../sse.js';
import { endpointRef } from './common.js';

const COMPLETIONS_PATH = '/v1/completions';
const DEFAULT_MAX_TOKENS = 64;

/** `/inference/<endpoint><path>` with the endpoint name encoded and the serving path kept as given. */
function inferencePath(endpoint: string, path: string | undefined): string {
  if (path !== undefined && !path.startsWith('/')) throw new UsageError('--path must start with /');
  return `${pathOf('inference', endpoint)}${path ?? ''}`;
}

interface InvokeOptions {
  endpoint: string;
  path?: string;
  data?: string;
  prompt?: string;
  maxTokens: number;
  stream?: boolean;
  method?: 'GET' | 'POST' | 'HEAD';
}

export function invokeCommand(kit: CommandKit) {
  return examples(
    new Command('invoke')
      .description('send a request to an endpoint and print the answer as it streams in')
      .argument('<endpoint>', 'inference endpoint name (NAME or endpoint/NAME)', endpointRef)
      .option(
        '--path <path>',
        `serving path below the endpoint (default ${COMPLETIONS_PATH} with --prompt or -d, else /)`,
      )
      .addOption(
        new Option('-d, --data <json|@file>', 'request body, literal or @file (@- reads stdin)').conflicts(
          'prompt',
        ),
      )
      .option('--prompt <text>', 'send {"prompt", "max_tokens", "stream"} (an OpenAI-style completion)')
      .option('--max-tokens <n>', 'with --prompt', integerIn(1, 100000), DEFAULT_MAX_TOKENS)
      .option('--stream', 'with --prompt: ask the model to stream tokens (server-sent events)')
      .addOption(
        new Option('-X, --method <method>', 'default POST with a body, GET without').choices([
          'GET',
          'POST',
          'HEAD',
        ] as const),
      )
      .action(async (endpoint, opts, cmd) => runInvoke({ ...opts, endpoint }, await kit.context(cmd))),
    'gco inference invoke sample-model --prompt "Hello" --max-tokens 32 --stream',
    'gco inference invoke llama --path /v1/chat/completions -d @request.json -o json',
    'gco inference invoke sample-model --path /v1/models -X GET',
  );
}

async function runInvoke(options: InvokeOptions, ctx: CommandContext): Promise<void> {
  const { method, path, body } = await requestOf(options, ctx.io);
  const client = await ctx.control();
  const reply = await client.stream({ method, path, ...(body !== undefined ? { body } : {}) });
  if (reply.status < 200 || reply.status >= 300) {
    const text = await readStream(reply.body);
    throw apiErrorOf({ ...reply, text, json: parseJson(text), target: client.target, method, path });
  }
  try {
    await writeAnswer(ctx.out, reply);
  } catch (error) {
    // Status and headers went out already: the only failure left is a stream cut off mid-answer.
    const reason = (error as NodeJS.ErrnoException).code ?? (error as Error).message;
    throw new ApiError(
      `The answer from ${path} broke off before its end (${reason})`,
      'The edge aborts a stream when the model server stops mid-answer; retry the request.',
    );
  }
}

/** The request the options describe: a completion (--prompt), a given body (--data) or none. */
async function requestOf(options: InvokeOptions, io: CliIo) {
  const body =
    options.prompt !== undefined
      ? JSON.stringify({
          prompt: options.prompt,
          max_tokens: options.maxTokens,
          stream: options.stream === true,
        })
      : options.data !== undefined
        ? await literalOrFile(options.data, io)
        : undefined;
  const method: HttpMethod = options.method ?? (body !== undefined ? 'POST' : 'GET');
  if (body !== undefined && method !== 'POST')
    throw new UsageError(`a request body needs POST, not ${method}`);
  const path = inferencePath(
    options.endpoint,
    options.path ?? (body !== undefined ? COMPLETIONS_PATH : undefined),
  );
  return { method, path, body };
}

/** Writes the answer's body as it arrives: bytes for -o json, generated text or YAML otherwise. */
async function writeAnswer(out: Printer, reply: StreamingReply): Promise<void> {
  const body = reply.body as AsyncIterable<Buffer>;
  if (out.format === 'json') {
    for await (const chunk of body) out.raw(chunk);
    return;
  }
  if (String(reply.headers['content-type'] ?? '').startsWith('text/event-stream')) {
    // The generated text of each event, written the moment the event is complete.
    const decoder = new StringDecoder('utf8');
    const parser = new SseParser();
    for await (const chunk of body) {
      for (const data of parser.push(decoder.write(chunk))) {
        const text = completionText(data);
        if (text !== undefined) out.raw(text);
        else if (data !== '[DONE]') out.raw(`${data}\n`);
      }
    }
    out.raw('\n');
    return;
  }
  const text = await readStream(reply.body);
  const json = parseJson(text);
  const generated = out.format === 'table' ? completionText(text) : undefined;
  if (generated !== undefined) out.raw(`${generated}\n`);
  else if (json !== undefined) out.raw(toYaml(json));
  else out.raw(text);
}
