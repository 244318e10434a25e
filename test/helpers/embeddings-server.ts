/**
 * A loopback embeddings server for the HttpEmbedder tests: it records every request (path,
 * headers, body, the `input` texts) and answers through a handler the test swaps at will, so a
 * test can make it misbehave (wrong indices, redirects, endless or compressed bodies). It listens
 * on 127.0.0.1 only, on a port of its own (a second server is another origin), and `close()`
 * drops every open connection.
 */
import { createHash } from 'node:crypto';
import { createServer, type IncomingHttpHeaders, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

/** One request as the server saw it. */
export interface SeenRequest {
  readonly method: string;
  readonly path: string;
  readonly headers: IncomingHttpHeaders;
  readonly body: string;
  /** The request's `input` texts, or `[]` when the body holds none. */
  readonly input: string[];
}

/** Answers one request. */
export type Handler = (request: SeenRequest, res: ServerResponse) => void | Promise<void>;

/** A running server. */
export interface EmbeddingsServer {
  /** `http://127.0.0.1:PORT` */
  readonly origin: string;
  /** `http://127.0.0.1:PORT/v1`, the `baseURL` to give HttpEmbedder. */
  readonly baseURL: string;
  /** Every request received, in order. */
  readonly received: SeenRequest[];
  handler: Handler;
  close(): Promise<void>;
}

/** The vector the server gives `text`: `dimensions` numbers from its SHA-256, so a test can tell whose vector it got. */
export function vectorOf(text: string, dimensions = 8): number[] {
  const out: number[] = [];
  for (let block = 0; out.length < dimensions; block++) {
    const h = createHash('sha256').update(`${block}\0${text}`).digest();
    for (let i = 0; i + 2 <= h.length && out.length < dimensions; i += 2) out.push(h.readInt16BE(i) / 32768);
  }
  return out;
}

/** A well-formed OpenAI answer for `input`, items in the given order (default: as sent). */
export function answer(input: readonly string[], dimensions = 8, order: readonly number[] = input.map((_, i) => i)): string {
  return JSON.stringify({ object: 'list', model: 'test', data: order.map((i) => ({ object: 'embedding', index: i, embedding: vectorOf(input[i]!, dimensions) })) });
}

/** The default handler: a correct answer of 8 dimensions. */
export const correct: Handler = (request, res) => void res.writeHead(200, { 'content-type': 'application/json' }).end(answer(request.input));

/** Starts a server on 127.0.0.1 with `handler` (default {@link correct}). */
export async function startEmbeddingsServer(handler: Handler = correct): Promise<EmbeddingsServer> {
  const received: SeenRequest[] = [];
  const state: EmbeddingsServer = {
    origin: '',
    baseURL: '',
    received,
    handler,
    close: async () => {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
  const server = createServer((req, res) => {
    void (async () => {
      const chunks: Buffer[] = [];
      let size = 0;
      for await (const c of req) {
        size += (c as Buffer).length;
        if (size > 4 << 20) return void res.destroy(); // a test client never sends this much
        chunks.push(c as Buffer);
      }
      const body = Buffer.concat(chunks).toString('utf8');
      let input: string[] = [];
      try {
        const parsed = JSON.parse(body) as { input?: unknown };
        if (Array.isArray(parsed.input)) input = parsed.input.map(String);
      } catch {
        // not JSON: input stays empty
      }
      const request: SeenRequest = { method: req.method ?? '', path: req.url ?? '', headers: req.headers, body, input };
      received.push(request);
      await state.handler(request, res);
    })().catch(() => res.destroy());
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return Object.assign(state, { origin, baseURL: `${origin}/v1` });
}

/**
 * Writes `chunk` again and again, honouring backpressure, until `total` bytes are out (or for
 * ever when `total` is Infinity) or the client goes away.
 */
export async function writeRepeatedly(res: ServerResponse, chunk: Buffer, total = Number.POSITIVE_INFINITY): Promise<void> {
  let sent = 0;
  while (sent < total && !res.destroyed) {
    const piece = total - sent >= chunk.length ? chunk : chunk.subarray(0, total - sent);
    sent += piece.length;
    if (!res.write(piece)) {
      await new Promise<void>((resolve) => {
        const done = (): void => {
          res.off('drain', done);
          res.off('close', done);
          resolve();
        };
        res.on('drain', done);
        res.on('close', done);
      });
    }
  }
  if (!res.destroyed) res.end();
}
