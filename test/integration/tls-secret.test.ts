/**
 * TLS_SECRET_ARN end to end without AWS: the key-pair secret comes from a mocked Secrets Manager (no local
 * server exists for it), a real service serves HTTPS with it on 127.0.0.1, and real clients handshake
 * against the CA the same secret carries — the path manifest-processor takes to cost-monitor.
 */
import { afterAll, beforeAll, describe, expect, test } from '@jest/globals';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { request, type Server } from 'node:https';
import type { AddressInfo } from 'node:net';
import { connect, type TLSSocket } from 'node:tls';
import { X509Certificate } from 'node:crypto';
import { Writable } from 'node:stream';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { GetSecretValueCommand, SecretsManagerClient } from '@aws-sdk/client-secrets-manager';
import { mockClient } from 'aws-sdk-client-mock';
import { pino } from 'pino';
import { closeHttps, listen, serveHttps } from '../../cluster/shared/listen.js';
import { ALB_IDLE_TIMEOUT_MS } from '../../contracts/http/listener-deadlines.js';
import { createService, type Service } from '../../cluster/shared/service.js';
import { loadTls, tlsFromSecret, type TlsMaterial } from '../../cluster/shared/tls-secret.js';
import { createLocalCa, type LocalCa } from '../../local/tls.js';

const SECRET_ARN = 'arn:aws-test:secretsmanager:us-east-1:123456789012:secret:gco/tls-AbCdEf';
const SERVICE_NAME = 'cost-monitor.gco-system.svc';

const secrets = mockClient(SecretsManagerClient);
const client = new SecretsManagerClient({ region: 'us-east-1' });

function keyPairSecret(ca: LocalCa, names: readonly string[]): string {
  const issued = ca.issue(names);
  return JSON.stringify({
    certificatePem: issued.cert,
    privateKeyPem: issued.key,
    caCertificatePem: ca.cert,
  });
}

function get(
  port: number,
  ca: string,
  servername: string,
  path = '/healthz',
): Promise<{ status: number; body: string; protocol: string }> {
  return new Promise((resolve, reject) => {
    const req = request({ host: '127.0.0.1', port, path, ca, servername, agent: false }, (res) => {
      let body = '';
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => (body += chunk));
      res.on('end', () =>
        resolve({
          status: res.statusCode ?? 0,
          body,
          protocol: (res.socket as TLSSocket).getProtocol() ?? '',
        }),
      );
    });
    req.once('error', reject);
    req.end();
  });
}

/** A real service (framework probes) plus one slow route to observe shutdown with a request in flight. */
function minimalService(): Promise<Service> {
  return createService({
    name: 'tls-probe',
    version: '1.0.0',
    description: 'probe',
    envelope: false,
    logger: pino({ level: 'silent' }),
    routes: (app) => {
      app.get('/slow', { schema: { hide: true } }, async () => {
        await new Promise((resolve) => setTimeout(resolve, 300));
        return { done: true };
      });
    },
  });
}

describe('a service listening with the key pair from TLS_SECRET_ARN', () => {
  let ca: LocalCa;
  let other: LocalCa;
  let material: TlsMaterial;
  let service: Service;
  let server: Server;
  let port: number;

  beforeAll(async () => {
    ca = createLocalCa('gco internal CA (test)');
    other = createLocalCa('somebody else');
    secrets.reset();
    secrets
      .on(GetSecretValueCommand, { SecretId: SECRET_ARN })
      .resolves({ SecretString: keyPairSecret(ca, [SERVICE_NAME, '127.0.0.1']) });
    const loaded = await loadTls({ TLS_SECRET_ARN: SECRET_ARN }, client);
    if (!loaded) throw new Error('loadTls returned nothing for TLS_SECRET_ARN');
    material = loaded;
    service = await minimalService();
    server = await serveHttps(service, material, { host: '127.0.0.1', port: 0 });
    port = (server.address() as AddressInfo).port;
  });

  afterAll(async () => {
    if (server) await closeHttps(server, service);
  });

  test('reads the secret once, by the ARN it was given', () => {
    const calls = secrets.commandCalls(GetSecretValueCommand);
    expect(calls).toHaveLength(1);
    expect(calls[0]?.args[0].input).toEqual({ SecretId: SECRET_ARN });
  });

  test("returns the secret's CA so peers of the service can trust it", () => {
    expect(material.ca).toBe(ca.cert);
  });

  test('a client trusting only that CA completes the handshake and reaches the routes (TLS 1.2+)', async () => {
    const answer = await get(port, material.ca ?? '', SERVICE_NAME);
    expect(answer.status).toBe(200);
    expect(JSON.parse(answer.body)).toEqual({ status: 'healthy', service: 'tls-probe' });
    expect(['TLSv1.2', 'TLSv1.3']).toContain(answer.protocol);
  });

  test('a client trusting another CA refuses the certificate', async () => {
    await expect(get(port, other.cert, SERVICE_NAME)).rejects.toThrow(
      /self[- ]signed|unable to verify|certificate/i,
    );
  });

  test('a client expecting another name refuses the certificate', async () => {
    await expect(get(port, ca.cert, 'health-monitor.gco-system.svc')).rejects.toThrow(/altnames|Hostname/i);
  });

  test('idle connections outlive the ALB idle timeout (300 s); head and request deadlines are set', () => {
    expect(ALB_IDLE_TIMEOUT_MS).toBe(300_000);
    expect(server.keepAliveTimeout).toBeGreaterThan(ALB_IDLE_TIMEOUT_MS);
    expect(server.timeout).toBeGreaterThan(ALB_IDLE_TIMEOUT_MS);
    expect([server.headersTimeout, server.requestTimeout]).toEqual([20_000, 30_000]);
  });
});

