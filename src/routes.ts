import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { Deps } from './deps.js';
import { agentRoutes } from './modules/agents/agents.routes.js';
import { apiKeyRoutes } from './modules/api-keys/api-keys.routes.js';
import { reviewRoutes } from './modules/reviews/reviews.routes.js';
import { comparisonRoutes } from './modules/runs/comparison.routes.js';
import { runRoutes } from './modules/runs/runs.routes.js';
import { cancelRunsOfAgent } from './modules/runs/runs.service.js';
import { scenarioRunRoutes } from './modules/scenario-runs/scenario-runs.routes.js';
import { scenarioRoutes } from './modules/scenarios/scenarios.routes.js';
import { sessionRoutes } from './modules/sessions/sessions.routes.js';
import { testSuiteRoutes } from './modules/test-suites/test-suites.routes.js';
import { webhookRoutes } from './modules/webhooks/webhooks.routes.js';
import { scheduleRoutes } from './modules/schedules/schedules.routes.js';

export const apiRoutes = (deps: Deps): FastifyPluginAsyncTypebox => async (app) => {
  await app.register(apiKeyRoutes(deps));
  await app.register(agentRoutes(deps, (orgId, agentId) => cancelRunsOfAgent(deps, orgId, agentId)));
  await app.register(runRoutes(deps));
  await app.register(comparisonRoutes(deps));
  await app.register(scenarioRunRoutes(deps));
  await app.register(reviewRoutes(deps));
  await app.register(scenarioRoutes(deps));
  await app.register(testSuiteRoutes(deps));
  await app.register(webhookRoutes(deps));
  await app.register(sessionRoutes(deps));
  await app.register(scheduleRoutes(deps));
};
