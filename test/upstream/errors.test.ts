import { BadRequestError, NotFoundError, ServiceUnavailableError, UnprocessableError, UpstreamError } from '../../src/platform/errors';
import { certainlyNotDelivered, parseRetryAfter, upstreamFailureKind } from '../../src/upstream';
import { fromTransportFailure, fromUpstreamStatus } from '../../src/upstream/errors';

const body = (code: number) => ({ code, type: 'Something', message: 'upstream words', requestId: 'u-1' });

describe('parseRetryAfter', () => {
  const now = Date.parse('2025-03-01T10:00:00Z');
  it.each([
    ['5', 5],
    [' 0 ', 0],
    ['Sat, 01 Mar 2025 10:01:00 GMT', 60],
    ['Sat, 01 Mar 2025 09:00:00 GMT', 0],
    ['soon', undefined],
    ['-3', undefined],
    ['', undefined],
    [undefined, undefined],
  ])('%j -> %j', (value, seconds) => {
    expect(parseRetryAfter(value, now)).toBe(seconds);
  });
});

describe('fromUpstreamStatus beyond the named codes', () => {
  it('9002 is the original transaction for a refund, a transaction otherwise', () => {
    expect(fromUpstreamStatus('refund', 404, body(9002), undefined).code).toBe('original_transaction_not_found');
    expect(fromUpstreamStatus('holdLookup', 404, body(9002), undefined).code).toBe('transaction_not_found');
  });

  it('4004 on a batch status is an unknown job', () => {
    const err = fromUpstreamStatus('batchStatus', 404, body(4004), undefined);
    expect(err).toBeInstanceOf(NotFoundError);
    expect(err.code).toBe('batch_job_not_found');
  });

  it('an unknown 4xx code is a 422 upstream_rejected naming only the operation and the code', () => {
    const err = fromUpstreamStatus('payment', 422, body(9999), undefined);
    expect(err).toBeInstanceOf(UnprocessableError);
    expect(err.code).toBe('upstream_rejected');
    expect(err.loyaltyCode).toBe(9999);
    expect(err.message).toBe('The loyalty service refused the payment request (code 9999)');
  });

  it.each([
    ['RuleNotFound', 'rule_not_found'],
    ['RefundExceedsRemaining', 'refund_exceeds_remaining'],
    ['CouponNotAvailable', 'coupon_unavailable'],
    ['CouponNotFound', 'coupon_unavailable'],
    ['OTPExpired', 'otp_invalid'],
    ['HashInvalid', 'hash_invalid'],
  ])('a 3003 of type %s is our %s, with our own words only', (type, code) => {
    const err = fromUpstreamStatus('payment', 422, { code: 3003, type, message: 'upstream words', requestId: 'u-1' }, undefined);
    expect(err).toBeInstanceOf(UnprocessableError);
    expect(err.code).toBe(code);
    expect(err.message).not.toContain('upstream words');
    expect(upstreamFailureKind(err)).toBe('rejected');
  });

  it('the safe summary of a 3003 says what kind of problem, not the upstream text', () => {
    const err = fromUpstreamStatus('hold', 422, body(3003), undefined);
    expect(err.message).toBe('The loyalty service refused the hold request: a value is not valid (code 3003)');
  });

  it('an unknown code with a 5xx is unavailable, with a 429 rate limited', () => {
    expect(fromUpstreamStatus('hash', 502, body(1234), 4)).toMatchObject({ code: 'upstream_unavailable', retryAfterSeconds: 4 });
    expect(fromUpstreamStatus('hash', 429, body(1234), 4)).toMatchObject({ code: 'upstream_busy', retryAfterSeconds: 4 });
  });

  it.each([
    [503, undefined, ServiceUnavailableError, 'upstream_unavailable'],
    [429, 'Too Many Requests', ServiceUnavailableError, 'upstream_busy'],
    [403, '<html>Forbidden</html>', UpstreamError, 'upstream_auth_failed'],
    [401, undefined, UpstreamError, 'upstream_auth_failed'],
    [418, { teapot: true }, UpstreamError, 'upstream_invalid_response'],
  ])('a %i whose body is not a v4.0 error (%j) -> %p %s', (status, json, cls, code) => {
    const err = fromUpstreamStatus('hash', status, json, undefined);
    expect(err).toBeInstanceOf(cls);
    expect(err.code).toBe(code);
  });
});

describe('fromTransportFailure', () => {
  it("keeps only the system code and axios' short message as the cause", () => {
    const err = fromTransportFailure('ECONNRESET', 'socket hang up', 1000);
    expect(err.code).toBe('upstream_unavailable');
    expect(String(err.cause)).toBe('Error: ECONNRESET: socket hang up');
    expect(certainlyNotDelivered(err)).toBe(false);
  });

  it.each(['ECONNREFUSED', 'ENOTFOUND', 'EAI_AGAIN'])('%s: never connected, so not delivered', (code) => {
    expect(certainlyNotDelivered(fromTransportFailure(code, 'x', 1000))).toBe(true);
  });

  it('ETIMEDOUT is a timeout naming the limit', () => {
    const err = fromTransportFailure('ETIMEDOUT', 'timeout of 1000ms exceeded', 1000);
    expect(err.code).toBe('upstream_timeout');
    expect(err.message).toContain('1000 ms');
  });
});

describe('upstreamFailureKind', () => {
  it.each([
    [fromUpstreamStatus('payment', 422, body(9004), undefined), 'duplicate'],
    [fromUpstreamStatus('payment', 422, body(9008), undefined), 'rejected'],
    [fromUpstreamStatus('payment', 401, body(1000), undefined), 'rejected'],
    [fromUpstreamStatus('payment', 503, undefined, undefined), 'unavailable'],
    [fromUpstreamStatus('payment', 429, undefined, 3), 'rate_limited'],
    [fromUpstreamStatus('payment', 200, undefined, undefined), 'invalid_response'],
    [fromTransportFailure('ETIMEDOUT', 't', 5), 'timeout'],
    [new BadRequestError('validation_failed', 'bad'), null],
    [new Error('plain'), null],
    ['a string', null],
  ])('%p -> %p', (err, kind) => {
    expect(upstreamFailureKind(err)).toBe(kind);
  });
});
