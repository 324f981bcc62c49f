import { existsSync, readFileSync, realpathSync, statSync } from 'node:fs';
import { extname, join, resolve, sep } from 'node:path';

const TYPES: Record<string, string> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.mjs': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.json': 'application/json',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.jpg': 'image/jpeg',
  '.ico': 'image/x-icon',
  '.woff2': 'font/woff2',
  '.map': 'application/json',
  '.txt': 'text/plain; charset=utf-8',
};

export interface StaticFile {
  body: Uint8Array;
  type: string;
}

const NOT_BUILT = `<!doctype html><meta charset="utf-8"><title>Waypoint</title>
<p>The browser UI is not built. Run <code>npm run build</code> in the Waypoint package, then start <code>waypoint serve</code> again.
The protocol at <code>/rpc</code> works without it (docs/protocol.md).</p>`;

/**
 * A file of the built UI for a URL path, or null. Only files inside `root` are served: the path is
 * decoded, resolved and checked, then its real path (links followed) checked again. A path without
 * an extension that names no file gets `index.html` (the UI's own routes). Without a built UI, `/`
 * is a page saying so.
 */
export function staticFile(root: string, urlPath: string): StaticFile | null {
  let decoded: string;
  try {
    decoded = decodeURIComponent(urlPath);
  } catch {
    return null;
  }
  if (decoded.includes('\0')) return null;
  const base = resolve(root);
  const index = join(base, 'index.html');
  if (!existsSync(index)) return decoded === '/' || decoded === '/index.html' ? { body: Buffer.from(NOT_BUILT), type: TYPES['.html']! } : null;
  const realBase = realpathSync(base);
  const candidate = resolve(base, `.${decoded.startsWith('/') ? decoded : `/${decoded}`}`);
  const inside = (path: string, within: string) => path === within || path.startsWith(within + sep);
  if (!inside(candidate, base)) return null;
  let file = candidate;
  if (!existsSync(file) || statSync(file).isDirectory()) {
    if (extname(decoded) !== '' && decoded !== '/') return null;
    file = index;
  }
  const real = realpathSync(file);
  if (!inside(real, realBase) || !statSync(real).isFile()) return null;
  return { body: readFileSync(real), type: TYPES[extname(real).toLowerCase()] ?? 'application/octet-stream' };
}
