/**
 * The human views of the inference endpoint answers: the list (state per region in one column), one
 * endpoint (spec fields, then a table of its regions, a listed region that has not reported shown as `-`),
 * `--quiet` identifiers, and answers with missing or odd fields printing `-` instead of failing.
 */
import { beforeAll, expect, test } from '@jest/globals';
import { loadOutputLibraries } from '../../../cli/output.js';
import { endpointListView, endpointView } from '../../../cli/views/inference.js';

beforeAll(async () => {
  await loadOutputLibraries('table');
});

const LLAMA = {
  name: 'llama',
  generation: 4,
  created_at: '2026-11-27T10:00:00Z',
  updated_at: '2026-11-27T10:05:00Z',
  spec: {
    image: 'repo/vllm:1',
    container_port: 8000,
    serving_paths: ['/v1/completions', '/v1/models'],
    health_path: '/health',
    replicas: 2,
    resources: { gpu: 1 },
    env: {},
    regions: ['us-east-1', 'us-west-2'],
    stopped: false,
    canary: { image: 'repo/vllm:2', weight: 20 },
    previous_image: null,
  },
  regions: {
    'us-east-1': {
      state: 'failed',
      reason: 'ImagePullBackOff',
      observed_generation: 4,
      ready_replicas: 0,
      updated_at: '2026-11-27T10:06:00Z',
    },
  },
};

test('list: one row per endpoint, every listed region with its state', () => {
  const body = { endpoints: [LLAMA, { name: 'odd', spec: 'not an object' }] };
  const lines = (endpointListView.render?.(body) ?? '').trimEnd().split('\n');
  expect(lines[0]).toMatch(/^NAME\s+IMAGE\s+REPLICAS\s+CANARY\s+REGIONS\s+GENERATION$/);
  expect(lines[1]).toMatch(
    /^llama\s+repo\/vllm:1\s+2\s+repo\/vllm:2 \(20%\)\s+us-east-1=failed us-west-2=-\s+4$/,
  );
  expect(lines[2]).toMatch(/^odd\s+-\s+-\s+-\s+-\s+-$/);
  expect(endpointListView.ids?.(body)).toEqual(['llama', 'odd']);
  expect(endpointListView.render?.({ endpoints: [] })).toBe('No resources found.\n');
});

test('one endpoint: spec fields, then its regions with state, generation and reason', () => {
  const text = endpointView.render?.(LLAMA) ?? '';
  const [fields, regions] = text.split('\n\n');
  expect(fields).toMatch(/^canary\s+repo\/vllm:2 \(20%\)$/m);
  expect(fields).toMatch(/^serving_paths\s+\/v1\/completions,\/v1\/models$/m);
  expect(fields).toMatch(/^resources\s+\{"gpu":1\}$/m);
  expect(fields).toMatch(/^generation\s+4$/m);
  const rows = (regions ?? '').trimEnd().split('\n');
  expect(rows[0]).toMatch(/^REGION\s+STATE\s+OBSERVED GENERATION\s+READY\s+CANARY READY\s+REASON\s+UPDATED$/);
  expect(rows[1]).toMatch(/^us-east-1\s+failed\s+4\s+0\s+-\s+ImagePullBackOff\s+2026-11-27T10:06:00Z$/);
  expect(rows[2]).toMatch(/^us-west-2(\s+-){6}$/);
  expect(endpointView.ids?.(LLAMA)).toEqual(['llama']);
});

test('an answer that is not an endpoint prints dashes, not an exception', () => {
  expect(endpointView.render?.('oops')).toMatch(/^name\s+-$/m);
  expect(endpointView.render?.({ name: 'x', spec: { regions: 'us-east-1' }, regions: [] })).not.toContain(
    'REGION',
  );
});
