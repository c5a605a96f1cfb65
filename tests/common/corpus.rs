//! Ground truth for unmodified programs that read stdin and argv (the
//! IntroClass-style corpus, the scanf seeds, the argv tools): every revision's
//! own file built natively with plain clang (no psychic runtime), run on a
//! domain of concrete inputs; revisions that print and exit alike on every
//! input share a cluster. Also runs `psychic diff-patches` and checks its
//! report against those native runs. Used by tests/introclass.rs,
//! tests/posix_fixtures.rs and benches/introclass.rs.

use std::ffi::OsString;
use std::os::unix::ffi::OsStringExt;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Duration;

use psychic::ktest::KTest;
use psychic::replay;
use psychic::report::Report;
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;

use super::{par_map, toolchain};

/// One concrete run: the command line after argv[0], and stdin.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct Input {
    pub args: Vec<OsString>,
    pub stdin: Vec<u8>,
}

impl Input {
    pub fn stdin(bytes: impl Into<Vec<u8>>) -> Self {
        Input { args: Vec::new(), stdin: bytes.into() }
    }

    pub fn args(args: &[&str]) -> Self {
        Input { args: args.iter().map(OsString::from).collect(), stdin: Vec::new() }
    }

    /// The input a ktest of a run with program arguments `words` (as given
    /// after `--`) stands for, read as KLEE's POSIX runtime reads it: each
    /// `--sym-arg N` takes the next `argNN` object up to its first NUL, and
    /// stdin is the `stdin` object cut to the st_size of `stdin-stat`.
    /// Written from the contract, not with psychic's own `posix::replay_env`,
    /// so that the check does not trust what it checks.
    pub fn from_ktest(kt: &KTest, words: &[&str]) -> Result<Input, String> {
        let object = |name: &str| kt.objects.iter().find(|o| o.name == name);
        let mut args = Vec::new();
        let mut sym = 0;
        let mut w = words.iter();
        while let Some(word) = w.next() {
            match *word {
                "--sym-arg" => {
                    w.next();
                    let name = format!("arg{sym:02}");
                    sym += 1;
                    let o = object(&name).ok_or_else(|| format!("no object {name}"))?;
                    let len = o.bytes.iter().position(|&b| b == 0).unwrap_or(o.bytes.len());
                    args.push(OsString::from_vec(o.bytes[..len].to_vec()));
                }
                "--sym-stdin" => {
                    w.next();
                }
                concrete => args.push(concrete.into()),
            }
        }
        let stdin = match object("stdin") {
            None => Vec::new(),
            Some(o) => {
                let stat = object("stdin-stat").ok_or("a stdin object without stdin-stat")?;
                // struct stat64 on x86-64: st_size is the 8 bytes at offset 48.
                let size = stat
                    .bytes
                    .get(48..56)
                    .map(|b| u64::from_le_bytes(b.try_into().unwrap()))
                    .ok_or("stdin-stat is too short")?;
                o.bytes[..(size as usize).min(o.bytes.len())].to_vec()
            }
        };
        Ok(Input { args, stdin })
    }
}

/// What a run did: stdout, exit status, signal (and whether it hung).
#[derive(Debug, Clone, Eq)]
pub struct Behaviour {
    pub stdout: Vec<u8>,
    pub exit_status: Option<i32>,
    pub signal: Option<i32>,
    pub timed_out: bool,
}

/// Two runs that hung behave alike unless what both printed differs: how
/// far each got before the kill is timing, not behaviour.
impl PartialEq for Behaviour {
    fn eq(&self, o: &Behaviour) -> bool {
        if self.timed_out || o.timed_out {
            let n = self.stdout.len().min(o.stdout.len());
            return self.timed_out == o.timed_out && self.stdout[..n] == o.stdout[..n];
        }
        (&self.stdout, self.exit_status, self.signal) == (&o.stdout, o.exit_status, o.signal)
    }
}

