import { readControlPlaneProxyConfig } from '../../../lambda/control-plane-proxy/config.js';
import { readInferenceProxyConfig } from '../../../lambda/inference-stream-proxy/config.js';
import { EnvironmentError } from '../../../contracts/env/reader.js';

const PEM = '-----BEGIN CERTIFICATE-----\nMIIB\n-----END CERTIFICATE-----';
const base = {
  BACKEND_HOSTNAME: 'backend.gco.gco.internal',
  INTERNAL_CA_PEM: PEM,
  SIGNING_KEY_SECRET_ARN: 'arn:aws:secretsmanager:us-east-1:111122223333:secret:gco-signing-AbCdEf',
};

function problems(fn: () => unknown): readonly string[] {
  try {
    fn();
  } catch (error) {
    if (error instanceof EnvironmentError) return error.problems;
    throw error;
  }
  throw new Error('expected an EnvironmentError');
}

test('global mode: defaults and required variables', () => {
  const config = readControlPlaneProxyConfig({
    ...base,
    MODE: 'global',
    ACCELERATOR_DNS: 'a1234.awsglobalaccelerator.com',
  });
  expect(config).toMatchObject({
    mode: 'global',
    acceleratorDns: 'a1234.awsglobalaccelerator.com',
    backendHostname: 'backend.gco.gco.internal',
    backendPort: 443,
    forwardTimeoutMs: 28_000,
    maxResponseBytes: 4 * 1024 * 1024,
    caPem: PEM,
  });
});

test('regional mode: ALB parameter, optional account, cache TTL', () => {
  const config = readControlPlaneProxyConfig({
    ...base,
    MODE: 'regional',
    ALB_HOST_PARAMETER: '/gco/us-east-1/alb-host',
    ACCOUNT_ID: '111122223333',
    ALB_CACHE_TTL_MS: '60000',
  });
  expect(config).toMatchObject({
    mode: 'regional',
    albHostParameter: '/gco/us-east-1/alb-host',
    accountId: '111122223333',
    albCacheTtlMs: 60_000,
  });
  expect(config.acceleratorDns).toBeUndefined();
});

test('every problem is reported at once, naming the variable', () => {
  const found = problems(() =>
    readControlPlaneProxyConfig({ MODE: 'planetary', FORWARD_TIMEOUT_MS: '30000', BACKEND_PORT: 'x' }),
  );
  expect(found).toEqual(
    expect.arrayContaining([
      expect.stringContaining('MODE: expected "global" or "regional"'),
      expect.stringContaining('BACKEND_HOSTNAME: required'),
      expect.stringContaining('INTERNAL_CA_PEM: required, or INTERNAL_CA_FILE'),
      expect.stringContaining('SIGNING_KEY_SECRET_ARN: required'),
      expect.stringContaining('BACKEND_PORT: expected an integer in 1..65535'),
      expect.stringContaining('FORWARD_TIMEOUT_MS: expected a value in 1..28000'),
    ]),
  );
  expect(problems(() => readControlPlaneProxyConfig({ ...base, MODE: 'global' }))).toEqual([
    expect.stringContaining('ACCELERATOR_DNS: required'),
  ]);
  expect(
    problems(() => readControlPlaneProxyConfig({ ...base, MODE: 'regional', ACCOUNT_ID: '12' })),
  ).toEqual([
    expect.stringContaining('ALB_HOST_PARAMETER: required'),
    expect.stringContaining('ACCOUNT_ID: expected 12 digits'),
  ]);
});

test('the CA comes from INTERNAL_CA_PEM (with \\n escapes) or INTERNAL_CA_FILE, not both, and must be PEM', () => {
  const env = {
    BACKEND_HOSTNAME: base.BACKEND_HOSTNAME,
    SIGNING_KEY_SECRET_ARN: base.SIGNING_KEY_SECRET_ARN,
    MODE: 'global',
    ACCELERATOR_DNS: 'x.example.com',
  };
  expect(readControlPlaneProxyConfig({ ...env, INTERNAL_CA_PEM: PEM.replace(/\n/g, '\\n') }).caPem).toBe(PEM);
  const fromFile = readControlPlaneProxyConfig({ ...env, INTERNAL_CA_FILE: '/opt/ca.pem' }, (p) =>
    p === '/opt/ca.pem' ? PEM : '',
  );
  expect(fromFile.caPem).toBe(PEM);
  expect(
    problems(() => readControlPlaneProxyConfig({ ...env, INTERNAL_CA_PEM: PEM, INTERNAL_CA_FILE: '/x' })),
  ).toEqual(['INTERNAL_CA_PEM: set only one of INTERNAL_CA_PEM and INTERNAL_CA_FILE']);
  expect(problems(() => readControlPlaneProxyConfig({ ...env, INTERNAL_CA_PEM: 'not a pem' }))).toEqual([
    'INTERNAL_CA_PEM: holds no PEM certificate',
  ]);
  const missing = problems(() =>
    readControlPlaneProxyConfig({ ...env, INTERNAL_CA_FILE: '/nope' }, () => {
      throw new Error('ENOENT');
    }),
  );
  expect(missing[0]).toMatch(/INTERNAL_CA_FILE: cannot read "\/nope"/);
});

test('inference proxy: header timeout defaults by mode (edge idle timeout 30 s), stream cap under 900 s', () => {
  const global = readInferenceProxyConfig({ ...base, MODE: 'global', ACCELERATOR_DNS: 'x.example.com' });
  expect([global.headerTimeoutMs, global.streamTimeoutMs]).toEqual([28_000, 895_000]);
  const regional = readInferenceProxyConfig({
    ...base,
    MODE: 'regional',
    ALB_HOST_PARAMETER: '/p',
    HEADER_TIMEOUT_MS: '5000',
  });
  expect(regional.headerTimeoutMs).toBe(5_000);
  expect(
    problems(() =>
      readInferenceProxyConfig({
        ...base,
        MODE: 'regional',
        ALB_HOST_PARAMETER: '/p',
        STREAM_TIMEOUT_MS: '900001',
      }),
    ),
  ).toEqual([expect.stringContaining('STREAM_TIMEOUT_MS')]);
});
