import fc from 'fast-check';
import { startWebhookHarness, type WebhookHarness } from './harness.js';

const SECRET = 'a-webhook-secret-0123456789';

describe('webhooks API: registration rules (private targets NOT allowed, as in production)', () => {
  let h: WebhookHarness;
  beforeAll(async () => {
    h = await startWebhookHarness({ allowPrivateTargets: false });
  });
  afterAll(async () => {
    await h.close();
  });

  test.each([
    ['http://example.com/hook', /only https/],
    ['https://127.0.0.1/hook', /127\.0\.0\.1, a loopback address/],
    ['https://127.1:8443/hook', /loopback/],
    ['https://10.0.0.1/hook', /private/],
    ['https://172.20.1.1/hook', /private/],
    ['https://192.168.0.10/hook', /private/],
    ['https://169.254.169.254/latest/meta-data/', /link-local/],
    ['https://[::1]/hook', /loopback/],
    ['https://[::ffff:127.0.0.1]/hook', /loopback/],
    ['https://[::ffff:169.254.169.254]/hook', /link-local/],
    ['https://[fd00::1]/hook', /private/],
    ['https://[fe80::1]/hook', /link-local/],
    ['https://100.64.0.1/hook', /carrier-grade NAT/],
    ['https://0.0.0.0/hook', /unspecified/],
    ['https://224.0.0.1/hook', /multicast/],
    ['https://localhost/hook', /host localhost resolves to .*loopback/],
    // Other spellings of 127.0.0.1 (WHATWG URL host parsing): judged as the address they are.
    ['https://0x7f000001/hook', /127\.0\.0\.1, a loopback address/],
    ['https://2130706433/hook', /127\.0\.0\.1, a loopback address/],
    ['https://0177.0.0.1/hook', /127\.0\.0\.1, a loopback address/],
    ['https://0xa9.0xfe.0xa9.0xfe/latest/meta-data/', /link-local/],
    ['https://user:pw@example.com/hook', /credentials/],
  ])('%s is refused with 422', async (url, message) => {
    const res = await h.call('POST', '/api/v1/webhooks', { url, events: ['job.completed'] });
    expect(res.status).toBe(422);
    expect(res.body.detail).toHaveLength(1);
    expect(res.body.detail[0]).toMatchObject({ loc: ['body', 'url'], type: 'value_error', input: url });
    expect(res.body.detail[0].msg).toMatch(message);
    expect((await h.call('GET', '/api/v1/webhooks')).body.count).toBe(0);
  });

  const url = 'https://example.com';
  const ok = { url, events: ['job.failed'] };
  test.each([
    ['url missing', { events: ['job.completed'] }, ['body', 'url'], 'missing'],
    ['url not a string', { url: 42, events: ['job.completed'] }, ['body', 'url'], 'string_type'],
    ['url too long', { ...ok, url: `${url}/${'x'.repeat(2048)}` }, ['body', 'url'], 'string_too_long'],
    ['events missing', { url }, ['body', 'events'], 'missing'],
    ['events empty', { url, events: [] }, ['body', 'events'], 'too_short'],
    ['event not in the enum', { url, events: ['job.done'] }, ['body', 'events', 0], 'enum'],
    ['events not a list', { url, events: 'job.failed' }, ['body', 'events'], 'list_type'],
    ['events repeated', { url, events: ['job.failed', 'job.failed'] }, ['body', 'events'], 'value_error'],
    ['secret empty', { ...ok, secret: '' }, ['body', 'secret'], 'string_too_short'],
    ['secret too long', { ...ok, secret: 's'.repeat(513) }, ['body', 'secret'], 'string_too_long'],
    ['secret not a string', { ...ok, secret: 123 }, ['body', 'secret'], 'string_type'],
    ['namespace too long', { ...ok, namespace: 'n'.repeat(64) }, ['body', 'namespace'], 'string_too_long'],
    ['unknown field', { ...ok, secrte: 'x' }, ['body', 'secrte'], 'extra_forbidden'],
  ])('422: %s', async (_label, body, loc, type) => {
    const res = await h.call('POST', '/api/v1/webhooks', body);
    expect(res.status).toBe(422);
    expect(res.body.detail).toEqual(expect.arrayContaining([expect.objectContaining({ loc, type })]));
  });

  test('the enum error names the allowed events', async () => {
    const res = await h.call('POST', '/api/v1/webhooks', {
      url: 'https://example.com',
      events: ['job.done'],
    });
    expect(res.body.detail[0].ctx.expected).toBe("'job.completed', 'job.failed' or 'job.started'");
  });

  test('DELETE of an unknown webhook is 404; the query string is closed', async () => {
    const res = await h.call('DELETE', '/api/v1/webhooks/does-not-exist');
    expect(res).toMatchObject({ status: 404, body: { detail: 'Webhook does-not-exist not found' } });
    expect((await h.call('GET', '/api/v1/webhooks?namepsace=x')).status).toBe(422);
  });
});

