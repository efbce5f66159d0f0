#!/bin/sh
# reach GAME as one process and with --jobs 2 split by transition clusters, one after the
# other, each keeping its layers in a directory (--resume DIR): wall and CPU (/usr/bin/time -v),
# the JSON reports, the load before and after each run, and the layer files compared with cmp.
#   scripts/reach_split_bench.sh BIN GAME OUTPREFIX WORKDIR
# Runs: single (defaults: 2 clusters on Connect Four, one per turn), single_cn0 (one cluster
# per joint move), jobs2_clusters_cn0 (--jobs 2 --split clusters --cluster-nodes 0),
# jobs2_auto (--jobs 2, the default split: by clusters when the game has 2 clusters).
set -u
bin=$1; game=$2; out=$3; work=$4
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
run single
run jobs2_clusters_cn0 --jobs 2 --split clusters --cluster-nodes 0
run single_cn0 --cluster-nodes 0
run jobs2_auto --jobs 2
for other in jobs2_clusters_cn0 single_cn0 jobs2_auto; do
    same=0; differ=0
    for f in "$work/single"/reach-*.layer; do
        if cmp -s "$f" "$work/$other/$(basename "$f")"; then same=$((same + 1)); else differ=$((differ + 1)); fi
    done
    n2=$(ls "$work/$other"/reach-*.layer | wc -l)
    echo "layer files $other: $same equal, $differ different (single has $((same + differ)), $other has $n2)" >> "$load"
done
cat "$load"
grep -H "Elapsed\|User time\|System time\|Maximum resident" "$out".*.time
