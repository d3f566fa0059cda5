import type { PolicyViolation } from '../../../cluster/manifest-processor/src/policy/index.js';
import { policyFrom, type Json } from './support.js';

const policy = policyFrom();
const nonRoot = policyFrom({ REQUIRE_RUN_AS_NON_ROOT: 'true' });

function job(spec: Json): Json {
  return {
    apiVersion: 'batch/v1',
    kind: 'Job',
    metadata: { name: 'j', namespace: 'svc-jobs' },
    spec: {
      template: { spec: { restartPolicy: 'Never', containers: [{ name: 'c', image: 'nginx' }], ...spec } },
    },
  };
}

const withContainer = (securityContext: unknown, list = 'containers'): Json =>
  job({ [list]: [{ name: 'c', image: 'nginx', securityContext }] });

const found = (vs: PolicyViolation[]) => vs.map((v) => [v.rule, v.field]);
const P = 'spec.template.spec';

describe('host namespaces and hostPath', () => {
  test.each(['hostNetwork', 'hostPID', 'hostIPC'])('%s: true is rejected, false is fine', (field) => {
    expect(found(policy.check([job({ [field]: true })]))).toEqual([['host_namespaces', `${P}.${field}`]]);
    expect(policy.check([job({ [field]: false })])).toEqual([]);
  });

  test('any hostPath volume is rejected; other volumes are fine', () => {
    const volumes = [
      { name: 'scratch', emptyDir: {} },
      { name: 'root', hostPath: { path: '/' } },
      { name: 'cfg', configMap: { name: 'x' } },
      { name: 'sock', hostPath: { path: '/var/run/docker.sock', type: 'Socket' } },
    ];
    expect(found(policy.check([job({ volumes })]))).toEqual([
      ['host_path', `${P}.volumes[1].hostPath`],
      ['host_path', `${P}.volumes[3].hostPath`],
    ]);
    expect(policy.check([job({ volumes: [{ name: 'scratch', emptyDir: {} }] })])).toEqual([]);
  });

  test('volumes of the wrong type are a shape violation', () => {
    expect(found(policy.check([job({ volumes: { hostPath: {} } })]))).toEqual([
      ['manifest_shape', `${P}.volumes`],
    ]);
  });
});

describe('container security contexts (every container list)', () => {
  const lists = ['containers', 'initContainers', 'ephemeralContainers'];

  test.each(lists)('privileged: true in %s is rejected', (list) => {
    expect(found(policy.check([withContainer({ privileged: true }, list)]))).toEqual([
      ['privileged', `${P}.${list}[0].securityContext.privileged`],
    ]);
    expect(policy.check([withContainer({ privileged: false }, list)])).toEqual([]);
  });

  test.each(lists)('allowPrivilegeEscalation: true in %s is rejected', (list) => {
    expect(found(policy.check([withContainer({ allowPrivilegeEscalation: true }, list)]))).toEqual([
      ['privilege_escalation', `${P}.${list}[0].securityContext.allowPrivilegeEscalation`],
    ]);
    expect(policy.check([withContainer({ allowPrivilegeEscalation: false }, list)])).toEqual([]);
  });

  test('Windows host-process containers count as privileged (container and pod level)', () => {
    expect(found(policy.check([withContainer({ windowsOptions: { hostProcess: true } })]))).toEqual([
      ['privileged', `${P}.containers[0].securityContext.windowsOptions.hostProcess`],
    ]);
    expect(
      found(policy.check([job({ securityContext: { windowsOptions: { hostProcess: true } } })])),
    ).toEqual([['privileged', `${P}.securityContext.windowsOptions.hostProcess`]]);
  });

  test('a securityContext of the wrong type is a shape violation', () => {
    expect(found(policy.check([withContainer('privileged')]))).toEqual([
      ['manifest_shape', `${P}.containers[0].securityContext`],
    ]);
  });
});

describe('capabilities', () => {
  const adding = (add: unknown) => withContainer({ capabilities: { add, drop: ['ALL'] } });

  test.each(['SYS_ADMIN', 'NET_ADMIN', 'ALL', 'CAP_SYS_ADMIN', 'net_raw', 'NET_BIND_SERVICE'])(
    'by default %s is rejected',
    (cap) => {
      expect(found(policy.check([adding([cap])]))).toEqual([
        ['capabilities', `${P}.containers[0].securityContext.capabilities.add[0]`],
      ]);
    },
  );

  test('dropping capabilities is always fine', () => {
    expect(policy.check([withContainer({ capabilities: { drop: ['ALL'] } })])).toEqual([]);
    expect(policy.check([adding([])])).toEqual([]);
  });

  const allowed = policyFrom({ ALLOWED_CAPABILITIES: 'NET_BIND_SERVICE' });

  test.each([
    'NET_BIND_SERVICE',
    'CAP_NET_BIND_SERVICE',
    'net_bind_service',
    'cap_net_bind_service',
    ' Net_Bind_Service ',
  ])('an allowed capability matches as %j', (cap) => {
    expect(allowed.check([adding([cap])])).toEqual([]);
  });

  test('only the entries outside the list are reported', () => {
    const violations = allowed.check([adding(['NET_BIND_SERVICE', 'SYS_ADMIN', 42])]);
    expect(found(violations)).toEqual([
      ['capabilities', `${P}.containers[0].securityContext.capabilities.add[1]`],
      ['capabilities', `${P}.containers[0].securityContext.capabilities.add[2]`],
    ]);
    expect(violations[0]?.message).toContain(
      'capability "SYS_ADMIN" is not allowed (allowed: NET_BIND_SERVICE)',
    );
  });

  test('capabilities of the wrong type are a shape violation', () => {
    expect(found(policy.check([adding('SYS_ADMIN')]))).toEqual([
      ['manifest_shape', `${P}.containers[0].securityContext.capabilities.add`],
    ]);
    expect(found(policy.check([withContainer({ capabilities: 'all' })]))).toEqual([
      ['manifest_shape', `${P}.containers[0].securityContext.capabilities`],
    ]);
  });
});

