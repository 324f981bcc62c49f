import { createHash } from 'node:crypto';
import { createReadStream, createWriteStream, existsSync, fsyncSync, openSync, closeSync, renameSync, rmSync, statSync } from 'node:fs';
import { once } from 'node:events';
import { dirname, basename, join } from 'node:path';
import { createGunzip, createGzip } from 'node:zlib';
import { EXPORT_FORMAT, EXPORT_VERSION, TransferError, corruptFile, truncatedFile, type ExportFrame } from './transfer-format.js';

/**
 * Writes an export as a gzip-compressed JSON-lines file: each frame one line, then the end line
 * with the line count and the sha256 of every line before it. Written to a temporary name beside
 * `path`, synced, then renamed into place, so the file appears whole or not at all. An existing
 * file is refused (`EXPORT_TARGET_EXISTS`) unless `overwrite`. Returns the file's size in bytes.
 */
export async function writeExportFile(path: string, frames: AsyncIterable<ExportFrame>, options: { overwrite?: boolean } = {}): Promise<number> {
  if (!options.overwrite && existsSync(path)) {
    throw new TransferError({
      code: 'EXPORT_TARGET_EXISTS',
      message: `${path} exists already; nothing was written. Choose another name, or remove it first.`,
      details: { path },
    });
  }
  const temporary = join(dirname(path), `.${basename(path)}.${process.pid}.partial`);
  const file = createWriteStream(temporary);
  const gzip = createGzip({ level: 6 });
  gzip.pipe(file);
  const digest = createHash('sha256');
  let lines = 0;
  // Lines go to gzip in chunks of about 256 KiB: one deflate call per small line costs a thread-pool round trip each.
  let buffered: string[] = [];
  let bufferedLength = 0;
  const flush = async () => {
    if (buffered.length === 0) return;
    const chunk = buffered.join('');
    buffered = [];
    bufferedLength = 0;
    if (!gzip.write(chunk)) await once(gzip, 'drain');
  };
  const write = async (line: string) => {
    buffered.push(line);
    bufferedLength += line.length;
    if (bufferedLength >= 256 * 1024) await flush();
  };
  try {
    for await (const frame of frames) {
      const line = `${JSON.stringify(frame)}\n`;
      digest.update(line);
      lines++;
      await write(line);
    }
    await write(`${JSON.stringify({ t: 'end', lines, sha256: digest.digest('hex') } satisfies ExportFrame)}\n`);
    await flush();
    gzip.end();
    await once(file, 'close');
    const descriptor = openSync(temporary, 'r');
    try {
      fsyncSync(descriptor);
    } finally {
      closeSync(descriptor);
    }
    renameSync(temporary, path);
    return statSync(path).size;
  } catch (error) {
    gzip.destroy();
    file.destroy();
    rmSync(temporary, { force: true });
    throw error;
  }
}

/**
 * Reads an export file frame by frame without holding it in memory: checks the first line names
 * the format and a version this code reads, every line parses, and the end line's count and
 * digest match what came before; a file cut short is `EXPORT_FILE_TRUNCATED`, a damaged one
 * `EXPORT_FILE_CORRUPT`. Frames reach the caller before the end is checked: a caller commits only
 * once the iteration has finished.
 */
export async function* readExportFile(path: string): AsyncGenerator<ExportFrame> {
  if (!existsSync(path) || !statSync(path).isFile()) {
    throw new TransferError({ code: 'EXPORT_NOT_A_FILE', message: `${path} is not an export file (no such file).`, details: { path } });
  }
  const source = createReadStream(path);
  const gunzip = createGunzip();
  source.on('error', (error) => gunzip.destroy(error));
  source.pipe(gunzip);
  const digest = createHash('sha256');
  let lines = 0;
  let ended = false;
  let pending: Buffer[] = [];
  const frameOf = (bytes: Buffer): ExportFrame => {
    if (ended) throw corruptFile(path, 'data after the end line');
    let frame: ExportFrame;
    try {
      frame = JSON.parse(bytes.toString('utf8')) as ExportFrame;
    } catch (error) {
      throw corruptFile(path, `line ${lines + 1} is not JSON`, error);
    }
    if (lines === 0) checkHeader(path, frame);
    if (frame?.t === 'end') {
      if (frame.lines !== lines || frame.sha256 !== digest.digest('hex')) throw corruptFile(path, 'its content does not match the digest in its end line');
      ended = true;
      return frame;
    }
    digest.update(bytes);
    digest.update('\n');
    lines++;
    return frame;
  };
  try {
    for await (const chunk of gunzip as AsyncIterable<Buffer>) {
      let start = 0;
      for (let index = chunk.indexOf(10); index !== -1; index = chunk.indexOf(10, start)) {
        const line = Buffer.concat([...pending, chunk.subarray(start, index)]);
        pending = [];
        start = index + 1;
        yield frameOf(line);
      }
      if (start < chunk.length) pending.push(chunk.subarray(start));
    }
  } catch (error) {
    if (error instanceof TransferError) throw error;
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'Z_BUF_ERROR') throw truncatedFile(path, 'the compressed stream stops mid-way', error);
    if (code?.startsWith('Z_')) throw corruptFile(path, lines === 0 ? 'it is not a gzip-compressed Waypoint export' : 'its compressed data is damaged', error);
    throw error;
  } finally {
    source.destroy();
  }
  if (pending.length > 0) throw truncatedFile(path, 'its last line is incomplete');
  if (lines === 0) throw truncatedFile(path, 'it is empty');
  if (!ended) throw truncatedFile(path, 'it has no end line');
}

function checkHeader(path: string, frame: ExportFrame): void {
  if (frame?.t !== 'header' || frame.format !== EXPORT_FORMAT) throw corruptFile(path, 'its first line is not a Waypoint export header');
  if (typeof frame.version !== 'number' || frame.version > EXPORT_VERSION) {
    throw new TransferError({
      code: 'EXPORT_VERSION_UNSUPPORTED',
      message: `${path} is a Waypoint export of version ${String(frame.version)}; this Waypoint reads version ${EXPORT_VERSION} and older. Upgrade Waypoint to import it.`,
      details: { path, version: frame.version, supported: EXPORT_VERSION },
    });
  }
}
