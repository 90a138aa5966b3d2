//! Start-up and a small evaluation, 200 times, with the interpreter chosen
//! by feature; prints the time per run and the peak resident memory.

use std::time::Instant;

fn main() {
    let runs = 200;
    let start = Instant::now();
    for _ in 0..runs {
        run();
    }
    println!("start-up + evaluation per run: {:?}", start.elapsed() / runs);
    let status = std::fs::read_to_string("/proc/self/status").unwrap_or_default();
    for line in status.lines().filter(|l| l.starts_with("VmHWM")) {
        println!("{line}");
    }
}

const PROGRAM: &str = "let s = 0; for (let i = 0; i < 1000; i++) s += i; s % 7";

#[cfg(feature = "rquickjs")]
fn run() {
    let rt = rquickjs::Runtime::new().expect("runtime");
    let ctx = rquickjs::Context::full(&rt).expect("context");
    ctx.with(|ctx| {
        let v: i32 = ctx.eval(PROGRAM).expect("evaluates");
        assert_eq!(v, 499_500 % 7);
    });
}

#[cfg(feature = "boa_engine")]
fn run() {
    let mut ctx = boa_engine::Context::default();
    let v = ctx
        .eval(boa_engine::Source::from_bytes(PROGRAM))
        .expect("evaluates");
    assert_eq!(v.as_number().map(|n| n as i32), Some(499_500 % 7));
}
