import { createHash, createHmac } from 'node:crypto';
import { describe, expect, test } from '@jest/globals';
import { encodeQuery, rfc3986Encode, signSigV4 } from '../../../../contracts/runtime/sigv4.js';

// The AWS SigV4 test suite's credentials and date (aws-sig-v4-test-suite, "get-vanilla").
const SUITE = {
  credentials: { accessKeyId: 'AKIDEXAMPLE', secretAccessKey: 'wJalrXUtnFEMI/K7MDENG+bPxRfiCYEXAMPLEKEY' },
  signingDate: new Date('2015-08-30T12:36:00Z'),
};

const hex = (data: string) => createHash('sha256').update(data, 'utf8').digest('hex');
const hmac = (key: Buffer | string, data: string) => createHmac('sha256', key).update(data, 'utf8').digest();

/** SigV4 written out from the AWS documentation with node:crypto only: an independent reference. */
function referenceSignature(p: {
  method: string;
  path: string;
  canonicalQuery: string;
  headers: Record<string, string>;
  body: string;
  amzDate: string;
  region: string;
  service: string;
  secret: string;
}): string {
  const names = Object.keys(p.headers).sort();
  const canonicalRequest = [
    p.method,
    p.path,
    p.canonicalQuery,
    names.map((n) => `${n}:${p.headers[n]!.trim()}\n`).join(''),
    names.join(';'),
    hex(p.body),
  ].join('\n');
  const day = p.amzDate.slice(0, 8);
  const scope = `${day}/${p.region}/${p.service}/aws4_request`;
  const stringToSign = ['AWS4-HMAC-SHA256', p.amzDate, scope, hex(canonicalRequest)].join('\n');
  const key = hmac(hmac(hmac(hmac(`AWS4${p.secret}`, day), p.region), p.service), 'aws4_request');
  return createHmac('sha256', key).update(stringToSign, 'utf8').digest('hex');
}

describe('signSigV4', () => {
  test('reproduces the AWS test suite vector get-vanilla', async () => {
    const signed = await signSigV4({
      method: 'GET',
      baseUrl: 'https://example.amazonaws.com',
      path: '/',
      region: 'us-east-1',
      service: 'service',
      ...SUITE,
    });
    expect(signed.headers.authorization).toBe(
      'AWS4-HMAC-SHA256 Credential=AKIDEXAMPLE/20150830/us-east-1/service/aws4_request, ' +
        'SignedHeaders=host;x-amz-date, ' +
        'Signature=5fa00fa31553b73ebf1942676e86291e8372ff2a2260956d9b8aae1d763fbf31',
    );
    expect(signed.headers['x-amz-date']).toBe('20150830T123600Z');
    expect(signed.url).toBe('https://example.amazonaws.com/');
  });

  test('matches a from-the-docs implementation for a stage path, query, body and port', async () => {
    const body = '{"namespace":"svc-jobs","dry_run":true}';
    const signed = await signSigV4({
      method: 'DELETE',
      baseUrl: 'http://127.0.0.1:4567/prod/',
      path: '/api/v1/jobs',
      query: { sort: 'name:asc', label_selector: 'team=ml,tier=a b', a: ['2', '1'] },
      headers: { 'content-type': 'application/json' },
      body,
      region: 'eu-west-1',
      ...SUITE,
    });
    expect(signed.url).toBe(
      'http://127.0.0.1:4567/prod/api/v1/jobs?sort=name%3Aasc&label_selector=team%3Dml%2Ctier%3Da%20b&a=2&a=1',
    );
    expect(signed.headers).not.toHaveProperty('host');
    expect(signed.body).toBe(body);
    const expected = referenceSignature({
      method: 'DELETE',
      path: '/prod/api/v1/jobs',
      canonicalQuery: 'a=1&a=2&label_selector=team%3Dml%2Ctier%3Da%20b&sort=name%3Aasc',
      headers: {
        'content-type': 'application/json',
        host: '127.0.0.1:4567',
        'x-amz-date': '20150830T123600Z',
      },
      body,
      amzDate: '20150830T123600Z',
      region: 'eu-west-1',
      service: 'execute-api',
      secret: SUITE.credentials.secretAccessKey,
    });
    expect(signed.headers.authorization).toBe(
      'AWS4-HMAC-SHA256 Credential=AKIDEXAMPLE/20150830/eu-west-1/execute-api/aws4_request, ' +
        `SignedHeaders=content-type;host;x-amz-date, Signature=${expected}`,
    );
  });

  test('temporary credentials add a signed x-amz-security-token; a provider function is accepted', async () => {
    const signed = await signSigV4({
      method: 'GET',
      baseUrl: 'https://abc.execute-api.us-east-1.amazonaws.com/prod',
      path: '/api/v1/health',
      region: 'us-east-1',
      credentials: async () => ({ ...SUITE.credentials, sessionToken: 'session-token' }),
    });
    expect(signed.headers['x-amz-security-token']).toBe('session-token');
    expect(signed.headers.authorization).toContain('SignedHeaders=host;x-amz-date;x-amz-security-token,');
    expect(signed.headers).not.toHaveProperty('x-amz-content-sha256');
  });
});

describe('query encoding', () => {
  test('RFC 3986: everything but unreserved characters is escaped', () => {
    expect(rfc3986Encode("a b!'()*~-._:/=,+")).toBe('a%20b%21%27%28%29%2A~-._%3A%2F%3D%2C%2B');
  });

  test('repeated keys stay repeated, in order', () => {
    expect(encodeQuery({ x: ['1', '2'], y: 'z' })).toBe('x=1&x=2&y=z');
    expect(encodeQuery(undefined)).toBe('');
  });
});
