import { Type, type Static } from '@sinclair/typebox';
import { Nullable } from '../../http/common.js';

// Request bodies of the agent routes; the service takes their Static types as its inputs.

const Name = Type.String({ minLength: 1, maxLength: 200 });
const Description = Nullable(Type.String({ maxLength: 2000 }));
const Config = Type.Unknown({ description: 'Provider-specific configuration (see docs/providers.md); write-only' });

const ToolName = Type.String({ minLength: 1, maxLength: 200 });
export const ToolNames = Type.Union([Type.Array(ToolName, { maxItems: 500 }), Type.Null()], {
  description: "The agent's tool names; null = unknown, [] = no tools. Default: the names in config.tools for provider_4, otherwise null. " +
    'A tool check on a name the agent neither has nor called stays UNSURE.',
});
export const ToolAliases = Type.Record(Type.String(), Nullable(ToolName), {
  maxProperties: 500,
  description: "Template tool name → this agent's tool name, or null for \"this agent has no such tool\". Default {}.",
});

// `provider` is a plain string here: the service answers an unknown value with the list of valid ones.
export const CreateAgentBody = Type.Object(
  {
    provider: Type.String({ maxLength: 100 }), name: Name, description: Type.Optional(Description), config: Config,
    tool_names: Type.Optional(ToolNames), tool_aliases: Type.Optional(ToolAliases),
  },
  { additionalProperties: false, required: ['provider', 'name', 'config'] },
);
export type CreateAgentInput = Static<typeof CreateAgentBody>;

export const UpdateAgentBody = Type.Object(
  { provider: Type.Optional(Type.String({ maxLength: 100 })), name: Type.Optional(Name), description: Type.Optional(Description), config: Type.Optional(Config), is_active: Type.Optional(Type.Boolean()),
    tool_names: Type.Optional(ToolNames), tool_aliases: Type.Optional(ToolAliases),
  },
  { additionalProperties: false },
);
export type UpdateAgentInput = Static<typeof UpdateAgentBody>;

export const AgentQuery = Type.Object({ provider: Type.Optional(Type.String({ maxLength: 100 })) });
export type AgentQuery = Static<typeof AgentQuery>;
