/**
 * Report objects in the region's S3 bucket. Listing newest first without reading every key: scheduled
 * keys are partitioned by `date=YYYY-MM-DD/`, so one delimiter listing yields the (few) day prefixes and
 * only the newest days are then listed until `limit` keys are found. Ad-hoc keys (rare, on demand) are
 * listed in full under their prefix and sorted; their ISO timestamps sort by time.
 */
import { namedErrorMessage, PlatformError } from '../../../contracts/runtime/errors.js';
import {
  GetObjectCommand,
  HeadObjectCommand,
  ListObjectsV2Command,
  NotFound,
  NoSuchKey,
  PutObjectCommand,
  type S3Client,
} from '@aws-sdk/client-s3';
import { reportPrefix, type CostReport, type ReportKind } from './report.js';

export interface StoredObject {
  key: string;
  last_modified: string | null;
  size: number | null;
}

export class ReportStoreError extends PlatformError {
  override readonly name = 'ReportStoreError';
  constructor(message: string, options?: { cause: unknown }) {
    super(message, options);
  }
}

export class ReportStore {
  constructor(
    private readonly s3: S3Client,
    readonly bucket: string,
    private readonly region: string,
  ) {}

  async put(report: CostReport): Promise<void> {
    try {
      await this.s3.send(
        new PutObjectCommand({
          Bucket: this.bucket,
          Key: report.key,
          Body: JSON.stringify(report),
          ContentType: 'application/json',
          Metadata: { 'report-id': report.report_id, kind: report.kind },
        }),
      );
    } catch (error) {
      throw new ReportStoreError(
        `writing s3://${this.bucket}/${report.key} failed: ${namedErrorMessage(error)}`,
        {
          cause: error,
        },
      );
    }
  }

  async exists(key: string): Promise<boolean> {
    try {
      await this.s3.send(new HeadObjectCommand({ Bucket: this.bucket, Key: key }));
      return true;
    } catch (error) {
      if (error instanceof NotFound || error instanceof NoSuchKey) return false;
      const status = (error as { $metadata?: { httpStatusCode?: number } }).$metadata?.httpStatusCode;
      if (status === 404) return false;
      throw new ReportStoreError(`reading s3://${this.bucket}/${key} failed: ${namedErrorMessage(error)}`, {
        cause: error,
      });
    }
  }

  /** The stored report, or undefined when the object is gone (deleted between listing and reading). */
  async get(key: string): Promise<CostReport | undefined> {
    try {
      const out = await this.s3.send(new GetObjectCommand({ Bucket: this.bucket, Key: key }));
      const text = (await out.Body?.transformToString('utf-8')) ?? '';
      return JSON.parse(text) as CostReport;
    } catch (error) {
      if (error instanceof NoSuchKey) return undefined;
      throw new ReportStoreError(`reading s3://${this.bucket}/${key} failed: ${namedErrorMessage(error)}`, {
        cause: error,
      });
    }
  }

  /** The newest `limit` report objects of a kind, newest first. */
  async listNewest(kind: ReportKind, limit: number): Promise<StoredObject[]> {
    try {
      const prefix = reportPrefix(kind, this.region);
      if (kind === 'adhoc') return newestFirst(await this.listAll(prefix)).slice(0, limit);
      const days = (await this.listPrefixes(prefix)).sort().reverse();
      const found: StoredObject[] = [];
      for (const day of days) {
        found.push(...newestFirst(await this.listAll(day)));
        if (found.length >= limit) break;
      }
      return found.slice(0, limit);
    } catch (error) {
      if (error instanceof ReportStoreError) throw error;
      throw new ReportStoreError(`listing s3://${this.bucket} failed: ${namedErrorMessage(error)}`, {
        cause: error,
      });
    }
  }

  private async listAll(prefix: string): Promise<StoredObject[]> {
    const objects: StoredObject[] = [];
    let token: string | undefined;
    do {
      const page = await this.s3.send(
        new ListObjectsV2Command({ Bucket: this.bucket, Prefix: prefix, ContinuationToken: token }),
      );
      for (const o of page.Contents ?? []) {
        if (!o.Key?.endsWith('.json')) continue;
        objects.push({
          key: o.Key,
          last_modified: o.LastModified?.toISOString() ?? null,
          size: o.Size ?? null,
        });
      }
      token = page.IsTruncated ? page.NextContinuationToken : undefined;
    } while (token);
    return objects;
  }

  private async listPrefixes(prefix: string): Promise<string[]> {
    const prefixes: string[] = [];
    let token: string | undefined;
    do {
      const page = await this.s3.send(
        new ListObjectsV2Command({
          Bucket: this.bucket,
          Prefix: prefix,
          Delimiter: '/',
          ContinuationToken: token,
        }),
      );
      for (const p of page.CommonPrefixes ?? []) if (p.Prefix) prefixes.push(p.Prefix);
      token = page.IsTruncated ? page.NextContinuationToken : undefined;
    } while (token);
    return prefixes;
  }
}

/** Keys embed the (window or generation) time in a fixed-width form, so reverse key order is newest first. */
function newestFirst(objects: StoredObject[]): StoredObject[] {
  return objects.sort((a, b) => (a.key < b.key ? 1 : a.key > b.key ? -1 : 0));
}
