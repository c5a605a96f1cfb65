//! The native side of fuzzing: one process of the fuzz build
//! (`runtime/native/psychic_fuzz.c`), which forks a child per revision and
//! input, and the coverage map it shares with psychic.
//!
//! The fuzz build (`compile::Toolchain::fuzz_server`) renames the program's
//! `main`, counts edges with `-fsanitize-coverage=trace-pc-guard` into a map
//! shared with psychic, and makes the fuzz server `main`. psychic starts it
//! once, at psychic's priority; each fuzz run's child lowers its own (`nice`
//! 10), to take what the engine leaves. The server probes the input's shape
//! (revision 0's `klee_make_symbolic` sizes and names on an input of zeros, and
//! whether it reads stdin), then for each input forks one child per revision
//! (exit, crashes and global state stay the child's, as in a process of its
//! own) and answers each child's wait status and a hash of its stdout. An input
//! is the objects' bytes in call order, then stdin's text; the native runtime's
//! `__psychic_stream` feeds `klee_make_symbolic` from it. The fuzz build links
//! no sanitizer runtime (`-fno-sanitize-link-runtime`): ours is the two
//! trace-pc-guard callbacks, and the common one's 9 MiB of `.bss` would be
//! copied back before every enumeration run (`sweep.rs`).

use std::io::{self, Read, Write};
use std::path::Path;
use std::process::{Child, ChildStdin, ChildStdout, Command, Stdio};
use std::time::Duration;

/// Bytes of the coverage map: a power of two, as the server masks indices.
pub const MAP_SIZE: usize = 1 << 16;

/// One klee_make_symbolic call of the program, as revision 0 makes them on an
/// empty input: the fuzz input's objects, in order.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Slot {
    pub name: String,
    pub size: usize,
}

/// What one revision did on one input, as the fuzz server sees it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Run {
    /// The wait status, or `None` when the run ran out of time.
    pub status: Option<i32>,
    /// FNV-1a of everything it wrote to stdout; of a run that ran out of
    /// time, of the first 4096 bytes, or 0 when it wrote fewer.
    pub stdout: u64,
    /// The same of stderr, when the server keeps it (`Server::spawn`); else 0.
    pub stderr: u64,
}

impl Run {
    /// The runtime's exit status for an input outside the `klee_assume`d
    /// domain (`runtime/native/psychic_native.c`).
    pub fn violates_assume(&self) -> bool {
        self.status.is_some_and(|s| libc::WIFEXITED(s) && libc::WEXITSTATUS(s) == 120)
    }
}

/// The shared coverage map: a file mapped into psychic and the server.
pub struct CoverageMap {
    ptr: *mut u8,
    _file: tempfile::NamedTempFile,
}

impl CoverageMap {
    pub fn new() -> io::Result<Self> {
        let file = tempfile::Builder::new().prefix("psychic-fuzz-map-").tempfile()?;
        file.as_file().set_len(MAP_SIZE as u64)?;
        use std::os::fd::AsRawFd;
        // SAFETY: a fresh file of MAP_SIZE bytes, mapped shared for reading
        // and writing; unmapped in Drop, after which nothing reads the pointer.
        let ptr = unsafe {
            libc::mmap(
                std::ptr::null_mut(),
                MAP_SIZE,
                libc::PROT_READ | libc::PROT_WRITE,
                libc::MAP_SHARED,
                file.as_file().as_raw_fd(),
                0,
            )
        };
        if ptr == libc::MAP_FAILED {
            return Err(io::Error::last_os_error());
        }
        Ok(CoverageMap { ptr: ptr.cast(), _file: file })
    }

    pub fn path(&self) -> &Path {
        self._file.path()
    }

    pub fn as_mut_ptr(&self) -> *mut u8 {
        self.ptr
    }
}

impl Drop for CoverageMap {
    fn drop(&mut self) {
        // SAFETY: mapped in new() with this length.
        unsafe { libc::munmap(self.ptr.cast(), MAP_SIZE) };
    }
}

