import { useState, type FormEvent } from 'react';
import { errorMessage } from '../api';
import { Field } from '../components/ui';
import { useTitle } from '../hooks';
import { useSession } from '../session';

export function SignIn() {
  useTitle('Sign in');
  const { signIn, notice } = useSession();
  const [key, setKey] = useState('');
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);

  const submit = async (e: FormEvent) => {
    e.preventDefault();
    setBusy(true);
    setError(null);
    try {
      await signIn(key.trim());
      setKey('');
    } catch (err) {
      setError(errorMessage(err));
    } finally {
      setBusy(false);
    }
  };

  return (
    <main id="main" className="signin">
      <form className="card" onSubmit={submit} aria-labelledby="signin-title">
        <h1 id="signin-title">Sign in to Rehearsal</h1>
        {notice && <p className="notice" role="status">{notice}</p>}
        <Field label="API key" required hint={<>An <code>sk_live_…</code> key. It is exchanged for a session cookie and not kept in the browser. No key yet? The server printed one at first start, or run <code>npx rehearsal keys create --org default</code>.</>}>
          {(id, hint) => (
            <input id={id} aria-describedby={hint} type="password" autoComplete="off" spellCheck={false} required
              value={key} onChange={(e) => setKey(e.target.value)} placeholder="sk_live_…" className="mono" />
          )}
        </Field>
        {error && <div className="error-note" role="alert">{error}</div>}
        <button type="submit" className="btn primary" disabled={busy || !key.trim()}>{busy ? 'Signing in…' : 'Sign in'}</button>
      </form>
    </main>
  );
}
