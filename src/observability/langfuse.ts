import { LangfuseClient } from '@langfuse/client';
import { configureGlobalLogger, LogLevel } from '@langfuse/core';
import { LangfuseSpanProcessor } from '@langfuse/otel';
import {
  propagateAttributes,
  setLangfuseTracerProvider,
  startActiveObservation,
  type LangfuseGenerationAttributes,
  type LangfuseObservationType,
} from '@langfuse/tracing';
import { context } from '@opentelemetry/api';
import { AsyncLocalStorageContextManager } from '@opentelemetry/context-async-hooks';
import { NodeTracerProvider } from '@opentelemetry/sdk-trace-node';
import type { LangfuseConfig } from '../config';
import type { Logger } from './logger';

/** What an observation can be told while it runs (a generation takes model and usage too). */
export interface Observation {
  update(attributes: LangfuseGenerationAttributes): void;
}

/** The attributes every observation of one chat request carries. */
export interface TraceAttributes {
  sessionId: string;
  /** The customer id, raw: Langfuse gets its pseudonym, or the id itself only with LANGFUSE_CAPTURE_PERSONAL_DATA. */
  userId: string | null;
  tags: string[];
  metadata?: Record<string, string>;
}

export type ScoreInput = {
  traceId: string;
  name: string;
  comment?: string;
  /** A stable id makes a later score with the same id replace this one (a changed rating). */
  id?: string;
} & ({ value: number; dataType: 'NUMERIC' | 'BOOLEAN' } | { value: string; dataType: 'CATEGORICAL' });

/**
 * Tracing of chat requests. With Langfuse keys set, every request is one trace
 * (sessionId, userId, tags) whose observations are the steps of the answer; without
 * them every method runs its callback and nothing else.
 *
 * Export never stands in a request's way: spans are batched and sent in the
 * background, scores are queued, and a Langfuse that is down, slow or failing only
 * loses its own data.
 */
export interface Tracing {
  readonly enabled: boolean;
  /** LANGFUSE_CAPTURE_PERSONAL_DATA: conversation text, tool data and the customer id may be sent (see personal-data.ts). */
  readonly capturePersonalData: boolean;
  /**
   * Runs fn as the root observation of a new trace, with the attributes on it and on
   * every observation started inside fn; `traceId` is null when tracing is off.
   */
  trace<T>(
    name: string,
    input: unknown,
    attributes: TraceAttributes,
    fn: (root: Observation, traceId: string | null) => Promise<T>,
  ): Promise<T>;
  /** Runs fn as a child observation of the active one (ERROR level when fn throws). */
  observe<T>(name: string, type: LangfuseObservationType, input: unknown, fn: (observation: Observation) => Promise<T>): Promise<T>;
  score(score: ScoreInput): void;
  /** Sends what is pending, waiting at most flushTimeoutMs; never throws. */
  flush(): Promise<void>;
  /** Flushes, then stops the exporter; never throws. */
  shutdown(): Promise<void>;
}

const NO_OBSERVATION: Observation = { update: () => {} };

/** Tracing off: callbacks run as they are, nothing is recorded. */
export const NO_TRACING: Tracing = {
  enabled: false,
  capturePersonalData: false,
  trace: (_name, _input, _attributes, fn) => fn(NO_OBSERVATION, null),
  observe: (_name, _type, _input, fn) => fn(NO_OBSERVATION),
  score: () => {},
  flush: async () => {},
  shutdown: async () => {},
};

/**
 * Langfuse tracing on an OpenTelemetry tracer provider of its own (not the global
 * one, so no other instrumentation can take or drop its spans), or NO_TRACING when
 * config is null. Says once which it is.
 */
