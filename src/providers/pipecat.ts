import WebSocket from 'ws';
import type { Clock } from '../lib/clock.js';
import { nodeHttpFetch, type HttpFetch } from '../lib/http.js';
import { configWithDefaults, type ResolvedConfigs } from './configs.js';
import { callJson, genericErrorBody, requestJson, type CallContext, type JsonRequest } from './http-json.js';
import { validateWith } from './credential-check.js';
import { PipecatSession } from './pipecat-session.js';
import { ProviderError, type ProviderAdapter, type ProviderSession, type ValidateResult } from '../engine/provider.js';

// Pipecat Cloud. Pipecat Cloud has no chat API, so a conversation is a session of
// the deployed bot on the websocket transport: `POST /v1/public/{agent}/start` with the public key gives the
// websocket URL (and, for `websocket_auth = "token"` agents, a one-time token); the bot starts when we connect.
// Over the socket we speak RTVI in Pipecat's protobuf frames (pipecat-session.ts). At the end we close the socket
// and, with a private key, stop the session through `DELETE /v1/agents/{agent}/sessions/{id}`.

type Cfg = ResolvedConfigs['pipecat'];

/** Wall-clock guard for the stop request after the conversation's signal is gone; the engine bounds close() itself. */
const TEARDOWN_TIMEOUT_MS = 5000;
/** How long greeting() waits for a bot that speaks first (set in its on_client_ready handler). */
const GREETING_WINDOW_MS = 3000;
/** Quiet time after the reply's last RTVI event before it counts as complete (see pipecat-session.ts). */
const SETTLE_MS = 250;

export interface PipecatAdapterOptions {
  fetch?: HttpFetch;
  retrySchedule?: readonly number[];
  greetingWindowMs?: number;
  settleMs?: number;
}

interface StartResponse {
  sessionId: string | null;
  wsUrl: string;
  token: string | null;
  body: string | null;
}

const enc = encodeURIComponent;

function parseStart(json: unknown): StartResponse {
  const o = (json ?? {}) as Record<string, unknown>;
  if (typeof o.wsUrl !== 'string' || !/^wss?:\/\//i.test(o.wsUrl)) {
    throw new ProviderError('provider_error', 'the start answer has no websocket URL (wsUrl); is the agent deployed with the websocket transport?');
  }
  const s = (v: unknown) => (typeof v === 'string' && v !== '' ? v : null);
  return { sessionId: s(o.sessionId), wsUrl: o.wsUrl, token: s(o.token), body: s(o.body) };
}

function withBody(wsUrl: string, body: string | null): string {
  if (!body) return wsUrl;
  return `${wsUrl}${wsUrl.includes('?') ? '&' : '?'}body=${enc(body)}`;
}

/** Opens the bot's websocket; the upgrade's HTTP status (403 for a bad or replayed token) becomes the error. */
function connect(url: string, token: string | null, signal: AbortSignal): Promise<WebSocket> {
  return new Promise((resolve, reject) => {
    if (signal.aborted) return reject(signal.reason);
    const ws = new WebSocket(url, { headers: token ? { authorization: `Bearer ${token}` } : {} });
    const fail = (err: unknown) => {
      signal.removeEventListener('abort', onAbort);
      ws.removeAllListeners();
      ws.on('error', () => undefined);
      ws.terminate();
      reject(err);
    };
    const onAbort = () => fail(signal.reason);
    signal.addEventListener('abort', onAbort, { once: true });
    ws.once('unexpected-response', (_req, res) => {
      const status = res.statusCode ?? 0;
      res.resume();
      // The public key already passed /start, so a refused upgrade is a session problem, not a credentials one.
      fail(new ProviderError('provider_error', `the bot's websocket refused the connection (${res.statusMessage || 'upgrade failed'})`, { status }));
    });
    ws.once('error', (err) => fail(new ProviderError('unreachable', `could not connect to the bot's websocket: ${err.message}`, { cause: err })));
    ws.once('open', () => {
      signal.removeEventListener('abort', onAbort);
      ws.removeAllListeners();
      resolve(ws);
    });
  });
}

