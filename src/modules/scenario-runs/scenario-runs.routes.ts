import { Type } from '@sinclair/typebox';
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { Deps } from '../../deps.js';
import { CriterionResult, ScenarioMetrics, TranscriptEntry } from '../../engine/types.js';
import { errors, IdParams, Nullable, page, PageQuery, pathId, Timestamp, Uuid } from '../../http/common.js';
import { getScenarioRun, listScenarioRuns } from './scenario-runs.service.js';

const common = {
  id: Uuid, test_run_id: Uuid, scenario_id: Uuid, scenario_name: Type.String(),
  passed: Nullable(Type.Boolean({ description: 'null until graded' })), grade_summary: Nullable(Type.String()),
  duration_ms: Nullable(Type.Integer()), error_message: Nullable(Type.String()), created_at: Timestamp, completed_at: Nullable(Timestamp),
};

const ScenarioRunListItem = Type.Object({ ...common, status: Type.String({ enum: ['pending', 'running', 'completed', 'error'] }) });

export const ScenarioRunSchema = Type.Object({
  ...common,
  status: Type.String({ enum: ['pending', 'running', 'grading', 'passed', 'failed', 'error'] }),
  criteria_results: Type.Array(CriterionResult),
  transcript: Type.Array(TranscriptEntry),
  started_at: Nullable(Timestamp),
  metrics: Nullable(ScenarioMetrics),
  tester_model: Nullable(Type.String({ description: 'The model that played the caller; null for the scripted tester' })),
  judge_model: Nullable(Type.String({ description: 'The model that graded judge criteria; null when none was configured' })),
  attempts: Type.Integer({ description: 'Conversation attempts (more than 1 after a worker crash)' }),
}, { $id: 'ScenarioRun' });

export const scenarioRunRoutes = (deps: Deps): FastifyPluginAsyncTypebox => async (app) => {
  app.get('/scenario-runs', {
    schema: {
      tags: ['Scenario runs'], summary: 'List the scenario runs of a run (graded ones show status "completed")',
      querystring: Type.Object({
        test_run_id: Type.Optional(Type.String({ description: 'Required: parent run UUID (or TR-<digits>)' })),
        status: Type.Optional(Type.String({ description: 'pending, running, completed, failed, error' })),
        passed: Type.Optional(Type.Boolean()),
        ...PageQuery,
      }),
      response: { 200: Type.Object({ scenario_runs: Type.Array(ScenarioRunListItem), total: Type.Integer(), limit: Type.Integer(), offset: Type.Integer() }), ...errors(400, 404) },
    },
  }, async (req) => listScenarioRuns(deps, req.auth, req.query, page(req.query)));

  app.get('/scenario-runs/:id', {
    schema: { tags: ['Scenario runs'], summary: 'A scenario run with transcript and graded criteria', params: IdParams, response: { 200: ScenarioRunSchema, ...errors(404) } },
  }, async (req) => getScenarioRun(deps, req.auth, pathId(req.params.id, 'SCENARIO_RUN_NOT_FOUND', 'Scenario run')));
};
