// The whole CDK app under every configuration the issue names: which stacks exist and where, cdk-nag
// (AwsSolutions + Serverless) on every stack, and no hard-coded partition. One snapshot per stack kind
// in its default configuration; every other configuration is asserted on exactly what it changes
// (template-facts.ts), or on the stack being the default one, so a reviewer reads a diff of a few lines.
import { execFileSync, spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { describe, expect, test } from '@jest/globals';
import { Annotations, Match, Template } from 'aws-cdk-lib/assertions';
import { VALIDATE_AGAINST_DEFAULT_RULES } from 'aws-cdk-lib/cx-api';
import type { Stack } from 'aws-cdk-lib';
import { buildApp } from '../../lib/app-builder.js';
import type { PlatformApp } from '../../lib/app-builder.js';
import { ConfigError } from '../../lib/config.js';
import { TEST_ACCOUNT, testAccountContext } from '../support/availability-zone-context.js';
import { regionalStackOf } from '../support/platform-app.js';
import {
  addNagPacks,
  cdkJsonContext,
  HARD_CODED_ARN,
  nagErrors,
  snapshotOf,
} from '../support/stack-templates.js';
import { globalFacts, regionalFacts } from './template-facts.js';
import type { GlobalFacts, RegionalFacts } from './template-facts.js';
import { assemblyOutdir } from '../support/suite-temp-dir.js';

// Version reporting embeds a library-version hash in every template; keep it out of the snapshots.
function build(context: Record<string, unknown>, account: string | undefined): PlatformApp {
  // Bundling is proven by test/infra/global-stack.test.ts and `npm run synth`; asset hashes are masked
  // in the snapshots anyway, so skipping it here only saves time.
  const built = buildApp(
    context,
    {
      analyticsReporting: false,
      outdir: assemblyOutdir(),
      // As bin/app.ts: CDK's template validation findings (a resource type missing in a region) fail synth.
      context: { 'aws:cdk:bundling-stacks': [], [VALIDATE_AGAINST_DEFAULT_RULES]: true },
    },
    account === undefined ? {} : { account },
  );
  // Aspects must be in place before the first synth.
  addNagPacks(built.app);
  return built;
}

const stacksOf = (built: PlatformApp): Stack[] => [
  built.globalStack,
  ...built.regionalStacks.values(),
  ...(built.analyticsStack ? [built.analyticsStack] : []),
];

// The optional account: the shape `cdk deploy` synthesizes (the CLI has credentials, so every stack has
// the account, and the AZ lookups are in cdk.context.json): 3 AZs and 3 NAT gateways per region.
const configs: [string, Record<string, unknown>, Record<string, string>, string?][] = [
  ['default (cdk.json)', cdkJsonContext(), { 'gco-global': 'us-east-2', 'gco-us-east-1': 'us-east-1' }],
  [
    'three regions',
    { project_name: 'acme', regions: ['us-east-1', 'eu-west-1', 'ap-southeast-2'] },
    {
      'acme-global': 'us-east-2',
      'acme-us-east-1': 'us-east-1',
      'acme-eu-west-1': 'eu-west-1',
      'acme-ap-southeast-2': 'ap-southeast-2',
    },
  ],
  [
    'aws-us-gov partition',
    { global_region: 'us-gov-west-1', regions: ['us-gov-west-1', 'us-gov-east-1'] },
    {
      'gco-global': 'us-gov-west-1',
      'gco-us-gov-west-1': 'us-gov-west-1',
      'gco-us-gov-east-1': 'us-gov-east-1',
    },
  ],
  [
    'analytics environment on',
    { analytics_environment: { enabled: true } },
    { 'gco-global': 'us-east-2', 'gco-us-east-1': 'us-east-1' },
  ],
  [
    'regional API enabled',
    { api_gateway: { regional_api_enabled: true } },
    { 'gco-global': 'us-east-2', 'gco-us-east-1': 'us-east-1' },
  ],
  [
    'analytics API enabled',
    { analytics_api: { enabled: true } },
    { 'gco-global': 'us-east-2', 'gco-us-east-1': 'us-east-1', 'gco-analytics': 'us-east-2' },
  ],
  [
    'default with account + AZ context',
    { ...cdkJsonContext(), ...testAccountContext() },
    { 'gco-global': 'us-east-2', 'gco-us-east-1': 'us-east-1' },
    TEST_ACCOUNT,
  ],
  [
    'three regions with account + AZ context',
    { project_name: 'acme', regions: ['us-east-1', 'eu-west-1', 'ap-southeast-2'], ...testAccountContext() },
    {
      'acme-global': 'us-east-2',
      'acme-us-east-1': 'us-east-1',
      'acme-eu-west-1': 'eu-west-1',
      'acme-ap-southeast-2': 'ap-southeast-2',
    },
    TEST_ACCOUNT,
  ],
];

// Each configuration is built (and synthesized) once; the checks below and the differences share it.
const apps = new Map(configs.map(([name, context, , account]) => [name, build(context, account)]));
const app = (name: string): PlatformApp => {
  const built = apps.get(name);
  if (!built) throw new Error(`no configuration ${name}`);
  return built;
};

describe.each(configs)('%s', (name, _context, expectedStacks) => {
  const built = app(name);

  test('creates the expected stacks, each in its region', () => {
    const actual = Object.fromEntries(stacksOf(built).map((s) => [s.stackName, s.region]));
    expect(actual).toEqual(expectedStacks);
  });

  test('regional stacks deploy after the global stack', () => {
    for (const stack of built.regionalStacks.values()) {
      expect(stack.dependencies).toContain(built.globalStack);
    }
  });

  test('every stack is tagged with the project and described', () => {
    const assembly = built.app.synth();
    for (const stack of stacksOf(built)) {
      // Stack tags reach CloudFormation through the cloud assembly, which propagates them to resources.
      expect(assembly.getStackByName(stack.stackName).tags).toEqual({ Project: built.config.projectName });
      expect(stack.templateOptions.description).toMatch(new RegExp(`^${built.config.projectName} `));
    }
  });

  test('CDK template validation passes as errors, and no stack carries a warning annotation', () => {
    expect(() => built.app.synth()).not.toThrow();
    // cdk-nag reports its warning-level rules as warnings too; those are its own report, not CDK's.
    const warnings = stacksOf(built).flatMap((stack) =>
      Annotations.fromStack(stack)
        .findWarning('*', Match.anyValue())
        .map(
          (m) =>
            `${stack.stackName}: ${typeof m.entry.data === 'string' ? m.entry.data : JSON.stringify(m.entry.data)}`,
        )
        .filter((w) => !/: (AwsSolutions-|Serverless-|CdkNagValidationFailure)/.test(w)),
    );
    expect(warnings).toEqual([]);
  });

  test('every context lookup is answered (nothing left for the CLI to look up)', () => {
    expect(built.app.synth().manifest.missing ?? []).toEqual([]);
  });

  test('cdk-nag AwsSolutions and Serverless: no unsuppressed error in any stack', () => {
    for (const stack of stacksOf(built)) {
      expect({ stack: stack.stackName, errors: nagErrors(stack) }).toEqual({
        stack: stack.stackName,
        errors: [],
      });
    }
  });

  test('no template hard-codes a partition', () => {
    for (const stack of stacksOf(built)) {
      const json = JSON.stringify(Template.fromStack(stack).toJSON());
      expect(json).not.toContain(HARD_CODED_ARN);
    }
  });
});

// ---- one snapshot per stack kind, in its default configuration ------------------------------------

const DEFAULT = 'default (cdk.json)';

describe('one snapshot per stack kind, in its default configuration', () => {
  test('global (cdk.json)', () => {
    expect(snapshotOf(app(DEFAULT).globalStack)).toMatchSnapshot();
  });

  test('regional (cdk.json)', () => {
    expect(snapshotOf(regionalStackOf(app(DEFAULT), 'us-east-1'))).toMatchSnapshot();
  });

  test('analytics (analytics_api.enabled, the rest default)', () => {
    expect(snapshotOf(analyticsStackOf(app('analytics API enabled')))).toMatchSnapshot();
  });
});

// ---- what every other configuration changes ------------------------------------------------------

function analyticsStackOf(built: PlatformApp): Stack {
  if (!built.analyticsStack) throw new Error('analytics_api.enabled should create the analytics stack');
  return built.analyticsStack;
}

const globalOf = (name: string): GlobalFacts => globalFacts(Template.fromStack(app(name).globalStack));
const regionalOf = (name: string, region: string): RegionalFacts =>
  regionalFacts(Template.fromStack(regionalStackOf(app(name), region)));

interface TemplateJson {
  readonly Resources: Record<string, { readonly Type: string }>;
}

/**
 * The template as the snapshots hold it (asset hashes masked), API Gateway deployment ids (a hash of
 * the whole API) masked too, and resources of the given types left out: for "nothing else changed".
 */
function templateWithout(stack: Stack, types: string[] = []): TemplateJson {
  const json = JSON.stringify(snapshotOf(stack)).replace(/(Deployment[0-9A-F]{8})[0-9a-f]{32}/g, '$1<hash>');
  const template = JSON.parse(json) as TemplateJson;
  const kept = Object.entries(template.Resources).filter(([, r]) => !types.includes(r.Type));
  return { ...template, Resources: Object.fromEntries(kept) };
}

const defaultRegional = (): Stack => regionalStackOf(app(DEFAULT), 'us-east-1');

/** What the default configuration (cdk.json) makes of the global stack: the base of every difference. */
const DEFAULT_GLOBAL: GlobalFacts = {
  description: 'gco global resources: global API, edge routing and central tables',
  assetsBucket: 'cdk-hnb659fds-assets-${AWS::AccountId}-us-east-2',
  api: {
    endpointType: 'EDGE',
    policy: ['AccountPrincipalsInvokeAllRoutes'],
    paths: [
      '/api/v1/global/health',
      '/api/v1/global/jobs',
      '/api/v1/global/status',
      '/api/v1/{proxy+}',
      '/inference/{proxy+}',
    ],
  },
  functions: [
    'aggregator',
    'control-plane-proxy',
    'inference-stream-proxy',
    'internal-ca',
    'signing-key-rotation',
    // Samples the webhook outbox backlog (one central table) for the global stack's outbox alarms.
    'webhook-outbox-metrics',
  ],
  tables: [
    'gco-inference-endpoints',
    'gco-job-queue',
    'gco-job-templates',
    'gco-webhook-deliveries',
    'gco-webhooks',
  ],
  tableRegions: ['us-east-2'],
  secretReplicas: { 'gco/signing-key': ['us-east-1'], 'gco/internal-ca': ['us-east-1'] },
  accelerator: 'gco-accelerator',
  listenerArnWriters: ['us-east-1:/gco/accelerator-listener-arn'],
  aggregatorRegions: ['us-east-1'],
  aggregatorInvokes: ['us-east-1'],
  studioDomain: false,
  // API, functions (the rotation and internal CA: Errors only), WAF, tables, and the webhook outbox pair.
  alarms: 27,
  dashboardSections: [
    'Global stack (us-east-2)',
    'gco-us-east-1 (its own dashboard adds the ALB and functions)',
  ],
};

/** The Elastic Load Balancing account of each region, which writes the ALB access logs. */
const ELB_LOG_WRITERS: Record<string, string> = {
  'us-east-1': '127311923021',
  'eu-west-1': '156460612806',
  'ap-southeast-2': '783225319266',
  'us-gov-west-1': '048591011584',
  'us-gov-east-1': '190560391635',
};

/** A regional stack's values that follow from the project name, the region and the global region. */
const regional = (project: string, region: string, globalRegion = 'us-east-2') => ({
  description: `${project} resources in ${region}: cluster, load balancer and regional API`,
  assetsBucket: `cdk-hnb659fds-assets-\${AWS::AccountId}-${region}`,
  interfaceEndpointRegions: [region],
  cluster: `${project}-${region}`,
  apiUrlParameter: `${globalRegion}:/${project}/regional-api/${region}`,
  albLogWriter: ELB_LOG_WRITERS[region]!,
  costReportRegions: [region],
  alarmTopic: `${project}-${region}-alarms`,
  dashboard: `${project}-${region}`,
});

/** What the default configuration (cdk.json) makes of the regional stack. */
const DEFAULT_REGIONAL: RegionalFacts = {
  ...regional('gco', 'us-east-1'),
  // No account: CloudFormation picks two AZs, one NAT gateway each.
  availabilityZones: ['GetAZs[0]', 'GetAZs[1]'],
  natGateways: 2,
  deploymentRegions: ['us-east-1'],
  api: { name: 'gco-regional-api-us-east-1', policy: ['AggregatorRoutes'] },
  acceleratorEndpointGroup: 'us-east-1',
  albOpenToInternet: true,
};

describe('default (cdk.json): the base the other configurations differ from', () => {
  test('global stack', () => {
    expect(globalOf(DEFAULT)).toEqual(DEFAULT_GLOBAL);
  });

  test('regional stack', () => {
    expect(regionalOf(DEFAULT, 'us-east-1')).toEqual(DEFAULT_REGIONAL);
  });
});

const THREE_REGIONS = ['us-east-1', 'eu-west-1', 'ap-southeast-2'];

/** Project acme in three regions: the global stack names, replicates and reaches all of them. */
const THREE_REGIONS_GLOBAL: GlobalFacts = {
  ...DEFAULT_GLOBAL,
  description: 'acme global resources: global API, edge routing and central tables',
  tables: DEFAULT_GLOBAL.tables.map((t) => t.replace(/^gco-/, 'acme-')),
  secretReplicas: { 'acme/signing-key': THREE_REGIONS, 'acme/internal-ca': THREE_REGIONS },
  accelerator: 'acme-accelerator',
  listenerArnWriters: THREE_REGIONS.map((r) => `${r}:/acme/accelerator-listener-arn`),
  aggregatorRegions: THREE_REGIONS,
  aggregatorInvokes: THREE_REGIONS,
  dashboardSections: [
    'Global stack (us-east-2)',
    ...THREE_REGIONS.map((r) => `acme-${r} (its own dashboard adds the ALB and functions)`),
  ],
};

const threeRegionsRegional = (region: string): RegionalFacts => ({
  ...DEFAULT_REGIONAL,
  ...regional('acme', region),
  deploymentRegions: THREE_REGIONS,
  api: { name: `acme-regional-api-${region}`, policy: ['AggregatorRoutes'] },
  acceleratorEndpointGroup: region,
});

describe('three regions (project acme): what it changes', () => {
  test('global stack: project names; secrets, listener ARN, aggregator and dashboard per region', () => {
    expect(globalOf('three regions')).toEqual(THREE_REGIONS_GLOBAL);
  });

  test.each(THREE_REGIONS)('regional stack %s: its region and the project name throughout', (region) => {
    expect(regionalOf('three regions', region)).toEqual(threeRegionsRegional(region));
  });
});

describe('aws-us-gov partition: what it changes', () => {
  const GOV = ['us-gov-west-1', 'us-gov-east-1'];

  test('global stack: REGIONAL API without accelerator, its proxies, catch-all routes or their alarms', () => {
    expect(globalOf('aws-us-gov partition')).toEqual({
      ...DEFAULT_GLOBAL,
      assetsBucket: 'cdk-hnb659fds-assets-${AWS::AccountId}-us-gov-west-1',
      api: { ...DEFAULT_GLOBAL.api, endpointType: 'REGIONAL', paths: DEFAULT_GLOBAL.api.paths.slice(0, 3) },
      functions: ['aggregator', 'internal-ca', 'signing-key-rotation', 'webhook-outbox-metrics'],
      tableRegions: ['us-gov-west-1'],
      secretReplicas: { 'gco/signing-key': ['us-gov-east-1'], 'gco/internal-ca': ['us-gov-east-1'] },
      accelerator: null,
      listenerArnWriters: [],
      aggregatorRegions: GOV,
      aggregatorInvokes: GOV,
      alarms: DEFAULT_GLOBAL.alarms - 5,
      dashboardSections: [
        'Global stack (us-gov-west-1)',
        ...GOV.map((r) => `gco-${r} (its own dashboard adds the ALB and functions)`),
      ],
    });
  });

  test.each(GOV)(
    'regional stack %s: no endpoint group, ALB closed to the internet, API open to the account',
    (region) => {
      expect(regionalOf('aws-us-gov partition', region)).toEqual({
        ...DEFAULT_REGIONAL,
        ...regional('gco', region, 'us-gov-west-1'),
        deploymentRegions: GOV,
        api: { name: `gco-regional-api-${region}`, policy: ['AggregatorRoutes', 'AccountPrincipals'] },
        acceleratorEndpointGroup: null,
        albOpenToInternet: false,
      });
    },
  );
});

describe('analytics environment on: what it changes', () => {
  test('global stack: the studio routes, login function, SageMaker domain and their alarms', () => {
    expect(globalOf('analytics environment on')).toEqual({
      ...DEFAULT_GLOBAL,
      api: {
        ...DEFAULT_GLOBAL.api,
        policy: [...DEFAULT_GLOBAL.api.policy, 'AnyoneInvokesStudioGetRoutes'],
        paths: [...DEFAULT_GLOBAL.api.paths, '/studio/callback', '/studio/login'],
      },
      functions: [...DEFAULT_GLOBAL.functions, 'studio-login'].sort(),
      studioDomain: true,
      alarms: DEFAULT_GLOBAL.alarms + 2,
    });
  });

  test('regional stack: unchanged', () => {
    expect(templateWithout(regionalStackOf(app('analytics environment on'), 'us-east-1'))).toEqual(
      templateWithout(defaultRegional()),
    );
  });
});

describe('regional API enabled: what it changes', () => {
  test('regional stack: its API policy adds the account principals, and nothing else changes', () => {
    const stack = regionalStackOf(app('regional API enabled'), 'us-east-1');
    expect(regionalOf('regional API enabled', 'us-east-1')).toEqual({
      ...DEFAULT_REGIONAL,
      api: { ...DEFAULT_REGIONAL.api, policy: ['AggregatorRoutes', 'AccountPrincipals'] },
    });
    expect(templateWithout(stack, ['AWS::ApiGateway::RestApi'])).toEqual(
      templateWithout(defaultRegional(), ['AWS::ApiGateway::RestApi']),
    );
  });

  test('global stack: unchanged', () => {
    expect(templateWithout(app('regional API enabled').globalStack)).toEqual(
      templateWithout(app(DEFAULT).globalStack),
    );
  });
});

describe('analytics API enabled: what it changes (its own stack: the analytics snapshot)', () => {
  test('global stack: the dashboard adds the analytics section, and nothing else changes', () => {
    const built = app('analytics API enabled');
    expect(globalOf('analytics API enabled')).toEqual({
      ...DEFAULT_GLOBAL,
      dashboardSections: [
        ...DEFAULT_GLOBAL.dashboardSections,
        'gco-analytics (its own dashboard adds the functions)',
      ],
    });
    expect(templateWithout(built.globalStack, ['AWS::CloudWatch::Dashboard'])).toEqual(
      templateWithout(app(DEFAULT).globalStack, ['AWS::CloudWatch::Dashboard']),
    );
  });

  test('regional stack: unchanged', () => {
    expect(templateWithout(regionalStackOf(app('analytics API enabled'), 'us-east-1'))).toEqual(
      templateWithout(defaultRegional()),
    );
  });
});

// With the account (as `cdk deploy` synthesizes): the account is literal, and the AZ lookups in the
// context give three AZs (us-east-1c is use1-az3, which EKS refuses) with a NAT gateway each.
const withAccount = (assetsBucket: string): string => assetsBucket.replace('${AWS::AccountId}', TEST_ACCOUNT);

describe('default with account + AZ context: what it changes', () => {
  test('global stack: the literal account', () => {
    expect(globalOf('default with account + AZ context')).toEqual({
      ...DEFAULT_GLOBAL,
      assetsBucket: withAccount(DEFAULT_GLOBAL.assetsBucket),
    });
  });

  test('regional stack: the literal account, three named AZs without use1-az3, three NAT gateways', () => {
    expect(regionalOf('default with account + AZ context', 'us-east-1')).toEqual({
      ...DEFAULT_REGIONAL,
      assetsBucket: withAccount(DEFAULT_REGIONAL.assetsBucket),
      availabilityZones: ['us-east-1a', 'us-east-1b', 'us-east-1d'],
      natGateways: 3,
    });
  });
});

describe('three regions with account + AZ context: what it changes', () => {
  const AZS: Record<string, string[]> = {
    'us-east-1': ['us-east-1a', 'us-east-1b', 'us-east-1d'],
    'eu-west-1': ['eu-west-1a', 'eu-west-1b', 'eu-west-1c'],
    'ap-southeast-2': ['ap-southeast-2a', 'ap-southeast-2b', 'ap-southeast-2c'],
  };

  test('global stack: the three-region one with the literal account', () => {
    expect(globalOf('three regions with account + AZ context')).toEqual({
      ...THREE_REGIONS_GLOBAL,
      assetsBucket: withAccount(THREE_REGIONS_GLOBAL.assetsBucket),
    });
  });

  test.each(THREE_REGIONS)(
    'regional stack %s: the literal account, three named AZs, three NAT gateways',
    (region) => {
      const expected = threeRegionsRegional(region);
      expect(regionalOf('three regions with account + AZ context', region)).toEqual({
        ...expected,
        assetsBucket: withAccount(expected.assetsBucket),
        availabilityZones: AZS[region],
        natGateways: 3,
      });
    },
  );
});

// ---- the source and the CLI entry point ----------------------------------------------------------

test('lib/ holds no hard-coded partition', () => {
  // grep exits 1 when nothing matches: that is the passing case.
  const grep = spawnSync('grep', ['-rln', HARD_CODED_ARN, 'lib', 'bin'], {
    encoding: 'utf8',
  });
  expect({ status: grep.status, files: grep.stdout.trim() }).toEqual({ status: 1, files: '' });
});

describe('invalid config', () => {
  test('buildApp throws ConfigError', () => {
    expect(() => buildApp({ regions: ['nope-1'] }, { outdir: assemblyOutdir() })).toThrow(ConfigError);
  });

  test('bin/app.ts prints the problems without a stack trace and exits non-zero', () => {
    let status = 0;
    let stderr = '';
    try {
      execFileSync(join(process.cwd(), 'node_modules/.bin/tsx'), ['bin/app.ts'], {
        // The CDK CLI hands the context to the app this way.
        env: { ...process.env, CDK_CONTEXT_JSON: JSON.stringify({ regions: ['nope-1'], stage: 'a b' }) },
        stdio: 'pipe',
        encoding: 'utf8',
      });
    } catch (error) {
      const failed = error as { status: number; stderr: string };
      status = failed.status;
      stderr = failed.stderr;
    }
    expect(status).toBe(1);
    expect(stderr.trim().split('\n')).toEqual([
      'Invalid cdk.json context "regions[0]": expected a known AWS region code such as "us-east-1", got "nope-1"',
      'Invalid cdk.json context "stage": expected an API Gateway stage name: 1-128 letters, digits, hyphens or underscores, got "a b"',
    ]);
  });
});
