//! Outputs as a person reads them: shortened where they are long (a program
//! that loops printing makes megabytes; `report.json` and the page keep them
//! whole).

/// Outputs up to this many bytes are shown whole.
const WHOLE: usize = 200;
/// The bytes shown of a longer output.
const HEAD: usize = 100;

/// `s` escaped, whole when it is short; otherwise its head, its length and
/// its FNV-1a hash (of the UTF-8 text, as `report.json` has it), so that two
/// long outputs can be told apart or matched: `"1\n1\n"… (4,194,304 bytes,
/// fnv1a 0123456789abcdef)`.
pub fn output(s: &str) -> String {
    abridged(s, |t| format!("{t:?}"))
}

/// A `psychic_output` record (`NAME SIZE HEX`), shortened as [`output`] is.
pub fn annotation(a: &str) -> String {
    abridged(a, str::to_string)
}

fn abridged(s: &str, show: impl Fn(&str) -> String) -> String {
    if s.len() <= WHOLE {
        return show(s);
    }
    let head = &s[..s.floor_char_boundary(HEAD)];
    format!("{}… ({} bytes, fnv1a {:016x})", show(head), grouped(s.len()), fnv1a(s.as_bytes()))
}

/// `4194304` as `4,194,304`.
fn grouped(n: usize) -> String {
    let digits = n.to_string();
    let mut out = String::new();
    for (i, c) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i).is_multiple_of(3) {
            out.push(',');
        }
        out.push(c);
    }
    out
}

/// 64-bit FNV-1a, the hash the fuzz server compares outputs by.
fn fnv1a(bytes: &[u8]) -> u64 {
    bytes.iter().fold(0xcbf2_9ce4_8422_2325, |h, &b| (h ^ u64::from(b)).wrapping_mul(0x0100_0000_01b3))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn long_outputs_show_their_head_length_and_hash() {
        assert_eq!(output("B\n"), r#""B\n""#);
        let whole = "x".repeat(WHOLE);
        assert_eq!(output(&whole), format!("{whole:?}"));
        let ones = "1\n".repeat(2_097_152);
        let shown = output(&ones);
        let head = format!("{:?}", "1\n".repeat(HEAD / 2));
        assert_eq!(shown, format!("{head}… (4,194,304 bytes, fnv1a {:016x})", fnv1a(ones.as_bytes())));
        assert!(shown.len() < 2 * WHOLE, "{shown}");
        // Stable, and different outputs of one length differ in the hash.
        assert_eq!(output(&ones), shown);
        let twos = format!("{}2\n", "1\n".repeat(2_097_151));
        assert_ne!(output(&twos), shown);
        // The head is cut at a character boundary.
        let wide = "é".repeat(WHOLE);
        assert!(output(&wide).starts_with(&format!("{:?}…", "é".repeat(HEAD / 2))));
        assert_eq!(annotation(&format!("ret!f 4 {}", "ab".repeat(200))).split(' ').nth(3), Some("(408"));
        assert_eq!(fnv1a(b""), 0xcbf2_9ce4_8422_2325);
        assert_eq!(fnv1a(b"a"), 0xaf63_dc4c_8601_ec8c);
        assert_eq!(
            [grouped(0), grouped(999), grouped(1000), grouped(4_194_304)],
            ["0", "999", "1,000", "4,194,304"]
        );
    }
}
