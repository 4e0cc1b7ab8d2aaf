/**
 * Splits a command line as sh(1) would for the words the agent's SSH executor sends (agent/executors/quote.ts:
 * bare words of safe characters, single-quoted words, `'\''` for a quote). Anything a shell would expand or
 * interpret (unquoted $, `, |, ;, &, <, >, *, ?, ~, (, ), double quotes) is refused rather than guessed at.
 */
export function shSplit(line: string): string[] {
  const words: string[] = [];
  let word: string | null = null;
  for (let i = 0; i < line.length; i++) {
    const c = line[i];
    if (c === ' ' || c === '\t' || c === '\n') {
      if (word !== null) words.push(word);
      word = null;
    } else if (c === "'") {
      const end = line.indexOf("'", i + 1);
      if (end < 0) throw new Error('unterminated single quote');
      word = (word ?? '') + line.slice(i + 1, end);
      i = end;
    } else if (c === '\\' && i + 1 < line.length) {
      word = (word ?? '') + line[++i];
    } else if (/[$`|;&<>*?~()"{}[\]#]/.test(c)) {
      throw new Error(`unsupported shell syntax "${c}" at ${i}`);
    } else {
      word = (word ?? '') + c;
    }
  }
  if (word !== null) words.push(word);
  return words;
}
