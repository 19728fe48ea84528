import { Type } from '@sinclair/typebox';
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { Deps } from '../../deps.js';
import { errors, IdParams, page, PageQuery } from '../../http/common.js';
import { CreateScheduleBody, FiringSchema, ScheduleSchema, UpdateScheduleBody } from './schedules.schemas.js';
import { createSchedule, deleteSchedule, getSchedule, listFirings, listSchedules, updateSchedule } from './schedules.service.js';

const tags = ['Schedules'];
const List = <T extends ReturnType<typeof Type.Object>>(key: string, item: T) =>
  Type.Object({ [key]: Type.Array(item), total: Type.Integer(), limit: Type.Integer(), offset: Type.Integer() });

export const scheduleRoutes = (deps: Deps): FastifyPluginAsyncTypebox => async (app) => {
  app.post('/schedules', {
    config: { idempotent: true },
    schema: {
      operationId: 'createSchedule', tags, summary: 'Create a schedule: a run started by cron, as POST /runs would start it',
      description: 'Fired by the job queue\'s scheduler within 30 s of each minute the cron names (in `timezone`), once per minute however many workers run. At the concurrent-run limit the firing is recorded as skipped.',
      body: CreateScheduleBody,
      response: { 201: ScheduleSchema, ...errors(400) },
    },
  }, async (req, reply) => reply.code(201).send(await createSchedule(deps, req.auth, req.body)));

  app.get('/schedules', {
    schema: { operationId: 'listSchedules', tags, summary: 'List schedules, newest first', querystring: Type.Object(PageQuery), response: { 200: List('schedules', ScheduleSchema), ...errors(400) } },
  }, async (req) => listSchedules(deps, req.auth, page(req.query)));

  app.get('/schedules/:id', {
    schema: { operationId: 'getSchedule', tags, summary: 'Get a schedule with next_run_at and last_run_id', params: IdParams, response: { 200: ScheduleSchema, ...errors(404) } },
  }, async (req) => getSchedule(deps, req.auth, req.params.id));

  app.patch('/schedules/:id', {
    schema: {
      operationId: 'updateSchedule', tags, summary: 'Change any subset of a schedule\'s fields (it fires for no minute before the change)', params: IdParams,
      body: UpdateScheduleBody, response: { 200: ScheduleSchema, ...errors(400, 404) },
    },
  }, async (req) => updateSchedule(deps, req.auth, req.params.id, req.body));

  app.delete('/schedules/:id', {
    schema: { operationId: 'deleteSchedule', tags, summary: 'Delete a schedule (its runs stay)', params: IdParams, response: { 204: Type.Null(), ...errors(404) } },
  }, async (req, reply) => {
    await deleteSchedule(deps, req.auth, req.params.id);
    return reply.code(204).send(null);
  });

  app.get('/schedules/:id/firings', {
    schema: {
      operationId: 'listScheduleFirings', tags, summary: 'Each firing of a schedule, newest first: the run it created, or why it was skipped', params: IdParams,
      querystring: Type.Object(PageQuery), response: { 200: List('firings', FiringSchema), ...errors(400, 404) },
    },
  }, async (req) => listFirings(deps, req.auth, req.params.id, page(req.query)));
};
