import { describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from './config.js';

describe('REHEARSAL_JUDGE_CONFIRMATIONS', () => {
  it('defaults to 2 and accepts 0 (off) to 10', () => {
    expect(loadConfig({}).judgeConfirmations).toBe(2);
    expect(loadConfig({ REHEARSAL_JUDGE_CONFIRMATIONS: '0' }).judgeConfirmations).toBe(0);
    expect(loadConfig({ REHEARSAL_JUDGE_CONFIRMATIONS: '10' }).judgeConfirmations).toBe(10);
  });

  it('rejects anything else, naming the variable', () => {
    for (const bad of ['11', '-1', '1.5', 'two']) {
      expect(() => loadConfig({ REHEARSAL_JUDGE_CONFIRMATIONS: bad }), bad).toThrow(ConfigError);
      expect(() => loadConfig({ REHEARSAL_JUDGE_CONFIRMATIONS: bad }), bad).toThrow(/REHEARSAL_JUDGE_CONFIRMATIONS/);
    }
  });
});
