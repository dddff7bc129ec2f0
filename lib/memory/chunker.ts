// Markdown-aware chunking: a document becomes pieces of about `size` characters
// that break at headings, then paragraphs, then lines, then sentences, then words,
// and only as a last resort mid-word, with `overlap` characters carried over so a
// fact that straddles a boundary is whole in one chunk. Terminates on any input:
// every step consumes at least one character.
export type ChunkOptions = { size?: number; overlap?: number };

export const CHUNK_SIZE = 2000;
export const CHUNK_OVERLAP = 200;

/** Break points, best first: a heading, a blank line, a line end, a sentence end, a space. */
const BREAKS: RegExp[] = [/\n(?=#{1,6}\s)/g, /\n\s*\n/g, /\n/g, /[.!?](?=\s)/g, /\s/g];

function bestBreak(text: string, start: number, end: number, min: number): number {
  const window = text.slice(start, end);
  for (const pattern of BREAKS) {
    let best = -1;
    pattern.lastIndex = 0;
    for (let match = pattern.exec(window); match; match = pattern.exec(window)) {
      const at = match.index + match[0].length;
      if (at >= min && at < window.length) best = at;
      if (match[0].length === 0) pattern.lastIndex += 1;
    }
    if (best > 0) return start + best;
  }
  return end;
}

/** Splits `text` into chunks; short text is one chunk. Empty text gives no chunks. */
export function chunkMarkdown(text: string, options: ChunkOptions = {}): string[] {
  const size = Math.max(50, options.size ?? CHUNK_SIZE);
  const overlap = Math.min(Math.max(0, options.overlap ?? CHUNK_OVERLAP), Math.floor(size / 4));
  const clean = text.replace(/\r\n?/g, "\n").trim();
  if (!clean) return [];
  if (clean.length <= size) return [clean];

  const chunks: string[] = [];
  let start = 0;
  while (start < clean.length) {
    const hardEnd = Math.min(start + size, clean.length);
    // Never break in the first half of a window: chunks stay near the target size.
    const end = hardEnd === clean.length ? hardEnd : bestBreak(clean, start, hardEnd, Math.floor(size / 2));
    const piece = clean.slice(start, end).trim();
    if (piece) chunks.push(piece);
    if (end >= clean.length) break;
    // Step back by the overlap, to a word boundary when there is one, but always forward.
    let next = end - overlap;
    const space = clean.indexOf(" ", next);
    if (space !== -1 && space < end) next = space + 1;
    start = Math.max(next, start + 1);
  }
  return chunks;
}
