// Loaded by the hook clients for every event: node: modules only.
import { createHash } from 'node:crypto';
import { chmodSync, mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { join, resolve } from 'node:path';

/** The file a database store's URL is kept in for the hooks, in a directory of its own. */
const URL_FILE_NAME = 'store.url';

/**
 * The store an agent's hook records into, as its hook command names it. `storePath` is where the
 * handler's own files (session locks and state, the failure log, the resident helper's socket)
 * live beside: the SQLite store file itself, or for a database store the file its URL is kept in.
 * `location` is what the engine opens: the same file, or the URL read from that file.
 */
export interface HookStore {
  storePath: string;
  location: string;
  /** The flags that name this store to another hook process (the helper the client starts). */
  flags: string[];
}

function isUrl(location: string): boolean {
  return /^[a-z][a-z0-9+.-]*:\/\//i.test(location);
}

/**
 * Where the URL of a database store is kept for the hooks: `store.url` in a directory of the
 * Waypoint home named by a digest of the URL without its password (`stores/<digest>/`), so a new
 * password replaces the old one in the same place and the hooks' files stay where they were.
 */
export function storeUrlFile(url: string, env: NodeJS.ProcessEnv = process.env): string {
  const withoutPassword = url.replace(/^([a-z][a-z0-9+.-]*:\/\/[^:/?#@]*):[^/?#]*@/i, '$1@').replace(/([?&])password=[^&#]*&?/gi, '$1');
  const digest = createHash('sha256').update(withoutPassword).digest('hex').slice(0, 24);
  const home = env.WAYPOINT_HOME && env.WAYPOINT_HOME.trim() !== '' ? env.WAYPOINT_HOME : join(env.HOME ?? homedir(), '.waypoint');
  return join(resolve(home), 'stores', digest, URL_FILE_NAME);
}

/**
 * Keeps a database store's URL, password included, where only this user can read it (the file
 * 0600 in a 0700 directory, replaced whole), and returns the file: the hook command names the file,
 * so the password is never written into an agent's settings, which others may read or commit.
 */
export function writeStoreUrlFile(url: string, env: NodeJS.ProcessEnv = process.env): string {
  const file = storeUrlFile(url, env);
  const dir = join(file, '..');
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  chmodSync(dir, 0o700);
  const temp = `${file}.${process.pid}.tmp`;
  writeFileSync(temp, `${url}\n`, { mode: 0o600 });
  chmodSync(temp, 0o600);
  renameSync(temp, file);
  return file;
}

/**
 * The store a hook command's flags name: `--store-file F` (a database store's URL kept in F, see
 * {@link writeStoreUrlFile}), `--store P` (a store file, or a URL given as is), else `fallback`
 * (the default store file). Throws when F cannot be read: the caller logs it beside F.
 */
export function hookStoreFromFlags(argv: readonly string[], fallback: string, env: NodeJS.ProcessEnv = process.env): HookStore {
  const fileAt = argv.indexOf('--store-file');
  if (fileAt >= 0 && argv[fileAt + 1]) {
    const storePath = resolve(argv[fileAt + 1]!);
    return { storePath, location: readFileSync(storePath, 'utf8').trim(), flags: ['--store-file', storePath] };
  }
  const storeAt = argv.indexOf('--store');
  const given = storeAt >= 0 && argv[storeAt + 1] ? argv[storeAt + 1]! : fallback;
  if (isUrl(given)) return { storePath: storeUrlFile(given, env), location: given, flags: ['--store', given] };
  const storePath = resolve(given);
  return { storePath, location: storePath, flags: ['--store', storePath] };
}

/** The flags a hook command is installed with for a store location: a file as `--store`, a URL by the file it is kept in ({@link writeStoreUrlFile} writes it). */
export function hookStoreFlags(location: string, env: NodeJS.ProcessEnv = process.env): string[] {
  return isUrl(location) ? ['--store-file', storeUrlFile(location, env)] : ['--store', location];
}

/** Where the hooks' own files live for a store location (the store file, or a URL's kept file). */
export function hookFilesPath(location: string, env: NodeJS.ProcessEnv = process.env): string {
  return isUrl(location) ? storeUrlFile(location, env) : location;
}
