import { AIMessageChunk, type BaseMessage } from '@langchain/core/messages';
import type { SupportGraph } from '../agent/graph';
import type { SupportStateType } from '../agent/state';
import type { ConversationIdentity } from '../agent/tools/conversation-customer';
import { documentsFoundBySearch } from '../agent/tools/search-knowledge-base';
import type { RetrievedDocument } from '../store/types';
import { AnswerPieces } from './answer-pieces';
import type { AnswerListener, SourceReference } from './answer-types';

/**
 * Runs the graph, reporting each node as it finishes (`onNodeDone`, for the
 * stage timings: the nodes run one after another, so the time between two
 * updates is the later node's). With a listener it also streams: the sources
 * once retrieval is done (again after a knowledge search adds some), then the
 * text pieces of the answering node's model calls (the summarizer's, in
 * apply_memory, never leak). Returns the final state, like invoke, and the text streamed.
 */
export async function streamGraph(
  graph: SupportGraph,
  input: Parameters<SupportGraph['invoke']>[0],
  runConfig: { signal?: AbortSignal; configurable: { identity: ConversationIdentity } },
  listener: AnswerListener | undefined,
  startedAt: number,
  onNodeDone: (node: string) => void,
) {
  let timeToFirstTokenMs: number | null = null;
  const pieces = new AnswerPieces();
  const sourceDocuments: RetrievedDocument[] = [];
  let result: SupportStateType | undefined;
  const streamMode = listener ? (['messages', 'updates', 'values'] as const) : (['updates', 'values'] as const);
  const stream = await graph.stream(input, { ...runConfig, streamMode: [...streamMode] });
  for await (const [mode, chunk] of stream) {
    if (mode === 'values') {
      result = chunk as SupportStateType;
    } else if (mode === 'updates') {
      const update = chunk as Record<string, Partial<SupportStateType>>;
      for (const node of Object.keys(update)) onNodeDone(node);
      // Sources as they are found: the graph's retrieval, then each knowledge search.
      const found = [...(update['retrieve']?.retrieved_documents ?? []), ...documentsFoundBySearch(update['tools']?.messages ?? [])];
      if (update['retrieve'] || found.length > 0) {
        sourceDocuments.push(...found);
        listener?.onSources?.(citedSources(sourceDocuments));
      }
    } else if (listener && mode === 'messages') {
      const [message, metadata] = chunk as [BaseMessage, { langgraph_node?: string; langgraph_step?: number }];
      if (metadata.langgraph_node !== 'generate_response' || !AIMessageChunk.isInstance(message)) continue;
      // Each run of the node is one model call (a tool round, then the answer).
      const piece = pieces.next(metadata.langgraph_step, message.text);
      if (piece === '') continue;
      timeToFirstTokenMs ??= Math.round(performance.now() - startedAt);
      listener.onToken?.(piece);
    }
  }
  if (!result) throw new Error('The graph stream ended without a final state');
  // What the judge adds after the model's words (the hand-over sentence) streams after this (ChatService).
  return { result, timeToFirstTokenMs, streamedText: pieces.text };
}

/** One entry per document (its best chunk's score, and that chunk's url and page when it has them), most similar first. */
export function citedSources(documents: RetrievedDocument[]): SourceReference[] {
  const bySource = new Map<string, SourceReference>();
  for (const d of documents) {
    if (bySource.has(d.source)) continue;
    const { url, page } = d.metadata;
    bySource.set(d.source, {
      title: d.title,
      source: d.source,
      score: round(d.similarity),
      ...(typeof url === 'string' && url !== '' && { url }),
      ...(Number.isInteger(page) && (page as number) > 0 && { page: page as number }),
    });
  }
  return [...bySource.values()];
}

export function round(value: number): number {
  return Math.round(value * 1000) / 1000;
}
