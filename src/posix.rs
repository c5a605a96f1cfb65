//! The symbolic environment, KLEE's POSIX runtime conventions: the words of a
//! program's command line (`--sym-arg N`, `--sym-args MIN MAX N`,
//! `--sym-stdin N`, `--sym-files K N`, `--stdin-model tokens|bytes`, and
//! concrete words), the ktest objects the libc model makes for them
//! (`runtime/symbolic/posix.c`), the rendering of stdin tokens into the
//! `stdin` object, and what a native replay feeds the program (argv, stdin,
//! files).
//!
//! `runtime/symbolic/posix.c` is the C half:
//! - `__psychic_posix_main(argc, argv)` is where the engine starts when the
//!   command line has a symbolic option (`entry_point`): it parses the words as
//!   `klee_init_env` does (`--sym-arg N`: object `argNN` of N+1 bytes, the last
//!   forced to NUL; `--sym-args MIN MAX N`: `n_args` from `klee_range`, and the
//!   loop over it forks per count; `--sym-files K N`: `A-data` and
//!   `A-data-stat` ...; `--sym-stdin N`: `stdin` and `stdin-stat`; then
//!   `model_version` = 1), in KLEE's object order, and calls `main`.
//! - stdin is **exactly N bytes**, as in KLEE (`stdin-stat`'s `st_size` is
//!   assumed equal to N); a shorter input is expressed by its content (a
//!   newline, spaces). Without `--sym-stdin` stdin is empty.
//! - Streams: stdin and files are `vfile`s (data, stdio position, buffered end,
//!   descriptor position). stdio fills its buffer as glibc does, one `read` of
//!   up to BUFSIZ bytes, so a `read(0, ...)` after `getline` sees what glibc
//!   would. getchar, fgetc, getc, ungetc, fgets, fread, getline/getdelim, read,
//!   feof, fileno, fopen/open of `A`...`Z` (any directory), fclose/close. Bytes
//!   are compared with `|` chains, so a class test (space, digit) forks once.
//! - scanf, fscanf, sscanf, vsscanf (under their `__isoc99_`/`__isoc23_` names
//!   too): `%d %i %u %o %x %X %c %s %[...] %n %%`, the floats `%f %F %e %E %g
//!   %G %a %A`, `*`, widths, and `hh h l ll j z t L q` (for a float, `ll L q`
//!   are long double, `l j z t` double, as in glibc). Integers are collected as
//!   glibc does and converted by the model's `strtoll`/`strtoull`. Floats
//!   likewise: glibc's gathering (sign, `nan`, `inf`/`infinity`, `0x`, digits,
//!   one `.`, an `e`/`p` exponent; a mismatch inside `nan`/`inf` or a text
//!   without digits is a matching failure, "1e" reads 1 with the `e` consumed),
//!   then the model's `strtof`/`strtod`. A decimal of at most 15 digits (float:
//!   7) with a decimal exponent within ±22 (±10) is converted in C by Clinger's
//!   fast path (the digits as an integer, exact in the type, times or divided by
//!   an exact power of ten: one correctly rounded operation, as glibc's result
//!   is). Anything else (more digits, larger exponents, hex, NaN payloads,
//!   `%Lf`) goes through the engine's `__psychic_parse_float` hook: the text's
//!   bytes are concretised (recorded) and converted by the host's glibc, which
//!   is what the native replay runs. `%p`, `%lc`/`%ls`, an unterminated `%[` and
//!   a float text over 64 bytes end the path with a `model` error naming the
//!   conversion and the format.
//!
//! **Stdin models** (`--stdin-model`, `StdinModel`). `bytes`: the above over
//! the N symbolic bytes; exact, but every digit forks. `tokens` (default), for
//! scanf on stdin only: an integer conversion without width makes one typed
//! input of the target's size, `stdin-tok-POS-KIND` (KIND `d` signed decimal,
//! `u` unsigned, `x` hex, `o` octal); a float conversion without width a double
//! (KIND `f`; `%f` into a float rounds it, so revisions that read one number as
//! a float and as a double share the token; the rendered text is one strtod
//! reads back and strtof reads as that rounding; `%Lf` reads bytes), its bits
//! assumed finite, infinite or the quiet NaN without payload; `%s` one of up to
//! width-or-N non-space bytes (NUL-padded; kind `s`). POS is the raw stdin byte
//! the token's text precedes. The raw byte after a token is its separator:
//! assumed not alphanumeric, and white space by whatever skips it; `%c`, `%[`,
//! literals and getchar/fgets read raw bytes, so `%c` after `%d` reads the
//! separator exactly. Each token needs a raw byte left for its separator, so N
//! bounds the number of tokens and `while (scanf(...) == 1)` ends.
//! `render_tokens` turns a model into the ktest: each token's text is inserted
//! before its raw byte in `stdin` (a float as Rust's shortest round-trip text,
//! `nan`/`-nan` for the NaNs), token objects are dropped, and `stdin-stat`'s
//! size becomes the rendered length; natively the program then reads the same
//! values. Inexact by design (paths are lost, never wrong ones added): in token
//! mode an integer read never fails or overflows, the separator is never e.g.
//! `,` where a format skips white space, and text glibc would accept beyond a
//! token (a leading `+`, `0x` for `%x`, a NaN payload, a float's `1e`) is never
//! produced; `bytes` mode has all of these. sscanf and fscanf on files always
//! parse bytes. diff-patches' native confirmation discards any candidate the
//! rendering gets wrong. A test written in token mode holds the rendered
//! `stdin`, not the tokens, so as a seed it guides only a byte-mode run.
//! (`benches/README.md` has what each model costs.)
//!
//! Tests and replay: `ExecConfig::argv` is `argv[0]` and the words, which
//! `__psychic_posix_main` parses; every ktest of a path is built by `path_ktest`
//! (the inputs in order, with their bytes, then `render_tokens`) and records the
//! words in its `args`, as KLEE does (`sym_argvs`/`sym_argv_len` are 0, KLEE's
//! legacy fields). `replay_env` gives, from a ktest, the argv (concrete words
//! and `argNN` values up to their NUL, `n_args` of them for `--sym-args`),
//! stdin (`stdin` cut to `stdin-stat`'s size) and files (`A-data` → `A`) a
//! native run gets; `crate::replay::run` writes the files into a scratch
//! directory that is the program's working directory. `parse_words` gives
//! errors that teach (stdin asked for twice, a missing number, MIN above MAX).

