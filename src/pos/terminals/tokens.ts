import { createHash, randomBytes } from 'node:crypto';

/** Prefix that makes a terminal token recognisable in a paste or a secret scanner. */
export const TOKEN_PREFIX = 'pos_';

/** `pos_` + 32 random bytes as base64url (43 characters). */
export const TOKEN_PATTERN = /^pos_[A-Za-z0-9_-]{43}$/;

export function generateToken(): string {
  return TOKEN_PREFIX + randomBytes(32).toString('base64url');
}

/** The SHA-256 of a token: the only form in which a token is ever stored. */
export function tokenDigest(token: string): Buffer {
  return createHash('sha256').update(token, 'utf8').digest();
}

export function hashToken(token: string): string {
  return tokenDigest(token).toString('hex');
}

/** A short, safe-to-show prefix of a stored hash (for listings; never the whole hash). */
export function hashPrefix(tokenSha256: string): string {
  return tokenSha256.slice(0, 8);
}
