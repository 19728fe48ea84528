import { useEffect, useRef, type ReactNode } from 'react';
import { NavLink, useLocation } from 'react-router-dom';
import { useSession } from '../session';

const NAV = [
  ['/runs', 'Runs'],
  ['/agents', 'Agents'],
  ['/scenarios', 'Scenarios'],
  ['/suites', 'Suites'],
  ['/schedules', 'Schedules'],
  ['/judge/agreement', 'Judge agreement'],
  ['/webhooks', 'Webhooks'],
  ['/settings/api-keys', 'API keys'],
] as const;

export function Layout({ children }: { children: ReactNode }) {
  const { session, signOut } = useSession();
  const location = useLocation();
  const main = useRef<HTMLElement>(null);
  const first = useRef(true);

  // after client-side navigation, move focus to the new page so screen readers announce it
  useEffect(() => {
    if (first.current) { first.current = false; return; }
    main.current?.focus();
  }, [location.pathname]);

  return (
    <>
      <a className="skip-link" href="#main">Skip to content</a>
      <header className="topbar">
        <NavLink to="/runs" className="brand">Rehearsal</NavLink>
        <nav aria-label="Main">
          <ul>
            {NAV.map(([to, label]) => (
              <li key={to}><NavLink to={to}>{label}</NavLink></li>
            ))}
          </ul>
        </nav>
        {session && (
          <div className="whoami">
            <span>
              <span className="org">{session.organization.name}</span>
              <span className="muted"> · key “{session.api_key.name}” ({session.api_key.prefix}…{session.api_key.last_four})</span>
            </span>
            <button type="button" className="btn small" onClick={() => void signOut()}>Sign out</button>
          </div>
        )}
      </header>
      <main id="main" ref={main} tabIndex={-1}>{children}</main>
    </>
  );
}
