#!/bin/bash
# Submits a sharded netlab experiment to Slurm (README "Many machines";
# docs/method.md §11.9; docs/scale.md §4): the array, one task per shard,
# and the merge job after it. Run it on a login node, from any folder:
#
#   /path/to/netlab/deploy/slurm/netlab-submit.sh EXPERIMENT.toml RESULTS N [run flags...]
#   /path/to/netlab/deploy/slurm/netlab-submit.sh --resubmit RESULTS K[,K...]
#
# RESULTS is a folder on storage every node sees. The submit:
# - checks the experiment with `orchestrator plan EXPERIMENT.toml --shards
#   N` first (no root needed): a broken file, an unknown key or more shards
#   than the plan has units exits 2 with the parser's message, before
#   RESULTS is made or anything is queued;
# - copies EXPERIMENT.toml to RESULTS/experiment.toml and submits that copy,
#   so every node reads the same bytes (a RESULTS that already holds one is
#   refused: use --resubmit, or another RESULTS);
# - records, in RESULTS/netlab.env, what the jobs need from the submitting
#   shell: NETLAB_BIN (the orchestrator they run) and NETLAB_SUBMIT (this
#   script, named in the merge's resubmit hint). The jobs, --resubmit and
#   the printed re-merge read it from there, so every command printed here
#   works as printed from a new login shell;
# - submits netlab-array.sbatch as --array=1-N and netlab-merge.sbatch with
#   --dependency=afterany on the array: the merge runs once every task has
#   ended, however it ended. It merges when every shard is complete and
#   otherwise refuses (exit 1), naming the missing shards and the
#   --resubmit command. (afterok would leave the merge pending for ever,
#   DependencyNeverSatisfied, after one failed task, even once that task
#   has been resubmitted and succeeded.) The merge is `merge --update`: run
#   again over unchanged shards it writes nothing; over changed ones it
#   replaces RESULTS/merged in one step and keeps the former result as
#   RESULTS/merged.previous;
# - runs every job with --chdir=RESULTS and writes every job's output under
#   RESULTS/logs/ (absolute paths): nothing lands in the submit folder;
# - records N and the run flags in RESULTS/submit.args and the job ids in
#   RESULTS/logs/jobs.txt, and prints the job ids and the commands to watch,
#   resubmit and merge again.
#
# --resubmit RESULTS K[,K...] submits those array tasks again (each finds its
# folder and resumes it: complete scenarios kept, the rest run; a shard
# already complete rewrites nothing) and a new merge after them and after
# every task of this RESULTS still queued; a merge of this RESULTS still
# pending is cancelled (the new one replaces it). No dependency is edited
# by hand.
#
# sbatch's own variables set both jobs' limits (SBATCH_TIMELIMIT,
# SBATCH_PARTITION, SBATCH_ACCOUNT, ...); NETLAB_BIN names the orchestrator
# the jobs run (e.g. "sudo -n /shared/bin/orchestrator"; default: the
# `orchestrator` on PATH, recorded by its absolute path).
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
self="$here/$(basename "${BASH_SOURCE[0]}")"
usage() {
  echo "usage: $0 EXPERIMENT.toml RESULTS N [run flags...]" >&2
  echo "       $0 --resubmit RESULTS K[,K...]" >&2
  exit 2
}
# The merge job names this script in its resubmit hint (sbatch passes the
# environment on; RESULTS/netlab.env records it for later jobs).
export NETLAB_SUBMIT="$self"

# The orchestrator the jobs run: NETLAB_BIN as given (it may be words,
# "sudo -n /shared/bin/orchestrator"), else `orchestrator` on PATH by its
# absolute path. Sets $bin; exits 2 when there is none.
choose_bin() {
  if [ -n "${NETLAB_BIN:-}" ]; then
    bin=$NETLAB_BIN
  elif bin=$(command -v orchestrator); then
    :
  else
    echo "$0: no orchestrator: set NETLAB_BIN to the orchestrator on storage every node sees (e.g. NETLAB_BIN=/shared/bin/orchestrator), or put it on PATH" >&2
    exit 2
  fi
}

# Exits 2 unless $bin runs here ($1 says where the value came from).
check_bin() {
  # shellcheck disable=SC2086
  if ! $bin --version >/dev/null 2>&1; then
    echo "$0: NETLAB_BIN is '$bin' ($1), which does not run here; set NETLAB_BIN to the orchestrator every node can run" >&2
    exit 2
  fi
}

# Writes RESULTS/netlab.env: one KEY=value per line, the value as is.
record_env() {
  case $bin$self in *$'\n'*)
    echo "$0: NETLAB_BIN or this script's path holds a newline" >&2
    exit 2
    ;;
  esac
  printf 'NETLAB_BIN=%s\nNETLAB_SUBMIT=%s\n' "$bin" "$self" >"$results/netlab.env"
}

# Submits the merge of RESULTS (N shards) after the jobs in $1 (a
# colon-separated list of job ids); prints its id.
submit_merge() {
  local after=$1
  local id
  id=$(sbatch --parsable --dependency="afterany:$after" --chdir="$results" \
    --output="$results/logs/merge-%j.out" \
    "$here/netlab-merge.sbatch" "$results" "$n")
  echo "${id%%;*}"
}

# Prints what to do next.
say_next() {
  local array=$1 merge=$2
  echo "watch:     squeue -j $array,$merge; tail -f $results/logs/shard-*.out"
  echo "           a task's folder: $results/shard-K-of-$n; the merge's log: $results/logs/merge-$merge.out"
  echo "resubmit:  $self --resubmit $results K[,K...]   # the tasks that failed: each resumes its folder, a new merge follows"
  echo "re-merge:  sbatch --chdir=$results --output=$results/logs/merge-%j.out $here/netlab-merge.sbatch $results $n   # writes nothing while the shards are unchanged"
  echo "result:    $results/merged (results.json, summary.md, index.html)"
}

