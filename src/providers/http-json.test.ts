import { describe, expect, it } from 'vitest';
import { genericErrorBody } from './http-json.js';
import { redact } from './json-values.js';

describe('provider HTTP helpers', () => {
  it('redacts JWTs (whole or cut short) and the given secrets from provider messages', () => {
    const jwt = 'eyJhbGciOiJIUzI1NiJ9.eyJpc3MiOiJBUElrZXkifQ.c2lnbmF0dXJl';
    expect(redact(`invalid token: ${jwt}, error: bad signature`)).toBe('invalid token: [redacted token], error: bad signature');
    expect(redact(`token ${jwt.slice(0, 30)}`)).toBe('token [redacted token]');
    expect(redact('invalid API key: APIabc123', ['APIabc123'])).toBe('invalid API key: [redacted]');
    expect(redact('a b', ['', 'ab'])).toBe('a b'); // empty or very short "secrets" would shred the message
  });

  it('reads Pipecat {error, code}, Twirp {code, msg} and plain-text error bodies', () => {
    expect(genericErrorBody(401, '{"error":"Invalid API key","code":"PCC-1001"}', 'Unauthorized')).toEqual({ message: 'Invalid API key', code: 'PCC-1001' });
    expect(genericErrorBody(404, '{"code":"not_found","msg":"requested room does not exist"}', 'Not Found')).toEqual({ message: 'requested room does not exist', code: 'not_found' });
    expect(genericErrorBody(401, 'invalid authorization header', 'Unauthorized')).toEqual({ message: 'invalid authorization header', code: null });
    expect(genericErrorBody(502, '', 'Bad Gateway')).toEqual({ message: 'Bad Gateway', code: null });
    expect(genericErrorBody(500, '', '')).toEqual({ message: 'HTTP 500', code: null });
  });
});
