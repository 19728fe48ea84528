import { defineConfig } from 'vitest/config';

// The chaos suite restarts a PostgreSQL server and kills processes: it runs on its own (`npm run test:chaos`),
// never inside `npm test`, whose include patterns do not match `*.chaos.ts`.
export default defineConfig({
  test: {
    include: ['test/chaos/**/*.chaos.ts'],
    testTimeout: 900_000,
    hookTimeout: 120_000,
    pool: 'forks',
    fileParallelism: false,
  },
});
