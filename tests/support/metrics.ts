/** A metric's value as the service's GET /metrics shows it: the first series with these labels (0 when there is none yet). */
export async function metric(service: { baseURL: string }, name: string, labels: Record<string, string> = {}): Promise<number> {
  const text = await (await fetch(`${service.baseURL}/metrics`)).text();
  for (const line of text.split('\n')) {
    const match = /^([a-zA-Z_:][\w:]*)(?:\{(.*)\})? (\S+)$/.exec(line);
    if (!match || match[1] !== name) continue;
    const found = Object.fromEntries([...(match[2] ?? '').matchAll(/(\w+)="([^"]*)"/g)].map((m) => [m[1], m[2]]));
    if (Object.entries(labels).every(([k, v]) => found[k] === v)) return Number(match[3]);
  }
  return 0;
}
