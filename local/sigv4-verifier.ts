/**
 * SigV4 verification for the local platform (the API Gateway emulator and the AWS stand-ins): the
 * request's own signature is recomputed with @smithy/signature-v4 — the signer the AWS SDKs use — over
 * exactly the headers the caller signed, and compared in constant time. Accepts what the SDKs, `curl
 * --aws-sigv4` and awscurl send: `x-amz-date`, an optional signed `x-amz-content-sha256`, a session token
 * only for credentials that have one. Query-string (presigned) signatures are not supported.
 *
 * Failures carry API Gateway's error type and message; callers decide the wire format.
 */
import { createHash, timingSafeEqual } from 'node:crypto';
import { Hash } from '@smithy/hash-node';
import { HttpRequest } from '@smithy/protocol-http';
import { ALGORITHM_IDENTIFIER, getCanonicalHeaders, SignatureV4 } from '@smithy/signature-v4';
import type { AwsCredentialIdentity } from '@smithy/types';

/** Who a credential belongs to, as API Gateway reports it in `requestContext.identity`. */
interface LocalPrincipal {
  /** `arn:<partition>:iam::<account>:user/<name>` or `arn:<partition>:sts::<account>:assumed-role/<role>/<session>`. */
  readonly arn: string;
  readonly accountId: string;
  /** `caller` / `user`: the unique id (`AIDA…` for users, `AROA…:<session>` for roles). */
  readonly userId: string;
}

export interface LocalCredential extends AwsCredentialIdentity {
  readonly principal: LocalPrincipal;
}

export interface CredentialStore {
  find(accessKeyId: string): LocalCredential | undefined;
}

export interface SignedRequestInput {
  method: string;
  /** Path plus `?` and the raw query, exactly as received. */
  target: string;
  /** `IncomingMessage.rawHeaders`: names and values alternating, in arrival order. */
  rawHeaders: readonly string[];
  body: Uint8Array;
}

export interface VerifyOptions {
  /** Signing service: `execute-api`, `ssm`, … */
  service: string;
  /** Region the signature must be scoped to; undefined accepts any (stand-ins serving several regions). */
  region?: string;
  credentials: CredentialStore;
  now?: () => Date;
  /** Allowed distance between `x-amz-date` and now (AWS: 5 minutes). */
  maxSkewMs?: number;
}

type SigV4ErrorType =
  | 'MissingAuthenticationTokenException'
  | 'IncompleteSignatureException'
  | 'InvalidSignatureException'
  | 'UnrecognizedClientException';

export type VerifyResult =
  | { ok: true; credential: LocalCredential; region: string; accessKeyId: string }
  | { ok: false; errorType: SigV4ErrorType; message: string };

const MISSING_TOKEN_MESSAGE = 'Missing Authentication Token';
const INVALID_TOKEN_MESSAGE = 'The security token included in the request is invalid.';
const SIGNATURE_MISMATCH_MESSAGE =
  'The request signature we calculated does not match the signature you provided. Check your AWS Secret Access Key and signing method. Consult the service documentation for details.';
const DEFAULT_MAX_SKEW_MS = 5 * 60_000;

const AMZ_DATE_RE = /^(\d{4})(\d{2})(\d{2})T(\d{2})(\d{2})(\d{2})Z$/;
const SIGNATURE_RE = /^[0-9a-f]{64}$/;

const fail = (errorType: SigV4ErrorType, message: string): VerifyResult => ({
  ok: false,
  errorType,
  message,
});

/** `YYYYMMDDTHHMMSSZ` → Date, or undefined. */
function parseAmzDate(value: string): Date | undefined {
  const m = AMZ_DATE_RE.exec(value);
  if (!m) return undefined;
  const [, y, mo, d, h, mi, s] = m.map(Number) as [number, number, number, number, number, number, number];
  const date = new Date(Date.UTC(y, mo - 1, d, h, mi, s));
  return Number.isNaN(date.getTime()) ? undefined : date;
}

function formatAmzDate(date: Date): string {
  return date
    .toISOString()
    .replace(/\.\d{3}Z$/, 'Z')
    .replace(/[-:]/g, '');
}

/** Header values by lowercase name; repeated headers joined with `,` (SigV4's canonical form). */
function headerValues(rawHeaders: readonly string[]): Map<string, string> {
  const out = new Map<string, string>();
  for (let i = 0; i + 1 < rawHeaders.length; i += 2) {
    const name = (rawHeaders[i] ?? '').toLowerCase();
    const value = rawHeaders[i + 1] ?? '';
    const previous = out.get(name);
    out.set(name, previous === undefined ? value : `${previous},${value}`);
  }
  return out;
}

function safeDecode(text: string): string {
  try {
    return decodeURIComponent(text);
  } catch {
    return text;
  }
}