if [ "${1:-}" = "--resubmit" ]; then
  [ "$#" -eq 3 ] || usage
  [ -d "$2" ] || {
    echo "$0: no folder $2" >&2
    exit 2
  }
  results=$(cd "$2" && pwd)
  ks=$3
  [ -f "$results/submit.args" ] && [ -f "$results/experiment.toml" ] || {
    echo "$0: $results was not made by $0 (no submit.args or experiment.toml)" >&2
    exit 2
  }
  # The jobs run the orchestrator recorded at submit; a RESULTS made
  # before it was recorded gets it recorded now.
  if [ -f "$results/netlab.env" ]; then
    recorded=$(sed -n 's/^NETLAB_BIN=//p' "$results/netlab.env" | head -n 1)
    if [ -n "${NETLAB_BIN:-}" ] && [ "$NETLAB_BIN" != "$recorded" ]; then
      echo "note: NETLAB_BIN here is '$NETLAB_BIN'; the jobs run the one recorded in $results/netlab.env, '$recorded' (edit that file to change it)" >&2
    fi
    bin=$recorded
    check_bin "recorded in $results/netlab.env"
  else
    choose_bin
    check_bin "from this shell"
    record_env
  fi
  mapfile -t saved <"$results/submit.args"
  n=${saved[0]}
  flags=("${saved[@]:1}")
  if ! [[ "$ks" =~ ^[0-9]+(,[0-9]+)*$ ]]; then
    echo "$0: shards must be numbers 1..$n separated by commas, not '$ks'" >&2
    exit 2
  fi
  IFS=, read -ra klist <<<"$ks"
  for k in "${klist[@]}"; do
    if [ "$k" -lt 1 ] || [ "$k" -gt "$n" ]; then
      echo "$0: shard $k is outside 1..$n" >&2
      exit 2
    fi
  done
  # Earlier jobs of this RESULTS: arrays still queued are waited for, a
  # merge still pending is replaced.
  after=()
  while read -r what id; do
    if [ -n "$(squeue -h -j "$id" -o %i 2>/dev/null || true)" ]; then
      case $what in
      array) after+=("$id") ;;
      merge)
        if [ -n "$(squeue -h -j "$id" -t PENDING -o %i 2>/dev/null || true)" ]; then
          scancel "$id"
          echo "cancelled the pending merge job $id (replaced below)"
        fi
        ;;
      esac
    fi
  done < <(awk '{print $1, $2}' "$results/logs/jobs.txt" 2>/dev/null || true)
  array=$(sbatch --parsable --array="$ks" --chdir="$results" \
    --output="$results/logs/shard-%a-job-%A_%a.out" \
    "$here/netlab-array.sbatch" "$results/experiment.toml" "$results" "$n" "${flags[@]}")
  array=${array%%;*}
  deps=$(printf '%s:' "${after[@]}" "$array")
  merge=$(submit_merge "${deps%:}")
  printf 'array %s %s\nmerge %s %s\n' "$array" "--array=$ks" "$merge" "after:${deps%:}" \
    >>"$results/logs/jobs.txt"
  echo "resubmitted shard(s) $ks of $n as array job $array; merge job $merge after ${deps%:}"
  say_next "$array" "$merge"
  exit 0
fi

[ "$#" -ge 3 ] || usage
experiment=$1
results_arg=$2
n=$3
shift 3
if ! [[ "$n" =~ ^[1-9][0-9]*$ ]]; then
  echo "$0: N must be a number of shards >= 1, not '$n'" >&2
  exit 2
fi
[ -f "$experiment" ] || {
  echo "$0: no experiment file $experiment" >&2
  exit 2
}
choose_bin
check_bin "from this shell"
# The experiment is checked before anything is made or queued: the
# plan's warnings are shown, a refusal (exit 2) stops the submit.
status=0
# shellcheck disable=SC2086
$bin plan "$experiment" --shards "$n" >/dev/null || status=$?
if [ "$status" -ne 0 ]; then
  echo "$0: $experiment was refused (above); nothing was submitted" >&2
  exit 2
fi
mkdir -p "$results_arg"
results=$(cd "$results_arg" && pwd)
if [ -e "$results/experiment.toml" ]; then
  echo "$0: $results already holds an experiment.toml: use --resubmit $results K,... to continue it, or another RESULTS" >&2
  exit 2
fi
mkdir -p "$results/logs"
cp "$experiment" "$results/experiment.toml"
printf '%s\n' "$n" "$@" >"$results/submit.args"
record_env
if ! array=$(sbatch --parsable --array="1-$n" --chdir="$results" \
  --output="$results/logs/shard-%a-job-%A_%a.out" \
  "$here/netlab-array.sbatch" "$results/experiment.toml" "$results" "$n" "$@"); then
  # Nothing was submitted: RESULTS is as free as before.
  rm -f "$results/experiment.toml" "$results/submit.args" "$results/netlab.env"
  echo "$0: sbatch refused the array (above); nothing was submitted" >&2
  exit 1
fi
array=${array%%;*}
merge=$(submit_merge "$array")
printf 'array %s %s\nmerge %s %s\n' "$array" "--array=1-$n" "$merge" "after:$array" \
  >"$results/logs/jobs.txt"
echo "submitted $experiment as $n shard(s) into $results (the copy $results/experiment.toml)"
echo "array job $array (tasks 1-$n); merge job $merge (runs once every task has ended: afterany)"
say_next "$array" "$merge"
