//! KLEE's `.ktest` format (versions 1-3 read, version 3 written), so that KLEE's
//! own `ktest-tool` reads psychic's tests and psychic reads KLEE's.
//!
//! Layout: magic `KTEST` (or the old `BOUT\n`), then big-endian u32 fields: the
//! version; the program arguments, each as (length, bytes); from version 2,
//! symArgvs and symArgvLen; then the objects, each as (name length, name, size,
//! bytes).

use std::fmt::Write as _;
use std::io;
use std::path::{Path, PathBuf};

pub const VERSION: u32 = 3;

#[derive(Debug, Clone, PartialEq, Eq, Default, serde::Serialize, serde::Deserialize)]
pub struct KTest {
    /// The program's command line as recorded (argv[0] first).
    pub args: Vec<String>,
    pub sym_argvs: u32,
    pub sym_argv_len: u32,
    pub objects: Vec<Object>,
}

#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct Object {
    pub name: String,
    pub bytes: Vec<u8>,
}

#[derive(Debug, thiserror::Error)]
pub enum KTestError {
    #[error("{}: {err}", path.display())]
    Io { path: PathBuf, err: io::Error },
    #[error("{}: not a ktest file: {reason} (at byte {offset})", path.display())]
    Malformed { path: PathBuf, offset: usize, reason: String },
}

impl KTest {
    pub fn read(path: &Path) -> Result<KTest, KTestError> {
        let bytes = std::fs::read(path).map_err(|err| KTestError::Io { path: path.into(), err })?;
        Self::parse(&bytes).map_err(|(offset, reason)| KTestError::Malformed {
            path: path.into(),
            offset,
            reason,
        })
    }

    pub fn write(&self, path: &Path) -> Result<(), KTestError> {
        std::fs::write(path, self.to_bytes()).map_err(|err| KTestError::Io { path: path.into(), err })
    }

    /// Parses a ktest image; an error carries the byte offset and the reason.
    pub fn parse(bytes: &[u8]) -> Result<KTest, (usize, String)> {
        let mut r = Reader { bytes, pos: 0 };
        let magic = r.take(5)?;
        if magic != b"KTEST" && magic != b"BOUT\n" {
            return Err((0, "bad magic (expected \"KTEST\")".into()));
        }
        let version = r.u32()?;
        if !(1..=VERSION).contains(&version) {
            return Err((5, format!("unsupported version {version}")));
        }
        let nargs = r.u32()?;
        let mut args = Vec::new();
        for _ in 0..nargs {
            args.push(String::from_utf8_lossy(r.blob()?).into_owned());
        }
        let (sym_argvs, sym_argv_len) = if version >= 2 { (r.u32()?, r.u32()?) } else { (0, 0) };
        let nobjects = r.u32()?;
        let mut objects = Vec::new();
        for _ in 0..nobjects {
            let name = String::from_utf8_lossy(r.blob()?).into_owned();
            let bytes = r.blob()?.to_vec();
            objects.push(Object { name, bytes });
        }
        if r.pos != bytes.len() {
            return Err((r.pos, format!("{} trailing bytes", bytes.len() - r.pos)));
        }
        Ok(KTest { args, sym_argvs, sym_argv_len, objects })
    }

    pub fn to_bytes(&self) -> Vec<u8> {
        let mut out = b"KTEST".to_vec();
        let u32be = |out: &mut Vec<u8>, v: u32| out.extend_from_slice(&v.to_be_bytes());
        let blob = |out: &mut Vec<u8>, b: &[u8]| {
            out.extend_from_slice(&(b.len() as u32).to_be_bytes());
            out.extend_from_slice(b);
        };
        u32be(&mut out, VERSION);
        u32be(&mut out, self.args.len() as u32);
        for a in &self.args {
            blob(&mut out, a.as_bytes());
        }
        u32be(&mut out, self.sym_argvs);
        u32be(&mut out, self.sym_argv_len);
        u32be(&mut out, self.objects.len() as u32);
        for o in &self.objects {
            blob(&mut out, o.name.as_bytes());
            blob(&mut out, &o.bytes);
        }
        out
    }

