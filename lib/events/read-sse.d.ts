export interface SseMessage {
    id: string | undefined;
    event: string | undefined;
    data: string;
}
/** Reads a server-sent event stream (a fetch Response body) message by message. No server-only imports. */
export declare function readEventStream(body: ReadableStream<Uint8Array>): AsyncGenerator<SseMessage>;
