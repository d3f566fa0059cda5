/**
 * The emulator's SigV4 check: what the AWS SDK signer, curl and awscurl produce is accepted; everything
 * API Gateway refuses is refused with its error type and message. Signatures come from the project's
 * own SigV4 client (contracts/runtime/sigv4.ts, @smithy/signature-v4) and from the AWS test suite.
 */
import { createHash, createHmac } from 'node:crypto';
import { describe, expect, test } from '@jest/globals';
import { signSigV4, type SigV4Input } from '../../../contracts/runtime/sigv4.js';
import {
  verifySigV4,
  type CredentialStore,
  type LocalCredential,
  type SignedRequestInput,
} from '../../../local/sigv4-verifier.js';

const principal = {
  arn: 'arn:aws:iam::000000000000:user/dev',
  accountId: '000000000000',
  userId: 'AIDATEST',
};
const developer: LocalCredential = {
  accessKeyId: 'AKIATESTTESTTEST',
  secretAccessKey: 'secret/key+1',
  principal,
};
const role: LocalCredential = {
  accessKeyId: 'ASIATESTTESTTEST',
  secretAccessKey: 'role-secret',
  sessionToken: 'session-token-value',
  principal: { ...principal, arn: 'arn:aws:sts::000000000000:assumed-role/agg/local' },
};
const store: CredentialStore = { find: (id) => [developer, role].find((c) => c.accessKeyId === id) };
const NOW = new Date('2026-03-01T10:00:00Z');
const BASE = 'http://127.0.0.1:4010/prod';

/** The wire form of a signed request, as the emulator's HTTP server would see it. */
async function signed(
  overrides: Partial<SigV4Input> = {},
): Promise<SignedRequestInput & { headers: Record<string, string> }> {
  const input: SigV4Input = {
    method: 'POST',
    baseUrl: BASE,
    path: '/api/v1/jobs/a%20b',
    query: { z: 'last', a: ['2', '1'], 'sp ace': 'x/y' },
    headers: { 'content-type': 'application/json' },
    body: '{"hello":"world"}',
    region: 'us-east-2',
    credentials: developer,
    signingDate: NOW,
    ...overrides,
  };
  const out = await signSigV4(input);
  const url = new URL(out.url);
  const headers = { host: url.host, ...out.headers };
  return {
    method: out.method,
    target: `${url.pathname}${url.search}`,
    rawHeaders: Object.entries(headers).flat(),
    body: Buffer.from(out.body ?? ''),
    headers,
  };
}

const verify = (req: SignedRequestInput, region = 'us-east-2', now = NOW) =>
  verifySigV4(req, { service: 'execute-api', region, credentials: store, now: () => now });

const withHeader = (req: SignedRequestInput, name: string, value: string): SignedRequestInput => ({
  ...req,
  rawHeaders: [...req.rawHeaders, name, value],
});

