/**
 * Reads a `node --cpu-prof` profile of the inference-proxy (or of the floor) from the bench
 * (`BENCH_PHASES=ttfb BENCH_PROXY_NODE_ARGS="--cpu-prof --cpu-prof-interval=250 --cpu-prof-dir=DIR"`)
 * and prints where the time went per request, as docs/inference-proxy.md "Where the time goes" shows it:
 * socket writes, garbage collection and V8 by their own frames, everything else by the innermost frame
 * outside Node's own modules (who caused the work). Samples before the first request are start-up and
 * left out. Usage: `npx tsx bench/_inference-proxy-profile.ts <file.cpuprofile> <requests served>`.
 */
import { readFileSync } from 'node:fs';

interface ProfileNode {
  id: number;
  callFrame: { functionName: string; url: string };
  children?: number[];
}

interface Profile {
  nodes: ProfileNode[];
  samples: number[];
  timeDeltas: number[];
}

/** Native frames that are the socket writes (the syscall, and TLS encryption on the upstream socket). */
const WRITES = new Set(['writev', 'writeLatin1String', 'writeUtf8String', 'writeBuffer']);

/** The bucket of a file outside Node's own modules. */
function bucketOfFile(url: string): string {
  if (url.includes('/undici/') || url.startsWith('wasm:')) return 'undici (client, llhttp)';
  if (url.includes('contracts/envelope')) return 'envelope verify (HMAC, SHA-256, nonce cache)';
  if (url.includes('/prom-client/')) return 'prom-client';
  if (url.includes('hop-by-hop') || url.endsWith('/headers.ts')) return 'headers.ts, hop-by-hop';
  const file = /([^/]+\.[cm]?[jt]s)$/.exec(url);
  return file?.[1] ?? url;
}

function main(): void {
  const [file, served] = process.argv.slice(2);
  const requests = Number(served);
  if (file === undefined || !Number.isInteger(requests) || requests <= 0) {
    process.stderr.write('usage: _inference-proxy-profile.ts <file.cpuprofile> <requests served>\n');
    process.exit(2);
  }
  const profile = JSON.parse(readFileSync(file, 'utf8')) as Profile;
  const byId = new Map(profile.nodes.map((node) => [node.id, node]));
  const parentOf = new Map<number, number>();
  for (const node of profile.nodes) for (const child of node.children ?? []) parentOf.set(child, node.id);
  const frames = function* (id: number): Generator<ProfileNode> {
    for (let at: number | undefined = id; at !== undefined; at = parentOf.get(at)) {
      const node = byId.get(at);
      if (node !== undefined) yield node;
    }
  };
  const bucketOf = (id: number): string | undefined => {
    const self = byId.get(id)?.callFrame.functionName ?? '';
    if (self === '(idle)') return undefined;
    if (WRITES.has(self)) return 'socket writes (syscall, TLS encryption)';
    if (self === '(garbage collector)') return 'garbage collection';
    if (self === '(program)') return 'V8 (program)';
    for (const node of frames(id)) {
      const url = node.callFrame.url;
      if (url !== '' && !url.startsWith('node:')) return bucketOfFile(url);
    }
    return 'Node internals (HTTP parser, streams, timers)';
  };
  const micros = new Map<string, number>();
  let total = 0;
  let serving = false;
  profile.samples.forEach((id, i) => {
    serving ||= [...frames(id)].some((node) => node.callFrame.functionName === 'parserOnIncoming');
    const bucket = serving ? bucketOf(id) : undefined;
    if (bucket === undefined) return;
    const delta = profile.timeDeltas[i] ?? 0;
    micros.set(bucket, (micros.get(bucket) ?? 0) + delta);
    total += delta;
  });
  const perRequest = (us: number): string => (us / 1000 / requests).toFixed(3);
  process.stdout.write(`${perRequest(total)} ms of sampled time per request over ${requests} requests\n`);
  process.stdout.write('| Share | ms/request | Where |\n| ----- | ---------- | ----- |\n');
  for (const [bucket, us] of [...micros].sort((a, b) => b[1] - a[1])) {
    process.stdout.write(`| ${((100 * us) / total).toFixed(1)}% | ${perRequest(us)} | ${bucket} |\n`);
  }
}

main();
