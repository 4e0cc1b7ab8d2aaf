import { seedJailFiles } from '#simulator/commands/jail-seed-layout';
import { paramValue, paramValues, parseJailConf, renderJailConf, withManagedSection } from '#agent/drivers/jail-conf';
import { readJailParams } from '#simulator/commands/jail-conf-reader';
import { hookCommand, hookFileContent, jailFiles, limitsFileContent, managedLines } from '#agent/drivers/jail-layout';
import { HOOK_PHASES, type HookPhase } from '#shared/agent-api/jail-hooks';
import type { SimJail } from '#shared/seed/host/jail';

/**
 * The simulator lays out a seeded jail from the documented on-host layout, with none of the agent's code
 * (simulator/commands/jail-seed-layout.ts). This test holds the two together: the files a seeded jail gets are byte
 * for byte what the agent writes for the same jail, so a seeded host looks like one the agent configured.
 */
function agentFiles(j: SimJail, path: string): Record<string, string> {
  const files = jailFiles(j.ctid, j.name);
  const out: Record<string, string> = {};
  const wired: Partial<Record<HookPhase, string>> = {};
  for (const p of HOOK_PHASES) {
    const h = j.hooks?.[p];
    if (h && (h.enabled || h.script.trim())) out[files.hookFile(p)] = hookFileContent(h.script);
    if (!h?.enabled || !h.script.trim()) continue;
    try {
      wired[p] = hookCommand(files, p, h.script);
    } catch {
      // a #! line E3 refuses: laid out, not wired
    }
  }
  const limits = limitsFileContent(j.name, j.ctid, { cpuSet: j.cpuSet ?? [], memoryBytes: j.memoryBytes ?? 0 });
  if (limits) out[files.limits] = limits;
  const conf = renderJailConf({ ctid: j.ctid, name: j.name, hostname: j.hostname ?? j.name, path, dataset: j.dataset ?? null, ip4: j.ip4 });
  out[files.conf] = withManagedSection(conf, j.name, managedLines(files, wired, limits !== ''));
  return out;
}

const hook = (script: string, enabled = true) => ({ enabled, script });

test.each<[string, SimJail]>([
  ['a bare jail', { ctid: 101, name: 'web' } as SimJail],
  ['dataset, ip4, limits', { ctid: 102, name: 'db', dataset: 'zroot/jails/db', ip4: '192.0.2.10', cpuSet: [0, 2], memoryBytes: 2 ** 30 } as SimJail],
  [
    'every hook, one with a $ and a quote, one start hook without #!, one disabled',
    {
      ctid: 103,
      name: 'app',
      hostname: 'app.example',
      hooks: {
        prestart: hook('#!/bin/sh\necho "$HOME"\n'),
        start: hook('echo in jail\n'),
        poststart: hook('#!/usr/local/bin/bash -e\ntrue\n'),
        prestop: hook('#!/bin/sh\nexit 0\n', false),
        stop: hook('#!/bin/sh\nservice foo stop\n'),
        poststop: hook('#!/bin/sh\nlogger done\n'),
      },
      memoryBytes: 512 * 2 ** 20,
    } as SimJail,
  ],
])('%s: the seeded layout is what the agent writes', (_, j) => {
  const path = `/usr/local/jails/${j.name}`;
  const sim = Object.fromEntries(seedJailFiles(j, path).map((f) => [f.path, f.content]));
  expect(sim).toEqual(agentFiles(j, path));
});

describe("jail.conf: the simulated jail(8)'s reading and the agent's agree where jailparse.y decides", () => {
  // usr.sbin/jail/jailparse.y: `param: name | name '=' value | name PLEQ value | name value` (the operator may be
  // left out), `conf: … | conf ';'` and `param_l: … | param_l ';'` (empty statements). The agent's reader refused
  // both ("expected '=', '+=' or ';' after path"); jail(8) reads them.
  const text = 'web {\n\tpath "/jails/web";\n\thost.hostname web.example;\n\t;\n\texec.clean;\n};\n;\n';

  test('jail(8) (the simulator) reads the operator-less parameter and the empty statements', () => {
    const p = readJailParams(text, '/etc/jail.conf', 'web');
    if (typeof p === 'string') throw new Error(p);
    expect(p.get('path')).toEqual(['/jails/web']);
    expect(p.get('host.hostname')).toEqual(['web.example']);
  });

  test('so does the agent', () => {
    const conf = parseJailConf(text);
    expect(paramValue(conf, 'web', 'path')).toBe('/jails/web');
    expect(paramValue(conf, 'web', 'host.hostname')).toBe('web.example');
    expect(paramValues(conf, 'web', 'exec.clean')).toEqual([]);
    expect(conf.jails.map((j) => j.name)).toEqual(['web']);
  });
});
