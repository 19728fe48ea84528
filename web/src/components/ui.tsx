import { useId, useState, type ReactNode } from 'react';

// Small building blocks shared by every page: accessible by construction (labels tied to inputs, alerts
// announced, buttons with text).

export function PageHeader({ title, subtitle, actions }: { title: ReactNode; subtitle?: ReactNode; actions?: ReactNode }) {
  return (
    <div className="page-header">
      <div>
        <h1>{title}</h1>
        {subtitle && <p className="muted">{subtitle}</p>}
      </div>
      {actions && <div className="actions">{actions}</div>}
    </div>
  );
}

export function ErrorNote({ error, title }: { error: unknown; title?: string }) {
  if (!error) return null;
  const message = error instanceof Error ? error.message : String(error);
  const code = (error as { code?: string }).code;
  return (
    <div className="error-note" role="alert">
      {title && <strong>{title}: </strong>}
      {message}
      {code && code !== 'NETWORK_ERROR' && <span className="code"> ({code})</span>}
    </div>
  );
}

export function Loading({ what = 'Loading' }: { what?: string }) {
  return <p className="muted" role="status">{what}…</p>;
}

export function Empty({ title, children }: { title: string; children?: ReactNode }) {
  return (
    <div className="empty">
      <h2>{title}</h2>
      {children}
    </div>
  );
}

const STATUS_TONE: Record<string, string> = {
  completed: 'ok', passed: 'ok', succeeded: 'ok', MET: 'ok', active: 'ok',
  failed: 'bad', error: 'bad', NOT_MET: 'bad',
  running: 'info', grading: 'info', pending: 'neutral', canceled: 'neutral', UNSURE: 'neutral', inactive: 'neutral',
  PARTIAL: 'warn',
};

export function Badge({ value, label }: { value: string; label?: string }) {
  return <span className={`badge tone-${STATUS_TONE[value] ?? 'neutral'}`}>{label ?? value.replace(/_/g, ' ')}</span>;
}

export function Field({ label, hint, required, children }: { label: string; hint?: ReactNode; required?: boolean; children: (id: string, describedBy?: string) => ReactNode }) {
  const id = useId();
  const hintId = hint ? `${id}-hint` : undefined;
  return (
    <div className="field">
      {/* the asterisk is CSS-generated and silent: the name stays "Name", the input says it is required */}
      <label htmlFor={id} className={required ? 'is-required' : undefined}>{label}</label>
      {children(id, hintId)}
      {hint && <p className="hint" id={hintId}>{hint}</p>}
    </div>
  );
}

export function Pagination({ total, limit, offset, onChange, label }: { total: number; limit: number; offset: number; onChange: (offset: number) => void; label: string }) {
  if (total <= limit && offset === 0) return null;
  const page = Math.floor(offset / limit) + 1;
  const pages = Math.max(1, Math.ceil(total / limit));
  return (
    <nav className="pagination" aria-label={`${label} pages`}>
      <button type="button" className="btn" disabled={offset === 0} onClick={() => onChange(Math.max(0, offset - limit))}>Previous</button>
      <span>Page {page} of {pages} ({total} in all)</span>
      <button type="button" className="btn" disabled={offset + limit >= total} onClick={() => onChange(offset + limit)}>Next</button>
    </nav>
  );
}

/** A secret shown once: selectable text plus a copy button (clipboard access may be refused; then select it). */
export function OneTimeSecret({ label, value, children }: { label: string; value: string; children?: ReactNode }) {
  const [copied, setCopied] = useState<string | null>(null);
  const id = useId();
  const copy = async () => {
    try {
      await navigator.clipboard.writeText(value);
      setCopied('Copied to the clipboard.');
    } catch {
      (document.getElementById(id) as HTMLInputElement | null)?.select();
      setCopied('The browser refused clipboard access: the value is selected, press Ctrl+C (⌘C) to copy it.');
    }
  };
  return (
    <div className="one-time">
      <label htmlFor={id}>{label}</label>
      <div className="row">
        <input id={id} className="mono" readOnly value={value} onFocus={(e) => e.currentTarget.select()} />
        <button type="button" className="btn primary" onClick={copy}>Copy</button>
      </div>
      <p className="hint" aria-live="polite">{copied ?? children}</p>
    </div>
  );
}

/** Two-step destructive action: the first click asks, the second does it. No modal to trap focus in. */
export function ConfirmButton({ label, question, confirmLabel, onConfirm, disabled }: { label: string; question: string; confirmLabel?: string; onConfirm: () => void | Promise<unknown>; disabled?: boolean }) {
  const [asking, setAsking] = useState(false);
  if (!asking) return <button type="button" className="btn danger" disabled={disabled} onClick={() => setAsking(true)}>{label}</button>;
  return (
    <span className="confirm" role="group" aria-label={question}>
      <span>{question}</span>
      <button type="button" className="btn danger" autoFocus onClick={async () => { setAsking(false); await onConfirm(); }}>{confirmLabel ?? label}</button>
      <button type="button" className="btn" onClick={() => setAsking(false)}>Cancel</button>
    </span>
  );
}

export function Stat({ label, value, hint }: { label: string; value: ReactNode; hint?: string }) {
  return (
    <div className="stat">
      <dt>{label}</dt>
      <dd title={hint}>{value}</dd>
    </div>
  );
}
