//! The engine's printf formatter renders as glibc does: every combination of
//! flags, width and precision of every conversion, on edge values, checked
//! against glibc's own snprintf (tests/c/native/printf_cases.c).

use crate::common;

use std::io::Write;
use std::process::{Command, Stdio};

use psychic::exec::printf::{Arg, parse, render};

/// Doubles where formatting is hard: ties at the precisions tested, values
/// just off a tie, the ends of the range (subnormal, normal, DBL_MAX),
/// powers of ten that doubles miss (1e23), signed zeros and NaNs (glibc
/// prints a NaN's sign and ignores its payload), values promoted from float,
/// and numbers whose rounding carries into a new digit (9.5, 9.9999995).
fn doubles() -> Vec<f64> {
    let mut v: Vec<f64> = [
        "0",
        "-0",
        "1.5",
        "2.5",
        "0.1",
        "123456.789",
        "1e-5",
        "1e20",
        "-3.25",
        "inf",
        "-inf",
        "9.9999995",
        "0.00012345",
        "0.125",
        "0.375",
        "0.5",
        "9.5",
        "0.05",
        "1.005",
        "1e-7",
        "5e-324",
        "2.2250738585072014e-308",
        "2.225073858507201e-308",
        "1.7976931348623157e308",
        "1e22",
        "1e23",
        "123456789012345678",
        "0.0001",
        "100000",
        "999999.5",
        "0.00009999995",
        "1e15",
        "4.35",
        "-0.000001",
        "0.45",
        "1e-300",
        "3.0517578125e-05",
    ]
    .iter()
    .map(|t| t.parse().unwrap())
    .collect();
    v.extend([
        f64::NAN,
        -f64::NAN,
        f64::from_bits(0x7ff0_0000_0000_0123),
        f64::from_bits(0xfff8_0000_dead_beef),
        f64::from(0.1f32),
        f64::from(-2.7f32),
        f64::from(1e-40f32),
        f64::from(f32::MAX),
        f64::from_bits(0x3fef_ffff_ffff_ffff),
        f64::from_bits(1),
        f64::from_bits(0x000f_ffff_ffff_ffff),
    ]);
    v
}

/// (kind, format, value text, the argument as the engine passes it).
fn cases() -> Vec<(char, String, String, Arg)> {
    let doubles = doubles();
    let mut flags = Vec::new();
    for bits in 0..32u32 {
        flags.push(
            (0..5).filter(|i| bits >> i & 1 != 0).map(|i| "-+ #0".as_bytes()[i] as char).collect::<String>(),
        );
    }
    let widths = ["", "1", "8"];
    let precisions = ["", ".0", ".1", ".2", ".3", ".7", ".17", ".20"];
    let ints: [i64; 13] =
        [0, 1, -1, 7, 42, -42, 255, 256, 65535, -32768, i32::MAX as i64, i32::MIN as i64, 1234567];
    let longs: [i64; 5] = [0, -1, i64::MIN, i64::MAX, 1 << 40];
    let strings = ["", "a", "hello", "hello world"];
    let pointers = ["0", "1234", "7fff0000beef"];
    let mut out = Vec::new();
    for f in &flags {
        for w in widths {
            for p in precisions {
                let spec = format!("%{f}{w}{p}");
                for conv in ["d", "i", "u", "x", "X", "o", "hhd", "hu", "hhx", "c"] {
                    for v in ints {
                        out.push(('i', format!("<{spec}{conv}>"), v.to_string(), Arg::Int(v as u32 as u128)));
                    }
                }
                for conv in ["ld", "lu", "lx", "lo"] {
                    for v in longs {
                        out.push(('l', format!("<{spec}{conv}>"), v.to_string(), Arg::Int(v as u64 as u128)));
                    }
                }
                for conv in ["f", "e", "E", "g", "G", "F", "a", "A"] {
                    for &v in &doubles {
                        out.push((
                            'b',
                            format!("<{spec}{conv}>"),
                            format!("{:x}", v.to_bits()),
                            Arg::Double(v),
                        ));
                    }
                }
                for v in strings {
                    out.push((
                        's',
                        format!("<{spec}s>"),
                        v.to_string(),
                        Arg::Str(Some(v.as_bytes().to_vec())),
                    ));
                }
                out.push(('n', format!("<{spec}s>"), String::new(), Arg::Str(None)));
                for v in pointers {
                    let x = u64::from_str_radix(v, 16).unwrap();
                    out.push(('p', format!("<{spec}p>"), v.to_string(), Arg::Int(u128::from(x))));
                }
            }
        }
    }
    out
}

#[test]
fn formatter_renders_as_glibc() {
    let dir = tempfile::tempdir().unwrap();
    let bin = dir.path().join("printf_cases");
    let st = Command::new(common::toolchain().clang())
        .args(["-O1", "-w", "-o"])
        .arg(&bin)
        .arg(common::fixture("native/printf_cases.c"))
        .status()
        .unwrap();
    assert!(st.success());
    let cases = cases();
    let mut input = String::new();
    for (kind, fmt, val, _) in &cases {
        input.push_str(&format!("{kind}\t{fmt}\t{val}\n"));
    }
    let mut child = Command::new(&bin).stdin(Stdio::piped()).stdout(Stdio::piped()).spawn().unwrap();
    let mut stdin = child.stdin.take().unwrap();
    let writer = std::thread::spawn(move || stdin.write_all(input.as_bytes()));
    let out = child.wait_with_output().unwrap();
    assert!(out.status.success(), "{}", out.status);
    writer.join().unwrap().unwrap();
    let mut glibc: Vec<&[u8]> = Vec::new();
    let mut rest = &out.stdout[..];
    while let Some(colon) = rest.iter().position(|&b| b == b':') {
        let n: usize = std::str::from_utf8(&rest[..colon]).unwrap().parse().unwrap();
        glibc.push(&rest[colon + 1..colon + 1 + n]);
        rest = &rest[colon + 1 + n..];
    }
    assert_eq!(glibc.len(), cases.len(), "one result per case");
    // The first failure of each conversion and value, so that one wrong
    // value does not hide the others.
    let mut wrong = Vec::new();
    let mut seen = std::collections::HashSet::new();
    for ((_, fmt, val, arg), expected) in cases.iter().zip(&glibc) {
        let got = render(&parse(fmt.as_bytes()), std::slice::from_ref(arg));
        if got != *expected && seen.insert((fmt.as_bytes()[fmt.len() - 2], val)) {
            wrong.push(format!(
                "{fmt} of {val}: glibc {:?}, psychic {:?}",
                String::from_utf8_lossy(expected),
                String::from_utf8_lossy(&got)
            ));
        }
    }
    assert!(
        wrong.is_empty(),
        "{} (conversion, value) pairs fail, of {} cases:\n{}",
        wrong.len(),
        cases.len(),
        wrong[..wrong.len().min(80)].join("\n")
    );
}
