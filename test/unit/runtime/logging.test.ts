import { Writable } from 'node:stream';
import { pino } from 'pino';
import { EnvironmentError } from '../../../contracts/env/reader.js';
import { resolveLogLevel } from '../../../contracts/runtime/logging.js';
import { REDACTED, redactFields, redactSensitive } from '../../../contracts/runtime/redaction.js';
import { loggerOptions } from '../../../cluster/shared/logger.js';

const SENSITIVE = {
  authorization: 'AWS4-HMAC-SHA256 …',
  token: 't',
  sessionToken: 's',
  credentials: { accessKeyId: 'a' },
  password: 'p',
  signingKey: 'k',
  key: 'k2',
  'x-amz-security-token': 'x',
};

describe('redaction list (Lambdas and services alike)', () => {
  test('redactFields replaces every sensitive value, nested in plain objects and arrays', () => {
    const out = redactFields({ job_id: 'j', nested: [{ ...SENSITIVE }], ...SENSITIVE });
    expect(out.job_id).toBe('j');
    for (const name of Object.keys(SENSITIVE)) {
      expect(out[name as keyof typeof SENSITIVE]).toBe(REDACTED);
      expect((out.nested[0] as Record<string, unknown>)[name]).toBe(REDACTED);
    }
  });

  test('redactFields returns a line without sensitive fields unchanged and leaves non-plain objects alone', () => {
    const error = Object.assign(new Error('x'), { token: 'kept for the err serializer' });
    const fields = { job_id: 'j', err: error, list: [1, 2] };
    expect(redactFields(fields)).toBe(fields);
  });

  test('the Powertools replacer and redactFields agree', () => {
    const json = JSON.parse(JSON.stringify(SENSITIVE, redactSensitive)) as Record<string, unknown>;
    expect(json).toEqual(redactFields(SENSITIVE));
  });

  test('a service log line never carries a token or a credential', () => {
    const lines: string[] = [];
    const sink = new Writable({
      write(chunk: Buffer, _encoding, done) {
        lines.push(chunk.toString());
        done();
      },
    });
    pino(loggerOptions('svc', '1', 'info'), sink).info({ job_id: 'j', ...SENSITIVE }, 'hello');
    const line = JSON.parse(lines[0] ?? '{}') as Record<string, unknown>;
    expect(line.message).toBe('hello');
    expect(line.job_id).toBe('j');
    for (const name of Object.keys(SENSITIVE)) expect(line[name]).toBe(REDACTED);
  });
});

describe('resolveLogLevel', () => {
  test('LOG_LEVEL first, then POWERTOOLS_LOG_LEVEL, else info; any case', () => {
    expect(resolveLogLevel({})).toBe('info');
    expect(resolveLogLevel({ LOG_LEVEL: 'DEBUG', POWERTOOLS_LOG_LEVEL: 'ERROR' })).toBe('debug');
    expect(resolveLogLevel({ POWERTOOLS_LOG_LEVEL: 'WARN' })).toBe('warn');
  });

  test('an unknown level names the variable', () => {
    expect(() => resolveLogLevel({ LOG_LEVEL: 'loud' })).toThrow(EnvironmentError);
    expect(() => resolveLogLevel({ LOG_LEVEL: 'loud' })).toThrow(/LOG_LEVEL must be one of/);
  });
});
