//! One call of a WebAssembly tool: a fresh instance in its sandbox (only
//! the granted environment and folders, memory and fuel limits, a wall-clock
//! deadline, capped output), arguments on stdin, the result from stdout.

use std::path::PathBuf;

use serde_json::Value;
use wasmtime::{Engine, InstancePre, ResourceLimiter, Store, Trap};
use wasmtime_wasi::p1::WasiP1Ctx;
use wasmtime_wasi::p2::pipe::{MemoryInputPipe, MemoryOutputPipe};
use wasmtime_wasi::{FsPerms, I32Exit, WasiCtxBuilder};

use optimclaw::{ToolError, ToolErrorKind};

use super::{TICK, WasmLimits};

/// What is kept of a module's stderr for an error message.
const STDERR_CAP: usize = 4096;

pub(super) struct Sandbox {
    pub(super) env: Vec<(String, String)>,
    pub(super) dirs: Vec<(PathBuf, String, bool)>,
    pub(super) limits: WasmLimits,
}

pub(super) struct State {
    pub(super) wasi: WasiP1Ctx,
    pub(super) memory: MemoryLimit,
}

pub(super) struct MemoryLimit {
    pub(super) max: usize,
}

impl ResourceLimiter for MemoryLimit {
    fn memory_growing(
        &mut self,
        _current: usize,
        desired: usize,
        _maximum: Option<usize>,
    ) -> wasmtime::Result<bool> {
        if desired > self.max {
            return Err(wasmtime::format_err!(
                "the module needs {} MiB of memory; the limit is {} MiB",
                desired.div_ceil(1 << 20),
                self.max >> 20
            ));
        }
        Ok(true)
    }

    fn table_growing(
        &mut self,
        _current: usize,
        desired: usize,
        _maximum: Option<usize>,
    ) -> wasmtime::Result<bool> {
        Ok(desired <= 1_000_000)
    }
}

pub(super) struct Runner {
    pub(super) engine: Engine,
    pub(super) pre: InstancePre<State>,
    pub(super) name: String,
    pub(super) sandbox: Sandbox,
}

impl Runner {
    pub(super) fn call(&self, args: &Value) -> Result<Value, ToolError> {
        let limits = self.sandbox.limits;
        // One byte over the cap tells a full answer from a cut one.
        let stdout = MemoryOutputPipe::new(limits.max_output_bytes.saturating_add(1));
        let stderr = MemoryOutputPipe::new(STDERR_CAP);
        let mut wasi = WasiCtxBuilder::new();
        wasi.stdin(MemoryInputPipe::new(args.to_string()))
            .stdout(stdout.clone())
            .stderr(stderr.clone())
            .arg(&self.name);
        for (k, v) in &self.sandbox.env {
            wasi.env(k, v);
        }
        for (host, guest, write) in &self.sandbox.dirs {
            let perms = if *write {
                FsPerms::ReadWrite
            } else {
                FsPerms::ReadOnly
            };
            wasi.preopened_dir(host, guest, perms)
                .map_err(|e| ToolError::new(format!("cannot open {}: {e}", host.display())))?;
        }
        let memory_max = usize::try_from(limits.memory_bytes).unwrap_or(usize::MAX);
        let mut store = Store::new(
            &self.engine,
            State {
                wasi: wasi.build_p1(),
                memory: MemoryLimit { max: memory_max },
            },
        );
        store.limiter(|s| &mut s.memory);
        store
            .set_fuel(limits.fuel)
            .map_err(|e| ToolError::new(format!("fuel cannot be set: {e}")))?;
        let ticks = (limits.timeout.as_millis() / TICK.as_millis()).max(1);
        store.set_epoch_deadline(u64::try_from(ticks).unwrap_or(u64::MAX));
        let outcome = self
            .pre
            .instantiate(&mut store)
            .and_then(|instance| instance.get_typed_func::<(), ()>(&mut store, "_start"))
            .and_then(|start| start.call(&mut store, ()));
        let exit = match outcome {
            Ok(()) => 0,
            Err(e) => {
                if let Some(exit) = e.downcast_ref::<I32Exit>() {
                    exit.0
                } else {
                    return Err(self.trapped(&e, limits, &stdout));
                }
            }
        };
        let stderr_text = String::from_utf8_lossy(&stderr.contents())
            .trim()
            .to_owned();
        if exit != 0 {
            let detail = if stderr_text.is_empty() {
                "(nothing on stderr)".to_owned()
            } else {
                stderr_text
            };
            return Err(ToolError::new(format!(
                "`{}` exited with status {exit}: {detail}",
                self.name
            )));
        }
        let out = stdout.contents();
        if out.len() > limits.max_output_bytes {
            return Err(self.flooded(limits));
        }
        serde_json::from_slice::<Value>(&out).map_err(|e| {
            let start: String = String::from_utf8_lossy(&out).chars().take(80).collect();
            ToolError::new(format!(
                "`{}` did not print one JSON value on stdout ({e}); it began: {start:?}",
                self.name
            ))
        })
    }

    fn trapped(
        &self,
        err: &wasmtime::Error,
        limits: WasmLimits,
        stdout: &MemoryOutputPipe,
    ) -> ToolError {
        let name = &self.name;
        let message = match err.downcast_ref::<Trap>() {
            Some(Trap::OutOfFuel) => format!(
                "`{name}` ran out of fuel ({} units) and was stopped: it loops or does too much work",
                limits.fuel
            ),
            Some(Trap::Interrupt) => {
                return ToolError::with_kind(
                    ToolErrorKind::Timeout,
                    format!(
                        "`{name}` did not finish within {:.1} s and was stopped",
                        limits.timeout.as_secs_f64()
                    ),
                );
            }
            Some(trap) => format!("`{name}` trapped: {trap}"),
            None => {
                let cause = root_cause(err);
                if cause.contains("write beyond capacity")
                    || stdout.contents().len() > limits.max_output_bytes
                {
                    return self.flooded(limits);
                }
                format!("`{name}` failed: {cause}")
            }
        };
        ToolError::with_kind(ToolErrorKind::Failed, message)
    }
}

impl Runner {
    fn flooded(&self, limits: WasmLimits) -> ToolError {
        ToolError::with_kind(
            ToolErrorKind::Failed,
            format!(
                "`{}` wrote more than {} bytes on stdout; the output was dropped",
                self.name, limits.max_output_bytes
            ),
        )
    }
}

/// The innermost message of an error chain.
pub(super) fn root_cause(err: &wasmtime::Error) -> String {
    let mut text = err.to_string();
    for cause in err.chain() {
        text = cause.to_string();
    }
    text
}
