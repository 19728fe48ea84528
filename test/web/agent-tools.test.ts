import { describe, expect, it } from 'vitest';
import { toolFields, toolsDraft } from '../../web/src/agentTools.js';

// The agent form's Tools section: what it sends for each choice, and how it reads an agent back.

describe('the agent form: tool names and aliases', () => {
  it('a new agent leaves tool_names to the service default unless told', () => {
    expect(toolFields(toolsDraft())).toEqual({ tool_aliases: {} });
  });

  it('sends null for unknown, [] for no tools, the listed names otherwise', () => {
    const d = toolsDraft();
    expect(toolFields({ ...d, mode: 'unknown' }).tool_names).toBeNull();
    expect(toolFields({ ...d, mode: 'none' }).tool_names).toEqual([]);
    expect(toolFields({ ...d, mode: 'list', names: 'refund_payment, lookup_order\nrefund_payment ' }).tool_names).toEqual(['refund_payment', 'lookup_order']);
  });

  it('aliases are a JSON object of names or null; anything else is a readable error', () => {
    const d = { ...toolsDraft(), aliases: '{"issue_refund": "refund_payment", "transfer_to_human": null}' };
    expect(toolFields(d).tool_aliases).toEqual({ issue_refund: 'refund_payment', transfer_to_human: null });
    expect(() => toolFields({ ...d, aliases: '{issue_refund: x}' })).toThrow(/must be a JSON object/);
    expect(() => toolFields({ ...d, aliases: '["issue_refund"]' })).toThrow(/must map template tool names/);
    expect(() => toolFields({ ...d, aliases: '{"issue_refund": 3}' })).toThrow(/must map template tool names/);
  });

  it('reads an agent back into the same choices', () => {
    expect(toolsDraft({ tool_names: null, tool_aliases: {} })).toEqual({ mode: 'unknown', names: '', aliases: '' });
    expect(toolsDraft({ tool_names: [], tool_aliases: {} }).mode).toBe('none');
    const back = toolsDraft({ tool_names: ['a', 'b'], tool_aliases: { x: null } });
    expect(back).toMatchObject({ mode: 'list', names: 'a, b' });
    expect(toolFields(back)).toEqual({ tool_names: ['a', 'b'], tool_aliases: { x: null } });
  });
});
