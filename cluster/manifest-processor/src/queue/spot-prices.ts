/**
 * Current EC2 spot prices for spot-gated jobs: the lowest current Linux/UNIX price among the region's
 * Availability Zones (the price a spot launch in the region can get), from DescribeSpotPriceHistory.
 */
import { awsClientConfig } from '../../../../contracts/runtime/aws-clients.js';
import { DescribeSpotPriceHistoryCommand, EC2Client, type _InstanceType } from '@aws-sdk/client-ec2';

export interface SpotPriceSource {
  /** USD per hour, or undefined when EC2 reports no price for that type in that region. */
  currentPrice(region: string, instanceType: string): Promise<number | undefined>;
}

export interface Ec2SpotPriceSourceOptions {
  /** EC2 client of a region (default: one `new EC2Client({ region })` per region, reused). */
  clientFor?: (region: string) => EC2Client;
  /** How long a price is reused (default 60 s): spot prices move every few minutes at most. */
  cacheMs?: number;
  now?: () => number;
}

/** "Linux/UNIX" in VPC-only accounts; older accounts also report the "(Amazon VPC)" variant. */
const PRODUCT_DESCRIPTIONS = ['Linux/UNIX', 'Linux/UNIX (Amazon VPC)'];
const MAX_PAGES = 5;

export class Ec2SpotPriceSource implements SpotPriceSource {
  private readonly clients = new Map<string, EC2Client>();
  private readonly cache = new Map<string, { at: number; price: Promise<number | undefined> }>();
  private readonly clientFor: (region: string) => EC2Client;
  private readonly cacheMs: number;
  private readonly now: () => number;

  constructor(opts: Ec2SpotPriceSourceOptions = {}) {
    this.clientFor =
      opts.clientFor ??
      ((region) => {
        let client = this.clients.get(region);
        if (!client) {
          client = new EC2Client(awsClientConfig({ component: 'manifest-processor', region }));
          this.clients.set(region, client);
        }
        return client;
      });
    this.cacheMs = opts.cacheMs ?? 60_000;
    this.now = opts.now ?? Date.now;
  }

  currentPrice(region: string, instanceType: string): Promise<number | undefined> {
    const key = `${region}|${instanceType}`;
    const now = this.now();
    const hit = this.cache.get(key);
    if (hit && now - hit.at < this.cacheMs) return hit.price;
    const price = this.fetch(region, instanceType, now);
    this.cache.set(key, { at: now, price });
    // Failures are not cached: the next check asks EC2 again.
    price.catch(() => {
      if (this.cache.get(key)?.price === price) this.cache.delete(key);
    });
    return price;
  }

  private async fetch(region: string, instanceType: string, now: number): Promise<number | undefined> {
    const client = this.clientFor(region);
    // With StartTime = now EC2 returns the price in effect now for each AZ (plus recent changes).
    const latest = new Map<string, { at: number; price: number }>();
    let nextToken: string | undefined;
    for (let page = 0; page < MAX_PAGES; page++) {
      const out = await client.send(
        new DescribeSpotPriceHistoryCommand({
          InstanceTypes: [instanceType as _InstanceType],
          ProductDescriptions: PRODUCT_DESCRIPTIONS,
          StartTime: new Date(now),
          ...(nextToken ? { NextToken: nextToken } : {}),
        }),
      );
      for (const entry of out.SpotPriceHistory ?? []) {
        const zone = entry.AvailabilityZone ?? entry.AvailabilityZoneId ?? '';
        const price = Number(entry.SpotPrice);
        if (!Number.isFinite(price) || price <= 0) continue;
        const at = entry.Timestamp ? entry.Timestamp.getTime() : 0;
        const seen = latest.get(zone);
        if (!seen || at > seen.at) latest.set(zone, { at, price });
      }
      nextToken = out.NextToken || undefined;
      if (!nextToken) break;
    }
    if (latest.size === 0) return undefined;
    return Math.min(...[...latest.values()].map((p) => p.price));
  }

  /** Releases the EC2 clients this source created. */
  destroy(): void {
    for (const client of this.clients.values()) client.destroy();
    this.clients.clear();
  }
}

/** Explains why a gated job waits, e.g. "spot price 0.52 > max 0.40 for g5.xlarge in us-east-1". */
export function spotWaitReason(
  price: number | undefined,
  max: number,
  instanceType: string,
  region: string,
): string {
  if (price === undefined) return `no spot price is available for ${instanceType} in ${region}`;
  return `spot price ${formatPrice(price)} > max ${formatPrice(max)} for ${instanceType} in ${region}`;
}

/** At least two decimals, up to six (EC2 reports six). */
export function formatPrice(price: number): string {
  const fixed = price.toFixed(6).replace(/0+$/, '');
  const [whole = '0', decimals = ''] = fixed.split('.');
  return `${whole}.${decimals.padEnd(2, '0')}`;
}
