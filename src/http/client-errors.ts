import { randomUUID } from 'node:crypto';
import { STATUS_CODES, type ServerResponse } from 'node:http';
import type { Socket } from 'node:net';
import type { FastifyInstance } from 'fastify';
import type { ErrorBody } from './errors.js';

/**
 * Requests Node's HTTP parser rejects never reach Fastify's router, hooks or error handler: Node emits
 * `clientError` with the bare socket. This answers them in the same envelope as every other error, with an
 * x-request-id (logged with the parser's error code, so an operator can find it) and `Connection: close`.
 */

/** Lingering close: the rest of an oversized request may still be arriving; reading it before closing keeps
 * the kernel from answering it with a reset that could discard our answer before the client reads it. */
const LINGER_MS = 2000;

const handled = new WeakSet<Socket>();

function classify(err: NodeJS.ErrnoException): { status: number; body: ErrorBody } {
  if (err.code === 'HPE_HEADER_OVERFLOW') {
    return { status: 431, body: { error: 'The request headers are larger than the server accepts', code: 'HEADERS_TOO_LARGE' } };
  }
  if (err.code === 'ERR_HTTP_REQUEST_TIMEOUT') {
    return { status: 400, body: { error: 'The request did not arrive in full in time', code: 'BAD_REQUEST' } };
  }
  // HPE_INVALID_METHOD, HPE_INVALID_URL, HPE_INVALID_VERSION, HPE_INVALID_HEADER_TOKEN, …: llhttp's own words
  // say which part was wrong without echoing the request back
  const reason = typeof err.message === 'string' && /^Parse Error: [\w .,'-]{1,80}$/.test(err.message) ? `: ${err.message.slice(13)}` : '';
  return { status: 400, body: { error: `Not a valid HTTP request${reason}`, code: 'BAD_REQUEST' } };
}

function message(status: number, body: ErrorBody, requestId: string): string {
  const json = JSON.stringify(body);
  return [
    `HTTP/1.1 ${status} ${STATUS_CODES[status]}`,
    `x-request-id: ${requestId}`,
    'content-type: application/json; charset=utf-8',
    `content-length: ${Buffer.byteLength(json)}`,
    `date: ${new Date().toUTCString()}`,
    'connection: close',
    '',
    json,
  ].join('\r\n');
}

/**
 * Waits for the answers already owed on this keep-alive socket: a client that pipelined a valid request
 * before the bad one gets that answer first. Node keeps the response being written in `_httpMessage` and
 * hands the socket to the next queued one in its own 'finish' listener, which runs before this one.
 */
function afterPendingResponses(socket: Socket, then: () => void) {
  const current = (socket as Socket & { _httpMessage?: ServerResponse | null })._httpMessage;
  if (!current) return then();
  let done = false;
  const next = () => {
    if (done) return;
    done = true;
    setImmediate(() => afterPendingResponses(socket, then));
  };
  current.once('finish', next);
  current.once('close', next);
}

export function clientErrorHandler(this: FastifyInstance, err: NodeJS.ErrnoException, socket: Socket) {
  // a reset connection has nobody left to answer; a socket answered once is only being drained
  if (err.code === 'ECONNRESET' || socket.destroyed || handled.has(socket)) return;
  handled.add(socket);
  const requestId = randomUUID();
  const { status, body } = classify(err);
  this.log.debug({ reqId: requestId, code: err.code, status }, 'request rejected by the HTTP parser');
  afterPendingResponses(socket, () => {
    if (socket.destroyed || !socket.writable) return void socket.destroy();
    const timer = setTimeout(() => socket.destroy(), LINGER_MS);
    timer.unref();
    socket.once('close', () => clearTimeout(timer));
    socket.end(message(status, body, requestId));
    socket.resume();
  });
}
