import fc from 'fast-check';
import { canonicalJson, keepsResponse, keyOutcome, requestFingerprint } from '../../../src/pos/idempotency';
import { maybeApplied as notRecorded } from '../../../src/upstream';
import { BadRequestError, ConflictError, ServiceUnavailableError } from '../../../src/platform/errors';
import { markMayHaveLanded, markNotDelivered, rateLimited } from '../../../src/upstream';

describe('request fingerprint', () => {
  it('ignores key order at every level but not array order, values, method or path', () => {
    const a = requestFingerprint('POST', '/pos/v1/payments', { b: 1, a: { y: [1, 2], x: null } });
    expect(requestFingerprint('post', '/pos/v1/payments', { a: { x: null, y: [1, 2] }, b: 1 })).toBe(a);
    expect(requestFingerprint('POST', '/pos/v1/payments', { a: { x: null, y: [2, 1] }, b: 1 })).not.toBe(a);
    expect(requestFingerprint('POST', '/pos/v1/payments', { a: { x: null, y: [1, 2] }, b: '1' })).not.toBe(a);
    expect(requestFingerprint('POST', '/pos/v1/refunds', { a: { x: null, y: [1, 2] }, b: 1 })).not.toBe(a);
    expect(requestFingerprint('PUT', '/pos/v1/payments', { a: { x: null, y: [1, 2] }, b: 1 })).not.toBe(a);
    expect(a).toMatch(/^[0-9a-f]{64}$/);
  });

  it('keeps a "__proto__" key (JSON.parse makes it an own property): such a body is not the empty one', () => {
    const withProto = JSON.parse('{"__proto__":{"totalPaid":1}}');
    expect(requestFingerprint('POST', '/p', withProto)).not.toBe(requestFingerprint('POST', '/p', {}));
    expect(canonicalJson(withProto)).toBe('{"__proto__":{"totalPaid":1}}');
  });

  it('counts the query (it shapes the answer), less parameters at their default', () => {
    const plain = requestFingerprint('POST', '/pos/v1/payments', { a: 1 });
    expect(requestFingerprint('POST', '/pos/v1/payments', { a: 1 }, {})).toBe(plain);
    expect(requestFingerprint('POST', '/pos/v1/payments', { a: 1 }, { receipt: 'full' })).toBe(plain);
    expect(requestFingerprint('POST', '/pos/v1/payments', { a: 1 }, { receipt: 'none' })).not.toBe(plain);
    expect(requestFingerprint('POST', '/pos/v1/payments', { a: 1 }, { other: 'full' })).not.toBe(plain);
  });

  it('tells no body from an empty object', () => {
    expect(requestFingerprint('POST', '/p', undefined)).not.toBe(requestFingerprint('POST', '/p', {}));
  });

  it('canonical JSON is stable under any key shuffle (property)', () => {
    fc.assert(
      fc.property(fc.dictionary(fc.string(), fc.jsonValue()), (obj) => {
        const shuffled = Object.fromEntries(Object.entries(obj).reverse());
        expect(canonicalJson(shuffled)).toBe(canonicalJson(obj));
        // The same text as an independent deep key sort. Not compared through JSON.parse: on Node 24.21,
        // after many iterations, V8's JSON.parse was seen to read the key "\"" of a valid text as "\\"
        // (fast-check seed -684758446); the text itself was right, char by char.
        expect(canonicalJson(obj)).toBe(JSON.stringify(sortedDeep(obj)));
      }),
    );
  });
});

describe('which responses are kept for replay', () => {
  it('keeps successes, rule refusals and outcomes that may have reached the upstream', () => {
    expect(keepsResponse(200)).toBe(true);
    expect(keepsResponse(201)).toBe(true);
    expect(keepsResponse(202)).toBe(true);
    expect(keepsResponse(409, new ConflictError('duplicate_transaction', 'dup'))).toBe(true);
    expect(keepsResponse(422)).toBe(true);
    expect(keepsResponse(503, new ServiceUnavailableError('upstream_timeout', 'slow'))).toBe(true);
    expect(keepsResponse(500)).toBe(true);
  });

  it('releases requests that did nothing', () => {
    expect(keepsResponse(400, new BadRequestError('validation_failed', 'x'))).toBe(false);
    for (const s of [401, 403, 404, 405, 413, 415, 429]) expect(keepsResponse(s)).toBe(false);
    expect(keepsResponse(503, new ServiceUnavailableError('redis_unavailable', 'down'))).toBe(false);
    expect(keepsResponse(409, new ConflictError('redemption_busy', 'busy'))).toBe(false);
    expect(keepsResponse(409, new ConflictError('coupon_lock_busy', 'busy'))).toBe(false);
    expect(keepsResponse(503, new ServiceUnavailableError('sale_busy', 'busy'))).toBe(false);
    expect(keepsResponse(503, rateLimited(2))).toBe(false);
    expect(keepsResponse(503, markNotDelivered(new ServiceUnavailableError('upstream_circuit_open', 'open')))).toBe(false);
  });

  it('neither stores nor frees the key of an upstream write the BFF could not record (retry_same_request)', () => {
    expect(keyOutcome(503, notRecorded('Payment p-1', new Error('redis down')))).toBe('leave');
    expect(keyOutcome(503, new ServiceUnavailableError('redis_unavailable', 'down'))).toBe('release');
    expect(keyOutcome(201)).toBe('keep');
  });
});

/** Keys sorted at every level, built directly (no replacer), as the reference for canonicalJson. */
function sortedDeep(v: unknown): unknown {
  if (Array.isArray(v)) return v.map(sortedDeep);
  if (v === null || typeof v !== 'object') return v;
  return Object.fromEntries(
    Object.keys(v)
      .sort()
      .map((k) => [k, sortedDeep((v as Record<string, unknown>)[k])]),
  );
}

describe('a refusal after an attempt that may have landed', () => {
  it('keeps the key: an open circuit on the retry of a call whose first attempt timed out is not "nothing was done"', () => {
    const refused = markNotDelivered(new ServiceUnavailableError('upstream_circuit_open', 'open'));
    expect(keepsResponse(503, refused)).toBe(false);
    const afterTimeout = markMayHaveLanded(markNotDelivered(new ServiceUnavailableError('upstream_circuit_open', 'open')));
    expect(keepsResponse(503, afterTimeout)).toBe(true);
  });
});
