import { useState, type FormEvent } from 'react';
import { del, post } from '../api';
import { ConfirmButton, ErrorNote, Field, Loading, OneTimeSecret, PageHeader } from '../components/ui';
import { fmtDateTime } from '../format';
import { useAction, useResource, useTitle } from '../hooks';
import { useSession } from '../session';
import type { ApiKey } from '../types';

export function ApiKeys() {
  useTitle('API keys');
  const { session } = useSession();
  const keys = useResource<{ api_keys: ApiKey[]; total: number }>('/api-keys?limit=100');
  const [name, setName] = useState('');
  const [expires, setExpires] = useState('');
  const [created, setCreated] = useState<(ApiKey & { key: string }) | null>(null);
  const create = useAction((body: Record<string, unknown>) => post<ApiKey & { key: string }>('/api-keys', body));
  const revoke = useAction(async (id: string) => { await del(`/api-keys/${id}`); return true; });

  const submit = async (e: FormEvent) => {
    e.preventDefault();
    const k = await create.run({ name: name.trim(), ...(expires ? { expires_at: new Date(expires).toISOString() } : {}) });
    if (k) { setCreated(k); setName(''); setExpires(''); keys.reload(); }
  };

  return (
    <>
      <PageHeader title="API keys" subtitle="Keys authenticate the API (Authorization: Bearer …) and signing in here. Revoking a key ends its dashboard sessions at once." />
      {created && (
        <OneTimeSecret label={`New key “${created.name}”`} value={created.key}>
          Copy it now: it is shown only once and cannot be retrieved later.
        </OneTimeSecret>
      )}
      <form className="card form-inline" onSubmit={submit} aria-labelledby="create-key-title">
        <h2 id="create-key-title">Create a key</h2>
        <Field label="Name" required hint="What uses it, e.g. “CI” or “staging dashboard”.">
          {(id, hint) => <input id={id} aria-describedby={hint} required maxLength={200} value={name} onChange={(e) => setName(e.target.value)} />}
        </Field>
        <Field label="Expires" hint="Optional.">
          {(id, hint) => <input id={id} aria-describedby={hint} type="datetime-local" value={expires} onChange={(e) => setExpires(e.target.value)} />}
        </Field>
        <button type="submit" className="btn primary" disabled={create.busy || !name.trim()}>{create.busy ? 'Creating…' : 'Create key'}</button>
      </form>
      <ErrorNote error={create.error} title="Key not created" />
      <ErrorNote error={revoke.error} title="Not revoked" />
      <ErrorNote error={keys.error} />
      {keys.loading && !keys.data && <Loading what="Loading keys" />}
      {keys.data && (
        <div className="table-wrap" tabIndex={0} role="region" aria-label="API keys table">
          <table>
            <thead><tr><th scope="col">Name</th><th scope="col">Key</th><th scope="col">Created</th><th scope="col">Last used</th><th scope="col">Expires</th><th scope="col"><span className="sr-only">Actions</span></th></tr></thead>
            <tbody>
              {keys.data.api_keys.map((k) => {
                const mine = k.id === session?.api_key.id;
                return (
                  <tr key={k.id}>
                    <td>{k.name}{mine && <span className="tag">this session</span>}</td>
                    <td className="mono">{k.prefix}…{k.last_four}</td>
                    <td><time dateTime={k.created_at}>{fmtDateTime(k.created_at)}</time></td>
                    <td>{fmtDateTime(k.last_used_at)}</td>
                    <td>{k.expires_at ? fmtDateTime(k.expires_at) : 'never'}</td>
                    <td>
                      <ConfirmButton label={`Revoke ${k.name}`} confirmLabel="Revoke"
                        question={mine ? 'Revoke the key of this session? You will be signed out.' : `Revoke “${k.name}”? Anything using it stops working.`}
                        onConfirm={async () => { if (await revoke.run(k.id)) { if (created?.id === k.id) setCreated(null); keys.reload(); } }} />
                    </td>
                  </tr>
                );
              })}
            </tbody>
          </table>
        </div>
      )}
    </>
  );
}