describe('accepted', () => {
  test('an SDK-style signature (repeated and encoded query values, an encoded path)', async () => {
    const result = await verify(await signed());
    expect(result).toMatchObject({ ok: true, region: 'us-east-2', accessKeyId: developer.accessKeyId });
  });

  test('header names in any case and order, as curl sends them', async () => {
    const req = await signed({ method: 'GET', body: undefined as unknown as string, query: {} });
    const shuffled: string[] = [];
    for (let i = req.rawHeaders.length - 2; i >= 0; i -= 2) {
      shuffled.push((req.rawHeaders[i] ?? '').toUpperCase(), req.rawHeaders[i + 1] ?? '');
    }
    expect((await verify({ ...req, rawHeaders: shuffled })).ok).toBe(true);
  });

  test('a signed x-amz-content-sha256 that matches the body (awscurl, S3-style signers)', async () => {
    const body = '{"a":1}';
    const hash = createHash('sha256').update(body).digest('hex');
    const req = await signed({ body, headers: { 'x-amz-content-sha256': hash } });
    expect((await verify(req)).ok).toBe(true);
  });

  test('temporary credentials with their session token', async () => {
    const req = await signed({ credentials: role });
    expect(req.headers['x-amz-security-token']).toBe(role.sessionToken);
    expect(await verify(req)).toMatchObject({ ok: true, credential: { principal: role.principal } });
  });

  test('a clock skew just under five minutes', async () => {
    const req = await signed();
    expect((await verify(req, 'us-east-2', new Date(NOW.getTime() + 299_000))).ok).toBe(true);
  });

  test('the AWS SigV4 test suite: get-vanilla and get-vanilla-query-order-key-case', async () => {
    const suite: CredentialStore = {
      find: () => ({
        accessKeyId: 'AKIDEXAMPLE',
        secretAccessKey: 'wJalrXUtnFEMI/K7MDENG+bPxRfiCYEXAMPLEKEY',
        principal,
      }),
    };
    const request = (target: string, signature: string): SignedRequestInput => ({
      method: 'GET',
      target,
      body: Buffer.alloc(0),
      rawHeaders: [
        'Host',
        'example.amazonaws.com',
        'X-Amz-Date',
        '20150830T123600Z',
        'Authorization',
        `AWS4-HMAC-SHA256 Credential=AKIDEXAMPLE/20150830/us-east-1/service/aws4_request, SignedHeaders=host;x-amz-date, Signature=${signature}`,
      ],
    });
    const opts = {
      service: 'service',
      region: 'us-east-1',
      credentials: suite,
      now: () => new Date('2015-08-30T12:37:00Z'),
    };
    expect(
      await verifySigV4(
        request('/', '5fa00fa31553b73ebf1942676e86291e8372ff2a2260956d9b8aae1d763fbf31'),
        opts,
      ),
    ).toMatchObject({ ok: true });
    expect(
      await verifySigV4(
        request(
          '/?Param2=value2&Param1=value1',
          'b97d918cfa904a5beff61c982a1b6f458b799221646efd99d3219ec94cdf2500',
        ),
        opts,
      ),
    ).toMatchObject({ ok: true });
  });
});

