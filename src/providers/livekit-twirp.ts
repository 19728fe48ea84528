import { AccessToken, type VideoGrant } from 'livekit-server-sdk';
import type { Clock } from '../lib/clock.js';
import type { HttpFetch } from '../lib/http.js';
import { callJson, genericErrorBody, requestJson, type JsonRequest } from './http-json.js';
import { withRetry } from '../lib/retry.js';
import { ProviderError } from '../engine/provider.js';

// LiveKit's server API: Twirp over HTTP. Requests are `POST {base}/twirp/livekit.<Service>/<Method>`
// with a JSON body and `Authorization: Bearer <JWT>`, the JWT signed by livekit-server-sdk's AccessToken with
// the API secret and carrying only the grant the method needs. We do not use the SDK's RoomServiceClient:
// it calls the global fetch without our abort signal and fails over between regions with its own backoff,
// which would multiply with our retries (SDK-level retries stay off so that attempts never multiply).

/** Lifetime of the server-API tokens; the SDK's default (LN ServiceBase). */
const SERVER_TOKEN_TTL = '10m';

export interface TwirpOptions {
  baseUrl: string;
  apiKey: string;
  apiSecret: string;
  fetch: HttpFetch;
  clock: Clock;
  retrySchedule?: readonly number[];
}

export interface AgentDispatch {
  id: string;
  agentName: string;
  room: string;
}

const str = (o: Record<string, unknown>, ...keys: string[]) => {
  for (const k of keys) if (typeof o[k] === 'string') return o[k] as string;
  return '';
};

// Twirp JSON may use proto names (snake_case) or JSON names (camelCase); accept both.
function toDispatch(raw: unknown): AgentDispatch {
  const o = (raw ?? {}) as Record<string, unknown>;
  return { id: str(o, 'id'), agentName: str(o, 'agent_name', 'agentName'), room: str(o, 'room') };
}

export class TwirpClient {
  constructor(private readonly opts: TwirpOptions) {}

  async token(grant: VideoGrant, extra: { identity?: string; ttl?: string } = {}): Promise<string> {
    const at = new AccessToken(this.opts.apiKey, this.opts.apiSecret, { ttl: extra.ttl ?? SERVER_TOKEN_TTL, identity: extra.identity });
    at.addGrant(grant);
    return at.toJwt();
  }

  private async request(service: string, method: string, body: unknown, grant: VideoGrant, signal: AbortSignal, retry: boolean): Promise<unknown> {
    const jwt = await this.token(grant);
    const req: JsonRequest = {
      method: 'POST',
      url: `${this.opts.baseUrl}/twirp/livekit.${service}/${method}`,
      headers: { authorization: `Bearer ${jwt}` },
      body,
      parseError: genericErrorBody,
      secrets: [jwt, this.opts.apiSecret, this.opts.apiKey],
    };
    const ctx = { fetch: this.opts.fetch, clock: this.opts.clock, signal, retrySchedule: this.opts.retrySchedule };
    const res = retry ? await callJson(req, ctx) : await requestJson(req, ctx);
    return res.json;
  }

  /** Creating a room that exists returns it, so a retried CreateRoom is harmless. */
  async createRoom(name: string, opts: { emptyTimeout: number; departureTimeout: number }, signal: AbortSignal): Promise<void> {
    await this.request('RoomService', 'CreateRoom', { name, emptyTimeout: opts.emptyTimeout, departureTimeout: opts.departureTimeout }, { roomCreate: true }, signal, true);
  }

  async deleteRoom(room: string, signal: AbortSignal): Promise<void> {
    try {
      await this.request('RoomService', 'DeleteRoom', { room }, { roomCreate: true }, signal, true);
    } catch (err) {
      // Already gone (emptied and reaped, or deleted by an earlier close): the goal is reached.
      if (err instanceof ProviderError && err.kind === 'not_found') return;
      throw err;
    }
  }

  /** The credential check: no retry, since a user is waiting for the answer. */
  async listRooms(signal: AbortSignal): Promise<unknown> {
    return this.request('RoomService', 'ListRooms', {}, { roomList: true }, signal, false);
  }

  async listDispatches(room: string, signal: AbortSignal): Promise<AgentDispatch[]> {
    const json = (await this.request('AgentDispatchService', 'ListDispatch', { room }, { roomAdmin: true, room }, signal, false)) as Record<string, unknown> | null;
    const list = json?.agent_dispatches ?? json?.agentDispatches;
    return Array.isArray(list) ? list.map(toDispatch) : [];
  }

  /**
   * CreateDispatch is not idempotent: a 500 after the server recorded the dispatch, retried blindly, would
   * put two agents in the room. So every retry first looks for a dispatch of this agent in the room.
   */
  async createDispatch(room: string, agentName: string, metadata: string | undefined, signal: AbortSignal): Promise<AgentDispatch> {
    const body = { room, agentName, ...(metadata === undefined ? {} : { metadata }) };
    const grant = { roomAdmin: true, room };
    return withRetry(
      async (attempt) => {
        if (attempt > 0) {
          const existing = (await this.listDispatches(room, signal)).find((d) => d.agentName === agentName);
          if (existing) return existing;
        }
        return toDispatch(await this.request('AgentDispatchService', 'CreateDispatch', body, grant, signal, false));
      },
      { clock: this.opts.clock, signal, schedule: this.opts.retrySchedule },
    );
  }
}
