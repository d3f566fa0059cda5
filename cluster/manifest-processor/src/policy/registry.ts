/**
 * Container image references (the distribution/reference grammar) and the trusted-registry allowlist.
 *
 *   reference := [domain "/"] path [":" tag] ["@" digest]
 *
 * The first path component is a registry domain only when it contains "." or ":", is "localhost", or has
 * upper-case letters (which a repository path may not); otherwise the image is on Docker Hub, where a
 * single-component name means `library/<name>`. Docker Hub images are judged by organisation only, never
 * by host, so configuring `docker.io` as a trusted host cannot open all of Docker Hub.
 */
import type { Parsed } from './json.js';

const DOCKER_HUB_HOSTS: readonly string[] = [
  'docker.io',
  'index.docker.io',
  'registry-1.docker.io',
  'registry.hub.docker.com',
];
const HUB = new Set(DOCKER_HUB_HOSTS);

const COMPONENT = '(?:[a-zA-Z0-9]|[a-zA-Z0-9][a-zA-Z0-9-]*[a-zA-Z0-9])';
const DOMAIN = new RegExp(`^(${COMPONENT}(?:\\.${COMPONENT})*|\\[[0-9a-fA-F:.]+\\])(?::([0-9]{1,5}))?$`);
const PATH_COMPONENT = /^[a-z0-9]+(?:(?:[._]|__|-+)[a-z0-9]+)*$/;
const TAG = /^\w[\w.-]{0,127}$/;
// Only the digests container runtimes can verify; each has a fixed lower-case hex length.
const DIGEST_HEX_LENGTH: Readonly<Record<string, number>> = { sha256: 64, sha384: 96, sha512: 128 };
const NAME_MAX = 255;

export interface ImageReference {
  /** Lower-cased registry host without the port; `docker.io` for every Docker Hub spelling. */
  host: string;
  port: string | undefined;
  /** Repository path; Docker Hub paths include the implicit `library/`. */
  path: string;
  tag: string | undefined;
  digest: string | undefined;
  dockerHub: boolean;
}

interface HostPort {
  host: string;
  port: string | undefined;
}

function parseDomain(text: string): Parsed<HostPort> {
  const match = DOMAIN.exec(text);
  if (!match) return { ok: false, error: `"${text}" is not a valid registry host[:port]` };
  const port = match[2];
  if (port !== undefined && (Number(port) < 1 || Number(port) > 65535))
    return { ok: false, error: `port ${port} is out of range` };
  return { ok: true, value: { host: (match[1] ?? '').toLowerCase(), port } };
}

function checkPath(path: string): string | undefined {
  for (const component of path.split('/')) {
    if (!PATH_COMPONENT.test(component))
      return `"${component}" is not a valid repository path component (lower-case letters, digits and . _ - separators)`;
  }
  return undefined;
}

function checkDigest(digest: string): string | undefined {
  const colon = digest.indexOf(':');
  const algorithm = digest.slice(0, colon);
  const hex = digest.slice(colon + 1);
  const length = colon > 0 ? DIGEST_HEX_LENGTH[algorithm] : undefined;
  if (length === undefined || hex.length !== length || !/^[0-9a-f]+$/.test(hex))
    return `"${digest}" is not a sha256, sha384 or sha512 digest`;
  return undefined;
}

export function parseImageReference(image: string): Parsed<ImageReference> {
  if (image === '') return { ok: false, error: 'the image is empty' };
  if (/\s/.test(image)) return { ok: false, error: 'the image contains whitespace' };
  let rest = image;
  let digest: string | undefined;
  const at = rest.indexOf('@');
  if (at >= 0) {
    digest = rest.slice(at + 1);
    rest = rest.slice(0, at);
    const problem = checkDigest(digest);
    if (problem) return { ok: false, error: problem };
  }
  let tag: string | undefined;
  const colon = rest.lastIndexOf(':');
  if (colon > rest.lastIndexOf('/')) {
    tag = rest.slice(colon + 1);
    rest = rest.slice(0, colon);
    if (!TAG.test(tag)) return { ok: false, error: `"${tag}" is not a valid tag` };
  }
  if (rest.length === 0) return { ok: false, error: 'the repository name is empty' };
  if (rest.length > NAME_MAX) return { ok: false, error: `the repository name is longer than ${NAME_MAX}` };

  let hostPort: HostPort | undefined;
  let path = rest;
  const slash = rest.indexOf('/');
  const first = rest.slice(0, slash);
  if (
    slash >= 0 &&
    (first.includes('.') || first.includes(':') || first === 'localhost' || first !== first.toLowerCase())
  ) {
    const domain = parseDomain(first);
    if (!domain.ok) return domain;
    hostPort = domain.value;
    path = rest.slice(slash + 1);
  }
  const problem = checkPath(path);
  if (problem) return { ok: false, error: problem };

  const dockerHub = hostPort === undefined || HUB.has(hostPort.host);
  if (dockerHub && !path.includes('/')) path = `library/${path}`;
  return {
    ok: true,
    value: {
      host: dockerHub || hostPort === undefined ? 'docker.io' : hostPort.host,
      port: hostPort?.port,
      path,
      tag,
      digest,
      dockerHub,
    },
  };
}

/** A trusted-registry entry: `host[:port][/path/prefix]`. */
export interface RegistryEntry {
  host: string;
  port: string | undefined;
  pathPrefix: readonly string[];
  /** Normalised text form (lower case, no trailing slash). */
  text: string;
  dockerHub: boolean;
}

