import { defineScripts, redisUnavailable, type RedisClient } from '../../platform/redis';

/**
 * Which redemption a customer's code was asked for. The loyalty service keeps
 * one live code per customer and does not know our redemptions, so a code read
 * out for one redemption could place the hold of another. A redemption claims
 * the customer's one ticket before it asks for a code, and no other may ask
 * while the ticket stands: so at most one code request per customer is ever in
 * flight, across stores and instances, and the upstream's live code is always
 * the one the ticket names.
 */
export interface OtpTicket {
  redemptionId: string;
  /** The store of that redemption (another store's till is not told its id). */
  storeId: string;
  /** What the code was asked for: `points:150`, `amount:12.5` or `rule:<id>`. */
  ask: string;
  /** When the code lapses (epoch ms, by the BFF's clock); the ticket stands until then or until settled. */
  lapsesAt: number;
}

export interface OtpTicketStore {
  /** Takes the customer's ticket; answers the standing ticket instead (taking nothing) while another's code is still out. */
  claim(customerId: string, ticket: OtpTicket, now: number): Promise<OtpTicket | null>;
  current(customerId: string, now: number): Promise<OtpTicket | null>;
  /** Gives the ticket up if it is still this redemption's: its code was used, or never sent. */
  settle(customerId: string, redemptionId: string): Promise<void>;
  /** Drops the customer's ticket, whatever it names (their erasure); whether there was one. */
  forget(customerId: string): Promise<boolean>;
  close(): Promise<void>;
}

export class MemoryOtpTickets implements OtpTicketStore {
  private readonly tickets = new Map<string, OtpTicket>();

  async claim(customerId: string, ticket: OtpTicket, now: number) {
    // Read and written with no await between: two claims at once cannot both take the ticket.
    const standing = this.standing(customerId, now);
    if (standing) return standing;
    this.tickets.set(customerId, ticket);
    return null;
  }

  async current(customerId: string, now: number) {
    return this.standing(customerId, now);
  }

  private standing(customerId: string, now: number): OtpTicket | null {
    const t = this.tickets.get(customerId);
    if (!t || t.lapsesAt <= now) return null;
    return t;
  }

  async settle(customerId: string, redemptionId: string) {
    if (this.tickets.get(customerId)?.redemptionId === redemptionId) this.tickets.delete(customerId);
  }

  async forget(customerId: string) {
    return this.tickets.delete(customerId);
  }

  async close() {
    this.tickets.clear();
  }
}

/** Sets the ticket unless one stands that has not lapsed (by the caller's clock); answers the standing one. */
const CLAIM = `local v = redis.call('GET', KEYS[1])
if v and tonumber(cjson.decode(v).lapsesAt or 0) > tonumber(ARGV[2]) then return v end
redis.call('SET', KEYS[1], ARGV[1], 'PX', ARGV[3])
return false`;

/** Deletes the key only if it still names this redemption. */
const SETTLE = `local v = redis.call('GET', KEYS[1])
if v and cjson.decode(v).redemptionId == ARGV[1] then return redis.call('DEL', KEYS[1]) end
return 0`;

/** Redis forgets a ticket this long after it lapsed (readers go by `lapsesAt`; this only bounds memory). */
const KEEP_AFTER_LAPSE_MS = 60 * 60_000;

interface TicketScripts {
  otpTicketClaim(key: string, ticket: string, now: string, keepMs: string): Promise<string | null>;
  otpTicketSettle(key: string, redemptionId: string): Promise<number>;
}

export class RedisOtpTickets implements OtpTicketStore {
  private readonly redis: RedisClient & TicketScripts;
  constructor(
    redis: RedisClient,
    private readonly prefix: string,
  ) {
    this.redis = defineScripts<TicketScripts>(redis, { otpTicketClaim: { keys: 1, lua: CLAIM }, otpTicketSettle: { keys: 1, lua: SETTLE } });
  }

  private key(customerId: string) {
    return `${this.prefix}otp:${customerId}`;
  }

  async claim(customerId: string, ticket: OtpTicket, now: number) {
    const keepMs = Math.max(1, Math.round(ticket.lapsesAt - now)) + KEEP_AFTER_LAPSE_MS;
    const standing = await this.redis.otpTicketClaim(this.key(customerId), JSON.stringify(ticket), String(now), String(keepMs)).catch(unavailable);
    return standing ? (JSON.parse(standing) as OtpTicket) : null;
  }

  async current(customerId: string, now: number) {
    const v = await this.redis.get(this.key(customerId)).catch(unavailable);
    const t = v ? (JSON.parse(v) as OtpTicket) : null;
    return t && t.lapsesAt > now ? t : null;
  }

  async settle(customerId: string, redemptionId: string) {
    await this.redis.otpTicketSettle(this.key(customerId), redemptionId).catch(unavailable);
  }

  async forget(customerId: string) {
    return (await this.redis.del(this.key(customerId)).catch(unavailable)) > 0;
  }

  async close() {}
}

export function createOtpTickets(opts: { redis?: RedisClient; prefix: string }): OtpTicketStore {
  return opts.redis ? new RedisOtpTickets(opts.redis, opts.prefix) : new MemoryOtpTickets();
}

/** A Redis failure is a 503 the till can retry, not a bug. */
function unavailable(err: unknown): never {
  throw redisUnavailable(err, 'OTP tickets');
}
