import { z } from 'zod';
import { bool } from './values';
import { feature, setting, type SliceOf } from './define';

export const log = feature({
  title: 'Logs',
  settings: {
    level: setting('LOG_LEVEL', z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info'), {
      description: 'fatal | error | warn | info | debug | trace | silent.',
    }),
    pretty: setting('LOG_PRETTY', bool.optional(), {
      description:
        'true = human-readable logs (pino-pretty); false = JSON lines. Refused with NODE_ENV=production: pino-pretty is a ' +
        'development dependency, absent from production installs.',
      default: 'true in development on a terminal, else false',
    }),
  },
  // Readable lines where a person is watching; JSON lines for anything that collects them.
  read: (values, { env }) => ({ ...values, pretty: values.pretty ?? (env === 'development' && Boolean(process.stdout.isTTY)) }),
});

export type LogSettings = SliceOf<typeof log>;
