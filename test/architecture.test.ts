import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative, resolve, dirname } from 'node:path';
import { describe, expect, it } from 'vitest';

/** Which layers each layer may import (ARCHITECTURE.md). Tests and fixtures obey the same rule. */
const ALLOWED: Record<string, string[]> = {
  model: [],
  store: ['model'],
  blobs: ['model', 'store'],
  history: ['model', 'store'],
  workspace: ['model'],
  transfer: ['model', 'store', 'blobs', 'history'],
  checkpoint: ['model', 'store', 'blobs', 'history', 'workspace'],
  rewind: ['model', 'store', 'blobs', 'history', 'workspace', 'checkpoint'],
  fork: ['model', 'store', 'blobs', 'history', 'workspace', 'checkpoint', 'rewind'],
  engine: ['model', 'store', 'blobs', 'history', 'workspace', 'checkpoint', 'rewind', 'fork'],
  operations: ['model', 'store', 'blobs', 'history', 'workspace', 'checkpoint', 'rewind', 'fork', 'engine', 'transfer'],
  runtime: ['model', 'store', 'blobs', 'history', 'workspace', 'checkpoint', 'rewind', 'fork', 'engine', 'transfer', 'operations'],
  integrations: ['model', 'store', 'blobs', 'history', 'workspace', 'checkpoint', 'rewind', 'fork', 'engine', 'transfer', 'operations', 'runtime'],
  mcp: ['model', 'store', 'blobs', 'history', 'workspace', 'checkpoint', 'rewind', 'fork', 'engine', 'transfer', 'operations', 'runtime'],
  server: ['model', 'store', 'blobs', 'history', 'workspace', 'checkpoint', 'rewind', 'fork', 'engine', 'transfer', 'operations', 'runtime'],
  cli: [
    'model',
    'store',
    'blobs',
    'history',
    'workspace',
    'checkpoint',
    'rewind',
    'fork',
    'engine',
    'transfer',
    'operations',
    'runtime',
    'integrations',
    'mcp',
    'server',
  ],
};

const src = resolve(import.meta.dirname, '..', 'src');

function files(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    return statSync(path).isDirectory() ? files(path) : path.endsWith('.ts') ? [path] : [];
  });
}

describe('layering', () => {
  it('imports only point down the layer table', () => {
    const violations: string[] = [];
    for (const file of files(src)) {
      const layer = relative(src, file).split('/')[0]!;
      if (!(layer in ALLOWED)) continue;
      for (const match of readFileSync(file, 'utf8').matchAll(/from '(\.[^']+)'/g)) {
        const target = relative(src, resolve(dirname(file), match[1]!)).split('/')[0]!;
        if (target === layer || !(target in ALLOWED)) continue;
        if (!ALLOWED[layer]!.includes(target)) violations.push(`${relative(src, file)} imports ${target}`);
      }
    }
    expect(violations).toEqual([]);
  });

  it('every engine folder has an explicit barrel (the CLI is a shell with main.ts)', () => {
    for (const layer of Object.keys(ALLOWED).filter((name) => name !== 'cli')) {
      const dir = join(src, layer);
      let exists: boolean;
      try {
        exists = statSync(dir).isDirectory();
      } catch {
        exists = false;
      }
      if (!exists) continue;
      // `export *` is allowed only from a sub-folder's own explicit barrel.
      const wildcards = [...readFileSync(join(dir, 'index.ts'), 'utf8').matchAll(/export \* from '([^']+)'/g)].map((match) => match[1]!);
      expect(wildcards.filter((target) => !target.endsWith('/index.js'))).toEqual([]);
    }
  });

  it('the CLI and the chat rewind and fork only through the operations (reads of lineage and the rewind ledger aside)', () => {
    const allowed = new Set(['renderFamilyTree', 'sessionFamily', 'ForkConfirmationRequiredError', 'ForkHasUnrecordedChangesError', 'RewindLedger']);
    const violations: string[] = [];
    for (const file of files(join(src, 'cli'))) {
      const text = readFileSync(file, 'utf8');
      for (const match of text.matchAll(/import \{([^}]*)\} from '(\.[^']*\/(?:rewind|fork)\/[^']*)'/g)) {
        const names = match[1]!
          .split(',')
          .map((name) => name.trim())
          .filter((name) => name !== '' && !name.startsWith('type '));
        for (const name of names) if (!allowed.has(name)) violations.push(`${relative(src, file)} imports ${name}`);
      }
      for (const match of text.matchAll(/\.files\.(?:preview|apply|redo|restore\w*|cascade)\(|\bforker\b|new SessionForker/g))
        violations.push(`${relative(src, file)} calls ${match[0]}`);
    }
    expect(violations).toEqual([]);
  });
});
