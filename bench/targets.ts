import type { HttpFigures, TargetRow } from './lib/report';
import { fixed, integer } from './lib/report';
import type { HoldScaleResult } from './scenarios/holds';

/**
 * The targets, judged from one run's figures. Latency targets are
 * judged at one connection (one till waiting for its answer): at the fixed
 * concurrency p50 is mostly queueing, i.e. throughput, which has its own target.
 */
export function targets(
  http: HttpFigures[],
  holds: HoldScaleResult | undefined,
  s: { connections: number; holds: { open: number; due: number; small: number } },
): TargetRow[] {
  const by = (id: string) => http.find((h) => h.id === id);
  const rows: TargetRow[] = [];
  const floor = by('1');
  const pay = by('2');
  const checkout = by('3');
  const onSandbox = by('4');
  const small = by('6a');
  const large = by('6b');

  if (floor && pay) {
    const ratio = pay.load.median.rps / floor.load.median.rps;
    rows.push({
      target: 'BFF payment throughput >= 0.6 x floor (2/1)',
      measured: `${fixed(ratio)} (${integer(pay.load.median.rps)} / ${integer(floor.load.median.rps)} req/s)`,
      met: ratio >= 0.6,
    });
    const added = pay.single.median.p50 - floor.single.median.p50;
    rows.push({
      target: 'p50 added over the floor <= 1 ms (one till)',
      measured: `${fixed(added)} ms (${fixed(pay.single.median.p50)} vs ${fixed(floor.single.median.p50)})`,
      met: added <= 1,
    });
    const addedLoaded = pay.load.median.p50 - floor.load.median.p50;
    rows.push({ target: `p50 added over the floor at c=${s.connections} (queueing; for information)`, measured: `${fixed(addedLoaded)} ms`, met: null });
    const cpuBff = pay.load.median.cpu.bff?.msPerRequest;
    const cpuFloor = floor.load.median.cpu.floor?.msPerRequest;
    rows.push({
      target: 'CPU per payment, BFF vs floor process (for information)',
      measured: `${fixed(cpuBff, 3)} vs ${fixed(cpuFloor, 3)} ms (${fixed(cpuBff / cpuFloor)}x)`,
      met: null,
    });
  }
  const withReceipt = by('2r');
  if (floor && withReceipt) {
    const ratio = withReceipt.load.median.rps / floor.load.median.rps;
    rows.push({
      target: 'BFF payment with its receipt vs floor (2r/1: three upstream calls to one; for information)',
      measured: `${fixed(ratio)} (${integer(withReceipt.load.median.rps)} req/s; p50 ${fixed(withReceipt.single.median.p50)} ms at one till)`,
      met: null,
    });
  }
  if (floor && checkout) {
    const ratio = checkout.load.median.rps / floor.load.median.rps;
    const perCheckout = checkout.load.median.extra;
    rows.push({
      target: 'BFF redemption + payment calls vs floor (3/1; for information)',
      measured: `${fixed(ratio)}; ${integer(perCheckout.checkoutsPerSecond)} checkouts/s, checkout p50 ${fixed(checkout.single.median.extra.checkoutP50)} ms at one till`,
      met: null,
    });
  }
  if (onSandbox) {
    const c = onSandbox.load.median.cpu;
    const sandboxCores = c.sandbox?.cores ?? NaN;
    const bffCores = c.bff?.cores ?? NaN;
    const vs3 = checkout
      ? `; one till's checkout p50 ${fixed(onSandbox.single.median.extra.checkoutP50)} ms vs ${fixed(checkout.single.median.extra.checkoutP50)} ms on the stub; calls/s vs the stub (4/3, sharing the cores) ${fixed(onSandbox.load.median.rps / checkout.load.median.rps)}`
      : '';
    rows.push({
      target: 'Sandbox is not the bottleneck of a checkout (4: sandbox CPU < BFF CPU)',
      measured: `sandbox ${fixed(sandboxCores)} cores, BFF ${fixed(bffCores)} cores${vs3}`,
      met: sandboxCores < bffCores,
    });
  }
  if (holds) {
    rows.push({
      target: `Sweeper expires ${integer(holds.due)} due holds < 1 s with ${integer(holds.open)} open`,
      measured: `${integer(holds.sweepMsMedian)} ms (runs: ${holds.sweepMs.map((m) => integer(m)).join(', ')})`,
      met: holds.sweepMsMedian < 1000,
    });
    rows.push({
      target: `Expiry check independent of holds open (p50 at ${integer(holds.open)} / at ${integer(s.holds.small)} <= 1.2)`,
      measured: `${fixed(holds.checkRatio)} (${integer(holds.checkLarge.p50Us)} vs ${integer(holds.checkSmall.p50Us)} us; p99 ${integer(holds.checkLarge.p99Us)} vs ${integer(holds.checkSmall.p99Us)} us)`,
      met: holds.checkRatio <= 1.2,
    });
    const b = holds.breakdown;
    rows.push({
      target: 'Redis memory per tracked hold <= 400 bytes',
      measured: `${integer(holds.bytesPerHold)} bytes (used_memory +${fixed((holds.usedMemoryAfter - holds.usedMemoryBefore) / 2 ** 20, 0)} MiB; record ${b.recordKeyBytes} B for a ${b.recordValueChars}-char value, index ${integer(b.indexBytesPerHold)} B, rest TTL and hash tables)`,
      met: holds.bytesPerHold <= 400,
    });
  }
  if (small && large) {
    const ratio = large.single.median.p50 / small.single.median.p50;
    const loaded = large.load.median.p50 / small.load.median.p50;
    const rps = large.load.median.rps / small.load.median.rps;
    rows.push({
      target: 'Sandbox payment p50 with 1M customers <= 1.2 x with 1k (6, one client)',
      measured: `${fixed(ratio)} (${fixed(large.single.median.p50)} vs ${fixed(small.single.median.p50)} ms); at c=${s.connections}: p50 ${fixed(loaded)}x, req/s ${fixed(rps)}x`,
      met: ratio <= 1.2,
    });
  }
  return rows;
}
