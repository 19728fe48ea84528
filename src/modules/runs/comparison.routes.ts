import { Type } from '@sinclair/typebox';
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { Deps } from '../../deps.js';
import { errors, Nullable, page, PageQuery, Uuid } from '../../http/common.js';
import { CHANGES } from './comparison.js';
import { getComparison } from './comparison.service.js';
import { findRunRow } from './runs.service.js';
import { PercentInterval } from './runs.view.js';
import { listRunScenarios } from './scenario-aggregates.js';

const RunParams = Type.Object({ id: Type.String({ description: 'Run UUID or human id TR-<digits>' }) });
const Decision = Type.String({ enum: ['MET', 'PARTIAL', 'NOT_MET', 'UNSURE'] });

const ScenarioAggregate = Type.Object({
  scenario_id: Uuid, scenario_name: Type.String(),
  attempts: Type.Integer({ description: 'The scenario\'s repetitions in this run = passed + failed + error + pending' }),
  passed: Type.Integer(), failed: Type.Integer(), error: Type.Integer(), pending: Type.Integer({ description: 'Repetitions not final yet' }),
  pass_rate: Nullable(Type.Number(), { description: '100 × passed / (passed + failed), 2 decimals; null when nothing was graded' }),
  pass_all: Type.Boolean({ description: 'pass^k: every repetition finished, none errored, all passed' }),
  pass_rate_ci: Nullable(PercentInterval, { description: '95 % Wilson interval of pass_rate in percent; null when nothing was graded' }),
  verdict: Type.String({ enum: ['pending', 'error', 'pass', 'fail', 'flaky'] }),
  criteria: Type.Array(Type.Object({
    criterion_index: Type.Integer(), criterion: Type.String(),
    met: Type.Integer(), partial: Type.Integer(), not_met: Type.Integer(), unsure: Type.Integer(),
  }), { description: 'Per criterion of the template, decisions counted over graded repetitions' }),
}, { $id: 'ScenarioAggregate' });

const SideCounts = Type.Object({ attempts: Type.Integer(), passed: Type.Integer(), failed: Type.Integer(), error: Type.Integer() });

const ComparisonSchema = Type.Object({
  run_id: Uuid, baseline_run_id: Uuid,
  verdict: Type.String({ enum: ['pending', 'regressed', 'improved', 'inconclusive', 'unchanged'] }),
  pass_rate: Type.Object({ baseline: Nullable(Type.Number()), current: Nullable(Type.Number()), delta: Nullable(Type.Number()) }),
  counts: Type.Object(Object.fromEntries(CHANGES.map((c) => [c, Type.Integer()]))),
  scenarios: Type.Array(Type.Object({
    scenario_id: Uuid, scenario_name: Type.String(), change: Type.String({ enum: [...CHANGES] }),
    significant: Type.Boolean({ description: 'p below 0.05 after Holm correction across the scenarios that have a p_value' }),
    p_value: Nullable(Type.Number(), { description: 'One-sided Fisher exact test in the direction of the change; null unless regressed or improved' }),
    baseline: SideCounts, current: SideCounts,
    criteria: Type.Array(Type.Object({
      criterion_index: Type.Integer(), criterion: Type.String(), baseline: Nullable(Decision), current: Nullable(Decision),
      change: Type.String({ enum: ['same', 'changed'] }),
    })),
  })),
  comparability: Type.Object({ comparable: Type.Boolean(), warnings: Type.Array(Type.String()) }),
}, { $id: 'Comparison' });

export const comparisonRoutes = (deps: Deps): FastifyPluginAsyncTypebox => async (app) => {
  app.get('/runs/:id/scenarios', {
    schema: {
      operationId: 'listRunScenarios', tags: ['Runs'], summary: 'Per-scenario aggregates over the run\'s repetitions, suite order', params: RunParams,
      querystring: Type.Object({ ...PageQuery }),
      response: {
        200: Type.Object({ scenarios: Type.Array(ScenarioAggregate), total: Type.Integer(), limit: Type.Integer(), offset: Type.Integer() }),
        ...errors(400, 404),
      },
    },
  }, async (req) => {
    const row = await findRunRow(deps, req.auth, req.params.id);
    return listRunScenarios(deps, req.auth, row?.id ?? null, page(req.query, 100, 500));
  });

  app.get('/runs/:id/comparison', {
    schema: {
      operationId: 'getRunComparison', tags: ['Runs'], summary: 'Compare a run with its baseline (or ?against=): per-scenario changes, significance, warnings', params: RunParams,
      querystring: Type.Object({ against: Type.Optional(Type.String({ maxLength: 64, description: 'Run UUID or TR-<digits>; default the run\'s baseline' })) }),
      response: { 200: ComparisonSchema, ...errors(400, 404, 409) },
    },
  }, async (req) => getComparison(deps, req.auth, req.params.id, req.query.against));
};