    /// The listing `ktest-tool` prints, for `psychic show`.
    pub fn render(&self, path: &Path) -> String {
        let mut s = String::new();
        let quoted: Vec<String> = self.args.iter().map(|a| format!("'{a}'")).collect();
        let _ = writeln!(s, "ktest file : '{}'", path.display());
        let _ = writeln!(s, "args       : [{}]", quoted.join(", "));
        let _ = writeln!(s, "num objects: {}", self.objects.len());
        for (i, o) in self.objects.iter().enumerate() {
            let _ = writeln!(s, "object {i}: name: '{}'", o.name);
            let _ = writeln!(s, "object {i}: size: {}", o.bytes.len());
            let _ = writeln!(s, "object {i}: data: b'{}'", escape_bytes(&o.bytes));
            let hex: String = o.bytes.iter().map(|b| format!("{b:02x}")).collect();
            let _ = writeln!(s, "object {i}: hex : 0x{hex}");
            if let Some((int, uint)) = o.as_ints() {
                let _ = writeln!(s, "object {i}: int : {int}");
                let _ = writeln!(s, "object {i}: uint: {uint}");
            }
            let text: String = o
                .bytes
                .iter()
                .map(|&b| if b.is_ascii_graphic() || b == b' ' { b as char } else { '.' })
                .collect();
            let _ = writeln!(s, "object {i}: text: {text}");
        }
        s
    }
}

impl Object {
    /// The object as a little-endian signed and unsigned integer, for the sizes
    /// ktest-tool decodes (1, 2, 4 and 8 bytes).
    pub fn as_ints(&self) -> Option<(i64, u64)> {
        let b = &self.bytes;
        let (int, uint) = match b.len() {
            1 => (b[0] as i8 as i64, b[0] as u64),
            2 => {
                let v = u16::from_le_bytes([b[0], b[1]]);
                (v as i16 as i64, v as u64)
            }
            4 => {
                let v = u32::from_le_bytes(b[..4].try_into().ok()?);
                (v as i32 as i64, v as u64)
            }
            8 => {
                let v = u64::from_le_bytes(b[..8].try_into().ok()?);
                (v as i64, v)
            }
            _ => return None,
        };
        Some((int, uint))
    }
}

/// Python-style bytes escaping, as ktest-tool shows data.
fn escape_bytes(bytes: &[u8]) -> String {
    bytes
        .iter()
        .map(|&b| match b {
            b'\\' => "\\\\".to_string(),
            b'\'' => "\\'".to_string(),
            b'\n' => "\\n".to_string(),
            b'\r' => "\\r".to_string(),
            b'\t' => "\\t".to_string(),
            0x20..=0x7e => (b as char).to_string(),
            _ => format!("\\x{b:02x}"),
        })
        .collect()
}

struct Reader<'a> {
    bytes: &'a [u8],
    pos: usize,
}

impl<'a> Reader<'a> {
    fn take(&mut self, n: usize) -> Result<&'a [u8], (usize, String)> {
        let end = self.pos.checked_add(n).filter(|&e| e <= self.bytes.len());
        match end {
            Some(end) => {
                let s = &self.bytes[self.pos..end];
                self.pos = end;
                Ok(s)
            }
            None => Err((self.pos, format!("truncated: {n} more bytes expected"))),
        }
    }

    fn u32(&mut self) -> Result<u32, (usize, String)> {
        Ok(u32::from_be_bytes(self.take(4)?.try_into().expect("took 4 bytes")))
    }

    fn blob(&mut self) -> Result<&'a [u8], (usize, String)> {
        let n = self.u32()? as usize;
        self.take(n)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn round_trip_and_truncation() {
        let t = KTest {
            args: vec!["prog.bc".into(), "--sym-arg".into()],
            sym_argvs: 1,
            sym_argv_len: 4,
            objects: vec![
                Object { name: "x".into(), bytes: vec![1, 0, 0, 0] },
                Object { name: "buf".into(), bytes: vec![] },
            ],
        };
        let bytes = t.to_bytes();
        assert_eq!(KTest::parse(&bytes).unwrap(), t);
        for cut in 0..bytes.len() {
            assert!(KTest::parse(&bytes[..cut]).is_err(), "prefix of {cut} bytes parsed");
        }
    }
}
