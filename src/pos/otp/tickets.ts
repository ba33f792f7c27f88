import { redisUnavailable, type RedisClient } from '../../platform/redis';

/**
 * Which redemption the customer's newest OTP was sent for. The loyalty service
 * keeps one live code per customer and does not know our redemptions, so a
 * code read out for one redemption would place the hold of another (issue 15).
 * The BFF writes the ticket before it asks for the code, and accepts a code
 * only for the redemption the newest ticket names.
 */
export interface OtpTicket {
  redemptionId: string;
  /** What the code was asked for: `points:150`, `amount:12.5` or `rule:<id>`. */
  ask: string;
}

export interface OtpTicketStore {
  /** Records that the newest code for `customerId` is for this ticket (replacing any older one). */
  issue(customerId: string, ticket: OtpTicket, ttlMs: number): Promise<void>;
  current(customerId: string): Promise<OtpTicket | null>;
  /** Forgets the ticket if it is still this redemption's (a used code is gone upstream too). */
  settle(customerId: string, redemptionId: string): Promise<void>;
  close(): Promise<void>;
}

export class MemoryOtpTickets implements OtpTicketStore {
  private readonly tickets = new Map<string, { ticket: OtpTicket; until: number }>();
  constructor(private readonly clock: () => number = Date.now) {}

  async issue(customerId: string, ticket: OtpTicket, ttlMs: number) {
    this.tickets.set(customerId, { ticket, until: this.clock() + ttlMs });
  }

  async current(customerId: string) {
    const t = this.tickets.get(customerId);
    if (!t || t.until <= this.clock()) return null;
    return t.ticket;
  }

  async settle(customerId: string, redemptionId: string) {
    if (this.tickets.get(customerId)?.ticket.redemptionId === redemptionId) this.tickets.delete(customerId);
  }

  async close() {
    this.tickets.clear();
  }
}

/** Deletes the key only if it still names this redemption (another code may have been asked for since). */
const SETTLE = `local v = redis.call('GET', KEYS[1])
if v and cjson.decode(v).redemptionId == ARGV[1] then return redis.call('DEL', KEYS[1]) end
return 0`;

export class RedisOtpTickets implements OtpTicketStore {
  constructor(
    private readonly redis: RedisClient,
    private readonly prefix: string,
  ) {}

  private key(customerId: string) {
    return `${this.prefix}otp:${customerId}`;
  }

  async issue(customerId: string, ticket: OtpTicket, ttlMs: number) {
    await this.redis.set(this.key(customerId), JSON.stringify(ticket), 'PX', Math.max(1, Math.round(ttlMs))).catch(unavailable);
  }

  async current(customerId: string) {
    const v = await this.redis.get(this.key(customerId)).catch(unavailable);
    return v ? (JSON.parse(v) as OtpTicket) : null;
  }

  async settle(customerId: string, redemptionId: string) {
    await this.redis.eval(SETTLE, 1, this.key(customerId), redemptionId).catch(unavailable);
  }

  async close() {}
}

export function createOtpTickets(opts: { redis?: RedisClient; prefix: string; clock?: () => number }): OtpTicketStore {
  return opts.redis ? new RedisOtpTickets(opts.redis, opts.prefix) : new MemoryOtpTickets(opts.clock);
}

/** A Redis failure is a 503 the till can retry, not a bug. */
function unavailable(err: unknown): never {
  throw redisUnavailable(err, 'OTP tickets');
}
