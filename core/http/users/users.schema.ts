import { z } from 'zod';

export const UserCreateBody = z.object({
  name: z.string().trim().min(1).max(255),
  email: z.string().trim().email().max(255),
  premium: z.boolean().default(false),
});
