import { createContext, useCallback, useContext, useEffect, useMemo, useState, type ReactNode } from 'react';
import { del, get, post, setUnauthorizedListener } from './api';
import type { Session } from './types';

interface SessionState {
  session: Session | null;
  /** Still asking the service whether the cookie is live. */
  checking: boolean;
  /** Why the user is looking at the sign-in form (session ended, signed out). */
  notice: string | null;
  signIn(apiKey: string): Promise<void>;
  signOut(): Promise<void>;
}

const SessionContext = createContext<SessionState | null>(null);

// The session cookie is HttpOnly; the service adds a harmless "signed in" hint cookie so that a signed-out
// visitor gets the form straight away instead of a request that could only answer 401.
const hasHint = () => document.cookie.split(';').some((c) => c.trim().startsWith('rehearsal_signed_in=1'));

export function SessionProvider({ children }: { children: ReactNode }) {
  const [session, setSession] = useState<Session | null>(null);
  const [checking, setChecking] = useState(hasHint);
  const [notice, setNotice] = useState<string | null>(null);

  useEffect(() => {
    setUnauthorizedListener((message) => {
      setSession(null);
      setNotice(`You have been signed out. ${message}`);
    });
    if (checking) {
      get<Session>('/sessions/current')
        .then(setSession, () => setSession(null))
        .finally(() => setChecking(false));
    }
    return () => setUnauthorizedListener(null);
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, []);

  const signIn = useCallback(async (apiKey: string) => {
    const s = await post<Session>('/sessions', { api_key: apiKey });
    setNotice(null);
    setSession(s);
  }, []);

  const signOut = useCallback(async () => {
    try {
      await del('/sessions/current');
    } finally {
      setSession(null);
      setNotice('You are signed out.');
    }
  }, []);

  const value = useMemo(() => ({ session, checking, notice, signIn, signOut }), [session, checking, notice, signIn, signOut]);
  return <SessionContext.Provider value={value}>{children}</SessionContext.Provider>;
}

export function useSession(): SessionState {
  const ctx = useContext(SessionContext);
  if (!ctx) throw new Error('useSession outside SessionProvider');
  return ctx;
}
