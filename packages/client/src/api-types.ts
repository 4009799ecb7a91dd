// Generated from the service's OpenAPI document (GET /openapi.json) by
// packages/client/scripts/write-types.ts: do not edit. `npm run types -w @capture/client` after an
// API change; packages/client/test/types.test.ts fails while this file is behind.

/** Every operation of the API, keyed "METHOD /path". */
export interface Operations {
  /** Create a token */
  "POST /token": {
    path: Record<string, never>;
    query: Record<string, never>;
    body: {
      default_status?: number;
      default_content?: string;
      default_content_type?: string;
      timeout?: number;
      listen?: number;
      expiry?: number | boolean | null;
      request_limit?: number;
      cors?: boolean;
      alias?: string | null;
      actions?: boolean;
      clone_from?: string;
      group_id?: number | null;
      description?: string | null;
      redirect?: boolean;
      redaction?: {
        rules: ({
          kind: "header";
          /** Header name, any case */
          name: string;
          /** Mask text for this rule (default: the settings' replacement) */
          replacement?: string;
          /** Custom Actions see the original value during the run (false: they see it masked too) */
          actions_see_original?: boolean;
        } | {
          kind: "query";
          /** Query string parameter name */
          name: string;
          /** Mask text for this rule (default: the settings' replacement) */
          replacement?: string;
          /** Custom Actions see the original value during the run (false: they see it masked too) */
          actions_see_original?: boolean;
        } | {
          kind: "form";
          /** Form field name (urlencoded or multipart) */
          name: string;
          /** Mask text for this rule (default: the settings' replacement) */
          replacement?: string;
          /** Custom Actions see the original value during the run (false: they see it masked too) */
          actions_see_original?: boolean;
        } | {
          kind: "json";
          /** JSONPath into a JSON body, e.g. $.card.number or $..password */
          path: string;
          /** Mask text for this rule (default: the settings' replacement) */
          replacement?: string;
          /** Custom Actions see the original value during the run (false: they see it masked too) */
          actions_see_original?: boolean;
        } | {
          kind: "regex";
          /** JavaScript regular expression; every match is masked */
          pattern: string;
          /** Regular expression flags (i, m, s, u); g is implied */
          flags?: string;
          /** Mask text for this rule (default: the settings' replacement) */
          replacement?: string;
          /** Custom Actions see the original value during the run (false: they see it masked too) */
          actions_see_original?: boolean;
        } | {
          kind: "preset";
          /** bearer: Bearer tokens; card: card numbers passing the Luhn check; email: e-mail addresses */
          preset: "bearer" | "card" | "email";
          /** Mask text for this rule (default: the settings' replacement) */
          replacement?: string;
          /** Custom Actions see the original value during the run (false: they see it masked too) */
          actions_see_original?: boolean;
        })[];
        /** Mask text of the rules that set none */
        replacement?: string;
      } | null;
    };
    status: 200;
    response: {
      uuid: string;
      redirect: boolean;
      alias: string | null;
      actions: boolean;
      cors: boolean;
      expiry: number | boolean | null;
      timeout: number;
      listen: number;
      premium: boolean;
      premium_expires_at: string | null;
      user_id: number | null;
      team_id: number | null;
      ip: string;
      user_agent: string;
      default_content: string;
      default_status: number;
      default_content_type: string;
      request_limit: number | null;
      description: string | null;
      group_id: number | null;
      created_at: string;
      updated_at: string;
      expires_at: string | null;
      redaction: {
        rules: ({
          kind: "header";
          /** Header name, any case */
          name: string;
          /** Mask text for this rule (default: the settings' replacement) */
          replacement?: string;
          /** Custom Actions see the original value during the run (false: they see it masked too) */
          actions_see_original?: boolean;
        } | {
          kind: "query";
          /** Query string parameter name */
          name: string;
          /** Mask text for this rule (default: the settings' replacement) */
          replacement?: string;
          /** Custom Actions see the original value during the run (false: they see it masked too) */
          actions_see_original?: boolean;
        } | {
          kind: "form";
          /** Form field name (urlencoded or multipart) */
          name: string;
          /** Mask text for this rule (default: the settings' replacement) */
          replacement?: string;
          /** Custom Actions see the original value during the run (false: they see it masked too) */
          actions_see_original?: boolean;
        } | {
          kind: "json";
          /** JSONPath into a JSON body, e.g. $.card.number or $..password */
          path: string;
          /** Mask text for this rule (default: the settings' replacement) */
          replacement?: string;
          /** Custom Actions see the original value during the run (false: they see it masked too) */
          actions_see_original?: boolean;
        } | {
          kind: "regex";
          /** JavaScript regular expression; every match is masked */
          pattern: string;
          /** Regular expression flags (i, m, s, u); g is implied */
          flags?: string;
          /** Mask text for this rule (default: the settings' replacement) */
          replacement?: string;
          /** Custom Actions see the original value during the run (false: they see it masked too) */
          actions_see_original?: boolean;
        } | {
          kind: "preset";
          /** bearer: Bearer tokens; card: card numbers passing the Luhn check; email: e-mail addresses */
          preset: "bearer" | "card" | "email";
          /** Mask text for this rule (default: the settings' replacement) */
          replacement?: string;
          /** Custom Actions see the original value during the run (false: they see it masked too) */
          actions_see_original?: boolean;
        })[];
        /** Mask text of the rules that set none */
        replacement?: string;
      } | null;
      requests?: number;
      latest_request_id?: string | null;
      latest_request_at?: string | null;
    };
  };
  /** List the caller's tokens */
  "GET /token": {
    path: Record<string, never>;
    query: {
      /** Items per page, 1 to 100 (default 50); more answers 422 */
      per_page?: number;
      /** Page number, from 1 */
      page?: number;
      order_by?: "created_at" | "token_id";
      order_direction?: "asc" | "desc";
      /** Only tokens whose ID or alias contains this text (ignoring case) */
      query?: string;
      /** Only tokens in this group */
      group_id?: number;
    };
    body: never;
    status: 200;
    response: {
      data: unknown[];
      current_page: number;
      first_page_url: string;
      from: number | null;
      last_page: number;
      last_page_url: string;
      next_page_url: string | null;
      path: string;
      per_page: number;
      prev_page_url: string | null;
      to: number | null;
      total: number;
    } & {
      data?: {
        uuid: string;
        redirect: boolean;
        alias: string | null;
        actions: boolean;
        cors: boolean;
        expiry: number | boolean | null;
        timeout: number;
        listen: number;
        premium: boolean;
        premium_expires_at: string | null;
        user_id: number | null;
        team_id: number | null;
        ip: string;
        user_agent: string;
        default_content: string;
        default_status: number;
        default_content_type: string;
        request_limit: number | null;
        description: string | null;
        group_id: number | null;
        created_at: string;
        updated_at: string;
        expires_at: string | null;
        redaction: {
          rules: ({
            kind: "header";
            /** Header name, any case */
            name: string;
            /** Mask text for this rule (default: the settings' replacement) */
            replacement?: string;
            /** Custom Actions see the original value during the run (false: they see it masked too) */
            actions_see_original?: boolean;
          } | {
            kind: "query";
            /** Query string parameter name */
            name: string;
            /** Mask text for this rule (default: the settings' replacement) */
            replacement?: string;
            /** Custom Actions see the original value during the run (false: they see it masked too) */
            actions_see_original?: boolean;
          } | {
            kind: "form";
            /** Form field name (urlencoded or multipart) */
            name: string;
            /** Mask text for this rule (default: the settings' replacement) */
            replacement?: string;
            /** Custom Actions see the original value during the run (false: they see it masked too) */
            actions_see_original?: boolean;
          } | {
            kind: "json";
            /** JSONPath into a JSON body, e.g. $.card.number or $..password */
            path: string;
            /** Mask text for this rule (default: the settings' replacement) */
            replacement?: string;
            /** Custom Actions see the original value during the run (false: they see it masked too) */
            actions_see_original?: boolean;
          } | {
            kind: "regex";
            /** JavaScript regular expression; every match is masked */
            pattern: string;
            /** Regular expression flags (i, m, s, u); g is implied */
            flags?: string;
            /** Mask text for this rule (default: the settings' replacement) */
            replacement?: string;
            /** Custom Actions see the original value during the run (false: they see it masked too) */
            actions_see_original?: boolean;
          } | {
            kind: "preset";
            /** bearer: Bearer tokens; card: card numbers passing the Luhn check; email: e-mail addresses */
            preset: "bearer" | "card" | "email";
            /** Mask text for this rule (default: the settings' replacement) */
            replacement?: string;
            /** Custom Actions see the original value during the run (false: they see it masked too) */
            actions_see_original?: boolean;
          })[];
          /** Mask text of the rules that set none */
          replacement?: string;
        } | null;
        requests?: number;
        latest_request_id?: string | null;
        latest_request_at?: string | null;
      }[];
    };
  };
  /** Get a token */
  "GET /token/{token_id}": {
    path: {
      token_id: string;
    };
    query: Record<string, never>;
    body: never;
    status: 200;
    response: {
      uuid: string;
      redirect: boolean;
      alias: string | null;
      actions: boolean;
      cors: boolean;
      expiry: number | boolean | null;
      timeout: number;
      listen: number;
      premium: boolean;
      premium_expires_at: string | null;
      user_id: number | null;
      team_id: number | null;
      ip: string;
      user_agent: string;
      default_content: string;
      default_status: number;
      default_content_type: string;
      request_limit: number | null;
      description: string | null;
      group_id: number | null;
      created_at: string;
      updated_at: string;
      expires_at: string | null;
      redaction: {
        rules: ({
          kind: "header";
          /** Header name, any case */
          name: string;
          /** Mask text for this rule (default: the settings' replacement) */
          replacement?: string;
          /** Custom Actions see the original value during the run (false: they see it masked too) */
          actions_see_original?: boolean;
        } | {
          kind: "query";
          /** Query string parameter name */
          name: string;
          /** Mask text for this rule (default: the settings' replacement) */
          replacement?: string;
          /** Custom Actions see the original value during the run (false: they see it masked too) */
          actions_see_original?: boolean;
        } | {
          kind: "form";
          /** Form field name (urlencoded or multipart) */
          name: string;
          /** Mask text for this rule (default: the settings' replacement) */
          replacement?: string;
          /** Custom Actions see the original value during the run (false: they see it masked too) */
          actions_see_original?: boolean;
        } | {
          kind: "json";
          /** JSONPath into a JSON body, e.g. $.card.number or $..password */
          path: string;
          /** Mask text for this rule (default: the settings' replacement) */
          replacement?: string;
          /** Custom Actions see the original value during the run (false: they see it masked too) */
          actions_see_original?: boolean;
        } | {
          kind: "regex";
          /** JavaScript regular expression; every match is masked */
          pattern: string;
          /** Regular expression flags (i, m, s, u); g is implied */
          flags?: string;
          /** Mask text for this rule (default: the settings' replacement) */
          replacement?: string;
          /** Custom Actions see the original value during the run (false: they see it masked too) */
          actions_see_original?: boolean;
        } | {
          kind: "preset";
          /** bearer: Bearer tokens; card: card numbers passing the Luhn check; email: e-mail addresses */
          preset: "bearer" | "card" | "email";
          /** Mask text for this rule (default: the settings' replacement) */
          replacement?: string;
          /** Custom Actions see the original value during the run (false: they see it masked too) */
          actions_see_original?: boolean;
        })[];
        /** Mask text of the rules that set none */
        replacement?: string;
      } | null;
      requests?: number;
      latest_request_id?: string | null;
      latest_request_at?: string | null;
    };
  };
  /** Update a token */
  "PUT /token/{token_id}": {
    path: {
      token_id: string;
    };
    query: Record<string, never>;
    body: {
      default_status?: number;
      default_content?: string;
      default_content_type?: string;
      timeout?: number;
      listen?: number;
      expiry?: number | boolean | null;
      request_limit?: number;
      cors?: boolean;
      alias?: string | null;
      actions?: boolean;
      group_id?: number | null;
      description?: string | null;
      redirect?: boolean;
      redaction?: {
        rules: ({
          kind: "header";
          /** Header name, any case */
          name: string;
          /** Mask text for this rule (default: the settings' replacement) */
          replacement?: string;
          /** Custom Actions see the original value during the run (false: they see it masked too) */
          actions_see_original?: boolean;
        } | {
          kind: "query";
          /** Query string parameter name */
          name: string;
          /** Mask text for this rule (default: the settings' replacement) */
          replacement?: string;
          /** Custom Actions see the original value during the run (false: they see it masked too) */
          actions_see_original?: boolean;
        } | {
          kind: "form";
          /** Form field name (urlencoded or multipart) */
          name: string;
          /** Mask text for this rule (default: the settings' replacement) */
          replacement?: string;
          /** Custom Actions see the original value during the run (false: they see it masked too) */
          actions_see_original?: boolean;
        } | {
          kind: "json";
          /** JSONPath into a JSON body, e.g. $.card.number or $..password */
          path: string;
          /** Mask text for this rule (default: the settings' replacement) */
          replacement?: string;
          /** Custom Actions see the original value during the run (false: they see it masked too) */
          actions_see_original?: boolean;
        } | {
          kind: "regex";
          /** JavaScript regular expression; every match is masked */
          pattern: string;
          /** Regular expression flags (i, m, s, u); g is implied */
          flags?: string;
          /** Mask text for this rule (default: the settings' replacement) */
          replacement?: string;
          /** Custom Actions see the original value during the run (false: they see it masked too) */
          actions_see_original?: boolean;
        } | {
          kind: "preset";
          /** bearer: Bearer tokens; card: card numbers passing the Luhn check; email: e-mail addresses */
          preset: "bearer" | "card" | "email";
          /** Mask text for this rule (default: the settings' replacement) */
          replacement?: string;
          /** Custom Actions see the original value during the run (false: they see it masked too) */
          actions_see_original?: boolean;
        })[];
        /** Mask text of the rules that set none */
        replacement?: string;
      } | null;
    };
    status: 200;
    response: {
      uuid: string;
      redirect: boolean;
      alias: string | null;
      actions: boolean;
      cors: boolean;
      expiry: number | boolean | null;
      timeout: number;
      listen: number;
      premium: boolean;
      premium_expires_at: string | null;
      user_id: number | null;
      team_id: number | null;
      ip: string;
      user_agent: string;
      default_content: string;
      default_status: number;
      default_content_type: string;
      request_limit: number | null;
      description: string | null;
      group_id: number | null;
      created_at: string;
      updated_at: string;
      expires_at: string | null;
      redaction: {
        rules: ({
          kind: "header";
          /** Header name, any case */
          name: string;
          /** Mask text for this rule (default: the settings' replacement) */
          replacement?: string;
          /** Custom Actions see the original value during the run (false: they see it masked too) */
          actions_see_original?: boolean;
        } | {
          kind: "query";
          /** Query string parameter name */
          name: string;
          /** Mask text for this rule (default: the settings' replacement) */
          replacement?: string;
          /** Custom Actions see the original value during the run (false: they see it masked too) */
          actions_see_original?: boolean;
        } | {
          kind: "form";
          /** Form field name (urlencoded or multipart) */
          name: string;
          /** Mask text for this rule (default: the settings' replacement) */
          replacement?: string;
          /** Custom Actions see the original value during the run (false: they see it masked too) */
          actions_see_original?: boolean;
        } | {
          kind: "json";
          /** JSONPath into a JSON body, e.g. $.card.number or $..password */
          path: string;
          /** Mask text for this rule (default: the settings' replacement) */
          replacement?: string;
          /** Custom Actions see the original value during the run (false: they see it masked too) */
          actions_see_original?: boolean;
        } | {
          kind: "regex";
          /** JavaScript regular expression; every match is masked */
          pattern: string;
          /** Regular expression flags (i, m, s, u); g is implied */
          flags?: string;
          /** Mask text for this rule (default: the settings' replacement) */
          replacement?: string;
          /** Custom Actions see the original value during the run (false: they see it masked too) */
          actions_see_original?: boolean;
        } | {
          kind: "preset";
          /** bearer: Bearer tokens; card: card numbers passing the Luhn check; email: e-mail addresses */
          preset: "bearer" | "card" | "email";
          /** Mask text for this rule (default: the settings' replacement) */
          replacement?: string;
          /** Custom Actions see the original value during the run (false: they see it masked too) */
          actions_see_original?: boolean;
        })[];
        /** Mask text of the rules that set none */
        replacement?: string;
      } | null;
      requests?: number;
      latest_request_id?: string | null;
      latest_request_at?: string | null;
    };
  };
  /** Delete a token and its requests */
  "DELETE /token/{token_id}": {
    path: {
      token_id: string;
    };
    query: Record<string, never>;
    body: never;
    status: 204;
    response: unknown;
  };
  /** Set the token password (premium) */
  "PUT /token/{token_id}/password": {
    path: {
      token_id: string;
    };
    query: Record<string, never>;
    body: {
      password: string;
      old_password?: string | null;
    };
    status: 200;
    response: {
      uuid: string;
      redirect: boolean;
      alias: string | null;
      actions: boolean;
      cors: boolean;
      expiry: number | boolean | null;
      timeout: number;
      listen: number;
      premium: boolean;
      premium_expires_at: string | null;
      user_id: number | null;
      team_id: number | null;
      ip: string;
      user_agent: string;
      default_content: string;
      default_status: number;
      default_content_type: string;
      request_limit: number | null;
      description: string | null;
      group_id: number | null;
      created_at: string;
      updated_at: string;
      expires_at: string | null;
      redaction: {
        rules: ({
          kind: "header";
          /** Header name, any case */
          name: string;
          /** Mask text for this rule (default: the settings' replacement) */
          replacement?: string;
          /** Custom Actions see the original value during the run (false: they see it masked too) */
          actions_see_original?: boolean;
        } | {
          kind: "query";
          /** Query string parameter name */
          name: string;
          /** Mask text for this rule (default: the settings' replacement) */
          replacement?: string;
          /** Custom Actions see the original value during the run (false: they see it masked too) */
          actions_see_original?: boolean;
        } | {
          kind: "form";
          /** Form field name (urlencoded or multipart) */
          name: string;
          /** Mask text for this rule (default: the settings' replacement) */
          replacement?: string;
          /** Custom Actions see the original value during the run (false: they see it masked too) */
          actions_see_original?: boolean;
        } | {
          kind: "json";
          /** JSONPath into a JSON body, e.g. $.card.number or $..password */
          path: string;
          /** Mask text for this rule (default: the settings' replacement) */
          replacement?: string;
          /** Custom Actions see the original value during the run (false: they see it masked too) */
          actions_see_original?: boolean;
        } | {
          kind: "regex";
          /** JavaScript regular expression; every match is masked */
          pattern: string;
          /** Regular expression flags (i, m, s, u); g is implied */
          flags?: string;
          /** Mask text for this rule (default: the settings' replacement) */
          replacement?: string;
          /** Custom Actions see the original value during the run (false: they see it masked too) */
          actions_see_original?: boolean;
        } | {
          kind: "preset";
          /** bearer: Bearer tokens; card: card numbers passing the Luhn check; email: e-mail addresses */
          preset: "bearer" | "card" | "email";
          /** Mask text for this rule (default: the settings' replacement) */
          replacement?: string;
          /** Custom Actions see the original value during the run (false: they see it masked too) */
          actions_see_original?: boolean;
        })[];
        /** Mask text of the rules that set none */
        replacement?: string;
      } | null;
      requests?: number;
      latest_request_id?: string | null;
      latest_request_at?: string | null;
    };
  };
  /** Set the token alias (premium) */
  "PUT /token/{token_id}/alias": {
    path: {
      token_id: string;
    };
    query: Record<string, never>;
    body: {
      alias: string | null;
    };
    status: 200;
    response: {
      uuid: string;
      redirect: boolean;
      alias: string | null;
      actions: boolean;
      cors: boolean;
      expiry: number | boolean | null;
      timeout: number;
      listen: number;
      premium: boolean;
      premium_expires_at: string | null;
      user_id: number | null;
      team_id: number | null;
      ip: string;
      user_agent: string;
      default_content: string;
      default_status: number;
      default_content_type: string;
      request_limit: number | null;
      description: string | null;
      group_id: number | null;
      created_at: string;
      updated_at: string;
      expires_at: string | null;
      redaction: {
        rules: ({
          kind: "header";
          /** Header name, any case */
          name: string;
          /** Mask text for this rule (default: the settings' replacement) */
          replacement?: string;
          /** Custom Actions see the original value during the run (false: they see it masked too) */
          actions_see_original?: boolean;
        } | {
          kind: "query";
          /** Query string parameter name */
          name: string;
          /** Mask text for this rule (default: the settings' replacement) */
          replacement?: string;
          /** Custom Actions see the original value during the run (false: they see it masked too) */
          actions_see_original?: boolean;
        } | {
          kind: "form";
          /** Form field name (urlencoded or multipart) */
          name: string;
          /** Mask text for this rule (default: the settings' replacement) */
          replacement?: string;
          /** Custom Actions see the original value during the run (false: they see it masked too) */
          actions_see_original?: boolean;
        } | {
          kind: "json";
          /** JSONPath into a JSON body, e.g. $.card.number or $..password */
          path: string;
          /** Mask text for this rule (default: the settings' replacement) */
          replacement?: string;
          /** Custom Actions see the original value during the run (false: they see it masked too) */
          actions_see_original?: boolean;
        } | {
          kind: "regex";
          /** JavaScript regular expression; every match is masked */
          pattern: string;
          /** Regular expression flags (i, m, s, u); g is implied */
          flags?: string;
          /** Mask text for this rule (default: the settings' replacement) */
          replacement?: string;
          /** Custom Actions see the original value during the run (false: they see it masked too) */
          actions_see_original?: boolean;
        } | {
          kind: "preset";
          /** bearer: Bearer tokens; card: card numbers passing the Luhn check; email: e-mail addresses */
          preset: "bearer" | "card" | "email";
          /** Mask text for this rule (default: the settings' replacement) */
          replacement?: string;
          /** Custom Actions see the original value during the run (false: they see it masked too) */
          actions_see_original?: boolean;
        })[];
        /** Mask text of the rules that set none */
        replacement?: string;
      } | null;
      requests?: number;
      latest_request_id?: string | null;
      latest_request_at?: string | null;
    };
  };
  /** Take the token out of its account (it becomes anonymous: whoever knows its ID may open it) */
  "POST /token/{token_id}/disassociate": {
    path: {
      token_id: string;
    };
    query: Record<string, never>;
    body: never;
    status: 200;
    response: {
      uuid: string;
      redirect: boolean;
      alias: string | null;
      actions: boolean;
      cors: boolean;
      expiry: number | boolean | null;
      timeout: number;
      listen: number;
      premium: boolean;
      premium_expires_at: string | null;
      user_id: number | null;
      team_id: number | null;
      ip: string;
      user_agent: string;
      default_content: string;
      default_status: number;
      default_content_type: string;
      request_limit: number | null;
      description: string | null;
      group_id: number | null;
      created_at: string;
      updated_at: string;
      expires_at: string | null;
      redaction: {
        rules: ({
          kind: "header";
          /** Header name, any case */
          name: string;
          /** Mask text for this rule (default: the settings' replacement) */
          replacement?: string;
          /** Custom Actions see the original value during the run (false: they see it masked too) */
          actions_see_original?: boolean;
        } | {
          kind: "query";
          /** Query string parameter name */
          name: string;
          /** Mask text for this rule (default: the settings' replacement) */
          replacement?: string;
          /** Custom Actions see the original value during the run (false: they see it masked too) */
          actions_see_original?: boolean;
        } | {
          kind: "form";
          /** Form field name (urlencoded or multipart) */
          name: string;
          /** Mask text for this rule (default: the settings' replacement) */
          replacement?: string;
          /** Custom Actions see the original value during the run (false: they see it masked too) */
          actions_see_original?: boolean;
        } | {
          kind: "json";
          /** JSONPath into a JSON body, e.g. $.card.number or $..password */
          path: string;
          /** Mask text for this rule (default: the settings' replacement) */
          replacement?: string;
          /** Custom Actions see the original value during the run (false: they see it masked too) */
          actions_see_original?: boolean;
        } | {
          kind: "regex";
          /** JavaScript regular expression; every match is masked */
          pattern: string;
          /** Regular expression flags (i, m, s, u); g is implied */
          flags?: string;
          /** Mask text for this rule (default: the settings' replacement) */
          replacement?: string;
          /** Custom Actions see the original value during the run (false: they see it masked too) */
          actions_see_original?: boolean;
        } | {
          kind: "preset";
          /** bearer: Bearer tokens; card: card numbers passing the Luhn check; email: e-mail addresses */
          preset: "bearer" | "card" | "email";
          /** Mask text for this rule (default: the settings' replacement) */
          replacement?: string;
          /** Custom Actions see the original value during the run (false: they see it masked too) */
          actions_see_original?: boolean;
        })[];
        /** Mask text of the rules that set none */
        replacement?: string;
      } | null;
      requests?: number;
      latest_request_id?: string | null;
      latest_request_at?: string | null;
    };
  };
  /** Toggle CORS headers on capture responses */
  "PUT /token/{token_id}/cors/toggle": {
    path: {
      token_id: string;
    };
    query: Record<string, never>;
    body: never;
    status: 200;
    response: {
      enabled: boolean;
    };
  };
  /** Create a group */
  "POST /groups": {
    path: Record<string, never>;
    query: Record<string, never>;
    body: {
      name: string;
    };
    status: 200;
    response: {
      id: number;
      team_id: null;
      user_id: number;
      name: string;
      created_at: string | null;
      updated_at: string | null;
    };
  };
  /** List groups */
  "GET /groups": {
    path: Record<string, never>;
    query: {
      /** Items per page, 1 to 100 (default 50); more answers 422 */
      per_page?: number;
      /** Page number, from 1 */
      page?: number;
    };
    body: never;
    status: 200;
    response: {
      data: unknown[];
      current_page: number;
      first_page_url: string;
      from: number | null;
      last_page: number;
      last_page_url: string;
      next_page_url: string | null;
      path: string;
      per_page: number;
      prev_page_url: string | null;
      to: number | null;
      total: number;
    } & {
      data?: {
        id: number;
        team_id: null;
        user_id: number;
        name: string;
        created_at: string | null;
        updated_at: string | null;
      }[];
    };
  };
  /** Get a group */
  "GET /groups/{group_id}": {
    path: {
      group_id: string;
    };
    query: Record<string, never>;
    body: never;
    status: 200;
    response: {
      id: number;
      team_id: null;
      user_id: number;
      name: string;
      created_at: string | null;
      updated_at: string | null;
    };
  };
  /** Rename a group */
  "PUT /groups/{group_id}": {
    path: {
      group_id: string;
    };
    query: Record<string, never>;
    body: {
      name: string;
    };
    status: 200;
    response: {
      id: number;
      team_id: null;
      user_id: number;
      name: string;
      created_at: string | null;
      updated_at: string | null;
    };
  };
  /** Delete a group */
  "DELETE /groups/{group_id}": {
    path: {
      group_id: string;
    };
    query: Record<string, never>;
    body: never;
    status: 204;
    response: unknown;
  };
  /** Create or replace a global variable */
  "POST /global-variables": {
    path: Record<string, never>;
    query: Record<string, never>;
    body: {
      name: string;
      value: string;
    };
    status: 200;
    response: {
      id: number;
      user_id: number;
      team_id: null;
      name: string;
      value: string;
      created_at: string | null;
      updated_at: string | null;
    };
  };
  /** List global variables */
  "GET /global-variables": {
    path: Record<string, never>;
    query: {
      /** Items per page, 1 to 100 (default 50); more answers 422 */
      per_page?: number;
      /** Page number, from 1 */
      page?: number;
      search?: string;
    };
    body: never;
    status: 200;
    response: {
      data: unknown[];
      current_page: number;
      first_page_url: string;
      from: number | null;
      last_page: number;
      last_page_url: string;
      next_page_url: string | null;
      path: string;
      per_page: number;
      prev_page_url: string | null;
      to: number | null;
      total: number;
    } & {
      data?: {
        id: number;
        user_id: number;
        team_id: null;
        name: string;
        value: string;
        created_at: string | null;
        updated_at: string | null;
      }[];
    };
  };
  /** Get a global variable */
  "GET /global-variables/{id}": {
    path: {
      id: string;
    };
    query: Record<string, never>;
    body: never;
    status: 200;
    response: {
      id: number;
      user_id: number;
      team_id: null;
      name: string;
      value: string;
      created_at: string | null;
      updated_at: string | null;
    };
  };
  /** Update a global variable */
  "PUT /global-variables/{id}": {
    path: {
      id: string;
    };
    query: Record<string, never>;
    body: {
      name?: string;
      value?: string;
    };
    status: 200;
    response: {
      id: number;
      user_id: number;
      team_id: null;
      name: string;
      value: string;
      created_at: string | null;
      updated_at: string | null;
    };
  };
  /** Delete a global variable */
  "DELETE /global-variables/{id}": {
    path: {
      id: string;
    };
    query: Record<string, never>;
    body: never;
    status: 204;
    response: unknown;
  };
  /** Provider types of the loaded plugins with the JSON Schemas of their fields */
  "GET /provider-types": {
    path: Record<string, never>;
    query: Record<string, never>;
    body: never;
    status: 200;
    response: {
      type: string;
      title?: string;
      description?: string;
      plugin: string;
      generates_credentials: boolean;
      /** JSON Schema */
      credentials: { [key: string]: unknown };
      /** JSON Schema */
      settings: { [key: string]: unknown };
    }[];
  };
  /** Add a provider (credentials sealed at rest; omitted ones are generated where the type can, e.g. ssh_key) */
  "POST /providers": {
    path: Record<string, never>;
    query: Record<string, never>;
    body: {
      type: string;
      name?: string;
      credentials?: { [key: string]: unknown };
      settings?: { [key: string]: unknown };
    };
    status: 201;
    response: {
      id: string;
      type: string;
      name: string;
      settings: { [key: string]: unknown };
      credential_fields: string[];
      created_at: string;
      updated_at: string;
    };
  };
  /** List the caller's providers (connected accounts; credentials never shown) */
  "GET /providers": {
    path: Record<string, never>;
    query: {
      /** Items per page, 1 to 100 (default 50); more answers 422 */
      per_page?: number;
      /** Page number, from 1 */
      page?: number;
      type?: string;
    };
    body: never;
    status: 200;
    response: {
      data: unknown[];
      current_page: number;
      first_page_url: string;
      from: number | null;
      last_page: number;
      last_page_url: string;
      next_page_url: string | null;
      path: string;
      per_page: number;
      prev_page_url: string | null;
      to: number | null;
      total: number;
    } & {
      data?: {
        id: string;
        type: string;
        name: string;
        settings: { [key: string]: unknown };
        credential_fields: string[];
        created_at: string;
        updated_at: string;
      }[];
    };
  };
  /** Get a provider */
  "GET /providers/{id}": {
    path: {
      id: string;
    };
    query: Record<string, never>;
    body: never;
    status: 200;
    response: {
      id: string;
      type: string;
      name: string;
      settings: { [key: string]: unknown };
      credential_fields: string[];
      created_at: string;
      updated_at: string;
    };
  };
  /** Rename, replace settings, merge credentials (null removes a field) */
  "PUT /providers/{id}": {
    path: {
      id: string;
    };
    query: Record<string, never>;
    body: {
      name?: string;
      credentials?: { [key: string]: unknown | null };
      settings?: { [key: string]: unknown };
    };
    status: 200;
    response: {
      id: string;
      type: string;
      name: string;
      settings: { [key: string]: unknown };
      credential_fields: string[];
      created_at: string;
      updated_at: string;
    };
  };
  /** Delete a provider */
  "DELETE /providers/{id}": {
    path: {
      id: string;
    };
    query: Record<string, never>;
    body: never;
    status: 204;
    response: unknown;
  };
  /** Create an action template (actions and predefined variables; from_token: the token whose chain they were copied from, whose stored secrets the markers stand for) */
  "POST /templates": {
    path: Record<string, never>;
    query: Record<string, never>;
    body: {
      name: string;
      actions?: {
        type: string;
        order?: number;
        name?: string | null;
        parameters?: { [key: string]: unknown };
        disabled?: boolean | null;
        condition?: string | null;
        condition_action?: ("true" | "false") | null;
        queue?: boolean | null;
        delay?: number | null;
        queue_profile?: string | null;
        uuid?: string;
      }[];
      variables?: {
        name: string;
        value: string;
      }[];
      from_token?: string;
    };
    status: 201;
    response: {
      id: number;
      name: string;
      variables: {
        name: string;
        value: string;
      }[];
      team_id: null;
      user_id: number;
      created_at: string;
      updated_at: string;
      actions: { [key: string]: unknown }[];
    };
  };
  /** List the caller's action templates */
  "GET /templates": {
    path: Record<string, never>;
    query: {
      /** Items per page, 1 to 100 (default 50); more answers 422 */
      per_page?: number;
      /** Page number, from 1 */
      page?: number;
    };
    body: never;
    status: 200;
    response: {
      data: unknown[];
      current_page: number;
      first_page_url: string;
      from: number | null;
      last_page: number;
      last_page_url: string;
      next_page_url: string | null;
      path: string;
      per_page: number;
      prev_page_url: string | null;
      to: number | null;
      total: number;
    } & {
      data?: {
        id: number;
        name: string;
        variables: {
          name: string;
          value: string;
        }[];
        team_id: null;
        user_id: number;
        created_at: string;
        updated_at: string;
        actions: { [key: string]: unknown }[];
      }[];
    };
  };
  /** Get a template */
  "GET /templates/{id}": {
    path: {
      id: string;
    };
    query: Record<string, never>;
    body: never;
    status: 200;
    response: {
      id: number;
      name: string;
      variables: {
        name: string;
        value: string;
      }[];
      team_id: null;
      user_id: number;
      created_at: string;
      updated_at: string;
      actions: { [key: string]: unknown }[];
    };
  };
  /** Update a template */
  "PUT /templates/{id}": {
    path: {
      id: string;
    };
    query: Record<string, never>;
    body: {
      name?: string;
      actions?: {
        type: string;
        order?: number;
        name?: string | null;
        parameters?: { [key: string]: unknown };
        disabled?: boolean | null;
        condition?: string | null;
        condition_action?: ("true" | "false") | null;
        queue?: boolean | null;
        delay?: number | null;
        queue_profile?: string | null;
        uuid?: string;
      }[];
      variables?: {
        name: string;
        value: string;
      }[];
    };
    status: 200;
    response: {
      id: number;
      name: string;
      variables: {
        name: string;
        value: string;
      }[];
      team_id: null;
      user_id: number;
      created_at: string;
      updated_at: string;
      actions: { [key: string]: unknown }[];
    };
  };
  /** Delete a template */
  "DELETE /templates/{id}": {
    path: {
      id: string;
    };
    query: Record<string, never>;
    body: never;
    status: 204;
    response: unknown;
  };
  /** Create a hosted database (a PostgreSQL schema of its own; needs DATABASES_POSTGRES_URL) */
  "POST /databases": {
    path: Record<string, never>;
    query: Record<string, never>;
    body: {
      name: string;
      plan?: string;
    };
    status: 201;
    response: {
      id: string;
      name: string;
      /** Bytes of the database's tables with their indexes (null when the server could not be asked) */
      bytes_used: number | null;
      tables_used: number | null;
      created_at: string;
      updated_at: string;
    };
  };
  /** List the caller's hosted databases */
  "GET /databases": {
    path: Record<string, never>;
    query: {
      /** Items per page, 1 to 100 (default 15); more answers 422 */
      per_page?: number;
      /** Page number, from 1 */
      page?: number;
    };
    body: never;
    status: 200;
    response: {
      data: unknown[];
      current_page: number;
      first_page_url: string;
      from: number | null;
      last_page: number;
      last_page_url: string;
      next_page_url: string | null;
      path: string;
      per_page: number;
      prev_page_url: string | null;
      to: number | null;
      total: number;
    } & {
      data?: {
        id: string;
        name: string;
        /** Bytes of the database's tables with their indexes (null when the server could not be asked) */
        bytes_used: number | null;
        tables_used: number | null;
        created_at: string;
        updated_at: string;
      }[];
    };
  };
  /** Get a database with its tables and bytes used */
  "GET /databases/{id}": {
    path: {
      id: string;
    };
    query: Record<string, never>;
    body: never;
    status: 200;
    response: {
      id: string;
      name: string;
      /** Bytes of the database's tables with their indexes (null when the server could not be asked) */
      bytes_used: number | null;
      tables_used: number | null;
      created_at: string;
      updated_at: string;
    };
  };
  /** Rename a database */
  "PUT /databases/{id}": {
    path: {
      id: string;
    };
    query: Record<string, never>;
    body: {
      name: string;
    };
    status: 200;
    response: {
      id: string;
      name: string;
      /** Bytes of the database's tables with their indexes (null when the server could not be asked) */
      bytes_used: number | null;
      tables_used: number | null;
      created_at: string;
      updated_at: string;
    };
  };
  /** Delete a database with all its tables */
  "DELETE /databases/{id}": {
    path: {
      id: string;
    };
    query: Record<string, never>;
    body: never;
    status: 204;
    response: unknown;
  };
  /** Run one SQL statement with `:name` or `?` parameters: {result (at most 1000 rows), error, time (ms)} */
  "POST /databases/{id}/query": {
    path: {
      id: string;
    };
    query: Record<string, never>;
    body: {
      query: string;
      params?: (unknown[] | { [key: string]: unknown }) | null;
    };
    status: 200;
    response: {
      result: { [key: string]: unknown }[] | null;
      error: string | null;
      /** milliseconds */
      time: number;
    };
  };
  /** List the tables with their columns, primary keys and estimated rows (also the column types a table may use) */
  "GET /databases/{id}/tables": {
    path: {
      id: string;
    };
    query: Record<string, never>;
    body: never;
    status: 200;
    response: {
      data: {
        name: string;
        /** The rows: counted below 10000, else PostgreSQL's estimate from its statistics */
        rows_estimate: number;
        /** Key columns in order; empty: no primary key (rows are read-only in the manager) */
        primary_key: string[];
        columns: {
          name: string;
          /** As PostgreSQL formats it, e.g. integer, character varying(40), timestamp with time zone */
          type: string;
          nullable: boolean;
          /** The default expression as PostgreSQL shows it */
          default: string | null;
          primary_key: boolean;
        }[];
      }[];
      /** The types a column may be given */
      column_types: string[];
      default_expressions: string[];
    };
  };
  /** Create a table from its columns (name, type, nullable, default, primary key) */
  "POST /databases/{id}/tables": {
    path: {
      id: string;
    };
    query: Record<string, never>;
    body: {
      name: string;
      columns: {
        name: string;
        /** One of smallint, integer, bigint, serial, bigserial, numeric, real, double precision, boolean, text, varchar, char, uuid, date, time, timestamp, timestamptz, interval, json, jsonb, bytea, inet, cidr, macaddr; varchar(n), char(n), numeric(p,s); a trailing [] makes an array */
        type: string;
        nullable?: boolean;
        /** A literal value, cast to the column type (null: no default) */
        default?: string | null;
        /** A default computed on insert, instead of `default` */
        default_expression?: ("now()" | "current_date" | "current_timestamp" | "gen_random_uuid()") | null;
        /** Part of the primary key (several columns make a composite key) */
        primary_key?: boolean;
      }[];
    };
    status: 201;
    response: {
      name: string;
      /** The rows: counted below 10000, else PostgreSQL's estimate from its statistics */
      rows_estimate: number;
      /** Key columns in order; empty: no primary key (rows are read-only in the manager) */
      primary_key: string[];
      columns: {
        name: string;
        /** As PostgreSQL formats it, e.g. integer, character varying(40), timestamp with time zone */
        type: string;
        nullable: boolean;
        /** The default expression as PostgreSQL shows it */
        default: string | null;
        primary_key: boolean;
      }[];
    };
  };
  /** Get a table with its columns */
  "GET /databases/{id}/tables/{table}": {
    path: {
      id: string;
      table: string;
    };
    query: Record<string, never>;
    body: never;
    status: 200;
    response: {
      name: string;
      /** The rows: counted below 10000, else PostgreSQL's estimate from its statistics */
      rows_estimate: number;
      /** Key columns in order; empty: no primary key (rows are read-only in the manager) */
      primary_key: string[];
      columns: {
        name: string;
        /** As PostgreSQL formats it, e.g. integer, character varying(40), timestamp with time zone */
        type: string;
        nullable: boolean;
        /** The default expression as PostgreSQL shows it */
        default: string | null;
        primary_key: boolean;
      }[];
    };
  };
  /** Rename a table */
  "PUT /databases/{id}/tables/{table}": {
    path: {
      id: string;
      table: string;
    };
    query: Record<string, never>;
    body: {
      name: string;
    };
    status: 200;
    response: {
      name: string;
      /** The rows: counted below 10000, else PostgreSQL's estimate from its statistics */
      rows_estimate: number;
      /** Key columns in order; empty: no primary key (rows are read-only in the manager) */
      primary_key: string[];
      columns: {
        name: string;
        /** As PostgreSQL formats it, e.g. integer, character varying(40), timestamp with time zone */
        type: string;
        nullable: boolean;
        /** The default expression as PostgreSQL shows it */
        default: string | null;
        primary_key: boolean;
      }[];
    };
  };
  /** Drop a table with its rows */
  "DELETE /databases/{id}/tables/{table}": {
    path: {
      id: string;
      table: string;
    };
    query: Record<string, never>;
    body: never;
    status: 204;
    response: unknown;
  };
  /** Add a column; answers the table */
  "POST /databases/{id}/tables/{table}/columns": {
    path: {
      id: string;
      table: string;
    };
    query: Record<string, never>;
    body: {
      name: string;
      /** One of smallint, integer, bigint, serial, bigserial, numeric, real, double precision, boolean, text, varchar, char, uuid, date, time, timestamp, timestamptz, interval, json, jsonb, bytea, inet, cidr, macaddr; varchar(n), char(n), numeric(p,s); a trailing [] makes an array */
      type: string;
      nullable?: boolean;
      /** A literal value, cast to the column type (null: no default) */
      default?: string | null;
      /** A default computed on insert, instead of `default` */
      default_expression?: ("now()" | "current_date" | "current_timestamp" | "gen_random_uuid()") | null;
    };
    status: 201;
    response: {
      name: string;
      /** The rows: counted below 10000, else PostgreSQL's estimate from its statistics */
      rows_estimate: number;
      /** Key columns in order; empty: no primary key (rows are read-only in the manager) */
      primary_key: string[];
      columns: {
        name: string;
        /** As PostgreSQL formats it, e.g. integer, character varying(40), timestamp with time zone */
        type: string;
        nullable: boolean;
        /** The default expression as PostgreSQL shows it */
        default: string | null;
        primary_key: boolean;
      }[];
    };
  };
  /** Change a column: its name, type (values are cast), nullability or default; answers the table */
  "PUT /databases/{id}/tables/{table}/columns/{column}": {
    path: {
      id: string;
      table: string;
      column: string;
    };
    query: Record<string, never>;
    body: {
      /** A new name */
      name?: string;
      /** A new type: the values are cast (`USING column::type`); a value that does not cast fails the change */
      type?: string;
      nullable?: boolean;
      /** A new literal default; null drops the default */
      default?: string | null;
      /** A default computed on insert, instead of `default` */
      default_expression?: ("now()" | "current_date" | "current_timestamp" | "gen_random_uuid()") | null;
    };
    status: 200;
    response: {
      name: string;
      /** The rows: counted below 10000, else PostgreSQL's estimate from its statistics */
      rows_estimate: number;
      /** Key columns in order; empty: no primary key (rows are read-only in the manager) */
      primary_key: string[];
      columns: {
        name: string;
        /** As PostgreSQL formats it, e.g. integer, character varying(40), timestamp with time zone */
        type: string;
        nullable: boolean;
        /** The default expression as PostgreSQL shows it */
        default: string | null;
        primary_key: boolean;
      }[];
    };
  };
  /** Drop a column; answers the table */
  "DELETE /databases/{id}/tables/{table}/columns/{column}": {
    path: {
      id: string;
      table: string;
      column: string;
    };
    query: Record<string, never>;
    body: never;
    status: 200;
    response: {
      name: string;
      /** The rows: counted below 10000, else PostgreSQL's estimate from its statistics */
      rows_estimate: number;
      /** Key columns in order; empty: no primary key (rows are read-only in the manager) */
      primary_key: string[];
      columns: {
        name: string;
        /** As PostgreSQL formats it, e.g. integer, character varying(40), timestamp with time zone */
        type: string;
        nullable: boolean;
        /** The default expression as PostgreSQL shows it */
        default: string | null;
        primary_key: boolean;
      }[];
    };
  };
  /** Set the primary key columns (an empty list drops the key); answers the table */
  "PUT /databases/{id}/tables/{table}/primary-key": {
    path: {
      id: string;
      table: string;
    };
    query: Record<string, never>;
    body: {
      /** The key columns in order; an empty list drops the primary key (the rows become read-only here) */
      columns: string[];
    };
    status: 200;
    response: {
      name: string;
      /** The rows: counted below 10000, else PostgreSQL's estimate from its statistics */
      rows_estimate: number;
      /** Key columns in order; empty: no primary key (rows are read-only in the manager) */
      primary_key: string[];
      columns: {
        name: string;
        /** As PostgreSQL formats it, e.g. integer, character varying(40), timestamp with time zone */
        type: string;
        nullable: boolean;
        /** The default expression as PostgreSQL shows it */
        default: string | null;
        primary_key: boolean;
      }[];
    };
  };
  /** A page of rows, sorted by a column, optionally where one column equals a value */
  "GET /databases/{id}/tables/{table}/rows": {
    path: {
      id: string;
      table: string;
    };
    query: {
      /** Page number, from 1 */
      page?: number;
      /** Items per page, 1 to 100 (default 25); more answers 422 */
      per_page?: number;
      /** Column to sort by (default: the primary key) */
      sort?: string;
      order?: "asc" | "desc";
      /** Only rows whose column equals filter_value */
      filter_column?: string;
      filter_value?: string;
    };
    body: never;
    status: 200;
    response: {
      data: unknown[];
      current_page: number;
      first_page_url: string;
      from: number | null;
      last_page: number;
      last_page_url: string;
      next_page_url: string | null;
      path: string;
      per_page: number;
      prev_page_url: string | null;
      to: number | null;
      total: number;
    } & {
      data?: { [key: string]: unknown }[];
      /** Identifies a row for edits and deletes; empty: read-only */
      primary_key: string[];
    };
  };
  /** Add a row (values bound as parameters; columns left out get their default) */
  "POST /databases/{id}/tables/{table}/rows": {
    path: {
      id: string;
      table: string;
    };
    query: Record<string, never>;
    body: {
      /** Column name to value; columns left out get their default */
      values: { [key: string]: unknown };
    };
    status: 201;
    response: {
      row: { [key: string]: unknown };
    };
  };
  /** Change the row named by its primary key */
  "PUT /databases/{id}/tables/{table}/rows": {
    path: {
      id: string;
      table: string;
    };
    query: Record<string, never>;
    body: {
      /** The primary key of the row: every key column with its value */
      key: { [key: string]: unknown };
      values: { [key: string]: unknown };
    };
    status: 200;
    response: {
      row: { [key: string]: unknown };
    };
  };
  /** Delete the rows named by their primary keys */
  "POST /databases/{id}/tables/{table}/rows/delete": {
    path: {
      id: string;
      table: string;
    };
    query: Record<string, never>;
    body: {
      keys: { [key: string]: unknown }[];
    };
    status: 200;
    response: {
      deleted: number;
    };
  };
  /** The caller's error log: action errors on captures and failed schedule runs, newest first, in the page envelope with `unread` (the count) beside it; `data` holds the entries. The administrator sees every account's */
  "GET /errors": {
    path: Record<string, never>;
    query: {
      /** Text to find (any case) in the message, action type or ID, token ID or schedule name */
      query?: string;
      /** Only action errors or only schedule failures */
      source?: "action" | "schedule";
      /** `true`: only unread entries */
      unread?: "0" | "1" | "true" | "false";
      /** Only this token's entries (its UUID) */
      token_id?: string;
      /** Only this schedule's entries */
      schedule_id?: number;
      /** Administrator only: one account's entries (a user ID, or `anonymous` for anonymous tokens'); default every account */
      user_id?: "anonymous" | number;
      /** Items per page, 1 to 100 (default 50); more answers 422 */
      per_page?: number;
      /** Page number, from 1 */
      page?: number;
    };
    body: never;
    status: 200;
    response: {
      data: {
        id: number;
        user_id: number | null;
        source: "action" | "schedule";
        token_id: string | null;
        request_id: string | null;
        action_id: string | null;
        action_type: string | null;
        schedule_id: number | null;
        schedule_name: string | null;
        message: string;
        read: boolean;
        created_at: string;
      }[];
      current_page: number;
      last_page: number;
      per_page: number;
      total: number;
      from: number | null;
      to: number | null;
      next_page_url: string | null;
      prev_page_url: string | null;
      /** Unread entries of the same account(s), whatever the filters */
      unread: number;
    };
  };
  /** How many error log entries are unread */
  "GET /errors/unread": {
    path: Record<string, never>;
    query: {
      /** Administrator only: one account's entries (a user ID, or `anonymous` for anonymous tokens'); default every account */
      user_id?: "anonymous" | number;
    };
    body: never;
    status: 200;
    response: {
      unread: number;
    };
  };
  /** Mark error log entries read (`ids`, or all; `up_to` an ID: only that one and older) */
  "POST /errors/read": {
    path: Record<string, never>;
    query: {
      /** Administrator only: one account's entries (a user ID, or `anonymous` for anonymous tokens'); default every account */
      user_id?: "anonymous" | number;
    };
    body: {
      /** These entries; default every unread entry */
      ids?: number[];
      /** Only entries with this ID or older (the newest one the reader saw), so entries that arrived meanwhile stay unread */
      up_to?: number;
    };
    status: 200;
    response: {
      marked: number;
      unread: number;
    };
  };
  /** Make a view-only share link of the token (a new one invalidates the old); its secret is shown only in this answer. The link opens the request list, one request, its raw body and files (`Share-Key` header or `?share=`) and the live stream (`?share=`), nothing else */
  "POST /token/{token_id}/share": {
    path: {
      token_id: string;
    };
    query: Record<string, never>;
    body: never;
    status: 201;
    response: {
      /** The page's view-only address of the token: shown only now, the service keeps only a hash of its secret */
      url: string;
      /** The share secret (`Share-Key` header or `?share=` on the read-only request routes) */
      secret: string;
      created_at: string;
    };
  };
  /** Whether the token has a share link, since when (never its secret) */
  "GET /token/{token_id}/share": {
    path: {
      token_id: string;
    };
    query: Record<string, never>;
    body: never;
    status: 200;
    response: {
      /** Whether the token has a share link */
      active: boolean;
      created_at: string | null;
    };
  };
  /** Revoke the share link (its live streams end) */
  "DELETE /token/{token_id}/share": {
    path: {
      token_id: string;
    };
    query: Record<string, never>;
    body: never;
    status: 204;
    response: unknown;
  };
  /** List captured requests */
  "GET /token/{token_id}/requests": {
    path: {
      token_id: string;
    };
    query: {
      query?: string;
      /** Only requests created at or after this time (UTC, YYYY-MM-DD HH:MM:SS; a date alone: from the start of that day) */
      date_from?: string;
      /** Only requests created up to the end of this second (UTC, YYYY-MM-DD HH:MM:SS; a date alone: to the end of that day), so one whose created_at is this value is included */
      date_to?: string;
      sorting?: "newest" | "oldest";
      /** Items per page, 1 to 100 (default 50); more answers 422 */
      per_page?: number;
      /** Page number, from 1 */
      page?: number;
    };
    body: never;
    status: 200;
    response: {
      data: {
        uuid: string;
        type: "web" | "email" | "dns";
        token_id: string;
        team_id: number | null;
        ip: string;
        hostname: string;
        method: string;
        /** The HTTP version of a web capture (`2` for HTTP/2); null for e-mail and DNS */
        http_version: ("2" | "1.0" | "1.1") | null;
        user_agent: string;
        /** The body as UTF-8 text, decoded when it was sent with a Content-Encoding the service undid (`decoded`); `raw` returns the bytes as sent */
        content: string;
        /** The body (as `content` holds it) in base64, when it is not valid UTF-8: `content` then has replacement characters where the bytes were not text */
        content_base64?: string;
        /** The Content-Encoding codings the body was sent with, as listed (lower case, without `identity`), e.g. `gzip` or `gzip, br` */
        content_encoding?: string;
        /** With `content_encoding`: true when `content`, `size`, form fields, search and actions see the decoded body */
        decoded?: boolean;
        /** With `decoded: false`: why the body could not be decoded (unknown coding, corrupt data); it is kept as sent */
        decode_error?: string;
        /** With `content_encoding`: bytes of the body as sent (`size` counts the decoded body) */
        encoded_size?: number;
        /** Query string: the last value of a repeated key */
        query: { [key: string]: string } | null;
        /** Every value of each query key, in order */
        query_all: { [key: string]: string[] } | null;
        /** What was sent back (HTTP captures; on realtime events only when it was not the default response) */
        response?: {
          status: number;
          content_type: string;
          /** Headers sent, besides CORS headers and Content-Length */
          headers: { [key: string]: string };
          body: string;
          body_encoding: "utf8" | "base64";
          /** Bytes of the body sent */
          size: number;
          /** The stored body was cut at 64 KiB */
          truncated: boolean;
          /** stored: kept when it was sent (made by actions or set-response); default: the token's default response, rebuilt from its current settings */
          source: "stored" | "default";
        };
        /** Form fields (urlencoded or multipart) */
        request: { [key: string]: unknown };
        headers: { [key: string]: string[] };
        url: string;
        size: number;
        files: {
          id: string;
          name: string;
          filename: string;
          size: number;
          content_type: string;
        }[];
        custom_action_output: string[];
        custom_action_errors: unknown[];
        /** Which redaction rules masked what (tokens with redaction rules; docs/redaction.md); never the values */
        redactions?: {
          source: "token" | "action";
          rule: number;
          action?: string;
          kind: "header" | "query" | "form" | "json" | "regex" | "preset";
          target: string;
          count: number;
          error?: string;
        }[];
        note: string | null;
        time: number;
        sorting: number;
        created_at: string;
        updated_at: string;
        /** Sender's country (HTTP captures from public addresses; offline database, GEOIP_DATABASES) */
        country?: string;
        /** ISO 3166-1 alpha-2 code of the country */
        country_code?: string;
        region?: string;
        city?: string;
        sender?: string;
        message_id?: string;
        destinations?: string[];
        text_content?: string;
        html_content?: string;
        checks?: { [key: string]: unknown };
        dns?: {
          /** The name asked, in the case it reached the service */
          name: string;
          type: string;
          protocol: "udp" | "tcp";
          /** The labels before the token */
          subdomain: string;
        };
      }[];
      total: number;
      total_capped: boolean;
      per_page: number;
      current_page: number;
      is_last_page: boolean;
      from: number;
      to: number;
    };
  };
  /** Delete all (or the matching) requests (same as DELETE /token/{token_id}/request) */
  "DELETE /token/{token_id}/requests": {
    path: {
      token_id: string;
    };
    query: {
      query?: string;
      /** Only requests created at or after this time (UTC, YYYY-MM-DD HH:MM:SS; a date alone: from the start of that day) */
      date_from?: string;
      /** Only requests created up to the end of this second (UTC, YYYY-MM-DD HH:MM:SS; a date alone: to the end of that day), so one whose created_at is this value is included */
      date_to?: string;
    };
    body: never;
    status: 204;
    response: unknown;
  };
  /** CSV or HAR 1.2 (format=har) export of the (matching) requests; HAR entries carry the response sent back. At most 3 exports of a token a minute (429 with Retry-After beyond) */
  "GET /token/{token_id}/requests/export": {
    path: {
      token_id: string;
    };
    query: {
      query?: string;
      /** Only requests created at or after this time (UTC, YYYY-MM-DD HH:MM:SS; a date alone: from the start of that day) */
      date_from?: string;
      /** Only requests created up to the end of this second (UTC, YYYY-MM-DD HH:MM:SS; a date alone: to the end of that day), so one whose created_at is this value is included */
      date_to?: string;
      sorting?: "newest" | "oldest";
      /** At most this many requests (default: the token's request_limit) */
      per_page?: number;
      /** CSV, or a HAR 1.2 archive (JSON) with the responses that were sent back */
      format?: "csv" | "har";
    };
    body: never;
    status: 200;
    response: unknown;
  };
  /** Wait for a request matching `query` (the search language) newer than `after`: answers at once with the newest stored match, else with the first one to arrive (HTTP, e-mail or DNS), else 408 after `timeout` seconds */
  "GET /token/{token_id}/requests/wait": {
    path: {
      token_id: string;
    };
    query: {
      query?: string;
      /** Only requests newer than this one: its sorting key or its UUID */
      after?: string;
      /** Seconds to wait, at most 60 */
      timeout?: number;
    };
    body: never;
    status: 200;
    response: {
      uuid: string;
      type: "web" | "email" | "dns";
      token_id: string;
      team_id: number | null;
      ip: string;
      hostname: string;
      method: string;
      /** The HTTP version of a web capture (`2` for HTTP/2); null for e-mail and DNS */
      http_version: ("2" | "1.0" | "1.1") | null;
      user_agent: string;
      /** The body as UTF-8 text, decoded when it was sent with a Content-Encoding the service undid (`decoded`); `raw` returns the bytes as sent */
      content: string;
      /** The body (as `content` holds it) in base64, when it is not valid UTF-8: `content` then has replacement characters where the bytes were not text */
      content_base64?: string;
      /** The Content-Encoding codings the body was sent with, as listed (lower case, without `identity`), e.g. `gzip` or `gzip, br` */
      content_encoding?: string;
      /** With `content_encoding`: true when `content`, `size`, form fields, search and actions see the decoded body */
      decoded?: boolean;
      /** With `decoded: false`: why the body could not be decoded (unknown coding, corrupt data); it is kept as sent */
      decode_error?: string;
      /** With `content_encoding`: bytes of the body as sent (`size` counts the decoded body) */
      encoded_size?: number;
      /** Query string: the last value of a repeated key */
      query: { [key: string]: string } | null;
      /** Every value of each query key, in order */
      query_all: { [key: string]: string[] } | null;
      /** What was sent back (HTTP captures; on realtime events only when it was not the default response) */
      response?: {
        status: number;
        content_type: string;
        /** Headers sent, besides CORS headers and Content-Length */
        headers: { [key: string]: string };
        body: string;
        body_encoding: "utf8" | "base64";
        /** Bytes of the body sent */
        size: number;
        /** The stored body was cut at 64 KiB */
        truncated: boolean;
        /** stored: kept when it was sent (made by actions or set-response); default: the token's default response, rebuilt from its current settings */
        source: "stored" | "default";
      };
      /** Form fields (urlencoded or multipart) */
      request: { [key: string]: unknown };
      headers: { [key: string]: string[] };
      url: string;
      size: number;
      files: {
        id: string;
        name: string;
        filename: string;
        size: number;
        content_type: string;
      }[];
      custom_action_output: string[];
      custom_action_errors: unknown[];
      /** Which redaction rules masked what (tokens with redaction rules; docs/redaction.md); never the values */
      redactions?: {
        source: "token" | "action";
        rule: number;
        action?: string;
        kind: "header" | "query" | "form" | "json" | "regex" | "preset";
        target: string;
        count: number;
        error?: string;
      }[];
      note: string | null;
      time: number;
      sorting: number;
      created_at: string;
      updated_at: string;
      /** Sender's country (HTTP captures from public addresses; offline database, GEOIP_DATABASES) */
      country?: string;
      /** ISO 3166-1 alpha-2 code of the country */
      country_code?: string;
      region?: string;
      city?: string;
      sender?: string;
      message_id?: string;
      destinations?: string[];
      text_content?: string;
      html_content?: string;
      checks?: { [key: string]: unknown };
      dns?: {
        /** The name asked, in the case it reached the service */
        name: string;
        type: string;
        protocol: "udp" | "tcp";
        /** The labels before the token */
        subdomain: string;
      };
    };
  };
  /** Answer a capture that is listening (base64 content) */
  "PUT /token/{token_id}/request/{request_id}/response": {
    path: {
      token_id: string;
      request_id: string;
    };
    query: Record<string, never>;
    body: {
      status?: number;
      content?: string;
      headers?: { [key: string]: string | string[] };
    };
    status: 200;
    response: {
      status: true;
    };
  };
  /** Download an uploaded file or attachment */
  "GET /token/{token_id}/request/{request_id}/download/{file_id}": {
    path: {
      token_id: string;
      request_id: string;
      file_id: string;
    };
    query: Record<string, never>;
    body: never;
    status: 200;
    response: unknown;
  };
  /** Get a captured request (or `latest`) */
  "GET /token/{token_id}/request/{request_id}": {
    path: {
      token_id: string;
      request_id: string;
    };
    query: Record<string, never>;
    body: never;
    status: 200;
    response: {
      uuid: string;
      type: "web" | "email" | "dns";
      token_id: string;
      team_id: number | null;
      ip: string;
      hostname: string;
      method: string;
      /** The HTTP version of a web capture (`2` for HTTP/2); null for e-mail and DNS */
      http_version: ("2" | "1.0" | "1.1") | null;
      user_agent: string;
      /** The body as UTF-8 text, decoded when it was sent with a Content-Encoding the service undid (`decoded`); `raw` returns the bytes as sent */
      content: string;
      /** The body (as `content` holds it) in base64, when it is not valid UTF-8: `content` then has replacement characters where the bytes were not text */
      content_base64?: string;
      /** The Content-Encoding codings the body was sent with, as listed (lower case, without `identity`), e.g. `gzip` or `gzip, br` */
      content_encoding?: string;
      /** With `content_encoding`: true when `content`, `size`, form fields, search and actions see the decoded body */
      decoded?: boolean;
      /** With `decoded: false`: why the body could not be decoded (unknown coding, corrupt data); it is kept as sent */
      decode_error?: string;
      /** With `content_encoding`: bytes of the body as sent (`size` counts the decoded body) */
      encoded_size?: number;
      /** Query string: the last value of a repeated key */
      query: { [key: string]: string } | null;
      /** Every value of each query key, in order */
      query_all: { [key: string]: string[] } | null;
      /** What was sent back (HTTP captures; on realtime events only when it was not the default response) */
      response?: {
        status: number;
        content_type: string;
        /** Headers sent, besides CORS headers and Content-Length */
        headers: { [key: string]: string };
        body: string;
        body_encoding: "utf8" | "base64";
        /** Bytes of the body sent */
        size: number;
        /** The stored body was cut at 64 KiB */
        truncated: boolean;
        /** stored: kept when it was sent (made by actions or set-response); default: the token's default response, rebuilt from its current settings */
        source: "stored" | "default";
      };
      /** Form fields (urlencoded or multipart) */
      request: { [key: string]: unknown };
      headers: { [key: string]: string[] };
      url: string;
      size: number;
      files: {
        id: string;
        name: string;
        filename: string;
        size: number;
        content_type: string;
      }[];
      custom_action_output: string[];
      custom_action_errors: unknown[];
      /** Which redaction rules masked what (tokens with redaction rules; docs/redaction.md); never the values */
      redactions?: {
        source: "token" | "action";
        rule: number;
        action?: string;
        kind: "header" | "query" | "form" | "json" | "regex" | "preset";
        target: string;
        count: number;
        error?: string;
      }[];
      note: string | null;
      time: number;
      sorting: number;
      created_at: string;
      updated_at: string;
      /** Sender's country (HTTP captures from public addresses; offline database, GEOIP_DATABASES) */
      country?: string;
      /** ISO 3166-1 alpha-2 code of the country */
      country_code?: string;
      region?: string;
      city?: string;
      sender?: string;
      message_id?: string;
      destinations?: string[];
      text_content?: string;
      html_content?: string;
      checks?: { [key: string]: unknown };
      dns?: {
        /** The name asked, in the case it reached the service */
        name: string;
        type: string;
        protocol: "udp" | "tcp";
        /** The labels before the token */
        subdomain: string;
      };
    };
  };
  /** Delete a captured request */
  "DELETE /token/{token_id}/request/{request_id}": {
    path: {
      token_id: string;
      request_id: string;
    };
    query: Record<string, never>;
    body: never;
    status: 204;
    response: unknown;
  };
  /** Set the note of a request (same as PUT .../note) */
  "PUT /token/{token_id}/request/{request_id}": {
    path: {
      token_id: string;
      request_id: string;
    };
    query: Record<string, never>;
    body: {
      note: string | null;
    };
    status: 200;
    response: {
      uuid: string;
      type: "web" | "email" | "dns";
      token_id: string;
      team_id: number | null;
      ip: string;
      hostname: string;
      method: string;
      /** The HTTP version of a web capture (`2` for HTTP/2); null for e-mail and DNS */
      http_version: ("2" | "1.0" | "1.1") | null;
      user_agent: string;
      /** The body as UTF-8 text, decoded when it was sent with a Content-Encoding the service undid (`decoded`); `raw` returns the bytes as sent */
      content: string;
      /** The body (as `content` holds it) in base64, when it is not valid UTF-8: `content` then has replacement characters where the bytes were not text */
      content_base64?: string;
      /** The Content-Encoding codings the body was sent with, as listed (lower case, without `identity`), e.g. `gzip` or `gzip, br` */
      content_encoding?: string;
      /** With `content_encoding`: true when `content`, `size`, form fields, search and actions see the decoded body */
      decoded?: boolean;
      /** With `decoded: false`: why the body could not be decoded (unknown coding, corrupt data); it is kept as sent */
      decode_error?: string;
      /** With `content_encoding`: bytes of the body as sent (`size` counts the decoded body) */
      encoded_size?: number;
      /** Query string: the last value of a repeated key */
      query: { [key: string]: string } | null;
      /** Every value of each query key, in order */
      query_all: { [key: string]: string[] } | null;
      /** What was sent back (HTTP captures; on realtime events only when it was not the default response) */
      response?: {
        status: number;
        content_type: string;
        /** Headers sent, besides CORS headers and Content-Length */
        headers: { [key: string]: string };
        body: string;
        body_encoding: "utf8" | "base64";
        /** Bytes of the body sent */
        size: number;
        /** The stored body was cut at 64 KiB */
        truncated: boolean;
        /** stored: kept when it was sent (made by actions or set-response); default: the token's default response, rebuilt from its current settings */
        source: "stored" | "default";
      };
      /** Form fields (urlencoded or multipart) */
      request: { [key: string]: unknown };
      headers: { [key: string]: string[] };
      url: string;
      size: number;
      files: {
        id: string;
        name: string;
        filename: string;
        size: number;
        content_type: string;
      }[];
      custom_action_output: string[];
      custom_action_errors: unknown[];
      /** Which redaction rules masked what (tokens with redaction rules; docs/redaction.md); never the values */
      redactions?: {
        source: "token" | "action";
        rule: number;
        action?: string;
        kind: "header" | "query" | "form" | "json" | "regex" | "preset";
        target: string;
        count: number;
        error?: string;
      }[];
      note: string | null;
      time: number;
      sorting: number;
      created_at: string;
      updated_at: string;
      /** Sender's country (HTTP captures from public addresses; offline database, GEOIP_DATABASES) */
      country?: string;
      /** ISO 3166-1 alpha-2 code of the country */
      country_code?: string;
      region?: string;
      city?: string;
      sender?: string;
      message_id?: string;
      destinations?: string[];
      text_content?: string;
      html_content?: string;
      checks?: { [key: string]: unknown };
      dns?: {
        /** The name asked, in the case it reached the service */
        name: string;
        type: string;
        protocol: "udp" | "tcp";
        /** The labels before the token */
        subdomain: string;
      };
    };
  };
  /** Send a stored HTTP request to another URL (its method unless `method` is given, its headers and body) through the outbound policy; answers the target's response. 422 naming `url` for a refused, invalid or unresolvable address, 502 when the target cannot be reached, 504 when it does not answer within 15 s */
  "POST /token/{token_id}/request/{request_id}/forward": {
    path: {
      token_id: string;
      request_id: string;
    };
    query: Record<string, never>;
    body: {
      /** Where to send the request: its method, headers and body go along */
      url: string;
      /** Instead of the request's own method */
      method?: string;
    };
    status: 200;
    response: {
      status: number;
      headers: { [key: string]: string[] };
      body: string;
      body_encoding: "utf8" | "base64";
      /** Bytes of body received (at most 1 MiB is kept) */
      size: number;
      truncated: boolean;
      /** Seconds from sending to the end of the answer */
      time: number;
      url: string;
      method: string;
    };
  };
  /** Replay the body as it was sent (still compressed when it came with a Content-Encoding), with its content type */
  "GET /token/{token_id}/request/{request_id}/raw": {
    path: {
      token_id: string;
      request_id: string;
    };
    query: Record<string, never>;
    body: never;
    status: 200;
    response: unknown;
  };
  /** Set the note of a request */
  "PUT /token/{token_id}/request/{request_id}/note": {
    path: {
      token_id: string;
      request_id: string;
    };
    query: Record<string, never>;
    body: {
      note: string | null;
    };
    status: 200;
    response: {
      uuid: string;
      type: "web" | "email" | "dns";
      token_id: string;
      team_id: number | null;
      ip: string;
      hostname: string;
      method: string;
      /** The HTTP version of a web capture (`2` for HTTP/2); null for e-mail and DNS */
      http_version: ("2" | "1.0" | "1.1") | null;
      user_agent: string;
      /** The body as UTF-8 text, decoded when it was sent with a Content-Encoding the service undid (`decoded`); `raw` returns the bytes as sent */
      content: string;
      /** The body (as `content` holds it) in base64, when it is not valid UTF-8: `content` then has replacement characters where the bytes were not text */
      content_base64?: string;
      /** The Content-Encoding codings the body was sent with, as listed (lower case, without `identity`), e.g. `gzip` or `gzip, br` */
      content_encoding?: string;
      /** With `content_encoding`: true when `content`, `size`, form fields, search and actions see the decoded body */
      decoded?: boolean;
      /** With `decoded: false`: why the body could not be decoded (unknown coding, corrupt data); it is kept as sent */
      decode_error?: string;
      /** With `content_encoding`: bytes of the body as sent (`size` counts the decoded body) */
      encoded_size?: number;
      /** Query string: the last value of a repeated key */
      query: { [key: string]: string } | null;
      /** Every value of each query key, in order */
      query_all: { [key: string]: string[] } | null;
      /** What was sent back (HTTP captures; on realtime events only when it was not the default response) */
      response?: {
        status: number;
        content_type: string;
        /** Headers sent, besides CORS headers and Content-Length */
        headers: { [key: string]: string };
        body: string;
        body_encoding: "utf8" | "base64";
        /** Bytes of the body sent */
        size: number;
        /** The stored body was cut at 64 KiB */
        truncated: boolean;
        /** stored: kept when it was sent (made by actions or set-response); default: the token's default response, rebuilt from its current settings */
        source: "stored" | "default";
      };
      /** Form fields (urlencoded or multipart) */
      request: { [key: string]: unknown };
      headers: { [key: string]: string[] };
      url: string;
      size: number;
      files: {
        id: string;
        name: string;
        filename: string;
        size: number;
        content_type: string;
      }[];
      custom_action_output: string[];
      custom_action_errors: unknown[];
      /** Which redaction rules masked what (tokens with redaction rules; docs/redaction.md); never the values */
      redactions?: {
        source: "token" | "action";
        rule: number;
        action?: string;
        kind: "header" | "query" | "form" | "json" | "regex" | "preset";
        target: string;
        count: number;
        error?: string;
      }[];
      note: string | null;
      time: number;
      sorting: number;
      created_at: string;
      updated_at: string;
      /** Sender's country (HTTP captures from public addresses; offline database, GEOIP_DATABASES) */
      country?: string;
      /** ISO 3166-1 alpha-2 code of the country */
      country_code?: string;
      region?: string;
      city?: string;
      sender?: string;
      message_id?: string;
      destinations?: string[];
      text_content?: string;
      html_content?: string;
      checks?: { [key: string]: unknown };
      dns?: {
        /** The name asked, in the case it reached the service */
        name: string;
        type: string;
        protocol: "udp" | "tcp";
        /** The labels before the token */
        subdomain: string;
      };
    };
  };
  /** Answer a capture that is listening (base64 content) (same as /token/{token_id}/request/{request_id}/response) */
  "PUT /token/{token_id}/requests/{request_id}/response": {
    path: {
      token_id: string;
      request_id: string;
    };
    query: Record<string, never>;
    body: {
      status?: number;
      content?: string;
      headers?: { [key: string]: string | string[] };
    };
    status: 200;
    response: {
      status: true;
    };
  };
  /** Download an uploaded file or attachment (same as /token/{token_id}/request/{request_id}/download/{file_id}) */
  "GET /token/{token_id}/requests/{request_id}/download/{file_id}": {
    path: {
      token_id: string;
      request_id: string;
      file_id: string;
    };
    query: Record<string, never>;
    body: never;
    status: 200;
    response: unknown;
  };
  /** Get a captured request (or `latest`) (same as /token/{token_id}/request/{request_id}) */
  "GET /token/{token_id}/requests/{request_id}": {
    path: {
      token_id: string;
      request_id: string;
    };
    query: Record<string, never>;
    body: never;
    status: 200;
    response: {
      uuid: string;
      type: "web" | "email" | "dns";
      token_id: string;
      team_id: number | null;
      ip: string;
      hostname: string;
      method: string;
      /** The HTTP version of a web capture (`2` for HTTP/2); null for e-mail and DNS */
      http_version: ("2" | "1.0" | "1.1") | null;
      user_agent: string;
      /** The body as UTF-8 text, decoded when it was sent with a Content-Encoding the service undid (`decoded`); `raw` returns the bytes as sent */
      content: string;
      /** The body (as `content` holds it) in base64, when it is not valid UTF-8: `content` then has replacement characters where the bytes were not text */
      content_base64?: string;
      /** The Content-Encoding codings the body was sent with, as listed (lower case, without `identity`), e.g. `gzip` or `gzip, br` */
      content_encoding?: string;
      /** With `content_encoding`: true when `content`, `size`, form fields, search and actions see the decoded body */
      decoded?: boolean;
      /** With `decoded: false`: why the body could not be decoded (unknown coding, corrupt data); it is kept as sent */
      decode_error?: string;
      /** With `content_encoding`: bytes of the body as sent (`size` counts the decoded body) */
      encoded_size?: number;
      /** Query string: the last value of a repeated key */
      query: { [key: string]: string } | null;
      /** Every value of each query key, in order */
      query_all: { [key: string]: string[] } | null;
      /** What was sent back (HTTP captures; on realtime events only when it was not the default response) */
      response?: {
        status: number;
        content_type: string;
        /** Headers sent, besides CORS headers and Content-Length */
        headers: { [key: string]: string };
        body: string;
        body_encoding: "utf8" | "base64";
        /** Bytes of the body sent */
        size: number;
        /** The stored body was cut at 64 KiB */
        truncated: boolean;
        /** stored: kept when it was sent (made by actions or set-response); default: the token's default response, rebuilt from its current settings */
        source: "stored" | "default";
      };
      /** Form fields (urlencoded or multipart) */
      request: { [key: string]: unknown };
      headers: { [key: string]: string[] };
      url: string;
      size: number;
      files: {
        id: string;
        name: string;
        filename: string;
        size: number;
        content_type: string;
      }[];
      custom_action_output: string[];
      custom_action_errors: unknown[];
      /** Which redaction rules masked what (tokens with redaction rules; docs/redaction.md); never the values */
      redactions?: {
        source: "token" | "action";
        rule: number;
        action?: string;
        kind: "header" | "query" | "form" | "json" | "regex" | "preset";
        target: string;
        count: number;
        error?: string;
      }[];
      note: string | null;
      time: number;
      sorting: number;
      created_at: string;
      updated_at: string;
      /** Sender's country (HTTP captures from public addresses; offline database, GEOIP_DATABASES) */
      country?: string;
      /** ISO 3166-1 alpha-2 code of the country */
      country_code?: string;
      region?: string;
      city?: string;
      sender?: string;
      message_id?: string;
      destinations?: string[];
      text_content?: string;
      html_content?: string;
      checks?: { [key: string]: unknown };
      dns?: {
        /** The name asked, in the case it reached the service */
        name: string;
        type: string;
        protocol: "udp" | "tcp";
        /** The labels before the token */
        subdomain: string;
      };
    };
  };
  /** Delete a captured request (same as /token/{token_id}/request/{request_id}) */
  "DELETE /token/{token_id}/requests/{request_id}": {
    path: {
      token_id: string;
      request_id: string;
    };
    query: Record<string, never>;
    body: never;
    status: 204;
    response: unknown;
  };
  /** Set the note of a request (same as PUT .../note) */
  "PUT /token/{token_id}/requests/{request_id}": {
    path: {
      token_id: string;
      request_id: string;
    };
    query: Record<string, never>;
    body: {
      note: string | null;
    };
    status: 200;
    response: {
      uuid: string;
      type: "web" | "email" | "dns";
      token_id: string;
      team_id: number | null;
      ip: string;
      hostname: string;
      method: string;
      /** The HTTP version of a web capture (`2` for HTTP/2); null for e-mail and DNS */
      http_version: ("2" | "1.0" | "1.1") | null;
      user_agent: string;
      /** The body as UTF-8 text, decoded when it was sent with a Content-Encoding the service undid (`decoded`); `raw` returns the bytes as sent */
      content: string;
      /** The body (as `content` holds it) in base64, when it is not valid UTF-8: `content` then has replacement characters where the bytes were not text */
      content_base64?: string;
      /** The Content-Encoding codings the body was sent with, as listed (lower case, without `identity`), e.g. `gzip` or `gzip, br` */
      content_encoding?: string;
      /** With `content_encoding`: true when `content`, `size`, form fields, search and actions see the decoded body */
      decoded?: boolean;
      /** With `decoded: false`: why the body could not be decoded (unknown coding, corrupt data); it is kept as sent */
      decode_error?: string;
      /** With `content_encoding`: bytes of the body as sent (`size` counts the decoded body) */
      encoded_size?: number;
      /** Query string: the last value of a repeated key */
      query: { [key: string]: string } | null;
      /** Every value of each query key, in order */
      query_all: { [key: string]: string[] } | null;
      /** What was sent back (HTTP captures; on realtime events only when it was not the default response) */
      response?: {
        status: number;
        content_type: string;
        /** Headers sent, besides CORS headers and Content-Length */
        headers: { [key: string]: string };
        body: string;
        body_encoding: "utf8" | "base64";
        /** Bytes of the body sent */
        size: number;
        /** The stored body was cut at 64 KiB */
        truncated: boolean;
        /** stored: kept when it was sent (made by actions or set-response); default: the token's default response, rebuilt from its current settings */
        source: "stored" | "default";
      };
      /** Form fields (urlencoded or multipart) */
      request: { [key: string]: unknown };
      headers: { [key: string]: string[] };
      url: string;
      size: number;
      files: {
        id: string;
        name: string;
        filename: string;
        size: number;
        content_type: string;
      }[];
      custom_action_output: string[];
      custom_action_errors: unknown[];
      /** Which redaction rules masked what (tokens with redaction rules; docs/redaction.md); never the values */
      redactions?: {
        source: "token" | "action";
        rule: number;
        action?: string;
        kind: "header" | "query" | "form" | "json" | "regex" | "preset";
        target: string;
        count: number;
        error?: string;
      }[];
      note: string | null;
      time: number;
      sorting: number;
      created_at: string;
      updated_at: string;
      /** Sender's country (HTTP captures from public addresses; offline database, GEOIP_DATABASES) */
      country?: string;
      /** ISO 3166-1 alpha-2 code of the country */
      country_code?: string;
      region?: string;
      city?: string;
      sender?: string;
      message_id?: string;
      destinations?: string[];
      text_content?: string;
      html_content?: string;
      checks?: { [key: string]: unknown };
      dns?: {
        /** The name asked, in the case it reached the service */
        name: string;
        type: string;
        protocol: "udp" | "tcp";
        /** The labels before the token */
        subdomain: string;
      };
    };
  };
  /** Send a stored HTTP request to another URL (its method unless `method` is given, its headers and body) through the outbound policy; answers the target's response. 422 naming `url` for a refused, invalid or unresolvable address, 502 when the target cannot be reached, 504 when it does not answer within 15 s (same as /token/{token_id}/request/{request_id}/forward) */
  "POST /token/{token_id}/requests/{request_id}/forward": {
    path: {
      token_id: string;
      request_id: string;
    };
    query: Record<string, never>;
    body: {
      /** Where to send the request: its method, headers and body go along */
      url: string;
      /** Instead of the request's own method */
      method?: string;
    };
    status: 200;
    response: {
      status: number;
      headers: { [key: string]: string[] };
      body: string;
      body_encoding: "utf8" | "base64";
      /** Bytes of body received (at most 1 MiB is kept) */
      size: number;
      truncated: boolean;
      /** Seconds from sending to the end of the answer */
      time: number;
      url: string;
      method: string;
    };
  };
  /** Replay the body as it was sent (still compressed when it came with a Content-Encoding), with its content type (same as /token/{token_id}/request/{request_id}/raw) */
  "GET /token/{token_id}/requests/{request_id}/raw": {
    path: {
      token_id: string;
      request_id: string;
    };
    query: Record<string, never>;
    body: never;
    status: 200;
    response: unknown;
  };
  /** Set the note of a request (same as /token/{token_id}/request/{request_id}/note) */
  "PUT /token/{token_id}/requests/{request_id}/note": {
    path: {
      token_id: string;
      request_id: string;
    };
    query: Record<string, never>;
    body: {
      note: string | null;
    };
    status: 200;
    response: {
      uuid: string;
      type: "web" | "email" | "dns";
      token_id: string;
      team_id: number | null;
      ip: string;
      hostname: string;
      method: string;
      /** The HTTP version of a web capture (`2` for HTTP/2); null for e-mail and DNS */
      http_version: ("2" | "1.0" | "1.1") | null;
      user_agent: string;
      /** The body as UTF-8 text, decoded when it was sent with a Content-Encoding the service undid (`decoded`); `raw` returns the bytes as sent */
      content: string;
      /** The body (as `content` holds it) in base64, when it is not valid UTF-8: `content` then has replacement characters where the bytes were not text */
      content_base64?: string;
      /** The Content-Encoding codings the body was sent with, as listed (lower case, without `identity`), e.g. `gzip` or `gzip, br` */
      content_encoding?: string;
      /** With `content_encoding`: true when `content`, `size`, form fields, search and actions see the decoded body */
      decoded?: boolean;
      /** With `decoded: false`: why the body could not be decoded (unknown coding, corrupt data); it is kept as sent */
      decode_error?: string;
      /** With `content_encoding`: bytes of the body as sent (`size` counts the decoded body) */
      encoded_size?: number;
      /** Query string: the last value of a repeated key */
      query: { [key: string]: string } | null;
      /** Every value of each query key, in order */
      query_all: { [key: string]: string[] } | null;
      /** What was sent back (HTTP captures; on realtime events only when it was not the default response) */
      response?: {
        status: number;
        content_type: string;
        /** Headers sent, besides CORS headers and Content-Length */
        headers: { [key: string]: string };
        body: string;
        body_encoding: "utf8" | "base64";
        /** Bytes of the body sent */
        size: number;
        /** The stored body was cut at 64 KiB */
        truncated: boolean;
        /** stored: kept when it was sent (made by actions or set-response); default: the token's default response, rebuilt from its current settings */
        source: "stored" | "default";
      };
      /** Form fields (urlencoded or multipart) */
      request: { [key: string]: unknown };
      headers: { [key: string]: string[] };
      url: string;
      size: number;
      files: {
        id: string;
        name: string;
        filename: string;
        size: number;
        content_type: string;
      }[];
      custom_action_output: string[];
      custom_action_errors: unknown[];
      /** Which redaction rules masked what (tokens with redaction rules; docs/redaction.md); never the values */
      redactions?: {
        source: "token" | "action";
        rule: number;
        action?: string;
        kind: "header" | "query" | "form" | "json" | "regex" | "preset";
        target: string;
        count: number;
        error?: string;
      }[];
      note: string | null;
      time: number;
      sorting: number;
      created_at: string;
      updated_at: string;
      /** Sender's country (HTTP captures from public addresses; offline database, GEOIP_DATABASES) */
      country?: string;
      /** ISO 3166-1 alpha-2 code of the country */
      country_code?: string;
      region?: string;
      city?: string;
      sender?: string;
      message_id?: string;
      destinations?: string[];
      text_content?: string;
      html_content?: string;
      checks?: { [key: string]: unknown };
      dns?: {
        /** The name asked, in the case it reached the service */
        name: string;
        type: string;
        protocol: "udp" | "tcp";
        /** The labels before the token */
        subdomain: string;
      };
    };
  };
  /** Delete all (or the matching) requests */
  "DELETE /token/{token_id}/request": {
    path: {
      token_id: string;
    };
    query: {
      query?: string;
      /** Only requests created at or after this time (UTC, YYYY-MM-DD HH:MM:SS; a date alone: from the start of that day) */
      date_from?: string;
      /** Only requests created up to the end of this second (UTC, YYYY-MM-DD HH:MM:SS; a date alone: to the end of that day), so one whose created_at is this value is included */
      date_to?: string;
    };
    body: never;
    status: 204;
    response: unknown;
  };
  /** Replay: run the token's Custom Actions again (their output replaces the stored one; queued actions run queued) or forward the requests to `url`, for all requests or those matching `query`, up to 100,000, as a background job. Answers the replay (status `queued`) with `total`, the matching count; follow it with GET. 422 when the token has no actions (mode actions), or for a bad query or URL */
  "POST /token/{token_id}/replays": {
    path: {
      token_id: string;
    };
    query: Record<string, never>;
    body: {
      /** actions: run the token's Custom Actions again on each request (their output replaces the stored one); forward: send each request to `url` */
      mode?: "actions" | "forward";
      /** forward: where each request goes (its headers and body go along), through the outbound policy */
      url?: string;
      /** forward: instead of each request's own method */
      method?: string;
      /** Only the requests matching this search query (the search language of request lists); all when left out */
      query?: string;
      /** Which requests come first */
      sorting?: "oldest" | "newest";
      /** Guaranteed ordering: one request at a time in `sorting` order (slower); otherwise a few at once */
      ordered?: boolean;
      /** At most this many requests (up to 100000) */
      limit?: number;
    };
    status: 202;
    response: {
      id: string;
      token_id: string;
      mode: "actions" | "forward";
      url: string | null;
      method: string | null;
      query: string | null;
      sorting: "oldest" | "newest";
      ordered: boolean;
      limit: number;
      status: "queued" | "running" | "done" | "cancelled" | "failed";
      cancel_requested: boolean;
      /** Requests matching when the replay was made (at most `limit`) */
      total: number;
      processed: number;
      /** Requests whose actions ran without errors, or that the target answered below 400 */
      ran: number;
      /** Requests with action errors, an error, or a target answer of 400 or more */
      failed: number;
      /** Requests left alone: no actions to run, or (forward) not an HTTP request */
      skipped: number;
      /** Percent of `total` processed */
      progress: number;
      /** The first 100 failures and skips */
      log: {
        request_id: string;
        outcome: "failed" | "skipped";
        message: string;
      }[];
      /** Why the replay stopped, when it failed */
      error: string | null;
      created_at: string;
      started_at: string | null;
      finished_at: string | null;
    };
  };
  /** The token's replays, newest first (the 20 newest are kept) */
  "GET /token/{token_id}/replays": {
    path: {
      token_id: string;
    };
    query: Record<string, never>;
    body: never;
    status: 200;
    response: {
      data: {
        id: string;
        token_id: string;
        mode: "actions" | "forward";
        url: string | null;
        method: string | null;
        query: string | null;
        sorting: "oldest" | "newest";
        ordered: boolean;
        limit: number;
        status: "queued" | "running" | "done" | "cancelled" | "failed";
        cancel_requested: boolean;
        /** Requests matching when the replay was made (at most `limit`) */
        total: number;
        processed: number;
        /** Requests whose actions ran without errors, or that the target answered below 400 */
        ran: number;
        /** Requests with action errors, an error, or a target answer of 400 or more */
        failed: number;
        /** Requests left alone: no actions to run, or (forward) not an HTTP request */
        skipped: number;
        /** Percent of `total` processed */
        progress: number;
        /** The first 100 failures and skips */
        log: {
          request_id: string;
          outcome: "failed" | "skipped";
          message: string;
        }[];
        /** Why the replay stopped, when it failed */
        error: string | null;
        created_at: string;
        started_at: string | null;
        finished_at: string | null;
      }[];
    };
  };
  /** A replay: status (queued, running, done, cancelled, failed), progress, the summary (ran, failed, skipped) and the first failures */
  "GET /token/{token_id}/replays/{replay_id}": {
    path: {
      token_id: string;
      replay_id: string;
    };
    query: Record<string, never>;
    body: never;
    status: 200;
    response: {
      id: string;
      token_id: string;
      mode: "actions" | "forward";
      url: string | null;
      method: string | null;
      query: string | null;
      sorting: "oldest" | "newest";
      ordered: boolean;
      limit: number;
      status: "queued" | "running" | "done" | "cancelled" | "failed";
      cancel_requested: boolean;
      /** Requests matching when the replay was made (at most `limit`) */
      total: number;
      processed: number;
      /** Requests whose actions ran without errors, or that the target answered below 400 */
      ran: number;
      /** Requests with action errors, an error, or a target answer of 400 or more */
      failed: number;
      /** Requests left alone: no actions to run, or (forward) not an HTTP request */
      skipped: number;
      /** Percent of `total` processed */
      progress: number;
      /** The first 100 failures and skips */
      log: {
        request_id: string;
        outcome: "failed" | "skipped";
        message: string;
      }[];
      /** Why the replay stopped, when it failed */
      error: string | null;
      created_at: string;
      started_at: string | null;
      finished_at: string | null;
    };
  };
  /** Cancel a queued or running replay (it stops after the requests in flight); a finished one is answered as it is */
  "POST /token/{token_id}/replays/{replay_id}/cancel": {
    path: {
      token_id: string;
      replay_id: string;
    };
    query: Record<string, never>;
    body: never;
    status: 200;
    response: {
      id: string;
      token_id: string;
      mode: "actions" | "forward";
      url: string | null;
      method: string | null;
      query: string | null;
      sorting: "oldest" | "newest";
      ordered: boolean;
      limit: number;
      status: "queued" | "running" | "done" | "cancelled" | "failed";
      cancel_requested: boolean;
      /** Requests matching when the replay was made (at most `limit`) */
      total: number;
      processed: number;
      /** Requests whose actions ran without errors, or that the target answered below 400 */
      ran: number;
      /** Requests with action errors, an error, or a target answer of 400 or more */
      failed: number;
      /** Requests left alone: no actions to run, or (forward) not an HTTP request */
      skipped: number;
      /** Percent of `total` processed */
      progress: number;
      /** The first 100 failures and skips */
      log: {
        request_id: string;
        outcome: "failed" | "skipped";
        message: string;
      }[];
      /** Why the replay stopped, when it failed */
      error: string | null;
      created_at: string;
      started_at: string | null;
      finished_at: string | null;
    };
  };
  /** The sample deliveries: each provider (source, licence, the verify_signature preset that checks it) and its events (see docs/samples.md) */
  "GET /samples": {
    path: Record<string, never>;
    query: Record<string, never>;
    body: never;
    status: 200;
    response: {
      data: {
        provider: "github" | "stripe" | "standard_webhooks" | "svix" | "slack" | "shopify" | "twilio";
        name: string;
        /** Where the payloads come from */
        source: string;
        licence: string;
        /** The verify_signature preset that checks these deliveries */
        verify_preset: string;
        secret_required: boolean;
        events: {
          event: string;
          description: string;
          /** Body forms it can be sent as; the first is the default */
          formats: ("json" | "form")[];
        }[];
      }[];
    };
  };
  /** Send one sample delivery, signed as its provider signs (fresh timestamp): to one of your tokens (`token`: captured there as if the provider had sent it, actions and all; who may change the token may) or to a `url` through the outbound policy (needs an API key). Answers what was sent and what came back. 422 for an unknown event, a missing or unusable secret, a refused URL */
  "POST /samples/send": {
    path: Record<string, never>;
    query: Record<string, never>;
    body: {
      /** The sender (GET /samples lists them and their events) */
      provider: "github" | "stripe" | "standard_webhooks" | "svix" | "slack" | "shopify" | "twilio";
      /** The event, e.g. push, pull_request.opened, payment_intent.succeeded, sms */
      event: string;
      /** The signing secret, as the provider's dashboard shows it (Twilio: the auth token; Standard Webhooks/Svix: whsec_...). Only GitHub sends unsigned deliveries without one */
      secret?: string;
      /** One of the caller's tokens (UUID or alias): the delivery is captured there, actions and all. Needs what changing the token needs */
      token?: string;
      /** Or a URL to send it to, through the outbound policy. Needs an API key */
      url?: string;
      /** The body's form where the provider offers two (GitHub: json or form) */
      format?: "json" | "form";
      /** Merged into the payload: objects key by key, anything else replaced (form posts: each key replaces a field) */
      overrides?: { [key: string]: unknown };
    };
    status: 200;
    response: {
      provider: "github" | "stripe" | "standard_webhooks" | "svix" | "slack" | "shopify" | "twilio";
      event: string;
      format: "json" | "form";
      /** The verify_signature preset that checks it */
      verify_preset: string;
      sent: {
        method: string;
        /** Where it went: the URL, or the token's capture URL */
        url: string;
        headers: { [key: string]: string };
        body: string;
        body_encoding: "utf8" | "base64";
      };
      /** What came back: the target's answer, or the token's (its default response, or what its actions built) */
      response: {
        status: number;
        headers: { [key: string]: string[] };
        body: string;
        body_encoding: "utf8" | "base64";
        size: number;
        /** The body was cut at 1 MiB */
        truncated: boolean;
        /** Seconds */
        time: number;
      };
      /** The capture stored in the token (null for a URL, or when the token kept none) */
      request_id: string | null;
    };
  };
  /** Server-sent events: request.created, request.deleted, token.updated (see docs/realtime.md) */
  "GET /token/{token_id}/events": {
    path: {
      token_id: string;
    };
    query: {
      /** The API key, instead of the Api-Key header */
      api_key?: string;
      /** The token's password */
      password?: string;
      /** A share link secret: the stream is view-only */
      share?: string;
      /** Resume after this event id (as the Last-Event-ID header) */
      last_event_id?: string;
    };
    body: never;
    status: 200;
    response: unknown;
  };
  /** A smee.io channel for smee-client: a `ready` event, one event per HTTP capture (its headers, `body`, `query`, `timestamp`), `ping`s; with Last-Event-ID the last 100 captures of the last 10 minutes missed. Access as the token's events (see docs/smee.md) */
  "GET /token/{token_id}/smee": {
    path: {
      token_id: string;
    };
    query: {
      /** The API key, instead of the Api-Key header */
      api_key?: string;
      /** The token's password */
      password?: string;
      /** A share link secret: the stream is view-only */
      share?: string;
      /** Resume after this event id (as the Last-Event-ID header) */
      last_event_id?: string;
    };
    body: never;
    status: 200;
    response: unknown;
  };
  /** Liveness: 200 while the process answers */
  "GET /healthz": {
    path: Record<string, never>;
    query: Record<string, never>;
    body: never;
    status: 200;
    response: {
      status: string;
      store: string;
    };
  };
  /** Readiness: 200 when every module started and the store answers; 503 with a reason otherwise (also while shutting down, and while writes fail for lack of space) */
  "GET /readyz": {
    path: Record<string, never>;
    query: Record<string, never>;
    body: never;
    status: 200;
    response: {
      status: string;
      store: string;
      modules: string[];
    };
  };
  /** Prometheus metrics (text exposition format) */
  "GET /metrics": {
    path: Record<string, never>;
    query: Record<string, never>;
    body: never;
    status: 200;
    response: unknown;
  };
  /** The web page (HTML) */
  "GET /": {
    path: Record<string, never>;
    query: Record<string, never>;
    body: never;
    status: 200;
    response: unknown;
  };
  /** The web app (HTML) */
  "GET /app": {
    path: Record<string, never>;
    query: Record<string, never>;
    body: never;
    status: 200;
    response: unknown;
  };
  /** The web app (HTML) */
  "GET /app/": {
    path: Record<string, never>;
    query: Record<string, never>;
    body: never;
    status: 200;
    response: unknown;
  };
  /** The web app's settings (base URL, capture domain, whether databases are configured) */
  "GET /app/config.json": {
    path: Record<string, never>;
    query: Record<string, never>;
    body: never;
    status: 200;
    response: {
      base_url: string;
      email_domain: string;
      dns_domain: string;
      capture_domain: string | null;
      /** Whether hosted databases are configured (DATABASES_POSTGRES_URL): the page does not ask /databases otherwise */
      databases: boolean;
    };
  };
  /** The web app's files (scripts, styles; other paths answer the app's HTML) */
  "GET /app/{path}": {
    path: {
      path: string;
    };
    query: Record<string, never>;
    body: never;
    status: 200;
    response: unknown;
  };
  /** The documentation: its index (docs/README.md) as HTML */
  "GET /docs": {
    path: Record<string, never>;
    query: Record<string, never>;
    body: never;
    status: 200;
    response: unknown;
  };
  /** The documentation: its index (docs/README.md) as HTML */
  "GET /docs/": {
    path: Record<string, never>;
    query: Record<string, never>;
    body: never;
    status: 200;
    response: unknown;
  };
  /** A page of the documentation (docs/<page>.md) as HTML, or one of its images */
  "GET /docs/{path}": {
    path: {
      path: string;
    };
    query: Record<string, never>;
    body: never;
    status: 200;
    response: unknown;
  };
  /** Capture: any request to a token URL is stored and answered with the token's default (or Custom Action) response */
  "GET /{token_id}": {
    path: {
      token_id: string;
    };
    query: Record<string, never>;
    body: never;
    status: 200;
    response: unknown;
  };
  /** Capture: any request to a token URL is stored and answered with the token's default (or Custom Action) response */
  "POST /{token_id}": {
    path: {
      token_id: string;
    };
    query: Record<string, never>;
    body: never;
    status: 200;
    response: unknown;
  };
  /** Capture: any request to a token URL is stored and answered with the token's default (or Custom Action) response */
  "PUT /{token_id}": {
    path: {
      token_id: string;
    };
    query: Record<string, never>;
    body: never;
    status: 200;
    response: unknown;
  };
  /** Capture: any request to a token URL is stored and answered with the token's default (or Custom Action) response */
  "PATCH /{token_id}": {
    path: {
      token_id: string;
    };
    query: Record<string, never>;
    body: never;
    status: 200;
    response: unknown;
  };
  /** Capture: any request to a token URL is stored and answered with the token's default (or Custom Action) response */
  "DELETE /{token_id}": {
    path: {
      token_id: string;
    };
    query: Record<string, never>;
    body: never;
    status: 200;
    response: unknown;
  };
  /** Capture: any request to a token URL is stored and answered with the token's default (or Custom Action) response */
  "OPTIONS /{token_id}": {
    path: {
      token_id: string;
    };
    query: Record<string, never>;
    body: never;
    status: 200;
    response: unknown;
  };
  /** Capture: any request to a token URL is stored and answered with the token's default (or Custom Action) response */
  "HEAD /{token_id}": {
    path: {
      token_id: string;
    };
    query: Record<string, never>;
    body: never;
    status: 200;
    response: unknown;
  };
  /** Capture: any path (any number of segments) under a token URL is captured like the token URL */
  "GET /{token_id}/{path}": {
    path: {
      token_id: string;
      path: string;
    };
    query: Record<string, never>;
    body: never;
    status: 200;
    response: unknown;
  };
  /** Capture: any path (any number of segments) under a token URL is captured like the token URL */
  "POST /{token_id}/{path}": {
    path: {
      token_id: string;
      path: string;
    };
    query: Record<string, never>;
    body: never;
    status: 200;
    response: unknown;
  };
  /** Capture: any path (any number of segments) under a token URL is captured like the token URL */
  "PUT /{token_id}/{path}": {
    path: {
      token_id: string;
      path: string;
    };
    query: Record<string, never>;
    body: never;
    status: 200;
    response: unknown;
  };
  /** Capture: any path (any number of segments) under a token URL is captured like the token URL */
  "PATCH /{token_id}/{path}": {
    path: {
      token_id: string;
      path: string;
    };
    query: Record<string, never>;
    body: never;
    status: 200;
    response: unknown;
  };
  /** Capture: any path (any number of segments) under a token URL is captured like the token URL */
  "DELETE /{token_id}/{path}": {
    path: {
      token_id: string;
      path: string;
    };
    query: Record<string, never>;
    body: never;
    status: 200;
    response: unknown;
  };
  /** Capture: any path (any number of segments) under a token URL is captured like the token URL */
  "OPTIONS /{token_id}/{path}": {
    path: {
      token_id: string;
      path: string;
    };
    query: Record<string, never>;
    body: never;
    status: 200;
    response: unknown;
  };
  /** Capture: any path (any number of segments) under a token URL is captured like the token URL */
  "HEAD /{token_id}/{path}": {
    path: {
      token_id: string;
      path: string;
    };
    query: Record<string, never>;
    body: never;
    status: 200;
    response: unknown;
  };
  /** Create a user in a new team of their own, with an API key (administrator key) */
  "POST /users": {
    path: Record<string, never>;
    query: Record<string, never>;
    body: {
      name: string;
      email: string;
      premium?: boolean;
    };
    status: 201;
    response: {
      id: number;
      name: string;
      email: string;
      premium: boolean;
      team_id: number;
      user_type_id: 100 | 200 | 300;
      user_type: string;
      role_id: number | null;
      roles: {
        id: number;
        team_id: number;
      }[];
      group_ids: number[] | null;
      two_factor_enabled: number;
      invite_pending: boolean;
      last_login_at: string | null;
      created_at: string | null;
      updated_at: string | null;
      api_key: string;
      api_key_id: number;
    };
  };
  /** The team's users, paged, with Laravel's `links` (Administrator; the administrator key sees every team or `team_id`'s) */
  "GET /users": {
    path: Record<string, never>;
    query: {
      /** Page number, from 1 */
      page?: number;
      /** Items per page, 1 to 100 (default 15); more answers 422 */
      per_page?: number;
      /** Administrator key only: one team */
      team_id?: number;
    };
    body: never;
    status: 200;
    response: {
      data: unknown[];
      current_page: number;
      first_page_url: string;
      from: number | null;
      last_page: number;
      last_page_url: string;
      next_page_url: string | null;
      path: string;
      per_page: number;
      prev_page_url: string | null;
      to: number | null;
      total: number;
    } & {
      data?: {
        id: number;
        name: string;
        email: string;
        premium: boolean;
        team_id: number;
        user_type_id: 100 | 200 | 300;
        user_type: string;
        role_id: number | null;
        roles: {
          id: number;
          team_id: number;
        }[];
        group_ids: number[] | null;
        two_factor_enabled: number;
        invite_pending: boolean;
        last_login_at: string | null;
        created_at: string | null;
        updated_at: string | null;
      }[];
      links: {
        url: string | null;
        label: string;
        active: boolean;
      }[];
    };
  };
  /** Invite someone into the team (Administrator): a one-time link to set up their API key, e-mailed through SMTP_RELAY_URL, else answered as `invite_url`; 502 when the relay refuses */
  "POST /users/invite": {
    path: Record<string, never>;
    query: Record<string, never>;
    body: {
      name: string;
      email: string;
      user_type_id: 100 | 200 | 300;
      /** A role label kept with the user; what they may do is the user type */
      role_id?: number | null;
      /** The team's groups the user is limited to: they open only the tokens and schedules in these groups. null: every token and schedule of the team */
      group_ids?: number[] | null;
      /** Administrator key only: the team to join (default: a new team of their own) */
      team_id?: number;
    };
    status: 201;
    response: {
      id: number;
      name: string;
      email: string;
      premium: boolean;
      team_id: number;
      user_type_id: 100 | 200 | 300;
      user_type: string;
      role_id: number | null;
      roles: {
        id: number;
        team_id: number;
      }[];
      group_ids: number[] | null;
      two_factor_enabled: number;
      invite_pending: boolean;
      last_login_at: string | null;
      created_at: string | null;
      updated_at: string | null;
      invite_sent: boolean;
      invite_url?: string;
    };
  };
  /** Who an open invite is for (no key needed) */
  "GET /users/invite/{secret}": {
    path: {
      secret: string;
    };
    query: Record<string, never>;
    body: never;
    status: 200;
    response: {
      name: string;
      email: string;
      team_id: number;
      user_type_id: 100 | 200 | 300;
      user_type: string;
      expires_at: string | null;
    };
  };
  /** Use the invite (once): answers the user with their first API key (no key needed) */
  "POST /users/invite/{secret}/accept": {
    path: {
      secret: string;
    };
    query: Record<string, never>;
    body: never;
    status: 201;
    response: {
      id: number;
      name: string;
      email: string;
      premium: boolean;
      team_id: number;
      user_type_id: 100 | 200 | 300;
      user_type: string;
      role_id: number | null;
      roles: {
        id: number;
        team_id: number;
      }[];
      group_ids: number[] | null;
      two_factor_enabled: number;
      invite_pending: boolean;
      last_login_at: string | null;
      created_at: string | null;
      updated_at: string | null;
      api_key: string;
      api_key_id: number;
    };
  };
  /** The calling user (`admin: true` and no user fields for the administrator key) */
  "GET /users/me": {
    path: Record<string, never>;
    query: Record<string, never>;
    body: never;
    status: 200;
    response: {
      id: number;
      name: string;
      email: string;
      premium: boolean;
      team_id: number;
      user_type_id: 100 | 200 | 300;
      user_type: string;
      role_id: number | null;
      roles: {
        id: number;
        team_id: number;
      }[];
      group_ids: number[] | null;
      two_factor_enabled: number;
      invite_pending: boolean;
      last_login_at: string | null;
      created_at: string | null;
      updated_at: string | null;
      admin: false;
    } | {
      id: null;
      name: string;
      admin: true;
      premium: boolean;
    };
  };
  /** Get a user (themself, or a user of the Administrator's team) */
  "GET /users/{user_id}": {
    path: {
      user_id: string;
    };
    query: Record<string, never>;
    body: never;
    status: 200;
    response: {
      id: number;
      name: string;
      email: string;
      premium: boolean;
      team_id: number;
      user_type_id: 100 | 200 | 300;
      user_type: string;
      role_id: number | null;
      roles: {
        id: number;
        team_id: number;
      }[];
      group_ids: number[] | null;
      two_factor_enabled: number;
      invite_pending: boolean;
      last_login_at: string | null;
      created_at: string | null;
      updated_at: string | null;
    };
  };
  /** Change name, e-mail, user type or role (Administrator); a team keeps one Administrator (409) */
  "PUT /users/{user_id}": {
    path: {
      user_id: string;
    };
    query: Record<string, never>;
    body: {
      name?: string;
      email?: string;
      user_type_id?: 100 | 200 | 300;
      /** A role label kept with the user; what they may do is the user type */
      role_id?: number | null;
      /** The team's groups the user is limited to: they open only the tokens and schedules in these groups. null: every token and schedule of the team */
      group_ids?: number[] | null;
    };
    status: 200;
    response: {
      id: number;
      name: string;
      email: string;
      premium: boolean;
      team_id: number;
      user_type_id: 100 | 200 | 300;
      user_type: string;
      role_id: number | null;
      roles: {
        id: number;
        team_id: number;
      }[];
      group_ids: number[] | null;
      two_factor_enabled: number;
      invite_pending: boolean;
      last_login_at: string | null;
      created_at: string | null;
      updated_at: string | null;
    };
  };
  /** Remove a user (Administrator) and their API keys; `tokens=team` (default) gives their tokens and schedules to the team, `tokens=delete` deletes them */
  "DELETE /users/{user_id}": {
    path: {
      user_id: string;
    };
    query: {
      /** The user's tokens: `team` gives them to a remaining member, `delete` deletes them with their requests */
      tokens?: "team" | "delete";
    };
    body: never;
    status: 204;
    response: unknown;
  };
  /** List a user's API keys (themself, or the administrator key) */
  "GET /users/{user_id}/api-keys": {
    path: {
      user_id: string;
    };
    query: Record<string, never>;
    body: never;
    status: 200;
    response: {
      data: {
        id: number;
        user_id: number;
        prefix: string;
        created_at: string | null;
      }[];
    };
  };
  /** Issue an API key (its secret is shown this once, as `api_key`) */
  "POST /users/{user_id}/api-keys": {
    path: {
      user_id: string;
    };
    query: Record<string, never>;
    body: never;
    status: 201;
    response: {
      id: number;
      user_id: number;
      prefix: string;
      created_at: string | null;
      api_key: string;
    };
  };
  /** Revoke an API key */
  "DELETE /users/{user_id}/api-keys/{key_id}": {
    path: {
      user_id: string;
      key_id: string;
    };
    query: Record<string, never>;
    body: never;
    status: 204;
    response: unknown;
  };
  /** Create a schedule */
  "POST /schedules": {
    path: Record<string, never>;
    query: Record<string, never>;
    body: {
      name?: string;
      interval: "monthly" | "weekly" | "daily" | "hourly" | "10-minute" | "5-minute" | "1-minute" | "cron";
      cron?: string | null;
      request_url: string;
      request_method?: string;
      request_body?: string | null;
      request_headers?: string | null;
      timeout?: number;
      require_body?: string | null;
      require_status_min?: number | null;
      require_status_max?: number | null;
      /** https targets: alert when the TLS certificate expires within this many days (null: off) */
      tls_expiry_alert_days?: number | null;
      /** A group of the caller's team (users limited to groups: one of theirs); left out on update: unchanged */
      group_id?: number | null;
    };
    status: 200;
    response: {
      id: number;
      name: string;
      interval: "monthly" | "weekly" | "daily" | "hourly" | "10-minute" | "5-minute" | "1-minute" | "cron";
      cron: string | null;
      request_url: string;
      request_method: string;
      request_body: string;
      /** `Name: value` lines */
      request_headers: string;
      timeout: number;
      require_body: string | null;
      require_status_min: number | null;
      require_status_max: number | null;
      tls_expiry_alert_days: number | null;
      group_id: number | null;
      user_id: number;
      last_run_at: string | null;
      last_status: number | null;
      created_at: string | null;
      updated_at: string | null;
    };
  };
  /** List the team's schedules (only those in their groups for a user limited to groups) */
  "GET /schedules": {
    path: Record<string, never>;
    query: {
      /** Items per page, 1 to 100 (default 50); more answers 422 */
      per_page?: number;
      /** Page number, from 1 */
      page?: number;
      /** Only schedules in this group */
      group_id?: number;
    };
    body: never;
    status: 200;
    response: {
      data: unknown[];
      current_page: number;
      first_page_url: string;
      from: number | null;
      last_page: number;
      last_page_url: string;
      next_page_url: string | null;
      path: string;
      per_page: number;
      prev_page_url: string | null;
      to: number | null;
      total: number;
    } & {
      data?: {
        id: number;
        name: string;
        interval: "monthly" | "weekly" | "daily" | "hourly" | "10-minute" | "5-minute" | "1-minute" | "cron";
        cron: string | null;
        request_url: string;
        request_method: string;
        request_body: string;
        /** `Name: value` lines */
        request_headers: string;
        timeout: number;
        require_body: string | null;
        require_status_min: number | null;
        require_status_max: number | null;
        tls_expiry_alert_days: number | null;
        group_id: number | null;
        user_id: number;
        last_run_at: string | null;
        last_status: number | null;
        created_at: string | null;
        updated_at: string | null;
      }[];
    };
  };
  /** Where error notifications go */
  "GET /schedules/notifications": {
    path: Record<string, never>;
    query: Record<string, never>;
    body: never;
    status: 200;
    response: {
      user_id: number;
      email: string | null;
      email_enabled: boolean;
      webhook_url: string | null;
      updated_at: string | null;
    };
  };
  /** Set where error notifications go */
  "PUT /schedules/notifications": {
    path: Record<string, never>;
    query: Record<string, never>;
    body: {
      email_enabled?: boolean;
      email?: string | null;
      webhook_url?: string | null;
    };
    status: 200;
    response: {
      user_id: number;
      email: string | null;
      email_enabled: boolean;
      webhook_url: string | null;
      updated_at: string | null;
    };
  };
  /** Get a schedule */
  "GET /schedules/{schedule_id}": {
    path: {
      schedule_id: string;
    };
    query: Record<string, never>;
    body: never;
    status: 200;
    response: {
      id: number;
      name: string;
      interval: "monthly" | "weekly" | "daily" | "hourly" | "10-minute" | "5-minute" | "1-minute" | "cron";
      cron: string | null;
      request_url: string;
      request_method: string;
      request_body: string;
      /** `Name: value` lines */
      request_headers: string;
      timeout: number;
      require_body: string | null;
      require_status_min: number | null;
      require_status_max: number | null;
      tls_expiry_alert_days: number | null;
      group_id: number | null;
      user_id: number;
      last_run_at: string | null;
      last_status: number | null;
      created_at: string | null;
      updated_at: string | null;
    };
  };
  /** Update a schedule */
  "PUT /schedules/{schedule_id}": {
    path: {
      schedule_id: string;
    };
    query: Record<string, never>;
    body: {
      name?: string;
      interval: "monthly" | "weekly" | "daily" | "hourly" | "10-minute" | "5-minute" | "1-minute" | "cron";
      cron?: string | null;
      request_url: string;
      request_method?: string;
      request_body?: string | null;
      request_headers?: string | null;
      timeout?: number;
      require_body?: string | null;
      require_status_min?: number | null;
      require_status_max?: number | null;
      /** https targets: alert when the TLS certificate expires within this many days (null: off) */
      tls_expiry_alert_days?: number | null;
      /** A group of the caller's team (users limited to groups: one of theirs); left out on update: unchanged */
      group_id?: number | null;
    };
    status: 200;
    response: {
      id: number;
      name: string;
      interval: "monthly" | "weekly" | "daily" | "hourly" | "10-minute" | "5-minute" | "1-minute" | "cron";
      cron: string | null;
      request_url: string;
      request_method: string;
      request_body: string;
      /** `Name: value` lines */
      request_headers: string;
      timeout: number;
      require_body: string | null;
      require_status_min: number | null;
      require_status_max: number | null;
      tls_expiry_alert_days: number | null;
      group_id: number | null;
      user_id: number;
      last_run_at: string | null;
      last_status: number | null;
      created_at: string | null;
      updated_at: string | null;
    };
  };
  /** Delete a schedule */
  "DELETE /schedules/{schedule_id}": {
    path: {
      schedule_id: string;
    };
    query: Record<string, never>;
    body: never;
    status: 204;
    response: unknown;
  };
  /** Run the schedule now; answers its log entry */
  "POST /schedules/{schedule_id}/run-now": {
    path: {
      schedule_id: string;
    };
    query: Record<string, never>;
    body: never;
    status: 200;
    response: {
      id: number;
      schedule_id: number;
      response_status: number;
      response_headers: { [key: string]: string[] };
      response_body: string;
      /** Seconds */
      time: number;
      error: string | null;
      /** When the target's TLS certificate expires (schedules with a TLS expiry alert) */
      tls_expires_at: string | null;
      /** Whole days until then at the run; negative: expired */
      tls_days_left: number | null;
      /** Why the TLS expiry alert fired on this run; null: it did not */
      tls_alert: string | null;
      created_at: string | null;
      updated_at: string | null;
    };
  };
  /** Log entries of the schedule (60 a minute) */
  "GET /schedules/{schedule_id}/logs": {
    path: {
      schedule_id: string;
    };
    query: {
      sorting?: "newest" | "oldest";
      /** Items per page, 1 to 100 (default 50); more answers 422 */
      per_page?: number;
      /** Page number, from 1 */
      page?: number;
    };
    body: never;
    status: 200;
    response: {
      data: unknown[];
      current_page: number;
      first_page_url: string;
      from: number | null;
      last_page: number;
      last_page_url: string;
      next_page_url: string | null;
      path: string;
      per_page: number;
      prev_page_url: string | null;
      to: number | null;
      total: number;
    } & {
      data?: {
        id: number;
        schedule_id: number;
        response_status: number;
        response_headers: { [key: string]: string[] };
        response_body: string;
        /** Seconds */
        time: number;
        error: string | null;
        /** When the target's TLS certificate expires (schedules with a TLS expiry alert) */
        tls_expires_at: string | null;
        /** Whole days until then at the run; negative: expired */
        tls_days_left: number | null;
        /** Why the TLS expiry alert fired on this run; null: it did not */
        tls_alert: string | null;
        created_at: string | null;
        updated_at: string | null;
      }[];
    };
  };
  /** The schedule as a workflow document: YAML, or JSON with `format=json` */
  "GET /schedules/{schedule_id}/document": {
    path: {
      schedule_id: string;
    };
    query: {
      format?: "yaml" | "json";
    };
    body: never;
    status: 200;
    response: {
      apiVersion: "capture/v1";
      kind: "Schedule";
      metadata: {
        name: string;
        /** User e-mail or id; files in workflows/ need it */
        owner?: string | number;
        description?: string;
        /** A group of the owner's team; left out when replacing: unchanged */
        group_id?: number | null;
      };
      spec: {
        interval: "monthly" | "weekly" | "daily" | "hourly" | "10-minute" | "5-minute" | "1-minute" | "cron";
        /** Five-field cron expression in UTC, used when interval is cron */
        cron?: string | null;
        request: {
          method?: string;
          /** Absolute http(s) URL; variables are replaced */
          url: string;
          /** `Name: value` lines */
          headers?: string[];
          body?: string;
          /** Seconds */
          timeout?: number;
        };
        checks?: {
          require_body?: string | null;
          require_status_min?: number | null;
          require_status_max?: number | null;
          /** https targets: alert when the TLS certificate expires within this many days */
          tls_expiry_alert_days?: number | null;
        };
      };
    };
  };
  /** Replace the schedule from a workflow document (YAML or JSON); answers the schedule */
  "PUT /schedules/{schedule_id}/document": {
    path: {
      schedule_id: string;
    };
    query: Record<string, never>;
    body: {
      apiVersion: "capture/v1";
      kind: "Schedule";
      metadata: {
        name: string;
        /** User e-mail or id; files in workflows/ need it */
        owner?: string | number;
        description?: string;
        /** A group of the owner's team; left out when replacing: unchanged */
        group_id?: number | null;
      };
      spec: {
        interval: "monthly" | "weekly" | "daily" | "hourly" | "10-minute" | "5-minute" | "1-minute" | "cron";
        /** Five-field cron expression in UTC, used when interval is cron */
        cron?: string | null;
        request: {
          method?: string;
          /** Absolute http(s) URL; variables are replaced */
          url: string;
          /** `Name: value` lines */
          headers?: string[];
          body?: string;
          /** Seconds */
          timeout?: number;
        };
        checks?: {
          require_body?: string | null;
          require_status_min?: number | null;
          require_status_max?: number | null;
          /** https targets: alert when the TLS certificate expires within this many days */
          tls_expiry_alert_days?: number | null;
        };
      };
    };
    status: 200;
    response: {
      id: number;
      name: string;
      interval: "monthly" | "weekly" | "daily" | "hourly" | "10-minute" | "5-minute" | "1-minute" | "cron";
      cron: string | null;
      request_url: string;
      request_method: string;
      request_body: string;
      /** `Name: value` lines */
      request_headers: string;
      timeout: number;
      require_body: string | null;
      require_status_min: number | null;
      require_status_max: number | null;
      tls_expiry_alert_days: number | null;
      group_id: number | null;
      user_id: number;
      last_run_at: string | null;
      last_status: number | null;
      created_at: string | null;
      updated_at: string | null;
    };
  };
  /** Action types with the JSON Schemas of their parameters */
  "GET /action-types": {
    path: Record<string, never>;
    query: Record<string, never>;
    body: never;
    status: 200;
    response: {
      data: {
        type: string;
        title: string;
        category: string;
        description: string;
        /** Variables the action sets */
        sets: string[];
        creatable: boolean;
        /** Whether it may be marked queued (Don't Save, Rate Limit and Modify Response only make sense inline) */
        queueable: boolean;
        plugin: string;
        /** JSON Schema of its parameters */
        schema: { [key: string]: unknown };
      }[];
    };
  };
  /** List the token's Custom Actions */
  "GET /token/{token_id}/actions": {
    path: {
      token_id: string;
    };
    query: Record<string, never>;
    body: never;
    status: 200;
    response: {
      data: {
        uuid: string;
        token_id: string;
        type: string;
        order: number;
        name: string | null;
        disabled: boolean;
        /** The uuid of the action whose result decides whether this one runs */
        condition: string | null;
        condition_action: ("true" | "false") | null;
        queue: boolean;
        delay: number;
        /** The Queue Profile the queued action runs in */
        queue_profile: string | null;
        /** Secret parameters show as the marker */
        parameters: { [key: string]: unknown };
      }[];
    };
  };
  /** Add a Custom Action */
  "POST /token/{token_id}/actions": {
    path: {
      token_id: string;
    };
    query: Record<string, never>;
    body: {
      type: string;
      order?: number;
      name?: string | null;
      parameters?: { [key: string]: unknown };
      disabled?: boolean | null;
      condition?: string | null;
      condition_action?: ("true" | "false") | null;
      queue?: boolean | null;
      delay?: number | null;
      queue_profile?: string | null;
    };
    status: 200;
    response: {
      uuid: string;
      token_id: string;
      type: string;
      order: number;
      name: string | null;
      disabled: boolean;
      /** The uuid of the action whose result decides whether this one runs */
      condition: string | null;
      condition_action: ("true" | "false") | null;
      queue: boolean;
      delay: number;
      /** The Queue Profile the queued action runs in */
      queue_profile: string | null;
      /** Secret parameters show as the marker */
      parameters: { [key: string]: unknown };
    };
  };
  /** Update a Custom Action */
  "PUT /token/{token_id}/actions/{action_id}": {
    path: {
      token_id: string;
      action_id: string;
    };
    query: Record<string, never>;
    body: {
      type: string;
      order?: number;
      name?: string | null;
      parameters?: { [key: string]: unknown };
      disabled?: boolean | null;
      condition?: string | null;
      condition_action?: ("true" | "false") | null;
      queue?: boolean | null;
      delay?: number | null;
      queue_profile?: string | null;
    };
    status: 200;
    response: {
      uuid: string;
      token_id: string;
      type: string;
      order: number;
      name: string | null;
      disabled: boolean;
      /** The uuid of the action whose result decides whether this one runs */
      condition: string | null;
      condition_action: ("true" | "false") | null;
      queue: boolean;
      delay: number;
      /** The Queue Profile the queued action runs in */
      queue_profile: string | null;
      /** Secret parameters show as the marker */
      parameters: { [key: string]: unknown };
    };
  };
  /** Delete a Custom Action */
  "DELETE /token/{token_id}/actions/{action_id}": {
    path: {
      token_id: string;
      action_id: string;
    };
    query: Record<string, never>;
    body: never;
    status: 204;
    response: unknown;
  };
  /** The action chain as a workflow document: YAML, or JSON with `format=json` or `Accept: application/json` */
  "GET /token/{token_id}/workflow": {
    path: {
      token_id: string;
    };
    query: {
      format?: "yaml" | "json";
    };
    body: never;
    status: 200;
    response: {
      apiVersion: "capture/v1";
      kind: "TokenActions";
      metadata: {
        /** UUID or alias of the token */
        token: string;
        name?: string;
        description?: string;
      };
      spec: {
        steps: {
          /** Stable ID of the step; the actions API calls it uuid */
          id?: string;
          name?: string;
          type: string;
          parameters?: { [key: string]: unknown };
          disabled?: boolean;
          /** ID or name of an earlier conditions step */
          condition?: string | null;
          condition_action?: ("true" | "false") | null;
          queue?: boolean;
          delay?: number;
          /** ID of a Queue Profile of the token's owner (queued steps only) */
          queue_profile?: string | null;
        }[];
      };
    };
  };
  /** Replace the action chain with a workflow document (YAML or JSON); answers it in the same form */
  "PUT /token/{token_id}/workflow": {
    path: {
      token_id: string;
    };
    query: Record<string, never>;
    body: {
      apiVersion: "capture/v1";
      kind: "TokenActions";
      metadata: {
        /** UUID or alias of the token */
        token: string;
        name?: string;
        description?: string;
      };
      spec: {
        steps: {
          /** Stable ID of the step; the actions API calls it uuid */
          id?: string;
          name?: string;
          type: string;
          parameters?: { [key: string]: unknown };
          disabled?: boolean;
          /** ID or name of an earlier conditions step */
          condition?: string | null;
          condition_action?: ("true" | "false") | null;
          queue?: boolean;
          delay?: number;
          /** ID of a Queue Profile of the token's owner (queued steps only) */
          queue_profile?: string | null;
        }[];
      };
    };
    status: 200;
    response: {
      apiVersion: "capture/v1";
      kind: "TokenActions";
      metadata: {
        /** UUID or alias of the token */
        token: string;
        name?: string;
        description?: string;
      };
      spec: {
        steps: {
          /** Stable ID of the step; the actions API calls it uuid */
          id?: string;
          name?: string;
          type: string;
          parameters?: { [key: string]: unknown };
          disabled?: boolean;
          /** ID or name of an earlier conditions step */
          condition?: string | null;
          condition_action?: ("true" | "false") | null;
          queue?: boolean;
          delay?: number;
          /** ID of a Queue Profile of the token's owner (queued steps only) */
          queue_profile?: string | null;
        }[];
      };
    };
  };
  /** Run a workflow document (default the stored one) up to step `until` on a stored request, storing nothing: output, errors, variables after each step, the response */
  "POST /token/{token_id}/workflow/test": {
    path: {
      token_id: string;
    };
    query: Record<string, never>;
    body: {
      /** A workflow document as JSON; default the stored one */
      document?: { [key: string]: unknown };
      /** Index (from 0) of the last step to run; default all */
      until?: number;
      /** Stored request to run on; default the latest (a sample when there is none) */
      request_id?: string;
    };
    status: 200;
    response: {
      success: boolean;
      result: {
        /** Output lines by action uuid */
        output: { [key: string]: string[] };
        errors: {
          action: string;
          message: string;
        }[];
        response: {
          content: string | null;
          status: number | null;
          headers: { [key: string]: string } | null;
        };
        dont_save: boolean;
        stopped: boolean;
        variables: { [key: string]: string };
        /** workflow/test: the variables after each step */
        steps?: {
          action: string;
          type: string;
          order: number;
          variables: { [key: string]: string };
        }[];
      };
    };
  };
  /** Run a temporary action on a stored request (or a sample): with `action_id`, in that action's place in the chain */
  "POST /token/{token_id}/test-action": {
    path: {
      token_id: string;
    };
    query: {
      /** Stored request to run on; default a sample POST */
      request_id?: string;
      /** An action of the token to run with these parameters (its secrets kept); default a new one after the token's inline actions */
      action_id?: string;
    };
    body: {
      type: string;
      order?: number;
      name?: string | null;
      parameters?: { [key: string]: unknown };
      disabled?: boolean | null;
      condition?: string | null;
      condition_action?: ("true" | "false") | null;
      queue?: boolean | null;
      delay?: number | null;
      queue_profile?: string | null;
    };
    status: 200;
    response: {
      success: boolean;
      result: {
        /** Output lines by action uuid */
        output: { [key: string]: string[] };
        errors: {
          action: string;
          message: string;
        }[];
        response: {
          content: string | null;
          status: number | null;
          headers: { [key: string]: string } | null;
        };
        dont_save: boolean;
        stopped: boolean;
        variables: { [key: string]: string };
        /** workflow/test: the variables after each step */
        steps?: {
          action: string;
          type: string;
          order: number;
          variables: { [key: string]: string };
        }[];
      };
    };
  };
  /** Run the token's actions on a stored request; its output and errors replace the request's (`error_notifications`: e-mail the owner about errors) */
  "POST /token/{token_id}/request/{request_id}/execute": {
    path: {
      token_id: string;
      request_id: string;
    };
    query: {
      /** E-mail the token owner about action errors (through SMTP_RELAY_URL, at most 10 e-mails per account an hour) */
      error_notifications?: "0" | "1" | "true" | "false";
    };
    body: never;
    status: 200;
    response: {
      success: boolean;
      result: {
        /** Output lines by action uuid */
        output: { [key: string]: string[] };
        errors: {
          action: string;
          message: string;
        }[];
        response: {
          content: string | null;
          status: number | null;
          headers: { [key: string]: string } | null;
        };
        dont_save: boolean;
        stopped: boolean;
        variables: { [key: string]: string };
        /** workflow/test: the variables after each step */
        steps?: {
          action: string;
          type: string;
          order: number;
          variables: { [key: string]: string };
        }[];
      };
    };
  };
  /** Create a queue profile */
  "POST /queue-profiles": {
    path: Record<string, never>;
    query: Record<string, never>;
    body: {
      name: string;
      /** Seconds before a job first runs */
      initial_delay?: number;
      /** Jobs that may start in any span of rate_period seconds (a sliding window) */
      rate_limit: number;
      /** The period, in seconds (60: a minute) */
      rate_period: number;
      /** Seconds from a job's first planned run until it is given up (and reported in the error log); default one day */
      job_lifetime?: number;
    };
    status: 200;
    response: {
      id: string;
      user_id: number;
      name: string;
      initial_delay: number;
      rate_limit: number;
      rate_period: number;
      job_lifetime: number;
      created_at: string | null;
      updated_at: string | null;
    };
  };
  /** List queue profiles */
  "GET /queue-profiles": {
    path: Record<string, never>;
    query: Record<string, never>;
    body: never;
    status: 200;
    response: {
      data: {
        id: string;
        user_id: number;
        name: string;
        initial_delay: number;
        rate_limit: number;
        rate_period: number;
        job_lifetime: number;
        created_at: string | null;
        updated_at: string | null;
      }[];
    };
  };
  /** Get a queue profile */
  "GET /queue-profiles/{id}": {
    path: {
      id: string;
    };
    query: Record<string, never>;
    body: never;
    status: 200;
    response: {
      id: string;
      user_id: number;
      name: string;
      initial_delay: number;
      rate_limit: number;
      rate_period: number;
      job_lifetime: number;
      created_at: string | null;
      updated_at: string | null;
    };
  };
  /** Update a queue profile */
  "PUT /queue-profiles/{id}": {
    path: {
      id: string;
    };
    query: Record<string, never>;
    body: {
      name?: string;
      /** Seconds before a job first runs */
      initial_delay?: number;
      /** Jobs that may start in any span of rate_period seconds (a sliding window) */
      rate_limit?: number;
      /** The period, in seconds (60: a minute) */
      rate_period?: number;
      /** Seconds from a job's first planned run until it is given up (and reported in the error log); default one day */
      job_lifetime?: number;
    };
    status: 200;
    response: {
      id: string;
      user_id: number;
      name: string;
      initial_delay: number;
      rate_limit: number;
      rate_period: number;
      job_lifetime: number;
      created_at: string | null;
      updated_at: string | null;
    };
  };
  /** Delete a queue profile */
  "DELETE /queue-profiles/{id}": {
    path: {
      id: string;
    };
    query: Record<string, never>;
    body: never;
    status: 204;
    response: unknown;
  };
  /** This document (OpenAPI 3.1): every route, with its input and answer schemas */
  "GET /openapi.json": {
    path: Record<string, never>;
    query: Record<string, never>;
    body: never;
    status: 200;
    response: {
      openapi: string;
      info: {
        title: string;
        version: string;
        description?: string;
      };
      servers: {
        url: string;
      }[];
      components: { [key: string]: { [key: string]: unknown } };
      security: { [key: string]: string[] }[];
      paths: { [key: string]: { [key: string]: unknown } };
    };
  };
}
