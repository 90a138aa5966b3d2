#!/usr/bin/env bash
# Compile time: a crate of 200 `#[tool]` functions with optimclaw against the
# same 200 tools with rmcp's `#[tool]` macro (rmcp from crates.io), each built
# clean in release mode with its own target folder, in the same run; then the
# crate alone again (dependencies built) after touching its source.
# Then a minimal user crate (one tool; only optimclaw, serde and schemars)
# built clean in release mode, with the syn versions in its dependency tree.
# Usage: bash bench/compile_time.sh   (prints two markdown tables)
#        MINIMAL_ONLY=1 bash bench/compile_time.sh   (the minimal crate only)
set -euo pipefail
cd "$(dirname "$0")/.."
root=$PWD
out=target/compile-bench
rm -rf "$out"
mkdir -p "$out/optimclaw/src" "$out/rmcp/src" "$out/minimal/src"
N=${N:-200}

cat > "$out/optimclaw/Cargo.toml" <<TOML
[package]
name = "tools200-optimclaw"
version = "0.1.0"
edition = "2024"
[dependencies]
optimclaw = { path = "$root/optimclaw" }
[workspace]
TOML
{
  echo "//! $N tools with optimclaw."
  echo "use optimclaw::tool;"
  for i in $(seq 0 $((N - 1))); do
    cat <<RS
/// Search the records of collection $i.
#[tool(keywords = ["records", "collection$i"])]
pub fn search_$i(
    /// What to look for.
    query: String,
    /// How many records at most.
    #[arg(default = 10)]
    limit: u32,
    /// Include details.
    verbose: Option<bool>,
) -> String {
    format!("{query}:{limit}:{}", verbose.unwrap_or(false))
}
RS
  done
} > "$out/optimclaw/src/lib.rs"

cat > "$out/rmcp/Cargo.toml" <<TOML
[package]
name = "tools200-rmcp"
version = "0.1.0"
edition = "2024"
[dependencies]
rmcp = { version = "=3.11.0", features = ["server", "macros"] }
serde = { version = "1", features = ["derive"] }
[workspace]
TOML
{
  echo "//! $N tools with rmcp."
  echo "use rmcp::{ServerHandler, handler::server::{router::tool::ToolRouter, wrapper::Parameters}, schemars, tool, tool_router};"
  for i in $(seq 0 $((N - 1))); do
    cat <<RS
/// Arguments of search_$i.
#[derive(serde::Deserialize, schemars::JsonSchema)]
pub struct Search${i}Args {
    /// What to look for.
    pub query: String,
    /// How many records at most.
    #[serde(default = "default_limit")]
    pub limit: u32,
    /// Include details.
    pub verbose: Option<bool>,
}
RS
  done
  echo "fn default_limit() -> u32 { 10 }"
  echo "/// The server."
  echo "#[derive(Clone)]"
  echo "pub struct Server { tool_router: ToolRouter<Self> }"
  echo "impl Default for Server { fn default() -> Self { Self { tool_router: Self::tool_router() } } }"
  echo "#[tool_router]"
  echo "impl Server {"
  for i in $(seq 0 $((N - 1))); do
    cat <<RS
    #[tool(description = "Search the records of collection $i.")]
    fn search_$i(&self, Parameters(a): Parameters<Search${i}Args>) -> String {
        format!("{}:{}:{}", a.query, a.limit, a.verbose.unwrap_or(false))
    }
RS
  done
  echo "}"
  echo "impl ServerHandler for Server {}"
} > "$out/rmcp/src/lib.rs"

cat > "$out/minimal/Cargo.toml" <<TOML
[package]
name = "minimal-user"
version = "0.1.0"
edition = "2024"
[dependencies]
optimclaw = { path = "$root/optimclaw", default-features = false }
serde = { version = "1", features = ["derive"] }
schemars = "1"
[workspace]
TOML
cat > "$out/minimal/src/lib.rs" <<'RS'
//! One tool, as a new user writes it.
use optimclaw::tool;

/// Add two numbers.
#[tool(core)]
pub fn add(
    /// The first number.
    a: f64,
    /// The second number.
    b: f64,
) -> f64 {
    a + b
}
RS

secs() { local s e; s=$(date +%s.%N); "$@" > /dev/null 2>&1; e=$(date +%s.%N); echo "$e - $s" | bc; }
(cd "$out/minimal" && cargo fetch -q)
# Wall time and CPU time (user + system): on 2 cores two syn versions build
# side by side, so the CPU time shows the work saved better than the wall.
read -r wall cpu < <(cd "$out/minimal" && /usr/bin/time -f "%e %U %S" cargo build --release --offline 2>&1 >/dev/null | tail -1 | awk '{print $1, $2 + $3}')
syns=$(cd "$out/minimal" && cargo tree -e normal,build --prefix none --offline | grep -o '^syn v[0-9.]*' | sort -u | tr '\n' ' ')
echo "| minimal user crate (optimclaw + serde + schemars, 1 tool) | clean release build, wall | CPU (user + system) | syn in its tree |"
echo "|---|---|---|---|"
printf '| %s | %.1f s | %.1f s | %s|\n\n' "minimal-user" "$wall" "$cpu" "$syns"
[ -n "${MINIMAL_ONLY:-}" ] && exit 0

declare -A clean crate
for fw in optimclaw rmcp; do
  (cd "$out/$fw" && cargo fetch -q)
  clean[$fw]=$(cd "$out/$fw" && secs cargo build --release --offline)
  touch "$out/$fw/src/lib.rs"
  crate[$fw]=$(cd "$out/$fw" && secs cargo build --release --offline)
done
echo "| $N tools | clean release build (with dependencies) | the crate alone (dependencies built) |"
echo "|---|---|---|"
for fw in optimclaw rmcp; do
  printf '| %s | %.1f s | %.1f s |\n' "$fw" "${clean[$fw]}" "${crate[$fw]}"
done
printf '| ratio optimclaw / rmcp | %.2f | %.2f |\n' "$(echo "${clean[optimclaw]} / ${clean[rmcp]}" | bc -l)" "$(echo "${crate[optimclaw]} / ${crate[rmcp]}" | bc -l)"
