/**
 * Publishes the platform's own CloudWatch metrics (contracts/platform-metrics.ts) in embedded metric
 * format: the background loops hand values to `publish()`, which only buffers a document; a timer flushes
 * the buffer with ONE CloudWatch Logs PutLogEvents call per interval (never a call per request), and
 * CloudWatch extracts the metrics from the log events (header `x-amzn-logs-format: json/emf`).
 *
 * Publishing is best effort: a failed flush is logged (error name and a bounded message, never the
 * request) and its documents stay buffered for the next flush; the buffer is bounded, the oldest
 * documents go first. Without a log group (METRICS_LOG_GROUP unset) `publish()` does nothing.
 */
import { awsClientConfig } from '../../contracts/runtime/aws-clients.js';
import type { Log } from '../../contracts/runtime/logging.js';
import { namedErrorMessage } from '../../contracts/runtime/errors.js';
import {
  CloudWatchLogsClient,
  CreateLogStreamCommand,
  PutLogEventsCommand,
  ResourceAlreadyExistsException,
  ResourceNotFoundException,
  type InputLogEvent,
} from '@aws-sdk/client-cloudwatch-logs';
import type { EmfConfig } from './emf-config.js';
import { emfDocument, type MetricDimensions, type MetricValues } from '../../contracts/emf-document.js';
import type { CertificateName } from '../../contracts/platform-metrics.js';
import { PollingLoop } from './polling-loop.js';

export { emfDocument, type MetricValues } from '../../contracts/emf-document.js';

/** Header that makes CloudWatch Logs extract the metrics of EMF log events. */
export const EMF_FORMAT_HEADER = 'x-amzn-logs-format';
const EMF_FORMAT = 'json/emf';

/** Documents kept while flushes fail (one per loop per interval normally; PutLogEvents takes 10,000). */
const DEFAULT_MAX_BUFFERED = 1_000;
/** Longest error text a failed flush logs. */
const MAX_ERROR_CHARS = 200;

/** What the loops publish through: a publisher, or nothing at all in code that runs without one. */
export interface MetricsSink {
  /** Buffers one document with these values (Project and Region of the publisher, plus `certificate`). */
  publish(values: MetricValues, certificate?: CertificateName): void;
}

type EmfPublisherLogger = Pick<Log, 'warn'>;

export interface EmfPublisherOptions {
  config: EmfConfig;
  /** Log stream of this process: its replica id (cluster/shared/replica-id.ts). */
  streamName: string;
  /** The CloudWatch Logs client; one for `config.region` otherwise (tests point one at a local server). */
  client?: CloudWatchLogsClient;
  maxBuffered?: number;
  logger?: EmfPublisherLogger;
  now?: () => number;
}

/** Adds the EMF header to one command's request, before signing (so the header is signed too). */
function withEmfHeader(command: PutLogEventsCommand): PutLogEventsCommand {
  command.middlewareStack.add(
    (next) => async (args) => {
      const request: unknown = args.request;
      if (typeof request === 'object' && request !== null && 'headers' in request) {
        const { headers } = request as { headers: Record<string, string> };
        headers[EMF_FORMAT_HEADER] = EMF_FORMAT;
      }
      return next(args);
    },
    { step: 'build', name: 'emfLogsFormatHeader' },
  );
  return command;
}

/** `Name: message`, cut short: enough to act on, never a request or a credential. */
function boundedError(error: unknown): string {
  const text = namedErrorMessage(error);
  return text.length > MAX_ERROR_CHARS ? `${text.slice(0, MAX_ERROR_CHARS)}…` : text;
}

export class EmfPublisher implements MetricsSink {
  private readonly client: CloudWatchLogsClient | undefined;
  private readonly ownClient: boolean;
  private readonly maxBuffered: number;
  private readonly now: () => number;
  private readonly loop: PollingLoop;
  private buffer: InputLogEvent[] = [];
  private streamReady = false;
  /** Documents dropped since the buffer last filled up (reported when a flush succeeds again). */
  private dropped = 0;