/// A running fuzz server.
pub struct Server {
    child: Child,
    to: ChildStdin,
    from: ChildStdout,
    /// The revisions it runs, in the order of its replies.
    pub revisions: Vec<usize>,
    pub shape: Vec<Slot>,
    /// The program read stdin when the server probed its shape.
    pub reads_stdin: bool,
    /// The words after argv[0] the server runs the program with.
    args: Vec<std::ffi::OsString>,
}

impl Server {
    /// Starts `binary` with the program's `args`; it runs `revisions` on
    /// every input, each for at most `timeout`, and keeps their stderr if
    /// `stderr` (else it is thrown away).
    pub fn spawn(
        binary: &Path,
        args: &[std::ffi::OsString],
        map: &CoverageMap,
        revisions: Vec<usize>,
        timeout: Duration,
        stderr: bool,
    ) -> io::Result<Server> {
        let mut command = Command::new(std::path::absolute(binary)?);
        if stderr {
            command.env("PSYCHIC_FUZZ_STDERR", "1");
        }
        let mut child = command
            .args(args)
            .env("PSYCHIC_FUZZ_MAP", map.path())
            .env("PSYCHIC_FUZZ_MAP_SIZE", MAP_SIZE.to_string())
            .env("PSYCHIC_FUZZ_MS", timeout.as_millis().max(1).to_string())
            .env(
                "PSYCHIC_FUZZ_REVISIONS",
                revisions.iter().map(usize::to_string).collect::<Vec<_>>().join(","),
            )
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()?;
        let to = child.stdin.take().expect("stdin is piped");
        let mut from = child.stdout.take().expect("stdout is piped");
        let mut magic = [0u8; 4];
        from.read_exact(&mut magic)?;
        if &magic != b"PSYF" {
            return Err(io::Error::other("the fuzz server did not start"));
        }
        let count = read_u32(&mut from)?;
        let mut shape = Vec::new();
        for _ in 0..count {
            let size = read_u32(&mut from)? as usize;
            let mut name = vec![0u8; read_u32(&mut from)? as usize];
            from.read_exact(&mut name)?;
            shape.push(Slot { name: String::from_utf8_lossy(&name).into_owned(), size });
        }
        let reads_stdin = read_u32(&mut from)? != 0;
        Ok(Server { child, to, from, revisions, shape, reads_stdin, args: args.to_vec() })
    }

    /// Runs every revision on `input` (objects, then stdin's text) with the
    /// words `args` after argv[0].
    pub fn run(&mut self, args: &[std::ffi::OsString], input: &[u8]) -> io::Result<Vec<Run>> {
        if args != self.args {
            let mut req = Vec::new();
            req.extend_from_slice(&SET_ARGS.to_le_bytes());
            req.extend_from_slice(&(args.len() as u32).to_le_bytes());
            for a in args {
                let a = a.as_encoded_bytes();
                req.extend_from_slice(&(a.len() as u32).to_le_bytes());
                req.extend_from_slice(a);
            }
            self.to.write_all(&req)?;
            self.args = args.to_vec();
        }
        let len = u32::try_from(input.len()).map_err(io::Error::other)?;
        if len >= SET_ARGS {
            return Err(io::Error::other("a fuzz input of 4 GiB"));
        }
        self.to.write_all(&len.to_le_bytes())?;
        self.to.write_all(input)?;
        self.to.flush()?;
        let mut out = Vec::with_capacity(self.revisions.len());
        for _ in &self.revisions {
            let status = read_u32(&mut self.from)? as i32;
            let mut h = [0u8; 16];
            self.from.read_exact(&mut h)?;
            let hash = |b: &[u8]| u64::from_le_bytes(b.try_into().expect("8 bytes"));
            out.push(Run {
                status: (status != -1).then_some(status),
                stdout: hash(&h[..8]),
                stderr: hash(&h[8..]),
            });
        }
        Ok(out)
    }
}

