import type { Tester } from './types.js';

/** Plays the template's `script` lines in order and ends the call when they run out. */
export function createScriptedTester(script: readonly string[]): Tester {
  let i = 0;
  return {
    model: null,
    async next() {
      if (i >= script.length) return { kind: 'end', reason: 'script exhausted' };
      return { kind: 'message', content: script[i++] };
    },
    remaining: () => script.length - i,
  };
}
