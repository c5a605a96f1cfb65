#!/usr/bin/env bash
# benches/projects/run.sh: `psychic diff-patches --project` on real upstream
# fixes (issue 25). Each case of cases.tsv is an upstream commit made after a
# release of GNU coreutils (9.1), grep (3.8) or findutils (4.9.0), applied as
# a diff to that release as Debian ships it; psychic gets the configured
# release as --project and the diff as the one revision beside the original,
# with the case's program words. A fix should be separated from the original
# by a test that replays natively; a behaviour-preserving commit must not be.
#
# Usage: benches/projects/run.sh [PROJECT|CASE ...]
#   no argument: every case; coreutils, grep, findutils: that project's cases;
#   anything else: the case of that id.
#
# Environment:
#   PSYCHIC        the psychic binary (default: $CARGO_TARGET_DIR or target,
#                  then release/psychic)
#   BENCH_WORK     the work directory (default: target/bench-projects): the
#                  sources, clones, diffs, one directory per case, the table
#   MAX_TIME       psychic's --max-time per case in seconds (default 300)
#   JOBS           make -j for the projects' builds (default 2)
#   PROJECT_CC     the C compiler the projects are configured with (default
#                  clang-19: psychic compiles every untouched unit to bitcode
#                  with the flags the build used, so they must be clang's)
#   PSYCHIC_CACHE_DIR  psychic's cache (default: BENCH_WORK/cache), where the
#                  capture builds each project once
#   COREUTILS_GIT, GREP_GIT, FINDUTILS_GIT, GNULIB_GIT
#                  an existing clone (work tree or bare) of that upstream
#                  repository; default: cloned into BENCH_WORK/git from
#                  https://github.com/coreutils/coreutils,
#                  https://git.savannah.gnu.org/git/grep.git,
#                  https://git.savannah.gnu.org/git/findutils.git,
#                  https://github.com/coreutils/gnulib (blobs fetched lazily)
#
# Needs: apt-get with a deb-src entry for bookworm (a file in
# /etc/apt/sources.list.d/ with `Types: deb-src`, the deb entry's URIs and
# Signed-By, `Suites: bookworm`, `Components: main`; then apt-get update),
# git, patch, diff, make, jq, clang-19 (`bash .ci/deps`).
#
# Output: BENCH_WORK/results.md, a markdown table with one row per case (also
# printed): the command line's words, whether psychic separated the original
# from the fix with a natively replayed test (report.json), the verdict, the
# time of the run without the project's first build, and what stopped the
# engine (the first unmodelled call of the original, from report.json's
# coverage). Each case's directory keeps the diff, psychic's stderr and its
# output directory. The script asserts nothing; it exits 0 when the table
# was written.

set -uo pipefail

here=$(cd "$(dirname "$0")" && pwd)
repo=$(cd "$here/../.." && pwd)
WORK=${BENCH_WORK:-$repo/target/bench-projects}
MAX_TIME=${MAX_TIME:-300}
JOBS=${JOBS:-2}
PROJECT_CC=${PROJECT_CC:-clang-19}
PSYCHIC=${PSYCHIC:-${CARGO_TARGET_DIR:-$repo/target}/release/psychic}
export PSYCHIC_CACHE_DIR=${PSYCHIC_CACHE_DIR:-$WORK/cache}
CASES=$here/cases.tsv

die() { echo "run.sh: $*" >&2; exit 2; }
note() { echo "run.sh: $*" >&2; }

for tool in git patch diff make jq apt-get "$PROJECT_CC"; do
  command -v "$tool" >/dev/null || die "needs $tool"
done
[ -x "$PSYCHIC" ] || die "no psychic at $PSYCHIC (cargo build --release, or set PSYCHIC)"
mkdir -p "$WORK"/{src,git,diffs,runs,logs} "$PSYCHIC_CACHE_DIR"
WORK=$(cd "$WORK" && pwd)

