//! Mutations that know the input's shape: the `klee_make_symbolic` objects
//! (their sizes, so a value lands whole in one) and the numbers in stdin's
//! text. They write the program's own constants and their neighbours, small
//! integers (also as floats: scores, amounts), and nudges of a value by a few
//! units or ulps. LibAFL's byte-level havoc runs beside them.
//!
//! In its own stage beside LibAFL's byte havoc: one object set to a constant of
//! the program or its neighbour (±1, ±1 ulp as float and double:
//! `constants.rs`, from the meta program's literals), a small number, or a
//! nudge; every object at once to whole numbers in the range the domain has
//! shown (unstacked, so that sums meeting a threshold survive); a number of
//! stdin's text replaced. Which objects hold floats is learnt from the engine's
//! models.

use std::borrow::Cow;
use std::cell::RefCell;
use std::num::NonZero;
use std::rc::Rc;

use libafl::Error;
use libafl::inputs::{BytesInput, HasMutatorBytes};
use libafl::mutators::{MutationResult, Mutator};
use libafl::state::HasRand;
use libafl_bolts::Named;
use libafl_bolts::rands::Rand;

use super::constants::Constants;
use super::server::Slot;
use crate::posix::ArgSlots;

/// A mutator of the input's layout: the struct, `new` and LibAFL's name.
macro_rules! layout_mutator {
    ($(#[$doc:meta])* $name:ident) => {
        $(#[$doc])*
        pub struct $name {
            layout: Rc<Layout>,
        }

        impl $name {
            pub fn new(layout: Rc<Layout>) -> Self {
                $name { layout }
            }
        }

        impl Named for $name {
            fn name(&self) -> &Cow<'static, str> {
                static NAME: Cow<'static, str> = Cow::Borrowed(stringify!($name));
                &NAME
            }
        }
    };
}

/// Where an input's parts are: objects in the shape's order, then the
/// symbolic arguments' slots, then stdin.
#[derive(Debug, Default)]
pub struct Layout {
    pub slots: Vec<Slot>,
    pub args: ArgSlots,
    /// The most bytes a run's stdin holds: the command line's `--sym-stdin
    /// N`. None: stdin is no input of the run (the engine's and native
    /// replay's stdin is empty), and a run gets none, whatever the input's
    /// tail holds, so that every test lies in the domain the report names.
    pub stdin: Option<usize>,
    /// The program read stdin when the server probed its shape: worth
    /// mutating as text.
    pub reads_stdin: bool,
    pub constants: Constants,
    /// Per slot: holds a float, as far as the engine's inputs tell.
    floats: RefCell<Vec<Option<bool>>>,
    /// Per slot: the least and greatest whole values of the engine's inputs,
    /// which lie in the program's domain (its `klee_assume`s hold on them).
    seen: RefCell<Vec<Option<(i64, i64)>>>,
}

impl Layout {
    pub fn new(
        slots: Vec<Slot>,
        args: ArgSlots,
        stdin: Option<usize>,
        reads_stdin: bool,
        constants: Constants,
    ) -> Self {
        let floats = RefCell::new(vec![None; slots.len()]);
        let seen = RefCell::new(vec![None; slots.len()]);
        Layout { slots, args, stdin, reads_stdin, constants, floats, seen }
    }

    /// An input's parts: its objects' bytes, its argument slots' bytes and
    /// the stdin a run gets (cut to [`Layout::stdin`]).
    pub fn split<'a>(&self, bytes: &'a [u8]) -> (&'a [u8], &'a [u8], &'a [u8]) {
        let (objects, rest) = bytes.split_at(bytes.len().min(self.object_bytes()));
        let (slots, text) = rest.split_at(rest.len().min(self.args.bytes()));
        (objects, slots, &text[..text.len().min(self.stdin.unwrap_or(0))])
    }

    /// Whether stdin's text is worth mutating.
    fn mutates_stdin(&self) -> bool {
        self.reads_stdin && self.stdin.is_some_and(|n| n > 0)
    }

    /// Learns from an input the engine found which objects hold floats: a
    /// model of a float constraint reads as a plain number as a float and as
    /// a huge integer, a model of an integer constraint the other way round.
    /// Its values are in the domain, as [`Layout::widen`] says.
    pub fn learn(&self, input: &[u8]) {
        let mut floats = self.floats.borrow_mut();
        let mut at = 0;
        for (i, slot) in self.slots.iter().enumerate() {
            let Some(b) = input.get(at..at + slot.size) else { break };
            at += slot.size;
            if !matches!(slot.size, 4 | 8) {
                continue;
            }
            let (Number::Int(int), Number::Float(float)) = (read(b, false), read(b, true)) else { continue };
            let plain_float = float.is_finite() && (1e-6..1e9).contains(&float.abs());
            let plain_int = int.unsigned_abs() < 1 << 20;
            if plain_float != plain_int && floats[i] != Some(plain_float) {
                floats[i] = Some(plain_float);
                // The values seen so far were read the other way: a float's
                // bits as an integer span nearly everything.
                self.seen.borrow_mut()[i] = None;
            }
        }
        drop(floats);
        self.widen(input);
    }

    /// Widens the range of each slot to the values of `input`, which lies in
    /// the program's domain.
    pub fn widen(&self, input: &[u8]) {
        let floats = self.floats.borrow();
        let mut seen = self.seen.borrow_mut();
        let mut at = 0;
        for (i, slot) in self.slots.iter().enumerate() {
            let Some(b) = input.get(at..at + slot.size) else { break };
            at += slot.size;
            if !matches!(slot.size, 1 | 2 | 4 | 8) {
                continue;
            }
            let (Number::Int(int), Number::Float(float)) = (read(b, false), read(b, true)) else { continue };
            let whole = match floats[i] {
                Some(true) if float.is_finite() => float as i64,
                Some(true) => continue,
                _ => int,
            };
            seen[i] = Some(seen[i].map_or((whole, whole), |(lo, hi)| (lo.min(whole), hi.max(whole))));
        }
    }

    /// A whole number for slot `i`: within what the engine's inputs spanned
    /// where they span more than one value, else in `0..=scale`.
    fn whole(&self, i: usize, rand: &mut impl Rand) -> i64 {
        let (lo, hi) = match self.seen.borrow()[i] {
            Some((lo, hi)) if lo < hi => (lo, hi),
            _ => (0, self.scale()),
        };
        let span = (hi as i128 - lo as i128 + 1).min(usize::MAX as i128) as usize;
        lo.wrapping_add(rand.below(NonZero::new(span).expect("lo <= hi")) as i64)
    }

    /// Whether to write slot `i` as a float: as learnt, mostly.
    fn as_float(&self, i: usize, rand: &mut impl Rand) -> bool {
        match self.floats.borrow()[i] {
            Some(f) if !rand.coinflip(0.1) => f,
            _ => rand.coinflip(0.5),
        }
    }

    pub fn object_bytes(&self) -> usize {
        self.slots.iter().map(|s| s.size).sum()
    }

    /// Where stdin's text starts: after the objects and the arguments.
    pub fn text_start(&self) -> usize {
        self.object_bytes() + self.args.bytes()
    }

    /// The largest magnitude of the program's integer constants, at least 16
    /// and at most 100,000: the range small random integers come from.
    fn scale(&self) -> i64 {
        self.constants.ints.iter().map(|c| c.saturating_abs()).max().unwrap_or(0).clamp(16, 100_000)
    }

    /// A value for a number: a constant or its neighbour, a small integer, or
    /// `current` nudged.
    fn number(&self, rand: &mut impl Rand, current: Number) -> Number {
        let c = &self.constants;
        let mut below = |n: usize| rand.below(NonZero::new(n.max(1)).expect("max(1)"));
        let small = |below: &mut dyn FnMut(usize) -> usize| {
            let scale = self.scale();
            below((4 * scale + 1) as usize) as i64 - 2 * scale
        };
        match below(5) {
            0 => Number::Int(c.ints[below(c.ints.len())]),
            1 => Number::Float(c.doubles[below(c.doubles.len())]),
            2 => Number::Int(small(&mut below)),
            3 => Number::Float(small(&mut below) as f64),
            _ => {
                let step = below(16) as i64 + 1;
                let step = if below(2) == 0 { step } else { -step };
                match current {
                    Number::Int(v) => Number::Int(v.wrapping_add(step)),
                    Number::Float(v) if below(2) == 0 => Number::Float(v + step as f64),
                    Number::Float(v) => Number::Float(f64::from_bits(v.to_bits().wrapping_add(step as u64))),
                }
            }
        }
    }
}

