#!/bin/bash
# Captures the real outputs in this directory: ibsim 0.10 runs a net file, OpenSM 3.3.23 configures it (run once,
# then once more, as a running OpenSM's next sweep would, so that switch ports are programmed with the operational
# VLs the first pass set), and infiniband-diags 44.0 read back what was programmed.
#
# Usage: capture.sh NETFILE OUTDIR "OPENSM OPTIONS" [LID:PORT ...]   (Debian: opensm ibsim-utils infiniband-diags)
# OUTDIR gets opensm-lfts.dump, ibnetdiscover{,-g,-s,-f,-m}.out, ibroute.out, dump_fts.out and, per LID:PORT,
# smpquery-vlarb-LID-PORT.out and smpquery-sl2vl-LID-PORT.out.
set -eu
NET=$(readlink -f "$1"); mkdir -p "$2"; OUT=$(readlink -f "$2"); OPTS=$3; shift 3
SIMSO=$(dpkg -L libumad2sim0 | grep 'libumad2sim.so$' | head -1)
WORK=$(mktemp -d); trap 'kill $SIM 2>/dev/null; wait $SIM 2>/dev/null; rm -rf "$WORK"; exit 0' EXIT
export IBSIM_SOCKNAME=capture$$
( cd "$WORK" && exec ibsim -s -n "$NET" ) > "$WORK/ibsim.log" 2>&1 & SIM=$!
for _ in $(seq 100); do grep -q 'ready' "$WORK/ibsim.log" && break; sleep 0.1; done
sim() { ( cd "$WORK" && LD_PRELOAD=$SIMSO "$@" ) 2>/dev/null || true; }
for pass in 1 2; do
    # shellcheck disable=SC2086
    OSM_CACHE_DIR=$WORK OSM_TMP_DIR=$WORK sim opensm -o -e -s 0 -f "$WORK/opensm.log" -D 0x43 \
        --dump_files_dir "$WORK" $OPTS > /dev/null
done
cp "$WORK/opensm-lfts.dump" "$OUT/"
sim ibnetdiscover > "$OUT/ibnetdiscover.out"
for f in g s f m; do sim ibnetdiscover -$f > "$OUT/ibnetdiscover-$f.out"; done
: > "$OUT/ibroute.out"
for lid in $(sim ibswitches | sed -n 's/.* lid \([0-9]*\) .*/\1/p'); do sim ibroute "$lid" >> "$OUT/ibroute.out"; done
sim dump_fts > "$OUT/dump_fts.out"
for lp in "$@"; do
    sim smpquery vlarb "${lp%%:*}" "${lp##*:}" > "$OUT/smpquery-vlarb-${lp%%:*}-${lp##*:}.out"
    sim smpquery sl2vl "${lp%%:*}" "${lp##*:}" > "$OUT/smpquery-sl2vl-${lp%%:*}-${lp##*:}.out"
done