export function createTracing(config: LangfuseConfig | null, logger: Logger, pseudonymize: (customerId: string) => string = () => 'anonymous'): Tracing {
  if (!config) {
    logger.info('Langfuse tracing is off (set LANGFUSE_PUBLIC_KEY and LANGFUSE_SECRET_KEY to turn it on)');
    return NO_TRACING;
  }
  // The SDK's own messages (failed exports) go to the console: errors only.
  configureGlobalLogger({ level: LogLevel.ERROR });
  // Active observations nest through async calls: that needs a context manager.
  // Another library's (any AsyncLocalStorage one) serves as well, so keep it if set.
  const contextManager = new AsyncLocalStorageContextManager().enable();
  const ownContextManager = context.setGlobalContextManager(contextManager);
  if (!ownContextManager) contextManager.disable();

  const timeoutSeconds = Math.max(1, Math.ceil(config.exportTimeoutMs / 1000));
  const processor = new LangfuseSpanProcessor({
    publicKey: config.publicKey,
    secretKey: config.secretKey,
    baseUrl: config.baseUrl,
    environment: config.environment,
    timeout: timeoutSeconds,
    // Prompts can carry base64 images; there are none here, and uploads would be extra requests.
    mediaUploadEnabled: false,
  });
  const provider = new NodeTracerProvider({ spanProcessors: [processor] });
  setLangfuseTracerProvider(provider);
  const client = new LangfuseClient({
    publicKey: config.publicKey,
    secretKey: config.secretKey,
    baseUrl: config.baseUrl,
    timeout: timeoutSeconds,
  });
  logger.info({ langfuse_base_url: config.baseUrl }, `Langfuse tracing is on: traces go to ${config.baseUrl}`);

  /** Waits for work at most flushTimeoutMs; a Langfuse that does not answer only loses its data. */
  const bounded = async (what: string, work: () => Promise<unknown>) => {
    let timer: NodeJS.Timeout | undefined;
    const deadline = new Promise<'timeout'>((resolve) => {
      timer = setTimeout(() => resolve('timeout'), config.flushTimeoutMs);
      timer.unref();
    });
    try {
      const outcome = await Promise.race([work().then(() => 'done' as const), deadline]);
      if (outcome === 'timeout') logger.warn({ timeout_ms: config.flushTimeoutMs }, `Langfuse ${what} did not finish in time; giving up`);
    } catch (error) {
      logger.warn({ err: error }, `Langfuse ${what} failed`);
    } finally {
      clearTimeout(timer);
    }
  };

  return {
    enabled: true,
    capturePersonalData: config.capturePersonalData,
    trace: (name, input, attributes, fn) =>
      startActiveObservation(name, (root) =>
        propagateAttributes(
          {
            sessionId: attributes.sessionId,
            // A keyed hash of the customer id (the same on every instance), so per-customer views work without saying who it is.
            ...(attributes.userId !== null && { userId: config.capturePersonalData ? attributes.userId : pseudonymize(attributes.userId) }),
            tags: attributes.tags,
            metadata: attributes.metadata,
          },
          async () => {
            root.update({ input });
            try {
              return await fn(root, root.traceId);
            } catch (error) {
              root.update({ level: 'ERROR', statusMessage: errorMessage(error) });
              throw error;
            }
          },
        ),
      ),
    observe: (name, type, input, fn) =>
      startActiveObservation(
        name,
        async (observation: Observation) => {
          if (input !== undefined) observation.update({ input });
          try {
            return await fn(observation);
          } catch (error) {
            observation.update({ level: 'ERROR', statusMessage: errorMessage(error) });
            throw error;
          }
        },
        // One overload per type; the attributes all share the generation's shape.
        { asType: type as 'generation' },
      ),
    score: (score) => {
      try {
        client.score.create(score);
      } catch (error) {
        logger.warn({ err: error, score: score.name }, 'Could not queue a Langfuse score');
      }
    },
    flush: () => bounded('flush', () => Promise.all([provider.forceFlush(), client.flush()])),
    shutdown: async () => {
      await bounded('shutdown', () => Promise.all([provider.shutdown(), client.shutdown()]));
      setLangfuseTracerProvider(null);
      if (ownContextManager) context.disable();
    },
  };
}

function errorMessage(error: unknown): string {
  return error instanceof Error ? `${error.name}: ${error.message}` : String(error);
}
