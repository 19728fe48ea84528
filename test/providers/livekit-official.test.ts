import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { AgentDispatchClient, RoomServiceClient } from 'livekit-server-sdk';
import { systemClock } from '../../src/lib/clock.js';
import { nodeHttpFetch } from '../../src/lib/http.js';
import { TwirpClient } from '../../src/providers/livekit-twirp.js';
import { startFakeLiveKit, type FakeLiveKit } from '../fakes/livekit.js';

// provider_2's server API checked against livekit-server-sdk, the official client: it performs every Twirp
// operation the adapter relies on against our fake, and the adapter's requests (service, method, JSON body,
// grants) are the ones the official client sends. The room and text-stream side (@livekit/rtc-node, a native
// WebRTC stack) needs a LiveKit signalling server and is not checked offline.

const never = () => new AbortController().signal;

let fake: FakeLiveKit;
beforeEach(async () => { fake = await startFakeLiveKit(); });
afterEach(() => fake.close());

const strip = (from: number) => fake.requests.slice(from).map((r) => ({ call: `${r.service}/${r.method}`, body: r.body, video: r.grants }));

describe('provider_2 against livekit-server-sdk', () => {
  it('the adapter\'s Twirp requests are the official client\'s: create room, dispatch, list, delete', async () => {
    const ours = new TwirpClient({ baseUrl: fake.baseUrl, apiKey: fake.apiKey, apiSecret: fake.apiSecret, fetch: nodeHttpFetch, clock: systemClock });
    await ours.createRoom('room-a', { emptyTimeout: 60, departureTimeout: 20 }, never());
    await ours.createDispatch('room-a', 'support-agent', '{"k":"v"}', never());
    await ours.listDispatches('room-a', never());
    await ours.listRooms(never());
    await ours.deleteRoom('room-a', never());
    const mine = strip(0);
    expect(mine.every((r) => r.video !== null && Object.keys(r.video).length > 0)).toBe(true);

    const from = fake.requests.length;
    const rooms = new RoomServiceClient(fake.baseUrl, fake.apiKey, fake.apiSecret);
    const dispatch = new AgentDispatchClient(fake.baseUrl, fake.apiKey, fake.apiSecret);
    await rooms.createRoom({ name: 'room-a', emptyTimeout: 60, departureTimeout: 20 });
    const created = await dispatch.createDispatch('room-a', 'support-agent', { metadata: '{"k":"v"}' });
    expect(created.agentName).toBe('support-agent');
    const listed = await dispatch.listDispatch('room-a');
    expect(listed.map((d) => d.agentName)).toContain('support-agent');
    expect((await rooms.listRooms()).map((r) => r.name)).toEqual(['room-a']);
    await rooms.deleteRoom('room-a');
    const theirs = strip(from);
    expect(mine.map((r) => r.call)).toEqual(theirs.map((r) => r.call));
    for (let i = 0; i < mine.length; i++) {
      // The official client sends protobuf JSON (camelCase, defaults omitted); the adapter sends the same fields.
      expect(mine[i].body, mine[i].call).toEqual(theirs[i].body);
      expect(mine[i].video, mine[i].call).toEqual(theirs[i].video);
    }
  });

  it('errors the adapter maps: a wrong secret is refused (401), an unknown room is not_found (404)', async () => {
    const wrong = new RoomServiceClient(fake.baseUrl, fake.apiKey, 'a-different-secret-that-is-long-enough');
    await expect(wrong.listRooms()).rejects.toMatchObject({ status: 401 });
    const rooms = new RoomServiceClient(fake.baseUrl, fake.apiKey, fake.apiSecret);
    await expect(rooms.deleteRoom('no-such-room')).rejects.toMatchObject({ status: 404 });
  });
});
