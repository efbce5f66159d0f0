#!/bin/sh
# reach GAME with --jobs N against one process, one after the other, both keeping their layers
# in a directory (--resume DIR): wall and CPU (/usr/bin/time -v), the JSON reports, the load
# before and after each run, and the layer files compared with cmp.
#   scripts/reach_slices_bench.sh BIN GAME OUTPREFIX WORKDIR [JOBS] [extra reach flags...]
set -u
bin=$1; game=$2; out=$3; work=$4; jobs=${5:-2}
shift 5 2>/dev/null || shift $#
load="$out.load.txt"
: > "$load"
run() {
    name=$1; shift
    rm -rf "$work/$name"
    echo "$name start: $(uptime)" >> "$load"
    /usr/bin/time -v -o "$out.$name.time" "$bin" reach "$game" --resume "$work/$name" --json "$@" \
        > "$out.$name.json" 2> "$out.$name.err"
    echo "$name exit $?" >> "$load"
    echo "$name end: $(uptime)" >> "$load"
}
run single "$@"
run jobs$jobs --jobs "$jobs" "$@"
same=0; differ=0
for f in "$work/single"/reach-*.layer; do
    if cmp -s "$f" "$work/jobs$jobs/$(basename "$f")"; then same=$((same + 1)); else differ=$((differ + 1)); fi
done
n2=$(ls "$work/jobs$jobs"/reach-*.layer | wc -l)
echo "layer files: $same equal, $differ different (single has $((same + differ)), jobs$jobs has $n2)" >> "$load"
cat "$load"
grep -h "Elapsed\|User time\|System time\|Maximum resident" "$out".*.time
