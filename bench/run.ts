/**
 * `npm run bench [-- --quick] [-- suite-name …]`: runs every suite in bench/suites, prints a table
 * and writes JSON to bench/results/<timestamp>.json. Figures are ratios against baselines measured in
 * the same run, never absolute timing assertions.
 */
import { mkdirSync, readdirSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { createContext, type BenchResult, type BenchSuite } from './harness.js';

const here = dirname(fileURLToPath(import.meta.url));
const args = process.argv.slice(2);
const quick = args.includes('--quick');
const only = args.filter((arg) => !arg.startsWith('--'));

const files = readdirSync(join(here, 'suites'))
  .filter((file) => file.endsWith('.ts'))
  .sort();
const results: BenchResult[] = [];
for (const file of files) {
  const suite = (await import(join(here, 'suites', file))).default as BenchSuite;
  if (only.length > 0 && !only.includes(suite.name)) continue;
  const { context, cleanup } = createContext(quick);
  process.stderr.write(`# ${suite.name}\n`);
  try {
    const suiteResults = await suite.run(context);
    for (const result of suiteResults) process.stderr.write(`  ${formatRow(result)}\n`);
    results.push(...suiteResults);
  } finally {
    cleanup();
  }
}

console.log(`\n${table(results)}`);
const resultsDir = join(here, 'results');
mkdirSync(resultsDir, { recursive: true });
const file = join(resultsDir, `${new Date().toISOString().replace(/[:.]/g, '-')}.json`);
writeFileSync(file, JSON.stringify({ node: process.version, quick, date: new Date().toISOString(), results }, null, 2));
console.log(`\nwrote ${file}`);
const missed = results.filter((result) => result.met === false);
if (missed.length > 0) console.log(`goals missed: ${missed.map((result) => `${result.suite}/${result.name}`).join(', ')}`);

function formatValue(value: number, unit: string): string {
  if (unit === 'bytes') return value >= 1024 * 1024 ? `${(value / 1024 / 1024).toFixed(2)} MiB` : `${(value / 1024).toFixed(1)} KiB`;
  if (unit === 'ms') return value < 1 ? `${(value * 1000).toFixed(0)} µs` : `${value.toFixed(2)} ms`;
  return `${value.toFixed(2)} ${unit}`;
}

function formatRow(result: BenchResult): string {
  const base = result.baseline ? ` vs ${result.baseline.name} ${formatValue(result.baseline.value, result.unit)}` : '';
  const ratio = result.ratio === undefined ? '' : ` ratio ${result.ratio.toFixed(2)}`;
  const goal = result.goal ? ` goal ${result.goal} ${result.met ? 'met' : 'MISSED'}` : '';
  return `${result.name}: ${formatValue(result.value, result.unit)}${base}${ratio}${goal}${result.note ? ` (${result.note})` : ''}`;
}

function table(rows: BenchResult[]): string {
  const header = ['suite', 'measure', 'value', 'baseline', 'ratio', 'goal', 'met'];
  const body = rows.map((row) => [
    row.suite,
    row.name,
    formatValue(row.value, row.unit),
    row.baseline ? `${row.baseline.name} ${formatValue(row.baseline.value, row.unit)}` : '',
    row.ratio === undefined ? '' : row.ratio.toFixed(2),
    row.goal ?? '',
    row.met === undefined ? '' : row.met ? 'yes' : 'NO',
  ]);
  const widths = header.map((cell, index) => Math.max(cell.length, ...body.map((row) => row[index]!.length)));
  const line = (cells: string[]) => cells.map((cell, index) => cell.padEnd(widths[index]!)).join(' | ');
  return [line(header), widths.map((width) => '-'.repeat(width)).join('-|-'), ...body.map(line)].join('\n');
}
