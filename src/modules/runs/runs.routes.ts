import { Type } from '@sinclair/typebox';
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { Deps } from '../../deps.js';
import { ScenarioMetrics } from '../../engine/types.js';
import { errors, Nullable, page, Uuid } from '../../http/common.js';
import { cancelRun, createRun, getRun, getRunResults, listRuns } from './runs.service.js';
import { RunSchema, RunWarnings } from './runs.view.js';
import { VerdictFields } from './verdict-fields.js';
import { planRun, RunPlanSchema } from './run-plan.js';
import { CreateRunBody, CreateRunQuery, RunListQuery, RunResultsQuery } from './runs.schemas.js';

const RunParams = Type.Object({ id: Type.String({ description: 'Run UUID or human id TR-<digits>' }) });

const ScenarioResult = Type.Object({
  id: Uuid, scenario_id: Uuid, scenario_name: Type.String(), repetition: Type.Integer({ minimum: 1 }),
  status: Type.String({ enum: ['passed', 'failed', 'error', 'pending', 'running', 'grading'] }),
  passed: Type.Boolean({ description: 'false for scenario runs that errored or have not finished' }),
  grade_summary: Nullable(Type.String()), error_message: Nullable(Type.String()), duration_ms: Nullable(Type.Integer()),
  metrics: Nullable(ScenarioMetrics),
  ...VerdictFields,
});

export const runRoutes = (deps: Deps): FastifyPluginAsyncTypebox => async (app) => {
  app.post('/runs', {
    config: { idempotent: true },
    schema: { operationId: 'createRun',
      tags: ['Runs'], summary: 'Start a test run of a suite against an agent',
      description: 'With `dry_run=true` no run is created: 200 with the plan (scenarios, conversations, the most turns and model calls) and the estimated LLM cost; validation is the same.',
      querystring: CreateRunQuery,
      body: CreateRunBody,
      response: {
        201: Type.Object({ id: Uuid, test_run_id: Type.String(), status: Type.String(), total_scenarios: Type.Integer(), poll_url: Type.String(), warnings: RunWarnings }),
        200: RunPlanSchema,
        ...errors(400, 409),
      },
    },
  }, async (req, reply) => (req.query.dry_run
    ? reply.code(200).send(await planRun(deps, req.auth, req.body))
    : reply.code(201).send(await createRun(deps, req.auth, req.body))));

  app.get('/runs', {
    schema: { operationId: 'listRuns',
      tags: ['Runs'], summary: 'List runs, newest first',
      querystring: RunListQuery,
      response: { 200: Type.Object({ runs: Type.Array(RunSchema), total: Type.Integer(), limit: Type.Integer(), offset: Type.Integer() }), ...errors(400) },
    },
  }, async (req) => listRuns(deps, req.auth, req.query, page(req.query)));

  app.get('/runs/:id', {
    schema: { operationId: 'getRun', tags: ['Runs'], summary: 'Get a run (poll every 5 s until completed, failed or canceled)', params: RunParams, response: { 200: RunSchema, ...errors(404) } },
  }, async (req) => getRun(deps, req.auth, req.params.id));

  app.get('/runs/:id/results', {
    schema: { operationId: 'getRunResults',
      tags: ['Runs'], summary: 'A run with its scenario results, in suite order', params: RunParams,
      querystring: RunResultsQuery,
      response: {
        200: Type.Composite([Type.Omit(RunSchema, []), Type.Object({
          results: Type.Array(ScenarioResult), results_total: Type.Integer(), results_limit: Type.Integer(), results_offset: Type.Integer(),
        })]),
        ...errors(400, 404),
      },
    },
  }, async (req) => getRunResults(deps, req.auth, req.params.id, req.query, page(req.query, 100, 500)));

  app.post('/runs/:id/cancel', {
    schema: { operationId: 'cancelRun',
      tags: ['Runs'], summary: 'Cancel a pending, running or grading run (idempotent on a canceled run)', params: RunParams,
      response: { 200: RunSchema, ...errors(404, 409) },
    },
  }, async (req) => cancelRun(deps, req.auth, req.params.id));
};
