import { Link } from 'react-router-dom';
import { Badge, Empty, ErrorNote, Loading, PageHeader } from '../components/ui';
import { fmtDateTime } from '../format';
import { useResource, useTitle } from '../hooks';
import type { TestSuite } from '../types';

export function Suites() {
  useTitle('Suites');
  const suites = useResource<{ test_suites: TestSuite[]; total: number }>('/test-suites?limit=100');
  return (
    <>
      <PageHeader title="Suites" subtitle="Named, ordered selections of scenario templates. A run plays one suite."
        actions={<Link className="btn primary" to="/suites/new">New suite</Link>} />
      <ErrorNote error={suites.error} />
      {suites.loading && !suites.data && <Loading what="Loading suites" />}
      {suites.data?.total === 0 && (
        <Empty title="No suites"><p>Create a suite by picking scenario templates from the library.</p><Link className="btn primary" to="/suites/new">New suite</Link></Empty>
      )}
      {suites.data && suites.data.test_suites.length > 0 && (
        <div className="table-wrap" tabIndex={0} role="region" aria-label="Suites table">
          <table>
            <thead><tr><th scope="col">Name</th><th scope="col">Scenarios</th><th scope="col">Description</th><th scope="col">Created</th></tr></thead>
            <tbody>
              {suites.data.test_suites.map((s) => (
                <tr key={s.id}>
                  <td><Link to={`/suites/${s.id}`}>{s.name}</Link> {s.is_default && <Badge value="info" label="default" />}</td>
                  <td>{s.scenario_count}</td>
                  <td className="small">{s.description ?? '—'}</td>
                  <td><time dateTime={s.created_at}>{fmtDateTime(s.created_at)}</time></td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
    </>
  );
}
