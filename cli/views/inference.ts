/**
 * Views of the inference endpoint lifecycle API's answers (`/api/v1/inference/endpoints`, issue 24):
 * a list of endpoints, one endpoint with its observed state per region.
 */
import type { EndpointRegionStatus, EndpointSpec } from '../../contracts/inference-endpoints.js';
import { renderFields, renderTable, type Column } from '../table.js';
import { listView, recordOf, text, viewOf, type Fields } from './common.js';

/**
 * What GET /api/v1/inference/endpoints/{name} answers (the record without its routing fields). Kept here,
 * minimal, until the API's own contract (contracts/api/inference-endpoints.ts) exists to import instead.
 */
export interface EndpointView {
  name: string;
  spec: EndpointSpec;
  generation: number;
  deleting?: boolean;
  created_at: string;
  updated_at: string;
  regions: Record<string, EndpointRegionStatus>;
}

const endpointName = (e: Fields<EndpointView>) => text(e.name);

/** What `-o name` calls an inference endpoint. */
const ENDPOINT_KIND = 'endpoint';

/** `image (weight%)` of a canary, or nothing. */
const canaryOf = (spec: Fields<EndpointSpec>): string | undefined => {
  const canary = recordOf<NonNullable<EndpointSpec['canary']>>(spec.canary);
  return canary.image === undefined ? undefined : `${text(canary.image)} (${text(canary.weight)}%)`;
};

/** `region=state` for every region the spec lists (a region not reporting yet shows `-`). */
const regionStates = (e: Fields<EndpointView>): string => {
  const spec = recordOf<EndpointSpec>(e.spec);
  const regions = recordOf<Record<string, EndpointRegionStatus>>(e.regions);
  const names = Array.isArray(spec.regions) ? spec.regions.map(text) : Object.keys(regions);
  return names.map((r) => `${r}=${text(recordOf<EndpointRegionStatus>(regions[r]).state) || '-'}`).join(' ');
};

/** GET /api/v1/inference/endpoints: `{endpoints: [EndpointView…]}`. */
export const endpointListView = listView<EndpointView>(
  'endpoints',
  [
    ['name', (e) => e.name],
    ['image', (e) => recordOf<EndpointSpec>(e.spec).image],
    ['replicas', (e) => recordOf<EndpointSpec>(e.spec).replicas],
    ['canary', (e) => canaryOf(recordOf<EndpointSpec>(e.spec))],
    ['regions', regionStates],
    ['generation', (e) => e.generation],
  ],
  endpointName,
  ENDPOINT_KIND,
);

type RegionRow = Fields<EndpointRegionStatus> & { region: string };

const REGION_COLUMNS: readonly Column<RegionRow>[] = [
  ['region', (r) => r.region],
  ['state', (r) => r.state],
  ['observed generation', (r) => r.observed_generation],
  ['ready', (r) => r.ready_replicas],
  ['canary ready', (r) => r.canary_ready_replicas],
  ['reason', (r) => r.reason],
  ['updated', (r) => r.updated_at],
];

/** One endpoint: its desired spec as fields, then a table of its state in each listed region. */
export const endpointView = viewOf<EndpointView>({
  render: (e) => {
    const spec = recordOf<EndpointSpec>(e.spec);
    const resources = recordOf<EndpointSpec['resources']>(spec.resources);
    const fields = renderFields([
      ['name', e.name],
      ['image', spec.image],
      ['replicas', spec.replicas],
      ['canary', canaryOf(spec)],
      ['previous_image', spec.previous_image],
      ['stopped', spec.stopped],
      ['deleting', e.deleting],
      ['port', spec.container_port],
      ['health_path', spec.health_path],
      ['serving_paths', spec.serving_paths],
      ['resources', Object.keys(resources).length > 0 ? resources : undefined],
      ['generation', e.generation],
      ['created_at', e.created_at],
      ['updated_at', e.updated_at],
    ]);
    const regions = recordOf<Record<string, EndpointRegionStatus>>(e.regions);
    const listed = Array.isArray(spec.regions) ? spec.regions.map(text) : [];
    const names = [...new Set([...listed, ...Object.keys(regions)])];
    const rows = names.map((region) => ({ ...recordOf<EndpointRegionStatus>(regions[region]), region }));
    return rows.length === 0 ? fields : `${fields}\n${renderTable(rows, REGION_COLUMNS)}`;
  },
  ids: (e) => [endpointName(e)],
  kind: ENDPOINT_KIND,
});
