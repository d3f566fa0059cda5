// Client configuration for the simulator: a kubeconfig file (for kubectl / KUBECONFIG) and a
// ready client-node KubeConfig. Plain HTTP, no credentials (the simulator does not authenticate).

import { KubeConfig } from '@kubernetes/client-node';

export const CONTEXT_NAME = 'simulator';

export function kubeConfigYaml(url: string, namespace = 'default'): string {
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
    '    insecure-skip-tls-verify: true',
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

export function kubeConfigFor(url: string, namespace = 'default'): KubeConfig {
  const kc = new KubeConfig();
  kc.loadFromOptions({
    // client-node only allows an http:// server when skipTLSVerify is set (there is no TLS at all).
    clusters: [{ name: CONTEXT_NAME, server: url, skipTLSVerify: true }],
    users: [{ name: CONTEXT_NAME }],
    contexts: [{ name: CONTEXT_NAME, cluster: CONTEXT_NAME, user: CONTEXT_NAME, namespace }],
    currentContext: CONTEXT_NAME,
  });
  return kc;
}
