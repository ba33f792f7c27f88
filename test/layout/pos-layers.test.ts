import { layerOf, layers } from '../../scripts/pos-layers';

const graph = (edges: Record<string, string[]>) => new Map(Object.entries(edges).map(([k, v]) => [k, new Set(v)]));

describe('the layers of src/pos (scripts/pos-layers.ts, run by npm run lint:deps)', () => {
  it('orders folders bottom-up when none reaches back', () => {
    const { circles, order } = layers(graph({ sales: ['redemptions', 'outbox'], redemptions: ['money'], outbox: ['money'] }));
    expect(circles).toEqual([]);
    expect(order.indexOf('money')).toBeLessThan(order.indexOf('redemptions'));
    expect(order.indexOf('outbox')).toBeLessThan(order.indexOf('sales'));
    expect(order.at(-1)).toBe('sales');
  });

  it('names the folders that reach back to themselves, through others too', () => {
    const { circles } = layers(graph({ sales: ['refunds'], refunds: ['outbox'], outbox: ['sales'], audit: ['money'] }));
    expect(circles).toEqual([['outbox', 'refunds', 'sales']]);
  });

  it("counts a feature's route entries apart from it and leaves the assembly out", () => {
    expect(layerOf('src/pos/sales/payments.ts')).toBe('sales');
    expect(layerOf('src/pos/coupons/locks/claims.ts')).toBe('coupons');
    expect(layerOf('src/pos/sales/routes.ts')).toBe('sales entries');
    expect(layerOf('src/pos/context.ts')).toBe('context');
    for (const top of ['src/pos/app.ts', 'src/pos/server.ts', 'src/pos/routes.ts', 'src/pos/deps.ts', 'src/pos/openapi/index.ts', 'src/pos/terminals/cli.ts'])
      expect(layerOf(top)).toBeUndefined();
    expect(layerOf('src/upstream/client.ts')).toBeUndefined();
  });
});
