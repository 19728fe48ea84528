import { createElement, type FunctionComponent } from 'react';
import { renderToStaticMarkup } from 'react-dom/server';
import { describe, expect, it } from 'vitest';
import type { CriterionResult } from '../../web/src/types.js';

// Rendered to markup without a browser: what the scenario-run page says about confirmations and invented quotes.
// The page is JSX under the dashboard's own compiler settings, so it is loaded here without its types.
const PAGE = '../../web/src/pages/ScenarioRunPage.tsx';
const { CriterionCard } = (await import(PAGE)) as { CriterionCard: FunctionComponent<{ c: CriterionResult; onQuote: () => void; active: null }> };

const card = (c: CriterionResult) => renderToStaticMarkup(createElement('ul', null, createElement(CriterionCard, { c, onQuote: () => undefined, active: null })));
const base: CriterionResult = { criterion: 'Offers a discount', decision: 'UNSURE', points_awarded: 0, max_points: 1, rationale: "the judge's evidence is not in the transcript", graded_by: 'judge',
  judge_decision: 'UNSURE', review: null };

describe('criterion card', () => {
  it('shows the votes of a confirmed judgment and the quotes that were not in the transcript', () => {
    const html = card({ ...base, votes: ['NOT_MET', 'MET', 'MET'], rejected_quotes: [{ turn: 3, role: 'assistant', text: 'I can give you 20% off.', reason: 'not found in turn 3' }] });
    expect(html).toContain('Judge votes</span> NOT MET → MET → MET');
    expect(html).toContain('Quotes not in the transcript (ignored)');
    expect(html).toContain('<q>I can give you 20% off.</q> <span class="muted">cited as entry #3 (agent): not found in turn 3</span>');
  });

  it('says nothing extra for a single vote and no rejected quotes, or for results graded before votes existed', () => {
    for (const c of [{ ...base, votes: ['UNSURE' as const], rejected_quotes: [] }, base]) {
      const html = card(c);
      expect(html).not.toContain('Judge votes');
      expect(html).not.toContain('not in the transcript (ignored)');
    }
  });
});
