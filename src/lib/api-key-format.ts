import { createHash, randomInt } from 'node:crypto';

const ALPHABET = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789';
export const KEY_PATTERN = /^sk_live_[A-Za-z0-9]{40}$/;

/** sk_live_ + 40 characters of [A-Za-z0-9] drawn with a CSPRNG (randomInt is unbiased). */
export function generateApiKey(): string {
  let s = 'sk_live_';
  for (let i = 0; i < 40; i++) s += ALPHABET[randomInt(ALPHABET.length)];
  return s;
}

export const hashApiKey = (key: string) => createHash('sha256').update(key, 'utf8').digest('hex');
export const displayPrefix = (key: string) => key.slice(0, 12);
export const lastFour = (key: string) => key.slice(-4);
