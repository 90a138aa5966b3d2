#!/usr/bin/env bash
# What the `minilm` feature costs: one small program using optimclaw built
# clean in release mode twice, in the same run — keyword search only, then
# with all-MiniLM-L6-v2 vector search — each with its own target folder.
# Prints clean build time and binary size.
# Usage: bash bench/semantic_cost.sh
set -euo pipefail
cd "$(dirname "$0")/.."
root=$PWD
out=target/semantic-cost
rm -rf "$out"
for variant in keywords minilm; do
  dir="$out/$variant"
  mkdir -p "$dir/src"
  if [ "$variant" = minilm ]; then
    features='features = ["minilm"]'
    setup='let model = optimclaw::embed::MiniLm::from_dir(std::env::args().nth(1).unwrap_or_default());
    let builder = match model { Ok(m) => builder.embedder(std::sync::Arc::new(m)), Err(e) => { eprintln!("{e}"); builder } };'
  else
    features=''
    setup=''
  fi
  cat > "$dir/Cargo.toml" <<TOML
[package]
name = "semantic-cost-$variant"
version = "0.1.0"
edition = "2024"
[dependencies]
optimclaw = { path = "$root/optimclaw", $features }
[workspace]
TOML
  cat > "$dir/src/main.rs" <<RS
fn main() {
    let builder = optimclaw::Registry::builder();
    $setup
    let registry = builder.build().expect("valid");
    println!("{}", registry.tool_info("find tools", 3).map(|a| a.tools.len()).unwrap_or(0));
}
RS
  start=$(date +%s.%N)
  (cd "$dir" && cargo build -q --release)
  end=$(date +%s.%N)
  size=$(stat -c %s "$dir/target/release/semantic-cost-$variant")
  printf '| %s | %.0f s | %.1f MiB |\n' "$variant" "$(echo "$end - $start" | bc)" "$(echo "$size / 1048576" | bc -l)"
done
