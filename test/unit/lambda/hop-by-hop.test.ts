// One hop-by-hop rule for every proxy of the platform (contracts/http/hop-by-hop.ts).
import { describe, expect, test } from '@jest/globals';
import { connectionListed, isHopByHop } from '../../../contracts/http/hop-by-hop.js';

describe('hop-by-hop headers', () => {
  test.each([
    'Connection',
    'keep-alive',
    'Proxy-Authorization',
    'proxy-anything',
    'TE',
    'Trailer',
    'Transfer-Encoding',
    'Upgrade',
    'HTTP2-Settings',
  ])('%s is hop-by-hop', (name) => expect(isHopByHop(name)).toBe(true));

  test('ordinary headers are not; names listed in Connection are', () => {
    expect(isHopByHop('content-type')).toBe(false);
    expect(isHopByHop('set-cookie')).toBe(false);
    const listed = connectionListed(['close, X-Foo', ' x-bar ']);
    expect([...listed]).toEqual(['close', 'x-foo', 'x-bar']);
    expect(isHopByHop('X-Foo', listed)).toBe(true);
    // IncomingMessage.headers joins repeated Connection headers into one value.
    expect([...connectionListed('keep-alive, X-Foo')]).toEqual(['keep-alive', 'x-foo']);
    expect(connectionListed(undefined).size).toBe(0);
  });
});
