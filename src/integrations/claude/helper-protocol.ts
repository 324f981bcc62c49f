// No engine imports: the hook client loads this.
import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';
import { readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';

/**
 * How a hook client finds and proves itself to the store's resident helper. The helper listens on
 * 127.0.0.1 (an ephemeral port) and writes `PORT SERVER_TOKEN CLIENT_TOKEN` to its endpoint file
 * (`claude-hooks/helper.port`, mode 0600, so only the store's owner can read the tokens). A
 * conversation: the helper greets every connection with the server token (a client sends nothing
 * until the greeting matches: a process that took over a dead helper's port learns no token and no
 * event); the client sends the client token on a line, then the event's bytes and a NUL (JSON holds
 * no raw NUL, and bash's variables cannot); the helper answers `ok` once the event is recorded, or
 * `denied` to a wrong token (checked in constant time, before any of the event is kept).
 *
 * The token line names what is asked after one space: nothing for a Claude Code event (what every
 * client sent before the helper served other agents, so older clients go on working), `codex` for
 * a Codex CLI event, `status` for the helper's counts (no event; answered with one JSON line). A
 * helper older than this line's second word compares the whole line with its token and answers
 * `denied`, so a Codex event never reaches a helper that would take it for Claude's: the client
 * falls back to handling it in its own process.
 */
export interface HelperEndpoint {
  port: number;
  serverToken: string;
  clientToken: string;
}

export const REPLY_OK = 'ok\n';
export const REPLY_DENIED = 'denied\n';
const TOKEN_LINE_LIMIT = 256;

/** What a connection asks of the helper: an agent's hook event, or the helper's counts. */
export type HelperRequestKind = 'claude' | 'codex' | 'status';
const KINDS = new Map<string, HelperRequestKind>([
  ['', 'claude'],
  ['codex', 'codex'],
  ['status', 'status'],
]);

/** The token line a client sends for a request of `kind` (a Claude event's is the token alone). */
export function tokenLine(clientToken: string, kind: HelperRequestKind): string {
  return kind === 'claude' ? `${clientToken}\n` : `${clientToken} ${kind}\n`;
}

/** The helper's answer to `status`: who it is and what it handled since it started. */
export interface HelperStatus {
  pid: number;
  port: number;
  startedAt: string;
  /** Events recorded, by agent. */
  events: { claude: number; codex: number };
}

/** A fresh endpoint's tokens (128 random bits each), for a helper listening on `port`. */
export function newEndpoint(port: number): HelperEndpoint {
  return { port, serverToken: randomBytes(16).toString('hex'), clientToken: randomBytes(16).toString('hex') };
}

/** Writes the endpoint file readable by its owner only, whole or not at all (a reader never sees half of it). */
export function writeEndpoint(path: string, endpoint: HelperEndpoint): void {
  const temporary = `${path}.${process.pid}.tmp`;
  rmSync(temporary, { force: true });
  writeFileSync(temporary, `${endpoint.port} ${endpoint.serverToken} ${endpoint.clientToken}\n`, { mode: 0o600, flag: 'wx' });
  renameSync(temporary, path);
}

/** The endpoint file's contents, or null when there is none (no helper) or it is unreadable. */
export function readEndpoint(path: string): HelperEndpoint | null {
  try {
    const [port, serverToken, clientToken] = readFileSync(path, 'utf8').trim().split(' ');
    const number = Number(port);
    if (!Number.isInteger(number) || number <= 0 || number > 65535 || !serverToken || !clientToken) return null;
    return { port: number, serverToken, clientToken };
  } catch {
    return null;
  }
}

/** Token comparison whose time does not depend on where the tokens differ (nor on their lengths). */
export function tokensMatch(given: string, expected: string): boolean {
  const digest = (value: string) => createHash('sha256').update(value).digest();
  return timingSafeEqual(digest(given), digest(expected));
}

/**
 * Reads one request from a connection to the helper: feed it the connection's chunks. It returns
 * the request (its kind and the event, the hook's stdin) once its NUL arrived, `null` while more is
 * needed, and `'denied'` as soon as the token line is wrong (or too long to be one, or asks for
 * something this helper does not know).
 */
export class HelperRequestReader {
  private chunks: Buffer[] = [];
  private length = 0;
  private bodyStart = -1;
  private kind: HelperRequestKind = 'claude';

  constructor(private readonly clientToken: string) {}

  feed(chunk: Buffer): { kind: HelperRequestKind; stdin: string } | 'denied' | null {
    this.chunks.push(chunk);
    this.length += chunk.length;
    if (this.bodyStart < 0) {
      const data = Buffer.concat(this.chunks, this.length);
      this.chunks = [data];
      const newline = data.indexOf(0x0a);
      if (newline < 0) return data.length > TOKEN_LINE_LIMIT ? 'denied' : null;
      if (newline > TOKEN_LINE_LIMIT) return 'denied';
      const line = data.subarray(0, newline).toString('latin1');
      const space = line.indexOf(' ');
      // The token is checked whatever the rest says, so a wrong one costs the same time everywhere.
      const tokenMatches = tokensMatch(space < 0 ? line : line.slice(0, space), this.clientToken);
      const kind = KINDS.get(space < 0 ? '' : line.slice(space + 1));
      if (!tokenMatches || kind === undefined) return 'denied';
      this.kind = kind;
      this.bodyStart = newline + 1;
    }
    if (chunk.indexOf(0) < 0 && this.chunks.length > 1) return null;
    const data = this.chunks.length === 1 ? this.chunks[0]! : Buffer.concat(this.chunks, this.length);
    this.chunks = [data];
    const end = data.indexOf(0, this.bodyStart);
    return end < 0 ? null : { kind: this.kind, stdin: data.subarray(this.bodyStart, end).toString('utf8') };
  }
}