export function createPipecatAdapter(deps: PipecatAdapterOptions = {}): ProviderAdapter {
  const fetchImpl = deps.fetch ?? nodeHttpFetch;
  const ctxFor = (clock: Clock, signal: AbortSignal): CallContext => ({ fetch: fetchImpl, clock, signal, retrySchedule: deps.retrySchedule });

  async function start(cfg: Cfg, clock: Clock, signal: AbortSignal): Promise<StartResponse> {
    const req = (withBodyField: boolean): JsonRequest => ({
      method: 'POST',
      url: `${cfg.base_url}/v1/public/${enc(cfg.agent_name)}/start`,
      headers: { authorization: `Bearer ${cfg.public_api_key}` },
      body: { createDailyRoom: false, transport: cfg.transport, ...(withBodyField && cfg.body ? { body: cfg.body } : {}) },
      parseError: genericErrorBody,
      secrets: [cfg.public_api_key],
    });
    try {
      const res = parseStart((await callJson(req(true), ctxFor(clock, signal))).json);
      // Agents with websocket_auth "token" hand the body back base64-encoded; otherwise we encode it ourselves.
      return cfg.body && !res.body ? { ...res, body: Buffer.from(JSON.stringify(cfg.body)).toString('base64') } : res;
    } catch (err) {
      // Agents with websocket_auth "none" reject a body on /start with 400 (generic-websocket guide): start without
      // it and pass the body on the websocket URL, the documented route for those agents.
      if (!(err instanceof ProviderError && err.status === 400 && cfg.body)) throw err;
      const res = parseStart((await callJson(req(false), ctxFor(clock, signal))).json);
      return { ...res, body: Buffer.from(JSON.stringify(cfg.body)).toString('base64') };
    }
  }

  function stopper(cfg: Cfg, sessionId: string | null, clock: Clock): () => Promise<void> {
    return async () => {
      if (!cfg.private_api_key || !sessionId) return; // closing the socket ends a websocket session by itself
      try {
        await callJson({
          method: 'DELETE',
          url: `${cfg.base_url}/v1/agents/${enc(cfg.agent_name)}/sessions/${enc(sessionId)}`,
          headers: { authorization: `Bearer ${cfg.private_api_key}` },
          parseError: genericErrorBody,
          secrets: [cfg.private_api_key],
        }, ctxFor(clock, AbortSignal.timeout(TEARDOWN_TIMEOUT_MS)));
      } catch (err) {
        if (!(err instanceof ProviderError && err.status === 404)) throw err; // already ended with the socket
      }
    };
  }

  async function openSession({ config, signal, clock }: Parameters<ProviderAdapter['openSession']>[0]): Promise<ProviderSession> {
    const cfg = configWithDefaults('pipecat', config as Record<string, unknown>);
    const started = await start(cfg, clock, signal);
    const teardown = stopper(cfg, started.sessionId, clock);
    let session: PipecatSession | null = null;
    try {
      const ws = await connect(withBody(started.wsUrl, started.body), started.token, signal);
      session = new PipecatSession({
        ws,
        clock,
        greetingWindowMs: deps.greetingWindowMs ?? GREETING_WINDOW_MS,
        settleMs: deps.settleMs ?? SETTLE_MS,
        costPerMinuteUsd: cfg.cost_per_minute_usd ?? null,
        teardown,
      });
      await session.handshake(signal);
      return session;
    } catch (err) {
      // A half-opened session must not keep a bot running (and billing).
      await (session ? session.close() : teardown()).catch(() => undefined);
      throw err;
    }
  }

  async function validate(config: unknown, opts: { signal: AbortSignal; clock: Clock }): Promise<ValidateResult> {
    const cfg = configWithDefaults('pipecat', config as Record<string, unknown>);
    const url = `${cfg.base_url}/v1/agents/${enc(cfg.agent_name)}`;
    return validateWith(opts, async (signal) => {
      if (!cfg.private_api_key) {
        // No free check exists for a public key: only starting a (billed) session proves it. We can still tell
        // whether base_url answers like an API (any HTTP status will do).
        await requestJson({ method: 'GET', url, headers: {}, parseError: genericErrorBody }, { fetch: fetchImpl, clock: opts.clock, signal }).catch((err: unknown) => {
          if (err instanceof ProviderError && err.status !== undefined) return;
          throw err;
        });
        return {
          valid: true,
          message: 'not verified: without private_api_key Pipecat Cloud offers no check that costs nothing; base_url answers, but the public key and the agent name are only proven when a test run starts a session',
          details: { verified: false, checked: ['base_url reachable'], not_checked: ['public_api_key', 'agent_name'] },
        };
      }
      const res = await requestJson({ method: 'GET', url, headers: { authorization: `Bearer ${cfg.private_api_key}` }, parseError: genericErrorBody, secrets: [cfg.private_api_key] }, { fetch: fetchImpl, clock: opts.clock, signal });
      const agent = (res.json ?? {}) as { ready?: unknown; available?: unknown };
      const available = typeof agent.available === 'boolean' ? agent.available : null;
      return {
        valid: true,
        message: available === false ? 'credentials accepted; the agent exists but is not available for new sessions right now' : 'credentials accepted and the agent exists',
        details: { status: res.status, verified: true, ready: typeof agent.ready === 'boolean' ? agent.ready : null, available, not_checked: ['public_api_key'] },
      };
    });
  }

  return { platform: 'pipecat', openSession, validate };
}
