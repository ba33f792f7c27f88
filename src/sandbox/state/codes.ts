import { randomBytes, randomInt } from 'node:crypto';

/** Six random digits (hash and OTP). */
export function sixDigits(previous?: string): string {
  // A rotation must change the value, or a stale hash would still pass.
  for (;;) {
    const code = String(randomInt(0, 1_000_000)).padStart(6, '0');
    if (code !== previous) return code;
  }
}

/** An unguessable id with a readable prefix, e.g. `hold_3f9a...`. */
export function newReference(prefix: string): string {
  return `${prefix}_${randomBytes(10).toString('hex')}`;
}
