/**
 * Test support (not built, not shipped): runs the `curl` lines the server prints and the docs show, with
 * fetch, so tests need no curl on the machine.
 */

/** Shell words: single- and double-quoted parts literal, adjacent parts joined, as printed lines and the docs write them. */
export function shellWords(line: string): string[] {
  const words: string[] = [];
  let word: string | null = null;
  for (let i = 0; i < line.length; i++) {
    const c = line[i]!;
    if (c === "'" || c === '"') {
      const end = line.indexOf(c, i + 1);
      word = (word ?? '') + line.slice(i + 1, end);
      i = end;
    } else if (c === ' ' || c === '\n' || c === '\t') {
      if (word !== null) words.push(word);
      word = null;
    } else word = (word ?? '') + c;
  }
  if (word !== null) words.push(word);
  return words;
}

/** Sends a curl command's words with fetch: -X, -H, -d, --data-urlencode, -s and the URL. */
export function curl(words: string[]): Promise<Response> {
  if (words[0] !== 'curl') throw new Error(`not a curl command: ${words.join(' ')}`);
  let method: string | undefined;
  const headers: Record<string, string> = {};
  const data: string[] = [];
  let url = '';
  for (let i = 1; i < words.length; i++) {
    const w = words[i]!;
    if (w === '-X') method = words[++i]!;
    else if (w === '-H') {
      const h = words[++i]!;
      headers[h.slice(0, h.indexOf(':')).trim()] = h.slice(h.indexOf(':') + 1).trim();
    } else if (w === '-d') data.push(words[++i]!);
    else if (w === '--data-urlencode') {
      const [name, ...value] = words[++i]!.split('=');
      data.push(`${name}=${encodeURIComponent(value.join('='))}`);
    } else if (w === '-s') continue;
    else url = w;
  }
  // As curl does: -d without a Content-Type sends a form.
  if (data.length > 0 && !Object.keys(headers).some((h) => h.toLowerCase() === 'content-type')) headers['Content-Type'] = 'application/x-www-form-urlencoded';
  return fetch(url, { method: method ?? (data.length > 0 ? 'POST' : 'GET'), headers, ...(data.length > 0 ? { body: data.join('&') } : {}) });
}

/** `curl` for one printed line. */
export const runCurl = (line: string): Promise<Response> => curl(shellWords(line.trim()));
