/**
 * Shell completion scripts generated from the command tree itself, so they always match the commands:
 * subcommands, options, and the allowed values of options with choices — static, no call back into gco.
 * Where a command's first argument names something on the platform (a job, endpoint, template, webhook,
 * application), Tab asks the API through `gco completion __names` (completion-names.ts) with the global
 * options typed so far, and never falls back to file names there. zsh uses the same function through
 * bashcompinit.
 */
import type { CommandUnknownOpts, Option } from '@commander-js/extra-typings';
import type { NamedResource } from './completion-names.js';

/** The commands whose first argument is the name of a platform resource. */
const NAME_ARGUMENTS: Readonly<Record<NamedResource, readonly string[]>> = {
  job: ['get', 'events', 'pods', 'metrics', 'logs', 'pod-logs', 'retry', 'delete'].map((v) => `jobs ${v}`),
  'queued-job': ['get', 'logs', 'cancel'].map((v) => `queue ${v}`),
  endpoint: [
    'status',
    'scale',
    'update-image',
    'canary',
    'promote',
    'rollback',
    'stop',
    'start',
    'delete',
    'invoke',
  ].map((v) => `inference ${v}`),
  template: ['get', 'delete', 'run'].map((v) => `templates ${v}`),
  webhook: ['webhooks delete'],
  application: [
    'analytics apps get',
    'analytics apps delete',
    'analytics send',
    ...['create', 'list', 'get', 'enable', 'disable', 'delete'].map((v) => `analytics keys ${v}`),
  ],
};

/** Global options passed on to the names lookup, so it asks the same platform as the command would. */
const FORWARDED_GLOBALS = [
  '--local',
  '--endpoints-file',
  '--project',
  '--global-region',
  '--region',
  '--analytics-region',
  '--api-url',
  '--analytics-url',
  '--profile',
];

interface Node {
  /** Space-separated subcommand path below the program, '' for the program itself. */
  path: string;
  words: string[];
  choices: [flags: string[], values: string[]][];
}

function optionFlags(option: Option): string[] {
  return [option.short, option.long].filter((f): f is string => typeof f === 'string');
}

/** Hidden helpers (`__names`) are not offered. */
const visible = (cmd: CommandUnknownOpts) => cmd.name() !== 'help' && !cmd.name().startsWith('__');

function nodes(cmd: CommandUnknownOpts, path: string, inherited: readonly Option[]): Node[] {
  const options = [...cmd.options, ...inherited];
  const children = cmd.commands.filter(visible);
  const node: Node = {
    path,
    words: [...children.map((c) => c.name()), ...options.flatMap(optionFlags), '--help'],
    choices: options
      .filter((o) => Array.isArray(o.argChoices) && o.argChoices.length > 0)
      .map((o) => [optionFlags(o), [...(o.argChoices ?? [])]]),
  };
  return [
    node,
    ...children.flatMap((c) =>
      nodes(c, path === '' ? c.name() : `${path} ${c.name()}`, inherited.length > 0 ? inherited : options),
    ),
  ];
}

/** Every flag that takes a value (its next word is not an argument). */
function valueFlags(cmd: CommandUnknownOpts): Set<string> {
  const flags = new Set(cmd.options.filter((o) => o.required || o.optional).flatMap((o) => optionFlags(o)));
  for (const child of cmd.commands) for (const flag of valueFlags(child)) flags.add(flag);
  return flags;
}

const quote = (s: string) => `'${s.replace(/'/g, `'\\''`)}'`;

export function bashCompletion(program: CommandUnknownOpts): string {
  const name = program.name();
  const fn = `_${name.replace(/[^A-Za-z0-9_]/g, '_')}_complete`;
  const all = nodes(program, '', []);
  const wordCases = all.map((n) => `    ${quote(n.path)}) words=${quote(n.words.join(' '))} ;;`).join('\n');
  const choiceCases = all
    .flatMap((n) =>
      n.choices.map(
        ([flags, values]) =>
          `    ${flags.map((f) => quote(`${n.path}|${f}`)).join('|')}) words=${quote(values.join(' '))} ;;`,
      ),
    )
    .join('\n');
  const resourceCases = Object.entries(NAME_ARGUMENTS)
    .map(([resource, paths]) => `    ${paths.map(quote).join('|')}) resource=${resource} ;;`)
    .join('\n');
  const paths = all.map((n) => n.path).filter((p) => p !== '');
  return `# ${name} completion (bash). Load it with: source <(${name} completion bash)
${fn}() {
  local cur prev path="" words="" resource="" i w args=0 skip=0 ns=""
  local -a globals=()
  cur="\${COMP_WORDS[COMP_CWORD]}"
  prev="\${COMP_WORDS[COMP_CWORD-1]}"
  for ((i = 1; i < COMP_CWORD; i++)); do
    w="\${COMP_WORDS[i]}"
    if ((skip)); then skip=0; continue; fi
    case " ${FORWARDED_GLOBALS.join(' ')} " in
      *" $w "*) globals+=("$w"); [[ "$w" != --local ]] && globals+=("\${COMP_WORDS[i+1]}") ;;
    esac
    case "$w" in -n|--namespace) ns="\${COMP_WORDS[i+1]}" ;; esac
    case " ${[...valueFlags(program)].join(' ')} " in *" $w "*) skip=1; continue ;; esac
    case "$w" in -*) continue ;; esac
    case " \${path:+$path }$w" in
${paths.map((p) => `      ${quote(` ${p}`)}) path=${quote(p)}; continue ;;`).join('\n')}
    esac
    args=$((args + 1))
  done
  case "$path|$prev" in
${choiceCases}
  esac
  if [[ -z "$words" && $args -eq 0 && "$cur" != -* && "$prev" != -* ]]; then
    case "$path" in
${resourceCases}
    esac
    if [[ -n "$resource" ]]; then
      # Names from the API; where a name belongs, never file names.
      compopt +o default 2>/dev/null
      words="$("\${COMP_WORDS[0]}" "\${globals[@]}" completion __names "$resource" \${ns:+-n "$ns"} 2>/dev/null)"
      COMPREPLY=($(compgen -W "$words" -- "$cur"))
      return 0
    fi
  fi
  if [[ -z "$words" ]]; then
    case "$path" in
${wordCases}
    esac
  fi
  COMPREPLY=($(compgen -W "$words" -- "$cur"))
}
complete -o default -F ${fn} ${name}
`;
}

export function zshCompletion(program: CommandUnknownOpts): string {
  const name = program.name();
  return `# ${name} completion (zsh). Load it with: source <(${name} completion zsh)
autoload -U +X compinit && compinit
autoload -U +X bashcompinit && bashcompinit
${bashCompletion(program).split('\n').slice(1).join('\n')}`;
}
