import { describe, expect, it } from 'vitest';
import { agentConfigAad, createSecretBox, generateSecret, openJson, sealJson, SecretBoxError } from './secret-box.js';

const SECRET = generateSecret();
const AAD = agentConfigAad('0190a1b2-0000-7000-8000-000000000001', '0190a1b2-0000-7000-8000-000000000002');

/** Flips one bit of a base64url part while keeping it canonical, so only the crypto can notice. */
function flipPart(sealed: string, index: 1 | 2 | 3): string {
  const parts = sealed.split('.');
  const buf = Buffer.from(parts[index], 'base64url');
  buf[0] ^= 0x01;
  parts[index] = buf.toString('base64url');
  return parts.join('.');
}

describe('generateSecret', () => {
  it('is 32 random bytes in base64url', () => {
    const s = generateSecret();
    expect(s).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(Buffer.from(s, 'base64url')).toHaveLength(32);
    expect(generateSecret()).not.toBe(s);
  });
});

describe('createSecretBox', () => {
  it('round-trips text, including empty and non-ASCII', () => {
    const box = createSecretBox(SECRET);
    for (const plaintext of ['hello', '', '{"api_key":"sk-123"}', 'ünïcødé ✓ 🔐', 'x'.repeat(100_000)]) {
      expect(box.open(box.seal(plaintext, AAD), AAD)).toBe(plaintext);
    }
  });

  it('uses the v1.<iv>.<tag>.<ciphertext> format with a 12-byte IV and a 16-byte tag', () => {
    const sealed = createSecretBox(SECRET).seal('abc', AAD);
    const parts = sealed.split('.');
    expect(parts).toHaveLength(4);
    expect(parts[0]).toBe('v1');
    for (const p of parts.slice(1)) expect(p).toMatch(/^[A-Za-z0-9_-]+$/);
    expect(Buffer.from(parts[1], 'base64url')).toHaveLength(12);
    expect(Buffer.from(parts[2], 'base64url')).toHaveLength(16);
    expect(Buffer.from(parts[3], 'base64url')).toHaveLength(3);
  });

  it('never contains the plaintext, and uses a fresh IV per seal', () => {
    const box = createSecretBox(SECRET);
    const a = box.seal('sk-live-plaintext', AAD);
    const b = box.seal('sk-live-plaintext', AAD);
    expect(a).not.toContain('plaintext');
    expect(a).not.toBe(b);
    expect(a.split('.')[1]).not.toBe(b.split('.')[1]);
  });

  it('opens with another box built from the same secret (stable key derivation)', () => {
    const sealed = createSecretBox(SECRET).seal('persisted', AAD);
    expect(createSecretBox(SECRET).open(sealed, AAD)).toBe('persisted');
  });

  it.each([1, 2, 3] as const)('detects tampering with part %i (iv, tag, ciphertext)', (index) => {
    const box = createSecretBox(SECRET);
    const sealed = box.seal('secret config', AAD);
    expect(() => box.open(flipPart(sealed, index), AAD)).toThrow(SecretBoxError);
  });

  it('rejects truncated, extended or malformed values', () => {
    const box = createSecretBox(SECRET);
    const sealed = box.seal('secret config', AAD);
    const [v, iv, tag, ct] = sealed.split('.');
    const bad = [
      '',
      'garbage',
      `v2.${iv}.${tag}.${ct}`,
      `${v}.${iv}.${tag}`,
      `${v}.${iv}.${tag}.${ct}.extra`,
      `${v}.${iv.slice(2)}.${tag}.${ct}`,
      `${v}.${iv}.${tag.slice(0, -2)}.${ct}`,
      `${v}.${iv}.${tag}.${ct.slice(0, -1)}`,
      `${v}.${iv}.${tag}.${ct}AA`,
      `${v}.${iv}.${tag}.${ct}==`,
      `${v}.${iv}.${tag}.${ct}!`,
    ];
    for (const s of bad) expect(() => box.open(s, AAD), s).toThrow(SecretBoxError);
  });

  it('binds the associated data: another agent or organization cannot open it', () => {
    const box = createSecretBox(SECRET);
    const sealed = box.seal('secret config', AAD);
    expect(() => box.open(sealed, agentConfigAad('0190a1b2-0000-7000-8000-000000000001', '0190a1b2-0000-7000-8000-000000000003'))).toThrow(SecretBoxError);
    expect(() => box.open(sealed, agentConfigAad('0190a1b2-0000-7000-8000-000000000009', '0190a1b2-0000-7000-8000-000000000002'))).toThrow(SecretBoxError);
    expect(() => box.open(sealed, '')).toThrow(SecretBoxError);
  });

  it('fails with a different key', () => {
    const sealed = createSecretBox(SECRET).seal('secret config', AAD);
    expect(() => createSecretBox(generateSecret()).open(sealed, AAD)).toThrow(SecretBoxError);
    expect(() => createSecretBox(`${SECRET}x`).open(sealed, AAD)).toThrow(/cannot open/);
  });

  it('rejects a secret shorter than 32 characters without echoing it', () => {
    const short = 'too-short-secret-31-characters!';
    expect(short).toHaveLength(31);
    expect(() => createSecretBox(short)).toThrow(/at least 32 characters/);
    try {
      createSecretBox(short);
    } catch (e) {
      expect((e as Error).message).not.toContain(short);
    }
    expect(() => createSecretBox('')).toThrow(/at least 32 characters/);
    expect(() => createSecretBox('a'.repeat(32))).not.toThrow();
  });

  it('error messages never contain the plaintext or the secret', () => {
    const box = createSecretBox(SECRET);
    const sealed = box.seal('sk-plaintext-value', AAD);
    try {
      box.open(sealed, 'other');
      expect.unreachable();
    } catch (e) {
      expect((e as Error).message).not.toContain('sk-plaintext-value');
      expect((e as Error).message).not.toContain(SECRET);
    }
  });
});

describe('sealJson / openJson', () => {
  it('round-trips JSON values', () => {
    const box = createSecretBox(SECRET);
    const config = { api_key: 'sk-123', assistant_id: 'asst', metadata: { a: [1, 2, { b: null }] }, timeout_ms: 120000 };
    const sealed = sealJson(box, config, AAD);
    expect(sealed.startsWith('v1.')).toBe(true);
    expect(openJson<typeof config>(box, sealed, AAD)).toEqual(config);
  });

  it('refuses values JSON cannot represent', () => {
    expect(() => sealJson(createSecretBox(SECRET), undefined, AAD)).toThrow(TypeError);
  });

  it('reports a sealed non-JSON string as a SecretBoxError', () => {
    const box = createSecretBox(SECRET);
    expect(() => openJson(box, box.seal('not json', AAD), AAD)).toThrow(SecretBoxError);
  });

  it('checks the associated data too', () => {
    const box = createSecretBox(SECRET);
    expect(() => openJson(box, sealJson(box, { a: 1 }, AAD), 'elsewhere')).toThrow(SecretBoxError);
  });
});
