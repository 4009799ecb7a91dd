// Queue Profiles as the API takes and shows them.
import { z } from 'zod';
import { DEFAULT_JOB_LIFETIME_S, MAX_INITIAL_DELAY_S, MAX_JOB_LIFETIME_S, MAX_RATE_LIMIT, MAX_RATE_PERIOD_S } from '../../actions/queue-profiles.js';

const seconds = (max: number) => z.coerce.number().int().min(0).max(max);

export const QueueProfileBody = z.object({
  name: z.string().trim().min(1).max(100),
  initial_delay: seconds(MAX_INITIAL_DELAY_S).default(0).describe('Seconds before a job first runs'),
  rate_limit: z.coerce.number().int().min(1).max(MAX_RATE_LIMIT).describe('Jobs that may start in any span of rate_period seconds (a sliding window)'),
  rate_period: z.coerce.number().int().min(1).max(MAX_RATE_PERIOD_S).describe('The period, in seconds (60: a minute)'),
  job_lifetime: z.coerce
    .number()
    .int()
    .min(1)
    .max(MAX_JOB_LIFETIME_S)
    .default(DEFAULT_JOB_LIFETIME_S)
    .describe("Seconds from a job's first planned run until it is given up (and reported in the error log); default one day"),
});

export const QueueProfileView = z.object({
  id: z.string(),
  user_id: z.number().int(),
  name: z.string(),
  initial_delay: z.number().int(),
  rate_limit: z.number().int(),
  rate_period: z.number().int(),
  job_lifetime: z.number().int(),
  created_at: z.string().nullable(),
  updated_at: z.string().nullable(),
});
