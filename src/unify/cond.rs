//! The value of an `#if` condition, as the preprocessor computes it, where
//! unify must choose a branch itself: inside an initializer, where the
//! grammar reads no directive (coreutils' sort.c builds `unit_order` under
//! `#if ! ('K' == 75 && ...)`). Integer and character literals, `defined`,
//! the object-like macros in force (expanded as the preprocessor does), the
//! C operators; any other identifier is 0, as in C. What it cannot compute
//! exactly (a function-like macro, an unsigned literal, a division by zero,
//! an overflow) gives `None`, and the branch is not chosen.

/// A macro as the condition sees it: `None` for a function-like one.
pub(crate) type Lookup<'a> = &'a dyn Fn(&str) -> Option<Option<String>>;

/// The value of `condition`; `lookup(name)` is `None` for a name no macro
/// holds, `Some(None)` for a function-like macro, `Some(Some(body))` for an
/// object-like one.
pub(crate) fn eval(condition: &str, lookup: Lookup) -> Option<i64> {
    let tokens = expand(tokenize(condition)?, lookup, 0)?;
    let mut p = Parser { tokens, at: 0 };
    let v = p.ternary()?;
    (p.at == p.tokens.len()).then_some(v)
}

#[derive(Debug, Clone, PartialEq)]
enum Tok {
    Num(i64),
    Ident(String),
    Punct(&'static str),
}

const PUNCTS: &[&str] = &[
    "<<", ">>", "<=", ">=", "==", "!=", "&&", "||", "(", ")", "!", "~", "-", "+", "*", "/", "%", "<", ">",
    "&", "^", "|", "?", ":",
];

fn tokenize(text: &str) -> Option<Vec<Tok>> {
    let b = text.as_bytes();
    let mut out = Vec::new();
    let mut i = 0;
    while i < b.len() {
        let c = b[i];
        if c.is_ascii_whitespace() || (c == b'\\' && b.get(i + 1).is_some_and(|n| *n == b'\n' || *n == b'\r'))
        {
            i += 1;
        } else if text[i..].starts_with("/*") {
            i = text[i + 2..].find("*/").map(|e| i + 2 + e + 2)?;
        } else if text[i..].starts_with("//") {
            break;
        } else if c.is_ascii_digit() {
            let len = text[i..].find(|ch: char| !ch.is_ascii_alphanumeric()).unwrap_or(text.len() - i);
            out.push(Tok::Num(number(&text[i..i + len])?));
            i += len;
        } else if c == b'\'' {
            let (v, len) = char_literal(&text[i..])?;
            out.push(Tok::Num(v));
            i += len;
        } else if c.is_ascii_alphabetic() || c == b'_' {
            let len = text[i..]
                .find(|ch: char| !(ch.is_ascii_alphanumeric() || ch == '_'))
                .unwrap_or(text.len() - i);
            out.push(Tok::Ident(text[i..i + len].to_string()));
            i += len;
        } else {
            let p = PUNCTS.iter().find(|p| text[i..].starts_with(**p))?;
            out.push(Tok::Punct(p));
            i += p.len();
        }
    }
    Some(out)
}

/// A signed integer literal; an unsigned one (`u` suffix) compares
/// otherwise, and is left to the preprocessor.
fn number(t: &str) -> Option<i64> {
    let lower = t.to_ascii_lowercase();
    let body = lower.trim_end_matches('l');
    if body.contains('u') {
        return None;
    }
    if let Some(h) = body.strip_prefix("0x") {
        i64::from_str_radix(h, 16).ok()
    } else if body.len() > 1 && body.starts_with('0') {
        i64::from_str_radix(&body[1..], 8).ok()
    } else {
        body.parse().ok()
    }
}

/// A plain character literal's value and length: one character or a simple
/// escape.
fn char_literal(t: &str) -> Option<(i64, usize)> {
    let b = t.as_bytes();
    match (b.get(1)?, b.get(2)?, b.get(3)) {
        (b'\\', e, Some(b'\'')) => {
            let v = match e {
                b'n' => b'\n',
                b't' => b'\t',
                b'0' => 0,
                b'\\' | b'\'' | b'"' => *e,
                _ => return None,
            };
            Some((v as i64, 4))
        }
        (c, b'\'', _) if c.is_ascii() && *c != b'\\' => Some((*c as i64, 3)),
        _ => None,
    }
}

/// `defined X`, `defined (X)` and the object-like macros replaced, as the
/// preprocessor does before it computes.
fn expand(tokens: Vec<Tok>, lookup: Lookup, depth: usize) -> Option<Vec<Tok>> {
    if depth > 32 {
        return None;
    }
    let mut out = Vec::new();
    let mut it = tokens.into_iter().peekable();
    while let Some(t) = it.next() {
        let Tok::Ident(name) = t else {
            out.push(t);
            continue;
        };
        if name == "defined" {
            let paren = it.next_if_eq(&Tok::Punct("(")).is_some();
            let Some(Tok::Ident(x)) = it.next() else { return None };
            if paren && it.next() != Some(Tok::Punct(")")) {
                return None;
            }
            out.push(Tok::Num(lookup(&x).is_some() as i64));
            continue;
        }
        match lookup(&name) {
            None => out.push(Tok::Num(0)),
            Some(None) => return None,
            Some(Some(body)) => out.extend(expand(tokenize(&body)?, lookup, depth + 1)?),
        }
    }
    Some(out)
}

struct Parser {
    tokens: Vec<Tok>,
    at: usize,
}

impl Parser {
    fn peek(&self) -> Option<&'static str> {
        match self.tokens.get(self.at) {
            Some(Tok::Punct(p)) => Some(p),
            _ => None,
        }
    }

