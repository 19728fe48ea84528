import net from 'node:net';

export interface RawResponse { status: number; headers: Record<string, string>; body: any; text: string }

/** Parses the HTTP/1.1 responses in `data`, in order (each with a content-length, as this service sends). */
export function parseResponses(data: Buffer): RawResponse[] {
  const out: RawResponse[] = [];
  let at = 0;
  while (at < data.length) {
    const end = data.indexOf('\r\n\r\n', at);
    if (end < 0) throw new Error(`incomplete response head: ${JSON.stringify(data.subarray(at).toString('latin1').slice(0, 200))}`);
    const [statusLine, ...lines] = data.subarray(at, end).toString('latin1').split('\r\n');
    const headers: Record<string, string> = {};
    for (const l of lines) {
      const i = l.indexOf(':');
      headers[l.slice(0, i).trim().toLowerCase()] = l.slice(i + 1).trim();
    }
    const length = Number(headers['content-length'] ?? 0);
    const text = data.subarray(end + 4, end + 4 + length).toString('utf8');
    let body: any = text;
    try { body = text ? JSON.parse(text) : null; } catch { /* not JSON: the caller's check says so */ }
    out.push({ status: Number(statusLine.split(' ')[1]), headers, body, text });
    at = end + 4 + length;
  }
  return out;
}

/**
 * Writes `chunks` to a fresh connection (each after the previous one's answers arrived, when `waitFor` gives
 * how many answers to wait for before the next chunk) and collects everything until the server closes the
 * connection. `closed` says whether the server closed it (rather than the timeout).
 */
export function exchange(port: number, chunks: Array<string | Buffer>, opts: { waitFor?: number[]; timeoutMs?: number } = {}): Promise<{ responses: RawResponse[]; closed: boolean; error: string | null }> {
  return new Promise((resolve) => {
    const socket = net.connect(port, '127.0.0.1');
    const received: Buffer[] = [];
    let error: string | null = null;
    let closed = false;
    let next = 0;
    const count = () => (Buffer.concat(received).toString('latin1').match(/^HTTP\/1\.1 /gm) ?? []).length;
    const writeNext = () => {
      while (next < chunks.length) {
        const need = opts.waitFor?.[next] ?? 0;
        if (count() < need) return;
        socket.write(chunks[next++]);
      }
    };
    socket.on('connect', writeNext);
    socket.on('data', (d) => { received.push(d); writeNext(); });
    socket.on('error', (e: NodeJS.ErrnoException) => { error = e.code ?? e.message; });
    socket.on('end', () => { closed = true; socket.end(); });
    const timer = setTimeout(() => socket.destroy(), opts.timeoutMs ?? 5000);
    socket.on('close', () => {
      clearTimeout(timer);
      resolve({ responses: parseResponses(Buffer.concat(received)), closed, error });
    });
  });
}

export const request = (method: string, path: string, headers: Record<string, string> = {}, body?: string) => {
  const h = { host: '127.0.0.1', ...headers, ...(body !== undefined ? { 'content-length': String(Buffer.byteLength(body)) } : {}) };
  return `${method} ${path} HTTP/1.1\r\n${Object.entries(h).map(([k, v]) => `${k}: ${v}\r\n`).join('')}\r\n${body ?? ''}`;
};
