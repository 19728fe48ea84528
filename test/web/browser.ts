import { mkdirSync, readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import axe from 'axe-core';
import { chromium, type Browser, type Page } from 'playwright-core';

// Shared by the dashboard browser tests: the web build, Chromium, console capture, axe, screenshots.

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const WEB = join(ROOT, 'web');
const DIST_INDEX = join(WEB, 'dist', 'index.html');
export const SCREENSHOT_DIR = join(ROOT, 'docs', 'screenshots');

function newestMtime(path: string): number {
  const st = statSync(path);
  if (!st.isDirectory()) return st.mtimeMs;
  return Math.max(st.mtimeMs, ...readdirSync(path).map((n) => newestMtime(join(path, n))));
}

/** `npm run build` builds the dashboard; a missing or stale build (sources edited since) is rebuilt here. */
export async function ensureWebBuilt() {
  let built = 0;
  try { built = statSync(DIST_INDEX).mtimeMs; } catch { /* not built */ }
  const sources = Math.max(...['src', 'public', 'index.html', 'vite.config.ts'].map((p) => newestMtime(join(WEB, p))));
  if (built > sources) return;
  const { build } = await import('vite');
  await build({ configFile: join(WEB, 'vite.config.ts'), logLevel: 'warn' });
}

/** Headless Chromium from the Debian package (never a downloaded browser), light on shared CPUs. */
export function launchChromium(): Promise<Browser> {
  return chromium.launch({
    executablePath: process.env.CHROMIUM_PATH ?? '/usr/bin/chromium',
    headless: true,
    args: ['--no-sandbox', '--disable-gpu', '--disable-dev-shm-usage', '--disable-background-networking', '--disable-component-update', '--no-first-run', '--disable-sync'],
  });
}

/** Console errors and uncaught exceptions of a page, as they happen. */
export function captureErrors(page: Page): string[] {
  const errors: string[] = [];
  page.on('console', (m) => { if (m.type() === 'error') errors.push(`${m.text()} @ ${m.location().url}`); });
  page.on('pageerror', (e) => errors.push(`uncaught: ${e.message}`));
  return errors;
}

export interface AxeFinding { page: string; id: string; impact: string; help: string; targets: string[] }

/** axe-core on the current page; only serious and critical violations are returned. */
export async function axeScan(page: Page, label: string): Promise<AxeFinding[]> {
  if (!(await page.evaluate(() => 'axe' in window))) await page.addScriptTag({ content: axe.source });
  const result = await page.evaluate(async () => {
    const r = await (window as any).axe.run(document, { resultTypes: ['violations'] });
    return r.violations.map((v: any) => ({ id: v.id, impact: v.impact, help: v.help, targets: v.nodes.map((n: any) => String(n.target)) }));
  });
  return (result as Omit<AxeFinding, 'page'>[])
    .filter((v) => v.impact === 'serious' || v.impact === 'critical')
    .map((v) => ({ page: label, ...v }));
}

/** Screenshots for the README, only when asked for (REHEARSAL_SCREENSHOTS=1): a test run leaves the tree alone. */
export async function screenshot(page: Page, name: string, fullPage = true) {
  if (process.env.REHEARSAL_SCREENSHOTS !== '1') return;
  mkdirSync(SCREENSHOT_DIR, { recursive: true });
  await page.screenshot({ path: join(SCREENSHOT_DIR, `${name}.png`), fullPage, animations: 'disabled' });
}
