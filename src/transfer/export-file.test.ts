import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gunzipSync, gzipSync } from 'node:zlib';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { WaypointError } from '../model/index.js';
import { readExportFile, writeExportFile } from './export-file.js';
import { EXPORT_FORMAT, type ExportFrame, type ExportHeader } from './transfer-format.js';

const header: ExportHeader = {
  t: 'header',
  format: EXPORT_FORMAT,
  version: 1,
  createdAt: 1,
  sessionId: 'ses_a',
  family: false,
  sessionIds: ['ses_a'],
  counts: { sessions: 0, messages: 0, entries: 0, turns: 0, checkpoints: 0, effects: 0, blobs: 1, blobBytes: 3 },
  missingBlobs: [],
};
const blob: ExportFrame = { t: 'blob', hash: 'f'.repeat(64), size: 3, data: Buffer.from('abc').toString('base64') };

async function* frames(...items: ExportFrame[]): AsyncGenerator<ExportFrame> {
  yield* items;
}

async function readAll(path: string): Promise<ExportFrame[]> {
  const read: ExportFrame[] = [];
  for await (const frame of readExportFile(path)) read.push(frame);
  return read;
}

async function codeOf(promise: Promise<unknown>): Promise<string> {
  const error = await promise.then(
    () => null,
    (caught: unknown) => caught,
  );
  expect(WaypointError.is(error)).toBe(true);
  return (error as WaypointError).code;
}

describe('export files', () => {
  let dir: string;
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'waypoint-export-file-'));
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  const rewrite = (path: string, edit: (text: string) => string) => writeFileSync(path, gzipSync(edit(gunzipSync(readFileSync(path)).toString('utf8'))));

  it('reads back what it wrote, ending with a verified end line; an existing file is refused unless overwritten', async () => {
    const path = join(dir, 'a.wpx');
    await writeExportFile(path, frames(header, blob));
    const read = await readAll(path);
    expect(read.slice(0, 2)).toEqual([header, blob]);
    expect(read[2]).toMatchObject({ t: 'end', lines: 2 });
    expect(await codeOf(writeExportFile(path, frames(header)))).toBe('EXPORT_TARGET_EXISTS');
    await writeExportFile(path, frames(header), { overwrite: true });
    expect(await readAll(path)).toHaveLength(2);
  });

  it('refuses a newer version, a changed line, data after the end, a missing end line, a cut stream and a missing file', async () => {
    const path = join(dir, 'a.wpx');
    await writeExportFile(path, frames(header, blob));
    const original = readFileSync(path);

    rewrite(path, (text) => text.replace('"version":1', '"version":2'));
    expect(await codeOf(readAll(path))).toBe('EXPORT_VERSION_UNSUPPORTED');

    writeFileSync(path, original);
    rewrite(path, (text) => text.replace('"size":3', '"size":4'));
    expect(await codeOf(readAll(path))).toBe('EXPORT_FILE_CORRUPT');

    writeFileSync(path, original);
    rewrite(path, (text) => `${text}${JSON.stringify(blob)}\n`);
    expect(await codeOf(readAll(path))).toBe('EXPORT_FILE_CORRUPT');

    writeFileSync(path, original);
    rewrite(path, (text) => text.split('\n').slice(0, 2).join('\n'));
    expect(await codeOf(readAll(path))).toBe('EXPORT_FILE_TRUNCATED');

    writeFileSync(path, original);
    rewrite(path, (text) => `${text.split('\n').slice(0, 2).join('\n')}\n`);
    expect(await codeOf(readAll(path))).toBe('EXPORT_FILE_TRUNCATED');

    writeFileSync(path, original.subarray(0, original.length - 12));
    expect(await codeOf(readAll(path))).toBe('EXPORT_FILE_TRUNCATED');

    expect(await codeOf(readAll(join(dir, 'none.wpx')))).toBe('EXPORT_NOT_A_FILE');
  });
});