describe('run as non-root', () => {
  test('not required by default: root is allowed', () => {
    expect(policy.check([job({ securityContext: { runAsUser: 0 } })])).toEqual([]);
    expect(policy.check([withContainer({ runAsNonRoot: false, runAsUser: 0 })])).toEqual([]);
  });

  test('when required, runAsNonRoot must be set on the pod or the container', () => {
    expect(found(nonRoot.check([job({})]))).toEqual([
      ['run_as_non_root', `${P}.containers[0].securityContext.runAsNonRoot`],
    ]);
    expect(nonRoot.check([job({ securityContext: { runAsNonRoot: true } })])).toEqual([]);
    expect(nonRoot.check([withContainer({ runAsNonRoot: true })])).toEqual([]);
  });

  test('a container runAsNonRoot: false overrides the pod', () => {
    const manifest = job({
      securityContext: { runAsNonRoot: true },
      containers: [{ name: 'c', image: 'nginx', securityContext: { runAsNonRoot: false } }],
    });
    const violations = nonRoot.check([manifest]);
    expect(found(violations)).toEqual([
      ['run_as_non_root', `${P}.containers[0].securityContext.runAsNonRoot`],
    ]);
    expect(violations[0]?.message).toContain('runAsNonRoot: false is not allowed');
  });

  test('runAsUser: 0 is rejected even with runAsNonRoot: true', () => {
    expect(found(nonRoot.check([job({ securityContext: { runAsNonRoot: true, runAsUser: 0 } })]))).toEqual([
      ['run_as_non_root', `${P}.securityContext.runAsUser`],
    ]);
    expect(found(nonRoot.check([withContainer({ runAsNonRoot: true, runAsUser: 0 })]))).toEqual([
      ['run_as_non_root', `${P}.containers[0].securityContext.runAsUser`],
    ]);
    expect(nonRoot.check([withContainer({ runAsNonRoot: true, runAsUser: 1000 })])).toEqual([]);
  });

  test('init and ephemeral containers are covered', () => {
    const manifest = job({
      securityContext: { runAsNonRoot: true },
      initContainers: [{ name: 'i', image: 'nginx', securityContext: { runAsNonRoot: false } }],
      ephemeralContainers: [{ name: 'e', image: 'nginx', securityContext: { runAsUser: 0 } }],
    });
    expect(found(nonRoot.check([manifest]))).toEqual([
      ['run_as_non_root', `${P}.initContainers[0].securityContext.runAsNonRoot`],
      ['run_as_non_root', `${P}.ephemeralContainers[0].securityContext.runAsUser`],
    ]);
  });
});

describe('reserved service accounts', () => {
  test.each(['manifest-processor', 'health-monitor', 'inference-proxy', 'cost-monitor'])(
    'serviceAccountName %s is reserved',
    (name) => {
      expect(found(policy.check([job({ serviceAccountName: name })]))).toEqual([
        ['reserved_service_account', `${P}.serviceAccountName`],
      ]);
    },
  );

  test('the deprecated serviceAccount field is checked too', () => {
    expect(found(policy.check([job({ serviceAccount: 'health-monitor' })]))).toEqual([
      ['reserved_service_account', `${P}.serviceAccount`],
    ]);
  });

  test.each(['default', 'training-runner', 'manifest-processor-2'])('%s is not reserved', (name) => {
    expect(policy.check([job({ serviceAccountName: name })])).toEqual([]);
  });

  test('RESERVED_SERVICE_ACCOUNTS replaces the list', () => {
    const custom = policyFrom({ RESERVED_SERVICE_ACCOUNTS: 'ops-admin' });
    expect(custom.check([job({ serviceAccountName: 'manifest-processor' })])).toEqual([]);
    expect(found(custom.check([job({ serviceAccountName: 'ops-admin' })]))).toEqual([
      ['reserved_service_account', `${P}.serviceAccountName`],
    ]);
  });
});

describe('security checks apply to every pod-bearing kind', () => {
  const spec = { hostPID: true, containers: [{ name: 'c', image: 'nginx' }] };
  test.each([
    [{ apiVersion: 'v1', kind: 'Pod', spec }, 'spec.hostPID'],
    [
      { apiVersion: 'apps/v1', kind: 'Deployment', spec: { template: { spec } } },
      'spec.template.spec.hostPID',
    ],
    [
      { apiVersion: 'apps/v1', kind: 'StatefulSet', spec: { template: { spec } } },
      'spec.template.spec.hostPID',
    ],
    [
      { apiVersion: 'batch/v1', kind: 'CronJob', spec: { jobTemplate: { spec: { template: { spec } } } } },
      'spec.jobTemplate.spec.template.spec.hostPID',
    ],
  ])('%#: %s', (manifest, field) => {
    const violations = policy.check([{ ...manifest, metadata: { name: 'x', namespace: 'svc-jobs' } }]);
    expect(found(violations)).toEqual([['host_namespaces', field]]);
  });
});