/// The request that sets the words the program runs with.
const SET_ARGS: u32 = 0xffff_fffe;

/// One object of an enumerated box: `count` values from `first`, written in
/// `size` bytes, little-endian.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Range {
    pub size: u32,
    pub first: i64,
    pub count: u64,
}

/// What one revision did on the inputs of a box it ran.
pub struct Enumerated {
    /// One outcome per input (see `psychic_fuzz.c`): equal outcomes, equal
    /// behaviour under the outputs asked for. Fewer than the box has where
    /// time ran out: the inputs before the first it did not run.
    pub outcomes: Vec<u64>,
    /// Runs that crashed or ran out of time.
    pub abnormal: u32,
    /// Some run asked for more symbolic bytes than the box has.
    pub asked_more: bool,
    /// The meta-branch sites some run reached.
    pub reached: Vec<u32>,
}

/// The outcome of every run outside the `klee_assume`d domain.
pub const OUT_OF_DOMAIN: u64 = 0x5053_5943_4849_4e00;

/// The outcome of a run a signal ended, with the wait status's low byte
/// (the signal, and 0x80 where it dumped core).
pub const CRASHED: u64 = 0x5053_5943_4849_4e10;

impl Server {
    /// Runs every revision on every input of `ranges` (the first object's
    /// values varying slowest); `flags` say which outputs count (1: exit
    /// status, 2: stdout, 4: psychic_output records; 8: psychic waits for
    /// it), `jobs` revisions at once, no run starting after `time`. One
    /// answer per revision, in the order of `revisions`.
    pub fn enumerate(
        &mut self,
        ranges: &[Range],
        flags: u32,
        jobs: u32,
        time: Option<Duration>,
        sites: u32,
    ) -> io::Result<Vec<Enumerated>> {
        let mut req = Vec::new();
        req.extend_from_slice(&u32::MAX.to_le_bytes());
        req.extend_from_slice(&flags.to_le_bytes());
        req.extend_from_slice(&jobs.to_le_bytes());
        // 0 is no limit: a limit rounds up to a millisecond at least.
        let ms = time.map_or(0, |t| u64::try_from(t.as_millis()).unwrap_or(u64::MAX).max(1));
        req.extend_from_slice(&ms.to_le_bytes());
        req.extend_from_slice(&sites.to_le_bytes());
        req.extend_from_slice(&(ranges.len() as u32).to_le_bytes());
        for r in ranges {
            req.extend_from_slice(&r.size.to_le_bytes());
            req.extend_from_slice(&r.first.to_le_bytes());
            req.extend_from_slice(&r.count.to_le_bytes());
        }
        self.to.write_all(&req)?;
        self.to.flush()?;
        let mut out = Vec::with_capacity(self.revisions.len());
        for _ in &self.revisions {
            let abnormal = read_u32(&mut self.from)?;
            let asked_more = read_u32(&mut self.from)? != 0;
            let mut words = vec![0u8; sites.div_ceil(64) as usize * 8];
            self.from.read_exact(&mut words)?;
            let reached = (0..sites).filter(|&s| words[(s / 8) as usize] & (1 << (s % 8)) != 0).collect();
            let mut done = [0u8; 8];
            self.from.read_exact(&mut done)?;
            let mut bytes = vec![0u8; u64::from_le_bytes(done) as usize * 8];
            self.from.read_exact(&mut bytes)?;
            let outcomes =
                bytes.chunks_exact(8).map(|c| u64::from_le_bytes(c.try_into().expect("8 bytes"))).collect();
            out.push(Enumerated { outcomes, abnormal, asked_more, reached });
        }
        Ok(out)
    }

    pub fn id(&self) -> u32 {
        self.child.id()
    }
}

impl Drop for Server {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

fn read_u32(r: &mut impl Read) -> io::Result<u32> {
    let mut b = [0u8; 4];
    r.read_exact(&mut b)?;
    Ok(u32::from_le_bytes(b))
}