use std::ffi::OsString;
use std::os::unix::ffi::OsStringExt;

use crate::exec::{SymbolicObject, ktest_objects};
use crate::ktest::{KTest, Object};

/// The function the engine starts in when the environment is symbolic: it
/// makes the objects and calls `main` (KLEE's `klee_init_env`).
pub const POSIX_ENTRY: &str = "__psychic_posix_main";

/// `st_size` in the 144-byte `struct stat` of x86-64 glibc (`stdin-stat`,
/// `A-data-stat`).
const ST_SIZE: std::ops::Range<usize> = 48..56;

/// Symbolic arguments are named `arg00`..`arg99`.
const MAX_SYM_ARGS: u32 = 100;

#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, clap::ValueEnum)]
pub enum StdinModel {
    /// scanf's integer and float conversions and %s read typed tokens (fast).
    #[default]
    Tokens,
    /// stdin is parsed byte by byte, as glibc does (exact).
    Bytes,
}

impl StdinModel {
    fn word(self) -> &'static str {
        match self {
            StdinModel::Tokens => "tokens",
            StdinModel::Bytes => "bytes",
        }
    }
}

/// One part of a command line after argv[0].
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Word {
    Concrete(String),
    SymArg { len: u32 },
    SymArgs { min: u32, max: u32, len: u32 },
    SymStdin { len: u32 },
    SymFiles { count: u32, len: u32 },
    StdinModel(StdinModel),
}

impl Word {
    fn is_symbolic(&self) -> bool {
        !matches!(self, Word::Concrete(_) | Word::StdinModel(_))
    }
}

/// Parses command-line words as KLEE's POSIX runtime does: an option word
/// takes its numbers, anything else is a concrete argument.
pub fn parse_words(words: &[String]) -> Result<Vec<Word>, String> {
    let mut out = Vec::new();
    let mut it = words.iter();
    let (mut stdin, mut files, mut sym_args) = (false, false, 0u32);
    while let Some(w) = it.next() {
        let mut nums = |n: usize, usage: &str| -> Result<Vec<u32>, String> {
            (0..n)
                .map(|_| {
                    it.next().and_then(|x| x.parse::<u32>().ok()).ok_or_else(|| format!("expected `{usage}`"))
                })
                .collect()
        };
        let word = match w.as_str() {
            "--sym-arg" => Word::SymArg { len: nums(1, "--sym-arg N")?[0] },
            "--sym-args" => {
                let v = nums(3, "--sym-args MIN MAX N")?;
                if v[0] > v[1] {
                    return Err(format!("--sym-args {} {} {}: MIN is above MAX", v[0], v[1], v[2]));
                }
                Word::SymArgs { min: v[0], max: v[1], len: v[2] }
            }
            "--sym-stdin" => {
                let len = nums(1, "--sym-stdin N")?[0];
                if std::mem::replace(&mut stdin, true) {
                    return Err("stdin asked for twice: give --sym-stdin once".into());
                }
                Word::SymStdin { len }
            }
            "--sym-files" => {
                let v = nums(2, "--sym-files K N")?;
                if v[0] > 26 {
                    return Err(format!("--sym-files {} {}: at most 26 files (A to Z)", v[0], v[1]));
                }
                if std::mem::replace(&mut files, true) {
                    return Err("files asked for twice: give --sym-files once".into());
                }
                Word::SymFiles { count: v[0], len: v[1] }
            }
            "--stdin-model" => match it.next().map(String::as_str) {
                Some("tokens") => Word::StdinModel(StdinModel::Tokens),
                Some("bytes") => Word::StdinModel(StdinModel::Bytes),
                _ => return Err("expected `--stdin-model tokens` or `--stdin-model bytes`".into()),
            },
            _ => Word::Concrete(w.clone()),
        };
        sym_args += match word {
            Word::SymArg { .. } => 1,
            Word::SymArgs { max, .. } => max,
            _ => 0,
        };
        if sym_args > MAX_SYM_ARGS {
            return Err(format!("at most {MAX_SYM_ARGS} symbolic arguments (arg00 to arg99)"));
        }
        out.push(word);
    }
    Ok(out)
}

