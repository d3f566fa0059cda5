/**
 * The one redaction policy (contracts/runtime/redaction.ts): sensitive names in any spelling, request
 * targets without query values, and the service logger applying both to what Fastify logs.
 */
import { Writable } from 'node:stream';
import fc from 'fast-check';
import { createLogger as createLambdaLogger } from '../../../lambda/shared/logger.js';
import { loggerOptions } from '../../../cluster/shared/logger.js';
import { createService } from '../../../cluster/shared/service.js';
import {
  isSensitiveName,
  REDACTED,
  redactFields,
  redactRequestTarget,
  redactSensitive,
} from '../../../contracts/runtime/redaction.js';
import { pino } from 'pino';

/** One spelling of each sensitive name the Lambdas and services used to disagree on, and more. */
const SENSITIVE_NAMES = [
  'authorization',
  'Authorization',
  'cookie',
  'set-cookie',
  'token',
  'sessionToken',
  'session_token',
  'X-Amz-Security-Token',
  'x-amz-date',
  'credential',
  'credentials',
  'X-Amz-Credential',
  'secret',
  'secretAccessKey',
  'password',
  'signingKey',
  'signing_key',
  'Signing-Key',
  'x-svc-signature',
  'key',
  'api_key',
  'x-api-key',
  'privateKey',
];
const PLAIN_NAMES = ['namespace', 'job_id', 'keyword', 'monkey', 'tail', 'status', 'region', 'name'];

/** Query-string text: names and values from a small alphabet with the separators that matter. */
const queryPart = fc.string({ unit: fc.constantFrom(...'abcXYZ019-._~%+:/'.split('')), maxLength: 12 });
const secretValue = fc.string({
  unit: fc.constantFrom(...'s3cr3tQWERTY'.split('')),
  minLength: 6,
  maxLength: 20,
});

describe('sensitive names', () => {
  test.each(SENSITIVE_NAMES)('%s is sensitive', (name) => {
    expect(isSensitiveName(name)).toBe(true);
    expect(redactFields({ [name]: 'v' })).toEqual({ [name]: REDACTED });
  });

  test.each(PLAIN_NAMES)('%s is not', (name) => {
    expect(isSensitiveName(name)).toBe(false);
  });

  test('the name decides in any case and with - or _ anywhere', () => {
    fc.assert(
      fc.property(
        fc.constantFrom(...SENSITIVE_NAMES),
        fc.array(fc.boolean(), { maxLength: 32 }),
        fc.constantFrom('-', '_', ''),
        (name, upper, separator) => {
          const spelled = [...name]
            .map((c, i) => (upper[i] ? c.toUpperCase() : c.toLowerCase()))
            .join('')
            .replace(/[-_]/g, separator);
          return isSensitiveName(spelled);
        },
      ),
    );
  });

  test('a sensitive value is replaced wherever it sits in a logged object (headers, queries, bodies)', () => {
    fc.assert(
      fc.property(fc.constantFrom(...SENSITIVE_NAMES), secretValue, (name, secret) => {
        const line = {
          headers: { [name]: secret, accept: 'application/json' },
          query: { [name]: [secret] },
          body: { items: [{ [name]: { nested: secret } }] },
        };
        const text = JSON.stringify(redactFields(line));
        return !text.includes(secret) && text.includes('application/json');
      }),
    );
  });

  test('the Powertools replacer and redactFields agree', () => {
    fc.assert(
      fc.property(
        fc.dictionary(fc.constantFrom(...SENSITIVE_NAMES, ...PLAIN_NAMES), fc.string()),
        (fields) => JSON.stringify(fields, redactSensitive) === JSON.stringify(redactFields(fields)),
      ),
    );
  });
});

describe('request targets', () => {
  test('no query value survives, whatever its name; the path and the names stay', () => {
    fc.assert(
      fc.property(
        fc.stringMatching(/^\/[a-z0-9/._-]{0,30}$/),
        fc.array(fc.tuple(queryPart, secretValue), { minLength: 1, maxLength: 5 }),
        (path, pairs) => {
          const target = `${path}?${pairs.map(([name, value]) => `${name}=${value}`).join('&')}`;
          const out = redactRequestTarget(target);
          return (
            out.startsWith(`${path}?`) &&
            pairs.every(([name, value]) => !out.includes(value) && out.includes(`${name}=${REDACTED}`))
          );
        },
      ),
    );
  });

  test('examples: bare names, empty queries, fragments', () => {
    expect(redactRequestTarget('/api/v1/jobs')).toBe('/api/v1/jobs');
    expect(redactRequestTarget('/x?token=s3cr3t&namespace=a')).toBe(
      `/x?token=${REDACTED}&namespace=${REDACTED}`,
    );
    expect(redactRequestTarget('/x?')).toBe('/x?');
    expect(redactRequestTarget('/x?flag&a=b=c')).toBe(`/x?flag&a=${REDACTED}`);
    expect(redactRequestTarget('/x?a=1#frag')).toBe(`/x?a=${REDACTED}`);
  });
});

/** A writable collecting log lines. */
function sink(lines: string[]): Writable {
  return new Writable({
    write(chunk: Buffer, _encoding, done) {
      lines.push(...chunk.toString().split('\n').filter(Boolean));
      done();
    },
  });
}

describe('what a service logs', () => {
  test("Fastify's request lines carry the path without query values; headers never", async () => {
    const lines: string[] = [];
    const logger = pino(loggerOptions('svc', '1', 'info'), sink(lines));
    const service = await createService({
      name: 'svc',
      version: '1',
      description: 'redaction probe',
      envelope: false,
      logger,
      routes: (app) => {
        app.get(
          '/probe',
          { schema: { querystring: { type: 'object', additionalProperties: true } } },
          async (request) => {
            request.log.info({ headers: request.headers, query: request.query }, 'probe');
            return { ok: true };
          },
        );
      },
    });
    try {
      const answer = await service.app.inject({
        method: 'GET',
        url: '/probe?token=s3cr3t&namespace=n5cr3t',
        headers: { authorization: 'Bearer a5cr3t', 'x-amz-security-token': 'z5cr3t' },
      });
      expect(answer.statusCode).toBe(200);
      const text = lines.join('\n');
      expect(text).toContain(`/probe?token=${REDACTED}&namespace=${REDACTED}`);
      for (const secret of ['s3cr3t', 'a5cr3t', 'z5cr3t']) expect(text).not.toContain(secret);
    } finally {
      await service.app.close();
    }
  });

  test('a Lambda log line redacts the same names', () => {
    const written: string[] = [];
    const original = process.stdout.write.bind(process.stdout);
    // Powertools writes each line through console → process.stdout.
    process.stdout.write = (chunk: string | Uint8Array) => {
      written.push(String(chunk));
      return true;
    };
    try {
      createLambdaLogger('probe').info(
        { token: 's3cr3t', query: { credential: 'c5cr3t' }, headers: { 'X-Api-Key': 'k5cr3t' } },
        'probe',
      );
    } finally {
      process.stdout.write = original;
    }
    const text = written.join('');
    expect(text).toContain('probe');
    for (const secret of ['s3cr3t', 'c5cr3t', 'k5cr3t']) expect(text).not.toContain(secret);
  });
});