# --- the projects: Debian's source package, its version, how it is configured.
# --disable-nls everywhere: no message catalogues, fewer libc calls the engine
# must model. grep: --with-included-regex, so that lib/regex.c (gnulib's) is
# part of grep whatever the C library's regex is, and the gnulib fixes reach
# it; no PCRE. coreutils and findutils: optional libraries off.
declare -A VERSION=([coreutils]=9.1 [grep]=3.8 [findutils]=4.9.0)
declare -A CONFIGURE=(
  [coreutils]="--disable-nls --without-selinux --without-openssl --without-libgmp --disable-libcap --disable-acl --disable-xattr"
  [grep]="--disable-nls --with-included-regex --disable-perl-regexp"
  [findutils]="--disable-nls --without-selinux"
)
declare -A GIT_VAR=([coreutils]=COREUTILS_GIT [grep]=GREP_GIT [findutils]=FINDUTILS_GIT [gnulib]=GNULIB_GIT)
declare -A GIT_URL=(
  [coreutils]=https://github.com/coreutils/coreutils
  [grep]=https://git.savannah.gnu.org/git/grep.git
  [findutils]=https://git.savannah.gnu.org/git/findutils.git
  [gnulib]=https://github.com/coreutils/gnulib
)

# The configured release of project $1, unpacked from Debian's orig tarball
# (upstream's release; Debian's own patches are not applied): prints its path.
source_tree() {
  local p=$1 v=${VERSION[$1]} src=$WORK/src
  local tree=$src/$p-$v stamp=$src/.$p-$v.configured
  if [ ! -f "$stamp" ]; then
    local tarball
    tarball=$(ls "$src/${p}_$v".orig.tar.* 2>/dev/null | head -n1)
    if [ -z "$tarball" ]; then
      note "$p: apt-get source --download-only $p"
      (cd "$src" && apt-get source --download-only "$p") >"$WORK/logs/$p-source.log" 2>&1 ||
        die "$p: apt-get source failed (is deb-src enabled? see the header); $WORK/logs/$p-source.log"
      tarball=$(ls "$src/${p}_$v".orig.tar.* 2>/dev/null | head -n1)
      [ -n "$tarball" ] || die "$p: Debian's source is not $p $v: $(ls "$src")"
    fi
    rm -rf "$tree"
    tar -xf "$tarball" -C "$src" || die "$p: cannot unpack $tarball"
    [ -d "$tree" ] || die "$p: $tarball did not unpack into $tree"
    note "$p: ./configure CC=$PROJECT_CC ${CONFIGURE[$p]}"
    local t0=$SECONDS
    # shellcheck disable=SC2086
    # coreutils' configure refuses root unless told (a container's CI runs as root).
    (cd "$tree" && FORCE_UNSAFE_CONFIGURE=1 ./configure CC="$PROJECT_CC" ${CONFIGURE[$p]}) >"$WORK/logs/$p-configure.log" 2>&1 ||
      die "$p: configure failed; $WORK/logs/$p-configure.log"
    echo "$((SECONDS - t0))" >"$stamp"
  fi
  echo "$tree"
}

# The git directory of upstream repository $1 (a clone given by its variable,
# else one made in the work dir).
upstream() {
  local r=$1 var=${GIT_VAR[$1]} dir
  dir=${!var:-}
  if [ -n "$dir" ]; then
    git -C "$dir" rev-parse --git-dir >/dev/null 2>&1 || die "$var=$dir is not a git repository"
    echo "$dir"
    return
  fi
  dir=$WORK/git/$r
  if [ ! -d "$dir" ]; then
    note "$r: git clone ${GIT_URL[$r]}"
    git clone --quiet --bare --filter=blob:none "${GIT_URL[$r]}" "$dir" >"$WORK/logs/$r-clone.log" 2>&1 ||
      die "$r: cannot clone ${GIT_URL[$r]} (set $var to a clone); $WORK/logs/$r-clone.log"
  fi
  echo "$dir"
}

