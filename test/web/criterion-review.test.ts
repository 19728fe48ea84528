import { createElement, type FunctionComponent } from 'react';
import { renderToStaticMarkup } from 'react-dom/server';
import { describe, expect, it } from 'vitest';
import type { CriterionResult } from '../../web/src/types.js';

// Rendered to markup without a browser: what a criterion says once a person reviewed it.
const PAGE = '../../web/src/pages/CriterionReview.tsx';
type Props = { c: CriterionResult; scenarioRunId: string; index: number; onSaved: () => void };
const { CriterionReview } = (await import(PAGE)) as { CriterionReview: FunctionComponent<Props> };

const render = (c: CriterionResult) => renderToStaticMarkup(createElement(CriterionReview, { c, scenarioRunId: 'sr', index: 1, onSaved: () => undefined }));
const base: CriterionResult = {
  criterion: 'Confirms the date', decision: 'MET', points_awarded: 1, max_points: 1, rationale: 'said Tuesday', graded_by: 'judge', judge_decision: 'MET', review: null,
};

describe('criterion review', () => {
  it('offers a correction on a criterion nobody reviewed', () => {
    const html = render(base);
    expect(html).toContain('Correct this decision');
    expect(html).not.toContain('Reviewed');
  });

  it('shows the review next to what the judge said, with the reviewer and the note', () => {
    const html = render({
      ...base, decision: 'NOT_MET', points_awarded: 0,
      review: {
        id: '0190f0f0-0000-7000-8000-000000000009', criterion_index: 1, decision: 'NOT_MET', note: 'It never said a date', judge_decision: 'MET',
        reviewer: { api_key_id: '0190f0f0-0000-7000-8000-000000000001', name: 'qa-lead' }, created_at: '2026-11-25T10:00:00.000Z',
      },
    });
    expect(html).toContain('<span class="label">Reviewed</span> NOT MET by qa-lead');
    expect(html).toContain('the judge said MET');
    expect(html).toContain('<q>It never said a date</q>');
    expect(html).toContain('Review again');
  });
});
