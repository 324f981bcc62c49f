import { execFileSync } from 'node:child_process';
import { chmodSync, existsSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/**
 * A PostgreSQL server of its own for tests that restart or cut it (so they never disturb the
 * shared test server other files use): `initdb` into a temporary directory, started with `pg_ctl`
 * on a free port, trust authentication on 127.0.0.1. Root runs the binaries as `postgres`.
 */
export interface PrivateServer {
  url: string;
  restart(): void;
  /** Stops the server (fast shutdown: connections are cut), keeping its data for `start`. */
  halt(): void;
  start(): void;
  stop(): void;
}

/** The directory of the PostgreSQL server binaries (`initdb`, `pg_ctl`), or null when none is installed. */
export function serverBinaries(): string | null {
  const base = '/usr/lib/postgresql';
  if (!existsSync(base)) return null;
  const version = readdirSync(base)
    .filter((name) => existsSync(join(base, name, 'bin', 'initdb')))
    .sort((a, b) => Number(b) - Number(a))[0];
  return version ? join(base, version, 'bin') : null;
}

async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
    server.on('error', reject);
  });
}

export async function startPrivateServer(): Promise<PrivateServer> {
  const bin = serverBinaries();
  if (!bin) throw new Error('no PostgreSQL server binaries (apt-get install postgresql)');
  const dir = mkdtempSync(join(tmpdir(), 'waypoint-pg-private-'));
  chmodSync(dir, 0o777);
  const data = join(dir, 'data');
  const port = await freePort();
  const asServer = (command: string, args: string[]) => {
    const line = [join(bin, command), ...args].map((arg) => `'${arg}'`).join(' ');
    if (process.getuid?.() === 0) execFileSync('su', ['postgres', '-s', '/bin/sh', '-c', line], { stdio: 'pipe', timeout: 120_000 });
    else execFileSync('/bin/sh', ['-c', line], { stdio: 'pipe', timeout: 120_000 });
  };
  asServer('initdb', ['-D', data, '-A', 'trust', '-U', 'waypoint', '--no-sync']);
  const options = `-p ${port} -k ${dir} -c listen_addresses=127.0.0.1 -c fsync=off -c max_connections=60`;
  const log = join(dir, 'server.log');
  asServer('pg_ctl', ['-D', data, '-l', log, '-o', options, '-w', '-t', '120', 'start']);
  return {
    url: `postgres://waypoint@127.0.0.1:${port}/postgres`,
    restart() {
      asServer('pg_ctl', ['-D', data, '-l', log, '-o', options, '-m', 'fast', '-w', '-t', '120', 'restart']);
    },
    halt() {
      asServer('pg_ctl', ['-D', data, '-m', 'fast', '-w', '-t', '120', 'stop']);
    },
    start() {
      asServer('pg_ctl', ['-D', data, '-l', log, '-o', options, '-w', '-t', '120', 'start']);
    },
    stop() {
      try {
        // Not running (a test halted it and failed before starting it again): nothing to stop.
        if (existsSync(join(data, 'postmaster.pid'))) asServer('pg_ctl', ['-D', data, '-m', 'immediate', '-w', 'stop']);
      } finally {
        rmSync(dir, { recursive: true, force: true });
      }
    },
  };
}