/** The serial number of the certificate a fresh TLS connection to 127.0.0.1:port is served. */
function servedSerial(port: number, ca: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const socket = connect({ host: '127.0.0.1', port, ca, servername: SERVICE_NAME }, () => {
      const serial = socket.getPeerCertificate().serialNumber;
      socket.end();
      resolve(serial);
    });
    socket.once('error', reject);
  });
}

async function eventually<T>(probe: () => Promise<T>, done: (value: T) => boolean): Promise<T> {
  // Bounded by the test timeout, not by a wall-clock assertion.
  for (;;) {
    const value = await probe();
    if (done(value)) return value;
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

describe('a renewed certificate in the secret is served without a restart', () => {
  test('the listener swaps it in; failed reads keep the current one; closing stops the reloads', async () => {
    const ca = createLocalCa('gco internal CA (renewal)');
    const first = keyPairSecret(ca, [SERVICE_NAME]);
    const renewed = keyPairSecret(ca, [SERVICE_NAME]);
    const serialOf = (secret: string) =>
      new X509Certificate((JSON.parse(secret) as { certificatePem: string }).certificatePem).serialNumber;
    secrets.reset();
    let current: () => Promise<{ SecretString: string }> = async () => ({ SecretString: first });
    secrets.on(GetSecretValueCommand, { SecretId: SECRET_ARN }).callsFake(() => current());
    const logs: string[] = [];
    const sink = new Writable({
      write(chunk: Buffer, _enc, cb) {
        logs.push(chunk.toString());
        cb();
      },
    });
    const service = await createService({
      name: 'tls-reload',
      version: '1.0.0',
      description: 'reload',
      envelope: false,
      logger: pino({ level: 'info' }, sink),
      routes: () => undefined,
    });
    const material = await loadTls({ TLS_SECRET_ARN: SECRET_ARN }, client);
    if (!material) throw new Error('loadTls returned nothing for TLS_SECRET_ARN');
    const server = await serveHttps(service, material, {
      host: '127.0.0.1',
      port: 0,
      tlsReloadIntervalMs: 25,
    });
    const { port } = server.address() as AddressInfo;
    try {
      expect(await servedSerial(port, ca.cert)).toBe(serialOf(first));

      current = async () => ({ SecretString: renewed });
      await eventually(
        () => servedSerial(port, ca.cert),
        (serial) => serial === serialOf(renewed),
      );
      expect(logs.join('')).toContain('TLS certificate reloaded');

      // Secrets Manager refusing, then a broken value: warnings, and the renewed certificate stays.
      current = async () => {
        throw new Error('AccessDeniedException: not authorized');
      };
      await eventually(
        async () => logs.join(''),
        (text) => text.includes('reload failed'),
      );
      current = async () => ({ SecretString: '{"certificatePem":"nope"}' });
      await eventually(
        async () => logs.join(''),
        (text) => text.includes('lacks privateKeyPem'),
      );
      expect(await servedSerial(port, ca.cert)).toBe(serialOf(renewed));
      expect(logs.join('')).not.toContain('PRIVATE KEY');
    } finally {
      await closeHttps(server, service);
    }
    const reads = secrets.commandCalls(GetSecretValueCommand).length;
    await new Promise((resolve) => setTimeout(resolve, 150));
    expect(secrets.commandCalls(GetSecretValueCommand)).toHaveLength(reads);
  });

  test('TLS_RELOAD_INTERVAL_SECONDS out of range is a configuration error at startup', async () => {
    const ca = createLocalCa('gco internal CA (config)');
    const issued = ca.issue([SERVICE_NAME]);
    const service = await minimalService();
    try {
      await expect(
        listen(service, { HOST: '127.0.0.1', PORT: '0', TLS_RELOAD_INTERVAL_SECONDS: '0' }, issued),
      ).rejects.toThrow(/TLS_RELOAD_INTERVAL_SECONDS/);
    } finally {
      await service.app.close();
    }
  });
});

describe('shutdown of the HTTPS listener', () => {
  test('stops accepting, lets the request in flight finish, then closes the app', async () => {
    const ca = createLocalCa();
    const issued = ca.issue([SERVICE_NAME]);
    const service = await minimalService();
    const server = await serveHttps(service, issued, { host: '127.0.0.1', port: 0 });
    const { port } = server.address() as AddressInfo;
    const inFlight = get(port, ca.cert, SERVICE_NAME, '/slow');
    // Let the request reach the route before shutting down.
    await new Promise((resolve) => setTimeout(resolve, 100));
    const closing = closeHttps(server, service);
    await expect(inFlight).resolves.toMatchObject({ status: 200, body: '{"done":true}' });
    await closing;
    await expect(get(port, ca.cert, SERVICE_NAME)).rejects.toThrow(/ECONNREFUSED/);
  });
});

describe('loadTls chooses the source from the environment', () => {
  let dir: string;

  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), 'tls-secret-'));
  });

  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  test('nothing set: no TLS (plain HTTP behind the local router) and no AWS call', async () => {
    secrets.reset();
    await expect(loadTls({}, client)).resolves.toBeUndefined();
    expect(secrets.calls()).toHaveLength(0);
  });

  test('TLS_CERT_FILE/TLS_KEY_FILE still work for local runs', async () => {
    const issued = createLocalCa().issue(['localhost']);
    writeFileSync(join(dir, 'cert.pem'), issued.cert);
    writeFileSync(join(dir, 'key.pem'), issued.key);
    const tls = await loadTls(
      { TLS_CERT_FILE: join(dir, 'cert.pem'), TLS_KEY_FILE: join(dir, 'key.pem') },
      client,
    );
    expect(tls?.cert.toString()).toBe(issued.cert);
    expect(tls?.key.toString()).toBe(issued.key);
  });

  test('both sources at once is a configuration error', async () => {
    await expect(
      loadTls({ TLS_SECRET_ARN: SECRET_ARN, TLS_CERT_FILE: '/x', TLS_KEY_FILE: '/y' }, client),
    ).rejects.toThrow('TLS_SECRET_ARN and TLS_CERT_FILE/TLS_KEY_FILE are exclusive');
  });
});