layout_mutator! {
    /// Sets every numeric object at once to a whole number in the range the
    /// domain has shown, or to one of the program's constants (as a float where
    /// the object holds one): inputs such as three scores
    /// whose sum meets a threshold, which one object at a time reaches only by
    /// luck.
    AllObjects
}

impl<S: HasRand> Mutator<BytesInput, S> for AllObjects {
    fn mutate(&mut self, state: &mut S, input: &mut BytesInput) -> Result<MutationResult, Error> {
        let layout = &self.layout;
        if !layout.slots.iter().any(|s| matches!(s.size, 1 | 2 | 4 | 8)) {
            return Ok(MutationResult::Skipped);
        }
        let rand = state.rand_mut();
        let mut bytes = input.mutator_bytes().to_vec();
        bytes.resize(bytes.len().max(layout.object_bytes()), 0);
        let mut at = 0;
        for (i, slot) in layout.slots.iter().enumerate() {
            if matches!(slot.size, 1 | 2 | 4 | 8) {
                let as_float = layout.as_float(i, rand);
                let c = &layout.constants;
                let v = match rand.below(NonZero::new(4).expect("4")) {
                    0 if as_float => {
                        Number::Float(c.doubles[rand.below(NonZero::new(c.doubles.len()).expect("0.0"))])
                    }
                    0 => Number::Int(c.ints[rand.below(NonZero::new(c.ints.len()).expect("0"))]),
                    _ => Number::Int(layout.whole(i, rand)),
                };
                let written = encode(v, slot.size, as_float);
                bytes[at..at + slot.size].copy_from_slice(&written[..slot.size]);
            }
            at += slot.size;
        }
        *input = BytesInput::new(bytes);
        Ok(MutationResult::Mutated)
    }