# Makes the case's diff: the commit's own diff limited to its paths, applied
# to the release's files with patch -p1 (-l where only whitespace differs, as
# when upstream turned tabs into spaces after the release), and written again
# with diff -u against the release, so that it applies exactly. Prints how it
# applied (clean, whitespace) or fails with why.
make_diff() {
  local id=$1 gitdir=$2 commit=$3 paths=$4 tree=$5 out=$6
  local raw=$WORK/diffs/$id.upstream.diff scratch=$WORK/diffs/$id.scratch
  local -a specs
  IFS=, read -r -a specs <<<"$paths"
  git -C "$gitdir" diff "$commit^" "$commit" -- "${specs[@]}" ':!*.1' ':!*.texi' >"$raw" 2>"$WORK/diffs/$id.git.log" ||
    { echo "git diff failed: $(head -c 300 "$WORK/diffs/$id.git.log")"; return 1; }
  [ -s "$raw" ] || { echo "the commit changes nothing under $paths"; return 1; }
  rm -rf "$scratch"
  mkdir -p "$scratch/a" "$scratch/b"
  local f
  local -a files
  mapfile -t files < <(sed -n 's|^+++ b/||p' "$raw")
  for f in "${files[@]}"; do
    [ -f "$tree/$f" ] || { echo "$f is not in the release"; return 1; }
    mkdir -p "$scratch/a/$(dirname "$f")" "$scratch/b/$(dirname "$f")"
    cp "$tree/$f" "$scratch/a/$f"
    cp "$tree/$f" "$scratch/b/$f"
  done
  local how=clean
  if ! (cd "$scratch/b" && patch -p1 -s -f --no-backup-if-mismatch <"$raw") >"$scratch.log" 2>&1; then
    for f in "${files[@]}"; do cp "$tree/$f" "$scratch/b/$f"; done
    find "$scratch/b" -name '*.rej' -delete
    if (cd "$scratch/b" && patch -p1 -s -f -l --no-backup-if-mismatch <"$raw") >"$scratch.log" 2>&1; then
      how=whitespace
    else
      echo "does not apply to the release: $(tr '\n' ' ' <"$scratch.log" | head -c 300)"
      return 1
    fi
  fi
  (cd "$scratch" && diff -u -r a b) >"$out"
  [ -s "$out" ] || { echo "applies, but changes nothing"; return 1; }
  echo "$how"
}

