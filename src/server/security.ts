import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';
import { networkInterfaces } from 'node:os';
import { WaypointError } from '../model/index.js';

/** A request the server refuses before anything runs: answered with `status` and `{ error: { code, message } }`. */
export class RequestRefusedError extends WaypointError {
  override readonly name: string = 'RequestRefusedError';
  constructor(code: 'UNAUTHORIZED' | 'HOST_REFUSED' | 'ORIGIN_REFUSED' | 'NOT_FOUND', message: string, status: number) {
    super({ code, message, httpStatus: status, exitCode: 1 });
  }
}

/** A fresh secret for one start of the server (32 random bytes, base64url). */
export function newToken(): string {
  return randomBytes(32).toString('base64url');
}

/** Constant-time comparison (the digests have equal length whatever was sent). */
export function tokenMatches(expected: string, given: string | null | undefined): boolean {
  if (typeof given !== 'string' || given === '') return false;
  const a = createHash('sha256').update(expected).digest();
  const b = createHash('sha256').update(given).digest();
  return timingSafeEqual(a, b);
}

export const TOKEN_COOKIE = 'waypoint_token';

export interface RequestFacts {
  host: string | undefined;
  origin: string | undefined;
  authorization: string | undefined;
  cookie: string | undefined;
  /** The `token` query parameter. */
  queryToken: string | null;
}

/**
 * Who may be asked for: the server's own host names with its port (no DNS rebinding): the loopback
 * names, the `--host` given, and for a wildcard address (`0.0.0.0`, `::`) this machine's addresses.
 */
export function allowedHosts(host: string, port: number): Set<string> {
  const names = new Set([host.toLowerCase(), '127.0.0.1', 'localhost', '::1']);
  if (host === '0.0.0.0' || host === '::')
    for (const addresses of Object.values(networkInterfaces())) for (const address of addresses ?? []) names.add(address.address.toLowerCase());
  return new Set([...names].map((name) => `${name.includes(':') ? `[${name}]` : name}:${port}`));
}

/** The token a request carries: query, bearer header, or the page's cookie. */
export function presentedToken(facts: RequestFacts): string | null {
  if (facts.queryToken) return facts.queryToken;
  const bearer = /^Bearer\s+(\S+)$/i.exec(facts.authorization ?? '');
  if (bearer) return bearer[1]!;
  for (const item of (facts.cookie ?? '').split(';')) {
    const [name, ...rest] = item.trim().split('=');
    if (name === TOKEN_COOKIE) return rest.join('=');
  }
  return null;
}

/**
 * Checks one request or socket upgrade: the Host header names this server, an Origin (when sent)
 * is this server's own, and the token is the start's secret. Throws the refusal; checks nothing
 * else and changes nothing.
 */
export function checkRequest(facts: RequestFacts, policy: { token: string; hosts: Set<string> }): void {
  const host = (facts.host ?? '').toLowerCase();
  if (!policy.hosts.has(host)) {
    throw new RequestRefusedError('HOST_REFUSED', `Host "${facts.host ?? ''}" is not this server: open the URL waypoint serve printed.`, 403);
  }
  if (facts.origin !== undefined && facts.origin !== 'null') {
    let originHost: string | null = null;
    try {
      const url = new URL(facts.origin);
      if (url.protocol === 'http:') originHost = url.host.toLowerCase();
    } catch {
      originHost = null;
    }
    if (originHost === null || !policy.hosts.has(originHost)) {
      throw new RequestRefusedError('ORIGIN_REFUSED', `Requests from ${facts.origin} are refused: only this server's own page may call it.`, 403);
    }
  } else if (facts.origin === 'null') {
    throw new RequestRefusedError('ORIGIN_REFUSED', 'Requests from an opaque origin are refused.', 403);
  }
  if (!tokenMatches(policy.token, presentedToken(facts))) {
    throw new RequestRefusedError('UNAUTHORIZED', 'Missing or wrong token: open the URL with ?token= that waypoint serve printed.', 401);
  }
}
