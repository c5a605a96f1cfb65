//! The program's own constants, and their neighbours: the values at which its
//! branches turn (`x < 60` turns between 59 and 60), which random bytes hit
//! almost never.

/// Integer and floating-point values to try, each with its neighbours, and
/// words for the program's arguments.
#[derive(Debug, Clone, Default)]
pub struct Constants {
    pub ints: Vec<i64>,
    pub doubles: Vec<f64>,
    pub words: Vec<Vec<u8>>,
}

impl Constants {
    /// The literals of a C program: integers `c - 1`, `c`, `c + 1` (a
    /// floating literal counts by its whole part too), doubles `c` and their
    /// neighbours as doubles and as floats.
    pub fn of_program(text: &str) -> Constants {
        let mut ints = vec![0, 1, -1];
        let mut doubles = vec![0.0, -0.0, 1.0, -1.0];
        let (numbers, strings) = crate::unify::literals(text);
        for lit in numbers {
            let Some(v) = parse_literal(&lit) else { continue };
            match v {
                Literal::Int(c) => {
                    ints.extend([c.wrapping_sub(1), c, c.wrapping_add(1)]);
                    doubles.push(c as f64);
                }
                Literal::Float(c) => {
                    ints.extend([c.floor() as i64, c.ceil() as i64]);
                    doubles.push(c);
                }
            }
        }
        let mut around = Vec::new();
        for &d in &doubles {
            around.extend([d, d.next_up(), d.next_down()]);
            let f = d as f32;
            around.extend([f as f64, f.next_up() as f64, f.next_down() as f64]);
        }
        ints.sort_unstable();
        ints.dedup();
        around.sort_by(f64::total_cmp);
        around.dedup_by(|a, b| a.to_bits() == b.to_bits());
        let mut words = words(strings);
        if reads_floats(text) {
            words.extend(FLOAT_SPELLINGS.iter().map(|w| w.as_bytes().to_vec()));
            words.sort_unstable();
            words.dedup();
        }
        Constants { ints, doubles: around, words }
    }
}

/// What `strtod` reads besides digits: words random bytes never spell, and
/// where number parsing turns (NaN's sign, overflow, hex floats).
const FLOAT_SPELLINGS: &[&str] = &["nan", "-nan", "NaN", "inf", "-inf", "infinity", "0x1p-2", "1e999", "-0"];

/// Whether the program reads floating-point numbers from text: it names
/// `strtod`, `strtof`, `strtold` (gnulib's `xstrtod` and `c_strtold`
/// too) or `atof`.
fn reads_floats(text: &str) -> bool {
    text.split(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))
        .any(|w| w == "atof" || ["strtod", "strtof", "strtold"].iter().any(|f| w.ends_with(f)))
}

/// Words a command line may hold, from the program's strings: each string
/// (a sub-command, a keyword, an operator of `test`), `--` before one that
/// reads as a long option's name, and `-c` for each letter of one that reads
/// as getopt's short options ("n:i:e"). Random bytes make an option almost
/// never, and past the option parser is where the program's work is.
fn words(strings: Vec<String>) -> Vec<Vec<u8>> {
    let mut out: Vec<Vec<u8>> = Vec::new();
    for lit in strings {
        if lit.is_empty() || lit.len() > 64 || lit.contains('\\') {
            continue;
        }
        let b = lit.as_bytes();
        if b[0].is_ascii_alphabetic() && b.iter().all(|&c| c.is_ascii_alphanumeric() || c == b'-') {
            out.push([b"--", b].concat());
        }
        if b.iter().all(|&c| c.is_ascii_alphanumeric() || matches!(c, b':' | b'+')) {
            out.extend(b.iter().filter(|c| c.is_ascii_alphanumeric()).map(|&c| vec![b'-', c]));
        }
        out.push(b.to_vec());
    }
    out.sort_unstable();
    out.dedup();
    out
}

enum Literal {
    Int(i64),
    Float(f64),
}

/// A C number or character literal's value; `None` for what it cannot read
/// (wide characters, escapes other than the simple ones).
fn parse_literal(text: &str) -> Option<Literal> {
    if let Some(body) = text.strip_prefix('\'').and_then(|t| t.strip_suffix('\'')) {
        let c = match body.as_bytes() {
            [c] => *c,
            [b'\\', e] => match e {
                b'n' => b'\n',
                b't' => b'\t',
                b'0' => 0,
                b'\\' | b'\'' | b'"' => *e,
                _ => return None,
            },
            _ => return None,
        };
        return Some(Literal::Int(c as i64));
    }
    let lower = text.to_ascii_lowercase().replace('\'', "");
    let hex = lower.starts_with("0x");
    let is_float = if hex { lower.contains('p') || lower.contains('.') } else { lower.contains(['.', 'e']) };
    if is_float {
        let body = lower.trim_end_matches(['f', 'l']);
        return body.parse::<f64>().ok().map(Literal::Float);
    }
    let body = lower.trim_end_matches(['u', 'l']);
    let v = if let Some(h) = body.strip_prefix("0x") {
        u64::from_str_radix(h, 16).ok()?
    } else if let Some(b) = body.strip_prefix("0b") {
        u64::from_str_radix(b, 2).ok()?
    } else if body.len() > 1 && body.starts_with('0') {
        u64::from_str_radix(&body[1..], 8).ok()?
    } else {
        body.parse::<u64>().ok()?
    };
    Some(Literal::Int(v as i64))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn literals_and_their_neighbours() {
        let c = Constants::of_program(
            "int f(int x, double d) { return x < 0x3c && d >= 89.5f && x != 'a' && x > 010; }",
        );
        for v in [59, 60, 61, 96, 97, 98, 7, 8, 9, 89, 90] {
            assert!(c.ints.contains(&v), "{v} missing from {:?}", c.ints);
        }
        assert!(c.doubles.contains(&89.5));
        assert!(c.doubles.contains(&89.5f64.next_up()));
        assert!(c.doubles.contains(&(89.5f32.next_down() as f64)));
    }

    #[test]
    fn options_from_strings() {
        let c = Constants::of_program(
            r#"int main(int c, char **v) { getopt(c, v, "n:i"); puts("-a"); puts("debug"); puts("a\n"); }"#,
        );
        for w in ["-n", "-i", "n:i", "-a", "--debug", "debug"] {
            assert!(c.words.contains(&w.as_bytes().to_vec()), "{w} missing from {:?}", c.words);
        }
        assert!(!c.words.iter().any(|w| w.contains(&b'\\')), "{:?}", c.words);
        assert!(!c.words.contains(&b"nan".to_vec()), "no float is read here");
        // A program that reads floats gets what strtod reads besides digits.
        let c = Constants::of_program("int main(void) { return xstrtod(\"1\", 0, 0, strtold) > 0; }");
        for w in ["nan", "-nan", "inf"] {
            assert!(c.words.contains(&w.as_bytes().to_vec()), "{w} missing from {:?}", c.words);
        }
    }
}
