#!/usr/bin/env bash
# Concrete exactness at scale: seeded csmith programs run through `psychic run`
# and natively; the output (csmith's checksum) and the exit status must agree.
# Prints one table row per optimisation level and lists every disagreement,
# which is a bug in psychic, never a skip.
#
# Usage: benches/csmith.sh [COUNT] [FIRST_SEED]
# Environment:
#   OPTS         optimisation levels (default "-O0 -O2")
#   KINDS        program kinds, one table row each per level (default "int"):
#                `int` is csmith's default (no floating point), `float` adds
#                csmith's --float (float variables, float arithmetic through
#                safe_math's float wrappers, float-to-int conversions), which
#                checks the engine's concrete float semantics against SSE.
#                KINDS="int float" runs both over the same seeds.
#   CSMITH_OPTS  csmith options (default: the test suite's small programs)
#   NATIVE_LIMIT seconds a native run may take; slower seeds, and seeds whose -O0
#                build runs longer (which may not terminate), are skipped (default 2)
#   ENGINE_LIMIT seconds psychic may take (--max-time; default 120)
#   PSYCHIC      the psychic binary (default: target/release/psychic, built if missing)
#   KEEP         a directory to keep the programs that disagree in
set -u
count=${1:-200}
first=${2:-1}
opts=${OPTS:--O0 -O2}
csmith_opts=${CSMITH_OPTS:---max-funcs 3 --max-block-depth 3 --max-expr-complexity 5}
native_limit=${NATIVE_LIMIT:-2}
engine_limit=${ENGINE_LIMIT:-120}
root=$(cd "$(dirname "$0")/.." && pwd)
psychic=${PSYCHIC:-$root/target/release/psychic}
clang=${PSYCHIC_CLANG:-clang-19}
csmith_inc=/usr/include/csmith

command -v csmith >/dev/null || { echo "csmith is not installed (apt-get install csmith libcsmith-dev)" >&2; exit 2; }
[ -x "$psychic" ] || (cd "$root" && cargo build --release --quiet) || exit 2
psychic=$(realpath "$psychic")
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cd "$work" || exit 2

printf '%-5s %-5s %8s %8s %9s %8s %10s %10s %9s %12s\n' \
  level kind programs agree disagree skipped "agree %" "engine s" "native s" "instr/s"
bad_list=""
crashes=""
undefined=""
kinds=${KINDS:-int}
for kind in $kinds; do
  case $kind in
    int) kind_opts=() ;;
    float) kind_opts=(--float) ;;
    *) echo "unknown kind '$kind' in KINDS (int, float)" >&2; exit 2 ;;
  esac
