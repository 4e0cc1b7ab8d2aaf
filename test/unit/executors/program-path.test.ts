import { chmodSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { LocalExecutor } from '#agent/executors/local';
import { programPath } from '#agent/executors/program-path';
import { parseConfig } from '#agent/runtime/config';

const RC = '/sbin:/bin:/usr/sbin:/usr/bin';

test('programPath adds the package directories to an rc.d service PATH, once; HM_AGENT_PATH replaces it', () => {
  expect(programPath(undefined, RC)).toBe(`${RC}:/usr/local/sbin:/usr/local/bin`);
  expect(programPath(undefined, '/usr/local/bin:/usr/bin')).toBe('/usr/local/bin:/usr/bin:/usr/local/sbin');
  expect(programPath(undefined, undefined)).toBe(`${RC}:/usr/local/sbin:/usr/local/bin`);
  expect(programPath('/opt/bin:/usr/bin', RC)).toBe('/opt/bin:/usr/bin');
});

test('the local executor runs children with /usr/local/{sbin,bin} on PATH whatever it inherited', async () => {
  const exec = new LocalExecutor({ env: { PATH: '/usr/bin:/bin' } });
  const res = await exec.run(['env']);
  expect(res.code).toBe(0);
  expect(res.stdout).toMatch(/^PATH=\/usr\/bin:\/bin:\/usr\/local\/sbin:\/usr\/local\/bin$/m);
});

test('the local executor finds a bare program through --path (HM_AGENT_PATH); not found is 127 "<name>: not found"', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'hm-path-'));
  try {
    writeFileSync(join(dir, 'hm-probe-prog'), '#!/bin/sh\necho found\n');
    chmodSync(join(dir, 'hm-probe-prog'), 0o755);
    const cfg = parseConfig(['--api-url', 'http://x/api', '--token', 't', '--path', `${dir}:/usr/bin:/bin`], {}, () => '')!;
    expect(cfg.programPath).toBe(`${dir}:/usr/bin:/bin`);
    expect(await new LocalExecutor({ env: { PATH: '/usr/bin:/bin' }, path: cfg.programPath }).run(['hm-probe-prog'])).toEqual({
      code: 0,
      stdout: 'found\n',
      stderr: '',
    });
    expect(await new LocalExecutor({ env: { PATH: '/usr/bin:/bin' } }).run(['hm-probe-prog'])).toEqual({
      code: 127,
      stdout: '',
      stderr: 'hm-probe-prog: not found\n',
    });
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('--path must be absolute directories', () => {
  expect(() => parseConfig(['--api-url', 'http://x/api', '--token', 't', '--path', 'bin:/usr/bin'], {}, () => '')).toThrow(
    /--path \(HM_AGENT_PATH\): must be absolute/,
  );
});