describe('a broken key-pair secret fails startup with a reason and without its content', () => {
  const ca = createLocalCa();
  const good = ca.issue([SERVICE_NAME]);
  const stranger = createLocalCa().issue([SERVICE_NAME]);

  const failureOf = async (secretString: string | undefined): Promise<string> => {
    secrets.reset();
    secrets
      .on(GetSecretValueCommand)
      .resolves(secretString === undefined ? {} : { SecretString: secretString });
    try {
      await tlsFromSecret(SECRET_ARN, client);
    } catch (error) {
      return (error as Error).message;
    }
    throw new Error('tlsFromSecret accepted a broken secret');
  };

  test.each([
    ['no string value', undefined, 'has no string value'],
    ['not JSON', 'certificatePem=…', 'is not JSON'],
    ['a JSON array', '[]', 'is not a JSON object'],
    [
      'missing fields',
      JSON.stringify({ certificatePem: good.cert }),
      'lacks privateKeyPem, caCertificatePem',
    ],
    [
      'a certificate that is not PEM',
      JSON.stringify({ certificatePem: 'nope', privateKeyPem: good.key, caCertificatePem: ca.cert }),
      'certificatePem of secret',
    ],
    [
      'a key that is not PEM',
      JSON.stringify({ certificatePem: good.cert, privateKeyPem: 'nope', caCertificatePem: ca.cert }),
      'is not a PEM private key',
    ],
    [
      'a key of another certificate',
      JSON.stringify({ certificatePem: good.cert, privateKeyPem: stranger.key, caCertificatePem: ca.cert }),
      'does not match certificatePem',
    ],
  ])('%s', async (_case, secretString, reason) => {
    const message = await failureOf(secretString);
    expect(message).toContain(SECRET_ARN);
    expect(message).toContain(reason);
    expect(message).not.toContain('PRIVATE KEY');
    expect(message).not.toContain(good.key.slice(40, 80));
  });

  test('a Secrets Manager failure names the secret and the error, not a stack', async () => {
    secrets.reset();
    secrets
      .on(GetSecretValueCommand)
      .rejects(Object.assign(new Error('denied'), { name: 'AccessDeniedException' }));
    await expect(tlsFromSecret(SECRET_ARN, client)).rejects.toThrow(
      `TLS_SECRET_ARN: cannot read secret ${SECRET_ARN} (AccessDeniedException)`,
    );
  });
});
