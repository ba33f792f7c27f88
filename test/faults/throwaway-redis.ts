import { RedisServer } from '../redis-loss/redis-server';

/** A redis-server of this test's own on a port it chose, which it may kill and start again (with AOF, as production should run). */
export class ThrowawayRedis extends RedisServer {
  constructor(port: number) {
    super(port, { persist: true });
  }
}
