import { useMemo } from 'react';
import { useResource } from './hooks';
import type { Agent, TestSuite } from './types';

/** Agents and suites by id, for the selects and for showing names where the API gives ids. */
export function useLookups() {
  const agents = useResource<{ agents: Agent[]; total: number }>('/agents?limit=100');
  const suites = useResource<{ test_suites: TestSuite[]; total: number }>('/test-suites?limit=100');
  return useMemo(() => ({
    agents: agents.data?.agents ?? [],
    suites: suites.data?.test_suites ?? [],
    agentName: (id: string | null) => agents.data?.agents.find((a) => a.id === id)?.name,
    suiteName: (id: string | null) => suites.data?.test_suites.find((s) => s.id === id)?.name,
    loaded: agents.data !== null && suites.data !== null,
    error: agents.error ?? suites.error,
    reload: () => { agents.reload(); suites.reload(); },
  }), [agents.data, suites.data, agents.error, suites.error, agents.reload, suites.reload]);
}
