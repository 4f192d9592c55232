#!/bin/bash
# Submits a sharded netlab experiment to Slurm (issue 33; README "Many
# machines"; docs/method.md §11.9): the array, one task per shard, and the
# merge job after it. Run it on a login node, from any folder:
#
#   deploy/slurm/netlab-submit.sh EXPERIMENT.toml RESULTS N [run flags...]
#   deploy/slurm/netlab-submit.sh --resubmit RESULTS K[,K...]
#
# RESULTS is a folder on storage every node sees. The submit:
# - copies EXPERIMENT.toml to RESULTS/experiment.toml and submits that copy,
#   so every node reads the same bytes (a RESULTS that already holds one is
#   refused: use --resubmit, or another RESULTS);
# - submits netlab-array.sbatch as --array=1-N and netlab-merge.sbatch with
#   --dependency=afterany on the array: the merge runs once every task has
#   ended, however it ended. It merges when every shard is complete and
#   otherwise refuses (exit 1), naming the missing shards and the
#   --resubmit command. (afterok would leave the merge pending for ever,
#   DependencyNeverSatisfied, after one failed task, even once that task
#   has been resubmitted and succeeded.)
# - runs every job with --chdir=RESULTS and writes every job's output under
#   RESULTS/logs/ (absolute paths): nothing lands in the submit folder;
# - records N and the run flags in RESULTS/submit.args and the job ids in
#   RESULTS/logs/jobs.txt, and prints the job ids and the commands to watch,
#   resubmit and merge again.
#
# --resubmit RESULTS K[,K...] submits those array tasks again (each finds its
# folder and resumes it: complete scenarios kept, the rest run) and a new
# merge after them and after every task of this RESULTS still queued; a
# merge of this RESULTS still pending is cancelled (the new one replaces
# it). No dependency is edited by hand.
#
# sbatch's own variables set both jobs' limits (SBATCH_TIMELIMIT,
# SBATCH_PARTITION, SBATCH_ACCOUNT, ...); NETLAB_BIN names the orchestrator
# the jobs run (e.g. "sudo -n /shared/bin/orchestrator").
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
self="$here/$(basename "${BASH_SOURCE[0]}")"
usage() {
  echo "usage: $0 EXPERIMENT.toml RESULTS N [run flags...]" >&2
  echo "       $0 --resubmit RESULTS K[,K...]" >&2
  exit 2
}
# The merge job names this script in its resubmit hint (sbatch passes the
# environment on).
export NETLAB_SUBMIT="$self"

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
  echo "resubmit:  $self --resubmit $results K[,K...]   (tasks that failed; each resumes its folder, a new merge follows)"
  echo "re-merge:  rm -rf $results/merged && sbatch --chdir=$results --output=$results/logs/merge-%j.out $here/netlab-merge.sbatch $results $n"
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
mkdir -p "$results_arg"
results=$(cd "$results_arg" && pwd)
if [ -e "$results/experiment.toml" ]; then
  echo "$0: $results already holds an experiment.toml: use --resubmit $results K,... to continue it, or another RESULTS" >&2
  exit 2
fi
mkdir -p "$results/logs"
cp "$experiment" "$results/experiment.toml"
printf '%s\n' "$n" "$@" >"$results/submit.args"
if ! array=$(sbatch --parsable --array="1-$n" --chdir="$results" \
  --output="$results/logs/shard-%a-job-%A_%a.out" \
  "$here/netlab-array.sbatch" "$results/experiment.toml" "$results" "$n" "$@"); then
  # Nothing was submitted: RESULTS is as free as before.
  rm -f "$results/experiment.toml" "$results/submit.args"
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
