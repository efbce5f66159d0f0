#!/bin/sh
# reach GAME once per run, one after the other, each keeping its layers in a directory
# (--resume DIR): wall and CPU (/usr/bin/time -v), the JSON reports, the load before and after
# each run, and every run's layer files compared with the first run's (cmp).
#   scripts/reach_slices_bench.sh BIN GAME OUTPREFIX WORKDIR NAME=FLAGS...
# e.g. (docs/distributed.md, "Forward layers"):
#   scripts/reach_slices_bench.sh target/release/symgame gdl/connect4_6x5.kif docs/bench/x /tmp/w \
#     single= 'jobs2=--jobs 2' 'jobs2_clusters_cn0=--jobs 2 --split clusters --cluster-nodes 0'
set -u
bin=$1; game=$2; out=$3; work=$4
shift 4
load="$out.load.txt"
: > "$load"
first=""
for spec in "$@"; do
    name=${spec%%=*}; flags=${spec#*=}
    [ -z "$first" ] && first=$name
    rm -rf "$work/$name"
    echo "$name start: $(uptime)" >> "$load"
    # $flags is split into words on purpose.
    /usr/bin/time -v -o "$out.$name.time" "$bin" reach "$game" --resume "$work/$name" --json $flags \
        > "$out.$name.json" 2> "$out.$name.err"
    echo "$name exit $?" >> "$load"
    echo "$name end: $(uptime)" >> "$load"
done
for spec in "$@"; do
    name=${spec%%=*}
    [ "$name" = "$first" ] && continue
    same=0; differ=0
    for f in "$work/$first"/reach-*.layer; do
        if cmp -s "$f" "$work/$name/$(basename "$f")"; then same=$((same + 1)); else differ=$((differ + 1)); fi
    done
    n2=$(ls "$work/$name"/reach-*.layer | wc -l)
    echo "layer files $name: $same equal, $differ different ($first has $((same + differ)), $name has $n2)" >> "$load"
done
cat "$load"
grep -H "Elapsed\|User time\|System time\|Maximum resident" "$out".*.time
