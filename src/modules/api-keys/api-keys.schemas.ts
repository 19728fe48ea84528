import { Type, type Static } from '@sinclair/typebox';
import { Nullable } from '../../http/common.js';

// Request bodies of the API-key routes; the service takes their Static types as its inputs (the CLI's
// control socket calls it too, without the HTTP validation, so the service still checks the dates).

export const CreateApiKeyBody = Type.Object(
  { name: Type.String({ minLength: 1, maxLength: 200 }), expires_at: Type.Optional(Nullable(Type.String({ format: 'date-time' }))) },
  { additionalProperties: false },
);
export type CreateApiKeyInput = Static<typeof CreateApiKeyBody>;