export function parseRegistryEntry(entry: string): Parsed<RegistryEntry> {
  const text = entry.trim().toLowerCase().replace(/\/+$/, '');
  if (text.includes('://')) return { ok: false, error: `"${entry}": give host[/path], not a URL` };
  if (text === '') return { ok: false, error: `"${entry}": empty entry` };
  const slash = text.indexOf('/');
  const domain = parseDomain(slash < 0 ? text : text.slice(0, slash));
  if (!domain.ok) return { ok: false, error: `"${entry}": ${domain.error}` };
  const path = slash < 0 ? '' : text.slice(slash + 1);
  if (path !== '') {
    const problem = checkPath(path);
    if (problem) return { ok: false, error: `"${entry}": ${problem}` };
  }
  return {
    ok: true,
    value: {
      ...domain.value,
      pathPrefix: path === '' ? [] : path.split('/'),
      text,
      dockerHub: HUB.has(domain.value.host),
    },
  };
}

const ORG = /^[a-z0-9]+(?:[._-][a-z0-9]+)*$/;

export function parseDockerHubOrg(org: string): Parsed<string> {
  const text = org.trim().toLowerCase();
  return ORG.test(text)
    ? { ok: true, value: text }
    : { ok: false, error: `"${org}" is not a Docker Hub organisation name` };
}

export type ImageVerdict = { trusted: true; reference: ImageReference } | { trusted: false; reason: string };

export interface RegistryAllowlistInput {
  trustedRegistries: readonly string[];
  projectRegistries: readonly string[];
  trustedDockerHubOrgs: readonly string[];
}

function parseAll(entries: readonly string[], what: string): RegistryEntry[] {
  return entries.map((raw) => {
    const parsed = parseRegistryEntry(raw);
    if (!parsed.ok) throw new Error(`${what}: ${parsed.error}`);
    return parsed.value;
  });
}

function unique(values: readonly string[]): string[] {
  return [...new Set(values)];
}

export class RegistryAllowlist {
  private readonly configured: readonly RegistryEntry[];
  private readonly project: readonly RegistryEntry[];
  private readonly effective: readonly RegistryEntry[];
  private readonly ignored: readonly RegistryEntry[];
  private readonly orgs: ReadonlySet<string>;

  /** Throws on a malformed entry (loadPolicyConfig reports those as configuration errors first). */
  constructor(input: RegistryAllowlistInput) {
    const configured = parseAll(input.trustedRegistries, 'trusted registries');
    const project = parseAll(input.projectRegistries, 'project registries');
    // Docker Hub is trusted per organisation only (see the module comment).
    this.ignored = [...configured, ...project].filter((e) => e.dockerHub);
    this.configured = configured.filter((e) => !e.dockerHub);
    this.project = project.filter((e) => !e.dockerHub);
    // Deduplicated on the normalised text: the project's host may also be listed in TRUSTED_REGISTRIES.
    const byText = new Map<string, RegistryEntry>();
    for (const entry of [...this.configured, ...this.project])
      if (!byText.has(entry.text)) byText.set(entry.text, entry);
    this.effective = [...byText.values()];
    this.orgs = new Set(
      input.trustedDockerHubOrgs.map((o) => {
        const parsed = parseDockerHubOrg(o);
        if (!parsed.ok) throw new Error(`trusted Docker Hub organisations: ${parsed.error}`);
        return parsed.value;
      }),
    );
  }

  judge(image: string): ImageVerdict {
    const parsed = parseImageReference(image);
    if (!parsed.ok) return { trusted: false, reason: `is not a valid image reference: ${parsed.error}` };
    const ref = parsed.value;
    if (ref.dockerHub) {
      const org = ref.path.slice(0, ref.path.indexOf('/'));
      return this.orgs.has(org)
        ? { trusted: true, reference: ref }
        : { trusted: false, reason: `is from Docker Hub organisation "${org}", which is not trusted` };
    }
    const segments = ref.path.split('/');
    const match = this.effective.some(
      (e) =>
        e.host === ref.host &&
        e.port === ref.port &&
        e.pathPrefix.length <= segments.length &&
        e.pathPrefix.every((s, i) => segments[i] === s),
    );
    return match
      ? { trusted: true, reference: ref }
      : { trusted: false, reason: 'is not from a trusted registry' };
  }

  /** The `registries` section of the policy report. */
  describe(): Record<string, unknown> {
    const configured = unique(this.configured.map((e) => e.text));
    const effective = this.effective.map((e) => e.text);
    return {
      configured,
      project: unique(this.project.map((e) => e.text)),
      effective,
      effective_strictly_larger: effective.length > configured.length,
      matching:
        'host (case-insensitive) and port must equal an entry; an entry path is a prefix on whole path segments (ghcr.io/acme allows ghcr.io/acme/x, not ghcr.io/acmeevil/x)',
      docker_hub: {
        hosts: [...DOCKER_HUB_HOSTS],
        trusted_organisations: [...this.orgs],
        matching:
          'an image without a registry host, or on any Docker Hub host, is allowed only when its organisation is trusted; single-name images are library/<name>',
      },
      ignored_entries: this.ignored.map((e) => ({
        entry: e.text,
        reason: 'Docker Hub is trusted per organisation: use TRUSTED_DOCKERHUB_ORGS',
      })),
    };
  }
}