/** The query as the signer wants it: decoded keys and values, repeated keys as arrays, a bare key as ''. */
function signerQuery(rawQuery: string): Record<string, string | string[]> {
  // A Map, not an object: keys such as `constructor` or `__proto__` are parameters like any other.
  const query = new Map<string, string | string[]>();
  for (const pair of rawQuery.split('&')) {
    if (pair === '') continue;
    const eq = pair.indexOf('=');
    const key = safeDecode(eq === -1 ? pair : pair.slice(0, eq));
    const value = eq === -1 ? '' : safeDecode(pair.slice(eq + 1));
    const previous = query.get(key);
    if (previous === undefined) query.set(key, value);
    else query.set(key, Array.isArray(previous) ? [...previous, value] : [previous, value]);
  }
  return Object.fromEntries(query);
}

interface ParsedAuthorization {
  accessKeyId: string;
  scopeDate: string;
  region: string;
  service: string;
  terminator: string;
  signedHeaders: string[];
  signature: string;
}

/** Parses `AWS4-HMAC-SHA256 Credential=…, SignedHeaders=…, Signature=…`; an error message otherwise. */
function parseAuthorization(value: string): ParsedAuthorization | string {
  const trimmed = value.trim();
  if (!trimmed.startsWith(`${ALGORITHM_IDENTIFIER} `)) {
    // API Gateway's answer to a Basic/Bearer/other scheme on an IAM route.
    const hash = createHash('sha256').update(trimmed).digest('base64');
    return `Invalid key=value pair (missing equal-sign) in Authorization header (hashed with SHA-256 and encoded with Base64): '${hash}'.`;
  }
  const params = new Map<string, string>();
  for (const part of trimmed.slice(ALGORITHM_IDENTIFIER.length + 1).split(',')) {
    const eq = part.indexOf('=');
    if (eq > 0) params.set(part.slice(0, eq).trim(), part.slice(eq + 1).trim());
  }
  const missing = ['Credential', 'Signature', 'SignedHeaders'].filter((p) => !params.get(p));
  if (missing.length > 0) {
    return `${missing.map((p) => `Authorization header requires '${p}' parameter.`).join(' ')} Authorization=${trimmed.split(' ')[0] ?? ''}`;
  }
  const credential = (params.get('Credential') ?? '').split('/');
  if (credential.length !== 5 || credential.some((c) => c === '')) {
    return `Credential should be scoped to a valid region. `;
  }
  const [accessKeyId, scopeDate, region, service, terminator] = credential as [
    string,
    string,
    string,
    string,
    string,
  ];
  return {
    accessKeyId,
    scopeDate,
    region,
    service,
    terminator,
    signedHeaders: (params.get('SignedHeaders') ?? '').split(';').filter((h) => h !== ''),
    signature: params.get('Signature') ?? '',
  };
}

/** Exposes smithy's canonical request and string to sign for API Gateway's mismatch message. */
class DescribingSigner extends SignatureV4 {
  async describe(
    request: HttpRequest,
    signedHeaders: ReadonlySet<string>,
    payloadHash: string,
    longDate: string,
    scope: string,
  ): Promise<{ canonicalRequest: string; stringToSign: string }> {
    const canonicalHeaders = getCanonicalHeaders(request, undefined, new Set(signedHeaders));
    const canonicalRequest = this.createCanonicalRequest(request, canonicalHeaders, payloadHash);
    const stringToSign = await this.createStringToSign(
      longDate,
      scope,
      canonicalRequest,
      ALGORITHM_IDENTIFIER,
    );
    return { canonicalRequest, stringToSign };
  }
}

function sha256Hex(body: Uint8Array): string {
  return createHash('sha256').update(body).digest('hex');
}

function equalHex(a: string, b: string): boolean {
  const left = Buffer.from(a, 'utf8');
  const right = Buffer.from(b, 'utf8');
  return left.length === right.length && timingSafeEqual(left, right);
}