    fn post_exec(&mut self, _: &mut S, _: Option<libafl::corpus::CorpusId>) -> Result<(), Error> {
        Ok(())
    }
}

/// `v` in an object of `size` bytes: as a float of that size where it is one
/// and `as_float` asks for it (a `Float` always), else as an integer.
fn encode(v: Number, size: usize, as_float: bool) -> [u8; 8] {
    match (v, size) {
        (Number::Float(v), 4) => ((v as f32).to_bits() as u64).to_le_bytes(),
        (Number::Float(v), 8) => v.to_bits().to_le_bytes(),
        (Number::Float(v), _) => (v as i64).to_le_bytes(),
        (Number::Int(v), 4) if as_float => ((v as f32).to_bits() as u64).to_le_bytes(),
        (Number::Int(v), 8) if as_float => (v as f64).to_bits().to_le_bytes(),
        (Number::Int(v), _) => v.to_le_bytes(),
    }
}

#[derive(Debug, Clone, Copy)]
enum Number {
    Int(i64),
    Float(f64),
}

layout_mutator! {
    /// Sets one object of the input to a new number, written as an integer or as
    /// a float of the object's size.
    ObjectValue
}

impl<S: HasRand> Mutator<BytesInput, S> for ObjectValue {
    fn mutate(&mut self, state: &mut S, input: &mut BytesInput) -> Result<MutationResult, Error> {
        let layout = &self.layout;
        let numeric: Vec<usize> =
            (0..layout.slots.len()).filter(|&i| matches!(layout.slots[i].size, 1 | 2 | 4 | 8)).collect();
        if numeric.is_empty() {
            return Ok(MutationResult::Skipped);
        }
        let rand = state.rand_mut();
        let slot = numeric[rand.below(NonZero::new(numeric.len()).expect("not empty"))];
        let start: usize = layout.slots[..slot].iter().map(|s| s.size).sum();
        let size = layout.slots[slot].size;
        if input.mutator_bytes().len() < layout.object_bytes() {
            let mut bytes = input.mutator_bytes().to_vec();
            bytes.resize(layout.object_bytes(), 0);
            *input = BytesInput::new(bytes);
        }
        let bytes = &mut input.mutator_bytes_mut()[start..start + size];
        let as_float = size >= 4 && layout.as_float(slot, rand);
        let current = read(bytes, as_float);
        let new = layout.number(rand, current);
        let written = encode(new, size, as_float);
        if bytes == &written[..size] {
            return Ok(MutationResult::Skipped);
        }
        bytes.copy_from_slice(&written[..size]);
        Ok(MutationResult::Mutated)
    }

