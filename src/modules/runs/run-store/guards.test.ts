import { describe, expect, it } from 'vitest';
import { CLAIMABLE, CONVERSATION_NOT_OVER, HELD, NOT_STARTED, RUN_ACTIVE, RUN_FINAL, RUN_STARTS_FROM, RUN_TO_CANCELED, RUN_TO_GRADING, sqlList, TO_ERROR, TO_GRADING } from './guards.js';

describe('run store guards, read from the state tables', () => {
  it('name the statuses each statement may change', () => {
    expect(NOT_STARTED).toEqual(['pending']);
    expect(HELD).toEqual(['running', 'grading']);
    expect(CLAIMABLE).toEqual(['pending', 'running', 'grading']);
    expect(TO_GRADING).toEqual(['running']);
    expect(CONVERSATION_NOT_OVER).toEqual(['pending', 'running']);
    expect(TO_ERROR).toEqual(['pending', 'running', 'grading']);
    expect(RUN_ACTIVE).toEqual(['pending', 'running', 'grading']);
    expect(RUN_FINAL).toEqual(['completed', 'failed', 'canceled']);
    expect(RUN_STARTS_FROM).toEqual(['pending']);
    expect(RUN_TO_GRADING).toEqual(['running']);
    expect(RUN_TO_CANCELED).toEqual(['pending', 'running', 'grading']);
    expect(sqlList(HELD)).toBe("'running', 'grading'");
  });
});