/// How long a run of the truth may take before it counts as hanging.
pub const TIMEOUT: Duration = Duration::from_secs(5);

/// The revisions of a patch set: `correct.c` (or `orig.c`) first, then the
/// patches `p*.c` in name order.
pub fn revisions(dir: &Path) -> Vec<PathBuf> {
    let first = ["correct.c", "orig.c"].iter().map(|f| dir.join(f)).find(|p| p.is_file());
    let first = first.unwrap_or_else(|| panic!("{}: no correct.c or orig.c", dir.display()));
    let mut patches: Vec<PathBuf> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| {
            let name = p.file_name().unwrap().to_string_lossy();
            name.starts_with('p') && name.ends_with(".c")
        })
        .collect();
    patches.sort();
    std::iter::once(first).chain(patches).collect()
}

/// Each revision built natively, as its author would build it: clang 19 at
/// -O0 with libm, nothing of psychic linked in.
pub fn build_all(revisions: &[PathBuf], dir: &Path) -> Vec<PathBuf> {
    build_all_with(revisions, dir, &[])
}

/// [`build_all`] with more clang flags (`-fsanitize=address`, where the truth
/// must be what psychic's replay build does on out-of-bounds accesses).
pub fn build_all_with(revisions: &[PathBuf], dir: &Path, flags: &[String]) -> Vec<PathBuf> {
    par_map(&revisions.iter().enumerate().collect::<Vec<_>>(), |(i, src)| {
        let bin = dir.join(format!("rev{i}"));
        let out = Command::new(toolchain().clang())
            .args(["-O0", "-w"])
            .args(flags)
            .arg("-o")
            .arg(&bin)
            .arg(src)
            .arg("-lm")
            .output()
            .expect("run clang");
        assert!(out.status.success(), "{}: {}", src.display(), String::from_utf8_lossy(&out.stderr));
        bin
    })
}

pub fn run(bin: &Path, input: &Input) -> Behaviour {
    run_within(bin, input, TIMEOUT)
}

pub fn run_within(bin: &Path, input: &Input, timeout: Duration) -> Behaviour {
    let mut req = replay::Request::new(bin, None, 0);
    req.env.args = input.args.clone();
    req.env.stdin = input.stdin.clone();
    req.timeout = timeout;
    let o = replay::run(&req).unwrap_or_else(|e| panic!("{}: {e}", bin.display()));
    Behaviour { stdout: o.stdout, exit_status: o.exit_status, signal: o.signal, timed_out: o.timed_out }
}

/// `behaviours[r][i]`: revision r on input i.
pub fn behaviours(bins: &[PathBuf], inputs: &[Input]) -> Vec<Vec<Behaviour>> {
    behaviours_within(bins, inputs, TIMEOUT)
}

pub fn behaviours_within(bins: &[PathBuf], inputs: &[Input], timeout: Duration) -> Vec<Vec<Behaviour>> {
    let jobs: Vec<(usize, usize)> =
        (0..bins.len()).flat_map(|r| (0..inputs.len()).map(move |i| (r, i))).collect();
    let mut flat = par_map(&jobs, |&(r, i)| run_within(&bins[r], &inputs[i], timeout)).into_iter();
    (0..bins.len()).map(|_| flat.by_ref().take(inputs.len()).collect()).collect()
}

/// Runs `psychic diff-patches --quiet -o OUT FILES FLAGS` in `cwd`; the report.
pub fn diff_patches(psychic: &Path, files: &[PathBuf], flags: &[&str], cwd: &Path) -> Result<Report, String> {
    let out = Command::new(psychic)
        .args(["diff-patches", "--quiet", "-o", "out"])
        .args(files)
        .args(flags)
        .current_dir(cwd)
        .output()
        .map_err(|e| e.to_string())?;
    if !out.status.success() {
        return Err(format!("diff-patches failed: {}", String::from_utf8_lossy(&out.stderr)));
    }
    let text = std::fs::read_to_string(cwd.join("out/report.json")).map_err(|e| e.to_string())?;
    serde_json::from_str(&text).map_err(|e| e.to_string())
}

