import { fileURLToPath } from 'node:url';
import react from '@vitejs/plugin-react';
import { defineConfig } from 'vite';

// The dashboard is served by the API process itself (src/http/web-static.ts), so it lives at / and talks to
// /api/v1 on its own origin. `npx vite --config web/vite.config.ts` serves it with hot reload and forwards the
// API to a `rehearsal serve` on :3000.
export default defineConfig({
  root: fileURLToPath(new URL('.', import.meta.url)),
  base: '/',
  plugins: [react()],
  build: {
    outDir: 'dist',
    emptyOutDir: true,
    sourcemap: false,
    rollupOptions: {
      output: {
        // separate long-lived vendor chunks: a dashboard change does not invalidate the cached libraries
        manualChunks(id) {
          if (!id.includes('/node_modules/')) return undefined;
          return /\/node_modules\/(react|react-dom|react-router|react-router-dom|scheduler|cookie|set-cookie-parser)\//.test(id) ? 'react' : 'vendor';
        },
      },
    },
  },
  server: { proxy: { '/api': 'http://127.0.0.1:3000' } },
});