    fn post_exec(&mut self, _: &mut S, _: Option<libafl::corpus::CorpusId>) -> Result<(), Error> {
        Ok(())
    }
}

fn read(bytes: &[u8], as_float: bool) -> Number {
    let mut b = [0u8; 8];
    b[..bytes.len()].copy_from_slice(bytes);
    let raw = u64::from_le_bytes(b);
    match (bytes.len(), as_float) {
        (4, true) => Number::Float(f32::from_bits(raw as u32) as f64),
        (8, true) => Number::Float(f64::from_bits(raw)),
        (n, _) => {
            // Sign-extended from the object's width.
            let shift = 64 - 8 * n as u32;
            Number::Int(((raw << shift) as i64) >> shift)
        }
    }
}

layout_mutator! {
    /// Replaces a number in stdin's text (or appends one): the text as a person
    /// types it, where byte havoc mostly makes words that scanf refuses.
    StdinNumber
}

impl<S: HasRand> Mutator<BytesInput, S> for StdinNumber {
    fn mutate(&mut self, state: &mut S, input: &mut BytesInput) -> Result<MutationResult, Error> {
        let split = self.layout.text_start();
        let bytes = input.mutator_bytes();
        if !self.layout.mutates_stdin() || bytes.len() < split {
            return Ok(MutationResult::Skipped);
        }
        let text = &bytes[split..];
        let tokens = number_tokens(text);
        let rand = state.rand_mut();
        let (range, current) = if tokens.is_empty() || rand.coinflip(0.1) {
            let end = text.len();
            (end..end, Number::Int(0))
        } else {
            let r = tokens[rand.below(NonZero::new(tokens.len()).expect("not empty"))].clone();
            let word = std::str::from_utf8(&text[r.clone()]).unwrap_or("0");
            let current = word
                .parse::<i64>()
                .map(Number::Int)
                .unwrap_or_else(|_| Number::Float(word.parse::<f64>().unwrap_or(0.0)));
            (r, current)
        };
        let new = match self.layout.number(rand, current) {
            Number::Int(v) => v.to_string(),
            Number::Float(v) if v.is_finite() => format!("{v}"),
            Number::Float(_) => "0".to_string(),
        };
        let appended = range.is_empty();
        let mut out = bytes[..split + range.start].to_vec();
        if appended && !out.is_empty() && !out.ends_with(b" ") && !out.ends_with(b"\n") {
            out.push(b' ');
        }
        out.extend_from_slice(new.as_bytes());
        if appended {
            out.push(b'\n');
        }
        out.extend_from_slice(&bytes[split + range.end..]);
        *input = BytesInput::new(out);
        Ok(MutationResult::Mutated)
    }

    fn post_exec(&mut self, _: &mut S, _: Option<libafl::corpus::CorpusId>) -> Result<(), Error> {
        Ok(())
    }
}

layout_mutator! {
    /// Writes a word into one symbolic argument: one of the program's strings
    /// (`Constants::words`) or a number, NUL after it. Byte havoc mutates what
    /// it wrote from there.
    ArgWord
}

impl<S: HasRand> Mutator<BytesInput, S> for ArgWord {
    fn mutate(&mut self, state: &mut S, input: &mut BytesInput) -> Result<MutationResult, Error> {
        let layout = &self.layout;
        let slots = layout.args.words();
        if slots.is_empty() {
            return Ok(MutationResult::Skipped);
        }
        let rand = state.rand_mut();
        let (at, len) = slots[rand.below(NonZero::new(slots.len()).expect("not empty"))];
        let fitting: Vec<&Vec<u8>> = layout.constants.words.iter().filter(|w| w.len() <= len).collect();
        let word = if fitting.is_empty() || rand.coinflip(0.3) {
            match layout.number(rand, Number::Int(0)) {
                Number::Int(v) => v.to_string().into_bytes(),
                Number::Float(v) => format!("{v}").into_bytes(),
            }
        } else {
            fitting[rand.below(NonZero::new(fitting.len()).expect("not empty"))].clone()
        };
        let start = layout.object_bytes() + at;
        let mut bytes = input.mutator_bytes().to_vec();
        bytes.resize(bytes.len().max(layout.text_start()), 0);
        let slot = &mut bytes[start..start + len];
        let n = word.len().min(len);
        slot[..n].copy_from_slice(&word[..n]);
        slot[n..].fill(0);
        *input = BytesInput::new(bytes);
        Ok(MutationResult::Mutated)
    }

