import { createCipheriv, createDecipheriv, hkdfSync, randomBytes } from 'node:crypto';

/**
 * Authenticated encryption for small secrets at rest (agent configs, webhook secrets).
 *
 * - AES-256-GCM with a random 12-byte IV per seal and a 16-byte auth tag that is always verified.
 * - The associated data (`aad`) is bound to the ciphertext: opening with any other aad fails. Callers pass
 *   the identity of the row the value belongs to (e.g. organization id + agent id), so a sealed value copied
 *   to another row cannot be opened there.
 * - The 256-bit key is derived from the secret's UTF-8 bytes with HKDF-SHA256 (empty salt, info
 *   "rehearsal/secret-box/v1"), so any secret string of at least 32 characters can be used.
 * - Sealed format: `v1.<base64url iv>.<base64url tag>.<base64url ciphertext>` (ASCII, safe for a text column).
 */
export interface SecretBox {
  seal(plaintext: string, aad: string): string;
  open(sealed: string, aad: string): string;
}

/** Thrown by `open` for anything that cannot be opened. Deliberately does not say which check failed. */
export class SecretBoxError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'SecretBoxError';
  }
}

export const SECRET_MIN_LENGTH = 32;
const VERSION = 'v1';
const HKDF_INFO = 'rehearsal/secret-box/v1';
const IV_BYTES = 12;
const TAG_BYTES = 16;
const BASE64URL = /^[A-Za-z0-9_-]*$/;

/** 32 random bytes, base64url without padding (43 characters): a fresh value for REHEARSAL_SECRET_KEY. */
export function generateSecret(): string {
  return randomBytes(32).toString('base64url');
}

function decodePart(part: string, expectedBytes?: number): Buffer | undefined {
  if (!BASE64URL.test(part)) return undefined;
  const buf = Buffer.from(part, 'base64url');
  // Buffer decoding is lenient; insist on the canonical encoding so one sealed value has one spelling.
  if (buf.toString('base64url') !== part) return undefined;
  if (expectedBytes !== undefined && buf.length !== expectedBytes) return undefined;
  return buf;
}

export function createSecretBox(secret: string): SecretBox {
  if (typeof secret !== 'string') throw new TypeError('secret-box: the secret must be a string');
  if (secret.length < SECRET_MIN_LENGTH) {
    // The length is safe to report; the secret itself never appears in an error.
    throw new Error(
      `secret-box: the secret must be at least ${SECRET_MIN_LENGTH} characters long (got ${secret.length}); ` +
        'generate one with `generateSecret()` (32 random bytes, base64url)',
    );
  }
  const key = Buffer.from(hkdfSync('sha256', Buffer.from(secret, 'utf8'), Buffer.alloc(0), HKDF_INFO, 32));

  return {
    seal(plaintext: string, aad: string): string {
      if (typeof plaintext !== 'string') throw new TypeError('secret-box: plaintext must be a string');
      if (typeof aad !== 'string') throw new TypeError('secret-box: aad must be a string');
      const iv = randomBytes(IV_BYTES);
      const cipher = createCipheriv('aes-256-gcm', key, iv, { authTagLength: TAG_BYTES });
      cipher.setAAD(Buffer.from(aad, 'utf8'));
      const ciphertext = Buffer.concat([cipher.update(plaintext, 'utf8'), cipher.final()]);
      const tag = cipher.getAuthTag();
      return [VERSION, iv.toString('base64url'), tag.toString('base64url'), ciphertext.toString('base64url')].join('.');
    },

    open(sealed: string, aad: string): string {
      if (typeof sealed !== 'string') throw new SecretBoxError('secret-box: sealed value must be a string');
      if (typeof aad !== 'string') throw new TypeError('secret-box: aad must be a string');
      const parts = sealed.split('.');
      if (parts.length !== 4 || parts[0] !== VERSION) {
        throw new SecretBoxError('secret-box: not a sealed value (expected v1.<iv>.<tag>.<ciphertext>)');
      }
      const iv = decodePart(parts[1], IV_BYTES);
      const tag = decodePart(parts[2], TAG_BYTES);
      const ciphertext = decodePart(parts[3]);
      if (!iv || !tag || !ciphertext) throw new SecretBoxError('secret-box: malformed sealed value');
      try {
        const decipher = createDecipheriv('aes-256-gcm', key, iv, { authTagLength: TAG_BYTES });
        decipher.setAAD(Buffer.from(aad, 'utf8'));
        decipher.setAuthTag(tag);
        return Buffer.concat([decipher.update(ciphertext), decipher.final()]).toString('utf8');
      } catch {
        throw new SecretBoxError('secret-box: cannot open sealed value (wrong key, wrong associated data, or tampered)');
      }
    },
  };
}

/** Seals `JSON.stringify(value)`. */
export function sealJson(box: SecretBox, value: unknown, aad: string): string {
  const json = JSON.stringify(value);
  if (json === undefined) throw new TypeError('secret-box: value is not JSON-serialisable');
  return box.seal(json, aad);
}

/** Opens and parses a value sealed with `sealJson`. The caller vouches for `T` (validate if in doubt). */
export function openJson<T = unknown>(box: SecretBox, sealed: string, aad: string): T {
  const json = box.open(sealed, aad);
  try {
    return JSON.parse(json) as T;
  } catch {
    throw new SecretBoxError('secret-box: sealed value is not JSON');
  }
}

/**
 * The associated data for an agent's sealed config: binds the ciphertext to its organization and agent
 * (its ids are the AES-GCM associated data), so a config copied to another agent or organization cannot be
 * opened there.
 */
export function agentConfigAad(organizationId: string, agentId: string): string {
  return `rehearsal/agent-config:${organizationId}:${agentId}`;
}
