//! Native replay: runs a binary built by `compile::Toolchain::native` on one test,
//! as one revision, under a timeout, and records what it did.
//!
//! The result is an `Outcome` (stdout, stderr, exit status, signal); stdout and
//! stderr keep at most `MAX_CAPTURE` (1 MiB) each and say when they were cut.
//! The environment's files of a ktest (`crate::posix::replay_env`) are written
//! into a scratch directory that is the program's working directory. The
//! budget all replays of a command share is `crate::diff::confirm`'s
//! `ReplayLimits`. A [`Server`] runs one test on many revisions, a fork each,
//! for confirmation.

use std::io::{Read, Write};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::Duration;

use wait_timeout::ChildExt;

use crate::posix::ReplayEnv;

/// What one native run did. Two runs behave alike when their outcomes are equal.
#[derive(Debug, Clone, PartialEq, Eq, Hash, serde::Serialize, serde::Deserialize)]
pub struct Outcome {
    #[serde(with = "lossy_text")]
    pub stdout: Vec<u8>,
    #[serde(skip)]
    pub stderr: Vec<u8>,
    /// The exit status, if the process exited.
    pub exit_status: Option<i32>,
    /// The terminating signal, if a signal ended it.
    pub signal: Option<i32>,
    /// The run was killed at the timeout: what it printed is the start of
    /// what it would have printed.
    pub timed_out: bool,
    /// stdout (stderr) went on past `MAX_CAPTURE` bytes, which were kept.
    #[serde(skip)]
    pub stdout_cut: bool,
    #[serde(skip)]
    pub stderr_cut: bool,
}

/// Bytes of stdout and of stderr kept of one run: a program that loops
/// printing would fill memory within its timeout, and every observation of
/// every test is kept until the report.
pub const MAX_CAPTURE: usize = 1 << 20;

impl Outcome {
    /// A one-line summary such as `exit 1` or `signal 6 (SIGABRT)`.
    pub fn status_text(&self) -> String {
        if self.timed_out {
            "timeout".to_string()
        } else if let Some(sig) = self.signal {
            format!("signal {sig} ({})", signal_name(sig))
        } else {
            format!("exit {}", self.exit_status.unwrap_or(-1))
        }
    }
}

pub fn signal_name(sig: i32) -> &'static str {
    match sig {
        1 => "SIGHUP",
        2 => "SIGINT",
        4 => "SIGILL",
        5 => "SIGTRAP",
        6 => "SIGABRT",
        7 => "SIGBUS",
        8 => "SIGFPE",
        9 => "SIGKILL",
        11 => "SIGSEGV",
        13 => "SIGPIPE",
        14 => "SIGALRM",
        15 => "SIGTERM",
        _ => "signal",
    }
}

/// How to run one replay.
#[derive(Debug, Clone)]
pub struct Request<'a> {
    pub binary: &'a Path,
    pub ktest: Option<&'a Path>,
    pub revision: usize,
    /// argv after argv[0], stdin, and files in the working directory.
    pub env: ReplayEnv,
    pub timeout: Duration,
    /// Where `psychic_output` annotations go, if they are wanted.
    pub annotations: Option<PathBuf>,
    /// Run with other garbage: heap memory filled with another byte (ASan's
    /// `malloc_fill_byte`, glibc's `MALLOC_PERTURB_`) and the stack shifted
    /// by a larger environment. An outcome that changes reads memory it
    /// never wrote.
    pub perturb: bool,
}

impl<'a> Request<'a> {
    pub fn new(binary: &'a Path, ktest: Option<&'a Path>, revision: usize) -> Self {
        Request {
            binary,
            ktest,
            revision,
            env: ReplayEnv::default(),
            timeout: Duration::from_secs(10),
            annotations: None,
            perturb: false,
        }
    }
}

