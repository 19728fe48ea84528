import { Link, useNavigate } from 'react-router-dom';
import { Badge, Empty, ErrorNote, Loading, PageHeader } from '../components/ui';
import { fmtDateTime } from '../format';
import { useResource, useTitle } from '../hooks';
import { providerLabel } from '../providerFields';
import type { Agent } from '../types';
import { AgentForm } from './AgentForm';

export function Agents() {
  useTitle('Agents');
  const agents = useResource<{ agents: Agent[]; total: number }>('/agents?limit=100');
  return (
    <>
      <PageHeader title="Agents" subtitle="The conversational agents you test, each behind one provider."
        actions={<Link className="btn primary" to="/agents/new">Register an agent</Link>} />
      <ErrorNote error={agents.error} />
      {agents.loading && !agents.data && <Loading what="Loading agents" />}
      {agents.data?.total === 0 && (
        <Empty title="No agents yet">
          <p>Register the agent you want to test: pick its platform and enter its connection settings. Any OpenAI-compatible chat endpoint works too.</p>
          <Link className="btn primary" to="/agents/new">Register your first agent</Link>
        </Empty>
      )}
      {agents.data && agents.data.agents.length > 0 && (
        <div className="table-wrap" tabIndex={0} role="region" aria-label="Agents table">
          <table>
            <thead><tr><th scope="col">Name</th><th scope="col">Provider</th><th scope="col">State</th><th scope="col">Configured</th><th scope="col">Created</th></tr></thead>
            <tbody>
              {agents.data.agents.map((a) => (
                <tr key={a.id}>
                  <td><Link to={`/agents/${a.id}`}>{a.name}</Link>{a.description && <div className="muted small">{a.description}</div>}</td>
                  <td>{providerLabel(a.provider)}</td>
                  <td><Badge value={a.is_active ? 'active' : 'inactive'} /></td>
                  <td className="mono small">{a.config_fields.join(', ')}</td>
                  <td><time dateTime={a.created_at}>{fmtDateTime(a.created_at)}</time></td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
    </>
  );
}

export function NewAgent() {
  useTitle('Register an agent');
  const navigate = useNavigate();
  return (
    <>
      <p className="crumbs"><Link to="/agents">Agents</Link> / new</p>
      <PageHeader title="Register an agent" subtitle="Credentials are stored encrypted and never shown again." />
      <AgentForm onSaved={(a) => navigate(`/agents/${a.id}`)} onCancel={() => navigate('/agents')} />
    </>
  );
}
