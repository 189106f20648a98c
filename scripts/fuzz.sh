#!/usr/bin/env bash
# Builds the fuzz preset (clang, libFuzzer, ASan + UBSan), runs the whole Catch2 suite under
# the sanitizers, writes the seed corpus, then runs every fuzz target for a bounded time.
#   scripts/fuzz.sh [seconds per target]   (default 30)
# Prints each target's executions; any crash, leak or sanitizer report fails the script.
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
cd "$root"
seconds="${1:-30}"
cmake --workflow --preset fuzz
build=build/fuzz
corpus="$build/corpus"
"$build/fuzz/make_corpus" "$corpus"
export ASAN_OPTIONS="detect_leaks=1:allocator_may_return_null=1"
export UBSAN_OPTIONS="print_stacktrace=1:halt_on_error=1"
for target in gguf safetensors safetensors_index hf_config request_json url_hash text launch_line engine_request; do
  mkdir -p "$corpus/$target" "$build/artifacts"
  log="$build/fuzz_$target.log"
  if ! "$build/fuzz/fuzz_$target" "$corpus/$target" -max_total_time="$seconds" -rss_limit_mb=2048 \
       -max_len=262144 -print_final_stats=1 -artifact_prefix="$build/artifacts/${target}-" >"$log" 2>&1; then
    echo "fuzz_$target FAILED:"; tail -40 "$log"; exit 1
  fi
  runs=$(grep -oE "stat::number_of_executed_units: *[0-9]+" "$log" | grep -oE "[0-9]+$")
  echo "fuzz_$target: $runs executions in ${seconds}s, no crash, no leak"
done
