#![no_main]
libfuzzer_sys::fuzz_target!(|data: &[u8]| shardscope_fuzz_targets::clock_markers(data));
