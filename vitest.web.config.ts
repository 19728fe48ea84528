import { defineConfig } from 'vitest/config';

// The dashboard's browser tests drive Chromium (/usr/bin/chromium, or CHROMIUM_PATH): they run on their own
// (`npm run test:web`) so that `npm test` passes on a machine with only Node and npm.
export default defineConfig({
  test: {
    include: ['test/web/**/*.e2e.test.ts'],
    testTimeout: 60_000,
    hookTimeout: 120_000,
    pool: 'forks',
    fileParallelism: false,
  },
});
