/**
 * Shell completion: the generated bash script, loaded into a real bash, completes subcommands, options
 * and option values from the command tree; the zsh script loads it through bashcompinit.
 */
import { execFileSync } from 'node:child_process';
import { beforeAll, expect, test } from '@jest/globals';
import { runGco } from './support/run-in-process.js';

let bashScript: string;

beforeAll(async () => {
  const result = await runGco(['completion', 'bash']);
  expect(result.code).toBe(0);
  bashScript = result.stdout;
});

/** What bash offers for the words typed so far (the last one being completed). */
function complete(...words: string[]): string[] {
  const script = `${bashScript}
COMP_WORDS=(${['gco', ...words].map((w) => `'${w}'`).join(' ')})
COMP_CWORD=${words.length}
_gco_complete
printf '%s\\n' "\${COMPREPLY[@]}"`;
  return execFileSync('bash', ['--norc', '--noprofile', '-c', script], { encoding: 'utf8' })
    .split('\n')
    .filter(Boolean);
}

test('subcommands at each level', () => {
  expect(complete('jo')).toEqual(['jobs']);
  expect(complete('jobs', 'su')).toEqual(['submit']);
  expect(complete('analytics', 'keys', 'di')).toEqual(['disable']);
  // Positional arguments and option values between commands do not confuse the path.
  expect(complete('--region', 'us-east-1', 'queue', 'st')).toEqual(['stats']);
});

test('options of the command, and the global ones', () => {
  expect(complete('jobs', 'submit', '--w')).toEqual(['--wait', '--wait-timeout']);
  expect(complete('jobs', 'submit', 'job.yaml', '--lo')).toEqual(['--local']);
});

test('values of options with choices', () => {
  expect(complete('-o', '')).toEqual(['table', 'json', 'yaml', 'wide', 'name']);
  expect(complete('jobs', 'list', '--status', 'su')).toEqual(['succeeded']);
  expect(complete('queue', 'list', '--status', 'c')).toEqual(['claimed', 'cancelled']);
});

test('zsh: the same completion through bashcompinit', async () => {
  const result = await runGco(['completion', 'zsh']);
  expect(result.stdout).toContain('autoload -U +X bashcompinit && bashcompinit');
  expect(result.stdout).toContain('complete -o default -F _gco_complete gco');
});
