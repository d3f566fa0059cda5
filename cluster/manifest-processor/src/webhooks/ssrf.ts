/**
 * SSRF defence for webhook targets, applied at registration AND at every delivery:
 * - https only, no credentials in the URL;
 * - the host is resolved (every address) and ALL of them must be public unicast addresses;
 * - the caller then connects to exactly the addresses vetted here (client.ts pins them), so a DNS answer
 *   that changes between the check and the connection (rebinding) cannot redirect the request.
 *
 * Loopback and private ranges may be allowed for local development (WEBHOOK_ALLOW_PRIVATE_TARGETS);
 * link-local (cloud metadata), unspecified, multicast, documentation and other reserved ranges never are.
 */
import { PlatformError } from '../../../../contracts/runtime/errors.js';
import { lookup as dnsLookup } from 'node:dns/promises';
import { isIP } from 'node:net';

type AddressCategory =
  'public' | 'loopback' | 'private' | 'link-local' | 'unspecified' | 'multicast' | 'reserved';

export interface AddressClass {
  category: AddressCategory;
  /** Human-readable range, e.g. "10.0.0.0/8 (private)". */
  range: string;
}

interface ResolvedAddress {
  address: string;
  family: 4 | 6;
}

/** Resolves a hostname to every address (dns.lookup semantics: /etc/hosts, then DNS). Injectable for tests. */
export type Lookup = (hostname: string) => Promise<ResolvedAddress[]>;

const systemLookup: Lookup = async (hostname) => {
  const answers = await dnsLookup(hostname, { all: true, verbatim: true });
  return answers.map((a) => ({ address: a.address, family: a.family === 6 ? 6 : 4 }));
};

/** Categories refused unless private targets are explicitly allowed (local development only). */
const DEV_ONLY: ReadonlySet<AddressCategory> = new Set(['loopback', 'private']);

interface Range {
  base: bigint;
  bits: number;
  category: AddressCategory;
  label: string;
}

function v4(text: string): bigint {
  return text.split('.').reduce((acc, part) => (acc << 8n) | BigInt(Number.parseInt(part, 10) & 0xff), 0n);
}

/** A special-purpose range from its CIDR text; `parse` reads the base address, `width` is the full length. */
function cidrRange(
  cidr: string,
  category: AddressCategory,
  label: string,
  parse: (address: string) => bigint | undefined,
  width: number,
): Range {
  const [base = '', bits = String(width)] = cidr.split('/');
  return { base: parse(base) ?? 0n, bits: Number(bits), category, label: `${cidr} (${label})` };
}

const range4 = (cidr: string, category: AddressCategory, label: string): Range =>
  cidrRange(cidr, category, label, v4, 32);

// IANA IPv4 special-purpose registry, plus multicast and the reserved class E.
const V4_RANGES: readonly Range[] = [
  range4('0.0.0.0/8', 'unspecified', '"this network"'),
  range4('10.0.0.0/8', 'private', 'private'),
  range4('100.64.0.0/10', 'private', 'carrier-grade NAT'),
  range4('127.0.0.0/8', 'loopback', 'loopback'),
  range4('169.254.0.0/16', 'link-local', 'link-local, incl. cloud metadata'),
  range4('172.16.0.0/12', 'private', 'private'),
  range4('192.0.0.0/24', 'reserved', 'IETF protocol assignments'),
  range4('192.0.2.0/24', 'reserved', 'documentation'),
  range4('192.88.99.0/24', 'reserved', '6to4 relay anycast'),
  range4('192.168.0.0/16', 'private', 'private'),
  range4('198.18.0.0/15', 'reserved', 'benchmarking'),
  range4('198.51.100.0/24', 'reserved', 'documentation'),
  range4('203.0.113.0/24', 'reserved', 'documentation'),
  range4('224.0.0.0/4', 'multicast', 'multicast'),
  range4('240.0.0.0/4', 'reserved', 'reserved, incl. broadcast'),
];

function inRange(value: bigint, width: number, r: Range): boolean {
  const shift = BigInt(width - r.bits);
  return value >> shift === r.base >> shift;
}

