/**
 * A secret read from standard input. On a terminal the prompt goes to stderr and what is typed is not echoed
 * (raw mode: the characters are taken one by one, Enter ends, Backspace erases, Ctrl-C or Ctrl-D gives up);
 * from a pipe (`hostmgr login URL < token-file`) the first line is taken. Either way the secret is never an
 * argument, so it shows neither in `ps` nor in the shell's history.
 */
export async function readSecret(prompt: string, stdin: NodeJS.ReadStream, stderr: NodeJS.WritableStream): Promise<string | undefined> {
  if (!stdin.isTTY) return firstLine(stdin);
  // echo off before the prompt shows: what is typed after it is never echoed by the terminal
  stdin.setRawMode(true);
  stderr.write(prompt);
  stdin.setEncoding('utf8');
  stdin.resume();
  try {
    return await new Promise<string | undefined>((resolve) => {
      let typed = '';
      const onData = (chunk: string) => {
        for (const c of chunk) {
          if (c === '\r' || c === '\n') return done(typed.trim() || undefined);
          if (c === '\u0003' || c === '\u0004') return done(undefined);
          if (c === '\u007f' || c === '\b') typed = typed.slice(0, -1);
          else if (c >= ' ') typed += c;
        }
      };
      const done = (value: string | undefined) => {
        stdin.off('data', onData);
        resolve(value);
      };
      stdin.on('data', onData);
    });
  } finally {
    stdin.setRawMode(false);
    stdin.pause();
    stderr.write('\n');
  }
}

async function firstLine(stdin: NodeJS.ReadableStream): Promise<string | undefined> {
  let text = '';
  for await (const chunk of stdin) {
    text += chunk;
    if (text.includes('\n')) break;
  }
  return text.split('\n')[0].trim() || undefined;
}