for opt in $opts; do
  agree=0 disagree=0 skipped=0 engine_time=0 native_time=0 instructions=0
  for ((seed = first; seed < first + count; seed++)); do
    # shellcheck disable=SC2086
    csmith --seed "$seed" "${kind_opts[@]}" $csmith_opts >p.c 2>/dev/null || { skipped=$((skipped + 1)); continue; }
    # A program that does not terminate at -O0 within the limit is skipped at
    # every level: optimised code may assume its loops terminate (C11
    # 6.8.5p6) and make them `unreachable`, whose native behaviour is
    # undefined (it falls into whatever code follows).
    ref="ref-$kind-$seed"
    if [ ! -e "$ref" ]; then
      "$clang" -O0 -w -I"$csmith_inc" p.c -o p.ref 2>/dev/null && timeout "$native_limit" ./p.ref >/dev/null 2>&1
      echo $? >"$ref"
      "$clang" -O0 -w -I"$csmith_inc" -S -emit-llvm p.c -o p.ll 2>/dev/null
      if grep -qE '(i[0-9]+|float|double|ptr) poison' p.ll; then touch "poison-$kind-$seed"; fi
    fi
    if [ "$(cat "$ref")" -eq 124 ]; then skipped=$((skipped + 1)); continue; fi
    "$clang" "$opt" -w -I"$csmith_inc" p.c -o p.native 2>/dev/null || { skipped=$((skipped + 1)); continue; }
    t0=$(date +%s.%N)
    timeout "$native_limit" ./p.native >native.out 2>/dev/null
    native_status=$?
    t1=$(date +%s.%N)
    if [ "$native_status" -eq 124 ]; then skipped=$((skipped + 1)); continue; fi
    native_time=$(echo "$native_time + $t1 - $t0" | bc)
    flags=(-g -c -emit-llvm -w "-I$csmith_inc" "$opt")
    [ "$opt" = -O0 ] && flags+=(-Xclang -disable-O0-optnone)
    "$clang" "${flags[@]}" p.c -o p.bc 2>/dev/null || { skipped=$((skipped + 1)); continue; }
    rm -rf out
    t0=$(date +%s.%N)
    "$psychic" run --max-time "$engine_limit" --output-dir out p.bc >engine.out 2>engine.err
    t1=$(date +%s.%N)
    engine_time=$(echo "$engine_time + $t1 - $t0" | bc)
    n=$(grep -o 'total instructions = [0-9]*' engine.err | grep -o '[0-9]*$')
    instructions=$((instructions + ${n:-0}))
    # One path: an exit with the native run's status and output, or an error
    # where the native run died by a signal (-O2 code may trap where the
    # program's behaviour is undefined, at an `unreachable` both execute).
    engine_status=$(awk -F, 'NR == 2 && $2 == "exit" { print $3 }' out/tests.csv 2>/dev/null)
    engine_error=$(awk -F, 'NR == 2 && $2 == "error" { print $4 }' out/tests.csv 2>/dev/null)
    rows=$(($(wc -l <out/tests.csv 2>/dev/null || echo 1) - 1))
    if [ "$rows" -eq 1 ] && [ "$engine_status" = "$native_status" ] && cmp -s engine.out native.out; then
      agree=$((agree + 1))
    elif [ "$rows" -eq 1 ] && [ -n "$engine_error" ] && [ "$native_status" -gt 128 ]; then
      agree=$((agree + 1))
      crashes+="  seed $seed $opt $kind: engine $engine_error error, native killed by signal $((native_status - 128))"$'\n'
    elif [ -e "poison-$kind-$seed" ]; then
      # The -O0 IR uses a `poison` value: csmith converted an out-of-range
      # float constant to an integer (`short x = 0x9.ED7D41p+14;`), clang
      # folded that to poison, and the native store writes whatever the
      # register last held (float seed 59: the loop counter, 3; the engine
      # reads poison as 0). Undefined behaviour: skipped, and listed.
      skipped=$((skipped + 1))
      undefined+=" $seed($kind$opt)"
    else
      disagree=$((disagree + 1))
      why=$(grep -m1 -E 'ERROR|error|halted' engine.err | cut -c1-100)
      bad_list+="  seed $seed $opt $kind: engine status '${engine_status}' ($rows tests), native $native_status; ${why}"$'\n'
      if [ -n "${KEEP:-}" ]; then mkdir -p "$KEEP" && cp p.c "$KEEP/seed$seed-$kind$opt.c"; fi
    fi
  done
  ran=$((agree + disagree))
  rate=$(echo "scale=1; 100 * $agree / ($ran + ($ran == 0))" | bc)
  ips=$(echo "$instructions / ($engine_time + ($ran == 0))" | bc)
  printf '%-5s %-5s %8d %8d %9d %8d %10s %10.1f %9.2f %12d\n' \
    "$opt" "$kind" "$ran" "$agree" "$disagree" "$skipped" "$rate" "$engine_time" "$native_time" "$ips"
done
done
if [ -n "$undefined" ]; then
  printf '\ndisagreements skipped for poison in the -O0 IR (undefined behaviour):%s\n' "$undefined"
fi
if [ -n "$crashes" ]; then
  printf '\nagreements on a crash:\n%s' "$crashes"
fi
if [ -n "$bad_list" ]; then
  printf '\ndisagreements:\n%s' "$bad_list"
  exit 1
fi