function classifyV4(value: bigint, via = ''): AddressClass {
  for (const r of V4_RANGES) {
    if (inRange(value, 32, r)) return { category: r.category, range: `${r.label}${via}` };
  }
  return { category: 'public', range: `public IPv4${via}` };
}

/** 128-bit value of an IPv6 address (zone id dropped, embedded dotted quad accepted); undefined if invalid. */
function parseIPv6(text: string): bigint | undefined {
  const address = text.replace(/%.*$/, '');
  if (isIP(address) !== 6) return undefined;
  let groups = address;
  const quad = /(\d+\.\d+\.\d+\.\d+)$/.exec(groups);
  if (quad?.[1]) {
    const n = v4(quad[1]);
    groups = `${groups.slice(0, -quad[1].length)}${(n >> 16n).toString(16)}:${(n & 0xffffn).toString(16)}`;
  }
  const [head = '', tail] = groups.split('::');
  const left = head ? head.split(':') : [];
  const right = tail ? tail.split(':') : [];
  const missing = 8 - left.length - right.length;
  const all = tail === undefined ? left : [...left, ...Array<string>(missing).fill('0'), ...right];
  if (all.length !== 8) return undefined;
  return all.reduce((acc, g) => (acc << 16n) | BigInt(Number.parseInt(g || '0', 16)), 0n);
}

const range6 = (cidr: string, category: AddressCategory, label: string): Range =>
  cidrRange(cidr, category, label, parseIPv6, 128);

const V6_SPECIAL: readonly Range[] = [
  range6('::/128', 'unspecified', 'unspecified'),
  range6('::1/128', 'loopback', 'loopback'),
  range6('::/96', 'reserved', 'IPv4-compatible, deprecated'),
  range6('64:ff9b:1::/48', 'reserved', 'local-use NAT64'),
  range6('100::/64', 'reserved', 'discard-only'),
  range6('2001:db8::/32', 'reserved', 'documentation'),
  range6('2001::/23', 'reserved', 'IETF protocol assignments, incl. Teredo'),
  range6('3fff::/20', 'reserved', 'documentation'),
  range6('fc00::/7', 'private', 'unique local'),
  range6('fe80::/10', 'link-local', 'link-local'),
  range6('fec0::/10', 'private', 'site-local, deprecated'),
  range6('ff00::/8', 'multicast', 'multicast'),
];
const V4_MAPPED = range6('::ffff:0:0/96', 'reserved', 'IPv4-mapped');
const NAT64 = range6('64:ff9b::/96', 'reserved', 'NAT64');
const SIX_TO_FOUR = range6('2002::/16', 'reserved', '6to4');
const GLOBAL_UNICAST = range6('2000::/3', 'public', 'global unicast');

function v4Text(value: bigint): string {
  return [24n, 16n, 8n, 0n].map((s) => ((value >> s) & 0xffn).toString()).join('.');
}

/** The category of an IP address; IPv6 forms that embed an IPv4 address are judged as that address. */
export function classifyAddress(address: string): AddressClass {
  const family = isIP(address.replace(/%.*$/, ''));
  if (family === 4) return classifyV4(v4(address));
  const value = family === 6 ? parseIPv6(address) : undefined;
  if (value === undefined) return { category: 'reserved', range: 'not an IP address' };
  // Mapped / translated forms reach the embedded IPv4 host, so that host decides.
  if (inRange(value, 128, V4_MAPPED)) {
    const embedded = value & 0xffffffffn;
    return classifyV4(embedded, ` via IPv4-mapped ${v4Text(embedded)}`);
  }
  if (inRange(value, 128, NAT64)) {
    const embedded = value & 0xffffffffn;
    return classifyV4(embedded, ` via NAT64 ${v4Text(embedded)}`);
  }
  if (inRange(value, 128, SIX_TO_FOUR)) {
    const embedded = (value >> 80n) & 0xffffffffn;
    return classifyV4(embedded, ` via 6to4 ${v4Text(embedded)}`);
  }
  for (const r of V6_SPECIAL) if (inRange(value, 128, r)) return { category: r.category, range: r.label };
  if (inRange(value, 128, GLOBAL_UNICAST)) return { category: 'public', range: 'public IPv6' };
  return { category: 'reserved', range: 'outside IPv6 global unicast (2000::/3)' };
}