/// The command line a run gets: the program's words, then the environment
/// flags given before `--` (`--sym-stdin`, `--sym-files`), then the stdin
/// model if stdin is symbolic. Errors teach.
pub fn command_words(
    program_words: &[String],
    sym_stdin: Option<u32>,
    sym_files: Option<(u32, u32)>,
    model: StdinModel,
) -> Result<Vec<String>, String> {
    let mut words = program_words.to_vec();
    if let Some(n) = sym_stdin {
        words.extend(["--sym-stdin".into(), n.to_string()]);
    }
    if let Some((k, n)) = sym_files {
        words.extend(["--sym-files".into(), k.to_string(), n.to_string()]);
    }
    let parsed = parse_words(&words)?;
    let has_stdin = parsed.iter().any(|w| matches!(w, Word::SymStdin { .. }));
    if has_stdin && !parsed.iter().any(|w| matches!(w, Word::StdinModel(_))) {
        words.extend(["--stdin-model".into(), model.word().into()]);
    }
    Ok(words)
}

/// The program's command line after argv[0], parsed once: every stage that
/// asks what it makes symbolic reads this value.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CommandLine {
    words: Vec<String>,
    parsed: Vec<Word>,
}

impl CommandLine {
    /// Errors teach (`parse_words`).
    pub fn parse(words: &[String]) -> Result<CommandLine, String> {
        Ok(CommandLine { words: words.to_vec(), parsed: parse_words(words)? })
    }

    /// The words as given.
    pub fn words(&self) -> &[String] {
        &self.words
    }

    /// The function a run starts in: [`POSIX_ENTRY`] when the words ask for
    /// a symbolic environment (it calls `main`), else `entry`.
    pub fn entry(&self, entry: &str) -> Result<String, String> {
        match (self.parsed.iter().any(Word::is_symbolic), entry) {
            (false, _) => Ok(entry.to_string()),
            (true, "main") => Ok(POSIX_ENTRY.to_string()),
            (true, _) => Err(format!(
                "a symbolic environment (--sym-arg, --sym-stdin, ...) starts the program at `main`, not `{entry}`"
            )),
        }
    }

    /// Whether fuzzing can run the program from `entry`: the fuzz server
    /// calls `main` with the words (each symbolic argument from its slot of
    /// the input, [`ArgSlots`]) and feeds stdin and the `klee_make_symbolic`
    /// objects, so symbolic files are the engine's alone.
    pub fn fuzzable(&self, entry: &str) -> bool {
        (entry == "main" || entry == POSIX_ENTRY)
            && !self.parsed.iter().any(|w| matches!(w, Word::SymFiles { .. }))
    }

    /// The bytes of symbolic stdin (`--sym-stdin N`), if it has any.
    pub fn stdin_len(&self) -> Option<u32> {
        self.parsed.iter().find_map(|w| match *w {
            Word::SymStdin { len } => Some(len),
            _ => None,
        })
    }

    /// The words as a fuzz input holds them.
    pub fn arg_slots(&self) -> ArgSlots {
        let parts = self
            .parsed
            .iter()
            .filter_map(|w| match *w {
                Word::SymArg { len } => Some(ArgPart::One(len as usize)),
                Word::SymArgs { min, max, len } => Some(ArgPart::Many { min, max, len: len as usize }),
                _ => None,
            })
            .collect();
        ArgSlots { parts }
    }

