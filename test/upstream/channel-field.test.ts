import { fromUpstreamStatus, upstreamFailureKind } from '../../src/upstream/errors';

/** A 3000 "missing field" naming email or mobile: the account merges customer channels by it (go-live: identification by mobile and email). */
describe('a missing channel-merging field', () => {
  it('in the published error body (category type, message only) becomes 422 channel_field_required naming the field', () => {
    for (const field of ['email', 'mobile'] as const) {
      const body = {
        code: 3000,
        type: 'Payload Error',
        message: `Missing required field: ${field}`,
        documentationUrl: 'https://docs.example/errors',
        requestId: 'r-1',
      };
      const err = fromUpstreamStatus('payment', 400, body, undefined);
      expect({ status: err.status, code: err.code, errors: err.errors }).toEqual({
        status: 422,
        code: 'channel_field_required',
        errors: [{ path: field, message: expect.stringContaining(field) }],
      });
      expect(err.message).toContain(`send the customer's ${field}`);
      expect(err.message).not.toContain('Missing required field');
      expect(upstreamFailureKind(err)).toBe('rejected');
    }
  });

  it('any other missing field stays upstream_rejected (the field is not ours to name)', () => {
    const err = fromUpstreamStatus('hold', 400, { code: 3000, type: 'PAYLOAD_ERROR', message: 'Missing required field: customerId' }, undefined);
    expect([err.status, err.code, err.errors]).toEqual([422, 'upstream_rejected', undefined]);
    // 3003 mentioning an email is a bad value, not a missing merging field.
    expect(fromUpstreamStatus('hold', 422, { code: 3003, type: 'PAYLOAD_ERROR', message: 'email is not valid' }, undefined).code).toBe('upstream_rejected');
  });
});