function isAllowedAddress(address: string, allowPrivate: boolean): boolean {
  const { category } = classifyAddress(address);
  return category === 'public' || (allowPrivate && DEV_ONLY.has(category));
}

/** The target is refused for good (policy), as opposed to a resolution failure that may clear up. */
export class TargetRefusedError extends PlatformError {
  override readonly name = 'TargetRefusedError';
}

export class TargetResolutionError extends PlatformError {
  override readonly name = 'TargetResolutionError';
}

export interface VettedTarget {
  url: URL;
  /** Hostname without IPv6 brackets; SNI and Host use it. */
  hostname: string;
  port: number;
  /** The addresses that passed the check; the connection goes to one of these and nowhere else. */
  addresses: ResolvedAddress[];
}

/** Syntax rules of a webhook URL; throws TargetRefusedError. */
export function parseWebhookUrl(raw: string): URL {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new TargetRefusedError('not a valid absolute URL');
  }
  if (url.protocol !== 'https:') throw new TargetRefusedError('only https:// URLs are allowed');
  if (url.username || url.password) {
    throw new TargetRefusedError('credentials in the URL are not allowed (use the webhook secret)');
  }
  if (!url.hostname) throw new TargetRefusedError('the URL has no host');
  return url;
}

export interface VetOptions {
  allowPrivateTargets: boolean;
  lookup?: Lookup;
  /** Stop waiting for name resolution after this long (a hung resolver must not hold a request). */
  timeoutMs?: number;
}

async function resolveWithin(
  lookup: Lookup,
  hostname: string,
  timeoutMs: number,
): Promise<ResolvedAddress[]> {
  let timer: NodeJS.Timeout | undefined;
  const deadline = new Promise<never>((_resolve, reject) => {
    timer = setTimeout(() => {
      reject(Object.assign(new Error(`timed out after ${timeoutMs} ms`), { code: 'ETIMEOUT' }));
    }, timeoutMs);
  });
  try {
    return await Promise.race([lookup(hostname), deadline]);
  } finally {
    clearTimeout(timer);
  }
}

/**
 * Parses, resolves and vets a webhook URL. Every resolved address must pass: one bad address refuses the
 * target, since the connection could otherwise land on it.
 */
export async function vetWebhookTarget(raw: string, opts: VetOptions): Promise<VettedTarget> {
  const url = parseWebhookUrl(raw);
  const hostname = url.hostname.replace(/^\[(.*)\]$/, '$1');
  const port = url.port ? Number(url.port) : 443;
  let addresses: ResolvedAddress[];
  const literal = isIP(hostname);
  if (literal) {
    addresses = [{ address: hostname, family: literal === 6 ? 6 : 4 }];
  } else {
    try {
      addresses = await resolveWithin(opts.lookup ?? systemLookup, hostname, opts.timeoutMs ?? 5_000);
    } catch (error) {
      const code = (error as { code?: unknown }).code;
      throw new TargetResolutionError(
        `host ${hostname} could not be resolved${typeof code === 'string' ? ` (${code})` : ''}`,
      );
    }
    if (addresses.length === 0) throw new TargetResolutionError(`host ${hostname} has no addresses`);
  }
  for (const { address } of addresses) {
    if (!isIP(address.replace(/%.*$/, ''))) {
      throw new TargetRefusedError(`host ${hostname} resolved to something that is not an IP address`);
    }
    if (!isAllowedAddress(address, opts.allowPrivateTargets)) {
      const { category, range } = classifyAddress(address);
      const hint = DEV_ONLY.has(category) ? ' (allowed only with WEBHOOK_ALLOW_PRIVATE_TARGETS=true)' : '';
      const via = literal ? '' : `host ${hostname} resolves to `;
      throw new TargetRefusedError(`${via}${address}, a ${category} address in ${range}${hint}`);
    }
  }
  return { url, hostname, port, addresses };
}