    /// The inputs a run explores, in words: what "proved equivalent" ranges
    /// over. Besides these, the program's own `klee_make_symbolic` objects.
    pub fn domain(&self) -> String {
        let model = self.parsed.iter().find_map(|w| match w {
            Word::StdinModel(m) => Some(*m),
            _ => None,
        });
        let mut parts = Vec::new();
        for w in &self.parsed {
            parts.push(match *w {
                Word::Concrete(ref c) => format!("the argument {c:?}"),
                Word::SymArg { len } => format!("an argument of at most {len} bytes"),
                Word::SymArgs { min, max, len } => {
                    format!("{min} to {max} arguments of at most {len} bytes each")
                }
                Word::SymStdin { len } => match model.unwrap_or_default() {
                    StdinModel::Tokens => format!(
                        "stdin of {len} bytes, where scanf reads well-formed tokens (numbers in range, words)"
                    ),
                    StdinModel::Bytes => format!("every stdin of {len} bytes"),
                },
                Word::SymFiles { count, len } => format!("{count} files of {len} bytes"),
                Word::StdinModel(_) => continue,
            });
        }
        parts.push("the program's klee_make_symbolic objects".into());
        parts.join("; ")
    }

    /// The shape of the engine's inputs, where a fuzz input maps to them:
    /// not for stdin in token mode (its objects are made as scanf runs, each
    /// where a number's text starts), nor for symbolic arguments (the
    /// fuzzer's slots are not the engine's objects) and files (the fuzzer
    /// has none).
    pub fn seed_shape(&self) -> Option<SeedShape> {
        let (mut shape, mut bytes) = (SeedShape::Objects, false);
        for w in &self.parsed {
            match *w {
                Word::Concrete(_) => {}
                Word::SymStdin { len } => shape = SeedShape::StdinBytes(len),
                Word::StdinModel(m) => bytes = m == StdinModel::Bytes,
                Word::SymArg { .. } | Word::SymArgs { .. } | Word::SymFiles { .. } => return None,
            }
        }
        (shape == SeedShape::Objects || bytes).then_some(shape)
    }
}

/// The command line's words as the fuzzer varies them. A fuzz input holds,
/// after the program's objects, one slot per symbolic argument: `--sym-arg
/// N` is N bytes, the word up to the first NUL; `--sym-args MIN MAX N` is a
/// count byte (MIN plus its value modulo MAX - MIN + 1 words are given) and
/// MAX slots of N bytes. Concrete words stay as they are. A slot's bytes
/// become the engine's objects (`argNN` of N + 1 bytes, NUL last, and
/// `n_args`), so a fuzz input is a ktest that replays like the engine's, and
/// its words are what `replay_env` reads from them.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ArgSlots {
    parts: Vec<ArgPart>,
}

#[derive(Debug, Clone, PartialEq, Eq)]
enum ArgPart {
    One(usize),
    Many { min: u32, max: u32, len: usize },
}

impl ArgSlots {
    /// The bytes the slots take in a fuzz input.
    pub fn bytes(&self) -> usize {
        self.parts
            .iter()
            .map(|p| match *p {
                ArgPart::One(len) => len,
                ArgPart::Many { max, len, .. } => 1 + max as usize * len,
            })
            .sum()
    }

    /// Where each argument's bytes lie in the slots, and its length: the
    /// places a mutation may write a word.
    pub fn words(&self) -> Vec<(usize, usize)> {
        let mut out = Vec::new();
        let mut at = 0;
        for p in &self.parts {
            match *p {
                ArgPart::One(len) => {
                    out.push((at, len));
                    at += len;
                }
                ArgPart::Many { max, len, .. } => {
                    at += 1;
                    for _ in 0..max {
                        out.push((at, len));
                        at += len;
                    }
                }
            }
        }
        out
    }

    /// The objects the engine would have made for the words `slots` (the
    /// input's argument part, zeros past its end) give, in its order; the
    /// words themselves are `replay_env`'s reading of them.
    pub fn objects(&self, slots: &[u8]) -> Vec<Object> {
        let mut objects = Vec::new();
        let mut at = 0;
        let take = |len: usize, at: usize, objects: &mut Vec<Object>| {
            let mut b: Vec<u8> = (at..at + len).map(|i| slots.get(i).copied().unwrap_or(0)).collect();
            b.push(0);
            let name = format!("arg{:02}", objects.iter().filter(|o| is_arg_name(&o.name)).count());
            objects.push(Object { name, bytes: b });
        };
        for p in &self.parts {
            match *p {
                ArgPart::One(len) => {
                    take(len, at, &mut objects);
                    at += len;
                }
                ArgPart::Many { min, max, len } => {
                    let count = min + u32::from(slots.get(at).copied().unwrap_or(0)) % (max - min + 1);
                    objects.push(Object { name: "n_args".into(), bytes: count.to_le_bytes().to_vec() });
                    for k in 0..count as usize {
                        take(len, at + 1 + k * len, &mut objects);
                    }
                    at += 1 + max as usize * len;
                }
            }
        }
        objects
    }

