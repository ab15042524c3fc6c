import { EventSourceParserStream } from "eventsource-parser/stream";

export interface SseMessage {
  id: string | undefined;
  event: string | undefined;
  data: string;
}

/** Reads a server-sent event stream (a fetch Response body) message by message. No server-only imports. */
export async function* readEventStream(body: ReadableStream<Uint8Array>): AsyncGenerator<SseMessage> {
  const reader = body
    .pipeThrough(new TextDecoderStream() as unknown as ReadableWritablePair<string, Uint8Array>)
    .pipeThrough(new EventSourceParserStream())
    .getReader();
  try {
    for (;;) {
      const { value, done } = await reader.read();
      if (done) return;
      yield { id: value.id, event: value.event, data: value.data };
    }
  } finally {
    reader.releaseLock();
  }
}
