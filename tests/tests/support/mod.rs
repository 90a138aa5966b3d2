//! Helpers shared by test binaries (each uses part of them).
#![allow(dead_code)]

pub mod spans;
