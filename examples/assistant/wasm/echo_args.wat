;; A WebAssembly tool (WASI preview 1 command): reads its JSON arguments on
;; stdin and prints {"received": <arguments>} on stdout. Copy this file and
;; echo_args.json into ~/.optimclaw/wasm/ and run the assistant with
;; `--features wasm`.
(module
  (import "wasi_snapshot_preview1" "fd_read" (func $fd_read (param i32 i32 i32 i32) (result i32)))
  (import "wasi_snapshot_preview1" "fd_write" (func $fd_write (param i32 i32 i32 i32) (result i32)))
  (memory (export "memory") 2)
  (data (i32.const 16) "{\"received\":")
  (data (i32.const 32) "}")
  (func $write (param $ptr i32) (param $len i32)
    (i32.store (i32.const 0) (local.get $ptr))
    (i32.store (i32.const 4) (local.get $len))
    (drop (call $fd_write (i32.const 1) (i32.const 0) (i32.const 1) (i32.const 8))))
  (func (export "_start")
    (local $total i32) (local $n i32)
    (loop $more
      (i32.store (i32.const 0) (i32.add (i32.const 1024) (local.get $total)))
      (i32.store (i32.const 4) (i32.sub (i32.const 65536) (local.get $total)))
      (drop (call $fd_read (i32.const 0) (i32.const 0) (i32.const 1) (i32.const 8)))
      (local.set $n (i32.load (i32.const 8)))
      (local.set $total (i32.add (local.get $total) (local.get $n)))
      (br_if $more (i32.gt_u (local.get $n) (i32.const 0))))
    (call $write (i32.const 16) (i32.const 12))
    (call $write (i32.const 1024) (local.get $total))
    (call $write (i32.const 32) (i32.const 1))))
