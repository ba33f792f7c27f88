import { Writable } from 'node:stream';
import { addLogContext, createLogger, currentLogContext, runWithLogContext } from '../../src/platform/logger';

function capture() {
  const lines: string[] = [];
  const destination = new Writable({
    write(chunk, _enc, cb) {
      lines.push(...String(chunk).split('\n').filter(Boolean));
      cb();
    },
  });
  return { lines, logger: createLogger({ level: 'debug', pretty: false, destination }) };
}

describe('logger', () => {
  it('redacts authorization, apikey and secretkey headers and token fields wherever an object carries them', () => {
    const { lines, logger } = capture();
    logger.info({ req: { headers: { authorization: 'Bearer pos_tok_1', apikey: 'ak_1', secretkey: 'sk_1', 'user-agent': 'till/1.0' } } }, 'incoming');
    logger.info({ headers: { apikey: 'ak_2', secretkey: 'sk_2', authorization: 'Bearer pos_tok_2' } }, 'outgoing');
    logger.warn({ err: { config: { headers: { apikey: 'ak_3', secretkey: 'sk_3' } } } }, 'axios error');
    logger.info(
      { terminal: { id: 't1', token: 'pos_tok_3' }, token: 'pos_tok_4', secretKey: 'sk_4', loyalty: { secretKey: 'sk_5', apiKey: 'ak_5' } },
      'objects',
    );
    const all = lines.join('\n');
    for (const secret of ['pos_tok_1', 'pos_tok_2', 'pos_tok_3', 'pos_tok_4', 'ak_1', 'ak_2', 'ak_3', 'ak_5', 'sk_1', 'sk_2', 'sk_3', 'sk_4', 'sk_5']) {
      expect(all).not.toContain(secret);
    }
    expect(all).toContain('[redacted]');
    expect(all).toContain('till/1.0');
    expect(JSON.parse(lines[3]).terminal).toEqual({ id: 't1', token: '[redacted]' });
  });

  it('adds the request context to lines written inside it, by any logger, once', async () => {
    const { lines, logger } = capture();
    const other = logger.child({ component: 'loyalty-client' });
    logger.info('outside');
    await runWithLogContext({ requestId: 'r-1' }, async () => {
      addLogContext({ terminalId: 't-1', storeId: 's-1', role: 'cashier' });
      await new Promise((r) => setImmediate(r));
      other.debug({ operation: 'balance' }, 'loyalty call');
      logger.child({ terminalId: 't-1' }).info('bound');
      logger.info({ requestId: 'explicit' }, 'explicit wins');
      expect(currentLogContext()).toEqual({ requestId: 'r-1', terminalId: 't-1', storeId: 's-1', role: 'cashier' });
    });
    const [outside, call, bound, explicit] = lines.map((l) => JSON.parse(l));
    expect(outside).not.toHaveProperty('requestId');
    expect(call).toMatchObject({ component: 'loyalty-client', requestId: 'r-1', terminalId: 't-1', storeId: 's-1', role: 'cashier' });
    expect(lines[2].match(/"terminalId"/g)).toHaveLength(1);
    expect(bound).toMatchObject({ terminalId: 't-1', storeId: 's-1' });
    expect(explicit.requestId).toBe('explicit');
    addLogContext({ terminalId: 'ignored' });
    expect(currentLogContext()).toBeUndefined();
  });
});
