import { registerCommand } from '../registry.ts';
import { run } from '../shell.ts';

/** sh(1) as a command of the host: the simulator's small sh (../shell.ts), e.g. `sh -c …` or a script on stdin. */
registerCommand('sh', (ctx) => run({ state: ctx.state, now: ctx.now, root: '/' }, ['sh', ...ctx.args], ctx.stdin));
