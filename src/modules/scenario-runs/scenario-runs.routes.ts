import { Type } from '@sinclair/typebox';
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { Deps } from '../../deps.js';
import { CriterionResult, Decision, ScenarioMetrics, TranscriptEntry } from '../../engine/types.js';
import { ReviewSchema } from '../reviews/reviews.schemas.js';
import { errors, IdParams, Nullable, page, PageQuery, pathId, Timestamp, Uuid } from '../../http/common.js';
import { AttemptEntry, VerdictFields } from '../runs/verdict-fields.js';
import { getScenarioRun, listScenarioRuns } from './scenario-runs.service.js';
import { getScenarioRunDiff } from './diff.js';

const common = {
  id: Uuid, test_run_id: Uuid, scenario_id: Uuid, scenario_name: Type.String(),
  repetition: Type.Integer({ minimum: 1, description: 'Which of the run\'s repeats of this scenario (1-based)' }),
  passed: Nullable(Type.Boolean({ description: 'null until graded' })), grade_summary: Nullable(Type.String()),
  duration_ms: Nullable(Type.Integer()), error_message: Nullable(Type.String()), created_at: Timestamp, completed_at: Nullable(Timestamp),
  ...VerdictFields,
};

const ScenarioRunListItem = Type.Object({ ...common, status: Type.String({ enum: ['pending', 'running', 'completed', 'error'] }) });

// A criterion's result as the API shows it: `decision` is the effective one (a person's review overrides the judge).
const ReviewedCriterionResult = Type.Composite([CriterionResult, Type.Object({
  judge_decision: Decision,
  review: Nullable(ReviewSchema),
})], { description: 'decision is the effective decision: the latest review\'s when the criterion was reviewed, else judge_decision' });

export const ScenarioRunSchema = Type.Object({
  ...common,
  status: Type.String({ enum: ['pending', 'running', 'grading', 'passed', 'failed', 'error'] }),
  criteria_results: Type.Array(ReviewedCriterionResult),
  transcript: Type.Array(TranscriptEntry),
  started_at: Nullable(Timestamp),
  metrics: Nullable(ScenarioMetrics),
  tester_model: Nullable(Type.String({ description: 'The model that played the caller; null for the scripted tester' })),
  judge_model: Nullable(Type.String({ description: 'The model that graded judge criteria; null when none was configured' })),
  judge_prompt_version: Nullable(Type.String({ description: 'Digest of the judge prompt template (wording, transcript format, answer schema); null when no judge model was configured' })),
  scenario_version: Nullable(Type.String({ description: 'Digest of the template content grading and the tester depend on (persona, goal, instructions, opening_message, script, criteria, pass_threshold, max_turns)' })),
  attempts: Type.Integer({ description: 'Conversations started for it; 1 + attempt_history length once final' }),
  attempt_history: Type.Array(AttemptEntry, { description: 'The attempts that did not count, oldest first' }),
}, { $id: 'ScenarioRun' });

export const scenarioRunRoutes = (deps: Deps): FastifyPluginAsyncTypebox => async (app) => {
  app.get('/scenario-runs', {
    schema: { operationId: 'listScenarioRuns',
      tags: ['Scenario runs'], summary: 'List the scenario runs of a run (graded ones show status "completed")',
      querystring: Type.Object({
        test_run_id: Type.Optional(Type.String({ maxLength: 64, description: 'Required: parent run UUID (or TR-<digits>)' })),
        status: Type.Optional(Type.String({ maxLength: 20, description: 'pending, running, completed, failed, error' })),
        passed: Type.Optional(Type.Boolean()),
        fault: Type.Optional(Type.String({ maxLength: 20, description: 'agent, tester, judge, provider, internal or canceled' })),
        ...PageQuery,
      }),
      response: { 200: Type.Object({ scenario_runs: Type.Array(ScenarioRunListItem), total: Type.Integer(), limit: Type.Integer(), offset: Type.Integer() }), ...errors(400, 404) },
    },
  }, async (req) => listScenarioRuns(deps, req.auth, req.query, page(req.query)));

  app.get('/scenario-runs/:id', {
    schema: { operationId: 'getScenarioRun', tags: ['Scenario runs'], summary: 'A scenario run with transcript and graded criteria', params: IdParams, response: { 200: ScenarioRunSchema, ...errors(404) } },
  }, async (req) => getScenarioRun(deps, req.auth, pathId(req.params.id, 'SCENARIO_RUN_NOT_FOUND', 'Scenario run')));

  app.get('/scenario-runs/:id/diff', {
    schema: {
      operationId: 'diffScenarioRuns', tags: ['Scenario runs'], summary: 'Two scenario runs side by side: transcripts aligned by position, first divergence, criteria', params: IdParams,
      querystring: Type.Object({ against: Type.Optional(Type.String({ maxLength: 64, description: 'Required: the other scenario run\'s UUID' })) }),
      response: {
        200: Type.Object({
          first_divergence: Nullable(Type.Integer(), { description: 'Index of the first entry that differs; null when identical' }),
          entries: Type.Array(Type.Object({
            index: Type.Integer(), role: Type.String({ enum: ['user', 'assistant'] }),
            current: Nullable(Type.String()), against: Nullable(Type.String()),
            same: Type.Boolean({ description: 'Role, content and tool calls equal' }),
          })),
          criteria: Type.Array(Type.Object({
            criterion_index: Type.Integer(), criterion: Type.String(),
            current: Nullable(Type.String()), against: Nullable(Type.String()), same: Type.Boolean(),
          })),
        }),
        ...errors(400, 404),
      },
    },
  }, async (req) => getScenarioRunDiff(deps, req.auth, pathId(req.params.id, 'SCENARIO_RUN_NOT_FOUND', 'Scenario run'), req.query.against));
};