describe('refused like API Gateway', () => {
  test('no Authorization header: Missing Authentication Token', async () => {
    const req = await signed();
    const bare = {
      ...req,
      rawHeaders: req.rawHeaders.filter((_, i, all) => all[i - (i % 2)] !== 'authorization'),
    };
    expect(await verify(bare)).toEqual({
      ok: false,
      errorType: 'MissingAuthenticationTokenException',
      message: 'Missing Authentication Token',
    });
  });

  test('a wrong secret: the mismatch message with the canonical request and string to sign', async () => {
    const req = await signed({ credentials: { ...developer, secretAccessKey: 'wrong' } });
    const result = await verify(req);
    expect(result.ok).toBe(false);
    if (result.ok) return;
    expect(result.errorType).toBe('InvalidSignatureException');
    expect(result.message).toMatch(
      /^The request signature we calculated does not match the signature you provided/,
    );
    // The canonical request shows the double-encoded path and the sorted, encoded query.
    expect(result.message).toContain('/prod/api/v1/jobs/a%2520b\na=1&a=2&sp%20ace=x%2Fy&z=last\n');
    expect(result.message).toContain('20260301/us-east-2/execute-api/aws4_request');
  });

  test('a body changed after signing', async () => {
    const req = await signed();
    const result = await verify({ ...req, body: Buffer.from('{"hello":"mallory"}') });
    expect(result).toMatchObject({ ok: false, errorType: 'InvalidSignatureException' });
  });

  test('a signed x-amz-content-sha256 that does not match the body', async () => {
    const req = await signed({
      headers: { 'x-amz-content-sha256': createHash('sha256').update('x').digest('hex') },
    });
    expect(await verify(req)).toMatchObject({ ok: false, errorType: 'InvalidSignatureException' });
  });

  test('an unknown access key, or a session token the credential does not have', async () => {
    const unknown = await signed({ credentials: { accessKeyId: 'AKIAUNKNOWN', secretAccessKey: 'x' } });
    expect(await verify(unknown)).toEqual({
      ok: false,
      errorType: 'UnrecognizedClientException',
      message: 'The security token included in the request is invalid.',
    });
    const token = await signed({ credentials: { ...developer, sessionToken: 'invented' } });
    expect(await verify(token)).toMatchObject({ ok: false, errorType: 'UnrecognizedClientException' });
  });

  test('clock skew over five minutes, either way', async () => {
    const req = await signed();
    expect(await verify(req, 'us-east-2', new Date(NOW.getTime() + 301_000))).toEqual({
      ok: false,
      errorType: 'InvalidSignatureException',
      message:
        'Signature expired: 20260301T100000Z is now earlier than 20260301T100001Z (20260301T100501Z - 5 min.)',
    });
    expect(await verify(req, 'us-east-2', new Date(NOW.getTime() - 301_000))).toMatchObject({
      ok: false,
      message: expect.stringMatching(/^Signature not yet current: 20260301T100000Z is still later than/),
    });
  });

  test('a signature scoped to another region or service', async () => {
    expect(await verify(await signed({ region: 'us-east-1' }))).toEqual({
      ok: false,
      errorType: 'InvalidSignatureException',
      message: 'Credential should be scoped to a valid region. ',
    });
    expect(await verify(await signed({ service: 'lambda' }))).toMatchObject({
      ok: false,
      message: "Credential should be scoped to correct service: 'execute-api'. ",
    });
  });

  test('another scheme, a header without its parts, or a missing x-amz-date', async () => {
    const bearer = withHeader(
      { method: 'GET', target: '/prod/x', rawHeaders: ['host', 'h'], body: Buffer.alloc(0) },
      'Authorization',
      'Bearer abc',
    );
    const expectedHash = createHash('sha256').update('Bearer abc').digest('base64');
    expect(await verify(bearer)).toEqual({
      ok: false,
      errorType: 'IncompleteSignatureException',
      message: `Invalid key=value pair (missing equal-sign) in Authorization header (hashed with SHA-256 and encoded with Base64): '${expectedHash}'.`,
    });
    const partial = withHeader(
      { method: 'GET', target: '/', rawHeaders: ['host', 'h'], body: Buffer.alloc(0) },
      'Authorization',
      'AWS4-HMAC-SHA256 Credential=AKIATESTTESTTEST/20260301/us-east-2/execute-api/aws4_request',
    );
    expect(await verify(partial)).toMatchObject({
      ok: false,
      errorType: 'IncompleteSignatureException',
      message: expect.stringContaining("Authorization header requires 'Signature' parameter."),
    });
    const req = await signed();
    const noDate = {
      ...req,
      rawHeaders: req.rawHeaders.filter((_, i, all) => all[i - (i % 2)] !== 'x-amz-date'),
    };
    expect(await verify(noDate)).toMatchObject({ ok: false, errorType: 'IncompleteSignatureException' });
  });

  test('a signature computed independently from the AWS documentation agrees with the verifier', async () => {
    // Guard against verifying with the same code that signed: a hand-rolled SigV4 must pass too.
    const amzDate = '20260301T100000Z';
    const canonical = [
      'GET',
      '/prod/ping',
      '',
      'host:127.0.0.1:4010',
      `x-amz-date:${amzDate}`,
      '',
      'host;x-amz-date',
      createHash('sha256').update('').digest('hex'),
    ].join('\n');
    const scope = '20260301/us-east-2/execute-api/aws4_request';
    const toSign = [
      'AWS4-HMAC-SHA256',
      amzDate,
      scope,
      createHash('sha256').update(canonical).digest('hex'),
    ].join('\n');
    const h = (k: Buffer | string, d: string) => createHmac('sha256', k).update(d).digest();
    const key = h(
      h(h(h(`AWS4${developer.secretAccessKey}`, '20260301'), 'us-east-2'), 'execute-api'),
      'aws4_request',
    );
    const signature = createHmac('sha256', key).update(toSign).digest('hex');
    const req: SignedRequestInput = {
      method: 'GET',
      target: '/prod/ping',
      body: Buffer.alloc(0),
      rawHeaders: [
        'Host',
        '127.0.0.1:4010',
        'X-Amz-Date',
        amzDate,
        'Authorization',
        `AWS4-HMAC-SHA256 Credential=${developer.accessKeyId}/${scope}, SignedHeaders=host;x-amz-date, Signature=${signature}`,
      ],
    };
    expect((await verify(req)).ok).toBe(true);
  });
});
