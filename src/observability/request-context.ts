import { AsyncLocalStorage } from 'node:async_hooks';

/**
 * The request being served, for log lines written far from the route (chat
 * service, graph nodes). The HTTP middleware enters it; the logger reads it. Its
 * own module so that neither of those two has to import the other.
 */
const requestContext = new AsyncLocalStorage<{ requestId: string }>();

/** Runs `next` (and everything it starts) as part of the request with this id. */
export function runInRequest<T>(requestId: string, next: () => T): T {
  return requestContext.run({ requestId }, next);
}

/** The id of the request this code runs for, or undefined outside one. */
export function currentRequestId(): string | undefined {
  return requestContext.getStore()?.requestId;
}
