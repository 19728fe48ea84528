import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['src/**/*.test.ts', 'test/**/*.test.ts'],
    // browser tests need Chromium: `npm run test:web` (vitest.web.config.ts)
    exclude: ['**/node_modules/**', 'test/web/**/*.e2e.test.ts'],
    testTimeout: 30_000,
    hookTimeout: 60_000,
    pool: 'forks',
  },
});
