import { z } from 'zod';
import { feature, NODE_ENVS, setting } from './define';

export const environment = feature({
  title: 'Process',
  settings: {
    nodeEnv: setting('NODE_ENV', z.enum(NODE_ENVS).default('development'), { description: 'development | production | test.' }),
  },
  read: ({ nodeEnv }) => nodeEnv,
});
