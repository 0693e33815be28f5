# fish completion for ringfence(1): the commands, each command's options,
# policy and trace files, users and backends; after "--", the command to run.
# tests/build/check_cli_docs.py holds it to the command-line table
# (supervisor/cli/verbs.c): each option line names the commands that take it.

# names__backend_choice (lib/names.c): what --require/--prefer accept
set -l backends cgroup-sock-addr bpf-lsm landlock seccomp capabilities cgroup-v2-memory cgroup-v2-pids cgroup-v2-cpu supervisor tmpfs
set -l all run check lint learn probe status gc unload oci-hook oci-seccomp
# after "--" of run or learn: the command to run, completed as itself
set -l after_dashdash '__fish_seen_subcommand_from run learn; and contains -- -- (commandline -opc)'
set -l before_dashdash 'not contains -- -- (commandline -opc)'

complete -c ringfence -f

# the commands
complete -c ringfence -n __fish_use_subcommand -a run -d 'run CMD in a new sandbox under the policy'
complete -c ringfence -n __fish_use_subcommand -a check -d 'validate the policy and print the plan'
complete -c ringfence -n __fish_use_subcommand -a lint -d 'check policy files, no root, no kernel'
complete -c ringfence -n __fish_use_subcommand -a learn -d 'run CMD in audit mode and write a policy'
complete -c ringfence -n __fish_use_subcommand -a probe -d 'what this kernel can enforce (JSON)'
complete -c ringfence -n __fish_use_subcommand -a status -d 'the live sandboxes'
complete -c ringfence -n __fish_use_subcommand -a gc -d 'remove what killed supervisors left behind'
complete -c ringfence -n __fish_use_subcommand -a unload -d 'unpin the BPF programs'
complete -c ringfence -n __fish_use_subcommand -a oci-hook -d 'OCI runtime hook: confine a container'
complete -c ringfence -n __fish_use_subcommand -a oci-seccomp -d 'the syscalls allowlist as an OCI seccomp profile'

# before a command
complete -c ringfence -n __fish_use_subcommand -s h -l help -d 'show the usage'
complete -c ringfence -n __fish_use_subcommand -l version -d 'show the version'

# each option with the commands that take it
complete -c ringfence -n "__fish_seen_subcommand_from run check learn oci-seccomp; and $before_dashdash" -s p -l policy -r -F -d 'the JSON policy'
complete -c ringfence -n "__fish_seen_subcommand_from run; and $before_dashdash" -s t -l trace -r -F -d 'write the JSON-lines trace there'
complete -c ringfence -n "__fish_seen_subcommand_from run learn; and $before_dashdash" -s u -l user -x -a '(__fish_complete_users)' -d 'run CMD as this user'
complete -c ringfence -n "__fish_seen_subcommand_from run; and $before_dashdash" -l keep-running -d 'if ringfence is killed, CMD runs on, confined'
complete -c ringfence -n "__fish_seen_subcommand_from run check; and $before_dashdash" -l cgroup-parent -x -a '(__fish_complete_directories)' -d 'create the sandbox cgroup below this cgroup'
complete -c ringfence -n "__fish_seen_subcommand_from run; and $before_dashdash" -l label -x -d 'a correlation label KEY=VALUE'
complete -c ringfence -n "__fish_seen_subcommand_from run check; and $before_dashdash" -l require -x -a "$backends" -d 'refuse unless BACKEND enforces part of the policy'
complete -c ringfence -n "__fish_seen_subcommand_from run check; and $before_dashdash" -l prefer -x -a "$backends" -d 'use BACKEND where more than one could'
complete -c ringfence -n "__fish_seen_subcommand_from run check; and $before_dashdash" -l strict -d 'refuse a plan with known gaps'
complete -c ringfence -n "__fish_seen_subcommand_from run check; and $before_dashdash" -l no-observe -d 'watch no syscalls for this sandbox'
complete -c ringfence -n "__fish_seen_subcommand_from learn; and $before_dashdash" -l out -r -F -d 'write the policy there, not to stdout'
complete -c ringfence -n "__fish_seen_subcommand_from learn; and $before_dashdash" -l verify -d 'run CMD again under the learned policy'
complete -c ringfence -n "__fish_seen_subcommand_from learn; and $before_dashdash" -l wildcards -d 'learn names as *.DOMAIN:PORT'
complete -c ringfence -n "__fish_seen_subcommand_from status lint" -l json -d 'JSON instead of a table'
complete -c ringfence -n "__fish_seen_subcommand_from lint" -F
complete -c ringfence -n "__fish_seen_subcommand_from unload" -l force -d 'unpin also while sandboxes are live'
complete -c ringfence -n "__fish_seen_subcommand_from $all; and $before_dashdash" -s v -l verbose -d 'debug messages'
complete -c ringfence -n "__fish_seen_subcommand_from $all; and $before_dashdash" -s q -l quiet -d 'errors only'
complete -c ringfence -n "__fish_seen_subcommand_from $all; and $before_dashdash" -s h -l help -d 'show the usage'

complete -c ringfence -n $after_dashdash -x -a '(__fish_complete_subcommand --fcs-skip=2 -p --policy -t --trace -u --user --cgroup-parent --label --require --prefer --out)'