    /// The slots of a test's arguments (its `argNN` and `n_args` objects),
    /// the inverse of [`ArgSlots::objects`]: an engine path's input as a fuzz
    /// input.
    pub fn of_test(&self, kt: &KTest) -> Vec<u8> {
        let mut out = Vec::with_capacity(self.bytes());
        let mut args = kt.objects.iter().filter(|o| is_arg_name(&o.name));
        let mut put = |len: usize, out: &mut Vec<u8>| {
            let mut b = args.next().map(|o| o.bytes.clone()).unwrap_or_default();
            b.resize(len, 0);
            out.extend_from_slice(&b);
        };
        for p in &self.parts {
            match *p {
                ArgPart::One(len) => put(len, &mut out),
                ArgPart::Many { min, max, len } => {
                    let n = kt.objects.iter().find(|o| o.name == "n_args").and_then(|o| o.as_ints());
                    let count = n.map_or(min, |(i, _)| (i.max(0) as u32).clamp(min, max));
                    out.push((count - min) as u8);
                    for k in 0..max {
                        if k < count {
                            put(len, &mut out);
                        } else {
                            out.resize(out.len() + len, 0);
                        }
                    }
                }
            }
        }
        out
    }
}

/// What a native run of a test gets: argv after argv[0], stdin, and files
/// (name, contents) in its working directory.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ReplayEnv {
    pub args: Vec<OsString>,
    pub stdin: Vec<u8>,
    pub files: Vec<(String, Vec<u8>)>,
}

/// The environment a ktest describes: its `args` words with symbolic
/// arguments replaced by their `argNN` values, `stdin` cut to the size in
/// `stdin-stat`, and the files `A-data`, ... A ktest without symbolic words
/// gives its words as they are.
pub fn replay_env(kt: &KTest) -> ReplayEnv {
    let mut env = ReplayEnv::default();
    let words = kt.args.get(1..).unwrap_or_default();
    let object = |name: &str| kt.objects.iter().find(|o| o.name == name);
    let mut args = kt.objects.iter().filter(|o| is_arg_name(&o.name));
    let mut next_arg = |env: &mut ReplayEnv| {
        if let Some(o) = args.next() {
            let end = o.bytes.iter().position(|&b| b == 0).unwrap_or(o.bytes.len());
            env.args.push(OsString::from_vec(o.bytes[..end].to_vec()));
        }
    };
    match parse_words(words) {
        Ok(parsed) => {
            for w in parsed {
                match w {
                    Word::Concrete(s) => env.args.push(s.into()),
                    Word::SymArg { .. } => next_arg(&mut env),
                    Word::SymArgs { .. } => {
                        let n = object("n_args").and_then(|o| o.as_ints()).map_or(0, |(i, _)| i.max(0));
                        for _ in 0..n {
                            next_arg(&mut env);
                        }
                    }
                    Word::SymStdin { .. } | Word::SymFiles { .. } | Word::StdinModel(_) => {}
                }
            }
        }
        Err(_) => env.args = words.iter().map(OsString::from).collect(),
    }
    let sized = |data: &Object, stat: Option<&Object>| -> Vec<u8> {
        let size = stat
            .and_then(|s| s.bytes.get(ST_SIZE))
            .map(|b| u64::from_le_bytes(b.try_into().expect("8 bytes")))
            .map_or(data.bytes.len(), |s| (s as usize).min(data.bytes.len()));
        data.bytes[..size].to_vec()
    };
    if let Some(o) = object("stdin") {
        env.stdin = sized(o, object("stdin-stat"));
    }
    for o in &kt.objects {
        if let Some(file) = o.name.strip_suffix("-data")
            && is_file_name(file)
        {
            env.files.push((file.to_string(), sized(o, object(&format!("{file}-data-stat")))));
        }
    }
    env
}

/// Stdin as a ktest holds it, as KLEE writes it: its bytes (`stdin`) and a
/// `struct stat` that gives their size (`stdin-stat`).
pub fn stdin_objects(text: &[u8]) -> [Object; 2] {
    let mut stat = vec![0u8; 144];
    stat[ST_SIZE].copy_from_slice(&(text.len() as u64).to_le_bytes());
    [Object { name: "stdin".into(), bytes: text.to_vec() }, Object { name: "stdin-stat".into(), bytes: stat }]
}

/// How the engine's inputs lie, for a seed made of a fuzz input (the
/// program's objects, then stdin's text): the objects alone, or after stdin
/// read byte by byte as N symbolic bytes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SeedShape {
    Objects,
    StdinBytes(u32),
}

