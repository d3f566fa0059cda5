/**
 * One run's shared state, created when the first command action needs it: the resolved global options,
 * the endpoints, the HTTP transport and the printer. `call()` is what most commands do: send, fail with
 * exit 1 on an error status, print the body.
 */
import { apiErrorOf } from './api-errors.js';
import { UsageError } from './errors.js';
import { createEndpoints, type Endpoints } from './endpoints.js';
import { ApiClient, Transport, type ApiReply, type ApiRequest } from './http.js';
import type { CliIo } from './io.js';
import { resolveGlobalOptions, type GlobalOptions, type RawGlobalOptions } from './options.js';
import { outputFormatOf, type OutputFormat } from './output-format.js';
import { Printer, loadOutputLibraries, type View } from './output.js';
import { compileQuery, type Query } from './query.js';
import type { RetryPolicy } from './retry.js';
import { VERSION } from './version.js';

/** The global options as commander parses them: options.ts's, `-o` and `--query`. */
export type GlobalFlags = RawGlobalOptions & { output?: string; query?: string };

export class CommandContext {
  readonly out: Printer;
  private readonly endpoints: Endpoints;
  private readonly transport = new Transport();

  constructor(
    readonly options: GlobalOptions,
    readonly io: CliIo,
    output: { format: OutputFormat; query?: Query },
    /** When requests are sent again (http.ts; retry.ts's default when undefined); its attempts bound discovery's. */
    private readonly retry?: RetryPolicy,
  ) {
    this.out = new Printer(io, output.format, options.quiet, output.query);
    this.endpoints = createEndpoints(options, io, retry?.maxAttempts);
  }

  /** Control-plane and inference API (`--region` pins the regional API). */
  async control(): Promise<ApiClient> {
    return this.signedClient(await this.endpoints.control());
  }

  /** The global API's aggregate routes (`/api/v1/global/*`). */
  async global(): Promise<ApiClient> {
    return this.signedClient(await this.endpoints.global());
  }

  /** Administrative analytics routes (SigV4). */
  async analytics(): Promise<ApiClient> {
    return this.signedClient(await this.endpoints.analytics());
  }

  /** The analytics events route: the API key in `Authorization`, no SigV4. */
  async analyticsWithKey(key: string): Promise<ApiClient> {
    return new ApiClient(
      await this.endpoints.analytics(),
      { kind: 'api-key', key },
      this.transport,
      this.httpSettings(),
    );
  }

  /** Sends, throws the ApiError of an error status, prints the body with `view`; resolves with the reply. */
  async call(client: ApiClient, request: ApiRequest, view?: View): Promise<ApiReply> {
    const reply = await client.send(request);
    if (reply.status < 200 || reply.status >= 300) throw apiErrorOf(reply);
    this.out.reply(reply, view);
    return reply;
  }

  close(): void {
    this.transport.close();
    this.endpoints.close();
  }

  private signedClient(target: Awaited<ReturnType<Endpoints['control']>>): ApiClient {
    return new ApiClient(
      target,
      { kind: 'sigv4', credentials: this.endpoints.credentials },
      this.transport,
      this.httpSettings(),
    );
  }

  private httpSettings() {
    return {
      timeoutMs: this.options.timeoutMs,
      ...(this.retry !== undefined ? { retry: this.retry } : {}),
      userAgent: `gco/${VERSION} node/${process.versions.node}`,
      ...(this.options.verbose ? { log: (line: string) => this.io.stderr.write(`${line}\n`) } : {}),
    };
  }
}

/** Creates the run's context on first use (from the first action's global options) and closes it. */
export class Session {
  private context: CommandContext | undefined;

  constructor(private readonly io: CliIo) {}

  /** `retry`: a policy other than retry.ts's default (shell completion sends each request once). */
  async contextFor(raw: GlobalFlags, retry?: RetryPolicy): Promise<CommandContext> {
    if (this.context === undefined) {
      // output-format.ts decides the format (table on a terminal and in a pipe, as kubectl).
      const format = outputFormatOf(raw.output, this.io.env.GCO_OUTPUT);
      const options = resolveGlobalOptions(raw, this.io.env);
      if (raw.query !== undefined && format === 'name') {
        throw new UsageError('--query selects from the JSON answer: use it with -o table, json or yaml');
      }
      const query = raw.query === undefined ? undefined : await compileQuery(raw.query);
      await loadOutputLibraries(format);
      this.context = new CommandContext(options, this.io, { format, ...(query ? { query } : {}) }, retry);
    }
    return this.context;
  }

  /** `-v` was given: errors print their details (main.ts). */
  get verbose(): boolean {
    return this.context?.options.verbose === true;
  }

  close(): void {
    this.context?.close();
  }
}
