import { Type } from '@sinclair/typebox';
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { Deps } from '../../deps.js';
import { errors, IdParams, page, PageQuery, pathId } from '../../http/common.js';
import { judgeAgreement } from './agreement.service.js';
import { AgreementSchema, ReviewBody, ReviewSchema } from './reviews.schemas.js';
import { createReview, listReviews } from './reviews.service.js';

export const reviewRoutes = (deps: Deps): FastifyPluginAsyncTypebox => async (app) => {
  app.post('/scenario-runs/:id/reviews', {
    config: { idempotent: true },
    schema: {
      operationId: 'createReview', tags: ['Reviews'],
      summary: 'Review one criterion of a finished scenario run: the decision becomes the effective one and the scenario run and its run are re-scored',
      params: IdParams,
      body: ReviewBody,
      response: { 201: ReviewSchema, ...errors(400, 404, 409) },
    },
  }, async (req, reply) => reply.code(201).send(
    await createReview(deps, req.auth, pathId(req.params.id, 'SCENARIO_RUN_NOT_FOUND', 'Scenario run'), req.body),
  ));

  app.get('/scenario-runs/:id/reviews', {
    schema: {
      operationId: 'listReviews', tags: ['Reviews'], summary: 'Every review of a scenario run, oldest first (the latest per criterion is the effective one)',
      params: IdParams,
      querystring: Type.Object({ criterion_index: Type.Optional(Type.Integer({ minimum: 0, maximum: 999 })), ...PageQuery }),
      response: { 200: Type.Object({ reviews: Type.Array(ReviewSchema), total: Type.Integer(), limit: Type.Integer(), offset: Type.Integer() }), ...errors(400, 404) },
    },
  }, async (req) => listReviews(deps, req.auth, pathId(req.params.id, 'SCENARIO_RUN_NOT_FOUND', 'Scenario run'), req.query, page(req.query)));

  app.get('/judge/agreement', {
    schema: {
      operationId: 'getJudgeAgreement', tags: ['Reviews'], summary: 'How often the judge matched human reviews: agreement and Cohen\'s kappa, overall and per judge model',
      querystring: Type.Object({
        judge_model: Type.Optional(Type.String({ maxLength: 200, description: 'Only scenario runs graded by this judge model (exact match)' })),
        since: Type.Optional(Type.String({ maxLength: 64, description: 'ISO 8601 time: only criteria whose effective review was written at or after it' })),
      }),
      response: { 200: AgreementSchema, ...errors(400) },
    },
  }, async (req) => judgeAgreement(deps, req.auth, req.query));
};