/// [`CommandLine::seed_shape`] of `words` (none if they do not parse).
pub fn seed_shape(words: &[String]) -> Option<SeedShape> {
    CommandLine::parse(words).ok()?.seed_shape()
}

impl SeedShape {
    /// The objects of a seed, in the engine's order: for stdin, its text cut
    /// or padded to N bytes (the engine's stdin is exactly N), its stat and
    /// `model_version`, as `__psychic_posix_main` makes them; then the
    /// program's. Spaces pad: they end a number or a word as the end of the
    /// input does for scanf, and a seed only leads the search.
    pub fn objects(self, program: Vec<Object>, text: &[u8]) -> Vec<Object> {
        let SeedShape::StdinBytes(n) = self else { return program };
        let mut stdin = text[..text.len().min(n as usize)].to_vec();
        stdin.resize(n as usize, b' ');
        let mut out = stdin_objects(&stdin).to_vec();
        out.push(Object { name: "model_version".into(), bytes: 1u32.to_le_bytes().to_vec() });
        out.extend(program);
        out
    }
}

/// An object of the symbolic environment (arguments, stdin, files and their
/// bookkeeping) rather than of `klee_make_symbolic`; the native runtime's
/// `is_posix_object` is the same test.
pub fn is_environment_object(name: &str) -> bool {
    is_arg_name(name)
        || name.strip_suffix("-data").or_else(|| name.strip_suffix("-data-stat")).is_some_and(is_file_name)
        || matches!(name, "n_args" | "stdin" | "stdin-stat" | "model_version")
        || name.starts_with("stdin-tok-")
}

fn is_arg_name(name: &str) -> bool {
    name.len() == 5 && name.starts_with("arg") && name[3..].bytes().all(|b| b.is_ascii_digit())
}

fn is_file_name(name: &str) -> bool {
    name.len() == 1 && name.as_bytes()[0].is_ascii_uppercase()
}

/// The ktest of a path: its inputs with their bytes under a model, stdin
/// tokens rendered (`render_tokens`), as the program reads them natively.
pub fn path_ktest(args: Vec<String>, symbolics: &[SymbolicObject], bytes: Vec<Vec<u8>>) -> KTest {
    KTest { args, sym_argvs: 0, sym_argv_len: 0, objects: render_tokens(ktest_objects(symbolics, bytes)) }
}

/// Replaces the stdin tokens of token mode (`stdin-tok-POS-KIND`) by their
/// text in the `stdin` object, each before raw byte POS, and sets
/// `stdin-stat`'s size to the rendered length. Objects without tokens are
/// returned as they are.
pub fn render_tokens(objects: Vec<Object>) -> Vec<Object> {
    let mut tokens: Vec<(usize, Vec<u8>)> = Vec::new();
    let mut rest = Vec::with_capacity(objects.len());
    for o in objects {
        match parse_token_name(&o.name) {
            Some((pos, kind)) => tokens.push((pos, token_text(kind, &o.bytes))),
            None => rest.push(o),
        }
    }
    if tokens.is_empty() {
        return rest;
    }
    // Stable: tokens at one position keep their order.
    tokens.sort_by_key(|t| t.0);
    let raw = rest.iter().find(|o| o.name == "stdin").map(|o| o.bytes.clone()).unwrap_or_default();
    let mut text = Vec::new();
    let mut pending = tokens.iter().peekable();
    for i in 0..=raw.len() {
        while let Some((_, t)) = pending.next_if(|t| t.0 <= i) {
            text.extend_from_slice(t);
        }
        if let Some(&b) = raw.get(i) {
            text.push(b);
        }
    }
    let len = text.len() as u64;
    for o in &mut rest {
        if o.name == "stdin" {
            o.bytes = std::mem::take(&mut text);
        } else if o.name == "stdin-stat" && o.bytes.len() >= ST_SIZE.end {
            o.bytes[ST_SIZE].copy_from_slice(&len.to_le_bytes());
        }
    }
    rest
}

fn parse_token_name(name: &str) -> Option<(usize, u8)> {
    let rest = name.strip_prefix("stdin-tok-")?;
    let (pos, kind) = rest.rsplit_once('-')?;
    let &[kind] = kind.as_bytes() else { return None };
    Some((pos.parse().ok()?, kind))
}

