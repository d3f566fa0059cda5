import { loadConfig as loadControlPlaneConfig } from '../../../lambda/control-plane-proxy/index.js';
import { loadConfig as loadInferenceConfig } from '../../../lambda/inference-stream-proxy/index.js';
import { ConfigError } from '../../../lambda/shared/proxy-config.js';

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
    if (error instanceof ConfigError) return error.problems;
    throw error;
  }
  throw new Error('expected a ConfigError');
}

test('global mode: defaults and required variables', () => {
  const config = loadControlPlaneConfig({
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
  const config = loadControlPlaneConfig({
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
    loadControlPlaneConfig({ MODE: 'planetary', FORWARD_TIMEOUT_MS: '30000', BACKEND_PORT: 'x' }),
  );
  expect(found).toEqual(
    expect.arrayContaining([
      expect.stringContaining('MODE must be "global" or "regional"'),
      expect.stringContaining('BACKEND_HOSTNAME is required'),
      expect.stringContaining('INTERNAL_CA_PEM or INTERNAL_CA_FILE is required'),
      expect.stringContaining('SIGNING_KEY_SECRET_ARN is required'),
      expect.stringContaining('BACKEND_PORT must be an integer from 1 to 65535'),
      expect.stringContaining('FORWARD_TIMEOUT_MS must be an integer from 1 to 28000'),
    ]),
  );
  expect(problems(() => loadControlPlaneConfig({ ...base, MODE: 'global' }))).toEqual([
    expect.stringContaining('ACCELERATOR_DNS is required'),
  ]);
  expect(problems(() => loadControlPlaneConfig({ ...base, MODE: 'regional', ACCOUNT_ID: '12' }))).toEqual([
    expect.stringContaining('ALB_HOST_PARAMETER is required'),
    expect.stringContaining('ACCOUNT_ID must be 12 digits'),
  ]);
});

test('the CA comes from INTERNAL_CA_PEM (with \\n escapes) or INTERNAL_CA_FILE, not both, and must be PEM', () => {
  const env = {
    BACKEND_HOSTNAME: base.BACKEND_HOSTNAME,
    SIGNING_KEY_SECRET_ARN: base.SIGNING_KEY_SECRET_ARN,
    MODE: 'global',
    ACCELERATOR_DNS: 'x.example.com',
  };
  expect(loadControlPlaneConfig({ ...env, INTERNAL_CA_PEM: PEM.replace(/\n/g, '\\n') }).caPem).toBe(PEM);
  const fromFile = loadControlPlaneConfig({ ...env, INTERNAL_CA_FILE: '/opt/ca.pem' }, (p) =>
    p === '/opt/ca.pem' ? PEM : '',
  );
  expect(fromFile.caPem).toBe(PEM);
  expect(
    problems(() => loadControlPlaneConfig({ ...env, INTERNAL_CA_PEM: PEM, INTERNAL_CA_FILE: '/x' })),
  ).toEqual(['set only one of INTERNAL_CA_PEM and INTERNAL_CA_FILE']);
  expect(problems(() => loadControlPlaneConfig({ ...env, INTERNAL_CA_PEM: 'not a pem' }))).toEqual([
    'INTERNAL_CA_PEM holds no PEM certificate',
  ]);
  const missing = problems(() =>
    loadControlPlaneConfig({ ...env, INTERNAL_CA_FILE: '/nope' }, () => {
      throw new Error('ENOENT');
    }),
  );
  expect(missing[0]).toMatch(/INTERNAL_CA_FILE "\/nope" cannot be read/);
});

test('inference proxy: header timeout defaults by mode (edge idle timeout 30 s), stream cap under 900 s', () => {
  const global = loadInferenceConfig({ ...base, MODE: 'global', ACCELERATOR_DNS: 'x.example.com' });
  expect([global.headerTimeoutMs, global.streamTimeoutMs]).toEqual([28_000, 895_000]);
  const regional = loadInferenceConfig({
    ...base,
    MODE: 'regional',
    ALB_HOST_PARAMETER: '/p',
    HEADER_TIMEOUT_MS: '5000',
  });
  expect(regional.headerTimeoutMs).toBe(5_000);
  expect(
    problems(() =>
      loadInferenceConfig({
        ...base,
        MODE: 'regional',
        ALB_HOST_PARAMETER: '/p',
        STREAM_TIMEOUT_MS: '900001',
      }),
    ),
  ).toEqual([expect.stringContaining('STREAM_TIMEOUT_MS')]);
});
