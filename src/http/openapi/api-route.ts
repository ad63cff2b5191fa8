/**
 * What the OpenAPI document says of one route: its own module, so the route lists
 * (api-routes.ts, privacy-routes.ts) and the document builder import it without
 * importing each other.
 */
import type { z } from 'zod';

export type HttpMethod = 'get' | 'post' | 'put' | 'patch' | 'delete';

/** Who may call a route: any of the listed credentials (none listed: anyone). */
export type Credential = 'agentKey' | 'sessionToken';

export interface ApiResponse {
  description: string;
  /** JSON responses: the body's schema. */
  schema?: z.ZodType;
  /** Default application/json; other types are documented as text. */
  contentType?: string;
  example?: unknown;
}

export interface ApiRoute {
  method: HttpMethod;
  /** As Express registers it: `/api/v1/chat/history/:session_id`. */
  path: string;
  tag: 'chat' | 'review' | 'knowledge' | 'privacy' | 'operations' | 'pages';
  summary: string;
  description?: string;
  security?: Credential[];
  params?: Record<string, z.ZodType>;
  query?: z.ZodObject;
  headers?: Record<string, { schema: z.ZodType; description: string }>;
  /** Request bodies by content type. */
  body?: Record<string, { schema: z.ZodType; example?: unknown }>;
  responses: Record<number, ApiResponse>;
  /** Statuses answered with the error body `{"error": {"code", "message"}}`. */
  errors?: number[];
}
