/** One hook event handed to the resident helper, and how to answer it. */
export interface HelperRequest {
  /** The hook's stdin as Claude Code wrote it (the event's JSON). */
  stdin: string;
  /** The answer once the event is recorded. */
  ok: string;
}

const HTTP_OK = 'HTTP/1.1 200 OK\r\nContent-Type: text/plain\r\nContent-Length: 3\r\nConnection: close\r\n\r\nok\n';
export const HTTP_BAD_REQUEST = 'HTTP/1.1 400 Bad Request\r\nContent-Length: 0\r\nConnection: close\r\n\r\n';
const HEADER_LIMIT = 64 * 1024;

/**
 * Reads one request from a connection to the helper's socket, in either of its two forms: a JSON
 * line `{"stdin": "…"}` (the Node hook client), or an HTTP POST whose body is the event itself
 * (the shell client's `curl --unix-socket`, so no Node starts for it). Feed it the connection's
 * chunks: it returns the request once complete, `null` while more is needed, and `'bad'` for
 * anything else (answered {@link HTTP_BAD_REQUEST}; the client then handles the event itself).
 */
export class HelperRequestReader {
  private chunks: Buffer[] = [];
  private length = 0;

  feed(chunk: Buffer): HelperRequest | 'bad' | null {
    this.chunks.push(chunk);
    this.length += chunk.length;
    const data = this.chunks.length === 1 ? chunk : Buffer.concat(this.chunks, this.length);
    this.chunks = [data];
    if (data[0] === 0x7b) {
      const end = data.indexOf(0x0a);
      if (end < 0) return null;
      try {
        const { stdin } = JSON.parse(data.subarray(0, end).toString('utf8')) as { stdin?: unknown };
        return typeof stdin === 'string' ? { stdin, ok: 'ok\n' } : 'bad';
      } catch {
        return 'bad';
      }
    }
    const headerEnd = data.indexOf('\r\n\r\n');
    if (headerEnd < 0) return data.length > HEADER_LIMIT ? 'bad' : null;
    const head = data.subarray(0, headerEnd).toString('latin1').split('\r\n');
    if (!/^POST \S+ HTTP\/1\.[01]$/.test(head[0] ?? '')) return 'bad';
    const lengthHeader = head.find((line) => /^content-length:/i.test(line));
    const bodyLength = lengthHeader === undefined ? Number.NaN : Number(lengthHeader.slice(lengthHeader.indexOf(':') + 1).trim());
    if (!Number.isSafeInteger(bodyLength) || bodyLength < 0) return 'bad';
    const body = data.subarray(headerEnd + 4);
    if (body.length < bodyLength) return null;
    return { stdin: body.subarray(0, bodyLength).toString('utf8'), ok: HTTP_OK };
  }
}