pub fn run(req: &Request) -> std::io::Result<Outcome> {
    // Files live in a scratch directory that is the working directory.
    let workdir = scratch_dir(&req.env)?;
    let mut cmd = command(req.binary, req.ktest, &req.env.args, req.perturb)?;
    if let Some(dir) = &workdir {
        cmd.current_dir(dir.path());
    }
    cmd.env("PSYCHIC_REVISION", req.revision.to_string());
    match &req.annotations {
        Some(a) => cmd.env("PSYCHIC_ANNOTATIONS", a),
        None => cmd.env_remove("PSYCHIC_ANNOTATIONS"),
    };
    let mut child = cmd.spawn()?;
    let stdin = req.env.stdin.clone();
    let mut child_in = child.stdin.take().expect("stdin is piped");
    // A program that never reads stdin must not block the writer: write from a thread.
    let writer = std::thread::spawn(move || {
        let _ = child_in.write_all(&stdin);
    });
    let out = drain(child.stdout.take().expect("stdout is piped"));
    let err = drain(child.stderr.take().expect("stderr is piped"));
    let (status, timed_out) = match child.wait_timeout(req.timeout)? {
        Some(status) => (status, false),
        None => {
            let _ = child.kill();
            (child.wait()?, true)
        }
    };
    let _ = writer.join();
    drop(workdir);
    use std::os::unix::process::ExitStatusExt;
    let (stdout, stdout_cut) = out.join().unwrap_or_default();
    let (stderr, stderr_cut) = err.join().unwrap_or_default();
    Ok(Outcome {
        stdout,
        stderr,
        exit_status: status.code(),
        signal: if timed_out { None } else { status.signal() },
        timed_out,
        stdout_cut,
        stderr_cut,
    })
}

/// A confirmation server (`runtime/native/psychic_confirm.c`): one process
/// of a replay build that runs one test (its ktest, arguments, stdin) on
/// revision after revision, forking each run from before the program's
/// start. A run is what [`run`] makes of a [`Request`] with the same test, but
/// for what a fresh process differs in by nature (its pid, the memory its
/// loader left), and the environment holds no revision: a program that
/// prints its environment is one program on every revision.
pub struct Server {
    child: std::process::Child,
    to: std::process::ChildStdin,
    from: std::io::BufReader<std::process::ChildStdout>,
    env: ReplayEnv,
}

impl Server {
    pub fn spawn(
        binary: &Path,
        ktest: Option<&Path>,
        env: &ReplayEnv,
        perturb: bool,
    ) -> std::io::Result<Server> {
        let mut cmd = command(binary, ktest, &env.args, perturb)?;
        cmd.env("PSYCHIC_REPLAY_SERVER", "1")
            .env_remove("PSYCHIC_REVISION")
            .env_remove("PSYCHIC_ANNOTATIONS");
        let mut child = cmd.spawn()?;
        let to = child.stdin.take().expect("stdin is piped");
        let from = std::io::BufReader::new(child.stdout.take().expect("stdout is piped"));
        let mut server = Server { child, to, from, env: env.clone() };
        let text = &server.env.stdin;
        let mut first = (text.len() as u32).to_le_bytes().to_vec();
        first.extend_from_slice(text);
        let mut magic = [0u8; 4];
        let ready = server.to.write_all(&first).and_then(|_| server.from.read_exact(&mut magic));
        if ready.is_err() || &magic != b"PSYR" {
            return Err(server.failure(binary));
        }
        Ok(server)
    }

    /// Runs `revision` within `timeout`; its `psychic_output` records go to
    /// `annotations`, and the meta-branch sites it reaches to `sites`, one
    /// number a line. Also: the time the run took.
    pub fn run(
        &mut self,
        revision: usize,
        timeout: Duration,
        annotations: Option<&Path>,
        sites: Option<&Path>,
    ) -> std::io::Result<(Outcome, Duration)> {
        let workdir = scratch_dir(&self.env)?;
        let mut req = Vec::new();
        req.extend((revision as u32).to_le_bytes());
        req.extend((timeout.as_millis().clamp(1, u32::MAX as u128) as u32).to_le_bytes());
        for path in [annotations, workdir.as_ref().map(|d| d.path()), sites] {
            let bytes = path.map(|p| p.as_os_str().as_encoded_bytes()).unwrap_or_default();
            req.extend((bytes.len() as u32).to_le_bytes());
            req.extend_from_slice(bytes);
        }
        self.to.write_all(&req)?;
        self.to.flush()?;
        let mut head = [0u8; 16];
        self.from.read_exact(&mut head)?;
        let word = |i: usize| u32::from_le_bytes(head[i..i + 4].try_into().expect("4 bytes"));
        let took = Duration::from_micros(u64::from_le_bytes(head[8..16].try_into().expect("8 bytes")));
        let (stdout, stdout_cut) = self.capture()?;
        let (stderr, stderr_cut) = self.capture()?;
        let (kind, value) = (word(0), word(4) as i32);
        let outcome = Outcome {
            stdout,
            stderr,
            exit_status: (kind == 0).then_some(value),
            signal: (kind == 1).then_some(value),
            timed_out: kind == 2,
            stdout_cut,
            stderr_cut,
        };
        Ok((outcome, took))
    }