    fn ternary(&mut self) -> Option<i64> {
        let c = self.binary(1)?;
        if self.peek() != Some("?") {
            return Some(c);
        }
        self.at += 1;
        let a = self.ternary()?;
        (self.peek() == Some(":")).then_some(())?;
        self.at += 1;
        let b = self.ternary()?;
        Some(if c != 0 { a } else { b })
    }

    fn binary(&mut self, min: u8) -> Option<i64> {
        let mut left = self.unary()?;
        while let Some(op) = self.peek() {
            let prec = precedence(op);
            if prec < min || prec == 0 {
                break;
            }
            self.at += 1;
            let right = self.binary(prec + 1)?;
            left = apply(op, left, right)?;
        }
        Some(left)
    }

    fn unary(&mut self) -> Option<i64> {
        let t = self.tokens.get(self.at)?.clone();
        self.at += 1;
        match t {
            Tok::Num(v) => Some(v),
            Tok::Punct("(") => {
                let v = self.ternary()?;
                (self.peek() == Some(")")).then_some(())?;
                self.at += 1;
                Some(v)
            }
            Tok::Punct("!") => Some((self.unary()? == 0) as i64),
            Tok::Punct("~") => Some(!self.unary()?),
            Tok::Punct("-") => self.unary()?.checked_neg(),
            Tok::Punct("+") => self.unary(),
            _ => None,
        }
    }
}

fn precedence(op: &str) -> u8 {
    match op {
        "*" | "/" | "%" => 10,
        "+" | "-" => 9,
        "<<" | ">>" => 8,
        "<" | "<=" | ">" | ">=" => 7,
        "==" | "!=" => 6,
        "&" => 5,
        "^" => 4,
        "|" => 3,
        "&&" => 2,
        "||" => 1,
        _ => 0,
    }
}

fn apply(op: &str, a: i64, b: i64) -> Option<i64> {
    Some(match op {
        "*" => a.checked_mul(b)?,
        "/" => a.checked_div(b)?,
        "%" => a.checked_rem(b)?,
        "+" => a.checked_add(b)?,
        "-" => a.checked_sub(b)?,
        "<<" => a.checked_shl(u32::try_from(b).ok()?)?,
        ">>" => a.checked_shr(u32::try_from(b).ok()?)?,
        "<" => (a < b) as i64,
        "<=" => (a <= b) as i64,
        ">" => (a > b) as i64,
        ">=" => (a >= b) as i64,
        "==" => (a == b) as i64,
        "!=" => (a != b) as i64,
        "&" => a & b,
        "^" => a ^ b,
        "|" => a | b,
        "&&" => (a != 0 && b != 0) as i64,
        "||" => (a != 0 || b != 0) as i64,
        _ => return None,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn with(macros: &[(&str, Option<&str>)]) -> impl Fn(&str) -> Option<Option<String>> {
        let m: Vec<(String, Option<String>)> =
            macros.iter().map(|(n, b)| (n.to_string(), b.map(str::to_string))).collect();
        move |name| m.iter().find(|(n, _)| n == name).map(|(_, b)| b.clone())
    }

    #[test]
    fn conditions_as_the_preprocessor_computes_them() {
        let l = with(&[("A", Some("2")), ("B", Some("A * 3")), ("F", None)]);
        let cases = [
            ("! ('K' == 75 && 'M' == 77 && 'k' == 107)", Some(0)),
            ("'K' == 75 \\\n && 'E' == 69", Some(1)),
            ("defined A && !defined(NOPE)", Some(1)),
            ("B == 6 && UNKNOWN == 0", Some(1)),
            ("1 + 2 * 3 << 1 == 14 ? 5 : 6", Some(5)),
            ("-1 < 0 || 1 / 0", None),
            ("F (1)", None),
            ("1u == 1", None),
            ("0x10 + 010 /* sixteen and eight */", Some(24)),
            ("(1", None),
        ];
        for (text, want) in cases {
            assert_eq!(eval(text, &l), want, "{text}");
        }
    }
}
