// request_keys and search_keys are keyed by a token's number (tokens.number, given by trigger at insert), not its UUID: a key of
// ~20 bytes instead of ~55, so a catch-up step writes fewer pages of them and splits fewer. Reads are
// given a token's UUID and look its number up once per statement; every entry of either is a
// token's that exists (a token's deletion takes its keys first: chunks.ts, tokenLeftovers). Not
// search_tokens.token_number (search_rows'), which numbers the search-indexed tokens apart.

/** SQL for the number of the token whose UUID is bound at `param` (`?`, `@t`, `NEW.token_id`...). */
export const tokenNumberOf = (param: string): string => `(SELECT number FROM tokens WHERE uuid = ${param})`;