  constructor(private readonly opts: EmfPublisherOptions) {
    this.ownClient = opts.client === undefined && opts.config.logGroup !== undefined;
    this.client =
      opts.config.logGroup === undefined
        ? undefined
        : (opts.client ??
          new CloudWatchLogsClient(
            // Bounded: a hung call must fail the flush, never hold up the loop or the pod's shutdown.
            awsClientConfig({
              component: 'emf-publisher',
              region: opts.config.region,
              connectionTimeoutMs: 5_000,
              requestTimeoutMs: 10_000,
            }),
          ));
    this.maxBuffered = opts.maxBuffered ?? DEFAULT_MAX_BUFFERED;
    this.now = opts.now ?? Date.now;
    this.loop = new PollingLoop({
      name: 'emf-publisher',
      intervalMs: opts.config.intervalMs,
      pass: async () => {
        await this.flush();
      },
    });
  }

  /** False when METRICS_LOG_GROUP is unset: nothing is buffered or sent. */
  get enabled(): boolean {
    return this.client !== undefined;
  }

  /** How often the owner's loops publish and this publisher flushes (METRICS_INTERVAL_MS). */
  get intervalMs(): number {
    return this.opts.config.intervalMs;
  }

  /** Documents waiting for the next flush. */
  get buffered(): number {
    return this.buffer.length;
  }

  publish(values: MetricValues, certificate?: CertificateName): void {
    if (!this.enabled) return;
    const timestamp = this.now();
    const dimensions: MetricDimensions = {
      Project: this.opts.config.project,
      Region: this.opts.config.region,
      ...(certificate ? { Certificate: certificate } : {}),
    };
    this.buffer.push({ timestamp, message: JSON.stringify(emfDocument(timestamp, dimensions, values)) });
    this.trim();
  }

  /**
   * Sends every buffered document in one PutLogEvents call (creating the log stream first, once). True
   * when there was nothing to send or it was sent; false (logged, documents kept) when it failed.
   */
  async flush(): Promise<boolean> {
    const client = this.client;
    const logGroupName = this.opts.config.logGroup;
    if (client === undefined || logGroupName === undefined || this.buffer.length === 0) return true;
    // PutLogEvents wants its events in time order.
    const events = this.buffer.sort((a, b) => (a.timestamp ?? 0) - (b.timestamp ?? 0));
    this.buffer = [];
    const logStreamName = this.opts.streamName;
    try {
      if (!this.streamReady) {
        try {
          await client.send(new CreateLogStreamCommand({ logGroupName, logStreamName }));
        } catch (error) {
          if (!(error instanceof ResourceAlreadyExistsException)) throw error;
        }
        this.streamReady = true;
      }
      await client.send(
        withEmfHeader(new PutLogEventsCommand({ logGroupName, logStreamName, logEvents: events })),
      );
      if (this.dropped > 0) {
        this.opts.logger?.warn(
          { dropped: this.dropped },
          'platform metrics published again; documents were dropped',
        );
        this.dropped = 0;
      }
      return true;
    } catch (error) {
      // The stream was deleted meanwhile: create it again on the next flush.
      if (error instanceof ResourceNotFoundException) this.streamReady = false;
      this.buffer = [...events, ...this.buffer];
      this.trim();
      this.opts.logger?.warn(
        { error: boundedError(error), documents: events.length, log_group: logGroupName },
        'platform metrics not published; kept for the next flush',
      );
      return false;
    }
  }

  /** Flushes every interval until stop(). Does nothing when publishing is off. */
  start(): void {
    if (this.enabled) this.loop.start();
  }

  /** Stops the timer and sends what is left (one last flush), then releases its own client. */
  async stop(): Promise<void> {
    await this.loop.stop();
    await this.flush();
    if (this.ownClient) this.client?.destroy();
  }

  private trim(): void {
    const excess = this.buffer.length - this.maxBuffered;
    if (excess <= 0) return;
    this.buffer.splice(0, excess);
    // One line when dropping starts (and the total once a flush succeeds): an outage must not flood the log.
    if (this.dropped === 0) {
      this.opts.logger?.warn(
        { max_buffered: this.maxBuffered },
        'platform metrics buffer full; dropping the oldest documents',
      );
    }
    this.dropped += excess;
  }
}