# --- which cases
declare -a want=("$@")
selected() {
  local id=$1 project=$2
  [ ${#want[@]} -eq 0 ] && return 0
  local w
  for w in "${want[@]}"; do
    [ "$w" = "$id" ] || [ "$w" = "$project" ] && return 0
  done
  return 1
}

md() { printf '%s' "$1" | sed 's/|/\\|/g'; }

table=$WORK/results.md
rows=$WORK/rows.md
: >"$rows"
declare -A first_build=()
n_fix=0 n_fix_sep=0 n_fix_fast=0 n_same=0 n_same_ok=0

# The table is read whole first: a run takes hours, and the file may change.
mapfile -t lines <"$CASES"
for line in "${lines[@]}"; do
  IFS=$'\t' read -r id project kind reponame commit paths program words <<<"$line"
  case $id in '#'* | '') continue ;; esac
  selected "$id" "$project" || continue
  tree=$(source_tree "$project") || exit 2
  gitdir=$(upstream "$reponame") || exit 2
  run=$WORK/runs/$id
  rm -rf "$run"
  mkdir -p "$run"
  diff=$run/$id.diff
  short=${commit:0:10}
  [ "$kind" = fix ] && n_fix=$((n_fix + 1)) || n_same=$((n_same + 1))
  if ! applied=$(make_diff "$id" "$gitdir" "$commit" "$paths" "$tree" "$diff"); then
    note "$id: $applied"
    echo "| $id | $kind | $reponame $short | \`$program $(md "$words")\` | no diff | $(md "$applied") | | |" >>"$rows"
    continue
  fi
  # The words, split as the shell would.
  eval "set -- $words"
  cmd=("$PSYCHIC" diff-patches --project "$tree" --program "$program" --build "make -j$JOBS"
    --diff "$diff" --max-time "$MAX_TIME" --output-dir "$run/out" --diagnostics none -- "$@")
  printf '%q ' "${cmd[@]}" >"$run/command"
  echo >>"$run/command"
  note "$id: psychic diff-patches --project $project-${VERSION[$project]} --program $program -- $words"
  t0=$(date +%s.%N)
  # The replays run in the working directory (files the program writes land there).
  (cd "$run" && "${cmd[@]}") >"$run/stdout" 2>"$run/stderr"
  status=$?
  t1=$(date +%s.%N)
  built=$(sed -n "s/.*the project's first build took \([0-9.]*\) s.*/\1/p" "$run/stderr" | head -n1)
  [ -n "$built" ] && first_build[$project]=$built
  secs=$(echo "$t1 - $t0 - ${built:-0}" | bc)
  secs=$(printf '%.0f' "$secs")
  report=$run/out/report.json
  if [ ! -f "$report" ]; then
    err=$(grep -m1 -E 'error|panicked' "$run/stderr" || tail -n1 "$run/stderr")
    echo "| $id | $kind | $reponame $short | \`$program $(md "$words")\` | **failed** (exit $status) | $(md "${err:0:300}") | $secs | |" >>"$rows"
    note "$id: no report: $err"
    continue
  fi
  # Separated: 0 and 1 in different clusters, by a test whose outcomes put them
  # apart (every test in report.json replayed natively on both revisions).
  read -r split by verdict partial < <(jq -r '
      ([.clusters[] | select(index(0) != null)] | .[0] | index(1) == null) as $split
      | ([.tests[] | select(any(.outcomes[]; (.revisions | index(0) != null) and (.revisions | index(1) == null)))]
         | .[0].found_by // "-") as $by
      | (.cluster_verdicts[[.clusters[] | index(0) != null] | index(true)].verdict) as $v
      | "\($split) \($by) \($v) \(.stats.partial)"' "$report")
  stopped=$(jq -r '
      [.coverage.revisions[0].kinds // {} | to_entries[]
       | select(.key == "external" or .key == "model" or .key == "unsupported" or .key == "internal")
       | "\(.key): \(.value.first)"] | .[0:2] | join("; ")' "$report")
  tests=$(jq -r '.tests | length' "$report")
  if [ "$kind" = fix ]; then
    if [ "$split" = true ]; then
      result="separated ($tests tests, first by $by)"
      n_fix_sep=$((n_fix_sep + 1))
      [ "$secs" -le "$MAX_TIME" ] && n_fix_fast=$((n_fix_fast + 1))
    else
      result="not separated: $verdict"
    fi
  else
    if [ "$split" = true ]; then
      result="**WRONG: split** ($tests tests)"
    else
      result="alike: $verdict"
      n_same_ok=$((n_same_ok + 1))
    fi
  fi
  [ "$applied" = clean ] || result="$result; diff: $applied"
  echo "| $id | $kind | $reponame $short | \`$program $(md "$words")\` | $(md "$result") | partial=$partial | $secs | $(md "${stopped:0:200}") |" >>"$rows"
done

{
  echo "# psychic diff-patches --project on upstream fixes"
  echo
  echo "$("$PSYCHIC" --version 2>/dev/null | head -n1), --max-time $MAX_TIME, make -j$JOBS, CC=$PROJECT_CC, $(date -u +%Y-%m-%dT%H:%MZ)."
  for p in "${!first_build[@]}"; do
    echo "First build of $p ${VERSION[$p]} (psychic's capture, not counted in the times): ${first_build[$p]} s."
  done
  echo
  echo "Fixes separated: $n_fix_sep of $n_fix ($n_fix_fast within $MAX_TIME s); behaviour-preserving commits left together: $n_same_ok of $n_same."
  echo
  echo "| case | kind | commit | program and words | result | | s | engine stopped by (original) |"
  echo "|---|---|---|---|---|---|---|---|"
  cat "$rows"
} >"$table"
cat "$table"