/// Replays every test of a report on the revisions' own builds (`bins`):
/// the revisions must fall into exactly the outcome classes the report
/// records, with the recorded stdout and exit status. `words` are the program
/// arguments given after `--`. Returns one line per test that does not.
pub fn replay_mismatches(report: &Report, out_dir: &Path, bins: &[PathBuf], words: &[&str]) -> Vec<String> {
    replay_mismatches_within(report, out_dir, bins, words, TIMEOUT)
}

/// [`replay_mismatches`] with runs that hang stopped after `timeout`. A run
/// the report saw hang must hang, and print the start of what the report
/// recorded (or the report the start of what it prints).
pub fn replay_mismatches_within(
    report: &Report,
    out_dir: &Path,
    bins: &[PathBuf],
    words: &[&str],
    timeout: Duration,
) -> Vec<String> {
    let mut bad = Vec::new();
    for t in &report.tests {
        let input = KTest::read(&out_dir.join(&t.ktest))
            .map_err(|e| e.to_string())
            .and_then(|kt| Input::from_ktest(&kt, words));
        let input = match input {
            Ok(i) => i,
            Err(e) => {
                bad.push(format!("test {}: {e}", t.id));
                continue;
            }
        };
        let native: Vec<Behaviour> = par_map(bins, |b| run_within(b, &input, timeout));
        // A revision the report knows only in part is in a class by what it
        // showed: its own build may do more.
        let whole = |r: &usize| !t.partial.iter().any(|p| p.revision == *r);
        for o in &t.outcomes {
            let members: Vec<usize> = o.revisions.iter().copied().filter(whole).collect();
            for &r in &members {
                let n = &native[r];
                let same_class = members.iter().all(|&q| native[q] == *n)
                    && (0..bins.len()).filter(|q| whole(q) && native[*q] == *n).count() == members.len();
                // The report keeps stdout as lossy text.
                let shown = Behaviour {
                    stdout: String::from_utf8_lossy(&n.stdout).into_owned().into_bytes(),
                    ..n.clone()
                };
                let reported = Behaviour {
                    stdout: o.stdout.clone().into_bytes(),
                    exit_status: o.exit_status,
                    signal: o.signal,
                    timed_out: o.timed_out,
                };
                if !same_class || shown != reported {
                    bad.push(format!(
                        "test {} on {input:?}, revision {r}: report says exit {:?} stdout {:?} with {:?}; \
                         its own build gives exit {:?} stdout {:?}",
                        t.id,
                        o.exit_status,
                        o.stdout,
                        o.revisions,
                        n.exit_status,
                        String::from_utf8_lossy(&n.stdout)
                    ));
                }
            }
        }
    }
    bad
}

/// What an IntroClass-style program reads.
#[derive(Debug, Clone)]
pub enum Reads {
    /// `count` integers with `scanf`; every tuple over `small` is tried.
    Ints { count: usize, small: std::ops::RangeInclusive<i32> },
    /// One line with `fgets`.
    Line,
}

/// A corpus program and the `--sym-stdin` sizes it is explored with.
pub struct Program {
    pub name: &'static str,
    pub reads: Reads,
    /// Up to this many stdin bytes with `--stdin-model tokens` (room for the
    /// tokens' text) and with `bytes` (kept small: every byte branches).
    pub tokens_stdin: usize,
    pub bytes_stdin: usize,
}

pub fn introclass() -> Vec<Program> {
    let ints = |count, small| Reads::Ints { count, small };
    vec![
        Program { name: "median", reads: ints(3, -2..=3), tokens_stdin: 40, bytes_stdin: 6 },
        Program { name: "smallest", reads: ints(4, 0..=4), tokens_stdin: 48, bytes_stdin: 8 },
        Program { name: "grade", reads: ints(1, -5..=105), tokens_stdin: 12, bytes_stdin: 4 },
        Program { name: "digits", reads: ints(1, -1100..=1100), tokens_stdin: 12, bytes_stdin: 4 },
        Program { name: "checksum", reads: Reads::Line, tokens_stdin: 6, bytes_stdin: 6 },
        Program { name: "syllables", reads: Reads::Line, tokens_stdin: 3, bytes_stdin: 3 },
    ]
}