/** Verifies the request's SigV4 `Authorization` header. */
export async function verifySigV4(input: SignedRequestInput, opts: VerifyOptions): Promise<VerifyResult> {
  const headers = headerValues(input.rawHeaders);
  const authorization = headers.get('authorization');
  if (authorization === undefined || authorization.trim() === '') {
    return fail('MissingAuthenticationTokenException', MISSING_TOKEN_MESSAGE);
  }
  const parsed = parseAuthorization(authorization);
  if (typeof parsed === 'string') return fail('IncompleteSignatureException', parsed);

  const amzDate = headers.get('x-amz-date');
  if (amzDate === undefined) {
    return fail(
      'IncompleteSignatureException',
      "Authorization header requires existence of either a 'X-Amz-Date' or a 'Date' header.",
    );
  }
  const signingDate = parseAmzDate(amzDate.trim());
  if (signingDate === undefined) {
    return fail('IncompleteSignatureException', `Date must be in ISO-8601 'basic format'. Got '${amzDate}'.`);
  }
  const now = (opts.now ?? (() => new Date()))();
  const skew = opts.maxSkewMs ?? DEFAULT_MAX_SKEW_MS;
  if (signingDate.getTime() < now.getTime() - skew) {
    return fail(
      'InvalidSignatureException',
      `Signature expired: ${formatAmzDate(signingDate)} is now earlier than ${formatAmzDate(new Date(now.getTime() - skew))} (${formatAmzDate(now)} - 5 min.)`,
    );
  }
  if (signingDate.getTime() > now.getTime() + skew) {
    return fail(
      'InvalidSignatureException',
      `Signature not yet current: ${formatAmzDate(signingDate)} is still later than ${formatAmzDate(new Date(now.getTime() + skew))} (${formatAmzDate(now)} + 5 min.)`,
    );
  }
  const longDate = formatAmzDate(signingDate);
  if (parsed.scopeDate !== longDate.slice(0, 8)) {
    return fail(
      'InvalidSignatureException',
      `Date in Credential scope does not match YYYYMMDD from ISO-8601 version of date from HTTP: '${parsed.scopeDate}' != '${longDate.slice(0, 8)}', from '${longDate}'.`,
    );
  }
  if (opts.region !== undefined && parsed.region !== opts.region) {
    return fail('InvalidSignatureException', 'Credential should be scoped to a valid region. ');
  }
  if (parsed.service !== opts.service) {
    return fail(
      'InvalidSignatureException',
      `Credential should be scoped to correct service: '${opts.service}'. `,
    );
  }
  if (parsed.terminator !== 'aws4_request') {
    return fail(
      'InvalidSignatureException',
      `Credential should be scoped with a valid terminator: 'aws4_request', not '${parsed.terminator}'. `,
    );
  }
  const signed = new Set(parsed.signedHeaders.map((h) => h.toLowerCase()));
  if (!signed.has('host')) {
    return fail(
      'IncompleteSignatureException',
      "'Host' or ':authority' must be a 'SignedHeader' in the AWS Authorization.",
    );
  }

  const credential = opts.credentials.find(parsed.accessKeyId);
  const token = headers.get('x-amz-security-token');
  if (credential === undefined || (token ?? undefined) !== (credential.sessionToken ?? undefined)) {
    return fail('UnrecognizedClientException', INVALID_TOKEN_MESSAGE);
  }

  // The request as the caller signed it: only the headers it listed, with the values it sent.
  const q = input.target.indexOf('?');
  const path = q === -1 ? input.target : input.target.slice(0, q);
  const signedHeaderValues: Record<string, string> = Object.fromEntries(
    [...signed].flatMap((name) => {
      const value = headers.get(name);
      return value === undefined ? [] : [[name, value]];
    }),
  );
  const bodyHash = sha256Hex(input.body);
  const claimedHash = signedHeaderValues['x-amz-content-sha256'];
  const request = new HttpRequest({
    method: input.method.toUpperCase(),
    hostname: headers.get('host') ?? '',
    path,
    query: signerQuery(q === -1 ? '' : input.target.slice(q + 1)),
    headers: signedHeaderValues,
    body: input.body,
  });
  const signer = new DescribingSigner({
    service: parsed.service,
    region: parsed.region,
    credentials: {
      accessKeyId: credential.accessKeyId,
      secretAccessKey: credential.secretAccessKey,
      ...(credential.sessionToken !== undefined ? { sessionToken: credential.sessionToken } : {}),
    },
    sha256: Hash.bind(null, 'sha256'),
    applyChecksum: false,
  });
  const expected = await signer.sign(request, { signingDate, signableHeaders: new Set(signed) });
  const expectedSignature =
    /Signature=([0-9a-f]{64})/.exec(String(expected.headers.authorization))?.[1] ?? '';
  const hashHonest = claimedHash === undefined || claimedHash === bodyHash;
  if (hashHonest && SIGNATURE_RE.test(parsed.signature) && equalHex(parsed.signature, expectedSignature)) {
    return { ok: true, credential, region: parsed.region, accessKeyId: parsed.accessKeyId };
  }
  const scope = `${longDate.slice(0, 8)}/${parsed.region}/${parsed.service}/aws4_request`;
  const { canonicalRequest, stringToSign } = await signer.describe(
    request,
    signed,
    bodyHash,
    longDate,
    scope,
  );
  return fail(
    'InvalidSignatureException',
    `${SIGNATURE_MISMATCH_MESSAGE}\n\nThe Canonical String for this request should have been\n'${canonicalRequest}'\n\nThe String-to-Sign should have been\n'${stringToSign}'\n`,
  );
}
