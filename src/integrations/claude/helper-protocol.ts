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
 */
export interface HelperEndpoint {
  port: number;
  serverToken: string;
  clientToken: string;
}

export const REPLY_OK = 'ok\n';
export const REPLY_DENIED = 'denied\n';
const TOKEN_LINE_LIMIT = 256;

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
 * the event (the hook's stdin) once its NUL arrived, `null` while more is needed, and `'denied'` as
 * soon as the token line is wrong (or too long to be one).
 */
export class HelperRequestReader {
  private chunks: Buffer[] = [];
  private length = 0;
  private bodyStart = -1;

  constructor(private readonly clientToken: string) {}

  feed(chunk: Buffer): { stdin: string } | 'denied' | null {
    this.chunks.push(chunk);
    this.length += chunk.length;
    if (this.bodyStart < 0) {
      const data = Buffer.concat(this.chunks, this.length);
      this.chunks = [data];
      const newline = data.indexOf(0x0a);
      if (newline < 0) return data.length > TOKEN_LINE_LIMIT ? 'denied' : null;
      if (newline > TOKEN_LINE_LIMIT || !tokensMatch(data.subarray(0, newline).toString('latin1'), this.clientToken)) return 'denied';
      this.bodyStart = newline + 1;
    }
    if (chunk.indexOf(0) < 0 && this.chunks.length > 1) return null;
    const data = this.chunks.length === 1 ? this.chunks[0]! : Buffer.concat(this.chunks, this.length);
    this.chunks = [data];
    const end = data.indexOf(0, this.bodyStart);
    return end < 0 ? null : { stdin: data.subarray(this.bodyStart, end).toString('utf8') };
  }
}
