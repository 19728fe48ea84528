import { Type, type Static } from '@sinclair/typebox';
import { Nullable, PageQuery } from '../../http/common.js';

// Request schemas of the webhook routes; the service takes their Static types as its inputs. agent_id is a
// plain string on purpose: the service answers a malformed one with INVALID_FIELD_VALUE naming the field.

// test_run_regressed: a run with a baseline that ends with verdict "regressed" (sent besides its test_run_completed)
export const WEBHOOK_EVENTS = ['test_run_completed', 'test_run_failed', 'test_run_canceled', 'test_run_regressed'] as const;
export type WebhookEvent = (typeof WEBHOOK_EVENTS)[number];

const Url = Type.String({ minLength: 1, maxLength: 2048, description: 'Absolute http(s) URL' });
const Secret = Type.String({ minLength: 1, maxLength: 256, description: 'Signing secret (Standard Webhooks); write-only' });
const Description = Nullable(Type.String({ maxLength: 2000 }));
const Events = Type.Array(Type.String({ enum: [...WEBHOOK_EVENTS] }), { minItems: 1, maxItems: 10, uniqueItems: true });

export const CreateWebhookBody = Type.Object({
  url: Url, secret: Type.Optional(Secret), description: Type.Optional(Description),
  agent_id: Type.Optional(Nullable(Type.String({ maxLength: 64, description: 'UUID of an agent: only its runs are notified' }))),
  events: Type.Optional(Events),
}, { additionalProperties: false });
export type CreateWebhookInput = Static<typeof CreateWebhookBody>;

export const UpdateWebhookBody = Type.Object({
  url: Type.Optional(Url), secret: Type.Optional(Secret), description: Type.Optional(Description),
  events: Type.Optional(Events), is_active: Type.Optional(Type.Boolean()),
}, { additionalProperties: false });
export type UpdateWebhookInput = Static<typeof UpdateWebhookBody>;

export const WebhookListQuery = Type.Object({ agent_id: Type.Optional(Type.String({ maxLength: 64, description: 'Only the webhooks of this agent' })), ...PageQuery });
export type WebhookListQuery = Static<typeof WebhookListQuery>;
