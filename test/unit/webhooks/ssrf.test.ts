import {
  classifyAddress,
  parseWebhookUrl,
  TargetRefusedError,
  TargetResolutionError,
  vetWebhookTarget,
  type Lookup,
} from '../../../cluster/manifest-processor/src/webhooks/ssrf.js';

const resolvesTo =
  (...addresses: string[]): Lookup =>
  async () =>
    addresses.map((address) => ({ address, family: address.includes(':') ? 6 : 4 }));

describe('webhook SSRF rules', () => {
  test.each([
    ['8.8.8.8', 'public'],
    ['93.184.216.34', 'public'],
    ['0.0.0.0', 'unspecified'],
    ['0.1.2.3', 'unspecified'],
    ['10.0.0.1', 'private'],
    ['100.64.0.1', 'private'],
    ['100.127.255.255', 'private'],
    ['100.128.0.1', 'public'],
    ['127.0.0.1', 'loopback'],
    ['127.255.0.9', 'loopback'],
    ['169.254.169.254', 'link-local'],
    ['172.16.0.1', 'private'],
    ['172.31.255.255', 'private'],
    ['172.32.0.1', 'public'],
    ['192.168.1.1', 'private'],
    ['192.0.2.1', 'reserved'],
    ['198.18.0.1', 'reserved'],
    ['224.0.0.1', 'multicast'],
    ['255.255.255.255', 'reserved'],
    ['::', 'unspecified'],
    ['::1', 'loopback'],
    ['::ffff:127.0.0.1', 'loopback'],
    ['::ffff:7f00:1', 'loopback'],
    ['::ffff:169.254.169.254', 'link-local'],
    ['::ffff:8.8.8.8', 'public'],
    ['::127.0.0.1', 'reserved'],
    ['64:ff9b::10.0.0.1', 'private'],
    ['64:ff9b::8.8.8.8', 'public'],
    ['2002:7f00:1::1', 'loopback'],
    ['2001::1', 'reserved'],
    ['2001:db8::1', 'reserved'],
    ['fc00::1', 'private'],
    ['fd12:3456::1', 'private'],
    ['fe80::1', 'link-local'],
    ['fe80::1%eth0', 'link-local'],
    ['ff02::1', 'multicast'],
    ['2606:4700:4700::1111', 'public'],
    ['2a00:1450:4001:80b::200e', 'public'],
    ['4000::1', 'reserved'],
    ['not-an-ip', 'reserved'],
  ])('%s is %s', (address, category) => {
    expect(classifyAddress(address).category).toBe(category);
  });

  test.each([
    ['http://example.com/hook', 'only https'],
    ['ftp://example.com/hook', 'only https'],
    ['https://user:pw@example.com/hook', 'credentials'],
    ['not a url', 'valid absolute URL'],
  ])('URL %s is refused (%s)', (url, message) => {
    expect(() => parseWebhookUrl(url)).toThrow(message);
  });

  test('every resolved address must pass; literals are judged without DNS', async () => {
    const lookup = resolvesTo('93.184.216.34', '10.0.0.8');
    await expect(
      vetWebhookTarget('https://mixed.example/hook', { allowPrivateTargets: false, lookup }),
    ).rejects.toThrow(/resolves to 10\.0\.0\.8, a private address/);
    const ok = await vetWebhookTarget('https://public.example:8443/h?x=1', {
      allowPrivateTargets: false,
      lookup: resolvesTo('93.184.216.34', '2606:4700:4700::1111'),
    });
    expect(ok).toMatchObject({ hostname: 'public.example', port: 8443 });
    expect(ok.addresses.map((a) => a.address)).toEqual(['93.184.216.34', '2606:4700:4700::1111']);
    const never: Lookup = async () => {
      throw new Error('literals must not be looked up');
    };
    await expect(
      vetWebhookTarget('https://[::ffff:127.0.0.1]/', { allowPrivateTargets: false, lookup: never }),
    ).rejects.toBeInstanceOf(TargetRefusedError);
    expect(
      (await vetWebhookTarget('https://[::1]:9/', { allowPrivateTargets: true, lookup: never })).addresses,
    ).toEqual([{ address: '::1', family: 6 }]);
  });

  test('the local-development setting allows loopback and private ranges only', async () => {
    const allow = { allowPrivateTargets: true };
    await expect(vetWebhookTarget('https://127.0.0.1/', allow)).resolves.toBeDefined();
    await expect(vetWebhookTarget('https://10.1.2.3/', allow)).resolves.toBeDefined();
    await expect(vetWebhookTarget('https://169.254.169.254/', allow)).rejects.toThrow(/link-local/);
    await expect(vetWebhookTarget('https://0.0.0.0/', allow)).rejects.toThrow(/unspecified/);
    await expect(vetWebhookTarget('https://[ff02::1]/', allow)).rejects.toThrow(/multicast/);
    await expect(vetWebhookTarget('https://127.0.0.1/', { allowPrivateTargets: false })).rejects.toThrow(
      /WEBHOOK_ALLOW_PRIVATE_TARGETS/,
    );
  });

  test('resolution failures are not refusals (a delivery retries them)', async () => {
    const failing: Lookup = async () => {
      throw Object.assign(new Error('getaddrinfo ENOTFOUND'), { code: 'ENOTFOUND' });
    };
    await expect(
      vetWebhookTarget('https://gone.example/', { allowPrivateTargets: false, lookup: failing }),
    ).rejects.toBeInstanceOf(TargetResolutionError);
    await expect(
      vetWebhookTarget('https://empty.example/', { allowPrivateTargets: false, lookup: resolvesTo() }),
    ).rejects.toBeInstanceOf(TargetResolutionError);
  });
});