    fn capture(&mut self) -> std::io::Result<(Vec<u8>, bool)> {
        let mut head = [0u8; 5];
        self.from.read_exact(&mut head)?;
        let len = u32::from_le_bytes(head[..4].try_into().expect("4 bytes")) as usize;
        if len > MAX_CAPTURE {
            return Err(std::io::Error::other("the confirmation server answered out of protocol"));
        }
        let mut bytes = vec![0u8; len];
        self.from.read_exact(&mut bytes)?;
        Ok((bytes, head[4] != 0))
    }

    /// Why the server did not start: what it said, or that it is no
    /// replay build of this psychic.
    fn failure(&mut self, binary: &Path) -> std::io::Error {
        let _ = self.child.kill();
        let _ = self.child.wait();
        let mut said = String::new();
        if let Some(mut e) = self.child.stderr.take() {
            let _ = e.read_to_string(&mut said);
        }
        std::io::Error::other(format!(
            "{}: not a confirmation server (a replay build of this psychic?){}{}",
            binary.display(),
            if said.is_empty() { "" } else { ": " },
            said.trim()
        ))
    }
}

impl Drop for Server {
    fn drop(&mut self) {
        // The end of its input ends it; a server that is stuck is killed.
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// AddressSanitizer's options for every native run of an ASan build.
pub const ASAN_OPTIONS: &str = "abort_on_error=1:detect_leaks=0:symbolize=0:handle_sigfpe=0";

/// The command of a replay binary on a test, as every run gets it: its
/// arguments, the ktest, and the environment that makes memory errors a
/// deterministic abort and (`perturb`) fills memory with other garbage.
fn command(
    binary: &Path,
    ktest: Option<&Path>,
    args: &[std::ffi::OsString],
    perturb: bool,
) -> std::io::Result<Command> {
    // A bare name would be looked up on PATH; the user means the file here.
    let mut cmd = Command::new(std::path::absolute(binary)?);
    cmd.args(args)
        // Memory errors become a deterministic SIGABRT, leaks are not
        // behaviour, and a division by zero is the SIGFPE of the program's
        // own build (ASan's handler would make it a SIGABRT too).
        .env("ASAN_OPTIONS", ASAN_OPTIONS)
        .env_remove("MALLOC_PERTURB_")
        .env_remove("PSYCHIC_STACK_SHIFT")
        .env_remove("PSYCHIC_REPLAY_SERVER")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    if perturb {
        // ASan fills fresh heap memory with 0xbe by default.
        cmd.env("ASAN_OPTIONS", format!("{ASAN_OPTIONS}:malloc_fill_byte=90"))
            .env("MALLOC_PERTURB_", "165")
            .env("PSYCHIC_STACK_SHIFT", "x".repeat(1000));
    }
    match ktest.map(std::path::absolute).transpose()? {
        Some(k) => cmd.env("KTEST_FILE", k),
        None => cmd.env_remove("KTEST_FILE"),
    };
    Ok(cmd)
}

/// The scratch working directory of a run whose test has files, with them.
fn scratch_dir(env: &ReplayEnv) -> std::io::Result<Option<tempfile::TempDir>> {
    if env.files.is_empty() {
        return Ok(None);
    }
    let dir = tempfile::Builder::new().prefix("psychic-replay-").tempdir()?;
    for (name, bytes) in &env.files {
        std::fs::write(dir.path().join(name), bytes)?;
    }
    Ok(Some(dir))
}

/// Reads `r` to its end (the child must never block on a full pipe), keeping
/// the first `MAX_CAPTURE` bytes; whether more came.
fn drain(mut r: impl Read + Send + 'static) -> std::thread::JoinHandle<(Vec<u8>, bool)> {
    std::thread::spawn(move || {
        let mut kept = Vec::new();
        let mut buf = vec![0u8; 1 << 16];
        let mut cut = false;
        loop {
            match r.read(&mut buf) {
                Ok(0) => break,
                Err(e) if e.kind() == std::io::ErrorKind::Interrupted => continue,
                // What came is kept, and known to be only the start.
                Err(_) => {
                    cut = true;
                    break;
                }
                Ok(n) => {
                    let room = MAX_CAPTURE - kept.len();
                    kept.extend_from_slice(&buf[..n.min(room)]);
                    cut |= n > room;
                }
            }
        }
        (kept, cut)
    })
}

/// Serialises program output as text where it is UTF-8, lossily otherwise;
/// the exact bytes stay in the `.ktest`-side files.
mod lossy_text {
    pub fn serialize<S: serde::Serializer>(bytes: &[u8], s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(&String::from_utf8_lossy(bytes))
    }
    pub fn deserialize<'de, D: serde::Deserializer<'de>>(d: D) -> Result<Vec<u8>, D::Error> {
        let s: String = serde::Deserialize::deserialize(d)?;
        Ok(s.into_bytes())
    }
}