pub fn introclass_dir(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("fixtures/introclass").join(name)
}

/// Values where integer code tends to break.
const EDGES: [i32; 13] = [i32::MIN, i32::MIN + 1, -1001, -100, -10, -1, 0, 1, 9, 10, 100, 1000, i32::MAX];

/// The concrete inputs the truth is computed on: every tuple of small values
/// (or every short line over an alphabet of interesting bytes), `random`
/// random ones (seeded, reproducible), and crafted ones (odd spacing, signs,
/// leading zeros, too few numbers, overflow, long lines).
pub fn domain(reads: &Reads, random: usize) -> Vec<Input> {
    let mut rng = ChaCha8Rng::seed_from_u64(5);
    let mut inputs = Vec::new();
    match reads {
        Reads::Ints { count, small } => {
            let render = |v: &[i32], sep: &str| {
                let mut s = v.iter().map(i32::to_string).collect::<Vec<_>>().join(sep);
                s.push('\n');
                Input::stdin(s)
            };
            let mut tuple = vec![*small.start(); *count];
            loop {
                inputs.push(render(&tuple, " "));
                // The next tuple, odometer style.
                let Some(i) = tuple.iter().rposition(|v| v < small.end()) else { break };
                tuple[i] += 1;
                tuple[i + 1..].fill(*small.start());
            }
            for _ in 0..random {
                let v: Vec<i32> = (0..*count)
                    .map(|_| match rng.random_range(0..3) {
                        0 => EDGES[rng.random_range(0..EDGES.len())],
                        1 => rng.random_range(small.clone()),
                        _ => rng.random(),
                    })
                    .collect();
                let sep = [" ", "\n", "\t", "   ", " \n "][rng.random_range(0..5)];
                inputs.push(render(&v, sep));
            }
            for e in EDGES {
                inputs.push(render(&vec![e; *count], " "));
            }
            let n = |s: &str| vec![s; *count].join(" ");
            for text in [
                String::new(),
                "x".into(),
                " ".into(),
                "-".into(),
                "+".into(),
                vec!["1"; count - 1].join(" "),
                format!("{} x", vec!["1"; count - 1].join(" ")),
                n("+7"),
                n("-0"),
                n("007"),
                n("2147483648"),
                n("-2147483649"),
                n("99999999999"),
                n("12abc"),
                format!("  {}\n\n", n("3")),
            ] {
                inputs.push(Input::stdin(text));
            }
        }
        Reads::Line => {
            const ALPHABET: &[u8] = b"aeiouyAEYbz \n\0\x80\xff!";
            inputs.push(Input::stdin(""));
            for &a in ALPHABET {
                inputs.push(Input::stdin([a]));
                for &b in ALPHABET {
                    inputs.push(Input::stdin([a, b]));
                }
            }
            for i in 0..random {
                let len = rng.random_range(0..=12);
                let line: Vec<u8> = (0..len)
                    .map(|_| match i % 3 {
                        0 => ALPHABET[rng.random_range(0..ALPHABET.len())],
                        1 => rng.random_range(b' '..=b'~'),
                        _ => rng.random(),
                    })
                    .collect();
                inputs.push(Input::stdin(line));
            }
            for text in [
                &b"hello world\n"[..],
                b"rhythm\n",
                b"The quick brown fox jumps over the lazy dog.\n",
                b"two\nlines\n",
                b"no newline",
                &[b'a'; 150],
                &[b'\xff'; 120],
            ] {
                inputs.push(Input::stdin(text));
            }
        }
    }
    inputs
}
