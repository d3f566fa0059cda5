// Client configuration for the simulator: a kubeconfig file (for kubectl / KUBECONFIG) and a
// ready client-node KubeConfig. No credentials (the simulator does not authenticate). Plain HTTP by
// default; over TLS (`startKubeApiSimulator({ tls })`) the kubeconfig carries the CA and verification
// stays on. The client-node KubeConfig shares the services' pooled keep-alive agents.

import { PooledKubeConfig } from '../../cluster/shared/kube-pool.js';

const CONTEXT_NAME = 'simulator';

export interface KubeConfigTls {
  /** PEM CA certificate the client trusts (an https:// server). */
  ca?: string;
}

export function kubeConfigYaml(url: string, namespace = 'default', tls: KubeConfigTls = {}): string {
  // JSON-style quoting keeps the YAML valid whatever the URL contains.
  const q = (s: string): string => JSON.stringify(s);
  return [
    'apiVersion: v1',
    'kind: Config',
    'clusters:',
    `- name: ${CONTEXT_NAME}`,
    '  cluster:',
    `    server: ${q(url)}`,
    // client-node refuses plain-HTTP servers unless TLS verification is explicitly off.
    tls.ca
      ? `    certificate-authority-data: ${Buffer.from(tls.ca).toString('base64')}`
      : '    insecure-skip-tls-verify: true',
    'contexts:',
    `- name: ${CONTEXT_NAME}`,
    '  context:',
    `    cluster: ${CONTEXT_NAME}`,
    `    user: ${CONTEXT_NAME}`,
    `    namespace: ${q(namespace)}`,
    `current-context: ${CONTEXT_NAME}`,
    'users:',
    `- name: ${CONTEXT_NAME}`,
    '  user: {}',
    'preferences: {}',
    '',
  ].join('\n');
}

export function kubeConfigFor(url: string, namespace = 'default', tls: KubeConfigTls = {}): PooledKubeConfig {
  const kc = new PooledKubeConfig();
  // client-node only allows an http:// server when skipTLSVerify is set (there is no TLS at all).
  const cluster = tls.ca
    ? {
        name: CONTEXT_NAME,
        server: url,
        caData: Buffer.from(tls.ca).toString('base64'),
        skipTLSVerify: false,
      }
    : { name: CONTEXT_NAME, server: url, skipTLSVerify: true };
  kc.loadFromOptions({
    clusters: [cluster],
    users: [{ name: CONTEXT_NAME }],
    contexts: [{ name: CONTEXT_NAME, cluster: CONTEXT_NAME, user: CONTEXT_NAME, namespace }],
    currentContext: CONTEXT_NAME,
  });
  return kc;
}
