import { API, expectLoyaltyError, harness } from './helpers';

const T = '2025-03-01T10:00:00Z';

describe('sandbox OTP', () => {
  const h = harness();
  const hold = (body: Record<string, unknown>) =>
    h.http
      .post(`${API}/transactions/hold`)
      .set(h.keys)
      .send({ transactionTime: T, ...body });
  const sendOtp = (body: Record<string, unknown>) => h.http.post(`${API}/transactions/otp`).set(h.keys).send(body);
  const lastOtp = async (customerId: string) => (await h.http.get(`/_sandbox/otp/${customerId}`).set(h.keys).expect(200)).body;

  beforeEach(async () => {
    await h.http.post('/_sandbox/reset').set(h.keys).expect(200);
    await h.seed('c1', 1000);
  });

  it('with OTP off, a hold needs no code', async () => {
    expect((await hold({ customerId: 'c1', pointsToHold: 10 })).status).toBe(200);
  });

  describe('with OTP on', () => {
    beforeEach(() => h.setAccount({ otpEnabled: true, otpTtlSeconds: 120 }));

    it('refuses a hold without an otp (OTPRequired) unless ignoreOTP is true', async () => {
      const refused = expectLoyaltyError(await hold({ customerId: 'c1', pointsToHold: 10 }), 422, 3003);
      expect(refused.reason).toBe('OTPRequired');
      expect(refused.message).toMatch(/otp/i);
      expectLoyaltyError(await hold({ customerId: 'c1', pointsToHold: 10, ignoreOTP: false }), 422, 3003);
      expect((await hold({ customerId: 'c1', pointsToHold: 10, ignoreOTP: true })).status).toBe(200);
    });

    it('issues a six-digit code that a hold uses once', async () => {
      const sent = await sendOtp({ customerId: 'c1', points: 100 });
      expect(sent.status).toBe(200);
      expect(sent.body).toEqual({ success: true, message: expect.any(String), expiresAt: '2025-03-01T10:02:00.000Z' });
      expect(JSON.stringify(sent.body)).not.toMatch(/\b\d{6}\b/); // the code goes to the customer, not the caller
      const { otp, expiresAt } = await lastOtp('c1');
      expect(otp).toMatch(/^[0-9]{6}$/);
      expect(expiresAt).toBe('2025-03-01T10:02:00.000Z');

      const wrong = otp === '123456' ? '654321' : '123456';
      const bad = expectLoyaltyError(await hold({ customerId: 'c1', pointsToHold: 100, otp: wrong }), 422, 3003);
      expect(bad.reason).toBe('OTPInvalid');
      expect((await hold({ customerId: 'c1', pointsToHold: 100, otp })).status).toBe(200);
      const reused = expectLoyaltyError(await hold({ customerId: 'c1', pointsToHold: 100, otp }), 422, 3003);
      expect(reused.reason).toBe('OTPInvalid');
      expect((await lastOtp('c1')).used).toBe(true);
    });

    it('a code expires by the sandbox clock', async () => {
      await sendOtp({ customerId: 'c1', amount: 5 }).expect(200);
      const { otp } = await lastOtp('c1');
      await h.advance(120_000);
      const expired = expectLoyaltyError(await hold({ customerId: 'c1', pointsToHold: 10, otp }), 422, 3003);
      expect(expired.reason).toBe('OTPExpired');
    });

    it('a hold refused for another reason does not use up the code', async () => {
      await sendOtp({ customerId: 'c1', points: 5000 }).expect(200);
      const { otp } = await lastOtp('c1');
      expectLoyaltyError(await hold({ customerId: 'c1', pointsToHold: 5000, otp }), 422, 9008);
      expect((await hold({ customerId: 'c1', pointsToHold: 1000, otp })).status).toBe(200);
    });

    it('burns the code after five wrong guesses', async () => {
      await sendOtp({ customerId: 'c1', points: 10 }).expect(200);
      const { otp } = await lastOtp('c1');
      const wrong = otp === '000000' ? '000001' : '000000';
      for (let i = 0; i < 5; i++) expectLoyaltyError(await hold({ customerId: 'c1', pointsToHold: 10, otp: wrong }), 422, 3003);
      expectLoyaltyError(await hold({ customerId: 'c1', pointsToHold: 10, otp }), 422, 3003);
    });
  });

  it('validates the OTP request: exactly one of amount/points/ruleId, known rule, known customer', async () => {
    expectLoyaltyError(await sendOtp({ customerId: 'c1' }), 400, 3000);
    expectLoyaltyError(await sendOtp({ customerId: 'c1', points: 1, amount: 1 }), 422, 3003);
    expectLoyaltyError(await sendOtp({ customerId: 'c1', ruleId: 'missing' }), 422, 3003);
    expect((await sendOtp({ customerId: 'c1', ruleId: 'r10' })).status).toBe(200);
    expectLoyaltyError(await sendOtp({ customerId: 'ghost', points: 1 }), 404, 7000);
    expectLoyaltyError(await h.http.get('/_sandbox/otp/ghost').set(h.keys), 404, 7000);
  });

  it('needs both keys', async () => {
    expectLoyaltyError(await h.http.post(`${API}/transactions/otp`).set({ apikey: h.keys.apikey }).send({ customerId: 'c1', points: 1 }), 401, 1001);
  });
});