describe('webhooks API: CRUD (private targets allowed, as for local development)', () => {
  let h: WebhookHarness;
  beforeAll(async () => {
    h = await startWebhookHarness({ allowPrivateTargets: true });
  });
  afterAll(async () => {
    await h.close();
  });

  test('loopback and private targets are accepted only with the setting; metadata and http never', async () => {
    for (const url of [
      'https://127.0.0.1:9/a',
      'https://[::1]/b',
      'https://localhost/c',
      'https://10.0.0.1/d',
    ]) {
      const res = await h.call('POST', '/api/v1/webhooks', { url, events: ['job.started'] });
      expect([url, res.status]).toEqual([url, 200]);
      expect((await h.call('DELETE', `/api/v1/webhooks/${res.body.webhook_id}`)).status).toBe(200);
    }
    for (const url of ['http://127.0.0.1/a', 'https://169.254.169.254/', 'https://[fe80::1]/']) {
      const res = await h.call('POST', '/api/v1/webhooks', { url, events: ['job.started'] });
      expect([url, res.status]).toEqual([url, 422]);
    }
  });

  test('create, list (never the secret), namespace filter, delete', async () => {
    const a = await h.call('POST', '/api/v1/webhooks', {
      url: 'https://127.0.0.1:8443/a',
      events: ['job.completed', 'job.failed'],
      namespace: 'svc-jobs',
      secret: SECRET,
    });
    expect(a.status).toBe(200);
    expect(a.body).toEqual({
      webhook_id: expect.stringMatching(/^[0-9a-f-]{36}$/),
      url: 'https://127.0.0.1:8443/a',
      events: ['job.completed', 'job.failed'],
      namespace: 'svc-jobs',
      has_secret: true,
      created_at: expect.any(String),
      updated_at: expect.any(String),
    });
    expect(a.text).not.toContain(SECRET);
    const b = await h.call('POST', '/api/v1/webhooks', {
      url: 'https://127.0.0.1:8443/b',
      events: ['job.started'],
    });
    expect(b.body).toMatchObject({ namespace: null, has_secret: false });
    const c = await h.call('POST', '/api/v1/webhooks', {
      url: 'https://127.0.0.1:8443/c',
      events: ['job.started'],
      namespace: 'default',
      secret: null,
    });
    expect(c.status).toBe(200);

    const all = await h.call('GET', '/api/v1/webhooks');
    expect(all.body.count).toBe(3);
    expect(all.body.webhooks.map((w: { url: string }) => w.url)).toEqual([
      'https://127.0.0.1:8443/a',
      'https://127.0.0.1:8443/b',
      'https://127.0.0.1:8443/c',
    ]);
    expect(all.text).not.toContain(SECRET);
    expect(all.text).not.toContain('"secret"');
    const svc = await h.call('GET', '/api/v1/webhooks?namespace=svc-jobs');
    expect(svc.body.webhooks.map((w: { webhook_id: string }) => w.webhook_id)).toEqual([a.body.webhook_id]);
    expect((await h.call('GET', '/api/v1/webhooks?namespace=other')).body).toEqual({
      webhooks: [],
      count: 0,
    });

    expect(await h.call('DELETE', `/api/v1/webhooks/${a.body.webhook_id}`)).toMatchObject({
      status: 200,
      body: { deleted: true, webhook_id: a.body.webhook_id },
    });
    expect((await h.call('DELETE', `/api/v1/webhooks/${a.body.webhook_id}`)).status).toBe(404);
    expect((await h.call('GET', '/api/v1/webhooks')).body.count).toBe(2);
  });

  test('URLs are stored and listed in their WHATWG canonical form: the listing shows the real target', async () => {
    const cases: [string, string][] = [
      ['https://0x7f000001:8443/hook', 'https://127.0.0.1:8443/hook'],
      ['https://2130706433:8443/hook', 'https://127.0.0.1:8443/hook'],
      ['HTTPS://0177.0.0.1:443/a/../b?q=1', 'https://127.0.0.1/b?q=1'],
      ['https://127.0.0.1:8443', 'https://127.0.0.1:8443/'],
      ['https://[0:0:0:0:0:0:0:1]:8443/x y', 'https://[::1]:8443/x%20y'],
    ];
    const ids: string[] = [];
    for (const [sent, canonical] of cases) {
      const res = await h.call('POST', '/api/v1/webhooks', { url: sent, events: ['job.failed'] });
      expect([sent, res.status, res.body.url]).toEqual([sent, 200, canonical]);
      ids.push(res.body.webhook_id);
    }
    const listed = (await h.call('GET', '/api/v1/webhooks')).body.webhooks as {
      webhook_id: string;
      url: string;
    }[];
    expect(ids.map((id) => listed.find((w) => w.webhook_id === id)?.url)).toEqual(cases.map(([, c]) => c));
    for (const id of ids) await h.call('DELETE', `/api/v1/webhooks/${id}`);
  });

  test('generated spellings of a 127.x address are listed as the dotted quad', async () => {
    const spellings = (a: number): string[] => {
      const bytes = [127, (a >> 16) & 255, (a >> 8) & 255, a & 255];
      const value = (127 * 2 ** 24 + (a & 0xffffff)) >>> 0;
      return [
        String(value),
        `0x${value.toString(16)}`,
        bytes.map((b) => `0${b.toString(8)}`).join('.'),
        bytes.map((b) => `0x${b.toString(16)}`).join('.'),
      ];
    };
    await fc.assert(
      fc.asyncProperty(fc.integer({ min: 0, max: 0xffffff }), fc.nat(3), async (a, pick) => {
        const host = spellings(a)[pick]!;
        const dotted = `127.${(a >> 16) & 255}.${(a >> 8) & 255}.${a & 255}`;
        const res = await h.call('POST', '/api/v1/webhooks', {
          url: `https://${host}/h`,
          events: ['job.failed'],
        });
        expect([host, res.status, res.body.url]).toEqual([host, 200, `https://${dotted}/h`]);
        await h.call('DELETE', `/api/v1/webhooks/${res.body.webhook_id}`);
      }),
      { numRuns: 25, seed: 25 },
    );
  });

  test('a URL whose canonical form is longer than 2048 characters is refused with 422', async () => {
    const url = `https://127.0.0.1/${'a b'.repeat(600)}`;
    expect(url.length).toBeLessThanOrEqual(2048);
    const res = await h.call('POST', '/api/v1/webhooks', { url, events: ['job.failed'] });
    expect(res.status).toBe(422);
    expect(res.body.detail[0]).toMatchObject({ loc: ['body', 'url'], type: 'value_error' });
    expect(res.body.detail[0].msg).toMatch(/canonical form \(3018 characters\) is longer than 2048/);
  });

  test('any secret of 1–512 characters and any namespace filter are accepted, as the spec allows', async () => {
    // A 13-character secret from an independent client's documentation, a filter outside the allowed
    // namespaces (registered with a warning: it never fires) and one that is not a DNS label.
    const short = await h.call('POST', '/api/v1/webhooks', {
      url: 'https://127.0.0.1:8443/short-secret',
      events: ['job.failed'],
      secret: 'my-13-char-sk',
    });
    expect(short.status).toBe(200);
    expect(short.body).toMatchObject({ has_secret: true });
    expect(short.body.warnings).toBeUndefined();
    for (const namespace of ['kube-system', 'Team_A']) {
      const filtered = await h.call('POST', '/api/v1/webhooks', {
        url: 'https://127.0.0.1:8443/filtered',
        events: ['job.started'],
        namespace,
      });
      expect(filtered.status).toBe(200);
      expect(filtered.body.namespace).toBe(namespace);
      expect(filtered.body.warnings).toEqual([
        expect.stringContaining(`namespace ${namespace} is not one of`),
      ]);
    }
  });

  test('operations are signed like every other route and published with the seed operation ids', async () => {
    const unsigned = await fetch(`${h.instances[0]!.base}/api/v1/webhooks`);
    expect(unsigned.status).toBe(403);
    const doc = await h.call('GET', '/openapi.json');
    const ops = Object.values(
      doc.body.paths as Record<string, Record<string, { operationId: string }>>,
    ).flatMap((p) => Object.values(p).map((o) => o.operationId));
    expect(ops).toEqual(
      expect.arrayContaining([
        'list_webhooks_api_v1_webhooks_get',
        'create_webhook_api_v1_webhooks_post',
        'delete_webhook_api_v1_webhooks__webhook_id__delete',
      ]),
    );
  });
});
