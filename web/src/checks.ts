import type { Check } from './types';

/** A deterministic check in words, for the criteria tables. */
export function describeCheck(c: Check | null): string {
  if (!c) return 'Graded by the judge model';
  switch (c.type) {
    case 'contains': return `${who(c.role)} says “${c.value}”`;
    case 'not_contains': return `${who(c.role)} never says “${c.value}”`;
    case 'regex': return `${who(c.role)} matches /${c.value}/`;
    case 'not_regex': return `${who(c.role)} never matches /${c.value}/`;
    case 'tool_called': return `Tool ${c.name} is called${c.arguments ? ` with ${JSON.stringify(c.arguments)}` : ''}`;
    case 'tool_not_called': return `Tool ${c.name} is not called`;
    case 'max_turns': return `At most ${c.value} turns`;
    case 'max_response_ms': return `Every reply within ${c.value} ms`;
    case 'responded_every_turn': return 'The agent replies on every turn';
  }
}

const who = (role?: string) => (role === 'user' ? 'The caller' : role === 'assistant' ? 'The agent' : 'Someone');

export const CHECK_TYPES = ['', 'contains', 'not_contains', 'regex', 'not_regex', 'tool_called', 'tool_not_called', 'max_turns', 'max_response_ms', 'responded_every_turn'] as const;