    fn post_exec(&mut self, _: &mut S, _: Option<libafl::corpus::CorpusId>) -> Result<(), Error> {
        Ok(())
    }
}

layout_mutator! {
    /// Puts one of the program's strings (`Constants::words`) into stdin's
    /// text, in place of a word or on a line of its own: a command, a
    /// keyword, `nan`, which byte havoc spells almost never (a fuzzer's
    /// dictionary, made from the program).
    StdinWord
}

impl<S: HasRand> Mutator<BytesInput, S> for StdinWord {
    fn mutate(&mut self, state: &mut S, input: &mut BytesInput) -> Result<MutationResult, Error> {
        let split = self.layout.text_start();
        let words = &self.layout.constants.words;
        let bytes = input.mutator_bytes();
        if !self.layout.mutates_stdin() || bytes.len() < split || words.is_empty() {
            return Ok(MutationResult::Skipped);
        }
        let text = &bytes[split..];
        let rand = state.rand_mut();
        let word = &words[rand.below(NonZero::new(words.len()).expect("not empty"))];
        let spans: Vec<std::ops::Range<usize>> = text
            .split(|b| b.is_ascii_whitespace())
            .scan(0, |at, w| {
                let r = *at..*at + w.len();
                *at += w.len() + 1;
                Some(r)
            })
            .filter(|r| !r.is_empty())
            .collect();
        let mut out = bytes[..split].to_vec();
        if spans.is_empty() || rand.coinflip(0.3) {
            out.extend_from_slice(text);
            if !text.is_empty() && !text.ends_with(b"\n") {
                out.push(b'\n');
            }
            out.extend_from_slice(word);
            out.push(b'\n');
        } else {
            let r = spans[rand.below(NonZero::new(spans.len()).expect("not empty"))].clone();
            out.extend_from_slice(&text[..r.start]);
            out.extend_from_slice(word);
            out.extend_from_slice(&text[r.end..]);
        }
        *input = BytesInput::new(out);
        Ok(MutationResult::Mutated)
    }

    fn post_exec(&mut self, _: &mut S, _: Option<libafl::corpus::CorpusId>) -> Result<(), Error> {
        Ok(())
    }
}

/// The byte ranges of the numbers in `text`: an optional sign, digits, and a
/// fraction or exponent.
fn number_tokens(text: &[u8]) -> Vec<std::ops::Range<usize>> {
    let mut out = Vec::new();
    let mut i = 0;
    while i < text.len() {
        let signed = matches!(text[i], b'-' | b'+') && text.get(i + 1).is_some_and(u8::is_ascii_digit);
        if !(text[i].is_ascii_digit() || signed) {
            i += 1;
            continue;
        }
        let start = i;
        i += 1;
        while i < text.len()
            && (text[i].is_ascii_digit()
                || text[i] == b'.'
                || matches!(text[i], b'e' | b'E')
                || (matches!(text[i], b'-' | b'+') && matches!(text[i - 1], b'e' | b'E')))
        {
            i += 1;
        }
        out.push(start..i);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn numbers_in_text() {
        let t = b"grade 89.5 -3 1e-5 x7";
        let words: Vec<&[u8]> = number_tokens(t).into_iter().map(|r| &t[r]).collect();
        assert_eq!(words, [&b"89.5"[..], b"-3", b"1e-5", b"7"]);
    }

    #[test]
    fn objects_read_sign_extended() {
        assert!(matches!(read(&[0xff, 0xff], false), Number::Int(-1)));
        assert!(matches!(read(&1.5f32.to_le_bytes(), true), Number::Float(v) if v == 1.5));
    }
}
