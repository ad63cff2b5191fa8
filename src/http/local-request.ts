import type { Request, RequestHandler } from 'express';
import ipaddr from 'ipaddr.js';
import type { TrustProxy } from '../config';
import type { Logger } from '../observability/logger';

/** Headers a proxy adds to say whom it forwards for. */
const FORWARDING_HEADERS = ['forwarded', 'x-forwarded-for', 'x-real-ip'] as const;

/** Whether the request carries any forwarding header, whatever TRUST_PROXY believes of it. */
export function carriesForwardingHeader(req: Request): boolean {
  return FORWARDING_HEADERS.some((name) => req.headers[name] !== undefined);
}

/** 127.0.0.0/8 or ::1, in any spelling Node gives a socket's address (`::ffff:127.0.0.1` too). */
export function isLoopbackAddress(address: string | undefined): boolean {
  if (!address || !ipaddr.isValid(address)) return false;
  return ipaddr.process(address).range() === 'loopback';
}

/**
 * A request from the service's own machine (an operator running `npm run ingest` next to
 * it): decided by the socket, never by `req.ip`, and never for a forwarded request. Behind
 * a reverse proxy on the same host every socket is loopback, and with a hop count in
 * TRUST_PROXY any client can write `X-Forwarded-For: 127.0.0.1`; either way the forwarding
 * header is what tells that the request came from elsewhere.
 */
export function isFromThisMachine(req: Request): boolean {
  return !carriesForwardingHeader(req) && isLoopbackAddress(req.socket.remoteAddress);
}

/**
 * Warns once, at warn, when forwarded requests arrive while TRUST_PROXY believes no proxy:
 * every client behind that proxy then shares the proxy's address and its rate limits.
 */
export function warnOfUntrustedForwarding(trustProxy: TrustProxy, logger: Logger): RequestHandler {
  let warned = trustProxy !== 0;
  return (req, _res, next) => {
    if (!warned && carriesForwardingHeader(req)) {
      warned = true;
      logger.warn(
        { headers: FORWARDING_HEADERS.filter((name) => req.headers[name] !== undefined) },
        'A request carries forwarding headers but TRUST_PROXY is unset: every client behind the proxy shares its address (and its rate limits). Set TRUST_PROXY to the proxy, e.g. TRUST_PROXY=loopback for a proxy on this host.',
      );
    }
    next();
  };
}