/// A token's text as scanf would read it back: `d` signed and `u` unsigned
/// decimal, `x` hex, `o` octal (little-endian values of the token's size),
/// `f` a double (8 bytes, read as a float too), `s` the bytes before the first NUL.
fn token_text(kind: u8, bytes: &[u8]) -> Vec<u8> {
    let mut wide = [0u8; 16];
    let n = bytes.len().min(16);
    wide[..n].copy_from_slice(&bytes[..n]);
    let u = u128::from_le_bytes(wide);
    let bits = 8 * n as u32;
    let signed = if bits == 0 { 0 } else { ((u << (128 - bits)) as i128) >> (128 - bits) };
    match kind {
        b'd' => signed.to_string().into_bytes(),
        b'u' => u.to_string().into_bytes(),
        b'x' => format!("{u:x}").into_bytes(),
        b'o' => format!("{u:o}").into_bytes(),
        b'f' => {
            let x = f64::from_bits(u as u64);
            float_text(x.is_nan(), x.is_sign_negative(), double_text(x))
        }
        _ => bytes.iter().take_while(|&&b| b != 0).copied().collect(),
    }
}

/// A double token's text for both of its readers: strtod must read back
/// `x`, and strtof `(float)x` (the model rounds the token where `%f` reads
/// it). Rust's shortest round-trip form does both unless `x` lies within
/// half a double's step of a tie between two floats, where the short text
/// can fall on the tie's other side; the exact expansion then does.
fn double_text(x: f64) -> String {
    let shortest = format!("{x:e}");
    if !x.is_finite() || shortest.parse::<f32>().map(f32::to_bits) == Ok((x as f32).to_bits()) {
        return shortest;
    }
    // 767 significant digits hold any double exactly.
    let exact = format!("{x:.767e}");
    let (digits, exp) = exact.split_once('e').expect("the e format has an exponent");
    format!("{}e{exp}", digits.trim_end_matches('0').trim_end_matches('.'))
}

