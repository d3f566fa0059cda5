/**
 * The `gco` command tree (commander, with @commander-js/extra-typings for typed options): the global
 * options, every command group, help with examples and global options, and usage errors that throw
 * (main.ts turns them into exit 2) instead of exiting.
 */
import { Command, Option, type CommandUnknownOpts } from '@commander-js/extra-typings';
import type { CommandKit } from './command-kit.js';
import { analyticsCommand } from './commands/analytics/index.js';
import { completionCommand } from './commands/completion.js';
import { costsCommand } from './commands/costs.js';
import { endpointsCommand } from './commands/endpoints.js';
import { healthCommand, policyCommand, statusCommand } from './commands/platform.js';
import { inferenceCommand } from './commands/inference/index.js';
import { jobsCommand } from './commands/jobs/index.js';
import { manifestsCommand } from './commands/manifests.js';
import { queueCommand } from './commands/queue/index.js';
import { templatesCommand } from './commands/templates/index.js';
import { webhooksCommand } from './commands/webhooks/index.js';
import type { CliIo } from './io.js';
import {
  DEFAULT_GLOBAL_REGION,
  DEFAULT_PROJECT,
  DEFAULT_TIMEOUT_SECONDS,
  durationIn,
  regionName,
} from './options.js';
import { OUTPUT_FORMATS } from './output-format.js';
import { VERSION } from './version.js';

const OVERVIEW = `
Examples:
  $ npm start                                   # the local platform, then in another shell:
  $ gco --local health
  $ gco --local jobs submit job.yaml --wait
  $ gco jobs list --all-regions                 # a deployed stage, found through CloudFormation
  $ gco --region us-east-1 queue stats
  $ gco jobs list -o name | xargs gco jobs get      # kind/name a line, as kubectl -o name
  $ gco jobs list --query "jobs[?status=='failed'].name"

Requests go to --api-url if given, else to the local platform with --local (GCO_LOCAL=1), else to the
stacks of --project in --global-region. Exit codes: 0 ok, 1 API error, 2 usage, 3 discovery/credentials.
Full reference: docs/cli.md.
`;

export function createProgram(io: CliIo, kit: CommandKit): Command {
  const program = new Command('gco')
    .description(
      'Command-line client of the gco platform: a deployed stage or the local platform (npm start).',
    )
    .version(VERSION, '-V, --version', 'print the version');
  for (const option of globalOptions()) program.addOption(option);
  program
    .configureHelp({ showGlobalOptions: true, sortSubcommands: false })
    .configureOutput({
      writeOut: (text) => io.stdout.write(text),
      writeErr: (text) => io.stderr.write(text),
    })
    .showHelpAfterError('(add --help for usage)')
    .exitOverride()
    .addHelpText('after', OVERVIEW);
  for (const group of commandGroups(kit)) program.addCommand(group);
  program.addCommand(completionCommand(program, io));
  inheritSettings(program);
  return program;
}

/**
 * The options every command takes, in help order (options.ts resolves them against the environment;
 * output-format.ts decides `-o`).
 */
function globalOptions(): Option[] {
  return [
    new Option('--local', 'use the local platform (.local/endpoints.json); also GCO_LOCAL=1'),
    new Option('--endpoints-file <path>', 'the local platform’s endpoints file (implies --local)'),
    new Option('--project <name>', `project name of the stacks (GCO_PROJECT, default ${DEFAULT_PROJECT})`),
    new Option(
      '--global-region <region>',
      `region of the global stack (GCO_GLOBAL_REGION, default ${DEFAULT_GLOBAL_REGION})`,
    ).argParser(regionName),
    new Option('--region <region>', 'send control-plane calls to this region’s regional API').argParser(
      regionName,
    ),
    new Option(
      '--analytics-region <region>',
      'region of the analytics stack (default: the global region)',
    ).argParser(regionName),
    new Option('--api-url <url>', 'call this API (base URL with stage) instead of discovering it'),
    new Option('--analytics-url <url>', 'call this analytics API (base URL with stage)'),
    new Option('--profile <name>', 'AWS profile for credentials (else the standard chain)'),
    new Option(
      '-o, --output <format>',
      'table (default, also in a pipe), wide (more columns), name (kind/name a line), json (the API’s body) or yaml',
    ).choices(OUTPUT_FORMATS),
    new Option(
      '--query <jmespath>',
      'select from the JSON answer with a JMESPath expression (as the AWS CLI), e.g. "jobs[].name"',
    ),
    new Option('-q, --quiet', 'no notes or progress; print only identifiers (a create prints the new id)'),
    new Option('-v, --verbose', 'log each request and answer on stderr'),
    new Option(
      '--timeout <duration>',
      `per-request timeout, e.g. 30s or 2m (default ${DEFAULT_TIMEOUT_SECONDS}s)`,
    ).argParser(durationIn(1, 3600)),
  ];
}

/** The command groups, in help order. */
function commandGroups(kit: CommandKit): CommandUnknownOpts[] {
  return [
    jobsCommand(kit),
    manifestsCommand(kit),
    queueCommand(kit),
    templatesCommand(kit),
    webhooksCommand(kit),
    costsCommand(kit),
    policyCommand(kit),
    statusCommand(kit),
    healthCommand(kit),
    inferenceCommand(kit),
    analyticsCommand(kit),
    endpointsCommand(kit),
  ];
}

/**
 * Commands built with `new Command()` and added with addCommand() do not inherit the program's output,
 * help and exit settings (only `.command()` children do), so they are copied down the tree here.
 */
function inheritSettings(parent: Command): void {
  for (const child of parent.commands as Command[]) {
    child.copyInheritedSettings(parent);
    inheritSettings(child);
  }
}
