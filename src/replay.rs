//! Native replay: runs a binary built by `compile::Toolchain::native` on one test,
//! as one revision, under a timeout, and records what it did.
//!
//! The result is an `Outcome` (stdout, stderr, exit status, signal); stdout and
//! stderr keep at most `MAX_CAPTURE` (1 MiB) each and say when they were cut.
//! The environment's files of a ktest (`crate::posix::replay_env`) are written
//! into a scratch directory that is the program's working directory. The
//! budget all replays of a command share is `crate::diff::confirm`'s
//! `ReplayLimits`.

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
    // A bare name would be looked up on PATH; the user means the file here.
    let mut cmd = Command::new(std::path::absolute(req.binary)?);
    // Files live in a scratch directory that is the working directory.
    let workdir = if req.env.files.is_empty() {
        None
    } else {
        let dir = tempfile::Builder::new().prefix("psychic-replay-").tempdir()?;
        for (name, bytes) in &req.env.files {
            std::fs::write(dir.path().join(name), bytes)?;
        }
        cmd.current_dir(dir.path());
        Some(dir)
    };
    let ktest = req.ktest.map(std::path::absolute).transpose()?;
    cmd.args(&req.env.args)
        .env("PSYCHIC_REVISION", req.revision.to_string())
        // Memory errors become a deterministic SIGABRT, leaks are not behaviour.
        .env("ASAN_OPTIONS", "abort_on_error=1:detect_leaks=0:symbolize=0")
        .env_remove("MALLOC_PERTURB_")
        .env_remove("PSYCHIC_STACK_SHIFT")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    if req.perturb {
        // ASan fills fresh heap memory with 0xbe by default.
        cmd.env("ASAN_OPTIONS", "abort_on_error=1:detect_leaks=0:symbolize=0:malloc_fill_byte=90")
            .env("MALLOC_PERTURB_", "165")
            .env("PSYCHIC_STACK_SHIFT", "x".repeat(1000));
    }
    match &ktest {
        Some(k) => cmd.env("KTEST_FILE", k),
        None => cmd.env_remove("KTEST_FILE"),
    };
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
