import { resolve } from 'node:path';
import { defineConfig } from 'vite';

// The browser UI, bundled into dist/web so `waypoint serve` serves it with no extra step. Relative
// asset URLs: the server may mount the page under any path.
export default defineConfig({
  root: import.meta.dirname,
  base: './',
  logLevel: 'warn',
  build: {
    outDir: resolve(import.meta.dirname, '..', 'dist', 'web'),
    emptyOutDir: true,
    sourcemap: false,
  },
});
