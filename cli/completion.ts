/**
 * Shell completion scripts generated from the command tree itself, so they always match the commands:
 * subcommands, options, and the allowed values of options with choices. Static (no call back into gco
 * on every Tab); zsh uses the same function through bashcompinit.
 */
import type { CommandUnknownOpts, Option } from '@commander-js/extra-typings';

interface Node {
  /** Space-separated subcommand path below the program, '' for the program itself. */
  path: string;
  words: string[];
  choices: [flags: string[], values: string[]][];
}

function optionFlags(option: Option): string[] {
  return [option.short, option.long].filter((f): f is string => typeof f === 'string');
}

function nodes(cmd: CommandUnknownOpts, path: string, inherited: readonly Option[]): Node[] {
  const options = [...cmd.options, ...inherited];
  const children = cmd.commands.filter((c) => c.name() !== 'help');
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
  const paths = all.map((n) => n.path).filter((p) => p !== '');
  return `# ${name} completion (bash). Load it with: source <(${name} completion bash)
${fn}() {
  local cur prev path="" words="" i w
  cur="\${COMP_WORDS[COMP_CWORD]}"
  prev="\${COMP_WORDS[COMP_CWORD-1]}"
  for ((i = 1; i < COMP_CWORD; i++)); do
    w="\${COMP_WORDS[i]}"
    case "$w" in -*) continue ;; esac
    case " \${path:+$path }$w" in
${paths.map((p) => `      ${quote(` ${p}`)}) path=${quote(p)} ;;`).join('\n')}
    esac
  done
  case "$path|$prev" in
${choiceCases}
  esac
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