/// A float token's text: Rust's shortest round-trip form (`shortest`, with
/// "inf" and "-inf"), which glibc's correctly rounded strtod/strtof reads
/// back to the same bits; a NaN as "nan" or "-nan", which glibc reads as
/// the quiet NaN without payload, the only NaNs the model lets a token be.
fn float_text(nan: bool, negative: bool, shortest: String) -> Vec<u8> {
    match (nan, negative) {
        (true, true) => b"-nan".to_vec(),
        (true, false) => b"nan".to_vec(),
        _ => shortest.into_bytes(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A fuzz input's argument slots, as the engine's objects, replay as the
    /// words the slots spell, and turn back into the same slots.
    #[test]
    fn argument_slots_replay_as_they_read() {
        let words: Vec<String> = ["-n", "--sym-arg", "3", "--sym-args", "1", "3", "2", "x"]
            .iter()
            .map(|w| w.to_string())
            .collect();
        let args: Vec<String> = std::iter::once("prog".to_string()).chain(words.iter().cloned()).collect();
        let slots = CommandLine::parse(&words).unwrap().arg_slots();
        assert_eq!(slots.bytes(), 3 + 1 + 3 * 2);
        let cases: [(&[u8], &[&str]); 3] = [
            (b"", &["-n", "", "", "x"]),
            (b"ab\0\x01cdef", &["-n", "ab", "cd", "ef", "x"]),
            (b"abc\x05\0zyx", &["-n", "abc", "", "yx", "", "x"]),
        ];
        for (input, want) in cases {
            let objects = slots.objects(input);
            assert!(
                objects
                    .iter()
                    .filter(|o| is_arg_name(&o.name))
                    .all(|o| o.bytes.len() == 4 || o.bytes.len() == 3)
            );
            let kt = KTest { args: args.clone(), sym_argvs: 0, sym_argv_len: 0, objects };
            let got = replay_env(&kt).args;
            assert_eq!(got, want.iter().map(OsString::from).collect::<Vec<_>>(), "{input:?}");
            let again = KTest { objects: slots.objects(&slots.of_test(&kt)), ..kt.clone() };
            assert_eq!(replay_env(&again).args, got, "{input:?}");
        }
    }

    fn obj(name: &str, bytes: &[u8]) -> Object {
        Object { name: name.into(), bytes: bytes.to_vec() }
    }

    fn words(w: &[&str]) -> Vec<String> {
        w.iter().map(|s| s.to_string()).collect()
    }

    #[test]
    fn words_parse_and_errors_teach() {
        let w = parse_words(&words(&["-n", "--sym-arg", "3", "--sym-args", "0", "2", "4"])).unwrap();
        assert_eq!(
            w,
            vec![
                Word::Concrete("-n".into()),
                Word::SymArg { len: 3 },
                Word::SymArgs { min: 0, max: 2, len: 4 }
            ]
        );
        assert!(parse_words(&words(&["--sym-arg"])).unwrap_err().contains("--sym-arg N"));
        let twice = command_words(&words(&["--sym-stdin", "4"]), Some(8), None, StdinModel::Tokens);
        assert!(twice.unwrap_err().contains("stdin asked for twice"));
        let w = command_words(&[], Some(8), None, StdinModel::Bytes).unwrap();
        assert_eq!(w, words(&["--sym-stdin", "8", "--stdin-model", "bytes"]));
    }

    #[test]
    fn tokens_render_before_their_raw_byte() {
        let mut stat = vec![0u8; 144];
        stat[ST_SIZE].copy_from_slice(&3u64.to_le_bytes());
        let objects = vec![
            obj("stdin", b" \n?"),
            obj("stdin-stat", &stat),
            obj("stdin-tok-0-d", &(-12i32).to_le_bytes()),
            obj("stdin-tok-1-x", &255u32.to_le_bytes()),
            obj("stdin-tok-2-s", b"ab\0\0"),
        ];
        let out = render_tokens(objects);
        assert_eq!(out.len(), 2);
        assert_eq!(out[0].bytes, b"-12 ff\nab?");
        let kt = KTest { args: words(&["p", "--sym-stdin", "3"]), objects: out, ..KTest::default() };
        assert_eq!(replay_env(&kt).stdin, b"-12 ff\nab?");
    }

    /// Every float token's text reads back through glibc (the host's
    /// strtod and strtof, which scanf calls) to the token's bits as a double
    /// and to their rounding as a float: random bits, doubles halfway
    /// between two floats, and the edges (zeros, subnormals, extremes,
    /// infinities, the quiet NaNs).
    #[test]
    fn float_tokens_read_back_to_their_bits() {
        use rand::{Rng, SeedableRng};
        let read = |text: &[u8], size: usize| -> u64 {
            let c = std::ffi::CString::new(text).unwrap();
            // SAFETY: a NUL-terminated string.
            unsafe {
                match size {
                    4 => u64::from(libc::strtof(c.as_ptr(), std::ptr::null_mut()).to_bits()),
                    _ => libc::strtod(c.as_ptr(), std::ptr::null_mut()).to_bits(),
                }
            }
        };
        let mut rng = rand::rngs::StdRng::seed_from_u64(13);
        let mut doubles: Vec<u64> = (0..20_000).map(|_| rng.random()).collect();
        // Doubles halfway between two floats, where a short text can round the other way.
        let ties: Vec<u64> = (0..20_000)
            .filter_map(|_| {
                let f = f32::from_bits(rng.random::<u32>() & 0x7f7f_ffff);
                let next = f32::from_bits(f.to_bits() + 1);
                next.is_finite().then(|| ((f64::from(f) + f64::from(next)) / 2.0).to_bits())
            })
            .collect();
        for sign in [0, 1u64 << 63] {
            doubles.extend(
                [0, 1, 0xf_ffff_ffff_ffff, 1 << 52, 0x7fef_ffff_ffff_ffff, 0x7ff0 << 48, 0x7ff8 << 48]
                    .map(|b| b | sign),
            );
            doubles.extend(
                [0.1f64, 2.5, 1e22, 1e23, 5e-324, 2.2250738585072014e-308, 3.4028235677973366e38]
                    .map(|x| x.to_bits() | sign),
            );
        }
        let mut checked = 0;
        for b in doubles.into_iter().chain(ties) {
            let (exp, frac) = (b >> 52 & 0x7ff, b & 0xf_ffff_ffff_ffff);
            if exp == 0x7ff && frac != 0 && frac != 1 << 51 {
                continue; // a NaN the model never lets a token be
            }
            let text = token_text(b'f', &b.to_le_bytes());
            let shown = String::from_utf8_lossy(&text);
            assert_eq!(read(&text, 8), b, "{shown} reads back as a double");
            let float = u64::from((f64::from_bits(b) as f32).to_bits());
            assert_eq!(read(&text, 4), float, "{shown} reads back as the float the model rounds to");
            checked += 1;
        }
        assert!(checked > 39_000);
    }

    #[test]
    fn replay_env_orders_arguments_and_cuts_stdin() {
        let mut stat = vec![0u8; 144];
        stat[ST_SIZE].copy_from_slice(&2u64.to_le_bytes());
        let kt = KTest {
            args: words(&["p", "-x", "--sym-args", "0", "2", "2", "--sym-arg", "1", "--sym-stdin", "4"]),
            objects: vec![
                obj("n_args", &1i32.to_le_bytes()),
                obj("arg00", b"a\0\0"),
                obj("arg01", b"b\0"),
                obj("stdin", b"xyzw"),
                obj("stdin-stat", &stat),
                obj("A-data", b"file"),
                obj("model_version", &1u32.to_le_bytes()),
            ],
            ..KTest::default()
        };
        let env = replay_env(&kt);
        assert_eq!(env.args, vec![OsString::from("-x"), "a".into(), "b".into()]);
        assert_eq!(env.stdin, b"xy");
        assert_eq!(env.files, vec![("A".to_string(), b"file".to_vec())]);
    }
}
